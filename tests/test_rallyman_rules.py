"""Rallyman GT rules engine: each rule on a small track (explicit cells), the turn order of
several cars, the par solver against a Monte Carlo of its own policy, seeded simulation."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from sheetgen.engine import playout
from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.model import Cell, Danger, InsideLine, Track, Variant
from sheetgen.games.rallyman.rules import (
    CarState,
    Others,
    Pit,
    Place,
    RaceState,
    Roll,
    Secure,
    Stage,
    Stop,
    next_dice,
    turn_order,
)
from sheetgen.games.rallyman.ruleset import default
from sheetgen.games.rallyman.simulate import race_lines, simulate
from sheetgen.games.rallyman.solve import par, policy_for, safe_route
from sheetgen.registry import load_spec

GT = default("gt")


@pytest.fixture(scope="module")
def hillclimb():
    """The bundled hill climb and its par policy, solved once."""
    track = load_spec("track_specs/rallyman/compact_hillclimb.yaml").model
    return track, par(Stage(track, GT, damage=False))


def straight(n: int, lanes: int = 1, marks: dict | None = None) -> Track:
    """A straight road heading east, `lanes` lanes (lane 1 on row 0), n cells long; the last
    column is the finish. `marks` maps (q, lane) to Cell keyword arguments."""
    marks = marks or {}
    cells = []
    for lane in range(1, lanes + 1):
        for q in range(n):
            kw = dict(marks.get((q, lane), {}))
            cells.append(Cell(Hex(q - (lane - 1) // 2, lane - 1), 0, lane, start=q == 0, finish=q == n - 1, **kw))
    return Track("test", Variant.GT, tuple(cells), lines=tuple(marks.get("lines", ())))


def stage(track: Track, **kw) -> Stage:
    return Stage(track, GT, **kw)


def dice_after(st: Stage, car: CarState, *names_to) -> set[str]:
    plan = ()
    for name, to in names_to:
        plan += (next(s for s in next_dice(st, car, plan, "dry") if (s.die, s.to) == (name, to)),)
    return {s.die for s in next_dice(st, car, plan, "dry")}


def test_each_die_is_one_gear_up_or_down_coast_stays_brake_skips_down():
    st = stage(straight(12))
    car = CarState(Hex(0, 0), gear=3)
    assert {s.die for s in next_dice(st, car, (), "dry")} == {"2", "4", "coast", "brake"}
    # from 0 only gear 1 (no coast, no brake)
    assert {s.die for s in next_dice(st, CarState(Hex(0, 0)), (), "dry")} == {"1"}
    # brake from 4 counts as gear 3: then gear 2 (or 4), a coast or the second brake
    after = dice_after(st, CarState(Hex(0, 0), gear=4), ("brake", Hex(1, 0)))
    assert after == {"2", "4", "coast", "brake"}
    # each die once: after 3 and 4 no gear die 3 again
    assert "3" not in dice_after(st, CarState(Hex(0, 0), gear=2), ("3", Hex(1, 0)), ("4", Hex(2, 0)))
    # the rulebook's example: 4th to 1st with brake + brake + 1
    st2 = stage(straight(5))
    plan = ()
    car = CarState(Hex(0, 0), gear=4)
    for name, q in (("brake", 1), ("brake", 2), ("1", 3)):
        plan += (next(s for s in next_dice(st2, car, plan, "dry") if (s.die, s.to) == (name, Hex(q, 0))),)
    assert [s.gear for s in plan] == [3, 2, 1]


def test_gt5_has_a_boost_that_skips_a_gear_up_and_no_sixth_gear():
    st = Stage(straight(6), GT, car_class="GT5")
    dice = {s.die: s.gear for s in next_dice(st, CarState(Hex(0, 0), gear=4), (), "dry")}
    assert dice == {"3": 3, "5": 5, "coast": 4, "brake": 3, "boost": 5}
    assert {s.die for s in next_dice(st, CarState(Hex(0, 0), gear=5), (), "dry")} == {"4", "coast", "brake"}


def test_corner_limit_and_caution_mark_on_the_path():
    track = straight(5, marks={(2, 1): {"limit": 3, "caution": True}})
    st = stage(track)
    car = CarState(Hex(1, 0), gear=3)
    steps = {s.die: s for s in next_dice(st, car, (), "dry")}
    assert "4" not in steps  # over the corner's limit
    assert steps["coast"].marks == 1  # the caution mark, met in that very gear
    assert steps["2"].marks == 0


def test_inside_line_limit_and_caution():
    line = InsideLine(Hex(0, 0), Hex(1, 0), limit=2, caution=True)
    st = stage(straight(4, marks={"lines": (line,)}))
    steps = {s.die: s for s in next_dice(st, CarState(Hex(0, 0), gear=2), (), "dry")}
    assert set(steps) == {"1", "coast", "brake"}  # gear 3 goes over the line's limit
    assert steps["coast"].marks == 1


def test_overtaking_needs_a_die_at_least_the_other_cars_gear_and_no_yellow_flag():
    track = straight(6, lanes=2)
    st = stage(track)
    me = CarState(Hex(0, 0), gear=2)
    other = Others(((Hex(1, 1), 3, False),))  # lane 2, in gear 3
    dice = {(s.die, s.to) for s in next_dice(st, me, (), "dry", other)}
    assert ("3", Hex(1, 0)) in dice and ("1", Hex(1, 0)) not in dice and ("coast", Hex(1, 0)) not in dice
    assert ("3", Hex(1, 1)) not in dice  # its cell is taken
    flagged = Others(((Hex(1, 1), 3, False),), yellow=True)
    assert not any(to == Hex(1, 0) for _d, to in {(s.die, s.to) for s in next_dice(st, me, (), "dry", flagged)})
    stopped = Others(((Hex(1, 1), 0, True),), yellow=True)  # a stopped car may be passed
    assert ("1", Hex(1, 0)) in {(s.die, s.to) for s in next_dice(st, me, (), "dry", stopped)}


def test_once_beside_a_car_the_rest_of_the_move_is_at_any_speed():
    """RG-33 (issue 34): "To enter a space adjacent to another player's car, you must use a
    Gear die equal to or higher than the current Gear of the opponent's car. Once your car is
    beside theirs, the rest of their movement can be at any speed." Every cell alongside asked
    for the other car's gear; now only the die that brings the car beside it does."""
    st = stage(straight(8, lanes=2))
    other = Others(((Hex(1, 1), 4, False),))  # lane 2, in gear 4; (1, 0) and (2, 0) are beside it
    me = CarState(Hex(0, 0), gear=3)
    first = {(s.die, s.to) for s in next_dice(st, me, (), "dry", other)}
    assert ("4", Hex(1, 0)) in first and ("2", Hex(1, 0)) not in first and ("coast", Hex(1, 0)) not in first
    four = next(s for s in next_dice(st, me, (), "dry", other) if (s.die, s.to) == ("4", Hex(1, 0)))
    then = {(s.die, s.to) for s in next_dice(st, me, (four,), "dry", other)}
    assert {("3", Hex(2, 0)), ("coast", Hex(2, 0)), ("brake", Hex(2, 0))} <= then  # beside it already
    # a car that starts its turn beside it moves on at any speed
    beside = CarState(Hex(1, 0), gear=2)
    assert ("1", Hex(2, 0)) in {(s.die, s.to) for s in next_dice(st, beside, (), "dry", other)}
    # under a yellow flag no cell beside a moving car, beside it already or not
    flagged = Others(other.cars, yellow=True)
    assert not any(s.to == Hex(2, 0) for s in next_dice(st, beside, (), "dry", flagged))


def play(state: RaceState, actions) -> RaceState:
    for a in actions:
        state = state.apply(a)
    return state


def test_flat_out_earns_tokens_and_counts_the_end_gear():
    st = stage(straight(12))
    s = RaceState.start(st)
    s = play(s, [Place("1", Hex(1, 0)), Place("2", Hex(2, 0)), Place("3", Hex(3, 0)), Roll("flat")])
    outcomes = dict(s.chance_outcomes())
    assert outcomes[(False, False, False)] == Fraction(5, 6) * Fraction(5, 6) * Fraction(4, 6)
    assert sum(outcomes.values()) == 1
    s = s.apply((True, True, False))  # two cautions of three: safe
    car = s.cars[0]
    assert (car.cell, car.gear, car.focus, car.time) == (Hex(3, 0), 3, 3, 30)


def test_one_at_a_time_secure_costs_1_then_2_more_and_stop():
    st = stage(straight(12))
    s = RaceState.start(st)
    s = play(s, [Place("1", Hex(1, 0)), Place("2", Hex(2, 0)), Place("3", Hex(3, 0)), Roll("one")])
    assert Stop() not in s.legal_actions() and Secure() not in s.legal_actions()  # no token yet
    s = play(s, [Roll("one"), True, Roll("one"), True])  # two cautions
    assert Stop() in s.legal_actions()
    s = s.apply(Stop())
    assert (s.cars[0].cell, s.cars[0].gear, s.cars[0].time) == (Hex(2, 0), 2, 40)
    # with 3 tokens: secure the first (1), then the second (2 more)
    s2 = RaceState.start(st)
    s2 = s2._set(rules.replace(s2.car, focus=3))
    s2 = play(s2, [Place("1", Hex(1, 0)), Place("2", Hex(2, 0)), Place("3", Hex(3, 0)), Roll("one"), Secure(), Secure()])
    assert s2.car.focus == 0 and Secure() not in s2.legal_actions()


def test_loss_of_control_in_gear_3_or_more_ends_in_00_and_draws_tokens():
    track = straight(12, marks={(q, 1): {"danger": Danger.RED} for q in range(12)})
    st = stage(track)
    s = RaceState.start(st)
    s = s._set(rules.replace(s.car, gear=3))
    s = play(s, [Place("4", Hex(1, 0)), Place("5", Hex(2, 0)), Place("6", Hex(3, 0)), Roll("one"), Roll("one"), True, Roll("one"), True, Roll("one")])
    s = s.apply(True)  # the third caution, on gear 6 on a red tile: 4 tokens (RG-4)
    assert s.phase == rules.DAMAGE
    draws = s.chance_outcomes()
    assert sum(p for _o, p in draws) == 1 and all(sum(n for _k, n in o) == 4 for o, _p in draws)
    s = s.apply((("lose_coast_die", 1), ("weather", 1), ("yellow_flag", 1), ("green_flag", 1)))
    car = s.cars[0]
    # gear 00: 120 s, and (alone on the track) the lost turn is sat out at once
    assert (car.cell, car.gear, car.time, car.lost) == (Hex(3, 0), 0, 120, (("coast", 1),))
    assert any(e[0] == "lose" and e[4] == "00" for e in s.log) and any(e[0] == "lost turn" for e in s.log)
    assert s.weather == "wet" and dict(s.bag)["green_flag"] == 11
    # the next turn is lost (gear 00 back to 0), the yellow flag taken in when it moves again
    assert s.cars[0].out is False and s.cars[0].turns == 2 and s.yellow is None
    _board, dice, _free = rules.pool(st, s.cars[0], s.weather)
    assert dice["coast"] == 0  # asphalt tyres in the wet: 1 coast, minus the one lost


def test_a_loss_of_control_on_the_finish_costs_its_seconds_with_damage_drawn_too():
    """RG-27: losing control on the finishing move finishes with the loss's seconds: 120 s
    in gear 3 or more. With damage tokens drawn it cost 60 s: the finished car's 00 was not
    kept, so the damage ended its turn in gear 0."""
    track = straight(4, marks={(q, 1): {"danger": Danger.RED} for q in range(4)})  # the finish is (3, 0)
    for damage in (False, True):
        st = stage(track, damage=damage)
        s = RaceState.start(st)
        s = s._set(rules.replace(s.car, gear=3))
        s = play(s, [Place("4", Hex(1, 0)), Place("5", Hex(2, 0)), Place("6", Hex(3, 0)), Roll("one"), Roll("one"), True, Roll("one"), True, Roll("one")])
        s = s.apply(True)  # the third caution, on gear 6, on the finish
        if damage:
            assert s.phase == rules.DAMAGE
            s = s.apply(s.chance_outcomes()[0][0])
        car = s.cars[0]
        assert (s.is_terminal(), car.finished, car.cell, car.time) == (True, True, Hex(3, 0), 120), damage


def test_a_car_that_cannot_place_any_die_stays_and_ends_in_gear_0():
    """RG-28: in gear 6 before a limit-2 corner no die can be placed (5, coast and brake all go
    over it): the car stays where it is and ends the turn in gear 0, 60 s."""
    st = stage(straight(8, marks={(3, 1): {"limit": 2}}))
    s = RaceState.start(st)
    s = s._set(rules.replace(s.car, cell=Hex(2, 0), gear=6))
    assert s.legal_actions() == (Stop(),)
    car = s.apply(Stop()).cars[0]
    assert (car.cell, car.gear, car.time) == (Hex(2, 0), 0, 60)


def test_loss_below_gear_3_ends_in_0_without_damage():
    st = stage(straight(12))
    s = RaceState.start(st)
    s = play(s, [Place("1", Hex(1, 0)), Place("2", Hex(2, 0)), Place("coast", Hex(3, 0)), Roll("flat"), (True, True, True)])
    assert s.phase == rules.REALLOCATE
    options = {(a.to, a.gear) for a in s.legal_actions()}
    # the dice rolled may be placed in another order, not all of them: coast first is illegal
    # from gear 0, so the loss falls on the third die placed, in gear 2 (1, 2, coast or 1, coast, 2)
    assert options == {(Hex(3, 0), 2)}
    s = s.apply(s.legal_actions()[0])
    car = s.cars[0]
    assert (car.cell, car.gear, car.out, car.time, car.focus) == (Hex(3, 0), 0, False, 60, 3)


def test_reallocation_places_the_dice_rolled_in_any_order_that_loses_control():
    track = straight(12, marks={(3, 1): {"danger": Danger.RED}, (2, 1): {"limit": 4, "caution": True}})
    st = stage(track)
    s = RaceState.start(st)
    s = s._set(rules.replace(s.car, gear=3))
    s = play(s, [Place("4", Hex(1, 0)), Place("coast", Hex(2, 0)), Place("5", Hex(3, 0)), Roll("flat")])
    s = s.apply((True, True, False))  # 2 cautions rolled + the caution mark: control lost
    options = {(a.to, a.gear) for a in s.legal_actions()}
    # 4 then coast on the marked cell (plan order), or 4 then 5 over the corner's limit: the
    # loss falls on the corner in gear 4 or 5, never on the red tile beyond
    assert options == {(Hex(2, 0), 4), (Hex(2, 0), 5)}


def test_pit_stop_in_first_gear_on_a_pit_cell():
    track = straight(8, marks={(1, 1): {"pit": True}})
    st = stage(track)
    s = RaceState.start(st)
    s = play(s, [Place("1", Hex(1, 0)), Roll("flat"), (False,)])
    assert s.phase == rules.PIT and set(s.legal_actions()) == {Pit(c) for c in rules.PIT_CHOICES}
    t = s.apply(Pit("tyres"))
    assert (t.cars[0].tyres, t.cars[0].gear, t.cars[0].out, t.cars[0].time) == ("rain", 0, False, 60)
    r = s.apply(Pit("repair"))
    assert r.cars[0].out is False and r.cars[0].time == 120 and r.cars[0].turns == 2  # 00: a lost turn


def test_flying_start_a_caution_on_the_gear_2_die_ends_the_turn_one_space_on():
    st = stage(straight(12), flying_start=True)
    s = RaceState.start(st)
    assert {a.die for a in s.legal_actions() if isinstance(a, Place)} == {"1", "2"}
    s = play(s, [Place("2", Hex(1, 0)), Place("3", Hex(2, 0)), Place("4", Hex(3, 0)), Roll("flat"), (True, True, True)])
    car = s.cars[0]
    assert (car.cell, car.gear, car.time) == (Hex(1, 0), 2, 40)  # the loss of control is ignored


def test_the_finish_stops_the_plan():
    st = stage(straight(3))
    s = RaceState.start(st)
    s = play(s, [Place("1", Hex(1, 0)), Place("2", Hex(2, 0))])
    assert s.legal_actions() == (Roll("flat"), Roll("one"))
    s = play(s, [Roll("flat"), (False, False)])
    assert s.is_terminal() and s.cars[0].finished and s.cars[0].time == 40


def test_a_one_lap_circuit_is_a_whole_lap():
    """RG-23: "a circuit whose finish lies just past the start line is crossed once more than
    its laps" held for two laps and more only: with `laps: 1` the Hexagon Ring ended at the
    first crossing, two spaces past the grid (a par of 21.7 s for a 90-cell lap). A
    point-to-point stage still finishes at its one crossing."""
    ring = load_spec("track_specs/rallyman/gt_hexagon_ring.yaml").model
    assert [stage(replace(ring, laps=n)).laps_needed for n in (1, 2, 3)] == [2, 3, 4]
    sprint = load_spec("track_specs/rallyman/gt_col_sprint.yaml").model
    assert stage(sprint).laps_needed == 1 and stage(replace(sprint, laps=2)).laps_needed == 2


def test_turn_order_speed_then_distance_then_inside_lane_of_the_next_corner():
    track = load_spec("track_specs/rallyman/compact_hillclimb.yaml").model  # first corner: left
    st = stage(track)
    assert rules.inside_lane(track, track.cell(Hex(0, 1))) == 1
    cars = (
        CarState(Hex(0, 1), gear=2),  # 0: lane 2
        CarState(Hex(2, 0), gear=3),  # 1: fastest
        CarState(Hex(2, 1), gear=2),  # 2: gear 2, further along
        CarState(Hex(0, 0), gear=2),  # 3: same gear and distance as car 0, inside lane
        CarState(Hex(3, 0), gear=0, out=True),  # 4: off the track (00), last
    )
    assert turn_order(st, cars) == (1, 2, 3, 0, 4)


def test_rounds_are_white_and_black_in_turn_and_waiting_cars_start_later():
    st = stage(straight(10, lanes=2))
    s = RaceState.start(st, 3)
    assert s.colour == "white" and s.order == (0, 1) and s.cars[2].waiting
    while s.round == 1:
        s = s.apply(s.legal_actions()[0] if s.legal_actions() else s.chance_outcomes()[0][0])
    assert s.colour == "black" and not s.cars[2].waiting and 2 in s.order


def test_par_equals_a_hand_computed_value_on_a_tiny_track():
    """Three cells straight ahead: 1 then 2 finishes in gear 2 (40 s) with no risk, or
    1, 2 over two cells... the only plans place 1 then 2: losing control needs three
    cautions on two dice, impossible; par = safe = 40 s."""
    st = stage(straight(3), damage=False)
    assert par(st).time == pytest.approx(40.0)
    assert safe_route(st).time == 40


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_par_agrees_with_a_monte_carlo_of_its_own_policy_on_the_hill_climb(hillclimb):
    """300 seeded stages (the slow test below plays 1000 on every bundled GT track), the car
    holding at most the tokens the policy counts."""
    _track, solved = hillclimb
    st = replace(solved.stage, max_focus=solved.focus_cap)
    policy = policy_for(solved)
    n = 300
    times = [playout(RaceState.start(st), policy, random.Random(seed)).cars[0].time for seed in range(n)]
    mean = sum(times) / n
    sd = math.sqrt(sum((t - mean) ** 2 for t in times) / (n - 1))
    assert abs(mean - solved.time) < 2.576 * sd / math.sqrt(n)


#: every bundled GT track: (the flat-out par, safe route seconds, its turns). The figures of
#: the flat-out solver before it was made fast (commit cd96a20: tiny and the hill climb as
#: analyze printed them; the col sprint and the ring solved by it in 7 s and 17 s once a slow
#: look-up was fixed, the safe routes in 12 s and 20 s): the flat-out policy class is
#: `par(stage, focus_cap=0, one_at_a_time=False)` now.
BUNDLED_GT = {
    "tiny": (1355 / 54, 40, 1),
    "compact_hillclimb": (131.3353714888052, 265, 9),
    "gt_col_sprint": (310.8977710826779, 410, 25),
    "gt_hexagon_ring": (646.1116298401175, 660, 55),
    # 297 cells in the large frame: slow. Changed once, by RM-3's sideways pairs: its two
    # 120-degree corners' apex cells were each a diagonal move ahead of the other, a loop
    # that made the figure depend on the order the programme met states (410.793 s, then
    # 407.986 s); with no move between them it is 407.905 s, the safe route the same
    "gt_wide_boulevard": (407.904790450832, 495, 35),
}
#: the bundled GT tracks whose exact figures the default suite re-solves (the others: -m slow)
QUICK_GT = ("tiny", "compact_hillclimb", "gt_col_sprint")
#: the par of the best solo policy (focus tokens counted up to 4, one at a time or flat out;
#: RG-30, RG-32) of every bundled GT track; tiny's by hand (tests/test_rallyman_par.py)
BUNDLED_GT_PAR = {
    "tiny": 215 / 9,
    "compact_hillclimb": 83.49037905415669,
    "gt_col_sprint": 162.14878449930433,
    "gt_hexagon_ring": 292.1669195233055,
    "gt_wide_boulevard": 207.06854638980622,
}
#: those the default suite solves (the larger ones take 15-45 s each: -m slow)
QUICK_GT_PAR = ("tiny", "compact_hillclimb")


@pytest.mark.parametrize("name", [n if n in QUICK_GT else pytest.param(n, marks=pytest.mark.slow) for n in BUNDLED_GT])
def test_flat_out_par_and_safe_route_of_every_bundled_gt_track_are_the_exact_figures_of_before(name):
    """The flat-out policy class gives the same par as the flat-out solver before it, and the
    safe route is the same, on every bundled GT track (tiny's par by hand: 1355/54 s); every
    bundled GT track is listed."""
    assert sorted(BUNDLED_GT) == sorted(p.stem for p in Path("track_specs/rallyman").glob("*.yaml") if "variant: gt" in p.read_text(encoding="utf-8"))
    for expected, safe_seconds, safe_turns in (BUNDLED_GT[name],):
        track = load_spec(f"track_specs/rallyman/{name}.yaml").model
        st = Stage(track, GT, damage=False)
        assert par(st, focus_cap=0, one_at_a_time=False).time == pytest.approx(expected, rel=1e-12, abs=1e-9), name
        safe = safe_route(st)
        assert (safe.time, safe.turns) == (safe_seconds, safe_turns), name


@pytest.mark.parametrize("name", [n if n in QUICK_GT_PAR else pytest.param(n, marks=pytest.mark.slow) for n in BUNDLED_GT_PAR])
def test_par_of_every_bundled_gt_track(name):
    """The best solo policy's par, below the flat-out one on every track."""
    assert sorted(BUNDLED_GT_PAR) == sorted(BUNDLED_GT)
    track = load_spec(f"track_specs/rallyman/{name}.yaml").model
    solved = par(Stage(track, GT, damage=False))
    assert solved.time == pytest.approx(BUNDLED_GT_PAR[name], rel=1e-12), name
    assert solved.time < BUNDLED_GT[name][0]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUNDLED_GT))
def test_par_agrees_with_monte_carlo_on_every_bundled_gt_track(name):
    track = load_spec(f"track_specs/rallyman/{name}.yaml").model
    solved = par(Stage(track, GT, damage=False))
    st = Stage(track, GT, damage=False, max_focus=solved.focus_cap)
    policy = policy_for(solved)
    n = 1000
    times = [playout(RaceState.start(st), policy, random.Random(seed)).cars[0].time for seed in range(n)]
    mean = sum(times) / n
    sd = math.sqrt(sum((t - mean) ** 2 for t in times) / (n - 1))
    assert abs(mean - solved.time) <= max(2.576 * sd / math.sqrt(n), 1e-9)


def test_same_seed_same_race(hillclimb):
    track, solved = hillclimb
    st = Stage(track, GT)
    a = race_lines(simulate(st, 7, 3, "par", solved))
    b = race_lines(simulate(st, 7, 3, "par", solved))
    c = race_lines(simulate(st, 8, 3, "par", solved))
    assert a == b and a != c
    assert a[1].startswith("Round 1 (white)") and a[-4] == "Result:"


def test_analyze_and_simulate_through_the_cli(run, monkeypatch):
    import json

    tiny = "track_specs/rallyman/tiny.yaml"
    out = run("analyze", tiny, "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["safe_route"]["seconds"] == 40 and data["safe_route"]["turns"] == 1
    assert 0 < data["par"]["expected_seconds"] <= 40  # never slower than the safe route
    text = run("analyze", tiny)
    assert "Fastest route with no chance of losing control: 40 s in 1 turns" in text.stdout
    from sheetgen.games.rallyman import solve

    monkeypatch.setattr(solve, "MAX_PAR_SIZE", 200)  # a track too large to solve, as the ring is then
    ring = run("analyze", "track_specs/rallyman/gt_hexagon_ring.yaml")  # 90 cells x 3 laps
    assert ring.exit_code == 1 and ring.stdout == ""
    assert ring.stderr == (
        "track_specs/rallyman/gt_hexagon_ring.yaml:3:7: error: a GT track of 90 cells x 3 laps is too large for the exact par solve "
        "(at most 200 cells x laps); its map, roadbook and `sheetgen odds` work at any size\n"
    )
    assert run("simulate", "track_specs/rallyman/gt_hexagon_ring.yaml", "--seed", "1").exit_code == 1
    sim = run("simulate", tiny, "--cars", "2", "--seed", "4", "--driving", "careful")
    assert sim.exit_code == 0 and "Round 1 (white): order 1, 2" in sim.stdout
    assert run("simulate", tiny, "--cars", "7").exit_code == 2


def test_a_gt_tracks_summary_stays_quick_and_its_printout_gives_the_par(run, tmp_path):
    """RG-31: validate says what the track is without solving it; the printout's assembly
    page and time sheet give analyze's par and safe route."""
    from pypdf import PdfReader

    assert run("validate", "track_specs/rallyman/tiny.yaml").stdout == "track_specs/rallyman/tiny.yaml: ok (Rallyman: GT track, 6 cells, 1 corner)\n"
    assert run("render", "track_specs/rallyman/tiny.yaml", "-o", str(tmp_path / "t.pdf")).exit_code == 0
    text = " ".join(page.extract_text() for page in PdfReader(str(tmp_path / "t.pdf")).pages)
    assert "Par 23.9 s" in " ".join(text.split()) and "Safe route: 40 s in 1 turn" in " ".join(text.split())


