"""Time the exact Rally Risk analysis of long courses: 100 to 430 spaces.

Plain script, not a test: ``python benchmarks/bench_rally_risk_course.py [lengths...]``.
Target: a 430-space course analysed (three assistance types: the policy without mechanics,
the mechanics placed (the estimate, then the exact search of RR-30 within its budget), the
policy with them, the finishing-round distribution) in under 6 s
on the 2-core development machine. Each length builds a course from the bundled Safari
race's sections repeated (sheetgen refuses races over 120 spaces; the analysis itself does
not), and reports wall and CPU time, the share spent placing mechanics, and how the time
grows against the previous length (growth exponent log(t2 / t1) / log(n2 / n1)).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace
from pathlib import Path

from sheetgen.games.rally_risk import solve
from sheetgen.registry import load_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "track_specs" / "rally_risk" / "safari_1.yaml"


def long_race(spaces: int):
    race = load_spec(SPEC).model
    legs, i = [], 0
    while sum(len(leg.section.factors) for leg in legs) < spaces:
        legs.append(race.course[i % len(race.course)])
        i += 1
    return replace(race, name=f"{spaces} spaces", course=tuple(legs))


def main(lengths: list[int]) -> None:
    placing = [0.0]

    def timer(original):
        def timed(*args, **kwargs):
            t = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                placing[0] += time.process_time() - t

        return timed

    # the estimate (RR-11a) and the exact search it seeds (RR-30)
    solve.place_mechanics = timer(solve.place_mechanics)
    solve.place_mechanics_exactly = timer(solve.place_mechanics_exactly)
    previous = None
    print(f"{'spaces':>6} {'wall s':>7} {'cpu s':>7} {'placing':>8} {'growth':>7}")
    for n in lengths:
        race = long_race(n)
        placing[0] = 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        solve.analyze_rally_risk_race(race)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        growth = "" if previous is None else f"{math.log(cpu / previous[1]) / math.log(race.length / previous[0]):.2f}"
        print(f"{race.length:>6} {wall:>7.2f} {cpu:>7.2f} {placing[0] / cpu:>7.0%} {growth:>7}")
        previous = (race.length, cpu)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 200, 300, 430])
