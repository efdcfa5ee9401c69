"""Corner marks on a laid road, and the finished layout: each corner's planning zone line in a
lane beside the road, its gear label on the outside of the bend, its N and D boxes beside the
label; the whole centred in its box; and a free spot for the words START and FINISH.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

from sheetgen.games.rallytaire.layout.result import CornerLayout, Space, StageLayout
from sheetgen.games.rallytaire.layout.road import EDGE_MM, Board, RoadCorner, road_poses
from sheetgen.geometry import (
    TOLERANCE_MM,
    Point,
    Rect,
    convex_overlap,
    grow_rect,
    line_intersection,
    segment_crosses_polygon,
    segments_cross,
    square_corners,
)

#: Side of the gear label box and of each of the N and D boxes, mm: room for a printed digit,
#: and for a pencil tick in a box (the tests hold the boxes to 4-6 mm).
LABEL_MM = 5.0
BOX_MM = 5.0
#: Gap between the N and the D box, mm: enough to keep them two boxes.
BOX_GAP_MM = 1.0
#: Offsets of the planning zone lines from the edge of the road, mm: three lanes on each side,
#: 2 mm apart, for zones that overlap or follow each other on one side of the road. A zone takes
#: the first lane outside its bend, then inside, that keeps ZONE_GAP_MM from every zone line
#: already placed; it shares a lane only when no lane does (the layout's ``shared_lanes`` then
#: says so: the generator proposes such a stage again, and the tests hold every bundled and
#: generated race to separate lanes).
ZONE_OFFSETS_MM = (1.0, 3.0, 5.0)
#: Least distance between two zone lines, mm: two lines this far apart read as two.
ZONE_GAP_MM = 2.0
#: Gap cut out of a zone line either side of another corner's line or of the start of
#: another zone that it runs past, and left free at its corner's end, mm.
ZONE_BREAK_MM = 1.2
#: Side of the box of the gear number that marks a zone's first space, mm.
ZONE_MARK_MM = 3.0
#: Half length of the tick across a zone line's first end, mm.
ZONE_TICK_MM = 1.3
#: Least gap between two marks (gear labels, N and D pairs, zone marks), mm: at 0.6 mm a gear
#: circle and another corner's zone circle read as one pair; an N and D pair sits 1.0 mm from
#: its own label.
MARK_GAP_MM = 0.95


def _side_offset(pose: tuple[float, float, float], side: int) -> Point:
    th = pose[2]
    return (-math.sin(th) * side, math.cos(th) * side)


def _point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


def segment_distance(a: Point, b: Point, c: Point, d: Point) -> float:
    """Least distance between segments ab and cd, mm."""
    if segments_cross(a, b, c, d):
        return 0.0
    return min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b), _point_segment(d, a, b))


def polyline_distance(p: Sequence[Point], q: Sequence[Point]) -> float:
    """Least distance between two polylines, mm."""
    return min((segment_distance(a, b, c, d) for a, b in zip(p, p[1:]) for c, d in zip(q, q[1:])), default=math.inf)


def rect_segment_distance(r: Rect, a: Point, b: Point) -> float:
    """Least distance from rectangle r to segment ab, mm (0 when they meet)."""
    if r.x <= a[0] <= r.x + r.width and r.y <= a[1] <= r.y + r.height:
        return 0.0
    edges = list(zip(r.corners, r.corners[1:] + r.corners[:1]))
    return min(segment_distance(a, b, c, d) for c, d in edges)


def _arc_position(pts: Sequence[Point], p: Point) -> float:
    """Arc length along the polyline of its point nearest to p."""
    best, at, run = math.inf, 0.0, 0.0
    for a, b in zip(pts, pts[1:]):
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = dx * dx + dy * dy
        t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
        d = math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])
        if d < best:
            best, at = d, run + t * math.sqrt(n)
        run += math.sqrt(n)
    return at


def _cut(pts: Sequence[Point], gaps: Sequence[tuple[float, float]]) -> tuple[tuple[Point, ...], ...]:
    """The pieces of the polyline left when the arc-length intervals `gaps` are cut out."""
    total = sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))
    keep: list[tuple[float, float]] = [(0.0, total)]
    for g0, g1 in sorted(gaps):
        nxt = []
        for k0, k1 in keep:
            if g1 <= k0 or g0 >= k1:
                nxt.append((k0, k1))
                continue
            if g0 > k0:
                nxt.append((k0, g0))
            if g1 < k1:
                nxt.append((g1, k1))
        keep = nxt

    def at(t: float) -> Point:
        run = 0.0
        for a, b in zip(pts, pts[1:]):
            n = math.dist(a, b)
            if run + n >= t - 1e-12:
                u = 0.0 if n == 0 else (t - run) / n
                return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)
            run += n
        return pts[-1]

    pieces = []
    for k0, k1 in keep:
        if k1 - k0 < 0.3:
            continue
        inner = []
        run = 0.0
        for a, b in zip(pts, pts[1:]):
            run += math.dist(a, b)
            if k0 < run < k1:
                inner.append(b)
        pieces.append((at(k0), *inner, at(k1)))
    return tuple(pieces)


def _zone_polyline(
    poses: Sequence[tuple[float, float, float]],
    angles: Sequence[float],
    c: RoadCorner,
    side: int,
    offset: float,
    s: float,
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

    def __init__(self, board: Board, width: float, height: float) -> None:
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
        """Is the box (rx, ry, rw, rh) inside the page, 0.4 mm clear of every space, MARK_GAP_MM
        of every other label or box pair, and (``avoid_lines``) 0.4 mm clear of every zone line?"""
        if rx < 0.3 or ry < 0.3 or rx + rw > self.w - 0.3 or ry + rh > self.h - 0.3:
            return False
        # grow_rect(r, 0.4), the same arithmetic
        gx, gy, gw, gh = rx - 0.4, ry - 0.4, rw + 2 * 0.4, rh + 2 * 0.4
        grown = ((gx, gy), (gx + gw, gy), (gx + gw, gy + gh), (gx, gy + gh))
        # every test below is a pure veto, so their order does not change the answer: cheap first
        for o in self.rects:
            # the box and o closer than MARK_GAP_MM
            g = MARK_GAP_MM
            if rx < o.x + o.width + g and o.x < rx + rw + g and ry < o.y + o.height + g and o.y < ry + rh + g:
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


def _label_offsets() -> tuple[tuple[float, float], ...]:
    """(outward, along the road) offsets for the gear label, nearest first."""
    half = LABEL_MM / 2
    out = []
    for t in (0.6, 1.6, 2.8, 4.2, 6.0, 8.0, 10.5, 13.0):
        for v in range(-24, 25):
            out.append((half + t, v * 0.75))
    out.sort(key=lambda tv: (tv[0] - half) + 0.6 * abs(tv[1]))
    return tuple(out)


_LABEL_OFFSETS = _label_offsets()


#: A corner's label and N and D boxes are at least this much nearer its own corner line than
#: any other corner's line, mm.
NEARER_MM = 1.0


# A distance worked out from bounding boxes is a lower bound of the exact one: where it clears
# a limit by this much (far more than any rounding of millimetre figures), the exact distance
# surely clears it too and need not be worked out; nearer pairs are decided exactly as before.
_BOUND_SLACK_MM = 1e-6


def _nearest_own(r: Rect, own: tuple[Point, Point], others: Sequence[tuple[Point, Point]]) -> bool:
    """Is rectangle r NEARER_MM nearer to the corner line `own` than to every line of `others`?"""
    d = rect_segment_distance(r, *own)
    limit = d + NEARER_MM
    sure = (limit + _BOUND_SLACK_MM) ** 2
    x0, y0, x1, y1 = r.x, r.y, r.x + r.width, r.y + r.height
    for o in others:
        (ax, ay), (bx, by) = o
        # the gap between r and the line's bounding box (a lower bound of their distance)
        gx = max(min(ax, bx) - x1, x0 - max(ax, bx), 0.0)
        gy = max(min(ay, by) - y1, y0 - max(ay, by), 0.0)
        if gx * gx + gy * gy > sure:
            continue
        if not rect_segment_distance(r, *o) > limit:
            return False
    return True


def _closer_than(p: Sequence[Point], q: Sequence[Point], limit: float) -> bool:
    """Is ``polyline_distance(p, q) < limit``? Pairs of segments whose bounding boxes are
    surely farther apart than ``limit`` are not measured."""
    sure = (limit + _BOUND_SLACK_MM) ** 2
    boxes = [
        (min(c[0], d[0]), min(c[1], d[1]), max(c[0], d[0]), max(c[1], d[1]), c, d) for c, d in itertools.pairwise(q)
    ]
    for a, b in itertools.pairwise(p):
        x0, y0, x1, y1 = min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])
        for cx0, cy0, cx1, cy1, c, d in boxes:
            gx = max(cx0 - x1, x0 - cx1, 0.0)
            gy = max(cy0 - y1, y0 - cy1, 0.0)
            if gx * gx + gy * gy > sure:
                continue
            if segment_distance(a, b, c, d) < limit:
                return True
    return False


def _place_label(
    marks: _Marks,
    anchor: Point,
    out: Point,
    fwd: Point,
    own: tuple[Point, Point],
    others: Sequence[tuple[Point, Point]],
    avoids: tuple[bool, ...],
) -> Rect | None:
    ax, ay = anchor
    ox, oy = out
    fx, fy = fwd
    half = LABEL_MM / 2
    box_free = marks.box_free
    for nearest in (True, False) if False in avoids else (True,):
        for avoid in avoids:
            for t, v in _LABEL_OFFSETS:
                # lower-left of the label box centred at the offset point
                x, y = ax + ox * t + fx * v - half, ay + oy * t + fy * v - half
                if box_free(x, y, LABEL_MM, LABEL_MM, avoid):
                    rect = Rect(x, y, LABEL_MM, LABEL_MM)
                    if not nearest or _nearest_own(rect, own, others):
                        return rect
    return None


def _place_zone_mark(marks: _Marks, pts: Sequence[Point], first: tuple[float, float, float], side: int) -> Rect | None:
    """A ZONE_MARK_MM box for the gear number by the end of a zone line at its first space:
    behind the end along the lane, or beside it away from the road; None when neither is free."""
    ex, ey = pts[-1]
    bx, by = -math.cos(first[2]), -math.sin(first[2])  # back along the road
    nx, ny = _side_offset(first, side)  # away from the road
    m = ZONE_MARK_MM / 2
    cands = []
    for along in (m + 0.8, 0.0, m + 0.3, -m, 2 * m + 0.8, 3 * m + 0.8, -2 * m):
        for out in (0.0, m + 0.7, m + 1.7, 2 * m + 1.0, 2 * m + 2.0):
            cx, cy = ex + bx * along + nx * out, ey + by * along + ny * out
            cands.append((math.hypot(cx - ex, cy - ey), cx - m, cy - m))
    cands.sort()
    for _d, x, y in cands:
        if marks.box_free(x, y, ZONE_MARK_MM, ZONE_MARK_MM, True):
            rect = Rect(x, y, ZONE_MARK_MM, ZONE_MARK_MM)
            marks.rects.append(rect)
            return rect
    return None


def _adjacent(label: Rect) -> list[tuple[float, float, bool]]:
    """Lower-left corners (and horizontal?) of the N and D pair right next to a gear label."""
    pair_w, pair_h = 2 * BOX_MM + BOX_GAP_MM, BOX_MM
    g = 1.0
    lx, ly, lw, lh = label.x, label.y, label.width, label.height
    return [
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


def _pair(x: float, y: float, horizontal: bool) -> tuple[Rect, Rect]:
    if horizontal:
        return Rect(x, y, BOX_MM, BOX_MM), Rect(x + BOX_MM + BOX_GAP_MM, y, BOX_MM, BOX_MM)
    return Rect(x, y + BOX_MM + BOX_GAP_MM, BOX_MM, BOX_MM), Rect(x, y, BOX_MM, BOX_MM)


def _place_unit(
    marks: _Marks,
    anchor: Point,
    out: Point,
    fwd: Point,
    own: tuple[Point, Point],
    others: Sequence[tuple[Point, Point]],
    avoids: tuple[bool, ...] = (True,),
) -> tuple[Rect, Rect, Rect] | None:
    """A corner's gear label and its N and D pair as one unit (the pair right next to the
    label), both nearer its own corner line than any other (NEARER_MM); failing that, the
    label and then the pair wherever each fits, nearest first. The unit's rectangles are added
    to `marks`. ``avoids``: (True,) keeps every mark off every zone line and nearer its own
    corner line (None when that cannot be done); (True, False) lets a mark lie on a zone line,
    then stand nearer another corner's line, as a last resort."""
    pair_w, pair_h = 2 * BOX_MM + BOX_GAP_MM, BOX_MM
    half = LABEL_MM / 2
    ax, ay = anchor
    ox, oy = out
    fx, fy = fwd
    for avoid in avoids:
        for t, v in _LABEL_OFFSETS:
            x, y = ax + ox * t + fx * v - half, ay + oy * t + fy * v - half
            if not marks.box_free(x, y, LABEL_MM, LABEL_MM, avoid):
                continue
            label = Rect(x, y, LABEL_MM, LABEL_MM)
            if not _nearest_own(label, own, others):
                continue
            marks.rects.append(label)
            for bx, by, horizontal in _adjacent(label):
                w, h = (pair_w, pair_h) if horizontal else (pair_h, pair_w)
                if marks.box_free(bx, by, w, h, avoid) and _nearest_own(Rect(bx, by, w, h), own, others):
                    marks.rects.append(Rect(bx, by, w, h))
                    return (label, *_pair(bx, by, horizontal))
            marks.rects.pop()
    found = _place_label(marks, anchor, out, fwd, own, others, avoids)
    if found is None:
        return None
    label = found
    marks.rects.append(label)
    boxes = _place_boxes(marks, label, anchor, out, own, others, avoids)
    if boxes is None:
        return None
    n_box, d_box = boxes
    marks.rects.append(
        Rect(
            min(n_box.x, d_box.x),
            min(n_box.y, d_box.y),
            max(n_box.x + n_box.width, d_box.x + d_box.width) - min(n_box.x, d_box.x),
            max(n_box.y + n_box.height, d_box.y + d_box.height) - min(n_box.y, d_box.y),
        )
    )
    return label, n_box, d_box


def _place_boxes(
    marks: _Marks,
    label: Rect,
    anchor: Point,
    out: Point,
    own: tuple[Point, Point],
    others: Sequence[tuple[Point, Point]],
    avoids: tuple[bool, ...],
) -> tuple[Rect, Rect] | None:
    pair_w, pair_h = 2 * BOX_MM + BOX_GAP_MM, BOX_MM
    # lower-left corners of the pair (and horizontal?): next to the gear label first
    cands: list[tuple[float, float, bool]] = _adjacent(label)
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

    for nearest in (True, False) if False in avoids else (True,):
        for avoid in avoids:
            for x, y, horizontal in itertools.chain(cands, rings()):
                w, hh = (pair_w, pair_h) if horizontal else (pair_h, pair_w)
                if not marks.box_free(x, y, w, hh, avoid):
                    continue
                if nearest and not _nearest_own(Rect(x, y, w, hh), own, others):
                    continue
                if horizontal:
                    return Rect(x, y, BOX_MM, BOX_MM), Rect(x + BOX_MM + BOX_GAP_MM, y, BOX_MM, BOX_MM)
                return Rect(x, y + BOX_MM + BOX_GAP_MM, BOX_MM, BOX_MM), Rect(x, y, BOX_MM, BOX_MM)
    return None


def complete_layout(
    length: int,
    corners: tuple[RoadCorner, ...],
    angles: Sequence[float],
    start: tuple[float, float, float],
    width: float,
    height: float,
    s: float,
    clear: float,
    style: str,
    lenient: bool = False,
) -> StageLayout | None:
    """Check the road, add the corner marks and centre everything in the box; None if it fails.

    Every gear label and N and D box keeps off every planning-zone line (None when one cannot);
    ``lenient`` lets one lie on a zone line as a last resort (the serpentine's, so that any
    stage prints on a large enough box), and the layout's ``marks_on_lines`` then says so."""
    poses = road_poses(start, angles, s)  # length + 1 poses: spaces 1..L and the invisible space
    board = Board(width, height, s, clear, EDGE_MM)
    for p in poses:
        poly = square_corners(p[0], p[1], p[2], s)
        if not board.fits(p, poly):
            return None
        board.add(p, poly)
    marks = _Marks(board, width, height)
    h = s / 2

    # planning zones: outside of the bend first, in a lane of their own and ZONE_GAP_MM from
    # every other zone line; a lane shared only as a last resort
    zones: list[tuple[tuple[Point, ...], int, float]] = []
    shared = False
    for c in corners:
        done = None
        for share in (False, True):
            shared = shared or share
            for side in (-c.sign, c.sign):
                for off in ZONE_OFFSETS_MM:
                    pts = _zone_polyline(poses, angles, c, side, off, s)
                    if not marks.polyline_clear(pts):
                        continue
                    if not share and (
                        marks.crosses_lines(pts) or any(_closer_than(pts, z[0], ZONE_GAP_MM - 1e-9) for z in zones)
                    ):
                        continue
                    done = (pts, side, off)
                    break
                if done:
                    break
            if done:
                break
        if done is None:
            return None
        zones.append(done)
        marks.add_polyline(done[0])

    # the tick across each zone line's first end: a line that marks keep off, as the zones
    ticks = [_zone_tick(z[0]) for z in zones]
    for tick in ticks:
        if tick is not None:
            marks.add_polyline(tick)

    # each zone line's pieces, and the gear number at its first space
    pieces_of: list[tuple[tuple[Point, ...], ...]] = []
    zone_marks: list[Rect | None] = []
    for c, (zpts, zside, zoff) in zip(corners, zones):
        gaps = [(0.0, ZONE_BREAK_MM / 2)]
        joints = {o.after for o in corners if o is not c and c.zone <= o.after < c.after}
        joints |= {o.zone - 1 for o in corners if o is not c and c.zone < o.zone <= c.after}
        for j in sorted(joints):
            p = poses[j - 1]
            nx, ny = _side_offset(p, zside)
            fx, fy = math.cos(p[2]), math.sin(p[2])
            at = (p[0] + fx * h + nx * (h + zoff), p[1] + fy * h + ny * (h + zoff))
            t = _arc_position(zpts, at)
            gaps.append((t - ZONE_BREAK_MM, t + ZONE_BREAK_MM))
        pieces_of.append(_cut(zpts, gaps))
        zone_marks.append(_place_zone_mark(marks, zpts, poses[c.zone - 1], zside))

    # every corner line, so that each corner's marks go nearer its own line than any other
    lines: list[tuple[Point, Point]] = []
    for c in corners:
        p = poses[c.after - 1]
        fx, fy = math.cos(p[2]), math.sin(p[2])
        ox, oy = _side_offset(p, -c.sign)
        mx, my = p[0] + fx * h, p[1] + fy * h
        lines.append(((mx - ox * h, my - oy * h), (mx + ox * h, my + oy * h)))

    out_corners: list[CornerLayout] = []
    for ci, (c, (zpts, zside, zoff)) in enumerate(zip(corners, zones)):
        others = lines[:ci] + lines[ci + 1 :]
        p = poses[c.after - 1]
        th = p[2]
        fx, fy = math.cos(th), math.sin(th)
        ox, oy = _side_offset(p, -c.sign)  # outside of the bend
        mx, my = p[0] + fx * h, p[1] + fy * h  # middle of the corner line
        inner = (mx - ox * h, my - oy * h)
        outer = (mx + ox * h, my + oy * h)
        unit = _place_unit(marks, outer, (ox, oy), (fx, fy), lines[ci], others, (True, False) if lenient else (True,))
        if unit is None:
            return None
        label, n_box, d_box = unit
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
                zone_pieces=pieces_of[ci],
                zone_mark=zone_marks[ci],
                zone_tick=ticks[ci],
            )
        )

    spaces = tuple(
        Space(number=k + 1, centre=(p[0], p[1]), heading=math.degrees(p[2]) % 360.0, side=s, corners=board.polys[k])
        for k, p in enumerate(poses)
    )
    xs: list[float] = []
    ys: list[float] = []
    for poly in board.polys:
        xs += [x for x, _ in poly]
        ys += [y for _, y in poly]
    for cl in out_corners:
        for r in (cl.label, cl.n_box, cl.d_box) + (() if cl.zone_mark is None else (cl.zone_mark,)):
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
        shared_lanes=shared,
        marks_on_lines=bool(lenient and marks_on_lines(out_corners)),
    )
    return centred(raw, width, height)


def _zone_tick(pts: Sequence[Point]) -> tuple[Point, Point] | None:
    """The tick across the zone line's first end (its last point), ZONE_TICK_MM either side."""
    if len(pts) < 2:
        return None
    (px, py), (ex, ey) = pts[-2], pts[-1]
    n = math.hypot(ex - px, ey - py)
    if n < 1e-9:
        return None
    ux, uy = -(ey - py) / n * ZONE_TICK_MM, (ex - px) / n * ZONE_TICK_MM
    return ((ex + ux, ey + uy), (ex - ux, ey - uy))


def marks_on_lines(corners: Sequence[CornerLayout]) -> list[tuple[int, int, str]]:
    """Where a planning-zone line runs through a mark: (the zone's corner, the mark's corner,
    which mark: "label", "N", "D" or "zone mark"), in the order of the corners, for every
    pair; a zone line with its tick. A mark is its box (a gear label's circle lies inside
    its box)."""
    found = []
    for i, zc in enumerate(corners):
        for j, mc in enumerate(corners):
            kinds = [("label", mc.label), ("N", mc.n_box), ("D", mc.d_box)]
            if mc.zone_mark is not None:
                kinds.append(("zone mark", mc.zone_mark))
            lines = list(zip(zc.zone, zc.zone[1:])) + ([] if zc.zone_tick is None else [zc.zone_tick])
            for kind, r in kinds:
                if any(segment_crosses_polygon(a, b, r.corners, 0.0) for a, b in lines):
                    found.append((i, j, kind))
    return found


def centred(lay: StageLayout, width: float, height: float) -> StageLayout | None:
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
        a, b, c, d = sp.corners
        return Space(sp.number, mv(sp.centre), sp.heading, sp.side, (mv(a), mv(b), mv(c), mv(d)))

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
            zone_pieces=tuple(tuple(mv(q) for q in piece) for piece in cl.zone_pieces),
            zone_mark=None if cl.zone_mark is None else mvr(cl.zone_mark),
            zone_tick=None if cl.zone_tick is None else (mv(cl.zone_tick[0]), mv(cl.zone_tick[1])),
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
        shared_lanes=lay.shared_lanes,
        marks_on_lines=lay.marks_on_lines,
    )


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
    obstacles: list[tuple[Point, ...]] = [s.corners for s in layout.spaces]
    obstacles.append(layout.invisible.corners)
    for corner in layout.corners:
        obstacles += [corner.label.corners, corner.n_box.corners, corner.d_box.corners]
        if corner.zone_mark is not None:
            obstacles.append(corner.zone_mark.corners)
    segments = [(a, b) for corner in layout.corners for a, b in zip(corner.zone, corner.zone[1:])]
    side = anchor_space.side
    # ring search: straight ahead (away from the road) first, then swinging to either side
    for reach in (0.6, 1.0, 1.6, 2.4, 3.4):
        for swing in (0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180):
            angle = math.radians(swing)
            dx = fx * math.cos(angle) - fy * math.sin(angle)
            dy = fx * math.sin(angle) + fy * math.cos(angle)
            distance = side * reach + max(width_mm, height_mm) / 2 * (
                abs(dx) * width_mm / max(width_mm, height_mm) + abs(dy) * height_mm / max(width_mm, height_mm)
            )
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
    return Rect(
        max(0.0, min(mx - width_mm / 2, layout.width - width_mm)),
        max(0.0, min(my - height_mm / 2, layout.height - height_mm)),
        width_mm,
        height_mm,
    )
