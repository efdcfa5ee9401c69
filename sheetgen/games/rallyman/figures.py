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
