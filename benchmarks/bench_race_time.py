"""How the advanced race time's distribution (the race sheet's p10/p50/p90) grows with the race,
beside the solve it comes from and the reference it replaced.

Plain script, not a test: ``python benchmarks/bench_race_time.py [--reference-up-to SPACES]``.
Races generated from seed 3 (no sheet check: only the figures are timed): 1, 2, 4 and 8
stages of 50..60 spaces, and 2 and 4 stages of 140..150 (about the longest race the advanced
solve takes: MAX_SOLVE_POINTS). For each, CPU seconds of this process: the exact advanced solve
(`solve_race`), the distribution by stages (`race_time_distribution`) and, up to
--reference-up-to spaces (default 600), the reference by cores
(`race_time_distribution_by_cores`), whose percentiles are checked to be the same.
Target (issue 27): the distribution grows no faster than the solve, i.e. its share of the
solve's time does not grow with the race.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen.games.rallytaire.forward_advanced import (  # noqa: E402
    race_time_distribution,
    race_time_distribution_by_cores,
)
from sheetgen.games.rallytaire.generate import generate_race  # noqa: E402
from sheetgen.games.rallytaire.solve_advanced import DnfRule, solve_race, solve_size  # noqa: E402

RACES = [(1, (50, 60)), (2, (50, 60)), (4, (50, 60)), (8, (50, 60)), (2, (140, 150)), (4, (140, 150))]
LEVELS = (0.10, 0.50, 0.90)


def cpu() -> float:
    return time.process_time()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference-up-to", type=int, default=600, help="spaces up to which the reference runs")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds of one process", flush=True)
    print(f"{'race':<22}{'spaces':>7}{'size':>9}{'solve':>8}{'by stages':>11}{'share':>7}{'reference':>11}  p10/p50/p90")
    for stages, length in RACES:
        race = generate_race(3, stages=stages, length=length, sheet=False)
        spaces = sum(s.length for s in race.stages)
        t0 = cpu()
        policy = solve_race(race, DnfRule())
        t1 = cpu()
        got = race_time_distribution(policy)
        t2 = cpu()
        pct = tuple(got.percentile(q) for q in LEVELS)
        reference = ""
        if spaces <= args.reference_up_to:
            want = race_time_distribution_by_cores(policy)
            t3 = cpu()
            assert tuple(want.percentile(q) for q in LEVELS) == pct
            reference = f"{t3 - t2:.2f}"
        print(
            f"{stages} x {length[0]}..{length[1]:<13}{spaces:>7}{solve_size(race):>9}{t1 - t0:>8.2f}{t2 - t1:>11.2f}"
            f"{(t2 - t1) / (t1 - t0):>7.2f}{reference:>11}  {'/'.join(str(p) for p in pct)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
