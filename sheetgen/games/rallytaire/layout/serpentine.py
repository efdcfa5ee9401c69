"""The fallback: a stage laid out as a serpentine of rows across the box, with U-turns at the
row ends, where each corner is a small bump towards its side (and no U-turn bends the other way
right next to a corner line). It is used when no winding road is found, and it tells how high a
box the stage needs when even the serpentine does not fit (``LayoutError.need_mm``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from sheetgen.games.rallytaire.layout.marks import centred, complete_layout
from sheetgen.games.rallytaire.layout.result import StageLayout, layout_from_json, layout_to_json
from sheetgen.games.rallytaire.layout.road import EDGE_MM, RoadCorner, road_poses, step
from sheetgen.geometry import square_corners

# Clearance between the rows, mm: a zone line in any lane (up to 3 mm out) still keeps 0.5 mm
# from the next row. Straight parallel rows need less than the passes of a winding road
# (winding._WIND_CLEAR_MM), and every millimetre saved makes the serpentine lower.
_SERP_CLEAR_MM = 3.5
# Room above the first row and below the last, mm: a gear label there lies 0.6 mm off the road
# (its nearest offset), is 5 mm high and stays 0.3 mm inside the box, 5.9 mm, with 0.6 to spare.
_SERP_LABEL_MM = 6.5
# A corner's bump turns this much at its first and last joint and twice that the other way in
# between (+t, -2t, +t): the row steps 0.4 of a space aside and comes back to its line, and the
# middle joint turns 30 degrees, as much as the largest drift of a winding road.
_CHEVRON_DEGREES = 15.0
#: Serpentine styles in order of preference: (joints per U-turn, strict). Four joints of 45
#: degrees make a rounder U-turn than three of 60 (the most a joint turns), but a wider one (the
#: rows' centre lines 3.4 spaces apart against 2.7). Strict keeps every U-turn off the joints
#: next to a corner line that turns the other way, so that no corner seems to bend the wrong
#: way (rows may then end early). The first style whose lowest serpentine fits is used.
_SERP_STYLES = ((4, True), (3, True), (4, False), (3, False))


@functools.lru_cache(maxsize=512)  # a pure memo, bounded as the others (see __init__)
def lowest_serpentine(
    length: int, corners: tuple[RoadCorner, ...], width: float, s: float, uturn: int, strict: bool
) -> StageLayout | None:
    """The serpentine in the lowest box (of this width) that holds it, or None.

    Laid out once at its own minimal height and only moved into a taller box afterwards, so a
    taller box always works when a lower one does. Kept in the figures cache (`sheetgen.cache`,
    keyed by the arguments and this module's import graph): placing its marks clear of every
    zone line is most of a race sheet's drawing time, and a second build lays out nothing again.
    """
    from sheetgen import cache

    def lay() -> Any:
        return layout_to_json(_lowest_serpentine(length, corners, width, s, uturn, strict))

    read: list[StageLayout | None] = []  # the entry's layout, read once by the check

    def readable(value: Any) -> bool:
        read[:] = [layout_from_json(value)]
        return True

    kept = cache.figures(
        "rallytaire-serpentine", repr((length, corners, width, s, uturn, strict)), __name__, lay, valid=readable
    )
    return read[0] if read else layout_from_json(kept)


def _lowest_serpentine(
    length: int, corners: tuple[RoadCorner, ...], width: float, s: float, uturn: int, strict: bool
) -> StageLayout | None:
    rows = _serpentine_rows(length, corners, width, s, uturn, strict)
    if rows is None:
        return None
    angles, ys = rows
    # the rows' own height first; when the marks do not fit in it, a little more room, half
    # above the first row and half below the last; and only when no room is enough for marks
    # clear of every zone line, a mark on a line
    for lenient in (False, True):
        for extra in (0.0, 5.0, 10.0, 20.0):
            height = max(ys) - min(ys) + 2 * _SERP_LABEL_MM + extra
            start = (EDGE_MM + s / 2, height - _SERP_LABEL_MM - extra / 2 - max(ys), 0.0)
            result = complete_layout(
                length, corners, list(angles), start, width, height, s, _SERP_CLEAR_MM, "serpentine", lenient
            )
            if result is not None:
                return result
    return None


@functools.lru_cache(maxsize=512)  # a pure memo, bounded as the others (see __init__)
def _serpentine_rows(
    length: int, corners: tuple[RoadCorner, ...], width: float, s: float, uturn: int, strict: bool
) -> tuple[list[float], list[float]] | None:
    """The serpentine's joint angles and the heights (y) of its squares' corners, or None when a
    row cannot fit the width: what its lowest box is worked out from (cheap beside the marks)."""
    angles = _serpentine_angles(length, corners, width, s, uturn, strict)
    if angles is None:
        return None
    poses = road_poses((0.0, 0.0, 0.0), angles, s)
    return angles, [y for p in poses for _, y in square_corners(p[0], p[1], p[2], s)]


def _least_height(
    length: int, corners: tuple[RoadCorner, ...], width: float, s: float, uturn: int, strict: bool
) -> float | None:
    """The height below which `lowest_serpentine` of this style never is (its rows and labels,
    before any extra room for the marks), or None when it has no rows."""
    rows = _serpentine_rows(length, corners, width, s, uturn, strict)
    return None if rows is None else max(rows[1]) - min(rows[1]) + 2 * _SERP_LABEL_MM


def try_serpentine(
    length: int, corners: tuple[RoadCorner, ...], width: float, height: float, s: float
) -> StageLayout | None:
    """The first serpentine style (of _SERP_STYLES) whose rows of ``s`` mm spaces fit in the
    box, centred in it; None when none does."""
    for uturn, strict in _SERP_STYLES:
        lay = lowest_serpentine(length, corners, width, s, uturn, strict)
        if lay is not None and lay.height <= height + 1e-9:
            return centred(lay, width, height)
    return None


def min_height(length: int, corners: tuple[RoadCorner, ...], width: float, sizes: Sequence[float]) -> float | None:
    """Lowest box height at this width in which a serpentine of any of the space ``sizes``
    fits, or None when the width holds none (too narrow for rows with U-turns)."""
    heights = [h for s in sizes if (h := _needed_height(length, corners, width, s)) is not None]
    return min(heights) if heights else None


def _needed_height(length: int, corners: tuple[RoadCorner, ...], width: float, s: float) -> float | None:
    """Lowest box height in which the serpentine with ``s`` mm spaces fits, or None if none does.

    The least of every style's lowest serpentine; the styles are laid out (marks and all) from
    the least rows' height up, and one whose rows alone are no lower than the best so far is
    not laid out at all: it could not be lower (the same minimum, less work)."""
    bounds = [
        (h, u, st) for u, st in _SERP_STYLES if (h := _least_height(length, corners, width, s, u, st)) is not None
    ]
    best: float | None = None
    for bound, u, st in sorted(bounds, key=lambda b: b[0]):
        if best is not None and bound >= best:
            break
        lay = lowest_serpentine(length, corners, width, s, u, st)
        if lay is not None and (best is None or lay.height < best):
            best = lay.height
    return best


def _serpentine_angles(
    length: int, corners: tuple[RoadCorner, ...], width: float, s: float, uturn: int, strict: bool = True
) -> list[float] | None:
    """Joint angles of the serpentine: rows across the box with U-turns of ``uturn`` joints.

    A corner on a row becomes a bump towards its side: +t before the line, -2t after it, +t to
    straighten, so the row keeps its line. ``strict``: no U-turn bends right next to a corner
    line the other way (rows may then end early). None when a row cannot fit the width.
    """
    afters = {c.after for c in corners}
    sign_at = {c.after: c.sign for c in corners}
    lo, hi = EDGE_MM, width - EDGE_MM
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

    def uturn_fits(
        p: tuple[float, float, float], j: int, pend: dict[int, float], direction: int, tidy: bool = False
    ) -> bool:
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
            elif (
                left > 0 and k > last and (k >= begin if begin is not None else turnable(k, sign)) and turnable(k, sign)
            ):
                a = sign * turn
                left -= 1
            else:
                a = 0.0
            q = step(q, a, s)
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
            if (
                a == 0.0
                and turnable(j, sg)
                and not uturn_fits(step(pose, 0.0, s), j + 1, {}, direction, tidy=compact(j, sg))
            ):
                a = -direction * turn
                uturn_left = uturn - 1
                if uturn_left == 0:
                    direction = -direction
        angles[j] = a
        pose = step(pose, a, s)
        if not xs_ok(pose):
            return None
    return angles[1:]
