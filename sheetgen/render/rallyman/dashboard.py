"""The Rallyman dashboard reference card of a track: two pages, every value from the ruleset
the track is played with (its spec's `ruleset:` over the variant's defaults), each table with
its source beside it (rulebook, hobby figures, HOUSE VALUES, or the spec's own).

- page 1, the dashboard: the dice and their caution faces, the dice pools (GT: by car class,
  tyres and weather; DIRT: by car), the cost of securing dice (focus or second tokens), the
  loss-of-control table (GT: gear 0 or 00 and damage tokens by gear and tile colour; DIRT:
  the crash damage), the damage-token bag, GT's seconds per turn or DIRT's time cards;
- page 2, the odds: the exact chance of losing control flat out by the number of dice with
  two and with one caution face, and for common plans flat out and one at a time with 0 to 3
  tokens (`odds.odds_table`, the code `sheetgen odds` uses), as fractions and percentages.

The tile colours are words (yellow, orange, red) wherever they head a column.
"""

from __future__ import annotations

from fractions import Fraction

from sheetgen.games.rallyman import cards
from sheetgen.games.rallyman.odds import CARD_PLANS, decimal, odds_table
from sheetgen.games.rallyman.ruleset import (
    DIRT,
    GT,
    TILE_COLOURS,
    Effect,
    Ruleset,
    house_note,
    ruleset_of,
)
from sheetgen.render.common import fit_size, text_box, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.render.rallyman.time_sheet import two_line_head
from sheetgen.render.tables import page_footer, page_header
from sheetgen.template import MM

ROW_MM = 5.6
#: DIRT's card adds plans with the orange leader die to GT's
DIRT_PLANS = CARD_PLANS + ("3,leader,4,coast", "4,leader,5,coast,6")
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}
TOKEN_WORDS = {
    "lose_gear_die": "lose a gear die (black): leave one number unused",
    "lose_brake_die": "lose a brake die (red)",
    "lose_coast_die": "lose a coast die (white)",
    "weather": "weather changes: rain to sun, or sun to rain",
    "yellow_flag": "yellow flag: nobody moves alongside a car",
    "green_flag": "green flag: no damage",
    "gear": "gear damage: one gear die fewer each turn",
    "brake": "brake damage: one brake die fewer each turn",
    "coast_leader": "coast/leader damage: one coast or leader die fewer each turn",
}
SHORTCUT_SIDES = {"ok": "OK!", "coast_die": "coast die damage", "mud": "mud: -1"}
DANGER_HEAD = {"yellow": "yellow (low)", "orange": "orange (medium)", "red": "red (high)"}


def _ordinal(k: int) -> str:
    return ORDINAL.get(k, f"{k}th")


def _title(sheet: Sheet, x: float, y: float, width: float, title: str, source: str) -> float:
    """A table's title and its source (at the right, or on a line of its own under the title
    when it does not fit beside it); returns the y below."""
    sheet.text(x, y - 3.6 * MM, title, "heading", bold=True)
    room = width - sheet.text_width(title, "heading", bold=True) - 3 * MM
    size = sheet.t.sizes["small"]
    if sheet.text_width(source, size=size, bold=True) <= room:
        sheet.text(x + width, y - 3.6 * MM, source, size=size, bold=True, align="right")
        return y - 5.2 * MM
    sheet.text(x, y - 6.6 * MM, source, size=fit_size(sheet, source, width, size, True), bold=True)
    return y - 8.0 * MM


def _table(
    sheet: Sheet,
    x: float,
    y: float,
    widths: list[float],
    heads: list[str],
    rows: list[list[str]],
    *,
    row_h: float = ROW_MM * MM,
    bold_first: bool = True,
    aligns: list[str] | None = None,
) -> float:
    """Heads (shaded, bold) and rows of text boxes from y down; returns the y below."""
    size = sheet.t.sizes["body"]
    aligns = aligns or ["center"] * len(widths)
    cx = x
    head_h = row_h * (1.7 if any("\n" in h for h in heads) else 1)
    for head, w, align in zip(heads, widths, aligns):
        if "\n" in head:
            two_line_head(sheet, cx, y, w, head_h, head)
        else:
            text_box(
                sheet, cx, y - head_h, w, head_h, head, bold=True, shaded=True, size=sheet.t.sizes["small"], align=align
            )
        cx += w
    y -= head_h
    for row in rows:
        cx = x
        for k, (value, w, align) in enumerate(zip(row, widths, aligns)):
            text_box(sheet, cx, y - row_h, w, row_h, value, bold=bold_first and k == 0, size=size, align=align)
            cx += w
        y -= row_h
    sheet.box(x, y, sum(widths), len(rows) * row_h + head_h, width=sheet.ink.line_width)
    return y


def _notes(sheet: Sheet, x: float, y: float, width: float, texts: list[str]) -> float:
    size = sheet.t.sizes["small"]
    y -= 1 * MM
    for text in texts:
        for line in wrap(sheet, text, width, size):
            y -= 2.9 * MM
            sheet.text(x, y, line, "small")
        y -= 0.6 * MM
    return y


def _house_box(sheet: Sheet, y: float, note: str | None) -> float:
    """The house-values warning in a heavy box across the page (when there is one)."""
    if not note:
        return y
    x, right = sheet.left, sheet.right
    lines = wrap(
        sheet, note.replace("house values:", "HOUSE VALUES:", 1), right - x - 4 * MM, sheet.t.sizes["body"], True
    )
    h = (len(lines) * 3.5 + 2.0) * MM
    sheet.box(x, y - h, right - x, h, width=sheet.ink.line_width * 1.8)
    for k, line in enumerate(lines):
        sheet.text(x + 2 * MM, y - (3.4 + k * 3.5) * MM, line, "body", bold=True)
    return y - h - 3 * MM


# --------------------------------------------------------------------------- the pieces


def _dice_rows(ruleset: Ruleset) -> list[list[str]]:
    """The dice grouped: consecutive gear dice with the same caution faces share a row."""
    effect = {
        Effect.GEAR: "one gear up or down",
        Effect.STAY: "keeps the gear",
        Effect.BRAKE: "skips a gear down",
        Effect.BOOST: "skips a gear up",
    }
    rows: list[list[str]] = []
    gears: list = []

    def flush() -> None:
        if gears:
            names = gears[0].name if len(gears) == 1 else f"{gears[0].name}-{gears[-1].name}"
            d = gears[0]
            rows.append(
                [
                    f"gear {names} (black)",
                    effect[Effect.GEAR],
                    f"{d.cautions} of {d.faces}",
                    "yes" if d.earns_token else "no",
                ]
            )
            gears.clear()

    for die in ruleset.dice:
        if die.effect is Effect.GEAR:
            if gears and (gears[-1].cautions, gears[-1].faces) != (die.cautions, die.faces):
                flush()
            gears.append(die)
            continue
        flush()
        rows.append(
            [
                f"{die.name} ({die.colour})",
                effect[die.effect],
                f"{die.cautions} of {die.faces}",
                "yes" if die.earns_token else "no",
            ]
        )
    flush()
    return rows


def _gear_span(board) -> str:
    gears = [int(n) for n, k in board.dice if n.isdigit() and k]
    if not gears:
        return "none"
    return (
        f"{min(gears)}-{max(gears)}" if gears == list(range(min(gears), max(gears) + 1)) else ", ".join(map(str, gears))
    )


def _pool_rows(ruleset: Ruleset) -> tuple[list[str], list[list[str]]]:
    extra = [d.name for d in ruleset.dice if d.effect is not Effect.GEAR]
    heads = ["car", "tyres", "weather", "gears", *extra, "limit"]
    rows = []
    for b in ruleset.dashboards:
        rows.append(
            [b.car_class, b.tyres, b.weather, _gear_span(b), *(str(b.count(n)) for n in extra), str(b.caution_limit)]
        )
    return heads, rows


def _focus_rows(ruleset: Ruleset, n: int = 5) -> tuple[list[str], list[list[str]]]:
    heads = ["die secured this turn", *(_ordinal(k) for k in range(1, n + 1))]
    rows = [
        ["costs", *(str(ruleset.focus.cost(k)) for k in range(1, n + 1))],
        ["in all", *(str(ruleset.focus.total(k)) for k in range(1, n + 1))],
    ]
    return heads, rows


def _loss_rows(ruleset: Ruleset) -> tuple[list[str], list[list[str]]]:
    gt = ruleset.variant == GT
    heads = ["gear", *(DANGER_HEAD[c] for c in TILE_COLOURS)] + (["ends in"] if gt else [])
    rows = []
    for gear, _row in ruleset.loss_of_control.damage:
        cells = [str(ruleset.loss_of_control.tokens(gear, c)) for c in TILE_COLOURS]
        rows.append([str(gear), *cells] + ([f"gear {ruleset.loss_of_control.end_gear(gear)}"] if gt else []))
    return heads, rows


def _bag_rows(ruleset: Ruleset) -> tuple[list[str], list[list[str]]]:
    bag = ruleset.damage_bag
    sides = [s for s in dict.fromkeys(t.shortcut for t in bag.tokens) if s is not None]
    if not sides:
        rows = [[str(n), TOKEN_WORDS.get(kind, kind.replace("_", " "))] for kind, n in bag.kinds()]
        rows.append([str(bag.total), "in all, drawn without replacement"])
        return ["tokens", "kind: what it does"], rows
    heads = ["tokens", "kind: what it does", *(f"shortcut side: {SHORTCUT_SIDES.get(s, s)}" for s in sides)]
    rows = []
    for kind, n in bag.kinds():
        counts = {t.shortcut: t.count for t in bag.tokens if t.kind == kind}
        rows.append([str(n), TOKEN_WORDS.get(kind, kind.replace("_", " ")), *(str(counts.get(s, 0)) for s in sides)])
    totals = [str(sum(t.count for t in bag.tokens if t.shortcut == s)) for s in sides]
    rows.append([str(bag.total), "in all", *totals])
    return heads, rows


# --------------------------------------------------------------------------- page 1


def _draw_dashboard_page(sheet: Sheet, track, ruleset: Ruleset) -> None:
    variant = ruleset.title
    token = ruleset.token
    y = page_header(
        sheet,
        (track.name, f": {variant} dashboard reference card"),
        "The values this track is played with, each table with its source; the odds are on the next page.",
        f"{variant} dashboard card",
    )
    y = _house_box(sheet, y, house_note(ruleset))
    x, right = sheet.left, sheet.right
    gap = 6 * MM
    col = (right - x - gap) / 2
    rx = x + col + gap
    # left: dice, pools, tokens
    ly = _title(sheet, x, y, col, "The dice", cards.source_words(ruleset, "dice"))
    ly = _table(
        sheet,
        x,
        ly,
        [col * f for f in (0.27, 0.47, 0.13, 0.13)],
        ["die", "effect", "caution\nfaces", f"earns a\n{token}"],
        _dice_rows(ruleset),
        aligns=["left", "left", "center", "center"],
    )
    ly = _notes(
        sheet,
        x,
        ly,
        col,
        [
            f"Caution limit {ruleset.caution_limit} ({cards.source_words(ruleset, 'caution_limit')}): "
            f"{ruleset.caution_limit} cautions rolled, with the track's, lose control. "
            f"Flat out, every die marked 'earns a {token}: yes' earns a {token} token, control lost or not."
            + (
                " Only the first player of a round uses the orange leader die."
                if ruleset.leader_first_player_only
                else ""
            ),
        ],
    )
    heads, rows = _pool_rows(ruleset)
    ly = _title(sheet, x, ly - 2.5 * MM, col, "Dice pools (dashboards)", cards.source_words(ruleset, "dashboards"))
    n_extra = len(heads) - 5
    fixed = [0.13, 0.15, 0.14, 0.12]
    rest = (1 - sum(fixed)) / (n_extra + 1)
    ly = _table(sheet, x, ly, [col * f for f in fixed + [rest] * (n_extra + 1)], heads, rows, row_h=5.0 * MM)
    note = "Dice of each kind a car may use each turn, and its caution limit."
    if ruleset.variant == GT:
        note += " Right tyres for the weather keep the full pool; the wrong ones lose dice and one caution of limit."
    ly = _notes(sheet, x, ly, col, [note])
    heads, rows = _focus_rows(ruleset)
    ly = _title(
        sheet,
        x,
        ly - 2.5 * MM,
        col,
        f"Securing dice one at a time ({token} tokens)",
        cards.source_words(ruleset, "focus"),
    )
    ly = _table(sheet, x, ly, [col * 0.35] + [col * 0.13] * 5, heads, rows)
    ly = _notes(
        sheet,
        x,
        ly,
        col,
        [
            "One at a time, a secured die shows no caution (its space's caution still counts). The k-th die secured "
            f"in a turn costs {ruleset.focus.first} + {ruleset.focus.step} x (k - 1) tokens."
        ],
    )
    # right: loss of control, bag, time
    heads, rows = _loss_rows(ruleset)
    title = "Loss of control: damage tokens drawn" if ruleset.variant == GT else "Crash: damage tokens drawn"
    ry = _title(sheet, rx, y, col, title, cards.source_words(ruleset, "loss_of_control"))
    widths = (
        [col * 0.13]
        + [col * (0.87 - (0.2 if ruleset.variant == GT else 0)) / 3] * 3
        + ([col * 0.2] if ruleset.variant == GT else [])
    )
    ry = _table(sheet, rx, ry, widths, heads, rows)
    if ruleset.variant == GT:
        loss = cards.loss_words(ruleset)
        ry = _notes(
            sheet,
            rx,
            ry,
            col,
            [
                "By the gear at the moment of the loss (rows) and the danger colour of the tile (columns). "
                f"{loss[0].upper() + loss[1:]}."
            ],
        )
    else:
        ry = _notes(
            sheet,
            rx,
            ry,
            col,
            ["A crash draws these tokens by the last gear and the danger colour of the tile; SISU and Spin draw none."],
        )
    heads, rows = _bag_rows(ruleset)
    ry = _title(sheet, rx, ry - 2.5 * MM, col, "Damage tokens in the bag", cards.source_words(ruleset, "damage_bag"))
    if len(heads) == 2:
        ry = _table(sheet, rx, ry, [col * 0.16, col * 0.84], heads, rows, aligns=["center", "left"])
        kinds = dict(ruleset.damage_bag.kinds())
        notes = []
        if "yellow_flag" in kinds:
            notes.append(
                "Yellow flag: until your next move no car moves alongside another (a car stopped in gear 0 or 00 may "
                "be passed)."
            )
        if "weather" in kinds:
            notes.append("Weather: on the wrong tyres the dice pool and the caution limit shrink (dice pools, left).")
        ry = _notes(sheet, rx, ry, col, notes)
    else:
        rest = 0.66 - 0.13
        ry = _table(
            sheet,
            rx,
            ry,
            [col * 0.12, col * 0.34] + [col * rest / 3] * 3,
            ["tokens", "kind", "shortcut side:\nOK!", "shortcut side:\ncoast die", "shortcut side:\nmud -1"],
            [[r[0], r[1].split(":")[0], *r[2:]] for r in rows],
            aligns=["center", "left", "center", "center", "center"],
        )
        ry = _notes(
            sheet,
            rx,
            ry,
            col,
            [
                "Damage side: gear, brake, coast/leader damage: one die of that kind fewer each turn; green flag: no "
                "damage.",
                "Shortcut side (a token drawn on entering a shortcut): OK!: nothing; coast die damage: one coast die "
                "fewer from your next turn; mud: every corner limit of that tile one lower for the cars behind "
                "(stacking; not the shortcut's own limit).",
            ],
        )
    if ruleset.variant == GT:
        key = cards.time_key(ruleset)
        ry = _title(sheet, rx, ry - 2.5 * MM, col, "Seconds per turn", cards.source_words(ruleset, "time_per_turn"))
        w = col / (len(key) + 1)
        ry = _table(
            sheet,
            rx,
            ry,
            [w * 1.0] * (len(key) + 1),
            ["gear", *(g for g, _s in key)],
            [["s", *(str(s) for _g, s in key)]],
        )
        ry = _notes(sheet, rx, ry, col, ["The gear the turn ends in; the time sheet keeps the running total."])
    else:
        table = cards.time_cards(ruleset)
        ry = _title(sheet, rx, ry - 2.5 * MM, col, "Time cards", cards.source_words(ruleset, "time_cards"))
        rows = [
            [str(c["gear"]), f"{c['seconds']} s", f"{c['sisu']}", f"{c['spin']}", f"{c['crash']}", str(c["deck"])]
            for c in table
        ]
        ry = _table(
            sheet,
            rx,
            ry,
            [col * f for f in (0.14, 0.18, 0.17, 0.17, 0.17, 0.17)],
            ["gear", "seconds", "SISU", "Spin", "Crash", "cards"],
            rows,
        )
        lost = ruleset.time_cards.loss_seconds if ruleset.time_cards else 60
        ry = _notes(
            sheet,
            rx,
            ry,
            col,
            [
                "Each gear's deck: the cards showing each icon on the gear-0 side, turned up by a loss of control in "
                "that gear.",
                f"SISU: the card's own seconds, no damage, next turn in gear 0. Spin: {lost} s, no damage, next "
                f"turn in gear 0. Crash: {lost} s, damage (table above), off the track until your turn, next turn in "
                "gear 0.",
            ],
        )
    page_footer(sheet, "dashboard card" + ("; house values marked" if ruleset.house else ""))
    sheet.end_page("dashboard card")


# --------------------------------------------------------------------------- page 2


def _pct(fraction: str) -> str:
    """An exact fraction ("11/36") as a percentage rounded half up to 2 places ("30.56%")."""
    return f"{decimal(Fraction(fraction) * 100, 2):.2f}%"


def _odds_page(sheet: Sheet, track, ruleset: Ruleset) -> None:
    variant = ruleset.title
    token = ruleset.token
    table = odds_table(ruleset, DIRT_PLANS if ruleset.variant == DIRT else CARD_PLANS)
    y = page_header(
        sheet,
        (track.name, f": {variant} odds"),
        "Exact chances (the code of sheetgen odds), as fractions and percentages rounded half up.",
        f"{variant} dashboard card: odds",
    )
    y = _house_box(sheet, y, table["house"])
    x, right = sheet.left, sheet.right
    width = right - x
    two = [d.name for d in ruleset.dice if d.cautions == 2 and d.faces == 6]
    one = [d.name for d in ruleset.dice if d.cautions == 1 and d.faces == 6]

    def words(names: list[str]) -> str:
        return ", ".join(f"gear {n}" if n.isdigit() else n for n in names)

    y = _title(
        sheet,
        x,
        y,
        width,
        "Flat out: the chance of losing control",
        f"caution limit {table['caution_limit']}; {cards.source_words(ruleset, 'dice')}",
    )
    y = _notes(
        sheet,
        x,
        y + 1 * MM,
        width,
        [
            f"Row: the dice rolled at once. Column: how many of them have two caution faces ({words(two)}); the others "
            f"have one ({words(one)}). Cautions the track gives (caution marks, inside-line caution symbols) are not "
            "counted here: sheetgen odds --extra-cautions N counts them."
        ],
    )
    y -= 1.5 * MM
    most = max(r["dice"] for r in table["by_count"])
    head_w = 20 * MM
    w = (width - head_w) / (most + 1)
    row_h = 8.5 * MM
    text_box(sheet, x, y - 6 * MM, head_w, 6 * MM, "dice rolled", bold=True, shaded=True, size=sheet.t.sizes["small"])
    for k in range(most + 1):
        text_box(
            sheet,
            x + head_w + k * w,
            y - 6 * MM,
            w,
            6 * MM,
            f"{k} with two cautions",
            bold=True,
            shaded=True,
            size=sheet.t.sizes["small"],
        )
    y -= 6 * MM
    by = {(r["dice"], r["two_caution_dice"]): r for r in table["by_count"]}
    for n in range(1, most + 1):
        text_box(
            sheet,
            x,
            y - row_h,
            head_w,
            row_h,
            f"{n} {'die' if n == 1 else 'dice'}",
            bold=True,
            shaded=True,
            size=sheet.t.sizes["heading"],
        )
        for k in range(most + 1):
            cx = x + head_w + k * w
            sheet.box(cx, y - row_h, w, row_h, width=sheet.ink.thin_width)
            r = by.get((n, k))
            if r is None:
                continue
            frac = r["lose_control"].removesuffix("/1")
            size = fit_size(sheet, frac, w - 1.6 * MM, sheet.t.sizes["heading"], True)
            body = sheet.t.sizes["body"]
            # the fraction's descender and the percentage's ascender no more than 0.3 pt into
            # each other, 3.4 mm between their baselines (larger template sizes: both smaller)
            while (0.236 * size + 0.928 * body) > 3.4 * MM + 0.3 and body > 4.5:
                size, body = size - 0.25, body - 0.25
            sheet.text(cx + w / 2, y - 3.6 * MM, frac, bold=True, size=size, align="center")
            sheet.text(cx + w / 2, y - 7.0 * MM, _pct(r["lose_control"]), size=body, align="center")
        y -= row_h
    sheet.box(x, y, width, 6 * MM + most * row_h, width=sheet.ink.line_width)
    y -= 5 * MM
    focus = table["focus"]
    y = _title(
        sheet,
        x,
        y,
        width,
        "Common plans: flat out, and one at a time with tokens",
        f"{token} tokens: the k-th secured die costs k more",
    )
    y = _notes(
        sheet,
        x,
        y + 1 * MM,
        width,
        [
            "A plan is the dice of one turn in the order placed. Flat out: the chance of losing control. One at a "
            f"time: the best chance of placing every die without losing control, with that many {token} tokens used at "
            "the best moments (seeing each result before the next die)."
        ],
    )
    y -= 1.5 * MM
    plan_w = 38 * MM
    cw = (width - plan_w) / (1 + len(focus))
    heads = [
        "plan (dice in order)",
        "flat out:\nlose control",
        *(f"one at a time: complete\nwith {f} token{'s' if f != 1 else ''}" for f in focus),
    ]
    rows = []
    for r in table["plans"]:
        fo = r["flat_out"]
        cells = [r["plan"].replace(",", ", "), f"{fo['lose_control'].removesuffix('/1')}  ({_pct(fo['lose_control'])})"]
        for f in focus:
            c = r["one_at_a_time"][str(f)]
            cells.append(f"{c['complete'].removesuffix('/1')}  ({_pct(c['complete'])})")
        rows.append(cells)
    y = _table(
        sheet,
        x,
        y,
        [plan_w] + [cw] * (1 + len(focus)),
        heads,
        rows,
        row_h=5.2 * MM,
        aligns=["left"] + ["center"] * (1 + len(focus)),
    )
    y = _notes(
        sheet,
        x,
        y,
        width,
        [
            "Any other plan: sheetgen odds rallyman --variant "
            + ruleset.variant
            + " --dice 3,4,coast --focus 1 (add ! after a die whose space gives a caution)."
        ],
    )
    page_footer(sheet, "dashboard card: odds")
    sheet.end_page("dashboard card: odds")


def draw_dashboard_card(sheet: Sheet, track) -> None:
    """The two pages of the dashboard reference card of `track`, each ended."""
    ruleset = ruleset_of(track)
    _draw_dashboard_page(sheet, track, ruleset)
    _odds_page(sheet, track, ruleset)
