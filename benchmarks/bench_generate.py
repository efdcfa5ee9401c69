"""Benchmark (not a test): generated-and-checked Rallytaire stages per second.

Every stage counted was proposed, solved exactly (in its difficulty band), and laid out as a
winding road in the box the race sheet gives it on A4 and on Letter; whole races also go
through the renderer's page plan (two short stages may share a page).

    python benchmarks/bench_generate.py [--seeds N] [--jobs K]

Reports, per difficulty: one-stage races (the stage pipeline) and four-stage races (with the
page plan), in one process and in K worker processes (default: every core). Races are
independent, so they spread over processes; each process keeps its own layout cache.

Target: 20 or more checked stages per second on the 2-core development machine, in one
process. Measured there (50 races per cell): 24-36 in one process, 47-62 with both cores; hard
stages are the slowest (they wind on the page less often, so more layout tries fail). Fewer
races per cell make noisy figures: a few seeds cost several times the median.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen import parallel  # noqa: E402
from sheetgen.games.rallytaire.generate import DIFFICULTIES, generate_race  # noqa: E402


def _batch(args: tuple[str, int, list[int]]) -> tuple[int, float]:
    """(stages made, CPU seconds this process spent on them)."""
    difficulty, stages, seeds = args
    cpu = time.process_time()
    count = sum(len(generate_race(seed, stages=stages, difficulty=difficulty).stages) for seed in seeds)
    return count, time.process_time() - cpu


def run(difficulty: str, stages: int, seeds: list[int], jobs: int) -> tuple[float, float]:
    """(stages per wall-clock second, stages per CPU second) over `seeds`, in `jobs` processes
    (1: this one). The CPU rate is what one core does when nothing else runs on the machine."""
    start = time.perf_counter()
    chunks = [(difficulty, stages, seeds[k::jobs]) for k in range(jobs)]
    results = parallel.run(_batch, chunks, jobs)  # the one parallel interface (joblib)
    count, cpu = sum(r[0] for r in results), sum(r[1] for r in results)
    return count / (time.perf_counter() - start), count / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="races per measurement (default 50)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    options = parser.parse_args()
    jobs = options.jobs
    print(f"{options.seeds} races per cell, seeds 1000.., default --length 40..70; load average {os.getloadavg()[0]:.1f}")
    print("stages per second: wall clock in 1 process, per CPU second (one free core), wall clock in")
    print(f"{jobs} worker processes; a loaded machine lowers the wall-clock figures, not the CPU one")
    print(f"{'difficulty':<10} {'race':<9} {'1 process':>10} {'per CPU s':>10} {f'{jobs} processes':>12}")
    for difficulty in DIFFICULTIES:
        for stages in (1, 4):
            seeds = list(range(1000, 1000 + options.seeds))
            one, per_cpu = run(difficulty, stages, seeds, 1)
            # other seeds for the pool, so that no layout is found in a cache
            many, _ = run(difficulty, stages, [s + 10_000 for s in seeds], jobs) if jobs > 1 else (one, per_cpu)
            label = f"{stages} stage" + ("s" if stages > 1 else "")
            print(f"{difficulty:<10} {label:<9} {one:>10.1f} {per_cpu:>10.1f} {many:>12.1f}")


if __name__ == "__main__":
    main()
