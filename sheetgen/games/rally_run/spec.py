"""Rally Run! specs: a tile set, with `game: rally_run` (one kind of file, `kind: set`).

::

    game: rally_run
    name: sheetgen house set
    house_set: true           # the counts are sheetgen's own, not the published game's
    size: 5                   # optional: the grid is size x size (odd, 3 to 9; default 5)
    tile_mm: 60               # optional: side of a printed tile, 30 to 90 mm (default 60)
    duplex: long_edge         # optional: the printer's flip edge for the backs: long_edge | short_edge
    tiles:                    # road tiles: their road openings (sides N, E, S, W, north up)
      - {name: straight, openings: NS, count: 6}
      - {name: curve, openings: NE, count: 8}
      - {name: T, openings: NEW, count: 4}
      - {name: crossing, openings: NESW, count: 2}
      - {name: dead end, openings: N, count: 4}
    pit_stop: {name: Pit stop, openings: NESW}    # optional (this is the default)
    start_finish:             # one at each grid corner: NW, NE, SE, SW
      - {corner: NW, colour: red, name: Red flag, pattern: stripes}
      - ...
    trophies:                 # one per start-finish colour
      - {colour: red, name: Red trophy}
      - ...
    board:                    # optional fixed board: every road tile's place (rows and
      - {row: 1, column: 1, tile: curve, turn: 90, face: down}   # columns from 1, top left)

The road tiles fill the grid but for its centre, the pit stop: 24 for a 5x5 grid. The
published game's counts are not known (see docs/rulings.md, RN-1): a set says whose
counts it gives with `house_set`. A fixed board places every road tile of the set once
(`turn` in degrees clockwise: 0, 90, 180, 270; `face`: down or up).
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Any

from sheetgen.errors import SpecError
from sheetgen.games.rally_run.model import (
    COLOURS,
    CORNERS,
    DEFAULT_SIZE,
    DEFAULT_TILE_MM,
    FLIPS,
    PATTERNS,
    SIDES,
    Placed,
    StartFinish,
    TileKind,
    TileSet,
    Trophy,
)
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document

MIN_SIZE, MAX_SIZE = 3, 9
MIN_TILE_MM, MAX_TILE_MM = 30, 90
MAX_KINDS = 40

_NAME = {"type": "string", "minLength": 1, "maxLength": 40, **TEXT}
_OPENINGS = {
    "type": "string",
    "maxLength": 8,
    "description": "the sides the road leaves by, north up: letters of NESW, e.g. NS, NE, NEW",
}
_COLOUR = {"enum": sorted(COLOURS)}

_TILE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "openings", "count"],
    "properties": {"name": _NAME, "openings": _OPENINGS, "count": {"type": "integer", "minimum": 1, "maximum": 80}},
}
_START = {
    "type": "object",
    "additionalProperties": False,
    "required": ["corner", "colour"],
    "properties": {
        "corner": {"enum": list(CORNERS)},
        "colour": _COLOUR,
        "name": _NAME,
        "pattern": {"enum": list(PATTERNS)},
    },
}
_TROPHY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["colour"],
    "properties": {"colour": _COLOUR, "name": _NAME},
}
_PLACED = {
    "type": "object",
    "additionalProperties": False,
    "required": ["row", "column", "tile"],
    "properties": {
        "row": {"type": "integer", "minimum": 1, "maximum": MAX_SIZE},
        "column": {"type": "integer", "minimum": 1, "maximum": MAX_SIZE},
        "tile": dict(_NAME, description="a tile name of the set's 'tiles'"),
        "turn": {"enum": [0, 90, 180, 270], "description": "degrees clockwise from the tile as given"},
        "face": {"enum": ["down", "up"]},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen Rally Run! tile set",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "name", "tiles", "start_finish", "trophies"],
    "properties": {
        "game": {"const": "rally_run"},
        "kind": {"const": "set"},
        "name": dict(_NAME, maxLength=60),
        "house_set": {"type": "boolean", "description": "the counts are sheetgen's own, not a published box's"},
        "size": {
            "type": "integer",
            "minimum": MIN_SIZE,
            "maximum": MAX_SIZE,
            "description": f"the grid's side in tiles, odd (default {DEFAULT_SIZE})",
        },
        "tile_mm": {
            "type": "number",
            "minimum": MIN_TILE_MM,
            "maximum": MAX_TILE_MM,
            "description": f"side of a printed tile in mm (default {DEFAULT_TILE_MM:g})",
        },
        "duplex": {
            "enum": list(FLIPS),
            "description": "the edge the printer flips the sheet on for the backs (default long_edge)",
        },
        "tiles": {"type": "array", "minItems": 1, "maxItems": MAX_KINDS, "items": _TILE},
        "pit_stop": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"name": _NAME, "openings": _OPENINGS},
        },
        "start_finish": {"type": "array", "minItems": 4, "maxItems": 4, "items": _START},
        "trophies": {"type": "array", "minItems": 1, "maxItems": 8, "items": _TROPHY},
        "board": {"type": "array", "maxItems": MAX_SIZE * MAX_SIZE, "items": _PLACED},
    },
}


def _openings(doc: Document, path: tuple, text: str, problems: list) -> frozenset[int]:
    bad = [c for c in text if c not in SIDES]
    if bad:
        problems.append(doc.problem(path, f"openings {text!r}: {bad[0]!r} is not a side (sides are N, E, S and W)"))
        return frozenset()
    twice = [c for c, n in Counter(text).items() if n > 1]
    if twice:
        problems.append(doc.problem(path, f"openings {text!r} give side {twice[0]!r} twice"))
    return frozenset(SIDES.index(c) for c in text)


def _near(value: str, names: list[str]) -> str:
    near = difflib.get_close_matches(value, names, n=1)
    return f", did you mean {near[0]!r}?" if near else f" (the set's tiles: {', '.join(names)})"


def load_set(doc: Document) -> TileSet:
    """The tile set of `doc`, or SpecError listing every problem at its FILE:LINE:COL."""
    problems = check(doc, SCHEMA)
    if problems:
        raise SpecError(problems)
    data = doc.data
    size = data.get("size", DEFAULT_SIZE)
    if size % 2 == 0:
        problems.append(doc.problem(("size",), f"'size' must be odd (the pit stop is the centre tile), got {size}"))
    kinds: list[TileKind] = []
    names: dict[str, int] = {}
    for i, raw in enumerate(data["tiles"]):
        if raw["name"] in names:
            problems.append(
                doc.problem(
                    ("tiles", i, "name"), f"duplicate tile name {raw['name']!r} (also tile {names[raw['name']] + 1})"
                )
            )
        names.setdefault(raw["name"], i)
        kinds.append(
            TileKind(raw["name"], _openings(doc, ("tiles", i, "openings"), raw["openings"], problems), raw["count"])
        )
    wanted = size * size - 1
    total = sum(k.count for k in kinds)
    if total != wanted and size % 2:
        problems.append(
            doc.problem(
                ("tiles",),
                f"the tile counts add up to {total}; a {size}x{size} grid around the pit stop needs {wanted} road "
                "tiles",
                key=True,
            )
        )
    pit = data.get("pit_stop", {})
    pit_openings = (
        _openings(doc, ("pit_stop", "openings"), pit["openings"], problems)
        if "openings" in pit
        else frozenset(range(4))
    )
    if "openings" in pit and pit["openings"] == "":
        problems.append(
            doc.problem(("pit_stop", "openings"), "the pit stop needs at least one opening: no car could reach it")
        )
    starts: dict[str, StartFinish] = {}
    used_patterns: dict[str, int] = {}
    colours: dict[str, int] = {}
    for i, raw in enumerate(data["start_finish"]):
        base = ("start_finish", i)
        if raw["corner"] in starts:
            problems.append(doc.problem(base + ("corner",), f"two start-finish tiles at corner {raw['corner']!r}"))
        if raw["colour"] in colours:
            problems.append(
                doc.problem(
                    base + ("colour",),
                    f"colour {raw['colour']!r} is already start-finish tile {colours[raw['colour']] + 1}'s",
                )
            )
        colours.setdefault(raw["colour"], i)
        pattern = raw.get("pattern", PATTERNS[i])
        if pattern in used_patterns:
            where = base + ("pattern",) if "pattern" in raw else base
            problems.append(
                doc.problem(
                    where,
                    f"pattern {pattern!r} is already start-finish tile {used_patterns[pattern] + 1}'s (each colour "
                    "needs its own pattern)",
                )
            )
        used_patterns.setdefault(pattern, i)
        name = raw.get("name", f"{raw['colour'].capitalize()} start-finish")
        starts.setdefault(raw["corner"], StartFinish(raw["corner"], raw["colour"], name, pattern))
    trophies: list[Trophy] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data["trophies"]):
        colour = raw["colour"]
        if colour not in colours:
            problems.append(
                doc.problem(
                    ("trophies", i, "colour"),
                    f"no start-finish tile is {colour!r}: a trophy's colour names the finish to reach",
                )
            )
        if colour in seen:
            problems.append(
                doc.problem(("trophies", i, "colour"), f"colour {colour!r} is already trophy {seen[colour] + 1}'s")
            )
        seen.setdefault(colour, i)
        trophies.append(Trophy(colour, raw.get("name", f"{colour.capitalize()} trophy")))
    for colour, i in colours.items():
        if colour not in seen:
            problems.append(
                doc.problem(
                    ("start_finish", i, "colour"),
                    f"no trophy is {colour!r}: add one to 'trophies' (each start-finish colour has its trophy)",
                )
            )
    board = _board(doc, data, size, kinds, names, problems) if "board" in data else None
    if problems:
        raise SpecError(problems)
    return TileSet(
        name=data["name"],
        kinds=tuple(kinds),
        start_finish=tuple(starts[c] for c in CORNERS),
        trophies=tuple(trophies),
        pit_name=pit.get("name", "Pit stop"),
        pit_openings=pit_openings,
        size=size,
        tile_mm=float(data.get("tile_mm", DEFAULT_TILE_MM)),
        duplex=data.get("duplex", "long_edge"),
        house_set=data.get("house_set", False),
        board=board,
    )


def _board(
    doc: Document, data: dict, size: int, kinds: list[TileKind], names: dict[str, int], problems: list
) -> tuple[Placed, ...]:
    placed: list[Placed] = []
    where: dict[tuple[int, int], int] = {}
    centre = size // 2
    for i, raw in enumerate(data["board"]):
        base = ("board", i)
        row, column = raw["row"] - 1, raw["column"] - 1
        if raw["row"] > size:
            problems.append(doc.problem(base + ("row",), f"row {raw['row']} is off the {size}x{size} grid"))
            continue
        if raw["column"] > size:
            problems.append(doc.problem(base + ("column",), f"column {raw['column']} is off the {size}x{size} grid"))
            continue
        if (row, column) == (centre, centre):
            problems.append(doc.problem(base, f"row {raw['row']}, column {raw['column']} is the pit stop's place"))
            continue
        if (row, column) in where:
            problems.append(
                doc.problem(
                    base,
                    f"row {raw['row']}, column {raw['column']} is already board entry {where[(row, column)] + 1}'s",
                )
            )
            continue
        where[(row, column)] = i
        if raw["tile"] not in names:
            problems.append(
                doc.problem(base + ("tile",), f"unknown tile {raw['tile']!r}{_near(raw['tile'], list(names))}")
            )
            continue
        placed.append(
            Placed(row, column, names[raw["tile"]], raw.get("turn", 0) // 90, raw.get("face", "down") == "up")
        )
    if problems:
        return tuple(placed)
    laid = Counter(p.kind for p in placed)
    for k, kind in enumerate(kinds):
        if laid[k] != kind.count:
            problems.append(
                doc.problem(
                    ("board",),
                    f"the board lays {laid[k]} {kind.name!r} tile{'s' if laid[k] != 1 else ''}; the set has "
                    f"{kind.count}",
                    key=True,
                )
            )
    if not problems and len(placed) != size * size - 1:
        problems.append(
            doc.problem(
                ("board",), f"the board places {len(placed)} tiles; the grid has {size * size - 1} places", key=True
            )
        )
    return tuple(sorted(placed, key=lambda p: (p.row, p.column)))
