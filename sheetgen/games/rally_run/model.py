"""Rally Run! as data: a tile set (road tiles by their openings, the pit stop, the four
start-finish tiles, the trophies), the board they are laid on, and an optional fixed board.

Pure frozen dataclasses, no I/O. Sides are numbered clockwise from north (N=0, E=1, S=2,
W=3); a tile's openings are the sides its road leaves by, as printed (north up); a turn of
`r` quarter turns clockwise moves an opening on side `s` to side `(s + r) % 4`.
"""

from __future__ import annotations

from dataclasses import dataclass

SIDES = "NESW"
N, E, S, W = range(4)
#: the four grid corners, clockwise from the top left, as the spec names them
CORNERS = ("NW", "NE", "SE", "SW")
DEFAULT_SIZE = 5
DEFAULT_TILE_MM = 60.0
FLIPS = ("long_edge", "short_edge")

#: the colours a start-finish tile and a trophy may have, with what they print in
COLOURS = {
    "red": "#c62828",
    "blue": "#1e63b5",
    "green": "#2e7d32",
    "yellow": "#f2c200",
    "orange": "#ef6c00",
    "purple": "#6a3d9a",
    "black": "#222222",
    "white": "#f4f4f4",
}
#: patterns that carry a colour on the printed tile (never colour alone)
PATTERNS = ("stripes", "dots", "checks", "crosses", "waves", "bars")


def openings_text(openings: frozenset[int]) -> str:
    return "".join(SIDES[s] for s in sorted(openings))


def turned(openings: frozenset[int], quarter_turns: int) -> frozenset[int]:
    """The openings after `quarter_turns` clockwise quarter turns."""
    return frozenset((s + quarter_turns) % 4 for s in openings)


def opposite(side: int) -> int:
    return (side + 2) % 4


@dataclass(frozen=True)
class TileKind:
    """A kind of road tile: its name, its road openings (north up) and how many the set has."""

    name: str
    openings: frozenset[int]
    count: int

    @property
    def word(self) -> str:
        """What the openings make: straight, curve, T, crossing, dead end, blank."""
        n = len(self.openings)
        if n == 2:
            return "straight" if turned(self.openings, 2) == self.openings else "curve"
        return {0: "blank", 1: "dead end", 3: "T", 4: "crossing"}[n]

    def turns(self) -> tuple[int, ...]:
        """The quarter turns that give different roads (a straight has two, a crossing one)."""
        seen: dict[frozenset[int], int] = {}
        for r in range(4):
            seen.setdefault(turned(self.openings, r), r)
        return tuple(seen.values())


@dataclass(frozen=True)
class StartFinish:
    corner: str  # NW, NE, SE, SW
    colour: str
    name: str
    pattern: str

    @property
    def index(self) -> int:
        return CORNERS.index(self.corner)


@dataclass(frozen=True)
class Trophy:
    colour: str
    name: str


@dataclass(frozen=True)
class Placed:
    """A tile of a fixed board: which kind (by index), its quarter turns, face up or down."""

    row: int  # 0-based from the top
    column: int  # 0-based from the left
    kind: int
    turn: int = 0
    face_up: bool = False


@dataclass(frozen=True)
class TileSet:
    name: str
    kinds: tuple[TileKind, ...]
    start_finish: tuple[StartFinish, ...]  # in corner order NW, NE, SE, SW
    trophies: tuple[Trophy, ...]
    pit_name: str = "Pit stop"
    pit_openings: frozenset[int] = frozenset(range(4))
    size: int = DEFAULT_SIZE
    tile_mm: float = DEFAULT_TILE_MM
    duplex: str = "long_edge"
    house_set: bool = False
    board: tuple[Placed, ...] | None = None  # a fixed board: every road tile's place

    @property
    def road_tiles(self) -> int:
        return sum(k.count for k in self.kinds)

    @property
    def pit(self) -> tuple[int, int]:
        return (self.size // 2, self.size // 2)

    def corner_cell(self, corner: int) -> tuple[int, int]:
        last = self.size - 1
        return ((0, 0), (0, last), (last, last), (last, 0))[corner]

    def finish_of(self, colour: str) -> int:
        """The corner of the start-finish tile of `colour`."""
        return next(sf.index for sf in self.start_finish if sf.colour == colour)


def outer_sides(corner: int) -> frozenset[int]:
    """The sides of a corner tile that face out of the grid, towards its start-finish tile."""
    return (frozenset({N, W}), frozenset({N, E}), frozenset({S, E}), frozenset({S, W}))[corner]
