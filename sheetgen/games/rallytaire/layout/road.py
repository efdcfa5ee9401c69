"""The road as a chain of squares: the stage's corners as the layout reads them, the pose of
each next space, and the board of placed spaces that says whether the next one fits.

The road is a chain of squares. On a straight, space i+1 shares its back edge with the front
edge of space i. In a bend, space i+1 is turned about the front corner of space i on the inside
of the bend, so the squares fan out with a wedge of paper on the outside and never overlap.
A pose is (x, y, heading in radians) of a space's centre; joint j lies between space j and
j + 1, and joint L (the stage's length) is the finish line, before the invisible space.

A corner is the line between space ``after`` and ``after + 1``; that joint is always straight so
the line is a whole shared edge, and the corner's bend is spread over the joints either side of it
(the corner line sits at the apex). Bend per gear limit, as (total degrees, joints):

    gear 1: 180 over 4 (a hairpin)   gear 2: 120 over 3   gear 3: 90 over 2
    gear 4:  60 over 2               gear 5:  40 over 2
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sheetgen.geometry import Point, convex_overlap, cos_sin, known_cos_sin, point_square_distance, square_corners

#: Bend of a corner by gear limit: (total degrees, number of joints it is spread over). The
#: lower the gear limit, the sharper the corner, as on the original sheets (docs/rallytaire.md):
#: gear 1 is a hairpin. Spread so, no joint of a full bend turns more than 45 degrees, and every
#: bend stays within two joints of its corner line (it takes joints -1, +1, -2, +2 in turn).
GEAR_BEND: Mapping[int, tuple[float, int]] = MappingProxyType(
    {1: (180.0, 4), 2: (120.0, 3), 3: (90.0, 2), 4: (60.0, 2), 5: (40.0, 2)}
)
#: Least distance from a space to the box edge, mm: a zone line in lane 1 or 2 (1 or 2 mm out,
#: marks.ZONE_OFFSETS_MM) beside a space at the edge still keeps the 0.5 mm from the edge that
#: a zone line needs.
EDGE_MM = 3.0
# Spaces fewer than this apart along the road are only kept from overlapping; the clearance is
# for passes of the road that come back by each other. Spaces this close are one pass, kept
# apart by the chain itself: in the sharpest bends, spaces two apart stay 0.7 of a space apart
# and spaces three apart 1.2, beyond either clearance. So 3 would do as well (3 and 5 wind the
# very same roads over winding.py's sample); winding._LAG counts on it.
_NEAR = 4


# ---------------------------------------------------------------------------------------------
# Stage input: anything with .name, .length and .corners (each .after, .gear, .zone, .turn)


@dataclass(frozen=True)
class RoadCorner:
    """A corner as the road reads it: the joint it stands at (``after``), its gear limit, the
    first space of its planning zone, and ``sign`` for its turn."""

    after: int
    gear: int
    zone: int
    sign: int  # +1 left, -1 right


def _turn_sign(turn: Any) -> int:
    value = str(getattr(turn, "value", turn)).lower()
    if value == "left":
        return 1
    if value == "right":
        return -1
    raise ValueError(f"corner turn must be 'left' or 'right', got {turn!r}")


def normalise(stage: Any) -> tuple[str, int, tuple[RoadCorner, ...]]:
    """(name, length, corners by ``after``) of anything shaped like a stage; ValueError for what
    no stage may be (a corner off the road, a gear outside 1..5, a zone after its corner)."""
    length = int(stage.length)
    corners = tuple(
        sorted(
            (RoadCorner(int(c.after), int(c.gear), int(c.zone), _turn_sign(c.turn)) for c in stage.corners),
            key=lambda c: c.after,
        )
    )
    if length < 1:
        raise ValueError(f"stage length must be at least 1, got {length!r}")
    seen: set[int] = set()
    for c in corners:
        if not 1 <= c.after <= length - 1 or c.after in seen:
            raise ValueError(f"corner after {c.after!r} must be distinct and in 1..{length - 1}")
        if c.gear not in GEAR_BEND:
            raise ValueError(f"corner gear must be in 1..5, got {c.gear!r}")
        if not 1 <= c.zone <= c.after:
            raise ValueError(f"planning zone must start in 1..{c.after}, got {c.zone!r}")
        seen.add(c.after)
    return (str(getattr(stage, "name", "")), length, corners)


# ---------------------------------------------------------------------------------------------
# Poses: each space from the one before


def step(pose: tuple[float, float, float], angle: float, s: float) -> tuple[float, float, float]:
    """Pose of the next space when the road turns ``angle`` radians (left positive) at the joint."""
    cx, cy, th = pose
    v = known_cos_sin(th)
    if v is None:
        v = cos_sin(th)
    c, sn = v
    if angle == 0.0:
        return (cx + s * c, cy + s * sn, th)
    h = s / 2
    sg = 1.0 if angle > 0 else -1.0
    px, py = cx + h * c - sg * h * sn, cy + h * sn + sg * h * c  # front corner on the inside
    t2 = th + angle
    v = known_cos_sin(t2)
    if v is None:
        v = cos_sin(t2)
    c2, s2 = v
    return (px + h * c2 + sg * h * s2, py + h * s2 - sg * h * c2, t2)


def road_poses(
    start: tuple[float, float, float], angles: Sequence[float], s: float
) -> list[tuple[float, float, float]]:
    """The pose of every space from ``start`` on, joint angle after joint angle."""
    poses = [start]
    for a in angles:
        poses.append(step(poses[-1], a, s))
    return poses


# ---------------------------------------------------------------------------------------------
# Obstacles: placed spaces in a spatial hash, exact checks by the separating-axis test


class Board:
    """The spaces placed so far, in a spatial hash of cells two spaces wide. ``fits`` says
    whether the next space may go at a pose: inside the box less ``edge``, overlapping none of
    the last few spaces, ``clear`` mm from every earlier one, and outside every disc kept free
    for a corner's marks (``badges``, added by the winding search)."""

    def __init__(self, width: float, height: float, s: float, clear: float, edge: float) -> None:
        self.w, self.h_box, self.s, self.h, self.clear, self.edge = width, height, s, s / 2, clear, edge
        self.cell = 2.0 * s
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.poses: list[tuple[float, float, float]] = []
        self.polys: list[tuple[Point, Point, Point, Point]] = []  # each space's square
        self.keys: list[list[tuple[int, int]]] = []
        self.badges: list[tuple[float, float, float]] = []
        self.reach = (s / 2) * math.sqrt(2.0)
        # the distances of the clearance test in fits()
        self._near_d = 2 * self.reach
        self._far_d = 2 * self.reach + self.clear * math.sqrt(2.0)
        self._touch_d = self.s + self.clear - 1e-9
        self.grown: list[tuple[Point, ...] | None] = []  # space j grown by the clearance, when needed

    def _cells_for(self, xmin: float, ymin: float, xmax: float, ymax: float) -> list[tuple[int, int]]:
        c = self.cell
        floor = math.floor
        js = range(int(floor(ymin / c)), int(floor(ymax / c)) + 1)
        return [(i, j) for i in range(int(floor(xmin / c)), int(floor(xmax / c)) + 1) for j in js]

    def inside(self, poly: Sequence[Point]) -> bool:
        e = self.edge
        lo = e - 1e-9
        xhi = self.w - e + 1e-9
        yhi = self.h_box - e + 1e-9
        for x, y in poly:
            if not (lo <= x <= xhi and lo <= y <= yhi):
                return False
        return True

    def fits(self, pose: tuple[float, float, float], poly: Sequence[Point] | None = None) -> bool:
        """Can the next space (index len(poses)) go at ``pose``?"""
        i = len(self.poses)
        if poly is None:
            poly = square_corners(pose[0], pose[1], pose[2], self.s)
        if not self.inside(poly):
            return False
        cx, cy = pose[0], pose[1]
        r = self.reach
        seen: set[int] = set()
        cells_get = self.cells.get
        poses = self.poses
        hypot = math.hypot
        near_d, far_d, touch_d = self._near_d, self._far_d, self._touch_d
        for key in self._cells_for(cx - r, cy - r, cx + r, cy + r):
            for j in cells_get(key, ()):
                if j in seen or i - j < 2:
                    continue
                seen.add(j)
                # space j is near along the road (it only must not overlap), or it keeps the
                # clearance: surely broken closer than s + clear, surely kept beyond the
                # circumscribed circles grown by it, the exact test in between
                pj = poses[j]
                d = hypot(pj[0] - cx, pj[1] - cy)
                if i - j < _NEAR:
                    if d >= near_d:
                        continue
                    if convex_overlap(self.polys[j], poly):
                        return False
                    continue
                if d >= far_d:
                    continue
                if d < touch_d:
                    return False
                grown = self.grown[j]
                if grown is None:
                    grown = self.grown[j] = square_corners(pj[0], pj[1], pj[2], self.s + 2 * self.clear)
                if convex_overlap(grown, poly):
                    return False
        for bx, by, br in self.badges:
            if abs(bx - cx) < br + r and abs(by - cy) < br + r:
                if point_square_distance(bx, by, pose, self.h) < br:
                    return False
        return True

    def add(self, pose: tuple[float, float, float], poly: tuple[Point, Point, Point, Point] | None = None) -> None:
        if poly is None:
            poly = square_corners(pose[0], pose[1], pose[2], self.s)
        idx = len(self.poses)
        r = self.reach + self.clear
        keys = self._cells_for(pose[0] - r, pose[1] - r, pose[0] + r, pose[1] + r)
        for key in keys:
            self.cells.setdefault(key, []).append(idx)
        self.poses.append(pose)
        self.polys.append(poly)
        self.keys.append(keys)
        self.grown.append(None)

    def pop(self) -> None:
        idx = len(self.poses) - 1
        for key in self.keys.pop():
            lst = self.cells[key]
            lst.remove(idx)
        self.poses.pop()
        self.polys.pop()
        self.grown.pop()

    def near(self, xmin: float, ymin: float, xmax: float, ymax: float) -> set[int]:
        out: set[int] = set()
        for key in self._cells_for(xmin, ymin, xmax, ymax):
            out.update(self.cells.get(key, ()))
        return out
