"""Seeded play of a Rallyman DIRT stage by 1 to 6 cars, written down turn by turn as the
players record it: the dice, the time card taken (SISU, Spin, Crash on a loss of control)
and the running total (docs/rallyman_dirt.md "Simulation").

The stage is the DIRT engine's (:class:`rules_dirt.DirtRace`: the staggered start, the
order of play, shortcuts and mud, jumps, water, damage), played by
:func:`sheetgen.engine.playout` with ``random.Random(seed)``. Every car drives the par plan
(solved for a car alone), flat out (`par`) or one at a time (`careful`).

**Every state the engine reaches has a plan** (RD-22). The par plan of the car's state (cell,
gear, coast dice lost, slide space) is played when the engine allows every die of it as
solved: the car alone or the others out of its way, no dice lost that it uses, no mud on
its way. Otherwise (gear or brake dice lost to a crash, no leader die behind the first
player, a car or mud in the way, more coast and leader dice lost than the solve counts) the
driver looks one turn ahead (:class:`Lookahead`): over every plan the engine allows the car
now (its own dice, the cars about, the mud), flat out, it takes the least expected time (or,
among cars, RD-24, the least of those that do not count on passing a car at any speed),
each end of the turn (under control, or a loss with the deck's SISU, Spin and Crash) valued
by the solved par value table at the car's state with the dice it has lost left out (the
undamaged car's value: the rest of the stage as if repaired). The same dynamic programme as
the solve's, over the cautions so far, on one turn.

**Its work is bounded** (RD-24). The turn is planned by the par's own programme
(:func:`solve_dirt.turn_plan`: the compiled kernel where it is built) over the car's own
dice, the other cars left out; where the engine allows that plan among the cars it is the
best they allow. Else the programme is solved twice more among the cars and the mud, each
die from the state it leaves: as if no car asked its gear of a die beside it (a bound: no
plan the engine allows does better; its plan is played when the engine allows it), and as if
every car asked it of every die beside it, wherever the plan stood before (plans the engine
allows, RG-33 allowing more: the driver does not count on "once beside, any speed"; played,
the best the engine allows where it meets the bound). Only where that finds no plan is the
turn planned here over the plans the engine allows (a partial plan's key holds which cars it
has been beside, RG-33, not the cells it stood on). A state the table lacks (one a car alone
never reaches: a coast die lost where it takes no shortcut, gear 0 where cars forced a loss)
is valued by the par's programme solved from there (:func:`solve_dirt.solve_from`), every
state it reaches kept, so each is solved once per solve, never recursively in Python (the
lookahead's values and fronts are kept for the last solve's races). With no die within the
limits (RD-17), the driver goes over in the lowest gear (the least damage), as before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from math import comb
from typing import Any

from sheetgen.engine import playout
from sheetgen.games.rallyman import rules_dirt as rd
from sheetgen.games.rallyman.rules_dirt import DirtCar, DirtRace, DirtStage, DStep, Traffic
from sheetgen.games.rallyman.ruleset import house_note
from sheetgen.games.rallyman.solve import _pareto
from sheetgen.games.rallyman.solve_dirt import DirtPar, describe_plan, key_of, par, solve_from, turn_plan

POLICIES = ("par", "careful")


BIG = 10.0**9


def _program(limit: int, marks: int, on_caution: bool) -> tuple[tuple[int, int], ...]:
    """For each count of cautions so far, where the next die leads without a caution on it
    and with one (-1: control is lost)."""
    out = []
    for c in range(limit):
        a = c + marks
        out.append((-1 if a >= limit else a, -1 if (on_caution or a + 1 >= limit) else a + 1))
    return tuple(out)


class Lookahead:
    """The driver's plan where the solved one cannot be played (see the module): one turn of
    the par's dynamic programme over the car's actual dice, the cars about and the mud, each
    end of the turn valued by the solved table (the car's lost gear and brake dice left out)."""

    def __init__(self, solved: DirtPar):
        self.solved = solved
        stage = solved.stage
        board = dict(stage.board.dice)
        self.coast_dice = board.get("coast", 0) + board.get("leader", 0)
        self.p_coast = float(dict(stage.shortcut_sides()).get("coast_die", 0))
        self.chance = {d.name: float(d.caution_chance) for d in stage.ruleset.dice}
        #: the solved table's values and those of the states it lacks, solved from the first
        #: such state met (solve_dirt.solve_from: the car alone, undamaged), each state once
        self.known: dict = dict(solved.value)
        #: the work done (a count, not a clock): the states solved beyond the table and the
        #: solves that found them; the turns planned, the par's programme solved on one turn
        #: for them (once alone, twice more among cars: at most 3 a turn), the turns whose plan
        #: may not be the best the engine allows (`strict`), and those planned here over the
        #: plans the engine allows, where the programme among the cars found none
        #: (`enumerated`; each one turn, no recursion)
        self.solved_states = 0
        self.solves = 0
        self.turns = 0
        self.programmes = 0
        self.strict = 0
        self.enumerated = 0
        #: the fronts of partial plans, per context (the car's dice lost, first or not, the others)
        self.fronts: dict = {}
        self.lose_memo: dict = {}

    def value(self, cell, gear: int, lost: int, slide: int) -> float:
        """The expected rest of the stage from a state: the solved table's, else the par's
        programme solved from there (once: every state it reaches is kept)."""
        k = (cell, gear, min(lost, self.coast_dice), slide)
        got = self.known.get(k)
        if got is None:
            more = solve_from(self.solved, k, self.known)
            self.known.update(more)
            self.solved_states += len(more)
            self.solves += 1
            got = self.known[k]
        return got

    def after(self, cell, gear: int, lost: int, slide: int, entries: int) -> float:
        """The expected rest after the shortcut draws of `entries` entries (a full bag)."""
        if entries == 0 or self.p_coast == 0:
            return self.value(cell, gear, lost, slide)
        p = self.p_coast
        return sum(
            comb(entries, k) * p**k * (1 - p) ** (entries - k) * self.value(cell, gear, lost + k, slide)
            for k in range(entries + 1)
        )

    def best(self, stage: DirtStage, car: DirtCar, first: bool, traffic: Traffic) -> tuple[float, tuple[DStep, ...]]:
        """The plan of least expected time for this turn, flat out, and that time (BIG, ():
        no die can be placed)."""
        self.turns += 1
        self.value(car.cell, car.gear, car.lost_count("coast"), car.slide)  # every state on from here known
        self.programmes += 1
        seconds, plan = turn_plan(self.solved, car, first, self.known)
        if not plan or _playable(stage, car, plan, first, traffic):
            return seconds, plan  # (the cars about refuse no die of it: the best they allow)
        # among the cars: the best plan if they asked no gear of a die beside them (a bound:
        # no plan the engine allows does better), and the best if they asked it of every die
        # beside them (each die from the state it leaves: plans the engine allows)
        self.programmes += 2
        unasked = _Unasked(traffic.cars, traffic.mud, traffic.me, traffic.slides)
        low, plan = turn_plan(self.solved, car, first, self.known, unasked)
        if plan and _playable(stage, car, plan, first, traffic):
            return low, plan
        seconds, plan = turn_plan(self.solved, car, first, self.known, traffic)
        if plan and _playable(stage, car, plan, first, traffic):
            # the best of the plans that do not count on RG-33's "any speed once beside": the
            # best the engine allows when it is no worse than the bound (RD-24)
            self.strict += seconds > low + 1e-12
            return seconds, plan
        self.enumerated += 1
        limit = stage.limit
        lost = car.lost_count("coast")
        fronts = self.fronts.setdefault((car.lost, first, traffic), {})
        # RG-33: all that the dice after a partial plan ask of the cells it stood on (its
        # start, each die's) is which cars it has been beside: the key holds that, not the cells
        track = stage.track
        alone = [replace(traffic.others(), cars=(c,)) for c in traffic.cars]
        near: dict = {}

        def beside(start: tuple[bool, ...], cells) -> tuple[bool, ...]:
            out = start
            for h in cells:
                if h not in near:
                    near[h] = tuple(bool(one.alongside(track, h)) for one in alone)
                out = tuple(a or b for a, b in zip(out, near[h]))
            return out

        starting = rd._been(track, car, ())
        lose_memo = self.lose_memo

        def lose(s: DStep, entries: int) -> float:
            k = (s.to, s.gear, s.finishes, s.slide, lost, entries)
            if k not in lose_memo:
                total = 0.0
                for icon, q in stage.icons(s.gear):
                    seconds = stage.seconds(s.gear) if icon == rd.SISU else stage.time_cards.loss_seconds
                    rest = 0.0 if s.finishes else self.after(s.to, 0, lost, s.slide, entries)
                    total += float(q) * (seconds + rest)
                lose_memo[k] = total
            return lose_memo[k]

        def end(s: DStep, entries: int) -> float:
            rest = 0.0 if s.finishes else self.after(s.to, s.gear, lost, s.slide, entries)
            return stage.seconds(s.gear) + rest

        def front(plan: tuple[DStep, ...], entries: int, been: tuple[bool, ...]) -> list:
            last = plan[-1] if plan else None
            key = (
                (last.to, last.gear, last.slide) if last else (car.cell, car.gear, car.slide, "start"),
                tuple(sorted(s.die for s in plan)),
                entries,
                been,
            )
            got = fronts.get(key)
            if got is not None:
                return got
            cands: list = [((end(last, entries),) * limit, ())] if last is not None else []
            for s in rd.dirt_steps(stage, car, plan, first, traffic):
                e2 = entries + (1 if s.entry else 0)
                lost_v = lose(s, e2)
                if s.last:
                    tails = [((end(s, e2),) * limit, ())]
                else:
                    stood = rd._been(track, car, (s,))[len(starting) :] if alone else ()
                    tails = front(plan + (s,), e2, beside(been, stood))
                if s.lose_always:
                    cands.extend(((lost_v,) * limit, (s,) + tail) for _vec, tail in tails)
                    continue
                p = self.chance[s.die]
                prog = _program(limit, s.marks, s.lose_on_caution)
                for vec, tail in tails:
                    new = tuple(
                        (1 - p) * (lost_v if i < 0 else vec[i]) + p * (lost_v if j < 0 else vec[j]) for i, j in prog
                    )
                    cands.append((new, (s,) + tail))
            got = fronts[key] = _pareto(cands)
            return got

        root = front((), 0, beside((False,) * len(alone), starting))
        if not root:
            return BIG, ()
        vec, plan = min(root, key=lambda c: (c[0][0], len(c[1])))
        return vec[0], plan


@dataclass(frozen=True)
class _Unasked(Traffic):
    """The cars and the mud as they stand, but no car asking its gear of a die beside it
    (RG-33 left out): a bound on the plans the engine allows."""

    def others(self) -> rd.Others:
        return rd.DirtOthers(())


def _playable(stage: DirtStage, car: DirtCar, plan: tuple[DStep, ...], first: bool, traffic: Traffic) -> bool:
    """Whether the engine allows every die of `plan` now, each as solved."""
    return bool(plan) and all(s in rd.dirt_steps(stage, car, plan[:i], first, traffic) for i, s in enumerate(plan))


class DirtDriver:
    """The par plan, or where the engine does not allow it the lookahead's (RD-22; see the
    module), rolled flat out (`par`) or one at a time (`careful`: a die whose caution would
    lose control is secured when the second tokens allow, else the car stops before it; a die
    that must lose control is never rolled)."""

    def __init__(self, solved: DirtPar, mode: str = "par", lookahead: Lookahead | None = None):
        self.solved = solved
        self.mode = mode
        self.lookahead = lookahead if lookahead is not None and lookahead.solved is solved else Lookahead(solved)
        self._plans: dict = {}
        #: how each turn's plan was found: "solved", "lookahead", "over" (RD-17), "blocked"
        self.found: dict[str, int] = {}

    def plan_for(self, state: DirtRace) -> tuple[DStep, ...]:
        """The plan of the turn `state` is planning (the same all through the planning)."""
        car, first = state.car, state.slot == 0
        traffic = state.traffic(state.turn)
        key = (car.cell, car.gear, car.lost, car.slide, first, traffic)
        got = self._plans.get(key)
        if got is None:
            stage = state.stage
            solved = self.solved.choice.get(key_of(car), ())
            steps = rd.dirt_steps(stage, car, (), first, traffic)
            if _playable(stage, car, solved, first, traffic):
                how, plan = "solved", solved
            elif not steps:
                how, plan = "blocked", ()
            elif all(s.over for s in steps):
                # RD-17: no die within the limits: over one in the lowest gear (the least damage)
                how, plan = "over", (min(steps, key=lambda s: s.gear),)
            else:
                how, plan = "lookahead", self.lookahead.best(stage, car, first, traffic)[1]
            got = self._plans[key] = (how, plan)
        how, plan = got
        if not state.plan:
            self.found[how] = self.found.get(how, 0) + 1
        return plan

    def __call__(self, state: DirtRace) -> Any:
        actions = state.legal_actions()
        if state.phase == rd.ONE:
            step = state.plan[state.done]
            limit = state.stage.limit
            can_hit = state.stage.ruleset.die(step.die).cautions > 0
            sure = step.lose_always or state.cautions + step.marks >= limit
            risky = can_hit and (step.lose_on_caution or state.cautions + step.marks + 1 >= limit)
            if sure and rd.Stop() in actions:
                return rd.Stop()
            if risky and not sure:
                if rd.Secure() in actions:
                    return rd.Secure()
                if rd.Stop() in actions:
                    return rd.Stop()
            return rd.Roll("one")
        plan = self.plan_for(state)
        i = len(state.plan)
        if state.plan == plan[:i] and i < len(plan):
            return rd.place_of(plan[i])
        if state.plan:
            return rd.Roll("flat" if self.mode == "par" else "one")
        return actions[0]  # blocked: Roll() ends the turn where it is


def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


ICON_WORDS = {rd.SISU: "SISU", rd.SPIN: "Spin", rd.CRASH: "Crash"}


def race_lines(final: DirtRace) -> list[str]:
    """The stage as the players record it on their DIRT time sheets, from the engine's log."""
    stage = final.stage
    n = len(final.cars)
    lines = [f"{stage.track.name}: {n} car{'s' if n != 1 else ''}, {stage.car_class}, cars one round apart"]
    note = house_note(stage.ruleset, ("time_cards",))
    if note:
        lines.append(f"  time cards: {note}")
    turn: dict[int, dict] = {}
    for event in final.log:
        kind = event[0]
        if kind == "round":
            lines.append(f"Round {event[1]}: order {', '.join(str(i + 1) for i in event[2]) or '-'}")
        elif kind == "place":
            turn.setdefault(event[1], {"dice": []})["dice"].append(event[2])
        elif kind == "rolled":
            turn.setdefault(event[1], {"dice": []})["cautions"] = sum(event[2])
        elif kind == "one":
            turn.setdefault(event[1], {"dice": []})["one"] = 0
        elif kind == "die":
            t = turn[event[1]]
            t["one"] = t.get("one", 0) + 1
            t["cautions"] = t.get("cautions", 0) + (1 if event[3] else 0)
            t["secured"] = t.get("secured", 0) + (1 if event[4] else 0)
        elif kind == "lose":
            turn[event[1]]["lose"] = (event[2], event[3])
        elif kind == "icon":
            turn[event[1]]["icon"] = event[2]
        elif kind == "damage":
            turn[event[1]]["damage"] = event[2]
        elif kind == "shortcut":
            turn[event[1]]["shortcut"] = event[2]
        elif kind == "turn":
            _k, i, card, seconds, total = event
            t = turn.pop(i, {"dice": []})
            parts = [f"  car {i + 1}: dice {describe_plan(tuple(t['dice'])) or '-'}"]
            if "one" in t:
                parts.append(
                    f"one at a time, {t['one']} rolled" + (f", {t['secured']} secured" if t.get("secured") else "")
                )
            if t.get("cautions"):
                parts.append(f"{t['cautions']} caution{'s' if t['cautions'] != 1 else ''}")
            if "lose" in t:
                at, g = t["lose"]
                icon = t.get("icon")
                words = None if icon is None else ICON_WORDS.get(icon, icon)
                parts.append(f"LOST CONTROL at ({at.q}, {at.r}) in gear {g}: {words}")
            if t.get("damage"):
                parts.append("damage: " + ", ".join(k + (f" x{m}" if m > 1 else "") for k, m in t["damage"]))
            if t.get("shortcut"):
                parts.append("shortcut: " + ", ".join(k + (f" x{m}" if m > 1 else "") for k, m in t["shortcut"]))
            gear, icon = card
            what = f"gear {gear} card" + (f" turned to gear 0 ({ICON_WORDS[icon]})" if icon else "")
            parts.append(f"{what}, {seconds} s, total {_clock(total)}")
            lines.append("; ".join(parts))
    lines.append("Result:")
    ranked = sorted(range(n), key=lambda i: (not final.cars[i].finished, final.cars[i].time, i))
    for place, i in enumerate(ranked, 1):
        c = final.cars[i]
        status = f"{_clock(c.time)} ({c.time} s) in {c.turns} turns" if c.finished else "did not finish"
        lines.append(f"  {place}. car {i + 1}: {status}")
    return lines


def simulate(
    stage: DirtStage, seed: int, cars: int = 1, solved: DirtPar | None = None, policy: str = "par"
) -> DirtRace:
    """One seeded stage (see the module); the final state holds the log."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (one of: {', '.join(POLICIES)})")
    solved = solved or par(DirtStage(stage.track, stage.ruleset, stage.car_class, damage=False))
    # the lookahead's values and fronts serve every stage played with the same solve
    if _LOOKAHEAD and _LOOKAHEAD[0].solved is solved:
        look = _LOOKAHEAD[0]
    else:
        look = Lookahead(solved)
        _LOOKAHEAD[:] = [look]
    return playout(DirtRace.start(stage, cars), DirtDriver(solved, policy, look), random.Random(seed))


_LOOKAHEAD: list[Lookahead] = []  # the last solve's
