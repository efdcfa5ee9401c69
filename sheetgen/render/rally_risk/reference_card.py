"""The Rally Risk reference card: the tables a race is played with (gear chart, Table of
Risks, Damages Table, weather charts, special tyres), each saying whether it is a house
table or the box's own, and the summary of the modifying factors. Printed after a library's
section cards and after a race's course sheet.
"""

from __future__ import annotations

import math

from sheetgen.games.rally_risk.house_tables import LABEL as HOUSE_LABEL
from sheetgen.games.rally_risk.model import DIE, GEARS, MAX_MECHANICS, MECHANIC_RANGE, Assistance, Tables, Weather, Zone
from sheetgen.games.rally_risk.scoring import CHAMPIONSHIP_POINTS, ELIMINATION_HANDICAP
from sheetgen.render.common import centred, fit_size, fitted_text, text_box, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.render.rally_risk.common import BOX_PAD, DISPLAY, ORDINAL, ZONE_NAMES, ford_text
from sheetgen.template import MM


def _source(tables: Tables, name: str) -> str:
    return "from your box (spec)" if name in tables.overridden else "house table"


def _assistance_text(tables: Tables) -> str:
    """What each assistance adds to movement and to the risk roll: 'rapid +1, normal +2'."""
    return ", ".join(f"{a.value} +{tables.bonus(a)}" for a in Assistance if tables.bonus(a))


def _weather_text(tables: Tables) -> str:
    """What the weather charts add to the risk roll: 'rain +1, storm +2 or +3, ...'."""
    found: dict[Weather, set[int]] = {}
    for _zone, chart in tables.weather:
        for sector in chart.sectors:
            if sector.modifier:
                found.setdefault(sector.weather, set()).add(sector.modifier)
    return (
        ", ".join(f"{w.value} " + " or ".join(f"+{m}" for m in sorted(found[w])) for w in Weather if w in found)
        or "nothing"
    )


def _table_title(sheet: Sheet, x: float, y: float, width: float, title: str, source: str) -> float:
    sheet.text(x, y - 3.6 * MM, title, "heading", bold=True)
    sheet.text(
        x + width,
        y - 3.6 * MM,
        source.upper() if source == "house table" else source,
        "small",
        bold=True,
        align="right",
    )
    return y - 5.5 * MM


def _grid(
    sheet: Sheet,
    x: float,
    y: float,
    head_w: float,
    cell_w: float,
    row_h: float,
    header: list[str],
    rows: list[tuple[str, list[str]]],
    corner: str = "",
) -> float:
    size = sheet.t.sizes["body"]
    text_box(
        sheet, x, y - row_h, head_w, row_h, corner, size=sheet.t.sizes["small"], bold=True, shaded=True, pad=BOX_PAD
    )
    for k, h in enumerate(header):
        text_box(
            sheet, x + head_w + k * cell_w, y - row_h, cell_w, row_h, h, size=size, bold=True, shaded=True, pad=BOX_PAD
        )
    y -= row_h
    for label, cells in rows:
        text_box(sheet, x, y - row_h, head_w, row_h, label, size=size, bold=True, shaded=True, pad=BOX_PAD)
        for k, value in enumerate(cells):
            text_box(sheet, x + head_w + k * cell_w, y - row_h, cell_w, row_h, value, size=size, pad=BOX_PAD)
        y -= row_h
    return y


def _notes(sheet: Sheet, x: float, y: float, width: float, lines: list[str], size_key: str = "small") -> float:
    size = sheet.t.sizes[size_key]
    for k, line in enumerate(lines):
        if k:
            y -= 0.8 * MM
        for part in wrap(sheet, line, width, size):
            sheet.text(x, y - size * 1.0, part, size_key)
            y -= size * 1.3
    return y


def draw_reference_card(sheet: Sheet, tables: Tables, *, subtitle: str = "") -> None:
    """The tables a race is played with, and the modifiers summary, on the current page
    of `sheet`; then ``sheet.end_page()``. Each table says whether it is a house table."""
    x, top, right = sheet.left, sheet.top, sheet.right
    title = "Rally Risk reference card"
    sheet.text(x, top - 6 * MM, title, "title", bold=True)
    if subtitle:  # right of the title (it may name a race or a library)
        fitted_text(
            sheet,
            right,
            top - 5 * MM,
            subtitle,
            right - x - sheet.text_width(title, "title", bold=True) - 4 * MM,
            "small",
            align="right",
        )
    own = [DISPLAY[n] for n in tables.overridden]
    if own:
        note = f"From your box (given in the race spec): {', '.join(own)}. Every other table is a sheetgen house table."
    else:
        note = (
            f"HOUSE TABLES: {HOUSE_LABEL}. They reproduce every worked example of the rulebook; a race spec can give "
            "your box's own."
        )
    y = top - 10 * MM
    lines = wrap(sheet, note, right - x - 4 * MM, sheet.t.sizes["body"], True)
    h = (len(lines) * 3.6 + 2.4) * MM
    sheet.box(x, y - h, right - x, h, width=sheet.ink.line_width * 1.6)
    for k, line in enumerate(lines):
        sheet.text(x + 2 * MM, y - (3.6 + k * 3.6) * MM, line, "body", bold=True)
    y -= h + 4 * MM
    col_w = (right - x - 8 * MM) / 2
    left_x, right_x = x, x + col_w + 8 * MM
    row_h = (5.6 if len(tables.damage) <= 6 else 4.4) * MM
    # gear chart
    ly = _table_title(sheet, left_x, y, col_w, "Gear chart", _source(tables, "gear_chart"))
    rows = []
    for g in GEARS:
        cells = []
        for a in Assistance:
            lo, hi = tables.gear_range(g, a)
            cells.append(f"{lo}" if lo == hi else f"{lo}\u2013{hi}")
        extra = tables.special_extra[g - 1]
        cells.append(f"+{extra}" if extra else "-")
        rows.append((ORDINAL[g], cells))
    head_w = 16 * MM
    ly = _grid(
        sheet,
        left_x,
        ly,
        head_w,
        (col_w - head_w) / 4,
        row_h,
        ["permanent", "rapid", "normal", "special"],
        rows,
        "gear",
    )
    ly = _notes(
        sheet,
        left_x,
        ly - 1 * MM,
        col_w,
        [
            f"Spaces moved, minimum-maximum, by assistance ({_assistance_text(tables)}; 1st gear always 1). Special "
            "races add the last column to the maximum ("
            + _source(tables, "special_extra")
            + ").",
            "Shift one gear at a time; the R.P.M. card (once a race) allows one shift down by two. Start, and restart "
            "after going off or a mechanic's stop, in 1st gear. Braking: one space less per braking, +1 to the factor "
            "of the space braked on.",
        ],
    )
    # table of risks
    ly = _table_title(sheet, left_x, ly - 3 * MM, col_w, "Table of Risks", _source(tables, "risk"))
    rows = [(ORDINAL[g], [str(v) for v in row]) for g, row in zip(GEARS, tables.risk)]
    ly = _grid(sheet, left_x, ly, head_w, (col_w - head_w) / 6, row_h, [f"die {d}" for d in DIE], rows, "gear")
    ly = _notes(
        sheet,
        left_x,
        ly - 1 * MM,
        col_w,
        [
            "The highest factor the car takes safely this round. Die + assistance + weather, never above 6. Each space "
            "entered with a higher factor is checked on the Damages Table."
        ],
    )
    # damages table
    ly = _table_title(sheet, left_x, ly - 3 * MM, col_w, "Damages Table", _source(tables, "damage"))
    last = len(tables.damage)
    rows = [(f"{d}+" if d == last else str(d), [o.value for o in row]) for d, row in enumerate(tables.damage, start=1)]
    ly = _grid(sheet, left_x, ly, head_w, (col_w - head_w) / 6, row_h, [f"die {d}" for d in DIE], rows, "difference")
    ly = _notes(
        sheet,
        left_x,
        ly - 1 * MM,
        col_w,
        [
            "Row: the space's factor minus the risk factor. - none; tc tail spin (stop, go on next round); 1, 2, 3: "
            "stop and sit out that many rounds; e eliminated. Any damage stops the car on that space.",
        ],
    )
    ly -= 3 * MM
    sheet.text(left_x, ly - 3.6 * MM, "A round", "heading", bold=True)
    ly = _notes(
        sheet,
        left_x,
        ly - 5.5 * MM,
        col_w,
        [
            "The first player rolls for the weather. Then every car that has started moves, in departure order (car k "
            "first moves in round k): "
            "set the gear, roll the die, read the risk factor, move between the gear's minimum and maximum.",
            "Scores: rounds behind the first arrival minus the start order, fewest wins; a destroyed car scores the "
            "last arrival's + "
            f"{ELIMINATION_HANDICAP}. A rally's places earn {', '.join(str(p) for p in CHAMPIONSHIP_POINTS)} "
            "championship points.",
        ],
        "body",
    )
    # weather charts
    ry = _table_title(sheet, right_x, y, col_w, "Weather charts", _source(tables, "weather"))
    ry = _notes(
        sheet,
        right_x,
        ry,
        col_w,
        [
            "The first player rolls each round: even, the marker moves one sector forward; odd, one back (it stays at "
            "either end). Bold box: start sector."
        ],
    )
    for zone in Zone:
        chart = tables.chart(zone)
        ry -= 1.5 * MM
        sheet.text(right_x, ry - 3 * MM, f"{zone.value}  {ZONE_NAMES[zone]}", "body", bold=True)
        ry -= 4.5 * MM
        n = len(chart.sectors)
        per_row = n if n <= 12 else math.ceil(n / 2)  # long charts in two rows, in order
        w = col_w / per_row
        h = 7.5 * MM
        for i, sector in enumerate(chart.sectors):
            cx = right_x + (i % per_row) * w
            cy = ry - (i // per_row) * h
            sheet.box(cx, cy - h, w, h, width=sheet.ink.line_width * 2.2 if i == chart.start else sheet.ink.thin_width)
            word = sector.weather.value
            size = fit_size(sheet, word, w - 1 * MM, sheet.t.sizes["small"], least=4.0)
            centred(sheet, cx + w / 2, cy - 2.6 * MM, word, size, bold=i == chart.start)
            centred(sheet, cx + w / 2, cy - 5.6 * MM, f"+{sector.modifier}" if sector.modifier else "", size)
        ry -= h * math.ceil(n / per_row)
    ry = _notes(
        sheet,
        right_x,
        ry - 1.5 * MM,
        col_w,
        [f"+N: added to the risk roll. A ford's factor: {ford_text(tables)} (rulebook)."],
    )
    # tyres
    ry = _table_title(sheet, right_x, ry - 3 * MM, col_w, "Special tyres", _source(tables, "tyres"))
    weathers = [w for w in ("clear", "cloudy", "rain", "storm", "snow")]
    rows = []
    for kind, effects in tables.tyres:
        got = {w.value: e for w, e in effects}
        cells = []
        for weather in weathers:
            e = got.get(weather)
            bits = []
            if e is not None and e.move:
                bits.append(f"move {e.move:+d}")
            if e is not None and e.factor:
                bits.append(f"factor {e.factor:+d}")
            cells.append(" ".join(bits) or "-")
        rows.append((f"{kind.value}", cells))
    ry = _grid(sheet, right_x, ry, 14 * MM, (col_w - 14 * MM) / 5, row_h, weathers, rows, "tyres")
    ry = _notes(
        sheet,
        right_x,
        ry - 1 * MM,
        col_w,
        ["Chosen before the start; changed only at a mechanic's stop. Movement never below 1, factors never below 0."],
    )
    # modifiers summary
    ry -= 3 * MM
    sheet.text(right_x, ry - 3.6 * MM, "Summary of the modifying factors", "heading", bold=True)
    ry -= 5.5 * MM
    ry = _notes(
        sheet,
        right_x,
        ry,
        col_w,
        [
            f"Roll of the die for the risk factor: assistance {_assistance_text(tables)}; weather "
            f"{_weather_text(tables)} (as the chart says).",
            "Speed and safety factors: passing +1 for each car passed; weather changes fords; rain or snow tyres -1 "
            "in their weather; braking +1 per braking on that space.",
            f"Mechanics (1-{MAX_MECHANICS} per car, placed before the start on numbered spaces) reach "
            f"{MECHANIC_RANGE} spaces either way: k mechanics together turn damage of degree k or less into tc; 3rd "
            "degree within one mechanic's reach becomes 2nd. Stop at a mechanic in 1st or 2nd gear.",
        ],
        "body",
    )
    sheet.scale_bar(sheet.left, sheet.bottom + 1.5 * MM)
    sheet.end_page("reference card")
