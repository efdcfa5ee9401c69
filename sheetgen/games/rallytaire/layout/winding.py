"""The winding road: a seeded depth-first search that lays a stage out as a road winding
across the box, each corner bending its own way.

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
after _GIVE_UP placements that reach no new space: a try stuck that long seldom recovers),
not by the clock, so the result never depends on the machine. A road found is handed to
``marks.complete_layout``, which places the corners' marks or turns the road down.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Sequence

from sheetgen.games.rallytaire.layout.marks import complete_layout
from sheetgen.games.rallytaire.layout.result import StageLayout
from sheetgen.games.rallytaire.layout.road import EDGE_MM, GEAR_BEND, Board, RoadCorner, step
from sheetgen.geometry import Point, cos_sin, known_cos_sin, point_square_distance

# Figures quoted below were measured on 211 stages (the 11 bundled ones and 200 from
# generate.propose_corners: 40-100 spaces, easy, medium and hard, seed 23), each in the race
# sheet's three track boxes (alone on page 1, on a later page, half a page): 633 layouts, 306 of
# which wind with the values below, in about 13 s of CPU, by changing one value at a time and
# counting winding_layout's roads. The search is chaotic: any change moves some stages either
# way, so differences of up to about 20 roads (3 %) are noise; where it says "3 samples" the
# totals are over three such samples (seeds 23, 31 and 47: 978 of 1899 layouts wind).

#: Drift per joint between corners, degrees: 30 turns the road round at a band's end in six
#: joints; 10, the least, is all a road may drift against a corner two spaces from its line.
DRIFT_DEGREES = (10.0, 20.0, 30.0)
# Clearance between passes of the road, mm: room for a zone line of each pass in lane 1 or 2
# (ZONE_OFFSETS_MM) with 0.5 mm between them (2 + 2 + 0.5). A legibility bound, not a tuning:
# 4 and 5 wind as many roads (310 each).
_WIND_CLEAR_MM = 4.5
# Radius of the disc kept free outside each corner line for its marks while the road is laid,
# mm: 14 mm across, about the room of the gear label (5 mm) and the N and D pair (11 x 5 mm)
# next to it, so that the marks go by their corner. From the first version; no gain is
# measured: with 6 every road found gets its marks as with 7, as close to the corner (labels
# 4.8 mm, boxes 12 mm from the line's end on average), and 6 winds 9 % more roads (3 samples:
# 1069 against 978), 8 fewer (295).
_BADGE_MM = 7.0
# Spaces at least this far back along the road are stamped on the look-ahead grid, which
# assumes the clearance: a space the rollout places is then at least six along the road from
# every stamped one, well past road._NEAR, and the newer ones are left to the board's exact
# test. 3 and 8 wind within noise (313, 307).
_LAG = 5
# Spaces the look-ahead rolls the road forward to score a candidate, about a band's length in a
# page-wide box: 12 winds 7 % fewer roads in 13 % less time (283), 24 winds 7 % more in 9 % more
# time (3 samples: 1047 against 978); 18 sits between.
_LOOKAHEAD = 18
# Net turn that any stretch of _CURL_SPAN joints may make, degrees; the bends of a stretch that
# turns more are eased. Above 180 so that a lone hairpin keeps its whole 180 degrees, while a
# hairpin with a kink turning the same way beside it (220) is eased: such a cluster curls the
# road into a loop it cannot leave. 160 would ease every hairpin and winds no more (3 samples:
# 990 against 978).
_CURL_DEGREES = 200.0
# Joints of the stretch whose net turn _CURL_DEGREES caps: two corners up to ten spaces apart
# (the generator's widest spacing) with their bends; 10 and 18 wind within noise (308, 313).
_CURL_SPAN = 14
# Joints ahead whose corner bends the steering allows for (half of their sum), so that the road
# swings wide before a hairpin instead of being thrown off the page by it. From the first
# version; 4 and 12 wind a little more (4: 1010 against 978 over 3 samples; 12: 330).
_FEED = 8
# Guide points (2 mm apart) ahead of the last match that the road's nearest guide point is
# looked for in: the road gains about four points a space, and a longer window can match a
# later stretch of the guide that passes close by before the road has got there (100 winds 298,
# 30 312: within noise).
_PACE = 60
# A candidate whose rollout survives at most this many spaces fewer than the best one's still
# goes by preference (the steering's choice first): the road keeps its line unless another
# choice is clearly better. From the first version; 0 winds 6 % more (3 samples: 1034 against
# 978), 4 within noise (314).
_SLACK = 2
# The guide is laid until it is this much longer than the road, so that a road thrown off it by
# its corners still finds guide ahead; 1.0 and 1.3 wind within noise (316, 318).
_GUIDE_SLACK = 1.15
# Least distance between the guide's bands, in spaces: two passes need s + _WIND_CLEAR_MM (1.6
# spaces at 8 mm) and the road wanders about the guide, so a box that needs closer bands is
# taken to be too small to wind in and no try is made. It never binds in the race sheet's boxes
# (2 and 2.8 wind the very same 306).
_GUIDE_PITCH = 2.4
# Joints either side of a corner line where the road may not drift. Every bend takes the joints
# next to its line first (GEAR_BEND spreads each over two joints at least), so 1 only guards a
# table whose bend had one joint; 0 winds the very same 306, 2 fewer (294).
_LOCK = 1
#: Winding attempts: (space size, scale of the corner bends, tries). Each step finds roads the
#: ones before did not: of the 306 roads, 189 come from the first two tries (8 mm spaces, full
#: bends), 52 from bends eased to 70 %, 65 from 7 mm spaces. Flips of the box alternate between
#: tries (see try_winding).
_WIND_SCHEDULE = (("nominal", 1.0, 2), ("nominal", 0.7, 2), ("min", 0.7, 2))
# Placements a try may make, per space (and 60 more, so that a short stage too can back out of a
# dead end): it bounds a try that keeps making slow progress. With _GIVE_UP in place it costs
# little: 2 winds 295 in about the same time, 4 winds 313.
_BUDGET_PER_SPACE = 3
#: Spaces' area over the box's area above which no winding try is made: measured over generated
#: races, fewer than 1 try in 40 above 0.16 found a road, and failed tries cost the most.
_WIND_DENSITY = 0.16
# Placements without reaching a new space before the search jumps back (further each time,
# by _JUMP more spaces) instead of trying every combination of the last few joints: 20 winds
# fewer roads (292) in more time; 45 as many (3 samples: 988 against 978) in 8 % less time.
_STALL = 30
# Placements without reaching a new space after which a try is given up: a try stuck that long
# seldom recovers, and failed tries cost the most. 3 samples: with 90, 978 roads in 40 s of
# CPU; without a limit 1017 in 63 s; 60 finds 906 in 34 s, 120 finds 1008 in 49 s. 90 keeps
# 96 % of the roads in 63 % of the time.
_GIVE_UP = 90
# Spaces the first jump back goes behind the furthest space reached, and how many more each
# following jump goes: 4 and 12 wind within noise (308, 305), 12 in 16 % more time.
_JUMP = 8
# Spaces ahead that a candidate's ray checks (see rollout in _wind): at each joint the rollout
# takes the drift with the longest ray, the first with all of them free. 3 and 8 wind within
# noise (3 samples for 3: 984 against 978).
_RAY = 5
# Where a ray that found every space free stopped, (x, y, heading, cos, sin, dx, dy), is kept
# to go on from; this stands for it when the ray was cut short (its length is then below _RAY
# and nothing reads it).
_NO_RAY_END = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
# Cell of the look-ahead grid, mm: about a third of a space. Its discs are shrunk by the snapping
# error (0.75 cell) so that a blocked cell is surely blocked: a coarser grid blocks less and
# looks ahead less well, a finer one costs more to stamp; 2 and 3 wind within noise (312, 309).
_GRID_MM = 2.5
_EDGE_CELL = 1 << 40  # marks a grid cell next to the bounds (see _Grid): above any count of discs


def too_dense(length: int, width: float, height: float, s: float) -> bool:
    """Would the spaces (of side s) cover more than _WIND_DENSITY of the box? Then no winding
    road is tried."""
    usable = (width - 2 * EDGE_MM) * (height - 2 * EDGE_MM)
    return usable <= 0 or (length + 1) * s * s > _WIND_DENSITY * usable


def try_winding(
    name: str, length: int, corners: tuple[RoadCorner, ...], width: float, height: float, sizes: Sequence[float]
) -> StageLayout | None:
    """The stage as a winding road in the box with its marks placed, or None when the tries of
    _WIND_SCHEDULE find none; ``sizes`` are the space sizes allowed, largest first."""
    rng = random.Random(_seed(name, length, corners))
    # start on the side of the box that the first corners turn away from: a left-hand start
    # heading east begins low, heading west begins high (and the other way round)
    first = sum(GEAR_BEND[c.gear][0] * c.sign for c in corners if c.after <= 20)
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
    for size, scale, tries in _WIND_SCHEDULE:
        s = sizes[0] if size == "nominal" else sizes[-1]
        if too_dense(length, width, height, s):
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
            result = complete_layout(
                length, corners, _angles_from_poses(poses), guide.start, width, height, s, _WIND_CLEAR_MM, "winding"
            )
            if result is not None:
                return result
    return None


def _seed(name: str, length: int, corners: tuple[RoadCorner, ...]) -> int:
    key = repr((name, length, [(c.after, c.gear, c.zone, c.sign) for c in corners]))
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def _angles_from_poses(poses: Sequence[tuple[float, float, float]]) -> list[float]:
    return [b[2] - a[2] for a, b in zip(poses, poses[1:])]


# ---------------------------------------------------------------------------------------------
# The joint programme: joint j (1..L) lies between space j and j + 1; joint L is the finish line.


def _bend_plan(length: int, corners: tuple[RoadCorner, ...], scale: float) -> list[float | None]:
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
            # at most 60 degrees a joint (the tests hold every layout to it): a corner that got
            # fewer joints than its gear asks for, in a cluster, turns less rather than folding
            # the road at one joint
            per = min(math.radians(GEAR_BEND[c.gear][0] * scale) / len(js), math.radians(60.0))
            for j in js:
                fixed[j] = c.sign * per
    # a cluster of corners turning one way would curl the road into a loop it cannot leave:
    # ease the bends of any stretch that turns more than _CURL_DEGREES net
    limit = math.radians(_CURL_DEGREES)
    # a few passes: easing a stretch's bends may push an overlapping stretch that turns the
    # other way over the limit
    for _ in range(4):
        eased = False
        for w in range(1, max(2, length - _CURL_SPAN + 1)):
            window = range(w, min(length, w + _CURL_SPAN))
            net = sum(fixed[j] or 0.0 for j in window)
            if abs(net) > limit + 1e-9:
                same = [(j, a) for j in window if (a := fixed[j]) and (a > 0) == (net > 0)]
                part = sum(a for _j, a in same)
                k = 1.0 - (abs(net) - limit) / abs(part)
                for j, a in same:
                    fixed[j] = a * k
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
# The look-ahead grid


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
# The search: the discs kept for corner marks, the guide it follows, the depth-first search


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

    def __init__(
        self, width: float, height: float, s: float, length: int, flip_x: bool, flip_y: bool, rng: random.Random
    ) -> None:
        mx = my = EDGE_MM + s / 2 + 2.0
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
    corners: tuple[RoadCorner, ...],
    fixed: Sequence[float | None],
    width: float,
    height: float,
    s: float,
    guide: _Guide,
    rng: random.Random,
    budget: int,
) -> list[tuple[float, float, float]] | None:
    board = Board(width, height, s, _WIND_CLEAR_MM, EDGE_MM)
    grid = _Grid(width, height, s, _WIND_CLEAR_MM, EDGE_MM)
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
        tuple(d for d in drifts if all(d * sg >= -gentle for sg in near[j])) if j in near else drifts
        for j in range(length + 1)
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
        prev_state = _NO_RAY_END  # where that ray stopped, when it found every space free
        for j in range(j_next, min(j_next + _LOOKAHEAD, L1)):
            a = fixed[j]
            if a is None:
                best_ray = -1
                best = None
                best_state = _NO_RAY_END
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
                    taken = counts[int(yx / g + 0.5) * ny + int(yy / g + 0.5) + off]
                    if taken and (taken != edge_cell or not (xlo <= yx <= xhi and ylo <= yy <= yhi)):
                        continue
                    walk = True
                    if d == 0.0 and prev_r >= 0:
                        if prev_r < _RAY:
                            r = prev_r - 1
                            state = _NO_RAY_END
                            walk = False
                        else:
                            # straight on: the previous ray, moved on by one space, goes on
                            rx, ry, rth, rc, rs, dx, dy = prev_state
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
                            taken = counts[int(rx / g + 0.5) * ny + int(ry / g + 0.5) + off]
                            if taken and (taken != edge_cell or not (xlo <= rx <= xhi and ylo <= ry <= yhi)):
                                break
                            r += 1
                        else:
                            r = _RAY
                        state = (rx, ry, rth, rc, rs, dx, dy) if r == _RAY else _NO_RAY_END
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
                taken = counts[int(cx / g + 0.5) * ny + int(cy / g + 0.5) + off]
                if taken and (taken != edge_cell or not (xlo <= cx <= xhi and ylo <= cy <= yhi)):
                    return n
            n += 1
        return _LOOKAHEAD

    coming_at: list[float | None] = [None] * (length + 1)

    def order(j: int) -> list[float]:
        a = fixed[j]
        prev = board.poses[-1]
        options: tuple[float, ...]
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
            nx, ny_, nth = step(prev, d, s)
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
        cands.sort(
            key=lambda d: (
                scores[d] < best - _SLACK,
                -scores[d] if scores[d] < best - _SLACK else 0,
                abs(d - p),
                abs(d),
                (d > 0) != (rnd > 0.5),
            )
        )
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
        pose = step(board.poses[-1], a, s)
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
