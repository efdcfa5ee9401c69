"""Rallytaire advanced game: exact dice for every tyre/surface rule, the engine's options,
boxes and fix-points, the whole-race solver against its forward pass (against the engine walk:
tests/test_oracle.py) and against the basic solver, and a seeded Monte Carlo cross-check on every bundled race."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from fractions import Fraction
from functools import cache
from math import comb
from pathlib import Path

import numpy as np
import pytest

from conftest import RALLYTAIRE_SPECS
from sheetgen import dice, registry
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced
from sheetgen.games.rallytaire.forward_advanced import (
    TimeDistribution,
    race_time_distribution,
    race_time_distribution_by_cores,
    race_time_percentiles,
)
from sheetgen.games.rallytaire.model import BASE_SPEED, Boxes, Corner, Race, Stage, Surface, Turn
from sheetgen.games.rallytaire.oracle import ADVANCED_RACES
from sheetgen.games.rallytaire.report import advanced_analysis_to_json, format_advanced_run, format_advanced_text
from sheetgen.games.rallytaire.rules import RulesError, State
from sheetgen.games.rallytaire.rules_advanced import Action, AdvancedState, Fix, Option, Roll
from sheetgen.games.rallytaire.simulate import play_race_advanced, simulate_race_advanced
from sheetgen.games.rallytaire.solve import analyze_race
from sheetgen.games.rallytaire.solve_advanced import DnfRule, _Grid, solve_race

A, G, S = Surface.ASPHALT, Surface.GRAVEL, Surface.SNOW
HALF = Fraction(1, 2)


def stage(surface: Surface, length: int, *corners: tuple[int, int, int], name: str = "s",
          service_park: bool = False) -> Stage:
    """Stage fixture from (after, gear, zone) triples."""
    return Stage(
        name=name,
        surface=surface,
        length=length,
        corners=tuple(Corner(after=a, gear=g, zone=z, turn=Turn.LEFT) for a, g, z in corners),
        service_park=service_park,
    )


def state(position: int = 3, last: int | None = 3, tyres: Surface = A, left: Boxes = Boxes(),
          pending: int | None = None, locked: bool = False) -> AdvancedState:
    return AdvancedState(State(position, last, pending), tyres, left, locked)


@cache
def bundled(path: str) -> Race:
    return registry.load_spec(path).model


@cache
def bundled_analysis(path: str):
    return analyze_race_advanced(bundled(path))


SPEC_IDS = [p.stem for p in RALLYTAIRE_SPECS]
SPEC_PATHS = [str(p) for p in RALLYTAIRE_SPECS]


# --------------------------------------------------------------------------- dice by hand


def dist(n: int, tyres: Surface, surface: Surface) -> dict[tuple[int, bool], Fraction]:
    return dict(adv.roll_distribution(n, adv.tyre_rule(tyres, surface)))


@pytest.mark.parametrize("surface", list(Surface))
@pytest.mark.parametrize("n", range(0, 7))
def test_matching_tyres_are_the_basic_binomial(surface: Surface, n: int) -> None:
    expected = {(k, False): Fraction(comb(n, k), 2**n) for k in range(n + 1)}
    assert dist(n, surface, surface) == expected


@pytest.mark.parametrize("n", range(0, 7))
def test_asphalt_tyres_on_gravel_need_5_or_6(n: int) -> None:
    third = Fraction(1, 3)
    expected = {(k, False): comb(n, k) * third**k * (1 - third) ** (n - k) for k in range(n + 1)}
    assert dist(n, A, G) == expected
    assert dist(1, A, G) == {(0, False): Fraction(2, 3), (1, False): Fraction(1, 3)}


def test_snow_tyres_on_gravel_ones_cancel_two_dice_by_hand() -> None:
    """Two dice, 36 ordered rolls. Net 2: both 4-6 (9). Net 1: one 4-6 and the other 2 or 3
    (2 * 3 * 2 = 12). Net 0: the other 15 (no high die: 9; a high die and a 1: 6)."""
    assert dist(2, S, G) == {(0, False): Fraction(15, 36), (1, False): Fraction(12, 36),
                             (2, False): Fraction(9, 36)}
    # one die cannot cancel itself: the same as the basic game
    assert dist(1, S, G) == {(0, False): HALF, (1, False): HALF}


def test_snow_tyres_on_gravel_three_dice_by_hand() -> None:
    """Three dice: net 3 = all high (27/216); net 0 includes e.g. (1, 1, 4) and (1, 5, 2)."""
    d = dist(3, S, G)
    assert d[(3, False)] == Fraction(27, 216)
    # net 2: two high and one of {2, 3}: 3 * 9 * 2 = 54
    assert d[(2, False)] == Fraction(54, 216)
    # net 1: one high and two of {2, 3} (3 * 3 * 4 = 36), or two high and a 1 (3 * 9 = 27)
    assert d[(1, False)] == Fraction(63, 216)
    assert sum(d.values()) == 1


@pytest.mark.parametrize("gear", range(1, 6))
def test_gravel_tyres_on_asphalt_roll_one_die_less(gear: int) -> None:
    s = stage(A, 40)
    st = state(3, gear, tyres=G)
    out = adv.chance_outcomes(s, st, Action(gear))
    n = gear - 1
    assert [r.speed for r, _ in out] == [BASE_SPEED[gear] + k for k in range(n + 1)]
    assert [p for _, p in out] == [comb(n, k) / 2**n for k in range(n + 1)]
    assert adv.dice_count(s, G, Action(gear)) == n
    assert adv.dice_count(s, G, Action(gear, Option.PUSH)) == gear


def test_gravel_tyres_on_asphalt_in_first_gear_roll_no_die() -> None:
    s = stage(A, 40)
    assert adv.chance_outcomes(s, state(0, None, tyres=G), Action(1)) == ((Roll(1, False), 1.0),)
    # no die to brake away (ruling 2), but push gives one back
    acts = adv.legal_actions(s, state(0, None, tyres=G))
    assert Action(1, Option.BRAKE) not in acts
    assert Action(1, Option.PUSH) in acts


def test_snow_tyres_on_asphalt_one_die_less_and_ones_cancel() -> None:
    s = stage(A, 40)
    out = dict(adv.chance_outcomes_exact(s, state(3, 3, tyres=S), Action(3)))
    # 3rd gear rolls 2 dice, with 1s cancelling: the two-dice table above, on base speed 4
    assert out == {Roll(4, False): Fraction(15, 36), Roll(5, False): Fraction(12, 36),
                   Roll(6, False): Fraction(9, 36)}


def kind_probability(n: int) -> Fraction:
    """P(at least three of n d6 show the same face), by inclusion-exclusion over faces."""
    one = sum(comb(n, k) * 5 ** (n - k) for k in range(3, n + 1))  # a given face >= 3 times
    two = comb(n, 3) if n == 6 else 0  # two given faces 3 times each (only n = 6 fits)
    return Fraction(6 * one - comb(6, 2) * two, 6**n)


def test_three_of_a_kind_by_hand() -> None:
    assert kind_probability(3) == Fraction(6, 216)
    assert kind_probability(4) == Fraction(6 * 21, 1296) == Fraction(7, 72)
    assert kind_probability(5) == Fraction(6 * 276, 7776) == Fraction(23, 108)
    assert kind_probability(6) == Fraction(6 * 2906 - 15 * 20, 46656)
    for n in range(0, 7):
        d = dict(dice.outcome_distribution(n, dice.of_a_kind(3)))
        assert d.get(True, Fraction(0)) == (kind_probability(n) if n >= 3 else 0)


@pytest.mark.parametrize("n", range(0, 7))
def test_gravel_tyres_on_snow_lock_on_three_of_a_kind(n: int) -> None:
    d = dist(n, G, S)
    assert sum(p for (_, locks), p in d.items() if locks) == (kind_probability(n) if n >= 3 else 0)
    # successes are still the basic 4-6 count
    for k in range(n + 1):
        assert d.get((k, False), 0) + d.get((k, True), 0) == Fraction(comb(n, k), 2**n)


def test_three_of_a_kind_with_successes_by_hand() -> None:
    """Three dice, three of a kind: three 1s, 2s or 3s (no success) or three 4s, 5s or 6s."""
    d = dist(3, G, S)
    assert d[(0, True)] == Fraction(3, 216) and d[(3, True)] == Fraction(3, 216)
    assert (1, True) not in d and (2, True) not in d
    # asphalt tyres on snow: 5-6 needed and the lock: three 5s or 6s succeed, 1s-4s do not
    d = dist(3, A, S)
    assert d[(3, True)] == Fraction(2, 216) and d[(0, True)] == Fraction(4, 216)
    assert d[(3, False)] + d[(3, True)] == Fraction(1, 27)


def test_tyre_rules_are_the_rulebooks_list() -> None:
    assert len(adv.TYRE_RULES) == 9
    basic = [k for k, r in adv.TYRE_RULES.items() if r.is_basic]
    assert sorted(basic) == sorted((s, s) for s in Surface)
    assert adv.tyre_rule(A, G).success_faces == frozenset({5, 6})
    assert adv.tyre_rule(G, S).three_locks and not adv.tyre_rule(G, S).die_less
    assert adv.tyre_rule(A, S).three_locks and adv.tyre_rule(A, S).success_faces == {5, 6}
    assert adv.tyre_rule(S, G).ones_cancel and not adv.tyre_rule(S, G).die_less
    assert adv.tyre_rule(G, A).die_less and not adv.tyre_rule(G, A).ones_cancel
    assert adv.tyre_rule(S, A).die_less and adv.tyre_rule(S, A).ones_cancel


def test_faces_drawn_for_an_outcome_show_that_outcome() -> None:
    rng = random.Random(5)
    rule = adv.tyre_rule(S, G)
    fn = adv.roll_outcome(rule)
    for n in range(0, 6):
        for key, _ in adv.roll_distribution(n, rule):
            faces = dice.faces_from_counts(rng, dice.conditional_face_counts(n, fn, key))
            counts = tuple(faces.count(f) for f in range(1, 7))
            assert len(faces) == n and fn(counts) == key


# --------------------------------------------------------------------------- engine


def test_basic_game_is_the_special_case() -> None:
    s = stage(G, 30, (6, 2, 3), (12, 3, 9))
    for last in (None, 1, 2, 3, 4, 5):
        st = state(4, last, tyres=G, left=Boxes(0, 0, 0, 3))
        base = st.base
        assert adv.legal_gears(st) == rules.legal_gears(base)
        assert [a.gear for a in adv.legal_actions(s, st)] == list(rules.legal_gears(base))
        for gear in rules.legal_gears(base):
            out = adv.chance_outcomes(s, st, Action(gear))
            assert [(r.speed, p) for r, p in out] == list(rules.chance_outcomes(s, base, gear))
            for roll, _ in out:
                mv = adv.apply_move(s, st, Action(gear), roll)
                assert mv.move == rules.apply_move(s, base, gear, roll.speed)
                assert mv.tenths == mv.move.tenths and not mv.locks
                assert mv.checked == Boxes(0, 0, 0, int(mv.move.crash is not None))


def test_push_adds_a_die_keeps_base_speed_and_checks_an_engine_box() -> None:
    s = stage(A, 40)
    st = state(3, 3)
    out = adv.chance_outcomes(s, st, Action(3, Option.PUSH))
    assert [r.speed for r, _ in out] == [4, 5, 6, 7, 8]  # base 4, four dice
    mv = adv.apply_move(s, st, Action(3, Option.PUSH), Roll(8, False))
    assert mv.dice == 4 and mv.checked == Boxes(1, 0, 0, 0)
    assert adv.next_state(s, st, mv).left == Boxes(2, 3, 3, 3)
    # 5th gear pushed: six dice, speed up to 17 (RULINGS: the time table runs to 17)
    top = adv.chance_outcomes(s, state(3, 5), Action(5, Option.PUSH))
    assert top[-1] == (Roll(17, False), 1 / 64)


def test_brake_removes_a_die_never_below_zero() -> None:
    s = stage(A, 40)
    out = adv.chance_outcomes(s, state(3, 2), Action(1, Option.BRAKE))
    assert out == ((Roll(1, False), 1.0),)  # 1st gear braked: no die, base speed
    mv = adv.apply_move(s, state(3, 2), Action(1, Option.BRAKE), Roll(1, False))
    assert mv.checked == Boxes(0, 1, 0, 0)


def test_options_need_an_unchecked_box_and_are_never_combined() -> None:
    s = stage(A, 40)
    acts = adv.legal_actions(s, state(5, 4))
    assert Action(3, Option.PUSH) in acts and Action(3, Option.BRAKE) in acts
    assert Action(2, skip=True) in acts and Action(2, Option.PUSH, skip=True) in acts
    assert all(isinstance(a.option, (Option, type(None))) for a in acts)
    none_left = state(5, 4, left=Boxes(0, 0, 0, 3))
    assert adv.legal_actions(s, none_left) == (Action(3), Action(4), Action(5))
    with pytest.raises(RulesError, match="is not legal"):
        adv.chance_outcomes(s, none_left, Action(4, Option.PUSH))


def test_skip_shifts_down_two_never_up() -> None:
    s = stage(A, 40)
    assert adv.legal_gears(state(5, 5)) == (3, 4, 5)
    assert adv.legal_gears(state(5, 3)) == (1, 2, 3, 4)
    assert adv.legal_gears(state(5, 2)) == (1, 2, 3)  # no gear 0
    assert adv.legal_gears(state(5, 5, left=Boxes(3, 3, 0, 3))) == (4, 5)
    mv = adv.apply_move(s, state(5, 5), Action(3, skip=True), Roll(5, False))
    assert mv.checked == Boxes(0, 0, 1, 0)
    assert adv.next_state(s, state(5, 5), mv).last_gear == 3


def test_forced_first_gear_allows_push_and_brake_but_no_skip() -> None:
    s = stage(A, 40)
    acts = adv.legal_actions(s, adv.initial_state(s, A, Boxes()))
    assert acts == (Action(1), Action(1, Option.BRAKE), Action(1, Option.PUSH))


def test_three_of_a_kind_locks_the_next_gear_only() -> None:
    s = stage(S, 40, (30, 2, 25))
    st = state(3, 3, tyres=G)
    mv = adv.apply_move(s, st, Action(3), Roll(4, True))
    assert mv.locks
    nxt = adv.next_state(s, st, mv)
    assert nxt.locked and adv.legal_gears(nxt) == (3,)
    acts = adv.legal_actions(s, nxt)
    assert {a.gear for a in acts} == {3} and not any(a.skip for a in acts)
    assert Action(3, Option.PUSH) in acts and Action(3, Option.BRAKE) in acts
    mv2 = adv.apply_move(s, nxt, Action(3), Roll(5, False))
    assert not adv.next_state(s, nxt, mv2).locked  # one turn only
    # matching tyres: three of a kind means nothing
    assert all(not r.locks for r, _ in adv.chance_outcomes(s, state(3, 3, tyres=S), Action(3)))


def test_a_crash_clears_the_lock_and_a_finish_does_not_carry_it() -> None:
    s = stage(S, 20, (6, 1, 4))
    st = state(4, 3, tyres=A)
    mv = adv.apply_move(s, st, Action(3), Roll(4, True))  # 4 -> 8 over a 1st-gear corner
    assert mv.move.crash == 0 and not mv.locks
    nxt = adv.next_state(s, st, mv)
    assert not nxt.locked and nxt.last_gear is None
    fin = adv.apply_move(s, state(18, 3, tyres=A), Action(3), Roll(4, True))
    assert fin.finished and not fin.locks


def test_the_crash_that_checks_the_last_car_box_is_out() -> None:
    """car: 3 -> the third crash of the race (boxes not repaired) puts the car out."""
    s = stage(A, 20, (6, 1, 4))
    left = Boxes(3, 3, 3, 3)
    for crash in (1, 2, 3):
        st = state(4, 3, left=left)
        mv = adv.apply_move(s, st, Action(3), Roll(4, False))
        assert mv.move.crash == 0 and mv.checked.car == 1
        after = adv.next_state(s, st, mv)
        assert after.left.car == 3 - crash
        if crash < 3:
            assert not mv.out and mv.tenths == 200 and mv.turns == 2
        else:
            assert mv.out and after.out and mv.tenths == 100 and mv.turns == 1
            assert adv.plan_options(s, st, mv).entered == ()
            with pytest.raises(RulesError, match="out of the race"):
                adv.legal_actions(s, after)
        left = after.left


def test_fix_points_and_their_uses() -> None:
    race = Race("r", (stage(A, 10, service_park=True), stage(G, 10), stage(S, 10)))
    assert adv.fix_points(race.stages[0]) == 4 and adv.fix_points(race.stages[1]) == 2
    left = Boxes(2, 3, 1, 1)  # 1 engine, 2 gearbox, 2 car checked
    fixes = adv.fix_options(race, left, A, 2)
    assert fixes[0] == Fix(car=2)  # points are free: the most boxes first, car first
    assert Fix(engine=1, tyres=G) in fixes and Fix(brakes=1) not in fixes
    assert Fix(engine=2) not in fixes  # only one engine box is checked
    assert all(f.points <= 2 for f in fixes) and len(set(fixes)) == len(fixes)
    assert adv.apply_fix(race, left, A, Fix(car=1, tyres=S), 2) == (Boxes(2, 3, 1, 2), S)
    with pytest.raises(RulesError, match="not a legal use of 2 fix-points"):
        adv.apply_fix(race, left, A, Fix(car=2, tyres=S), 2)
    only = Race("r", race.stages, tyres=(A, G))
    assert Fix(tyres=S) not in adv.fix_options(only, left, A, 2)
    with pytest.raises(RulesError, match="not allowed in this race"):
        adv.race_start(only, S)


def test_solver_fix_legality_is_the_engines() -> None:
    race = Race("r", (stage(A, 10, service_park=True), stage(G, 10)), Boxes(2, 1, 2, 3))
    grid = _Grid(race.boxes)
    shapes = adv.fix_options(race, Boxes(0, 0, 0, 0), A, 4)
    for r in range(grid.size):
        left = grid.left(r)
        legal = set(adv.fix_options(race, left, A, 4))
        fits = {
            f for f in shapes
            if all(getattr(left, k) + getattr(f, k) <= getattr(race.boxes, k)
                   for k in adv.BOX_KINDS)
        }
        assert legal == fits


# --------------------------------------------------------------------------- the whole race


#: the small races of the oracle (`rallytaire.oracle`), on which tests/test_oracle.py checks
#: the solver against the engine walk: every start tyre and the race par, three DNF rules
SMALL_RACES = list(ADVANCED_RACES)


def test_the_small_races_are_the_oracles() -> None:
    assert [r.name for r in SMALL_RACES] == ["mixed", "service", "one car box", "three"]
    assert SMALL_RACES[2].tyres == (A, G) and SMALL_RACES[1].stages[0].service_park


@pytest.mark.parametrize("race", SMALL_RACES, ids=lambda r: r.name)
@pytest.mark.parametrize("dnf", [DnfRule(60.0, 5.0), DnfRule(0.0, 0.0), DnfRule(20.0, 1.0)],
                         ids=["dnf60+5", "dnf0", "dnf20+1"])
def test_the_race_par_is_the_best_tyres_and_the_forward_pass_gives_it_back(race: Race, dnf: DnfRule) -> None:
    policy = solve_race(race, dnf)
    a = analyze_race_advanced(race, dnf.penalty, dnf.space_seconds)
    best = min(policy.expected_seconds(0, race.boxes, t) for t in race.tyres)
    assert a.race_par_time == pytest.approx(best, abs=1e-10)
    # the forward pass and the backward induction agree
    assert math.fsum(s.par_time for s in a.stages) == pytest.approx(a.race_par_time, abs=1e-9)


def test_a_free_dnf_is_taken_and_a_dear_one_avoided() -> None:
    race = SMALL_RACES[3]
    assert analyze_race_advanced(race, 0.0, 0.0).dnf_probability == pytest.approx(1.0)
    assert analyze_race_advanced(race, 600.0, 10.0).dnf_probability == 0.0


# --------------------------------------------------------------------------- against basic


#: a solve of 2 s a race: thousand_lakes in the default suite, the others in slow runs
ONE_RACE_QUICK = [p if Path(p).stem == "thousand_lakes" else pytest.param(p, marks=pytest.mark.slow) for p in SPEC_PATHS]


@pytest.mark.parametrize("path", ONE_RACE_QUICK, ids=SPEC_IDS)
def test_no_options_and_matching_tyres_give_the_basic_par(path: str) -> None:
    """No engine, brakes or gearbox boxes, 9 car boxes (going out is all but impossible), and
    tyres the policy can match to every surface (changing them costs one of the free
    fix-points): every stage's advanced par is its basic par."""
    race = bundled(path)
    plain = replace(race, boxes=Boxes(0, 0, 0, 9))
    a = analyze_race_advanced(plain)
    b = analyze_race(race)
    assert a.dnf_probability < 1e-9
    for sa, sb, st in zip(a.stages, b.stages, race.stages, strict=True):
        assert sa.par_time == pytest.approx(sb.par_time, abs=0.01)
        assert sa.tyres == ((st.surface, pytest.approx(1.0)),)
        assert sa.options.push == sa.options.brake == sa.options.skip == 0
    assert a.race_par_time == pytest.approx(b.par_time, abs=0.01)


def test_one_tyre_one_surface_gives_the_basic_par_exactly() -> None:
    s1 = stage(G, 30, (6, 2, 3), (12, 3, 9), (14, 2, 12), (22, 1, 20), name="twisty")
    s2 = stage(G, 30, (8, 3, 5), (16, 2, 14), (25, 4, 20), name="fast")
    race = Race("r", (s1, s2), Boxes(0, 0, 0, 9), (G,))
    a = analyze_race_advanced(race)
    for sa, sb in zip(a.stages, analyze_race(race).stages, strict=True):
        assert sa.par_time == pytest.approx(sb.par_time, abs=0.01)


MONO_BASE = Race(
    "mono",
    (stage(G, 30, (6, 2, 3), (12, 3, 9), (14, 2, 12), (22, 1, 20), name="twisty"),
     stage(A, 25, (8, 3, 5), (16, 2, 14), name="fast")),
    Boxes(0, 0, 0, 2),
)


@pytest.mark.parametrize(
    "more", [Boxes(1, 0, 0, 2), Boxes(0, 1, 0, 2), Boxes(0, 0, 1, 2), Boxes(2, 0, 0, 2),
             Boxes(1, 1, 1, 2), Boxes(0, 0, 0, 3)], ids=str)
def test_more_boxes_never_make_it_worse(more: Boxes) -> None:
    fewer = analyze_race_advanced(MONO_BASE).race_par_time
    assert analyze_race_advanced(replace(MONO_BASE, boxes=more)).race_par_time <= fewer + 1e-9


def test_stage_value_is_monotone_in_every_box_kind() -> None:
    race = replace(MONO_BASE, boxes=Boxes(2, 2, 2, 2))
    policy = solve_race(race)
    for k in range(len(race.stages)):
        for t in race.tyres:
            v = policy.stages[k][t].start_value.reshape(policy.grid.shape)
            for axis in range(4):
                assert (np.diff(v, axis=axis) <= 1e-9).all()


@pytest.mark.slow  # (the advanced solver equals a brute force on small races in the default suite)
def test_bundled_races_with_default_boxes_beat_the_basic_game() -> None:
    for path in SPEC_PATHS:
        assert bundled_analysis(path).race_par_time < analyze_race(bundled(path)).par_time


# --------------------------------------------------------------------------- figures, output


@pytest.mark.parametrize("path", SPEC_PATHS, ids=SPEC_IDS)
def test_figures_are_probabilities_and_counts(path: str) -> None:
    a = bundled_analysis(path)
    assert 0.0 <= a.dnf_probability <= 1.0
    assert a.tyres in bundled(path).tyres
    assert math.fsum(s.par_time for s in a.stages) == pytest.approx(a.race_par_time, abs=1e-7)
    assert a.race_par_time == min(p for _, p in a.tyre_par_times)
    assert math.fsum(s.dnf_probability for s in a.stages) == pytest.approx(a.dnf_probability)
    for s in a.stages:
        assert 0.0 <= s.dnf_probability <= s.reach_probability <= 1.0 + 1e-12
        counts = (s.options.push, s.options.brake, s.options.skip, s.locks, s.expected_crashes)
        assert min(counts) >= 0
        assert math.fsum(p for _, p in s.tyres) == pytest.approx(1.0)
        for c in s.corners:
            assert 0.0 <= c.crash_probability <= 1.0 and 0.0 <= c.drift_probability <= 1.0 + 1e-12
        if s.fix is not None:
            f = s.fix
            assert f.points in (2, 4) and 0.0 < f.most_likely_probability <= 1.0 + 1e-12
            spent = f.expected_engine + f.expected_brakes + f.expected_gearbox + f.expected_car
            assert 0.0 <= spent + f.tyre_change_probability <= f.points + 1e-9
    assert a.stages[-1].fix is None


def test_analysis_is_deterministic() -> None:
    race = SMALL_RACES[1]
    a, b = analyze_race_advanced(race), analyze_race_advanced(race)
    assert a == b
    assert advanced_analysis_to_json(a) == advanced_analysis_to_json(b)
    assert format_advanced_text(a) == format_advanced_text(b)


def test_json_shape() -> None:
    path = SPEC_PATHS[0]
    data = advanced_analysis_to_json(bundled_analysis(path))
    assert json.loads(json.dumps(data)) == data
    assert {"race", "stages", "race_par_time", "dnf_probability", "tyres"} <= set(data)
    assert data["race"] == bundled(path).name
    assert data["tyres"] in {"asphalt", "gravel", "snow"}
    assert data["dnf_penalty"] == {"seconds": 600.0, "seconds_per_space_not_reached": 10.0}
    first, last = data["stages"][0], data["stages"][-1]
    assert {"name", "par_time", "dnf_probability", "options", "corners", "fix_points"} <= set(first)
    assert set(first["options"]) == {"push", "brake", "skip"}
    assert set(first["fix_points"]) >= {"points", "expected", "most_likely"}
    assert set(first["fix_points"]["most_likely"]) == {
        "engine", "brakes", "gearbox", "car", "tyres", "probability"}
    assert last["fix_points"] is None
    for value in (data["race_par_time"], first["par_time"], first["options"]["push"]):
        assert value == round(value, 4)


def test_text_report() -> None:
    path = SPEC_PATHS[0]
    text = format_advanced_text(bundled_analysis(path))
    assert bundled(path).name in text and "(advanced rules)" in text
    assert "Race par:" in text and "fix-points" in text
    for s in bundled(path).stages:
        assert f"\n{s.name}: par" in text


def test_dnf_rule_is_checked() -> None:
    with pytest.raises(ValueError, match="dnf penalty must be a finite number >= 0, got -1.0"):
        analyze_race_advanced(SMALL_RACES[0], dnf_penalty=-1.0)


# --------------------------------------------------------------------------- simulation


def test_simulation_is_deterministic_per_seed() -> None:
    path = SPEC_PATHS[0]
    race, a = bundled(path), bundled_analysis(path)
    one = format_advanced_run(simulate_race_advanced(race, 42, a))
    assert one == format_advanced_run(simulate_race_advanced(race, 42, a))
    assert one != format_advanced_run(simulate_race_advanced(race, 43, a))
    assert one[0] == f"race {race.name!r}, seed 42, advanced rules, tyres: {a.tyres.value}"
    assert one[-1].startswith("race time: ")
    assert any(line.startswith("fix-points after stage 1: ") for line in one)


def test_simulated_sheet_adds_up_and_shows_locks_and_boxes() -> None:
    # gravel tyres only, on snow: three-of-a-kind locks happen; boxes get checked
    race = Race("locks", (stage(S, 40, (10, 3, 6), (25, 2, 20)), stage(G, 30, (12, 2, 8))),
                Boxes(3, 3, 3, 3), (G,))
    a = analyze_race_advanced(race)
    assert a.stages[0].locks > 0
    seen_lock = seen_push = False
    for seed in range(40):
        run = simulate_race_advanced(race, seed, a)
        lines = format_advanced_run(run)
        for s in run.stages:
            assert s.tenths == sum(t.tenths for t in s.turns)
            assert [t.turn for t in s.turns][0] == 1
            for prev, t in zip(s.turns, s.turns[1:]):
                if prev.locks:
                    assert t.locked and t.action.gear == prev.action.gear and not t.action.skip
                    seen_lock = True
                assert t.left == Boxes(**{k: getattr(prev.left, k) - getattr(t.checked, k)
                                          for k in adv.BOX_KINDS})
            seen_push |= any(t.action.option is Option.PUSH for t in s.turns)
        if any(t.locks for s in run.stages for t in s.turns):
            assert any("three of a kind: gear locked next turn" in line for line in lines)
            assert any("(locked)" in line for line in lines)
    assert seen_lock and seen_push


def test_simulation_writes_down_a_dnf() -> None:
    race = SMALL_RACES[3]
    run = simulate_race_advanced(race, 1, dnf_penalty=0.0, dnf_space_seconds=0.0)
    assert run.out
    lines = format_advanced_run(run)
    assert any("OUT of the race (DNF)" in line for line in lines)
    assert lines[-1].startswith("race: OUT (DNF) on stage ")


def _mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, sd / math.sqrt(n)


@pytest.mark.slow  # 4-6 s a race; the default suite keeps the cross-check on the race below
@pytest.mark.parametrize("path", SPEC_PATHS, ids=SPEC_IDS)
def test_monte_carlo_agrees_with_the_exact_race_par(path: str) -> None:
    """3000 seeded races under the solved policy: mean race time (DNF charge included),
    stage times and per-stage push counts within 4 standard errors of the exact figures."""
    race, a = bundled(path), bundled_analysis(path)
    rng = random.Random(20240611)
    runs = [play_race_advanced(race, a.policy, rng) for _ in range(3000)]
    mean, se = _mean_se([r.race_tenths / 10 for r in runs])
    assert se > 0 and abs(mean - a.race_par_time) < 4 * se
    if a.dnf_probability == 0:
        assert not any(r.out for r in runs)
    for k, s in enumerate(a.stages):
        m, e = _mean_se([r.stages[k].tenths / 10 for r in runs])
        assert abs(m - s.par_time) < 4 * e
        pushes = [
            float(sum(t.action.option is Option.PUSH for t in r.stages[k].turns)) for r in runs
        ]
        m, e = _mean_se(pushes)
        assert abs(m - s.options.push) < 4 * e + 1e-12


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_monte_carlo_agrees_on_a_race_the_car_often_does_not_finish() -> None:
    race = Race(
        "risky",
        (stage(G, 30, (6, 2, 3), (12, 3, 9), (14, 2, 12), (22, 1, 20)),
         stage(S, 30, (8, 3, 5), (16, 2, 14), (25, 4, 20))),
        Boxes(1, 1, 1, 2),
        (G,),
    )
    a = analyze_race_advanced(race, dnf_penalty=30.0, dnf_space_seconds=1.0)
    p = a.dnf_probability
    assert 0.02 < p < 0.5
    rng = random.Random(7)
    n = 4000
    runs = [play_race_advanced(race, a.policy, rng) for _ in range(n)]
    mean, se = _mean_se([r.race_tenths / 10 for r in runs])
    assert abs(mean - a.race_par_time) < 4 * se
    assert abs(sum(r.out for r in runs) / n - p) < 4 * math.sqrt(p * (1 - p) / n)


# --------------------------------------------------------------------------- the race time distribution


@pytest.mark.parametrize("race", SMALL_RACES, ids=lambda r: r.name)
def test_race_time_distribution_is_the_policys_own(race: Race) -> None:
    """The distribution and the DNF chance come from the same solve: they add up to 1 with
    the DNF chance the analysis reports; without DNFs the mean is the race par; nothing is
    dropped on races this small beyond the stated tail."""
    for dnf in (DnfRule(60.0, 5.0), DnfRule(0.0, 0.0)):
        a = analyze_race_advanced(race, dnf.penalty, dnf.space_seconds)
        d = a.time_distribution
        finished = math.fsum(p for _t, p in d.times)
        assert finished + d.dnf + d.dropped == pytest.approx(1.0, abs=1e-12)
        assert d.dnf == pytest.approx(a.dnf_probability, abs=1e-12)
        assert d.dropped < 1e-9
        if a.dnf_probability == 0:
            assert math.fsum(t * p for t, p in d.times) / 10 == pytest.approx(a.race_par_time, abs=1e-6)
        assert [t for t, _p in d.times] == sorted(t for t, _p in d.times)
        values = [a.p10, a.p50, a.p90]
        known = [v for v in values if v is not None]
        assert known == sorted(known) and values[: len(known)] == known  # None only at the top


def _same_distribution(got: TimeDistribution, want: TimeDistribution) -> None:
    """`got` (by stages) is `want` (the reference, by cores): every tenth's chance within what
    either dropped (the reference drops entries below 1e-14 at every core, and with them more
    mass), the same chance of going out, the same percentiles at every level of the sheet."""
    slack = got.dropped + want.dropped + 1e-13
    g, w = dict(got.times), dict(want.times)
    assert max(abs(g.get(t, 0.0) - w.get(t, 0.0)) for t in set(g) | set(w)) <= slack
    assert got.dnf == pytest.approx(want.dnf, abs=1e-12)
    assert math.fsum(g.values()) + got.dnf + got.dropped == pytest.approx(1.0, abs=1e-12)
    for q in (0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99):
        assert got.percentile(q) == want.percentile(q), q


@pytest.mark.parametrize("race", SMALL_RACES, ids=lambda r: r.name)
@pytest.mark.parametrize("dnf", [DnfRule(60.0, 5.0), DnfRule(22.0, 0.0)], ids=["dnf60+5", "dnf22"])
def test_the_race_time_by_stages_is_the_reference_by_cores(race: Race, dnf: DnfRule) -> None:
    """The distribution worked out stage by stage (each stage driven once from every state it
    starts in, the stages put together by FFT) is the one pushed through every core with the
    time so far (the reference), on the oracle races, with cars going out (DnfRule(22, 0):
    the policy takes the risk) and without."""
    policy = solve_race(race, dnf)
    got = race_time_distribution(policy)
    _same_distribution(got, race_time_distribution_by_cores(policy))
    assert race_time_percentiles(policy) == tuple(got.percentile(q) for q in (0.10, 0.50, 0.90))
    assert race_time_percentiles(policy, (0.5,), full=got) == (got.percentile(0.5),)


@pytest.mark.parametrize("spec", RALLYTAIRE_SPECS, ids=lambda p: p.stem)
def test_the_bundled_races_time_by_stages_is_the_reference_by_cores(spec: Path) -> None:
    """The same on the bundled races (3-4 stages, three tyres, up to 150 start states a stage),
    whose p10/p50/p90 the golden references of `analyze` and the race sheets hold."""
    a = analyze_race_advanced(registry.load_spec(spec).model)
    got = a.time_distribution
    _same_distribution(got, race_time_distribution_by_cores(a.policy))
    assert got.dropped < 1e-9
    assert (a.p10, a.p50, a.p90) == tuple(got.percentile(q) for q in (0.10, 0.50, 0.90))


def test_the_stage_kernels_drive_each_start_apart() -> None:
    """The tagged pass of a stage from several start states at once gives, for each start,
    what a pass from that start alone gives: the same ways to finish with the same chances
    (a start's tag never leaks into another's), and the chances of each start add up to 1
    with its chance of going out."""
    from sheetgen.games.rallytaire.forward_advanced import _stage_kernels

    race = SMALL_RACES[2]  # one car box: a crash puts the car out
    policy = solve_race(race, DnfRule(22.0, 0.0))
    grid = policy.grid
    starts = np.array(sorted({grid.full, grid.full - 1, 0, grid.size // 2}), dtype=np.int64)
    t = policy.start_tyres
    tag, tenths, r_end, p, out = _stage_kernels(policy, 0, t, starts)
    assert out.max() > 0  # cars do go out here
    for i, b in enumerate(starts):
        one = _stage_kernels(policy, 0, t, np.array([b]))
        mine = tag == i
        assert sorted(zip(tenths[mine].tolist(), r_end[mine].tolist(), p[mine].tolist())) == sorted(
            zip(one[1].tolist(), one[2].tolist(), one[3].tolist())
        )
        assert out[i] == one[4][0]
        assert math.fsum(p[mine]) + out[i] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_race_time_percentiles_agree_with_a_monte_carlo_of_the_optimal_policy() -> None:
    """3000 seeded races under the optimal policy of a race where cars go out (a single
    Car box, so the first crash is out, and a DNF charge of only 22 s, so the policy takes
    the risk): the share of races finished within each exact percentile, and just below it,
    and the share of DNFs, lie within the 99% interval of the exact figures."""
    race = SMALL_RACES[2]
    a = analyze_race_advanced(race, 22.0, 0.0)
    assert a.p90 is not None
    d = a.time_distribution
    assert 0.05 < d.dnf < 0.95
    n = 3000
    runs = [simulate_race_advanced(race, seed, a) for seed in range(n)]
    out = sum(r.out for r in runs)
    times = sorted(r.tenths for r in runs if not r.out)

    def within(seen: float, p: float) -> bool:
        return abs(seen - p) <= 2.576 * math.sqrt(p * (1 - p) / n) + 1e-12

    assert within(out / n, d.dnf)
    cdf = []
    acc = 0.0
    for t, p in d.times:
        acc += p
        cdf.append((t, acc))
    for q in (0.10, 0.50, 0.90):
        v = d.percentile(q)
        if v is None:
            continue
        k = next(i for i, (t, _c) in enumerate(cdf) if t == round(v * 10))
        for t, c in cdf[max(0, k - 1) : k + 1]:  # at the percentile and the time below it
            assert within(sum(x <= t for x in times) / n, c), (q, t, c)


def _graph_fields(graph) -> tuple:
    """Everything of a stage graph that the solve and the forward passes read, as values:
    (its structure, the chances of its rows)."""
    tables = tuple(
        (key, table.gear, tuple((r.roll, r.kind, r.tenths, r.drifts, r.succ_keys, r.succ, r.crash, r.crash_at, r.out_tenths, r.locks) for r in table.rows))
        for key, table in graph.tables.items()
    )
    cores = tuple((c.key, c.actions) for c in graph.cores)
    structure = (graph.stage, cores, tuple(graph.index.items()), tables, tuple(graph.groups), tuple(graph.group_cores.items()))
    chances = tuple((table.probs.shape, table.probs.tobytes(), table.prob_lists) for table in graph.tables.values())
    return structure, chances


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_a_reweighted_stage_graph_is_the_graph_built_for_those_tyres() -> None:
    """The solver builds a stage's graph once and re-weights it for other tyres where the
    engine answers the same for them at every core (the same cores and rows, other chances).
    The result is, field by field and float by float, the graph built for those tyres; and it
    is offered exactly where that graph has the same structure (not, say, for gravel tyres on
    asphalt: a die less, so no brake in 1st gear)."""
    from sheetgen.games.rallytaire.solve_advanced import _build_stage_graph, _reweighted_graph

    seen = {"reweighted": 0, "built": 0}
    for path in RALLYTAIRE_SPECS[:3]:
        race = registry.load_spec(path).model
        for stage in race.stages:
            moves: dict = {}
            graphs = {t: _build_stage_graph(stage, t, race.boxes, moves) for t in (A, G, S)}
            for t, other in ((a, b) for a in (A, G, S) for b in (A, G, S) if a != b):
                got = _reweighted_graph(stage, t, race.boxes, graphs[other])
                same_structure = _graph_fields(graphs[t])[0] == _graph_fields(graphs[other])[0]
                assert (got is not None) == same_structure, (path.name, stage.name, t, other)
                if got is None:
                    seen["built"] += 1
                else:
                    seen["reweighted"] += 1
                    assert got.tyres == t
                    assert _graph_fields(got) == _graph_fields(graphs[t])
                    assert _graph_fields(got)[1] != _graph_fields(graphs[other])[1]  # other chances
    assert seen["reweighted"] > 0 and seen["built"] > 0, seen


@pytest.mark.parametrize("race", SMALL_RACES, ids=lambda r: r.name)
def test_the_pairs_of_start_states_numbered_by_sort_give_the_same_distribution(race, monkeypatch) -> None:
    """`_combine` numbers the (start, next start) pairs through a dense array, or through a
    sort when there could be too many pairs for one (many box states): the same numbering, so
    the same distribution to the bit."""
    import sheetgen.games.rallytaire.forward_advanced as fa

    policy = solve_race(race, DnfRule(22.0, 0.0))
    dense = race_time_distribution(policy)
    monkeypatch.setattr(fa, "_DENSE_CODES", 0)
    assert race_time_distribution(policy) == dense
