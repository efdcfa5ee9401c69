"""Track layout: where the square spaces of a stage go on a race sheet.

Pure geometry, standard library only: millimetres, y axis up, origin at the lower-left of the
box the renderer hands over. The renderer only draws what is computed here.

The road is a chain of squares. On a straight, space i+1 shares its back edge with the front
edge of space i. In a bend, space i+1 is turned about the front corner of space i on the inside
of the bend, so the squares fan out with a wedge of paper on the outside and never overlap.

A corner is the line between space ``after`` and ``after + 1``; that joint is always straight so
the line is a whole shared edge, and the corner's bend is spread over the joints either side of it
(the corner line sits at the apex). Bend per gear limit, as (total degrees, joints):

    gear 1: 180 over 4 (a hairpin)   gear 2: 120 over 3   gear 3: 90 over 2
    gear 4:  60 over 2               gear 5:  40 over 2

The bends of a corner take the joints next to its line first (round robin over a cluster of
corners, sharpest first), at most 60 degrees a joint; a stretch of 14 joints never turns more than
200 degrees net (the bends that do are eased), or the road would curl into a loop it cannot leave.

Elsewhere the road may drift 10, 20 or 30 degrees a joint so that it winds and stays on the page;
two spaces from a corner line it may drift against the corner by 10 degrees at most, so every
corner visibly bends its own way. A depth-first search seeded from the stage's content
(``random.Random``, never ``hash()``) lays the road out: it steers loosely along a boustrophedon
of wide bands across the box, looks ahead by rolling the road forward on a coarse grid, keeps a
free circle outside every corner line for its marks, may ease a bend to 70 or 40 percent when the
road would not fit otherwise, and jumps back further each time it stalls. Its effort is bounded by
placements (_BUDGET_PER_SPACE per space and try, _WIND_SCHEDULE tries, and a try is given up
after _GIVE_UP placements that reach no new space: a try that recovers at all does so sooner),
not by the clock, so the result never depends on the machine. When no try succeeds, a serpentine
of rows with U-turns at the row ends is used, where each corner is a small bump towards its side
(and no U-turn bends the other way right next to a corner line). ``LayoutError`` says how much
room the stage needs when even the serpentine with ``min_space_mm`` spaces does not fit.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from sheetgen.errors import SheetgenError
from sheetgen.geometry import (
    TOLERANCE_MM,
    Point,
    Rect,
    Segment,
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

#: Bend of a corner by gear limit: (total degrees, number of joints it is spread over).
GEAR_BEND: dict[int, tuple[float, int]] = {1: (180.0, 4), 2: (120.0, 3), 3: (90.0, 2), 4: (60.0, 2), 5: (40.0, 2)}
_BEND_SIGNED = {g: total for g, (total, _) in GEAR_BEND.items()}
#: Drift per joint between corners, degrees.
DRIFT_DEGREES = (10.0, 20.0, 30.0)
#: Side of the gear label box and of each of the N and D boxes, mm.
LABEL_MM = 5.0
BOX_MM = 5.0
#: Gap between the N and the D box, mm.
BOX_GAP_MM = 1.0
#: Offsets of the planning zone lines from the edge of the road, mm (lanes for overlapping zones).
ZONE_OFFSETS_MM = (1.0, 2.0, 3.0)

_EDGE_MM = 3.0  # road to box edge: room for a zone line
_WIND_CLEAR_MM = 4.5  # between passes of a winding road: room for zone lines
_SERP_CLEAR_MM = 3.5
_SERP_LABEL_MM = 6.5  # above the first row and below the last one: room for a label
_BADGE_MM = 7.0  # radius kept free outside each corner line for its label and boxes
_CHEVRON_DEGREES = 15.0
#: Serpentine styles in order of preference: (joints per U-turn, strict).
_SERP_STYLES = ((4, True), (3, True), (4, False), (3, False))
_LAG = 5  # spaces this far back along the road count as obstacles for the look-ahead
_NEAR = 4  # spaces this far apart along the road must keep the clearance
_LOOKAHEAD = 18
_CURL_DEGREES = 200.0
_FEED = 8
_PACE = 60
_SLACK = 2
_GUIDE_SLACK = 1.15
_GUIDE_PITCH = 2.4
_LOCK = 1
#: Winding attempts: (space size, scale of the corner bends, tries); the search gives up on a
#: try after _BUDGET_PER_SPACE placements per space, so the effort is bounded.
_WIND_SCHEDULE = (("nominal", 1.0, 2), ("nominal", 0.7, 2), ("min", 0.7, 2))
_BUDGET_PER_SPACE = 3
#: Spaces' area over the box's area above which no winding try is made: measured over generated
#: races, fewer than 1 try in 40 above 0.16 found a road, and failed tries cost the most.
_WIND_DENSITY = 0.16
_STALL = 30
_GIVE_UP = 90  # placements without a new furthest space before a try is given up
_JUMP = 8
_CURL_SPAN = 14
_RAY = 5
_GRID_MM = 2.5
_EDGE_CELL = 1 << 40  # marks a grid cell next to the bounds (see _Grid)


class LayoutError(SheetgenError):
    """The stage cannot be laid out in the box given; the message says how much room it needs.

    ``stage_name`` names the stage that does not fit. ``need_mm`` is the lowest box height at
    this width that holds it, None when no height does (the box is too narrow for rows with
    U-turns). ``stage_index`` is the stage's index in its race when the error comes from
    laying out a whole race (``games.rallytaire.sheet.plan_pages`` sets it), else None.
    """

    def __init__(self, message: str, *, stage_name: str, need_mm: float | None = None, stage_index: int | None = None) -> None:
        super().__init__(message)
        self.stage_name = stage_name
        self.need_mm = need_mm
        self.stage_index = stage_index

    def in_race(self, index: int) -> LayoutError:
        """The same error, for stage ``index`` of a race."""
        return LayoutError(str(self), stage_name=self.stage_name, need_mm=self.need_mm, stage_index=index)

    def __reduce__(self) -> tuple[Any, ...]:
        # keyword fields survive pickling (a process pool sends errors back to its parent)
        fields = {"stage_name": self.stage_name, "need_mm": self.need_mm, "stage_index": self.stage_index}
        return (functools.partial(LayoutError, **fields), (str(self),))


# ---------------------------------------------------------------------------------------------
# Public results


@dataclass(frozen=True)
class Space:
    """One square space. ``corners`` run counter-clockwise: back-right, front-right, front-left,
    back-left (front = driving direction); ``heading`` is degrees counter-clockwise from +x."""

    number: int
    centre: Point
    heading: float
    side: float
    corners: tuple[Point, Point, Point, Point]

    @property
    def back_edge(self) -> Segment:
        """From the right end to the left end, looking in the driving direction."""
        return (self.corners[0], self.corners[3])

    @property
    def front_edge(self) -> Segment:
        return (self.corners[1], self.corners[2])


@dataclass(frozen=True)
class CornerLayout:
    """Where a corner's marks go.

    ``line`` is the shared edge of spaces ``after`` and ``after + 1`` from the inside of the bend
    to the outside. ``angle`` is how far the road turns around this corner, degrees, positive to
    the left: the heading of space ``after + 3`` less that of space ``after - 2``. ``label`` is the box for the gear number, on the outside of the bend. ``zone`` is the
    planning zone line from the corner line back to the start of space ``zone``, ``zone_side``
    "left" or "right" of the road in driving direction, ``zone_offset`` its distance from the
    road. ``n_box`` and ``d_box`` are the N and D boxes.
    """

    after: int
    gear: int
    turn: str
    angle: float
    line: Segment
    label: Rect
    zone: tuple[Point, ...]
    zone_side: str
    zone_offset: float
    n_box: Rect
    d_box: Rect


@dataclass(frozen=True)
class StageLayout:
    """A stage laid out in the box [0, width] x [0, height].

    ``spaces[i]`` is space i + 1; ``invisible`` is the space just past the finish line (drawn
    dashed). ``start_line`` is the back edge of space 1, ``finish_line`` the shared edge of the
    last space and the invisible one, both from right to left in driving direction. ``style`` is
    "winding" or "serpentine" (the fallback). ``bbox`` holds everything laid out.
    """

    width: float
    height: float
    space_mm: float
    style: str
    spaces: tuple[Space, ...]
    invisible: Space
    start_line: Segment
    finish_line: Segment
    corners: tuple[CornerLayout, ...]
    bbox: Rect


# ---------------------------------------------------------------------------------------------
# The road: each space's pose from the one before


def _step(pose: tuple[float, float, float], angle: float, s: float) -> tuple[float, float, float]:
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


def _poses(start: tuple[float, float, float], angles: Sequence[float], s: float) -> list[tuple[float, float, float]]:
    poses = [start]
    for a in angles:
        poses.append(_step(poses[-1], a, s))
    return poses


# ---------------------------------------------------------------------------------------------
# Stage input: anything with .name, .length and .corners (each .after, .gear, .zone, .turn)


@dataclass(frozen=True)
class _C:
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


def _normalise(stage: Any) -> tuple[str, int, tuple[_C, ...]]:
    length = int(stage.length)
    corners = tuple(
        sorted((_C(int(c.after), int(c.gear), int(c.zone), _turn_sign(c.turn)) for c in stage.corners), key=lambda c: c.after)
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


def _seed(name: str, length: int, corners: tuple[_C, ...]) -> int:
    key = repr((name, length, [(c.after, c.gear, c.zone, c.sign) for c in corners]))
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


# ---------------------------------------------------------------------------------------------
# The joint programme: joint j (1..L) lies between space j and j + 1; joint L is the finish line.


def _bend_plan(length: int, corners: tuple[_C, ...], scale: float) -> list[float | None]:
    """Fixed joint angles (radians) for the corner bends; None where the road may drift.

    Indexed by joint (index 0 unused); every bend is ``scale`` times the table's.
    """
    fixed: list[float | None] = [0.0] + [None] * length
    fixed[length] = 0.0
    owner: dict[int, int] = {}
    afters = {c.after for c in corners}
    for c in corners:
        fixed[c.after] = 0.0
    # round robin, sharpest corners first, so that every corner of a cluster gets a joint
    order = sorted(range(len(corners)), key=lambda i: (corners[i].gear, corners[i].after))
    joints: dict[int, list[int]] = {ci: [] for ci in order}
    for _ in range(max(n for _, n in GEAR_BEND.values())):
        for ci in order:
            c = corners[ci]
            if len(joints[ci]) >= GEAR_BEND[c.gear][1]:
                continue
            for off in (-1, 1, -2, 2, -3, 3):
                j = c.after + off
                if 1 <= j <= length - 1 and j not in afters and j not in owner:
                    joints[ci].append(j)
                    owner[j] = ci
                    break
    for ci, js in joints.items():
        if js:
            c = corners[ci]
            per = min(math.radians(GEAR_BEND[c.gear][0] * scale) / len(js), math.radians(60.0))
            for j in js:
                fixed[j] = c.sign * per
    # a cluster of corners turning one way would curl the road into a loop it cannot leave:
    # ease the bends of any stretch that turns more than _CURL_DEGREES net
    limit = math.radians(_CURL_DEGREES)
    for _ in range(4):
        eased = False
        for w in range(1, max(2, length - _CURL_SPAN + 1)):
            window = range(w, min(length, w + _CURL_SPAN))
            net = sum(fixed[j] or 0.0 for j in window)
            if abs(net) > limit + 1e-9:
                same = [j for j in window if fixed[j] and (fixed[j] > 0) == (net > 0)]
                part = sum(fixed[j] for j in same)  # type: ignore[misc]
                k = 1.0 - (abs(net) - limit) / abs(part)
                for j in same:
                    fixed[j] = fixed[j] * k  # type: ignore[operator]
                eased = True
        if not eased:
            break
    # no drift right next to a corner line: the corner alone decides how the road bends there
    for c in corners:
        for off in [o for k in range(1, _LOCK + 1) for o in (-k, k)]:
            j = c.after + off
            if 1 <= j <= length and fixed[j] is None:
                fixed[j] = 0.0
    return fixed


# ---------------------------------------------------------------------------------------------
# Obstacles: placed spaces in a spatial hash, exact checks by the separating-axis test


class _Board:
    def __init__(self, width: float, height: float, s: float, clear: float, edge: float) -> None:
        self.w, self.h_box, self.s, self.h, self.clear, self.edge = width, height, s, s / 2, clear, edge
        self.cell = 2.0 * s
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.poses: list[tuple[float, float, float]] = []
        self.polys: list[tuple[Point, ...]] = []
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

    def add(self, pose: tuple[float, float, float], poly: Sequence[Point] | None = None) -> None:
        if poly is None:
            poly = square_corners(pose[0], pose[1], pose[2], self.s)
        idx = len(self.poses)
        r = self.reach + self.clear
        keys = self._cells_for(pose[0] - r, pose[1] - r, pose[0] + r, pose[1] + r)
        for key in keys:
            self.cells.setdefault(key, []).append(idx)
        self.poses.append(pose)
        self.polys.append(tuple(poly))
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


class _Grid:
    """Cells where the centre of a later space cannot go: a cheap look-ahead.

    A centre closer than ``s + clear`` to an earlier space's centre surely breaks the clearance;
    discs are stamped with a precomputed stencil around the nearest cell, shrunk by the snapping
    error so that a blocked cell is always really blocked.
    """

    def __init__(self, width: float, height: float, s: float, clear: float, edge: float) -> None:
        g = self.g = _GRID_MM
        # wide enough that a centre one step (at most s * sqrt(2)) outside the bounds still has a cell
        self.pad = max(int(math.ceil((s + clear + _BADGE_MM) / g)) + 2, int(math.ceil(1.5 * s / g)) + 3)
        self.nx = int(math.ceil(width / g)) + 1 + 2 * self.pad
        self.ny = int(math.ceil(height / g)) + 1 + 2 * self.pad
        self.radius = s + clear - g * 0.75
        lo = edge + s / 2
        self.xlo, self.xhi, self.ylo, self.yhi = lo, width - lo, lo, height - lo
        self._stencils: dict[float, list[int]] = {}
        # counts[k] is how many discs cover cell k, plus _EDGE_CELL for a cell that a centre out of
        # bounds may snap to (there the bounds decide); a cell whose every centre is in bounds
        # holds just its count, so a zero there means free without looking at the bounds
        inner_x = [self._inner(i - self.pad, self.xlo, self.xhi) for i in range(self.nx)]
        inner_y = [self._inner(j - self.pad, self.ylo, self.yhi) for j in range(self.ny)]
        self.counts = [0 if ix and iy else _EDGE_CELL for ix in inner_x for iy in inner_y]

    def _inner(self, i: int, lo: float, hi: float) -> bool:
        """Does every coordinate that snaps to cell i (int(v / g + 0.5) == i) lie in [lo, hi]?"""
        g = self.g
        return i >= 1 and (i - 0.5) * g - 1e-6 >= lo and (i + 0.5) * g + 1e-6 <= hi

    def _stencil(self, r: float) -> list[int]:
        st = self._stencils.get(r)
        if st is None:
            n = int(r / self.g) + 1
            st = [
                i * self.ny + j
                for i in range(-n, n + 1)
                for j in range(-n, n + 1)
                if (i * self.g) ** 2 + (j * self.g) ** 2 <= r * r
            ]
            self._stencils[r] = st
        return st

    def _cell(self, x: float, y: float) -> int:
        return (int(x / self.g + 0.5) + self.pad) * self.ny + int(y / self.g + 0.5) + self.pad

    def mark(self, x: float, y: float, r: float, delta: int) -> None:
        counts = self.counts
        base = self._cell(x, y)
        for k in self._stencil(r):
            counts[base + k] += delta

    def free(self, x: float, y: float) -> bool:
        if not (self.xlo <= x <= self.xhi and self.ylo <= y <= self.yhi):
            return False
        v = self.counts[self._cell(x, y)]
        return v == 0 or v == _EDGE_CELL


# ---------------------------------------------------------------------------------------------
# Winding road: seeded depth-first search with a look-ahead


def _badge(prev: tuple[float, float, float], sign: int, s: float) -> tuple[float, float, float]:
    """Circle kept free outside a corner line (prev is the pose of space ``after``)."""
    cx, cy, th = prev
    h = s / 2
    c, sn = math.cos(th), math.sin(th)
    ux, uy = sn * sign, -c * sign  # outward: right of the road for a left bend
    ax, ay = cx + h * c + ux * h, cy + h * sn + uy * h
    d = _BADGE_MM + 0.8
    return (ax + ux * d, ay + uy * d, _BADGE_MM)


class _Guide:
    """A boustrophedon of wide bands across the box that the road loosely follows.

    Without it a wandering road cuts the box into pockets it cannot fill. The road steers
    towards a point a little ahead on the guide; corners throw it off and it finds the guide
    again from wherever it is (nearest guide point ahead).
    """

    STEP = 2.0

    def __init__(self, width: float, height: float, s: float, length: int, flip_x: bool, flip_y: bool, rng: random.Random) -> None:
        mx = my = _EDGE_MM + s / 2 + 2.0
        road = (length + 1) * s * _GUIDE_SLACK
        bands = 1
        while True:
            pitch = (height - 2 * my) / bands
            if bands == 1:
                run = width - 2 * mx
            else:
                run = bands * (width - 2 * mx - pitch) + (bands - 1) * math.pi * pitch / 2
            if run >= road or pitch < _GUIDE_PITCH * s:
                break
            bands += 1
        self.ok = run >= road and pitch >= _GUIDE_PITCH * s
        pts: list[Point] = []
        if bands == 1:
            y = height / 2 + (rng.random() - 0.5) * 0.3 * (height - 2 * my)
            pts = [(mx, y), (width - mx, y)]
        else:
            xl, xr = mx + pitch / 2, width - mx - pitch / 2
            for b in range(bands):
                y = height - my - pitch / 2 - b * pitch
                row = [(mx, y), (xr, y)] if b % 2 == 0 else [(xr, y), (xl, y)]
                if b == 0:
                    pts.append(row[0])
                pts.append(row[1])
                if b < bands - 1:  # half circle down to the next band
                    cx = xr if b % 2 == 0 else xl
                    cy = y - pitch / 2
                    for k in range(1, 12):
                        t = math.pi / 2 - math.pi * k / 12
                        sx = math.cos(t) if b % 2 == 0 else -math.cos(t)
                        pts.append((cx + sx * pitch / 2, cy + math.sin(t) * pitch / 2))
        if flip_x:
            pts = [(width - x, y) for x, y in pts]
        if flip_y:
            pts = [(x, height - y) for x, y in pts]
        dense: list[Point] = [pts[0]]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            n = max(1, int(math.hypot(x1 - x0, y1 - y0) / self.STEP))
            for k in range(1, n + 1):
                dense.append((x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n))
        self.pts = dense
        self.xs = [p[0] for p in dense]
        self.ys = [p[1] for p in dense]
        cum = [0.0]
        for (x0, y0), (x1, y1) in zip(dense, dense[1:]):
            cum.append(cum[-1] + math.hypot(x1 - x0, y1 - y0))
        self.cum = cum  # arc length along the guide up to each point
        x0, y0 = dense[0]
        x1, y1 = dense[1]
        self.start = (x0, y0, math.atan2(y1 - y0, x1 - x0))
        self.look = max(3, int(2.5 * s / self.STEP))

    def nearest(self, x: float, y: float, hint: int) -> int:
        xs, ys, cum = self.xs, self.ys, self.cum
        i, hi = max(0, hint - 10), min(len(xs), hint + _PACE)
        best, best_d = hint, math.inf
        reach = math.inf  # sqrt(best_d)
        sqrt = math.sqrt
        while i < hi:
            d = (xs[i] - x) ** 2 + (ys[i] - y) ** 2
            if d < best_d:
                best, best_d = i, d
                reach = sqrt(d)
                i += 1
                continue
            # the points less than `gap` further along the guide are surely further away than
            # the best so far (triangle inequality, with a margin for rounding): skip them
            gap = sqrt(d) - reach - 1e-6
            if gap > 0.0:
                i = bisect.bisect_left(cum, cum[i] + gap, i + 1, hi)
            else:
                i += 1
        return best

    def preferred(self, pose: tuple[float, float, float], idx: int, coming: float = 0.0) -> float:
        """Drift (radians) that steers towards the guide a little ahead.

        ``coming`` is how far the corners just ahead will turn the road: steering against part of
        it beforehand keeps a hairpin from throwing the road off the page.
        """
        x, y, th = pose
        th += coming
        i = idx + self.look
        if i < len(self.pts):
            tx, ty = self.pts[i]
        else:
            (ax, ay), (bx, by) = self.pts[-2], self.pts[-1]
            over = (i - len(self.pts) + 1) * self.STEP
            d = math.hypot(bx - ax, by - ay) or 1.0
            tx, ty = bx + (bx - ax) / d * over, by + (by - ay) / d * over
        err = math.atan2(ty - y, tx - x) - th
        err = (err + math.pi) % (2 * math.pi) - math.pi
        want = math.degrees(err) * 0.5
        if abs(want) < 8.0:
            return 0.0  # a dead band: no wiggling about the guide
        best = min((0.0,) + DRIFT_DEGREES + tuple(-d for d in DRIFT_DEGREES), key=lambda d: abs(d - want))
        return math.radians(best)


def _wind(
    length: int,
    corners: tuple[_C, ...],
    fixed: Sequence[float | None],
    width: float,
    height: float,
    s: float,
    guide: _Guide,
    rng: random.Random,
    budget: int,
) -> list[tuple[float, float, float]] | None:
    board = _Board(width, height, s, _WIND_CLEAR_MM, _EDGE_MM)
    grid = _Grid(width, height, s, _WIND_CLEAR_MM, _EDGE_MM)
    sign_at = {c.after: c.sign for c in corners}
    start = guide.start
    gidx = [guide.nearest(start[0], start[1], 0)]
    drifts = (0.0,) + tuple(math.radians(d) * sg for d in DRIFT_DEGREES for sg in (1.0, -1.0))
    noise = [rng.random() for _ in range(length + 1)]
    badge_grid_r = _BADGE_MM + s / 2 - 0.75 * _GRID_MM

    if not board.fits(start):
        return None
    board.add(start)

    planned = [0.0 if a is None else a for a in fixed]
    roll = tuple(d for d in drifts if abs(d) != math.radians(DRIFT_DEGREES[0]))  # coarser in rollouts
    # two spaces from a corner line the road may only drift a little, so that the corner keeps
    # its side and its sharpness
    gentle = math.radians(DRIFT_DEGREES[0]) + 1e-9
    near: dict[int, set[int]] = {}
    for c in corners:
        for off in (-2, 2):
            near.setdefault(c.after + off, set()).add(c.sign)
    drifts_at = [
        tuple(d for d in drifts if all(d * sg >= -gentle for sg in near[j])) if j in near else drifts for j in range(length + 1)
    ]
    roll_at = [drifts_at[j] if j in near else roll for j in range(length + 1)]
    counts, g, ny, pad = grid.counts, grid.g, grid.ny, grid.pad
    xlo, xhi, ylo, yhi = grid.xlo, grid.xhi, grid.ylo, grid.yhi
    off = pad * ny + pad
    edge_cell = _EDGE_CELL

    h = s / 2
    L1 = length + 1
    trig_get = known_cos_sin
    # per joint, the sign of the planned bend times half a space (0.0 where the road runs straight)
    planned_sgh = [0.0 if a == 0.0 else (1.0 if a > 0 else -1.0) * h for a in planned]
    ray_end = [min(jn + _RAY, L1) for jn in range(length + 2)]  # end of the ray's range from joint jn
    # rollout candidates per joint: the current drift first (once), then the rest in order
    roll_first = [{d: (d,) + tuple(o for o in opts if o != d) for d in opts if d} for opts in roll_at]

    # The ray of a pose after joint j: how many of the next _RAY spaces (joints j + 1 ..) are free
    # when the road drifts no more (corner bends as planned); _RAY when all of them are, or when
    # the finish comes first. It is inlined in rollout() below.

    def rollout(cx: float, cy: float, th: float, c: float, sn: float, j_next: int, drift: float) -> int:
        """Spaces the road survives ahead when it keeps steering to the most open side.

        The road is at pose (cx, cy, th) with (c, sn) = cos and sin of th. The ray of each
        candidate (see above) is inlined; when the road went on with a candidate and now runs
        straight on, the ray from there is that candidate's ray moved on by one space."""
        n = 0
        prev_r = -1  # ray of the candidate taken at the previous joint (-1: none to reuse)
        prev_state = None  # where that ray stopped, when it found every space free
        for j in range(j_next, min(j_next + _LOOKAHEAD, L1)):
            a = fixed[j]
            if a is None:
                best_ray = -1
                best = None
                best_state = None
                hc, hs = h * c, h * sn
                bx0, by0 = cx + hc, cy + hs
                for d in roll_first[j].get(drift, roll_at[j]):
                    if d == 0.0:
                        yx, yy, yt, yc, ys = cx + s * c, cy + s * sn, th, c, sn
                    else:
                        sgh = h if d > 0 else -h
                        px, py = bx0 - sgh * sn, by0 + sgh * c
                        yt = th + d
                        v = trig_get(yt)
                        if v is None:
                            v = cos_sin(yt)
                        yc, ys = v
                        yx, yy = px + h * yc + sgh * ys, py + h * ys - sgh * yc
                    v = counts[int(yx / g + 0.5) * ny + int(yy / g + 0.5) + off]
                    if v and (v != edge_cell or not (xlo <= yx <= xhi and ylo <= yy <= yhi)):
                        continue
                    walk = True
                    if d == 0.0 and prev_r >= 0:
                        if prev_r < _RAY:
                            r = prev_r - 1
                            state = None
                            walk = False
                        else:
                            # straight on: the previous ray, moved on by one space, goes on
                            rx, ry, rth, rc, rs, dx, dy = prev_state  # type: ignore[misc]
                            start = ray_end[j]
                            r = start - (j + 1)
                    else:
                        rx, ry, rth, rc, rs = yx, yy, yt, yc, ys
                        dx, dy = s * rc, s * rs
                        start = j + 1
                        r = 0
                    if walk:
                        for jj in range(start, ray_end[j + 1]):
                            a2 = planned[jj]
                            if a2 == 0.0:
                                rx += dx
                                ry += dy
                            else:
                                sgh = planned_sgh[jj]
                                px, py = rx + h * rc - sgh * rs, ry + h * rs + sgh * rc
                                rth = rth + a2
                                v = trig_get(rth)
                                if v is None:
                                    v = cos_sin(rth)
                                rc, rs = v
                                rx, ry = px + h * rc + sgh * rs, py + h * rs - sgh * rc
                                dx, dy = s * rc, s * rs
                            v = counts[int(rx / g + 0.5) * ny + int(ry / g + 0.5) + off]
                            if v and (v != edge_cell or not (xlo <= rx <= xhi and ylo <= ry <= yhi)):
                                break
                            r += 1
                        else:
                            r = _RAY
                        state = (rx, ry, rth, rc, rs, dx, dy) if r == _RAY else None
                    if r > best_ray:
                        best_ray = r
                        best = (d, yx, yy, yt, yc, ys)
                        best_state = state
                        if r == _RAY:
                            break
                if best is None:
                    return n
                drift, cx, cy, th, c, sn = best
                prev_r, prev_state = best_ray, best_state
            else:
                prev_r = -1
                if a == 0.0:
                    cx, cy = cx + s * c, cy + s * sn
                else:
                    sgh = planned_sgh[j]
                    px, py = cx + h * c - sgh * sn, cy + h * sn + sgh * c
                    th = th + a
                    v = trig_get(th)
                    if v is None:
                        v = cos_sin(th)
                    c, sn = v
                    cx, cy = px + h * c + sgh * sn, py + h * sn - sgh * c
                v = counts[int(cx / g + 0.5) * ny + int(cy / g + 0.5) + off]
                if v and (v != edge_cell or not (xlo <= cx <= xhi and ylo <= cy <= yhi)):
                    return n
            n += 1
        return _LOOKAHEAD

    coming_at: list[float | None] = [None] * (length + 1)

    def order(j: int) -> list[float]:
        a = fixed[j]
        prev = board.poses[-1]
        if a is not None:
            if a == 0.0:
                return [a]
            # a corner's bend: as planned, or eased when the road would not fit otherwise
            p, options = a, (a, a * 0.7, a * 0.4)
        else:
            coming = coming_at[j]
            if coming is None:
                coming = coming_at[j] = sum(fixed[k] or 0.0 for k in range(j + 1, min(length, j + _FEED)))
            p = guide.preferred(prev, gidx[-1], 0.5 * coming)
            # keep bending the way the road already bends rather than wiggling
            last = prev[2] - board.poses[-2][2] if len(board.poses) > 1 and fixed[j - 1] is None else 0.0
            if last and p and (last > 0) == (p > 0):
                p = last
            allowed = drifts_at[j]
            if p not in allowed:
                p = min(allowed, key=lambda d: abs(d - p))
            options = (p,) + tuple(d for d in allowed if d != p)
        scores: dict[float, int] = {}
        for d in options:
            nx, ny_, nth = _step(prev, d, s)
            if grid.free(nx, ny_):
                nc, ns = cos_sin(nth)
                scores[d] = rollout(nx, ny_, nth, nc, ns, j + 1, d)
            else:
                scores[d] = -1
            if d == p and scores[d] == _LOOKAHEAD:
                break
        cands = [d for d in scores if scores[d] >= 0]
        if not cands:
            return cands
        rnd = noise[j]
        best = max(scores[d] for d in cands)
        # the preferred bend or drift unless it is clearly worse than another
        cands.sort(key=lambda d: (scores[d] < best - _SLACK, -scores[d] if scores[d] < best - _SLACK else 0, abs(d - p), abs(d), (d > 0) != (rnd > 0.5)))
        if cands and scores[cands[0]] == _LOOKAHEAD:
            # the rest are only tried after backtracking: finish their scores lazily
            for d in options:
                if d not in scores:
                    cands.append(d)
        return cands

    stack: list[list[float]] = []
    badges_at: set[int] = set()  # space indices whose placing added a badge

    def undo() -> None:
        idx = len(board.poses) - 1
        if idx in badges_at:
            badges_at.discard(idx)
            bx, by, _ = board.badges.pop()
            grid.mark(bx, by, badge_grid_r, -1)
        if idx - _LAG >= 0:
            p = board.poses[idx - _LAG]
            grid.mark(p[0], p[1], grid.radius, -1)
        board.pop()
        gidx.pop()

    j = 1
    frontier, stall, jump, stuck = 1, 0, _JUMP, 0
    while j <= length:
        if len(stack) < j:
            stack.append(order(j))
        cands = stack[j - 1]
        if not cands:
            stack.pop()
            if j == 1:
                return None
            undo()
            j -= 1
            continue
        budget -= 1
        stall += 1
        stuck += 1
        if budget < 0 or stuck > _GIVE_UP:
            return None
        if stall > _STALL:
            # stuck behind a dead end: jump further back each time instead of trying every
            # combination of the last few joints
            target = max(1, frontier - jump)
            jump += _JUMP
            stall = 0
            if target < j:
                del stack[target:]
                while len(board.poses) > target:
                    undo()
                j = target
                continue
        a = cands.pop(0)
        pose = _step(board.poses[-1], a, s)
        if not board.fits(pose):
            continue
        badge = None
        if j in sign_at:  # space j + 1 closes corner `after` = j: keep room for its marks
            badge = _badge(board.poses[-1], sign_at[j], s)
            bx, by, br = badge
            if not (br <= bx <= width - br and br <= by <= height - br):
                continue
            if any(
                point_square_distance(bx, by, board.poses[k], s / 2) < br
                for k in board.near(bx - br, by - br, bx + br, by + br)
            ) or point_square_distance(bx, by, pose, s / 2) < br:
                continue
        board.add(pose)
        gidx.append(guide.nearest(pose[0], pose[1], gidx[-1]))
        idx = len(board.poses) - 1
        if idx - _LAG >= 0:
            p = board.poses[idx - _LAG]
            grid.mark(p[0], p[1], grid.radius, +1)
        if badge is not None:
            board.badges.append(badge)
            grid.mark(badge[0], badge[1], badge_grid_r, +1)
            badges_at.add(idx)
        j += 1
        if j > frontier:
            frontier, stall, jump, stuck = j, 0, _JUMP, 0
    return list(board.poses)


# ---------------------------------------------------------------------------------------------
# Serpentine fallback: rows across the box, U-turns at the row ends, a bump at each corner


def _serpentine_angles(length: int, corners: tuple[_C, ...], width: float, s: float, uturn: int, strict: bool = True) -> list[float] | None:
    """Joint angles of the serpentine: rows across the box with U-turns of ``uturn`` joints.

    A corner on a row becomes a bump towards its side: +t before the line, -2t after it, +t to
    straighten, so the row keeps its line. ``strict``: no U-turn bends right next to a corner
    line the other way (rows may then end early). None when a row cannot fit the width.
    """
    afters = {c.after for c in corners}
    sign_at = {c.after: c.sign for c in corners}
    lo, hi = _EDGE_MM, width - _EDGE_MM
    turn = math.pi / uturn
    chev = math.radians(_CHEVRON_DEGREES)

    def free(j: int) -> bool:
        return 1 <= j <= length - 1 and j not in afters

    def turnable(j: int, sign: float) -> bool:
        """May the U-turn bend at joint j? Not right by a corner that turns the other way."""
        return free(j) and (not strict or all(sign_at.get(j + off, sign) * sign > 0 for off in (-1, 1)))

    def xs_ok(p: tuple[float, float, float]) -> bool:
        return all(lo - 1e-9 <= x <= hi + 1e-9 for x, _ in square_corners(p[0], p[1], p[2], s))

    def compact(j: int, sign: float) -> bool:
        return all(turnable(k, sign) for k in range(j, j + uturn))

    def uturn_fits(p: tuple[float, float, float], j: int, pend: dict[int, float], direction: int, tidy: bool = False) -> bool:
        """From pose p before joint j, bumps ``pend`` first, then the U-turn as soon as it can
        (``tidy``: at the next joint from which it turns on consecutive joints)."""
        sign = -float(direction)
        last = max(pend) if pend else 0
        begin = next((k for k in range(max(j, last + 1), length) if compact(k, sign)), None) if tidy else None
        left = uturn
        q = p
        for k in range(j, length + 1):
            if k in pend:
                a = pend[k]
            elif left > 0 and k > last and (k >= begin if begin is not None else turnable(k, sign)) and turnable(k, sign):
                a = sign * turn
                left -= 1
            else:
                a = 0.0
            q = _step(q, a, s)
            xs = [x for x, _ in square_corners(q[0], q[1], q[2], s)]
            if (direction > 0 and max(xs) > hi + 1e-9) or (direction < 0 and min(xs) < lo - 1e-9):
                return False  # only the far end matters: the row is leaving the near one
            if left == 0:
                return True
        return True

    angles = [0.0] * (length + 1)
    pose = (lo + s / 2, 0.0, 0.0)
    direction = 1  # +1 east, -1 west
    pending: dict[int, float] = {}
    uturn_left = 0
    for j in range(1, length + 1):
        a = 0.0
        if uturn_left > 0:
            if turnable(j, -direction):
                a = -direction * turn
                uturn_left -= 1
                if uturn_left == 0:
                    direction = -direction
        elif j in pending:
            a = pending.pop(j)
        elif not pending:
            corner = j + 1
            if corner in sign_at and free(j) and free(j + 2) and free(j + 4):
                t = sign_at[corner] * chev
                bump = {j: t, j + 2: -2 * t, j + 4: t}
                if uturn_fits(pose, j, bump, direction):
                    a = t
                    pending = {j + 2: -2 * t, j + 4: t}
            sg = -direction
            if a == 0.0 and turnable(j, sg) and not uturn_fits(_step(pose, 0.0, s), j + 1, {}, direction, tidy=compact(j, sg)):
                a = -direction * turn
                uturn_left = uturn - 1
                if uturn_left == 0:
                    direction = -direction
        angles[j] = a
        pose = _step(pose, a, s)
        if not xs_ok(pose):
            return None
    return angles[1:]


# ---------------------------------------------------------------------------------------------
# Corner marks: planning zone lines, gear labels, N and D boxes


def _side_offset(pose: tuple[float, float, float], side: int) -> Point:
    th = pose[2]
    return (-math.sin(th) * side, math.cos(th) * side)


def _zone_polyline(
    poses: Sequence[tuple[float, float, float]], angles: Sequence[float], c: _C, side: int, offset: float, s: float
) -> tuple[Point, ...]:
    """From the corner line back along spaces after..zone, ``offset`` mm to one ``side``."""
    h = s / 2
    pts: list[Point] = []
    for k in range(c.after, c.zone - 1, -1):  # space numbers, poses[k - 1]
        p = poses[k - 1]
        nx, ny = _side_offset(p, side)
        fx, fy = math.cos(p[2]), math.sin(p[2])
        ex, ey = p[0] + nx * (h + offset), p[1] + ny * (h + offset)
        front = (ex + fx * h, ey + fy * h)
        back = (ex - fx * h, ey - fy * h)
        if not pts:
            pts.append(front)
        elif angles[k - 1] != 0.0:  # a bend at the joint in front of space k: mitre
            q = poses[k]
            qn = _side_offset(q, side)
            qx, qy = q[0] + qn[0] * (h + offset), q[1] + qn[1] * (h + offset)
            m = line_intersection((qx, qy), (math.cos(q[2]), math.sin(q[2])), front, (fx, fy))
            pts.append(m if m is not None else front)
        if k == c.zone:
            pts.append(back)
    return tuple(pts)


class _Marks:
    """Placed marks for the label search: spaces (board), zone segments and label rects."""

    def __init__(self, board: _Board, width: float, height: float) -> None:
        self.board = board
        self.w, self.h = width, height
        self.segments: list[tuple[Point, Point, float, float, float, float]] = []
        self.rects: list[Rect] = []

    def add_polyline(self, pts: Sequence[Point]) -> None:
        for a, b in zip(pts, pts[1:]):
            self.segments.append((a, b, min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])))

    def polyline_clear(self, pts: Sequence[Point]) -> bool:
        for x, y in pts:
            if not (0.5 <= x <= self.w - 0.5 and 0.5 <= y <= self.h - 0.5):
                return False
        polys = self.board.polys
        for a, b in zip(pts, pts[1:]):
            near = self.board.near(min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
            for k in near:
                if segment_crosses_polygon(a, b, polys[k], 0.05):
                    return False
        return True

    def crosses_lines(self, pts: Sequence[Point]) -> bool:
        """Does the polyline cross a zone line already placed?"""
        for a, b in zip(pts, pts[1:]):
            x0, y0, x1, y1 = min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])
            for c, d, sx0, sy0, sx1, sy1 in self.segments:
                if sx1 < x0 or sx0 > x1 or sy1 < y0 or sy0 > y1:
                    continue
                if segments_cross(a, b, c, d):
                    return True
        return False

    def box_free(self, rx: float, ry: float, rw: float, rh: float, avoid_lines: bool = True) -> bool:
        """Is the box (rx, ry, rw, rh) inside the page, 0.4 mm clear of every space and of every
        other label or box pair, and (``avoid_lines``) crossed by no zone line?"""
        if rx < 0.3 or ry < 0.3 or rx + rw > self.w - 0.3 or ry + rh > self.h - 0.3:
            return False
        # grow_rect(r, 0.4), the same arithmetic
        gx, gy, gw, gh = rx - 0.4, ry - 0.4, rw + 2 * 0.4, rh + 2 * 0.4
        grown = ((gx, gy), (gx + gw, gy), (gx + gw, gy + gh), (gx, gy + gh))
        # every test below is a pure veto, so their order does not change the answer: cheap first
        for o in self.rects:
            # the box and o closer than 0.6 mm
            if rx < o.x + o.width + 0.6 and o.x < rx + rw + 0.6 and ry < o.y + o.height + 0.6 and o.y < ry + rh + 0.6:
                return False
        board = self.board
        polys, poses = board.polys, board.poses
        # a space (half side h) and the grown box surely overlap when their centres are closer
        # than the sum of their inscribed circles' radii, and surely do not when farther apart
        # than the sum of their circumscribed ones; the exact test decides in between
        cx, cy = gx + gw / 2, gy + gh / 2
        sure = board.h + min(gw, gh) / 2
        clear = board.reach + math.hypot(gw / 2, gh / 2)
        for k in board.near(rx - 0.5, ry - 0.5, rx + rw + 0.5, ry + rh + 0.5):
            pk = poses[k]
            d = math.hypot(pk[0] - cx, pk[1] - cy)
            if d < sure - 2 * TOLERANCE_MM:  # every axis: more than the tolerance of overlap
                return False
            if d > clear + 1e-9:
                continue
            if convex_overlap(grown, polys[k]):
                return False
        if avoid_lines:
            x0, y0, x1, y1 = rx - 0.4, ry - 0.4, rx + rw + 0.4, ry + rh + 0.4
            for a, b, sx0, sy0, sx1, sy1 in self.segments:
                if sx1 < x0 or sx0 > x1 or sy1 < y0 or sy0 > y1:
                    continue
                if segment_crosses_polygon(a, b, grown, 0.0):
                    return False
        return True


def _label_offsets() -> list[tuple[float, float]]:
    """(outward, along the road) offsets for the gear label, nearest first."""
    half = LABEL_MM / 2
    out = []
    for t in (0.6, 1.6, 2.8, 4.2, 6.0, 8.0, 10.5, 13.0):
        for v in range(-24, 25):
            out.append((half + t, v * 0.75))
    out.sort(key=lambda tv: (tv[0] - half) + 0.6 * abs(tv[1]))
    return out


_LABEL_OFFSETS = _label_offsets()


def _place_label(marks: _Marks, anchor: Point, out: Point, fwd: Point) -> Rect | None:
    ax, ay = anchor
    ox, oy = out
    fx, fy = fwd
    half = LABEL_MM / 2
    box_free = marks.box_free
    for avoid in (True, False):
        for t, v in _LABEL_OFFSETS:
            # lower-left of the label box centred at the offset point
            x, y = ax + ox * t + fx * v - half, ay + oy * t + fy * v - half
            if box_free(x, y, LABEL_MM, LABEL_MM, avoid):
                return Rect(x, y, LABEL_MM, LABEL_MM)
    return None


def _place_boxes(marks: _Marks, label: Rect, anchor: Point, out: Point) -> tuple[Rect, Rect] | None:
    pair_w, pair_h = 2 * BOX_MM + BOX_GAP_MM, BOX_MM
    g = 1.0
    lx, ly, lw, lh = label.x, label.y, label.width, label.height
    cands: list[tuple[float, float, bool]] = []  # lower-left of the pair, horizontal?
    # next to the gear label first
    cands += [
        (lx + lw + g, ly, True),
        (lx - g - pair_w, ly, True),
        (lx + lw / 2 - pair_w / 2, ly + lh + g, True),
        (lx + lw / 2 - pair_w / 2, ly - g - pair_h, True),
        (lx, ly + lh + g, True),
        (lx + lw - pair_w, ly + lh + g, True),
        (lx, ly - g - pair_h, True),
        (lx + lw - pair_w, ly - g - pair_h, True),
        (lx + lw + g, ly + lh / 2 - pair_w / 2, False),
        (lx - g - pair_h, ly + lh / 2 - pair_w / 2, False),
        (lx + lw + g, ly, False),
        (lx + lw + g, ly + lh - pair_w, False),
        (lx - g - pair_h, ly, False),
        (lx - g - pair_h, ly + lh - pair_w, False),
    ]
    base = math.atan2(out[1], out[0])

    def rings() -> Iterator[tuple[float, float, bool]]:
        """Then rings around the corner line, nearest first (made only when needed: most
        boxes go next to their label)."""
        for radius in (8.0, 10.0, 12.5, 15.0, 18.0, 22.0, 26.0, 30.0, 35.0):
            for k in range(24):
                ang = base + math.radians(15.0 * ((k + 1) // 2) * (1 if k % 2 else -1))
                cx, cy = anchor[0] + radius * math.cos(ang), anchor[1] + radius * math.sin(ang)
                yield (cx - pair_w / 2, cy - pair_h / 2, True)
                yield (cx - pair_h / 2, cy - pair_w / 2, False)

    for avoid in (True, False):
        for x, y, horizontal in itertools.chain(cands, rings()):
            if horizontal:
                if marks.box_free(x, y, pair_w, pair_h, avoid):
                    return Rect(x, y, BOX_MM, BOX_MM), Rect(x + BOX_MM + BOX_GAP_MM, y, BOX_MM, BOX_MM)
            elif marks.box_free(x, y, pair_h, pair_w, avoid):
                return Rect(x, y + BOX_MM + BOX_GAP_MM, BOX_MM, BOX_MM), Rect(x, y, BOX_MM, BOX_MM)
    return None


def _finish(
    length: int,
    corners: tuple[_C, ...],
    angles: Sequence[float],
    start: tuple[float, float, float],
    width: float,
    height: float,
    s: float,
    clear: float,
    style: str,
) -> StageLayout | None:
    """Check the road, add the corner marks and centre everything in the box; None if it fails."""
    poses = _poses(start, angles, s)  # length + 1 poses: spaces 1..L and the invisible space
    board = _Board(width, height, s, clear, _EDGE_MM)
    for p in poses:
        poly = square_corners(p[0], p[1], p[2], s)
        if not board.fits(p, poly):
            return None
        board.add(p, poly)
    marks = _Marks(board, width, height)
    h = s / 2

    # planning zones: outside of the bend first, a second lane where zones overlap
    zones: list[tuple[tuple[Point, ...], int, float]] = []
    used: list[tuple[int, float, int, int]] = []  # side, offset, first, last space
    for c in corners:
        done = None
        for share in (False, True):  # share a lane with an overlapping zone only as a last resort
            for side in (-c.sign, c.sign):
                for off in ZONE_OFFSETS_MM:
                    if not share and any(
                        sd == side and o == off and not (last < c.zone or first > c.after) for sd, o, first, last in used
                    ):
                        continue
                    pts = _zone_polyline(poses, angles, c, side, off, s)
                    if marks.polyline_clear(pts) and (share or not marks.crosses_lines(pts)):
                        done = (pts, side, off)
                        break
                if done:
                    break
            if done:
                break
        if done is None:
            return None
        zones.append(done)
        used.append((done[1], done[2], c.zone, c.after))
        marks.add_polyline(done[0])

    out_corners: list[CornerLayout] = []
    for c, (zpts, zside, zoff) in zip(corners, zones):
        p = poses[c.after - 1]
        th = p[2]
        fx, fy = math.cos(th), math.sin(th)
        ox, oy = _side_offset(p, -c.sign)  # outside of the bend
        mx, my = p[0] + fx * h, p[1] + fy * h  # middle of the corner line
        inner = (mx - ox * h, my - oy * h)
        outer = (mx + ox * h, my + oy * h)
        label = _place_label(marks, outer, (ox, oy), (fx, fy))
        if label is None:
            return None
        marks.rects.append(label)
        boxes = _place_boxes(marks, label, outer, (ox, oy))
        if boxes is None:
            return None
        n_box, d_box = boxes
        marks.rects.append(Rect(min(n_box.x, d_box.x), min(n_box.y, d_box.y),
                                max(n_box.x + n_box.width, d_box.x + d_box.width) - min(n_box.x, d_box.x),
                                max(n_box.y + n_box.height, d_box.y + d_box.height) - min(n_box.y, d_box.y)))
        # heading change from space after-2 to space after+3: the joints either side of the line
        bend = sum(angles[j - 1] for j in range(max(1, c.after - 2), min(length, c.after + 2) + 1))
        out_corners.append(
            CornerLayout(
                after=c.after,
                gear=c.gear,
                turn="left" if c.sign > 0 else "right",
                angle=math.degrees(bend),
                line=(inner, outer),
                label=label,
                zone=zpts,
                zone_side="left" if zside > 0 else "right",
                zone_offset=zoff,
                n_box=n_box,
                d_box=d_box,
            )
        )

    spaces = tuple(
        Space(number=k + 1, centre=(p[0], p[1]), heading=math.degrees(p[2]) % 360.0, side=s, corners=board.polys[k])  # type: ignore[arg-type]
        for k, p in enumerate(poses)
    )
    xs: list[float] = []
    ys: list[float] = []
    for poly in board.polys:
        xs += [x for x, _ in poly]
        ys += [y for _, y in poly]
    for cl in out_corners:
        for r in (cl.label, cl.n_box, cl.d_box):
            xs += [r.x, r.x + r.width]
            ys += [r.y, r.y + r.height]
        xs += [x for x, _ in cl.zone]
        ys += [y for _, y in cl.zone]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    raw = StageLayout(
        width=width,
        height=height,
        space_mm=s,
        style=style,
        spaces=spaces[:-1],
        invisible=spaces[-1],
        start_line=spaces[0].back_edge,
        finish_line=spaces[-1].back_edge,
        corners=tuple(out_corners),
        bbox=Rect(x0, y0, x1 - x0, y1 - y0),
    )
    return _centred(raw, width, height)


def _centred(lay: StageLayout, width: float, height: float) -> StageLayout | None:
    """The same layout moved so that its bounding box sits in the middle of a width x height box."""
    bb = lay.bbox
    if bb.width > width + 1e-9 or bb.height > height + 1e-9:
        return None
    dx = (width - bb.width) / 2 - bb.x
    dy = (height - bb.height) / 2 - bb.y

    def mv(pt: Point) -> Point:
        return (pt[0] + dx, pt[1] + dy)

    def mvr(r: Rect) -> Rect:
        return Rect(r.x + dx, r.y + dy, r.width, r.height)

    def mvs(sp: Space) -> Space:
        return Space(sp.number, mv(sp.centre), sp.heading, sp.side, tuple(mv(q) for q in sp.corners))  # type: ignore[arg-type]

    spaces = tuple(mvs(sp) for sp in lay.spaces)
    invisible = mvs(lay.invisible)
    corners = tuple(
        CornerLayout(
            after=cl.after,
            gear=cl.gear,
            turn=cl.turn,
            angle=cl.angle,
            line=(mv(cl.line[0]), mv(cl.line[1])),
            label=mvr(cl.label),
            zone=tuple(mv(q) for q in cl.zone),
            zone_side=cl.zone_side,
            zone_offset=cl.zone_offset,
            n_box=mvr(cl.n_box),
            d_box=mvr(cl.d_box),
        )
        for cl in lay.corners
    )
    return StageLayout(
        width=width,
        height=height,
        space_mm=lay.space_mm,
        style=lay.style,
        spaces=spaces,
        invisible=invisible,
        start_line=spaces[0].back_edge if spaces else invisible.back_edge,
        finish_line=invisible.back_edge,
        corners=corners,
        bbox=mvr(bb),
    )


# ---------------------------------------------------------------------------------------------
# Public entry points


def _angles_from_poses(poses: Sequence[tuple[float, float, float]]) -> list[float]:
    return [b[2] - a[2] for a, b in zip(poses, poses[1:])]


def _space_sizes(space_mm: float, min_space_mm: float) -> list[float]:
    sizes = [space_mm]
    s = space_mm
    while s - 0.5 > min_space_mm + 1e-9:
        s -= 0.5
        sizes.append(round(s, 3))
    if min_space_mm < space_mm:
        sizes.append(min_space_mm)
    return sizes


def _too_dense(length: int, width: float, height: float, s: float) -> bool:
    """Would the spaces (of side s) cover more than _WIND_DENSITY of the box? Then no winding
    road is tried."""
    usable = (width - 2 * _EDGE_MM) * (height - 2 * _EDGE_MM)
    return usable <= 0 or (length + 1) * s * s > _WIND_DENSITY * usable


def _try_winding(name: str, length: int, corners: tuple[_C, ...], width: float, height: float, sizes: Sequence[float]) -> StageLayout | None:
    rng = random.Random(_seed(name, length, corners))
    # start on the side of the box that the first corners turn away from: a left-hand start
    # heading east begins low, heading west begins high (and the other way round)
    first = sum(_BEND_SIGNED.get(c.gear, 0.0) * c.sign for c in corners if c.after <= 20)
    left = first > 0 or (first == 0 and rng.random() < 0.5)
    good = [(False, left), (True, not left)]
    if rng.random() < 0.5:
        good.reverse()
    # Turned half round, the box, its guide and the road's left and right stay what they were:
    # a flip of both axes is the same search with other noise, and fails where the first did.
    # So a good start comes next to its mirror image (one axis flipped), a new geometry.
    first_try, turned = good
    flips = [first_try, (first_try[0], not first_try[1]), turned, (turned[0], not turned[1])]
    attempt = 0
    for s, scale, tries in _WIND_SCHEDULE:
        s = sizes[0] if s == "nominal" else sizes[-1]
        if _too_dense(length, width, height, s):
            continue  # too dense for a winding road: do not waste the search
        fixed = _bend_plan(length, corners, scale)
        if length > 120:
            tries = max(1, tries // 2)  # a long stage rarely winds: save time for the fallback
        for _ in range(tries):
            flip_x, flip_y = flips[attempt % 4]
            attempt += 1
            guide = _Guide(width, height, s, length, flip_x, flip_y, rng)
            if not guide.ok:
                break
            sub = random.Random(rng.getrandbits(64))
            poses = _wind(length, corners, fixed, width, height, s, guide, sub, _BUDGET_PER_SPACE * length + 60)
            if poses is None:
                continue
            result = _finish(length, corners, _angles_from_poses(poses), guide.start, width, height, s, _WIND_CLEAR_MM, "winding")
            if result is not None:
                return result
    return None


@functools.lru_cache(maxsize=512)
def _serpentine(length: int, corners: tuple[_C, ...], width: float, s: float, uturn: int, strict: bool) -> StageLayout | None:
    """The serpentine in the lowest box (of this width) that holds it, or None.

    Laid out once at its own minimal height and only moved into a taller box afterwards, so a
    taller box always works when a lower one does.
    """
    angles = _serpentine_angles(length, corners, width, s, uturn, strict)
    if angles is None:
        return None
    poses = _poses((0.0, 0.0, 0.0), angles, s)
    ys = [y for p in poses for _, y in square_corners(p[0], p[1], p[2], s)]
    rows = max(ys) - min(ys)
    for extra in (0.0, 5.0, 10.0, 20.0):
        height = rows + 2 * _SERP_LABEL_MM + extra
        start = (_EDGE_MM + s / 2, height - _SERP_LABEL_MM - max(ys), 0.0)
        result = _finish(length, corners, angles, start, width, height, s, _SERP_CLEAR_MM, "serpentine")
        if result is not None:
            return result
    return None


def _try_serpentine(length: int, corners: tuple[_C, ...], width: float, height: float, s: float) -> StageLayout | None:
    for uturn, strict in _SERP_STYLES:
        lay = _serpentine(length, corners, width, s, uturn, strict)
        if lay is not None and lay.height <= height + 1e-9:
            return _centred(lay, width, height)
    return None


@functools.lru_cache(maxsize=512)
def _winding(name: str, length: int, corners: tuple[_C, ...], width: float, height: float, space_mm: float, min_space_mm: float) -> StageLayout | None:
    return _try_winding(name, length, corners, width, height, _space_sizes(space_mm, min_space_mm))


@functools.lru_cache(maxsize=256)
def _layout(name: str, length: int, corners: tuple[_C, ...], width: float, height: float, space_mm: float, min_space_mm: float) -> StageLayout:
    result = _winding(name, length, corners, width, height, space_mm, min_space_mm)
    if result is not None:
        return result
    sizes = _space_sizes(space_mm, min_space_mm)
    for s in sizes:
        result = _try_serpentine(length, corners, width, height, s)
        if result is not None:
            return result
    need = _min_height(length, corners, width, sizes)
    where = f"stage {name!r}" if name else "stage"
    if need is None:
        raise LayoutError(
            f"{where} ({length} spaces) does not fit in {width:.1f} x {height:.1f} mm: "
            f"a box {width:.1f} mm wide is too narrow for rows of {min_space_mm:g} mm spaces with U-turns",
            stage_name=name,
        )
    raise LayoutError(
        f"{where} ({length} spaces) does not fit in {width:.1f} x {height:.1f} mm: "
        f"it needs a box at least {need:.1f} mm high at this width",
        stage_name=name,
        need_mm=need,
    )


def _min_height(length: int, corners: tuple[_C, ...], width: float, sizes: Sequence[float]) -> float | None:
    heights = [h for s in sizes if (h := _needed_height(length, corners, width, s)) is not None]
    return min(heights) if heights else None


def _needed_height(length: int, corners: tuple[_C, ...], width: float, s: float) -> float | None:
    """Lowest box height in which the serpentine with ``s`` mm spaces fits, or None if none does."""
    heights = [lay.height for u, st in _SERP_STYLES if (lay := _serpentine(length, corners, width, s, u, st)) is not None]
    return min(heights) if heights else None


def layout_stage(stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0) -> StageLayout:
    """Lay out ``stage`` in the box [0, width_mm] x [0, height_mm].

    ``stage`` has ``name``, ``length`` and ``corners`` (each ``after``, ``gear``, ``zone``,
    ``turn``), such as ``sheetgen.games.rallytaire.model.Stage``. The same stage and box always
    give the same layout. Raises ``LayoutError`` when it does not fit even as a serpentine with
    ``min_space_mm`` spaces.
    """
    return _layout(*_request(stage, width_mm, height_mm, space_mm, min_space_mm))


def _request(stage: Any, width_mm: float, height_mm: float, space_mm: float, min_space_mm: float) -> tuple:
    """The arguments of the cached layout functions for a stage and box, checked."""
    if not 0 < min_space_mm <= space_mm:
        raise ValueError(f"need 0 < min_space_mm <= space_mm, got {min_space_mm!r} and {space_mm!r}")
    name, length, corners = _normalise(stage)
    return (name, length, corners, float(width_mm), float(height_mm), float(space_mm), float(min_space_mm))


def winding_layout(stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0) -> StageLayout | None:
    """``layout_stage``'s result when it is a winding road, else None (without working out the
    serpentine: for callers that only want a winding road, such as a page shared by two
    stages). Both share one cache."""
    return _winding(*_request(stage, width_mm, height_mm, space_mm, min_space_mm))


def can_wind(stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0) -> bool:
    """Does ``layout_stage`` try a winding road for ``stage`` in this box at all? Not when its
    spaces would cover too much of the box even at ``min_space_mm``: such a stage is always
    laid out as a serpentine (a long stage on a page, or most stages in a small box)."""
    _name, length, _corners = _normalise(stage)
    return not _too_dense(length, float(width_mm), float(height_mm), float(min_space_mm))


def end_label(layout: StageLayout, which: str, width_mm: float, height_mm: float) -> Rect:
    """A free spot for the word START (behind the start line) or FINISH (past the invisible
    space): a width x height box inside the layout's box that overlaps no space, no corner
    mark and no planning-zone line, as close to its line as can be found."""
    if which == "start":
        anchor_space, line, back = layout.spaces[0], layout.start_line, True
    elif which == "finish":
        anchor_space, line, back = layout.invisible, layout.finish_line, False
    else:
        raise ValueError(f"which must be 'start' or 'finish', got {which!r}")
    heading = math.radians(anchor_space.heading)
    fx, fy = math.cos(heading), math.sin(heading)
    if back:
        fx, fy = -fx, -fy
    mx = (line[0][0] + line[1][0]) / 2
    my = (line[0][1] + line[1][1]) / 2
    obstacles: list[tuple[Point, ...]] = [s.corners for s in layout.spaces] + [layout.invisible.corners]
    for corner in layout.corners:
        obstacles += [corner.label.corners, corner.n_box.corners, corner.d_box.corners]
    segments = [(a, b) for corner in layout.corners for a, b in zip(corner.zone, corner.zone[1:])]
    side = anchor_space.side
    # ring search: straight ahead (away from the road) first, then swinging to either side
    for reach in (0.6, 1.0, 1.6, 2.4, 3.4):
        for swing in (0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180):
            angle = math.radians(swing)
            dx = fx * math.cos(angle) - fy * math.sin(angle)
            dy = fx * math.sin(angle) + fy * math.cos(angle)
            distance = side * reach + max(width_mm, height_mm) / 2 * (abs(dx) * width_mm / max(width_mm, height_mm) + abs(dy) * height_mm / max(width_mm, height_mm))
            cx, cy = mx + dx * distance, my + dy * distance
            rect = Rect(cx - width_mm / 2, cy - height_mm / 2, width_mm, height_mm)
            if rect.x < 0 or rect.y < 0 or rect.x + rect.width > layout.width or rect.y + rect.height > layout.height:
                continue
            grown = grow_rect(rect, 0.3)
            if any(convex_overlap(grown, o) for o in obstacles):
                continue
            if any(convex_overlap((a, b), grown) for a, b in segments):
                continue
            return rect
    # no free spot near the line: the label goes on top of the box's free margin as a last resort
    return Rect(max(0.0, min(mx - width_mm / 2, layout.width - width_mm)), max(0.0, min(my - height_mm / 2, layout.height - height_mm)), width_mm, height_mm)
