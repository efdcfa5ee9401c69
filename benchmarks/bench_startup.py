"""Time how long quick CLI calls take from a cold interpreter: wall and CPU (user + system).

Plain script, not a test: ``python benchmarks/bench_startup.py [repeats]``. Target: under
0.12 s for `sheetgen --help`, `sheetgen timetable` and `sheetgen validate` of a valid spec.
None of them imports numpy, reportlab, joblib, networkx or jsonschema (tests/test_imports.py
pins that): a valid spec passes the quick schema check without jsonschema (which only words
failures) and the structural checks without building the networkx graphs. On a machine shared
with other work the wall time is distorted: the CPU time of the child process is the steadier
figure. The bare interpreter is timed too, as the floor.

Measured on the 2-core development machine nearly quiet (load average 2), median of 7, wall
(CPU about the same): floor 0.019 s; --help 0.089 s; timetable 0.111 s (0.127 s before);
validate, Rally Risk race 0.132 s (0.266 s before); validate, Rallytaire race 0.271 s (0.386 s
before), of which about 0.1 s is the check that every stage can be laid out on the sheet, not
start-up. Left at start-up: Rallyman's odds tables (sheetgen/games/rallyman/__init__.py line 18
imports ODDS_OPTIONS from its odds module, which loads the ruleset), about 10-20 ms.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "python -c pass (the floor)": [sys.executable, "-c", "pass"],
    "sheetgen --help": [sys.executable, "-m", "sheetgen", "--help"],
    "sheetgen timetable": [sys.executable, "-m", "sheetgen", "timetable"],
    "sheetgen validate (Rallytaire race)": [sys.executable, "-m", "sheetgen", "validate", "track_specs/rallytaire/acropolis.yaml"],
    "sheetgen validate (Rally Risk race)": [sys.executable, "-m", "sheetgen", "validate", "track_specs/rally_risk/sweden_1.yaml"],
}


def once(cmd: list[str]) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(repeats: int = 9) -> None:
    print(f"{'command':<38} {'wall (median)':>14} {'cpu (median)':>13}")
    for name, cmd in CASES.items():
        once(cmd)  # warm the file cache
        runs = [once(cmd) for _ in range(repeats)]
        print(f"{name:<38} {statistics.median(w for w, _c in runs):>13.3f}s {statistics.median(c for _w, c in runs):>12.3f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
