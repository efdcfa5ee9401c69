"""Time how long quick CLI calls take from a cold interpreter: wall and CPU (user + system).

Plain script, not a test: ``python benchmarks/bench_startup.py [repeats]``. Target: under
0.12 s for `sheetgen --help`, `sheetgen timetable` and `sheetgen validate` of a valid spec.
None of them imports numpy, reportlab, joblib, networkx or jsonschema (tests/test_imports.py
pins that): a valid spec passes the quick schema check without jsonschema (which only words
failures) and the structural checks without building the networkx graphs. On a machine shared
with other work the wall time is distorted: the CPU time of the child process is the steadier
figure. The bare interpreter is timed too, as the floor.

A cold interpreter is a new process with the modules' bytecode already compiled, as after an
install or any earlier run: the warm-up call of each command writes it (with
PYTHONDONTWRITEBYTECODE unset, which a development shell may set: then every call compiles
every source file it imports, about 0.02-0.03 s more). The last line times `validate` with no
bytecode at all (an empty PYTHONPYCACHEPREFIX, nothing written), the very first run of a
fresh checkout, for comparison only. The figures are in docs/benchmarks.md ("Start-up").
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
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


def once(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    env = env or dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(repeats: int = 9) -> None:
    print(f"{'command':<38} {'wall (median)':>14} {'cpu (median)':>13}")
    writing = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    writing["PYTHONPATH"] = str(ROOT)
    for name, cmd in CASES.items():
        once(cmd, writing)  # warm the file cache and write the bytecode
        runs = [once(cmd) for _ in range(repeats)]
        print(f"{name:<38} {statistics.median(w for w, _c in runs):>13.3f}s {statistics.median(c for _w, c in runs):>12.3f}s")
    with tempfile.TemporaryDirectory() as empty:
        bare = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=empty)
        cmd = CASES["sheetgen validate (Rallytaire race)"]
        runs = [once(cmd, bare) for _ in range(repeats)]
        name = "validate (Rallytaire), no bytecode"
        print(f"{name:<38} {statistics.median(w for w, _c in runs):>13.3f}s {statistics.median(c for _w, c in runs):>12.3f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
