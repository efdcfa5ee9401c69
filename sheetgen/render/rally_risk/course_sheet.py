"""The Rally Risk course sheet of a race: the course on its grid squares as laid on the
table (every space's factor and progressive number, fords, start and finish), the race kind,
the zone's weather chart and the analysis beside it, every space in a numbered strip, a row
per driver for assistance, mechanics and tyres, and a round tracker. `print_race` (a race
file's printable) adds the reference card of the race's tables; the calendar draws each of
its races' course sheets with :func:`draw_course_sheet`.

The course map's geometry comes from :mod:`sheetgen.games.rally_risk.layout`; this module
only draws it. Nothing is told by colour alone: the most dangerous spaces have a heavy
and a thin outline inside it, the start is a bar and the finish chequered, and every number is printed as text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.games.rally_risk.layout import CourseMap, RoadShape, course_map, road_shape, space_strip
from sheetgen.games.rally_risk.model import GEARS, MAX_MECHANICS, MECHANIC_RANGE, Race, Side
from sheetgen.games.rally_risk.scoring import ELIMINATION_HANDICAP
from sheetgen.games.rally_risk.spec import MAX_PLAYERS
from sheetgen.games.rally_risk.tables import card_key
from sheetgen.render.common import (
    CAP,
    TITLE_LEAST,
    centred,
    cut,
    draw_fitted,
    fit_size,
    fit_text,
    fitted_text,
    plural,
    polygon,
    pt,
    text_box,
    wave,
    wrap,
)
from sheetgen.render.pdf import NUMBER_GAP, SCALE_LABEL, Meta, Sheet, printed_elsewhere, render_pdf
from sheetgen.render.rally_risk.common import (
    BOX_PAD,
    DISPLAY,
    ORDINAL,
    ZONE_NAMES,
    draw_road,
    edge_label,
    fitting_factor_size,
    ford_text,
)
from sheetgen.render.rally_risk.reference_card import draw_reference_card
from sheetgen.template import MM, Template

HEADER_MM = 15.0
FOOTER_MM = 7.0
GAP_MM = 3.0
PANEL_MM = 66.0
MAP_ROAD = 0.3  # road width on the course map, as a share of a square
MAP_TITLE_MM = 9.0  # the map's title and its legend, in two lines at most
MAP_PAD_MM = 4.5
MAX_MAP_CELL_MM = 60.0
MIN_MAP_MM = 90.0  # the spaces go on their own pages rather than squeeze the map below this
RUNNING_HEADER_MM = 9.0  # round the map: START and FINISH beyond the road's ends
STRIP_ROW_MM = 12.0
PLAYER_HEAD_MM = 7.0
PLAYER_ROW_MM = 6.2
TITLE_ROW_MM = 5.0


def _checkbox(sheet: Sheet, x: float, y: float, size: float = 3.0 * MM) -> None:
    sheet.box(x, y, size, size, width=sheet.ink.thin_width)


@dataclass(frozen=True)
class CoursePlan:
    """Where the blocks of a course sheet go (mm from the page's bottom-left)."""

    map: CourseMap
    map_x: float
    map_y: float
    middle_top: float
    middle_bottom: float
    strip_top: float | None  # None: the spaces are on the pages after the first
    players_top: float
    tracker_top: float
    rounds: int
    strip_rows_per_page: int  # on those pages
    extra_pages: int

    @property
    def pages(self) -> int:
        return 1 + self.extra_pages


def _strip_height(rows: int) -> float:
    return TITLE_ROW_MM + rows * STRIP_ROW_MM


def _players_height() -> float:
    return TITLE_ROW_MM + PLAYER_HEAD_MM + MAX_PLAYERS * PLAYER_ROW_MM + 3.5  # and the key line


TRACKER_MM = TITLE_ROW_MM + 4.2 + 6.0


def course_plan(race: Race, page_w: float, page_h: float, margin: float, analysis=None) -> CoursePlan:
    """Blocks top to bottom: header; map with the side panel; spaces; players; rounds.
    When the spaces would leave the map and the side panel too little room, they go on
    pages of their own after the first."""
    width = page_w - 2 * margin
    strip = space_strip(race.length, width)
    top = page_h - margin - HEADER_MM
    bottom = margin + FOOTER_MM
    tracker_top = bottom + TRACKER_MM
    players_top = tracker_top + GAP_MM + _players_height()
    strip_here = players_top + GAP_MM + _strip_height(strip.rows)
    strip_top: float | None = strip_here
    middle_bottom = strip_here + GAP_MM
    need = max(side_panel_height(race, analysis), MIN_MAP_MM + MAP_TITLE_MM)
    per_page = int((page_h - 2 * margin - RUNNING_HEADER_MM - FOOTER_MM - TITLE_ROW_MM) // STRIP_ROW_MM)
    extra = 0
    if top - middle_bottom < need:
        strip_top = None
        middle_bottom = players_top + GAP_MM
        extra = math.ceil(strip.rows / per_page)
    map_w = width - PANEL_MM - 4.0
    room_h = top - middle_bottom - MAP_TITLE_MM
    cmap = course_map(race.course, map_w - 2 * MAP_PAD_MM, max(room_h - 2 * MAP_PAD_MM, 20.0), max_cell=MAX_MAP_CELL_MM)
    map_x = margin + (map_w - cmap.width) / 2
    map_y = middle_bottom + (room_h - cmap.height) / 2
    rounds = int(width // 6.4) - 3
    return CoursePlan(
        cmap, map_x, map_y, top, middle_bottom, strip_top, players_top, tracker_top, rounds, per_page, extra
    )


def _heavy_spaces(analysis) -> dict[int, float]:
    """The most dangerous spaces (of the best assistance) and their off-road chance."""
    if analysis is None:
        return {}
    return {d.space: d.damage_probability for d in analysis.best.dangerous}


def draw_course_map(sheet: Sheet, race: Race, plan: CoursePlan, danger: dict[int, float]) -> None:
    cmap = plan.map
    x0, y0 = plan.map_x * MM, plan.map_y * MM
    spaces = race.spaces
    numbers: list[tuple[int | None, ...]] = []  # (None: a number left out)
    first = 0
    for leg in race.course:
        n = len(leg.section.factors)
        numbers.append(tuple(s.number for s in spaces[first : first + n]))
        first += n
    for square in cmap.squares:
        sx, sy = x0 + square.x * MM, y0 + square.y * MM
        sheet.stroke(width=sheet.ink.thin_width, dash=(1.2, 1.6))
        sheet.c.rect(sx, sy, cmap.cell * MM, cmap.cell * MM, stroke=1, fill=0)
        sheet.stroke()
    small = sheet.t.sizes["space"]
    roads = [
        road_shape(race.course[sq.leg].section, cmap.cell, sq.quarter, width_share=MAP_ROAD) for sq in cmap.squares
    ]
    factor_size = min(fitting_factor_size(road) for road in roads)  # one size all over the map
    if map_numbers_thinned(race, cmap.cell, sheet.text_width(str(race.length), size=small) / MM):
        numbers = [tuple(n if n is not None and (n == 1 or n % 5 == 0) else None for n in row) for row in numbers]
    for square, road in zip(cmap.squares, roads):
        leg = race.course[square.leg]
        sx, sy = x0 + square.x * MM, y0 + square.y * MM
        heavy = frozenset(i + 1 for i, number in enumerate(numbers[square.leg]) if number in danger)
        draw_road(
            sheet,
            road,
            sx,
            sy,
            numbers=numbers[square.leg],
            heavy=heavy,
            number_size=small,
            factor_size=factor_size,
            beside=True,
        )
        _map_label(sheet, road, sx, sy, square.leg + 1, leg.section.name)
    # start: a heavy bar where the road enters the first section; finish: chequered
    first_sq, last_sq = cmap.squares[0], cmap.squares[-1]
    first_road = road_shape(race.course[0].section, cmap.cell, first_sq.quarter, width_share=MAP_ROAD)
    last_road = road_shape(race.course[-1].section, cmap.cell, last_sq.quarter, width_share=MAP_ROAD)
    fx, fy = x0 + first_sq.x * MM, y0 + first_sq.y * MM
    a, b = first_road.dividers[0]
    sheet.stroke(width=sheet.ink.corner_width * 1.6)
    sheet.c.line(*pt(fx, fy, a), *pt(fx, fy, b))
    sheet.stroke()
    lx, ly = x0 + last_sq.x * MM, y0 + last_sq.y * MM

    def free(square, side: Side) -> bool:
        dx, dy = side.step
        beyond = (square.x + dx * cmap.cell, square.y + dy * cmap.cell)
        return all(math.dist(beyond, (sq.x, sq.y)) > cmap.cell / 2 for sq in cmap.squares)

    finish_free = free(last_sq, last_road.exit)
    depth = _chequer(sheet, last_road.dividers[-1], last_road.exit, lx, ly, outside=finish_free)
    size = sheet.t.sizes["small"]
    # the words go beyond the road's end, outside the course, where the square there is free
    if free(first_sq, first_road.entry):
        _end_word(sheet, first_road, first_road.entry, "START", size, fx, fy, 0.8)
    else:
        edge_label(sheet, first_road, first_road.entry, first_road.entry.opposite, "START", size, fx, fy, inset=0.8)
    if finish_free:
        _end_word(sheet, last_road, last_road.exit, "FINISH", size, lx, ly, depth + 0.6)
    else:
        edge_label(sheet, last_road, last_road.exit, last_road.exit, "FINISH", size, lx, ly, inset=0.8)
    # a cut map: where a piece ends the road runs on at the next piece's letter
    for letter, after in zip("ABCDEFGH", cmap.breaks):
        for sq, road, side, word in (
            (cmap.squares[after - 1], roads[after - 1], roads[after - 1].exit, f"on at {letter}"),
            (cmap.squares[after], roads[after], roads[after].entry, f"{letter}, from section {after}"),
        ):
            sx, sy = x0 + sq.x * MM, y0 + sq.y * MM
            heading = side if word.startswith("on") else side.opposite
            if free(sq, side):
                _end_word(sheet, road, side, word, size, sx, sy, 0.8)
            else:
                edge_label(sheet, road, side, heading, word, size, sx, sy, inset=0.8)


def _end_word(
    sheet: Sheet, road: RoadShape, side: Side, word: str, size: float, x0: float, y0: float, gap: float
) -> None:
    """`word` just beyond the road's end on `side`, outside its square, centred on the
    road; along a vertical edge it reads upward."""
    ex, ey = road.edge_point(side)
    dx, dy = side.step
    h = CAP * size * 25.4 / 72
    c = sheet.c
    reach = 0.76 * size  # the letters' height (points): kept inside the page's frame
    if side in (Side.N, Side.S):
        y = ey + dy * gap + (0 if dy > 0 else -h)
        py = min(max(y0 + y * MM, sheet.bottom + 0.3), sheet.top - reach)
        sheet.text(x0 + ex * MM, py, word, bold=True, size=size, align="center")
        return
    x = ex + dx * gap + (h if dx > 0 else 0)
    px = min(max(x0 + x * MM, sheet.left + reach), sheet.right - 0.3)
    c.saveState()
    c.translate(px, y0 + ey * MM)
    c.rotate(90)
    sheet.text(0, 0, word, bold=True, size=size, align="center")
    c.restoreState()


def map_numbers_thinned(race: Race, cell: float, number_mm: float) -> bool:
    """Whether the map's spaces are too short for every number: then every 5th is printed."""
    shortest = min(road_shape(leg.section, cell, width_share=MAP_ROAD).spaces[0].length for leg in race.course)
    return shortest < number_mm + 0.6


def _map_label(sheet: Sheet, road: RoadShape, sx: float, sy: float, number: int, name: str) -> None:
    """A map square's section number and name (wrapped to the room): beside a straight road
    on its right-hand side (the space numbers are on its left), in the free corner of a
    bend."""
    cell = road.size
    size = sheet.t.sizes["small"]
    if road.kind == "straight":
        right = road.entry.opposite.turned(1)
        rx, ry = right.step
        depth = (cell - road.width) / 2 - 1.0
        reach = road.width / 2 + 0.5 + depth / 2
        cx, cy = cell / 2 + rx * reach, cell / 2 + ry * reach
        width = depth if rx else cell - 2.0
    else:
        ns, ew = road.free_corner
        width = (cell - road.width) / 2
        cx = width / 2 + 0.6 if ew is Side.W else cell - width / 2 - 0.6
        cy = cell - 3.2 if ns is Side.N else 3.2
    # what a line may take: the room, and in a bend's corner the 0.6 mm either side of it
    spare = 0.0 if road.kind == "straight" else 1.2
    text = f"{number} {name}"
    lines = wrap(sheet, text, width * MM, size, True)
    most = 3 if road.kind == "straight" else 2  # beside a straight there is room down the square
    while len(lines) > most and size > 4.0:  # smaller type before more lines
        size -= 0.25
        lines = wrap(sheet, text, width * MM, size, True)
    # the lines the square holds: centred 3.2 mm in from its edge, they stay 0.3 mm inside it
    # (in a bend's corner more than the two asked for, at the smallest size)
    held = max(most, 1 + int(2 * (2.9 * MM - CAP * size / 2) / (CAP * size * 1.6)))
    if len(lines) > held:  # a name too long for the square: the lines it holds, cut short
        fitted = fit_text(
            sheet,
            text,
            (width + spare) * MM,
            sheet.t.sizes["small"],
            bold=True,
            lines=held,
            least=4.0,
            single=sheet.t.sizes["small"],
        )
        lines, size = list(fitted.lines), fitted.size
    step = CAP * size * 1.6
    top = cy * MM + (len(lines) - 1) * step / 2
    for k, line in enumerate(lines):
        line_size = fit_size(sheet, line, width * MM, size, True, least=4.0)
        line = cut(sheet, line, (width + spare) * MM, line_size, True)
        centred(sheet, sx + cx * MM, sy + top - k * step, line, line_size, True)


def _chequer(sheet: Sheet, line, heading: Side, x0: float, y0: float, outside: bool = False) -> float:
    """A chequered band of two rows across the road's last edge: beyond it when the
    square there is free, else just inside the road. Returns its depth (mm)."""
    (ax, ay), (bx, by) = line
    length = math.dist((ax, ay), (bx, by))
    cells = 4
    size = length / cells
    ux, uy = (bx - ax) / length, (by - ay) / length
    hx, hy = heading.step
    depth = size / 2 if outside else min(size / 2, 0.6)
    for row in (1, 2):
        shift = (row - 1) * depth if outside else -row * depth
        for k in range(cells):
            ox, oy = ax + ux * k * size + hx * shift, ay + uy * k * size + hy * shift
            pts = [
                (ox, oy),
                (ox + ux * size, oy + uy * size),
                (ox + ux * size + hx * depth, oy + uy * size + hy * depth),
                (ox + hx * depth, oy + hy * depth),
            ]
            dark = (k + row) % 2 == 0
            polygon(
                sheet, pts, x0, y0, fill=sheet.ink.box_fill if not dark else sheet.ink.line, width=sheet.ink.thin_width
            )
            if dark and not sheet.ink.fill:
                sheet.c.line(*pt(x0, y0, pts[0]), *pt(x0, y0, pts[2]))
                sheet.c.line(*pt(x0, y0, pts[1]), *pt(x0, y0, pts[3]))
    return 2 * depth


def _name_parts(race: Race) -> tuple[str, str]:
    """A race's name as (name, end): "Sweden, race 2" is ("Sweden", ", race 2"), so that a
    name cut short keeps the race it names."""
    name, comma, end = race.name.rpartition(", ")
    return (name, comma + end) if comma else (race.name, "")


def draw_course_header(sheet: Sheet, race: Race, page_label: tuple[str, str]) -> None:
    x, top, right = sheet.left, sheet.top, sheet.right
    kind = "Rally Risk course sheet"
    # the page's label may name a calendar: at most half the width, the title in what is left
    label = (
        fit_text(sheet, page_label[0], (right - x) / 2, sheet.t.sizes["small"], after=page_label[1])
        if any(page_label)
        else None
    )
    taken = max(sheet.text_width(kind, "small"), sheet.text_width(label.lines[0], size=label.size) if label else 0.0)
    name, end = _name_parts(race)
    fitted_text(
        sheet,
        x,
        top - 6 * MM,
        name,
        min((right - x) - 62 * MM, right - x - taken - 4 * MM),
        "title",
        bold=True,
        least=TITLE_LEAST,
        after=end,
    )
    sheet.text(right, top - 3.5 * MM, kind, "small", align="right")
    if label:
        draw_fitted(sheet, right, top - 7 * MM, label, align="right")
    facts = [
        "SPECIAL RACE" if race.special else "Normal race",
        f"weather zone {race.zone.value} ({ZONE_NAMES[race.zone]})",
        plural(len(race.course), "road section"),
        plural(race.length, "space"),
    ]
    sheet.text(x, top - 11.5 * MM, "   \u00b7   ".join(facts), "body")
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.line(x, top - 13.5 * MM, right, top - 13.5 * MM)


def _sector_text(sector) -> str:
    return f"{sector.weather.value} +{sector.modifier}" if sector.modifier else sector.weather.value


WEATHER_ROW_MM = 4.2


def _weather_rows(sectors: int) -> int:
    """Rows of the weather list beside the map: one column up to 10 sectors, else two."""
    return sectors if sectors <= 10 else math.ceil(sectors / 2)


def side_panel_height(race: Race, analysis) -> float:
    """Height (mm) :func:`draw_side_panel` takes for this race."""
    h = 14.0 if race.special else 6.0
    h += 5 + 4.5 + _weather_rows(len(race.tables.chart(race.zone).sectors)) * WEATHER_ROW_MM + 8
    if analysis is not None:
        a = analysis.best
        h += 5 + 4.5 + 4.4 * (1 + len(analysis.results)) + 3.6 + 3.5 + 4.2
        h += 3.6 * (len(a.dangerous) + 1) if a.dangerous else 4.0
        h += 3.6 if a.mechanic_help else 0.0
    return h


def _placement_note(analysis) -> str:
    """What the analysis knows of its mechanics' placements (RR-30)."""
    gaps = [r.placement_gap for r in analysis.results if r.placement_gap is not None]
    if not gaps:
        return "mechanics: as given"
    if max(gaps) == 0.0:
        return "mechanics: no placement costs less (proven)"
    return f"mechanics: best found; another may save {max(gaps):.3f} rounds at most"


def draw_side_panel(sheet: Sheet, race: Race, analysis, x: float, top: float, width: float) -> float:
    """Race kind, the zone's weather chart and the analysis; returns the y reached."""
    tables = race.tables
    y = top
    # special race or not
    if race.special:
        extra = ", ".join(f"{ORDINAL[g]} +{e}" for g, e in zip(GEARS, tables.special_extra) if e)
        h = 11 * MM
        sheet.box(x, y - h, width, h, width=sheet.ink.line_width * 1.8)
        sheet.text(x + 2 * MM, y - 4.2 * MM, "SPECIAL RACE: no speed limits", "body", bold=True)
        words = f"maximum movement {extra} spaces"
        sheet.text(x + 2 * MM, y - 8.4 * MM, words, size=fit_size(sheet, words, width - 4 * MM, sheet.t.sizes["small"]))
        y -= h + 3 * MM
    else:
        sheet.text(x, y - 3 * MM, "Normal race: the gear chart's limits hold.", "small")
        y -= 6 * MM
    # weather chart of the zone
    chart = tables.chart(race.zone)
    own = "weather" in tables.overridden
    fitted_text(
        sheet, x, y - 3.2 * MM, f"Weather, zone {race.zone.value} ({ZONE_NAMES[race.zone]})", width, "body", bold=True
    )
    y -= 5 * MM
    sheet.text(
        x, y - 2.6 * MM, f"{'your box' if own else 'house'} chart; each round: even roll forward, odd back", "small"
    )
    y -= 4.5 * MM
    row = WEATHER_ROW_MM * MM
    rows = _weather_rows(len(chart.sectors))
    col_w = width / (1 if rows == len(chart.sectors) else 2)
    for i, sector in enumerate(chart.sectors):
        cx = x + (i // rows) * col_w
        ry = y - (i % rows + 1) * row
        _checkbox(sheet, cx, ry + 0.5 * MM, 3.2 * MM)
        sheet.text(cx + 5 * MM, ry + 1.2 * MM, f"{i + 1}", "small", bold=True)
        sheet.text(cx + 9 * MM, ry + 1.2 * MM, _sector_text(sector), "small", bold=i == chart.start)
        if i == chart.start:
            sheet.text(cx + col_w - 1 * MM, ry + 1.2 * MM, "\u25c0 start", "small", bold=True, align="right")
    y -= rows * row
    sheet.text(x, y - 3 * MM, "fords: " + ford_text(tables), "small")
    y -= 4 * MM + 4 * MM
    if analysis is None:
        return y
    # analysis
    sheet.text(x, y - 3.2 * MM, "Analysis: one car, best play", "body", bold=True)
    y -= 5 * MM
    source = "house tables" if not tables.overridden else "the race's tables"
    sheet.text(x, y - 2.6 * MM, f"exact solver, {source}; rounds from its departure", "small")
    y -= 4.5 * MM
    cols = (22 * MM, 14 * MM, 12 * MM, width - 48 * MM)
    heads = ("assistance", "rounds", "P(elim)", "mechanics on")
    cx = x
    h = 4.4 * MM
    for w, head in zip(cols, heads):
        text_box(sheet, cx, y - h, w, h, head, size=sheet.t.sizes["small"], bold=True, shaded=True, pad=BOX_PAD)
        cx += w
    y -= h
    best = analysis.best.assistance
    for r in analysis.results:
        cells = (
            r.assistance.value + (" (best)" if r.assistance is best else ""),
            f"{r.expected_rounds:.2f}",
            f"{100 * r.elimination_probability:.1f}%",
            ", ".join(str(m) for m in r.mechanics) or "none",
        )
        cx = x
        for w, cell in zip(cols, cells):
            text_box(sheet, cx, y - h, w, h, cell, size=sheet.t.sizes["small"], bold=r.assistance is best, pad=BOX_PAD)
            cx += w
        y -= h
    fitted_text(sheet, x, y - 2.6 * MM, _placement_note(analysis), width, "small")
    y -= 3.6 * MM
    y -= 3.5 * MM
    a = analysis.best
    sheet.text(x, y - 2.6 * MM, f"Most dangerous spaces ({a.assistance.value} assistance)", "small", bold=True)
    y -= 4.2 * MM
    if not a.dangerous:
        sheet.text(x, y - 2.6 * MM, "none: best play never goes off the road", "small")
        y -= 4 * MM
    names = {leg.section.id: leg.section.name for leg in race.course}
    for d in a.dangerous:
        ford = " ford" if d.ford else ""
        sheet.text(x, y - 2.6 * MM, f"space {d.space}", "small", bold=True)
        name, where = names.get(d.section, d.section), f" {d.section_space}, factor {d.factor}{ford}"
        room = width - 14 * MM - sheet.text_width("off 100.0%", "small") - 2 * MM
        size = fit_size(sheet, name + where, room, sheet.t.sizes["small"], least=4.0)
        # a name too long: cut short, the space and its factor kept
        words = cut(sheet, name, room - sheet.text_width(where, size=size), size) + where
        sheet.text(x + 14 * MM, y - 2.6 * MM, words, size=size)
        sheet.text(x + width, y - 2.6 * MM, f"off {100 * d.damage_probability:.1f}%", "small", align="right")
        y -= 3.6 * MM
    if a.dangerous:
        sheet.text(x, y - 2.6 * MM, "double outline on the map: these spaces", "small")
        y -= 3.6 * MM
    if a.mechanic_help:
        spots = ", ".join(str(s) for s, _g in a.mechanic_help[:4])
        sheet.text(x, y - 2.6 * MM, f"one mechanic helps most on spaces {spots}", "small")
        y -= 3.6 * MM
    return y


def draw_space_strip(sheet: Sheet, race: Race, top: float, danger: dict[int, float], rows: range | None = None) -> None:
    """Every space by progressive number (or those of `rows` of the strip): its factor,
    fords, section boundaries."""
    x, width = sheet.left, sheet.right - sheet.left
    strip = space_strip(race.length, width / MM)
    rows = range(strip.rows) if rows is None else rows
    cell = strip.cell * MM
    sheet.text(x, top - 3.3 * MM, "Spaces", "body", bold=True)
    sheet.text(
        x + 14 * MM,
        top - 3.3 * MM,
        f"number (for placing mechanics, {MECHANIC_RANGE} spaces' reach either way) and factor; ~ ford; heavy box: "
        "most dangerous; | new section",
        "small",
    )
    y = top - TITLE_ROW_MM * MM
    spaces = race.spaces
    for row in rows:
        row_spaces = spaces[row * strip.per_row : (row + 1) * strip.per_row]
        label_y = y - 2.6 * MM
        num_y = y - 2.8 * MM - 3.8 * MM
        fac_y = num_y - 5.0 * MM
        for col, space in enumerate(row_spaces):
            cx = x + col * cell
            if space.index == 1 or col == 0:
                room = (
                    min(len(race.course[space.leg].section.factors) - space.index + 1, len(row_spaces) - col) * cell
                    - 1 * MM
                )
                name = f"{space.leg + 1} {race.course[space.leg].section.name}" + (
                    "" if space.index == 1 else " (cont.)"
                )
                if sheet.text_width(name, bold=True, size=4.5) > room:
                    name = f"{space.leg + 1}"
                size = fit_size(sheet, name, room, sheet.t.sizes["small"], True, least=4.0)
                sheet.text(cx + 0.6 * MM, label_y + 0.4 * MM, name, bold=True, size=size)
            text_box(
                sheet,
                cx,
                num_y,
                cell,
                3.8 * MM,
                str(space.number),
                size=sheet.t.sizes["small"],
                shaded=True,
                pad=BOX_PAD,
            )
            sheet.box(cx, fac_y, cell, 5.0 * MM, width=sheet.ink.thin_width)
            lift = 0.7 * MM if space.ford else 0.0
            centred(
                sheet, cx + cell / 2, fac_y + 2.5 * MM + lift, str(space.factor), sheet.t.sizes["body"] + 1, bold=True
            )
            if space.ford:
                sheet.stroke(width=sheet.ink.thin_width)
                wave(
                    sheet,
                    (cx / MM + 0.8, fac_y / MM + 0.9),
                    (cx / MM + strip.cell - 0.8, fac_y / MM + 0.9),
                    0,
                    0,
                    amplitude=0.3,
                    wavelength=1.4,
                )
            if space.number in danger:  # a heavy box round the number and the factor together
                sheet.stroke(colour=sheet.ink.corner, width=sheet.ink.corner_width)
                sheet.c.rect(cx + 0.5, fac_y + 0.5, cell - 1, 8.8 * MM - 1, stroke=1, fill=0)
                sheet.stroke()
            if space.index == 1 and space.number > 1:
                sheet.stroke(width=sheet.ink.line_width * 2.2)
                sheet.c.line(cx, fac_y - 0.6 * MM, cx, label_y + 2.4 * MM)
                sheet.stroke()
        y -= STRIP_ROW_MM * MM


def draw_players(sheet: Sheet, race: Race, top: float) -> None:
    """One row per car (up to 6): driver, departure, assistance, mechanics, tyres, result."""
    x, right = sheet.left, sheet.right
    sheet.text(x, top - 3.3 * MM, "Drivers", "body", bold=True)
    sheet.text(
        x + 17 * MM,
        top - 3.3 * MM,
        "car k departs in round k; tick assistance and tyres (rub out and tick again after a change)",
        "small",
    )
    fixed = [
        ("Car", 8),
        ("Start order", 11),
        ("Assistance P R N", 27),
        ("Mechanics on spaces", 28),
        ("Tyres N R S", 27),
        ("R.P.M. card used", 12),
        ("Finish round", 14),
        ("Score", 14),
    ]
    driver = (right - x) / MM - sum(w for _h, w in fixed)
    columns = fixed[:1] + [("Driver", driver)] + fixed[1:]
    head_h, row_h = PLAYER_HEAD_MM * MM, PLAYER_ROW_MM * MM
    y = top - TITLE_ROW_MM * MM - head_h
    cx = x
    for head, w in columns:
        sheet.box(cx, y, w * MM, head_h, shaded=True, width=sheet.ink.thin_width)
        size = sheet.t.sizes["small"]
        lines = wrap(sheet, head, w * MM - 1.2 * MM, size, True)
        for k, line in enumerate(lines[:2]):
            ly = y + head_h / 2 + (len(lines[:2]) - 1) * 1.35 * MM - k * 2.7 * MM
            centred(sheet, cx + w * MM / 2, ly, line, fit_size(sheet, line, w * MM - 1.2 * MM, size, True), True)
        cx += w * MM
    for car in range(1, MAX_PLAYERS + 1):
        y -= row_h
        cx = x
        for head, w in columns:
            cw = w * MM
            sheet.box(cx, y, cw, row_h, width=sheet.ink.thin_width)
            if head == "Car":
                centred(sheet, cx + cw / 2, y + row_h / 2, str(car), sheet.t.sizes["body"] + 1, True)
            elif head.startswith(("Assistance", "Tyres")):
                letters = "PRN" if head.startswith("Assistance") else "NRS"
                for k, letter in enumerate(letters):
                    bx = cx + 1.5 * MM + k * (cw - 2 * MM) / 3
                    _checkbox(sheet, bx, y + row_h / 2 - 1.5 * MM)
                    sheet.text(bx + 3.6 * MM, y + row_h / 2 - 0.9 * MM, letter, "small", bold=True)
            elif head.startswith("Mechanics"):
                bw = (cw - 2.4 * MM) / MAX_MECHANICS
                for k in range(MAX_MECHANICS):
                    sheet.box(
                        cx + 0.6 * MM + k * (bw + 0.6 * MM),
                        y + 0.9 * MM,
                        bw,
                        row_h - 1.8 * MM,
                        width=sheet.ink.thin_width,
                    )
            elif head.startswith("R.P.M."):
                _checkbox(sheet, cx + cw / 2 - 1.5 * MM, y + row_h / 2 - 1.5 * MM)
            cx += cw
    key = (
        "P permanent, R rapid, N normal assistance; tyres N normal, R rain, S snow. Score: rounds behind the first "
        "arrival minus the start order "
        f"(eliminated: the last arrival's + {ELIMINATION_HANDICAP})."
    )
    sheet.text(x, y - 3 * MM, key, size=fit_size(sheet, key, right - x, sheet.t.sizes["small"], least=4.0))


def draw_round_tracker(sheet: Sheet, top: float, rounds: int) -> None:
    x, right = sheet.left, sheet.right
    sheet.text(x, top - 3.3 * MM, "Rounds", "body", bold=True)
    sheet.text(
        x + 15 * MM,
        top - 3.3 * MM,
        "cross off each round; write the weather sector the first player's roll gives",
        "small",
    )
    head = 13 * MM
    cell = (right - x - head) / rounds
    y = top - TITLE_ROW_MM * MM - 4.2 * MM
    text_box(
        sheet,
        x,
        y,
        head,
        4.2 * MM,
        "round",
        size=sheet.t.sizes["small"],
        bold=True,
        shaded=True,
        align="left",
        pad=BOX_PAD,
    )
    text_box(
        sheet,
        x,
        y - 6.0 * MM,
        head,
        6.0 * MM,
        "weather",
        size=sheet.t.sizes["small"],
        bold=True,
        shaded=True,
        align="left",
        pad=BOX_PAD,
    )
    for k in range(rounds):
        cx = x + head + k * cell
        text_box(sheet, cx, y, cell, 4.2 * MM, str(k + 1), size=sheet.t.sizes["small"], shaded=True, pad=BOX_PAD)
        sheet.box(cx, y - 6.0 * MM, cell, 6.0 * MM, width=sheet.ink.thin_width)


def _footer(sheet: Sheet, note: str = "") -> None:
    """The scale bar, and `note` at the right; the bar's words are cut short to leave it room."""
    y = sheet.bottom + 1.5 * MM
    if note:
        sheet.text(sheet.right, y, note, "small", align="right")
    room = sheet.right - sheet.left - 52 * MM - sheet.text_width(note, "small") - 4 * MM
    room -= NUMBER_GAP + sheet.number_width()  # the page's number follows the bar's words
    for label in (SCALE_LABEL, "50 mm: if not, print at 100 % (no fit to page)", "50 mm: print at 100 %"):
        if sheet.text_width(label, "small") <= room:
            break
    sheet.scale_bar(sheet.left, y, label)


def course_sheet_pages(race: Race, analysis, page_w_mm: float, page_h_mm: float, margin_mm: float) -> int:
    """How many pages :func:`draw_course_sheet` draws for this race on this paper (1, or
    more when a very long course's spaces need pages of their own)."""
    return course_plan(race, page_w_mm, page_h_mm, margin_mm, analysis).pages


def draw_course_sheet(
    sheet: Sheet,
    race: Race,
    analysis=None,
    *,
    page: int = 1,
    pages: int | None = None,
    page_label: str | tuple[str, str] | None = None,
) -> int:
    """A race's course sheet from the current page of `sheet`; every page it draws is
    ended with ``sheet.end_page()``. Returns the number of pages (see
    :func:`course_sheet_pages`; 1 unless the course is very long).

    `analysis` is the race's :class:`~sheetgen.games.rally_risk.analysis.RaceAnalysis` (None:
    printed without the analysis). `page` and `pages` number the pages in the document
    ("page 2 of 9"); without `pages` no page numbers are printed; `page_label` replaces
    the first page's label (later pages add "continued"; (name, end): a name cut short when
    it must be, then its end). Drawn: the course on its
    grid squares with every space's factor and progressive number, fords, start and
    finish; the race kind, the zone's weather chart and the analysis beside it; every
    space in a numbered strip; a row per driver for assistance, mechanics and tyres; and a
    round tracker."""
    plan = course_plan(race, sheet.width / MM, sheet.height / MM, sheet.margin / MM, analysis)
    danger = _heavy_spaces(analysis)
    def label(k: int) -> tuple[str, str]:
        if page_label is None:
            return ("", "")  # the page's number: the PDF's footer
        name, end = page_label if isinstance(page_label, tuple) else ("", page_label)
        return (name, end if k == 0 else f"{end} (continued)")

    draw_course_header(sheet, race, label(0))
    cmap = plan.map
    north = {Side.N: "north up", Side.E: "north to the right", Side.S: "north down", Side.W: "north to the left"}[
        cmap.north
    ]
    small = sheet.t.sizes["space"]
    every = (
        " (every 5th)"
        if map_numbers_thinned(race, cmap.cell, sheet.text_width(str(race.length), size=small) / MM)
        else ""
    )
    sheet.text(sheet.left, plan.middle_top * MM - 3.5 * MM, "Course", "body", bold=True)
    legend = f"as laid on the table, a square per section, {north}; bold: factor, small: space number{every}"
    if cmap.pieces > 1:
        legend += "; the road runs on where a letter is repeated"
    room = sheet.right - sheet.left - (PANEL_MM + 4 + 14) * MM
    size = sheet.t.sizes["small"]
    lines = wrap(sheet, legend, room, size)
    while len(lines) > 2 and size > 4.5:
        size -= 0.25
        lines = wrap(sheet, legend, room, size)
    for k, line in enumerate(lines):
        sheet.text(sheet.left + 14 * MM, plan.middle_top * MM - (3.5 + 3.0 * k) * MM, line, size=size)
    draw_course_map(sheet, race, plan, danger)
    draw_side_panel(sheet, race, analysis, sheet.right - PANEL_MM * MM, plan.middle_top * MM, PANEL_MM * MM)
    if plan.strip_top is not None:
        draw_space_strip(sheet, race, plan.strip_top * MM, danger)
    draw_players(sheet, race, plan.players_top * MM)
    draw_round_tracker(sheet, plan.tracker_top * MM, plan.rounds)
    tables = (
        "house tables"
        if not race.tables.overridden
        else "own tables: " + ", ".join(DISPLAY[n] for n in race.tables.overridden)
    )
    if plan.strip_top is None:
        tables = "every space by number: next page" + ("s" if plan.extra_pages > 1 else "") + "; " + tables
    _footer(sheet, tables)
    sheet.end_page("course sheet")
    rows = space_strip(race.length, (sheet.right - sheet.left) / MM).rows
    for k in range(plan.extra_pages):
        name, end = label(k + 1)
        kind = (
            fit_text(
                sheet,
                "Rally Risk course sheet, " + name,
                (sheet.right - sheet.left) / 2,
                sheet.t.sizes["small"],
                after=end,
            )
            if name or end
            else fit_text(sheet, "Rally Risk course sheet", sheet.right, sheet.t.sizes["small"])
        )
        room = sheet.right - sheet.left - sheet.text_width(kind.lines[0], size=kind.size) - 4 * MM
        fitted_text(
            sheet,
            sheet.left,
            sheet.top - 4.5 * MM,
            _name_parts(race)[0],
            room,
            "heading",
            bold=True,
            after=_name_parts(race)[1],
        )
        draw_fitted(sheet, sheet.right, sheet.top - 4.5 * MM, kind, align="right")
        first = k * plan.strip_rows_per_page
        draw_space_strip(
            sheet,
            race,
            sheet.top - RUNNING_HEADER_MM * MM,
            danger,
            range(first, min(first + plan.strip_rows_per_page, rows)),
        )
        _footer(sheet)
        sheet.end_page("course sheet")
    return plan.pages


def render_race(
    race: Race,
    template: Template,
    *,
    analysis=None,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
) -> tuple[bytes, int]:
    """A race's printable PDF: its course sheet, then the reference card of its tables
    unless another file of the job prints that card (`printed_elsewhere`)."""
    card = not printed_elsewhere(card_key(race.tables))
    meta = Meta(
        title=f"{race.name}: Rally Risk course sheet",
        subject="Rally Risk course sheet and reference card",
        keywords=("rally risk", "course sheet") + keywords,
    )

    width, height = template.page_size(paper)
    total = course_sheet_pages(race, analysis, width / MM, height / MM, template.margin_mm) + card

    def draw(sheet: Sheet) -> None:
        draw_course_sheet(sheet, race, analysis, page=1, pages=total)
        if card:
            draw_reference_card(sheet, race.tables, subtitle=race.name)

    return render_pdf(template, ink, paper, meta, draw)


def print_race(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures
) -> tuple[bytes, int]:
    """The printable of a Rally Risk race: its course sheet with the analysis (`figures`,
    the game's), and the reference card of its tables."""
    return render_race(spec.model, template, analysis=figures, paper=paper, ink=ink, keywords=keywords)
