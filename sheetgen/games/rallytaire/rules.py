"""Rallytaire basic-game rules engine (rulebook "Turn Sequence"; RULINGS.md "Rallytaire").

OpenSpiel style: an immutable, hashable :class:`State`; :func:`legal_gears`;
:func:`chance_outcomes` as exact ``(speed, probability)`` pairs; :func:`apply_move` for the
move itself; then :func:`plan_options` / :func:`next_state` for the plan phase, which is a
decision the player takes *after* seeing the dice. :func:`transitions` gives all of that at
once for every dice outcome of a gear, as plain values, for exact solvers. The solver and the
simulator go through these functions only (by way of the one engine of both rule sets,
:mod:`sheetgen.games.rallytaire.engine`): no other module re-implements a rule.

Why the state is this small: the car's position never decreases (a crash stops it on the
corner's `after` space, never behind its start), so the corners planned so far are exactly
those whose zone begins at or before the position, and the only planning decision that still
matters is which corner, if any, is planned D and not yet driven through. The lost turn after
a crash is folded into the crash move (it costs time but decides nothing).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, TypeVar, overload

from sheetgen import dice
from sheetgen.errors import SheetgenError
from sheetgen.games.rallytaire.model import BASE_SPEED, MAX_GEAR, MIN_GEAR, Stage
from sheetgen.games.rallytaire.timetable import TURN_TENTHS, finish_tenths

_T = TypeVar("_T")


class RulesError(SheetgenError, ValueError):
    """A stage the rules cannot be played on, or an illegal action for a state."""


@dataclass(frozen=True, slots=True)
class State:
    """Where a car stands between two turns of one stage.

    position: 0 before the start line, 1..length on the track, length+1 when finished.
    last_gear: gear of the previous turn; None when the next turn is forced into 1st
        (the stage's first turn, and the turn after a crash's lost turn).
    pending_drift: index into ``stage.corners`` of the corner planned D and not yet driven
        through, or None. At most one exists (rulebook, "Plan corners").
    """

    position: int
    last_gear: int | None = None
    pending_drift: int | None = None


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What one move did, before the plan phase.

    moved: spaces actually travelled: `speed`, or fewer when the car stopped at a crash
        (on the corner's `after` space) or at the invisible finish space length+1.
    crossed: corners driven through safely, in track order (indices into ``stage.corners``).
    crash: index of the corner the car crashed at, or None.
    tenths: time the move costs in tenths of a second: 100 for a turn, 200 for a crash
        (the crash turn and the lost turn), or the time table's value on the finishing turn.
    turns: turns the move uses on the sheet (2 for a crash).
    pending_drift: the corner still planned D and not driven through after the move.
    """

    start: int
    position: int
    gear: int
    speed: int
    moved: int
    crossed: tuple[int, ...]
    crash: int | None
    finished: bool
    tenths: int
    turns: int
    pending_drift: int | None


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """The plan phase after a move.

    entered: corners whose planning zone the car now stands in for the first time; they are
        planned now (track order).
    drift_choices: the legal choices. None plans every entered corner N; an index i plans
        corner i D and the others N. Only None is offered while a D is still pending.
    """

    entered: tuple[int, ...]
    drift_choices: tuple[int | None, ...]


@dataclass(frozen=True)
class _Track:
    """Per-stage lookup tables, built once per stage so a move costs a bisect and a scan."""

    finish: int
    afters: tuple[int, ...]  # corner `after` values in track order
    order: tuple[int, ...]  # corner indices in track order
    limits: tuple[int, ...]  # gear limit per corner index
    zones: tuple[int, ...]  # zone start per corner index
    in_zone: tuple[tuple[int, ...], ...]  # per position 0..finish: corners whose zone holds it
    last_zone: tuple[int, ...]  # per position: the highest zone start in in_zone, 0 if none


def _track(stage: Stage) -> _Track:
    """Tables for `stage`, built once per stage (a pure memo; a Stage keeps its own hash, so
    the look-up costs little however often the solvers call the engine)."""
    return _build_track(stage)


@lru_cache(maxsize=256)
def _build_track(stage: Stage) -> _Track:
    if stage.length < 1:
        raise RulesError(f"stage {stage.name!r}: length must be >= 1, got {stage.length!r}")
    for i, c in enumerate(stage.corners):
        where = f"stage {stage.name!r}: corner {i} (after {c.after!r})"
        if not 1 <= c.after <= stage.length - 1:
            raise RulesError(f"{where}: after must be in 1..{stage.length - 1}, got {c.after!r}")
        if not MIN_GEAR <= c.gear <= MAX_GEAR:
            # A limit below 1 would make every crossing a crash and the stage unfinishable.
            raise RulesError(f"{where}: gear must be in {MIN_GEAR}..{MAX_GEAR}, got {c.gear!r}")
        if not 1 <= c.zone <= c.after:
            raise RulesError(f"{where}: zone must be in 1..{c.after}, got {c.zone!r}")
    order = tuple(sorted(range(len(stage.corners)), key=lambda i: (stage.corners[i].after, i)))
    finish = stage.finish
    in_zone = tuple(
        tuple(i for i in order if stage.corners[i].zone <= p <= stage.corners[i].after)
        for p in range(finish + 1)
    )
    return _Track(
        finish=finish,
        afters=tuple(stage.corners[i].after for i in order),
        order=order,
        limits=tuple(c.gear for c in stage.corners),
        zones=tuple(c.zone for c in stage.corners),
        in_zone=in_zone,
        last_zone=tuple(max((stage.corners[i].zone for i in here), default=0) for here in in_zone),
    )


def check_stage(stage: Stage) -> None:
    """Raise :class:`RulesError` if the rules cannot be played on `stage`."""
    _track(stage)


def initial_state(stage: Stage) -> State:
    """Behind the start line, first turn forced into 1st gear."""
    _track(stage)
    return State(position=0)


def finished(stage: Stage, state: State) -> bool:
    return state.position >= stage.finish


_LEGAL = {None: (MIN_GEAR,)} | {
    g: tuple(range(max(MIN_GEAR, g - 1), min(MAX_GEAR, g + 1) + 1))
    for g in range(MIN_GEAR, MAX_GEAR + 1)
}


def legal_gears(state: State) -> tuple[int, ...]:
    """1st when forced, else one down, the same or one up, within 1..5 (ascending)."""
    try:
        return _LEGAL[state.last_gear]
    except KeyError:
        raise RulesError(f"last gear must be None or in 1..5, got {state.last_gear!r}") from None


def dice_count(stage: Stage, gear: int) -> int:
    """Dice rolled in `gear` (basic game: as many as the gear)."""
    return gear


def success_faces(stage: Stage) -> frozenset[int]:
    """Faces that add 1 to the speed (basic game: 4, 5 or 6 on any stage)."""
    return dice.HIGH_FACES


@cache
def _speed_distribution(gear: int, n: int, faces: frozenset[int]) -> tuple[tuple[int, float], ...]:
    base = BASE_SPEED[gear]
    return tuple((base + k, p) for k, p in dice.to_float(dice.successes(n, faces)))


def chance_outcomes(stage: Stage, state: State, gear: int) -> tuple[tuple[int, float], ...]:
    """Exact ``(speed, probability)`` pairs for driving `gear` from `state`, ascending speed.

    Speed = base speed + one per die showing 4-6; the probabilities are C(n, k) / 2**n,
    exactly representable as floats."""
    if gear not in legal_gears(state):
        raise RulesError(f"gear {gear!r} is not legal after last gear {state.last_gear!r}")
    return _speed_distribution(gear, dice_count(stage, gear), success_faces(stage))


def successes_for_speed(stage: Stage, gear: int, speed: int) -> int:
    """Dice that showed 4-6 in a roll that gave `speed` in `gear` (for writing dice down)."""
    k = speed - BASE_SPEED[gear]
    if not 0 <= k <= dice_count(stage, gear):
        raise RulesError(f"speed {speed!r} is impossible in gear {gear!r}")
    return k


def apply_move(stage: Stage, state: State, gear: int, speed: int) -> MoveResult:
    """Move `speed` spaces in `gear`, checking the corners crossed in track order.

    A corner is crossed by a move that starts at or before its `after` space and ends beyond
    it. It is safe in its gear or lower, one higher when it is the pending D. The first unsafe
    one is a crash: the car stops on `after`, and the move costs two turns."""
    if state.position >= _track(stage).finish:
        raise RulesError(f"stage {stage.name!r} is already finished")
    if gear not in legal_gears(state):
        raise RulesError(f"gear {gear!r} is not legal after last gear {state.last_gear!r}")
    if not 0 <= speed - BASE_SPEED[gear] <= dice_count(stage, gear):
        raise RulesError(f"speed {speed!r} is impossible in gear {gear!r}")
    return drive(stage, state, gear, speed)


def drive(stage: Stage, state: State, gear: int, speed: int) -> MoveResult:
    """The move of :func:`apply_move` once the gear and speed are known to be legal.

    The advanced game (:mod:`sheetgen.games.rallytaire.rules_advanced`) has its own legal
    gears (skip a gear, three-of-a-kind locks) and dice counts (push, brake, tyres); it checks
    those itself and then moves through here, so corners, crashes and the finish are decided
    in one place for both games."""
    t = _track(stage)
    if state.position >= t.finish:
        raise RulesError(f"stage {stage.name!r} is already finished")
    if not MIN_GEAR <= gear <= MAX_GEAR:
        raise RulesError(f"gear must be in {MIN_GEAR}..{MAX_GEAR}, got {gear!r}")
    if speed < 1:
        raise RulesError(f"speed must be >= 1, got {speed!r}")
    start = state.position
    ((position, crossed, crash, done, tenths, pending),) = _moves(
        t, start, state.pending_drift, gear, (speed,)
    )
    return MoveResult(
        start=start,
        position=position,
        gear=gear,
        speed=speed,
        moved=position - start,
        crossed=crossed,
        crash=crash,
        finished=done,
        tenths=tenths,
        turns=1 if crash is None else 2,
        pending_drift=pending,
    )


#: What :func:`_moves` gives per speed: (position, crossed, crash, finished, tenths, pending D
#: left after the move), the MoveResult fields that depend on the speed.
_Row = tuple[int, tuple[int, ...], int | None, bool, int, int | None]


def _moves(
    t: _Track, start: int, pending: int | None, gear: int, speeds: Sequence[int]
) -> list[_Row]:
    """The rule of :func:`drive` for each of `speeds` (ascending, each >= 1), unchecked, on
    plain values.

    The first corner from `start` that `gear` cannot take (above its limit, +1 as the pending
    D) does not depend on the speed: every move that crosses it crashes there, and the others
    cross only safe corners. So it is found once for all the speeds of a roll, and the speeds
    that crash share one row (the same object). :func:`drive` (one speed) and
    :func:`transitions` (all of them) both move through here, so the rule exists once."""
    afters, order, finish = t.afters, t.order, t.finish
    lo = bisect_left(afters, start)  # corners with start <= after ...
    reach = start + speeds[-1]
    if reach > finish:
        reach = finish
    stop = finish  # ... < end are crossed; a move with end > stop crashes (into crash_row)
    crash_row: _Row | None = None
    for j in range(lo, bisect_left(afters, reach, lo)):
        i = order[j]
        if gear > t.limits[i] + (1 if i == pending else 0):
            stop = afters[j]
            crossed = order[lo:j]
            left = None if pending in crossed else pending
            crash_row = (stop, crossed, i, False, 2 * TURN_TENTHS, left)
            break
    rows: list[_Row] = []
    for speed in speeds:
        end = start + speed
        if end > finish:
            end = finish
        if crash_row is not None and end > stop:
            rows.append(crash_row)
            continue
        crossed = order[lo : bisect_left(afters, end, lo)]
        left = None if pending in crossed else pending
        if end == finish:
            rows.append((end, crossed, None, True, finish_tenths(end - start, speed), left))
        else:
            rows.append((end, crossed, None, False, TURN_TENTHS, left))
    return rows


_ALL_N: tuple[int | None, ...] = (None,)
_NO_PLAN = PlanOptions(entered=(), drift_choices=_ALL_N)


def plan_options(stage: Stage, prev_state: State, result: MoveResult) -> PlanOptions:
    """Corners to plan at the end of the turn of `result`, and the legal D choices.

    A corner is planned on the first turn end the car stands in its zone (zone <= position
    <= after). Because positions never decrease, it was planned before exactly when its zone
    starts at or before the previous position. At most one corner is planned D and not yet
    driven through, so a pending D allows only N, and of several corners entered together at
    most one gets D."""
    if result.finished:
        return _NO_PLAN
    entered = _entered(_track(stage), prev_state.position, result.position)
    if not entered:
        return _NO_PLAN
    return PlanOptions(entered=entered, drift_choices=_drift_choices(entered, result.pending_drift))


def _entered(t: _Track, prev: int, position: int) -> tuple[int, ...]:
    """The corners :func:`plan_options` plans after a move from `prev` to `position`."""
    if t.last_zone[position] <= prev:  # the common case: nothing new here, no tuple to build
        return ()
    return tuple(i for i in t.in_zone[position] if t.zones[i] > prev)


def _drift_choices(entered: tuple[int, ...], pending: int | None) -> tuple[int | None, ...]:
    """The D choices of :func:`plan_options`, `pending` being the D left after the move."""
    if pending is not None or not entered:
        return _ALL_N
    return (None, *entered)


def next_state(
    stage: Stage, prev_state: State, result: MoveResult, drift: int | None = None
) -> State:
    """The state after the plan phase, `drift` being one of ``plan_options(...).drift_choices``.

    After a crash the next turn is forced into 1st gear (the lost turn is already counted)."""
    if drift is not None and drift not in plan_options(stage, prev_state, result).drift_choices:
        raise RulesError(f"corner {drift!r} cannot be planned D after this move")
    return State(*_settle(result.position, result.gear, result.crash, result.pending_drift, drift))


def _settle(
    position: int, gear: int, crash: int | None, pending: int | None, drift: int | None
) -> tuple[int, int | None, int | None]:
    """The fields (position, last_gear, pending_drift) of :func:`next_state`, unchecked."""
    return position, None if crash is not None else gear, drift if drift is not None else pending


@overload
def transitions(
    stage: Stage, state: State, gear: int
) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, State], ...]], ...]: ...
@overload
def transitions(
    stage: Stage, state: State, gear: int, make: Callable[[int, int | None, int | None], _T]
) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, _T], ...]], ...]: ...
def transitions(
    stage: Stage, state: State, gear: int, make: Callable[[int, int | None, int | None], Any] = State
) -> tuple[tuple[int, float, int, int | None, tuple[tuple[int | None, Any], ...]], ...]:
    """Every dice outcome of driving `gear` from `state`, with the plan phase after it: what
    an exact solver needs, without the objects a player's turn builds.

    One entry per :func:`chance_outcomes` pair, in its order: (speed, probability, tenths,
    crash, choices). `tenths` and `crash` are those of :func:`apply_move`; `choices` pairs
    each of ``plan_options(...).drift_choices``, in order, with the :func:`next_state` it
    leads to, and is () when the move finishes (tests pin the equality). The next state is
    ``make(position, last_gear, pending_drift)``: a State by default; a solver passes a
    function that numbers states, so that it neither builds nor hashes a State per outcome.
    Outcomes that end alike (every speed that reaches the same crash) share one choices
    tuple, and `make` is called once for them."""
    dist = chance_outcomes(stage, state, gear)  # checks that the gear is legal
    t = _track(stage)
    start = state.position
    if start >= t.finish:
        raise RulesError(f"stage {stage.name!r} is already finished")
    pending = state.pending_drift
    out: list[tuple[int, float, int, int | None, tuple[tuple[int | None, Any], ...]]] = []
    choices: tuple[tuple[int | None, Any], ...]
    rows = _moves(t, start, pending, gear, [speed for speed, _ in dist])
    last: _Row | None = None
    for (speed, prob), row in zip(dist, rows):
        position, _, crash, done, tenths, left = row
        if done:
            out.append((speed, prob, tenths, crash, ()))
            continue
        if row is not last:  # the speeds that crash share one row, so one plan phase
            last = row
            drifts = _drift_choices(_entered(t, start, position), left)
            if drifts is _ALL_N:  # the common case, without building a list
                choices = ((None, make(*_settle(position, gear, crash, left, None))),)
            else:
                choices = tuple(
                    [(d, make(*_settle(position, gear, crash, left, d))) for d in drifts]
                )
        out.append((speed, prob, tenths, crash, choices))
    return tuple(out)
