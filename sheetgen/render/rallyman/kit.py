"""Playing a printed Rallyman track without the box (a house way to play, ruling RP-8): two
pages at the end of a track's printout.

- **Dice key and cars** (`draw_dice_key_page`): for every die kind of the track's ruleset, the
  faces of an ordinary die that read as a caution (the highest: a 6 for a die with one caution
  face, a 5 or a 6 for two), so that every die keeps the rulebook's chance of a caution
  (`cards.plain_dice_key`); how to roll them and keep the focus or second tokens on the time
  sheet; DIRT's time cards as a roll per gear (`cards.time_card_rolls`); and car counters to
  cut out, sized to sit in a space, told apart by number (never by colour alone), with an
  arrow for the way they face.
- **Damage bag** (`draw_damage_bag_page`): one token to cut out for each token of the ruleset's
  bag (`cards.bag_tokens`: GT's 42, DIRT's 48 with their shortcut sides), to draw blind from a
  cup as from the bag, without replacement: the same chances as the box's bag.
"""

from __future__ import annotations

import math

from sheetgen.games.rallyman import HEX_MM, cards
from sheetgen.games.rallyman.ruleset import Effect, ruleset_of
from sheetgen.render.common import fit_size, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.render.rallyman.dashboard import SHORTCUT_SIDES, _notes, _table
from sheetgen.render.tables import page_footer, page_header
from sheetgen.template import MM, Template

#: what a cut-out damage token says (the dashboard card says what each does)
TOKEN_SHORT = {
    "lose_gear_die": "lose a gear die",
    "lose_brake_die": "lose a brake die",
    "lose_coast_die": "lose a coast die",
    "weather": "weather changes",
    "yellow_flag": "yellow flag",
    "green_flag": "green flag: no damage",
    "gear": "gear damage",
    "brake": "brake damage",
    "coast_leader": "coast/leader damage",
}
EFFECT_WORDS = {
    Effect.GEAR: "one gear up or down",
    Effect.STAY: "keeps the gear",
    Effect.BRAKE: "skips a gear down",
    Effect.BOOST: "skips a gear up",
}
TOKEN_MM = 17.0  # a GT damage token's side
SIDED_TOKEN_MM = 19.0  # a DIRT token, with its shortcut side under its damage side
CAR_SHARE = 0.72  # a car counter across, as a share of a space across flats
HOUSE = (
    "HOUSE WAY TO PLAY (not in the rulebook): ordinary dice, a pencil and these pieces stand in for the box's dice, "
    "tokens, damage bag and cars. Every die keeps the rulebook's chance of a caution and the bag its tokens, so the "
    "odds are the rulebook's."
)


def _fraction(chance) -> str:
    return f"{chance.numerator}/{chance.denominator}" if chance.denominator != 1 else str(chance.numerator)


def dice_key_rows(ruleset) -> list[list[str]]:
    """The dice key's rows: consecutive gear dice read alike share a row."""
    rows: list[list[str]] = []
    gears: list[dict] = []

    def row(name: str, entry: dict) -> list[str]:
        die = entry["die"]
        return [
            name,
            EFFECT_WORDS[die.effect],
            f"{die.cautions} of {die.faces}",
            f"{entry['plain']}: {cards.faces_words(entry['cautions'])}",
            _fraction(entry["chance"]),
            "yes" if die.earns_token else "no",
        ]

    def flush() -> None:
        if gears:
            first, last = gears[0]["die"].name, gears[-1]["die"].name
            rows.append(row(f"gear {first if first == last else f'{first}-{last}'} (black)", gears[0]))
            gears.clear()

    for entry in cards.plain_dice_key(ruleset):
        die = entry["die"]
        if die.effect is Effect.GEAR:
            if gears and (gears[-1]["die"].cautions, gears[-1]["die"].faces) != (die.cautions, die.faces):
                flush()
            gears.append(entry)
            continue
        flush()
        rows.append(row(f"{die.name} ({die.colour})", entry))
    flush()
    return rows


def _house_box(sheet: Sheet, y: float) -> float:
    x, right = sheet.left, sheet.right
    lines = wrap(sheet, HOUSE, right - x - 4 * MM, sheet.t.sizes["body"], True)
    h = (len(lines) * 3.5 + 2.0) * MM
    sheet.box(x, y - h, right - x, h, width=sheet.ink.line_width * 1.8)
    for k, line in enumerate(lines):
        sheet.text(x + 2 * MM, y - (3.4 + k * 3.5) * MM, line, "body", bold=True)
    return y - h - 3 * MM


def draw_dice_key_page(sheet: Sheet, track, template: Template) -> None:
    """The dice key for plain dice, the tokens' tally, and the car counters; the page ends."""
    ruleset = ruleset_of(track)
    token = ruleset.token
    y = page_header(
        sheet,
        (track.name, ": without the box"),
        "Plain dice, a pencil and cut-out pieces instead of the box's dice, tokens and cars",
        f"Rallyman {'GT' if ruleset.variant == 'gt' else 'DIRT'} dice key",
    )
    y = _house_box(sheet, y - 2 * MM)
    x, width = sheet.left, sheet.right - sheet.left
    sheet.text(x, y - 3.6 * MM, "Dice key: which faces of a plain die are a caution", "heading", bold=True)
    y -= 5.5 * MM
    rows = dice_key_rows(ruleset)
    fixed = [34 * MM, 32 * MM, 17 * MM, 0.0, 16 * MM, 17 * MM]
    rest = width - sum(fixed)
    widths = [w if w else rest for w in fixed]
    heads = [
        "die in the box",
        "effect",
        "caution\nfaces",
        "a plain die:\na caution on",
        "chance of\na caution",
        f"earns a\n{token} token",
    ]
    y = _table(sheet, x, y, widths, heads, rows, aligns=["left", "left", "center", "center", "center", "center"])
    column = "focus" if ruleset.variant == "gt" else "2nd"
    costs = ", ".join(f"{ruleset.focus.total(k)}" for k in range(1, 5))
    notes = [
        "Place your dice as usual, on paper: write the plan's dice down or point at the spaces, then roll one plain "
        "die for each. A face in the 'a caution on' column is a caution (/!\\); any other face is the die's own "
        "result. The chance of a caution is the box's die's, so the odds on the dashboard card hold.",
        "One at a time: roll the plan's dice in order, one plain die each. Flat out: roll one plain die per die of "
        "the plan at once, and read them in the plan's order (dice of different sizes or colours, or one die kind "
        "after another, keep them apart; only the number of cautions decides a loss of control).",
        f"{token.capitalize()} tokens: keep them on the time sheet (its '{column} tokens' column: the tokens held at "
        f"the end of each turn). Securing dice in one turn costs {costs} ... tokens in all (1, 2, 3 ... dice).",
        "Damage: tick a box of the time sheet's damage tally for each damage token kept; cross it out when it is "
        "repaired.",
    ]
    y = _notes(sheet, x, y - 1 * MM, width, notes) - 3 * MM
    rolls = cards.time_card_rolls(ruleset)
    if rolls:
        y = _time_card_rolls(sheet, ruleset, rolls, y)
    y = _table_tokens(sheet, ruleset, y)
    # the car counters
    hex_mm = template.size(HEX_MM)
    d = CAR_SHARE * hex_mm
    sheet.text(
        x,
        y - 3.6 * MM,
        f"Cars: cut out a counter per driver (each {d:.0f} mm across, to sit in a space)",
        "heading",
        bold=True,
    )
    y -= 6 * MM
    gap = 6.0
    per_row = max(1, int((width / MM + gap) // (d + gap)))
    for k in range(cards.CARS):
        col, line = k % per_row, k // per_row
        cx = x / MM + d / 2 + col * (d + gap)
        cy = y / MM - d / 2 - line * (d + gap) - 1.0
        _car(sheet, cx, cy, d, k + 1)
    lines = (cards.CARS + per_row - 1) // per_row
    y -= (lines * (d + gap) + 1) * MM
    sheet.text(
        x,
        y,
        "The arrow points the way the car faces. Your gear at the end of each turn goes on the time sheet.",
        "small",
    )
    page_footer(sheet, "house way to play: not in the rulebook")
    sheet.end_page("without the box")


def _table_tokens(sheet: Sheet, ruleset, y: float) -> float:
    """GT: the damage tokens that stay on the table, not with a car (rulebook "Damage"): the
    weather, changed by each weather token drawn, a cell per change the bag can make (one
    more for the start), and a yellow flag per car, out until that car's next move. Tallied
    here in pencil; returns the y below (unchanged for a bag with neither)."""
    tokens = ruleset.damage_bag.tokens
    counts = {kind: sum(t.count for t in tokens if t.kind == kind) for kind in ("weather", "yellow_flag")}
    if not any(counts.values()):
        return y
    x, width = sheet.left, sheet.right - sheet.left
    title = "The table: weather and yellow flags (tokens that stay on the table)"
    sheet.text(x, y - 3.6 * MM, title, "heading", bold=True)
    y -= 5.5 * MM
    head_w = 34 * MM
    if counts["weather"]:
        cells = ["start", *(f"change {k}" for k in range(1, counts["weather"] + 1))]
        w = (width - head_w) / len(cells)
        y = _table(
            sheet,
            x,
            y,
            [head_w] + [w] * len(cells),
            ["weather now", *cells],
            [["circle one", *(["sun / rain"] * len(cells))]],
            aligns=["left"] + ["center"] * len(cells),
        )
        y -= 1.5 * MM
    if counts["yellow_flag"]:
        w = (width - head_w) / cards.CARS
        y = _table(
            sheet,
            x,
            y,
            [head_w] + [w] * cards.CARS,
            ["yellow flag out", *(f"car {k}" for k in range(1, cards.CARS + 1))],
            [["tick", *([""] * cards.CARS)]],
            aligns=["left"] + ["center"] * cards.CARS,
        )
    notes = []
    if counts["weather"]:
        notes.append(
            f"Weather: the bag holds {counts['weather']} weather tokens; each one drawn turns sun to rain or rain to "
            "sun for every car: circle the new weather in the next cell (the wrong tyres cost dice and a caution of "
            "limit: the dashboard card)."
        )
    if counts["yellow_flag"]:
        notes.append(
            f"Yellow flags: the bag holds {counts['yellow_flag']}. Tick the car that draws one; rub the tick out at "
            "that car's next move (stopped in gear 00: when it moves again). While any box is ticked no car moves "
            "alongside another (cars stopped in gear 0 or 00 may be passed)."
        )
    return _notes(sheet, x, y - 1 * MM, width, notes) - 3 * MM


def _time_card_rolls(sheet: Sheet, ruleset, rolls, y: float) -> float:
    """DIRT: a roll for the time card's loss-of-control icon, per gear; returns the y below."""
    x, width = sheet.left, sheet.right - sheet.left
    sheet.text(x, y - 3.6 * MM, "Time cards: a roll instead of the card's back", "heading", bold=True)
    source = cards.source_words(ruleset, "time_cards")
    sheet.text(
        sheet.right,
        y - 3.6 * MM,
        source,
        size=fit_size(sheet, source, width / 2, sheet.t.sizes["small"], True),
        bold=True,
        align="right",
    )
    y -= 5.5 * MM
    rows = []
    for gears, die, spans in rolls:
        names = (
            ", ".join(str(g) for g in gears)
            if len(gears) < 3 or list(gears) != list(range(gears[0], gears[-1] + 1))
            else f"{gears[0]}-{gears[-1]}"
        )
        reads = "; ".join(f"{lo}{'' if lo == hi else f'-{hi}'}: {icon}" for icon, lo, hi in spans)
        rows.append([f"gear {names}", die, reads])
    widths = [30 * MM, 34 * MM, width - 64 * MM]
    y = _table(
        sheet,
        x,
        y,
        widths,
        ["time card of gear", "roll", "the loss-of-control icon"],
        rows,
        aligns=["left", "center", "left"],
    )
    note = (
        "On a loss of control, roll instead of turning the card of your gear over: the number gives its icon, each "
        "icon with its share of the gear's deck. The seconds are the time sheet's."
    )
    return _notes(sheet, x, y - 1 * MM, width, [note]) - 3 * MM


def _car(sheet: Sheet, cx: float, cy: float, d: float, number: int) -> None:
    """A car counter centred on (cx, cy) mm, `d` mm across: its cut circle, the car's number
    and an arrow pointing forward."""
    c = sheet.c
    r = d / 2
    sheet.stroke(width=sheet.ink.line_width)
    c.circle(cx * MM, cy * MM, r * MM, stroke=1, fill=0)
    size = min(0.5 * d * MM, 20.0)
    sheet.text(cx * MM, (cy - 0.05 * d) * MM - 0.36 * size, str(number), bold=True, size=size, align="center")
    # the arrow: a small solid triangle near the rim, pointing up
    tip, base, half = cy + 0.82 * r, cy + 0.52 * r, 0.2 * r
    sheet.fill(sheet.ink.line)
    path = c.beginPath()
    path.moveTo(cx * MM, tip * MM)
    path.lineTo((cx - half) * MM, base * MM)
    path.lineTo((cx + half) * MM, base * MM)
    path.close()
    c.drawPath(path, stroke=0, fill=1)
    sheet.fill(sheet.ink.text)
    small = fit_size(sheet, f"car {number}", 0.9 * d * MM, 6.0)
    sheet.text(cx * MM, (cy - 0.62 * r) * MM, f"car {number}", size=small, align="center")


def draw_damage_bag_page(sheet: Sheet, track) -> None:
    """The damage bag's tokens to cut out and how to draw them; the page ends."""
    ruleset = ruleset_of(track)
    tokens = cards.bag_tokens(ruleset)
    sided = any(side is not None for _kind, side in tokens)
    y = page_header(
        sheet,
        (track.name, ": damage bag"),
        f"{len(tokens)} damage tokens to cut out, for a cup instead of the box's bag",
        f"Rallyman {'GT' if ruleset.variant == 'gt' else 'DIRT'} damage bag",
    )
    x, width = sheet.left, sheet.right - sheet.left
    counts = ", ".join(f"{n} {TOKEN_SHORT.get(kind, kind.replace('_', ' '))}" for kind, n in ruleset.damage_bag.kinds())
    notes = [
        f"Cut out the {len(tokens)} tokens ({counts}) along the lines, put them face down in a cup or an envelope, and "
        "draw blind wherever the rulebook draws from the bag. A token drawn stays out as the box's does (back in "
        "the cup when the rulebook puts it back): drawn without replacement, the chances are the box's bag's.",
    ]
    if sided:
        notes.append(
            "Each token has its damage side above the dashed line and its shortcut side below it: read the top half "
            "after a crash and the bottom half when you enter a shortcut (rulebook: 'flip the token over to its "
            "Shortcut side')."
        )
    source = cards.source_words(ruleset, "damage_bag")
    notes.append(f"The bag's contents: {source}.")
    y = _notes(sheet, x, y - 1 * MM, width, notes) - 3 * MM
    side = SIDED_TOKEN_MM if sided else TOKEN_MM
    cols = int(width / MM // side)
    left = x + (width - cols * side * MM) / 2
    rows = math.ceil(len(tokens) / cols)
    sheet.stroke(width=sheet.ink.thin_width)
    for k, (kind, short) in enumerate(tokens):
        col, row = k % cols, k // cols
        tx, ty = left + col * side * MM, y - (row + 1) * side * MM
        sheet.c.rect(tx, ty, side * MM, side * MM, stroke=1, fill=0)
        words = TOKEN_SHORT.get(kind, kind.replace("_", " "))
        if short is None:
            _token_words(sheet, tx, ty, side, words, side / 2, True)
        else:
            _token_words(sheet, tx, ty, side, words, side * 0.72, True)
            sheet.stroke(width=sheet.ink.thin_width, dash=(1.5, 1.5))
            sheet.c.line(tx + 1.5 * MM, ty + side / 2 * MM, tx + (side - 1.5) * MM, ty + side / 2 * MM)
            sheet.stroke(width=sheet.ink.thin_width)
            _token_words(sheet, tx, ty, side, "shortcut:\n" + SHORTCUT_SIDES.get(short, short), side * 0.26, False)
    y -= (rows * side + 5) * MM
    sheet.text(x, y, "Cut along the solid lines only.", "small")
    page_footer(sheet, "house way to play: not in the rulebook")
    sheet.end_page("damage bag")


def _token_words(sheet: Sheet, tx: float, ty: float, side: float, words: str, mid: float, bold: bool) -> None:
    """`words` centred in a token whose bottom-left corner is (tx, ty) points, their middle
    `mid` mm above its bottom, at 6 pt (wrapped)."""
    size = 6.0
    # each line of `words` wrapped apart: "shortcut:" above its side's words, which keep together
    lines = [line for part in words.split("\n") for line in wrap(sheet, part, (side - 2.5) * MM, size, bold)]
    lead = 2.6 * MM
    top = ty + mid * MM + (len(lines) - 1) * lead / 2 - 0.36 * size
    for k, line in enumerate(lines):
        sheet.text(tx + side / 2 * MM, top - k * lead, line, size=size, bold=bold, align="center")
