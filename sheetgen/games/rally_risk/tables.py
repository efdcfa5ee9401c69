"""Rally Risk's tables: checking a spec's own values, merging them over the house tables,
and showing the tables in effect as JSON or text.

A race file may replace any table with the values printed in a user's own box:

```yaml
tables:
  gear_chart: [[1, 1], [1, 3], [2, 5], [3, 7], [4, 9]]   # gears 1st..5th: [min, max]
  risk:                      # gears 1st..5th; modified die 1..6
    - [5, 5, 5, 4, 4, 4]
    - ...
  damage:                    # difference 1, 2, ...; die 1..6; "-", tc, 1, 2, 3, e
    - ["-", "-", "-", "-", tc, 1]
    - ...
  weather:                   # any of EC, EN, A
    EC: {start: 3, sectors: [clear, clear, cloudy, cloudy, rain+1, rain+1, storm+2, storm+3]}
  tyres:                     # rain and snow tyres: effect per weather
    rain: {clear: {move: -1}, cloudy: {move: -2}, rain: {factor: -1}, storm: {factor: -1}}
  special_extra: [0, 0, 2, 4, 6]   # special races: added to the maximum of gears 1st..5th
```

A table given replaces the house table whole (a weather chart per zone). Every table is
checked for shape and monotonicity: a higher gear or a higher roll never gives a safer
(higher) risk factor; a bigger difference or a higher roll never gives lighter damage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sheetgen.errors import Problem
from sheetgen.games.rally_risk.house_tables import ASSISTANCE_BONUS, FORD_FACTORS, HOUSE_TABLES, LABEL
from sheetgen.games.rally_risk.model import (
    DIE,
    GEARS,
    MAX_GEAR,
    Assistance,
    Outcome,
    Tables,
    TyreEffect,
    Tyres,
    Weather,
    WeatherChart,
    WeatherSector,
    Zone,
)
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document

MAX_FACTOR = 9
MAX_MOVE = 20
MAX_MINIMUM = 9
MAX_DAMAGE_ROWS = 12
MAX_SECTORS = 24
MAX_MODIFIER = 5

TABLE_NAMES = ("gear_chart", "risk", "damage", "weather", "tyres", "special_extra")
_WEATHERS = [w.value for w in Weather]
_OUTCOMES = [o.value for o in Outcome]
_ORD = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}

_EFFECT = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "move": {"type": "integer", "description": "added to minimum and maximum movement"},
        "factor": {"type": "integer", "description": "added to every space's factor"},
    },
}
_CHART = {
    "type": "object",
    "additionalProperties": False,
    "required": ["sectors"],
    "properties": {
        "start": {"type": "integer", "description": "sector the marker starts on (1-based; default 1)"},
        "sectors": {
            "type": "array",
            "items": {"type": "string"},
            "description": "e.g. clear, cloudy, rain+1, storm+2, snow+3",
        },
    },
}
_INT_ROWS = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "description": "replace house tables with the values printed in your own box",
    "properties": {
        "gear_chart": dict(_INT_ROWS, description="gears 1st..5th: [min, max] with permanent assistance"),
        "risk": dict(_INT_ROWS, description="Table of Risks: gears 1st..5th, modified die 1..6"),
        "damage": {
            "type": "array",
            "description": "Damages Table: difference 1, 2, ... (the last row also for larger ones), die 1..6",
            "items": {"type": "array", "items": {"type": ["string", "integer"]}},
        },
        "weather": {
            "type": "object",
            "additionalProperties": False,
            "properties": {z.value: _CHART for z in Zone},
        },
        "tyres": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                t: {"type": "object", "additionalProperties": False, "properties": {w: _EFFECT for w in _WEATHERS}}
                for t in ("rain", "snow")
            },
        },
        "special_extra": {"type": "array", "items": {"type": "integer"}, "description": "gears 1st..5th"},
    },
}

_SECTOR = re.compile(r"^\s*([a-z]+)\s*(?:\(?\s*\+\s*(\d+)\s*\)?)?\s*$")


# --------------------------------------------------------------------------- checking


def check_spec_tables(doc: Document, data: Any, base: tuple = ("tables",)) -> list[Problem]:
    """Every problem of a spec's `tables:` mapping, located: schema problems of one table
    do not hide the shape and monotonicity problems of another."""
    outline = dict(SCHEMA, properties={name: {} for name in SCHEMA["properties"]})
    found = check(doc, outline, data, base)
    if not isinstance(data, dict):
        return found
    for name, schema in SCHEMA["properties"].items():
        if name not in data:
            continue
        own = check(doc, schema, data[name], base + (name,))
        if not own:
            own = [doc.problem(base + path, message) for path, message in problems({name: data[name]})]
        found.extend(own)
    return found


def problems(data: dict) -> list[tuple[tuple, str]]:
    """Shape, range and monotonicity problems of schema-valid `tables:` data, as
    (path within the tables mapping, message)."""
    out: list[tuple[tuple, str]] = []
    checks: dict[str, Callable[[Any], list[tuple[tuple, str]]]] = {
        "gear_chart": _gear_chart_problems,
        "risk": _risk_problems,
        "damage": _damage_problems,
        "weather": _weather_problems,
        "tyres": _tyre_problems,
        "special_extra": _special_problems,
    }
    for name, problems in checks.items():
        if name in data:
            out.extend(((name,) + path, message) for path, message in problems(data[name]))
    return out


def _rows(
    rows: list, count: int | None, what: str, row_word: str, cells: int, cell_word: str
) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    if count is not None and len(rows) != count:
        out.append(((), f"{what} needs {count} rows ({row_word}), got {len(rows)}"))
    for i, row in enumerate(rows):
        if len(row) != cells:
            out.append(((i,), f"{what} row {i + 1} needs {cells} {cell_word}, got {len(row)}"))
    return out


def _gear_chart_problems(rows: list) -> list[tuple[tuple, str]]:
    out = _rows(rows, MAX_GEAR, "the gear chart", "gears 1st to 5th", 2, "numbers ([min, max])")
    if out:
        return out
    for i, (lo, hi) in enumerate(rows):
        gear = _ORD[i + 1]
        if not 1 <= lo <= MAX_MINIMUM:
            out.append(((i, 0), f"{gear} gear's minimum must be between 1 and {MAX_MINIMUM}, got {lo}"))
        if not lo <= hi <= MAX_MOVE:
            out.append(((i, 1), f"{gear} gear's maximum must be between its minimum ({lo}) and {MAX_MOVE}, got {hi}"))
    if rows[0] != [1, 1]:
        out.append(((0,), f"1st gear always moves 1 space: it must be [1, 1], got {rows[0]}"))
    for i in range(1, len(rows)):
        for j, word in ((0, "minimum"), (1, "maximum")):
            if rows[i][j] < rows[i - 1][j]:
                out.append(
                    (
                        (i, j),
                        f"a higher gear must not move less: {_ORD[i + 1]} gear's {word} is {rows[i][j]}, {_ORD[i]} "
                        f"gear's is {rows[i - 1][j]}",
                    )
                )
    return out


def _risk_problems(rows: list) -> list[tuple[tuple, str]]:
    out = _rows(rows, MAX_GEAR, "the Table of Risks", "gears 1st to 5th", 6, "factors (die 1 to 6)")
    if out:
        return out
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            if not 0 <= v <= MAX_FACTOR:
                out.append(((i, j), f"a risk factor must be between 0 and {MAX_FACTOR}, got {v}"))
    if out:
        return out
    for i, row in enumerate(rows):
        for j in range(1, 6):
            if row[j] > row[j - 1]:
                out.append(
                    (
                        (i, j),
                        f"the Table of Risks must not get safer with a higher roll: {_ORD[i + 1]} gear gives {row[j]} "
                        f"on die {j + 1} but {row[j - 1]} on die {j}",
                    )
                )
    for i in range(1, len(rows)):
        for j in range(6):
            if rows[i][j] > rows[i - 1][j]:
                out.append(
                    (
                        (i, j),
                        f"the Table of Risks must not get safer in a higher gear: die {j + 1} gives {rows[i][j]} in "
                        f"{_ORD[i + 1]} gear but {rows[i - 1][j]} in {_ORD[i]}",
                    )
                )
    return out


def outcome_of(cell: Any) -> Outcome | None:
    """A Damages Table cell as written (`1` or `"1"`, `tc`, `e`, `-`), or None."""
    text = str(cell).strip() if not isinstance(cell, bool) else ""
    try:
        return Outcome(text)
    except ValueError:
        return None


def _outcome(cell: Any) -> Outcome:
    """A cell of a Damages Table already checked (`_damage_problems`)."""
    outcome = outcome_of(cell)
    if outcome is None:
        raise ValueError(f"a damage result must be one of {', '.join(_OUTCOMES)}; got {cell!r}")
    return outcome


def _damage_problems(rows: list) -> list[tuple[tuple, str]]:
    out = []
    if not 1 <= len(rows) <= MAX_DAMAGE_ROWS:
        return [((), f"the Damages Table needs 1 to {MAX_DAMAGE_ROWS} rows (difference 1, 2, ...), got {len(rows)}")]
    out = _rows(rows, None, "the Damages Table", "", 6, "results (die 1 to 6)")
    if out:
        return out
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if outcome_of(cell) is None:
                out.append(((i, j), f"a damage result must be one of {', '.join(_OUTCOMES)}; got {cell!r}"))
    if out:
        return out
    grid = [[_outcome(c) for c in row] for row in rows]
    for i, row in enumerate(grid):
        for j in range(1, 6):
            if row[j].severity < row[j - 1].severity:
                out.append(
                    (
                        (i, j),
                        f"the Damages Table must not get lighter with a higher roll: difference {i + 1} gives "
                        f"{row[j].value!r} on die {j + 1} but {row[j - 1].value!r} on die {j}",
                    )
                )
    for i in range(1, len(grid)):
        for j in range(6):
            if grid[i][j].severity < grid[i - 1][j].severity:
                out.append(
                    (
                        (i, j),
                        f"the Damages Table must not get lighter with a bigger difference: die {j + 1} gives "
                        f"{grid[i][j].value!r} at difference {i + 1} but {grid[i - 1][j].value!r} at {i}",
                    )
                )
    return out


def parse_sector(text: str) -> WeatherSector | str:
    """A weather sector as written (`clear`, `rain+1`, `storm (+3)`), or a message."""
    match = _SECTOR.match(text)
    if not match or match[1] not in _WEATHERS:
        return (
            "a weather sector must be clear, cloudy, rain, storm or snow, with +N for rain, storms and snow (e.g. "
            f"'rain+1'); got {text!r}"
        )
    weather = Weather(match[1])
    modifier = int(match[2]) if match[2] else 0
    if modifier and not weather.negative:
        return f"{weather.value} weather does not change the risk roll; write {weather.value!r}, got {text!r}"
    if modifier > MAX_MODIFIER:
        return f"a weather modifier must be at most +{MAX_MODIFIER}, got {text!r}"
    return WeatherSector(weather, modifier)


def _sector(text: str) -> WeatherSector:
    """A sector of a weather chart already checked (`_weather_problems`)."""
    parsed = parse_sector(text)
    if isinstance(parsed, str):
        raise ValueError(parsed)
    return parsed


def _weather_problems(charts: dict) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    for zone, chart in charts.items():
        sectors = chart["sectors"]
        if not 2 <= len(sectors) <= MAX_SECTORS:
            out.append(((zone, "sectors"), f"a weather chart needs 2 to {MAX_SECTORS} sectors, got {len(sectors)}"))
        for i, text in enumerate(sectors):
            parsed = parse_sector(text)
            if isinstance(parsed, str):
                out.append(((zone, "sectors", i), parsed))
        start = chart.get("start", 1)
        if not 1 <= start <= max(len(sectors), 1):
            out.append(((zone, "start"), f"'start' must be a sector between 1 and {len(sectors)}, got {start}"))
    return out


def _tyre_problems(tyres: dict) -> list[tuple[tuple, str]]:
    out = []
    for kind, effects in tyres.items():
        for weather, effect in effects.items():
            for key, word in (("move", "movement"), ("factor", "factors")):
                v = effect.get(key, 0)
                if not -3 <= v <= 0:
                    out.append(((kind, weather, key), f"tyres change {word} by 0 to -3, got {v}"))
    return out


def _special_problems(extra: list) -> list[tuple[tuple, str]]:
    if len(extra) != MAX_GEAR:
        return [((), f"'special_extra' needs 5 numbers (gears 1st to 5th), got {len(extra)}")]
    out = [
        ((i,), f"extra movement must be between 0 and {MAX_MOVE}, got {v}")
        for i, v in enumerate(extra)
        if not 0 <= v <= MAX_MOVE
    ]
    if extra[0] != 0:
        out.append(((0,), f"1st gear always moves 1 space: its extra movement must be 0, got {extra[0]}"))
    return out


# --------------------------------------------------------------------------- building


def build(overrides: dict | None = None) -> Tables:
    """The tables in effect: the house tables with the checked `overrides` put over them."""
    overrides = overrides or {}
    data = dict(HOUSE_TABLES)
    weather = dict(HOUSE_TABLES["weather"])
    for name in TABLE_NAMES:
        if name == "weather":
            weather.update(overrides.get("weather", {}))
        elif name in overrides:
            data[name] = overrides[name]
    return Tables(
        gear_chart=tuple((lo, hi) for lo, hi in data["gear_chart"]),
        assistance=tuple((Assistance(k), v) for k, v in ASSISTANCE_BONUS.items()),
        risk=tuple(tuple(row) for row in data["risk"]),
        damage=tuple(tuple(_outcome(c) for c in row) for row in data["damage"]),
        weather=tuple(
            (
                zone,
                WeatherChart(
                    tuple(_sector(s) for s in weather[zone.value]["sectors"]),
                    weather[zone.value].get("start", 1) - 1,
                ),
            )
            for zone in Zone
        ),
        fords=tuple((Weather(k), v) for k, v in FORD_FACTORS.items()),
        tyres=tuple(
            (
                Tyres(kind),
                tuple(
                    (Weather(w), TyreEffect(e.get("move", 0), e.get("factor", 0)))
                    for w, e in data["tyres"].get(kind, {}).items()
                ),
            )
            for kind in ("rain", "snow")
        ),
        special_extra=tuple(data["special_extra"]),
        overridden=tuple(sorted(overrides)),
    )


_HOUSE: Tables | None = None


def card_key(tables: Tables) -> str:
    """What names the reference card of `tables` among the pages a job prints
    (`registry.Printable.shared`): the same tables, the same card, printed once a job."""
    import hashlib

    return f"rally_risk reference card {hashlib.sha256(repr(tables).encode()).hexdigest()[:16]}"


def house_tables() -> Tables:
    global _HOUSE
    if _HOUSE is None:
        _HOUSE = build()
    return _HOUSE


# --------------------------------------------------------------------------- showing


def to_json(tables: Tables) -> dict:
    """The tables as JSON: gears, dice and differences as string keys from "1"."""
    return {
        "source": LABEL if not tables.overridden else f"{LABEL}; replaced by the spec: {', '.join(tables.overridden)}",
        "gear_chart": {str(g): {"min": lo, "max": hi} for g, (lo, hi) in zip(GEARS, tables.gear_chart)},
        "assistance": {a.value: bonus for a, bonus in tables.assistance},
        "special_extra": {str(g): extra for g, extra in zip(GEARS, tables.special_extra)},
        "risk": {str(g): list(row) for g, row in zip(GEARS, tables.risk)},
        "damage": {str(d): [o.value for o in row] for d, row in enumerate(tables.damage, start=1)},
        "weather": {
            zone.value: {
                "start": chart.start + 1,
                "sectors": [{"weather": s.weather.value, "modifier": s.modifier} for s in chart.sectors],
            }
            for zone, chart in tables.weather
        },
        "fords": {w.value: f for w, f in tables.fords},
        "tyres": {
            kind.value: {w.value: {"move": e.move, "factor": e.factor} for w, e in effects}
            for kind, effects in tables.tyres
        },
    }


def tables_in_effect(spec_or_none: Any = None) -> dict:
    """JSON form of the tables a spec plays with: a registry Spec or a model; None, a
    library or a calendar give the house tables."""
    model = getattr(spec_or_none, "model", spec_or_none)
    tables = getattr(model, "tables", None)
    return to_json(tables if isinstance(tables, Tables) else house_tables())


def format_tables_text(data: dict) -> str:
    """The JSON form of :func:`tables_in_effect` laid out like the printed tables."""
    lines = [f"Rally Risk tables: {data['source']}", ""]
    assist = data["assistance"]
    lines.append("Gear chart (spaces; rapid assistance +{rapid}, normal +{normal}, not in 1st gear)".format(**assist))
    lines.append("  gear   min  max  special max")
    for g, mm in data["gear_chart"].items():
        extra = data["special_extra"][g]
        lines.append(f"  {_ORD[int(g)]:<5} {mm['min']:>4} {mm['max']:>4} {mm['max'] + extra:>12}")
    lines += ["", "Table of Risks (highest safe factor; die + assistance + weather, at most 6)"]
    lines.append("  gear   " + "  ".join(f"d{d}" for d in DIE))
    for g, row in data["risk"].items():
        lines.append(f"  {_ORD[int(g)]:<5}  " + "  ".join(f"{v:>2}" for v in row))
    lines += ["", "Damages Table (difference between the space's factor and the risk factor)"]
    lines.append("  diff   " + "  ".join(f"d{d}" for d in DIE))
    last = str(len(data["damage"]))
    for d, row in data["damage"].items():
        label = f"{d}+" if d == last else d
        lines.append(f"  {label:<5}  " + "  ".join(f"{v:>2}" for v in row))
    lines.append("  - none, tc tail spin, 1/2/3 halted that many turns, e eliminated")
    lines += ["", "Weather charts (even roll: one sector forward; odd: one back; stays at the ends)"]
    for zone, chart in data["weather"].items():
        cells = [
            ("*" if i == chart["start"] else "")
            + (f"{s['weather']}+{s['modifier']}" if s["modifier"] else s["weather"])
            for i, s in enumerate(chart["sectors"], start=1)
        ]
        lines.append(f"  {zone:<3} " + "  ".join(cells))
    lines.append("  * start sector. Fords: " + ", ".join(f"{w} {f}" for w, f in data["fords"].items()))
    lines += ["", "Special tyres (factor change per space / movement change)"]
    for kind, effects in data["tyres"].items():
        parts = []
        for w, e in effects.items():
            bits = [f"factor {e['factor']:+d}" if e["factor"] else "", f"move {e['move']:+d}" if e["move"] else ""]
            parts.append(f"{w} " + " ".join(b for b in bits if b))
        lines.append(f"  {kind} tyres: " + "; ".join(parts))
    return "\n".join(lines) + "\n"
