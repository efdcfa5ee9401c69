"""Drawing helpers the sheets share: text fitted to a width, wrapped and centred, a box with
text in it, and outlines and wavy lines from layouts given in millimetres.

Each draws on the current page of a :class:`~sheetgen.render.pdf.Sheet`; coordinates are
points unless a name says millimetres.
"""

from __future__ import annotations

import math

from sheetgen.render.pdf import Sheet
from sheetgen.template import MM

CAP = 0.729  # DejaVu Sans digit and capital height, as a share of the font size


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def fit_size(sheet: Sheet, value: str, width: float, size: float, bold: bool = False, least: float = 4.5) -> float:
    """The largest size up to `size` at which `value` is at most `width` points wide."""
    while size > least and sheet.text_width(value, bold=bold, size=size) > width:
        size -= 0.25
    return size


def wrap(sheet: Sheet, value: str, width: float, size: float, bold: bool = False) -> list[str]:
    """The words of `value` in lines at most `width` points wide (a longer word alone on its
    line); a text without words is one empty line."""
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
) -> None:
    """A box with `value` in it (left, centred or right), shrunk until `pad` of the box's
    width is left free; (x, y) is the bottom-left corner, `width` the outline's (thin by
    default), `size` the text's (small by default)."""
    sheet.box(x, y, w, h, shaded=shaded, width=sheet.ink.thin_width if width is None else width)
    if not value:
        return
    size = fit_size(sheet, value, w - pad, size or sheet.t.sizes["small"], bold)
    ty = y + h / 2 - CAP * size / 2
    if align == "left":
        sheet.text(x + 1 * MM, ty, value, bold=bold, size=size)
    elif align == "right":
        sheet.text(x + w - 1 * MM, ty, value, bold=bold, size=size, align="right")
    else:
        sheet.text(x + w / 2, ty, value, bold=bold, size=size, align="center")


def pt(x0: float, y0: float, p) -> tuple[float, float]:
    """A layout point (mm, relative) as page points from origin (x0, y0) in points."""
    return x0 + p[0] * MM, y0 + p[1] * MM


def polygon(sheet: Sheet, points, x0: float, y0: float, *, fill: str | None = None, width: float | None = None, colour: str | None = None) -> None:
    """The outline of layout points (mm) from origin (x0, y0), filled with `fill` when the
    ink mode fills areas."""
    path = sheet.c.beginPath()
    for k, p in enumerate(points):
        (path.moveTo if k == 0 else path.lineTo)(*pt(x0, y0, p))
    path.close()
    filled = fill is not None and sheet.ink.fill
    if filled:
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
