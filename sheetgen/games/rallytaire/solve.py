"""Exact stage solver for Rallytaire's basic game: dynamic programming over engine states.

The state graph of a stage is finite and acyclic: the position never decreases; a move that
does not crash advances at least one space; a crash lands in a forced-1st state on the
corner's `after` space, and 1st gear crosses every corner safely, so the next move advances.
States are therefore ordered by (position, forced-1st last), and one backward sweep gives
exact expected values, one forward sweep gives the exact time distribution of a policy.

Every transition comes from the engine's basic rule set
(:data:`sheetgen.games.rallytaire.engine.BASIC`: its legal actions, then one
:meth:`~sheetgen.games.rallytaire.engine.BasicRules.transitions` call per move, every exact
outcome with its plans at once); the solver only indexes and caches what the engine
returned. The plan choice (N/D) is taken after the dice are seen, so it is a min inside the
expectation. Ties within 1e-12 go to the lower gear and to N (then to the corner earlier on
the track), so results never depend on dict order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Literal

from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.engine import BASIC
from sheetgen.games.rallytaire.model import Race, Stage
from sheetgen.games.rallytaire.rules import State

#: Values closer than this are ties (then the lower gear / N wins).
TIE = 1e-12

PolicyName = Literal["optimal", "cautious"]


# --------------------------------------------------------------------------- state graph


#: One dice outcome of a move, as :meth:`BASIC.transitions` gives it, the next states being
#: ids: (speed, probability, tenths, crash corner or None, ((drift, next state id), ...)), no
#: choices when the move finishes. Plain tuples: a stage has ~1500 and each sweep reads them.
_Outcome = tuple[int, float, int, int | None, tuple[tuple[int | None, int], ...]]


@dataclass(frozen=True)
class _Graph:
    """Every state reachable from the start under any play, with every transition.

    A move (position, pending D, gear) does not depend on the previous gear (only the legal
    gears do), so states that differ only in their previous gear share it: `legal` maps a
    state to move ids, `moves` holds each move's outcomes once, and the solver values each
    move once instead of once per state."""

    stage: Stage
    states: tuple[State, ...]
    legal: tuple[tuple[tuple[int, int], ...], ...]  # per state: ((gear, move id), ...) ascending
    moves: tuple[tuple[_Outcome, ...], ...]  # per move id: its dice outcomes, ascending speed
    risky: tuple[bool, ...]  # per move id: some dice outcome crashes
    topo: tuple[int, ...]  # every edge goes from an earlier to a later entry

    @cached_property
    def index(self) -> Mapping[State, int]:
        """State -> id; built on first use (the simulator's), as hashing States is slow."""
        return MappingProxyType({s: i for i, s in enumerate(self.states)})

    def move_of(self, s: int, gear: int) -> int:
        """The move id of driving `gear` from state `s` (KeyError if the gear is not legal)."""
        for g, m in self.legal[s]:
            if g == gear:
                return m
        raise KeyError((s, gear))


def _build_graph(stage: Stage) -> _Graph:
    """Breadth-first from the start, one :meth:`BASIC.transitions` call per move.

    The engine hands each next state to `number`, which gives ids in discovery order (that
    order fixes every tie below) from the state's fields, as tuples hash much faster than
    State objects."""
    start = BASIC.stage_start(stage)
    states: list[State] = [start]
    ids: dict[tuple[int, int | None, int | None], int] = {
        (start.position, start.last_gear, start.pending_drift): 0
    }
    # rank orders states as the acyclicity argument of the module docstring does: by
    # position, forced-1st states last; `low` is the lowest rank the current move leads to
    rank: list[int] = [2 * start.position + 1]
    top = low = 2 * stage.finish + 2  # above every rank

    def number(position: int, last_gear: int | None, pending_drift: int | None) -> int:
        nonlocal low
        key = (position, last_gear, pending_drift)
        nid = ids.get(key)
        if nid is None:
            nid = ids[key] = len(states)
            states.append(State(position, last_gear, pending_drift))
            rank.append(2 * position + (last_gear is None))
        if rank[nid] < low:
            low = rank[nid]
        return nid

    legal: list[tuple[tuple[int, int], ...]] = []
    moves: list[tuple[_Outcome, ...]] = []
    risky: list[bool] = []
    lowest: list[int] = []  # per move id: the lowest rank it leads to
    # (position, pending D, gear) -> (gear, move id), one pair shared by the states driving it
    move_ids: dict[tuple[int, int | None, int], tuple[int, int]] = {}
    for state in states:  # grows while it is walked: breadth-first
        per_gear = []
        for action in BASIC.actions(stage, state):
            gear = action.gear
            key = (state.position, state.pending_drift, gear)
            pair = move_ids.get(key)
            if pair is None:
                low = top
                outs = BASIC.transitions(stage, state, action, number)
                pair = move_ids[key] = (gear, len(moves))
                moves.append(outs)
                lowest.append(low)
                crashes = False
                for o in outs:
                    if o[3] is not None:
                        crashes = True
                        break
                risky.append(crashes)
            per_gear.append(pair)
        legal.append(tuple(per_gear))
    for s, gear_moves in enumerate(legal):  # guard the acyclicity argument instead of trusting it
        for _, m in gear_moves:
            if lowest[m] <= rank[s]:
                raise AssertionError(f"state graph of stage {stage.name!r} has a cycle")
    topo = sorted(range(len(states)), key=rank.__getitem__)  # stable: ties keep id order
    return _Graph(stage, tuple(states), tuple(legal), tuple(moves), tuple(risky), tuple(topo))


# --------------------------------------------------------------------------- policies


@dataclass(frozen=True, eq=False)
class StagePolicy:
    """A deterministic policy for one stage, as the simulator queries it (compared by identity:
    two policies are only interchangeable if they come from the same solve)."""

    name: PolicyName
    graph: _Graph = field(repr=False, compare=False)
    values: tuple[float, ...] = field(repr=False, compare=False)  # expected tenths to go
    gears: tuple[int | None, ...] = field(repr=False, compare=False)  # None: no allowed gear
    # per move id: per dice outcome the (drift, next id) chosen, None when the move finishes;
    # the whole entry is None for a move the policy never drives (cautious: a risky one)
    chosen: tuple[tuple[tuple[int | None, int] | None, ...] | None, ...] = field(
        repr=False, compare=False
    )

    @cached_property
    def plans(self) -> Mapping[tuple[int, int, int], tuple[int | None, int]]:
        """(state id, gear, speed) -> (drift, next id) for every gear the policy considered
        from every state and every outcome that does not finish; built on first use."""
        plans: dict[tuple[int, int, int], tuple[int | None, int]] = {}
        for s in reversed(self.graph.topo):
            for gear, m in self.graph.legal[s]:
                picks = self.chosen[m]
                if picks is None:
                    continue
                for o, pick in zip(self.graph.moves[m], picks):
                    if pick is not None:
                        plans[(s, gear, o[0])] = pick
        return MappingProxyType(plans)

    @property
    def stage(self) -> Stage:
        return self.graph.stage

    def _id(self, state: State) -> int:
        try:
            return self.graph.index[state]
        except KeyError:
            raise rules.RulesError(
                f"state {state!r} is not reachable on stage {self.stage.name!r}"
            ) from None

    def gear(self, state: State) -> int:
        """The gear this policy drives from `state`."""
        g = self.gears[self._id(state)]
        if g is None:
            raise rules.RulesError(f"{self.name} policy has no gear from state {state!r}")
        return g

    def plan(self, state: State, gear: int, speed: int) -> int | None:
        """The corner this policy plans D after driving `gear` at `speed` from `state`, or None."""
        return self.plans[(self._id(state), gear, speed)][0]

    def expected_seconds(self, state: State) -> float:
        """Expected seconds from `state` to the finish under this policy."""
        return self.values[self._id(state)] / 10


def _solve(graph: _Graph, name: PolicyName) -> StagePolicy:
    """Backward induction. 'cautious' only allows gears no dice outcome can crash with.

    A move is valued once, when the first state that can drive it comes up in the sweep (all
    the states it leads to come later in `topo` than every state that drives it, so their
    values are final). The plan choice is N first, then D in track order, a later choice
    winning only if better by more than TIE; gears likewise go from low to high."""
    n = len(graph.states)
    value = [math.inf] * n
    gears: list[int | None] = [None] * n
    move_value: list[float | None] = [None] * len(graph.moves)
    chosen: list[tuple[tuple[int | None, int] | None, ...] | None] = [None] * len(graph.moves)
    moves, legal, risky = graph.moves, graph.legal, graph.risky
    cautious = name == "cautious"
    for s in reversed(graph.topo):
        best_v = math.inf
        best_g: int | None = None
        for gear, m in legal[s]:
            v = move_value[m]
            if v is None:
                if cautious and risky[m]:
                    continue
                v = 0.0
                picks: list[tuple[int | None, int] | None] = []
                last = None
                for _, prob, tenths, _, choices in moves[m]:
                    if not choices:  # the move finishes
                        picks.append(None)
                        v += prob * tenths
                        continue
                    if choices is not last:  # else the same pick as the previous outcome
                        last = choices
                        pick = choices[0]
                        pick_v = value[pick[1]]
                        for c in choices[1:]:
                            cv = value[c[1]]
                            if cv < pick_v - TIE:
                                pick, pick_v = c, cv
                    picks.append(pick)
                    v += prob * (tenths + pick_v)
                move_value[m] = v
                chosen[m] = tuple(picks)
            if v < best_v - TIE:
                best_v, best_g = v, gear
        value[s] = best_v
        gears[s] = best_g
    return StagePolicy(name, graph, tuple(value), tuple(gears), tuple(chosen))


def _best_tenths(graph: _Graph) -> int:
    """Fastest time possible at all: min over gears, dice outcomes and plans."""
    best = [math.inf] * len(graph.states)
    move_best: list[float | None] = [None] * len(graph.moves)
    moves = graph.moves
    for s in reversed(graph.topo):
        b = math.inf
        for _, m in graph.legal[s]:
            mb = move_best[m]
            if mb is None:
                mb = math.inf
                last = None
                for _, _, tenths, _, choices in moves[m]:
                    if choices and choices is last:  # the same as the previous outcome
                        continue
                    last = choices
                    rest = math.inf if choices else 0  # no choices: the move finishes
                    for _, nid in choices:
                        if best[nid] < rest:
                            rest = best[nid]
                    if tenths + rest < mb:
                        mb = tenths + rest
                move_best[m] = mb
            if mb < b:
                b = mb
        best[s] = b
    return int(best[0])


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class PolicyEvaluation:
    """Exact figures of a policy from the start, by forward propagation of probability.

    distribution: (tenths, probability) of the stage time, ascending.
    corner_crash / corner_drift: per corner index, P(crash there) and P(planned D). A car
    crashes at most once per corner (it restarts in 1st gear on `after`) and plans it once,
    so these are probabilities, not expected counts."""

    expected_tenths: float
    distribution: tuple[tuple[int, float], ...]
    crash_probability: float
    corner_crash: tuple[float, ...]
    corner_drift: tuple[float, ...]


def evaluate_policy(policy: StagePolicy) -> PolicyEvaluation:
    graph = policy.graph
    n = len(graph.states)
    ncorners = len(graph.stage.corners)
    mass: list[dict[int, float] | None] = [None] * n  # per state: tenths so far -> probability
    mass[0] = {0: 1.0}
    clean = [0.0] * n  # probability of reaching the state without having crashed
    clean[0] = 1.0
    final: dict[int, float] = {}
    crashed = 0.0
    corner_crash = [0.0] * ncorners
    corner_drift = [0.0] * ncorners
    for s in graph.topo:
        here = mass[s]
        if here is None:
            continue
        total = math.fsum(here.values())
        gear = policy.gears[s]
        if gear is None:
            raise rules.RulesError(
                f"{policy.name} policy reaches a state with no gear: {graph.states[s]!r}"
            )
        m = graph.move_of(s, gear)
        picks = policy.chosen[m]
        if picks is None:  # (a move the policy drives has its choices)
            raise rules.RulesError(f"{policy.name} policy drives a move it never chose for: {graph.states[s]!r}")
        for (_, p, tenths, crash, choices), pick in zip(graph.moves[m], picks):
            if crash is not None:
                corner_crash[crash] += total * p
                crashed += clean[s] * p
            if choices:
                if pick is None:  # (an outcome that does not finish has its choice)
                    raise rules.RulesError(f"{policy.name} policy has no plan for an outcome of {graph.states[s]!r}")
                drift, nid = pick
                if drift is not None:
                    corner_drift[drift] += total * p
                if crash is None:
                    clean[nid] += clean[s] * p
                there = mass[nid]
                if there is None:
                    there = mass[nid] = {}
                for t, w in here.items():
                    k = t + tenths
                    there[k] = there.get(k, 0.0) + w * p
            else:
                for t, w in here.items():
                    k = t + tenths
                    final[k] = final.get(k, 0.0) + w * p
        mass[s] = None  # every edge points forward: this state's mass is spent
    dist = tuple(sorted(final.items()))
    expected = math.fsum(t * p for t, p in dist)
    return PolicyEvaluation(expected, dist, crashed, tuple(corner_crash), tuple(corner_drift))


def percentile(distribution: tuple[tuple[int, float], ...], q: float) -> int:
    """Smallest t with P(T <= t) >= q (summation error of TIE forgiven)."""
    acc = 0.0
    for t, p in distribution:
        acc += p
        if acc >= q - TIE:
            return t
    return distribution[-1][0]


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class CornerAnalysis:
    after: int
    gear: int
    zone: int
    turn: str
    crash_probability: float  # under the optimal policy
    drift_probability: float  # P(the optimal policy plans it D)


def corner_figures(stage: Stage, crash, drift) -> tuple[CornerAnalysis, ...]:
    """Per corner of `stage`, its crash and drift probabilities (sequences by corner index)."""
    return tuple(
        CornerAnalysis(
            after=c.after,
            gear=c.gear,
            zone=c.zone,
            turn=c.turn.value,
            crash_probability=crash[i],
            drift_probability=drift[i],
        )
        for i, c in enumerate(stage.corners)
    )


@dataclass(frozen=True)
class StageAnalysis:
    """Solver figures for one stage; times in seconds.

    par_time: optimal expected time. best_time: fastest time possible at all.
    p10/p50/p90: percentiles of the time under the optimal policy.
    cautious_time: optimal expected time when no gear that could crash is ever chosen."""

    name: str
    length: int
    par_time: float
    best_time: float
    p10: float
    p50: float
    p90: float
    crash_probability: float
    cautious_time: float
    corners: tuple[CornerAnalysis, ...]
    distribution: tuple[tuple[float, float], ...] = field(repr=False)  # (seconds, probability)
    policy: StagePolicy = field(repr=False, compare=False)
    cautious_policy: StagePolicy = field(repr=False, compare=False)

    def policy_named(self, name: PolicyName) -> StagePolicy:
        if name == "optimal":
            return self.policy
        if name == "cautious":
            return self.cautious_policy
        raise ValueError(f"unknown policy: {name!r} (expected 'optimal' or 'cautious')")

    @property
    def killer_corner(self) -> CornerAnalysis | None:
        """The corner with the highest crash probability (earliest on ties), None if none bites."""
        best: CornerAnalysis | None = None
        for c in sorted(self.corners, key=lambda c: c.after):
            if c.crash_probability > TIE and (
                best is None or c.crash_probability > best.crash_probability + TIE
            ):
                best = c
        return best


@dataclass(frozen=True)
class RaceAnalysis:
    name: str
    stages: tuple[StageAnalysis, ...]

    @property
    def par_time(self) -> float:
        """Race par: stage times add up, so expectations do too."""
        return math.fsum(s.par_time for s in self.stages)


def analyze_stage(stage: Stage) -> StageAnalysis:
    graph = _build_graph(stage)
    optimal = _solve(graph, "optimal")
    cautious = _solve(graph, "cautious")
    ev = evaluate_policy(optimal)
    corners = corner_figures(stage, ev.corner_crash, ev.corner_drift)
    return StageAnalysis(
        name=stage.name,
        length=stage.length,
        par_time=optimal.values[0] / 10,
        best_time=_best_tenths(graph) / 10,
        p10=percentile(ev.distribution, 0.10) / 10,
        p50=percentile(ev.distribution, 0.50) / 10,
        p90=percentile(ev.distribution, 0.90) / 10,
        crash_probability=ev.crash_probability,
        cautious_time=cautious.values[0] / 10,
        corners=corners,
        distribution=tuple((t / 10, p) for t, p in ev.distribution),
        policy=optimal,
        cautious_policy=cautious,
    )


def analyze_race(race: Race) -> RaceAnalysis:
    return RaceAnalysis(race.name, tuple(analyze_stage(s) for s in race.stages))
