"""Seeded play of a Rallytaire race under either rule set, written down the way a player fills
the sheet.

The race is played by the generic playout (:func:`sheetgen.engine.playout`) over the engine's
:class:`~sheetgen.games.rallytaire.engine.RaceState`: it samples the engine's exact chance
outcomes with ``random.Random(seed)`` and asks a solved policy for the decisions (the basic
game: :mod:`sheetgen.games.rallytaire.solve`'s gears and plans; the advanced game:
:mod:`sheetgen.games.rallytaire.solve_advanced`'s tyres, gears and options, plans and
fix-points); every rule is the engine's. One :class:`Sheet` writes each step down as one kind
of :class:`TurnRecord`, the advanced game's boxes, locks and options filled in when the rules
have them. Concrete dice faces are drawn after the outcome, with their probability given it,
from the same generator, only so that the log reads like a real sheet. Same race, rules, seed
and policy give the same log.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sheetgen.engine import playout
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.analysis_advanced import AdvancedRaceAnalysis
from sheetgen.games.rallytaire.engine import ADVANCED, BASIC, FIX, GEAR, PLAN, ROLL, TYRES, Car, RaceState, Rules
from sheetgen.games.rallytaire.model import Boxes, Race, Stage, Surface
from sheetgen.games.rallytaire.rules import MoveResult, State
from sheetgen.games.rallytaire.rules_advanced import Action, AdvancedMove, AdvancedState, Fix
from sheetgen.games.rallytaire.solve import PolicyName, RaceAnalysis, StagePolicy, analyze_race
from sheetgen.games.rallytaire.solve_advanced import (
    DEFAULT_DNF_PENALTY,
    DEFAULT_DNF_SPACE_SECONDS,
    AdvancedPolicy,
    DnfRule,
    solve_race,
)


@dataclass(frozen=True)
class TurnRecord:
    """One move on the sheet (a crash move covers the crash turn and the lost turn, unless the
    crash puts the car out).

    action: the gear, and in the advanced game the dice option and skip.
    plans: corners planned at the end of the turn, as (corner's after space, "N" or "D").
    drifted: corners driven through this move on a D plan (after spaces).
    crash / crash_limit: the after space of the corner crashed at, and its gear limit (+1 if
    it was planned D).
    The advanced game's, left at their defaults by the basic one: last_gear, the gear of the
    turn before; locked: this turn was under a three-of-a-kind lock; checked: boxes checked
    this turn; left: boxes left unchecked after it; locks: this roll locks the next turn;
    out: the crash put the car out of the race.
    """

    turn: int
    action: Action
    dice: tuple[int, ...]
    speed: int
    start: int
    end: int
    moved: int
    plans: tuple[tuple[int, str], ...]
    drifted: tuple[int, ...]
    crash: int | None
    crash_limit: int | None
    finished: bool
    tenths: int
    last_gear: int | None = None
    locked: bool = False
    checked: Boxes | None = None
    left: Boxes | None = None
    locks: bool = False
    out: bool = False

    @property
    def gear(self) -> int:
        return self.action.gear


@dataclass(frozen=True)
class StageRun:
    """One stage: its turns and time (a DNF charge not included).

    The advanced game's: tyres on the car and boxes left at the start; out: the car went out
    on this stage; fix_points / fix / left_after / tyres_after: the fix-points spent after the
    stage (None after the last stage, when the car went out, and in the basic game)."""

    name: str
    length: int
    turns: tuple[TurnRecord, ...]
    tenths: int
    crashes: int
    surface: Surface | None = None
    service_park: bool = False
    tyres: Surface | None = None
    left_at_start: Boxes | None = None
    out: bool = False
    fix_points: int | None = None
    fix: Fix | None = None
    left_after: Boxes | None = None
    tyres_after: Surface | None = None


@dataclass(frozen=True)
class RaceRun:
    """A whole race under `rules` ("basic" or "advanced"). tenths: time driven.

    The advanced game's: tyres chosen before the race; out: the car went out (DNF); dnf: the
    DNF charge's rule; dnf_tenths: the charge (0 when the car finished); dnf_spaces: the
    spaces not reached. race_tenths: what the race counts: time driven and the charge."""

    race: str
    seed: int | None
    rules: str
    stages: tuple[StageRun, ...]
    policy: PolicyName = "optimal"
    tyres: Surface | None = None
    out: bool = False
    dnf: DnfRule | None = None
    dnf_tenths: float = 0.0
    dnf_spaces: int = 0

    @property
    def tenths(self) -> int:
        return sum(s.tenths for s in self.stages)

    @property
    def race_tenths(self) -> float:
        return self.tenths + self.dnf_tenths


def corner_marks(
    stage: Stage, res: rules.MoveResult, pending_drift: int | None
) -> tuple[int | None, int | None, tuple[int, ...]]:
    """What a move writes beside the track: the corner crashed at (its after space) and the
    limit that was broken (+1 when planned D), and the corners drifted through."""
    crash_after = crash_limit = None
    if res.crash is not None:
        corner = stage.corners[res.crash]
        crash_after = corner.after
        crash_limit = corner.gear + (1 if res.crash == pending_drift else 0)
    drifted = tuple(stage.corners[i].after for i in res.crossed if i == pending_drift)
    return crash_after, crash_limit, drifted


@dataclass
class _StageSheet:
    """A stage's part of the sheet while it is written."""

    stage: Stage
    tyres: Surface | None
    left_at_start: Boxes | None
    turns: list[TurnRecord] = field(default_factory=list)
    turn: int = 1
    tenths: int = 0
    crashes: int = 0
    out: bool = False
    fix_points: int | None = None
    fix: Fix | None = None
    left_after: Boxes | None = None
    tyres_after: Surface | None = None

    def run(self) -> StageRun:
        s = self.stage
        return StageRun(
            name=s.name,
            length=s.length,
            turns=tuple(self.turns),
            tenths=self.tenths,
            crashes=self.crashes,
            surface=s.surface,
            service_park=s.service_park,
            tyres=self.tyres,
            left_at_start=self.left_at_start,
            out=self.out,
            fix_points=self.fix_points,
            fix=self.fix,
            left_after=self.left_after,
            tyres_after=self.tyres_after,
        )


class Sheet:
    """The race sheet a playout fills in: an engine record (:func:`sheetgen.engine.playout`),
    called once per step. It draws each roll's dice faces from `rng` right after the roll
    (:meth:`Rules.faces`), before any later roll is drawn."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.tyres: Surface | None = None
        self.stages: list[_StageSheet] = []
        self._faces: tuple[int, ...] = ()  # the roll's faces while its plans are made

    def __call__(self, state: RaceState, choice: Any, after: RaceState) -> None:
        phase = state.phase
        if phase == GEAR:
            if len(self.stages) == state.stage_index:
                car = state.car
                self.stages.append(_StageSheet(state.stage, getattr(car, "tyres", None), getattr(car, "left", None)))
        elif phase == ROLL:
            faces = state.rules.faces(state.stage, state.car, state.turn_action(), choice, self.rng)
            if after.phase == PLAN:
                self._faces = faces
            else:  # the move finished the stage or put the car out: no plans
                variant = state.rules
                move = variant.move(state.stage, state.car, state.turn_action(), choice)
                self._write(state, faces, move, None, (), variant.next_state(state.stage, state.car, move))
        elif phase == PLAN:
            self._write(state, self._faces, state.move, choice, state.move_plans().entered, after.car)
        elif phase == FIX:
            sheet = self.stages[state.stage_index]
            sheet.fix_points = state.rules.fix_points(state.race, state.stage_index)
            sheet.fix = choice
            car_after = _advanced(after.car)  # (fix-points are the advanced game's)
            sheet.left_after, sheet.tyres_after = car_after.left, car_after.tyres
        elif phase == TYRES:
            self.tyres = choice

    def _write(
        self,
        state: RaceState,
        faces: tuple[int, ...],
        move: Any,
        drift: int | None,
        entered: tuple[int, ...],
        car_after: Any,
    ) -> None:
        stage, car, variant = state.stage, state.race_car(), state.rules
        sheet = self.stages[state.stage_index]
        res = variant.drive(move)
        plans = tuple((stage.corners[i].after, "D" if i == drift else "N") for i in entered)
        crash_after, crash_limit, drifted = corner_marks(stage, res, car.pending_drift)
        extra: dict[str, Any] = {}
        if isinstance(move, AdvancedMove):
            car = _advanced(car)
            extra = dict(
                last_gear=car.last_gear,
                locked=car.locked,
                checked=move.checked,
                left=car_after.left,
                locks=move.locks,
                out=move.out,
            )
        sheet.turns.append(
            TurnRecord(
                turn=sheet.turn,
                action=state.turn_action(),
                dice=faces,
                speed=res.speed,
                start=res.start,
                end=res.position,
                moved=res.moved,
                plans=plans,
                drifted=drifted,
                crash=crash_after,
                crash_limit=crash_limit,
                finished=move.finished,
                tenths=move.tenths,
                **extra,
            )
        )
        sheet.crashes += crash_after is not None
        sheet.turn += move.turns
        sheet.tenths += move.tenths
        sheet.out = variant.out(move)


def _advanced(car: Car | None) -> AdvancedState:
    """The car of an advanced game's state."""
    if not isinstance(car, AdvancedState):
        raise rules.RulesError(f"an advanced game's car, not {car!r}")
    return car


def _basic(car: Car | None) -> State:
    """The car of a basic game's state."""
    if not isinstance(car, State):
        raise rules.RulesError(f"a basic game's car, not {car!r}")
    return car


def play_race(
    race: Race, variant: Rules[Any, Any], policy: Callable[[RaceState], Any], rng: random.Random
) -> tuple[RaceState, Sheet]:
    """Play `race` once under `variant` with an engine policy, drawing every random number
    from `rng`: the race's end and its sheet."""
    sheet = Sheet(rng)
    end = playout(RaceState.start(race, variant), policy, rng, sheet)
    return end, sheet


# --------------------------------------------------------------------------- the basic game


def basic_policy(policies: Sequence[StagePolicy]) -> Callable[[RaceState], Any]:
    """The engine policy of solved stage policies, one per stage: gears and plans."""

    def decide(state: RaceState) -> Any:
        policy = policies[state.stage_index]
        if state.phase == GEAR:
            return Action(policy.gear(_basic(state.car)))
        if state.phase == PLAN:
            move = state.turn_move()
            if not isinstance(move, MoveResult):
                raise rules.RulesError(f"a basic game's move, not {move!r}")
            return policy.plan(_basic(state.car), state.turn_action().gear, move.speed)
        raise rules.RulesError(f"the basic game has no decision in phase {state.phase}")

    return decide


def play_stage(stage: Stage, policy: StagePolicy, rng: random.Random) -> StageRun:
    """Play one stage to the finish with `policy`, drawing every random number from `rng`."""
    if policy.stage != stage:
        raise ValueError(f"policy was solved for stage {policy.stage.name!r}, not {stage.name!r}")
    _end, sheet = play_race(Race(stage.name, (stage,)), BASIC, basic_policy((policy,)), rng)
    return sheet.stages[0].run()


def simulate_race(
    race: Race,
    seed: int,
    policy: PolicyName = "optimal",
    analysis: RaceAnalysis | None = None,
) -> RaceRun:
    """Play every stage of `race` in order under the basic rules with one
    ``random.Random(seed)``.

    Pass `analysis` (from :func:`analyze_race`) to reuse solved policies."""
    if policy not in ("optimal", "cautious"):
        raise ValueError(f"unknown policy: {policy!r} (expected 'optimal' or 'cautious')")
    if analysis is None:
        analysis = analyze_race(race)
    if len(analysis.stages) != len(race.stages):
        raise ValueError(
            f"analysis has {len(analysis.stages)} stages, race {race.name!r} has {len(race.stages)}"
        )
    policies = tuple(sa.policy_named(policy) for sa in analysis.stages)
    for stage, p in zip(race.stages, policies, strict=True):
        if p.stage != stage:
            raise ValueError(f"policy was solved for stage {p.stage.name!r}, not {stage.name!r}")
    _end, sheet = play_race(race, BASIC, basic_policy(policies), random.Random(seed))
    return RaceRun(race.name, seed, BASIC.name, tuple(s.run() for s in sheet.stages), policy)


# --------------------------------------------------------------------------- the advanced game


def advanced_policy(policy: AdvancedPolicy) -> Callable[[RaceState], Any]:
    """The engine policy of a solved advanced race: tyres, actions, plans and fix-points."""

    def decide(state: RaceState) -> Any:
        k = state.stage_index
        if state.phase == TYRES:
            return policy.tyres()
        car = _advanced(state.car)
        if state.phase == GEAR:
            return policy.action(k, car)
        if state.phase == PLAN:
            move = state.turn_move()
            if not isinstance(move, AdvancedMove):
                raise rules.RulesError(f"an advanced game's move, not {move!r}")
            return policy.plan(k, car, move)
        if state.phase == FIX:
            return policy.fix(k, car.left, car.tyres)
        raise rules.RulesError(f"the advanced game has no decision in phase {state.phase}")

    return decide


def play_race_advanced(race: Race, policy: AdvancedPolicy, rng: random.Random, seed: int | None = None) -> RaceRun:
    """Play `race` once under the advanced rules with `policy`, drawing every random number
    from `rng`."""
    if policy.race != race:
        raise ValueError(f"policy was solved for race {policy.race.name!r}, not {race.name!r}")
    end, sheet = play_race(race, ADVANCED, advanced_policy(policy), rng)
    car = _advanced(end.car)
    out = car.out
    k, at = end.stage_index, car.position
    return RaceRun(
        race=race.name,
        seed=seed,
        rules=ADVANCED.name,
        stages=tuple(s.run() for s in sheet.stages),
        tyres=sheet.tyres,
        out=out,
        dnf=policy.dnf,
        dnf_tenths=policy.dnf.charge_tenths(race, k, at) if out else 0.0,
        dnf_spaces=policy.dnf.spaces_not_reached(race, k, at) if out else 0,
    )


def simulate_race_advanced(
    race: Race,
    seed: int,
    analysis: AdvancedRaceAnalysis | AdvancedPolicy | None = None,
    dnf_penalty: float = DEFAULT_DNF_PENALTY,
    dnf_space_seconds: float = DEFAULT_DNF_SPACE_SECONDS,
) -> RaceRun:
    """Play `race` once under the advanced rules with ``random.Random(seed)``.

    Pass `analysis` (from :func:`analyze_race_advanced`) or a policy to reuse a solve; then
    its DNF charge is used and `dnf_penalty` / `dnf_space_seconds` are ignored."""
    if analysis is None:
        policy = solve_race(race, DnfRule(float(dnf_penalty), float(dnf_space_seconds)))
    elif isinstance(analysis, AdvancedRaceAnalysis):
        policy = analysis.policy
    else:
        policy = analysis
    return play_race_advanced(race, policy, random.Random(seed), seed)
