"""Rallyman GT analysis time per bundled track (wall and CPU seconds): the safe route and
the par time. Run: PYTHONPATH=. python benchmarks/bench_rallyman_analysis.py [TRACK ...]"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sheetgen.games.rallyman.model import Variant
from sheetgen.games.rallyman.rules import Stage
from sheetgen.games.rallyman.ruleset import default
from sheetgen.games.rallyman.solve import par, safe_route
from sheetgen.registry import load_spec

ROOT = Path(__file__).resolve().parent.parent


def main(names: list[str]) -> None:
    paths = [ROOT / "track_specs/rallyman" / f"{n}.yaml" for n in names] or sorted((ROOT / "track_specs/rallyman").glob("*.yaml"))
    for path in paths:
        model = load_spec(path).model
        if getattr(model, "variant", None) is not Variant.GT or not hasattr(model, "cells"):
            continue
        stage = Stage(model, default("gt"), damage=False)
        wall, cpu = time.perf_counter(), time.process_time()
        safe = safe_route(stage)
        mid_w, mid_c = time.perf_counter(), time.process_time()
        solved = par(stage)
        end_w, end_c = time.perf_counter(), time.process_time()
        print(f"{path.stem}: {len(model.cells)} cells; safe {safe.time if safe else '-'} s ({mid_w - wall:.1f} s wall, {mid_c - cpu:.1f} s CPU); par {solved.time:.1f} s ({end_w - mid_w:.1f} s wall, {end_c - mid_c:.1f} s CPU)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
