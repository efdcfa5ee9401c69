"""Rallytaire's small cases for the engine walk (`Game.oracle_cases`, tests/test_oracle.py).

The solvers work on fast APIs of their own (the basic solver on a graph of (position, pending
D, gear) moves, the advanced one on numpy tables over the boxes left); the walk
(:func:`sheetgen.engine.expectimax`) plays the race state (:class:`engine.RaceState`, either
rule set: tyres, gears and dice options, every roll, every N/D plan, every fix between
stages) and prices it as the solvers do: a move costs its tenths, and in the advanced game a
move that puts the car out the DNF charge (:class:`solve_advanced.DnfRule`) on top.

- basic: the race par (the stages' pars added up) and the cautious policy's (never a gear
  that can crash: the walk's actions are the gears none of whose rolls crash);
- advanced: the expected race time from each start tyre and the race par (the best tyres),
  under three DNF rules.
"""

from __future__ import annotations

from typing import Any

from sheetgen.engine import OracleCase
from sheetgen.games.rallytaire.engine import GEAR, ROLL, RaceState
from sheetgen.games.rallytaire.model import Boxes, Corner, Race, Stage, Surface, Turn


def _stage(
    name: str, surface: Surface, length: int, *corners: tuple[int, int, int], service_park: bool = False
) -> Stage:
    """A stage from (after, gear, zone) triples."""
    return Stage(
        name=name,
        surface=surface,
        length=length,
        corners=tuple(Corner(after=a, gear=g, zone=z, turn=Turn.LEFT) for a, g, z in corners),
        service_park=service_park,
    )


def _key(state: RaceState) -> tuple:
    """What is left to drive (the race and the rule set are the walk's own)."""
    return (state.phase, state.stage_index, state.car, state.action, state.move, state.plan)


def _tenths(dnf: Any = None) -> Any:
    """A move's cost: its tenths, and the DNF charge of a move that puts the car out."""

    def cost(state: RaceState, outcome: Any, _after: RaceState) -> float:
        if state.phase != ROLL:
            return 0.0
        move = state.rules.move(state.stage, state.race_car(), state.turn_action(), outcome)
        charge = 0.0
        if dnf is not None and state.rules.out(move):
            charge = dnf.charge_tenths(state.race, state.stage_index, state.rules.drive(move).position)
        return move.tenths + charge

    return cost


def _safe_gears(state: RaceState) -> tuple:
    """The cautious policy's choices: at a gear choice, the actions none of whose rolls crash."""
    actions = state.legal_actions()
    if state.phase != GEAR:
        return actions
    car, stage = state.race_car(), state.stage
    return tuple(
        a for a in actions
        if not any(state.rules.drive(state.rules.move(stage, car, a, o)).crash is not None
                   for o, _p in state.rules.outcomes(stage, car, a))
    )


BASIC_RACES = (
    # the cautious policy is slower on both stages (a crash is likely somewhere it goes fast)
    Race("two stages", (
        _stage("x", Surface.GRAVEL, 20, (3, 1, 1), (12, 2, 4), (14, 1, 13)),
        _stage("z", Surface.ASPHALT, 22, (10, 1, 2), (13, 2, 11), (18, 1, 14)),
    )),
    Race("a hairpin", (_stage("y", Surface.SNOW, 18, (8, 2, 2), (9, 1, 3), (15, 3, 10)),)),
)

ADVANCED_RACES = (
    Race("mixed", (_stage("g", Surface.GRAVEL, 9, (3, 1, 2), (6, 2, 4)), _stage("s", Surface.SNOW, 8, (4, 2, 2))),
         Boxes(1, 1, 1, 2)),
    Race("service", (_stage("a", Surface.ASPHALT, 10, (5, 2, 3), service_park=True),
                     _stage("g", Surface.GRAVEL, 7, (2, 1, 1), (5, 3, 3))), Boxes(2, 1, 1, 2)),
    Race("one car box", (_stage("s", Surface.SNOW, 12, (4, 1, 2), (8, 3, 5), (9, 2, 7)),), Boxes(1, 2, 2, 1),
         (Surface.ASPHALT, Surface.GRAVEL)),
    Race("three", (_stage("a", Surface.ASPHALT, 6, (3, 1, 1)), _stage("s", Surface.SNOW, 6, (2, 1, 1)),
                   _stage("g", Surface.GRAVEL, 6, (4, 2, 3))), Boxes(1, 1, 1, 2)),
)

#: a race under both rule sets: its basic par, and its advanced race par (two car boxes,
#: gravel or snow tyres, a fix between the stages) under a DNF charge of 60 s + 2 s a space
BOTH = Race("small", (
    _stage("a", Surface.GRAVEL, 14, (5, 2, 3), (10, 1, 8)),
    _stage("b", Surface.SNOW, 10, (6, 2, 4)),
), Boxes(engine=1, brakes=1, gearbox=1, car=2), (Surface.GRAVEL, Surface.SNOW))

#: (penalty, seconds a space not reached) of the DNF rules the advanced cases are solved under
DNF_RULES = ((60.0, 5.0), (0.0, 0.0), (20.0, 1.0))


def _basic(race: Race, cautious: bool) -> OracleCase:
    def figure() -> float:
        from sheetgen.games.rallytaire.solve import analyze_stage

        analyses = [analyze_stage(s) for s in race.stages]
        return 10 * sum(a.cautious_time if cautious else a.par_time for a in analyses)

    return OracleCase(
        name=f"basic {race.name}, {'cautious' if cautious else 'optimal'}",
        figure=figure,
        start=lambda: RaceState.start(race, "basic"),
        cost=_tenths(),
        key=_key,
        actions=_safe_gears if cautious else None,
    )


def _advanced(race: Race, tyres: Surface | None, penalty: float, space_seconds: float, slow: bool) -> OracleCase:
    """From `tyres`, or (None) the race par: the best start tyre, the walk's first decision."""
    from sheetgen.games.rallytaire.solve_advanced import DnfRule

    dnf = DnfRule(penalty, space_seconds)

    def figure() -> float:
        from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced
        from sheetgen.games.rallytaire.solve_advanced import solve_race

        if tyres is None:
            return 10 * analyze_race_advanced(race, penalty, space_seconds).race_par_time
        return 10 * solve_race(race, dnf).expected_seconds(0, race.boxes, tyres)

    def start() -> RaceState:
        first = RaceState.start(race, "advanced")
        return first if tyres is None else first.apply(tyres)

    return OracleCase(
        name=f"advanced {race.name}, {'the race par' if tyres is None else tyres.value + ' tyres'}, "
        f"dnf {penalty:g}+{space_seconds:g}",
        figure=figure,
        start=start,
        cost=_tenths(dnf),
        key=_key,
        slow=slow,
        model=f"advanced {race.name} dnf {penalty:g}+{space_seconds:g}",
    )


#: the advanced walks take 1 to 4 s a race and DNF rule (the start tyres share one memo): the
#: default suite walks every race but the service park's under the first rule, `-m slow` all
def _slow(race: Race, dnf: tuple[float, float]) -> bool:
    return dnf != DNF_RULES[0] or race.name == "service"


def cases() -> list[OracleCase]:
    out = [_basic(race, cautious) for race in (*BASIC_RACES, BOTH) for cautious in (False, True)]
    out.append(_advanced(BOTH, None, 60.0, 2.0, slow=True))
    for race in ADVANCED_RACES:
        for dnf in DNF_RULES:
            out += [_advanced(race, t, *dnf, _slow(race, dnf)) for t in (*race.tyres, None)]
    return out
