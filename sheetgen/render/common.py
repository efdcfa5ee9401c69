"""Drawing helpers the sheets share: text fitted to a width, wrapped and centred, a box with
text in it, and outlines and wavy lines from layouts given in millimetres.

Every text a user gives (a race's, stage's, track's, tile's, player's name) is drawn through
:func:`fit_text`: it keeps to the room it is given, shrunk down to a floor, then wrapped when
the room has lines to spare, then cut with an ellipsis that says so; nothing it draws runs
over another item or into the margins.

Each draws on the current page of a :class:`~sheetgen.render.pdf.Sheet`; coordinates are
points unless a name says millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.render.pdf import Sheet
from sheetgen.template import MM

CAP = 0.729  # DejaVu Sans digit and capital height, as a share of the font size
#: what ends a text cut to its room: the reader sees that something was left out
ELLIPSIS = "\u2026"
#: the smallest size (points) a fitted text is shrunk to before it is wrapped or cut
LEAST = 4.5
#: the least size (points) a page's title or heading is shrunk to before it is cut short
TITLE_LEAST = 7.0
#: baseline to baseline of a fitted text's lines, as a share of its size
LEADING = 1.2
#: DejaVu Sans from its descender to its ascender, as a share of the font size
EXTENT = 0.928 + 0.236
#: the height of a box's outline and a little air that its text leaves free (points)
BOX_PAD = 0.8 * MM


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def fit_size(sheet: Sheet, value: str, width: float, size: float, bold: bool = False, least: float = 4.5) -> float:
    """The largest size up to `size` at which `value` is at most `width` points wide."""
    while size > least and sheet.text_width(value, bold=bold, size=size) > width:
        size -= 0.25
    return size


@dataclass(frozen=True)
class Fitted:
    """A text laid out in its room: its lines, their size (points), and whether part of it
    was left out (the last line then ends in an ellipsis)."""

    lines: tuple[str, ...]
    size: float
    cut: bool = False

    @property
    def leading(self) -> float:
        return LEADING * self.size

    @property
    def height(self) -> float:
        """From the first line's cap height to the last line's baseline (points)."""
        return CAP * self.size + (len(self.lines) - 1) * self.leading


def cut(sheet: Sheet, value: str, width: float, size: float, bold: bool = False) -> str:
    """The longest start of `value` that, with an ellipsis, is at most `width` points wide
    (`value` itself when it fits)."""
    if sheet.text_width(value, bold=bold, size=size) <= width:
        return value
    lo, hi = 0, len(value)  # the longest fitting start: binary search on its length
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sheet.text_width(value[:mid].rstrip() + ELLIPSIS, bold=bold, size=size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return value[:lo].rstrip() + ELLIPSIS


def fit_text(
    sheet: Sheet,
    value: str,
    width: float,
    size: float,
    *,
    bold: bool = False,
    least: float = LEAST,
    lines: int = 1,
    single: float | None = None,
    height: float | None = None,
    after: str = "",
) -> Fitted:
    """`value` (then `after`) in at most `lines` lines, each at most `width` points wide
    (and, given a `height`, no more lines than that height holds, from the first line's
    ascender to the last one's descender): on one line at the largest size from `size` down
    to `single` (default `least`), in steps of 0.25 pt, at which it fits; else, when more
    lines are allowed, wrapped at the largest size down to `least` at which it takes no more;
    else at `least`, wrapped, as much as the lines hold, the last ending in an ellipsis (a
    word too long for a line is cut the same way). `after` is never cut: what a name is
    followed by ("race 2", "(continued)") ends the last line, after the ellipsis."""
    least = min(least, size)
    single = least if single is None else max(min(single, size), least)
    whole = value + after
    one = fit_size(sheet, whole, width, size, bold, single)
    if sheet.text_width(whole, bold=bold, size=one) <= width:
        return Fitted((whole,), one)

    def most(at: float) -> int:
        if height is None:
            return lines
        return max(1, min(lines, 1 + int((height - EXTENT * at) / (LEADING * at) + 1e-9)))

    if lines > 1 or single > least:
        at = size
        while at >= least - 1e-9:
            wrapped = wrap(sheet, whole, width, at, bold)
            if len(wrapped) <= most(at) and all(
                sheet.text_width(line, bold=bold, size=at) <= width for line in wrapped
            ):
                return Fitted(tuple(wrapped), at)
            at -= 0.25
    # at the floor: the lines as they wrap (a word too long for a line broken where the
    # line ends), the last line cut where the text goes on
    room = most(least)
    if after and sheet.text_width(value[:4] + ELLIPSIS + after, bold=bold, size=least) > width:
        value, after = whole, ""  # an end that leaves no room for the name: cut like the rest
    if not after:
        wrapped = _wrap_hard(sheet, value, width, least, bold)
        out = wrapped[:room]
        if len(wrapped) > room:
            out[-1] = cut(sheet, f"{wrapped[room - 1]} {wrapped[room]}", width, least, bold)
        return Fitted(tuple(out), least, cut=len(wrapped) > room)
    # the end kept: `value` as above, `after` on its last line (or one of its own)
    wrapped = _wrap_hard(sheet, value, width, least, bold)
    out = wrapped[:room]
    more = len(wrapped) > room
    last = f"{wrapped[room - 1]} {wrapped[room]}" if more else out[-1]
    if not more and sheet.text_width(last + after, bold=bold, size=least) <= width:
        out[-1] = last + after
        return Fitted(tuple(out), least)
    if not more and len(out) < room and sheet.text_width(after.strip(), bold=bold, size=least) <= width:
        return Fitted((*out, after.strip()), least)
    out[-1] = cut(sheet, last, width - sheet.text_width(after, bold=bold, size=least), least, bold) + after
    return Fitted(tuple(out), least, cut=True)


def _wrap_hard(sheet: Sheet, value: str, width: float, size: float, bold: bool) -> list[str]:
    """:func:`wrap`, with a word too long for a line broken after its last character that
    fits (never a line wider than `width`, but for a single character)."""
    lines: list[str] = []
    for line in wrap(sheet, value, width, size, bold):
        while sheet.text_width(line, bold=bold, size=size) > width and len(line) > 1:
            k = len(cut(sheet, line, width, size, bold)) - 1  # the characters that fit with room for "…"
            k = max(k, 1)
            while k < len(line) and sheet.text_width(line[: k + 1], bold=bold, size=size) <= width:
                k += 1
            lines.append(line[:k])
            line = line[k:].lstrip()
        lines.append(line)
    return lines


def draw_fitted(sheet: Sheet, x: float, y: float, fitted: Fitted, *, bold: bool = False, align: str = "left") -> float:
    """The lines of `fitted`, the first with its baseline at y, the others below it; returns
    the last line's baseline."""
    for k, line in enumerate(fitted.lines):
        sheet.text(x, y - k * fitted.leading, line, bold=bold, size=fitted.size, align=align)
    return y - (len(fitted.lines) - 1) * fitted.leading


def fitted_text(
    sheet: Sheet,
    x: float,
    y: float,
    value: str,
    width: float,
    size_key: str = "body",
    *,
    bold: bool = False,
    align: str = "left",
    size: float | None = None,
    least: float = LEAST,
    lines: int = 1,
    single: float | None = None,
    height: float | None = None,
    after: str = "",
) -> Fitted:
    """:func:`fit_text` then :func:`draw_fitted`: `value` (then `after`, never cut) drawn at
    (x, y) in at most `width` points (left, centred on x or right-aligned at x), at the
    template's `size_key` size or `size`, shrunk, wrapped or cut to keep to it; returns how
    it was laid out."""
    fitted = fit_text(
        sheet,
        value,
        width,
        sheet.t.sizes[size_key] if size is None else size,
        bold=bold,
        least=least,
        lines=lines,
        single=single,
        height=height,
        after=after,
    )
    draw_fitted(sheet, x, y, fitted, bold=bold, align=align)
    return fitted


def wrap(sheet: Sheet, value: str, width: float, size: float, bold: bool = False, hard: bool = False) -> list[str]:
    """The words of `value` in lines at most `width` points wide (a longer word alone on its
    line, or, `hard`, broken over lines); a text without words is one empty line."""
    if hard:
        return _wrap_hard(sheet, value, width, size, bold)
    lines: list[str] = []
    for word in value.split():
        if lines and sheet.text_width(f"{lines[-1]} {word}", bold=bold, size=size) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines or [""]


def centred(sheet: Sheet, x: float, y: float, value: str, size: float, bold: bool = False) -> None:
    """`value` centred on (x, y), by the height of its digits and capitals."""
    sheet.text(x, y - CAP * size / 2, value, bold=bold, size=size, align="center")


def text_box(
    sheet: Sheet,
    x: float,
    y: float,
    w: float,
    h: float,
    value: str = "",
    *,
    size: float | None = None,
    bold: bool = False,
    shaded: bool = False,
    align: str = "center",
    width: float | None = None,
    pad: float = 1.4 * MM,
    lines: int = 1,
    least: float = LEAST,
    single: float | None = None,
    after: str = "",
) -> Fitted | None:
    """A box with `value` (then `after`, kept whole) in it (left, centred or right), fitted
    (:func:`fit_text`) to the box's width less `pad`, in at most `lines` lines that the box's height holds, centred on
    its middle; (x, y) is the bottom-left corner, `width` the outline's (thin by default),
    `size` the text's (small by default)."""
    sheet.box(x, y, w, h, shaded=shaded, width=sheet.ink.thin_width if width is None else width)
    if not value and not after:
        return None
    fitted = fit_text(
        sheet,
        value,
        w - pad,
        size or sheet.t.sizes["small"],
        bold=bold,
        lines=lines,
        least=least,
        single=single,
        height=h - BOX_PAD,
        after=after,
    )
    ty = y + h / 2 - fitted.height / 2 + (len(fitted.lines) - 1) * fitted.leading
    if align == "left":
        draw_fitted(sheet, x + 1 * MM, ty, fitted, bold=bold)
    elif align == "right":
        draw_fitted(sheet, x + w - 1 * MM, ty, fitted, bold=bold, align="right")
    else:
        draw_fitted(sheet, x + w / 2, ty, fitted, bold=bold, align="center")
    return fitted


def pt(x0: float, y0: float, p) -> tuple[float, float]:
    """A layout point (mm, relative) as page points from origin (x0, y0) in points."""
    return x0 + p[0] * MM, y0 + p[1] * MM


def polygon(
    sheet: Sheet,
    points,
    x0: float,
    y0: float,
    *,
    fill: str | None = None,
    width: float | None = None,
    colour: str | None = None,
) -> None:
    """The outline of layout points (mm) from origin (x0, y0), filled with `fill` when the
    ink mode fills areas."""
    path = sheet.c.beginPath()
    for k, p in enumerate(points):
        (path.moveTo if k == 0 else path.lineTo)(*pt(x0, y0, p))
    path.close()
    filled = fill is not None and sheet.ink.fill
    if filled and fill is not None:
        sheet.fill(fill)
    sheet.stroke(colour=colour, width=width)
    sheet.c.drawPath(path, stroke=1, fill=1 if filled else 0)


def wave(sheet: Sheet, a, b, x0: float, y0: float, amplitude: float = 0.45, wavelength: float = 1.6) -> None:
    """A wavy line from layout point a to b (mm): water."""
    length = math.dist(a, b)
    if length <= 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    steps = max(int(length / wavelength * 8), 4)
    path = sheet.c.beginPath()
    for k in range(steps + 1):
        s = length * k / steps
        w = amplitude * math.sin(2 * math.pi * s / wavelength)
        p = (a[0] + ux * s - uy * w, a[1] + uy * s + ux * w)
        (path.moveTo if k == 0 else path.lineTo)(*pt(x0, y0, p))
    sheet.c.drawPath(path, stroke=1, fill=0)
