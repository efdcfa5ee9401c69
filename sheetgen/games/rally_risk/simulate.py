"""Seeded play of a Rally Risk race by several cars, written down round by round.

Every car drives the analysis's optimal policy (:mod:`sheetgen.games.rally_risk.solve`)
with the same assistance and mechanics; the rules are the engine's
(:class:`sheetgen.games.rally_risk.rules.RaceState`): staggered departures, one weather
marker for everybody, passing. The policy was solved for a car alone; when cars on the
road stand in reach of a move, the move is chosen with the engine's exact outcomes of
passing them, priced with the solved values. The race is played by the generic playout
(:func:`sheetgen.engine.playout`), which samples the engine's exact chance outcomes with
``random.Random(seed)``: same race, seed and cars give the same log.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sheetgen.engine import playout
from sheetgen.games.rally_risk import rules
from sheetgen.games.rally_risk.analysis import AssistanceAnalysis, analyze_assistance, analyze_rally_risk_race
from sheetgen.games.rally_risk.model import Assistance, Race, Tyres
from sheetgen.games.rally_risk.rules import (
    Car,
    CarState,
    Course,
    GearAction,
    Move,
    MoveResult,
    RaceState,
    ServiceAction,
)
from sheetgen.games.rally_risk.scoring import score_a
from sheetgen.games.rally_risk.solve import DEFAULT_PENALTY, Solution

MAX_ROUNDS = 10_000  # a guard; the solved policy always finishes or is eliminated


class Policy:
    """The solved policy of one car set-up, asked by state."""

    def __init__(self, solution: Solution):
        self.solution = solution

    @property
    def start_tyres(self) -> Tyres:
        return self.solution.start_tyres

    def _card(self, state: CarState) -> int:
        return 1 if state.rpm_card else 0

    def gear(self, state: CarState, sector: int) -> int:
        return self.solution.gear_choice[(state.position, state.gear, state.tyres, self._card(state), sector)]

    def move(self, state: CarState, gear: int, risk: int, sector: int, passing: dict[int, int]) -> Move:
        sol = self.solution
        card = self._card(state) and not rules.uses_rpm_card(state, gear)
        lo, hi = sol.ranges[(gear, state.tyres, sector)]
        ahead = {s: n for s, n in passing.items() if state.position < s < state.position + hi}
        if ahead:
            return sol.best_move(state.position, gear, state.tyres, int(card), sector, risk, ahead)[1]
        return sol.move_choice[(state.position, gear, state.tyres, int(card), sector, risk)]

    def service(self, state: CarState, gear: int, result: MoveResult, sector: int) -> Tyres | None:
        card = int(self._card(state) and not rules.uses_rpm_card(state, gear))
        if result.kind == "moved":
            return self.solution.end_value(result.position, gear, state.tyres, card, sector)[1]
        return self.solution.off_value(result.position, result.halt, result.repaired, state.tyres, card, sector)[1]

    def __call__(self, race: RaceState) -> GearAction | Move | ServiceAction:
        """The decision of the car whose turn it is (an engine policy, :mod:`sheetgen.engine`)."""
        me = race.states[race.turn]
        if race.phase == rules.GEAR:
            return GearAction(self.gear(me, race.sector))
        if race.phase == rules.MOVE:
            return self.move(me, race.gear, race.risk, race.sector, race.passing(race.turn))
        return ServiceAction(self.service(me, race.gear, race.move_result(), race.sector))


@dataclass(frozen=True)
class RaceRun:
    race: str
    seed: int
    assistance: Assistance
    mechanics: tuple[int, ...]
    tyres: Tyres
    length: int
    finish_rounds: tuple[int | None, ...]
    eliminated: tuple[bool, ...]
    rounds: tuple[int, ...]  # rounds each car played (halts included)
    scores: tuple[int, ...]  # scoring A, by departure order
    sectors: tuple[str, ...] = ()  # the weather chart, e.g. "rain+1"
    log: tuple = ()


def play(course: Course, car: Car, policy: Policy, players: int, rng: random.Random) -> RaceState:
    """Play a race to the end: every car with the same set-up and policy, through the
    generic playout (:func:`sheetgen.engine.playout`); the race state keeps its own log."""
    state = RaceState.start(
        course, tuple(car for _ in range(players)), tuple(policy.start_tyres for _ in range(players))
    )

    def guard(_state: RaceState, _choice: object, after: RaceState) -> None:
        if not after.is_terminal() and after.round > MAX_ROUNDS:
            raise rules.RulesError(f"race {course.name!r} did not end within {MAX_ROUNDS} rounds")

    return playout(state, policy, rng, guard)


def simulate(
    race: Race,
    seed: int,
    players: int = 1,
    *,
    assistance: Assistance | str | None = None,
    analysis: AssistanceAnalysis | None = None,
    penalty: float = DEFAULT_PENALTY,
) -> RaceRun:
    """Play `race` with `players` cars (1-6) and seeded dice.

    The cars use `analysis` (from :func:`solve.analyze_assistance`) when given, else the
    analysis of `assistance`, else of the best assistance type."""
    if not 1 <= players <= 6:
        raise ValueError(f"players must be between 1 and 6 (the box has 6 cars), got {players!r}")
    if analysis is None:
        if assistance is None:
            analysis = analyze_rally_risk_race(race, penalty=penalty).best
        else:
            analysis = analyze_assistance(race, assistance, penalty=penalty)
    if analysis.solution is None:
        raise rules.RulesError("an analysis read back from the figures cache cannot play: it keeps no solution")
    course = Course.of(race)
    car = Car(analysis.assistance, analysis.mechanics)
    end = play(course, car, Policy(analysis.solution), players, random.Random(seed))
    rounds = []
    for i in range(len(end.states)):
        last = end.finish_rounds[i]
        if last is None:
            last = max(e[1] for e in end.log if e[0] in ("end", "halt") and e[2] == i)
        rounds.append(last - i)
    return RaceRun(
        race=race.name,
        seed=seed,
        assistance=analysis.assistance,
        mechanics=analysis.mechanics,
        tyres=analysis.tyres,
        length=course.length,
        finish_rounds=end.finish_rounds,
        eliminated=tuple(st.eliminated for st in end.states),
        rounds=tuple(rounds),
        scores=score_a(end.finish_rounds),
        sectors=tuple(str(sec) for sec in course.chart.sectors),
        log=end.log,
    )
