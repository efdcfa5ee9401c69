"""Rallytaire's engine: a whole race, one decision or one roll at a time, under either rule set.

The basic and the advanced game are two variants of one engine. :class:`RaceState` is the
sequence both play (the engine protocol of :mod:`sheetgen.engine`, OpenSpiel's shape):

- TYRES, before the race: the tyres (a decision; the advanced game only);
- each turn GEAR, the gear and its dice options (an :class:`Action`), then ROLL, the dice
  (chance: exact ``(outcome, probability)`` pairs), then PLAN, the N/D plans of the corners
  whose zone the car entered (a decision: None plans them all N, a corner's index plans it
  D), unless the move finished the stage or put the car out;
- FIX, between two stages: how to spend the fix-points (a decision; the advanced game only);
- OVER, once the last stage is finished or the car is out of the race.

A :class:`Rules` variant says what a turn may do and what a roll means: :data:`BASIC` (the
gears and speed dice of :mod:`sheetgen.games.rallytaire.rules`) and :data:`ADVANCED` (push,
brake, skip, tyres, boxes, three-of-a-kind locks and fix-points of
:mod:`sheetgen.games.rallytaire.rules_advanced`). Both move through the basic engine
(:func:`rules.drive`), so corners, crashes, plans and the finish are decided once. The
solvers (:mod:`solve`, :mod:`solve_advanced`) ask a variant for the same things (a stage's
start, legal actions, exact outcomes, moves, plans, next states and fix-points; the basic
solver takes each move's outcomes and plans at once, :meth:`BasicRules.transitions`), and the
simulator plays the race state through :func:`sheetgen.engine.playout`.

The lost turn after a crash is folded into the crash move, as in the basic engine.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar, overload

from sheetgen import dice
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.model import BASE_SPEED, Race, Stage, Surface
from sheetgen.games.rallytaire.rules import MoveResult, PlanOptions, RulesError, State
from sheetgen.games.rallytaire.rules_advanced import Action, AdvancedMove, AdvancedState, Fix, Roll, TyreRule

TYRES, GEAR, ROLL, PLAN, FIX, OVER = "tyres", "gear", "roll", "plan", "fix", "over"

#: A car between two turns: the basic game's State, or the advanced game's (boxes, tyres...).
Car = State | AdvancedState
#: What one move did: the basic game's MoveResult, or the advanced game's AdvancedMove.
Move = MoveResult | AdvancedMove

_T = TypeVar("_T")
#: the car (a `Car`) and the move (a `Move`) of one rule set
_C = TypeVar("_C", bound=Car)
_M = TypeVar("_M", bound=Move)


class Rules(ABC, Generic[_C, _M]):
    """One rule set of Rallytaire: what a turn may do, what a roll means, what the car keeps
    from stage to stage. Every method is the rules engine's; none keeps state. A rule set
    has its own car and move types (`_C`, `_M`): :class:`BasicRules` the basic game's State
    and MoveResult, :class:`AdvancedRules` the advanced game's."""

    name: ClassVar[str]

    def __repr__(self) -> str:
        return f"rules_named({self.name!r})"

    # -- before the race, between stages

    def tyre_choices(self, race: Race) -> tuple[Surface, ...]:
        """The tyres to choose from before the race; () when the rule set has no tyres."""
        return ()

    @abstractmethod
    def start(self, race: Race, tyres: Surface | None) -> _C:
        """The car behind the first stage's start line."""

    @abstractmethod
    def stage_start(self, stage: Stage, car: _C | None = None) -> _C:
        """The car behind the start line of `stage`, keeping from `car` (the car at the end of
        the stage before) what the rules carry from stage to stage."""

    def fix_points(self, race: Race, stage_index: int) -> int:
        """Fix-points to spend after stage `stage_index` (0: none, no FIX decision)."""
        return 0

    def fix_options(self, race: Race, stage_index: int, car: _C) -> tuple[Fix, ...]:
        """Every way to spend the fix-points after stage `stage_index`; () when there are none."""
        return ()

    def apply_fix(self, race: Race, stage_index: int, car: _C, fix: Fix) -> _C:
        raise RulesError(f"the {self.name} rules have no fix-points")

    # -- a turn

    @abstractmethod
    def actions(self, stage: Stage, car: _C) -> tuple[Action, ...]:
        """Every legal action, in the order solvers break ties."""

    @abstractmethod
    def outcomes(self, stage: Stage, car: _C, action: Action) -> tuple[tuple[Any, Fraction], ...]:
        """The roll of a legal `action` as exact ``(outcome, probability)`` pairs, ascending."""

    @abstractmethod
    def move(self, stage: Stage, car: _C, action: Action, outcome: Any) -> _M:
        """Drive `action` with the dice showing `outcome` (checked)."""

    @abstractmethod
    def drive(self, move: _M) -> MoveResult:
        """The basic engine's part of a move: positions, corners crossed, crash, finish."""

    def out(self, move: _M) -> bool:
        """The move put the car out of the race."""
        return False

    @abstractmethod
    def plan_options(self, stage: Stage, car: _C, move: _M) -> PlanOptions:
        """The corners to plan after `move` from `car`, and the legal D choices."""

    @abstractmethod
    def next_state(self, stage: Stage, car: _C, move: _M, drift: int | None = None) -> _C:
        """The car after `move` and its plans (`drift`: one of the plan options' choices)."""

    @abstractmethod
    def faces(self, stage: Stage, car: _C, action: Action, outcome: Any, rng: random.Random) -> tuple[int, ...]:
        """Concrete dice faces for a roll already known to give `outcome`, drawn from `rng`
        with their probability given it: only so that a sheet reads like a real one."""


class BasicRules(Rules[State, MoveResult]):
    """The basic game: a gear (one down, the same or one up; 1st when forced), as many dice as
    the gear, one space more per 4, 5 or 6. Outcomes are speeds."""

    name = "basic"

    def start(self, race: Race, tyres: Surface | None) -> State:
        if tyres is not None:
            raise RulesError("the basic rules have no tyres")
        return rules.initial_state(race.stages[0])

    def stage_start(self, stage: Stage, car: State | None = None) -> State:
        return rules.initial_state(stage)

    def actions(self, stage: Stage, car: State) -> tuple[Action, ...]:
        return _gear_actions(rules.legal_gears(car))

    def outcomes(self, stage: Stage, car: State, action: Action) -> tuple[tuple[int, Fraction], ...]:
        if action not in self.actions(stage, car):
            raise RulesError(f"action {action!r} is not legal from {car!r} in the basic game")
        return _speeds(action.gear, rules.dice_count(stage, action.gear), rules.success_faces(stage))

    def move(self, stage: Stage, car: State, action: Action, outcome: int) -> MoveResult:
        if action.option is not None or action.skip:
            raise RulesError(f"action {action!r} is not legal in the basic game")
        return rules.apply_move(stage, car, action.gear, outcome)

    def drive(self, move: MoveResult) -> MoveResult:
        return move

    def plan_options(self, stage: Stage, car: State, move: MoveResult) -> PlanOptions:
        return rules.plan_options(stage, car, move)

    def next_state(self, stage: Stage, car: State, move: MoveResult, drift: int | None = None) -> State:
        return rules.next_state(stage, car, move, drift)

    def faces(self, stage: Stage, car: State, action: Action, outcome: int, rng: random.Random) -> tuple[int, ...]:
        return dice.faces_with_successes(
            rng,
            rules.dice_count(stage, action.gear),
            rules.successes_for_speed(stage, action.gear, outcome),
            rules.success_faces(stage),
        )

    @overload
    def transitions(
        self, stage: Stage, car: State, action: Action
    ) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, State], ...]], ...]: ...
    @overload
    def transitions(
        self, stage: Stage, car: State, action: Action, make: Callable[[int, int | None, int | None], _T]
    ) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, _T], ...]], ...]: ...
    def transitions(
        self, stage: Stage, car: State, action: Action, make: Callable[[int, int | None, int | None], Any] = State
    ) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, Any], ...]], ...]:
        """Every outcome of `action` with its plan phase at once (:func:`rules.transitions`):
        what the exact solver walks, without building a move per outcome."""
        if action.option is not None or action.skip:
            raise RulesError(f"action {action!r} is not legal in the basic game")
        return rules.transitions(stage, car, action.gear, make)


class AdvancedRules(Rules[AdvancedState, AdvancedMove]):
    """The advanced game: tyres, push / brake / skip a gear (each checks a box), three-of-a-kind
    locks, Car boxes (the last one checked puts the car out) and fix-points between stages.
    Outcomes are :class:`Roll` (speed, locks)."""

    name = "advanced"

    def tyre_choices(self, race: Race) -> tuple[Surface, ...]:
        return race.tyres

    def start(self, race: Race, tyres: Surface | None) -> AdvancedState:
        if tyres is None:
            raise RulesError("the advanced rules need the tyres chosen before the race")
        return adv.race_start(race, tyres)

    def stage_start(self, stage: Stage, car: AdvancedState | None = None) -> AdvancedState:
        if car is None:
            raise RulesError("the advanced rules carry the boxes and tyres from the stage before")
        return adv.initial_state(stage, car.tyres, car.left)

    def fix_points(self, race: Race, stage_index: int) -> int:
        if stage_index >= len(race.stages) - 1:
            return 0
        return adv.fix_points(race.stages[stage_index])

    def fix_options(self, race: Race, stage_index: int, car: AdvancedState) -> tuple[Fix, ...]:
        if stage_index >= len(race.stages) - 1:
            return ()
        return adv.fix_options(race, car.left, car.tyres, self.fix_points(race, stage_index))

    def apply_fix(self, race: Race, stage_index: int, car: AdvancedState, fix: Fix) -> AdvancedState:
        left, tyres = adv.apply_fix(race, car.left, car.tyres, fix, self.fix_points(race, stage_index))
        return AdvancedState(car.base, tyres, left)

    def actions(self, stage: Stage, car: AdvancedState) -> tuple[Action, ...]:
        return adv.legal_actions(stage, car)

    def outcomes(self, stage: Stage, car: AdvancedState, action: Action) -> tuple[tuple[Roll, Fraction], ...]:
        return adv.chance_outcomes_exact(stage, car, action)

    def move(self, stage: Stage, car: AdvancedState, action: Action, outcome: Roll) -> AdvancedMove:
        return adv.apply_move(stage, car, action, outcome)

    def drive(self, move: AdvancedMove) -> MoveResult:
        return move.move

    def out(self, move: AdvancedMove) -> bool:
        return move.out

    def plan_options(self, stage: Stage, car: AdvancedState, move: AdvancedMove) -> PlanOptions:
        return adv.plan_options(stage, car, move)

    def next_state(
        self, stage: Stage, car: AdvancedState, move: AdvancedMove, drift: int | None = None
    ) -> AdvancedState:
        return adv.next_state(stage, car, move, drift)

    def faces(
        self, stage: Stage, car: AdvancedState, action: Action, outcome: Roll, rng: random.Random
    ) -> tuple[int, ...]:
        n = adv.dice_count(stage, car.tyres, action)
        rule = adv.tyre_rule(car.tyres, stage.surface)
        return dice.faces_from_counts(
            rng, _face_table(n, rule, (outcome.speed - BASE_SPEED[action.gear], outcome.locks))
        )


@cache
def _gear_actions(gears: tuple[int, ...]) -> tuple[Action, ...]:
    return tuple(Action(g) for g in gears)


@cache
def _speeds(gear: int, n: int, faces: frozenset[int]) -> tuple[tuple[int, Fraction], ...]:
    """The basic roll: base speed + one per success, exactly (rules.chance_outcomes in floats)."""
    base = BASE_SPEED[gear]
    return tuple((base + k, p) for k, p in dice.successes(n, faces))


@cache
def _face_table(n: int, rule: TyreRule, key: tuple[int, bool]) -> tuple:
    table = dice.conditional_face_counts(n, adv.roll_outcome(rule), key)
    return tuple((c, float(p)) for c, p in table)


BASIC = BasicRules()
ADVANCED = AdvancedRules()
VARIANTS: dict[str, Rules[Any, Any]] = {r.name: r for r in (BASIC, ADVANCED)}


def rules_named(name: str) -> Rules[Any, Any]:
    """The rule set called `name` ("basic" or "advanced")."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported variant: {name!r} (expected {' or '.join(map(repr, VARIANTS))})") from None


@dataclass(frozen=True, slots=True)
class RaceState:
    """A race of one car, one decision or one roll at a time (the module docstring's phases).

    car: the car between two turns; during ROLL and PLAN the car before the move (None before
    the tyres are chosen). action: the turn's action (ROLL, PLAN). move and plan: what the move
    did and the plans it calls for (PLAN). At OVER the car is where the race ended for it:
    across the last finish line, or out on stage `stage_index`."""

    race: Race
    rules: Rules[Any, Any]
    phase: str
    stage_index: int = 0
    car: Car | None = None
    action: Action | None = None
    move: Move | None = None
    plan: PlanOptions | None = None
    # ROLL: the rules' outcomes of `action`, worked out once (they follow from the fields above)
    outcomes: tuple[tuple[Any, Fraction], ...] = field(default=(), compare=False, repr=False)

    @staticmethod
    def start(race: Race, rules: Rules[Any, Any] | str = "basic") -> RaceState:
        variant = rules if isinstance(rules, Rules) else rules_named(rules)
        if not race.stages:
            raise RulesError(f"race {race.name!r} has no stages")
        if variant.tyre_choices(race):
            return RaceState(race, variant, TYRES)
        return RaceState(race, variant, GEAR, 0, variant.start(race, None))

    # -- queries

    @property
    def stage(self) -> Stage:
        return self.race.stages[self.stage_index]

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance(self) -> bool:
        return self.phase == ROLL

    def chance_outcomes(self) -> tuple[tuple[Any, Fraction], ...]:
        if self.outcomes or self.phase != ROLL:
            return self.outcomes
        return self.rules.outcomes(self.stage, self.car, self.turn_action())  # a ROLL state made by hand

    def turn_action(self) -> Action:
        """The turn's action, which a ROLL or PLAN state has."""
        if self.action is None:
            raise RulesError(f"a {self.phase} state without the turn's action")
        return self.action

    def turn_move(self) -> Move:
        """What the turn's move did, which a PLAN state has."""
        if self.move is None:
            raise RulesError(f"a {self.phase} state without the turn's move")
        return self.move

    def move_plans(self) -> PlanOptions:
        """The plans the move calls for, which a PLAN state has."""
        if self.plan is None:
            raise RulesError(f"a {self.phase} state without the move's plan options")
        return self.plan

    def race_car(self) -> Car:
        """The car, which every state has once the tyres are chosen."""
        if self.car is None:
            raise RulesError(f"a {self.phase} state without its car")
        return self.car

    def legal_actions(self) -> tuple[Any, ...]:
        phase = self.phase
        if phase == GEAR:
            return self.rules.actions(self.stage, self.car)
        if phase == PLAN:
            return self.move_plans().drift_choices
        if phase == TYRES:
            return self.rules.tyre_choices(self.race)
        if phase == FIX:
            return self.rules.fix_options(self.race, self.stage_index, self.car)
        return ()

    # -- transitions

    def apply(self, action: Any) -> RaceState:
        """Apply a roll's outcome (ROLL) or a decision: tyres, an Action, a plan (None or a
        corner's index), a Fix. The rules refuse what is not legal (RulesError)."""
        phase = self.phase
        race, variant, k = self.race, self.rules, self.stage_index
        if phase == GEAR:  # the rules check the action while they list its outcomes
            return RaceState(
                race, variant, ROLL, k, self.car, action, outcomes=variant.outcomes(self.stage, self.car, action)
            )
        if phase == ROLL:
            if not any(o == action for o, _ in self.chance_outcomes()):
                raise RulesError(f"{action!r} is not a possible roll of {self.action!r}")
            return self._rolled(action)
        if phase == PLAN:
            choices = self.move_plans().drift_choices
            if action not in choices:
                raise RulesError(f"{action!r} is not a plan after this move (one of {choices!r})")
            return RaceState(race, variant, GEAR, k, variant.next_state(self.stage, self.car, self.move, action))
        if phase == FIX:  # the rules check the fix while they apply it
            return self._next_stage(variant.apply_fix(race, k, self.car, action))
        if phase == TYRES:
            if action not in self.legal_actions():
                raise RulesError(f"tyres {action!r} are not allowed in race {race.name!r}")
            return RaceState(race, variant, GEAR, 0, variant.start(race, action))
        raise RulesError("the race is over")

    def _rolled(self, outcome: Any) -> RaceState:
        race, variant, k, stage, car = self.race, self.rules, self.stage_index, self.stage, self.car
        move = variant.move(stage, car, self.turn_action(), outcome)
        if move.finished or variant.out(move):
            end = variant.next_state(stage, car, move)
            if variant.out(move) or k == len(race.stages) - 1:
                return RaceState(race, variant, OVER, k, end)
            if variant.fix_points(race, k):
                return RaceState(race, variant, FIX, k, end)
            return self._next_stage(end)
        return RaceState(race, variant, PLAN, k, car, self.action, move, variant.plan_options(stage, car, move))

    def _next_stage(self, car: Car) -> RaceState:
        k = self.stage_index + 1
        return RaceState(self.race, self.rules, GEAR, k, self.rules.stage_start(self.race.stages[k], car))
