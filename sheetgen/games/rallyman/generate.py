"""New Rallyman tracks from the tiles you own: `sheetgen generate rallyman --library LIB`.

A track is laid from the library's tiles (`layout`: each tile forward or turned round, turned
to meet the one before), no tile more often than the box holds (`Box`: the `--box` file, or
the library's own `count`s; the two faces of one tile, Rekee's 102a and 102b, share one
count), as a point-to-point stage (a start tile, road, a finish tile) or a circuit (closing
through its start and finish back on itself, driven for its laps), of a length in cells
(`len(track.cells)`, what `validate` counts), its tiles' outlines inside a table of the
given size laid as they are, no two tiles on one place and no road running into a tile
beside it.

A circuit is also laid whole, as a loop of corners all turning one way joined by straights
in numbers that close it by construction (`loop_layouts`), where a tile driven the other way
may meet one laid as drawn with the road stepping one row sideways; an easy circuit is laid
that way first (the piece-by-piece search seldom closes a circuit of gentle corners).

Each layout is written as an ordinary track spec, loaded back and checked by the track's own
checks (what `validate --strict` says), then rated by the exact analysis and kept only when it
is in the requested difficulty band: GT tracks by the exact par solve (`rate_gt`, `BANDS`: the
delay against a straight as long, the par policy's losses of control a lap and its worst cell,
the dangerous corners), DIRT tracks by the exact DIRT par solve (`rate_dirt`, `DIRT_BANDS`: the
delay against a DIRT straight, the losses of control a step, the dangerous corners); a cheap
guess from the pieces passes over layouts far outside the band unsolved
(docs/rallyman_generate.md says how each band was calibrated).

Every random choice comes from ``random.Random(seed)``; the same library, box and options
give the same file, byte for byte. Work is bounded by counts, never by a clock: `MAX_SEARCH`
search steps in all (`MAX_NODES` a layout), `MAX_LOOPS` loops, and `SOLVE_BUDGET` cells x laps
of exact GT solves (a GT track of at most `MAX_SOLVE_SIZE` cells x laps) or `DIRT_SOLVE_BUDGET`
cells of DIRT solves, so that a request is answered in a
few seconds of CPU (benchmarks/bench_rallyman_generate.py) or refused saying which
constraint failed.
"""

from __future__ import annotations

import itertools
import math
import os
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from sheetgen.errors import SheetgenError
from sheetgen.games.rallyman.hexgrid import DIRECTIONS, Hex, place
from sheetgen.games.rallyman.layout import Laid, Piece, cell_radius_mm, meet, pieces_of, table_fits
from sheetgen.games.rallyman.model import Library, Surface, TileDef, Variant

DIFFICULTIES = ("easy", "medium", "hard")
#: cells of a generated track by default (a stage of about 10 tiles, a circuit of about 12)
DEFAULT_LENGTH = (50, 90)
#: the table by default, cm: a dining table
DEFAULT_TABLE = (150.0, 90.0)
#: the size of a space across flats, mm, the tables are measured with (the printed size,
#: the rallyman template's hex_mm default; measure your box's and say --table accordingly)
SPACE_MM = 30.0
#: search steps of one layout before it is given up
MAX_NODES = 80
#: the share of its length after which a circuit's search lays the pieces heading home first
HOMING = 0.45
#: search steps of all the layouts of one request
MAX_SEARCH = 12000
#: the largest GT track (cells x laps) a request lays: its exact solve takes about 0.01 s of
#: CPU a cell x lap with the compiled kernel (docs/benchmarks.md)
MAX_SOLVE_SIZE = 300
#: cells of a generated track at most (and at least)
MIN_CELLS, MAX_CELLS = 12, 400
#: a DIRT track's length is held to what the exact DIRT solves of a request take
MAX_DIRT_CELLS = 150


class GenerateError(SheetgenError):
    """No track could be generated for these options; the message names the constraint."""


# -- the box -------------------------------------------------------------------------------


def physical(tile: TileDef) -> str:
    """The physical tile `tile` is a face of: the catalogue number of its Rekee id (102a and
    102b are the two faces of tile 102), else its own id (a tile of one face)."""
    rekee = tile.rekee_id
    return rekee[:3] if rekee is not None else tile.id


@dataclass(frozen=True)
class Box:
    """How many of each physical tile the box holds (`physical`)."""

    counts: dict[str, int]
    source: str  # where the counts come from, for messages: "box.yaml" or "the library's counts"

    def holds(self, tile: TileDef) -> int:
        return self.counts.get(physical(tile), 0)


def library_box(library: Library, name: str) -> Box | None:
    """The box the library's own `count`s describe, or None when it gives none."""
    counts = {physical(t): t.count for t in library.tiles if t.count is not None}
    return Box(counts, f"the counts of {name}") if counts else None


def load_box(path: str, library: Library) -> Box:
    """`--box FILE`: a YAML mapping of tiles to counts. A key is a library tile's id (its
    physical tile is counted: either face of a two-faced tile) or a Rekee catalogue number
    (`"102"`: both faces); each value a count 0-99. Every problem at its line and column."""
    from sheetgen.errors import SpecError
    from sheetgen.yamlsrc import load_file

    doc = load_file(path)
    data = doc.data
    if not isinstance(data, dict):
        raise SpecError([doc.problem((), "a box file is a mapping of tile ids to counts, such as 'sg-s2: 4'")])
    by_id = {t.id: physical(t) for t in library.tiles}
    numbers = {physical(t) for t in library.tiles}
    counts: dict[str, int] = {}
    problems = []
    for key, value in data.items():
        name = str(key)
        target = by_id.get(name, name if name in numbers else None)
        if target is None:
            problems.append(doc.problem((key,), f"tile {name!r} is not in the library", key=True))
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
            problems.append(doc.problem((key,), f"the count of tile {name!r} is a whole number 0 to 99, got {value!r}"))
            continue
        if target in counts:
            problems.append(doc.problem((key,), f"tile {target!r} is counted twice (both faces share one count)"))
            continue
        counts[target] = value
    if problems:
        raise SpecError(problems)
    return Box(counts, path)


# -- requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    variant: Variant
    laps: int | None  # None: a point-to-point stage
    length: tuple[int, int]
    table: tuple[float, float]  # cm
    difficulty: str
    seed: int

    @property
    def circuit(self) -> bool:
        return self.laps is not None

    @property
    def what(self) -> str:
        kind = f"circuit of {self.laps} lap{'s' if self.laps != 1 else ''}" if self.circuit else "stage"
        article = "an" if self.difficulty == "easy" else "a"
        return (
            f"{article} {self.difficulty} {self.variant.value.upper()} {kind} of {self.length[0]}..{self.length[1]} "
            "cells"
        )


def parse_length(text: str) -> tuple[int, int]:
    """--length MIN..MAX (cells)."""
    parts = str(text).split("..")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"expected MIN..MAX cells such as 50..90, got {text!r}")
    lo, hi = (int(p) for p in parts)
    if not MIN_CELLS <= lo <= hi <= MAX_CELLS:
        raise ValueError(f"expected {MIN_CELLS} <= MIN <= MAX <= {MAX_CELLS}, got {lo}..{hi}")
    return (lo, hi)


def parse_table(text: str) -> tuple[float, float]:
    """--table WxH in centimetres (such as 150x90)."""
    parts = str(text).lower().split("x")
    try:
        w, h = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"expected WIDTHxHEIGHT in cm such as 150x90, got {text!r}") from None
    if not (10 <= w <= 1000 and 10 <= h <= 1000):
        raise ValueError(f"expected a table of 10 to 1000 cm each way, got {text!r}")
    return (w, h)


# -- laying tiles --------------------------------------------------------------------------


@dataclass
class _Pieces:
    starts: list[Piece]
    finishes: list[Piece]
    loops: list[Piece]  # a circuit's start and finish on one tile
    road: list[Piece]
    frame: str = "standard"
    meets: dict[tuple[tuple[str, bool], tuple[str, bool]], bool] = field(default_factory=dict)
    shifted: dict[tuple[tuple[str, bool], tuple[str, bool]], bool] = field(default_factory=dict)  # meet(shift=True)

    def meet(self, a: Piece, b: Piece, shift: bool = False) -> bool:
        """`layout.meet`, worked out once per pair (and `shift`)."""
        known = self.shifted if shift else self.meets
        key = (a.key, b.key)
        if key not in known:
            known[key] = meet(a, b, self.frame, shift)
        return known[key]

    def follows(self, a: Piece) -> list[Piece]:
        """The pieces that meet `a` (worked out once per pair)."""
        out = []
        for b in self.road + self.finishes + self.loops + self.starts:
            key = (a.key, b.key)
            if key not in self.meets:
                self.meets[key] = meet(a, b, self.frame)
            if self.meets[key]:
                out.append(b)
        return out


def usable_pieces(library: Library, variant: Variant) -> _Pieces:
    """The pieces a track of `variant` may be laid from: a GT track takes no tile with DIRT
    spaces or off asphalt, a DIRT track none with a pit lane; a start or finish is laid the
    way the library draws it."""
    out = _Pieces([], [], [], [])
    for tile in library.tiles:
        dirt = any(c.slide or c.shortcut is not None or c.jump is not None or c.water for c in tile.cells)
        off_road = any(c.surface is not Surface.ASPHALT for c in tile.cells)
        if variant is Variant.GT and (dirt or off_road):  # the GT rulebook has no gravel or snow
            continue
        if variant is Variant.DIRT and any(c.pit for c in tile.cells):
            continue
        for p in pieces_of(tile, library.frame):
            if (p.start or p.finish) and p.reverse:
                continue
            if p.start and p.finish:
                out.loops.append(p)
            elif p.start:
                out.starts.append(p)
            elif p.finish:
                out.finishes.append(p)
            else:
                out.road.append(p)
    out.frame = library.frame
    return out


def severity(piece: Piece) -> int:
    """How hard a piece is to drive, 0 (no corner) to 5: 6 less its lowest corner limit,
    one more for a caution, a jump, water or a slide zone."""
    limits = [c.limit for c in piece.cells if c.limit is not None]
    base = 6 - min(limits) if limits else 0
    extra = any(c.caution or c.jump is not None or c.water or c.slide for c in piece.cells)
    return min(5, base + (1 if extra else 0))


#: how much each difficulty leans toward hard pieces: a piece of severity s gets weight
#: LEAN[difficulty] ** s (a straight weight 1); a circuit, whose corners cost more (it needs
#: six to come round), starts CIRCUIT_LEAN times gentler
LEAN = {"easy": 0.3, "medium": 1.0, "hard": 1.9}
CIRCUIT_LEAN = 0.6


def _ordered(rng: random.Random, pieces: list[Piece], lean: float) -> list[Piece]:
    """`pieces` in a random order weighted by lean ** severity (Efraimidis-Spirakis keys)."""
    keyed = [(rng.random() ** (1.0 / (lean ** severity(p))), i) for i, p in enumerate(pieces)]
    return [pieces[i] for _k, i in sorted(keyed, reverse=True)]


class _Search:
    """One layout: a depth-first search over pieces, in a seeded order, within a step budget."""

    def __init__(self, library: Library, pieces: _Pieces, box: Box, request: Request, rng: random.Random, lean: float):
        self.frame = library.frame
        self.pieces = pieces
        self.box = box
        self.request = request
        self.rng = rng
        self.lean = lean
        self.size = cell_radius_mm(SPACE_MM)
        self.table_mm = (request.table[0] * 10, request.table[1] * 10)
        self.laid: list[Laid] = []
        self.at: dict[tuple[int, int], Laid] = {}
        self.cells: Counter[Hex] = Counter()
        self.used: Counter[str] = Counter()
        self.nodes = 0
        lo, hi = request.length
        self.target = rng.randint(lo, hi)
        self.new_cells = min((len(p.cells) for p in pieces.road), default=1) - 3  # less the shared half cells
        self.why: Counter[str] = Counter()

    # cells -----------------------------------------------------------------------------
    def _add(self, item: Laid) -> None:
        self.laid.append(item)
        self.at[(item.q, item.r)] = item
        for c in item.piece.cells:
            self.cells[place(c.hex, item.q, item.r, item.rotation, self.frame)] += 1
        self.used[physical(item.piece.tile)] += 1

    def _remove(self) -> None:
        item = self.laid.pop()
        del self.at[(item.q, item.r)]
        for c in item.piece.cells:
            h = place(c.hex, item.q, item.r, item.rotation, self.frame)
            self.cells[h] -= 1
            if not self.cells[h]:
                del self.cells[h]
        self.used[physical(item.piece.tile)] -= 1

    def _fits(self, p: Piece, q: int, r: int, rotation: int, allowed: tuple[int, int] | None) -> bool:
        """Whether p can lie at (q, r) turned by `rotation`: its place free, the box not
        empty, no road running into a tile beside it (but the one it comes from and, closing
        a circuit, `allowed`), the whole inside the table."""
        if self.used[physical(p.tile)] >= self.box.holds(p.tile):
            self.why["box"] += 1
            return False
        prev = self.laid[-1]
        for d in range(6):
            n = (q + DIRECTIONS[d].q, r + DIRECTIONS[d].r)
            other = self.at.get(n)
            if other is None or other is prev or n == allowed:
                continue
            if (d - rotation) % 6 in p.open_sides or (d + 3 - other.rotation) % 6 in other.piece.open_sides:
                self.why["crossing"] += 1
                return False
        if not table_fits([*self.laid, Laid(p, q, r, rotation)], self.frame, self.size, self.table_mm):
            self.why["table"] += 1
            return False
        return True

    def run(self) -> list[Laid] | None:
        req = self.request
        firsts = self.pieces.loops if req.circuit and self.pieces.loops else self.pieces.starts
        for first in _ordered(self.rng, firsts, 1.0):
            if self.box.holds(first.tile) < 1:
                self.why["box"] += 1
                continue
            self._add(Laid(first, 0, 0, 0))
            if first.finish and first.start:
                found = self._extend(closing=True, loop=True)
            else:
                found = self._extend(closing=req.circuit, loop=False)
            if found:
                return list(self.laid)
            self._remove()
        return None

    def _extend(self, closing: bool, loop: bool) -> bool:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return False
        last = self.laid[-1]
        if last.out is None:
            return False
        lo, hi = self.request.length
        count = len(self.cells)
        d = DIRECTIONS[last.out]
        q, r = last.q + d.q, last.r + d.r
        first = self.laid[0]
        if closing and (q, r) == (first.q, first.r):
            # the road comes round to the first tile: it closes when it meets it as laid
            done_piece = last.piece.finish if not loop else True
            if (
                done_piece
                and lo <= count <= hi
                and meet(last.piece, first.piece, self.frame)
                and (last.out + 3 - (first.piece.entry or 0)) % 6 == first.rotation
            ):
                return True
            return False
        if (q, r) in self.at:
            return False
        if count > hi:
            return False
        if closing:
            gap = _tile_distance((q, r), (first.q, first.r))
            if gap * max(self.new_cells, 1) > hi - count + 6:
                self.why["length"] += 1
                return False
        options = self.pieces.follows(last.piece)
        road = [p for p in options if not (p.start or p.finish)]
        ends: list[Piece] = []
        if not closing and count >= self.target - 12:
            ends = [p for p in options if p.finish and not p.start]
        elif closing and not loop and count >= self.target - 12:
            ends = [p for p in options if p.finish and not p.start]
        ordered = _ordered(self.rng, road, self.lean)
        if closing and count >= self.target * HOMING:
            # past this share of its length a circuit heads home: the pieces whose road
            # leaves toward the first tile first (in the seeded order among equals)
            turned = last.out + 3

            def home(p: Piece) -> int:
                if p.exit is None:
                    return 0
                out = DIRECTIONS[(p.exit + turned - (p.entry or 0)) % 6]
                return _tile_distance((q + out.q, r + out.r), (first.q, first.r))

            # nearest home first; among those, the gentler pieces first when leaning easy
            ordered.sort(key=lambda p: (home(p), severity(p) if self.lean < 1 else 0))
        for p in ends + ordered:
            self.nodes += 1
            if self.nodes > MAX_NODES:
                return False
            rotation = (last.out + 3 - (p.entry or 0)) % 6
            allowed = (first.q, first.r) if closing else None
            if not self._fits(p, q, r, rotation, allowed):
                continue
            self._add(Laid(p, q, r, rotation))
            if p.finish and not closing:
                if lo <= len(self.cells) <= hi:
                    return True
                self.why["length"] += 1
            elif p.finish:  # a circuit's finish tile: the start tile must follow it
                if self._extend(closing, loop=True):
                    return True
            elif self._extend(closing, loop):
                return True
            self._remove()
            if self.nodes > MAX_NODES:
                return False
        return False


def _tile_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def layouts(
    library: Library,
    pieces: _Pieces,
    box: Box,
    request: Request,
    rng: random.Random,
    lean: list[float],
    why: Counter[str],
) -> Iterator[list[Laid]]:
    """Layouts of the request, one search each, within `MAX_SEARCH` search steps in all;
    `lean[0]` is read afresh for each (a rating that missed leans the next ones), and every
    piece refused is counted in `why` by the constraint that refused it."""
    nodes = 0
    while nodes < MAX_SEARCH:
        search = _Search(library, pieces, box, request, random.Random(rng.getrandbits(64)), lean[0])
        found = search.run()
        nodes += max(search.nodes, 1)
        why.update(search.why)
        if found is not None:
            yield found


#: loop layouts (`loop_layouts`) a circuit request tries, and the closing ways of straights
#: each tries on the table
MAX_LOOPS = 80
MAX_CLOSINGS = 6
#: a loop may let the road step one row sideways where a tile driven the other way meets one
#: laid as drawn (`layout.meet`); the piece-by-piece search does not
SHIFT = True


def _closings(headings: list[int], most: int) -> list[tuple[int, ...]]:
    """The ways to put at most `most` straights into the loop's runs so that it closes: run j
    heads `headings[j]` and holds its corner's tile (the grid's run, run 0, the grid too) and
    x_j straights; the loop closes when the runs' tiles, each a step of the tile lattice in
    its run's heading, add up to no step at all."""
    k = len(headings)
    found: list[tuple[int, ...]] = []

    def walk(j: int, left: int, q: int, r: int, xs: list[int]) -> None:
        if j == k:
            if q == 0 and r == 0:
                found.append(tuple(xs))
            return
        d = DIRECTIONS[headings[j]]
        base = 2 if j == 0 else 1
        for x in range(left + 1):
            xs.append(x)
            walk(j + 1, left - x, q + (base + x) * d.q, r + (base + x) * d.r, xs)
            xs.pop()

    walk(0, most, 0, 0, [])
    return found


def loop_layouts(
    library: Library,
    pieces: _Pieces,
    box: Box,
    request: Request,
    rng: random.Random,
    lean: list[float],
    why: Counter[str],
) -> Iterator[list[Laid]]:
    """Circuits laid as a loop closing by construction: from a circuit's start and finish tile
    (`pieces.loops`), corners all turning one way whose turns come to a full turn (drawn by
    `lean[0]`, read afresh for each loop, as the search draws pieces), in a seeded order, and
    straights between them in numbers that close the loop on the tile lattice (`_closings`);
    then laid tile by tile and checked as the search checks a piece (the box, its
    neighbours, the table) and against the length. A loop of corners all one way never
    crosses itself; corners with no straight between them make a longer bend."""
    firsts = [p for p in pieces.loops if box.holds(p.tile) >= 1]
    if not request.circuit or not firsts:
        return
    lo, hi = request.length
    for _attempt in range(MAX_LOOPS):
        first = _ordered(rng, firsts, 1.0)[0]
        both = [p for p in pieces.road if pieces.meet(first, p, SHIFT) and pieces.meet(p, first, SHIFT)]
        corners = [p for p in both if p.turn != 0]
        straights = [p for p in both if p.turn == 0]
        sign = rng.choice((1, -1))
        supply = Counter({physical(p.tile): box.holds(p.tile) for p in both})
        supply[physical(first.tile)] -= 1
        chosen: list[Piece] = []
        turned = 0
        while turned < 6:
            fits = [
                p for p in corners if p.turn * sign > 0 and turned + abs(p.turn) <= 6 and supply[physical(p.tile)] > 0
            ]
            if not fits:
                break
            p = _ordered(rng, fits, lean[0])[0]
            chosen.append(p)
            supply[physical(p.tile)] -= 1
            turned += abs(p.turn)
        if turned < 6:
            why["box"] += 1
            continue
        rng.shuffle(chosen)
        headings = [0]
        for p in chosen[:-1]:
            headings.append((headings[-1] + p.turn) % 6)
        most = sum(max(supply[t], 0) for t in {physical(p.tile) for p in straights})
        ways = _closings(headings, most)
        if not ways:
            why["length"] += 1
            continue
        rng.shuffle(ways)
        for xs in ways[:MAX_CLOSINGS]:
            laid = _lay_loop(library, pieces, box, request, rng, lean[0], first, chosen, straights, xs, why)
            if laid is not None and lo <= laid[1] <= hi:
                yield laid[0]
                break
            if laid is not None:
                why["length"] += 1


def _lay_loop(
    library: Library,
    pieces: _Pieces,
    box: Box,
    request: Request,
    rng: random.Random,
    lean: float,
    first: Piece,
    chosen: list[Piece],
    straights: list[Piece],
    xs: tuple[int, ...],
    why: Counter[str],
) -> tuple[list[Laid], int] | None:
    """The loop `first`, then run 0's straights, corner 0, run 1's straights ... the last
    corner and the rest of run 0's straights, laid and checked piece by piece; with its cells."""
    search = _Search(library, pieces, box, request, random.Random(rng.getrandbits(64)), lean)
    before = rng.randint(0, xs[0])
    runs = [before, *xs[1:], xs[0] - before]  # straights before corner 0, after each corner
    order: list[Piece | None] = []
    for j, n in enumerate(runs):
        order.extend([None] * n)
        if j < len(chosen):
            order.append(chosen[j])
    search._add(Laid(first, 0, 0, 0))
    for k, p in enumerate(order):
        last = search.laid[-1]
        if last.out is None:
            return None
        d = DIRECTIONS[last.out]
        q, r = last.q + d.q, last.r + d.r
        if (q, r) in search.at:
            why["crossing"] += 1
            return None
        allowed = (0, 0) if k == len(order) - 1 else None
        if p is not None:
            options = [p]
        else:  # a straight that meets the road as laid first: the road steps sideways at corners only
            options = sorted(_ordered(rng, straights, lean), key=lambda o: not pieces.meet(last.piece, o))
        for option in options:
            rotation = (last.out + 3 - (option.entry or 0)) % 6
            if pieces.meet(last.piece, option, SHIFT) and search._fits(option, q, r, rotation, allowed):
                search._add(Laid(option, q, r, rotation))
                break
        else:
            return None
    end = search.laid[-1]
    home = DIRECTIONS[end.out] if end.out is not None else None
    if home is None or (end.q + home.q, end.r + home.r) != (0, 0) or not pieces.meet(end.piece, first, SHIFT):
        return None
    return list(search.laid), len(search.cells)


# -- spec text -----------------------------------------------------------------------------


def spec_text(laid: list[Laid], request: Request, library_path: str, name: str, command: str, notes: list[str]) -> str:
    from sheetgen import __version__
    from sheetgen.yamlsrc import dump

    head = [
        f"# Generated by sheetgen {__version__}: {command}",
        "# The same command rebuilds this file byte for byte; edit it like any other spec.",
        *(f"# {n}" for n in notes),
    ]
    data: dict = {"game": "rallyman", "variant": request.variant.value, "name": name}
    if request.circuit:
        data["laps"] = request.laps
    data["library"] = library_path
    lines = []
    for item in laid:
        extra = ", reverse: true" if item.piece.reverse else ""
        lines.append(
            f"  - {{id: {_yaml_id(item.piece.tile.id)}, q: {item.q}, r: {item.r}, rotation: {item.rotation}{extra}}}"
        )
    return "\n".join(head) + "\n" + dump(data) + "tiles:\n" + "\n".join(lines) + "\n"


def _yaml_id(text: str) -> str:
    """A tile id as a YAML flow scalar (quoted when YAML would read it as something else)."""
    import yaml

    plain = yaml.safe_load(f"[{text}]")
    return text if plain == [text] else '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- rating --------------------------------------------------------------------------------

#: the exact par of a two-lane GT straight of n steps (2n cells) is STRAIGHT_START +
#: STRAIGHT_PER_STEP x n seconds within 0.3 s from 20 steps up (fitted to the exact solves of
#: straights of 20 to 200 steps: 44.0 s at 20, 99.1 at 50, 191.2 at 100, 375.2 at 200;
#: tests/test_rallyman_generate.py checks two of them)
STRAIGHT_START = 7.07
STRAIGHT_PER_STEP = 1.8406
#: a dangerous corner: a cell where par play loses control this often or more
DANGER = 0.02


@dataclass(frozen=True)
class Band:
    """A difficulty band: each (low, high) holds low <= value < high."""

    delay: tuple[float, float]
    lose_per_lap: tuple[float, float]
    worst: tuple[float, float]


#: GT bands on the exact figures (docs/rallyman_generate.md: how they were calibrated)
BANDS = {
    "easy": Band((-1.0, 0.25), (0.0, 0.08), (0.0, 0.03)),
    "medium": Band((0.25, 0.85), (0.0, 0.20), (0.0, 1.0)),
    "hard": Band((0.85, 99.0), (0.03, 99.0), (DANGER, 1.0)),
}

#: the exact par of a two-lane gravel DIRT straight of n steps is DIRT_STRAIGHT_START +
#: DIRT_STRAIGHT_PER_STEP x n seconds within 0.1 s from 20 to 60 steps (least squares over the
#: exact solves of straights of 20, 30, 40 and 60 steps: 58.92, 88.52, 118.41, 178.02 s)
DIRT_STRAIGHT_START = -0.73
DIRT_STRAIGHT_PER_STEP = 2.9786


@dataclass(frozen=True)
class DirtBand:
    """A DIRT difficulty band on the exact DIRT analysis: each (low, high) holds low <= value < high."""

    delay: tuple[float, float]
    lose_per_step: tuple[float, float]


#: DIRT bands on the exact figures (docs/rallyman_generate.md: calibrated on 75 generated stages,
#: benchmarks/calibrate_rallyman_dirt.py: the delay's tertiles and the losses' 90th and 10th
#: percentiles within them)
DIRT_BANDS = {
    "easy": DirtBand((-1.0, 0.09), (0.0, 0.03)),
    "medium": DirtBand((0.09, 0.58), (0.0, 0.04)),
    "hard": DirtBand((0.58, 99.0), (0.03, 99.0)),
}


@dataclass(frozen=True)
class Rating:
    """What a track's band is judged on. GT: `delay` (par less the par of a straight as long,
    per step of the race), `lose_per_lap` (expected losses of control under par play, per lap),
    `worst` (the most often par play loses control on one cell), `dangerous` (cells where it
    does so DANGER or more often), all exact; DIRT the same figures of the exact DIRT analysis,
    its delay against a DIRT straight and its losses of control a step (`lose_per_step`; the
    stage is driven once), its dangerous cells the corner cells among them; `severity`, the
    features' guess, is kept for messages."""

    variant: Variant
    steps: int  # moves from start to finish, times the laps
    par: float | None = None
    delay: float = 0.0
    lose_per_lap: float = 0.0
    worst: float = 0.0
    dangerous: tuple[str, ...] = ()
    severity: float = 0.0
    corners: int = 1
    cells: int = 1  # cells x laps
    lose_per_step: float = 0.0

    def words(self) -> str:
        hot = ", ".join(self.dangerous) if self.dangerous else "none"
        par = self.par or 0.0
        losses = (
            f"{self.lose_per_step:.4f} losses of control a step"
            if self.variant is Variant.DIRT
            else f"{self.lose_per_lap:.3f} losses of control a lap"
        )
        what = "dangerous corners" if self.variant is Variant.DIRT else "dangerous cells"
        return (
            f"par {par:.1f} s ({par / self.cells:.2f} s a cell), delay {self.delay:.3f} s/step over {self.steps} "
            f"steps, {losses}, worst cell {self.worst:.3f}; {what}: {hot}"
        )


def in_band(rating: Rating, difficulty: str) -> bool:
    """Whether the rating is inside the band (a track without a corner is in none: ruling RM-22)."""
    if rating.corners < 1:
        return False
    if rating.variant is Variant.DIRT:
        dirt = DIRT_BANDS[difficulty]
        return all(
            low <= value < high
            for value, (low, high) in ((rating.delay, dirt.delay), (rating.lose_per_step, dirt.lose_per_step))
        )
    band = BANDS[difficulty]
    return all(
        low <= value < high
        for value, (low, high) in (
            (rating.delay, band.delay),
            (rating.lose_per_lap, band.lose_per_lap),
            (rating.worst, band.worst),
        )
    )


def leaning(rating: Rating, difficulty: str) -> int:
    """+1 when the track is easier than the band, -1 when harder, 0 inside it."""
    if in_band(rating, difficulty):
        return 0
    if rating.corners < 1:
        return 1
    low = DIRT_BANDS[difficulty].delay[0] if rating.variant is Variant.DIRT else BANDS[difficulty].delay[0]
    return 1 if rating.delay < low else -1


def road_steps(track) -> int:
    """Moves from the start to the farthest cell, plus one: the road's length in steps."""
    steps = track.steps()
    return max(steps.values()) + 1 if steps else 0


#: the GT delay (s/step) guessed from the pieces: GUESS_SLOPE x (the pieces' severity per
#: step of road); fitted to the exact delays of 40 generated stages (docs/rallyman_generate.md),
#: off by up to about 0.5 s/step, so a layout is solved unless its guess is GUESS_MARGIN or
#: more outside the band
GUESS_SLOPE = 1.3
#: a circuit's corners cost more for their severity (no long run-up, every lap): 1.9, fitted
#: to 18 generated 2-lap circuits (their exact delay 1.15 to 2.0 times 1.3 x severity per step)
GUESS_SLOPE_CIRCUIT = 1.9
GUESS_MARGIN = 0.35


def predicted_delay(laid: list[Laid], track, circuit: bool = False) -> float:
    steps = road_steps(track)
    slope = GUESS_SLOPE_CIRCUIT if circuit else GUESS_SLOPE
    return slope * sum(severity(item.piece) for item in laid) / steps if steps else 0.0


def rate_gt(track) -> Rating | None:
    """A GT track's rating from its exact figures (None: the exact solve does not take it)."""
    from sheetgen.games.rallyman.figures import solved

    got = solved(track)
    if got is None or got["analysis"] is None:
        return None
    par = got["analysis"]["par"]
    steps = road_steps(track) * track.laps
    seconds = par["expected_seconds"]
    worst = max((d["lose_control"] for d in par["dangerous_cells"]), default=0.0)
    return Rating(
        Variant.GT,
        steps,
        seconds,
        (seconds - (STRAIGHT_START + STRAIGHT_PER_STEP * steps)) / steps,
        par["lose_control_expected"] / track.laps,
        worst,
        tuple(f"({d['q']}, {d['r']})" for d in par["dangerous_cells"] if d["lose_control"] >= DANGER),
        corners=len(track.corners()),
        cells=len(track.cells) * track.laps,
    )


def dirt_features(track) -> float:
    """A DIRT track's severity per step: over its corners, 6 less the corner's lowest limit
    (the outside lane's limit counts when it is the one a car takes: the highest of the
    lanes'), one more for a caution; over its jumps, water and slide zones, 1 each; all over
    the road's steps. Read off the cells; no solve."""
    total = 0.0
    for corner in track.corners():
        limits = [c.limit for c in corner.cells if c.limit is not None]
        if limits:
            total += 6 - max(limits) + (1 if any(c.caution for c in corner.cells) else 0)
    marks: dict[str, set[int | None]] = {"jump": set(), "water": set(), "slide": set()}  # by their tiles
    for c in track.cells:
        if c.jump is not None:
            marks["jump"].add(c.tile)
        if c.water:
            marks["water"].add(c.tile)
        if c.slide:
            marks["slide"].add(c.tile)
    total += sum(len(tiles) for tiles in marks.values())
    steps = road_steps(track)
    return total / steps if steps else 0.0


#: the DIRT delay (s/step) guessed from the features: DIRT_GUESS_SLOPE x `dirt_features`, the
#: least squares slope over the 75 calibration stages (off by up to 0.62 s/step)
DIRT_GUESS_SLOPE = 2.06


def rate_dirt(track) -> Rating | None:
    """A DIRT stage's rating from its exact DIRT analysis (`sheetgen analyze`'s par, rounded as
    it prints them; None: the solve does not take the stage). Its dangerous corners are the
    corner cells where par play loses control DANGER or more often (the worst cell is most
    often on a straight: flat out in top gear, about 10 % in every stage)."""
    from sheetgen.games.rallyman import solve, solve_dirt
    from sheetgen.games.rallyman.rules_dirt import DirtStage
    from sheetgen.games.rallyman.ruleset import ruleset_of

    if solve_dirt.too_large(track) is not None or solve.loop_reason(track) is not None:
        return None
    solved = solve_dirt.par(DirtStage(track, ruleset_of(track), damage=False))
    steps = road_steps(track)
    seconds = round(solved.time, 3)
    worst = round(max(solved.danger.values(), default=0.0), 4)
    corners = tuple(
        f"({d['q']}, {d['r']})"
        for d in solve.dangerous_cells(track, solved.danger, count=len(solved.danger))
        if d["lose_control"] >= DANGER and track.cell(Hex(d["q"], d["r"])).limit is not None
    )
    lose = round(sum(solved.danger.values()), 4)
    return Rating(
        Variant.DIRT,
        steps,
        seconds,
        (seconds - (DIRT_STRAIGHT_START + DIRT_STRAIGHT_PER_STEP * steps)) / steps,
        worst=worst,
        dangerous=corners,
        severity=dirt_features(track),
        corners=len(track.corners()),
        cells=len(track.cells),
        lose_per_step=lose / steps,
    )


# -- the request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    text: str
    rating: Rating
    tiles: tuple[tuple[str, int], ...]  # physical tiles used and how many


def check_request(library: Library, pieces: _Pieces, box: Box, request: Request) -> None:
    """Refuse at once what no layout can meet, saying which constraint fails."""
    lo, hi = request.length
    if request.variant is Variant.DIRT and request.circuit:
        # the DIRT engine finishes a car on the finish spaces, which a circuit's start lies just
        # behind: its exact par is a few seconds whatever the loop, so no band can be judged
        raise GenerateError(
            f"--laps {request.laps}: a generated Rallyman DIRT track is a stage, rated by the exact DIRT analysis, "
            "which drives a track from its start to its finish, not round a circuit; give --stage"
        )
    if library.variant is not None and library.variant is not request.variant:
        raise GenerateError(
            f"the library holds {library.variant.value.upper()} tiles; this is a {request.variant.value.upper()} track "
            f"(--variant {library.variant.value})"
        )
    if request.variant is Variant.GT and lo * (request.laps or 1) > MAX_SOLVE_SIZE:
        raise GenerateError(
            f"a GT track of {lo} cells x {request.laps or 1} laps is more than the {MAX_SOLVE_SIZE} cells x laps whose "
            "exact par is solved in the time a request has (size); ask for fewer cells or laps"
        )
    if request.variant is Variant.DIRT and lo > MAX_DIRT_CELLS:
        raise GenerateError(
            f"a DIRT track of {lo} cells is more than the {MAX_DIRT_CELLS} cells the exact DIRT solve takes (size); "
            "ask for fewer cells"
        )
    if request.circuit and not pieces.loops and not (pieces.starts and pieces.finishes):
        raise GenerateError("the library has no tile with a start (and a finish) for a circuit")
    if not request.circuit and not (pieces.starts and pieces.finishes):
        which = "start" if not pieces.starts else "finish"
        raise GenerateError(f"the library has no {which} tile for a {request.variant.value.upper()} stage")
    usable = {p.tile.id: p.tile for p in pieces.starts + pieces.finishes + pieces.loops + pieces.road}
    boxed = sum(box.holds(t) for t in usable.values())
    # the most cells a box's tiles can lay: each tile's cells, less the half cells it shares
    most = sum(box.holds(t) * max(len(t.cells) - 3, 0) for t in usable.values())
    if boxed == 0 or most + 6 < lo:
        raise GenerateError(
            f"the box ({box.source}) holds {boxed} road tile{'s' if boxed != 1 else ''}, about {most} cells of road: "
            f"fewer than the {lo} cells asked for (box); give a larger box or a shorter --length"
        )
    radius = cell_radius_mm(SPACE_MM) * (4 if library.frame == "standard" else 7) / 10  # a tile's, cm
    across = math.sqrt(3) * radius  # flat to flat
    if min(request.table) < across * (2 if request.circuit else 1):
        raise GenerateError(
            f"a table of {request.table[0]:g} x {request.table[1]:g} cm is too small (table): a tile is "
            f"{across:.1f} cm across and a {'circuit needs two side by side' if request.circuit else 'track one'}"
        )
    # the most tiles the table holds, rows of tiles one and a half radii apart, and the fewest
    # the road needs, each tile laying at most its cells less the three half cells it shares
    room = max(
        (int((w - across) // across) + 1) * (int((h - 2 * radius) // (1.5 * radius)) + 1)
        for w, h in (request.table, request.table[::-1])
    )
    widest = max(len(t.cells) for t in usable.values())
    fewest = math.ceil(lo / widest)
    if room < fewest:
        raise GenerateError(
            f"a table of {request.table[0]:g} x {request.table[1]:g} cm holds at most {room} tile"
            f"{'s' if room != 1 else ''} ({across:.1f} cm across): fewer than the {fewest} a road of {lo} cells needs "
            "(table); give a larger --table or a shorter --length"
        )


def generate_track(
    library: Library, library_path: str, box: Box, request: Request, folder: str, command: str, name: str
) -> Generated:
    """A track of `request` from the library's tiles, within the box, checked and in its
    band; GenerateError says which constraint failed when none is found in the budget."""
    from sheetgen.errors import SpecError
    from sheetgen.games.rallyman.graph import track_problems
    from sheetgen.registry import spec_of
    from sheetgen.yamlsrc import load_bytes

    pieces = usable_pieces(library, request.variant)
    check_request(library, pieces, box, request)
    # a longer MAX is held to what the exact solve takes (check_request refused a MIN beyond it)
    cap = MAX_DIRT_CELLS if request.variant is Variant.DIRT else MAX_SOLVE_SIZE // (request.laps or 1)
    request = replace(request, length=(request.length[0], min(request.length[1], cap)))
    where = os.path.normpath(os.path.join(os.path.abspath(folder), library_path))
    rng = random.Random(request.seed)
    lean = [LEAN[request.difficulty] * (CIRCUIT_LEAN if request.circuit else 1.0)]
    why: Counter[str] = Counter()
    tried = rejected = solved = skipped = 0
    budget = DIRT_SOLVE_BUDGET if request.variant is Variant.DIRT else SOLVE_BUDGET
    closest: Rating | None = None
    seen: set[tuple] = set()
    searched = layouts(library, pieces, box, request, rng, lean, why)
    looped = loop_layouts(library, pieces, box, request, rng, lean, why)
    # an easy circuit is laid as a loop first (the search seldom closes one of gentle corners:
    # docs/rallyman_generate.md), a harder one by the search first, the loops after it
    sources = (looped, searched) if request.circuit and request.difficulty == "easy" else (searched, looped)
    for laid in itertools.chain(*sources):
        key = tuple((item.piece.key, item.q, item.r, item.rotation) for item in laid)
        if key in seen:
            continue
        seen.add(key)
        tried += 1
        # checked with the library where it lies (the folder the spec goes into may not be made yet)
        text = spec_text(laid, request, where, name, command, [])
        try:
            spec = spec_of(load_bytes(text.encode("utf-8"), "generated.yaml"))
        except SpecError:
            rejected += 1
            continue
        if track_problems(spec.document, spec.model):
            rejected += 1
            continue
        track = spec.model
        if request.variant is Variant.GT:
            guess = predicted_delay(laid, track, request.circuit)
            low, high = BANDS[request.difficulty].delay
            if not low - GUESS_MARGIN <= guess < high + GUESS_MARGIN:
                # far outside the band by the cheap guess: lean the next layouts, solve nothing
                lean[0] *= LEAN_STEP ** (1 if guess < low else -1)
                skipped += 1
                continue
            cost = len(track.cells) * track.laps
            if cost > budget:
                break
            budget -= cost
            solved += 1
            rating = rate_gt(track)
            if rating is None:
                rejected += 1
                continue
        else:
            guess = DIRT_GUESS_SLOPE * dirt_features(track)
            low, high = DIRT_BANDS[request.difficulty].delay
            if not low - GUESS_MARGIN <= guess < high + GUESS_MARGIN:
                lean[0] *= LEAN_STEP ** (1 if guess < low else -1)
                skipped += 1
                continue
            cost = len(track.cells)
            if cost > budget:
                break
            budget -= cost
            solved += 1
            got = rate_dirt(track)
            if got is None:
                rejected += 1
                continue
            rating = got
        if in_band(rating, request.difficulty):
            notes = [f"{request.difficulty}: {rating.words()}"]
            used = Counter(physical(item.piece.tile) for item in laid)
            return Generated(
                spec_text(laid, request, library_path, name, command, notes), rating, tuple(sorted(used.items()))
            )
        side = leaning(rating, request.difficulty)
        lean[0] *= LEAN_STEP**side
        if closest is None or abs(_distance(rating, request.difficulty)) < abs(_distance(closest, request.difficulty)):
            closest = rating
    raise GenerateError(_refusal(request, box, (tried, rejected, solved, skipped), why, closest))


#: how much a rating that missed its band leans the next layouts (harder or easier)
LEAN_STEP = 1.5
#: cells x laps the exact GT solves of one request may take in all (about 0.01 s of CPU each)
SOLVE_BUDGET = 500
#: cells the exact DIRT solves of one request may take in all (about 0.008 s of CPU each)
DIRT_SOLVE_BUDGET = 800


def _distance(rating: Rating, difficulty: str) -> float:
    low, high = (DIRT_BANDS if rating.variant is Variant.DIRT else BANDS)[difficulty].delay
    value = rating.delay
    return 0.0 if low <= value < high else (low - value if value < low else value - high)


def _range(low: float, high: float) -> str:
    """A band's range in words: "under 0.25", "0.25 to under 0.85", "0.85 or more"."""
    if low <= 0:
        return f"under {high:g}"
    return f"{low:g} or more" if high >= 99 else f"{low:g} to under {high:g}"


def _refusal(
    request: Request, box: Box, counts: tuple[int, int, int, int], why: Counter[str], closest: Rating | None
) -> str:
    tried, rejected, solved, skipped = counts
    head = f"cannot generate {request.what} on a {request.table[0]:g} x {request.table[1]:g} cm table"
    if tried == 0:
        words = {
            "box": f"the box ({box.source}) runs out of tiles",
            "table": "the tiles run off the table",
            "length": "the road cannot be brought to the length asked for",
            "crossing": "the road runs into its own tiles",
        }
        causes = [words[k] for k, _n in sorted(why.items(), key=lambda kv: (-kv[1], kv[0])) if k in words]
        because = "; ".join(causes[:2]) if causes else "no way through the library's tiles"
        return f"{head}: no layout found in {MAX_SEARCH} search steps ({because}); try another --length or --table"
    if request.variant is Variant.GT:
        band = BANDS[request.difficulty]
        low, high = band.lose_per_lap
        lose = f"under {high:g}" if low <= 0 else f"{low:g} or more" if high >= 99 else f"{low:g} to under {high:g}"
        want = f"delay {_range(*band.delay)} s/step, {lose} losses of control a lap"
    else:
        dirt = DIRT_BANDS[request.difficulty]
        low, high = dirt.lose_per_step
        lose = f"under {high:g}" if low <= 0 else f"{low:g} or more" if high >= 99 else f"{low:g} to under {high:g}"
        want = f"delay {_range(*dirt.delay)} s/step, {lose} losses of control a step"
    near = f"; the closest: {closest.words()}" if closest is not None else ""
    return (
        f"{head}: none of the {tried} layouts found is in the {request.difficulty} band ({want}; {solved} solved "
        f"exactly, {skipped} far outside it by the guess, {rejected} refused by the track checks){near}; try another "
        "--difficulty or --length"
    )


# -- the command -------------------------------------------------------------------------------


def request_of(seed: int, options, library: Library) -> Request:
    """The request the options make (`--laps` and `--stage` say one thing each)."""
    from sheetgen.errors import OptionError

    if options.get("stage") and options.get("laps") is not None:
        raise OptionError("--laps N makes a circuit and --stage a point-to-point stage: give one of them")
    chosen = options.get("variant")
    variant = Variant(chosen) if chosen else (library.variant or Variant.GT)
    return Request(
        variant,
        options.get("laps"),
        tuple(options.get("length") or DEFAULT_LENGTH),
        tuple(options.get("table") or DEFAULT_TABLE),
        options.get("difficulty") or "medium",
        seed,
    )


def command_line(request: Request, library: str, box: str | None) -> str:
    words = [f"--library {library}", f"--variant {request.variant.value}"]
    if box is not None:
        words.append(f"--box {box}")
    words.append(f"--laps {request.laps}" if request.circuit else "--stage")
    words.append(f"--length {request.length[0]}..{request.length[1]}")
    words.append(f"--table {request.table[0]:g}x{request.table[1]:g}")
    words.append(f"--difficulty {request.difficulty}")
    return f"sheetgen generate rallyman --seed {request.seed} " + " ".join(words)


def load_library_option(path: str | None) -> tuple[Library, str]:
    from sheetgen import registry
    from sheetgen.errors import OptionError

    if path is None:
        raise OptionError("--library is needed for Rallyman: the tile library of your box to lay the track from")
    loaded = registry.load_spec(path)
    if not isinstance(loaded.model, Library):
        raise loaded.wrong(f"{loaded.described('rallyman')}; --library takes a Rallyman tile library (kind: tiles)")
    return loaded.model, path


def box_of(library: Library, library_name: str, box: str | None) -> Box:
    if box is not None:
        return load_box(box, library)
    found = library_box(library, library_name)
    if found is None:
        raise GenerateError(
            f"{library_name} says no tile counts: give --box COUNTS, a YAML file of tile ids and how many of each "
            "your box holds (sg-s2: 4), or add 'count: N' to the library's tiles"
        )
    return found


def make(seed: int, options, folder: str) -> str:
    """`Generator.make`: the new track's spec text."""
    from sheetgen.yamlsrc import path_from

    library, name = load_library_option(options.get("library"))
    box = box_of(library, name, options.get("box"))
    request = request_of(seed, options, library)
    kind = "circuit" if request.circuit else "stage"
    made = generate_track(
        library,
        path_from(folder, name),
        box,
        request,
        folder,
        command_line(request, name, options.get("box")),
        f"Generated {request.variant.value.upper()} {kind} {seed}",
    )
    return made.text
