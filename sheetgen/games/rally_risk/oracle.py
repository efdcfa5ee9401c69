"""Rally Risk's small cases for the engine walk (`Game.oracle_cases`, tests/test_oracle.py).

The solver (:class:`sheetgen.games.rally_risk.solve.Solution`) sweeps its own tables of
(position, gear slot, tyres, R.P.M. card, sector); the walk (:func:`sheetgen.engine.expectimax`)
plays one car's race through the step engine (:class:`rules.RaceState`: every gear, card,
move, braking and tyre stop, every die) and prices it as the solver does: a round (one
weather roll) costs 1, a car out of the race the penalty. The two must agree to 1e-12 from
every start tyre.
"""

from __future__ import annotations

from typing import Any

from sheetgen.engine import OracleCase
from sheetgen.games.rally_risk import rules
from sheetgen.games.rally_risk.model import Assistance, Tyres, Weather, WeatherChart, WeatherSector
from sheetgen.games.rally_risk.rules import Car, Course, RaceState
from sheetgen.games.rally_risk.tables import house_tables


def _course(name: str, factors: tuple[int, ...], fords: tuple[int, ...], sectors: tuple[WeatherSector, ...]) -> Course:
    """A course straight from the factors of spaces 1..N (the house tables)."""
    return Course(
        name=name,
        factors=(0, *factors),
        fords=(False, *(i in fords for i in range(1, len(factors) + 1))),
        tables=house_tables(),
        chart=WeatherChart(sectors, 0),
        special=False,
    )


def _round(state: RaceState, _outcome: Any, _after: RaceState) -> float:
    """A round costs 1: the weather is rolled once a round."""
    return 1.0 if state.phase == rules.WEATHER else 0.0


def _key(state: RaceState) -> tuple:
    """What is left to play (not the round number or the log)."""
    return (state.phase, state.states, state.sector, state.gear, state.risk, state.move, state.checks, state.result)


def _case(name: str, course: Course, car: Car, tyres: Tyres, penalty: float, model: str = "") -> OracleCase:
    def figure() -> float:
        from sheetgen.games.rally_risk.solve import Solution

        return float(Solution(course, car, penalty).V[(0, 0, tyres, 1, 0)])

    return OracleCase(
        name=f"{name}, {car.assistance.value} assistance, {tyres.value} tyres",
        figure=figure,
        start=lambda: RaceState.start(course, (car,), (tyres,)),
        cost=_round,
        final=lambda end: penalty if end.states[0].eliminated else 0.0,
        key=_key,
        rel=0.0,
        abs=1e-12,
        model=model,
    )


def cases() -> list[OracleCase]:
    """A course of seven spaces with a ford and three weather sectors (rain, snow), a mechanic
    on space 5, every start tyre; a plain course with each other assistance."""
    clear = WeatherSector(Weather.CLEAR)
    wet = (clear, WeatherSector(Weather.RAIN, 1), WeatherSector(Weather.SNOW, 2))
    mixed = _course("mixed", (0, 0, 2, 4, 1, 3, 0), (5,), wet)
    plain = _course("plain", (1, 3, 2, 4, 2), (), (clear, WeatherSector(Weather.STORM, 1)))
    out = [_case("7 spaces, a ford, rain and snow", mixed, Car(Assistance.NORMAL, (5,)), t, 10.0, "rr-mixed")
           for t in Tyres]
    others = (Assistance.PERMANENT, Assistance.RAPID)
    out += [_case("5 spaces, clear and storm", plain, Car(a), Tyres.NORMAL, 25.0) for a in others]
    return out
