"""Tiles of a library laid end to end: the geometry behind `sheetgen generate rallyman`.

A **piece** is a library tile as it is driven: forward or turned round (`reverse`, ruling
RM-18). Its road enters across one side of the tile and leaves across another (its crossing
cells, `graph._crossing`: those whose cell ahead or behind lies on the tile across that side);
a start tile may have no way in, a finish tile no way out. Two pieces **meet** across a side
when the road leaves the one and enters the other in as many lanes, agreeing on the half
cell they share: exactly what the tile edge check (RM-8) and the track's moves ask of them,
worked out once per pair.

`Laid` is a piece laid on the tile lattice (the generator, `generate._Search`, lays them one
after another, each turned to enter across the side the one before leaves by), and
`table_fits` says whether the tiles' outlines lie inside a table. Pure geometry, no I/O: what
is laid is checked again, as a spec, by the track's own checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sheetgen.games.rallyman.hexgrid import DIRECTIONS, Hex, frame_of, place
from sheetgen.games.rallyman.model import Cell, TileDef


@dataclass(frozen=True)
class Piece:
    """A library tile as driven (`reverse`: the other way), its road in its own frame."""

    tile: TileDef
    reverse: bool
    cells: tuple[Cell, ...]  # as driven, in the tile's own frame
    entry: int | None  # the side the road enters across (None: it starts on the tile)
    exit: int | None  # the side it leaves across (None: it finishes on the tile)
    open_sides: frozenset[int]  # every side some lane crosses
    lanes_in: int
    lanes_out: int

    @property
    def key(self) -> tuple[str, bool]:
        return (self.tile.id, self.reverse)

    @property
    def start(self) -> bool:
        return any(c.start for c in self.cells)

    @property
    def finish(self) -> bool:
        return any(c.finish for c in self.cells)

    @property
    def turn(self) -> int:
        """The road's turn across the tile, in 60-degree steps clockwise (-2 to 2)."""
        if self.entry is None or self.exit is None:
            return 0
        t = (self.exit - (self.entry + 3)) % 6
        return t - 6 if t > 3 else t


def _crossing(cells: tuple[Cell, ...], frame: str, side: int) -> list[Cell]:
    from sheetgen.games.rallyman.graph import _crossing as crossing

    d = DIRECTIONS[side]
    return crossing(cells, frame, (d.q, d.r))


def pieces_of(tile: TileDef, frame: str) -> list[Piece]:
    """The ways `tile` can be driven as one road with one way in (or a start) and one way out
    (or a finish): forward and turned round; none for scenery or a tile whose road splits."""
    from sheetgen.games.rallyman.spec import driven_cells

    if tile.scenery or not tile.cells:
        return []
    out = []
    for reverse in (False, True):
        cells = driven_cells(tile, reverse)
        entries: list[int] = []
        exits: list[int] = []
        open_sides: set[int] = set()
        lanes: dict[int, int] = {}
        for d in range(6):
            across = _crossing(cells, frame, d)
            if not across:
                continue
            open_sides.add(d)
            signs = {1 if (c.heading - d) % 6 in (0, 1, 5) else -1 for c in across}
            if len(signs) != 1:
                break
            (entries if signs.pop() < 0 else exits).append(d)
            lanes[d] = len(across)
        else:
            starts = any(c.start for c in cells)
            finishes = any(c.finish for c in cells)
            if len(entries) > 1 or len(exits) > 1:
                continue
            if not entries and not starts or not exits and not finishes:
                continue
            entry = entries[0] if entries else None
            exit_ = exits[0] if exits else None
            out.append(
                Piece(
                    tile,
                    reverse,
                    cells,
                    entry,
                    exit_,
                    frozenset(open_sides),
                    lanes.get(entry, 0) if entry is not None else 0,
                    lanes.get(exit_, 0) if exit_ is not None else 0,
                )
            )
    return out


def _placed(piece: Piece, q: int, r: int, rotation: int, frame: str) -> dict[Hex, Cell]:
    return {
        place(c.hex, q, r, rotation, frame): replace(
            c, hex=place(c.hex, q, r, rotation, frame), heading=(c.heading + rotation) % 6
        )
        for c in piece.cells
    }


def meet(a: Piece, b: Piece, frame: str, shift: bool = False) -> bool:
    """Whether `b` can follow `a`: a laid at (0, 0) unturned, b on the tile its road leaves
    toward, turned to enter from there, with as many lanes across their side as a leaves in,
    and the half cells they share the same (the track's own checks see the rest). With
    `shift`, the half cells may give their space different lane numbers: the road steps one
    row sideways there (a tile driven the other way beside one driven as drawn, RM-18), which
    the tile edge check (RM-8) and the moves allow."""
    if a.exit is None or b.entry is None or a.lanes_out != b.lanes_in:
        return False
    d = DIRECTIONS[a.exit]
    rotation = (a.exit + 3 - b.entry) % 6
    mine = _placed(a, 0, 0, 0, frame)
    theirs = _placed(b, d.q, d.r, rotation, frame)
    for h in set(mine) & set(theirs):
        x, y = mine[h], theirs[h]
        if (x.heading, x.marks()) != (y.heading, y.marks()) or (x.lane != y.lane and not shift):
            return False
    return True


@dataclass(frozen=True)
class Laid:
    """A piece laid: its tile coordinates and rotation."""

    piece: Piece
    q: int
    r: int
    rotation: int

    @property
    def out(self) -> int | None:
        """The direction (0-5) of the tile its road leaves toward."""
        return None if self.piece.exit is None else (self.piece.exit + self.rotation) % 6


def table_fits(laid: list[Laid] | tuple[Laid, ...], frame: str, size: float, table: tuple[float, float]) -> bool:
    """Whether the tiles' outlines (spaces of circumradius `size` mm) fit a table of
    `table` (width, height, mm) laid square to it either way round."""
    w, h = outline_size(laid, frame, size)
    tw, th = table
    return (w <= tw and h <= th) or (w <= th and h <= tw)


def outline_size(laid, frame: str, size: float) -> tuple[float, float]:
    """The width and height (mm) of the tiles' outlines: pointy-top hexagons of circumradius
    span x `size` round their centres."""
    from sheetgen.games.rallyman.hexgrid import centre, tile_centre

    radius = frame_of(frame).span * size
    xs, ys = zip(*(centre(tile_centre(item.q, item.r, frame), size) for item in laid))
    return (max(xs) - min(xs) + math.sqrt(3) * radius, max(ys) - min(ys) + 2 * radius)


def cell_radius_mm(across_flats_mm: float) -> float:
    """A space's circumradius from its size across flats."""
    return across_flats_mm / math.sqrt(3)
