"""Time the Rallytaire stage solver on a 100-space, 10-corner stage.

Plain script, not a test: ``python benchmarks/bench_analyze.py [repeats]``. Target: well
under 0.2 s per stage on a 2-core machine. Each repeat solves a fresh (equal but distinct)
stage object so that no per-stage cache makes later repeats look faster than a first solve.
"""

from __future__ import annotations

import statistics
import sys
import time

from sheetgen.games.rallytaire.model import Corner, Stage, Surface, Turn
from sheetgen.games.rallytaire.report import format_analysis_text
from sheetgen.games.rallytaire.solve import RaceAnalysis, analyze_stage

GEARS = (2, 3, 4, 1, 5, 2, 3, 2, 4, 3)
ZONE_LENGTHS = (3, 4, 2, 5, 3, 3, 6, 2, 4, 3)


def bench_stage(tag: int = 0) -> Stage:
    """100 spaces, a corner every 10 spaces with mixed limits and zones of 2-6 spaces."""
    corners = tuple(
        Corner(
            after=9 + 10 * i,
            gear=GEARS[i],
            zone=9 + 10 * i - ZONE_LENGTHS[i],
            turn=Turn.LEFT if i % 2 else Turn.RIGHT,
        )
        for i in range(10)
    )
    return Stage(name=f"bench {tag}", surface=Surface.GRAVEL, length=100, corners=corners)


def main(repeats: int = 15) -> None:
    times = []
    analysis = None
    for r in range(repeats):
        stage = bench_stage(r)
        t0 = time.perf_counter()
        analysis = analyze_stage(stage)
        times.append(time.perf_counter() - t0)
    assert analysis is not None
    states = len(analysis.policy.graph.states)
    print(f"analyze_stage, 100 spaces, 10 corners, {states} states, {repeats} repeats:")
    print(
        f"  min {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms, "
        f"max {max(times) * 1000:.1f} ms (target < 200 ms)"
    )
    print()
    print(format_analysis_text(RaceAnalysis("benchmark", (analysis,))), end="")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
