"""Rallyman specs: a track (kind `track`, the default) or a tile library (kind `tiles`), both
`game: rallyman` with `variant: gt` or `variant: dirt` (a library may leave it out: tiles for
either game). The format is described in docs/rallyman.md; in short::

    game: rallyman
    variant: dirt
    name: Col de Turini
    surface: gravel                # the default of every cell (asphalt)
    danger: orange                 # the default danger colour (yellow)
    library: tiles.yaml            # the tile library, relative to this file
    tiles:                         # tiles placed: tile coordinates and a rotation 0-5,
      - {id: st2, q: 0, r: 0, rotation: 0}   # reverse: true (driven the other way), tokens
    path:                          # the compact form (sheetgen.games.rallyman.compact)
      lanes: 2
      from: {q: 0, r: 0, heading: 0}
      segments: straight 4, corner right limit 3/4, straight 2
    cells:                         # explicit cells (anything tiles and paths cannot say)
      - {q: 9, r: 2, heading: 1, lane: 1, limit: 3, start: true}
    lines:                         # inside lines between neighbouring cells
      - {between: [[3, 0], [2, 1]], limit: 2}

A track gives at least one of `tiles`, `path` and `cells`; they add up, and a cell laid by two
of them is refused unless the explicit cell says `replace: true` (it then replaces the other).
A library::

    game: rallyman
    kind: tiles
    frame: standard                # or large (hexgrid.FRAMES: 7 spaces across); the default
    name: sheetgen original tiles
    tiles:
      - id: st2
        rekee: "102b"              # the id Rekee knows it by (optional)
        name: straight, 2 lanes
        surface: asphalt           # defaults of its cells
        danger: yellow
        cells:                     # in the tile's own frame (standard: within 2 of (0, 0))
          - {q: -2, r: 0, heading: 0, lane: 1}
        lines: [...]
      - {id: podium, scenery: true}   # a tile with no road: no cells
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

from sheetgen.errors import Problem, SpecError
from sheetgen.games.rallyman import compact
from sheetgen.games.rallyman import lanes as lanes_mod
from sheetgen.games.rallyman import tokens as tokens_mod
from sheetgen.games.rallyman.hexgrid import (
    DEFAULT_FRAME,
    DIRECTION_NAMES,
    FRAMES,
    LARGE,
    Hex,
    distance,
    frame_of,
    in_frame,
    place,
    tile_of,
)
from sheetgen.games.rallyman.model import (
    MAX_GEAR,
    MAX_LIMIT,
    MIN_GEAR,
    MIN_LIMIT,
    REKEE_ID,
    Cell,
    Danger,
    InsideLine,
    Library,
    Placement,
    Surface,
    TileDef,
    Token,
    Track,
    Variant,
    rekee_shaped,
)
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document, load_beside

KINDS = ("track", "tiles")
MAX_CELLS = compact.MAX_CELLS
MAX_TILES = 200
MAX_LIBRARY = 300
MAX_LINES = 500
MAX_COORD = 1000
MAX_LAPS = 10

_NAME = {"type": "string", "minLength": 1, "maxLength": 80, **TEXT}
_TILE_ID = {
    "type": "string",
    "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$",
    "description": "letters, digits, _ . and - (Rekee's ids such as 117a or 205a-2)",
}
_COORD = {"type": "integer", "minimum": -MAX_COORD, "maximum": MAX_COORD}
_DIR = {"type": "integer", "minimum": 0, "maximum": 5}
_LIMIT = {"type": "integer", "minimum": MIN_LIMIT, "maximum": MAX_LIMIT}
_GEAR = {"type": "integer", "minimum": MIN_GEAR, "maximum": MAX_GEAR}
_SURFACE = {"enum": [s.value for s in Surface]}
_DANGER = {
    "enum": [d.value for d in Danger],
    "description": "the tile's danger colour: yellow (low), orange (medium), red (high)",
}
_POINT = {"type": "array", "minItems": 2, "maxItems": 2, "items": _COORD, "description": "a cell: [q, r]"}

_CELL_PROPS: dict[str, Any] = {
    "q": _COORD,
    "r": _COORD,
    "heading": dict(
        _DIR, description="direction of travel: 0 east, 1 south-east, 2 south-west, 3 west, 4 north-west, 5 north-east"
    ),
    "lane": {
        "type": "integer",
        "minimum": 0,
        "maximum": 8,
        "description": "1 = leftmost lane in the direction of travel; 0 = a shortcut space",
    },
    "surface": _SURFACE,
    "danger": _DANGER,
    "limit": dict(_LIMIT, description="corner limit: the top gear on this space"),
    "caution": {"type": "boolean", "description": "the limit is printed in a caution triangle"},
    "start": {"type": "boolean", "description": "a starting space"},
    "finish": {"type": "boolean", "description": "a space beyond the finish line"},
    "pit": {"type": "boolean", "description": "GT: a pit-lane edge space"},
    "slide": {"type": "boolean", "description": "DIRT: a space of a slide zone"},
    "shortcut": dict(_LIMIT, description="DIRT: a shortcut space and its limit"),
    "jump": dict(_GEAR, description="DIRT: a jump and its gear"),
    "water": {"type": "boolean", "description": "DIRT: a water hazard"},
}
_CELL = {"type": "object", "additionalProperties": False, "required": ["q", "r", "heading"], "properties": _CELL_PROPS}
_TRACK_CELL = dict(
    _CELL,
    properties=dict(
        _CELL_PROPS, replace={"type": "boolean", "description": "replaces a cell a tile or the path lays there"}
    ),
)
_LINE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["between"],
    "properties": {
        "between": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": _POINT,
            "description": "the two neighbouring cells",
        },
        "limit": dict(_LIMIT, description="the top gear of a move between them"),
        "caution": {"type": "boolean", "description": "a move between them adds one caution"},
    },
}
#: a token's q, r (within its tile) and dir, as Rekee writes them: plain numbers, bounded so
#: that every one is a float
_TOKEN_NUMBER = {"type": "number", "minimum": -MAX_COORD, "maximum": MAX_COORD}
_TOKEN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "q", "r", "dir"],
    "description": (
        "a Rekee token: a chicane with limit, and in DIRT a jump, water or mud spray, is that feature of the track "
        "(ruling RM-17); any other is kept for the round trip"
    ),
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 60},
        "q": _TOKEN_NUMBER,
        "r": _TOKEN_NUMBER,
        "dir": _TOKEN_NUMBER,
    },
}
_SPACE_REF = {
    "type": "string",
    "pattern": lanes_mod.SPACE_REF,
    "description": "a space of the lane form: a lane's name and the space's number, as 'outside 3'",
}
_LANE_LINE = dict(
    _LINE,
    properties=dict(
        _LINE["properties"],
        between={
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": _SPACE_REF,
            "description": "lane form: the two spaces, as ['outside 3', 'inside 2']",
        },
    ),
)
_LANE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "spaces"],
    "properties": {
        "name": {"type": "string", "pattern": lanes_mod.LANE_NAME, "description": "the lane's name, as 'inside'"},
        "spaces": {
            "type": "array",
            "minItems": 1,
            "maxItems": lanes_mod.MAX_SPACES,
            "items": {"type": ["string", "integer"], "maxLength": 40},
            "description": f"its spaces in driving order, each in words: {lanes_mod.SPACE_WORDS}",
        },
        "into": dict(_SPACE_REF, description="the space of another lane this lane runs into (a merge)"),
        "begins": {
            "type": "integer",
            "minimum": 1,
            "maximum": lanes_mod.MAX_SPACES,
            "description": (
                "the lane's first space is this space of its row, counted from the side the road enters by "
                "(default 1: a start tile's lanes may begin on the tile)"
            ),
        },
    },
}
_PLACED = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "q", "r"],
    "properties": {
        "id": _TILE_ID,
        "q": _COORD,
        "r": _COORD,
        "rotation": dict(_DIR, description="clockwise turns of 60 degrees (Rekee's dir), default 0"),
        "reverse": {
            "type": "boolean",
            "description": "the tile driven the other way: its cells' direction of travel turned round (default false)",
        },
        "tokens": {"type": "array", "maxItems": 20, "items": _TOKEN},
    },
}
_PATH = {
    "type": "object",
    "additionalProperties": False,
    "required": ["segments"],
    "properties": {
        "lanes": {
            "type": "integer",
            "minimum": 1,
            "maximum": compact.MAX_LANES,
            "description": "lanes side by side (default 2)",
        },
        "from": {
            "type": "object",
            "additionalProperties": False,
            "required": ["q", "r", "heading"],
            "properties": {"q": _COORD, "r": _COORD, "heading": _DIR},
            "description": "lane 1's first cell and the direction of travel (default 0, 0, east)",
        },
        "segments": {
            "oneOf": [
                {"type": "string", "minLength": 1, "maxLength": 8000},
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": compact.MAX_SEGMENTS,
                    "items": {"type": "string", "minLength": 1, "maxLength": 200},
                },
            ],
            "description": "'straight 4, corner right limit 3/4, straight 2', or one segment per item",
        },
    },
}

TRACK_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rallyman track",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "variant", "name"],
    "properties": {
        "game": {"const": "rallyman"},
        "variant": {"enum": [v.value for v in Variant], "description": "gt (Rallyman GT) or dirt (Rallyman DIRT)"},
        "kind": {"const": "track"},
        "name": _NAME,
        "author": {"type": "string", "maxLength": 80},
        "laps": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LAPS,
            "description": "laps of a GT circuit (default 1; a DIRT stage is driven once: 1)",
        },
        "surface": _SURFACE,
        "danger": _DANGER,
        "library": {"type": "string", "minLength": 1, "description": "tile library file, relative to this file"},
        "tiles": {"type": "array", "minItems": 1, "maxItems": MAX_TILES, "items": _PLACED},
        "path": _PATH,
        "cells": {"type": "array", "minItems": 1, "maxItems": MAX_CELLS, "items": _TRACK_CELL},
        "lines": {"type": "array", "maxItems": MAX_LINES, "items": _LINE},
        # ruleset hook (rmdirt): the values of a user's own box (ruleset.to_mapping's shape)
        "ruleset": {
            "type": "object",
            "description": "values printed in your own box (time cards, dice...): ruleset.py's mapping",
        },
    },
}

_TILE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id"],
    "properties": {
        "id": _TILE_ID,
        "rekee": {
            "type": "string",
            "pattern": REKEE_ID,
            "description": (
                "the id Rekee knows the tile by (three digits, a or b for the side, -N for a variant: 102b, 106b-2), "
                "for import and export; a tile whose own id has that shape needs none"
            ),
        },
        "name": _NAME,
        "count": {
            "type": "integer",
            "minimum": 0,
            "maximum": 99,
            "description": (
                "copies of the tile in your box, for `generate` (the two faces of one tile, Rekee's 102a and 102b, "
                "share one count)"
            ),
        },
        "surface": _SURFACE,
        "danger": _DANGER,
        "scenery": {
            "type": "boolean",
            "description": "a tile with no road (a podium, a filler): no cells, laid as scenery, never driven",
        },
        "cells": {"type": "array", "minItems": 1, "maxItems": len(LARGE.cells), "items": _CELL},
        "lines": {"type": "array", "maxItems": 60, "items": {"anyOf": [_LINE, _LANE_LINE]}},
        "lanes": {
            "type": "array",
            "minItems": 1,
            "maxItems": lanes_mod.MAX_LANES,
            "items": _LANE,
            "description": (
                "the lane form (instead of cells): the lanes left to right as the road enters by the west side, "
                "each its spaces in driving order (ruling RM-24)"
            ),
        },
        "leave": {"enum": list(DIRECTION_NAMES), "description": "lane form: the side the lanes leave by"},
        "beside": {
            "type": "array",
            "maxItems": 60,
            "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": _SPACE_REF},
            "description": (
                "lane form: pairs of spaces of neighbouring lanes that touch across the lane line (without a pair for "
                "two lanes, their spaces at the same count touch)"
            ),
        },
    },
}

#: a tile as the loader checks it: its `rekee` a string, whose shape `_tile` checks (saying
#: what the shape is, where the schema's pattern says only that it does not match)
_TILE_LOADED = dict(
    _TILE,
    properties=dict(_TILE["properties"], rekee={"type": "string"}, lines={"type": "array", "maxItems": 60}),
)

TILES_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rallyman tile library",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "tiles"],
    "properties": {
        "game": {"const": "rallyman"},
        "kind": {"const": "tiles"},
        "variant": {"enum": [v.value for v in Variant], "description": "left out: tiles for either game"},
        "frame": {
            "enum": list(FRAMES),
            "description": (
                "the tiles' shape and lattice: standard (the default: 4 spaces across, tile (q, r) centred on cell "
                "(4q, 4r)) or large (7 across, on cell (7q, 7r))"
            ),
        },
        "name": _NAME,
        "tiles": {"type": "array", "minItems": 1, "maxItems": MAX_LIBRARY, "items": _TILE},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen Rallyman spec (a track, or a tile library with kind: tiles)",
    "oneOf": [TRACK_SCHEMA, TILES_SCHEMA],
}

_DANGER_ORDER = (Danger.YELLOW, Danger.ORANGE, Danger.RED)
_DIRT_ONLY = ("slide", "shortcut", "jump", "water")
_GT_ONLY = ("pit",)


def load(doc: Document) -> Track | Library:
    data = doc.data
    kind = data.get("kind", "track") if isinstance(data, dict) else "track"
    if kind not in KINDS:
        near = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f", did you mean {near[0]!r}?" if near else f" (one of: {', '.join(KINDS)})"
        raise SpecError([doc.problem(("kind",), f"unknown kind {kind!r}{hint}")])
    return load_library(doc) if kind == "tiles" else load_track(doc)


# --------------------------------------------------------------------------- cells


def _cell(raw: dict, surface: Surface, danger: Danger, hex_: Hex | None = None) -> Cell:
    return Cell(
        hex=hex_ if hex_ is not None else Hex(raw["q"], raw["r"]),
        heading=raw["heading"],
        lane=raw.get("lane", 1),
        surface=Surface(raw.get("surface", surface.value)),
        danger=Danger(raw.get("danger", danger.value)),
        limit=raw.get("limit"),
        caution=raw.get("caution", False),
        start=raw.get("start", False),
        finish=raw.get("finish", False),
        pit=raw.get("pit", False),
        slide=raw.get("slide", False),
        shortcut=raw.get("shortcut"),
        jump=raw.get("jump"),
        water=raw.get("water", False),
    )


def cell_problems(raw: dict, variant: Variant | None) -> list[tuple[tuple, str]]:
    """What a schema-valid cell says that cannot be: as (path within the cell, message)."""
    out: list[tuple[tuple, str]] = []
    if raw.get("caution") and "limit" not in raw:
        out.append((("caution",), "'caution' marks a corner limit: give the cell a 'limit'"))
    if "shortcut" in raw and raw.get("lane", 1) != 0:
        out.append(
            (("lane",) if "lane" in raw else ("shortcut",), "a shortcut space is off the road: give it 'lane: 0'")
        )
    if "shortcut" not in raw and raw.get("lane", 1) == 0:
        out.append((("lane",), "lane 0 is for shortcut spaces; a road lane is 1 or more"))
    if "shortcut" in raw and "limit" in raw:
        out.append((("limit",), "a shortcut space has its own limit ('shortcut: N'), not a corner limit"))
    if variant is Variant.GT:
        for key in _DIRT_ONLY:
            if raw.get(key) not in (None, False):
                out.append(((key,), f"{key!r} is a Rallyman DIRT feature; this is a GT track"))
    if variant is Variant.DIRT:
        for key in _GT_ONLY:
            if raw.get(key):
                out.append(((key,), f"{key!r} is a Rallyman GT feature; this is a DIRT track"))
    if raw.get("pit") and "limit" in raw:
        out.append((("pit",), "a pit-lane edge space is not a corner space (it has a limit)"))
    return out


def _line(raw: dict) -> InsideLine:
    (a, b) = raw["between"]
    return InsideLine(Hex(*a), Hex(*b), raw.get("limit"), raw.get("caution", False))


def _line_problems(raw: dict) -> list[tuple[tuple, str]]:
    a, b = (Hex(*p) for p in raw["between"])
    out = []
    if distance(a, b) != 1:
        out.append(
            (("between",), f"an inside line runs between neighbouring cells; {a} and {b} are {distance(a, b)} apart")
        )
    if "limit" not in raw and not raw.get("caution"):
        out.append((("between",), "an inside line has a 'limit' or 'caution: true' (or both)"))
    return out


# --------------------------------------------------------------------------- library


def load_library(doc: Document) -> Library:
    data = doc.data
    outline = dict(
        TILES_SCHEMA,
        properties=dict(TILES_SCHEMA["properties"], tiles={"type": "array", "minItems": 1, "maxItems": MAX_LIBRARY}),
    )
    problems = check(doc, outline)
    variant = Variant(data["variant"]) if data.get("variant") in {v.value for v in Variant} else None
    frame = data["frame"] if data.get("frame") in FRAMES else DEFAULT_FRAME
    ids: dict[str, int] = {}
    rekee_ids: dict[str, tuple[int, str]] = {}  # Rekee's id -> (index, id) of the tile it stands for
    counted: dict[str, tuple[int, str]] = {}  # a physical tile -> (count, id) of its face counted first
    tiles = []
    for i, raw in enumerate(data.get("tiles") if isinstance(data.get("tiles"), list) else []):
        base = ("tiles", i)
        found = check(doc, _TILE_LOADED, raw, base)
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            if raw["id"] in ids:
                problems.append(
                    doc.problem(base + ("id",), f"duplicate tile id {raw['id']!r} (also tile {ids[raw['id']] + 1})")
                )
            else:
                ids[raw["id"]] = i
        if not found:
            found, tile = _tile(doc, raw, base, variant, frame)
            if tile is not None:
                tiles.append(tile)
                stands = tile.rekee_id
                if stands is not None and stands in rekee_ids:
                    other_index, other = rekee_ids[stands]
                    problems.append(
                        doc.problem(
                            base + (("rekee",) if "rekee" in raw else ("id",)),
                            f"tile {tile.id!r} stands for Rekee's tile {stands!r}"
                            f"{' (its own id)' if tile.rekee is None else ''}, as tile {other!r} (tile "
                            f"{other_index + 1}) does: a Rekee id names one tile of the library",
                        )
                    )
                elif stands is not None:
                    rekee_ids[stands] = (i, tile.id)
                if tile.count is not None:
                    # the two faces of one tile (Rekee's 102a and 102b) are one tile in the box
                    physical = stands[:3] if stands is not None else tile.id
                    if physical in counted and counted[physical][0] != tile.count:
                        problems.append(
                            doc.problem(
                                base + ("count",),
                                f"tile {tile.id!r} is a face of tile {physical}, which tile {counted[physical][1]!r} "
                                f"counts {counted[physical][0]}: the two faces of one tile share one count",
                            )
                        )
                    counted.setdefault(physical, (tile.count, tile.id))
        problems.extend(found)
    if problems:
        raise SpecError(problems)
    return Library(data["name"], variant, tuple(tiles), frame)


def _off_tile(h: Hex, frame: str) -> str:
    if frame == DEFAULT_FRAME:
        return f"cell {h} is off the tile: a tile's cells are within 2 steps of its centre (0, 0)"
    shape = frame_of(frame)
    far = sum(1 for c in shape.cells if distance(c) == shape.reach)
    return (
        f"cell {h} is off the tile: a {frame} tile's cells are the {len(shape.cells)} within its outline or cut by it, "
        f"every cell within {shape.reach - 1} steps of its centre (0, 0) and {far} of those at {shape.reach}"
    )


def _tile(
    doc: Document, raw: dict, base: tuple, variant: Variant | None, frame: str = DEFAULT_FRAME
) -> tuple[list[Problem], TileDef | None]:
    surface = Surface(raw.get("surface", "asphalt"))
    danger = Danger(raw.get("danger", "yellow"))
    problems: list[Problem] = []
    if "rekee" in raw and not rekee_shaped(raw["rekee"]):
        problems.append(
            doc.problem(
                base + ("rekee",),
                f"'rekee' is not a tile id as Rekee writes it: {raw['rekee']!r} (three digits, then a or b for the "
                "side, then -N for a variant: as 102b or 106b-2; the pit-stop tile 101 has no side)",
            )
        )
    if raw.get("scenery"):
        for key in ("cells", "lanes", "leave", "beside", "lines", "surface", "danger"):
            if key in raw:
                problems.append(
                    doc.problem(
                        base + (key,),
                        f"tile {raw['id']!r} is scenery (a tile with no road: 'scenery: true'): it has no {key!r}",
                    )
                )
        if problems:
            return problems, None
        return [], TileDef(
            raw["id"], raw.get("name", raw["id"]), (), (), raw.get("rekee"), scenery=True, count=raw.get("count")
        )
    lane_keys = [key for key in ("leave", "beside") if key in raw]
    if "lanes" in raw and "cells" in raw:
        problems.append(
            doc.problem(
                base + ("lanes",),
                f"tile {raw['id']!r} gives both 'cells' and 'lanes': write it in one form (hex cells, or lanes)",
            )
        )
        return problems, None
    if "lanes" not in raw and lane_keys:
        problems.append(
            doc.problem(
                base + (lane_keys[0],),
                f"{lane_keys[0]!r} is a key of the lane form: give the tile's 'lanes' (or leave it out with 'cells')",
            )
        )
        return problems, None
    if "cells" not in raw and "lanes" not in raw:
        problems.append(
            doc.problem(
                base,
                f"tile {raw['id']!r} has no 'cells': give its spaces (as hex cells, or in the lane form: 'lanes'), or "
                "say 'scenery: true' for a tile with no road (a podium, a filler)",
            )
        )
        return problems, None
    line_schema = _LANE_LINE if "lanes" in raw else _LINE
    for j, line in enumerate(raw.get("lines", ())):
        problems.extend(check(doc, line_schema, line, base + ("lines", j)))
    if problems:
        return problems, None
    entries: list[tuple[dict, tuple]]
    raw_lines: list
    names: tuple[str, ...] = ()
    if "lanes" in raw:
        laid, found = lanes_mod.lay(raw, base, frame)
        if laid is None:
            return [doc.problem(p, m) for p, m in found], None
        entries, raw_lines, names = list(laid.cells), list(laid.lines), laid.names
    else:
        entries = [(c, base + ("cells", j)) for j, c in enumerate(raw["cells"])]
        raw_lines = list(raw.get("lines", ()))
    cells: dict[Hex, Cell] = {}
    for c, here in entries:
        h = Hex(c["q"], c["r"])
        if not in_frame(h, frame):
            problems.append(doc.problem(here, _off_tile(h, frame)))
            continue
        if h in cells:
            problems.append(doc.problem(here, f"cell {h} is given twice in tile {raw['id']!r}"))
            continue
        found_cell = cell_problems(c, variant)
        if names:  # the lane form says a space's marks in words: the problem is at the space
            problems.extend(doc.problem(here, f"{_space_name(here, names)}: {m}") for _p, m in found_cell)
        else:
            problems.extend(doc.problem(here + p, m) for p, m in found_cell)
        cells[h] = _cell(c, surface, danger)
    lines = []
    given: dict[frozenset, int] = {}
    for j, line in enumerate(raw_lines):
        here = base + ("lines", j)
        found = _line_problems(line)
        problems.extend(doc.problem(here + p, m) for p, m in found)
        if not found:
            parsed = _line(line)
            missing = [p for p in (parsed.a, parsed.b) if p not in cells]
            pair = frozenset((parsed.a, parsed.b))
            if missing:
                problems.append(
                    doc.problem(
                        here + ("between",), f"an inside line joins two cells of the tile; {missing[0]} is not one"
                    )
                )
            elif pair in given:
                problems.append(
                    doc.problem(
                        here,
                        f"an inside line between {parsed.a} and {parsed.b} is given twice in tile {raw['id']!r} (also "
                        f"its line {given[pair] + 1})",
                    )
                )
            given.setdefault(pair, j)
            lines.append(parsed)
    if problems:
        return problems, None
    return [], TileDef(
        raw["id"],
        raw.get("name", raw["id"]),
        tuple(cells.values()),
        tuple(lines),
        raw.get("rekee"),
        count=raw.get("count"),
        lane_names=names,
    )


def _space_name(path: tuple, names: tuple[str, ...]) -> str:
    """'space J of lane NAME' for the path (..., 'lanes', k, 'spaces', j) of a lane-form space."""
    return f"space {path[-1] + 1} of lane {names[path[-3]]!r}"


# --------------------------------------------------------------------------- track


def load_track(doc: Document) -> Track:
    data = doc.data
    outline = dict(
        TRACK_SCHEMA,
        properties=dict(
            TRACK_SCHEMA["properties"],
            tiles={"type": "array", "minItems": 1, "maxItems": MAX_TILES},
            cells={"type": "array", "minItems": 1, "maxItems": MAX_CELLS},
            lines={"type": "array", "maxItems": MAX_LINES},
        ),
    )
    problems = check(doc, outline)
    if problems:
        raise SpecError(problems)
    variant = Variant(data["variant"])
    surface = Surface(data.get("surface", "asphalt"))
    danger = Danger(data.get("danger", "yellow"))
    if variant is Variant.DIRT and data.get("laps", 1) != 1:
        problems.append(
            doc.problem(
                ("laps",),
                "a Rallyman DIRT stage is driven once, from its start to its finish: 'laps' must be 1 on a DIRT "
                f"track, got {data['laps']}",
            )
        )
    if not any(key in data for key in ("tiles", "path", "cells")):
        raise SpecError([*problems, doc.problem((), "a track needs 'tiles', 'path' or 'cells' (or several of them)")])
    laid: dict[Hex, Cell] = {}
    origin: dict[Hex, tuple[str, tuple]] = {}  # what laid each cell, and where the spec says so
    lines: list[InsideLine] = []
    placements: list[Placement] = []

    # tiles placed from a library
    if "tiles" in data:
        placed, found = _place_tiles(doc, data, variant)
        problems.extend(found)
        for index, (placement, where) in enumerate(placed):
            cells = []
            overlapped = False  # (one line per tile, at its first cell over another's)
            for cell in placement.cells:
                cell = replace(cell, tile=index)
                previous = laid.get(cell.hex)
                if previous is not None:
                    other = origin[cell.hex]
                    owners = set(tile_of(cell.hex, placement.frame))
                    if (
                        previous.tile is not None  # (every cell laid so far is a tile's)
                        and (placement.q, placement.r) in owners
                        and _pos(placements, previous.tile) in owners
                    ):
                        # RM-2: a half cell is as dangerous as the more dangerous of its tiles,
                        # and has the surface and lane number of the tile listed first (lane
                        # counts that differ are the tile edge check's to report)
                        danger = max(previous.danger, cell.danger, key=_DANGER_ORDER.index)
                        mine = replace(
                            cell,
                            tile=previous.tile,
                            danger=previous.danger,
                            surface=previous.surface,
                            lane=previous.lane,
                        )
                        if mine == previous and danger is not previous.danger:
                            laid[cell.hex] = replace(previous, danger=danger)
                            owner = placements[previous.tile]
                            placements[previous.tile] = replace(
                                owner, cells=tuple(laid[cell.hex] if c.hex == cell.hex else c for c in owner.cells)
                            )
                        if mine != previous:
                            problems.append(
                                doc.problem(
                                    where,
                                    f"tile {placement.tile!r} at ({placement.q}, {placement.r}) and {other[0]} "
                                    f"disagree on their shared half cell {cell.hex} ({_differences(previous, mine)})",
                                )
                            )
                        cells.append(
                            replace(
                                cell,
                                danger=laid[cell.hex].danger,
                                surface=laid[cell.hex].surface,
                                lane=laid[cell.hex].lane,
                            )
                        )
                        continue
                    if not overlapped:
                        problems.append(
                            doc.problem(
                                where,
                                f"tile {placement.tile!r} at ({placement.q}, {placement.r}) overlaps {other[0]} on "
                                f"cell {cell.hex}",
                            )
                        )
                    overlapped = True
                    continue
                laid[cell.hex] = cell
                origin[cell.hex] = (f"tile {placement.tile!r} at ({placement.q}, {placement.r})", where)
                cells.append(cell)
            placements.append(replace(placement, cells=tuple(cells)))
            lines.extend(placement.lines)
        problems.extend(_apply_tokens(doc, variant, placements, [where for _p, where in placed], laid))

    # the compact form
    path_cells: tuple[Cell, ...] = ()
    if "path" in data:
        path_cells, path_wheres, found = _path_cells(doc, data["path"], surface, danger, variant)
        problems.extend(found)
        over = [(cell, at) for cell, at in zip(path_cells, path_wheres) if cell.hex in laid]
        if over:
            more = f" (and {len(over) - 1} more cells)" if len(over) > 1 else ""
            first, at = over[0]
            problems.append(
                doc.problem(at, f"the path lays cell {first.hex}, which {origin[first.hex][0]} lays too{more}")
            )
        for cell in path_cells:
            if cell.hex in laid:
                continue
            laid[cell.hex] = cell
            origin[cell.hex] = ("the path", ("path",))

    # explicit cells
    for j, raw in enumerate(data.get("cells", ())):
        here = ("cells", j)
        found = check(doc, _TRACK_CELL, raw, here)
        if not found:
            found = [doc.problem(here + p, m) for p, m in cell_problems(raw, variant)]
        if found:
            problems.extend(found)
            continue
        cell = _cell(raw, surface, danger)
        previous = laid.get(cell.hex)
        if previous is not None and origin[cell.hex][0].startswith("cell "):
            problems.append(doc.problem(here, f"cell {cell.hex} is given twice (also {origin[cell.hex][0]})"))
            continue
        if previous is not None and not raw.get("replace"):
            problems.append(
                doc.problem(
                    here, f"cell {cell.hex} is laid by {origin[cell.hex][0]} already; say 'replace: true' to replace it"
                )
            )
            continue
        if previous is None and raw.get("replace"):
            problems.append(doc.problem(here + ("replace",), f"'replace: true' but nothing else lays cell {cell.hex}"))
            continue
        if previous is not None:
            cell = replace(cell, tile=previous.tile)
            for i, p in enumerate(placements):  # both tiles of a half cell
                if any(c.hex == cell.hex for c in p.cells):
                    placements[i] = replace(
                        p, cells=tuple(replace(cell, tile=i) if c.hex == cell.hex else c for c in p.cells)
                    )
        laid[cell.hex] = cell
        origin[cell.hex] = (f"cell {j + 1} of 'cells'", here)

    # inside lines
    given: dict[frozenset, int] = {}
    for j, raw in enumerate(data.get("lines", ())):
        here = ("lines", j)
        found = check(doc, _LINE, raw, here)
        if not found:
            found = [doc.problem(here + p, m) for p, m in _line_problems(raw)]
        if not found:
            line = _line(raw)
            missing = [p for p in (line.a, line.b) if p not in laid]
            pair = frozenset((line.a, line.b))
            if missing:
                found = [
                    doc.problem(
                        here + ("between",),
                        f"an inside line runs between two cells of the track; {missing[0]} is not one",
                    )
                ]
            elif pair in given:
                found = [
                    doc.problem(
                        here,
                        f"an inside line between {line.a} and {line.b} is given twice (also line {given[pair] + 1} of "
                        "'lines')",
                    )
                ]
            else:
                given[pair] = j
                lines.append(line)
        problems.extend(found)

    if not problems and len(laid) > MAX_CELLS:
        problems.append(
            doc.problem(_first_form(data), f"the track has {len(laid)} cells: a track holds at most {MAX_CELLS}")
        )
    ruleset = None
    if "ruleset" in data:  # ruleset hook (rmdirt): a user's own values, located problems
        from sheetgen.games.rallyman.ruleset import (
            RulesetError,
            located,
            ruleset_from_mapping,
        )

        try:
            ruleset = ruleset_from_mapping(data["ruleset"], variant.value)
        except RulesetError as exc:
            problems.extend(located(doc, ("ruleset",), exc))
    if problems:
        raise SpecError(problems)
    cells = _mark_path_ends(list(laid.values()), path_cells)
    return Track(
        name=data["name"],
        variant=variant,
        cells=tuple(cells),
        lines=tuple(lines),
        placements=tuple(placements),
        laps=data.get("laps", 1),
        author=data.get("author", ""),
        library=data.get("library"),
        ruleset=ruleset,
    )


def _apply_tokens(
    doc: Document, variant: Variant, placements: list[Placement], wheres: list[tuple], laid: dict[Hex, Cell]
) -> list[Problem]:
    """The tokens a rulebook gives a rule, made features of the cells laid (ruling RM-17): a
    road token's onto the spaces it lies on (`Token.cells`), then every mud spray onto the
    corner spaces of its tile. A cell changes in `laid` and in every placement that lays it
    (both tiles of a half cell). The problems: a limit on a pit-lane edge space, mud taking a
    limit below 1."""
    problems: list[Problem] = []

    def put(cell: Cell) -> None:
        laid[cell.hex] = cell
        for i, p in enumerate(placements):
            if any(c.hex == cell.hex for c in p.cells):
                kept = tuple(replace(cell, tile=c.tile) if c.hex == cell.hex else c for c in p.cells)
                placements[i] = replace(p, cells=kept)

    for mud in (False, True):
        for i, p in enumerate(placements):
            for j, token in enumerate(p.tokens):
                found = tokens_mod.rule(token.id, variant)
                if found is None or (found.feature == "mud") != mud:
                    continue
                here = wheres[i] + ("tokens", j)
                if mud:
                    for c in p.cells:
                        cell = laid[c.hex]
                        if cell.limit is None:
                            continue
                        if cell.limit + (found.value or 0) < MIN_LIMIT:
                            problems.append(
                                doc.problem(
                                    here,
                                    f"token {token.id!r} lowers every corner limit of tile {p.tile!r} by 1, and the "
                                    f"limit {cell.limit} of cell {cell.hex} would go below {MIN_LIMIT}: a space no "
                                    "gear may enter (lay it on a tile whose corner limits are all 2 or more)",
                                )
                            )
                            continue
                        put(replace(cell, limit=cell.limit + (found.value or 0)))
                    continue
                for h in token.cells:
                    cell = laid[h]
                    if found.feature == "limit":
                        if cell.pit:
                            problems.append(
                                doc.problem(
                                    here,
                                    f"token {token.id!r} ({found.effect}) lies on cell {h}, a pit-lane edge space, "
                                    "which is never a corner space",
                                )
                            )
                            continue
                        value = found.value if found.value is not None else MAX_LIMIT
                        put(replace(cell, limit=min(cell.limit if cell.limit is not None else MAX_LIMIT, value)))
                    elif found.feature == "jump":
                        put(replace(cell, jump=found.value))
                    elif found.feature == "water":
                        put(replace(cell, water=True))
    return problems


def _first_form(data: dict) -> tuple:
    return next(((key,) for key in ("tiles", "path", "cells") if key in data), ())


def _pos(placements: list[Placement], index: int | None) -> tuple[int, int] | None:
    if index is None:
        return None
    return (placements[index].q, placements[index].r)


def _differences(a: Cell, b: Cell) -> str:
    names = [name for name in Cell.__dataclass_fields__ if getattr(a, name) != getattr(b, name)]
    return ", ".join(f"{name} {_shown(getattr(a, name))} and {_shown(getattr(b, name))}" for name in names)


def _shown(value: Any) -> str:
    return repr(value.value) if hasattr(value, "value") else repr(value)


def _place_tiles(doc: Document, data: dict, variant: Variant) -> tuple[list[tuple[Placement, tuple]], list[Problem]]:
    if "library" not in data:
        return [], [
            doc.problem(
                ("tiles",),
                key=True,
                message="tiles are placed from a library: give 'library: FILE' (a file of kind: tiles)",
            )
        ]
    library, problems = library_beside(doc, ("library",), data["library"])
    if library is None:
        return [], problems
    if library.variant is not None and library.variant is not variant:
        return [], [
            doc.problem(
                ("library",),
                f"{data['library']!r} is a library of {library.variant.value.upper()} tiles; this is a "
                f"{variant.value.upper()} track",
            )
        ]
    placed = []
    seen: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(data["tiles"]):
        here = ("tiles", i)
        found = check(doc, _PLACED, raw, here)
        if found:
            problems.extend(found)
            continue
        tile = library.get(raw["id"])
        if tile is None:
            problems.append(
                doc.problem(
                    here + ("id",),
                    f"tile {raw['id']!r} is not in the library {data['library']!r}{_near(raw['id'], library)}",
                )
            )
            continue
        pos = (raw["q"], raw["r"])
        if pos in seen:
            problems.append(
                doc.problem(here, f"two tiles at ({pos[0]}, {pos[1]}): tile {seen[pos] + 1} is there already")
            )
            continue
        seen[pos] = i
        rotation = raw.get("rotation", 0)
        reverse = raw.get("reverse", False)
        frame = library.frame
        if reverse and tile.scenery:
            problems.append(
                doc.problem(
                    here + ("reverse",),
                    f"tile {tile.id!r} is scenery (no road): there is no direction of travel to turn round",
                )
            )
            continue
        driven = driven_cells(tile, reverse)
        cells = tuple(
            replace(c, hex=place(c.hex, pos[0], pos[1], rotation, frame), heading=(c.heading + rotation) % 6)
            for c in driven
        )
        if variant is Variant.GT:
            dirt = next(
                (c for c in tile.cells if c.slide or c.shortcut is not None or c.jump is not None or c.water), None
            )
            if dirt is not None:
                problems.append(
                    doc.problem(
                        here + ("id",),
                        f"tile {tile.id!r} has DIRT spaces ({', '.join(dirt.marks())} at {dirt.hex}); this is a GT "
                        "track",
                    )
                )
                continue
        lines = tuple(
            InsideLine(
                place(line.a, pos[0], pos[1], rotation, frame),
                place(line.b, pos[0], pos[1], rotation, frame),
                line.limit,
                line.caution,
            )
            for line in tile.lines
        )
        tokens = []
        for j, t in enumerate(raw.get("tokens", ())):
            token = Token(t["id"], float(t["q"]), float(t["r"]), float(t["dir"]))
            kind = tokens_mod.rule(token.id, variant)
            if kind is None:
                tokens.append(token)
                continue
            marked: tuple[Hex, ...] = ()
            if kind.road:
                span = frame_of(frame).span
                on = tokens_mod.road_cells(token, driven, span)
                if not on:
                    x, y = tokens_mod.centre_in_frame(token, span)
                    problems.append(
                        doc.problem(
                            here + ("tokens", j),
                            f"token {token.id!r} ({kind.effect}) at q {token.q:g}, r {token.r:g} of tile {tile.id!r} "
                            f"lies on no space of its road: its centre is the point ({x:.2f}, {y:.2f}) of the tile's "
                            "frame, and no lane has a space within a cell of its picture (ruling RM-17)",
                        )
                    )
                    continue
                marked = tuple(place(c.hex, pos[0], pos[1], rotation, frame) for c in on)
            tokens.append(replace(token, effect=kind.effect, cells=marked))
        placed.append(
            (
                Placement(
                    tile.id,
                    pos[0],
                    pos[1],
                    rotation,
                    cells,
                    lines,
                    tuple(tokens),
                    frame,
                    tile.rekee_id,
                    reverse,
                    tile.scenery,
                    tile.lane_names[::-1] if reverse else tile.lane_names,
                ),
                here,
            )
        )
    return placed, problems


def driven_cells(tile: TileDef, reverse: bool) -> tuple[Cell, ...]:
    """The cells of `tile` in its own frame as it is driven: as the library gives them, or,
    `reverse`, the other way (ruling RM-18): every heading turned round and the lanes numbered
    from the other side (the tile's lane n of N is lane N + 1 - n; a shortcut space stays
    lane 0); every mark stays on its space."""
    if not reverse:
        return tile.cells
    lanes = tile.lanes
    return tuple(
        replace(c, heading=(c.heading + 3) % 6, lane=lanes + 1 - c.lane if c.lane >= 1 else c.lane) for c in tile.cells
    )


def _near(tile_id: str, library: Library) -> str:
    near = difflib.get_close_matches(tile_id, [t.id for t in library.tiles], n=1)
    return f", did you mean {near[0]!r}?" if near else ""


def library_beside(doc: Document, where: tuple, name: str) -> tuple[Library | None, list[Problem]]:
    """The tile library `name` (relative to `doc`), read with load_beside so that it counts as
    an input; problems of the library are its own FILE:LINE:COL lines, and a file that is not
    a library, or that cannot be read (missing, a folder), is refused at `where`."""
    try:
        other = load_beside(doc, name, where)
    except SpecError as exc:
        if len(exc.problems) == 1 and exc.problems[0].message.startswith(("cannot read file", "is a directory")):
            return None, [doc.problem(where, f"library {name!r}: {exc.problems[0].message}")]
        return None, list(exc.problems)
    data = other.data
    if not isinstance(data, dict) or data.get("game") != "rallyman" or data.get("kind") != "tiles":
        return None, [
            doc.problem(where, f"{name!r} is not a Rallyman tile library (a file with game: rallyman and kind: tiles)")
        ]
    try:
        return load_library(other), []
    except SpecError as exc:
        return None, list(exc.problems)


def _segment_marks(segment: compact.Segment) -> dict:
    """What a segment marks its cells with, as an explicit cell would say it (for cell_problems)."""
    marks: dict[str, Any] = {key: True for key in ("pit", "slide", "water") if getattr(segment, key)}
    if segment.jump is not None:
        marks["jump"] = segment.jump
    if segment.kind == "corner":
        marks["limit"] = segment.limits[0]
    return marks


def _path_cells(
    doc: Document, raw: dict, surface: Surface, danger: Danger, variant: Variant
) -> tuple[tuple[Cell, ...], tuple[tuple, ...], list[Problem]]:
    """The cells the path lays, where each one's segment is written (a list item, or the
    segments' string), and the path's problems, each at the segment it names."""
    segments = raw["segments"]
    texts: list[tuple[str, tuple]] = []
    if isinstance(segments, str):
        texts = [(text, ("path", "segments")) for text in compact.split_segments(segments)]
    else:
        texts = [(text, ("path", "segments", i)) for i, text in enumerate(segments)]
    if len(texts) > compact.MAX_SEGMENTS:
        return (
            (),
            (),
            [
                doc.problem(
                    ("path", "segments"), f"a path has at most {compact.MAX_SEGMENTS} segments, got {len(texts)}"
                )
            ],
        )
    parsed, problems = [], []
    for number, (text, where) in enumerate(texts, 1):
        try:
            segment = compact.parse_segment(text)
        except compact.PathError as exc:
            problems.append(doc.problem(where, f"path segment {number}: {exc}"))
            continue
        # the checks of an explicit cell, for the cells the segment lays (its marks)
        problems.extend(
            doc.problem(where, f"path segment {number}: {text.strip()!r}: {m}")
            for _p, m in cell_problems(_segment_marks(segment), variant)
        )
        parsed.append(segment)
    if problems:
        return (), (), problems
    start = raw.get("from", {"q": 0, "r": 0, "heading": 0})
    try:
        cells, numbers = compact.lay_out_numbered(
            Hex(start["q"], start["r"]), start["heading"], raw.get("lanes", 2), parsed, surface, danger
        )
    except compact.PathError as exc:
        where = texts[exc.segment - 1][1] if exc.segment is not None else ("path", "segments")
        return (), (), [doc.problem(where, f"path: {exc}")]
    return cells, tuple(texts[n - 1][1] for n in numbers), []


def _mark_path_ends(cells: list[Cell], path_cells: tuple[Cell, ...]) -> list[Cell]:
    """The path's first cell in every lane starts, and its last one finishes, unless some
    cell of the track is marked start (or finish) already (ruling RM-9)."""
    if not path_cells:
        return cells
    first: dict[int, Hex] = {}
    last: dict[int, Hex] = {}
    for c in path_cells:
        first.setdefault(c.lane, c.hex)
        last[c.lane] = c.hex
    mark_start = not any(c.start for c in cells)
    mark_finish = not any(c.finish for c in cells)
    starts = set(first.values()) if mark_start else set()
    ends = set(last.values()) if mark_finish else set()
    return [replace(c, start=c.start or c.hex in starts, finish=c.finish or c.hex in ends) for c in cells]
