"""Time how long quick CLI calls take from a cold interpreter: wall and CPU (user + system).

Plain script, not a test: ``python benchmarks/bench_startup.py [repeats]``. Target: under
0.12 s for `sheetgen timetable` and `sheetgen --help`, which import none of numpy, reportlab,
joblib, networkx or jsonschema (tests/test_imports.py pins that); `sheetgen validate` also
loads jsonschema and networkx (the schema and structural checks use them), and is reported
beside them. On a machine shared with other work the wall time is distorted: the CPU time
of the child process is the steadier figure. The bare interpreter is timed too, as the floor.
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
