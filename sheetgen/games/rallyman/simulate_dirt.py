"""Seeded play of a Rallyman DIRT stage by 1 to 6 cars, written down turn by turn as the
players record it: the dice, the time card taken (SISU, Spin, Crash on a loss of control)
and the running total (docs/rallyman_dirt.md "Simulation").

The stage is the DIRT engine's (:class:`rules_dirt.DirtRace`: the staggered start, the
order of play, shortcuts and mud, jumps, water, damage), played by
:func:`sheetgen.engine.playout` with ``random.Random(seed)``. Every car drives the par plan
(solved for a car alone), flat out (`par`) or one at a time (`careful`); with other cars
about (or dice lost) it drives the longest start of its plan that the rules allow, and the first legal die if none is
(with no die within the limits, the die over a limit in the lowest gear, RD-17).
"""

from __future__ import annotations

import random
from typing import Any

from sheetgen.engine import playout
from sheetgen.games.rallyman import rules_dirt as rd
from sheetgen.games.rallyman.rules_dirt import DirtRace, DirtStage
from sheetgen.games.rallyman.ruleset import house_note
from sheetgen.games.rallyman.solve_dirt import DirtPar, describe_plan, key_of, par

POLICIES = ("par", "careful")


class DirtDriver:
    """The par plan, rolled flat out (`par`) or one at a time (`careful`: a die whose caution
    would lose control is secured when the second tokens allow, else the car stops before
    it; a die that must lose control is never rolled)."""

    def __init__(self, solved: DirtPar, mode: str = "par"):
        self.solved = solved
        self.mode = mode

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
        car = state.car
        plan = self.solved.choice.get(key_of(car), ())
        i = len(state.plan)
        if state.plan == plan[:i] and i < len(plan):
            want = rd.place_of(plan[i])
            if want in actions:
                return want
        if state.plan:
            return rd.Roll("flat" if self.mode == "par" else "one")
        if actions == (rd.Roll(),):
            return rd.Roll()
        steps = state.next_dice()
        if steps and all(s.over for s in steps):
            # RD-17: no die within the limits: over one in the lowest gear (the least damage)
            return rd.place_of(min(steps, key=lambda s: s.gear))
        return actions[0]


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
    return playout(DirtRace.start(stage, cars), DirtDriver(solved, policy), random.Random(seed))
