"""Time the exact advanced-game race analysis of every bundled Rallytaire race.

Plain script, not a test: ``python benchmarks/bench_advanced.py [repeats] [SPEC...]``.
Target: under 10 s per bundled race on a 2-core machine. Each repeat analyses a fresh (equal
but distinct) race object; the first repeat of the first race also pays for the shared dice
tables, which later solves reuse.

Then, on the last analysis, the race-time percentiles the race sheet prints (p10/p50/p90,
`AdvancedRaceAnalysis.percentiles`, from `race_time_distribution`, by stages) and, side by
side, the reference they replaced (`race_time_distribution_by_cores`), CPU time of this
process; the two give the same percentiles. Target for the percentiles: under the solve's own
time (docs/benchmarks.md; benchmarks/bench_race_time.py shows how both grow with the race).
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from sheetgen import registry
from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced
from sheetgen.games.rallytaire.forward_advanced import race_time_distribution_by_cores

ROOT = Path(__file__).resolve().parent.parent


def main(repeats: int = 3, specs: list[str] | None = None) -> None:
    paths = specs or sorted(str(p) for p in (ROOT / "track_specs" / "rallytaire").glob("*.yaml"))
    for path in paths:
        race = registry.load_spec(path).model
        times = []
        analysis = None
        for r in range(repeats):
            fresh = replace(race, name=f"{race.name} #{r}")
            t0 = time.perf_counter()
            analysis = analyze_race_advanced(fresh)
            times.append(time.perf_counter() - t0)
        assert analysis is not None
        t0 = time.process_time()
        percentiles = analysis.percentiles
        t1 = time.process_time()
        full = race_time_distribution_by_cores(analysis.policy)
        t2 = time.process_time()
        assert tuple(full.percentile(q) for q in (0.10, 0.50, 0.90)) == percentiles
        policy = analysis.policy
        size = policy.grid.size
        cores = sum(len(sp.graph.cores) for st in policy.stages for sp in st.values())
        b = race.boxes
        print(
            f"{Path(path).name}: {len(race.stages)} stages, "
            f"{sum(s.length for s in race.stages)} spaces, boxes {b.engine}/{b.brakes}/"
            f"{b.gearbox}/{b.car}, {len(race.tyres)} tyres: {cores} core states x {size} "
            f"resource vectors = {cores * size} states"
        )
        print(
            f"  analyze_race_advanced: min {min(times):.2f} s, median "
            f"{statistics.median(times):.2f} s, max {max(times):.2f} s (target < 10 s)"
        )
        print(
            f"  race par {analysis.race_par_time:.1f} s, P(DNF) {analysis.dnf_probability:.2e}, "
            f"tyres {analysis.tyres.value}; stage pars "
            + ", ".join(f"{s.par_time:.1f}" for s in analysis.stages)
        )
        print(
            f"  p10/p50/p90 {'/'.join(str(p) for p in percentiles)} s: {t1 - t0:.2f} s CPU "
            f"(the reference by cores: {t2 - t1:.2f} s CPU, dropped {full.dropped:.1e})"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2:] or None)
