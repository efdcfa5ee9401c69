"""Plane geometry for laying marks out on paper: points, segments, axis-aligned rectangles,
squares turned to a heading, and the overlap, crossing and distance tests between them.

Millimetres, y axis up, angles in radians unless a name says degrees; standard library only,
and no game in sight: a game's layout (``games.rallytaire.layout``) builds on these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Point = tuple[float, float]
Segment = tuple[Point, Point]

#: Tolerance of the overlap tests: touching edges are fine, interiors must not meet. A hundredth
#: of a millimetre is far below what prints (a hairline is about 0.1 mm) and far above the
#: rounding of positions computed in a page-sized box.
TOLERANCE_MM = 0.01


@dataclass(frozen=True)
class Rect:
    """Axis-aligned rectangle: lower-left corner and size."""

    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> Point:
        return (self.x + self.width / 2, self.y + self.height / 2)

    @property
    def corners(self) -> tuple[Point, Point, Point, Point]:
        x, y, w, h = self.x, self.y, self.width, self.height
        return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


def grow_rect(r: Rect, d: float) -> tuple[Point, ...]:
    """Corners of ``r`` grown by ``d`` on every side."""
    return Rect(r.x - d, r.y - d, r.width + 2 * d, r.height + 2 * d).corners


# A pure memo: the value for an angle is always (math.cos(angle), math.sin(angle)), the very
# same floats, so neither what it holds nor its clearing changes any result. A layout search
# meets the same headings again and again. Bounded so that a long run (a generator checking
# thousands of stages) does not grow it without end: a stage's search meets about a thousand
# new angles, and 200 000 of them take about 35 MB; past that the memo starts afresh.
_COS_SIN: dict[float, tuple[float, float]] = {}
_COS_SIN_MAX = 200_000

#: (cos, sin) of an angle when ``cos_sin`` has already worked it out, else None: a dict lookup
#: without a call, for the hottest loops (``cos_sin`` when it gives None).
known_cos_sin = _COS_SIN.get


def cos_sin(angle: float) -> tuple[float, float]:
    """(math.cos(angle), math.sin(angle)), memoised."""
    v = _COS_SIN.get(angle)
    if v is None:
        if len(_COS_SIN) > _COS_SIN_MAX:
            _COS_SIN.clear()
        v = _COS_SIN[angle] = (math.cos(angle), math.sin(angle))
    return v


def square_corners(cx: float, cy: float, heading_rad: float, side: float) -> tuple[Point, Point, Point, Point]:
    """Corners of a square centred at (cx, cy) whose front faces ``heading_rad``: back-right,
    front-right, front-left, back-left (counter-clockwise)."""
    h = side / 2
    v = known_cos_sin(heading_rad)
    c, s = v if v is not None else cos_sin(heading_rad)
    fx, fy, nx, ny = c * h, s * h, -s * h, c * h
    return (
        (cx - fx - nx, cy - fy - ny),
        (cx + fx - nx, cy + fy - ny),
        (cx + fx + nx, cy + fy + ny),
        (cx - fx + nx, cy - fy + ny),
    )


def convex_overlap(p: Sequence[Point], q: Sequence[Point], tol: float = TOLERANCE_MM) -> bool:
    """Separating-axis test for two convex polygons (a segment counts as a 2-point polygon).

    True when the interiors overlap by more than ``tol`` along every candidate axis; touching
    edges and gaps are not an overlap.
    """
    for poly in (p, q):
        n = len(poly)
        for i in range(n if n > 2 else 1):
            x1, y1 = poly[i]
            x2, y2 = poly[(i + 1) % n]
            ax, ay = y1 - y2, x2 - x1
            norm = math.hypot(ax, ay)
            if norm == 0.0:
                continue
            ax /= norm
            ay /= norm
            pmin = pmax = p[0][0] * ax + p[0][1] * ay
            for x, y in p[1:]:
                d = x * ax + y * ay
                if d < pmin:
                    pmin = d
                elif d > pmax:
                    pmax = d
            qmin = qmax = q[0][0] * ax + q[0][1] * ay
            for x, y in q[1:]:
                d = x * ax + y * ay
                if d < qmin:
                    qmin = d
                elif d > qmax:
                    qmax = d
            if pmax - qmin <= tol or qmax - pmin <= tol:
                return False
    return True


def segment_crosses_polygon(a: Point, b: Point, poly: Sequence[Point], tol: float = TOLERANCE_MM) -> bool:
    """True when the segment ab passes through the interior of the convex polygon."""
    return convex_overlap((a, b), poly, tol)


def point_square_distance(px: float, py: float, square: tuple[float, float, float], h: float) -> float:
    """Signed distance from (px, py) to the square of half side ``h`` centred at (cx, cy) and
    turned th radians, ``square`` = (cx, cy, th): negative inside. A circle of radius r about
    the point is clear of the square when this is at least r."""
    cx, cy, th = square
    dx, dy = px - cx, py - cy
    c, s = math.cos(th), math.sin(th)
    u, v = abs(dx * c + dy * s) - h, abs(-dx * s + dy * c) - h
    return math.hypot(max(u, 0.0), max(v, 0.0)) if (u > 0 or v > 0) else max(u, v)


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Proper crossing of segments ab and cd (touching or collinear runs do not count)."""

    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = orient(c, d, a), orient(c, d, b)
    d3, d4 = orient(a, b, c), orient(a, b, d)
    return ((d1 > 1e-9 and d2 < -1e-9) or (d1 < -1e-9 and d2 > 1e-9)) and (
        (d3 > 1e-9 and d4 < -1e-9) or (d3 < -1e-9 and d4 > 1e-9)
    )


def line_intersection(p: Point, d: Point, q: Point, e: Point) -> Point | None:
    """Where the line through p along d meets the line through q along e; None when they are
    parallel."""
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-12:
        return None
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    return (p[0] + t * d[0], p[1] + t * d[1])
