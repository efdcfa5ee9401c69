"""Rekee's track files, read (`sheetgen import rekee`) and written (`sheetgen export rekee`).

Rekee (a web editor of Rallyman tracks) reads two kinds of file, both JSON, and so does
sheetgen, telling them apart by what they hold (never by the file's name):

- its own JSON::

    {"title": "Short Track", "author": "Me",
     "tiles": [{"q": 0, "r": 1, "id": "102b", "dir": 0},
               {"q": 1, "r": 1, "id": "106b-2", "dir": 2,
                "tokens": [{"id": "water-gravel", "q": 0.33, "r": 0.0, "dir": 3.0}]}]}

- RGT, the files of the old Windows "Rallyman GT Track Editor", which Rekee saves::

    {"Path": "C:\\\\...", "Name": "Short Track", "Author": "Me",
     "Tuiles": [{"X": 54, "Y": 53, "Orientation": 0, "TuileId": "102b"},
                {"X": 53, "Y": 53, "Orientation": 2, "TuileId": "106B-2",
                 "Tokens": [{"X": -0.5715768, "Y": 0.0, "Orientation": 180.0, "TokenId": "dirt3"}]}],
     "lowResWidth": 2480, "lowResHeight": 1748}

A file with `Tuiles` (or, without `tiles`, another of RGT's keys) is RGT.

Rekee's `q`, `r` are a tile's axial coordinates on Rekee's pointy-top tile grid, the tile
coordinates of sheetgen's tracks (hexgrid: the tile at (q, r) is centred on cell (4q, 4r),
or (7q, 7r) for a library of the large frame: the frame is the library's, not the file's);
`dir` is the tile's rotation, clockwise in steps of 60 degrees from the tile as printed, the
rotation of a placed tile. RGT's `X`, `Y` are offset coordinates (odd rows shifted), turned
into `q`, `r` as Rekee turns them (`from_offset`), and its `Orientation` is `dir`. RGT's
tokens are placed in pixels of a unit hexagon with x mirrored and turned in degrees; they are
turned into Rekee's fractional `q`, `r` and `dir` with Rekee's single-precision arithmetic
(each number the one of fewest digits that Rekee writes back as the file's: `token_from_rgt`),
and their ids (`dirt3`) into Rekee's (`water-gravel`), so that a track's RGT and its JSON
import to the same spec (but for a place whose JSON has more digits than its pixel needs),
and an RGT Rekee wrote exports again digit for digit.

Rekee knows no cells: the cells come from the tile library given with `--tiles`, which says
what each tile id holds (a user writes the tiles of their own box; sheetgen ships none of
the publisher's). Rekee's ids are three digits, a side (a or b) and a variant (102b, 106b-2;
`model.REKEE_ID`): a library tile stands for the Rekee id its `rekee:` key names, or for its
own id when that has Rekee's shape. An id in a file is read as Rekee reads it (any case,
its aliases `filler1a`... and `podium`, the library's scenery tiles; RGT's `101a` is `101`).
Tokens (chicanes, jumps, water...) are kept as Rekee writes them, for the round trip; those a
rulebook gives a rule change the track when it is loaded (`tokens`, ruling RM-17), the others
are said as warnings at their place in the file. Rekee's tiles have no direction of travel:
a tile the track connects through only when driven the other way is imported `reverse: true`
(`graph.choose_reversals`, ruling RM-18), and an export writes it as laid, saying so. The
editor's own state (`active_pos`, `active_dir`, RGT's
`Path`, `lowResWidth`, `lowResHeight`) is not kept. Any other key (at the top, in a tile or
in a token) is refused at its place in the file: sheetgen would lose it.

A circuit (its finish leads back to its start, `graph.circuit_finish`) is imported with the
laps `--laps` gives, and refused without them: Rekee's files have no place for laps.

A track imported and exported gives the same file data: title, author, and every tile's id,
place, turn and tokens, in order.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sheetgen.errors import Location, Omitted, OptionError, Problem, SpecError
from sheetgen.games.rallyman.model import Token, Track, Variant
from sheetgen.games.rallyman.tokens import parse as parse_token
from sheetgen.games.rallyman.tokens import unruled
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document, load_file, load_text, path_from

_NUMBER = {"type": "number", "minimum": -1000, "maximum": 1000}  # (a float: the bounds of spec.py's tokens)
_ID = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"}
#: RGT's tile coordinates: wide enough for every tile coordinate a track holds (-1000 to 1000)
_OFFSET = {"type": "integer", "minimum": -3000, "maximum": 3000}
_EDITOR: dict[str, Any] = {}  # the editor's own state: accepted, not kept
REKEE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tiles"],
    "properties": {
        "title": {"type": "string", "maxLength": 80},
        "author": {"type": "string", "maxLength": 80},
        "active_pos": _EDITOR,
        "active_dir": _EDITOR,
        "tiles": {
            "type": "array",
            "minItems": 1,
            "maxItems": 200,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["q", "r", "id", "dir"],
                "properties": {
                    "q": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "r": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "id": _ID,
                    "dir": {"type": "integer", "minimum": 0, "maximum": 5},
                    "tokens": {
                        "type": "array",
                        "maxItems": 20,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["id", "q", "r", "dir"],
                            "properties": {
                                "id": {"type": "string", "minLength": 1, "maxLength": 60},
                                "q": _NUMBER,
                                "r": _NUMBER,
                                "dir": _NUMBER,
                            },
                        },
                    },
                },
            },
        },
    },
}
RGT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["Tuiles"],
    "properties": {
        "Path": _EDITOR,
        "Name": {"type": "string", "maxLength": 80},
        "Author": {"type": "string", "maxLength": 80},
        "lowResWidth": _EDITOR,
        "lowResHeight": _EDITOR,
        "Tuiles": {
            "type": "array",
            "minItems": 1,
            "maxItems": 200,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["X", "Y", "Orientation", "TuileId"],
                "properties": {
                    "X": _OFFSET,
                    "Y": _OFFSET,
                    "Orientation": {"type": "integer", "minimum": 0, "maximum": 5},
                    "TuileId": _ID,
                    "Tokens": {
                        "type": "array",
                        "maxItems": 20,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["X", "Y", "Orientation", "TokenId"],
                            "properties": {
                                "X": _NUMBER,
                                "Y": _NUMBER,
                                "Orientation": _NUMBER,
                                "TokenId": {"type": "string", "minLength": 1, "maxLength": 60},
                            },
                        },
                    },
                },
            },
        },
    },
}
_SCHEMAS = {"json": REKEE_SCHEMA, "rgt": RGT_SCHEMA}

#: the keys of each format, by the spec's key they become: at the top, in a tile, in a token
_KEYS = {
    "json": (
        {"name": "title", "author": "author", "tiles": "tiles"},
        {"id": "id", "q": "q", "r": "r", "rotation": "dir", "tokens": "tokens"},
        {"id": "id", "q": "q", "r": "r", "dir": "dir"},
    ),
    "rgt": (
        {"name": "Name", "author": "Author", "tiles": "Tuiles"},
        {"id": "TuileId", "q": "X", "r": "Y", "rotation": "Orientation", "tokens": "Tokens"},
        {"id": "TokenId", "q": "X", "r": "Y", "dir": "Orientation"},
    ),
}
_MAX_COORD = 1000  # (spec.MAX_COORD: a track's tile coordinates)


def detect(doc: Document) -> str:
    """The format of the loaded file `doc`: "rgt" when it holds `Tuiles`, or, without
    `tiles`, another of RGT's keys; "json" (Rekee's own) otherwise."""
    data = doc.data
    if not isinstance(data, dict):
        return "json"
    if "Tuiles" in data:
        return "rgt"
    if "tiles" not in data and any(key in data for key in RGT_SCHEMA["properties"]):
        return "rgt"
    return "json"


# --------------------------------------------------------------------------- Rekee's arithmetic


def _f32(value: float) -> float:
    """`value` rounded to single precision, as Rekee holds a token's numbers (an f32): each
    step of its arithmetic is done in double precision and rounded, which gives the f32
    result exactly (a double holds more than twice an f32's digits)."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _shortest(value: float) -> float:
    """The f32 `value` as Rekee writes it (serde_json: the shortest decimal that reads back as
    that f32), as a float."""
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if _f32(float(text)) == value:
            return float(text)
    return value  # (9 digits always read back: not reached)


_SQRT_3 = _f32(1.7320508075688772)
# Rekee's pointy-top layout (hexagon.rs LAYOUT_POINTY): forward f0..f3, backward b0..b3
_F0, _F1, _F2, _F3 = _SQRT_3, _f32(_SQRT_3 / 2.0), 0.0, 1.5
_B0, _B1, _B2, _B3 = _f32(_SQRT_3 / 3.0), _f32(-1.0 / 3.0), 0.0, _f32(2.0 / 3.0)
#: Rekee adds this to a tile's axial coordinates to write RGT (IMPORT_OFFSET), and takes it
#: off when it reads one
_RGT_OFFSET = (-81, 52)


def from_offset(x: int, y: int) -> tuple[int, int]:
    """Rekee's tile (q, r) of RGT's tile (X, Y) (odd-row offset coordinates)."""
    q = -x - ((y & 1) + y) // 2  # (an even number halved: exact)
    return q - _RGT_OFFSET[0], y - _RGT_OFFSET[1]


def to_offset(q: int, r: int) -> tuple[int, int]:
    """RGT's tile (X, Y) of Rekee's tile (q, r)."""
    q, r = q + _RGT_OFFSET[0], r + _RGT_OFFSET[1]
    return -q - ((r & 1) + r) // 2, r


def _rem_euclid(value: float, modulus: float) -> float:
    r = math.fmod(value, modulus)
    return _f32(r + modulus) if r < 0.0 else r


def token_from_rgt(x: float, y: float, angle: float) -> tuple[float, float, float]:
    """Rekee's (q, r, dir) of an RGT token at pixel (x, y) turned `angle` degrees (ruling
    RM-26). Rekee reads them with FloatCoordinate::from_pixel on its token layout (pointy-top,
    size (-1, 1): x mirrored) and FloatDirection::from_angle, in single precision
    (`_rekee_reading`), and writes them back with to_pixel and to_angle (`token_to_rgt`);
    there and back, four or five tokens in ten that Rekee writes would come back with another
    last digit. So each number is read as the one, near Rekee's reading, that Rekee writes
    back as the file's very number: of the single-precision numbers that are (an interval,
    the arithmetic being monotone: `_preimage`), the one of fewest digits, then the nearest
    to Rekee's reading (`_pick`); r first (the pixel's y depends on r alone), then q. A file
    Rekee wrote comes back from `token_to_rgt` as it was, and the place read is the one
    Rekee's own JSON holds when that has the fewest digits (Rekee's `q: -1.0, r: -1.0` is the
    pixel (2.598076, -1.5), which Rekee reads as q -0.9999999 and writes back as 2.5980759;
    it is -1.0 here). A pixel Rekee writes for no place near its reading (an old editor's
    file may hold one) is read as Rekee reads it. (A zero comes out as 0.0, never -0.0, the
    sign the mirrored x gives it: the same number, and the spec of the track's own JSON,
    which says 0.0.)"""
    x, y, angle = _f32(x), _f32(y), _f32(angle)
    q, r, d = _rekee_reading(x, y, angle)
    rows = _preimage(lambda c: _to_pixel(0.0, c)[1], y, r)
    for row in _choices(rows, r):
        columns = _preimage(functools.partial(_minus_x, r=row), -x, q)
        if columns is not None:
            q, r = _pick(columns, q), row
            break
    turns = _preimage(lambda c: _f32(c * 60.0), angle, d) if 0.0 <= angle < 360.0 else None
    if turns is not None:
        d = _pick(turns, d)
    return _shortest(q) + 0.0, _shortest(r) + 0.0, _shortest(d) + 0.0


#: how far (in q, r or dir) from Rekee's reading `_preimage` looks for the numbers that Rekee
#: writes back as the file's: far more than single precision's error on a tile's numbers
_WIDTH = 1e-3


def _ordinal(value: float) -> int:
    """The f32 `value`'s place in the order of the f32 numbers (0 for both zeros)."""
    bits = struct.unpack("<i", struct.pack("<f", value))[0]
    return bits if bits >= 0 else -(bits & 0x7FFFFFFF)


def _from_ordinal(n: int) -> float:
    bits = n if n >= 0 else (-n) | -0x80000000
    return float(struct.unpack("<f", struct.pack("<i", bits))[0])


def _preimage(g: Callable[[float], float], target: float, around: float) -> tuple[int, int] | None:
    """The ordinals (first, last) of the f32 numbers c within _WIDTH of `around` for which
    the non-decreasing `g(c)` is `target`, found by bisection; None: there are none."""
    low, high = _ordinal(_f32(around - _WIDTH)), _ordinal(_f32(around + _WIDTH))

    def first(at_least: bool) -> int:
        # the first ordinal in [low, high + 1] with g >= target (at_least) or g > target
        a, b = low, high + 1
        while a < b:
            m = (a + b) // 2
            v = g(_from_ordinal(m))
            if v > target or (at_least and v == target):
                b = m
            else:
                a = m + 1
        return a

    start, end = first(True), first(False) - 1
    return (start, end) if start <= end else None


def _choices(interval: tuple[int, int] | None, reading: float) -> list[float]:
    """The numbers of `interval` (ordinals) to try, in order: `_pick`'s, then the others,
    nearest to `reading` first."""
    if interval is None:
        return []
    best = _pick(interval, reading)
    rest = sorted((_from_ordinal(n) for n in range(interval[0], interval[1] + 1)), key=lambda c: (abs(c - reading), c))
    return [best] + [c for c in rest[:64] if c != best]


def _pick(interval: tuple[int, int], reading: float) -> float:
    """Of the f32 numbers of `interval` (ordinals), the one of fewest places after the point
    (for each number of places: of the one just above its lower end, the one just below its
    upper end and `reading` rounded, the nearest to `reading`), else (none of 12 places or
    fewer) the end nearest to `reading`."""
    start, end = interval
    low, high = _from_ordinal(start), _from_ordinal(end)
    for places in range(13):
        scale = 10.0**places
        ends = (math.ceil(low * scale) / scale, math.floor(high * scale) / scale, round(reading, places))
        found = [_f32(c) for c in ends if start <= _ordinal(_f32(c)) <= end]
        if found:
            return min(found, key=lambda c: (abs(c - reading), c))
    return low if abs(low - reading) <= abs(high - reading) else high


def _minus_x(q: float, r: float) -> float:
    """Less the pixel's x of (q, r): it grows with q (`_preimage` wants a growing function)."""
    return -_to_pixel(q, r)[0]


def _rekee_reading(x: float, y: float, angle: float) -> tuple[float, float, float]:
    """Rekee's own (q, r, dir) of the f32 pixel (x, y) and angle (from_pixel, from_angle)."""
    px, py = _f32(x - 0.0) / -1.0, _f32(y - 0.0) / 1.0
    q = _f32(_f32(_B0 * px) + _f32(_B1 * py))
    r = _f32(_f32(_B2 * px) + _f32(_B3 * py))
    d = _f32(_rem_euclid(angle, 360.0) / 60.0)
    return q, r, d


def _to_pixel(q: float, r: float) -> tuple[float, float]:
    """Rekee's pixel of the f32 position (q, r) on its token layout (to_pixel)."""
    x = _f32(0.0 + _f32(_f32(_f32(_F0 * q) + _f32(_F1 * r)) * -1.0))
    y = _f32(0.0 + _f32(_f32(_f32(_F2 * q) + _f32(_F3 * r)) * 1.0))
    return x, y


def _to_angle(d: float) -> float:
    """Rekee's angle (degrees) of the f32 direction `d` (to_angle)."""
    return _rem_euclid(_f32(d * 60.0), 360.0)




def token_to_rgt(q: float, r: float, d: float) -> tuple[float, float, float]:
    """RGT's (x, y, angle) of a token at Rekee's (q, r) turned `d` (Rekee's to_pixel and
    to_angle, in single precision)."""
    x, y = _to_pixel(_f32(q), _f32(r))
    angle = _to_angle(_f32(d))
    return _shortest(x), _shortest(y), _shortest(angle)


# --------------------------------------------------------------------------- ids

_ALIASES = {
    "filler1a": "902a",
    "filler1b": "902b",
    "filler2a": "903a",
    "filler2b": "903b",
    "filler3a": "904a",
    "filler3b": "904b",
    "podium": "905a",
}
_TILE_ID = re.compile(r"([0-9]{3})([abAB]?)(?:-?([0-9]{1,3}))?\Z")


def rekee_tile_id(text: str, rgt: bool = False) -> str | None:
    """The tile id `text` as Rekee reads it and writes it back (TileId): its aliases, the
    number, the side in lower case, the variant without leading zeros ("102B-02" is
    "102b-2"); RGT's pit-stop tile 101 has no side. None: not an id Rekee reads (a tile
    Rekee drops)."""
    alias = _ALIASES.get(text.lower())
    if alias is not None:
        return alias
    m = _TILE_ID.match(text)
    if m is None or (m.group(3) is not None and int(m.group(3)) > 255):
        return None
    if rgt and m.group(1) == "101":
        return "101"
    variant = int(m.group(3) or 0)
    return m.group(1) + m.group(2).lower() + (f"-{variant}" if variant else "")


def rgt_tile_id(rekee_id: str) -> str:
    """The id RGT writes for Rekee's `rekee_id`: the pit-stop tile is 101a, and tiles of the
    DIRT series (numbers 200 to 499 and 902 to 905) are in upper case."""
    number = int(rekee_id[:3])
    if number == 101:
        return "101a"
    return rekee_id.upper() if 200 <= number <= 499 or 902 <= number <= 905 else rekee_id


#: RGT's token ids, by Rekee's (the terrain asphalt, gravel, snow is RGT's asphalt, dirt, ice)
_RGT_KINDS = {"chicane-limit": 1, "chicane": 2, "water": 3, "jump": 4}
_RGT_TERRAINS = {"asphalt": "asphalt", "gravel": "dirt", "snow": "ice"}
_RGT_OTHERS = {
    "climb-ascent": "climbm1",
    "climb-descent": "climbp1",
    "cloud": "climbw",
    "oxygen-1": "climbr1",
    "oxygen-2": "climbr2",
    "oxygen-3": "climbr3",
    "joker-entrance": "greendoor",
    "joker-exit": "reddoor",
    "finish": "whitedoor",
}
RGT_TOKENS: dict[str, str] = {
    **{
        f"{terrain}{number}": f"{kind}-{name}"
        for name, terrain in _RGT_TERRAINS.items()
        for kind, number in _RGT_KINDS.items()
    },
    **{rgt: rekee for rekee, rgt in _RGT_OTHERS.items()},
}


def rgt_token_id(rekee_id: str) -> str | None:
    """RGT's id of Rekee's token `rekee_id`, read as Rekee reads it (`tokens.parse`: any case,
    blanks as dashes, a terrain or a number after the last dash); a chicane, water or jump of
    no terrain is RGT's dirt one. None: a token RGT has no id for (a mud spray, oxygen other
    than 1 to 3) or one Rekee does not know."""
    token = parse_token(rekee_id)
    if token is None:
        return None
    if token.name in _RGT_KINDS:
        return f"{_RGT_TERRAINS.get(token.terrain, 'dirt')}{_RGT_KINDS[token.name]}"
    return _RGT_OTHERS.get(f"oxygen-{token.number}" if token.name == "oxygen" else token.name)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Tile:
    """A tile of a Rekee track as Rekee reads it, from either format."""

    id: str  # as the file writes it
    q: int
    r: int
    dir: int
    tokens: tuple[Token, ...]


@dataclass(frozen=True)
class _Map:
    """A Rekee track as Rekee reads it (Map): its title, author and tiles."""

    format: str
    title: str
    author: str
    tiles: tuple[_Tile, ...]


def _read_map(doc: Document, fmt: str) -> _Map:
    """The track of the schema-valid file `doc` in format `fmt`; what Rekee could not read
    (an RGT token RGT has no id for, a tile beyond the coordinates a track holds) is refused
    at its place in the file."""
    data = doc.data
    if fmt == "json":
        tiles = tuple(
            _Tile(
                t["id"],
                t["q"],
                t["r"],
                t["dir"],
                tuple(Token(k["id"], float(k["q"]), float(k["r"]), float(k["dir"])) for k in t.get("tokens", ())),
            )
            for t in data["tiles"]
        )
        return _Map(fmt, data.get("title", ""), data.get("author", ""), tiles)
    problems = []
    read = []
    for i, t in enumerate(data["Tuiles"]):
        q, r = from_offset(t["X"], t["Y"])
        if max(abs(q), abs(r)) > _MAX_COORD:
            problems.append(
                doc.problem(
                    ("Tuiles", i),
                    f"the tile at X {t['X']}, Y {t['Y']} lies at Rekee's ({q}, {r}): a track's tile coordinates are "
                    f"-{_MAX_COORD} to {_MAX_COORD}",
                )
            )
        tokens = []
        for j, k in enumerate(t.get("Tokens", ())):
            name = RGT_TOKENS.get(k["TokenId"])
            if name is None:
                problems.append(
                    doc.problem(
                        ("Tuiles", i, "Tokens", j, "TokenId"),
                        f"token {k['TokenId']!r} is not one of RGT's: {', '.join(sorted(RGT_TOKENS))}",
                    )
                )
                continue
            tokens.append(Token(name, *token_from_rgt(k["X"], k["Y"], k["Orientation"])))
        read.append(_Tile(t["TuileId"], q, r, t["Orientation"], tuple(tokens)))
    if problems:
        raise SpecError(problems)
    return _Map(fmt, data.get("Name", ""), data.get("Author", ""), tuple(read))


def _in_file(fmt: str, path: tuple) -> tuple:
    """The place in a file of format `fmt` of what the spec says at `path` (its nearest
    ancestor the file holds; () for what the file does not hold: its root)."""
    top, tile, token = _KEYS[fmt]
    if not path or path[0] not in top:
        return ()
    out: list = [top[path[0]]]
    if path[0] == "tiles" and len(path) > 1:
        out.append(path[1])
        if len(path) > 2 and path[2] in tile:
            out.append(tile[path[2]])
            if path[2] == "tokens" and len(path) > 3:
                out.append(path[3])
                if len(path) > 4 and path[4] in token:
                    out.append(token[path[4]])
    return tuple(out)


def read(path: str, target: str, options: Any) -> tuple[str, tuple[str, ...], list[Problem]]:
    """The spec text of the Rekee track at `path` (Rekee's JSON or RGT), to be written at
    `target`, the files read besides it (the tile library), and the warnings of its tokens no
    rulebook has a rule for (`tokens.unruled`, located in the file)."""
    from sheetgen.games.rallyman.spec import load_library

    library_path = options.get("tiles")
    if library_path is None:
        raise OptionError("--tiles is needed for Rallyman: the tile library that says what each Rekee tile id holds")
    doc = load_json(path)  # JSON is YAML: every value keeps its line and column
    fmt = detect(doc)
    data = doc.data
    if not isinstance(data, dict) or ("tiles" not in data and "Tuiles" not in data):
        what = "this file has neither" if isinstance(data, dict) else f"this file is a {_json_type(data)}"
        problems = [
            doc.problem(
                (),
                "not a Rekee track: a JSON object with its tiles in 'tiles' (Rekee's own JSON) or 'Tuiles' (RGT); "
                + what,
            )
        ]
        if isinstance(data, dict):  # (and what else is wrong there)
            problems += check(doc, dict(_SCHEMAS[fmt], required=[]))
        raise SpecError(problems)
    problems = check(doc, _SCHEMAS[fmt])
    if problems:
        raise SpecError(problems)
    rekee_map = _read_map(doc, fmt)
    tiles_doc = load_file(library_path)
    kind = tiles_doc.data.get("kind") if isinstance(tiles_doc.data, dict) else None
    if not isinstance(tiles_doc.data, dict) or tiles_doc.data.get("game") != "rallyman" or kind != "tiles":
        raise OptionError(
            f"--tiles {library_path}: not a Rallyman tile library (a file with game: rallyman and kind: tiles)"
        )
    library = load_library(tiles_doc)
    placed = []
    missing = []
    for i, tile in enumerate(rekee_map.tiles):
        rekee_id = rekee_tile_id(tile.id, rgt=fmt == "rgt")
        found = library.by_rekee(rekee_id) if rekee_id is not None else library.get(tile.id)
        if found is not None:
            placed.append(found.id)
            continue
        named = f"{tile.id!r}" if rekee_id in (None, tile.id) else f"{tile.id!r} (Rekee's {rekee_id!r})"
        why = f": none of its tiles is {rekee_id!r} or says rekee: {rekee_id!r}" if rekee_id is not None else ""
        missing.append(
            doc.problem(
                _in_file(fmt, ("tiles", i, "id")),
                f"tile {named} at ({tile.q}, {tile.r}) is not in the library {library_path!r}{why}",
            )
        )
    if missing:
        raise SpecError(missing)
    if options.get("variant") and library.variant is not None and options["variant"] != library.variant.value:
        raise OptionError(
            f"--variant {options['variant']}: the library {library_path!r} holds {library.variant.value.upper()} tiles"
        )
    variant = options.get("variant") or (library.variant.value if library.variant else None)
    if variant is None:
        raise OptionError(
            f"--variant gt or --variant dirt is needed: the library {library_path!r} holds tiles for either game"
        )
    laps = options.get("laps")
    if laps is not None and laps > 1 and variant == Variant.DIRT.value:
        raise OptionError(f"--laps {laps}: a Rallyman DIRT track is driven once (--laps 1 for a DIRT circuit)")
    base = os.path.dirname(os.path.abspath(target)) if target != "<stdout>" else os.getcwd()
    rel = path_from(base, library_path)  # (absolute on another drive: relpath raised there)
    title = rekee_map.title or os.path.splitext(os.path.basename(path))[0] or "Rekee track"

    from sheetgen.games.rallyman.graph import choose_reversals

    # Rekee's tiles have no direction of travel: a tile the track connects through only when
    # driven the other way is placed reversed (ruling RM-18)
    defs = {t.id: t for t in library.tiles}  # (every id placed is the library's: looked up above)
    reversed_tiles = choose_reversals(
        [(defs[own], t.q, t.r, t.dir) for t, own in zip(rekee_map.tiles, placed)], library.frame
    )

    def spec_text(laps: int | None) -> tuple[str, list[tuple]]:
        lines = [
            f"# Imported from Rekee: {os.path.basename(path)}",
            "game: rallyman",
            f"variant: {variant}",
            f"name: {json.dumps(title, ensure_ascii=False)}",
        ]
        paths: list[tuple] = [(), (), (), ("name",)]
        if rekee_map.author:
            lines.append(f"author: {json.dumps(rekee_map.author, ensure_ascii=False)}")
            paths.append(("author",))
        if laps is not None:
            lines.append(f"laps: {laps}")
            paths.append(())
        lines += [f"library: {json.dumps(rel, ensure_ascii=False)}", "tiles:"]
        paths += [(), ("tiles",)]
        for i, (tile, own) in enumerate(zip(rekee_map.tiles, placed)):
            entry = f"  - {{id: {json.dumps(own)}, q: {tile.q}, r: {tile.r}, rotation: {tile.dir}"
            if i in reversed_tiles:
                entry += ", reverse: true"
            if tile.tokens:
                shown = ", ".join(
                    f"{{id: {json.dumps(t.id, ensure_ascii=False)}, q: {_num(t.q)}, r: {_num(t.r)}, "
                    f"dir: {_num(t.dir)}}}"
                    for t in tile.tokens
                )
                entry += f", tokens: [{shown}]"
            lines.append(entry + "}")
            paths.append(("tiles", i))
        return "\n".join(lines) + "\n", paths

    text, line_paths = spec_text(None)
    track = _load_located(doc, fmt, text, target, line_paths)
    from sheetgen.games.rallyman.graph import circuit_finish

    closing = circuit_finish(track)
    if closing is not None and laps is None:
        raise SpecError([_at_finish(doc, fmt, track, closing, variant)])
    if closing is None and laps is not None and laps > 1:
        finish = next((c for c in track.in_order() if c.finish), None)
        raise SpecError(
            [
                doc.problem(
                    _in_file(fmt, ("tiles", finish.tile) if finish is not None and finish.tile is not None else ()),
                    f"--laps {laps} is for a circuit, and no move leads from the track's finish back to its start (a "
                    "stage is driven once)",
                )
            ]
        )
    if closing is not None:
        text, _paths = spec_text(laps)

    def written(i: int, j: int) -> str:
        return str(data["Tuiles"][i]["Tokens"][j]["TokenId"])

    warnings = [
        doc.problem(_in_file(fmt, path), message)
        for path, message in unruled(track, written if fmt == "rgt" else None)
    ]
    return text, (library_path,), warnings


def _json_type(value: Any) -> str:
    """What JSON calls a value that is not an object."""
    if isinstance(value, list):
        return "list (an array)"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float)) else "null"


def _at_finish(doc: Document, fmt: str, track: Track, closing: Any, variant: str) -> Problem:
    """The refusal of a circuit imported without --laps, at the tile of its finish."""
    cell = track.at(closing)
    p = track.placements[cell.tile] if cell.tile is not None else None
    on = f" (tile {p.tile!r} at ({p.q}, {p.r}))" if p is not None else ""
    dirt = variant == Variant.DIRT.value
    give = "--laps 1 (a DIRT track is driven once)" if dirt else "--laps N, the laps of the race"
    return doc.problem(
        _in_file(fmt, ("tiles", cell.tile)) if cell.tile is not None else (),
        f"the track is a circuit: moves lead from its finish at cell {closing}{on} back to its start, and Rekee's "
        f"files have no place for laps; give {give}",
    )


def _load_located(doc: Document, fmt: str, text: str, target: str, line_paths: list[tuple]) -> Track:
    """The track of the spec `text` (to be written at `target`), loaded as `import` will load
    it; what it refuses is raised located in the Rekee file `doc` of format `fmt` (each tile's
    problem at its tile, key or token there), not in the spec, which is never written."""
    from sheetgen.games.rallyman.spec import load_track

    spec_doc = None
    try:
        spec_doc = load_text(text, target)
        return load_track(spec_doc)
    except SpecError as exc:
        at = {loc: path for path, loc in spec_doc.values.items()} if spec_doc is not None else {}
        keys = {loc: path for path, loc in spec_doc.keys.items()} if spec_doc is not None else {}
        # a problem of the text itself (no value there): the line's own
        on_line = {number: line_paths[number - 1] for number in range(1, len(line_paths) + 1)}
        problems = []
        for p in exc.problems:
            if p.location.file != target:  # (the library's own problems stay where they are)
                problems.append(p)
            elif isinstance(p, Omitted):
                problems.append(dataclasses.replace(p, location=Location(doc.file, 1, 1)))
            else:
                key = p.location in keys and p.location not in at
                path = keys[p.location] if key else at.get(p.location, on_line.get(p.location.line, ()))
                problems.append(doc.problem(_in_file(fmt, path), p.message, key=key))
        raise SpecError(problems) from None


_ESCAPE = re.compile(r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|.)", re.DOTALL)
_LONE = "a lone surrogate"


def load_json(path: str) -> Document:
    """The JSON file at `path` as a Document (JSON is YAML). JSON writes a character beyond
    U+FFFF as a pair of `\\u` escapes (a surrogate pair, as Python's json reads it), which YAML
    reads as two lone halves: each pair is read as its one character, and the lines and
    columns stay the file's own. A lone half is refused."""
    try:
        return load_file(path)
    except SpecError as exc:
        if not any(p.message.startswith(_LONE) for p in exc.problems) or not os.path.isfile(path):
            raise _json_worded(exc) from None
        original = exc
    with open(path, "rb") as handle:
        raw = handle.read()
    text = raw.decode("utf-8").removeprefix("\ufeff")  # (load_file decoded it)
    joined: list[str] = []
    shifts: dict[int, list[int]] = {}  # line -> columns (in the text read) after which 2 are added
    end = 0
    for m in _ESCAPE.finditer(text):
        if len(m.group(1)) == 1:
            continue
        hi, lo = int(m.group(1)[1:5], 16), int(m.group(1)[7:11], 16)
        code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1 - 2 * len(shifts.get(line, ()))
        shifts.setdefault(line, []).append(col)
        joined += [text[end : m.start()], f"\\U{code:08X}"]
        end = m.end()
    if not shifts:
        raise _json_worded(original) from None

    def back(loc: Location) -> Location:
        return Location(loc.file, loc.line, loc.col + 2 * sum(1 for c in shifts.get(loc.line, ()) if loc.col > c))

    try:
        doc = load_text("".join(joined) + text[end:], path)
    except SpecError as exc:
        raise _json_worded(
            SpecError([dataclasses.replace(p, location=back(p.location)) for p in exc.problems])
        ) from None
    return dataclasses.replace(
        doc,
        values={k: back(v) for k, v in doc.values.items()},
        keys={k: back(v) for k, v in doc.keys.items()},
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def _json_worded(exc: SpecError) -> SpecError:
    """The file's problems in JSON's words: a syntax error is invalid JSON, a lone surrogate
    is written as JSON writes it (JSON has no \\U escape)."""
    return SpecError(
        [
            dataclasses.replace(
                p,
                message=p.message.replace(
                    "or its 8-digit \\U escape", "or both halves of its pair, high then low (as \\ud83d\\ude00)"
                ),
            )
            if p.message.startswith(_LONE)
            else dataclasses.replace(p, message="invalid JSON: " + p.message.removeprefix("invalid YAML: "))
            if p.message.startswith("invalid YAML: ")
            else p
            for p in exc.problems
        ]
    )


def _num(value: float) -> str:
    """A number as YAML reads it back to the same float."""
    return repr(float(value))


def _not_held(doc: Document | None) -> list:
    """What the track spec `doc` says that Rekee's files have no place for, and that a track
    would lose its meaning without (title, author and tiles placed with their tokens is all
    they hold): inside lines of its own, cells that replace a tile's and its own box's
    values. Refused rather than lost. (Its laps are said as a warning, `lost`: the tiles are
    the track, and `import --laps` gives the laps back.)"""
    if doc is None or not isinstance(doc.data, dict):
        return []
    data = doc.data
    problems = []
    given = data.get("cells")
    cells = given if isinstance(given, list) else []
    for j, raw in enumerate(cells):
        if isinstance(raw, dict) and raw.get("replace"):
            problems.append(
                doc.problem(
                    ("cells", j),
                    f"cell ({raw.get('q')}, {raw.get('r')}) replaces a tile's: Rekee's files have no place for cells, "
                    "only for tiles placed",
                )
            )
    if data.get("lines"):
        problems.append(
            doc.problem(
                ("lines", 0),
                "the track's own inside lines: Rekee's files have no place for them (only tiles placed, with the "
                "lines of their tiles)",
            )
        )
    if "ruleset" in data:
        problems.append(
            doc.problem(("ruleset",), "the values of your own box ('ruleset'): Rekee's files have no place for them")
        )
    return problems


def lost(spec: Any, options: Any) -> list[Problem]:
    """What an export writes without, said as warnings (the file is written all the same): a
    track's laps, which Rekee's files have no place for (`import --laps` gives them back), and
    which tiles are driven reversed (Rekee's tiles have no direction: `import` finds it again
    where the track connects only that way)."""
    track = spec.model
    if not isinstance(track, Track):
        return []
    out = []
    if track.laps != 1:
        out.append(
            _problem(
                spec,
                ("laps",),
                f"a track of {track.laps} laps: Rekee's files have no place for laps, written without them (give "
                f"--laps {track.laps} to import it again)",
            )
        )
    for i, p in enumerate(track.placements):
        if p.reverse:
            out.append(
                _problem(
                    spec,
                    ("tiles", i, "reverse"),
                    f"tile {p.tile!r} at ({p.q}, {p.r}) is driven reversed: Rekee's files have no place for a tile's "
                    "direction of travel, written without it (import turns a tile round again where the track "
                    "connects only that way)",
                )
            )
    return out


def write(spec: Any, options: Any) -> bytes:
    """The Rekee file (`options["format"]`: Rekee's JSON, the default, or RGT) of a track laid
    from tiles that Rekee knows (each tile's Rekee id, `TileDef.rekee_id`)."""
    track = spec.model
    if not isinstance(track, Track):
        raise spec.wrong(f"{spec.described('rallyman')}, not a track: Rekee's files hold tracks")
    if not track.placements:
        raise spec.wrong("a track without tiles: Rekee's files hold tiles placed, not cells or a path")
    loose = next((c for c in track.cells if c.tile is None), None)
    if loose is not None:
        raise spec.wrong(f"the track has cells that are on no tile (e.g. {loose.hex}): Rekee's files hold tiles only")
    problems = _not_held(spec.document)
    unknown: dict[str, int] = {}
    for i, p in enumerate(track.placements):
        if p.rekee is None and p.tile not in unknown:
            unknown[p.tile] = i
    for tile, i in unknown.items():
        count = sum(1 for p in track.placements if p.tile == tile)
        placed = f" (placed {count} times)" if count > 1 else ""
        problems.append(
            _problem(
                spec,
                ("tiles", i, "id"),
                f"tile {tile!r}{placed} has no Rekee id: Rekee would leave it out of the map; give it 'rekee: ID' in "
                f"the library {track.library!r} (the id Rekee names it by: three digits, a or b, -N for a variant, "
                "as 102b or 106b-2)",
            )
        )
    fmt = options.get("format") or "json"
    if fmt == "rgt":
        for i, p in enumerate(track.placements):
            for j, t in enumerate(p.tokens):
                if rgt_token_id(t.id) is None:
                    problems.append(
                        _problem(
                            spec,
                            ("tiles", i, "tokens", j, "id"),
                            f"token {t.id!r} has no id in RGT files (its tokens are {', '.join(sorted(RGT_TOKENS))}, "
                            "as Rekee's chicane, chicane-limit, water and jump of a terrain, climb and joker tokens, "
                            "oxygen 1 to 3 and the finish): export it as --format json",
                        )
                    )
    if problems:
        raise SpecError(problems)
    if fmt == "rgt":
        return _rgt(track)
    data: dict[str, Any] = {"title": track.name}
    if track.author:
        data["author"] = track.author
    tiles = []
    for p in track.placements:
        entry: dict[str, Any] = {"q": p.q, "r": p.r, "id": p.rekee, "dir": p.rotation}
        if p.tokens:
            entry["tokens"] = [{"id": t.id, "q": t.q, "r": t.r, "dir": t.dir} for t in p.tokens]
        tiles.append(entry)
    data["tiles"] = tiles
    return (json.dumps(data, indent=3, ensure_ascii=False) + "\n").encode("utf-8")


def _problem(spec: Any, path: tuple, message: str) -> Problem:
    if spec.document is None:
        return Problem(Location(spec.path, 1, 1), message)
    return spec.document.problem(path, message)


#: what Rekee writes for RGT's fields its editor does not use
_RGT_PATH = "C:\\Applications\\RallymanGT Track Editor\\My Tracks"
_RGT_SIZE = (2480, 1748)


def _rgt(track: Track) -> bytes:
    """The RGT file of `track` (every tile with a Rekee id, every token with an RGT id), laid
    out as Rekee writes it: one line, its keys in its order."""
    data: dict[str, Any] = {"Path": _RGT_PATH, "Name": track.name}
    if track.author:
        data["Author"] = track.author
    tiles = []
    for p in track.placements:
        x, y = to_offset(p.q, p.r)
        entry: dict[str, Any] = {"X": x, "Y": y, "Orientation": p.rotation, "TuileId": rgt_tile_id(str(p.rekee))}
        if p.tokens:
            entry["Tokens"] = []
            for t in p.tokens:
                tx, ty, angle = token_to_rgt(t.q, t.r, t.dir)
                entry["Tokens"].append({"X": tx, "Y": ty, "Orientation": angle, "TokenId": rgt_token_id(t.id)})
        tiles.append(entry)
    data["Tuiles"] = tiles
    data["lowResWidth"], data["lowResHeight"] = _RGT_SIZE
    return (json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
