"""Rallyman GT stage analysis: the fastest route with no chance of losing control, and a par
time (docs/rallyman_rules.md "Stage analysis"; rulings RG-29, RG-30).

Both work on one car alone (no overtaking, no yellow flags), the weather fixed and the
pool of dice intact (a loss of control draws no damage: `Stage(damage=False)`), without a
flying start. They use the engine's per-die rules only (:func:`rules.next_dice`).

- **Safe route** (:func:`safe_route`): the least time over turns that cannot lose control
  whatever the dice show: flat out with fewer dice that can show a caution (plus the
  track's cautions) than the caution limit, earning focus tokens; or one at a time securing
  the dice beyond that with the tokens held (at most `SAFE_FOCUS` counted). Dijkstra over
  (cell, finish crossings, gear, tokens).
- **Par time** (:func:`par`): the exact expected stage time of the best **flat-out** policy
  (every turn rolled all at once, a loss of control placed where the plan's own order
  reaches the limit), by dynamic programming over (cell, crossings, gear) with the
  within-turn choice of dice and path: for every partial plan (cell, gear, dice used) the
  set of its best continuations as vectors over the cautions so far (a Pareto set, exact),
  so that no plan is enumerated twice. One at a time and focus tokens are not in this
  policy class (a documented simplification: they could only lower the time).
"""

from __future__ import annotations

import heapq
import sys
from dataclasses import dataclass
from typing import Any

from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.rules import CarState, Stage, Step

SAFE_FOCUS = 3  # tokens the safe route counts (securing 2 dice in a turn)
#: the largest GT track (cells x laps) whose safe route and par time are solved: the hill
#: climb (51 cells) takes a few seconds; the 90-cell, 3-lap ring ran for over 8 minutes
MAX_PAR_SIZE = 80


def too_large(track) -> str | None:
    """Why `analyze` and `simulate` do not solve this GT track exactly (None: they do)."""
    size = len(track.cells) * track.laps
    if size <= MAX_PAR_SIZE:
        return None
    laps = f" x {track.laps} laps" if track.laps > 1 else ""
    return (f"a GT track of {len(track.cells)} cells{laps} is too large for the exact par solve (at most {MAX_PAR_SIZE} "
            "cells x laps: it would take minutes); its map, roadbook and `sheetgen odds` work at any size")


def _key_used(used: tuple[int, int, int, int], die: str) -> tuple[int, int, int, int] | None:
    mask, coast, brake, boost = used
    if die.isdigit():
        bit = 1 << int(die)
        return None if mask & bit else (mask | bit, coast, brake, boost)
    if die == "coast":
        return (mask, coast + 1, brake, boost)
    if die == "brake":
        return (mask, coast, brake + 1, boost)
    return (mask, coast, brake, boost + 1)


class _Walker:
    """Successors of a partial plan keyed by (cell, crossings, gear, dice used)."""

    def __init__(self, stage: Stage):
        self.stage = stage
        self.track = stage.track
        self.ruleset = stage.ruleset
        self.car = CarState(cell=stage.track.starts[0].hex)
        self.limit = stage.dashboard("asphalt", stage.weather).caution_limit
        _board, dice, gear_free = rules.pool(stage, self.car, stage.weather)
        self.counts = dice
        self.gear_free = gear_free
        self.memo: dict = {}
        self.moves_memo: dict = {}

    def steps(self, cell: Hex, cross: int, gear: int, used: tuple) -> tuple[tuple[Step, int, tuple], ...]:
        key = (cell, cross, gear, used)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        out = []
        for s, c2 in self._moves(cell, cross, gear):
            nu = _key_used(used, s.die)
            if nu is not None and self._fits(nu):
                out.append((s, c2, nu))
        out_t = tuple(out)
        self.memo[key] = out_t
        return out_t

    def _moves(self, cell: Hex, cross: int, gear: int) -> tuple[tuple[Step, int], ...]:
        """Every die and move from (cell, gear), whatever was used before (`_fits` checks)."""
        key = (cell, cross, gear)
        hit = self.moves_memo.get(key)
        if hit is None:
            car = CarState(cell=cell, gear=gear, crossings=cross)
            here = self.track.cell(cell).finish
            hit = tuple((s, cross + (1 if self.track.cell(s.to).finish and not here else 0)) for s in rules.next_dice(self.stage, car, (), self.stage.weather, first_gear=gear))
            self.moves_memo[key] = hit
        return hit

    def _fits(self, used: tuple) -> bool:
        mask, coast, brake, boost = used
        return mask.bit_count() <= self.gear_free and coast <= self.counts.get("coast", 0) and brake <= self.counts.get("brake", 0) and boost <= self.counts.get("boost", 0)

    def finishes(self, cross: int) -> bool:
        return cross >= self.stage.laps_needed


# --------------------------------------------------------------------------- par time


@dataclass
class Par:
    stage: Stage
    start: tuple[Hex, int, int]
    value: dict  # (cell, cross, gear) -> expected seconds to the finish
    choice: dict  # (cell, cross, gear) -> the plan (tuple of Steps)
    danger: dict  # cell -> chance of losing control there under the policy
    expected_turns: float

    @property
    def time(self) -> float:
        return self.value[self.start]


def par(stage: Stage) -> Par:
    """The best flat-out policy's expected stage time (see the module)."""
    if stage.flying_start or stage.damage:
        raise ValueError("the par time is for a stage without damage or flying start (Stage(damage=False))")
    w = _Walker(stage)
    sec = stage.ruleset.seconds
    limit = w.limit
    big = 10.0**9
    value: dict = {}
    sets: dict = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))

    def loss(cell: Hex, cross: int, gear: int) -> float:
        end = rules.loss_end(stage.ruleset, gear)
        if w.finishes(cross):
            return sec(end)
        return sec(end) + V(cell, cross, 0)

    def V(cell: Hex, cross: int, gear: int) -> float:
        k = (cell, cross, gear)
        if k in value:
            return value[k]
        value[k] = big  # a state that leads back to itself is never chosen
        best = big
        for vec in W(cell, cross, gear, (0, 0, 0, 0)):
            best = min(best, vec[0][0])
        value[k] = best
        return best

    def W(cell: Hex, cross: int, gear: int, used: tuple) -> list:
        """The Pareto set of continuations: (vector over cautions so far, plan tail)."""
        k = (cell, cross, gear, used)
        hit = sets.get(k)
        if hit is not None:
            return hit
        cands: list = []
        if used != (0, 0, 0, 0):
            stop = sec(str(gear)) + (0.0 if w.finishes(cross) else V(cell, cross, gear))
            cands.append(((stop,) * limit, ()))
        for s, c2, nu in w.steps(cell, cross, gear, used):
            p = float(stage.ruleset.die(s.die).caution_chance)
            lose = loss(s.to, c2, s.gear)
            tails = [(((sec(str(s.gear)),) * limit), ())] if w.finishes(c2) else W(s.to, c2, s.gear, nu)
            for vec, tail in tails:
                new = []
                for c in range(limit):
                    a = c + s.marks
                    miss = lose if a >= limit else vec[a]
                    hitv = lose if a + 1 >= limit else vec[a + 1]
                    new.append((1 - p) * miss + p * hitv)
                cands.append((tuple(new), (s,) + tail))
        front = _pareto(cands)
        sets[k] = front
        return front

    grid = rules._grid(stage.track)
    start = (grid[0], 0, 0)
    V(*start)
    choice = {}
    for k in list(value):
        vecs = W(k[0], k[1], k[2], (0, 0, 0, 0))
        if vecs:
            choice[k] = min(vecs, key=lambda v: v[0][0])[1]
    danger, turns = _forward(stage, start, choice, limit)
    return Par(stage, start, value, choice, danger, turns)


def _pareto(cands: list) -> list:
    """The candidates no other beats in every component (ties: the shorter plan first)."""
    cands.sort(key=lambda c: (c[0], len(c[1])))
    out: list = []
    for vec, tail in cands:
        if any(all(a <= b + 1e-12 for a, b in zip(o, vec)) for o, _t in out):
            continue
        out.append((vec, tail))
    return out


def plan_outcomes(stage: Stage, plan: tuple[Step, ...], limit: int) -> tuple[list[float], float]:
    """P(control lost first on die i) in plan order, and P(no loss), flat out."""
    dist = [1.0] + [0.0] * (limit - 1)
    losses = []
    for s in plan:
        p = float(stage.ruleset.die(s.die).caution_chance)
        nxt = [0.0] * limit
        lost = 0.0
        for c, q in enumerate(dist):
            if not q:
                continue
            for extra, pr in ((0, 1 - p), (1, p)):
                a = c + s.marks + extra
                if a >= limit:
                    lost += q * pr
                else:
                    nxt[a] += q * pr
        losses.append(lost)
        dist = nxt
    return losses, sum(dist)


def _forward(stage: Stage, start: tuple, choice: dict, limit: int) -> tuple[dict, float]:
    """The chance of losing control on each cell, and the expected turns, under the policy."""
    track = stage.track
    graph: dict = {}

    def succ(k):
        if k in graph:
            return graph[k]
        cell, cross, _gear = k
        plan = choice[k]
        losses, ok = plan_outcomes(stage, plan, limit)
        out = []
        c = cross
        prev = cell
        for s, q in zip(plan, losses):
            c += 1 if track.cell(s.to).finish and not track.cell(prev).finish else 0
            prev = s.to
            if q:
                end = rules.loss_end(stage.ruleset, s.gear)
                nk = None if c >= stage.laps_needed else (s.to, c, 0)
                out.append((nk, q, s.to, 2 if end == rules.OUT else 1))
        nk = None if c >= stage.laps_needed else (plan[-1].to, c, plan[-1].gear)
        out.append((nk, ok, None, 1))
        graph[k] = out
        return out

    # topological order of the policy's states (every turn moves on: a DAG)
    order, seen, stack = [], set(), [(start, False)]
    while stack:
        k, done = stack.pop()
        if done:
            order.append(k)
            continue
        if k in seen:
            continue
        seen.add(k)
        stack.append((k, True))
        for nk, q, _at, _t in succ(k):
            if nk is not None and q and nk not in seen:
                stack.append((nk, False))
    order.reverse()
    mass = {start: 1.0}
    danger: dict = {}
    turns = 0.0
    for k in order:
        m = mass.get(k, 0.0)
        if not m:
            continue
        for nk, q, at, t in succ(k):
            turns += m * q * t
            if at is not None:
                danger[at] = danger.get(at, 0.0) + m * q
            if nk is not None:
                mass[nk] = mass.get(nk, 0.0) + m * q
    return danger, turns


# --------------------------------------------------------------------------- safe route


@dataclass
class Safe:
    time: int
    turns: int
    plans: tuple[tuple[str, tuple[Step, ...]], ...]  # (mode, plan) per turn


def safe_route(stage: Stage, focus_cap: int = SAFE_FOCUS) -> Safe | None:
    """The least time over turns that cannot lose control (see the module); None when the
    finish cannot be reached so."""
    w = _Walker(stage)
    sec = stage.ruleset.seconds
    limit = w.limit
    costs = stage.ruleset.focus
    kmax = 0
    while costs.total(kmax + 1) <= focus_cap:
        kmax += 1
    memo: dict = {}

    def turns(cell: Hex, cross: int, gear: int) -> list:
        """Every safe plan from (cell, gear), breadth first over partial plans: (plan, end
        cell, crossings, gear, dice to secure, tokens earned flat out)."""
        key = (cell, cross, gear)
        if key in memo:
            return memo[key]
        out = []
        frontier = [((), cell, cross, gear, (0, 0, 0, 0), 0, 0)]
        while frontier:
            nxt = []
            for plan, at, c, g, used, risky, marks in frontier:
                for s, c2, nu in w.steps(at, c, g, used):
                    r2 = risky + (1 if stage.ruleset.die(s.die).cautions else 0)
                    m2 = marks + s.marks
                    secure = max(0, r2 + m2 - (limit - 1))
                    if m2 > limit - 1 or secure > min(kmax, r2):
                        continue
                    p2 = plan + (s,)
                    earned = sum(1 for x in p2 if stage.ruleset.die(x.die).earns_token)
                    out.append((p2, s.to, c2, s.gear, secure, earned))
                    if not w.finishes(c2):
                        nxt.append((p2, s.to, c2, s.gear, nu, r2, m2))
            frontier = nxt
        memo[key] = out
        return out

    grid = rules._grid(stage.track)
    start = (grid[0], 0, 0, 0)
    dist = {start: 0}
    back: dict = {}
    heap = [(0, 0, start)]
    tick = 0
    while heap:
        t, _n, k = heapq.heappop(heap)
        if t > dist.get(k, 10**9):
            continue
        cell, cross, gear, f = k
        if cross >= stage.laps_needed:
            plans = []
            while k in back:
                k, mode, plan = back[k]
                plans.append((mode, plan))
            plans.reverse()
            return Safe(t, len(plans), tuple(plans))
        for p2, to, c2, g2, secure, earned in turns(cell, cross, gear):
            if secure == 0:
                mode, f2 = "flat", min(focus_cap, f + earned)
            elif costs.total(secure) <= f:
                mode, f2 = "one", f - costs.total(secure)
            else:
                continue
            nk = (to, c2, g2, f2)
            nt = t + sec(str(g2))
            if nt < dist.get(nk, 10**9):
                dist[nk] = nt
                back[nk] = (k, mode, p2)
                tick += 1
                heapq.heappush(heap, (nt, tick, nk))
    return None


def describe_plan(plan: tuple[Step, ...]) -> str:
    return ",".join(s.die + "!" * s.marks for s in plan)


def policy_for(result: Par) -> Any:
    """The par policy as an engine policy (:mod:`sheetgen.engine`): the solved plan, rolled
    flat out, a loss of control placed where the plan's own order reaches the limit."""
    stage = result.stage

    def act(state: rules.RaceState):
        car = state.car
        if state.phase == rules.PLAN:
            k = (car.cell, car.crossings, car.gear)
            plan = result.choice[k]
            if len(state.plan) < len(plan):
                s = plan[len(state.plan)]
                return rules.Place(s.die, s.to)
            return rules.Roll("flat")
        if state.phase == rules.REALLOCATE:
            limit = state.limit()
            c = 0
            for s, hit in zip(state.plan, state.rolled):
                c += s.marks + (1 if hit else 0)
                if c >= limit:
                    return next(a for a in state.legal_actions() if (a.to, a.gear) == (s.to, s.gear))
        if state.phase == rules.PIT:
            return rules.Pit("none")
        return state.legal_actions()[0]

    del stage
    return act


# --------------------------------------------------------------------------- the report


def analyze_track(track, ruleset=None) -> dict:
    """`sheetgen analyze` of a GT track: the safe route and the par time, as plain data."""
    from sheetgen.games.rallyman.ruleset import default

    stage = Stage(track, ruleset or default("gt"), damage=False)
    safe = safe_route(stage)
    solved = par(stage)
    steps = track.steps()
    danger = sorted(solved.danger.items(), key=lambda kv: (-kv[1], steps.get(kv[0], 0), kv[0].q, kv[0].r))
    start = solved.choice[solved.start]
    return {
        "track": track.name,
        "cells": len(track.cells),
        "laps": track.laps,
        "model": "one car alone; weather fixed (dry, asphalt tyres, GT6); no damage drawn; no flying start",
        "safe_route": None
        if safe is None
        else {"seconds": safe.time, "turns": safe.turns, "plans": [{"mode": m, "dice": describe_plan(p)} for m, p in safe.plans], "focus_counted": SAFE_FOCUS},
        "par": {
            "policy": "best flat-out policy (exact dynamic programme; a loss of control where the plan's own order reaches the limit)",
            "expected_seconds": round(solved.time, 3),
            "expected_turns": round(solved.expected_turns, 3),
            "first_plan": describe_plan(start),
            "lose_control_expected": round(sum(solved.danger.values()), 4),
            "dangerous_cells": [{"q": h.q, "r": h.r, "step": steps.get(h, 0), "lose_control": round(p, 4), "marks": list(track.cell(h).marks())} for h, p in danger[:5]],
        },
    }


def format_analysis_text(data: dict) -> str:
    laps = f", {data['laps']} laps" if data["laps"] > 1 else ""
    lines = [f"Rallyman GT analysis of {data['track']} ({data['cells']} cells{laps})", f"  model: {data['model']}"]
    safe = data["safe_route"]
    if safe is None:
        lines.append("Fastest route with no chance of losing control: none reaches the finish")
    else:
        lines.append(f"Fastest route with no chance of losing control: {safe['seconds']} s in {safe['turns']} turns (focus tokens counted up to {safe['focus_counted']})")
        lines.append("  " + " | ".join(("" if p["mode"] == "flat" else "one at a time ") + p["dice"] for p in safe["plans"]))
    p = data["par"]
    lines.append(f"Par time: {p['expected_seconds']:.1f} s expected, {p['expected_turns']:.2f} turns ({p['policy']})")
    lines.append(f"  first turn: {p['first_plan']}; losses of control expected per stage: {p['lose_control_expected']:.3f}")
    lines.append("Most dangerous cells under the par policy (chance of losing control there):")
    for c in p["dangerous_cells"]:
        marks = f" ({', '.join(c['marks'])})" if c["marks"] else ""
        lines.append(f"  ({c['q']}, {c['r']}) step {c['step']}{marks}: {c['lose_control']:.4f}")
    return "\n".join(lines)
