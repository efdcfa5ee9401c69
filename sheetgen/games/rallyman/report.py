"""Rallyman GT's report: `sheetgen analyze`'s figures of a track as plain data
(:func:`analyze_track`), the figures the printouts give from one solve of the par and the safe
route (:func:`solve_track`, kept in the figures cache by :mod:`figures`), and their text.

The solves themselves are :mod:`solve`'s (the par time, its forward pass and policy, the safe
route); this module only words and arranges what they return.
"""

from __future__ import annotations

from typing import Any

from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.rules import Stage
from sheetgen.games.rallyman.solve import (
    FLAT,
    FOCUS_CAP,
    ONE,
    SAFE_FOCUS,
    Par,
    Safe,
    dangerous_cells,
    describe_plan,
    par,
    safe_route,
)


def analyze_track(track, ruleset=None) -> dict:
    """`sheetgen analyze` of a GT track: the safe route and the par time, as plain data."""
    from sheetgen.games.rallyman.ruleset import ruleset_of

    stage = Stage(track, ruleset or ruleset_of(track), damage=False)
    return {"track": track.name, **_analysis(track, safe_route(stage), par(stage))}


def _analysis(track, safe: Safe | None, solved: Par) -> dict:
    """The analysis of a GT track from its solves, without the track's name."""
    mode, start = solved.choice[solved.start]
    return {
        "cells": len(track.cells),
        "laps": track.laps,
        "model": "one car alone; weather fixed (dry, asphalt tyres, GT6); no damage drawn; no flying start",
        "safe_route": None
        if safe is None
        else {
            "seconds": safe.time,
            "turns": safe.turns,
            "plans": [{"mode": m, "dice": describe_plan(p)} for m, p in safe.plans],
            "focus_counted": SAFE_FOCUS,
        },
        "par": {
            "policy": POLICY_WORDS,
            "focus_counted": solved.focus_cap,
            "expected_seconds": round(solved.time, 3),
            "expected_turns": round(solved.expected_turns, 3),
            "turns_flat_out": round(solved.turns_by_mode[FLAT], 3),
            "turns_one_at_a_time": round(solved.turns_by_mode[ONE], 3),
            "first_plan": describe_plan(start),
            "first_mode": mode,
            "lose_control_expected": round(sum(solved.danger.values()), 4),
            "dangerous_cells": dangerous_cells(track, solved.danger),
        },
    }


#: the par policy in the analysis' words
POLICY_WORDS = (
    f"best solo policy with the dice resolved in plan order (exact dynamic programme over cell, gear and focus "
    f"tokens held, counted up to {FOCUS_CAP}; each turn's dice, path and rolling mode chosen; one at a time, rolling, "
    "securing or stopping chosen before each die; flat out, a loss of control where the plan's own order reaches "
    "the limit: the rulebook's re-allocation of the dice rolled, not used, can do a little better)"
)


#: what the par time is, in the words the printouts use after "par N.N s"
PAR_WORDS = (
    "exact, best solo plans with the dice resolved in plan order (re-allocating them after a loss of control can do "
    "a little better): the expected stage time of the best plans of dice, rolled all at once or one at a time "
    f"(securing with focus tokens, counted up to {FOCUS_CAP}, or stopping when that pays), for a car alone "
    "in GT6 on asphalt tyres, the weather dry throughout, no damage drawn and no flying start"
)

_FIGURE_KEYS = {
    "par_seconds",
    "expected_turns",
    "par_words",
    "focus_counted",
    "safe_seconds",
    "safe_turns",
    "safe_focus",
}
_ANALYSIS_KEYS = {"cells", "laps", "model", "safe_route", "par"}


def kept_shape(kept: Any) -> bool:
    """Whether a figures-cache entry read back has the shape :func:`solve_track` gives."""
    if not isinstance(kept, dict) or set(kept) != {"figures", "analysis"}:
        return False
    analysis = kept["analysis"]
    if analysis is not None and not (
        isinstance(analysis, dict) and set(analysis) == _ANALYSIS_KEYS and isinstance(analysis["par"], dict)
    ):
        return False
    value = kept["figures"]
    if value is None:
        return True
    number = (int, float)
    return (
        isinstance(value, dict)
        and set(value) == _FIGURE_KEYS
        and all(
            isinstance(value[k], number) and not isinstance(value[k], bool) for k in ("par_seconds", "expected_turns")
        )
        and isinstance(value["par_words"], str)
        and all(isinstance(value[k], int) and not isinstance(value[k], bool) for k in ("focus_counted", "safe_focus"))
        and all(
            value[k] is None or (isinstance(value[k], int) and not isinstance(value[k], bool))
            for k in ("safe_seconds", "safe_turns")
        )
    )


def solve_track(track, ruleset) -> dict:
    """A GT track's figures from one solve of its par and safe route: {"figures": what the
    printouts give, "analysis": `analyze`'s figures without the track's name}, both None for
    a track the rules cannot race (no start or finish) or whose finish no plan reaches; kept
    in the figures cache by `figures.solved`."""
    try:
        stage = Stage(track, ruleset, damage=False)
    except rules.RulesError:
        return {"figures": None, "analysis": None}
    solved = par(stage)
    if solved.time >= 10.0**8:  # no plan reaches the finish: nothing to print or analyse
        return {"figures": None, "analysis": None}
    safe = safe_route(stage)
    analysis = _analysis(track, safe, solved)
    figures = {
        "par_seconds": solved.time,
        "expected_turns": solved.expected_turns,
        "par_words": PAR_WORDS,
        "focus_counted": solved.focus_cap,
        "safe_seconds": None if safe is None else safe.time,
        "safe_turns": None if safe is None else safe.turns,
        "safe_focus": SAFE_FOCUS,
    }
    return {"figures": figures, "analysis": analysis}


def figures_line(figures: dict) -> str:
    """The figures in a few words: "par 131.3 s, safe route 265 s in 9 turns"."""
    turns = figures["safe_turns"]
    safe = (
        "no safe route"
        if figures["safe_seconds"] is None
        else f"safe route {figures['safe_seconds']} s in {turns} turn{'s' if turns != 1 else ''}"
    )
    return f"par {figures['par_seconds']:.1f} s, {safe}"


def format_analysis_text(data: dict) -> str:
    laps = f", {data['laps']} laps" if data["laps"] > 1 else ""
    lines = [f"Rallyman GT analysis of {data['track']} ({data['cells']} cells{laps})", f"  model: {data['model']}"]
    safe = data["safe_route"]
    if safe is None:
        lines.append("Fastest route with no chance of losing control: none reaches the finish")
    else:
        lines.append(
            f"Fastest route with no chance of losing control: {safe['seconds']} s in {safe['turns']} turns "
            f"(focus tokens counted up to {safe['focus_counted']})"
        )
        lines.append(
            "  " + " | ".join(("" if p["mode"] == "flat" else "one at a time ") + p["dice"] for p in safe["plans"])
        )
    p = data["par"]
    lines.append(f"Par time: {p['expected_seconds']:.1f} s expected, {p['expected_turns']:.2f} turns")
    lines.append(f"  policy: {p['policy']}")
    lines.append(f"  turns rolled flat out {p['turns_flat_out']:.2f}, one at a time {p['turns_one_at_a_time']:.2f}")
    first = "flat out" if p["first_mode"] == FLAT else "one at a time"
    lines.append(
        f"  first turn: {p['first_plan']} ({first}); "
        f"losses of control expected per stage: {p['lose_control_expected']:.3f}"
    )
    lines.append("Most dangerous cells under the par policy (chance of losing control there):")
    for c in p["dangerous_cells"]:
        marks = f" ({', '.join(c['marks'])})" if c["marks"] else ""
        lines.append(f"  ({c['q']}, {c['r']}) step {c['step']}{marks}: {c['lose_control']:.4f}")
    return "\n".join(lines)
