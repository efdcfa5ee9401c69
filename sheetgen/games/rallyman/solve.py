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
- **Par time** (:func:`par`): the exact expected stage time of the best solo policy with the
  dice resolved in plan order (not the best policy: the rulebook's re-allocation of the dice
  after a flat-out loss of control, which it does not use, can do a little better, RG-34), by
  dynamic programming over (cell, finish crossings, gear, focus tokens held, counted up to
  `FOCUS_CAP`), with the within-turn choice of dice, path and rolling mode (RG-30, RG-32):
  - flat out, a loss of control placed where the plan's own order reaches the limit, the
    plan's tokens earned either way: for every partial plan (cell, gear, dice used, tokens
    so far) the set of its best continuations as vectors over the cautions so far, with the
    tokens the rest of the plan earns (a Pareto set, exact);
  - one at a time, the plan placed first and then, before each die, rolled, secured (the
    next cost paid, RG-3) or stopped (after the first): for every partial plan and the
    tokens the turn began with, the Pareto set of continuations as vectors over (dice
    secured so far, cautions so far), each component the best of rolling, securing and
    stopping there;
  so that no plan is enumerated twice. :class:`OneTable` gives the decisions along one
  plan; :func:`policy_for` plays the policy through the engine.

Their figures as `analyze` and the printouts give them, and their text, are :mod:`report`'s.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from operator import le
from typing import Any, Protocol

from sheetgen import solvers
from sheetgen.games.rallyman import accel, rules
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.rules import CarState, Stage, Step
from sheetgen.games.rallyman.ruleset import Ruleset

SAFE_FOCUS = 3  # tokens the safe route counts (securing 2 dice in a turn)
#: the largest GT track (cells x laps) whose safe route and par time are solved: time grows
#: with cells x laps, about 0.01 s each with the compiled kernel (the 90-cell, 3-lap ring:
#: 2.4 s of CPU; 297-cell Wide Boulevard: 2.7 s), so 400 is 3 to 4 s; the pure-Python
#: reference, where the kernel is not built, takes about 0.3 s each (the ring: 92 s), so 400
#: is two minutes there (docs/benchmarks.md, "The Rallyman GT kernel")
MAX_PAR_SIZE = 400


def too_large(track) -> str | None:
    """Why `analyze` and `simulate` do not solve this GT track exactly (None: they do)."""
    size = len(track.cells) * track.laps
    if size <= MAX_PAR_SIZE:
        return None
    laps = f" x {track.laps} laps" if track.laps > 1 else ""
    return (
        f"a GT track of {len(track.cells)} cells{laps} is too large for the exact par solve (at most {MAX_PAR_SIZE} "
        "cells x laps); its map, roadbook and `sheetgen odds` work at any size"
    )


def loop_reason(track) -> str | None:
    """Why the exact solves (GT and DIRT) refuse a track whose moves loop (:func:`move_loops`:
    a car can come round to a cell again without crossing the finish line; their dynamic
    programmes need moves that lead on), or None when none do."""
    loops = move_loops(track)
    if not loops:
        return None
    cells = ", ".join(f"({h.q}, {h.r})" for h in loops[:6]) + (", ..." if len(loops) > 6 else "")
    return (
        f"the moves loop between cells {cells} (a car can come round to them again without crossing the finish line), "
        "so there is no exact par solve (RG-30); its printouts and `sheetgen odds` work"
    )


class _Moves:
    """The engine's dice from each (cell, finish crossings, gear) of a car alone, with what the
    solvers need of each: (step, crossings after it, whether that finishes, caution chance,
    one minus it). `next_dice` is asked once per (cell, gear); its `finishes` is set per lap."""

    def __init__(self, stage: Stage):
        self.stage = stage
        self.laps_needed = stage.laps_needed  # (a Track hashes slowly: look it up once)
        self.is_finish = {c.hex: c.finish for c in stage.track.cells}
        self.chance = {n: float(stage.ruleset.die(n).caution_chance) for n in stage.ruleset.die_names}
        self.memo: dict = {}
        self.dice_memo: dict = {}

    def __call__(self, cell: Hex, cross: int, gear: int) -> list:
        key = (cell, cross, gear)
        hit = self.memo.get(key)
        if hit is None:
            is_finish = self.is_finish
            here = is_finish[cell]
            dice_here = self.dice_memo.get((cell, gear))
            if dice_here is None:
                dice_here = self.dice_memo[cell, gear] = rules.next_dice(
                    self.stage, CarState(cell=cell, gear=gear), (), self.stage.weather, first_gear=gear
                )
            hit = []
            for s in dice_here:
                c2 = cross + (1 if is_finish[s.to] and not here else 0)
                done = c2 >= self.laps_needed
                if s.finishes != done:
                    s = replace(s, finishes=done)
                p = self.chance[s.die]
                hit.append((s, c2, done, p, 1 - p))
            self.memo[key] = hit
        return hit


#: the last stage's moves, (stage, _Moves): its par and its safe route, solved one after the
#: other (`analyze`, the printouts' figures), ask the engine for its dice once
_MOVES_KEPT: list = []


def _moves_of(stage: Stage) -> _Moves:
    """The stage's `_Moves`, shared by the solves of the same stage (a Stage compares by
    identity) one after the other."""
    kept = _MOVES_KEPT[:1]
    if kept and kept[0][0] is stage:
        return kept[0][1]
    moves = _Moves(stage)
    _MOVES_KEPT[:] = [(stage, moves)]
    return moves


# --------------------------------------------------------------------------- par time

#: the focus tokens the par policy counts: enough to secure two dice in one turn (1 + 2) with one to spare;
#: a car holding more acts as if it held this many (a policy a player can follow)
FOCUS_CAP = 4

FLAT, ONE = "flat", "one"


@dataclass
class Par:
    stage: Stage
    start: tuple[Hex, int, int, int]
    value: dict  # (cell, cross, gear, tokens) -> expected seconds to the finish
    choice: dict  # (cell, cross, gear, tokens) -> (mode: FLAT or ONE, the plan: tuple of Steps)
    focus_cap: int  # the tokens the policy counts
    limit: int  # the caution limit
    danger: dict = field(default_factory=dict)  # cell -> chance of losing control there
    expected_turns: float = 0.0
    turns_by_mode: dict = field(default_factory=dict)  # mode -> expected turns rolled so
    tables: dict = field(default_factory=dict, repr=False)

    @property
    def time(self) -> float:
        return self.value[self.start]

    def key(self, cell: Hex, cross: int, gear: int, tokens: int) -> tuple[Hex, int, int, int]:
        """The policy's state of a car: the tokens it holds counted up to the cap."""
        return (cell, cross, gear, min(tokens, self.focus_cap))

    def key_of(self, state: rules.RaceState) -> tuple[Hex, int, int, int]:
        """The policy's state of the car to play: during a turn it stays on its cell, in its
        gear, until it has moved; its tokens are those held plus those spent this turn."""
        car = state.car
        return self.key(car.cell, car.crossings, car.gear, car.focus + self.stage.ruleset.focus.total(state.secured))

    def one_action(self, state: rules.RaceState) -> Any:
        """One at a time along the solved plan: the engine action the plan's table decides
        before the next die (roll, secure or stop)."""
        d = self.table(self.key_of(state)).decide[state.placed][state.cautions, state.secured]
        return {"roll": rules.Roll("one"), "secure": rules.Secure(), "stop": rules.Stop()}[d]

    def table(self, key: tuple) -> OneTable:
        """The one-at-a-time decisions of the policy's plan from `key` (its mode is ONE)."""
        hit = self.tables.get(key)
        if hit is None:
            hit = self.tables[key] = OneTable(self, key, self.choice[key][1])
        return hit

    def outcomes(self, key: tuple) -> list:
        """The turn the policy plays from `key`: (next key or None when the stage is over,
        its chance, the cell where control was lost or None, the turns it counts: 2 for a
        loss of control to gear 00)."""
        mode, plan = self.choice[key]
        if mode == ONE:
            return self.table(key).outcomes()
        stage = self.stage
        track = stage.track
        laps_needed = stage.laps_needed
        cell, cross, _gear, f = key
        losses, ok = plan_outcomes(stage, plan, self.limit)
        tokens = min(self.focus_cap, f + sum(1 for s in plan if stage.ruleset.die(s.die).earns_token))
        out = []
        c = cross
        for s, q, c in zip(plan, losses, _crossings_along(track, cell, cross, plan)):
            if q:
                end = rules.loss_end(stage.ruleset, s.gear)
                # a loss to gear 00 costs the next turn too, unless it finishes (RG-27)
                out.append(
                    (
                        None if c >= laps_needed else (s.to, c, 0, tokens),
                        q,
                        s.to,
                        2 if end == rules.OUT and c < laps_needed else 1,
                    )
                )
        out.append((None if c >= laps_needed else (plan[-1].to, c, plan[-1].gear, tokens), ok, None, 1))
        return out


def _crossings_along(track, cell: Hex, cross: int, plan: tuple[Step, ...]) -> list[int]:
    """The finish-line crossings after each die of `plan` from `cell`, `cross` made before."""
    out, c, prev = [], cross, cell
    for s in plan:
        c += 1 if track.cell(s.to).finish and not track.cell(prev).finish else 0
        prev = s.to
        out.append(c)
    return out


class OneTable:
    """A plan rolled one at a time from (cell, cross, gear, tokens) under the par policy: the
    expected seconds before each die for every (cautions so far, dice secured so far) and
    the decision there (roll, secure or stop), backwards over the plan from the solved
    values: the solver's arithmetic for one plan (RG-32)."""

    def __init__(self, result: Par, key: tuple, plan: tuple[Step, ...]):
        stage = result.stage
        ruleset = stage.ruleset
        track = stage.track
        cell, cross, _gear, f = key
        limit = result.limit
        laps_needed = stage.laps_needed
        kmax = 0
        while ruleset.focus.total(kmax + 1) <= f:
            kmax += 1
        tot = [ruleset.focus.total(k) for k in range(kmax + 1)]
        value = result.value
        secs = {g: float(s) for g, s in ruleset.time_per_turn}
        nodes = list(zip(plan, _crossings_along(track, cell, cross, plan)))  # (step, crossings after it)
        self.plan, self.nodes, self.kmax, self.tot, self.f, self.limit = plan, nodes, kmax, tot, f, limit
        self.laps_needed = laps_needed
        self.chances = [float(ruleset.die(s.die).caution_chance) for s in plan]
        self.loss_ends = [rules.loss_end(ruleset, s.gear) for s in plan]

        def stop(i: int, k: int) -> float:  # the turn ends after die i, tokens f - tot[k]
            s, c2 = nodes[i]
            return secs[str(s.gear)] + (0.0 if c2 >= laps_needed else value[s.to, c2, s.gear, f - tot[k]])

        def lose(i: int, k: int) -> float:
            s, c2 = nodes[i]
            return secs[self.loss_ends[i]] + (0.0 if c2 >= laps_needed else value[s.to, c2, 0, f - tot[k]])

        n = len(plan)
        u: list[dict] = [{} for _ in range(n + 1)]  # u[i][c, k]: expected seconds before die i
        decide: list[dict] = [{} for _ in range(n)]
        for k in range(kmax + 1):
            for cc in range(limit):
                u[n][cc, k] = stop(n - 1, k)
        for i in range(n - 1, -1, -1):
            s, _c2 = nodes[i]
            p = self.chances[i]
            after = u[i + 1]
            for k in range(kmax + 1):
                lk = lose(i, k)
                for cc in range(limit):
                    a = cc + s.marks
                    if a >= limit:
                        best, d = lk, "roll"
                    else:
                        best = (1 - p) * after[a, k] + p * (lk if a + 1 >= limit else after[a + 1, k])
                        d = "roll"
                        if k < kmax and after[a, k + 1] < best - 1e-12:
                            best, d = after[a, k + 1], "secure"
                    if i > 0 and stop(i - 1, k) <= best + 1e-12:
                        best, d = stop(i - 1, k), "stop"
                    u[i][cc, k] = best
                    decide[i][cc, k] = d
        self.u, self.decide = u, decide

    @property
    def value(self) -> float:
        return self.u[0][0, 0]

    def outcomes(self) -> list:
        """As :meth:`Par.outcomes`: the end of the turn over every roll the policy may see."""
        laps_needed, nodes, f, tot = self.laps_needed, self.nodes, self.f, self.tot
        out: dict = {}

        def add(key, q, at, turns):
            k2 = (key, at, turns)
            out[k2] = out.get(k2, 0.0) + q

        def end(i, k):  # the turn ends under control after die i
            s, c2 = nodes[i]
            return None if c2 >= laps_needed else (s.to, c2, s.gear, f - tot[k])

        mass = {(0, 0): 1.0}
        for i, (s, c2) in enumerate(nodes):
            p = self.chances[i]
            lost = None if c2 >= laps_needed else (s.to, c2, 0)
            turns = 2 if self.loss_ends[i] == rules.OUT and lost is not None else 1  # (RG-27)
            nxt: dict = {}
            for (cc, k), m in mass.items():
                d = self.decide[i][cc, k]
                if d == "stop":
                    add(end(i - 1, k), m, None, 1)
                    continue
                a = cc + s.marks
                lk = None if lost is None else lost + (f - tot[k],)
                if a >= self.limit:
                    add(lk, m, s.to, turns)
                elif d == "secure":
                    nxt[a, k + 1] = nxt.get((a, k + 1), 0.0) + m
                else:
                    nxt[a, k] = nxt.get((a, k), 0.0) + m * (1 - p)
                    if a + 1 >= self.limit:
                        add(lk, m * p, s.to, turns)
                    else:
                        nxt[a + 1, k] = nxt.get((a + 1, k), 0.0) + m * p
            mass = nxt
        for (_cc, k), m in mass.items():
            add(end(len(nodes) - 1, k), m, None, 1)
        return [(key, q, at, turns) for (key, at, turns), q in out.items() if q]


class _Dice:
    """The dashboard's dice as small integers: a plan's dice used so far are one int (a bit per
    gear die, four bits counting each other kind), so that partial plans hash fast."""

    def __init__(self, stage: Stage, counts: dict, gear_free: int):
        self.codes: dict[str, tuple[int, int, int]] = {}  # name -> (gear bit or 0, shift, cap)
        others = [n for n in stage.ruleset.die_names if not n.isdigit()]
        for name in stage.ruleset.die_names:
            if name.isdigit():
                self.codes[name] = (1 << int(name), 0, 0)
            else:
                self.codes[name] = (0, 12 + 4 * others.index(name), min(15, counts.get(name, 0)))
        self.gear_free = gear_free

    def add(self, used: int, name: str) -> int | None:
        """`used` with die `name` too, or None when the dashboard has no such die left."""
        bit, shift, cap = self.codes[name]
        if bit:
            if used & bit or (used & 0xFFF).bit_count() >= self.gear_free:
                return None
            return used | bit
        if (used >> shift) & 15 >= cap:
            return None
        return used + (1 << shift)


def _canonical(stage: Stage, dice: _Dice) -> Any:
    """A function (gear, dice used) -> the same dice used with the gear dice that no plan
    from there can reach marked used too: partial plans that differ only in those have the
    same continuations (so the solver keeps one). Only while no gear die is lost (the count
    of gear dice used then never binds)."""
    ruleset = stage.ruleset
    top = stage.top_gear
    gear_names = [n for n in ruleset.die_names if n.isdigit()]
    whole = sum(dice.codes[n][0] for n in gear_names)
    if dice.gear_free < len(gear_names):
        return lambda gear, used: used
    memo: dict = {}

    def canonical(gear: int, used: int) -> int:
        key = (gear, used)
        hit = memo.get(key)
        if hit is not None:
            return hit
        relevant = 0
        seen = set()
        stack = [key]
        while stack:
            g, u = stack.pop()
            if (g, u) in seen:
                continue
            seen.add((g, u))
            for name in ruleset.die_names:
                nu = dice.add(u, name)
                if nu is None:
                    continue
                g2 = rules.die_gear(ruleset, name, g)
                if g2 is None or g2 < 1 or g2 > top:
                    continue
                relevant |= dice.codes[name][0]
                stack.append((g2, nu))
        out = used | (whole & ~relevant)
        memo[key] = out
        return out

    return canonical


def _canonical_marks(stage: Stage, dice: _Dice) -> bool:
    """Whether :func:`_canonical` marks the gear dice no plan can reach (else it is the
    identity)."""
    return dice.gear_free >= sum(1 for n in stage.ruleset.die_names if n.isdigit())


def par(stage: Stage, focus_cap: int = FOCUS_CAP, one_at_a_time: bool = True) -> Par:
    """The expected stage time of the best solo policy with the dice resolved in plan order
    (see the module; RG-34): dynamic programming over
    (cell, finish crossings, gear, focus tokens held up to `focus_cap`), each turn's plan of
    dice and path and its rolling mode chosen, one at a time with the securing and stopping
    chosen die by die. `one_at_a_time=False` with `focus_cap=0` is the flat-out policy of
    earlier versions (RG-30). Solved by the compiled kernel where it is built
    (:mod:`accel`: the same figures), else here."""
    with solvers.collector_paused():
        return _par(stage, focus_cap, one_at_a_time)


def _par(stage: Stage, focus_cap: int, one_at_a_time: bool) -> Par:
    if stage.flying_start or stage.damage:
        raise ValueError("the par time is for a stage without damage or flying start (Stage(damage=False))")
    track = stage.track
    if (why := loop_reason(track)) is not None:
        raise ValueError(why)
    ruleset = stage.ruleset
    car = CarState(cell=track.starts[0].hex)
    limit = stage.dashboard("asphalt", stage.weather).caution_limit
    _board, counts, gear_free = rules.pool(stage, car, stage.weather)
    dice = _Dice(stage, counts, gear_free)
    canonical = _canonical(stage, dice)
    laps_needed = stage.laps_needed  # (a Track hashes slowly: look it up once)
    cap = focus_cap
    secs = {g: float(ruleset.seconds(g)) for g, _s in ruleset.time_per_turn}
    sec = {int(g): v for g, v in secs.items() if g.isdigit()}
    earns = {n: 1 if ruleset.die(n).earns_token else 0 for n in ruleset.die_names}
    tot_all = [ruleset.focus.total(k) for k in range(12)]
    kmax_of = [max(k for k in range(12) if tot_all[k] <= f) for f in range(cap + 1)]
    lose_secs: dict[int, float] = {}  # gear -> the seconds of a loss of control in that gear
    big = 10.0**9
    eps = 1e-12
    three = limit == 3
    value: dict = {}  # (cell, cross, gear, tokens) -> expected seconds to the finish
    choice: dict = {}  # (cell, cross, gear, tokens) -> (mode, plan)
    flat_sets: dict = {}  # (cell, cross) -> {(gear, used, tokens): Pareto front}
    one_sets: dict = {}  # (cell, cross) -> {(gear, used, tokens): Pareto front}
    moves = _moves_of(stage)
    loss_memo: dict = {}
    programs: dict = {}
    ext_memo: dict = {}  # (cell, cross, gear, tokens) -> the losses of control for k = 0..kmax, then 'never'

    def loss(cell: Hex, cross: int, gear: int, tokens: int) -> float:
        key = (cell, cross, gear, tokens)
        hit = loss_memo.get(key)
        if hit is None:
            t = lose_secs.get(gear)
            if t is None:
                t = lose_secs[gear] = secs[rules.loss_end(ruleset, gear)]
            hit = t if cross >= laps_needed else t + V(cell, cross, 0, tokens)
            loss_memo[key] = hit
        return hit

    succ_sets: dict = {}  # (cell, cross) -> {(gear, used): the dice that may follow}

    def follow(cell: Hex, cross: int, gear: int, used: int) -> list:
        """The dice a partial plan may go on with: (step, crossings after it, whether it
        finishes, caution chance, one minus it, the dice used after it, tokens it earns)."""
        here = _slot(succ_sets, cell, cross)
        hit = here.get((gear, used))
        if hit is None:
            hit = []
            for s, c2, done, p, q in moves(cell, cross, gear):
                nu = dice.add(used, s.die)
                if nu is not None:
                    hit.append((s, c2, done, p, q, None if done else canonical(s.gear, nu), earns[s.die]))
            here[gear, used] = hit
        return hit

    def chain(entry, step_at: int, next_at: int) -> tuple:
        plan = []
        while entry is not None and entry[step_at] is not None:
            plan.append(entry[step_at])
            entry = entry[next_at]
        return tuple(plan)

    def V(cell: Hex, cross: int, gear: int, f: int) -> float:
        k = (cell, cross, gear, f)
        hit = value.get(k)
        if hit is not None:
            return hit
        value[k] = big  # a state that leads back to itself is never chosen
        best = big
        first = None
        for entry in flat(cell, cross, gear, 0, f):
            if entry[0][0] < best:
                best, first = entry[0][0], entry
        mode = FLAT
        if one_at_a_time:
            for entry in one(cell, cross, gear, 0, f):
                if entry[0][0] < best - 1e-9:  # a tie goes to flat out (it earns tokens)
                    best, first, mode = entry[0][0], entry, ONE
        value[k] = best
        if first is not None:
            choice[k] = (mode, chain(first, 3, 4))
        return best

    def flat(cell: Hex, cross: int, gear: int, used: int, t: int) -> list:
        """Flat out: the Pareto set of continuations of a partial plan whose dice so far bring
        the tokens to `t`: entries (vector over the cautions so far, dice in the tail, a
        tie-break, its first step, the entry it continues with, tokens the tail earns)."""
        here = _slot(flat_sets, cell, cross)
        k = (gear, used, t)
        hit = here.get(k)
        if hit is not None:
            return hit
        cands: list = []
        if used:
            stop = sec[gear] + (0.0 if cross >= laps_needed else V(cell, cross, gear, t))
            cands.append(((stop,) * limit, 0, 0, None, None, 0))
        room = cap - t
        for s, c2, done, p, q, nu, a in follow(cell, cross, gear, used):
            t2 = min(t + a, cap)
            m = s.marks
            tails: Sequence[Any]
            if done:
                tails = (((sec[s.gear],) * limit, 0, 0, None, None, 0),)
            else:
                tails = flat(s.to, c2, s.gear, nu, t2)
            for entry in tails:
                e = min(a + entry[5], room)
                lose = loss(s.to, c2, s.gear, t + e)
                if three:  # the usual caution limit, written out (the same arithmetic)
                    v0, v1, v2 = entry[0]
                    if m == 0:
                        new = (q * v0 + p * v1, q * v1 + p * v2, q * v2 + p * lose)
                    elif m == 1:
                        new = (q * v1 + p * v2, q * v2 + p * lose, q * lose + p * lose)
                    elif m == 2:
                        new = (q * v2 + p * lose, q * lose + p * lose, q * lose + p * lose)
                    else:
                        new = (q * lose + p * lose,) * 3
                else:
                    ext = entry[0] + (lose,) * (m + 2)
                    new = tuple([q * ext[c + m] + p * ext[c + m + 1] for c in range(limit)])
                cands.append((new, entry[1] + 1, len(cands), s, None if done else entry, e))
        cands.sort()  # by vector, then dice, then the order found (never reaching the step)
        front: list = []
        if three:
            for cand in cands:
                a0, a1, a2 = cand[0]
                a0 += eps
                a1 += eps
                a2 += eps
                e = cand[5]
                for o in front:
                    b0, b1, b2 = o[0]
                    if b0 <= a0 and b1 <= a1 and b2 <= a2 and o[5] >= e:
                        break
                else:
                    front.append(cand)
        else:
            for cand in cands:
                top = [b + eps for b in cand[0]]
                e = cand[5]
                for o in front:
                    if o[5] >= e and all(map(le, o[0], top)):
                        break
                else:
                    front.append(cand)
        here[k] = front
        return front

    def one(cell: Hex, cross: int, gear: int, used: int, f: int) -> list:
        """One at a time from a turn begun with `f` tokens: the Pareto set of continuations
        as vectors over (dice secured so far k, cautions so far c), index k * limit + c, the
        choice to stop (after the first die), roll or secure taken at each die."""
        here = _slot(one_sets, cell, cross)
        key = (gear, used, f)
        hit = here.get(key)
        if hit is not None:
            return hit
        kmax = kmax_of[f]
        dims = limit * (kmax + 1)
        left = [f - tot_all[k] for k in range(kmax + 1)]
        cands: list = []
        stopvec = None
        if used:
            stopvec = tuple(
                sec[gear] + (0.0 if cross >= laps_needed else V(cell, cross, gear, left[j // limit]))
                for j in range(dims)
            )
            cands.append((stopvec, 0, 0, None, None))
        for s, c2, done, p, q, nu, _a in follow(cell, cross, gear, used):
            m = s.marks
            tails: Sequence[Any]
            if done:
                tails = (((sec[s.gear],) * dims, 0, 0, None, None),)
            else:
                tails = one(s.to, c2, s.gear, nu, f)
            prog = programs.get((m, kmax))
            if prog is None:
                prog = programs[m, kmax] = _one_program(limit, kmax, m)
            ext = ext_memo.get((s.to, c2, s.gear, f))
            if ext is None:
                ext = ext_memo[s.to, c2, s.gear, f] = tuple(
                    [loss(s.to, c2, s.gear, left[k]) for k in range(kmax + 1)]
                ) + (big,)
            for entry in tails:
                hx = entry[0] + ext
                new = [v if (v := q * hx[i0] + p * hx[i1]) < hx[i2] else hx[i2] for i0, i1, i2 in prog]
                if stopvec is not None:
                    new = [b if b < v else v for v, b in zip(new, stopvec)]  # noqa: FURB136 (min() is slower here)
                cands.append((tuple(new), entry[1] + 1, len(cands), s, None if done else entry))
        cands.sort()
        front: list = []
        for cand in cands:
            top = [b + eps for b in cand[0]]
            for o in front:
                if all(map(le, o[0], top)):
                    break
            else:
                front.append(cand)
        here[key] = front
        return front

    start = (rules._grid(track)[0], 0, 0, 0)
    # The states a loss of control leads to, the furthest along first: the recursion stays a
    # turn deep, and the fronts of cells more than a turn ahead are no longer needed (they
    # are dropped, so memory stays that of a turn's window; a front asked for again is
    # computed again, the same).
    window = sum(counts.values()) + 2
    order = _race_order(track, laps_needed)
    # the compiled kernel, where it is built: the same programme, the same figures (accel)
    solved = accel.par_tables(
        stage,
        moves=moves,
        dice=dice,
        canonical=_canonical_marks(stage, dice),
        limit=limit,
        cap=cap,
        one_at_a_time=one_at_a_time,
        secs=secs,
        sec=sec,
        earns=earns,
        tot_all=tot_all,
        kmax_of=kmax_of,
        window=window,
        order=order,
        start=start,
        modes=(FLAT, ONE),
    )
    forward = None
    if solved is not None:
        value, choice, forward = solved
    else:
        behind: deque = deque()
        for pos, h, cross in order:
            for f in range(cap + 1):
                V(h, cross, 0, f)
            behind.append((pos, h, cross))
            while behind[0][0] > pos + window:
                _p, h2, c2 = behind.popleft()
                flat_sets.pop((h2, c2), None)
                one_sets.pop((h2, c2), None)
                succ_sets.pop((h2, c2), None)
        V(*start)
    # the solver's functions refer to each other: let them go now, and their fronts with them
    # (not at the cyclic collector's next full pass)
    V = flat = one = loss = follow = None  # type: ignore[assignment]  # noqa: F811, F841 (dropped on purpose)
    result = Par(stage, start, value, choice, cap, limit)
    if forward is not None:  # (the kernel's forward pass: _forward's figures)
        result.danger, result.expected_turns, result.turns_by_mode = forward
    else:
        _forward(result)
    return result


def _slot(sets: dict, cell: Hex, cross: int) -> dict:
    """The memo of one (cell, crossings)'s partial plans in `sets` (dropped as a whole once
    the solve is a turn behind it)."""
    here = sets.get((cell, cross))
    if here is None:
        here = sets[cell, cross] = {}
    return here


def _one_program(limit: int, kmax: int, marks: int) -> tuple[tuple[int, int, int], ...]:
    """How one die rolled one at a time turns the vector after it into the vector before it,
    as index triples (i0, i1, i2) into the vector after it extended by the losses of control
    for k = 0..kmax and a last "never" slot: component (k, c) is the roll's
    q * x[i0] + p * x[i1] (a caution: one more, or the loss at the limit), or the secured
    die's x[i2] when that is less (the next cost paid: k + 1; the "never" slot when kmax dice
    are secured). Marks on the space count either way; at the limit already: the loss."""
    dims = limit * (kmax + 1)
    never = dims + kmax + 1
    out = []
    for k in range(kmax + 1):
        base = k * limit
        for c in range(limit):
            a = c + marks
            lose = dims + k
            if a >= limit:
                out.append((lose, lose, never))
            else:
                out.append(
                    (base + a, lose if a + 1 >= limit else base + a + 1, base + limit + a if k < kmax else never)
                )
    return tuple(out)


def _race_order(track, laps_needed: int) -> list[tuple[int, Hex, int]]:
    """Every (cell, finish crossings) as (distance along the race, cell, crossings), the
    furthest first: a crossing into a finish cell goes on one step, like any move."""
    steps = track.steps()
    loop = max(steps.values()) + 1
    finish = min((steps[c.hex] for c in track.finishes if c.hex in steps), default=0)
    out = []
    for cross in range(laps_needed):
        for h, st in steps.items():
            out.append((cross * loop + st + (loop if st < finish else 0), h, cross))
    out.sort(key=lambda x: (-x[0], x[1], x[2]))
    return out


def _pareto(cands: list) -> list:
    """The candidates no other beats in every component (ties: the shorter plan first)."""
    cands.sort(key=lambda c: (c[0], len(c[1])))
    out: list = []
    kept: list = []  # the vectors of `out`
    for vec, tail in cands:
        top = [b + 1e-12 for b in vec]  # (the same sums as `a <= b + 1e-12` makes one pair at a time)
        for o in kept:
            if all(map(le, o, top)):
                break
        else:
            out.append((vec, tail))
            kept.append(vec)
    return out


class _Rolled(Protocol):
    """What the odds of a plan read of a die of it: GT's `Step` and DIRT's `DStep` alike."""

    @property
    def die(self) -> str: ...

    @property
    def marks(self) -> int: ...


class _Rules(Protocol):
    """What the odds of a plan read of its stage: GT's `Stage` and DIRT's `DirtStage` alike."""

    @property
    def ruleset(self) -> Ruleset: ...


def plan_outcomes(stage: _Rules, plan: Sequence[_Rolled], limit: int) -> tuple[list[float], float]:
    """P(control lost first on die i) in plan order, and P(no loss), flat out. A step may also
    lose control whatever its die shows (`lose_always`) or on any caution it rolls
    (`lose_on_caution`): a DIRT jump taken too fast (RD-9); GT's steps have neither."""
    dist = [1.0] + [0.0] * (limit - 1)
    losses = []
    for s in plan:
        p = float(stage.ruleset.die(s.die).caution_chance)
        always, on_caution = getattr(s, "lose_always", False), getattr(s, "lose_on_caution", False)
        nxt = [0.0] * limit
        lost = 0.0
        for c, q in enumerate(dist):
            if not q:
                continue
            for extra, pr in ((0, 1 - p), (1, p)):
                a = c + s.marks + extra
                if a >= limit or always or (extra and on_caution):
                    lost += q * pr
                else:
                    nxt[a] += q * pr
        losses.append(lost)
        dist = nxt
    return losses, sum(dist)


def policy_order(start: Any, successors: Any) -> list:
    """The states a policy reaches from `start`, each before every state it leads to (every
    turn moves on, so they make a DAG): the order of a forward pass of the probability mass.
    `successors(k)` gives tuples whose first two items are the next state (None: the stage is
    over) and its chance; it is called once a state, in the order of the depth-first walk."""
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
        for nk, q, *_rest in successors(k):
            if nk is not None and q and nk not in seen:
                stack.append((nk, False))
    order.reverse()
    return order


def _forward(result: Par) -> None:
    """The chance of losing control on each cell, the expected turns and the turns rolled in
    each mode under the policy (a forward pass of the probability mass)."""
    graph: dict = {}

    def succ(k):
        hit = graph.get(k)
        if hit is None:
            # no plan from here (a finish no plan reaches): a dead end
            hit = graph[k] = result.outcomes(k) if result.choice.get(k) else []
        return hit

    order = policy_order(result.start, succ)
    mass = {result.start: 1.0}
    danger: dict = {}
    turns = 0.0
    by_mode = {FLAT: 0.0, ONE: 0.0}
    for k in order:
        m = mass.get(k, 0.0)
        if not m or k not in result.choice:
            continue
        by_mode[result.choice[k][0]] += m
        for nk, q, at, t in succ(k):
            turns += m * q * t
            if at is not None:
                danger[at] = danger.get(at, 0.0) + m * q
            if nk is not None:
                mass[nk] = mass.get(nk, 0.0) + m * q
    result.danger, result.expected_turns, result.turns_by_mode = danger, turns, by_mode


# --------------------------------------------------------------------------- safe route


@dataclass
class Safe:
    time: int
    turns: int
    plans: tuple[tuple[str, tuple[Step, ...]], ...]  # (mode, plan) per turn


def safe_route(stage: Stage, focus_cap: int = SAFE_FOCUS) -> Safe | None:
    """The least time over turns that cannot lose control (see the module); None when the
    finish cannot be reached so. Searched by the compiled kernel where it is built
    (:mod:`accel`: the same route), else here."""
    with solvers.collector_paused():
        return _safe_route(stage, focus_cap)


def _safe_route(stage: Stage, focus_cap: int) -> Safe | None:
    ruleset = stage.ruleset
    car = CarState(cell=stage.track.starts[0].hex)
    limit = stage.dashboard("asphalt", stage.weather).caution_limit
    _board, counts, gear_free = rules.pool(stage, car, stage.weather)
    dice = _Dice(stage, counts, gear_free)
    canonical = _canonical(stage, dice)
    moves = _moves_of(stage)
    laps_needed = moves.laps_needed
    secs = {int(g): v for g, v in ruleset.time_per_turn if g.isdigit()}
    costs = ruleset.focus
    kmax = 0
    while costs.total(kmax + 1) <= focus_cap:
        kmax += 1
    risky = {n: 1 if ruleset.die(n).cautions else 0 for n in ruleset.die_names}
    earns = {n: 1 if ruleset.die(n).earns_token else 0 for n in ruleset.die_names}
    memo: dict = {}

    def turns(cell: Hex, cross: int, gear: int) -> list:
        """Every safe outcome from (cell, gear), breadth first over partial plans, each with
        the first plan (in that order) that gives it: (plan, end cell, crossings, gear, dice
        to secure, tokens earned flat out). Partial plans with the same cell, gear, dice and
        cautions from the track have the same continuations: the first one is kept. Laps
        before the last give the same turns (crossings counted from `cross`: kept as the
        crossings added)."""
        key = (cell, gear, cross >= laps_needed - 1) if share_laps else (cell, gear, cross)
        if key in memo:
            return memo[key]
        out = []
        outcomes: set = set()
        seen: set = set()
        frontier: list[tuple[Any, ...]] = [((), cell, cross, gear, 0, 0, 0, 0)]
        while frontier:
            nxt = []
            for plan, at, c, g, used, r, marks, earned in frontier:
                for s, c2, done, _p, _q in moves(at, c, g):
                    m2 = marks + s.marks
                    if m2 >= limit:
                        continue
                    r2 = r + risky[s.die]
                    secure = r2 + m2 - (limit - 1)
                    if secure > 0 and (secure > kmax or secure > r2):
                        continue
                    nu = dice.add(used, s.die)
                    if nu is None:
                        continue
                    secure = max(secure, 0)
                    e2 = earned + earns[s.die]
                    state = (s.to, c2, s.gear, canonical(s.gear, nu), m2, r2, e2)
                    if state in seen:
                        continue
                    seen.add(state)
                    p2 = plan + (s,)
                    outcome = (s.to, c2, s.gear, secure, e2)
                    if outcome not in outcomes:
                        outcomes.add(outcome)
                        out.append((p2, s.to, c2 - cross, s.gear, secure, e2))
                    if not done:
                        nxt.append((p2, s.to, c2, s.gear, nu, r2, m2, e2))
            frontier = nxt
        memo[key] = out
        return out

    total = [costs.total(k) for k in range(kmax + 1)]
    steps = stage.track.steps()
    share_laps = max(steps.values()) + 1 > sum(counts.values()) + 1  # no turn goes round twice
    grid = rules._grid(stage.track)
    start = (grid[0], 0, 0, 0)
    # the compiled kernel, where it is built: the same search, the same route (accel)
    found = accel.safe_route_plans(
        stage,
        moves=moves,
        dice=dice,
        canonical=_canonical_marks(stage, dice),
        limit=limit,
        kmax=kmax,
        focus_cap=focus_cap,
        secs=secs,
        risky=risky,
        earns=earns,
        total=total,
        share_laps=share_laps,
        start=grid[0],
        modes=("flat", "one"),
    )
    if found is not None:
        route = found[0]
        return None if route is None else Safe(route[0], len(route[1]), route[1])
    dist = {start: 0}
    back: dict = {}
    heap = [(0, 0, start)]
    tick = 0
    while heap:
        t, _n, k = heapq.heappop(heap)
        if t > dist.get(k, 10**9):
            continue
        cell, cross, gear, f = k
        if cross >= laps_needed:
            plans = []
            while k in back:
                k, mode, plan = back[k]
                plans.append((mode, plan))
            plans.reverse()
            return Safe(t, len(plans), tuple(plans))
        for p2, to, added, g2, secure, earned in turns(cell, cross, gear):
            c2 = cross + added
            if secure == 0:
                mode, f2 = "flat", min(focus_cap, f + earned)
            elif total[secure] <= f:
                mode, f2 = "one", f - total[secure]
            else:
                continue
            nk = (to, c2, g2, f2)
            nt = t + secs[g2]
            if nt < dist.get(nk, 10**9):
                dist[nk] = nt
                back[nk] = (k, mode, p2)
                tick += 1
                heapq.heappush(heap, (nt, tick, nk))
    return None


def move_loops(track) -> list[Hex]:
    """The cells on loops of moves (a move from a cell and moves on that come back to it),
    the finish line's crossing into a new lap left out: none on a track whose moves all go
    forward. The exact solves refuse a track with one (:func:`loop_reason`): their dynamic
    programmes would meet a state again while solving it. Kahn's order: the cells it cannot
    order."""
    finish = {c.hex for c in track.cells if c.finish}
    after = {
        c.hex: [m.to for m in track.moves(c.hex) if not (m.to in finish and c.hex not in finish)] for c in track.cells
    }
    into = dict.fromkeys(after, 0)
    for tos in after.values():
        for t in tos:
            if t in into:
                into[t] += 1
    ready = [h for h, n in into.items() if n == 0]
    while ready:
        h = ready.pop()
        for t in after[h]:
            if t in into:
                into[t] -= 1
                if into[t] == 0:
                    ready.append(t)
    left = {h for h, n in into.items() if n > 0}
    # of those, the cells on a loop (not only after one): a cell that reaches itself
    on_loop = []
    for h in sorted(left, key=lambda x: (x.q, x.r)):
        seen, stack = set(), [t for t in after[h] if t in left]
        while stack:
            x = stack.pop()
            if x == h:
                on_loop.append(h)
                break
            if x not in seen:
                seen.add(x)
                stack.extend(t for t in after[x] if t in left)
    return on_loop


def describe_plan(plan: tuple[Step, ...]) -> str:
    return ",".join(s.die + "!" * s.marks for s in plan)


def policy_for(result: Par) -> Any:
    """The par policy as an engine policy (:mod:`sheetgen.engine`): the solved plan for the
    car's cell, crossings, gear and tokens (counted up to the cap), rolled in the solved mode;
    one at a time it rolls, secures or stops as the plan's table says; flat out a loss of
    control is placed where the plan's own order reaches the limit."""

    def act(state: rules.RaceState):
        if state.phase == rules.PLAN:
            mode, plan = result.choice[result.key_of(state)]
            if len(state.plan) < len(plan):
                s = plan[len(state.plan)]
                return rules.Place(s.die, s.to)
            return rules.Roll(mode)
        if state.phase == rules.ONE:
            return result.one_action(state)
        if state.phase == rules.REALLOCATE:
            return plan_order_loss(state, state.legal_actions())
        if state.phase == rules.PIT:
            return rules.Pit("none")
        return state.legal_actions()[0]

    return act


def plan_order_loss(state: rules.RaceState, actions: tuple) -> Any:
    """Flat out, after a loss of control: the re-allocation that loses control where the
    plan's own order reaches the limit, on that die's cell, in its gear, with the finish-line
    crossings made on the way there (on a loop short enough for a turn to lap it the same cell
    and gear come with other crossings); the first action if none matches."""
    limit = state.limit()
    c = 0
    for i, (s, hit) in enumerate(zip(state.plan, state.rolled)):
        c += s.marks + (1 if hit else 0)
        if c >= limit:
            crossed = rules._crossed(state.stage.track, state.car.cell, state.plan[:i], s.to)
            for a in actions:
                if (a.to, a.gear, a.crossed) == (s.to, s.gear, crossed):
                    return a
            break
    return actions[0]


# --------------------------------------------------------------------------- shared with DIRT's report


def dangerous_cells(track, danger: dict, count: int = 5) -> list[dict]:
    """The `count` cells where the par policy loses control most often (`danger`: cell ->
    expected losses), as `analyze` gives them, GT and DIRT alike: most first, then by step
    along the track and by q, r."""
    steps = track.steps()
    ranked = sorted(danger.items(), key=lambda kv: (-kv[1], steps.get(kv[0], 0), kv[0].q, kv[0].r))
    return [
        {
            "q": h.q,
            "r": h.r,
            "step": steps.get(h, 0),
            "lose_control": round(p, 4),
            "marks": list(track.cell(h).marks()),
        }
        for h, p in ranked[:count]
    ]
