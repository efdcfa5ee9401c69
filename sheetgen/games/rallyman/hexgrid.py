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

**Frames.** That is the standard frame (`STANDARD`, every library's default). A library may
declare the large frame (`LARGE`, `frame: large`, ruling RM-16): `LARGE_SPAN` = 7 cells
between tile centres, the tile at `(q, r)` centred on cell `(7q, 7r)`, its region the same
"nearer to its centre than to any other" rule: every cell within 3 steps and 18 at 4, 12 of
them half cells (two on each side), five rows across each side, so that four lanes cross
it. `Frame` holds a frame's cells and does its arithmetic; the module's functions take an
optional `frame` (a `Frame`, its name, or None for the standard one).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

SQRT3 = math.sqrt(3.0)

#: cells between the centres of neighbouring tiles (the standard frame)
TILE_SPAN = 4
#: the same for the large frame
LARGE_SPAN = 7


class Hex(NamedTuple):
    """A cell of the grid (axial coordinates) or a difference of two."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    # a vector sum, not tuple's concatenation: a NamedTuple cannot take tuple's signature for it
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
    return tuple(
        (x + size * math.cos(math.radians(-90 + 60 * i)), y + size * math.sin(math.radians(-90 + 60 * i)))
        for i in range(6)
    )


def _norm2(q: int, r: int) -> int:
    """Four thirds of the squared plane distance of `(q, r)` from the origin, in units of a
    cell's circumradius, as an integer (q^2 + qr + r^2 is 1 for a neighbour)."""
    return q * q + q * r + r * r


# --------------------------------------------------------------------------- tiles


class Frame:
    """A tile frame: the shape of a library's tiles and the lattice they are laid on. The tile
    at tile coordinates `(q, r)` is centred on the cell `(span * q, span * r)`; its region is
    every cell at least as near (in the plane) to its centre as to any other tile's centre: a
    pointy-top hexagon `span` cells across flats (`span ** 2` cells' worth of area), whose
    sides cut some cells in half (the neighbouring tile holds the other half). `span` is never
    a multiple of 3, so that no cell centre lies on a tile corner (the corner is the centroid
    of three tile centres). Immutable; `FRAMES` holds the two a library may name."""

    __slots__ = ("_set", "_sides", "cells", "halves", "name", "span")
    name: str
    span: int
    cells: tuple[Hex, ...]
    halves: frozenset[Hex]
    _set: frozenset[Hex]
    _sides: dict[int, tuple[Hex, ...]]

    def __init__(self, name: str, span: int) -> None:
        if span % 3 == 0 or span < 2:
            raise ValueError(f"a tile span of {span} puts cells on tile corners")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "span", span)
        cells: list[Hex] = []
        halves: set[Hex] = set()
        for q in range(-span, span + 1):
            for r in range(-span, span + 1):
                owners = self.tile_of(Hex(q, r))
                if (0, 0) in owners:
                    cells.append(Hex(q, r))
                    if len(owners) > 1:
                        halves.add(Hex(q, r))
        object.__setattr__(self, "cells", tuple(sorted(cells, key=lambda h: (h.r, h.q))))
        object.__setattr__(self, "halves", frozenset(halves))
        object.__setattr__(self, "_set", frozenset(cells))
        object.__setattr__(self, "_sides", {})

    def __setattr__(self, name: str, value: object) -> None:  # frozen
        raise AttributeError(f"a Frame is immutable: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"Frame({self.name!r}, span={self.span})"

    @property
    def reach(self) -> int:
        """Steps from the centre to the farthest cell of the frame."""
        return max(distance(h) for h in self.cells)

    @property
    def whole(self) -> tuple[Hex, ...]:
        """The frame's whole cells (not cut by a side), row by row from the top."""
        return tuple(h for h in self.cells if h not in self.halves)

    def tile_centre(self, q: int, r: int) -> Hex:
        """The cell at the centre of the tile placed at tile coordinates `(q, r)`."""
        return Hex(self.span * q, self.span * r)

    def tile_of(self, h: Hex) -> tuple[tuple[int, int], ...]:
        """The tile positions whose regions hold cell `h`: one for a whole cell, two for a
        cell that a tile side cuts in half."""
        q, r = h
        span = self.span
        # the nearest tile centres are among those of the tile-lattice cell around h
        fq, fr = math.floor(q / span), math.floor(r / span)
        candidates = [(fq + a, fr + b) for a in (-1, 0, 1, 2) for b in (-1, 0, 1, 2)]
        dist = {c: _norm2(q - span * c[0], r - span * c[1]) for c in candidates}
        best = min(dist.values())
        return tuple(sorted(c for c in candidates if dist[c] == best))

    def contains(self, h: Hex) -> bool:
        """Whether cell `h` of a tile's own frame lies on the tile (wholly or half)."""
        return Hex(*h) in self._set

    def half_cell_side(self, h: Hex) -> int | None:
        """The side (0-5, the direction of the neighbouring tile across it) that cuts frame
        cell `h` in half, or None for a whole cell."""
        h = Hex(*h)
        if h not in self.halves:
            return None
        return next(d for d in range(6) if _norm2(*(h - DIRECTIONS[d].scaled(self.span))) == _norm2(*h))

    def place(self, h: Hex, q: int, r: int, rotation: int) -> Hex:
        """The grid cell of cell `h` of a tile's own frame, for the tile placed at tile
        coordinates `(q, r)` turned by `rotation`."""
        return rotate(Hex(*h), rotation) + self.tile_centre(q, r)

    def unplace(self, h: Hex, q: int, r: int, rotation: int) -> Hex:
        """The frame cell of grid cell `h` for the tile placed at `(q, r)` turned by
        `rotation` (the inverse of `place`)."""
        return rotate(Hex(*h) - self.tile_centre(q, r), -rotation % 6)

    def side_cells(self, side: int) -> tuple[Hex, ...]:
        """The frame cells at tile side `side` (0-5, the direction of the neighbour across
        it): its half cells and the whole cells touching the neighbouring tile's region."""
        side %= 6
        if side not in self._sides:
            beyond = DIRECTIONS[side].scaled(self.span)
            out = []
            for h in self.cells:
                if h in self.halves:
                    if self.half_cell_side(h) == side:
                        out.append(h)
                    continue
                if any(self._strictly_in(n - beyond) for n in neighbours(h)):
                    out.append(h)
            self._sides[side] = tuple(out)
        return self._sides[side]

    def _strictly_in(self, h: Hex) -> bool:
        return h in self._set and h not in self.halves

    def corners(self, q: int = 0, r: int = 0, size: float = 1.0) -> tuple[tuple[float, float], ...]:
        """The six corners of the tile placed at tile coordinates `(q, r)` (default: a tile's
        own frame), in the cells' layout of circumradius `size`: a pointy-top hexagon of
        circumradius `span * size` round its centre cell, clockwise on the page from the top
        corner."""
        x, y = centre(self.tile_centre(q, r), size)
        big = self.span * size
        return tuple(
            (x + big * math.cos(math.radians(-90 + 60 * i)), y + big * math.sin(math.radians(-90 + 60 * i)))
            for i in range(6)
        )


#: the frame of sheetgen's first library and the default of every library: 4 cells across
STANDARD = Frame("standard", TILE_SPAN)
#: the large frame (`frame: large`): 7 cells across, so that four lanes cross a side
LARGE = Frame("large", LARGE_SPAN)
#: the frames a library may name (`frame:`), the default first
FRAMES = {f.name: f for f in (STANDARD, LARGE)}
DEFAULT_FRAME = STANDARD.name


def frame_of(frame: Frame | str | None) -> Frame:
    """A frame from itself, its name or None (the default frame)."""
    if isinstance(frame, Frame):
        return frame
    return FRAMES[frame or DEFAULT_FRAME]


def tile_centre(q: int, r: int, frame: Frame | str | None = None) -> Hex:
    """The cell at the centre of the tile placed at tile coordinates `(q, r)`."""
    return frame_of(frame).tile_centre(q, r)


def tile_corners(
    q: int = 0, r: int = 0, size: float = 1.0, frame: Frame | str | None = None
) -> tuple[tuple[float, float], ...]:
    """The six corners of the tile placed at tile coordinates `(q, r)` (default: a tile's own
    frame), in the cells' layout of circumradius `size`: a pointy-top hexagon of circumradius
    `span * size` round its centre cell, clockwise on the page from the top corner. In the
    standard frame its sides pass through the centres of the six half cells."""
    return frame_of(frame).corners(q, r, size)


def tile_of(h: Hex, frame: Frame | str | None = None) -> tuple[tuple[int, int], ...]:
    """The tile positions whose regions hold cell `h`: one for a whole cell, two for a cell
    that a tile side cuts in half."""
    return frame_of(frame).tile_of(h)


#: every cell of a standard tile's own frame (whole and half cells), row by row from the top
FRAME_CELLS, FRAME_HALVES = STANDARD.cells, STANDARD.halves


def in_frame(h: Hex, frame: Frame | str | None = None) -> bool:
    """Whether cell `h` of a tile's own frame lies on the tile (wholly or half)."""
    return frame_of(frame).contains(h)


def half_cell_side(h: Hex, frame: Frame | str | None = None) -> int | None:
    """The side (0-5, the direction of the neighbouring tile across it) that cuts frame cell
    `h` in half, or None for a whole cell."""
    return frame_of(frame).half_cell_side(h)


def place(h: Hex, q: int, r: int, rotation: int, frame: Frame | str | None = None) -> Hex:
    """The grid cell of cell `h` of a tile's own frame, for the tile placed at tile coordinates
    `(q, r)` turned by `rotation`."""
    return frame_of(frame).place(h, q, r, rotation)


def unplace(h: Hex, q: int, r: int, rotation: int, frame: Frame | str | None = None) -> Hex:
    """The frame cell of grid cell `h` for the tile placed at `(q, r)` turned by `rotation`
    (the inverse of `place`)."""
    return frame_of(frame).unplace(h, q, r, rotation)


def tile_neighbour(q: int, r: int, direction: int) -> tuple[int, int]:
    """The tile position next to `(q, r)` across its side `direction` (on the grid; the same
    in every frame)."""
    d = DIRECTIONS[direction % 6]
    return (q + d.q, r + d.r)


def side_cells(side: int, frame: Frame | str | None = None) -> tuple[Hex, ...]:
    """The frame cells at tile side `side` (0-5, the direction of the neighbour across it):
    its half cells and the whole cells touching the neighbouring tile's region across it."""
    return frame_of(frame).side_cells(side)


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
