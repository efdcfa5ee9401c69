"""Rallytaire exact solver and seeded simulator: hand values, an independent brute force,
properties, and a Monte Carlo cross-check through the engine."""

from __future__ import annotations

import json
import math
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.model import Corner, Race, Stage, Surface, Turn
from sheetgen.games.rallytaire.report import analysis_to_json, format_analysis_text, format_race_run
from sheetgen.games.rallytaire.rules import State
from sheetgen.games.rallytaire.simulate import play_stage, simulate_race
from sheetgen.games.rallytaire.solve import (
    RaceAnalysis,
    analyze_race,
    analyze_stage,
    evaluate_policy,
)


def stage(length: int, *corners: tuple[int, int, int], name: str = "test") -> Stage:
    """Stage fixture from (after, gear, zone) triples."""
    return Stage(
        name=name,
        surface=Surface.ASPHALT,
        length=length,
        corners=tuple(Corner(after=a, gear=g, zone=z, turn=Turn.RIGHT) for a, g, z in corners),
    )


#: A few corners that really bite, for property and Monte Carlo tests.
TWISTY = stage(30, (6, 2, 3), (12, 3, 9), (14, 2, 12), (22, 1, 20), name="twisty")
FAST = stage(30, (8, 3, 5), (16, 2, 14), (25, 4, 20), name="fast")
SAMPLES = [
    TWISTY,
    FAST,
    stage(12, (4, 1, 2), (8, 2, 5), name="tight"),
    stage(20, (10, 4, 3), name="long zone"),
    stage(15, (7, 2, 7), (7, 3, 5), name="same line"),
    stage(25, name="straight"),
]


# --------------------------------------------------------------------------- hand values


def test_one_space_straight_par() -> None:
    """Turn 1 in 1st: speed 2 (1/2) finishes in 10.0 s; speed 1 leaves one space, best then
    in 2nd: 10 + (5.0/4 + 3.3/2 + 2.5/4) = 13.525. Par = (10 + 13.525) / 2."""
    a = analyze_stage(stage(1))
    assert a.par_time == pytest.approx(11.7625, abs=1e-9)
    assert a.best_time == 10.0
    assert a.crash_probability == 0.0
    assert a.cautious_time == pytest.approx(11.7625, abs=1e-9)


def test_two_space_straight_par() -> None:
    a = analyze_stage(stage(2))
    assert a.par_time == pytest.approx(15.3125, abs=1e-9)
    assert a.best_time == 12.5  # speed 2, then 2nd gear speed 4 for the last space


def test_three_space_stage_with_a_first_gear_corner_by_hand() -> None:
    """L=3, corner after 1 in 1st gear, zone 1 (tenths of a second throughout).

    One space to go, last gear g: best E[time] is 75 (forced 1st), 35.25 (g=1: 2nd),
    18.75 (g=2: 3rd), 11.3125 (g=3: 4th), 7.5 (g>=4: 5th).
    Two spaces to go, last gear 1: 2nd gear gives 100/4 + 67/2 + 50/4 = 71.
    On the corner's `after` space (3 to go, last gear 1): planned N, 2nd gear crashes for sure,
    so 1st: (100 + 71)/2 + (100 + 35.25)/2 = 153.125. Planned D, 2nd is safe:
    (100 + 18.75)/4 + 100/2 + 75/4 = 98.4375, so D is planned.
    Start: (100 + 98.4375)/2 + (100 + 71)/2 = 184.71875 tenths.

    Distribution: 150 (1/8), 167 (1/4), 175 (1/8), 200 (3/8), 214 (1/64), 217 (3/64),
    220 (3/64), 225 (1/64)."""
    a = analyze_stage(stage(3, (1, 1, 1)))
    assert a.par_time == pytest.approx(18.471875, abs=1e-12)
    assert a.best_time == 15.0
    assert (a.p10, a.p50, a.p90) == (15.0, 17.5, 21.7)
    assert dict(a.distribution) == pytest.approx(
        {
            15.0: 1 / 8,
            16.7: 1 / 4,
            17.5: 1 / 8,
            20.0: 3 / 8,
            21.4: 1 / 64,
            21.7: 3 / 64,
            22.0: 3 / 64,
            22.5: 1 / 64,
        },
        abs=1e-15,
    )
    assert a.crash_probability == 0.0
    (corner,) = a.corners
    assert corner.drift_probability == 0.5  # planned whenever turn 1 ends on space 1
    assert corner.crash_probability == 0.0
    assert a.cautious_time == pytest.approx(a.par_time, abs=1e-12)
    assert a.policy.gear(State(1, 1, 0)) == 2
    assert a.policy.gear(State(1, 1, None)) == 1
    assert a.policy.plan(State(0), 1, 1) == 0  # plan D after rolling speed 1


# --------------------------------------------------------------------------- brute force


def brute_force(s: Stage) -> tuple[float, int]:
    """Independent recursive expectimax straight over the engine: (par tenths, best tenths)."""

    @cache
    def value(state: State) -> tuple[float, float]:
        if rules.finished(s, state):
            return 0.0, 0.0
        par = best = math.inf
        for gear in rules.legal_gears(state):
            e = 0.0
            for speed, p in rules.chance_outcomes(s, state, gear):
                res = rules.apply_move(s, state, gear, speed)
                nexts = [
                    value(rules.next_state(s, state, res, d))
                    for d in rules.plan_options(s, state, res).drift_choices
                ]
                e += p * (res.tenths + min(v[0] for v in nexts))
                best = min(best, res.tenths + min(v[1] for v in nexts))
            par = min(par, e)
        return par, best

    par, best = value(rules.initial_state(s))
    return par, int(best)


@st.composite
def small_stages(draw: st.DrawFn) -> Stage:
    length = draw(st.integers(2, 14))
    corners = []
    for _ in range(draw(st.integers(0, 3))):
        after = draw(st.integers(1, length - 1))
        zone = draw(st.integers(max(1, after - 4), after))
        corners.append((after, draw(st.integers(1, 5)), zone))
    return stage(length, *corners)


@settings(max_examples=40, deadline=None)
@given(small_stages())
def test_solver_matches_brute_force(s: Stage) -> None:
    par, best = brute_force(s)
    a = analyze_stage(s)
    assert a.par_time == pytest.approx(par / 10, abs=1e-9)
    assert a.best_time == best / 10


@pytest.mark.parametrize("s", SAMPLES, ids=lambda s: s.name)
def test_solver_matches_brute_force_on_samples(s: Stage) -> None:
    par, best = brute_force(s)
    a = analyze_stage(s)
    assert a.par_time == pytest.approx(par / 10, abs=1e-9)
    assert a.best_time == best / 10


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("s", SAMPLES, ids=lambda s: s.name)
def test_orderings_and_consistency(s: Stage) -> None:
    a = analyze_stage(s)
    assert a.best_time <= a.p10 <= a.p50 <= a.p90
    assert a.best_time <= a.par_time <= a.cautious_time + 1e-12
    assert math.fsum(p for _, p in a.distribution) == pytest.approx(1.0, abs=1e-12)
    # the forward pass and the backward induction agree on the mean
    assert math.fsum(t * p for t, p in a.distribution) == pytest.approx(a.par_time, abs=1e-9)
    assert evaluate_policy(a.policy).expected_tenths == pytest.approx(10 * a.par_time, abs=1e-8)
    # P(at least one crash) lies between the worst corner and the sum over corners
    per_corner = [c.crash_probability for c in a.corners]
    assert max(per_corner, default=0.0) <= a.crash_probability + 1e-12
    assert a.crash_probability <= math.fsum(per_corner) + 1e-12
    assert all(0.0 <= c.drift_probability <= 1.0 for c in a.corners)


@pytest.mark.parametrize("s", SAMPLES, ids=lambda s: s.name)
def test_cautious_policy_never_crashes(s: Stage) -> None:
    a = analyze_stage(s)
    ev = evaluate_policy(a.cautious_policy)
    assert ev.crash_probability == 0.0
    assert all(p == 0.0 for p in ev.corner_crash)
    assert ev.expected_tenths == pytest.approx(10 * a.cautious_time, abs=1e-8)


def test_caution_costs_time_where_a_corner_bites() -> None:
    a = analyze_stage(TWISTY)
    assert a.crash_probability > 0.05
    assert a.cautious_time > a.par_time + 5
    assert a.killer_corner is not None and a.killer_corner.after == 22


@pytest.mark.parametrize(
    ("base", "extra"),
    [
        (stage(20), (10, 2, 6)),
        (stage(20, (10, 2, 6)), (14, 1, 12)),
        (TWISTY, (27, 2, 24)),
        (FAST, (3, 1, 1)),
        (FAST, (16, 3, 10)),  # a second corner on an existing line, with a longer zone
        (stage(12, (4, 1, 2), (8, 2, 5)), (6, 3, 5)),  # zone overlapping others: eats the one D
    ],
)
def test_adding_a_corner_never_helps(base: Stage, extra: tuple[int, int, int]) -> None:
    after, gear, zone = extra
    more = Stage(
        base.name, base.surface, base.length, (*base.corners, Corner(after, gear, zone, Turn.LEFT))
    )
    a, b = analyze_stage(base), analyze_stage(more)
    assert b.par_time >= a.par_time - 1e-12
    assert b.best_time >= a.best_time
    assert b.cautious_time >= a.cautious_time - 1e-12


def test_results_do_not_depend_on_corner_listing_order() -> None:
    a = analyze_stage(TWISTY)
    b = analyze_stage(Stage(TWISTY.name, TWISTY.surface, TWISTY.length, TWISTY.corners[::-1]))
    assert b.par_time == pytest.approx(a.par_time, abs=1e-12)
    assert (b.p10, b.p50, b.p90, b.best_time) == (a.p10, a.p50, a.p90, a.best_time)
    assert [c.drift_probability for c in b.corners[::-1]] == pytest.approx(
        [c.drift_probability for c in a.corners], abs=1e-12
    )


def test_analysis_is_deterministic() -> None:
    assert analyze_stage(FAST) == analyze_stage(FAST)


# --------------------------------------------------------------------------- output


def test_json_shape_and_rounding() -> None:
    race = Race("Test Rally", (stage(1, name="s1"), TWISTY))
    data = analysis_to_json(analyze_race(race))
    assert json.loads(json.dumps(data)) == data
    assert set(data) == {"race", "stages"}
    assert data["race"] == "Test Rally"
    s1, s2 = data["stages"]
    assert set(s1) == {
        "name",
        "par_time",
        "best_time",
        "crash_probability",
        "percentiles",
        "cautious_time",
        "corners",
    }
    assert s1["name"] == "s1"
    assert s1["par_time"] == 11.7625
    assert s1["percentiles"] == {"p10": 10.0, "p50": 10.0, "p90": 15.0}
    assert s1["corners"] == []
    assert [c["after"] for c in s2["corners"]] == [6, 12, 14, 22]
    corner = s2["corners"][0]
    assert set(corner) == {
        "after",
        "gear",
        "zone",
        "turn",
        "crash_probability",
        "drift_probability",
    }
    assert corner["turn"] == "right"
    for value in (s2["par_time"], s2["cautious_time"], s2["crash_probability"]):
        assert value == round(value, 4)


def test_text_report_names_every_stage_and_the_biting_corner() -> None:
    race = Race("Test Rally", (stage(1, name="s1"), TWISTY))
    text = format_analysis_text(analyze_race(race))
    assert "Test Rally" in text
    summary = text.splitlines()[2:6]
    assert summary[0].split()[:4] == ["Stage", "Spaces", "Corners", "Par"]
    assert summary[2].split()[:4] == ["s1", "1", "0", "11.8"]
    assert "after 22 (gear 1" in summary[3]
    assert "\ntwisty: par" in text


# --------------------------------------------------------------------------- simulation


def test_simulation_is_deterministic_per_seed() -> None:
    race = Race("Test Rally", (TWISTY, FAST))
    analysis = analyze_race(race)
    a = format_race_run(simulate_race(race, 42, analysis=analysis))
    b = format_race_run(simulate_race(race, 42, analysis=analysis))
    c = format_race_run(simulate_race(race, 43, analysis=analysis))
    assert a == b
    assert a != c
    assert a[0] == "race 'Test Rally', seed 42, optimal policy"
    assert a[-1].startswith("race time: ")
    assert format_race_run(simulate_race(race, 42)) == a  # solving again changes nothing


def test_simulated_times_add_up() -> None:
    race = Race("Test Rally", (TWISTY, FAST))
    run = simulate_race(race, 5, "cautious")
    for s in run.stages:
        assert s.crashes == 0
        assert s.tenths == sum(t.tenths for t in s.turns)
        last = s.turns[-1]
        assert last.finished and last.end == s.length + 1
        # turns are numbered like the sheet: a crash uses two numbers
        assert [t.turn for t in s.turns] == list(range(1, len(s.turns) + 1))
    assert run.tenths == sum(s.tenths for s in run.stages)


def test_simulation_rejects_unknown_policy() -> None:
    with pytest.raises(ValueError, match="unknown policy: 'reckless'"):
        simulate_race(Race("r", (stage(3),)), 1, "reckless")  # type: ignore[arg-type]


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_monte_carlo_agrees_with_exact_values() -> None:
    """20000 seeded plays of a stage whose corners bite: mean time and crash rate within
    4 standard errors of the solver's exact figures."""
    a = analyze_stage(TWISTY)
    rng = random.Random(20240601)
    n = 20000
    times = []
    crashed = 0
    for _ in range(n):
        run = play_stage(TWISTY, a.policy, rng)
        times.append(run.tenths / 10)
        crashed += run.crashes > 0
    mean = math.fsum(times) / n
    sd = math.sqrt(math.fsum((t - mean) ** 2 for t in times) / (n - 1))
    assert abs(mean - a.par_time) < 4 * sd / math.sqrt(n)
    p = a.crash_probability
    assert 0.05 < p < 0.95
    assert abs(crashed / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_race_analysis_adds_stage_pars() -> None:
    ra: RaceAnalysis = analyze_race(Race("r", (stage(1), stage(2))))
    assert ra.par_time == pytest.approx(11.7625 + 15.3125, abs=1e-9)
