"""The fast paths of the Rallytaire basic-game engine and solver, pinned exactly (==, no
tolerance) against straightforward readings of the same rules.

The solver drives the engine through `rules.transitions` (every dice outcome of a gear, with
its plan phase) and values each (position, pending D, gear) move once for all the states that
share it; `rules.drive` finds the first corner a gear cannot take once for every speed of a
roll. The brute-force tests in test_rallytaire_solve.py check par and best times to 1e-9;
these check every state's value, gear and plan choice bit for bit, the cautious policy too.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from conftest import RALLYTAIRE_SPECS
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.model import Stage
from sheetgen.games.rallytaire.rules import RulesError, State
from sheetgen.games.rallytaire.solve import TIE, analyze_stage
from sheetgen.games.rallytaire.timetable import TURN_TENTHS, finish_tenths
from sheetgen.registry import load_spec
from strategies import stages

BUNDLED = [s for path in RALLYTAIRE_SPECS for s in load_spec(path).model.stages]


def some_states(stage: Stage) -> list[State]:
    """Every position up to the finish, each previous gear, no D or a D on a corner whose
    zone holds the position (what play can reach), plus one D the position cannot have."""
    out = []
    n = len(stage.corners)
    for pos in range(stage.finish + 1):
        pendings = [None] + [i for i, c in enumerate(stage.corners) if c.zone <= pos <= c.after]
        if n:
            pendings.append(pos % n)
        for pending in dict.fromkeys(pendings):
            out += [State(pos, last, pending) for last in (None, 1, 2, 3, 4, 5)]
    return out


# --------------------------------------------------------------------------- the move


def reference_move(stage: Stage, state: State, gear: int, speed: int) -> tuple:
    """RULINGS.md corner by corner: the MoveResult fields (position, crossed, crash,
    finished, tenths, turns, pending_drift) of driving `gear` at `speed`."""
    start, pending = state.position, state.pending_drift
    end = min(start + speed, stage.finish)
    crossed: list[int] = []
    for i in sorted(range(len(stage.corners)), key=lambda i: (stage.corners[i].after, i)):
        c = stage.corners[i]
        if not start <= c.after < end:
            continue
        if gear > c.gear + (1 if i == pending else 0):
            left = None if pending in crossed else pending
            return (c.after, tuple(crossed), i, False, 2 * TURN_TENTHS, 2, left)
        crossed.append(i)
    left = None if pending in crossed else pending
    if end == stage.finish:
        return (end, tuple(crossed), None, True, finish_tenths(end - start, speed), 1, left)
    return (end, tuple(crossed), None, False, TURN_TENTHS, 1, left)


def check_drive(stage: Stage) -> None:
    for state in some_states(stage):
        if state.last_gear is not None or state.position >= stage.finish:
            continue  # drive ignores the previous gear: one of them is enough
        for gear in range(1, 6):
            for speed in range(1, 18):  # the advanced game's speeds too (push: up to 17)
                r = rules.drive(stage, state, gear, speed)
                got = (r.position, r.crossed, r.crash, r.finished, r.tenths, r.turns)
                assert (*got, r.pending_drift) == reference_move(stage, state, gear, speed)
                assert (r.start, r.gear, r.speed) == (state.position, gear, speed)
                assert r.moved == r.position - state.position


@settings(max_examples=40, deadline=None)
@given(stages(max_length=40))
def test_drive_matches_the_rule_read_corner_by_corner(stage: Stage) -> None:
    check_drive(stage)


def test_drive_matches_the_rule_on_a_bundled_stage() -> None:
    check_drive(BUNDLED[0])


# --------------------------------------------------------------------------- transitions


def check_transitions(stage: Stage) -> None:
    for state in some_states(stage):
        if state.position >= stage.finish:
            with pytest.raises(RulesError, match="already finished"):
                rules.transitions(stage, state, rules.legal_gears(state)[0])
            continue
        for gear in range(1, 6):
            if gear not in rules.legal_gears(state):
                with pytest.raises(RulesError, match="not legal"):
                    rules.transitions(stage, state, gear)
                continue
            expected = []
            for speed, p in rules.chance_outcomes(stage, state, gear):
                res = rules.apply_move(stage, state, gear, speed)
                choices = ()
                if not res.finished:
                    drifts = rules.plan_options(stage, state, res).drift_choices
                    choices = tuple((d, rules.next_state(stage, state, res, d)) for d in drifts)
                expected.append((speed, p, res.tenths, res.crash, choices))
            assert rules.transitions(stage, state, gear) == tuple(expected), (state, gear)
            # a solver's own `make` gets the next state's fields
            fields = rules.transitions(stage, state, gear, lambda *f: f)
            assert fields == tuple(
                (*o[:4], tuple((d, (s.position, s.last_gear, s.pending_drift)) for d, s in o[4]))
                for o in expected
            )


@settings(max_examples=40, deadline=None)
@given(stages(max_length=40))
def test_transitions_are_the_turn_functions(stage: Stage) -> None:
    check_transitions(stage)


def test_transitions_on_a_bundled_stage() -> None:
    check_transitions(BUNDLED[-1])


# --------------------------------------------------------------------------- the solver


def reference_policy(stage: Stage, cautious: bool, states) -> tuple[dict, dict, dict]:
    """Memoised expectimax per state, straight over the turn functions, summing in the
    solver's order: values (tenths), gears (None: no allowed gear) and plans."""
    value: dict[State, float] = {}
    gear_of: dict[State, int | None] = {}
    plan: dict[tuple[State, int, int], int | None] = {}

    def solve(state: State) -> float:
        if state in value:
            return value[state]
        best_v, best_g = math.inf, None
        for gear in rules.legal_gears(state):
            outs = [
                (speed, p, rules.apply_move(stage, state, gear, speed))
                for speed, p in rules.chance_outcomes(stage, state, gear)
            ]
            if cautious and any(res.crash is not None for _, _, res in outs):
                continue
            v = 0.0
            for speed, p, res in outs:
                if res.finished:
                    v += p * res.tenths
                    continue
                drifts = rules.plan_options(stage, state, res).drift_choices
                best_d, best_n = None, math.inf
                for k, d in enumerate(drifts):  # N first, a later D only if better by > TIE
                    nv = solve(rules.next_state(stage, state, res, d))
                    if k == 0 or nv < best_n - TIE:
                        best_d, best_n = d, nv
                plan[(state, gear, speed)] = best_d
                v += p * (res.tenths + best_n)
            if v < best_v - TIE:
                best_v, best_g = v, gear
        value[state], gear_of[state] = best_v, best_g
        return best_v

    for state in states:
        solve(state)
    return value, gear_of, plan


def check_solver(stage: Stage) -> None:
    a = analyze_stage(stage)
    states = a.policy.graph.states
    assert states[0] == rules.initial_state(stage)
    solved = ((a.policy, False, a.par_time), (a.cautious_policy, True, a.cautious_time))
    for policy, cautious, par in solved:
        value, gear_of, plan = reference_policy(stage, cautious, states)
        assert set(value) == set(states)  # the graph holds every state play can reach
        assert par == value[states[0]] / 10
        for state in states:
            assert policy.expected_seconds(state) == value[state] / 10, state
            if gear_of[state] is None:
                with pytest.raises(RulesError, match="no gear"):
                    policy.gear(state)
            else:
                assert policy.gear(state) == gear_of[state], state
        for (state, gear, speed), drift in plan.items():
            assert policy.plan(state, gear, speed) == drift, (state, gear, speed)
        assert len(policy.plans) == len(plan)


@settings(max_examples=30, deadline=None)
@given(stages(max_length=24))
def test_solver_matches_a_per_state_expectimax_exactly(stage: Stage) -> None:
    check_solver(stage)


@pytest.mark.parametrize("stage", BUNDLED, ids=lambda s: s.name)
def test_solver_matches_a_per_state_expectimax_on_bundled_stages(stage: Stage) -> None:
    """Full-size stages: rounding differences show up there (hundreds of states)."""
    check_solver(stage)
