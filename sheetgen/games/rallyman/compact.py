"""The compact form of a Rallyman track: a path of segments laid out as cells.

    path:
      lanes: 2                       # 1-4 lanes, numbered from the left
      from: {q: 0, r: 0, heading: 0} # lane 1's first cell and the direction of travel
      segments: straight 4, corner right limit 3/4, straight 2

Segments (comma-separated in one string, or one per item of a list):

- `straight N`: N cells in every lane (N 1-40);
- `corner left|right [60|120|180] limit A[/B...] [radius R] [caution]`: the road turns 60
  degrees (the default), 120 or 180 (a hairpin) round a pivot cell on the inside; the inside
  lane runs on the ring of radius R (default 1) round the pivot, each lane further out one
  ring further. One limit for every lane, or one per lane from the inside lane out; `caution`
  puts every limit of the corner in a caution triangle.

Either may end with words that mark all its cells: a surface (`asphalt`, `gravel`, `snow`), a
danger colour (`yellow`, `orange`, `red`), `pit`, `slide`, `water`, `jump G` (checked as an
explicit cell's marks are: `pit` is GT's and never on a corner, the others DIRT's), each once
(a word given twice, or two surfaces or danger colours, is refused). The first
cells of the path are the starting spaces and its last cells the finish, unless the track
says otherwise (`start:`/`finish:` of explicit cells).

**How a corner is laid** (ruling RM-9). Lanes side by side are one row apart, lane 2 a
diagonal step to the right of lane 1 and so on (alternately half a cell ahead and behind).
A right corner of 60 x m degrees with inside radius R: the pivot C is put on the right, so
that lane i, at radius d_i = R + (lanes - i) (the inside lane at R), meets its ring round C
straight ahead of its last cell, the inside lane on its very next cell; each lane runs
straight up to its ring (the outer lanes further: they are the longer way round), then round
the ring, turning 60 degrees at each of the ring's corners (m of them, d_i cells apart), then
one cell on in the new heading. Every cell round the ring and that last cell are the corner's
spaces. A left corner is the mirror image (the pivot on the left, lane 1 inside).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sheetgen.games.rallyman.hexgrid import DIRECTIONS, Hex
from sheetgen.games.rallyman.model import (
    MAX_GEAR,
    MAX_LIMIT,
    MIN_GEAR,
    MIN_LIMIT,
    Cell,
    Danger,
    Surface,
)

MAX_LANES = 4
MAX_STRAIGHT = 40
MAX_RADIUS = 6
MAX_SEGMENTS = 200
#: cells a track holds at most (a track of 25 tiles has about 250)
MAX_CELLS = 3000


class PathError(ValueError):
    """A segment that cannot be read or laid: the message names it, and `segment` is its
    1-based number when one segment is to blame (None: the path as a whole)."""

    def __init__(self, message: str, segment: int | None = None):
        super().__init__(message)
        self.segment = segment


@dataclass(frozen=True)
class Segment:
    kind: str  # "straight" or "corner"
    length: int = 0  # straight: cells per lane
    turn: str = ""  # corner: "left" or "right"
    degrees: int = 60
    limits: tuple[int, ...] = ()  # from the inside lane out (or one for all)
    radius: int = 1
    caution: bool = False
    surface: Surface | None = None
    danger: Danger | None = None
    pit: bool = False
    slide: bool = False
    water: bool = False
    jump: int | None = None


_WORDS = re.compile(r"\S+")
_NUMBER = re.compile(r"[0-9]+")  # ASCII digits only: str.isdigit() takes '²', which int() refuses


def _is_number(word: str) -> bool:
    return _NUMBER.fullmatch(word) is not None


def _int(word: str) -> int:
    """An ASCII number's value; one of over 18 digits (out of every range here, and past
    what int() reads at over 4300) counts as 10**18."""
    return int(word) if len(word) <= 18 else 10**18


def parse_segment(text: str) -> Segment:
    """One segment's words, e.g. "corner right 120 limit 2/3 radius 2"."""
    words = _WORDS.findall(text.lower())
    if not words:
        raise PathError("an empty segment (two commas in a row?)")
    kind, rest = words[0], words[1:]
    fields: dict = {}
    if kind == "straight":
        if not rest or not _is_number(rest[0]):
            raise PathError(f"{text.strip()!r}: a straight needs its length in cells, e.g. 'straight 3'")
        length = _int(rest[0])
        if not 1 <= length <= MAX_STRAIGHT:
            raise PathError(f"{text.strip()!r}: a straight is 1 to {MAX_STRAIGHT} cells long")
        fields.update(kind="straight", length=length)
        rest = rest[1:]
    elif kind == "corner":
        if not rest or rest[0] not in ("left", "right"):
            raise PathError(f"{text.strip()!r}: a corner turns 'left' or 'right', e.g. 'corner right limit 3'")
        fields.update(kind="corner", turn=rest[0])
        rest = rest[1:]
        if rest and _is_number(rest[0]):
            degrees = _int(rest[0])
            if degrees not in (60, 120, 180):
                raise PathError(f"{text.strip()!r}: a corner turns 60, 120 or 180 degrees, not {degrees}")
            fields["degrees"] = degrees
            rest = rest[1:]
        if len(rest) < 2 or rest[0] != "limit":
            raise PathError(
                f"{text.strip()!r}: a corner needs its limit, e.g. 'limit 3' or 'limit 3/4' (inside lane first)"
            )
        parts = rest[1].split("/")
        if not all(_is_number(x) for x in parts):
            raise PathError(f"{text.strip()!r}: the limit {rest[1]!r} is not a number or numbers joined by '/'")
        limits = tuple(_int(x) for x in parts)
        for value in limits:
            if not MIN_LIMIT <= value <= MAX_LIMIT:
                raise PathError(f"{text.strip()!r}: a limit is {MIN_LIMIT} to {MAX_LIMIT}, not {value}")
        fields["limits"] = limits
        rest = rest[2:]
    else:
        raise PathError(
            f"{text.strip()!r}: unknown segment {kind!r} (a segment is 'straight N' or 'corner left|right ... limit N')"
        )
    i = 0
    given: dict[str, str] = {}  # what a word sets -> the word that set it
    surfaces = {s.value for s in Surface}
    dangers = {d.value for d in Danger}
    while i < len(rest):
        word = rest[i]
        what = "surface" if word in surfaces else "danger colour" if word in dangers else word
        if what in given:
            again = (
                f"{word!r} is given twice"
                if given[what] == word
                else f"two {what}s, {given[what]!r} and {word!r}: give one"
            )
            raise PathError(f"{text.strip()!r}: {again}")
        given[what] = word
        if word in ("radius", "jump"):
            if i + 1 >= len(rest) or not _is_number(rest[i + 1]):
                raise PathError(f"{text.strip()!r}: {word!r} needs a number after it")
            value = _int(rest[i + 1])
            if word == "radius":
                if fields["kind"] != "corner":
                    raise PathError(f"{text.strip()!r}: only a corner has a radius")
                if not 1 <= value <= MAX_RADIUS:
                    raise PathError(f"{text.strip()!r}: a corner's radius is 1 to {MAX_RADIUS}, not {value}")
                fields["radius"] = value
            else:
                if not MIN_GEAR <= value <= MAX_GEAR:
                    raise PathError(f"{text.strip()!r}: a jump's gear is {MIN_GEAR} to {MAX_GEAR}, not {value}")
                fields["jump"] = value
            i += 2
            continue
        if word == "caution":
            if fields["kind"] != "corner":
                raise PathError(f"{text.strip()!r}: 'caution' marks a corner's limits; a straight has none")
            fields["caution"] = True
        elif word in ("pit", "slide", "water"):
            fields[word] = True
        elif word in {s.value for s in Surface}:
            fields["surface"] = Surface(word)
        elif word in {d.value for d in Danger}:
            fields["danger"] = Danger(word)
        else:
            raise PathError(f"{text.strip()!r}: unknown word {word!r}")
        i += 1
    return Segment(**fields)


def split_segments(text: str) -> list[str]:
    return text.split(",")


def _along(a: Hex, b: Hex, heading: int) -> int | None:
    """t with b = a + t * DIRECTIONS[heading], or None when b is not on that line."""
    d = DIRECTIONS[heading % 6]
    diff = b - a
    for t in range(-200, 201):
        if diff == d.scaled(t):
            return t
    return None


def lay_out(
    start: Hex, heading: int, lanes: int, segments: list[Segment], surface: Surface, danger: Danger
) -> tuple[Cell, ...]:
    """The cells of a path, in laying order (per segment, lane by lane); raises PathError
    (with the segment's number) for a path that comes back over itself."""
    return lay_out_numbered(start, heading, lanes, segments, surface, danger)[0]


def lay_out_numbered(
    start: Hex, heading: int, lanes: int, segments: list[Segment], surface: Surface, danger: Danger
) -> tuple[tuple[Cell, ...], tuple[int, ...]]:
    """As :func:`lay_out`, with the 1-based number of the segment that lays each cell."""
    if not 1 <= lanes <= MAX_LANES:
        raise PathError(f"a path has 1 to {MAX_LANES} lanes")
    heads = [start]
    for i in range(1, lanes):
        heads.append(heads[-1] + DIRECTIONS[(heading + (1 if i % 2 else 2)) % 6])
    heads = [h - DIRECTIONS[heading] for h in heads]  # the cells "before" the path
    h = heading
    laid: dict[Hex, Cell] = {}
    order: list[Cell] = []
    numbers: list[int] = []

    def put(number: int, seg: Segment, cell: Cell) -> None:
        if cell.hex in laid:
            raise PathError(
                f"segment {number} comes back onto cell {cell.hex} (laid before): the path crosses itself", number
            )
        if len(order) >= MAX_CELLS:
            raise PathError(
                f"segment {number} lays cell {MAX_CELLS + 1}: a track holds at most {MAX_CELLS} cells", number
            )
        cell = replace(
            cell,
            surface=seg.surface or surface,
            danger=seg.danger or danger,
            pit=seg.pit,
            slide=seg.slide,
            water=seg.water,
            jump=seg.jump,
        )
        laid[cell.hex] = cell
        order.append(cell)
        numbers.append(number)

    for number, seg in enumerate(segments, 1):
        if seg.kind == "straight":
            for lane in range(lanes):
                for k in range(1, seg.length + 1):
                    put(number, seg, Cell(heads[lane] + DIRECTIONS[h].scaled(k), h, lane + 1))
                heads[lane] = heads[lane] + DIRECTIONS[h].scaled(seg.length)
            continue
        if len(seg.limits) not in (1, lanes):
            raise PathError(
                f"segment {number}: {len(seg.limits)} limits for {lanes} lanes (give one limit, or one per lane from "
                "the inside lane out)",
                number,
            )
        right = seg.turn == "right"
        sign = 1 if right else -1
        steps = seg.degrees // 60
        ray = (h - sign) % 6  # from the pivot to each lane's first ring corner
        inside = lanes - 1 if right else 0
        radius = {lane: seg.radius + abs(lane - inside) for lane in range(lanes)}
        pivot = heads[inside] + DIRECTIONS[h] - DIRECTIONS[ray].scaled(seg.radius)
        reach = {}
        for lane in range(lanes):
            t = _along(heads[lane], pivot + DIRECTIONS[ray].scaled(radius[lane]), h)
            if t is None:  # (cannot happen: lanes are one row apart)
                raise PathError(f"segment {number}: the lanes are not side by side", number)
            reach[lane] = t
        shift = 1 - min(reach.values())
        pivot = pivot + DIRECTIONS[h].scaled(shift)
        limit_of = {
            lane: seg.limits[0] if len(seg.limits) == 1 else seg.limits[abs(lane - inside)] for lane in range(lanes)
        }
        for lane in range(lanes):
            d = radius[lane]
            for k in range(1, reach[lane] + shift):
                put(number, seg, Cell(heads[lane] + DIRECTIONS[h].scaled(k), h, lane + 1))
            corner = pivot + DIRECTIONS[ray].scaled(d)
            limit, caution = limit_of[lane], seg.caution
            heading_now = h
            for j in range(1, steps + 1):
                heading_now = (h + sign * j) % 6
                put(number, seg, Cell(corner, heading_now, lane + 1, limit=limit, caution=caution))
                if j < steps:
                    for k in range(1, d):
                        put(
                            number,
                            seg,
                            Cell(
                                corner + DIRECTIONS[heading_now].scaled(k),
                                heading_now,
                                lane + 1,
                                limit=limit,
                                caution=caution,
                            ),
                        )
                    corner = corner + DIRECTIONS[heading_now].scaled(d)
            last = corner + DIRECTIONS[heading_now]
            put(number, seg, Cell(last, heading_now, lane + 1, limit=limit, caution=caution))
            heads[lane] = last
        h = (h + sign * steps) % 6
    return tuple(order), tuple(numbers)
