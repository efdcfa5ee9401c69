"""Rallytaire track layout (sheetgen.games.rallytaire.layout): invariants on fixed and random
stages, no reportlab."""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheetgen.errors import SheetgenError
from sheetgen.games.rallytaire import layout as lay
from sheetgen.games.rallytaire.layout import LayoutError, layout_stage
from sheetgen.games.rallytaire.model import Corner, Stage, Surface, Turn
from sheetgen.geometry import convex_overlap

ROOT = Path(__file__).resolve().parent.parent
MARGIN = 10.0
A4 = (210.0 - 2 * MARGIN, 297.0 - 2 * MARGIN)
LETTER = (215.9 - 2 * MARGIN, 279.4 - 2 * MARGIN)
HALF_A4 = (A4[0], (A4[1] - 20.0) / 2)
HALF_LETTER = (LETTER[0], (LETTER[1] - 20.0) / 2)
TOL = 1e-6


def stage(name: str, length: int, corners: list[tuple[int, int, int, str]]) -> Stage:
    return Stage(
        name=name,
        surface=Surface.GRAVEL,
        length=length,
        corners=tuple(Corner(after=a, gear=g, zone=z, turn=Turn.LEFT if t == "L" else Turn.RIGHT) for a, g, z, t in corners),
    )


def spread(name: str, length: int, count: int, first_turn: str = "L") -> Stage:
    """``count`` corners spread evenly over the stage, gears cycling 1..5, turns varying."""
    step = length // (count + 1)
    turns = [first_turn, "R", "R", "L", "L", "R", "L"]
    corners = []
    for k in range(count):
        after = step * (k + 1)
        corners.append((after, k % 5 + 1, max(1, after - 3 - k % 4), turns[k % len(turns)]))
    return stage(name, length, corners)


SHORT = stage("short", 12, [(4, 3, 1, "L"), (9, 2, 6, "R")])
S40 = stage("forty", 40, [(6, 3, 2, "L"), (13, 1, 8, "R"), (20, 4, 15, "L"), (27, 2, 22, "L"), (34, 5, 30, "R")])
S60 = stage(
    "sixty",
    60,
    [(5, 4, 1, "R"), (12, 2, 7, "L"), (18, 1, 14, "R"), (25, 3, 20, "R"), (33, 5, 28, "L"), (40, 2, 35, "L"), (47, 3, 42, "R"), (54, 1, 50, "L")],
)
S80 = spread("eighty", 80, 9, "R")
S100 = spread("hundred", 100, 12)
CLUSTER = stage("cluster", 45, [(7, 2, 5, "L"), (8, 4, 1, "L"), (10, 2, 7, "R"), (13, 1, 2, "L"), (20, 2, 8, "L"), (30, 5, 21, "R")])
S150 = spread("long", 150, 12)
S250 = spread("marathon", 250, 20, "R")

NORMAL = [SHORT, S40, S60, S80, S100, CLUSTER]
ALL = NORMAL + [S150, S250]


# ---------------------------------------------------------------------------------------------
# Invariants


def _inside(pt, w, h) -> bool:
    return -TOL <= pt[0] <= w + TOL and -TOL <= pt[1] <= h + TOL


def _close(p, q, tol: float = 1e-6) -> bool:
    return math.hypot(p[0] - q[0], p[1] - q[1]) <= tol


def _same_segment(a, b) -> bool:
    return (_close(a[0], b[0]) and _close(a[1], b[1])) or (_close(a[0], b[1]) and _close(a[1], b[0]))


def _turn_between(h0: float, h1: float) -> float:
    return (h1 - h0 + 180.0) % 360.0 - 180.0


def _heading_change(result, first: int, last: int) -> float:
    """Sum of the turns at each joint from space ``first`` to space ``last`` (1-based)."""
    spaces = list(result.spaces) + [result.invisible]
    return sum(_turn_between(spaces[k - 1].heading, spaces[k].heading) for k in range(first, last))


def _near(a, b, reach: float) -> bool:
    return math.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) < reach


def check(stage_: Stage, result, width: float, height: float) -> None:
    """Every promise of layout_stage, checked from the public result only."""
    length = stage_.length
    spaces = list(result.spaces)
    allsp = spaces + [result.invisible]
    assert [sp.number for sp in allsp] == list(range(1, length + 2))
    assert result.width == width and result.height == height
    side = result.space_mm
    assert side >= 7.0 - TOL
    for sp in allsp:
        assert sp.side == side
        # a square: four equal sides and right angles
        c = sp.corners
        for k in range(4):
            assert math.isclose(math.dist(c[k], c[(k + 1) % 4]), side, abs_tol=1e-6)
        assert math.isclose(math.dist(c[0], c[2]), side * math.sqrt(2), abs_tol=1e-6)
        assert all(_inside(p, width, height) for p in c)

    # no two spaces overlap (touching is fine)
    reach = side * math.sqrt(2) + 0.01
    for i in range(len(allsp)):
        for j in range(i + 1, len(allsp)):
            if _near(allsp[i], allsp[j], reach):
                assert not convex_overlap(allsp[i].corners, allsp[j].corners, 0.01), (i + 1, j + 1)

    # consecutive spaces touch: the whole edge on a straight, the inside corner in a bend
    for a, b in zip(allsp, allsp[1:]):
        front, back = a.front_edge, b.back_edge
        shared = sum(1 for p in front for q in back if _close(p, q))
        assert shared >= 1, (a.number, b.number)
        assert abs(_turn_between(a.heading, b.heading)) <= 60.0 + 1e-6
        if shared == 1:
            assert abs(_turn_between(a.heading, b.heading)) > 1e-6

    assert _same_segment(result.start_line, spaces[0].back_edge)
    assert _same_segment(result.finish_line, spaces[-1].front_edge)
    assert _same_segment(result.finish_line, result.invisible.back_edge)

    assert [c.after for c in result.corners] == sorted(c.after for c in stage_.corners)
    marks = []
    by_after = {c.after: c for c in stage_.corners}
    for cl in result.corners:
        src = by_after[cl.after]
        assert cl.gear == src.gear and cl.turn == src.turn.value
        # the corner line is the shared edge of spaces after and after + 1
        assert _same_segment(cl.line, spaces[cl.after - 1].front_edge)
        assert _same_segment(cl.line, allsp[cl.after].back_edge)
        # the gear number sits on the outside of the bend
        sp = spaces[cl.after - 1]
        th = math.radians(sp.heading)
        left = (-math.sin(th), math.cos(th))
        mid = ((cl.line[0][0] + cl.line[1][0]) / 2, (cl.line[0][1] + cl.line[1][1]) / 2)
        lc = cl.label.centre
        side_of_label = (lc[0] - mid[0]) * left[0] + (lc[1] - mid[1]) * left[1]
        assert side_of_label < 0 if cl.turn == "left" else side_of_label > 0
        # the planning zone: from the corner line back to the start of space `zone`, never
        # through a space
        zone_space = spaces[src.zone - 1]
        assert _on_line(cl.zone[0], cl.line)
        assert _on_line(cl.zone[-1], zone_space.back_edge)
        for a, b in zip(cl.zone, cl.zone[1:]):
            for sp2 in allsp:
                if math.dist(sp2.centre, a) < math.dist(a, b) + side * 2:
                    assert not convex_overlap((a, b), sp2.corners, 0.05), (cl.after, sp2.number)
        assert all(_inside(p, width, height) for p in cl.zone)
        for rect in (cl.label, cl.n_box, cl.d_box):
            assert all(_inside(p, width, height) for p in rect.corners)
            for sp2 in allsp:
                assert not convex_overlap(rect.corners, sp2.corners, 0.01), (cl.after, sp2.number)
        assert 4.0 <= cl.n_box.width <= 6.0 and cl.n_box.width == cl.n_box.height
        assert cl.d_box.width == cl.n_box.width and cl.d_box.height == cl.n_box.height
        marks += [(cl.after, cl.label), (cl.after, cl.n_box), (cl.after, cl.d_box)]
    # labels and boxes overlap nothing else, not even each other; every two marks (zone marks
    # too) at least 0.95 mm apart, so that no two marks of different corners read as a pair
    marks += [(cl.after, cl.zone_mark) for cl in result.corners if cl.zone_mark is not None]
    for i in range(len(marks)):
        for j in range(i + 1, len(marks)):
            assert not convex_overlap(marks[i][1].corners, marks[j][1].corners, 0.01), (marks[i], marks[j])
            assert _rect_gap(marks[i][1], marks[j][1]) >= 0.95 - 1e-6, (marks[i], marks[j])
    # no planning-zone line (nor the tick at its first space) through a mark, its own corner's
    # or another's: 0.4 mm clear; only a serpentine that found no other way may, and says so
    lines = [(cl.after, seg) for cl in result.corners for seg in zip(cl.zone, cl.zone[1:])]
    lines += [(cl.after, cl.zone_tick) for cl in result.corners]
    assert all(cl.zone_tick is not None and math.isclose(math.dist(*cl.zone_tick), 2.6) for cl in result.corners)
    assert all(_point_polyline(cl.zone[-1], cl.zone_tick) < 1e-6 for cl in result.corners)
    crossed = [
        (after, owner)
        for after, seg in lines
        for owner, rect in marks
        if _rect_segment_distance(rect, *seg) < 0.4 - 1e-6
    ]
    if result.marks_on_lines:
        assert result.style == "serpentine" and crossed
    else:
        assert not crossed, crossed

    bb = result.bbox
    assert -TOL <= bb.x and -TOL <= bb.y and bb.x + bb.width <= width + TOL and bb.y + bb.height <= height + TOL
    for sp in allsp:
        assert all(bb.x - TOL <= x <= bb.x + bb.width + TOL and bb.y - TOL <= y <= bb.y + bb.height + TOL for x, y in sp.corners)


def _segment_distance(a, b, c, d) -> float:
    """Least distance between segments ab and cd (0 when they cross)."""

    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    if orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0:
        return 0.0
    return min(_point_polyline(a, (c, d)), _point_polyline(b, (c, d)), _point_polyline(c, (a, b)), _point_polyline(d, (a, b)))


def _rect_segment_distance(rect, a, b) -> float:
    """Least distance from an axis-aligned rectangle to segment ab (0 when they meet)."""
    if rect.x <= a[0] <= rect.x + rect.width and rect.y <= a[1] <= rect.y + rect.height:
        return 0.0
    x0, y0, x1, y1 = rect.x, rect.y, rect.x + rect.width, rect.y + rect.height
    edges = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]
    return min(_segment_distance(a, b, c, d) for c, d in edges)


def _on_line(p, seg, tol: float = 1e-6) -> bool:
    """p lies on the infinite line through seg."""
    (x1, y1), (x2, y2) = seg
    cross = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
    return abs(cross) / math.dist(seg[0], seg[1]) <= tol


def isolated(stage_: Stage, result, gap: int = 3):
    afters = [c.after for c in stage_.corners]
    for cl in result.corners:
        if all(a == cl.after or abs(a - cl.after) > gap for a in afters) and cl.after >= 2:
            yield cl


# ---------------------------------------------------------------------------------------------
# Fixed stages on A4, Letter and half pages

BOXES = {"a4": A4, "letter": LETTER, "half-a4": HALF_A4, "half-letter": HALF_LETTER}


@pytest.mark.parametrize("box", sorted(BOXES))
@pytest.mark.parametrize("stage_", ALL, ids=lambda s: s.name)
def test_layout_invariants(stage_, box):
    width, height = BOXES[box]
    try:
        result = layout_stage(stage_, width, height)
    except LayoutError as exc:
        # only a stage that is really too long for the box may fail, and it says what it needs
        assert box.startswith("half") and stage_.length >= 150
        assert "needs a box at least" in str(exc)
        assert exc.need_mm is not None and exc.need_mm > height
        return
    check(stage_, result, width, height)


@pytest.mark.parametrize("box", ["a4", "letter"])
@pytest.mark.parametrize("stage_", ALL, ids=lambda s: s.name)
def test_full_page_always_fits(stage_, box):
    width, height = BOXES[box]
    assert layout_stage(stage_, width, height).space_mm >= 7.0


@pytest.mark.parametrize("stage_", [SHORT, S40, S60, S80, CLUSTER], ids=lambda s: s.name)
def test_normal_stages_wind_on_a_full_page(stage_):
    for box in (A4, LETTER):
        assert layout_stage(stage_, *box).style == "winding"


def test_a_dense_stage_still_fits_a_full_page():
    # 12 corners in 100 spaces, three of them hairpins: the winding search may give up, the
    # serpentine never does
    for box in (A4, LETTER):
        result = layout_stage(S100, *box)
        assert result.style in ("winding", "serpentine")
        check(S100, result, *box)


def test_short_stages_wind_on_half_a_page():
    for stage_ in (SHORT, S40):
        assert layout_stage(stage_, *HALF_A4).style == "winding"


@pytest.mark.parametrize("box", ["a4", "letter", "half-a4"])
@pytest.mark.parametrize("stage_", [S40, S60, S80, S100, CLUSTER], ids=lambda s: s.name)
def test_corners_bend_to_their_side(stage_, box):
    result = layout_stage(stage_, *BOXES[box])
    for cl in isolated(stage_, result):
        change = _heading_change(result, cl.after - 1, cl.after + 1)
        want = 1 if cl.turn == "left" else -1
        if result.style == "winding":
            assert change * want > 1.0, (cl.after, change)
            assert cl.angle * want > 1.0
        else:  # a serpentine bumps towards the side where it can; only a U-turn (a row end
            # that fell right by the corner in a crowded box) turns it the other way
            assert change * want >= -1e-6 or abs(change) >= 40.0, (cl.after, change)


def test_lower_gears_turn_sharper_on_average():
    turned: dict[int, list[float]] = {g: [] for g in range(1, 6)}
    for stage_ in NORMAL:
        for box in (A4, LETTER):
            result = layout_stage(stage_, *box)
            if result.style != "winding":
                continue
            for cl in isolated(stage_, result):
                turned[cl.gear].append(abs(_heading_change(result, cl.after - 2, cl.after + 3)))
    mean = {g: sum(v) / len(v) for g, v in turned.items() if v}
    assert set(mean) == {1, 2, 3, 4, 5}
    gears = sorted(mean)
    for lower, higher in zip(gears, gears[1:]):
        assert mean[lower] >= mean[higher] - 5.0, mean
    assert mean[1] > mean[3] > mean[5]


def test_hairpins_are_hairpins():
    result = layout_stage(S40, *A4)
    hairpin = next(cl for cl in result.corners if cl.gear == 1)
    assert abs(_heading_change(result, hairpin.after - 2, hairpin.after + 3)) >= 150.0


def test_the_same_input_gives_the_same_layout():
    lay.clear_caches()
    first = [layout_stage(s, *HALF_A4) for s in NORMAL]
    lay.clear_caches()
    assert [layout_stage(s, *HALF_A4) for s in NORMAL] == first
    # a stage is a value: an equal stage built anew gives the same layout
    again = stage("sixty", 60, [(c.after, c.gear, c.zone, "L" if c.turn == Turn.LEFT else "R") for c in S60.corners])
    assert layout_stage(again, *A4) == layout_stage(S60, *A4)


def _digest(result) -> str:
    return hashlib.sha256(repr(result).encode()).hexdigest()


def test_the_layout_does_not_depend_on_the_process():
    code = (
        "import sys, hashlib; sys.path.insert(0, sys.argv[1]);"
        "from tests.test_layout import S60, A4; from sheetgen.games.rallytaire.layout import layout_stage;"
        "print(hashlib.sha256(repr(layout_stage(S60, *A4)).encode()).hexdigest())"
    )
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, env=env, check=True)
        assert out.stdout.strip() == _digest(layout_stage(S60, *A4))


def test_too_small_a_box_says_how_much_room_it_needs():
    with pytest.raises(LayoutError, match=r"'marathon' \(250 spaces\) does not fit in 190.0 x 128.5 mm: it needs a box at least") as caught:
        layout_stage(S250, *HALF_A4)
    assert caught.value.stage_name == "marathon" and caught.value.stage_index is None
    assert f"at least {caught.value.need_mm:.1f} mm high" in str(caught.value)
    with pytest.raises(LayoutError, match="too narrow") as caught:
        layout_stage(S40, 30.0, 200.0)
    assert caught.value.stage_name == "forty" and caught.value.need_mm is None
    assert issubclass(LayoutError, SheetgenError)


def test_a_layout_error_keeps_its_fields_through_pickling():
    """A process pool sends a worker's error back pickled: the fields come with it."""
    error = LayoutError("stage 'x' (9 spaces) does not fit", stage_name="x", need_mm=41.5).in_race(3)
    back = pickle.loads(pickle.dumps(error))
    assert (str(back), back.stage_name, back.need_mm, back.stage_index) == (str(error), "x", 41.5, 3)


def test_the_height_an_error_asks_for_is_enough_and_needed():
    width = A4[0]
    for stage_ in (S40, S100, S250):
        with pytest.raises(LayoutError) as caught:
            layout_stage(stage_, width, 20.0)
        height = caught.value.need_mm
        assert height is not None and height > 20.0
        check(stage_, layout_stage(stage_, width, height), width, height)
        with pytest.raises(LayoutError):
            layout_stage(stage_, width, height - 1.0)


def test_space_size_never_below_the_minimum():
    with pytest.raises(LayoutError):
        layout_stage(S250, *HALF_A4, space_mm=8.0, min_space_mm=8.0)
    result = layout_stage(S150, *A4, space_mm=9.0, min_space_mm=7.5)
    assert 7.5 <= result.space_mm <= 9.0
    check(S150, result, *A4)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="min_space_mm"):
        layout_stage(S40, *A4, space_mm=7.0, min_space_mm=8.0)


def test_winding_layout_is_layout_stage_when_it_winds():
    """winding_layout gives layout_stage's result when that is a winding road, else None."""
    from sheetgen.games.rallytaire.layout import winding_layout

    assert winding_layout(S40, *HALF_A4) == layout_stage(S40, *HALF_A4)
    assert layout_stage(S40, *HALF_A4).style == "winding"
    # the marathon does not wind on a page: layout_stage gives a serpentine, winding_layout None
    assert layout_stage(S250, *A4).style == "serpentine"
    assert winding_layout(S250, *A4) is None
    # nor does anything fit in a box too narrow for a U-turn: layout_stage raises
    with pytest.raises(LayoutError):
        layout_stage(S40, 30.0, 200.0)
    assert winding_layout(S40, 30.0, 200.0) is None


def test_check_fits_answers_what_layout_stage_does():
    """check_fits (validate's printability check) raises layout_stage's very error where that
    raises and returns where it lays the stage out, from cold memos: a serpentine that fits
    settles it without the winding search, and the winding road is tried only when none does."""
    cases = [(S40, HALF_A4), (S100, A4), (S250, HALF_A4), (S250, A4), (S40, (30.0, 200.0)), (S150, HALF_A4), (CLUSTER, (A4[0], 60.0))]
    def refusal(how, stage_, box):  # None when it fits, else the error's words and size
        lay.clear_caches()
        try:
            how(stage_, *box)
        except LayoutError as exc:
            return (str(exc), exc.need_mm)
        return None

    for stage_, box in cases:
        assert refusal(lay.check_fits, stage_, box) == refusal(lay.layout_stage, stage_, box), (stage_.name, box)
    assert lay.winding_layout(S40, *HALF_A4) is not None


def test_check_fits_tries_the_winding_road_when_no_serpentine_fits(monkeypatch):
    """No bundled or tested stage winds where no serpentine fits, so the serpentine is taken
    away here: a stage that winds still passes, one that does not is refused."""
    monkeypatch.setattr(lay, "try_serpentine", lambda *args: None)
    lay.clear_caches()
    lay.check_fits(S40, *HALF_A4)  # it winds
    with pytest.raises(LayoutError, match="'marathon'"):
        lay.check_fits(S250, *A4)  # it does not wind on a page
    lay.clear_caches()


_COORD = st.floats(min_value=0.0, max_value=60.0, allow_nan=False)
_POLY = st.lists(st.tuples(_COORD, _COORD), min_size=2, max_size=6)


@settings(max_examples=300, deadline=None)
@given(_POLY, _POLY, st.floats(min_value=0.0, max_value=20.0))
def test_the_bounded_distance_checks_agree_with_the_exact_distances(p, q, limit):
    """marks skips pairs of segments whose bounding boxes are farther apart than its limit:
    the answers are those of the exact distances."""
    from sheetgen.games.rallytaire.layout import marks
    from sheetgen.geometry import Rect

    assert marks._closer_than(p, q, limit) == (marks.polyline_distance(p, q) < limit)
    rect = Rect(p[0][0], p[0][1], 5.0, 5.0)
    own, others = (q[0], q[1]), list(zip(p[1:], p[:-1]))
    exact = all(marks.rect_segment_distance(rect, *o) > marks.rect_segment_distance(rect, *own) + marks.NEARER_MM for o in others)
    assert marks._nearest_own(rect, own, others) == exact


# ---------------------------------------------------------------------------------------------
# Random valid stages


@st.composite
def random_stages(draw, max_length: int = 200):
    length = draw(st.integers(2, max_length))
    afters = sorted(draw(st.sets(st.integers(1, length - 1), max_size=min(20, length - 1))))
    corners = tuple(
        Corner(after=a, gear=draw(st.integers(1, 5)), zone=draw(st.integers(1, a)), turn=draw(st.sampled_from(Turn))) for a in afters
    )
    return Stage(name=draw(st.text(max_size=8)), surface=Surface.ASPHALT, length=length, corners=corners)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_stages())
def test_any_stage_fits_a_full_a4_page(stage_):
    result = layout_stage(stage_, *A4)
    check(stage_, result, *A4)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_stages(max_length=150), st.floats(40.0, 216.0), st.floats(30.0, 280.0))
def test_any_box_fits_or_is_genuinely_too_small(stage_, width, height):
    try:
        result = layout_stage(stage_, width, height)
    except LayoutError as exc:
        if exc.need_mm is None:
            return  # no height is enough at this width
        assert exc.need_mm > height
        check(stage_, layout_stage(stage_, width, exc.need_mm), width, exc.need_mm)
        return
    check(stage_, result, width, height)


@pytest.mark.parametrize("stage_", ALL, ids=lambda s: s.name)
@pytest.mark.parametrize("box", ["a4", "letter", "half-a4"])
def test_start_and_finish_words_find_free_room(stage_, box):
    width, height = BOXES[box]
    try:
        result = layout_stage(stage_, width, height)
    except LayoutError:
        pytest.skip("does not fit this box")
    marks = [s.corners for s in result.spaces] + [result.invisible.corners]
    marks += [r.corners for c in result.corners for r in (c.label, c.n_box, c.d_box)]
    for which, line in (("start", result.start_line), ("finish", result.finish_line)):
        rect = lay.end_label(result, which, 9.0, 3.0)
        assert 0 <= rect.x and rect.x + rect.width <= width + TOL
        assert 0 <= rect.y and rect.y + rect.height <= height + TOL
        assert not any(convex_overlap(rect.corners, m) for m in marks)
        # close to its own line: within a few spaces
        mx, my = (line[0][0] + line[1][0]) / 2, (line[0][1] + line[1][1]) / 2
        assert math.dist(rect.centre, (mx, my)) < 4 * result.space_mm + 9.0


def _rect_gap(a, b) -> float:
    """Gap between two axis-aligned rectangles (0 when they touch or overlap)."""
    dx = max(a.x - (b.x + b.width), b.x - (a.x + a.width), 0.0)
    dy = max(a.y - (b.y + b.height), b.y - (a.y + a.height), 0.0)
    return math.hypot(dx, dy)


def _point_polyline(p, pts) -> float:
    best = math.inf
    for a, b in zip(pts, pts[1:]):
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = dx * dx + dy * dy
        t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
        best = min(best, math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1]))
    return best


def test_zone_lines_are_broken_and_marked():
    """On the bundled races' sheets (the page plan's own layouts): every zone line is drawn in
    pieces of itself, with a gap where it runs past another corner's line or the start of
    another zone, its first space marked by a box next to the line's end; every corner's gear
    label has its N and D pair right next to it."""
    from conftest import RALLYTAIRE_SPECS
    from sheetgen.games.rallytaire.layout.marks import ZONE_BREAK_MM
    from sheetgen.games.rallytaire.sheet import plan_race
    from sheetgen.registry import load_spec
    from sheetgen.template import load_template

    template = load_template("race_sheet")
    checked = 0
    near: list[bool] = []
    for path in RALLYTAIRE_SPECS:
        race = load_spec(path).model
        for page in plan_race(race, template, 279.4).pages:
            for placed in page:
                stage_, lay = race.stages[placed.index], placed.layout
                assert not lay.shared_lanes
                by_after = {c.after: c for c in stage_.corners}
                for cl in lay.corners:
                    src = by_after[cl.after]
                    for piece in cl.zone_pieces:
                        assert all(_point_polyline(p, cl.zone) < 1e-6 for p in piece)
                    # the lane points where the line passes another corner or another zone's start
                    joints = {o.after for o in stage_.corners if o.after != cl.after and src.zone <= o.after < cl.after}
                    joints |= {o.zone - 1 for o in stage_.corners if o.after != cl.after and src.zone < o.zone <= cl.after}
                    for j in joints:
                        sp = lay.spaces[j - 1]
                        th = math.radians(sp.heading)
                        normal = (-math.sin(th), math.cos(th)) if cl.zone_side == "left" else (math.sin(th), -math.cos(th))
                        edge = sp.corners[2] if cl.zone_side == "left" else sp.corners[1]
                        lane = (edge[0] + normal[0] * cl.zone_offset, edge[1] + normal[1] * cl.zone_offset)
                        assert _point_polyline(lane, cl.zone) < 1e-6
                        for piece in cl.zone_pieces:
                            assert _point_polyline(lane, piece) >= ZONE_BREAK_MM - 1e-6, (path.stem, stage_.name, cl.after, j)
                        checked += 1
                    # the gear number's box by the end of the line at the zone's first space
                    assert cl.zone_mark is not None
                    assert math.dist(cl.zone_mark.centre, cl.zone[-1]) <= 6.0
                    for sp in lay.spaces:
                        assert not convex_overlap(cl.zone_mark.corners, sp.corners, 0.01)
                    # the label and its N and D pair: one unit, right next to it (1 mm) unless
                    # a zone line leaves no room there: then a little apart (Burzet by Night's
                    # corner 26, whose zone runs where the pair would go: 2.3 mm), never on
                    # the line
                    assert _rect_gap(cl.label, cl.n_box) <= 2.5 or _rect_gap(cl.label, cl.d_box) <= 2.5
                    near.append(min(_rect_gap(cl.label, cl.n_box), _rect_gap(cl.label, cl.d_box)) <= 1.0 + 1e-6)
    assert checked >= 5  # the bundled races have zones running past other corners (10 gaps)
    assert near.count(False) <= 1 and len(near) > 50, (near.count(False), len(near))


def test_a_serpentine_is_kept_on_disk_and_read_back_equal(tmp_path, monkeypatch):
    """The lowest serpentine is kept in the figures cache: written as JSON, read back equal
    (every float, point and box; JSON gives floats back exactly), and a second process's
    memo finds it there without laying it out again."""
    import json

    from sheetgen.games.rallytaire.layout import clear_caches
    from sheetgen.games.rallytaire.layout import serpentine as serp
    from sheetgen.games.rallytaire.layout.result import layout_from_json, layout_to_json

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    clear_caches()
    laid = layout_stage(S250, *A4)
    assert laid.style == "serpentine" and laid.corners and laid.spaces
    assert layout_from_json(json.loads(json.dumps(layout_to_json(laid)))) == laid
    entries = sorted(p.name for p in tmp_path.iterdir())
    assert entries and all(n.startswith("rallytaire-serpentine-") for n in entries)
    clear_caches()

    def never(*args):
        raise AssertionError("laid out again")

    monkeypatch.setattr(serp, "_lowest_serpentine", never)
    assert layout_stage(S250, *A4) == laid
    clear_caches()
    monkeypatch.undo()
    clear_caches()
