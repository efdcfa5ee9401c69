"""Rally Risk rules engine: gears, movement, braking, damage, mechanics, tyres, weather,
passing, staggered departures; the step-by-step race engine agrees exactly with the
folded move outcomes the solver uses; random playouts always end."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from sheetgen.games.rally_risk import rules
from sheetgen.games.rally_risk.model import Assistance, Outcome, Tyres, Weather, WeatherChart, WeatherSector
from sheetgen.games.rally_risk.rules import (
    Car,
    CarState,
    GearAction,
    Move,
    MoveResult,
    RaceState,
    RulesError,
    ServiceAction,
)
from test_rally_risk_tables import CLEAR, HOUSE, course

RAIN = WeatherSector(Weather.RAIN, 1)


def test_gears_shift_one_at_a_time_and_the_rpm_card_skips_one_down_once():
    assert rules.legal_gears(CarState()) == (1,)
    assert rules.legal_gears(CarState(position=3, gear=1)) == (1, 2)
    assert rules.legal_gears(CarState(position=3, gear=3)) == (1, 2, 3, 4)
    assert rules.legal_gears(CarState(position=3, gear=5)) == (3, 4, 5)
    assert rules.legal_gears(CarState(position=3, gear=5, rpm_card=False)) == (4, 5)
    assert rules.legal_gears(CarState(position=3, gear=2)) == (1, 2, 3)  # 2 - 2 = 0 is no gear
    assert rules.legal_gears(CarState(position=3, halt=1)) == ()
    after = rules.next_state(CarState(position=3, gear=5), 3, MoveResult("moved", 8))
    assert (after.gear, after.rpm_card) == (3, False)
    assert rules.next_state(CarState(position=3, gear=4), 3, MoveResult("moved", 8)).rpm_card


def test_stops_force_first_gear():
    state = CarState(position=3, gear=4)
    assert rules.next_state(state, 4, MoveResult("off", 6, Outcome.TAIL_SPIN, Outcome.TAIL_SPIN)).gear == 0
    halted = rules.next_state(state, 4, MoveResult("off", 6, Outcome.FIRST, Outcome.FIRST))
    assert (halted.gear, halted.halt) == (0, 1)
    assert rules.legal_gears(rules.sit_out(halted)) == (1,)


def test_moves_are_at_least_one_space_and_finish_without_braking():
    c = course([0] * 10)
    car = Car(Assistance.NORMAL)
    moves = rules.legal_moves(c, car, CarState(position=8, gear=5), 5, CLEAR)
    # 3 spaces to the finish (9, 10, finish): finishing needs no braking; shorter moves do
    assert [(m.spaces, m.brakings) for m in moves][:1] == [(3, 0)]
    assert {(m.spaces, m.brakings) for m in moves} == {(3, 0), (2, 4), (1, 5)}
    assert all(m.spaces >= 1 for m in moves)
    assert rules.end_of_move(c, CarState(position=8), Move(3)) == MoveResult("finished", 11)


def test_brake_plans_put_any_number_of_brakings_on_each_space():
    assert rules.brake_plans(2, 2) == ((2, 0), (1, 1), (0, 2))
    assert rules.brake_plans(3, 0) == ((),)
    assert len(rules.brake_plans(4, 2)) == 10


def test_mechanics_repair_by_degree():
    table = {(d, k): rules.repair(d, k) for d in (Outcome.FIRST, Outcome.SECOND, Outcome.THIRD) for k in range(4)}
    assert table == {
        (Outcome.FIRST, 0): Outcome.FIRST,
        (Outcome.FIRST, 1): Outcome.TAIL_SPIN,
        (Outcome.FIRST, 2): Outcome.TAIL_SPIN,
        (Outcome.FIRST, 3): Outcome.TAIL_SPIN,
        (Outcome.SECOND, 0): Outcome.SECOND,
        (Outcome.SECOND, 1): Outcome.SECOND,
        (Outcome.SECOND, 2): Outcome.TAIL_SPIN,
        (Outcome.SECOND, 3): Outcome.TAIL_SPIN,
        (Outcome.THIRD, 0): Outcome.THIRD,
        (Outcome.THIRD, 1): Outcome.SECOND,  # the rulebook's example
        (Outcome.THIRD, 2): Outcome.SECOND,
        (Outcome.THIRD, 3): Outcome.TAIL_SPIN,
    }
    assert rules.repair(Outcome.ELIMINATED, 3) is Outcome.ELIMINATED


def test_mechanics_reach_four_spaces_either_way():
    car = Car(mechanics=(10, 10, 20))
    assert [car.in_reach(s) for s in (5, 6, 14, 15, 16, 24, 25)] == [0, 2, 2, 0, 1, 1, 0]
    with pytest.raises(RulesError):
        Car(mechanics=(1, 2, 3, 4)).check(course([0] * 10))


def test_service_needs_1st_or_2nd_gear_or_going_off_in_reach():
    c = course([0] * 20)
    car = Car(mechanics=(10,))
    state = CarState(position=4, gear=2)
    assert rules.service_options(c, car, state, 2, MoveResult("moved", 8)) == (None, Tyres.RAIN, Tyres.SNOW)
    assert rules.service_options(c, car, state, 3, MoveResult("moved", 8)) == (None,)
    assert rules.service_options(c, car, state, 2, MoveResult("moved", 15)) == (None,)
    off = MoveResult("off", 12, Outcome.SECOND, Outcome.SECOND)
    assert rules.service_options(c, car, state, 4, off) == (None, Tyres.RAIN, Tyres.SNOW)
    stopped = rules.next_state(state, 2, MoveResult("moved", 8), Tyres.RAIN)
    assert (stopped.position, stopped.gear, stopped.tyres) == (8, 0, Tyres.RAIN)
    # repairing and changing tyres in one turn is not possible: one more turn at a halt
    repaired = MoveResult("off", 12, Outcome.FIRST, Outcome.TAIL_SPIN)
    assert rules.next_state(state, 4, repaired).halt == 0
    assert rules.next_state(state, 4, repaired, Tyres.SNOW).halt == 1
    assert rules.next_state(state, 4, off, Tyres.SNOW).halt == 2
    with pytest.raises(RulesError):
        rules.apply_turn(c, car, state, 3, 1, Move(4), (), CLEAR, Tyres.RAIN)


def test_weather_moves_one_sector_and_stays_at_the_ends():
    chart = WeatherChart(tuple(WeatherSector(Weather.CLEAR) for _ in range(4)), 0)
    assert rules.weather_outcomes(chart, 0) == ((0, Fraction(1, 2)), (1, Fraction(1, 2)))
    assert rules.weather_outcomes(chart, 2) == ((1, Fraction(1, 2)), (3, Fraction(1, 2)))
    assert rules.weather_outcomes(chart, 3) == ((2, Fraction(1, 2)), (3, Fraction(1, 2)))


def test_weather_adds_to_the_risk_roll():
    assert rules.risk_factor(HOUSE, 3, 2, Assistance.PERMANENT, CLEAR) == 4
    assert rules.risk_factor(HOUSE, 3, 2, Assistance.PERMANENT, RAIN) == 3
    assert rules.risk_factor(HOUSE, 3, 2, Assistance.NORMAL, WeatherSector(Weather.SNOW, 3)) == 2


def test_move_outcomes_are_an_exact_distribution():
    c = course([0, 3, 4, 2, 4, 0, 0, 0])
    car = Car(mechanics=(4,))
    outs = rules.move_outcomes(c, car, CarState(), 1, Move(6), Weather.CLEAR)
    assert sum(p for _r, p in outs) == 1
    assert all(isinstance(p, Fraction) for _r, p in outs)
    floats = rules.move_outcomes(c, car, CarState(), 1, Move(6), Weather.CLEAR, exact=False)
    assert dict(floats) == pytest.approx({r: float(p) for r, p in outs})
    # space 2: difference 2 (- - tc 1 1 2); space 3: difference 3 (tc tc 1 2 3 e) stops everyone
    by = dict(outs)
    off = lambda space, rolled, result: by[MoveResult("off", space, rolled, result)]  # noqa: E731
    assert off(2, Outcome.TAIL_SPIN, Outcome.TAIL_SPIN) == Fraction(1, 6)
    assert off(2, Outcome.FIRST, Outcome.TAIL_SPIN) == Fraction(2, 6)  # the mechanic on 4 reaches 2
    assert off(2, Outcome.SECOND, Outcome.SECOND) == Fraction(1, 6)  # one mechanic cannot repair II
    assert off(3, Outcome.THIRD, Outcome.SECOND) == Fraction(1, 18)  # III in reach of one is II
    assert by[MoveResult("eliminated", 3, Outcome.ELIMINATED, Outcome.ELIMINATED)] == Fraction(1, 18)
    assert not any(r.kind == "moved" for r in by)


def test_passing_adds_one_per_car_on_the_road_passed():
    c = course([1] * 12)
    cars = (Car(), Car(), Car())
    race = RaceState.start(c, cars)
    race = race._set(1, CarState(position=3, gear=2))  # on the road: passed adds 1
    race = race._set(2, CarState(position=5, gear=0))  # off the road: not counted
    assert race.passing(0) == {3: 1}
    me = CarState(position=1, gear=2)
    assert rules.entered_factors(c, me, Move(4), Weather.CLEAR, race.passing(0)) == ((2, 1), (3, 2), (4, 1), (5, 1))
    # ending on the occupied space changes nothing
    assert rules.entered_factors(c, me, Move(2), Weather.CLEAR, race.passing(0)) == ((2, 1), (3, 1))


def _enumerate_turn(state: RaceState):
    """Every end of the current car's move by stepping the engine's chance and service."""
    out: dict = {}

    def walk(s: RaceState, p: Fraction, service: str):
        if s.phase == rules.DAMAGE:
            for die, q in s.chance_outcomes():
                walk(s.apply(die), p * q, service)
        elif s.phase == rules.SERVICE:
            walk(s.apply(ServiceAction(None)), p, service)
        else:
            key = s.states[0]
            out[key] = out.get(key, 0) + p

    walk(state, Fraction(1), "none")
    return out


@pytest.mark.parametrize("risk_die,gear,move", [(6, 4, Move(7)), (3, 4, Move(5)), (6, 4, Move(2, (0, 2))), (1, 3, Move(5))])
def test_step_engine_agrees_with_folded_move_outcomes(risk_die, gear, move):
    c = course([0, 1, 3, 4, 2, 4, 4, 2, 1, 0, 0, 0, 0], fords=(5,), sectors=(RAIN,))
    car = Car(Assistance.RAPID, (6,))
    start = CarState(position=0, gear=4)
    race = RaceState(course=c, cars=(car,), states=(start,), round=1, sector=0, phase=rules.GEAR, turn=0, finish_rounds=(None,))
    race = race.apply(GearAction(gear)).apply(risk_die)
    assert race.risk == rules.risk_factor(c.tables, gear, risk_die, car.assistance, RAIN)
    stepped = _enumerate_turn(race.apply(move))
    folded: dict = {}
    for result, p in rules.move_outcomes(c, car, start, race.risk, move, Weather.RAIN):
        key = rules.next_state(start, gear, result)
        folded[key] = folded.get(key, 0) + p
    assert stepped == folded


def test_illegal_actions_are_refused():
    c = course([0] * 10)
    race = RaceState.start(c, (Car(),)).apply(0)
    assert race.phase == rules.GEAR and race.legal_actions() == (GearAction(1),)
    with pytest.raises(RulesError):
        race.apply(GearAction(3))
    with pytest.raises(RulesError):
        race.apply(GearAction(1)).apply(7)
    with pytest.raises(RulesError):
        rules.apply_turn(c, Car(), CarState(), 1, 3, Move(2), (), CLEAR)


def test_staggered_departures_and_random_playouts_end():
    c = course([0, 0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 4, 4, 2, 1, 0, 0], fords=(11,), sectors=(CLEAR, RAIN, WeatherSector(Weather.SNOW, 2)))
    cars = (Car(Assistance.NORMAL, (6,)), Car(Assistance.RAPID), Car(Assistance.PERMANENT, (13, 13)))
    for seed in range(20):
        rng = random.Random(seed)
        state = RaceState.start(c, cars, (Tyres.NORMAL, Tyres.RAIN, Tyres.SNOW))
        played: dict[int, set] = {}
        while not state.is_terminal():
            if state.is_chance():
                outcomes = state.chance_outcomes()
                assert sum(p for _o, p in outcomes) == 1
                state = state.apply(rng.choice([o for o, _p in outcomes]))
            else:
                played.setdefault(state.round, set()).add(state.turn)
                state = state.apply(rng.choice(state.legal_actions()))
            assert state.round < 500
        assert played[1] <= {0} and played.get(2, {0, 1}) <= {0, 1}
        for i, s in enumerate(state.states):
            assert s.eliminated or (s.finished(c) and state.finish_rounds[i] is not None)
