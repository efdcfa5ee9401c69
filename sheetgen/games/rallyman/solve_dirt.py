"""Rallyman DIRT stage analysis: the par time from the time cards, the lane the par policy
takes through every corner, and which shortcuts and jumps pay off (docs/rallyman_dirt.md;
rulings RD-13, RD-15).

The model (`DirtStage(damage=False)`): one car alone (it plays first every round, so it has
the leader die), flat out, a crash drawing no damage, every shortcut entry drawing its side
from a full bag (coast-die damage counts from the next turn; the car's own mud does not
slow it, RD-8). The per-die rules are the DIRT engine's (:func:`rules_dirt.dirt_steps`).

**Par time** (:func:`par`): the exact expected stage time of the best flat-out policy with
the dice resolved in plan order (RG-34: no re-allocation after a loss), by
dynamic programming over (cell, gear, coast dice lost, slide space) with the within-turn choice of dice
and path as in GT's solver: for every partial plan the Pareto set of its continuations as
vectors over the cautions so far. A loss of control costs the expected time card: SISU (the
card's seconds, the next turn in gear 0, RD-21), Spin or Crash (60 s, gear 0), with the deck's
shares; a jump die one gear over loses control on a caution, two over always; a car with no
die within the limits places its first die over one and loses control there (RD-17).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from sheetgen import solvers
from sheetgen.games.rallyman import rules_dirt as rd
from sheetgen.games.rallyman import solve
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.rules_dirt import DirtCar, DirtStage, DStep
from sheetgen.games.rallyman.solve import _pareto

BIG = 10.0**9

#: cells of a DIRT track `analyze` and `simulate` solve exactly at most. With the compiled
#: kernel the par grows with the cells (about 5 ms a cell), the analysis with the cells times
#: the shortcuts, jumps and slide zones it prices (each solves again the states before it):
#: the densest tracks measured, a jump or slide zone every two or three columns, take 7.4 s
#: of CPU at 180 cells and 9.5 s at 200 (docs/benchmarks.md, "Rallyman DIRT analysis"); the
#: bundled stages have 79 and 104 (about 2 s each). Without the kernel the Python reference
#: takes 10 to 25 times as long.
MAX_DIRT_SIZE = 180


def too_large(track) -> str | None:
    """Why `analyze` and `simulate` do not solve this DIRT track exactly (None: they do)."""
    if len(track.cells) <= MAX_DIRT_SIZE:
        return None
    return (f"a DIRT track of {len(track.cells)} cells is too large for the exact par solve (at most {MAX_DIRT_SIZE} "
            "cells: its analysis would take over 10 s of CPU); its printouts and `sheetgen odds` work at any size")


def _key_used(used: tuple, die: str) -> tuple | None:
    mask, coast, leader, brake, boost = used
    if die.isdigit():
        bit = 1 << int(die)
        return None if mask & bit else (mask | bit, coast, leader, brake, boost)
    if die == "coast":
        return (mask, coast + 1, leader, brake, boost)
    if die == "leader":
        return (mask, coast, leader + 1, brake, boost)
    if die == "brake":
        return (mask, coast, leader, brake + 1, boost)
    return (mask, coast, leader, brake, boost + 1)


NONE_USED = (0, 0, 0, 0, 0)


@dataclass
class DirtPar:
    stage: DirtStage
    start: tuple[Hex, int, int, int]
    value: dict  # (cell, gear, coast lost, slide space) -> expected seconds to the finish
    choice: dict  # (cell, gear, coast lost, slide space) -> the plan
    visits: dict  # cell -> expected visits (end of a die) under the policy
    danger: dict  # cell -> chance of losing control there
    airs: dict  # jump cell -> {air: chance}
    entries: dict  # shortcut cell -> chance of entering it
    slid: dict  # a slide zone's first cell -> expected slides into it
    cards: dict  # (gear, None or the loss icon) -> expected time cards of that kind per stage
    expected_turns: float
    onward: dict = field(default_factory=dict)  # cell -> the cells a die from it ends on or jumps from
    #: the engine's dice of each state solved (rules_dirt.dirt_steps, no ban), for the solves of a ban
    steps: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def time(self) -> float:
        return self.value[self.start]


def par(stage: DirtStage, banned: frozenset = frozenset()) -> DirtPar:
    """The best flat-out policy's expected time (see the module). `banned`: shortcut spaces
    never entered, jump spaces never taken off from and slide spaces never slid into (to
    price them; :func:`banned_time` gives the time alone, faster)."""
    if stage.damage:
        raise ValueError("the par time is for the solver's model (DirtStage(damage=False))")
    if (why := solve.loop_reason(stage.track)) is not None:
        raise ValueError(why)
    with solvers.collector_paused():  # (millions of tuples made and freed: a quarter of the time)
        steps: dict = {}
        start, value, choice, onward = _dp(stage, banned, steps=steps)
        result = DirtPar(stage, start, value, choice, {}, {}, {}, {}, {}, {}, 0.0, onward, steps)
        _forward(result, p_coast=float(dict(stage.shortcut_sides()).get("coast_die", 0)), coast_dice=_coast_dice(stage))
    return result


def _coast_dice(stage: DirtStage) -> int:
    board = dict(stage.board.dice)
    return board.get("coast", 0) + board.get("leader", 0)


def banned_time(result: DirtPar, banned: frozenset) -> float:
    """`par(result.stage, banned).time`, the same float, solving again only the states from
    which a car can still reach a banned space: every other state's value is the one
    `result` solved (its moves, and all that follow them, are not touched by the ban; the
    moves lead on, RG-30, so the cells that reach a banned one are known from `result`)."""
    back: dict = {}
    for cell, nexts in result.onward.items():
        for n in nexts:
            back.setdefault(n, []).append(cell)
    reaching = set(banned)
    todo = list(banned)
    while todo:
        for cell in back.get(todo.pop(), ()):
            if cell not in reaching:
                reaching.add(cell)
                todo.append(cell)
    with solvers.collector_paused():
        start, value, _choice, _onward = _dp(
            result.stage, banned, result.value, frozenset(reaching), choose=False, steps=result.steps
        )
    return value[start]


def solve_from(result: DirtPar, state: tuple, known: dict) -> dict:
    """The par's values of the states a car alone, undamaged, reaches from `state` (cell,
    gear, coast dice lost, slide space) that `known` lacks: the same dynamic programme as
    :func:`par`'s, solved from there, each state of `known` (the par's table and those solved
    before) taken from it, not solved again (the simulation's driver values the states a solo
    car never reaches this way, RD-22). The compiled kernel solves it where it is built."""
    with solvers.collector_paused():
        _start, value, _choice, _onward = _dp(
            result.stage, frozenset(), known, frozenset(), choose=False, steps=result.steps, start=state
        )
    return {k: v for k, v in value.items() if k not in known}


def turn_plan(
    result: DirtPar, car: DirtCar, first: bool, known: dict, traffic: rd.Traffic | None = None
) -> tuple[float, tuple[DStep, ...]]:
    """One turn of the par's programme from `car`'s state with the car's own dice (those lost
    to damage left out; the leader die only when it plays first), the other cars left out,
    each end of the turn valued from `known`, which must hold every state a car alone and
    undamaged reaches from there (:func:`solve_from`): the least expected time and its plan
    (BIG, (): no die can be placed). The simulation's driver plays it where the engine allows
    it among the cars (RD-22, RD-24). With `traffic`, each die is the engine's among those cars
    and that mud from the state it leaves, as if the turn started there: the cars a die from
    it is beside ask their gear of it whatever cells the plan stood on before (RG-33 asks it
    only of the die that first brings the car beside a car)."""
    start = (car.cell, car.gear, min(car.lost_count("coast"), _coast_dice(result.stage)), car.slide)
    others = {k: v for k, v in known.items() if k != start}
    with solvers.collector_paused():
        _start, value, choice, _onward = _dp(
            result.stage,
            frozenset(),
            others,
            frozenset(),
            steps=result.steps if traffic is None else {},
            start=start,
            pool=rd.dice_pool(result.stage, car, first),
            traffic=traffic,
        )
    return value[start], choice.get(start, ())


def loss_outcomes(stage: DirtStage) -> dict[int, tuple[tuple[str, float, int, int], ...]]:
    """What losing control in each gear leads to (RD-12): (the card's icon, its chance, the
    card's seconds, the gear the car restarts in): SISU the card of that gear's seconds, Spin
    and Crash the loss's seconds, each the next turn in gear 0 (RD-21)."""
    loss_seconds = stage.time_cards.loss_seconds
    return {
        g: tuple(
            (icon, float(q), stage.seconds(g), 0) if icon == rd.SISU else (icon, float(q), loss_seconds, 0)
            for icon, q in stage.icons(g)
        )
        for g in range(1, stage.top_gear + 1)
    }


def _dp(
    stage: DirtStage,
    banned: frozenset,
    known: dict | None = None,
    reaching: frozenset = frozenset(),
    choose: bool = True,
    steps: dict | None = None,
    start: tuple | None = None,
    pool: tuple | None = None,
    traffic: rd.Traffic | None = None,
):
    """The dynamic programme of :func:`par`: (the start state, the values of the states
    solved, the plan of each (with `choose`; else {}), and each cell's onward cells: where a
    die from it ends or passes a jump). With `known` (another ban's values), a state on a
    cell not `reaching` a banned space takes its value from there. `steps`: the engine's dice
    of states met before (rules_dirt.dirt_steps, no ban), kept there. `start`: the state
    solved from (None: the grid's, gear 0); `pool`: the dice of the turns with the start's
    count of coast dice lost (rules_dirt.dice_pool; None: the car's first in every round,
    undamaged but for its coast dice); `traffic`: the other cars and the mud, each die's as
    the engine gives it from the state it leaves (None: a car alone; `steps` must then not be
    the par's). The compiled kernel
    (accel.dirt_par_tables) solves it where it is built; the Python below is the reference
    and the fallback, the same floats (tests/test_rallyman_kernel.py)."""
    limit = stage.limit
    sec = stage.seconds
    coast_dice = _coast_dice(stage)
    sides = dict(stage.shortcut_sides())
    p_coast = float(sides.get("coast_die", 0))
    value: dict[tuple[Hex, int, int, int], float] = {}
    sets: dict = {}
    steps_memo: dict = {}
    engine: dict = {} if steps is None else steps
    start = (stage.start_cell, 0, 0, 0) if start is None else start
    onward: dict[Hex, set[Hex]] = {}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50000))

    def moves(cell: Hex, gear: int, lost: int, slide: int, braked: bool = False) -> tuple:
        """The engine's dice from a state, a brake die placed before in the turn or not
        (RD-20: the gear-1 die then stops on water), the bans applied."""
        k = (cell, gear, lost, slide, braked)
        hit = steps_memo.get(k)
        if hit is None:
            every = engine.get(k)
            if every is None:
                car = DirtCar(cell=cell, gear=gear, lost=(("coast", lost),) if lost else (), slide=slide)
                every = engine[k] = (
                    rd.dirt_steps(stage, car, (), braked=braked)
                    if traffic is None
                    else rd.dirt_steps(stage, car, (), traffic=traffic, braked=braked)
                )
            nexts = onward.setdefault(cell, set())
            for s in every:
                nexts.add(s.to)
                if s.via is not None:
                    nexts.add(s.via)
            hit = tuple(
                s
                for s in every
                if not (s.via in banned and s.air)
                and not (s.entry and (s.to in banned or s.via in banned))
                and not (s.slide == 1 and s.to in banned)
            )
            steps_memo[k] = hit
        return hit

    pool_of: dict = {}

    def fits_pool(lost: int) -> tuple[dict[str, int], int]:
        if pool is not None and lost == start[2]:
            return pool
        if lost not in pool_of:
            pool_of[lost] = rd.dice_pool(
                stage, DirtCar(cell=stage.start_cell, lost=(("coast", lost),) if lost else ()), True
            )
        return pool_of[lost]

    def fits(used: tuple, lost: int) -> bool:
        dice, gear_free = fits_pool(lost)
        mask, coast, leader, brake, boost = used
        return (
            mask.bit_count() <= gear_free
            and coast <= dice.get("coast", 0)
            and leader <= dice.get("leader", 0)
            and brake <= dice.get("brake", 0)
            and boost <= dice.get("boost", 0)
        )

    def after(cell: Hex, gear: int, lost: int, slide: int, entries: int) -> float:
        """The expected rest of the stage after the shortcut draws of `entries` entries."""
        if entries == 0 or p_coast == 0:
            return V(cell, gear, lost, slide)
        total = 0.0
        from math import comb

        for k in range(entries + 1):
            q = comb(entries, k) * p_coast**k * (1 - p_coast) ** (entries - k)
            total += q * V(cell, gear, min(coast_dice, lost + k), slide)
        return total

    def end(cell: Hex, gear: int, lost: int, slide: int, entries: int, finished: bool) -> float:
        return sec(gear) + (0.0 if finished else after(cell, gear, lost, slide, entries))

    outcomes = loss_outcomes(stage)
    chance = {d.name: float(d.caution_chance) for d in stage.ruleset.dice}
    from sheetgen.games.rallyman import accel

    solved = accel.dirt_par_tables(
        stage,
        moves=moves,
        pools=[fits_pool(lost) for lost in range(coast_dice + 1)],
        outcomes=outcomes,
        chance=chance,
        p_coast=p_coast,
        coast_dice=coast_dice,
        known=known,
        reaching=reaching,
        start=start,
        choose=choose,
    )
    if solved is not None:
        value_k, choice_k = solved
        return start, value_k, choice_k, {cell: frozenset(nexts) for cell, nexts in onward.items()}
    lose_memo: dict = {}

    def lose(s: DStep, lost: int, entries: int) -> float:
        k = (s.to, s.gear, s.finishes, lost, s.slide, entries)
        hit = lose_memo.get(k)
        if hit is not None:
            return hit
        total = 0.0
        for _icon, q, seconds, gear in outcomes[s.gear]:
            total += q * (seconds + (0.0 if s.finishes else after(s.to, gear, lost, s.slide, entries)))
        lose_memo[k] = total
        return total

    programs: dict = {}

    def V(cell: Hex, gear: int, lost: int, slide: int) -> float:
        k = (cell, gear, lost, slide)
        if k in value:
            return value[k]
        if known is not None and cell not in reaching and k in known:
            value[k] = known[k]
            return value[k]
        value[k] = BIG
        front = W(cell, gear, lost, slide, NONE_USED, 0)
        value[k] = min((vec[0] for vec, _t in front), default=BIG)
        return value[k]

    def W(cell: Hex, gear: int, lost: int, slide: int, used: tuple, entries: int) -> list:
        k = (cell, gear, lost, slide, used, entries)
        hit = sets.get(k)
        if hit is not None:
            return hit
        cands: list = []
        if used != NONE_USED:
            cands.append(((end(cell, gear, lost, slide, entries, False),) * limit, ()))
        for s in moves(cell, gear, lost, slide, used[3] > 0):  # (used[3]: brake dice placed)
            if s.over and used != NONE_USED:
                continue  # over a limit only as a turn's first die (RD-17)
            nu = _key_used(used, s.die)
            if nu is None or not fits(nu, lost):
                continue
            e2 = entries + (1 if s.entry else 0)
            p = chance[s.die]
            lost_v = lose(s, lost, e2)
            if s.last:
                tails = [((end(s.to, s.gear, lost, s.slide, e2, s.finishes),) * limit, ())]
            else:
                tails = W(s.to, s.gear, lost, s.slide, nu, e2)
            if s.lose_always:
                cands.extend(((lost_v,) * limit, (s,) + tail) for _vec, tail in tails)
                continue
            prog = programs.get((s.marks, s.lose_on_caution))
            if prog is None:
                prog = programs[s.marks, s.lose_on_caution] = _program(limit, s.marks, s.lose_on_caution)
            q = 1 - p
            for vec, tail in tails:
                # cautions so far c: no caution on this die (c + marks), or one more (c + marks + 1),
                # each the loss's seconds past the limit (index -1)
                new = tuple([q * (lost_v if i < 0 else vec[i]) + p * (lost_v if j < 0 else vec[j]) for i, j in prog])
                cands.append((new, (s,) + tail))
        front = _pareto(cands)
        sets[k] = front
        return front

    V(*start)
    choice = {}
    if choose:
        for k in list(value):
            if known is not None and k[0] not in reaching and k in known:
                continue  # (taken from `known`, not solved: the kernel gives it no plan either)
            front = W(*k, NONE_USED, 0)
            if front:
                choice[k] = min(front, key=lambda v: (v[0][0], len(v[1])))[1]
    return start, value, choice, {cell: frozenset(nexts) for cell, nexts in onward.items()}


def _program(limit: int, marks: int, on_caution: bool) -> tuple[tuple[int, int], ...]:
    """For each count of cautions so far (0 to limit - 1), where the next die leads: the
    count without a caution on it and with one, -1 where that is a loss of control."""
    out = []
    for c in range(limit):
        a = c + marks
        out.append((-1 if a >= limit else a, -1 if (on_caution or a + 1 >= limit) else a + 1))
    return tuple(out)


def plan_outcomes(stage: DirtStage, plan: tuple[DStep, ...]) -> tuple[list[float], float]:
    """P(control lost first on die i) in plan order, and P(no loss), flat out: GT's, with the
    jumps' losses its steps carry (RD-9)."""
    return solve.plan_outcomes(stage, plan, stage.limit)


def _forward(result: DirtPar, p_coast: float, coast_dice: int) -> None:
    """Visits, losses of control, jumps, slides, shortcut entries and time cards under the
    policy (a DAG: every turn moves the car on), and the expected turns."""
    stage = result.stage
    from math import comb

    outcomes = loss_outcomes(stage)

    def succ(k):
        _cell, _gear, lost, _slide = k
        plan = result.choice[k]
        losses, ok = plan_outcomes(stage, plan)
        out: list[tuple[Any, float, tuple]] = []
        entries = 0
        reach = 1.0
        for s, q in zip(plan, losses):
            entries += 1 if s.entry else 0
            events = ("die", s, reach)
            out.append((None, 0.0, events))
            reach -= q
            if q:
                for icon, qi, _seconds, g in outcomes[s.gear]:
                    for j in range(entries + 1):
                        qj = comb(entries, j) * p_coast**j * (1 - p_coast) ** (entries - j)
                        nk = None if s.finishes else (s.to, g, min(coast_dice, lost + j), s.slide)
                        out.append((nk, q * qi * qj, ("lose", s.to, (s.gear, icon))))
        last = plan[-1]
        for j in range(entries + 1):
            qj = comb(entries, j) * p_coast**j * (1 - p_coast) ** (entries - j)
            nk = None if last.finishes else (last.to, last.gear, min(coast_dice, lost + j), last.slide)
            out.append((nk, ok * qj, ("ok", (last.gear, None))))
        return out

    graph: dict = {}

    def edges(k):
        graph[k] = succ(k)
        return graph[k]

    order = solve.policy_order(result.start, edges)
    mass = {result.start: 1.0}
    turns = 0.0
    for k in order:
        m = mass.get(k, 0.0)
        if not m:
            continue
        turns += m
        for nk, q, ev in graph[k]:
            if ev[0] == "die":
                s, reach = ev[1], ev[2]
                w = m * reach
                result.visits[s.to] = result.visits.get(s.to, 0.0) + w
                if s.via is not None:
                    result.visits[s.via] = result.visits.get(s.via, 0.0) + w
                    airs = result.airs.setdefault(s.via, {})
                    airs[s.air] = airs.get(s.air, 0.0) + w
                if s.slide == 1:
                    result.slid[s.to] = result.slid.get(s.to, 0.0) + w
                if s.entry:
                    at = s.to if stage.track.at(s.to).shortcut is not None else s.via
                    result.entries[at] = result.entries.get(at, 0.0) + w
                continue
            if ev[0] == "lose":
                result.danger[ev[1]] = result.danger.get(ev[1], 0.0) + m * q
            card = ev[-1]
            result.cards[card] = result.cards.get(card, 0.0) + m * q
            if nk is not None:
                mass[nk] = mass.get(nk, 0.0) + m * q
    result.expected_turns = turns


def key_of(car: DirtCar) -> tuple[Hex, int, int, int]:
    """The solver's state of a car: (cell, gear, coast dice lost, slide space)."""
    return (car.cell, car.gear, car.lost_count("coast"), car.slide)


def policy_for(result: DirtPar) -> Any:
    """The par policy for the DIRT engine: the solved plan, rolled flat out."""

    def act(state: rd.DirtRace):
        car = state.car
        plan = result.choice.get(key_of(car), ())
        if len(state.plan) < len(plan):
            return rd.place_of(plan[len(state.plan)])
        return rd.Roll()

    return act


# --------------------------------------------------------------------------- the report


def corner_lanes(result: DirtPar) -> list[dict]:
    """The lane the par policy takes through each corner: the expected visits per lane."""
    track = result.stage.track
    out = []
    for corner in track.corners():
        by_lane: dict[int, float] = {}
        for c in corner.cells:
            by_lane[c.lane] = by_lane.get(c.lane, 0.0) + result.visits.get(c.hex, 0.0)
        inside = rd.inside_lane(track, corner.cells[0])
        lanes = sorted(by_lane)
        taken = max(lanes, key=lambda la: (by_lane[la], -la)) if any(by_lane.values()) else None
        label = (
            None
            if taken is None
            else ("inside" if taken == inside else "outside" if inside is not None else f"lane {taken}")
        )
        out.append(
            {
                "corner": corner.number,
                "turn": corner.turn,
                "limits": dict(corner.limits),
                "lane": taken,
                "taken": label,
                "visits": {str(k): round(v, 4) for k, v in sorted(by_lane.items())},
            }
        )
    return out


def features(result: DirtPar) -> list[dict]:
    """Each shortcut, jump and slide zone of the track: the chance the par policy takes it
    (enters the shortcut, takes off from the jump, slides into the zone), and the seconds it
    saves (the par time with it banned minus the par time; RD-15)."""
    track = result.stage.track
    out = []
    for note in track.notes():
        if note.kind not in ("shortcut", "jump", "slide"):
            continue
        cells = frozenset(c.hex for c in note.cells)
        if note.kind == "shortcut":
            used = sum(result.entries.get(h, 0.0) for h in cells)
        elif note.kind == "slide":
            used = sum(result.slid.get(h, 0.0) for h in cells)
        else:
            used = sum(v for h in cells for a, v in result.airs.get(h, {}).items() if a)
        # a feature the par policy never takes saves nothing (the same policy is left)
        without = banned_time(result, cells) if used > 0 else result.time
        out.append(
            {
                "kind": note.kind,
                "step": note.step,
                "value": note.value,
                "taken": round(used, 4),
                "saves_seconds": round(without - result.time, 3),
                "pays_off": without - result.time > 1e-9,
            }
        )
    return out


def card_seconds(stage: DirtStage, card: tuple[int, str | None]) -> int:
    """The seconds of a time card: its gear's under control or SISU, a Spin's or Crash's."""
    gear, icon = card
    return stage.seconds(gear) if icon in (None, rd.SISU) else stage.time_cards.loss_seconds


def time_cards(result: DirtPar) -> list[dict]:
    """The par policy's time cards: the expected number of each kind per stage and their
    seconds; the seconds sum to the par time (the expected time from the cards)."""
    words = {
        None: "",
        rd.SISU: " turned to gear 0, SISU",
        rd.SPIN: " turned to gear 0, Spin",
        rd.CRASH: " turned to gear 0, Crash",
    }
    out = []
    rank = {None: 0, rd.SISU: 1, rd.SPIN: 2, rd.CRASH: 3}
    for (gear, icon), n in sorted(result.cards.items(), key=lambda kv: (rank[kv[0][1]], -kv[0][0])):
        if n > 0:
            sec = card_seconds(result.stage, (gear, icon))
            out.append(
                {
                    "card": f"gear {gear}{words[icon]}",
                    "gear": gear,
                    "icon": icon,
                    "expected": round(n, 4),
                    "seconds_each": sec,
                    "expected_seconds": round(n * sec, 3),
                }
            )
    return out


def describe_plan(plan: tuple[DStep, ...]) -> str:
    def one(s: DStep) -> str:
        extra = "^" * s.air + ("~" if s.stopped else "") + ("+" if s.entry else "") + ("/" if s.slide else "")
        return s.die + "!" * s.marks + extra

    return ",".join(one(s) for s in plan)


def analyze_dirt(track, ruleset=None) -> dict:
    """`sheetgen analyze` of a DIRT track, as plain data."""
    from sheetgen.games.rallyman.ruleset import house_note, ruleset_of

    ruleset = ruleset or ruleset_of(track)
    stage = DirtStage(track, ruleset, damage=False)
    solved = par(stage)
    feats = features(solved)
    return {
        "track": track.name,
        "variant": "dirt",
        "cells": len(track.cells),
        "model": "one car alone (first every round: the leader die); flat out; a crash draws no damage; "
        "shortcut tokens from a full bag",
        "house_values": house_note(ruleset, ("time_cards", "dashboards")),
        "par": {
            "policy": "best flat-out policy, dice resolved in plan order (exact dynamic programme over the time cards)",
            "expected_seconds": round(solved.time, 3),
            "expected_turns": round(solved.expected_turns, 3),
            "first_plan": describe_plan(solved.choice[solved.start]),
            "lose_control_expected": round(sum(solved.danger.values()), 4),
            "time_cards": time_cards(solved),
            "dangerous_cells": solve.dangerous_cells(track, solved.danger),
        },
        "corners": corner_lanes(solved),
        "shortcuts_and_jumps": feats,
    }


def format_dirt_text(data: dict) -> str:
    p = data["par"]
    lines = [f"Rallyman DIRT analysis of {data['track']} ({data['cells']} cells)", f"  model: {data['model']}"]
    if data["house_values"]:
        lines.append(f"  {data['house_values']}")
    lines.append(f"Par time: {p['expected_seconds']:.1f} s expected, {p['expected_turns']:.2f} turns ({p['policy']})")
    lines.append(
        f"  first turn: {p['first_plan']}; losses of control expected per stage: {p['lose_control_expected']:.3f}"
    )
    lines.append("  time cards expected per stage (their seconds sum to the par time):")
    kept = [c for c in p["time_cards"] if c["icon"] is None and c["expected"] >= 0.0005]
    lines.append(
        "    under control: "
        + ", ".join(f"gear {c['gear']} x{c['expected']:.3f} ({c['expected_seconds']:.1f} s)" for c in kept)
    )
    lost = []
    for icon, word in (("sisu", "SISU"), ("spin", "Spin"), ("crash", "Crash")):
        rows = [c for c in p["time_cards"] if c["icon"] == icon]
        if rows:
            lost.append(
                f"{word} x{sum(c['expected'] for c in rows):.3f} ({sum(c['expected_seconds'] for c in rows):.1f} s)"
            )
    if lost:
        lines.append("    lost control (the card of that gear turned to gear 0): " + ", ".join(lost))
    lines.append("Corners (the lane of the par policy):")
    for c in data["corners"]:
        limits = ", ".join(f"lane {k}: {v}" for k, v in c["limits"].items())
        lines.append(f"  corner {c['corner']} ({c['turn']}; limits {limits}): {c['taken'] or 'not reached'}")
    if data["shortcuts_and_jumps"]:
        lines.append("Shortcuts, jumps and slides (chance the par policy takes it; seconds it saves):")
        for f in data["shortcuts_and_jumps"]:
            verdict = "pays off" if f["pays_off"] else "does not pay off"
            what = "slide zone" if f["kind"] == "slide" else f"{f['kind']} {f['value']}"
            lines.append(
                f"  {what} at step {f['step']}: taken {f['taken']:.3f}, saves {f['saves_seconds']:.1f} s, {verdict}"
            )
    lines.append("Most dangerous cells under the par policy (chance of losing control there):")
    for c in p["dangerous_cells"]:
        marks = f" ({', '.join(c['marks'])})" if c["marks"] else ""
        lines.append(f"  ({c['q']}, {c['r']}) step {c['step']}{marks}: {c['lose_control']:.4f}")
    return "\n".join(lines)
