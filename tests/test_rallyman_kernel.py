"""The compiled kernel of the Rallyman GT solvers (sheetgen/games/rallyman/_kernel.c, driven by
accel.py) against the pure-Python reference, bit for bit: `==` on every figure the analysis
and the printouts use (the par time, its expected turns and turns by mode, the losses of
control by cell, the safe route's seconds, turns and plans), on the whole value and choice
tables of the par, and on the first plan and mode; on every bundled GT track (the three
large ones in the slow suite: their reference solves take 30 to 100 s each) and on seeded
random tracks: compact strips of one lap and hexagonal rings of one to three laps.

The reference runs with `SHEETGEN_ACCEL=off`, the switch that turns the kernel off. Where the
kernel is not built (it is optional) the comparisons are skipped; the rest of the suite then
runs the reference.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from sheetgen.games.rallyman import accel, report, solve
from sheetgen.games.rallyman.hexgrid import DIRECTIONS, Hex
from sheetgen.games.rallyman.model import Cell, Track, Variant
from sheetgen.games.rallyman.rules import RulesError, Stage
from sheetgen.games.rallyman.ruleset import default, ruleset_of
from sheetgen.registry import load_spec

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "track_specs" / "rallyman"
GT = default("gt")

needs_kernel = pytest.mark.skipif(not accel.available(), reason="the compiled kernel is not built here (or SHEETGEN_ACCEL=off)")


def bundled_gt() -> list[str]:
    names = []
    for path in sorted(BUNDLED.glob("*.yaml")):
        model = load_spec(path).model
        if getattr(model, "variant", None) is Variant.GT and getattr(model, "cells", None):
            names.append(path.stem)
    return names


#: the bundled GT tracks whose reference solves take 30 to 100 s each (the slow suite), and
#: compact_hillclimb's 5 s (the default suite's time: the random strips and rings below, and
#: tiny and a strip through the analysis and printouts, compare the kernel there)
LARGE = {"gt_col_sprint", "gt_hexagon_ring", "gt_wide_boulevard", "compact_hillclimb"}


def reference(monkeypatch, function, *args, **kwargs):
    """`function` run by the pure-Python solver (the kernel switched off)."""
    with monkeypatch.context() as m:
        m.setenv("SHEETGEN_ACCEL", "off")
        assert accel.kernel() is None
        return function(*args, **kwargs)


def assert_same_par(kernel: solve.Par, ref: solve.Par) -> None:
    assert kernel.time == ref.time
    assert kernel.start == ref.start
    assert kernel.choice[kernel.start] == ref.choice[ref.start]  # the first plan and its mode
    assert kernel.value == ref.value
    assert list(kernel.value) == list(ref.value)  # (the states, in the order the solve asked for them)
    assert kernel.choice == ref.choice
    assert kernel.expected_turns == ref.expected_turns
    assert kernel.turns_by_mode == ref.turns_by_mode
    assert kernel.danger == ref.danger
    assert (kernel.focus_cap, kernel.limit) == (ref.focus_cap, ref.limit)


def assert_same_solutions(monkeypatch, track, ruleset) -> None:
    """The par and the safe route: every figure the analysis and the printouts read comes
    from these two (test_..._analysis_and_printouts checks that path too)."""
    stage = Stage(track, ruleset, damage=False)
    assert_same_par(solve.par(stage), reference(monkeypatch, solve.par, stage))
    assert solve.safe_route(stage) == reference(monkeypatch, solve.safe_route, stage)


def test_the_kernel_named_is_the_source_shipped():
    """accel.py names the SHA-256 of the C source (so the figures cache's key, which reads
    accel.py's source, changes with the kernel); a build of another source is not used."""
    source = ROOT / "sheetgen" / "games" / "rallyman" / "_kernel.c"
    assert accel.SOURCE_SHA256 == hashlib.sha256(source.read_bytes()).hexdigest()
    from sheetgen import cache
    from sheetgen.games.rallyman.figures import SOLVER

    assert "sheetgen.games.rallyman.accel" in cache.solver_modules(SOLVER)
    if accel.available():
        assert accel.kernel().SOURCE_SHA256 == accel.SOURCE_SHA256


def test_the_switch_turns_the_kernel_off(monkeypatch):
    monkeypatch.setenv("SHEETGEN_ACCEL", "off")
    assert accel.kernel() is None and not accel.available()
    stage = Stage(load_spec(BUNDLED / "tiny.yaml").model, GT, damage=False)
    assert solve.par(stage).time == pytest.approx(215 / 9, rel=1e-12)  # the reference, by hand (test_rallyman_par)


@needs_kernel
@pytest.mark.parametrize("name", [n if n not in LARGE else pytest.param(n, marks=pytest.mark.slow) for n in bundled_gt()])
def test_the_kernel_gives_the_references_figures_on_the_bundled_tracks(name, monkeypatch):
    track = load_spec(BUNDLED / f"{name}.yaml").model
    assert_same_solutions(monkeypatch, track, ruleset_of(track))


@needs_kernel
@pytest.mark.parametrize("track", [pytest.param(lambda: load_spec(BUNDLED / "tiny.yaml").model, id="tiny"), pytest.param(lambda: compact_strip(1), id="strip1")])
def test_the_kernel_gives_the_references_analysis_and_printouts(track, monkeypatch):
    """`sheetgen analyze`'s report and the figures the map and time sheet print, as they
    are made (the figures cache left out)."""
    track = track()
    ruleset = ruleset_of(track)
    assert report.analyze_track(track, ruleset) == reference(monkeypatch, report.analyze_track, track, ruleset)
    assert report.solve_track(track, ruleset) == reference(monkeypatch, report.solve_track, track, ruleset)


def test_the_bundled_gt_tracks_are_compared():
    """Every bundled GT track is compared (a new one in the default suite unless named in
    LARGE); the large ones named are bundled tracks (not names that no longer match)."""
    assert LARGE <= set(bundled_gt())
    assert {"tiny", "compact_hillclimb"} <= set(bundled_gt())


# --------------------------------------------------------------------------- random tracks


def compact_strip(seed: int):
    """A one-lap strip in the compact form: 1 or 2 lanes, straights and corners of random
    limits (some in caution triangles), or None when its layout is refused."""

    rng = random.Random(seed)
    lanes = rng.choice((1, 2))
    segments = [f"straight {rng.randint(2, 3)}"]
    for _ in range(rng.randint(2, 3)):
        side = rng.choice(("left", "right"))
        angle = rng.choice(("", " 120"))
        top = rng.randint(1, 4)
        limits = "/".join(str(min(6, top + i)) for i in range(lanes))
        caution = " caution" if rng.random() < 0.4 else ""
        segments.append(f"corner {side}{angle} limit {limits}{caution}")
        segments.append(f"straight {rng.randint(1, 3)}")
    return laid_path(f"variant: gt\nname: Strip {seed}", lanes, segments)


def laid_path(head: str, lanes: int, segments: list[str]):
    """A Rallyman track in the compact form (`head`: its variant, name...) from the first cell
    (0, 0) heading 0, or None when its layout is refused (it overlaps itself: another seed)."""
    from sheetgen.games.rallyman.spec import load
    from sheetgen.yamlsrc import load_text

    text = (f"game: rallyman\n{head}\npath:\n  lanes: {lanes}\n  from: {{q: 0, r: 0, heading: 0}}\n"
            "  segments:\n" + "".join(f"    - {s}\n" for s in segments))
    try:
        return load(load_text(text, "strip.yaml"))
    except Exception:  # noqa: BLE001 (a layout that overlaps itself)
        return None


def hex_ring(seed: int) -> Track:
    """A single-lane hexagonal ring of radius 2 or 3 round (0, 0), driven clockwise, 1 to 3
    laps: random corner limits (some in caution triangles) on the cells, the start and the
    finish line on random cells (the finish a few cells before the start, or after it)."""
    rng = random.Random(seed)
    radius = rng.choice((2, 3))
    h = Hex(0, 0)
    for _ in range(radius):
        h = h.neighbour(4)
    seq = []
    for d in range(6):
        for _ in range(radius):
            seq.append(h)
            h = h.neighbour(d)
    n = len(seq)
    start = rng.randrange(n)
    finish = (start + rng.choice((-1, -2, 2, 3))) % n
    cells = []
    for i, here in enumerate(seq):
        ahead = seq[(i + 1) % n] - here
        heading = next(j for j in range(6) if tuple(DIRECTIONS[j]) == tuple(ahead))
        kw = {}
        if rng.random() < 0.3:
            kw["limit"] = rng.randint(2, 5)
            kw["caution"] = rng.random() < 0.3
        cells.append(Cell(here, heading, 1, start=i == start, finish=i == finish, **kw))
    return Track(f"ring{seed}", Variant.GT, tuple(cells), laps=rng.randint(1, 3))


def random_tracks() -> list:
    """Six strips of at most 25 cells, and rings of 1, 2 and 3 laps (a few seconds of the
    reference's each; larger ones in the slow suite)."""
    out = []
    seed = 0
    while len(out) < 6:
        track = compact_strip(seed)
        if track is not None and len(track.cells) <= 25:
            out.append(pytest.param(("strip", seed), id=f"strip{seed}"))
        seed += 1
    out += [pytest.param(("ring", 4), id="ring4")]  # ring3 and ring6 (6 s together): slow
    out += [pytest.param(("ring", seed), id=f"ring{seed}", marks=pytest.mark.slow) for seed in (3, 6)]
    out += [pytest.param(("strip", seed), id=f"strip{seed}", marks=pytest.mark.slow) for seed in (0, 7, 9)]
    out += [pytest.param(("ring", seed), id=f"ring{seed}", marks=pytest.mark.slow) for seed in (0, 1, 2, 5, 7)]
    return out


@needs_kernel
@pytest.mark.parametrize("which", random_tracks())
def test_the_kernel_gives_the_references_figures_on_random_tracks(which, monkeypatch):
    kind, seed = which
    track = compact_strip(seed) if kind == "strip" else hex_ring(seed)
    if solve.loop_reason(track) is not None:
        pytest.skip("its moves loop")
    try:
        Stage(track, GT, damage=False)
    except RulesError:
        pytest.skip("the rules cannot race it")
    assert_same_solutions(monkeypatch, track, GT)


@needs_kernel
@pytest.mark.parametrize(
    "cap,one",
    [(0, False), (0, True), (1, True), pytest.param(3, True, marks=pytest.mark.slow),
     pytest.param(6, True, marks=pytest.mark.slow), (2, False)],  # the larger caps take 2-4 s each
)
def test_the_kernel_gives_the_references_par_for_other_caps_and_modes(cap, one, monkeypatch):
    """The par's options (the tokens counted, one at a time allowed or not) on a two-lap ring
    and a strip."""
    for track in (hex_ring(4), compact_strip(1)):
        stage = Stage(track, GT, damage=False)
        assert_same_par(solve.par(stage, focus_cap=cap, one_at_a_time=one), reference(monkeypatch, solve.par, stage, focus_cap=cap, one_at_a_time=one))


@needs_kernel
def test_the_kernel_does_the_policys_forward_pass_itself(monkeypatch):
    """The losses of control by cell, the expected turns and the turns by mode come from the
    kernel's own forward pass (solve._forward is the reference's), the same figures."""
    # (a ring of random corners: compact_hillclimb's reference solve, compared above, is five times longer)
    stages = [Stage(hex_ring(3), GT, damage=False), Stage(hex_ring(5), GT, damage=False)]
    refs = [reference(monkeypatch, solve.par, stage) for stage in stages]

    def not_called(result):
        raise AssertionError("the reference's forward pass ran")

    monkeypatch.setattr(solve, "_forward", not_called)
    for stage, ref in zip(stages, refs):
        assert_same_par(solve.par(stage), ref)
        assert ref.turns_by_mode[solve.ONE] > 0  # (one at a time is played: the OneTable arithmetic is compared)


@needs_kernel
@pytest.mark.parametrize("cap", [0, 1, 2, 5])
def test_the_kernel_gives_the_references_safe_route_for_other_caps(cap, monkeypatch):
    for seed in range(4):
        stage = Stage(hex_ring(seed), GT, damage=False)
        assert solve.safe_route(stage, focus_cap=cap) == reference(monkeypatch, solve.safe_route, stage, focus_cap=cap)


# --------------------------------------------------------------------------- DIRT (solve_dirt._dp)


def dirt_strip(seed: int):
    """A two-lane DIRT stage in the compact form: corners of random limits (some in caution
    triangles), straights with a jump, a slide zone, water or snow, or None when its layout is
    refused."""

    rng = random.Random(seed)
    segments = [f"straight {rng.randint(2, 3)}"]
    for _ in range(rng.randint(2, 3)):
        side = rng.choice(("left", "right"))
        top = rng.randint(2, 4)
        caution = " caution" if rng.random() < 0.4 else ""
        segments.append(f"corner {side} limit {top}/{min(6, top + 1)}{caution}")
        extra = rng.choice(("", " snow", f" jump {rng.randint(2, 5)}", " slide", " water"))
        segments.append(f"straight {rng.randint(1, 3)}{extra}")
    return laid_path(f"variant: dirt\nname: Dirt {seed}\nsurface: gravel", 2, segments)


def dirt_shortcut_strip() -> Track:
    """A DIRT strip whose limit-1 corner a three-space shortcut cuts: the par policy takes it
    (over 0.99 of the time), so the shortcut draws of solve_dirt's `after` are solved."""
    cells = []
    for q in range(10):
        for lane, r in ((1, 0), (2, 1)):
            limit = 1 if q in (4, 5) else None
            cells.append(Cell(Hex(q, r), 0, lane, start=q == 0 and lane == 1, finish=q == 9, limit=limit))
    cells += [Cell(Hex(4 + i, -1), 0, 0, shortcut=3) for i in range(3)]
    return Track("shortcut strip", Variant.DIRT, tuple(cells))


def assert_same_dirt(monkeypatch, track, prices: bool = True) -> None:
    """The DIRT par and everything read from it: the value and plan tables (and the order the
    solve met the states), the policy's visits, losses, jumps, shortcut entries, slides, time
    cards and turns, and (with `prices`) what each shortcut, jump and slide zone saves."""
    from sheetgen.games.rallyman import rules_dirt as rd
    from sheetgen.games.rallyman import solve_dirt as sd

    stage = rd.DirtStage(track, default("dirt"), damage=False)
    kernel, ref = sd.par(stage), reference(monkeypatch, sd.par, stage)
    assert kernel.time == ref.time
    assert kernel.start == ref.start
    assert kernel.choice[kernel.start] == ref.choice[ref.start]  # the first plan
    assert kernel.value == ref.value
    assert list(kernel.value) == list(ref.value)
    assert kernel.choice == ref.choice
    assert list(kernel.choice) == list(ref.choice)
    for name in ("visits", "danger", "airs", "entries", "slid", "cards", "onward"):
        assert getattr(kernel, name) == getattr(ref, name), name
    assert kernel.expected_turns == ref.expected_turns
    if prices:
        assert sd.features(kernel) == reference(monkeypatch, sd.features, ref)


def random_dirt_tracks() -> list:
    """DIRT strips of at most 25 cells (a jump, slides, water...): two in the default suite
    (1 and 3: about a second of the reference's each), six more in the slow suite."""
    out, seed = [], 0
    while len(out) < 8:
        track = dirt_strip(seed)
        if track is not None and len(track.cells) <= 25:
            out.append(pytest.param(seed, id=f"dirt{seed}", marks=() if seed in (1, 3) else pytest.mark.slow))
        seed += 1
    return out


@needs_kernel
@pytest.mark.parametrize("seed", random_dirt_tracks())
def test_the_kernel_gives_the_references_dirt_par_on_random_tracks(seed, monkeypatch):
    track = dirt_strip(seed)
    assert track is not None and solve.loop_reason(track) is None
    assert_same_dirt(monkeypatch, track)


@needs_kernel
def test_the_kernel_gives_the_references_dirt_par_where_a_shortcut_is_taken(monkeypatch):
    from sheetgen.games.rallyman import rules_dirt as rd
    from sheetgen.games.rallyman import solve_dirt as sd

    track = dirt_shortcut_strip()
    taken = sd.par(rd.DirtStage(track, default("dirt"), damage=False)).entries
    assert sum(taken.values()) > 0.99  # (the shortcut draws are solved, not only the road)
    assert_same_dirt(monkeypatch, track, prices=False)  # (its pricing: seconds of the reference's)


@needs_kernel
def test_the_kernel_gives_the_references_turn_of_a_damaged_car_and_states_the_par_never_reaches(monkeypatch):
    """RD-24: the simulation driver's solves (solve_dirt.solve_from, turn_plan) through the
    kernel and the reference, the same floats and plans: the states a car alone never
    reaches (the grid with a coast die lost: the table's car loses none there), the first
    turn of a car with three gear dice and a coast die lost and no leader die, which must
    play a shorter plan than the par's and expects more time, and a first turn among cars."""
    from sheetgen.games.rallyman import rules_dirt as rd
    from sheetgen.games.rallyman import solve_dirt as sd

    solved = sd.par(rd.DirtStage(dirt_strip(1), default("dirt"), damage=False))
    cell = solved.start[0]
    state = (cell, 0, 1, 0)
    assert state not in solved.value
    more = sd.solve_from(solved, state, solved.value)
    assert more and more == reference(monkeypatch, sd.solve_from, solved, state, solved.value)
    known = {**solved.value, **more}
    car = rd.DirtCar(cell, gear=0, lost=(("gear", 3), ("coast", 1)))
    seconds, plan = sd.turn_plan(solved, car, False, known)
    assert (seconds, plan) == reference(monkeypatch, sd.turn_plan, solved, car, False, known)
    assert sd.describe_plan(solved.choice[solved.start]) == "1,2,coast,3/,4/"
    assert sd.describe_plan(plan) == "1,2,coast,3/" and seconds > solved.time
    assert sd.turn_plan(solved, rd.DirtCar(cell, gear=0), True, known) == (solved.time, solved.choice[solved.start])
    # among cars (RD-24): a car in gear 4 three cells on: the plan stops behind it, 1,2,3
    ahead = rd.Traffic(((Hex(3, 0), 4, False),))
    among = sd.turn_plan(solved, rd.DirtCar(cell, gear=0), True, known, ahead)
    assert among == reference(monkeypatch, sd.turn_plan, solved, rd.DirtCar(cell, gear=0), True, known, ahead)
    assert sd.describe_plan(among[1]) == "1,2,3" and among[0] > solved.time


@needs_kernel
@pytest.mark.slow  # (the reference: 10 and 20 s)
@pytest.mark.parametrize("name", ["dirt_lakeside", "dirt_forest_stage"])
def test_the_kernel_gives_the_references_dirt_par_on_the_bundled_tracks(name, monkeypatch):
    assert_same_dirt(monkeypatch, load_spec(BUNDLED / f"{name}.yaml").model)


def test_the_bundled_dirt_tracks_are_compared():
    names = {p.stem for p in BUNDLED.glob("*.yaml") if getattr(load_spec(p).model, "variant", None) is Variant.DIRT}
    assert names == {"dirt_lakeside", "dirt_forest_stage"}
