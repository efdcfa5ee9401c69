"""Pages of tables, for the sheets a championship or a season is scored on: the page's
header and footer, paragraphs of notes, and text tables that run over as many pages as
they need.

Tables are outlined boxes (shaded heads only when the ink mode fills areas); nothing is
told by colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sheetgen.render.common import BOX_PAD, EXTENT, TITLE_LEAST, draw_fitted, fit_text, fitted_text, text_box, wrap
from sheetgen.render.pdf import SCALE_LABEL, Meta, Sheet, render_pdf
from sheetgen.template import MM, Template

HEADER_MM = 17.0
FOOTER_MM = 7.0


def page_header(
    sheet: Sheet,
    title: str | tuple[str, str],
    subtitle: str | tuple[str, str],
    kind: str | tuple[str, str],
    page: int | None = None,
    pages: int | None = None,
) -> float:
    """Title block; returns the y (points) below it. Each of `title`, `subtitle` and `kind`
    is a text, or (name, end): a name cut short when it must be, then the rest whole. `page`
    and `pages` print "page N of M" under the kind; without them none is printed (the PDF's
    own footer numbers every page: `Sheet`'s page number)."""
    x, top, right = sheet.left, sheet.top, sheet.right
    # the kind of sheet and the page number on the right (the kind may hold a name: at most
    # half the width), the title in what they leave
    name, end = kind if isinstance(kind, tuple) else (kind, "")
    kind_text = fit_text(sheet, name, (right - x) / 2, sheet.t.sizes["small"], after=end)
    numbers = f"page {page} of {pages}" if page is not None and pages is not None else ""
    taken = max(sheet.text_width(kind_text.lines[0], size=kind_text.size), sheet.text_width(numbers, "small"))
    room = min((right - x) - 60 * MM, (right - x) - taken - 4 * MM)
    name, end = title if isinstance(title, tuple) else (title, "")
    fitted_text(sheet, x, top - 6 * MM, name, room, "title", bold=True, least=TITLE_LEAST, after=end)
    draw_fitted(sheet, right, top - 3.5 * MM, kind_text, align="right")
    if numbers:
        sheet.text(right, top - 7 * MM, numbers, "small", align="right")
    if subtitle:
        name, end = subtitle if isinstance(subtitle, tuple) else (subtitle, "")
        fitted_text(sheet, x, top - 11.5 * MM, name, right - x, "body", after=end)
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.line(x, top - 13.5 * MM, right, top - 13.5 * MM)
    return top - HEADER_MM * MM


def page_footer(sheet: Sheet, note: str = "") -> None:
    """The scale bar; a note to its right when it fits there, else just above it."""
    sheet.scale_bar(sheet.left, sheet.bottom + 1.5 * MM)
    if note:
        taken = sheet.left + 52 * MM + sheet.text_width(SCALE_LABEL, "small") + 6 * MM
        y = (
            sheet.bottom + 1.5 * MM
            if sheet.right - sheet.text_width(note, "small") > taken
            else sheet.bottom + 5.5 * MM
        )
        sheet.text(sheet.right, y, note, "small", align="right")


def paragraphs(
    sheet: Sheet, x: float, y: float, width: float, texts: Sequence[str], size_key: str = "small", leading: float = 3.3
) -> float:
    """Wrapped paragraphs from y down, `leading` mm apart; returns the y below them."""
    size = sheet.t.sizes[size_key]
    for text in texts:
        for line in wrap(sheet, text, width, size, hard=True) if text.split() else ():
            sheet.text(x, y, line, size=size)
            y -= leading * MM
    return y


@dataclass(frozen=True)
class Column:
    head: str
    width: float  # points
    align: str = "center"
    #: the lines a value of the column may take (a long name wraps before it is cut)
    lines: int = 1


@dataclass(frozen=True)
class Row:
    """A table row: "title" (one label across the table), "row" or "total" (bold, heavy). A
    value is a text, or (name, end): a name, cut short when it must be, then an end kept
    whole ("Sweden", " race 2")."""

    kind: str
    values: tuple[str | tuple[str, str], ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    groups: tuple[tuple[str, int, int], ...] = ()  # (label, first column, columns spanned) above the heads
    row_h: float = 6.2 * MM
    head_h: float = 5.0 * MM
    #: the lines a column head may take (names wrap before they shrink; see `fit_heads`)
    head_lines: int = 1


def fit_heads(sheet: Sheet, table: Table) -> Table:
    """`table` with its heads' row made as tall as its heads need (up to `head_lines` lines
    of small bold type, wrapped before they shrink), never lower than it was."""
    size = sheet.t.sizes["small"]
    need = table.head_h
    for c in table.columns:
        if "\n" not in c.head:
            fitted = fit_text(sheet, c.head, c.width - 1.4 * MM, size, bold=True, lines=table.head_lines, single=size)
            need = max(need, EXTENT * fitted.size + (len(fitted.lines) - 1) * fitted.leading + BOX_PAD + 0.6 * MM)
    return replace(table, head_h=need)


def table_head(sheet: Sheet, table: Table, y: float) -> float:
    """The column heads (and the groups above them) from y down; returns the y below."""
    x = sheet.left
    starts = [x]
    for c in table.columns:
        starts.append(starts[-1] + c.width)
    if table.groups:
        gh = 5.5 * MM
        for label, first, span in table.groups:
            w = starts[first + span] - starts[first]
            if label:  # (a name: in two lines when one does not hold it)
                text_box(
                    sheet,
                    starts[first],
                    y - gh,
                    w,
                    gh,
                    label,
                    bold=True,
                    shaded=True,
                    size=sheet.t.sizes["body"],
                    width=sheet.ink.line_width,
                    lines=2,
                )
            else:  # a name to write in
                sheet.box(starts[first], y - gh, w, gh, shaded=True, width=sheet.ink.line_width)
        y -= gh
    for k, c in enumerate(table.columns):
        if "\n" not in c.head:
            single = sheet.t.sizes["small"] if table.head_lines > 1 else None
            text_box(
                sheet,
                starts[k],
                y - table.head_h,
                c.width,
                table.head_h,
                c.head,
                bold=True,
                shaded=True,
                align=c.align if c.align == "left" else "center",
                lines=table.head_lines,
                single=single,
            )
            continue
        # a head of two lines: the second in plain type (what a total row holds there)
        text_box(sheet, starts[k], y - table.head_h, c.width, table.head_h, shaded=True)
        size = sheet.t.sizes["small"]
        for n, line in enumerate(c.head.split("\n")[:2]):
            fitted = fit_text(sheet, line, c.width - 1.2 * MM, size, bold=n == 0, least=4.0)
            ly = y - table.head_h / 2 + (1.4 * MM if n == 0 else -1.4 * MM)
            sheet.text(
                starts[k] + c.width / 2,
                ly - 0.729 * fitted.size / 2,
                fitted.lines[0],
                bold=n == 0,
                size=fitted.size,
                align="center",
            )
    return y - table.head_h


def table_rows(sheet: Sheet, table: Table, y: float, rows: Sequence[Row], bottom: float) -> tuple[float, int]:
    """Rows from y down while they fit above `bottom`; returns (y reached, rows drawn)."""
    x = sheet.left
    width = sum(c.width for c in table.columns)
    drawn = 0
    for row in rows:
        h = table.row_h if row.kind != "title" else 5.2 * MM
        if y - h < bottom:
            break
        y -= h
        drawn += 1
        if row.kind == "title":
            text_box(sheet, x, y, width, h, row.label, bold=True, shaded=True, align="left", size=sheet.t.sizes["body"])
            continue
        heavy = row.kind == "total"
        cx = x
        for c, value in zip(table.columns, row.values):
            name, end = value if isinstance(value, tuple) else (value, "")
            text_box(
                sheet,
                cx,
                y,
                c.width,
                h,
                name,
                align=c.align,
                bold=heavy,
                size=sheet.t.sizes["body"],
                width=sheet.ink.line_width if heavy else None,
                lines=c.lines,
                after=end,
            )
            cx += c.width
        for _label, first, span in table.groups:  # heavier lines around each group
            gx = x + sum(c.width for c in table.columns[:first])
            sheet.box(gx, y, sum(c.width for c in table.columns[first : first + span]), h, width=sheet.ink.line_width)
    return y, drawn


def draw_table_pages(
    sheet: Sheet,
    table: Table,
    rows: Sequence[Row],
    header: Callable[[Sheet, int, bool], float],
    *,
    first_page: int,
    notes: Sequence[str] = (),
    before: Callable[[Sheet, float], float] | None = None,
    kind: str | None = None,
) -> int:
    """The table over as many pages as it needs, each page started by `header(sheet,
    page, continued)` (returns the y below it); `before` draws above the table on the first
    page, the notes follow it on the last. `kind`: what the pages are (`Sheet.end_page`).
    Returns the pages drawn."""
    done, page = 0, first_page
    bottom = sheet.bottom + FOOTER_MM * MM + 2 * MM
    while True:
        y = header(sheet, page, page != first_page)
        if before is not None and page == first_page:
            y = before(sheet, y)
        y_end, drawn = table_rows(sheet, table, table_head(sheet, table, y - 2 * MM), rows[done:], bottom)
        done += drawn
        if done >= len(rows):
            if not notes or y_end - _notes_height(sheet, notes) >= bottom:
                paragraphs(sheet, sheet.left, y_end - 5 * MM, sheet.right - sheet.left, notes)
            else:  # the notes need a page of their own
                page_footer(sheet)
                sheet.end_page(kind)
                page += 1
                paragraphs(sheet, sheet.left, header(sheet, page, True) - 5 * MM, sheet.right - sheet.left, notes)
            page_footer(sheet)
            sheet.end_page(kind)
            return page - first_page + 1
        if drawn == 0:
            raise RuntimeError("a table row is taller than the page")
        page_footer(sheet)
        sheet.end_page(kind)
        page += 1


def _notes_height(sheet: Sheet, notes: Sequence[str]) -> float:
    """Height (points) :func:`paragraphs` takes for `notes` across the page, and the gap above."""
    lines = sum(len(wrap(sheet, text, sheet.right - sheet.left, sheet.t.sizes["small"], hard=True)) for text in notes)
    return lines * 3.3 * MM + 6 * MM


def count_pages(template: Template, paper: str | None, draw: Callable[[Sheet], int]) -> int:
    """Pages a drawing takes (a dry run on a throwaway canvas)."""
    got = {}

    def run(sheet: Sheet) -> None:
        got["pages"] = draw(sheet)

    render_pdf(template, "normal", paper, Meta("", ""), run)
    return got["pages"]
