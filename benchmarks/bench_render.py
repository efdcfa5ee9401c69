"""Time rendering every bundled Rallytaire race (race sheets and time table), A4 and Letter.

Plain script, not a test: ``python benchmarks/bench_render.py [repeats]``. Target: all bundled
races together under 2 s. The solver's analyses (the advanced game's percentiles included,
which the header prints) are computed once beforehand and reported apart, so the figure is the
renderer's (layout included); the layout cache is cleared before every repeat so that each
repeat lays the stages out afresh.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from sheetgen.games.rallytaire import layout
from sheetgen.games.rallytaire.solve import analyze_race
from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced
from sheetgen.registry import load_spec
from sheetgen.render.rallytaire.race_sheet import render_race
from sheetgen.template import load_template

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    specs = [load_spec(p) for p in sorted((ROOT / "track_specs" / "rallytaire").glob("*.yaml"))]
    template = load_template()
    start = time.perf_counter()
    analyses = [(analyze_race(s.model), analyze_race_advanced(s.model)) for s in specs]
    for _basic, advanced in analyses:
        _ = advanced.percentiles  # worked out once, as the first render would
    print(f"analysis of {len(specs)} races (basic + advanced, with percentiles): {time.perf_counter() - start:.2f} s (not counted below)")
    for paper in ("a4", "letter"):
        times = []
        for _ in range(repeats):
            layout.clear_caches()
            t0 = time.perf_counter()
            pages = 0
            for spec, (basic, advanced) in zip(specs, analyses):
                pages += render_race(spec.model, template, analysis=basic, advanced=advanced, paper=paper)[1]
            times.append(time.perf_counter() - t0)
        print(f"{paper}: render {len(specs)} races, {pages} pages: min {min(times):.2f} s, median {statistics.median(times):.2f} s (target < 2 s)")


if __name__ == "__main__":
    main()
