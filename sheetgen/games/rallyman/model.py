"""Rallyman track model (GT and DIRT): pure data, no I/O, no third-party imports.

Words follow the rulebooks. A **track** is a set of hex **cells** (spaces) on one grid
(`hexgrid`: pointy-top axial coordinates, directions numbered clockwise from east as Rekee
numbers them). Every cell has a **heading** (its direction of travel, 0-5) and a **lane**
(1 = the leftmost lane in the direction of travel; 0 for a shortcut space, which is off the
road). A car moves **forward**: to the neighbouring cell straight ahead (its heading) or
diagonally ahead (heading - 1 or heading + 1), when that cell is on the track and heads
within 60 degrees of the cell it leaves (`Track.moves`; the rulings RM-* in docs/rulings.md).

Cell attributes: the surface (asphalt, gravel, snow), the danger colour of its tile (yellow,
orange, red: low, medium, high), a corner **limit** (the top gear for that space; in DIRT the
inside and outside lanes of a corner have their own, so every cell carries its own), a
**caution** mark (the limit printed in a caution triangle: one extra caution when the space
is passed in that very gear), **start** (a starting space, behind the start line) and
**finish** (a space beyond the finish line: reaching it finishes), GT's **pit** (a pit-lane
edge space), and DIRT's **slide** (a space of a dotted slide zone), **shortcut** (a shortcut
space and its limit), **jump** (a jump and its gear) and **water** (a water hazard).

Between two neighbouring cells an **inside line** (a dotted line) has a lower limit or a
caution symbol: it applies to a move between them, either way.

A track may be laid from **tiles** of a library: a `TileDef` holds cells in the tile's own
frame (`hexgrid`: around the frame cell (0, 0)); a `Placement` puts it at tile coordinates
`(q, r)` turned by `rotation` (Rekee's `q`, `r` and `dir`) and holds its cells on the grid.
"""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass, field
from enum import Enum

from sheetgen.games.rallyman.hexgrid import Hex, centre, direction_of

MIN_LIMIT = 1
MAX_LIMIT = 6
MIN_GEAR = 1
MAX_GEAR = 6

#: the shape of a tile id as Rekee writes it: a three-digit catalogue number, the side (a or
#: b) and a graphical variant (-1, -2...), as 102b, 106b-2 or 101 (Rekee's `TileId`; the
#: pit-stop tile 101 is the same on both sides and has none)
REKEE_ID = r"^(?!101[ab])[0-9]{3}[ab]?(-[1-9][0-9]?)?$"
_REKEE_ID = re.compile(REKEE_ID.replace("$", r"\Z"))


def rekee_shaped(text: str) -> bool:
    """Whether `text` is a tile id as Rekee writes it (REKEE_ID)."""
    return _REKEE_ID.match(text) is not None


class Variant(str, Enum):
    GT = "gt"
    DIRT = "dirt"


class Surface(str, Enum):
    ASPHALT = "asphalt"
    GRAVEL = "gravel"
    SNOW = "snow"


class Danger(str, Enum):
    """The danger colour of a tile: low, medium, high."""

    YELLOW = "yellow"
    ORANGE = "orange"
    RED = "red"

    @property
    def level(self) -> str:
        return {"yellow": "low", "orange": "medium", "red": "high"}[self.value]


class MoveKind(str, Enum):
    STRAIGHT = "straight"
    DIAGONAL = "diagonal"


@dataclass(frozen=True)
class Cell:
    """One space. `hex` is its place on the grid (for a tile definition: in the tile's frame)."""

    hex: Hex
    heading: int  # direction of travel, 0-5 (hexgrid.DIRECTIONS)
    lane: int = 1  # 1 = leftmost lane in the direction of travel; 0 = off the road (shortcut)
    surface: Surface = Surface.ASPHALT
    danger: Danger = Danger.YELLOW
    limit: int | None = None  # corner limit (top gear on this space)
    caution: bool = False  # the limit is printed in a caution triangle
    start: bool = False
    finish: bool = False
    pit: bool = False  # GT pit-lane edge space
    slide: bool = False  # DIRT slide zone space
    shortcut: int | None = None  # DIRT shortcut space: its limit
    jump: int | None = None  # DIRT jump: its gear
    water: bool = False  # DIRT water hazard
    #: index in `Track.placements` of the tile this cell lies on (None: off tiles, an explicit
    #: cell or the path's); a half cell names the first of its two tiles in `Track.cells` and
    #: each tile itself in its `Placement.cells`; an explicit cell that replaces a tile's
    #: keeps its tile
    tile: int | None = None

    @property
    def q(self) -> int:
        return self.hex.q

    @property
    def r(self) -> int:
        return self.hex.r

    @property
    def corner(self) -> bool:
        """A corner space: one with a corner limit."""
        return self.limit is not None

    def centre(self, size: float = 1.0) -> tuple[float, float]:
        """Its centre in the pointy-top layout of circumradius `size` (hexgrid.centre)."""
        return centre(self.hex, size)

    def marks(self) -> tuple[str, ...]:
        """Its marks in words, for a map legend or a message: "limit 3", "caution", ..."""
        out = []
        if self.limit is not None:
            out.append(f"limit {self.limit}")
        for name in ("caution", "start", "finish", "pit", "slide", "water"):
            if getattr(self, name):
                out.append(name)
        if self.shortcut is not None:
            out.append(f"shortcut {self.shortcut}")
        if self.jump is not None:
            out.append(f"jump {self.jump}")
        return tuple(out)


@dataclass(frozen=True)
class InsideLine:
    """A dotted line between two neighbouring cells `a` and `b`: a move between them (either
    way) is safe up to `limit` (None: no limit of its own) and, with `caution`, adds one
    caution."""

    a: Hex
    b: Hex
    limit: int | None = None
    caution: bool = False

    def joins(self, x: Hex, y: Hex) -> bool:
        return {Hex(*x), Hex(*y)} == {self.a, self.b}


@dataclass(frozen=True)
class Token:
    """A token placed on a Rekee tile, kept as Rekee writes it (for the round trip): its id,
    its position in the tile (fractional axial `q`, `r` of Rekee's tile grid, in the tile's
    own frame) and its turn. The load reads it (`tokens`, ruling RM-17): `effect` says what it
    does on the track in words (None: no rulebook gives it a rule, a marker only) and `cells`
    the grid cells it marks (a road token's)."""

    id: str
    q: float
    r: float
    dir: float
    effect: str | None = None
    cells: tuple[Hex, ...] = ()


@dataclass(frozen=True)
class TileDef:
    """A tile of a library: cells and inside lines in the tile's own frame."""

    id: str
    name: str
    cells: tuple[Cell, ...]
    lines: tuple[InsideLine, ...] = ()
    rekee: str | None = None  # the library's `rekee`: the id Rekee knows the tile by
    scenery: bool = False  # a tile with no road (a podium, a filler): no cells
    count: int | None = None  # copies in the box (`generate`; both faces of a tile share it)
    #: a tile written in the lane form (ruling RM-24): its lanes' names, lane n is
    #: `lane_names[n - 1]` (empty: written as hex cells)
    lane_names: tuple[str, ...] = ()

    @property
    def lanes(self) -> int:
        return max((c.lane for c in self.cells), default=0)

    @property
    def rekee_id(self) -> str | None:
        """The id Rekee knows this tile by: its `rekee`, else its own id when that has
        Rekee's shape (REKEE_ID), else none (Rekee's files cannot hold it)."""
        return self.rekee if self.rekee is not None else self.id if rekee_shaped(self.id) else None


@dataclass(frozen=True)
class Library:
    """A tile library file (kind `tiles`): its tiles all have one frame (`hexgrid.FRAMES`:
    "standard", 4 cells across, or "large", 7 across), the shape of the tiles and the
    lattice they are laid on (ruling RM-16)."""

    name: str
    variant: Variant | None  # None: tiles for either game
    tiles: tuple[TileDef, ...]
    frame: str = "standard"

    def get(self, tile_id: str) -> TileDef | None:
        return next((t for t in self.tiles if t.id == tile_id), None)

    def by_rekee(self, rekee_id: str) -> TileDef | None:
        """The tile Rekee's id `rekee_id` stands for (TileDef.rekee_id)."""
        return next((t for t in self.tiles if t.rekee_id == rekee_id), None)


@dataclass(frozen=True)
class Placement:
    """A tile laid on the table: its id, tile coordinates `(q, r)` and rotation (Rekee's q, r
    and dir), its Rekee tokens, its cells and inside lines on the grid, and the frame of its
    library (`hexgrid.FRAMES`), which says where tile `(q, r)` lies on the grid."""

    tile: str
    q: int
    r: int
    rotation: int
    cells: tuple[Cell, ...] = ()
    lines: tuple[InsideLine, ...] = ()
    tokens: tuple[Token, ...] = ()
    frame: str = "standard"
    rekee: str | None = None  # the id Rekee knows its tile by (TileDef.rekee_id), if any
    #: the tile driven the other way: every cell's heading turned round and its lanes
    #: numbered from the other side (ruling RM-18)
    reverse: bool = False
    scenery: bool = False  # a tile with no road (TileDef.scenery)
    #: its tile's lane names as driven, lane n is `lane_names[n - 1]` (TileDef.lane_names,
    #: the other way round for a reversed tile; empty: a tile of hex cells)
    lane_names: tuple[str, ...] = ()

    @property
    def centre_hex(self) -> Hex:
        from sheetgen.games.rallyman.hexgrid import tile_centre

        return tile_centre(self.q, self.r, self.frame)

    def place(self, h: Hex) -> Hex:
        """The grid cell of cell `h` of this tile's own frame."""
        from sheetgen.games.rallyman.hexgrid import place

        return place(h, self.q, self.r, self.rotation, self.frame)

    def centre(self, size: float = 1.0) -> tuple[float, float]:
        """The tile's centre in the cells' layout (circumradius `size`)."""
        return centre(self.centre_hex, size)

    def point(self, x: float, y: float, size: float = 1.0) -> tuple[float, float]:
        """The point (x, y) of this tile's own frame (unit layout of the cells) in the cells'
        layout of circumradius `size`: turned by the rotation round the tile's centre."""
        a = math.radians(60 * self.rotation)
        cx, cy = self.centre(size)
        return (
            cx + size * (x * math.cos(a) - y * math.sin(a)),
            cy + size * (x * math.sin(a) + y * math.cos(a)),
        )


@dataclass(frozen=True)
class Move:
    """A legal forward move from cell `frm` to cell `to`."""

    frm: Hex
    to: Hex
    kind: MoveKind
    line: InsideLine | None = None  # the inside line the move crosses, if any


@dataclass(frozen=True)
class Corner:
    """A corner as a co-driver reads it: consecutive corner spaces, in track order."""

    number: int  # 1, 2, ... in track order
    cells: tuple[Cell, ...]  # in track order
    turn: str  # "left", "right" or "straight" (a limit without a turn: a crest, a narrowing)
    degrees: int  # how far the road turns through it: 0, 60, 120, 180...
    limits: tuple[tuple[int, int], ...]  # (lane, the lowest limit of that lane's spaces), by lane
    caution_lanes: tuple[int, ...]  # lanes with a caution-marked limit
    lines: tuple[InsideLine, ...]  # inside lines touching its spaces
    step: int  # track order of its first space (Track.step)


@dataclass(frozen=True)
class Note:
    """A pacenote of the roadbook, in track order: a corner, or a run of spaces of one kind
    (a jump, water, a shortcut, a slide zone, a pit-lane edge)."""

    kind: str  # "corner", "jump", "water", "shortcut", "slide" or "pit"
    cells: tuple[Cell, ...]  # in track order
    step: int  # track order of its first space (Track.steps)
    distance: int  # moves from the previous note's first space (from the start, for the first)
    corner: Corner | None = None  # for a corner
    value: int | None = None  # a jump's gear, a shortcut's limit (the lowest of its spaces)


NOTE_KINDS = ("corner", "jump", "water", "shortcut", "slide", "pit")


@dataclass(frozen=True)
class Track:
    """A track (kind `track`): every cell on the grid, the inside lines, and the tiles it is
    laid from (if any)."""

    name: str
    variant: Variant
    cells: tuple[Cell, ...]
    lines: tuple[InsideLine, ...] = ()
    placements: tuple[Placement, ...] = ()
    laps: int = 1
    author: str = ""  # Rekee's author, kept for the round trip
    library: str | None = None  # the tile library file, as the spec names it
    #: the spec's own ruleset values (a `ruleset.Ruleset`; None: the variant's defaults)
    ruleset: object = field(default=None, compare=False, hash=False)
    _index: dict[Hex, Cell] = field(init=False, repr=False, compare=False, hash=False)  # set by __post_init__
    #: what `steps`, `corners` and `notes` work out, kept (the track never changes)
    _cache: dict = field(init=False, repr=False, compare=False, hash=False)  # set by __post_init__

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {c.hex: c for c in self.cells})
        object.__setattr__(self, "_cache", {})

    # ---------------------------------------------------------------- cells

    def cell(self, h: Hex) -> Cell | None:
        return self._index.get(Hex(*h))

    def at(self, h: Hex) -> Cell:
        """The cell at `h`, which the caller knows is on the track (a move's end, a car's
        space): a KeyError otherwise, a bug of the caller's."""
        return self._index[Hex(*h)]

    def __contains__(self, h: object) -> bool:
        return h in self._index

    @property
    def starts(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.start)

    @property
    def finishes(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.finish)

    def line_between(self, a: Hex, b: Hex) -> InsideLine | None:
        return next((line for line in self.lines if line.joins(a, b)), None)

    # ---------------------------------------------------------------- moves

    def moves(self, h: Hex) -> tuple[Move, ...]:
        """The legal forward moves from cell `h` (rulings RM-3 to RM-6): to the neighbour
        straight ahead or diagonally ahead, when it is on the track and heads within 60
        degrees of `h`; not between a shortcut space and a corner space; in DIRT, not from
        one lane of a corner to another (no dividing line: the lane is chosen on entry); not
        sideways: between two cells each diagonally ahead of the other (side by side across
        the road where the headings close in, as at a corner's apex), no move either way."""
        here = self.cell(h)
        if here is None:
            return ()
        out = []
        for turn in (0, -1, 1):
            there = self.cell(here.hex.neighbour(here.heading + turn))
            if there is None or _heading_gap(here.heading, there.heading) > 1:
                continue
            # sideways: `here` lies diagonally ahead of `there` too (the way back is 3 on)
            if turn and _heading_gap((here.heading + turn + 3) % 6, there.heading) == 1:
                continue
            off_road = (here.shortcut is not None) != (there.shortcut is not None)
            if off_road and (here.corner or there.corner):
                continue
            if self.variant is Variant.DIRT and turn and here.corner and there.corner and here.lane != there.lane:
                continue
            kind = MoveKind.STRAIGHT if turn == 0 else MoveKind.DIAGONAL
            out.append(Move(here.hex, there.hex, kind, self.line_between(here.hex, there.hex)))
        return tuple(out)

    def steps(self) -> dict[Hex, int]:
        """Track order: each cell's number of moves from the nearest starting space (cells no
        start reaches are left out)."""
        if "steps" not in self._cache:
            self._cache["steps"] = self._steps()
        return dict(self._cache["steps"])

    def _steps(self) -> dict[Hex, int]:
        seen: dict[Hex, int] = {}
        queue: deque = deque()
        for c in self.cells:
            if c.start:
                seen[c.hex] = 0
                queue.append(c.hex)
        while queue:
            h = queue.popleft()
            for move in self.moves(h):
                if move.to not in seen:
                    seen[move.to] = seen[h] + 1
                    queue.append(move.to)
        return seen

    def in_order(self) -> tuple[Cell, ...]:
        """The cells in track order (by `steps`, then lane, then position); cells no start
        reaches come last."""
        steps = self.steps()
        far = len(self.cells) + 1
        return tuple(sorted(self.cells, key=lambda c: (steps.get(c.hex, far), c.lane, c.hex.r, c.hex.q)))

    def corners(self) -> tuple[Corner, ...]:
        """The corners in track order: groups of neighbouring corner spaces on one tile (or
        all off tiles), ruling RM-10; two corners on neighbouring tiles stay two corners."""
        if "corners" not in self._cache:
            self._cache["corners"] = self._corners()
        return self._cache["corners"]

    def _corners(self) -> tuple[Corner, ...]:
        steps = self.steps()
        far = len(self.cells) + 1
        corner_cells = {c.hex for c in self.cells if c.corner}
        groups: list[list[Hex]] = []
        seen: set = set()
        for c in self.in_order():
            if c.hex not in corner_cells or c.hex in seen:
                continue
            group, queue = [], [c.hex]
            seen.add(c.hex)
            while queue:
                h = queue.pop()
                group.append(h)
                tile = self._index[h].tile
                for n in self._neighbour_cells(h):
                    # neighbours on the grid that are also neighbours along the road: a road
                    # that winds back beside itself (a tight spiral) does not join two corners
                    near = abs(steps.get(n, far) - steps.get(h, far)) <= 1
                    if n in corner_cells and n not in seen and near and self._index[n].tile == tile:
                        seen.add(n)
                        queue.append(n)
            groups.append(group)
        out = []
        for number, group in enumerate(groups, 1):
            cells = tuple(
                sorted((self.at(h) for h in group), key=lambda c: (steps.get(c.hex, far), c.lane, c.hex.r, c.hex.q))
            )
            lanes: dict[int, int] = {}
            for c in cells:
                if c.limit is not None:  # every one: the group holds corner spaces only
                    lanes[c.lane] = min(lanes.get(c.lane, MAX_LIMIT), c.limit)
            caution = tuple(sorted({c.lane for c in cells if c.caution}))
            members = set(group)
            lines = tuple(line for line in self.lines if line.a in members or line.b in members)
            turn, degrees = _turn(self, cells)
            out.append(
                Corner(
                    number,
                    cells,
                    turn,
                    degrees,
                    tuple(sorted(lanes.items())),
                    caution,
                    lines,
                    min(steps.get(h, far) for h in group),
                )
            )
        return tuple(out)

    def notes(self) -> tuple[Note, ...]:
        """The roadbook's notes in track order: every corner (`corners`) and every group of
        neighbouring jump, water, shortcut, slide or pit spaces on one tile, each with its
        distance in moves from the previous note."""
        steps = self.steps()
        far = len(self.cells) + 1
        found: list[tuple[int, int, Note]] = []
        for corner in self.corners():
            found.append((corner.step, 0, Note("corner", corner.cells, corner.step, 0, corner=corner)))
        tests = {
            "jump": lambda c: c.jump is not None,
            "water": lambda c: c.water,
            "shortcut": lambda c: c.shortcut is not None,
            "slide": lambda c: c.slide,
            "pit": lambda c: c.pit,
        }
        for order, (kind, test) in enumerate(tests.items(), 1):
            for group in self._groups(test):
                step = min(steps.get(c.hex, far) for c in group)
                # (a jump's or a shortcut's spaces all have the value: `test` picked them by it)
                picked = (
                    [c.jump if kind == "jump" else c.shortcut for c in group] if kind in ("jump", "shortcut") else []
                )
                values = [v for v in picked if v is not None]
                found.append((step, order, Note(kind, group, step, 0, value=min(values) if values else None)))
        found.sort(key=lambda item: (item[0], item[1]))
        out, previous = [], 0
        for step, _order, note in found:
            out.append(Note(note.kind, note.cells, note.step, step - previous, note.corner, note.value))
            previous = step
        return tuple(out)

    def _groups(self, test) -> list[tuple[Cell, ...]]:
        """Groups of neighbouring cells passing `test` on one tile (or all off tiles), each in
        track order, the groups in track order."""
        steps = self.steps()
        far = len(self.cells) + 1

        def key(c: Cell):
            return (steps.get(c.hex, far), c.lane, c.hex.r, c.hex.q)

        members = {c.hex for c in self.cells if test(c)}
        seen: set = set()
        groups = []
        for c in sorted((self._index[h] for h in members), key=key):
            if c.hex in seen:
                continue
            group, queue = [], [c.hex]
            seen.add(c.hex)
            while queue:
                h = queue.pop()
                group.append(self._index[h])
                for n in self._neighbour_cells(h):
                    if n in members and n not in seen and self._index[n].tile == self._index[h].tile:
                        seen.add(n)
                        queue.append(n)
            groups.append(tuple(sorted(group, key=key)))
        return groups

    def _neighbour_cells(self, h: Hex) -> list[Hex]:
        from sheetgen.games.rallyman.hexgrid import neighbours

        return [n for n in neighbours(h) if n in self._index]


def _heading_gap(a: int, b: int) -> int:
    """Steps of 60 degrees between two headings (0-3)."""
    d = (a - b) % 6
    return min(d, 6 - d)


def _turn(track: Track, cells: tuple[Cell, ...]) -> tuple[str, int]:
    """Which way and how far the road turns through a corner: from the heading of the
    spaces just before it to that of the spaces just after it (or its own first and last)."""
    first = cells[0]
    before = first.heading
    for n in track._neighbour_cells(first.hex):
        for m in track.moves(n):
            if m.to == first.hex and not track.at(n).corner:
                before = track.at(n).heading
    # the turn by steps along the lane (a hairpin turns three steps the same way), up to the
    # heading just after that lane's last space (of a corner of several lanes, the space
    # reached last from the start may be another lane's, still turning)
    lane = [c for c in cells if c.lane == first.lane] or list(cells)
    last = lane[-1]
    after = last.heading
    for m in track.moves(last.hex):
        if not track.at(m.to).corner:
            after = track.at(m.to).heading
            break
    total = 0
    heading = before
    for c in lane + [Cell(last.hex, after)]:
        step = (c.heading - heading) % 6
        total += step if step <= 3 else step - 6
        heading = c.heading
    if total == 0:
        return "straight", 0
    return ("right" if total > 0 else "left"), abs(total) * 60


def step_direction(a: Hex, b: Hex) -> int | None:
    """The direction from cell `a` to its neighbour `b` (None if they are not neighbours)."""
    return direction_of(Hex(*b) - Hex(*a))
