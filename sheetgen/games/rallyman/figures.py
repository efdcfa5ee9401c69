"""A Rallyman GT track's solved figures, as `Game.figures` gives them: the par time and safe
route the printouts print (the map's assembly page, the time sheet) and the analysis
`sheetgen analyze` prints, from one solve, kept in the figures cache (`sheetgen.cache`).

The entry is keyed by what the solvers read: the track's variant, cells, inside lines and
laps and its ruleset, never its name, author, tiles or library (a renamed track, or one
laid from other tiles into the same cells, is not solved again), and by the sources of the
solver's import graph.
"""

from __future__ import annotations

from typing import Any

#: the module whose import graph keys an entry
SOLVER = "sheetgen.games.rallyman.report"


def subject(track: Any, ruleset: Any) -> str:
    """The canonical text of what the GT solvers read of a track (no name)."""
    return repr((track.variant, track.cells, track.lines, track.laps, ruleset))


def solved(track: Any) -> dict | None:
    """{"figures": the printouts' figures or None, "analysis": `analyze`'s figures without
    the track's name, or None} for a GT track the exact solves take; None for a DIRT track,
    one too large (`solve.too_large`) or whose moves loop (`solve.loop_reason`)."""
    from sheetgen import cache
    from sheetgen.games.rallyman import report, solve
    from sheetgen.games.rallyman.model import Variant
    from sheetgen.games.rallyman.ruleset import ruleset_of

    if track.variant is not Variant.GT or solve.too_large(track) is not None or solve.loop_reason(track) is not None:
        return None
    ruleset = ruleset_of(track)
    return cache.figures(
        "rallyman-gt",
        subject(track, ruleset),
        SOLVER,
        lambda: report.solve_track(track, ruleset),
        valid=report.kept_shape,
    )


def track_figures(track: Any) -> dict | None:
    """The par time and safe route the printouts give (None: a field to fill in)."""
    got = solved(track)
    return None if got is None else got["figures"]


def spec_figures(spec: Any) -> dict | None:
    """`Game.figures`: a GT track's printout figures; nothing for other files."""
    from sheetgen.games.rallyman.model import Track

    return track_figures(spec.model) if isinstance(spec.model, Track) else None


# --------------------------------------------------------------------------- the policy `simulate` plays


def policy(track: Any, ruleset: Any) -> Any:
    """The par policy of a GT track (`solve.par` of its stage without damage), kept in the
    figures cache under the same key as its figures: `simulate` plays it without solving
    again after a build, an `analyze` or a rename. Its tables (every state's value and plan,
    the plans as the places of their dice in the engine's lists of moves) come back equal:
    JSON gives floats back exactly."""
    from sheetgen import cache
    from sheetgen.games.rallyman import solve
    from sheetgen.games.rallyman.rules import Stage

    stage = Stage(track, ruleset, damage=False)
    hexes = [c.hex for c in track.cells]
    index = {h: i for i, h in enumerate(hexes)}
    moves = solve._moves_of(stage)

    def keep() -> dict:
        solved = solve.par(stage)
        plans = []
        for key, (mode, plan) in solved.choice.items():
            at, cross, gear = key[0], key[1], key[2]
            places = []
            for step in plan:
                listed = moves(at, cross, gear)
                i = next(i for i, m in enumerate(listed) if m[0] == step)
                places.append(i)
                at, cross, gear = step.to, listed[i][1], step.gear
            plans.append([index[key[0]], *key[1:], mode, places])
        return {
            "start": [index[solved.start[0]], *solved.start[1:]],
            "value": [[index[k[0]], *k[1:], v] for k, v in solved.value.items()],
            "choice": plans,
            "focus_cap": solved.focus_cap,
            "limit": solved.limit,
            "danger": [[index[h], q] for h, q in solved.danger.items()],
            "expected_turns": solved.expected_turns,
            "turns_by_mode": solved.turns_by_mode,
        }

    kept = cache.figures("rallyman-gt-policy", subject(track, ruleset), SOLVER, keep, valid=lambda v: "choice" in v)
    choice = {}
    for cell, cross, gear, f, mode, places in kept["choice"]:
        at, c, g = hexes[cell], cross, gear
        steps = []
        for i in places:
            step, c2 = moves(at, c, g)[i][:2]
            steps.append(step)
            at, c, g = step.to, c2, step.gear
        choice[hexes[cell], cross, gear, f] = (mode, tuple(steps))
    start = kept["start"]
    return solve.Par(
        stage,
        (hexes[start[0]], *start[1:]),
        {(hexes[c], x, g, f): v for c, x, g, f, v in kept["value"]},
        choice,
        kept["focus_cap"],
        kept["limit"],
        {hexes[c]: q for c, q in kept["danger"]},
        kept["expected_turns"],
        kept["turns_by_mode"],
    )
