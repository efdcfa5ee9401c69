"""Plane geometry (sheetgen.geometry): each primitive against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from sheetgen.geometry import (
    Rect,
    convex_overlap,
    cos_sin,
    grow_rect,
    known_cos_sin,
    line_intersection,
    point_square_distance,
    segment_crosses_polygon,
    segments_cross,
    square_corners,
)

UNIT = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


def shifted(poly, dx, dy):
    return tuple((x + dx, y + dy) for x, y in poly)


def test_a_square_turned_a_quarter_left_faces_up():
    assert square_corners(0.0, 0.0, 0.0, 2.0) == ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))
    # heading +y: back-right is at the lower right, front-right at the upper right
    turned = square_corners(0.0, 0.0, math.pi / 2, 2.0)
    want = ((1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0))
    assert all(math.isclose(a, b, abs_tol=1e-12) for p, q in zip(turned, want) for a, b in zip(p, q))


def test_touching_is_not_overlapping():
    assert not convex_overlap(UNIT, shifted(UNIT, 1.0, 0.0))  # a shared edge
    assert not convex_overlap(UNIT, shifted(UNIT, 1.0, 1.0))  # a shared corner
    assert not convex_overlap(UNIT, shifted(UNIT, 1.005, 0.0))  # a gap
    assert convex_overlap(UNIT, shifted(UNIT, 0.5, 0.5))
    # within the tolerance (0.01 mm) an overlap does not count
    assert not convex_overlap(UNIT, shifted(UNIT, 0.995, 0.0))
    assert convex_overlap(UNIT, shifted(UNIT, 0.995, 0.0), tol=0.0)
    # a diamond off the square's corner: the boxes round them overlap, the shapes do not (only
    # the diamond's own edge, x + y = 2.1, separates them)
    diamond = ((0.8, 1.3), (1.3, 0.8), (1.8, 1.3), (1.3, 1.8))
    assert not convex_overlap(UNIT, diamond)
    assert convex_overlap(UNIT, shifted(diamond, -0.15, -0.15))


def test_a_segment_crosses_a_polygon_only_through_its_inside():
    assert segment_crosses_polygon((-1.0, 0.5), (2.0, 0.5), UNIT)
    assert not segment_crosses_polygon((-1.0, 1.0), (2.0, 1.0), UNIT)  # along an edge
    assert not segment_crosses_polygon((-1.0, 2.0), (2.0, 2.0), UNIT)


def test_signed_distance_from_a_point_to_a_turned_square():
    assert point_square_distance(3.0, 0.0, (0.0, 0.0, 0.0), 1.0) == 2.0
    assert point_square_distance(0.0, 0.0, (0.0, 0.0, 0.0), 1.0) == -1.0
    assert math.isclose(point_square_distance(2.0, 2.0, (0.0, 0.0, 0.0), 1.0), math.sqrt(2.0))
    # turned 45 degrees, the corner points along +x: at (3, 0) the point is 3 - sqrt(2) away
    assert math.isclose(point_square_distance(3.0, 0.0, (0.0, 0.0, math.pi / 4), 1.0), 3.0 - math.sqrt(2.0))


def test_segments_cross_properly_or_not_at_all():
    assert segments_cross((0.0, 0.0), (2.0, 2.0), (0.0, 2.0), (2.0, 0.0))
    assert not segments_cross((0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 2.0))  # a T: touching
    assert not segments_cross((0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (3.0, 0.0))  # collinear
    assert not segments_cross((0.0, 0.0), (1.0, 0.0), (2.0, -1.0), (2.0, 1.0))  # apart


def test_lines_meet_unless_parallel():
    assert line_intersection((0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (0.0, 1.0)) == (2.0, 2.0)
    assert line_intersection((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (2.0, 0.0)) is None


def test_rect_corners_centre_and_growing():
    r = Rect(1.0, 2.0, 4.0, 2.0)
    assert r.centre == (3.0, 3.0)
    assert r.corners == ((1.0, 2.0), (5.0, 2.0), (5.0, 4.0), (1.0, 4.0))
    assert grow_rect(r, 0.5) == ((0.5, 1.5), (5.5, 1.5), (5.5, 4.5), (0.5, 4.5))


@pytest.mark.parametrize("angle", [0.0, 0.3, -2.5, math.pi, 1e-300])
def test_the_cos_sin_memo_gives_the_very_same_floats(angle):
    assert cos_sin(angle) == (math.cos(angle), math.sin(angle))
    assert known_cos_sin(angle) == (math.cos(angle), math.sin(angle))
