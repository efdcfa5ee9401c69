"""Seeded play of a Rallyman GT track by 1 to 6 cars, written down turn by turn as the
players would record it on their time sheets (docs/rallyman_rules.md "Simulation").

The race is the engine's (:class:`sheetgen.games.rallyman.rules.RaceState`: turn order,
white and black rounds, overtaking, yellow flags, damage tokens, weather, pit stops),
played by :func:`sheetgen.engine.playout` with ``random.Random(seed)``: the same track,
cars, policy and seed give the same log. Policies (`--driving`):

- ``par``: the par policy (`solve.par`, solved for a car alone): its plan for the car's
  cell, gear and focus tokens, rolled flat out or one at a time as solved (one at a time:
  rolling, securing or stopping before each die as the solved table says; flat out: a loss
  of control placed where the plan's own order reaches the limit);
- ``careful``: the same plan always rolled one at a time: a die whose caution would lose
  control is secured when the focus tokens allow, else the car stops before it.

With other cars about, or dice lost to damage, a car drives the longest start of its plan
that the rules allow (the die that brings it beside a car at least that car's gear, no cell taken,
no moving alongside under a yellow flag), and the first legal die if none is. Nobody pits.
"""

from __future__ import annotations

import random
from typing import Any

from sheetgen.engine import playout
from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.rules import RaceState, Stage
from sheetgen.games.rallyman.solve import Par, describe_plan, par, plan_order_loss

POLICIES = ("par", "careful")


class Driver:
    """A policy for every car: the par plan, rolled flat out or one at a time."""

    def __init__(self, solved: Par, mode: str = "par"):
        self.solved = solved
        self.mode = mode

    def _plan(self, state: RaceState) -> tuple[str, tuple[rules.Step, ...]]:
        return self.solved.choice.get(self.solved.key_of(state), ("flat", ()))

    def __call__(self, state: RaceState) -> Any:
        actions = state.legal_actions()
        if state.phase == rules.PLAN:
            mode, plan = self._plan(state)
            i = len(state.plan)
            if state.plan == plan[:i] and i < len(plan):
                want = rules.Place(plan[i].die, plan[i].to)
                if want in actions:
                    return want
            if state.plan:
                return rules.Roll(mode if self.mode == "par" else "one")
            return actions[0]
        if state.phase == rules.ONE:
            if self.mode == "par":
                mode, plan = self._plan(state)
                if mode == "one" and state.plan == plan:  # the solved plan: the solved decisions
                    return self.solved.one_action(state)
            step = state.plan[state.placed]
            risky = state.cautions + step.marks + 1 >= state.limit() and state.stage.ruleset.die(step.die).cautions
            if state.cautions + step.marks >= state.limit() or risky:
                if rules.Secure() in actions and state.cautions + step.marks < state.limit():
                    return rules.Secure()
                if rules.Stop() in actions:
                    return rules.Stop()
            return rules.Roll("one")
        if state.phase == rules.REALLOCATE:
            return plan_order_loss(state, actions)
        if state.phase == rules.PIT:
            return rules.Pit("none")
        return actions[0]


def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


DAMAGE_WORDS = {
    "lose_gear_die": "lose a gear die",
    "lose_brake_die": "lose a brake die",
    "lose_coast_die": "lose a coast die",
    "weather": "weather change",
    "yellow_flag": "yellow flag",
    "green_flag": "green flag",
}


def race_lines(final: RaceState) -> list[str]:
    """The race as the players record it, from the engine's log."""
    stage = final.stage
    lines = [
        f"{stage.track.name}: {len(final.cars)} car{'s' if len(final.cars) != 1 else ''}, {stage.car_class}, weather "
        f"{stage.weather}"
    ]
    turn: dict[int, dict] = {}
    for event in final.log:
        kind = event[0]
        if kind == "round":
            _k, r, colour, order = event
            lines.append(f"Round {r} ({colour}): order {', '.join(str(i + 1) for i in order)}")
        elif kind == "place":
            turn.setdefault(event[1], {"dice": []})["dice"].append(event[2])
        elif kind in ("flat", "one"):
            turn.setdefault(event[1], {"dice": []})["mode"] = "flat out" if kind == "flat" else "one at a time"
        elif kind == "rolled":
            turn[event[1]]["cautions"] = sum(event[2])
            turn[event[1]]["earned"] = event[3]
        elif kind == "die":
            t = turn[event[1]]
            t["placed"] = t.get("placed", 0) + 1
            t["cautions"] = t.get("cautions", 0) + (1 if event[3] else 0)
            t["secured"] = t.get("secured", 0) + (1 if event[4] else 0)
        elif kind == "lose":
            turn.setdefault(event[1], {"dice": []})["lose"] = (event[2], event[3], event[4])
        elif kind == "damage":
            turn[event[1]]["damage"] = event[2]
        elif kind == "pit":
            turn[event[1]]["pit"] = event[2]
        elif kind == "stuck":
            turn.setdefault(event[1], {"dice": []})["stuck"] = True
        elif kind == "lost turn":
            lines.append(f"  car {event[1] + 1}: gear 00, turn lost, back in gear 0")
        elif kind == "turn":
            _k, i, gear, seconds, total = event
            t = turn.pop(i, {"dice": []})
            dice = describe_plan(tuple(t["dice"])) or "-"
            parts = [f"  car {i + 1}: dice {dice}"]
            if "mode" in t:
                how = t["mode"]
                if t["mode"] == "one at a time":
                    how += f", {t.get('placed', 0)} placed"
                    if t.get("secured"):
                        how += f", {t['secured']} secured"
                parts.append(how)
            if t.get("cautions"):
                parts.append(f"{t['cautions']} caution{'s' if t['cautions'] != 1 else ''}")
            if "lose" in t:
                at, g, _end = t["lose"]
                parts.append(f"LOST CONTROL at ({at.q}, {at.r}) in gear {g}")
                if t.get("damage"):
                    parts.append(
                        "damage: "
                        + ", ".join(f"{DAMAGE_WORDS.get(k, k)}" + (f" x{n}" if n > 1 else "") for k, n in t["damage"])
                    )
            if t.get("stuck"):
                parts.append("no die can be placed: stopped")
            if t.get("pit"):
                parts.append(f"pit stop ({t['pit']})")
            parts.append(f"gear {gear}, {seconds} s, total {_clock(total)}")
            lines.append("; ".join(parts))
    lines.append("Result:")
    ranked = sorted(range(len(final.cars)), key=lambda i: (not final.cars[i].finished, final.cars[i].time, i))
    for place, i in enumerate(ranked, 1):
        c = final.cars[i]
        status = f"{_clock(c.time)} ({c.time} s) in {c.turns} turns" if c.finished else "did not finish"
        lines.append(f"  {place}. car {i + 1}: {status}")
    return lines


def simulate(stage: Stage, seed: int, cars: int = 1, policy: str = "par", solved: Par | None = None) -> RaceState:
    """One seeded race (see the module); the final state holds the log."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (one of: {', '.join(POLICIES)})")
    solved = solved or par(Stage(stage.track, stage.ruleset, stage.car_class, stage.weather, damage=False))
    return playout(RaceState.start(stage, cars), Driver(solved, policy), random.Random(seed))
