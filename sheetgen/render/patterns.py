"""Surface patterns drawn with lines only, so a surface reads in black and white too.

asphalt: close diagonal hatching; gravel: scattered stones (small circles);
snow: small six-armed flakes. Positions are fixed by the box, never random.
"""

from __future__ import annotations

import math

from sheetgen.render.pdf import Sheet
from sheetgen.template import MM


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
        row = 0
        yy = y + step / 2
        while yy < y + h:
            xx = x + step / 2 + (step / 2 if row % 2 else 0)
            while xx < x + w:
                jitter = ((row * 7 + int(xx)) % 5 - 2) * 0.12 * MM
                c.circle(xx + jitter, yy, 0.35 * MM, stroke=1, fill=0)
                xx += step
            yy += step * 0.8
            row += 1
    elif surface == "snow":
        step = 3.2 * MM
        arm = 0.8 * MM
        row = 0
        yy = y + step / 2
        while yy < y + h + step:
            xx = x + step / 2 + (step / 2 if row % 2 else 0)
            while xx < x + w + step:
                for k in range(3):
                    angle = math.pi / 2 + k * math.pi / 3
                    dx, dy = arm * math.cos(angle), arm * math.sin(angle)
                    c.line(xx - dx, yy - dy, xx + dx, yy + dy)
                xx += step
            yy += step * 0.85
            row += 1
    c.restoreState()
    sheet.stroke(width=sheet.ink.thin_width)
    c.rect(x, y, w, h, stroke=1, fill=0)
