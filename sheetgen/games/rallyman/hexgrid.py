"""Hex geometry of Rallyman tracks: one grid of cells (the spaces a car stands on) and the
tiles laid on it. Pure arithmetic, no I/O.

**Cells.** Every cell is a hexagon of one grid, named by its axial coordinates `(q, r)`
(the third cube coordinate is `s = -q - r`). The layout is **pointy-top**: a cell has a
corner straight up and straight down, and cells of one `r` form a horizontal row. In the
unit layout (a cell's circumradius, centre to corner, is 1; across flats it is sqrt(3)) the
centre of `(q, r)` is::

    x = sqrt(3) * (q + r / 2)        y = 3/2 * r        (x to the right, y DOWN the page)

**Directions** are numbered as Rekee numbers them (its directions A to F): 0 = east (+1, 0),
1 = south-east (0, +1), 2 = south-west (-1, +1), 3 = west (-1, 0), 4 = north-west (0, -1),
5 = north-east (+1, -1). Counting up turns **clockwise** on the page (y down), 60 degrees a
step. A cell's heading (its direction of travel) is one of them.

**Rotation** `k` (0-5) turns clockwise by 60 degrees k times about the origin:
`(q, r) -> (-r, q + r)` once; six times is the identity. It is Rekee's `dir`.

**Tiles.** A tile is a big hexagon, pointy-top like the cells, whose centre is a cell centre.
Tile positions use axial coordinates of their own (Rekee's `q`, `r` of a placed tile); the
tile at `(q, r)` has its centre on the cell `(TILE_SPAN * q, TILE_SPAN * r)`, so neighbouring
tiles are `TILE_SPAN` = 4 cells apart along the six directions. A tile's region is every cell
at least as near (in the plane) to its centre as to any other tile's: 16 cells' worth of area,
13 whole cells and 6 half cells, one at the middle of each side (the side cuts it in two; the
neighbouring tile holds the other half). No cell centre lies on a tile corner (4 is not a
multiple of 3). A tile's own frame is the region around `(0, 0)`; a cell `h` of the frame of a
tile placed at `(q, r)` with rotation `k` is the grid cell `rotate(h, k) + tile_centre(q, r)`.

A straight track crosses a tile side in at most three rows: the side's half cell and the
whole cells just above and below it (see docs/rallyman.md for a figure).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

SQRT3 = math.sqrt(3.0)

#: cells between the centres of neighbouring tiles
TILE_SPAN = 4


class Hex(NamedTuple):
    """A cell of the grid (axial coordinates) or a difference of two."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:  # type: ignore[override]
        return Hex(self.q + other[0], self.r + other[1])

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other[0], self.r - other[1])

    def scaled(self, k: int) -> Hex:
        return Hex(self.q * k, self.r * k)

    def neighbour(self, direction: int) -> Hex:
        return self + DIRECTIONS[direction % 6]

    def rotated(self, k: int) -> Hex:
        return rotate(self, k)

    def __str__(self) -> str:
        return f"({self.q}, {self.r})"


#: the six directions, numbered clockwise from east as Rekee numbers them
DIRECTIONS: tuple[Hex, ...] = (Hex(1, 0), Hex(0, 1), Hex(-1, 1), Hex(-1, 0), Hex(0, -1), Hex(1, -1))
#: a word for each direction, for messages and docs
DIRECTION_NAMES = ("east", "south-east", "south-west", "west", "north-west", "north-east")

ORIGIN = Hex(0, 0)


def direction_of(step: Hex) -> int | None:
    """The direction of a step to a neighbouring cell, or None for any other difference."""
    try:
        return DIRECTIONS.index(Hex(*step))
    except ValueError:
        return None


def rotate(h: Hex, k: int) -> Hex:
    """`h` turned clockwise (on the page) by 60 degrees `k` times about the origin."""
    q, r = h
    for _ in range(k % 6):
        q, r = -r, q + r
    return Hex(q, r)


def distance(a: Hex, b: Hex = ORIGIN) -> int:
    """Steps from `a` to `b` on the grid."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six cells around `h`, in direction order."""
    return tuple(Hex(h[0] + d.q, h[1] + d.r) for d in DIRECTIONS)


def ring(centre: Hex, radius: int) -> tuple[Hex, ...]:
    """The cells at exactly `radius` steps from `centre` (radius >= 1), clockwise, starting
    with the cell `radius` steps west of it."""
    out = []
    h = centre + DIRECTIONS[3].scaled(radius)
    for side in range(6):
        for _ in range(radius):
            out.append(h)
            h = h + DIRECTIONS[(side + 5) % 6]
    return tuple(out)


def centre(h: Hex, size: float = 1.0) -> tuple[float, float]:
    """The centre of cell `h` in a pointy-top layout whose cells have circumradius `size`
    (x right, y down the page)."""
    q, r = h
    return (size * SQRT3 * (q + r / 2.0), size * 1.5 * r)


def corners(h: Hex, size: float = 1.0) -> tuple[tuple[float, float], ...]:
    """The six corners of cell `h` (pointy-top, circumradius `size`), clockwise on the page
    from the top one."""
    x, y = centre(h, size)
    return tuple((x + size * math.cos(math.radians(-90 + 60 * i)), y + size * math.sin(math.radians(-90 + 60 * i))) for i in range(6))


def _norm2(q: int, r: int) -> int:
    """Four thirds of the squared plane distance of `(q, r)` from the origin, in units of a
    cell's circumradius, as an integer (q^2 + qr + r^2 is 1 for a neighbour)."""
    return q * q + q * r + r * r


# --------------------------------------------------------------------------- tiles


def tile_centre(q: int, r: int) -> Hex:
    """The cell at the centre of the tile placed at tile coordinates `(q, r)`."""
    return Hex(TILE_SPAN * q, TILE_SPAN * r)


def tile_corners(q: int = 0, r: int = 0, size: float = 1.0) -> tuple[tuple[float, float], ...]:
    """The six corners of the tile placed at tile coordinates `(q, r)` (default: a tile's own
    frame), in the cells' layout of circumradius `size`: a pointy-top hexagon of circumradius
    `TILE_SPAN * size` round its centre cell, clockwise on the page from the top corner. Its
    sides pass through the centres of the six half cells."""
    x, y = centre(tile_centre(q, r), size)
    big = TILE_SPAN * size
    return tuple((x + big * math.cos(math.radians(-90 + 60 * i)), y + big * math.sin(math.radians(-90 + 60 * i))) for i in range(6))


def tile_of(h: Hex) -> tuple[tuple[int, int], ...]:
    """The tile positions whose regions hold cell `h`: one for a whole cell, two for a cell
    that a tile side cuts in half."""
    q, r = h
    # the nearest tile centres are among those of the tile-lattice cell around h
    fq, fr = math.floor(q / TILE_SPAN), math.floor(r / TILE_SPAN)
    candidates = [(fq + a, fr + b) for a in (-1, 0, 1, 2) for b in (-1, 0, 1, 2)]
    dist = {c: _norm2(q - TILE_SPAN * c[0], r - TILE_SPAN * c[1]) for c in candidates}
    best = min(dist.values())
    return tuple(sorted(c for c in candidates if dist[c] == best))


def _frame_region() -> tuple[tuple[Hex, ...], frozenset]:
    cells, halves = [], set()
    reach = TILE_SPAN
    for q in range(-reach, reach + 1):
        for r in range(-reach, reach + 1):
            owners = tile_of(Hex(q, r))
            if (0, 0) in owners:
                cells.append(Hex(q, r))
                if len(owners) > 1:
                    halves.add(Hex(q, r))
    return tuple(sorted(cells, key=lambda h: (h.r, h.q))), frozenset(halves)


#: every cell of a tile's own frame (whole and half cells), row by row from the top
FRAME_CELLS, FRAME_HALVES = _frame_region()


def in_frame(h: Hex) -> bool:
    """Whether cell `h` of a tile's own frame lies on the tile (wholly or half)."""
    return Hex(*h) in _FRAME_SET


_FRAME_SET = frozenset(FRAME_CELLS)


def half_cell_side(h: Hex) -> int | None:
    """The side (0-5, the direction of the neighbouring tile across it) whose half cell is
    frame cell `h`, or None for a whole cell."""
    if Hex(*h) not in FRAME_HALVES:
        return None
    return next(d for d in range(6) if rotate(Hex(TILE_SPAN // 2, 0), d) == h)


def place(h: Hex, q: int, r: int, rotation: int) -> Hex:
    """The grid cell of cell `h` of a tile's own frame, for the tile placed at tile coordinates
    `(q, r)` turned by `rotation`."""
    return rotate(Hex(*h), rotation) + tile_centre(q, r)


def unplace(h: Hex, q: int, r: int, rotation: int) -> Hex:
    """The frame cell of grid cell `h` for the tile placed at `(q, r)` turned by `rotation`
    (the inverse of `place`)."""
    return rotate(Hex(*h) - tile_centre(q, r), -rotation % 6)


def tile_neighbour(q: int, r: int, direction: int) -> tuple[int, int]:
    """The tile position next to `(q, r)` across its side `direction` (on the grid)."""
    d = DIRECTIONS[direction % 6]
    return (q + d.q, r + d.r)


def side_cells(side: int) -> tuple[Hex, ...]:
    """The frame cells at tile side `side` (0-5, the direction of the neighbour across it):
    its half cell and the whole cells touching the neighbouring tile's region across it."""
    beyond = DIRECTIONS[side].scaled(TILE_SPAN)
    out = []
    for h in FRAME_CELLS:
        if h in FRAME_HALVES:
            if half_cell_side(h) == side:
                out.append(h)
            continue
        if any(_strictly_in(n - beyond) for n in neighbours(h)):
            out.append(h)
    return tuple(out)


def _strictly_in(h: Hex) -> bool:
    """Whether frame cell `h` lies wholly on the tile at the origin."""
    return h in _FRAME_SET and h not in FRAME_HALVES


def bounds(cells: Iterable[Hex], size: float = 1.0) -> tuple[float, float, float, float]:
    """The smallest box (x0, y0, x1, y1) holding every cell of `cells` (whole hexagons)."""
    xs, ys = [], []
    for h in cells:
        x, y = centre(h, size)
        xs += [x - size * SQRT3 / 2, x + size * SQRT3 / 2]
        ys += [y - size, y + size]
    if not xs:
        return (0.0, 0.0, 0.0, 0.0)
    return (min(xs), min(ys), max(xs), max(ys))
