"""What the Rally Risk sheets share: the words they print for the game's things, and a road
section drawn in its square (on the section cards and on the course map).

The road's geometry comes from :mod:`sheetgen.games.rally_risk.layout` (pure, tested without
reportlab); this module only draws it. A ford is wavy lines across the road, the most
dangerous spaces have a heavy outline with a thin one inside, and every factor and number is printed as text.
"""

from __future__ import annotations

import math

from sheetgen.games.rally_risk.layout import RoadShape
from sheetgen.games.rally_risk.model import Race, Side, Tables, Zone
from sheetgen.render.common import CAP, centred, polygon, pt, wave
from sheetgen.render.pdf import Sheet
from sheetgen.template import MM

BOX_PAD = 1.2 * MM  # text in a box leaves this much of the box's width free
ZONE_NAMES = {Zone.EC: "Central Europe", Zone.EN: "Northern Europe", Zone.A: "Africa"}
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}
ARROW = {Side.N: "\u2191", Side.E: "\u2192", Side.S: "\u2193", Side.W: "\u2190"}
DISPLAY = {
    "gear_chart": "gear chart",
    "risk": "Table of Risks",
    "damage": "Damages Table",
    "weather": "weather charts",
    "tyres": "tyres",
    "special_extra": "special races",
}


def race_label(race: Race) -> str:
    """A race's name after its rally's ("Sweden, race 2": "race 2"), else its whole name."""
    return race.name.split(", ", 1)[-1] if ", " in race.name else race.name


def ford_text(tables: Tables) -> str:
    """A ford's factor by weather, e.g. 'rain and storm 5, snow 3'."""
    by_factor: dict[int, list[str]] = {}
    for weather, factor in tables.fords:
        by_factor.setdefault(factor, []).append(weather.value)
    return ", ".join(f"{' and '.join(names)} {factor}" for factor, names in by_factor.items())


def draw_road(
    sheet: Sheet,
    road: RoadShape,
    x0: float,
    y0: float,
    *,
    numbers: tuple[int | None, ...] | None = None,
    heavy: frozenset[int] = frozenset(),
    number_size: float | None = None,
    factor_size: float | None = None,
    beside: bool = False,
) -> None:
    """The road of one section with its origin at (x0, y0) points: spaces, factors, fords.

    numbers: what to print small by each space (default the space's index in the section;
    on a course map the progressive numbers), inside the road near its edge, or just
    outside it when `beside`. heavy: indexes of spaces outlined heavily."""
    ink = sheet.ink
    polygon(sheet, road.outline, x0, y0, fill=ink.track_fill, width=ink.line_width)
    for space in road.spaces:
        if space.ford:
            polygon(sheet, space.polygon, x0, y0, fill=ink.box_fill, width=ink.thin_width)
    sheet.stroke(width=ink.thin_width)
    for a, b in road.dividers[1:-1]:
        sheet.c.line(*pt(x0, y0, a), *pt(x0, y0, b))
    half = road.width / 2
    factor_size = factor_size or fitting_factor_size(road)
    small = number_size or max(min(6.5, factor_size * 0.5), 4.0)
    for space in road.spaces:
        cx, cy = space.centre
        tx, ty = space.tangent
        nx, ny = -ty, tx
        size = factor_size
        if space.ford:
            # a stream across the road on either side of the factor, running out beyond both
            # edges; never across the digit (the digit is made smaller when the space is short)
            amplitude = min(0.45, space.length * 0.06)
            size = min(size, ford_factor_size(sheet, str(space.factor), space, amplitude))
            along = factor_reach(sheet, str(space.factor), size, space.tangent) + amplitude + FORD_GAP_MM
            sheet.stroke(width=ink.thin_width)
            reach = half + min(2.0, road.width * (0.06 if beside else 0.12))
            for sign in (1, -1):
                mx, my = cx + tx * along * sign, cy + ty * along * sign
                wave(
                    sheet,
                    (mx - nx * reach, my - ny * reach),
                    (mx + nx * reach, my + ny * reach),
                    x0,
                    y0,
                    amplitude=amplitude,
                )
        if space.index in heavy:  # a heavy outline and a thin one inside it: told apart by shape too
            polygon(sheet, space.polygon, x0, y0, width=ink.corner_width, colour=ink.corner)
            polygon(
                sheet,
                inset(space.polygon, space.centre, DOUBLE_LINE_MM),
                x0,
                y0,
                width=ink.thin_width,
                colour=ink.corner,
            )
        centred(sheet, *pt(x0, y0, space.centre), str(space.factor), size, bold=True)
        value = numbers[space.index - 1] if numbers else space.index
        if value is None:
            continue
        label = str(value)
        if beside:
            ox, oy = space.outward
            w = sheet.text_width(label, size=small) / MM
            h = CAP * small * 25.4 / 72
            d = half + 0.5 + abs(ox) * w / 2 + abs(oy) * h / 2
            centred(sheet, *pt(x0, y0, (cx + ox * d, cy + oy * d)), label, small)
        else:
            centred(sheet, *pt(x0, y0, space.number_point), label, small)
    sheet.stroke()


DOUBLE_LINE_MM = 0.9  # a most dangerous space's inner outline, inside its heavy one


def inset(points, centre, by: float):
    """`points` (mm) drawn `by` mm nearer `centre`, each along its own line to the centre."""
    out = []
    for x, y in points:
        d = math.dist((x, y), centre)
        k = max(d - by, 0.0) / d if d else 0.0
        out.append((centre[0] + (x - centre[0]) * k, centre[1] + (y - centre[1]) * k))
    return out


FORD_GAP_MM = 0.35  # between a ford's wavy line and the factor digit


def factor_reach(sheet: Sheet, value: str, size: float, tangent) -> float:
    """How far (mm) the upright factor digits of `size` points reach from their centre along
    the road's direction `tangent` (a unit vector)."""
    w = sheet.text_width(value, bold=True, size=size) * 25.4 / 72
    h = CAP * size * 25.4 / 72
    return abs(tangent[0]) * w / 2 + abs(tangent[1]) * h / 2


def ford_factor_size(sheet: Sheet, value: str, space, amplitude: float) -> float:
    """The largest digits (points) that leave room in a ford space for a wavy line on either
    side within the space."""
    room = space.length / 2 - 2 * amplitude - FORD_GAP_MM
    size = 16.0
    while size > 3.0 and factor_reach(sheet, value, size, space.tangent) > room:
        size -= 0.25
    return size


def fitting_factor_size(road: RoadShape) -> float:
    """The largest factor digits (points, at most 16) that fit the road's spaces."""
    length = min(s.length for s in road.spaces)
    return min(16.0, 0.5 * length / (CAP * 25.4 / 72), 0.42 * road.width / (CAP * 25.4 / 72))


def edge_label(
    sheet: Sheet,
    road: RoadShape,
    side: Side,
    heading: Side,
    text: str,
    size: float,
    x0: float,
    y0: float,
    inset: float = 1.4,
) -> None:
    """`text` by the road where it meets `side`, on the right-hand side of travel."""
    w = sheet.text_width(text, bold=True, size=size) / MM
    h = CAP * size * 25.4 / 72
    right = heading.turned(1)
    rx, ry = right.step
    ix, iy = side.opposite.step  # inward from that edge
    ex, ey = road.edge_point(side)
    start = road.width / 2 + inset
    px, py = ex + rx * start + ix * inset, ey + ry * start + iy * inset
    along, inward = (w, h) if rx else (h, w)
    xs = (px, px + rx * along + ix * inward)
    ys = (py, py + ry * along + iy * inward)
    bx, by = min(xs), min(ys)
    sheet.text(x0 + bx * MM, y0 + by * MM, text, bold=True, size=size)
