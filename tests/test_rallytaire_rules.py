"""Rallytaire basic-game engine: RULINGS.md "Rallytaire" pinned move by move."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest

from sheetgen import dice
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.model import BASE_SPEED, Corner, Stage, Surface, Turn
from sheetgen.games.rallytaire.rules import RulesError, State
from sheetgen.games.rallytaire.timetable import finish_tenths


def stage(length: int, *corners: tuple[int, int, int]) -> Stage:
    """Stage fixture from (after, gear, zone) triples."""
    return Stage(
        name="test",
        surface=Surface.ASPHALT,
        length=length,
        corners=tuple(Corner(after=a, gear=g, zone=z, turn=Turn.LEFT) for a, g, z in corners),
    )


# --------------------------------------------------------------------------- dice


@pytest.mark.parametrize("n", range(0, 7))
def test_successes_are_binomial_half(n: int) -> None:
    dist = dice.successes(n)
    assert dist == tuple((k, Fraction(comb(n, k), 2**n)) for k in range(n + 1))
    assert sum(p for _, p in dist) == 1


@pytest.mark.parametrize("n", range(0, 6))
def test_general_face_walk_agrees_with_binomial(n: int) -> None:
    assert dice.outcome_distribution(n, dice.count_faces(dice.HIGH_FACES)) == dice.successes(n)
    # "5-6 needed" (advanced game) is the same call with other faces: p = 1/3.
    five_six = frozenset({5, 6})
    assert dice.outcome_distribution(n, dice.count_faces(five_six)) == dice.successes(n, five_six)
    assert dice.successes(n, five_six) == dice.binomial(n, Fraction(1, 3))


def test_three_of_a_kind_fits_the_general_walk() -> None:
    # P(at least three of a kind among 3 d6) = 6/216.
    dist = dict(dice.outcome_distribution(3, lambda counts: max(counts) >= 3))
    assert dist[True] == Fraction(1, 36)


def test_faces_with_successes_match_the_count() -> None:
    rng = random.Random(3)
    for n in range(6):
        for k in range(n + 1):
            faces = dice.faces_with_successes(rng, n, k)
            assert len(faces) == n
            assert sum(f >= 4 for f in faces) == k
            assert all(1 <= f <= 6 for f in faces)
    with pytest.raises(ValueError, match=r"successes must be in 0\.\.2, got 3"):
        dice.faces_with_successes(rng, 2, 3)


def test_sample_is_deterministic_and_follows_the_distribution() -> None:
    dist = dice.to_float(dice.successes(2))
    a = [dice.sample(dist, random.Random(9)) for _ in range(3)]
    b = [dice.sample(dist, random.Random(9)) for _ in range(3)]
    assert a == b
    rng = random.Random(1)
    draws = [dice.sample(dist, rng) for _ in range(40000)]
    assert draws.count(1) / 40000 == pytest.approx(0.5, abs=0.01)


# --------------------------------------------------------------------------- gears, dice


def test_start_is_forced_first_gear() -> None:
    s = stage(5)
    start = rules.initial_state(s)
    assert start == State(position=0, last_gear=None, pending_drift=None)
    assert rules.legal_gears(start) == (1,)


@pytest.mark.parametrize(
    ("last", "legal"),
    [(1, (1, 2)), (2, (1, 2, 3)), (3, (2, 3, 4)), (4, (3, 4, 5)), (5, (4, 5))],
)
def test_shift_one_gear_at_most(last: int, legal: tuple[int, ...]) -> None:
    assert rules.legal_gears(State(3, last)) == legal


@pytest.mark.parametrize("gear", range(1, 6))
def test_chance_outcomes_are_exact_binomial_speeds(gear: int) -> None:
    s = stage(40)
    out = rules.chance_outcomes(s, State(3, gear), gear)
    assert [v for v, _ in out] == [BASE_SPEED[gear] + k for k in range(gear + 1)]
    assert [p for _, p in out] == [comb(gear, k) / 2**gear for k in range(gear + 1)]
    assert sum(p for _, p in out) == 1.0


def test_illegal_gear_and_speed_are_refused() -> None:
    s = stage(10)
    with pytest.raises(RulesError, match="gear 3 is not legal after last gear 1"):
        rules.apply_move(s, State(2, 1), 3, 4)
    with pytest.raises(RulesError, match="speed 9 is impossible in gear 2"):
        rules.apply_move(s, State(2, 1), 2, 9)
    with pytest.raises(RulesError, match="gear 2 is not legal after last gear None"):
        rules.chance_outcomes(s, State(0), 2)


def test_stage_the_rules_cannot_play_is_refused() -> None:
    with pytest.raises(RulesError, match=r"corner 0 \(after 5\): gear must be in 1..5, got 0"):
        rules.initial_state(stage(10, (5, 0, 3)))
    with pytest.raises(RulesError, match=r"after must be in 1..9"):
        rules.initial_state(stage(10, (10, 2, 3)))
    with pytest.raises(RulesError, match=r"zone must be in 1..5, got 6"):
        rules.initial_state(stage(10, (5, 2, 6)))


# --------------------------------------------------------------------------- moving, corners


def test_plain_move_costs_one_turn() -> None:
    s = stage(10)
    res = rules.apply_move(s, State(2, 2), 3, 5)
    assert (res.position, res.moved, res.tenths, res.turns, res.finished) == (7, 5, 100, 1, False)
    assert rules.next_state(s, State(2, 2), res) == State(7, 3, None)


def test_crossing_means_starting_at_or_before_after_and_ending_beyond() -> None:
    s = stage(10, (4, 1, 2))  # line between 4 and 5, limit 1st gear
    # ending on `after` is not crossing
    assert rules.apply_move(s, State(2, 2), 2, 2).crash is None
    # starting on `after` and moving on is crossing
    assert rules.apply_move(s, State(4, 2), 2, 2).crash == 0
    # starting beyond is not
    assert rules.apply_move(s, State(5, 2), 2, 2).crash is None


def test_crash_stops_on_after_costs_two_turns_and_forces_first() -> None:
    s = stage(12, (5, 2, 3))
    before = State(3, 3)  # corner planned N (standing in its zone since an earlier turn)
    res = rules.apply_move(s, before, 3, 6)  # 3 -> 9 in 3rd over a 2nd-gear corner
    assert res.crash == 0
    assert (res.position, res.moved, res.tenths, res.turns) == (5, 2, 200, 2)
    assert res.crossed == ()
    after = rules.next_state(s, before, res)
    assert after == State(5, None, None)
    assert rules.legal_gears(after) == (1,)
    # 1st gear then crosses the corner line safely
    assert rules.apply_move(s, after, 1, 2).crash is None


def test_drift_allows_one_gear_above_the_limit() -> None:
    s = stage(12, (5, 2, 3))
    assert rules.apply_move(s, State(3, 2, 0), 3, 4).crash is None  # D: 3rd over a 2 is fine
    assert rules.apply_move(s, State(3, 2, None), 3, 4).crash == 0  # N: crash
    assert rules.apply_move(s, State(3, 3, 0), 4, 7).crash == 0  # D gives one gear, not two


def test_drift_is_spent_once_driven_through() -> None:
    s = stage(20, (5, 2, 3))
    res = rules.apply_move(s, State(3, 2, 0), 3, 4)
    assert res.crossed == (0,)
    assert res.pending_drift is None
    assert rules.next_state(s, State(3, 2, 0), res).pending_drift is None


def test_corners_are_checked_in_track_order_and_first_unsafe_crashes() -> None:
    # listed out of track order on purpose
    s = stage(20, (9, 1, 8), (4, 3, 2), (6, 2, 5))
    res = rules.apply_move(s, State(3, 2, 1), 3, 7)  # 3 -> 10; corner after 4 is the pending D
    assert res.crossed == (1,)  # after 4: limit 3, safe
    assert res.crash == 2  # after 6: limit 2, 3rd gear crashes there, not at after 9
    assert res.position == 6
    assert res.pending_drift is None  # the D at after 4 was driven through before the crash


def test_crashed_corner_keeps_its_d_plan_until_crossed() -> None:
    s = stage(20, (6, 1, 4))
    before = State(4, 3, 0)  # corner planned D: limit 2 for this corner
    res = rules.apply_move(s, before, 3, 5)
    assert res.crash == 0
    assert res.pending_drift == 0
    after = rules.next_state(s, before, res)
    assert after == State(6, None, 0)
    # nothing new is planned at the crash: the corner was planned before
    assert rules.plan_options(s, before, res).entered == ()
    res2 = rules.apply_move(s, after, 1, 1)
    assert res2.crossed == (0,) and res2.pending_drift is None


def test_corner_crossed_without_ever_being_planned_is_driven_n() -> None:
    s = stage(20, (8, 2, 6))
    # 4 -> 11 crosses the whole zone in one move: never planned, so the limit is 2, not 3
    res = rules.apply_move(s, State(4, 3, None), 3, 7)
    assert res.crash == 0
    # the crash turn ends on `after`, inside the zone: the corner is planned now
    opts = rules.plan_options(s, State(4, 3, None), res)
    assert opts.entered == (0,)
    # in 2nd gear the same unplanned corner is safe
    assert rules.apply_move(s, State(4, 2, None), 2, 4).crash is None


def test_planning_happens_when_the_turn_ends_in_a_zone_for_the_first_time() -> None:
    s = stage(20, (8, 2, 5))
    prev = State(2, 2)
    res = rules.apply_move(s, prev, 2, 3)  # 2 -> 5: enters the zone
    assert rules.plan_options(s, prev, res) == rules.PlanOptions(
        entered=(0,), drift_choices=(None, 0)
    )
    # the next turn inside the same zone plans nothing: it was planned already
    prev2 = rules.next_state(s, prev, res, None)
    res2 = rules.apply_move(s, prev2, 1, 1)
    assert rules.plan_options(s, prev2, res2).entered == ()
    # the choice is fixed: an N plan stays N
    assert rules.next_state(s, prev2, res2).pending_drift is None


def test_only_one_pending_drift() -> None:
    s = stage(20, (6, 2, 3), (9, 2, 5))
    prev = State(3, 2, 0)  # corner after 6 planned D, not yet driven through
    res = rules.apply_move(s, prev, 2, 2)  # 3 -> 5: enters the zone of after 9
    opts = rules.plan_options(s, prev, res)
    assert opts.entered == (1,)
    assert opts.drift_choices == (None,)
    with pytest.raises(RulesError, match="corner 1 cannot be planned D after this move"):
        rules.next_state(s, prev, res, 1)
    # once the D corner is driven through, a new D may be planned
    prev = State(5, 2, 0)
    res = rules.apply_move(
        s, prev, 2, 2
    )  # 5 -> 7 crosses after 6 (D spent); zone of 9 already planned
    assert res.pending_drift is None


def test_two_zones_entered_in_one_turn_allow_at_most_one_d() -> None:
    s = stage(20, (7, 2, 4), (9, 2, 5))
    prev = State(2, 2)
    res = rules.apply_move(s, prev, 3, 4)  # 2 -> 6: inside both zones
    opts = rules.plan_options(s, prev, res)
    assert opts.entered == (0, 1)
    assert opts.drift_choices == (None, 0, 1)
    assert rules.next_state(s, prev, res, 1) == State(6, 3, 1)  # D on the second, N on the first
    # N on the first is fixed: later it is driven at its own limit
    res2 = rules.apply_move(s, State(6, 3, 1), 3, 4)
    assert res2.crash == 0


# --------------------------------------------------------------------------- finishing, time


def test_finishing_counts_the_invisible_space() -> None:
    s = stage(10)
    res = rules.apply_move(s, State(7, 3), 4, 9)  # 7 -> 11 = L+1: moved 4 of speed 9
    assert res.finished and res.position == 11 and res.moved == 4
    assert res.tenths == finish_tenths(4, 9) == 44
    assert rules.finished(s, rules.next_state(s, State(7, 3), res))
    assert rules.plan_options(s, State(7, 3), res).entered == ()
    # one short of the invisible space is not finished
    res = rules.apply_move(s, State(7, 2), 2, 3)
    assert not res.finished and res.position == 10


def test_crash_before_the_finish_line_is_not_a_finish() -> None:
    s = stage(10, (9, 1, 8))
    res = rules.apply_move(s, State(8, 3), 3, 6)
    assert res.crash == 0 and not res.finished and res.position == 9


def test_rulebook_example_turn_15_speed_9_moved_5_is_145_6_s() -> None:
    """Rulebook "End of the race": 14 full turns (140 s) + 5 spaces at speed 9 (5.6 s)."""
    s = stage(28)
    moves = [(1, 1)] * 11 + [(2, 2), (3, 4), (4, 7), (4, 9)]  # (gear, speed) for turns 1..15
    state = rules.initial_state(s)
    tenths = turns = 0
    for gear, speed in moves:
        res = rules.apply_move(s, state, gear, speed)
        tenths += res.tenths
        turns += res.turns
        state = rules.next_state(s, state, res)
    assert turns == 15 and res.finished and res.moved == 5 and res.speed == 9
    assert tenths == 1456


def test_crash_turn_and_lost_turn_count_ten_seconds_each() -> None:
    """Rulebook example: crash on turn 6, marks 6 and 7 beside the road, turn 8 in 1st."""
    s = stage(30, (12, 2, 10))
    state = State(10, 3, None)
    res = rules.apply_move(s, state, 3, 4)
    assert res.crash == 0 and res.turns == 2 and res.tenths == 200
    state = rules.next_state(s, state, res)
    res = rules.apply_move(
        s, state, 1, 1
    )  # "a three on your die means you only get to move one space"
    assert (res.start, res.position) == (12, 13)
