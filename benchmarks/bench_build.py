"""Time `sheetgen build` of the bundled specs (the README's command): a first build with an
empty figures cache, then second builds that find the solved figures kept, with `--jobs 1`
and `--jobs 2`; wall and CPU (user + system of the process and its workers) and the load
average, and a check that every build wrote the same bytes.

Plain script, not a test: ``python benchmarks/bench_build.py [repeats]`` (repeats of each
second build, median reported). Target: under 3 s wall on the 2-core development machine.
The machine is shared with other work: the wall time then runs well over the CPU time, which
is the steadier figure. The bytecode is written first (a warm-up with PYTHONDONTWRITEBYTECODE
unset), as after an install. Figures: docs/benchmarks.md ("Building the bundled specs").
"""

from __future__ import annotations

import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(out: str, cache: str, jobs: int | None, write_bytecode: bool = False) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SHEETGEN_CACHE=cache)
    if write_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "sheetgen", "build", "-o", out, "-q"] + ([] if jobs is None else ["--jobs", str(jobs)])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def same(a: str, b: str) -> bool:
    names = sorted(os.listdir(a))
    _match, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    return names == sorted(os.listdir(b)) and not mismatch and not errors


def main(repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        build(os.path.join(tmp, "warm-up"), "off", 1, write_bytecode=True)
        print(f"load average {os.getloadavg()[0]:.1f}")
        wall, cpu = build(os.path.join(tmp, "first"), cache, 2)
        print(f"{'first build, --jobs 2':<32} {wall:6.2f} s wall {cpu:6.2f} s CPU")
        for jobs in (1, 2):
            runs = [build(os.path.join(tmp, f"second-{jobs}-{k}"), cache, jobs) for k in range(repeats)]
            print(f"{f'second build, --jobs {jobs}':<32} {statistics.median(w for w, _ in runs):6.2f} s wall {statistics.median(c for _, c in runs):6.2f} s CPU")
        print(f"load average {os.getloadavg()[0]:.1f}")
        outs = [os.path.join(tmp, d) for d in sorted(os.listdir(tmp)) if d.startswith(("first", "second"))]
        print("every build wrote the same bytes:", all(same(outs[0], o) for o in outs[1:]))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
