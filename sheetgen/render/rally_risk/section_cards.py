"""Rally Risk road-section cards: every section of a library as many times as the box has
it, on pages of cards side by side with cut marks outside the grid, then the reference card
of the house tables (`print_library`, a library file's printable); the print-and-play kit
(car tokens, markers and R.P.M. cards, then the gear simulators, :mod:`.kit`) follows the
cards.

Where the cards go (the card grid and its cut marks) comes from
:mod:`sheetgen.games.rally_risk.layout`; this module only draws it.
"""

from __future__ import annotations

from sheetgen.games.rally_risk.layout import CardGrid, card_grid, road_shape
from sheetgen.games.rally_risk.model import Library, Section, Side, Tables, Tag
from sheetgen.games.rally_risk.tables import card_key
from sheetgen.render.common import fit_size, fit_text, fitted_text, wrap
from sheetgen.render.pdf import Meta, Sheet, printed_elsewhere, render_pdf
from sheetgen.render.rally_risk.common import ARROW, draw_road, edge_label
from sheetgen.render.rally_risk.kit import draw_kit, draw_trackers
from sheetgen.render.rally_risk.reference_card import draw_reference_card
from sheetgen.template import MM, Template

CARD_HEADER_MM = 10.0  # library name, page number, card size note and the scale bar
MARK_GAP_MM = 1.0
MARK_LEN_MM = 3.5
TAG_WORDS = {
    Tag.STRAIGHT: "straight",
    Tag.FAST_ROAD: "fast road",
    Tag.CURVE: "curve",
    Tag.SHARP_CURVE: "sharp curve",
    Tag.FORD: "ford",
}


def card_text(section: Section) -> list[tuple[str, bool]]:
    """The lines printed in a card's free corner: (text, bold)."""
    tags = ", ".join(TAG_WORDS[t] for t in section.tags) or ("curve" if section.turns else "straight")
    lines = [(section.name, True), (tags, False), ("factors " + " ".join(str(f) for f in section.factors), False)]
    if section.fords:
        lines.append(
            (
                (
                    ("fords: spaces " if len(section.fords) > 1 else "ford: space ")
                    + ", ".join(str(f) for f in section.fords)
                ),
                False,
            )
        )
    return lines


def draw_section_card(
    sheet: Sheet, section: Section, x: float, y: float, size_mm: float, copy: int = 1, copies: int = 1
) -> None:
    """One road-section card of side `size_mm`, its bottom-left at (x, y) points."""
    road = road_shape(section, size_mm)
    sheet.box(x, y, size_mm * MM, size_mm * MM, width=sheet.ink.thin_width)
    draw_road(sheet, road, x, y)
    label = max(min(8.0, size_mm / 11), 5.5)
    edge_label(sheet, road, road.entry, road.entry.opposite, f"IN {ARROW[road.entry.opposite]}", label, x, y)
    edge_label(sheet, road, road.exit, road.exit, f"OUT {ARROW[road.exit]}", label, x, y)
    # the words in the free corner, upright, wrapped to the room the road leaves
    inset = 2.0
    room = ((size_mm - road.width) / 2 - 2 * inset) * MM
    body = max(min(6.5, size_mm / 12), 5.0)
    lines: list[tuple[str, float, bool]] = []
    (name, _bold), *rest = card_text(section) + [(f"copy {copy} of {copies}", False)]
    for text, bold in rest:
        for part in wrap(sheet, text, room, body, bold):
            lines.append((part, fit_size(sheet, part, room, body, bold), bold))
    # the section's name first, in the lines the corner has left (as deep as it is wide)
    size = body + 1.5
    left = ((size_mm - road.width) / 2 - inset) * MM - sum(s * 1.25 for _t, s, _b in lines)
    fitted = fit_text(sheet, name, room, size, bold=True, lines=max(1, int(left / (1.25 * size))), single=size)
    lines[:0] = [(part, fitted.size, True) for part in fitted.lines]
    ns, ew = road.free_corner
    lead = [s * 1.25 for _t, s, _b in lines]
    total = sum(lead)
    tx = x + inset * MM if ew is Side.W else x + size_mm * MM - inset * MM
    align = "left" if ew is Side.W else "right"
    ty = y + size_mm * MM - inset * MM if ns is Side.N else y + inset * MM + total
    for (text, size, bold), step in zip(lines, lead):
        ty -= step * 0.82
        sheet.text(tx, ty, text, bold=bold, size=size, align=align)
        ty -= step * 0.18


def card_plan(
    library: Library, template: Template, paper: str | None = None
) -> tuple[CardGrid, list[list[tuple[Section, int]]]]:
    """The card grid of a page and the cards (section, copy number) on each page: every
    section as many times as the box has it, in library order."""
    width_pt, height_pt = template.page_size(paper)
    grid = card_grid(
        width_pt / MM,
        height_pt / MM,
        template.margin_mm,
        library.card_mm,
        header=CARD_HEADER_MM,
        footer=0.0,
        mark_gap=MARK_GAP_MM,
        mark_len=MARK_LEN_MM,
    )
    cards = [(section, k) for section in library.sections for k in range(1, section.copies + 1)]
    pages = [cards[i : i + grid.per_page] for i in range(0, len(cards), grid.per_page)]
    return grid, pages


def draw_card_page(sheet: Sheet, library: Library, grid: CardGrid, cards: list[tuple[Section, int]]) -> None:
    """One page of section cards with their cut marks, its header (with the page's number in
    the PDF, "page N of M") and scale bar."""
    top = sheet.top
    kind = "Rally Risk road-section cards"
    sheet.page_number(sheet.right, top - 4 * MM, "right")
    right = sheet.right - sheet.number_width() - 2 * MM
    fitted_text(
        sheet,
        sheet.left,
        top - 4 * MM,
        library.name,
        right - sheet.left - sheet.text_width(kind, "small") - 4 * MM,
        "heading",
        bold=True,
    )
    sheet.text(right, top - 4 * MM, kind, "small", align="right")
    note = f"Cards {library.card_mm:g} mm square: cut along the card edges, from mark to mark."
    sheet.text(sheet.left, top - 8.6 * MM, note, "small")
    bar_label = "50 mm: print at 100 %"
    bar_x = sheet.right - sheet.scale_bar_width(bar_label, number=False)
    sheet.scale_bar(bar_x, top - 8.6 * MM, bar_label, number=False)
    for slot, (section, copy) in enumerate(cards):
        ox, oy = grid.origin(slot)
        draw_section_card(sheet, section, ox * MM, oy * MM, grid.card, copy, section.copies)
    sheet.stroke(width=sheet.ink.thin_width)
    for a, b in grid.marks(len(cards)):
        sheet.c.line(a[0] * MM, a[1] * MM, b[0] * MM, b[1] * MM)


def render_library(
    library: Library,
    template: Template,
    *,
    tables: Tables,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
) -> tuple[bytes, int]:
    """A library's printable PDF: every section as cards (as many as the box has), cut
    marks on every page, the kit pages (car tokens, markers, R.P.M. cards; the gear
    simulators), then the reference card of `tables` (unless another file of the job prints
    it)."""
    grid, pages = card_plan(library, template, paper)
    meta = Meta(
        title=f"{library.name}: Rally Risk road sections",
        subject="Rally Risk print-and-play road-section cards and reference card",
        keywords=("rally risk", "road sections") + keywords,
    )

    card = not printed_elsewhere(card_key(tables))  # another file of the job may print it
    total = len(pages) + 2 + card  # the card pages, the kit and its gear simulators, the reference card

    def draw(sheet: Sheet) -> None:
        for cards in pages:
            draw_card_page(sheet, library, grid, cards)
            sheet.end_page("section cards")
        draw_kit(sheet, library.name, len(pages) + 1, total)
        draw_trackers(sheet, library.name, tables, len(pages) + 2, total)
        if card:
            subtitle = f"{library.name}: play with these tables"
            draw_reference_card(sheet, tables, subtitle=subtitle)

    return render_pdf(template, ink, paper, meta, draw)


def print_library(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rally Risk library: its section cards and the reference card of the
    house tables."""
    from sheetgen.games.rally_risk.tables import house_tables

    return render_library(spec.model, template, tables=house_tables(), paper=paper, ink=ink, keywords=keywords)
