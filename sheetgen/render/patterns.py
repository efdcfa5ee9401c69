"""Surface patterns drawn with lines only, so a surface reads in black and white too.

asphalt: close diagonal hatching; gravel: scattered stones (small circles);
snow: small six-armed flakes. Positions are fixed by the box, never random; stones and flakes
are drawn whole, in at least two staggered rows, so that even a small swatch shows the pattern.
"""

from __future__ import annotations

import math

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
