"""Rallyman hex geometry (sheetgen.games.rallyman.hexgrid) and the track model's moves,
against values worked out by hand (docs/rallyman.md has the figure)."""

from __future__ import annotations

import math

import pytest

from sheetgen import registry
from sheetgen.games.rallyman import hexgrid as g
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.model import Cell, MoveKind, Track, Variant

TINY = "track_specs/rallyman/tiny.yaml"


def test_directions_are_rekees_clockwise_from_east():
    assert g.DIRECTIONS == ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
    # Rekee's rotated_right: (1, 0) -> (0, 1); one turn of 60 degrees clockwise on the page
    assert g.rotate(Hex(1, 0), 1) == Hex(0, 1)
    assert g.rotate(Hex(2, -1), 1) == Hex(1, 1)
    assert g.rotate(Hex(1, 0), -1) == Hex(1, -1)
    for k in range(6):
        assert g.rotate(Hex(1, 0), k) == g.DIRECTIONS[k]


def test_centres_in_the_unit_pointy_top_layout():
    assert g.centre(Hex(0, 0)) == (0.0, 0.0)
    assert g.centre(Hex(1, 0)) == pytest.approx((math.sqrt(3), 0.0))
    assert g.centre(Hex(0, 1)) == pytest.approx((math.sqrt(3) / 2, 1.5))  # south-east: y grows down the page
    assert g.centre(Hex(0, -1), size=10) == pytest.approx((-5 * math.sqrt(3), -15.0))
    # neighbours are sqrt(3) apart (across flats), corners 1 from the centre, the top one straight up
    for d in g.DIRECTIONS:
        assert math.dist(g.centre(d), (0, 0)) == pytest.approx(math.sqrt(3))
    assert g.corners(Hex(0, 0))[0] == pytest.approx((0.0, -1.0))


def test_a_tile_rotated_six_times_is_itself():
    for h in g.FRAME_CELLS:
        assert g.rotate(h, 6) == h
        assert g.rotate(h, 3) == Hex(-h.q, -h.r)
        turned = [g.place(h, 2, -1, k) for k in range(6)]
        assert len(set(turned)) == (1 if h == (0, 0) else 6)
    assert sorted(g.rotate(h, 1) for h in g.FRAME_CELLS) == sorted(g.FRAME_CELLS)


def test_a_tile_is_the_hexagon_of_radius_two_with_half_cells_at_its_six_side_middles():
    assert len(g.FRAME_CELLS) == 19
    assert set(g.FRAME_CELLS) == {Hex(q, r) for q in range(-2, 3) for r in range(-2, 3) if g.distance(Hex(q, r)) <= 2}
    assert g.FRAME_HALVES == {Hex(2, 0), Hex(0, 2), Hex(-2, 2), Hex(-2, 0), Hex(0, -2), Hex(2, -2)}
    assert [g.half_cell_side(Hex(2, 0)), g.half_cell_side(Hex(-2, 2)), g.half_cell_side(Hex(1, 1))] == [0, 2, None]
    # 13 whole cells and 6 halves: 16 cells' worth, the area of a tile 4 cells across
    assert len(g.FRAME_CELLS) - len(g.FRAME_HALVES) + len(g.FRAME_HALVES) / 2 == g.TILE_SPAN**2


def test_a_tile_outline_runs_through_its_half_cells():
    corners = g.tile_corners(0, 0)
    assert corners[0] == pytest.approx((0.0, -4.0))  # the top corner, 4 cell radii up
    assert corners[1] == pytest.approx((2 * math.sqrt(3), -2.0))
    # the east side is the line x = 2 sqrt(3), halfway to the next tile's centre cell (4, 0),
    # through the centre of the half cell (2, 0)
    assert corners[2] == pytest.approx((2 * math.sqrt(3), 2.0))
    assert g.centre(Hex(2, 0)) == pytest.approx((2 * math.sqrt(3), 0.0))
    assert g.centre(g.tile_centre(1, 0))[0] == pytest.approx(4 * math.sqrt(3))
    shifted = g.tile_corners(1, -1, size=10)
    assert shifted[0] == pytest.approx((10 * (math.sqrt(3) * (4 - 2)), 10 * (-6.0 - 4.0)))


def test_tiles_cover_the_grid_once_and_share_only_the_half_cells():
    for q in range(-9, 10):
        for r in range(-9, 10):
            owners = g.tile_of(Hex(q, r))
            assert 1 <= len(owners) <= 2
            for tq, tr in owners:
                frame = Hex(q, r) - g.tile_centre(tq, tr)
                assert frame in g.FRAME_CELLS
                assert (len(owners) == 2) == (frame in g.FRAME_HALVES)


def test_neighbours_across_a_tile_edge():
    # tile (0, 0)'s east side: the half cell (2, 0) is on both tiles, (1, 1) is wholly on
    # (0, 0) and its east neighbour (2, 1) wholly on tile (1, 0), whose frame calls it (-2, 1)
    assert g.tile_of(Hex(2, 0)) == ((0, 0), (1, 0))
    assert g.tile_of(Hex(1, 1)) == ((0, 0),)
    assert g.tile_of(Hex(1, 1).neighbour(0)) == ((1, 0),)
    assert g.unplace(Hex(2, 1), 1, 0, 0) == Hex(-2, 1)
    assert g.side_cells(0) == (Hex(2, -1), Hex(2, 0), Hex(1, 1))
    assert g.side_cells(3) == (Hex(-1, -1), Hex(-2, 0), Hex(-2, 1))
    # turned: tile (1, 0) turned twice puts its frame's east half cell on the grid at
    # (4, 0) + rotate((2, 0), 2) = (4, 0) + (-2, 2) = (2, 2)
    assert g.place(Hex(2, 0), 1, 0, 2) == Hex(2, 2)
    assert g.tile_of(Hex(2, 2)) == ((0, 1), (1, 0))
    for k in range(6):
        for h in g.FRAME_CELLS:
            assert g.unplace(g.place(h, -3, 2, k), -3, 2, k) == h
    assert g.tile_neighbour(0, 0, 1) == (0, 1)


def test_the_tiny_track_loads_with_its_cells_and_moves():
    spec = registry.load_spec(TINY)
    track = spec.model
    assert isinstance(track, Track) and track.variant is Variant.GT
    assert len(track.cells) == 6
    assert [c.hex for c in track.starts] == [Hex(0, 0), Hex(0, 1)]
    # from lane 1 heading east: straight on to (1, 0), diagonally to lane 2's (0, 1) (south-east)
    assert [(m.to, m.kind) for m in track.moves(Hex(0, 0))] == [(Hex(1, 0), MoveKind.STRAIGHT), (Hex(0, 1), MoveKind.DIAGONAL)]
    # from lane 2: straight to (1, 1), diagonally north-east to (1, 0)
    assert [(m.to, m.kind) for m in track.moves(Hex(0, 1))] == [(Hex(1, 1), MoveKind.STRAIGHT), (Hex(1, 0), MoveKind.DIAGONAL)]
    assert track.moves(Hex(2, 0)) == ((track.moves(Hex(2, 0))[0]),) and track.moves(Hex(2, 0))[0].to == Hex(2, 1)
    assert track.steps()[Hex(2, 1)] == 2
    assert [c.hex for c in track.in_order()] == [Hex(0, 0), Hex(0, 1), Hex(1, 0), Hex(1, 1), Hex(2, 0), Hex(2, 1)]
    (corner,) = track.corners()
    assert (corner.number, corner.turn, corner.limits, corner.step) == (1, "straight", ((1, 4), (2, 3)), 1)


def test_a_move_never_turns_more_than_sixty_degrees():
    # the cell ahead heads back west (a hairpin's other leg, side by side): no move into it
    cells = (Cell(Hex(0, 0), 0, start=True), Cell(Hex(1, 0), 3), Cell(Hex(0, 1), 1, lane=2))
    track = Track("t", Variant.GT, cells)
    assert [m.to for m in track.moves(Hex(0, 0))] == [Hex(0, 1)]


def test_no_move_goes_sideways_between_two_cells_each_diagonally_ahead_of_the_other():
    """RM-3: at a corner's apex the inner lane heads south-east and the outer lane, east of
    it, south-west: each cell is diagonally ahead of the other, so a move between them goes
    across the road, not forward, and neither is a move; the straight moves stay."""
    apex_in, apex_out = Cell(Hex(0, 0), 1, lane=2, start=True), Cell(Hex(1, 0), 2, lane=1)
    cells = (apex_in, apex_out, Cell(Hex(-1, 1), 2, lane=2, finish=True), Cell(Hex(0, 1), 2, lane=1, finish=True))
    track = Track("t", Variant.GT, cells)
    assert [(m.to, m.kind) for m in track.moves(Hex(0, 0))] == [(Hex(0, 1), MoveKind.STRAIGHT), (Hex(-1, 1), MoveKind.DIAGONAL)]
    assert [(m.to, m.kind) for m in track.moves(Hex(1, 0))] == [(Hex(0, 1), MoveKind.STRAIGHT)]
    # the outer cell heading south-east instead: the inner one is no longer ahead of it, and
    # the diagonal move from the inner lane into it is forward again
    turned = Track("t", Variant.GT, (apex_in, Cell(Hex(1, 0), 1, lane=1), *cells[2:]))
    assert [m.to for m in turned.moves(Hex(0, 0))] == [Hex(0, 1), Hex(1, 0), Hex(-1, 1)]
    assert [m.to for m in turned.moves(Hex(1, 0))] == [Hex(0, 1)]


def test_the_bundled_wide_boulevards_corner_apexes_have_no_sideways_moves():
    """Wide Boulevard's two 120-degree corners (sg-l-c120r2, sg-l-c120l2) put such a pair at
    their apex: (26, 15) and (27, 15), (21, 28) and (21, 29); no move joins them."""
    track = registry.load_spec("track_specs/rallyman/gt_wide_boulevard.yaml").model
    for a, b in ((Hex(26, 15), Hex(27, 15)), (Hex(21, 28), Hex(21, 29))):
        assert b in {n for n in g.neighbours(a)}
        assert b not in {m.to for m in track.moves(a)} and a not in {m.to for m in track.moves(b)}
        assert track.moves(a) and track.moves(b)  # each still goes on round the corner


def test_a_ring_and_a_step_direction():
    # from the west cell, clockwise on the page: north-west, north-east, east, south-east, south-west
    assert g.ring(Hex(0, 0), 1) == (Hex(-1, 0), Hex(0, -1), Hex(1, -1), Hex(1, 0), Hex(0, 1), Hex(-1, 1))
    assert len(g.ring(Hex(3, -2), 3)) == 18 and all(g.distance(h, Hex(3, -2)) == 3 for h in g.ring(Hex(3, -2), 3))
    from sheetgen.games.rallyman.model import step_direction

    assert [step_direction(Hex(2, 2), Hex(2, 2) + d) for d in g.DIRECTIONS] == [0, 1, 2, 3, 4, 5]
    assert step_direction(Hex(0, 0), Hex(2, 0)) is None
