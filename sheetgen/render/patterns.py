"""Surface patterns drawn with lines only, so a surface reads in black and white too.

asphalt: close diagonal hatching; gravel: scattered stones (small circles);
snow: small six-armed flakes. Positions are fixed by the box, never random; stones and flakes
are drawn whole, in at least two staggered rows, so that even a small swatch shows the pattern.
"""

from __future__ import annotations

import math

from reportlab.pdfgen.canvas import FILL_EVEN_ODD

from sheetgen.render.pdf import Sheet
from sheetgen.template import MM


def _rows(y: float, h: float, half: float, pitch: float) -> list[float]:
    """Heights of the rows of a pattern's units (each `half` high either side of its row) that
    fit whole in [y, y + h]: at least two rows, closer than `pitch` when the box is low, and
    centred in it, so that a swatch shows the pattern's whole repeat and no cut-off unit."""
    room = h - 2 * half
    if room <= 0:
        return [y + h / 2]
    count = max(2, int(room / pitch) + 1)
    gap = min(pitch, room / (count - 1))
    first = y + half + (room - gap * (count - 1)) / 2
    return [first + k * gap for k in range(count)]


def draw_pattern(sheet: Sheet, surface: str, x: float, y: float, w: float, h: float) -> None:
    """Fill the rectangle with `surface`'s pattern, clipped to it, in thin lines."""
    c = sheet.c
    c.saveState()
    path = c.beginPath()
    path.rect(x, y, w, h)
    c.clipPath(path, stroke=0, fill=0)
    sheet.stroke(width=sheet.ink.thin_width)
    if surface == "asphalt":
        step = 1.6 * MM
        offset = -h
        while offset < w:
            c.line(x + offset, y, x + offset + h, y + h)
            offset += step
    elif surface == "gravel":
        step = 2.2 * MM
        r = 0.35 * MM
        for row, yy in enumerate(_rows(y, h, r + 0.25 * MM, step * 0.8)):
            xx = x + step / 2 + (step / 2 if row % 2 else 0)
            while xx + r + 0.25 * MM + 0.24 * MM <= x + w:
                jitter = ((row * 7 + int(xx)) % 5 - 2) * 0.12 * MM
                c.circle(xx + jitter, yy, r, stroke=1, fill=0)
                xx += step
    elif surface == "snow":
        step = 3.2 * MM
        arm = 0.8 * MM
        for row, yy in enumerate(_rows(y, h, arm + 0.2 * MM, step * 0.85)):
            xx = x + arm + 0.4 * MM + (step / 2 if row % 2 else 0)
            while xx + arm + 0.2 * MM <= x + w:
                for k in range(3):
                    angle = math.pi / 2 + k * math.pi / 3
                    dx, dy = arm * math.cos(angle), arm * math.sin(angle)
                    c.line(xx - dx, yy - dy, xx + dx, yy + dy)
                xx += step
    c.restoreState()
    sheet.stroke(width=sheet.ink.thin_width)
    c.rect(x, y, w, h, stroke=1, fill=0)


#: The six cars' patterns, by car number: each reads apart in black and white.
CAR_PATTERNS = ("stripes", "bars", "diagonals", "grid", "dots", "zigzag")


def draw_car_pattern(
    sheet: Sheet, car: int, x: float, y: float, w: float, h: float, hole: tuple[float, float, float] | None = None
) -> None:
    """Fill the rectangle with car `car`'s pattern (1-6, :data:`CAR_PATTERNS`), clipped to
    it and left out of the circle `hole` (x, y, radius) where a number goes; thin lines,
    no outline, nothing filled."""
    c = sheet.c
    name = CAR_PATTERNS[(car - 1) % len(CAR_PATTERNS)]
    c.saveState()
    path = c.beginPath()
    path.rect(x, y, w, h)
    if hole is not None:
        path.circle(*hole)
    c.clipPath(path, stroke=0, fill=0, fillMode=FILL_EVEN_ODD)
    sheet.stroke(width=sheet.ink.line_width)
    step = 1.5 * MM
    if name == "stripes":  # horizontal lines
        yy = y + step / 2
        while yy < y + h:
            c.line(x, yy, x + w, yy)
            yy += step
    elif name == "bars":  # vertical lines
        xx = x + step / 2
        while xx < x + w:
            c.line(xx, y, xx, y + h)
            xx += step
    elif name == "diagonals":  # at 45 degrees, cut at the box's sides
        offset = -h + step * 0.6
        while offset < w:
            a, b = max(offset, 0.0), min(offset + h, w)
            c.line(x + a, y + a - offset, x + b, y + b - offset)
            offset += step * 1.2
    elif name == "grid":  # a square grid
        sheet.stroke(width=sheet.ink.thin_width)
        big = step * 1.4
        xx = x + big / 2
        while xx < x + w:
            c.line(xx, y, xx, y + h)
            xx += big
        yy = y + big / 2
        while yy < y + h:
            c.line(x, yy, x + w, yy)
            yy += big
    elif name == "dots":
        r = 0.3 * MM
        row, yy = 0, y + step / 2
        while yy + r < y + h:
            xx = x + step / 2 + (step / 2 if row % 2 else 0)
            while xx + r < x + w:
                c.circle(xx, yy, r, stroke=1, fill=0)
                xx += step
            yy += step
            row += 1
    else:  # zigzag: horizontal zigzag lines
        yy = y + step * 0.4
        while yy + step / 2 < y + h:
            p = c.beginPath()
            p.moveTo(x, yy)
            xx, up = x, True
            while xx < x + w - 1e-6:
                nx = min(xx + step / 2, x + w)
                rise = (nx - xx) / (step / 2) * step / 2
                p.lineTo(nx, yy + (rise if up else step / 2 - rise))
                xx, up = nx, not up
            c.drawPath(p, stroke=1, fill=0)
            yy += step * 1.4
    c.restoreState()
