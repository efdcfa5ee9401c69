"""The roadbook of a Rallyman track: every note in track order as a co-driver reads it.

The notes are the track's own (`Track.notes`): a corner with its limit per lane, its caution
lanes, its inside lines and what lies on its spaces, or a run of spaces of one kind (a jump and
its gear, water, a shortcut and its limit, a slide zone, the pit lane); the roadbook adds the
start, the changes of surface and the finish. Each note says its space in track order
(`Track.steps`: moves from the start) and the distance in spaces from the previous note.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetgen.games.rallyman.model import Cell, Corner, Track, Variant
from sheetgen.render.common import TITLE_LEAST, fit_size, fitted_text, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.template import MM


@dataclass(frozen=True)
class Entry:
    """A line of the roadbook."""

    step: int  # track order of its first space
    call: str  # what the co-driver calls first: "right 120, 3/4", "jump, gear 4"
    details: tuple[str, ...]  # limit per lane, inside lines, cautions, hazards


def _lanes(cells) -> str:
    lanes = sorted({c.lane for c in cells if c.lane})
    if not lanes:
        return "off the road"
    if len(lanes) == 1:
        return f"lane {lanes[0]}"
    return "lanes " + ", ".join(str(n) for n in lanes)


def _on_corner(cells: tuple[Cell, ...]) -> list[str]:
    """What else lies on a corner's spaces."""
    out = []
    jumps = sorted({c.jump for c in cells if c.jump is not None})
    if jumps:
        out.append("jump, gear " + "/".join(str(g) for g in jumps))
    for flag, words in (("water", "water"), ("slide", "slide zone"), ("pit", "pit lane")):
        marked = [c for c in cells if getattr(c, flag)]
        if marked:
            out.append(f"{words} ({_lanes(marked)})")
    return out


def _corner(track: Track, corner: Corner) -> tuple[str, list[str]]:
    by_lane = list(corner.limits)
    caution = list(corner.caution_lanes)
    values = "/".join(str(v) for _lane, v in by_lane)
    turn = corner.turn
    call = f"{turn} {corner.degrees}, {values}" if turn != "straight" else f"limit {values}"
    sided = track.variant is Variant.DIRT and len(by_lane) > 1 and turn in ("left", "right")
    if sided:
        # DIRT: the inside lane (shorter, lower limit) or a drift by the outside lane
        ordered = by_lane if turn == "left" else by_lane[::-1]
        (inside, low), (outside, high) = ordered[0], ordered[-1]
        call = f"{turn} {corner.degrees}, in {low} / out {high}"
        details = [f"inside lane {inside}: limit {low}{' (caution)' if inside in caution else ''}; shorter"]
        details += [
            f"middle lane {lane}: limit {v}{' (caution)' if lane in caution else ''}" for lane, v in ordered[1:-1]
        ]
        details.append(
            f"outside lane {outside}: limit {high}{' (caution)' if outside in caution else ''}; longer, a drift"
        )
        details.append("choose the lane on entry and keep it through the corner")
    else:
        details = [
            "limit by lane: "
            + ", ".join(f"lane {lane} {v}{' (caution)' if lane in caution else ''}" for lane, v in by_lane)
        ]
    if caution and not sided:
        details.append("caution: " + ", ".join(f"lane {lane}" for lane in caution))
    for line in corner.lines:
        what = f"limit {line.limit}" if line.limit is not None else ""
        if line.caution:
            what = f"{what} + caution" if what else "caution"
        la, lb = ("?" if (lane_cell := track.cell(h)) is None else lane_cell.lane for h in (line.a, line.b))
        where = f"in lane {la}" if la == lb else f"between lanes {la} and {lb}"
        details.append(f"inside line {where}: {what or 'dotted'}")
    if track.variant is Variant.DIRT and _shortcut_tiles(track) & {c.tile for c in corner.cells if c.tile is not None}:
        details.append("mud from the shortcut on this tile lowers these limits by 1 a token (stacking)")
    return call, details + _on_corner(corner.cells)


def _shortcut_tiles(track: Track) -> set:
    """The tiles holding a shortcut space (mud drawn there lowers their corner limits)."""
    return {c.tile for c in track.cells if c.shortcut is not None and c.tile is not None}


def _places(track: Track, pairs) -> str:
    """Spaces as a co-driver names them: "space 24 (lane 1)", "spaces 24, 25 (lanes 1, 2)"."""
    got = sorted(set(pairs))
    if not got:
        return "nowhere"
    return ", ".join(f"space {step} (lane {lane})" if lane else f"space {step}" for step, lane in got)


def _shortcut_details(track: Track, cells: tuple[Cell, ...], limit: int | None) -> list[str]:
    """DIRT: where a shortcut is entered and left, its limit, and the token its entry draws."""
    from sheetgen.games.rallyman import cards
    from sheetgen.games.rallyman.ruleset import ruleset_of

    steps = track.steps()
    group = {c.hex for c in cells}
    entries_ = [
        (steps.get(m.frm, 0), track.at(m.frm).lane)
        for c in track.cells
        if c.hex not in group
        for m in track.moves(c.hex)
        if m.to in group
    ]
    exits = [(steps.get(m.to, 0), track.at(m.to).lane) for h in group for m in track.moves(h) if m.to not in group]
    out = [
        f"limit {limit} (mud never lowers it)",
        f"enter from {_places(track, entries_)}; leave to {_places(track, exits)}; never from or to a corner space",
    ]
    ruleset = ruleset_of(track)
    sides: dict[str, int] = {}
    for token in ruleset.damage_bag.tokens:
        if token.shortcut is not None:
            sides[token.shortcut] = sides.get(token.shortcut, 0) + token.count
    if sides:
        words = {"ok": "OK!", "coast_die": "coast die damage", "mud": "mud -1 on this tile's corners"}
        counts = ", ".join(f"{words.get(side, side)} {n}" for side, n in sides.items())
        source = " (house values)" if cards.is_house(ruleset, "damage_bag") else ""
        out.append(f"each entry draws a damage token, shortcut side: {counts} of {ruleset.damage_bag.total}{source}")
    return out


def _jump_details(gear: int | None) -> list[str]:
    """DIRT: where a die on a jump of `gear` lands (rulebook "Jump", RD-9)."""
    if gear is None:
        return []
    out = []
    if gear > 1:
        out.append(f"gear {gear - 1} or lower: a normal space" if gear > 2 else "gear 1: a normal space")
    out.append(f"gear {gear}: land 1 space on (straight or diagonal)")
    if gear + 1 <= 6:
        out.append(f"gear {gear + 1}: land 2 spaces on; a caution on that die loses control where you land")
    if gear + 2 <= 6:
        out.append(f"gear {gear + 2}{' or more' if gear + 2 < 6 else ''}: land 2 spaces on and lose control there")
    out.append("never onto a car or obstacle; into a corner in either lane")
    return out


WATER_RULE = (
    "only a coast or leader die or the gear-1 die goes through (not gear 1 after a brake); any other die ends the move "
    "here, in the gear before it"
)
SLIDE_RULE = (
    "enter normally, or slide: the zone counts as two spaces across the track; chosen on entry and kept; a sliding car "
    "is followed only by sliding, never passed"
)


_CALLS = {"water": "water", "slide": "slide zone", "pit": "pit lane"}


def entries(track: Track) -> tuple[Entry, ...]:
    """The roadbook of `track` in track order: the start, its notes (`Track.notes`), the
    changes of surface and the finish."""
    steps = track.steps()
    far = len(track.cells) + 1
    out: list[tuple[int, int, Entry]] = []
    for note in track.notes():
        if note.corner is not None:
            call, details = _corner(track, note.corner)
        else:
            if note.kind == "jump":
                call = f"jump, gear {note.value}"
            elif note.kind == "shortcut":
                call = f"shortcut, limit {note.value}"
            else:
                call = _CALLS.get(note.kind, note.kind)
            span = [steps[c.hex] for c in note.cells if c.hex in steps]
            length = max(span) - min(span) + 1 if span else len(note.cells)
            details = [f"{_lanes(note.cells)}, {length} space{'s' if length != 1 else ''} long"]
            if track.variant is Variant.DIRT:
                if note.kind == "jump":
                    details += _jump_details(note.value)
                elif note.kind == "shortcut":
                    details += _shortcut_details(track, note.cells, note.value)
                elif note.kind == "water":
                    details.append(WATER_RULE)
                elif note.kind == "slide":
                    details.append(SLIDE_RULE)
        out.append((note.step, 1, Entry(note.step, call, tuple(details))))
    # changes of surface: where every space of a step is on a new surface
    by_step: dict[int, set] = {}
    for c in track.cells:
        if c.hex in steps:
            by_step.setdefault(steps[c.hex], set()).add(c.surface.value)
    current = None
    for step in sorted(by_step):
        if len(by_step[step]) != 1:
            continue
        (surface,) = by_step[step]
        if current is not None and surface != current:
            out.append((step, 0, Entry(step, f"onto {surface}", (f"from {current}",))))
        current = surface
    surfaces = " and ".join(sorted({c.surface.value for c in track.starts}))
    out.append((0, -1, Entry(0, "start", (f"{_lanes(track.starts)}; surface {surfaces}",))))
    finish = min((steps.get(c.hex, far) for c in track.finishes), default=far)
    if finish < far:
        if track.laps > 1:
            # a circuit: the line the cars cross at the end of every lap
            entry = Entry(
                finish,
                "finish line",
                (f"{_lanes(track.finishes)}; crossed at the end of every lap: the race ends after {track.laps} laps",),
            )
        else:
            entry = Entry(finish, "finish", (_lanes(track.finishes),))
        out.append((finish, 2, entry))
    out.sort(key=lambda item: (item[0], item[1]))
    return tuple(entry for _s, _o, entry in out)


COLUMNS = (("no.", 9), ("move", 12), ("+moves", 14), ("call", 40), ("details", 0), ("your notes", 34))


def roadbook_pages(track: Track, sheet: Sheet) -> list[list[tuple[int, Entry, int, list[str]]]]:
    """The notes laid out in pages: (number, note, distance, detail lines)."""
    width = _widths(sheet)
    detail_w = width[4] * MM - 2 * MM
    size = sheet.t.sizes["body"]
    rows: list[tuple[int, Entry, int, list[str]]] = []
    previous = 0
    for i, note in enumerate(entries(track), 1):
        lines = []
        for d in note.details:
            lines += wrap(sheet, d, detail_w, size)
        rows.append((i, note, note.step - previous, lines))
        previous = note.step
    room = (sheet.top - sheet.bottom) / MM - 30
    pages: list[list[tuple[int, Entry, int, list[str]]]] = []
    page: list[tuple[int, Entry, int, list[str]]] = []
    used = 0.0
    for row in rows:
        h = _row_height(row)
        if page and used + h > room:
            pages.append(page)
            page, used = [], 0.0
        page.append(row)
        used += h
    pages.append(page)
    return pages


def _row_height(row) -> float:
    return max(8.0, 2.5 + 3.6 * len(row[3]))


def _widths(sheet: Sheet) -> list[float]:
    total = (sheet.right - sheet.left) / MM
    fixed = sum(w for _n, w in COLUMNS)
    return [w if w else total - fixed for _n, w in COLUMNS]


def draw_roadbook_page(sheet: Sheet, track: Track, rows, page: int, pages: int) -> float:
    """One page of the roadbook, the `page`-th of its `pages` (the page does not end); returns
    the y below its rows. Its number is the PDF's footer; a later page says "continued"."""
    top = sheet.top
    end = ": roadbook" + (" (continued)" if page > 1 and pages > 1 else "")
    room = sheet.right - sheet.left
    fitted_text(sheet, sheet.left, top - 6 * MM, track.name, room, "title", bold=True, least=TITLE_LEAST, after=end)
    calls = "in/out: the limit of its inside and outside lane" if track.variant is Variant.DIRT else "lane 1/lane 2/..."
    intro = (
        "Every note in track order. move: moves from the start to its first space; +moves: from the previous note. "
        "A corner's call "
        f"gives its limits (top gear), {calls}."
    )
    sheet.text(
        sheet.left, top - 11 * MM, intro, size=fit_size(sheet, intro, sheet.right - sheet.left, sheet.t.sizes["small"])
    )
    widths = _widths(sheet)
    y = top - 15 * MM
    head_h = 6 * MM
    x = sheet.left
    for (name, _w), w in zip(COLUMNS, widths):
        sheet.box(x, y - head_h, w * MM, head_h, shaded=True, width=sheet.ink.thin_width)
        sheet.text(x + 1.2 * MM, y - head_h + 2 * MM, name, "small", bold=True)
        x += w * MM
    y -= head_h
    for number, note, distance, lines in rows:
        h = _row_height((number, note, distance, lines)) * MM
        x = sheet.left
        values = [str(number), str(note.step), f"+{distance}" if number > 1 else "", note.call, "", ""]
        for k, ((_name, _w), w) in enumerate(zip(COLUMNS, widths)):
            sheet.box(x, y - h, w * MM, h, width=sheet.ink.thin_width)
            if k == 3:
                size = fit_size(sheet, values[k], w * MM - 2.4 * MM, sheet.t.sizes["heading"], True)
                sheet.text(x + 1.2 * MM, y - 5.2 * MM, values[k], bold=True, size=size)
            elif k == 4:
                ty = y - 4 * MM
                for line in lines:
                    sheet.text(x + 1.2 * MM, ty, line, "body")
                    ty -= 3.6 * MM
            elif values[k]:
                sheet.text(x + 1.2 * MM, y - 5.2 * MM, values[k], "body", bold=k == 0)
            x += w * MM
        y -= h
    sheet.scale_bar(sheet.left, sheet.bottom + 1 * MM)
    return y
