"""Rallytaire advanced-game rules engine (rulebook "Advanced game"; RULINGS.md "Advanced game").

The advanced game is the basic game plus options, tyres and boxes, so this engine is built on
:mod:`sheetgen.games.rallytaire.rules`: corners, crashes, plans and the finish are the basic
engine's (:func:`rules.drive`, :func:`rules.plan_options`, :func:`rules.next_state`). What
this module adds is which gears and dice a turn may use, what a roll means on a surface with
given tyres, which boxes a turn checks, when the car is out, and the fix-points between
stages. The basic game is the special case: tyres matching the surface and no option taken
give exactly the basic engine's chance outcomes and moves (tests pin this).

Same OpenSpiel shape as the basic engine: an immutable :class:`AdvancedState`;
:func:`legal_actions`; :func:`chance_outcomes` as exact ``(Roll, probability)`` pairs from
:mod:`sheetgen.dice` (exact Fractions in :func:`roll_distribution`); :func:`apply_move`;
then :func:`plan_options` / :func:`next_state`. Between stages: :func:`fix_points`,
:func:`fix_options`, :func:`apply_fix`. :mod:`sheetgen.games.rallytaire.engine` makes these
the ADVANCED variant of the one engine both rule sets share (its whole-race state).

Rulings sheetgen adds (the rulebook and RULINGS.md are silent; README lists them):

1. Car boxes: every crash checks one Car box, and the crash that checks the last unchecked
   Car box puts the car out of the race (DNF). With the default 3 Car boxes the third crash
   is out ("if you crash for the third time ... you are out"); ``car: 1`` makes the first
   crash out, ``car: 9`` the ninth. The turn the car goes out counts 10 s and has no lost turn.
2. Brake hard never takes the dice below 0; a turn with 0 dice has speed = base speed.
   Braking is not offered when no die would be rolled anyway (it would only check a box).
3. Push and brake may be used on any turn, the first turn of a stage and the 1st-gear turn
   after a crash included; base speed is the gear's, whatever the dice count.
4. Skip a gear (two gears down) is a gear change: not on a forced 1st-gear turn and not under
   a three-of-a-kind lock. It may be combined with push or brake in the same turn (push and
   brake are never combined with each other).
5. Three of a kind (at least three of the dice actually rolled, after push, brake and the
   tyre rule, show the same number, 1s included) locks the gear on the next turn: the next
   turn is in the same gear, no shift and no skip; push and brake stay allowed.
6. A crash clears the lock: the "next turn" is the lost turn, and the turn after it is in 1st
   gear as usual. A lock from a stage's finishing turn does not carry into the next stage,
   which starts in 1st gear (as does every stage).
7. "Every 1 cancels one 4, 5 or 6": net successes = successes - ones, never below 0; speed
   never drops below the base speed.
8. "One die less" (gravel or snow tyres on asphalt) applies to the gear's dice before push and
   brake: 1st gear rolls 0 dice (speed 1), push adds one back, brake removes one more.
9. Boxes carry over from stage to stage; only fix-points uncheck them. Between two stages a
   player may use up to the available fix-points (4 after a stage marked ``service_park``,
   else 2; none after the last stage); unused points are lost. A point unchecks one checked
   box, or changes tyres (at most once per service, to tyres the race allows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from functools import cache
from itertools import product
from typing import NamedTuple

from sheetgen import dice
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.model import BASE_SPEED, MIN_GEAR, Boxes, Race, Stage, Surface
from sheetgen.games.rallytaire.rules import MoveResult, PlanOptions, RulesError, State
from sheetgen.games.rallytaire.timetable import TURN_TENTHS

#: The kinds of boxes on the sheet, in the order the sheet prints them.
BOX_KINDS = ("engine", "brakes", "gearbox", "car")
#: Fix-points between stages (rulebook "Between stages").
SERVICE_PARK_POINTS = 4
ROADSIDE_POINTS = 2
#: Dice needed for a three-of-a-kind lock.
KIND = 3


class Option(str, Enum):
    """A dice option for one turn (rulebook "Push the engine", "Break hard")."""

    PUSH = "push"
    BRAKE = "brake"


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """What a player decides before rolling: the gear, at most one dice option, and whether
    the gear is reached by skipping one (two gears down, a Gearbox box)."""

    gear: int
    option: Option | None = None
    skip: bool = False

    @property
    def checks(self) -> Boxes:
        """Boxes this action checks (a crash checks a Car box on top)."""
        return Boxes(
            engine=int(self.option is Option.PUSH),
            brakes=int(self.option is Option.BRAKE),
            gearbox=int(self.skip),
            car=0,
        )


class Roll(NamedTuple):
    """What matters of a roll: the speed, and whether it locks the next turn's gear."""

    speed: int
    locks: bool


@dataclass(frozen=True)
class TyreRule:
    """How tyres on a surface change the dice (rulebook "Choose tires")."""

    success_faces: frozenset[int] = dice.HIGH_FACES
    die_less: bool = False
    ones_cancel: bool = False
    three_locks: bool = False

    @property
    def is_basic(self) -> bool:
        return self == MATCHING


MATCHING = TyreRule()
_FIVE_SIX = frozenset({5, 6})

#: (tyres, surface) -> rule, exactly the rulebook's list; matching tyres change nothing.
TYRE_RULES: dict[tuple[Surface, Surface], TyreRule] = {
    (Surface.ASPHALT, Surface.ASPHALT): MATCHING,
    (Surface.GRAVEL, Surface.GRAVEL): MATCHING,
    (Surface.SNOW, Surface.SNOW): MATCHING,
    (Surface.ASPHALT, Surface.GRAVEL): TyreRule(success_faces=_FIVE_SIX),
    (Surface.GRAVEL, Surface.SNOW): TyreRule(three_locks=True),
    (Surface.ASPHALT, Surface.SNOW): TyreRule(success_faces=_FIVE_SIX, three_locks=True),
    (Surface.SNOW, Surface.GRAVEL): TyreRule(ones_cancel=True),
    (Surface.GRAVEL, Surface.ASPHALT): TyreRule(die_less=True),
    (Surface.SNOW, Surface.ASPHALT): TyreRule(die_less=True, ones_cancel=True),
}


def tyre_rule(tyres: Surface, surface: Surface) -> TyreRule:
    try:
        return TYRE_RULES[(tyres, surface)]
    except KeyError:  # plain strings, or not a surface at all
        return TYRE_RULES[(Surface(tyres), Surface(surface))]


@dataclass(frozen=True, slots=True)
class AdvancedState:
    """A car between two turns of one stage of the advanced game.

    base: the basic game's state (position, last gear, pending D).
    tyres: the tyres on the car. left: boxes still unchecked, per kind.
    locked: the last roll was a three of a kind on tyres where that matters: this turn keeps
        the last gear. out: the car is out of the race (DNF).
    """

    base: State
    tyres: Surface
    left: Boxes
    locked: bool = False
    out: bool = False

    @property
    def position(self) -> int:
        return self.base.position

    @property
    def last_gear(self) -> int | None:
        return self.base.last_gear

    @property
    def pending_drift(self) -> int | None:
        return self.base.pending_drift


@dataclass(frozen=True, slots=True)
class AdvancedMove:
    """What one turn did, before the plan phase.

    move: the basic move (position, corners crossed, crash, finish).
    dice: dice rolled. checked: boxes checked this turn (the action's, plus a Car box for a
    crash). locks: the next turn keeps this gear. out: the crash put the car out of the race.
    tenths / turns: time and sheet turns the move uses (a crash that puts the car out has no
    lost turn: 10 s, one turn).
    """

    move: MoveResult
    action: Action
    roll: Roll
    dice: int
    checked: Boxes
    locks: bool
    out: bool
    tenths: int
    turns: int

    @property
    def finished(self) -> bool:
        return self.move.finished


# --------------------------------------------------------------------------- dice


def dice_count(stage: Stage, tyres: Surface, action: Action) -> int:
    """Dice rolled: the gear, one less for tyres that say so, then +1 push / -1 brake,
    never below 0."""
    n = _gear_dice(action.gear, tyre_rule(tyres, stage.surface).die_less)
    if action.option is Option.PUSH:
        n += 1
    elif action.option is Option.BRAKE:
        n -= 1
    return max(0, n)


def _gear_dice(gear: int, die_less: bool) -> int:
    """Dice of a gear before push and brake: the gear, one less for tyres that say so."""
    return max(0, gear - (1 if die_less else 0))


def roll_outcome(rule: TyreRule) -> Callable[[tuple[int, ...]], tuple[int, bool]]:
    """Outcome function for :func:`dice.outcome_distribution`: (net successes, locks)."""
    count = (
        dice.cancelled_successes(rule.success_faces)
        if rule.ones_cancel
        else dice.count_faces(rule.success_faces)
    )
    kind = dice.of_a_kind(KIND)
    if rule.three_locks:
        return lambda counts: (count(counts), kind(counts))
    return lambda counts: (count(counts), False)


@cache
def roll_distribution(n: int, rule: TyreRule) -> tuple[tuple[tuple[int, bool], Fraction], ...]:
    """Exact distribution of ``(net successes, locks)`` for `n` dice under `rule`."""
    if not (rule.ones_cancel or rule.three_locks):  # the fast path: a plain binomial
        return tuple(((k, False), p) for k, p in dice.successes(n, rule.success_faces))
    return dice.outcome_distribution(n, roll_outcome(rule))


@cache
def _chance(gear: int, n: int, rule: TyreRule) -> tuple[tuple[Roll, float], ...]:
    base = BASE_SPEED[gear]
    return tuple((Roll(base + k, locks), float(p)) for (k, locks), p in roll_distribution(n, rule))


@cache
def _chance_exact(gear: int, n: int, rule: TyreRule) -> tuple[tuple[Roll, Fraction], ...]:
    base = BASE_SPEED[gear]
    return tuple((Roll(base + k, locks), p) for (k, locks), p in roll_distribution(n, rule))


# --------------------------------------------------------------------------- turns


def initial_state(stage: Stage, tyres: Surface, left: Boxes) -> AdvancedState:
    """Behind the start line of `stage`, first turn in 1st gear, with `left` unchecked boxes."""
    rules.check_stage(stage)
    _check_left(left)
    if left.car < 1:
        raise RulesError(f"a car with no unchecked Car box is out, got {left!r}")
    return AdvancedState(base=rules.initial_state(stage), tyres=Surface(tyres), left=left)


def race_start(race: Race, tyres: Surface) -> AdvancedState:
    """The start of the race's first stage with every box unchecked and the chosen tyres."""
    if Surface(tyres) not in race.tyres:
        allowed = ", ".join(t.value for t in race.tyres)
        raise RulesError(f"tyres {Surface(tyres).value!r} are not allowed in this race ({allowed})")
    return initial_state(race.stages[0], tyres, race.boxes)


def _check_left(left: Boxes) -> None:
    for kind in BOX_KINDS:
        if getattr(left, kind) < 0:
            raise RulesError(f"{kind} boxes left must be >= 0, got {getattr(left, kind)!r}")


def legal_gears(state: AdvancedState) -> tuple[int, ...]:
    """Gears the next turn may use, skipping included (ascending): 1st when forced, the last
    gear under a lock, else one down, the same or one up, and two down with a Gearbox box."""
    last = state.last_gear
    if last is None:
        return (MIN_GEAR,)
    if state.locked:
        return (last,)
    gears = rules.legal_gears(state.base)
    if last - 2 >= MIN_GEAR and state.left.gearbox > 0:
        gears = (last - 2, *gears)
    return gears


def legal_actions(stage: Stage, state: AdvancedState) -> tuple[Action, ...]:
    """Every legal action, in the order ties are broken: plain gears ascending, then brake,
    then push; skipping after the same-gear alternatives."""
    if state.out:
        raise RulesError("the car is out of the race")
    if state.position >= stage.finish:
        raise RulesError(f"stage {stage.name!r} is already finished")
    left = state.left
    return _actions(
        legal_gears(state),
        state.last_gear,
        left.engine > 0,
        left.brakes > 0,
        tyre_rule(state.tyres, stage.surface).die_less,
    )


@cache
def _actions(
    gears: tuple[int, ...], last: int | None, can_push: bool, can_brake: bool, die_less: bool
) -> tuple[Action, ...]:
    out: list[Action] = []
    for gear in gears:
        skip = last is not None and gear == last - 2
        out.append(Action(gear, None, skip))
        if can_brake and _gear_dice(gear, die_less) > 0:  # nothing to brake away (ruling 2)
            out.append(Action(gear, Option.BRAKE, skip))
        if can_push:
            out.append(Action(gear, Option.PUSH, skip))
    out.sort(key=lambda a: (a.skip, a.option is not None, a.option is Option.PUSH, a.gear))
    return tuple(out)


def _check_action(stage: Stage, state: AdvancedState, action: Action) -> None:
    if action not in legal_actions(stage, state):
        raise RulesError(f"action {action!r} is not legal from {state!r}")


def chance_outcomes(
    stage: Stage, state: AdvancedState, action: Action
) -> tuple[tuple[Roll, float], ...]:
    """Exact ``(Roll, probability)`` pairs of `action` from `state`, ascending."""
    _check_action(stage, state, action)
    rule = tyre_rule(state.tyres, stage.surface)
    return _chance(action.gear, dice_count(stage, state.tyres, action), rule)


def chance_outcomes_exact(
    stage: Stage, state: AdvancedState, action: Action
) -> tuple[tuple[Roll, Fraction], ...]:
    """:func:`chance_outcomes` with Fraction probabilities."""
    _check_action(stage, state, action)
    rule = tyre_rule(state.tyres, stage.surface)
    return _chance_exact(action.gear, dice_count(stage, state.tyres, action), rule)


def apply_move(stage: Stage, state: AdvancedState, action: Action, roll: Roll) -> AdvancedMove:
    """Drive `action` with the dice showing `roll`; check the boxes it uses."""
    outcomes = chance_outcomes(stage, state, action)
    if not any(r == roll for r, _ in outcomes):
        raise RulesError(f"roll {roll!r} is impossible for {action!r} on this stage")
    res = rules.drive(stage, state.base, action.gear, roll.speed)
    used = action.checks
    crash = res.crash is not None
    out = crash and state.left.car <= 1
    checked = replace(used, car=int(crash))
    if out:
        tenths, turns = TURN_TENTHS, 1
    else:
        tenths, turns = res.tenths, res.turns
    locks = roll.locks and not crash and not res.finished
    return AdvancedMove(
        move=res,
        action=action,
        roll=roll,
        dice=dice_count(stage, state.tyres, action),
        checked=checked,
        locks=locks,
        out=out,
        tenths=tenths,
        turns=turns,
    )


_NOTHING_TO_PLAN = PlanOptions(entered=(), drift_choices=(None,))


def plan_options(stage: Stage, prev_state: AdvancedState, result: AdvancedMove) -> PlanOptions:
    """The basic plan phase; a car that is out plans nothing."""
    if result.out:
        return _NOTHING_TO_PLAN
    return rules.plan_options(stage, prev_state.base, result.move)


def next_state(
    stage: Stage, prev_state: AdvancedState, result: AdvancedMove, drift: int | None = None
) -> AdvancedState:
    """The state after the plan phase: boxes checked, lock set or cleared."""
    left = Boxes(**{k: getattr(prev_state.left, k) - getattr(result.checked, k) for k in BOX_KINDS})
    if result.out:
        return AdvancedState(
            base=State(result.move.position, None, None),
            tyres=prev_state.tyres,
            left=left,
            out=True,
        )
    base = rules.next_state(stage, prev_state.base, result.move, drift)
    return AdvancedState(base=base, tyres=prev_state.tyres, left=left, locked=result.locks)


def finished(stage: Stage, state: AdvancedState) -> bool:
    return state.position >= stage.finish


# --------------------------------------------------------------------------- between stages


@dataclass(frozen=True, slots=True, order=True)
class Fix:
    """How fix-points are spent between two stages: boxes unchecked per kind, and the new
    tyres (None: keep them)."""

    engine: int = 0
    brakes: int = 0
    gearbox: int = 0
    car: int = 0
    tyres: Surface | None = None

    @property
    def points(self) -> int:
        return self.engine + self.brakes + self.gearbox + self.car + (self.tyres is not None)


def fix_points(stage: Stage) -> int:
    """Fix-points available after `stage`: 4 when a service park follows it, else 2."""
    return SERVICE_PARK_POINTS if stage.service_park else ROADSIDE_POINTS


def fix_options(race: Race, left: Boxes, tyres: Surface, points: int) -> tuple[Fix, ...]:
    """Every legal way to spend up to `points` fix-points, in the order ties are broken: more
    boxes unchecked first (points are free), Car before Engine before Gearbox before Brakes;
    changing tyres after keeping them."""
    _check_left(left)
    checked = [getattr(race.boxes, k) - getattr(left, k) for k in BOX_KINDS]
    if any(c < 0 for c in checked):
        raise RulesError(f"more boxes left than printed: {left!r} of {race.boxes!r}")
    if points < 0:
        raise RulesError(f"fix-points must be >= 0, got {points!r}")
    changes: list[Surface | None] = [None, *(t for t in race.tyres if t != tyres)]
    fixes = []
    for new_tyres in changes:
        budget = points - (new_tyres is not None)
        if budget < 0:
            continue
        for e, b, g, c in product(*(range(min(k, budget) + 1) for k in checked)):
            if e + b + g + c <= budget:
                fixes.append(Fix(engine=e, brakes=b, gearbox=g, car=c, tyres=new_tyres))
    fixes.sort(
        key=lambda f: (
            f.tyres is not None,
            -(f.engine + f.brakes + f.gearbox + f.car),
            -f.car,
            -f.engine,
            -f.gearbox,
            -f.brakes,
            race.tyres.index(f.tyres) if f.tyres is not None else -1,
        )
    )
    return tuple(fixes)


def apply_fix(
    race: Race, left: Boxes, tyres: Surface, fix: Fix, points: int
) -> tuple[Boxes, Surface]:
    """Boxes left and tyres after spending fix-points as `fix` (one of :func:`fix_options`)."""
    if fix not in fix_options(race, left, tyres, points):
        raise RulesError(f"{fix!r} is not a legal use of {points} fix-points with {left!r}")
    new_left = Boxes(**{k: getattr(left, k) + getattr(fix, k) for k in BOX_KINDS})
    return new_left, (fix.tyres if fix.tyres is not None else Surface(tyres))


def next_stage_state(
    race: Race, stage_index: int, left: Boxes, tyres: Surface
) -> AdvancedState:
    """The start of stage `stage_index` (after its fix-points were spent)."""
    return initial_state(race.stages[stage_index], tyres, left)
