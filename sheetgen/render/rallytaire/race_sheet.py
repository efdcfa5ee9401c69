"""Rallytaire PDFs: race sheets (header, advanced-game boxes, every stage as a winding track
of square spaces) and the finishing-turn time table.

The track geometry comes from `sheetgen.games.rallytaire.layout` (pure, tested without
reportlab); this module only draws it. Every mark that colour distinguishes is also told by
shape: corner lines are thick and carry their gear number, planning zones are dashed with a
start tick, surfaces have a label and a line pattern, the finish line is chequered.
"""

from __future__ import annotations

from reportlab.lib.colors import HexColor

from sheetgen.games.rallytaire.layout import StageLayout, end_label
from sheetgen.games.rallytaire.model import BASE_SPEED, Race, Stage, Surface
from sheetgen.games.rallytaire.rules_advanced import fix_points
from sheetgen.games.rallytaire.sheet import (
    FOOTER_MM,
    HEADER_MM,
    PANEL_HEAD_MM,
    TABLE_ROW_MM,
    TABLE_TITLE_MM,
    Placed,
    max_speed,
    plan_race,
    table_height,
)
from sheetgen.games.rallytaire.timetable import BASIC_MAX_SPEED, PUSH_MAX_SPEED, TURN_SECONDS, table
from sheetgen.render.common import draw_fitted, fit_text, fitted_text
from sheetgen.render.patterns import draw_pattern
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.template import MM, Template

#: the least size (points) a stage's name is shrunk to before it is cut short
NAME_LEAST = 6.0


def seconds_text(tenths: int) -> str:
    return f"{tenths // 10}.{tenths % 10}"


def _s(seconds: float) -> str:
    return f"{seconds:.1f} s"


# -- drawing -----------------------------------------------------------------------------------


def _checkboxes(sheet: Sheet, x: float, y: float, count: int, size: float = 3.6 * MM, gap: float = 1.2 * MM) -> float:
    for k in range(count):
        sheet.box(x + k * (size + gap), y, size, size)
    return count * (size + gap)


def _field(sheet: Sheet, x: float, y: float, label: str, width: float, unit: str = "") -> float:
    """A label and a box to write in (6.5 mm high, its bottom at y), then `unit`; returns the
    x where the field ends."""
    sheet.text(x, y + 1.6 * MM, label, "body", bold=True)
    lx = x + sheet.text_width(label, "body", bold=True) + 2 * MM
    sheet.box(lx, y, width, 6.5 * MM)
    end = lx + width
    if unit:
        sheet.text(lx + width + 1.2 * MM, y + 1.6 * MM, unit, "body")
        end += 1.2 * MM + sheet.text_width(unit, "body")
    return end


def _field_width(sheet: Sheet, label: str, width: float, unit: str = "") -> float:
    return (
        sheet.text_width(label, "body", bold=True)
        + 2 * MM
        + width
        + (1.2 * MM + sheet.text_width(unit, "body") if unit else 0.0)
    )


def draw_header(
    sheet: Sheet, race: Race, analysis, advanced, pages: int, left_out: tuple[str, str] | None = None
) -> None:
    """Page 1's header, HEADER_MM high: nothing of it leaves the page's printable frame.
    `left_out`: two short lines saying why there are no advanced figures (the game's)."""
    x, top = sheet.left, sheet.top
    right = sheet.right
    kind = f"Rallytaire race sheet, page 1 of {pages}"
    pars = []
    if analysis is not None:
        pars.append(f"race par {_s(analysis.par_time)} basic game")
    if advanced is not None:
        pars.append(f"{_s(advanced.race_par_time)} advanced (best tyres: {advanced.tyres.value})")
    par = ", ".join(pars)
    # the race's name: left of the lines on the right, above the driver's row (in two
    # lines, smaller, when one does not hold it)
    room = right - x - max(sheet.text_width(kind, "small"), sheet.text_width(par, "small")) - 4 * MM
    title = fit_text(
        sheet,
        race.name,
        room,
        sheet.t.sizes["title"],
        bold=True,
        lines=2,
        single=0.75 * sheet.t.sizes["title"],
        height=7.2 * MM,
    )
    first = top - 5.5 * MM if len(title.lines) == 1 else top - 0.3 * MM - 0.928 * title.size
    draw_fitted(sheet, x, first, title, bold=True)
    sheet.text(right, top - 2.8 * MM, kind, "small", align="right")
    if pars:
        sheet.text(right, top - 6.0 * MM, par, "small", align="right")
    if advanced is not None:
        # the advanced game's race time under its best play, exactly (right of the total
        # time's box, above the gear table): two short lines
        p10, p50, p90 = (
            "-" if value is None else f"{value:.1f}" for value in (advanced.p10, advanced.p50, advanced.p90)
        )
        dnf = advanced.dnf_probability
        out = "under 0.1%" if 0 < dnf < 0.001 else f"{100 * dnf:.1f}%"
        sheet.text(right, top - 9.2 * MM, f"advanced: p10 {p10}, p50 {p50},", "small", align="right")
        sheet.text(right, top - 12.0 * MM, f"p90 {p90} s; out of the race {out}", "small", align="right")
    elif left_out is not None:
        sheet.text(right, top - 9.2 * MM, left_out[0], "small", align="right")
        sheet.text(right, top - 12.0 * MM, left_out[1], "small", align="right")
    # driver, date, total time; the gear table on the right
    y = top - 14 * MM
    end = _field(sheet, x, y, "Driver", 42 * MM)
    end = _field(sheet, end + 4 * MM, y, "Date", 24 * MM)
    _field(sheet, end + 4 * MM, y, "Total time", 22 * MM, "s")
    # advanced game: boxes
    y0 = top - 26 * MM
    sheet.text(x, y0 + 8.8 * MM, "Advanced game", "body", bold=True)
    boxes = (
        ("Engine", race.boxes.engine),
        ("Brakes", race.boxes.brakes),
        ("Gearbox", race.boxes.gearbox),
        ("Car", race.boxes.car),
    )
    for k, (label, count) in enumerate(boxes):
        bx = x + (k % 2) * 34 * MM
        by = y0 + (4.4 * MM if k < 2 else 0)
        sheet.text(bx, by + 0.8 * MM, label, "body")
        if count:
            _checkboxes(sheet, bx + 14 * MM, by, count, size=3.4 * MM, gap=0.9 * MM)
        else:
            sheet.text(bx + 14 * MM, by + 0.8 * MM, "none", "small")
    # tyres: a box to check, the surface's name, and a swatch of its whole pattern
    tx = x + 70 * MM
    sheet.text(tx, y0 + 8.8 * MM, "Tyres (check one)", "body", bold=True)
    for k, surface in enumerate(Surface):
        ty = y0 + 4.4 * MM
        cx = tx + k * 20 * MM
        allowed = surface in race.tyres
        sheet.box(cx, ty, 3.4 * MM, 3.4 * MM)
        if not allowed:
            sheet.stroke(width=sheet.ink.line_width)
            sheet.c.line(cx, ty, cx + 3.4 * MM, ty + 3.4 * MM)
            sheet.c.line(cx, ty + 3.4 * MM, cx + 3.4 * MM, ty)
        sheet.text(cx + 4.4 * MM, ty + 0.8 * MM, surface.value, "small")
        draw_pattern(sheet, surface.value, cx, y0 - 0.6 * MM, 17 * MM, 4.2 * MM)
    # gear and base-speed table
    cell = 7 * MM
    head = 16 * MM
    gx = right - head - 5 * cell - 0.3 * MM  # the boxes' lines stay inside the frame
    row_h = 4.0 * MM
    rows = (
        ("Gear", [str(g) for g in BASE_SPEED]),
        ("Dice", [str(g) for g in BASE_SPEED]),
        ("Base speed", [str(v) for v in BASE_SPEED.values()]),
    )
    for r, (label, values) in enumerate(rows):
        ry = y0 - 0.6 * MM + (2 - r) * row_h
        sheet.box(gx, ry, head, row_h, shaded=True)
        sheet.text(gx + 1.2 * MM, ry + 1.2 * MM, label, "small", bold=True)
        for c, value in enumerate(values):
            sheet.box(gx + head + c * cell, ry, cell, row_h, shaded=r == 0)
            sheet.text(gx + head + (c + 0.5) * cell, ry + 1.2 * MM, value, "small", bold=r == 0, align="center")
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.line(x, top - (HEADER_MM - 0.6) * MM, right, top - (HEADER_MM - 0.6) * MM)


def draw_running_header(sheet: Sheet, race: Race, page: int, pages: int) -> None:
    kind = f"Rallytaire race sheet, page {page} of {pages}"
    room = sheet.right - sheet.left - sheet.text_width(kind, "small") - 4 * MM
    fitted_text(sheet, sheet.left, sheet.top - 4.0 * MM, race.name, room, "heading", bold=True)
    sheet.text(sheet.right, sheet.top - 4.0 * MM, kind, "small", align="right")


def draw_footer(sheet: Sheet) -> None:
    # a little in from the frame, so that the bar's end tick (a line 0.8 pt wide) stays inside it
    sheet.scale_bar(sheet.left + 0.3 * MM, sheet.bottom + 1.0 * MM)


_SUM_PARTS = ("turns", 7 * MM, f"\u00d7 {TURN_SECONDS} s +", 9 * MM, "s =", 13 * MM, "s")
_SUM_GAP = 1.2 * MM


def _time_sum_width(sheet: Sheet) -> float:
    """The width :func:`_time_sum` takes, from its first word to `right`."""
    widths = [sheet.text_width(p, "body") if isinstance(p, str) else p for p in _SUM_PARTS]
    return sum(widths) + _SUM_GAP * (len(_SUM_PARTS) - 1) + 0.3 * MM


def _time_sum(sheet: Sheet, right: float, y: float) -> None:
    """Right-aligned at `right`, boxes' bottom at y: "turns [ ] x 10 s + [ ] s = [ ] s", the
    stage time worked out from the turns before the finishing turn and the time table's figure
    (the last box, drawn heavier, is the stage time)."""
    box_h = 5.2 * MM
    parts = _SUM_PARTS
    widths = [sheet.text_width(p, "body") if isinstance(p, str) else p for p in parts]
    gap = _SUM_GAP
    cx = right - sum(widths) - gap * (len(parts) - 1) - 0.3 * MM
    for k, (part, w) in enumerate(zip(parts, widths)):
        if isinstance(part, str):
            sheet.text(cx, y + 1.5 * MM, part, "body")
        else:
            sheet.box(cx, y, w, box_h, width=sheet.ink.line_width * (1.5 if k == 5 else 1.0))
        cx += w + gap


def draw_stage(sheet: Sheet, race: Race, placed: Placed, analysis, advanced) -> None:
    stage = race.stages[placed.index]
    number = placed.index + 1
    x = sheet.left
    top = sheet.top - placed.top_mm * MM
    right = sheet.right
    # panel head, first line: name, surface, and the stage time's sum on the right
    y = top - 4.6 * MM
    facts = f"{stage.surface.value}, {stage.length} spaces, {len(stage.corners)} corners"
    # the name takes what the surface's swatch and facts and the time's sum leave
    room = right - _time_sum_width(sheet) - 3 * MM - (3 * MM + 14 * MM + sheet.text_width(facts, "body")) - x
    name = fitted_text(sheet, x, y, stage.name, room, "heading", bold=True, least=NAME_LEAST)
    nx = x + sheet.text_width(name.lines[0], bold=True, size=name.size) + 3 * MM
    draw_pattern(sheet, stage.surface.value, nx, y - 1 * MM, 12 * MM, 4.2 * MM)
    sheet.text(nx + 14 * MM, y, facts, "body")
    _time_sum(sheet, right, y - 1.6 * MM)
    # second line: figures, service park and fix-points
    y2 = top - 9.6 * MM
    figures = []
    if analysis is not None:
        a = analysis.stages[placed.index]
        figures.append(
            f"par {_s(a.par_time)}   best {_s(a.best_time)}   p50 {_s(a.p50)}   careful {_s(a.cautious_time)}"
        )
    if advanced is not None:
        figures.append(f"advanced par {_s(advanced.stages[placed.index].par_time)}")
    if figures:
        sheet.text(x, y2, "   ".join(figures), "small")
    if number < len(race.stages):
        points = fix_points(stage)
        label = f"then {points} fix-points" + (" at the service park" if stage.service_park else "")
        lw = sheet.text_width(label, "small")
        bx = right - points * 4.3 * MM + 0.9 * MM  # the boxes' lines stay inside the frame
        _checkboxes(sheet, bx, y2 - 0.6 * MM, points, size=3.1 * MM, gap=1.2 * MM)
        sheet.text(bx - 1.5 * MM, y2, label, "small", align="right")
        if stage.service_park:
            sx = bx - lw - 12 * MM
            sheet.box(sx, y2 - 0.9 * MM, 8 * MM, 3.9 * MM, width=sheet.ink.line_width * 1.5)
            sheet.text(sx + 4 * MM, y2 - 0.1 * MM, "SP", "small", bold=True, align="center")
    # the track, centred in the room this paper gives it (see track_box)
    lay = placed.layout
    track_h = placed.height_mm - PANEL_HEAD_MM
    origin_x = x + (right - x - lay.width * MM) / 2
    origin_y = top - PANEL_HEAD_MM * MM - (track_h + lay.height) / 2 * MM
    draw_track(sheet, stage, lay, origin_x, origin_y)


def _poly(sheet: Sheet, points, x0: float, y0: float, fill: bool, dash=None, width=None, colour=None) -> None:
    path = sheet.c.beginPath()
    first = True
    for px, py in points:
        if first:
            path.moveTo(x0 + px * MM, y0 + py * MM)
            first = False
        else:
            path.lineTo(x0 + px * MM, y0 + py * MM)
    path.close()
    sheet.stroke(colour=colour, width=width, dash=dash)
    sheet.c.drawPath(path, stroke=1, fill=1 if fill else 0)


def draw_track(sheet: Sheet, stage: Stage, lay: StageLayout, x0: float, y0: float) -> None:
    c = sheet.c
    ink = sheet.ink

    def P(p: tuple[float, float]) -> tuple[float, float]:  # a local coordinate map: layout mm to page points
        return (x0 + p[0] * MM, y0 + p[1] * MM)

    # spaces
    sheet.fill(ink.track_fill)
    for space in lay.spaces:
        _poly(sheet, space.corners, x0, y0, fill=ink.fill)
    for space in lay.spaces:
        if space.number % 5 == 0:
            # by the middle of the left edge, small, out of the pencil's way and half a space
            # from the back and front edges, where corner lines run
            (fx, fy), (bx, by) = P(space.corners[2]), P(space.corners[3])
            mx, my = (fx + bx) / 2, (fy + by) / 2
            cx, cy = P(space.centre)
            tx, ty = mx + (cx - mx) * 0.36, my + (cy - my) * 0.36
            sheet.text(tx, ty - sheet.t.sizes["space"] / 2.8, str(space.number), "space", align="center")
    # invisible space: dashed
    _poly(sheet, lay.invisible.corners, x0, y0, fill=False, dash=(2, 2), width=ink.thin_width)
    # start line: thick bar and label
    (ax, ay), (bx, by) = P(lay.start_line[0]), P(lay.start_line[1])
    sheet.stroke(width=ink.corner_width * 1.4)
    c.line(ax, ay, bx, by)
    _end_word(sheet, lay, "start", x0, y0)
    # finish line: chequered
    _chequer(sheet, lay.finish_line, x0, y0)
    _end_word(sheet, lay, "finish", x0, y0)
    # corners
    for corner in lay.corners:
        (ax, ay), (bx, by) = P(corner.line[0]), P(corner.line[1])
        sheet.stroke(colour=ink.corner, width=ink.corner_width)
        c.setLineCap(1)
        c.line(ax, ay, bx, by)
        c.setLineCap(0)
        # planning zone: a dashed line along the road from the corner back to its first space,
        # broken where it runs past another corner or zone, with a tick and the corner's gear
        # number at its first space
        zone_width = max(ink.thin_width * 2, 0.6)
        for piece in corner.zone_pieces:
            path = c.beginPath()
            path.moveTo(*P(piece[0]))
            for p in piece[1:]:
                path.lineTo(*P(p))
            sheet.stroke(colour=ink.corner, width=zone_width, dash=(3, 1.2))
            c.drawPath(path, stroke=1, fill=0)
        if corner.zone_tick is not None:
            sheet.stroke(colour=ink.corner, width=zone_width)
            (ax, ay), (bx, by) = P(corner.zone_tick[0]), P(corner.zone_tick[1])
            c.line(ax, ay, bx, by)
        if corner.zone_mark is not None:
            mx, my = P(corner.zone_mark.centre)
            sheet.stroke(colour=ink.corner, width=ink.thin_width)
            c.circle(mx, my, corner.zone_mark.width * MM / 2, stroke=1, fill=0)
            sheet.text(mx, my - 0.75 * MM, str(corner.gear), "small", bold=True, align="center", size=5.5)
        # gear number on the outside of the bend
        lx, ly = P((corner.label.x, corner.label.y))
        w, h = corner.label.width * MM, corner.label.height * MM
        sheet.stroke(colour=ink.corner, width=ink.line_width)
        sheet.c.setFillColor(HexColor(ink.box_fill))
        c.circle(lx + w / 2, ly + h / 2, min(w, h) / 2, stroke=1, fill=1 if ink.fill else 0)
        sheet.text(lx + w / 2, ly + h / 2 - 1.35 * MM, str(corner.gear), "heading", bold=True, align="center", size=9)
        # N and D boxes
        for box, letter in ((corner.n_box, "N"), (corner.d_box, "D")):
            bx, by = P((box.x, box.y))
            sheet.box(bx, by, box.width * MM, box.height * MM)
            sheet.text(
                bx + box.width * MM / 2, by + box.height * MM / 2 - 1.0 * MM, letter, "small", align="center", size=5.5
            )


def _unit(a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    return dx / n, dy / n


def _chequer(sheet: Sheet, line, x0: float, y0: float) -> None:
    """A chequered finish line: two rows of small squares along the edge."""
    (ax, ay), (bx, by) = line
    ux, uy = _unit((ax, ay), (bx, by))
    nx, ny = -uy, ux  # normal (driving direction, as the line runs right to left)
    length = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
    cells = 4
    size = length / cells
    for row in (0, 1):
        for k in range(cells):
            filled = (k + row) % 2 == 0
            ox = ax + ux * k * size + nx * (row - 1) * size * 0.5
            oy = ay + uy * k * size + ny * (row - 1) * size * 0.5
            pts = [
                (ox, oy),
                (ox + ux * size, oy + uy * size),
                (ox + ux * size + nx * size * 0.5, oy + uy * size + ny * size * 0.5),
                (ox + nx * size * 0.5, oy + ny * size * 0.5),
            ]
            sheet.fill(sheet.ink.line)
            _poly(sheet, pts, x0, y0, fill=filled and sheet.ink.fill, width=sheet.ink.thin_width)
            if filled and not sheet.ink.fill:  # low ink: the dark squares are crossed, not filled
                sheet.c.line(x0 + pts[0][0] * MM, y0 + pts[0][1] * MM, x0 + pts[2][0] * MM, y0 + pts[2][1] * MM)
                sheet.c.line(x0 + pts[1][0] * MM, y0 + pts[1][1] * MM, x0 + pts[3][0] * MM, y0 + pts[3][1] * MM)


def _end_word(sheet: Sheet, lay: StageLayout, which: str, x0: float, y0: float) -> None:
    """START or FINISH in a free spot by its line (found by the layout, inside the panel)."""
    word = which.upper()
    width = sheet.text_width(word, "small", bold=True) / MM + 1.0
    height = sheet.t.sizes["small"] / MM + 0.6
    rect = end_label(lay, which, width, height)
    cx, cy = rect.centre
    sheet.text(x0 + cx * MM, y0 + cy * MM - sheet.t.sizes["small"] * 0.36, word, "small", bold=True, align="center")


# -- time table -------------------------------------------------------------------------------


LEGEND = (
    f"Stage time: turns before the finishing turn \u00d7 {TURN_SECONDS} s, plus this table's figure.",
    "par: the expected time of the best possible play: the time to beat.",
    "best: the fastest time possible, when every die falls your way.",
    "p50: the median time of the best possible play: half of such drives are faster.",
    "careful: the expected time when no gear that could crash is ever chosen.",
    "advanced: par and p10/p50/p90 of the advanced game, best tyres.",
)


def draw_time_table(sheet: Sheet, x: float, top: float, width: float, max_speed: int) -> float:
    """The finishing-turn table (rows: speed; columns: spaces moved), with the legend of the
    stage figures in its empty upper right; returns its height (sheet.table_height)."""
    rows = table(max_speed)
    head_w = 12 * MM
    cell_w = (width - head_w) / max_speed
    row_h = TABLE_ROW_MM * MM
    y = top - 4.2 * MM
    sheet.text(x, y, "Time table: the finishing turn", "heading", bold=True)
    note = "row: your speed; column: spaces moved, up to and including the invisible space after the finish line"
    nx = x + sheet.text_width("Time table: the finishing turn", "heading", bold=True) + 4 * MM
    fitted_text(sheet, nx, y, note, x + width - nx, "small")
    y = top - TABLE_TITLE_MM * MM - row_h
    lift = row_h / 2 - 0.8 * MM  # text baseline above a row's bottom
    sheet.box(x, y, head_w, row_h, shaded=True)
    sheet.text(x + head_w / 2, y + lift, "speed", "small", bold=True, align="center")
    for moved in range(1, max_speed + 1):
        cx = x + head_w + (moved - 1) * cell_w
        sheet.box(cx, y, cell_w, row_h, shaded=True)
        sheet.text(cx + cell_w / 2, y + lift, str(moved), "small", bold=True, align="center")
    for speed, cells in enumerate(rows, start=1):
        y -= row_h
        sheet.box(x, y, head_w, row_h, shaded=True)
        sheet.text(x + head_w / 2, y + lift, str(speed), "small", bold=True, align="center")
        for moved, tenths in enumerate(cells, start=1):
            cx = x + head_w + (moved - 1) * cell_w
            sheet.box(cx, y, cell_w, row_h)
            sheet.text(cx + cell_w / 2, y + lift, seconds_text(tenths), "small", align="center")
    # the legend, one line each, right of the diagonal (rows 1-6 leave columns 8 on free)
    lines = list(LEGEND)
    if max_speed > BASIC_MAX_SPEED:
        lines.append(f"Speed {PUSH_MAX_SPEED} only when pushing the engine (advanced game: six dice in 5th gear).")
    lx = x + head_w + 7 * cell_w + 1.5 * MM
    ly = top - TABLE_TITLE_MM * MM - row_h
    for k, line in enumerate(lines):
        sheet.text(lx, ly - (k + 1) * row_h + lift, line, "small")
    return top - y


# -- document ----------------------------------------------------------------------------------


def render_race(
    race: Race,
    template: Template,
    *,
    analysis=None,
    advanced=None,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
    left_out: tuple[str, str] | None = None,
) -> tuple[bytes, int]:
    """A race's printable PDF (race sheet pages, the time table on the last) and its page count."""
    meta = Meta(
        title=f"{race.name}: Rallytaire race sheet",
        subject="Rallytaire race sheet and time table",
        keywords=("rallytaire", "race sheet") + keywords,
    )

    return render_pdf(template, ink, paper, meta, lambda sheet: draw_race(sheet, race, analysis, advanced, left_out))


def race_pages(race: Race, template: Template, paper: str | None) -> int:
    """The pages `draw_race` draws for `race` on `paper`."""
    return plan_race(race, template, template.page_size(paper)[1] / MM).page_count


def draw_race(sheet: Sheet, race: Race, analysis=None, advanced=None, left_out: tuple[str, str] | None = None) -> None:
    """Every page of a race's sheet (its stages, then the time table on the last page)."""
    plan = plan_race(race, sheet.t, sheet.height / MM)
    total = plan.page_count
    speed = max_speed(race)
    for number in range(1, total + 1):
        if number == 1:
            draw_header(sheet, race, analysis, advanced, total, left_out)
        else:
            draw_running_header(sheet, race, number, total)
        for placed in plan.pages[number - 1] if number <= len(plan.pages) else ():
            draw_stage(sheet, race, placed, analysis, advanced)
        if number - 1 == plan.table_page:
            # the time table at the foot of its page, above the scale bar
            table_top = sheet.bottom + (FOOTER_MM + table_height(speed)) * MM
            inset = 0.3 * MM  # the boxes' lines stay inside the frame
            draw_time_table(sheet, sheet.left + inset, table_top, sheet.right - sheet.left - 2 * inset, speed)
        draw_footer(sheet)
        sheet.end_page("race sheet")


def print_race(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: dict
) -> tuple[bytes, int]:
    """The printable of a Rallytaire race (`registry.Printable`): its race sheets with the basic
    and advanced analyses (`figures`, the game's: a race too large for the advanced game's
    exact solve has no advanced figures and prints without its advanced par), and the time
    table."""
    return render_race(
        spec.model,
        template,
        analysis=figures["analysis"],
        advanced=figures["advanced"],
        paper=paper,
        ink=ink,
        keywords=keywords,
        left_out=figures.get("advanced_left_out"),
    )
