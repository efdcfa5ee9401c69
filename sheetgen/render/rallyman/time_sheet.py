"""Rallyman time sheets, one per driver, to keep the race's time with a pencil.

- **GT** (`draw_gt_time_sheet`): the track, its laps and par (or a field for it), a key of the
  seconds a turn counts by the gear it ends in (from the track's ruleset, its source said),
  then a row per turn: the gear the turn ended in, its seconds, the running total, a box to
  tick on a loss of control, the damage tokens drawn and, on a circuit, the lap.
- **DIRT** (`draw_dirt_time_sheet`): a rally of up to `STAGES` stages side by side (the
  first is this track), a row per turn with the time card taken (its gear), the loss-of-
  control icon to ring (SISU, Spin, Crash), its seconds and the stage's running total; each
  stage's time, and the rally total summed over the stages. The time-card values are printed
  as a key; house values say so in a heavy box.

Rows are 7 mm (GT) and 6.5 mm (DIRT) high: room for a pencilled number. A sheet leaves room
for `cards.turns_needed(track)` turns at least, on more pages when one is not enough.
"""

from __future__ import annotations

from sheetgen.games.rallyman import cards
from sheetgen.games.rallyman.ruleset import Ruleset, house_note, ruleset_of
from sheetgen.render.common import fit_size, plural, text_box, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.render.tables import page_footer, page_header
from sheetgen.template import MM

STAGES = 3  # stages side by side on a DIRT time sheet
GT_ROW_MM = 7.0
DIRT_ROW_MM = 6.5
#: the least a DIRT row may be, to keep a rally's turns on one sheet (Letter's page is 17.6
#: mm shorter than A4's): a card number and a ring round an icon still go in by pencil
DIRT_ROW_LEAST_MM = 5.5
ICONS = ("SISU", "Spin", "Crash")


def _cell(
    sheet: Sheet,
    x: float,
    top: float,
    w: float,
    h: float,
    value: str = "",
    *,
    bold: bool = False,
    shaded: bool = False,
    size: float | None = None,
    width: float | None = None,
    align: str = "center",
) -> None:
    text_box(sheet, x, top - h, w, h, value, bold=bold, shaded=shaded, size=size, width=width, align=align)


def two_line_head(sheet: Sheet, x: float, top: float, w: float, h: float, head: str) -> None:
    """A shaded head box with one or two lines (split at a newline), the first bold."""
    sheet.box(x, top - h, w, h, shaded=True, width=sheet.ink.thin_width)
    lines = head.split("\n")
    size = sheet.t.sizes["small"]
    gap = 2.6 * MM
    y0 = top - h / 2 + (len(lines) - 1) * gap / 2
    for k, line in enumerate(lines):
        fitted = fit_size(sheet, line, w - 1.2 * MM, size, k == 0, least=4.5)
        sheet.text(x + w / 2, y0 - k * gap - 0.729 * fitted / 2, line, bold=k == 0, size=fitted, align="center")


def _field(sheet: Sheet, x: float, y: float, label: str, width: float, value: str = "") -> float:
    """`label:` and a line to write on (or the value printed); returns the x after it."""
    sheet.text(x, y, f"{label}:", "body", bold=True)
    lx = x + sheet.text_width(f"{label}:", "body", bold=True) + 1.5 * MM
    if value:
        sheet.text(lx, y, value, "body")
        return lx + max(width, sheet.text_width(value, "body")) + 4 * MM
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.line(lx, y - 0.8 * MM, lx + width, y - 0.8 * MM)
    return lx + width + 4 * MM


def _choices(sheet: Sheet, x: float, y: float, label: str, options: list[str]) -> float:
    """`label:` and options to ring; returns the x after them."""
    sheet.text(x, y, f"{label} (ring one):", "body", bold=True)
    x += sheet.text_width(f"{label} (ring one):", "body", bold=True) + 2 * MM
    for option in options:
        sheet.text(x, y, option, "body")
        x += sheet.text_width(option, "body") + 3.5 * MM
    return x + 2 * MM


def _boxed_note(sheet: Sheet, y: float, text: str, heavy: bool) -> float:
    """A note across the page, in a heavy box when `heavy` (house values); returns the y below."""
    x, right = sheet.left, sheet.right
    size = sheet.t.sizes["body"]
    lines = wrap(sheet, text, right - x - 4 * MM, size, heavy)
    h = (len(lines) * 3.5 + 2.0) * MM
    sheet.box(x, y - h, right - x, h, width=sheet.ink.line_width * (1.8 if heavy else 1.0))
    for k, line in enumerate(lines):
        sheet.text(x + 2 * MM, y - (3.4 + k * 3.5) * MM, line, "body", bold=heavy)
    return y - h - 2.5 * MM


def _tick_box(sheet: Sheet, cx: float, cy: float) -> None:
    s = 3.2 * MM
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.rect(cx - s / 2, cy - s / 2, s, s, stroke=1, fill=0)


TALLY_BOXES = 4  # tick boxes per kind of damage kept (a car has at most a few of one kind)
TALLY_LINE_MM = 5.0
TALLY_LABEL = "damage kept:"


def _tally_lines(sheet: Sheet, ruleset: Ruleset) -> list[list[tuple[str, int]]]:
    """The damage tally laid out in lines across the page, after its label: (words, boxes)
    of each kind of damage a car keeps."""
    lines: list[list[tuple[str, int]]] = [[]]
    x = sheet.left + sheet.text_width(TALLY_LABEL, "small", bold=True) + 2 * MM
    for words, n in cards.damage_tally(ruleset):
        boxes = min(n, TALLY_BOXES)
        width = sheet.text_width(words, "small") + 1.5 * MM + boxes * 4.2 * MM + 4 * MM
        if lines[-1] and x + width > sheet.right:
            lines.append([])
            x = sheet.left + 4 * MM
        lines[-1].append((words, boxes))
        x += width
    return lines


def tally_height(sheet: Sheet, ruleset: Ruleset) -> float:
    """The height (mm) the damage tally takes."""
    return TALLY_LINE_MM * len(_tally_lines(sheet, ruleset)) + 0.5


def _draw_tally(sheet: Sheet, ruleset: Ruleset, y: float) -> float:
    """The damage tally from y down: each kind of damage a car keeps, with tick boxes;
    returns the y below it."""
    sheet.text(sheet.left, y - 3.6 * MM, TALLY_LABEL, "small", bold=True)
    x = sheet.left + sheet.text_width(TALLY_LABEL, "small", bold=True) + 2 * MM
    for k, line in enumerate(_tally_lines(sheet, ruleset)):
        if k:
            x = sheet.left + 4 * MM
        ty = y - (3.6 + TALLY_LINE_MM * k) * MM
        for words, boxes in line:
            sheet.text(x, ty, words, "small")
            bx = x + sheet.text_width(words, "small") + 1.5 * MM
            for b in range(boxes):
                _tick_box(sheet, bx + (b + 0.5) * 4.2 * MM, ty + 1.0 * MM)
            x = bx + boxes * 4.2 * MM + 4 * MM
    return y - tally_height(sheet, ruleset) * MM


def _ranges(total: int, per_page: int) -> list[tuple[int, int]]:
    """Turn numbers per page: (first, last), from 1, until `total` turns have room."""
    out: list[tuple[int, int]] = []
    first = 1
    while first <= total or not out:
        out.append((first, first + per_page - 1))
        first += per_page
    return out


# --------------------------------------------------------------------------- GT


def _gt_columns(laps: int) -> list[tuple[str, float]]:
    cols = [
        ("turn", 8.0),
        ("gear\nat the end", 12.0),
        ("seconds\nof the turn", 13.5),
        ("running\ntotal", 15.5),
        ("lost\ncontrol", 11.0),
        ("focus\ntokens", 11.0),
        ("damage\ntokens drawn", 0.0),
    ]
    if laps > 1:
        cols.append(("lap\ncompleted", 11.0))
    return cols


def gt_time_sheet_pages(track, sheet: Sheet) -> list[tuple[int, int]]:
    """The turns of each page of the GT time sheet (two blocks of rows a page)."""
    return _ranges(cards.turns_needed(track), 2 * _gt_rows(sheet, ruleset_of(track)))


def _gt_rows(sheet: Sheet, ruleset: Ruleset) -> int:
    room = (sheet.top - sheet.bottom) / MM - 17 - 7 - 29 - 9 - 15 - 9 - tally_height(sheet, ruleset)
    return int(room // GT_ROW_MM)


def _par_text(figures: dict | None) -> tuple[str, str]:
    if figures is None:
        return "", ""
    turns = f"{figures['expected_turns']:.1f} turns"
    par = f"{figures['par_seconds']:.0f} s expected ({turns}, best plans, dice in plan order)"
    safe = (
        ""
        if figures["safe_seconds"] is None
        else f"{figures['safe_seconds']} s in {plural(figures['safe_turns'], 'turn')}"
    )
    return par, safe


def draw_gt_time_sheet(
    sheet: Sheet, track, first: int, last: int, page: int, pages: int, figures: dict | None = None
) -> None:
    """One page of a GT time sheet: turns `first` to `last`, the par and safe route when
    `figures` (the game's, `Game.figures`) gives them; then the page ends."""
    ruleset = ruleset_of(track)
    laps = f"{track.laps} laps" if track.laps > 1 else "1 lap (a stage)"
    title = (track.name, ": time sheet" + (" (continued)" if first > 1 else ""))
    sub = (
        f"Rallyman GT, {laps}, {plural(cards.distance(track), 'move')} from start to finish. One sheet per driver: "
        "print this page "
        "once for each."
    )
    y = page_header(sheet, title, sub, "Rallyman GT time sheet")
    x = sheet.left
    line_y = y - 3 * MM
    after = _field(sheet, x, line_y, "driver", 45 * MM)
    after = _choices(sheet, after, line_y, "car", [b for b in dict.fromkeys(d.car_class for d in ruleset.dashboards)])
    _choices(sheet, after, line_y, "tyres", list(dict.fromkeys(d.tyres for d in ruleset.dashboards)))
    par, safe = _par_text(figures)
    line_y -= 6 * MM
    after = _field(sheet, x, line_y, "par", 40 * MM, par)
    if safe:
        # the long label where the line holds it (large type and a long par line may not)
        label = "safe route (no chance of losing control)"
        need = sheet.text_width(f"{label}:", "body", bold=True) + 1.5 * MM
        need += max(30 * MM, sheet.text_width(safe, "body"))
        _field(sheet, after, line_y, label if after + need <= sheet.right else "safe route", 30 * MM, safe)
    else:
        _field(sheet, after, line_y, "your target", 30 * MM)
    y = line_y - 4 * MM
    # the time key
    key = cards.time_key(ruleset)
    sheet.text(x, y - 3.2 * MM, "Seconds a turn counts, by the gear it ends in", "heading", bold=True)
    sheet.text(
        sheet.right, y - 3.2 * MM, cards.source_words(ruleset, "time_per_turn"), "small", bold=True, align="right"
    )
    y -= 5 * MM
    head_w = 22 * MM
    w = (sheet.right - x - head_w) / len(key)
    _cell(sheet, x, y, head_w, 6 * MM, "gear at the end", bold=True, shaded=True)
    _cell(sheet, x, y - 6 * MM, head_w, 6 * MM, "seconds", bold=True, shaded=True)
    for k, (gear, seconds) in enumerate(key):
        _cell(sheet, x + head_w + k * w, y, w, 6 * MM, gear, bold=True, size=sheet.t.sizes["heading"], shaded=True)
        _cell(sheet, x + head_w + k * w, y - 6 * MM, w, 6 * MM, f"{seconds} s", size=sheet.t.sizes["heading"])
    y -= 12 * MM + 3.5 * MM
    for line in wrap(
        sheet,
        cards.loss_words(ruleset).capitalize()
        + ". Tick 'lost control' and write the tokens drawn; add each turn's seconds to the running total; "
        "'focus tokens': the tokens you hold at the end of the turn. Damage kept: tick a box per token kept, cross it "
        "out when repaired.",
        sheet.right - x,
        sheet.t.sizes["small"],
    ):
        sheet.text(x, y, line, "small")
        y -= 3 * MM
    y = _draw_tally(sheet, ruleset, y + 2 * MM) - 1.5 * MM
    # two blocks of turn rows
    cols = _gt_columns(track.laps)
    gap = 4 * MM
    block_w = (sheet.right - x - gap) / 2
    fixed = sum(c for _h, c in cols) * MM
    widths = [c * MM if c else block_w - fixed for _h, c in cols]
    rows = _gt_rows(sheet, ruleset)
    head_h = 8 * MM
    row_h = GT_ROW_MM * MM
    for block in range(2):
        bx = x + block * (block_w + gap)
        cx = bx
        for (head, _c), cw in zip(cols, widths):
            two_line_head(sheet, cx, y, cw, head_h, head)
            cx += cw
        for r in range(rows):
            turn = first + block * rows + r
            top = y - head_h - r * row_h
            cx = bx
            for k, cw in enumerate(widths):
                _cell(sheet, cx, top, cw, row_h, str(turn) if k == 0 else "", bold=k == 0)
                if k == 4:
                    _tick_box(sheet, cx + cw / 2, top - row_h / 2)
                cx += cw
        sheet.box(bx, y - head_h - rows * row_h, block_w, head_h + rows * row_h, width=sheet.ink.line_width)
    y -= head_h + rows * row_h + 4 * MM
    # the race time
    label = (
        "race time (the running total at the finish)"
        if track.laps > 1
        else "stage time (the running total at the finish)"
    )
    sheet.text(x, y - 5 * MM, label, "heading", bold=True)
    bx = x + sheet.text_width(label, "heading", bold=True) + 3 * MM
    sheet.box(bx, y - 8 * MM, 30 * MM, 9 * MM, width=sheet.ink.line_width * 1.8)
    sheet.text(bx + 31 * MM, y - 5 * MM, "s", "heading")
    page_footer(sheet, f"turns {first}-{last}" + ("; more turns: carry on on the next page" if page < pages else ""))
    sheet.end_page("time sheet")


# --------------------------------------------------------------------------- DIRT


#: a DIRT rally sheet's stage: the name its column heads with, and the turns its track needs
#: (`cards.turns_needed`), or None for a stage whose track the sheet does not know
SheetStage = tuple[str, "int | None"]


def track_stages(track) -> list[SheetStage]:
    """A DIRT track's own rally sheet: stage 1 is the track, the others named by hand (their
    tracks unknown: they get the rows of the longest known stage)."""
    return [(f"stage 1: {track.name}", cards.turns_needed(track))] + [
        (f"stage {s + 1}:", None) for s in range(1, STAGES)
    ]


def _longest(stages: list[SheetStage]) -> int:
    """The turns a sheet of these stages leaves rows for: its longest known stage's (12, the
    least a sheet has, when it knows none)."""
    return max((t for _n, t in stages if t is not None), default=12)


def dirt_time_sheet_pages(
    track, sheet: Sheet, stages: list[SheetStage] | None = None, ruleset: Ruleset | None = None
) -> list[tuple[int, int]]:
    """The turns of each page of a DIRT time sheet: of `track`'s own (stage 1 the track), or
    of `stages` played with `ruleset`."""
    stages = track_stages(track) if stages is None else stages
    ruleset = ruleset_of(track) if ruleset is None else ruleset
    turns = _longest(stages)
    return _ranges(turns, _dirt_rows(sheet, turns, ruleset))


def _card_note(ruleset: Ruleset) -> tuple[str, bool]:
    """The time cards' source, in words, and whether they are house values."""
    note = house_note(ruleset, ("time_cards",))
    if note:
        return (
            "HOUSE VALUES: the seconds of each gear's time card and the share of SISU, Spin and Crash cards are not "
            "in the rulebook or any public source. Write your own box's values in the track spec (ruleset: "
            "time_cards:) to print them here.",
            True,
        )
    return f"Time cards: {cards.source_words(ruleset, 'time_cards')}.", False


def _dirt_room(sheet: Sheet, ruleset: Ruleset) -> float:
    """The height (mm) a DIRT sheet's page has for its rows of turns."""
    return (sheet.top - sheet.bottom) / MM - 17 - 7 - 13 - 14 - 14 - 12 - 9 - 12 - 12 - tally_height(sheet, ruleset)


def _dirt_row_mm(sheet: Sheet, turns: int, ruleset: Ruleset) -> float:
    """A DIRT row's height: DIRT_ROW_MM, or less (down to DIRT_ROW_LEAST_MM) when that keeps
    every turn on one page (a 49-space stage's 25 turns on Letter, which has room for 22)."""
    room = _dirt_room(sheet, ruleset)
    if room // DIRT_ROW_MM >= turns or room / turns < DIRT_ROW_LEAST_MM:
        return DIRT_ROW_MM
    return room / turns


def _dirt_rows(sheet: Sheet, turns: int, ruleset: Ruleset) -> int:
    """The rows of turns a DIRT sheet's page holds, for a sheet of `turns` turns."""
    row = _dirt_row_mm(sheet, turns, ruleset)
    return turns if row < DIRT_ROW_MM else max(int(_dirt_room(sheet, ruleset) // row), 1)


def draw_dirt_time_sheet(sheet: Sheet, track, first: int, last: int, page: int, pages: int) -> None:
    """One page of a DIRT track's time sheet: turns `first` to `last` of up to STAGES stages,
    the first this track; then the page ends."""
    title = (track.name, ": rally time sheet" + (" (continued)" if first > 1 else ""))
    sub = (
        f"Rallyman DIRT rally of up to {STAGES} stages, stage 1: {track.name}",
        f" ({plural(cards.distance(track), 'move')} from start to finish). One sheet per driver: print this page once "
        "for each.",
    )
    draw_dirt_rally_sheet(sheet, ruleset_of(track), title, sub, track_stages(track), first, last, page, pages)


def draw_dirt_rally_sheet(
    sheet: Sheet,
    ruleset: Ruleset,
    title: str | tuple[str, str],
    sub: str | tuple[str, str],
    stages: list[SheetStage],
    first: int,
    last: int,
    page: int,
    pages: int,
    carried: bool = False,
) -> None:
    """One page of a DIRT rally time sheet: turns `first` to `last` of `stages` side by side,
    each stage with rows for its own turns (a stage whose track is not known: the longest
    known stage's); `carried`: the rally total starts from the pages of the stages before.
    Then the page ends."""
    y = page_header(sheet, title, sub, "Rallyman DIRT time sheet")
    x, right = sheet.left, sheet.right
    line_y = y - 3 * MM
    after = _field(sheet, x, line_y, "driver", 50 * MM)
    _choices(sheet, after, line_y, "car", list(dict.fromkeys(d.car_class for d in ruleset.dashboards)))
    y = line_y - 4 * MM
    note, house = _card_note(ruleset)
    y = _boxed_note(sheet, y, note, house)
    # the time-card key
    table = cards.time_cards(ruleset)
    sheet.text(x, y - 3.2 * MM, "Time cards", "heading", bold=True)
    sheet.text(right, y - 3.2 * MM, cards.source_words(ruleset, "time_cards"), "small", bold=True, align="right")
    y -= 5 * MM
    head_w = 28 * MM
    w = (right - x - head_w) / max(len(table), 1)
    _cell(sheet, x, y, head_w, 5.5 * MM, "time card of gear", bold=True, shaded=True)
    _cell(sheet, x, y - 5.5 * MM, head_w, 5.5 * MM, "seconds", bold=True, shaded=True)
    for k, card in enumerate(table):
        _cell(
            sheet,
            x + head_w + k * w,
            y,
            w,
            5.5 * MM,
            str(card["gear"]),
            bold=True,
            size=sheet.t.sizes["heading"],
            shaded=True,
        )
        _cell(
            sheet, x + head_w + k * w, y - 5.5 * MM, w, 5.5 * MM, f"{card['seconds']} s", size=sheet.t.sizes["heading"]
        )
    y -= 11 * MM + 3.2 * MM
    loss = ruleset.time_cards.loss_seconds if ruleset.time_cards else 60
    lines = [
        (
            "Under control: the card of your gear at the end of the turn (coast or leader dice only: the card already "
            "on top). "
            "A loss of control: the card of your gear then, turned to gear 0; ring its icon. SISU: the card's own "
            "seconds, no damage, next turn in gear 0. "
            f"Spin: {loss} s, no damage, next turn in gear 0. Crash: {loss} s, damage by the last gear and the tile's "
            "danger, off the track, next turn in gear 0. '2nd tokens': the second tokens you hold at the end of the "
            "turn. Damage kept: tick a box per token kept, cross it out when repaired."
        )
    ]
    for text in lines:
        for line in wrap(sheet, text, right - x, sheet.t.sizes["small"]):
            sheet.text(x, y, line, "small")
            y -= 3 * MM
    y = _draw_tally(sheet, ruleset, y + 2 * MM) - 1.5 * MM
    # the stages side by side
    turn_w = 9 * MM
    count = len(stages)
    stage_w = (right - x - turn_w) / count
    cols = [
        ("card\n(gear)", 0.17),
        ("loss of control\n(ring the icon)", 0.34),
        ("seconds", 0.16),
        ("stage\ntotal", 0.19),
        ("2nd\ntokens", 0.14),
    ]
    widths = [stage_w * f for _h, f in cols]
    group_h, head_h = 6 * MM, 8 * MM
    turns = _longest(stages)
    rows = _dirt_rows(sheet, turns, ruleset)
    row_h = _dirt_row_mm(sheet, turns, ruleset) * MM
    _cell(sheet, x, y, turn_w, group_h + head_h, "turn", bold=True, shaded=True)
    for s, (name, _t) in enumerate(stages):
        sx = x + turn_w + s * stage_w
        _cell(
            sheet,
            sx,
            y,
            stage_w,
            group_h,
            name,
            bold=True,
            shaded=True,
            size=fit_size(sheet, name, stage_w - 2.4 * MM, sheet.t.sizes["body"], True),
            width=sheet.ink.line_width,
            align="left",
        )
        cx = sx
        for (head, _f), cw in zip(cols, widths):
            two_line_head(sheet, cx, y - group_h, cw, head_h, head)
            cx += cw
    top = y - group_h - head_h
    for r in range(rows):
        ry = top - r * row_h
        _cell(sheet, x, ry, turn_w, row_h, str(first + r), bold=True)
        for s, (_name, own) in enumerate(stages):
            if own is not None and first + r > own:
                continue  # past the stage's own turns: no row
            cx = x + turn_w + s * stage_w
            for k, cw in enumerate(widths):
                _cell(sheet, cx, ry, cw, row_h)
                if k == 1:
                    _icons(sheet, cx, ry - row_h / 2, cw)
                cx += cw
    bottom = top - rows * row_h
    for s, (_name, own) in enumerate(stages):
        sx = x + turn_w + s * stage_w
        shown = rows if own is None else max(0, min(rows, own - first + 1))
        sheet.box(sx, top - shown * row_h, stage_w, y - (top - shown * row_h), width=sheet.ink.line_width)
        if shown < rows:
            sheet.text(
                sx + stage_w / 2,
                top - shown * row_h - 4 * MM,
                f"{plural(own or 0, 'turn')} at two moves a turn: a slow drive",
                "small",
                align="center",
            )
    # stage times and the rally total
    y = bottom
    _cell(sheet, x, y, turn_w, 8 * MM, "", shaded=True)
    for s, (name, _own) in enumerate(stages):
        sx = x + turn_w + s * stage_w
        number = name.split(":")[0]
        _cell(
            sheet,
            sx,
            y,
            stage_w - widths[3] - widths[4],
            8 * MM,
            f"{number} time" + (" (at the finish)" if s == 0 else ""),
            bold=True,
            size=sheet.t.sizes["body"],
            shaded=True,
            align="right",
        )
        _cell(sheet, sx + stage_w - widths[3] - widths[4], y, widths[3], 8 * MM, "", width=sheet.ink.line_width * 1.8)
        _cell(sheet, sx + stage_w - widths[4], y, widths[4], 8 * MM, "s", size=sheet.t.sizes["body"], align="left")
    y -= 8 * MM + 4 * MM
    sheet.text(x, y - 5.5 * MM, "Rally total:", "heading", bold=True)
    bx = x + sheet.text_width("Rally total:", "heading", bold=True) + 3 * MM
    parts = (["stages before"] if carried else []) + [name.split(":")[0] for name, _t in stages]
    box_w = min(24 * MM, (right - bx - 34 * MM) / len(parts) - 4.4 * MM)
    for k, part in enumerate(parts):
        sheet.box(bx, y - 8 * MM, box_w, 9 * MM, width=sheet.ink.thin_width)
        sheet.text(bx + 1 * MM, y - 7.2 * MM, part, size=fit_size(sheet, part, box_w - 2 * MM, sheet.t.sizes["small"]))
        bx += box_w
        sheet.text(
            bx + 2.2 * MM, y - 5.5 * MM, "+" if k < len(parts) - 1 else "=", "heading", bold=True, align="center"
        )
        bx += 4.4 * MM
    sheet.box(bx, y - 8 * MM, 30 * MM, 9 * MM, width=sheet.ink.line_width * 1.8)
    sheet.text(bx + 1 * MM, y - 7.2 * MM, "rally total", "small", bold=True)
    sheet.text(bx + 31 * MM, y - 5.5 * MM, "s", "heading")
    footer = f"turns {first}-{last}" + ("; more turns: carry on on the next page" if page < pages else "")
    if house:
        footer += "; time cards: house values"
    page_footer(sheet, footer)
    sheet.end_page("time sheet")


def _icons(sheet: Sheet, x: float, cy: float, w: float) -> None:
    """The three loss-of-control icons, spread across a cell, to ring with a pencil."""
    size = sheet.t.sizes["small"]
    step = w / len(ICONS)
    for k, icon in enumerate(ICONS):
        sheet.text(x + step * (k + 0.5), cy - 0.729 * size / 2, icon, size=size, align="center")
