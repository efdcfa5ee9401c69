"""Time `sheetgen simulate` of the bundled Rallyman DIRT stages, 1 to 6 cars, seeds 1 to N
(default 30), each a whole process (its par solve included), and report the CPU seconds of
the worst run per stage and car count; with `--dense`, the densest track the size limit
takes (bench_rallyman_dirt.py's) with 6 cars too.

Plain script, not a test: ``python benchmarks/bench_rallyman_dirt_simulate.py [N] [--dense]``.
Target: every run under 10 s of CPU (the project's bound for an input under the size limit;
RD-24 bounds the driver's work, tests/test_rallyman_dirt.py counts it).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "track_specs" / "rallyman"


def cpu_of(spec: Path, cars: int, seed: int) -> float:
    """The CPU seconds (user + system) of one `simulate` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-m", "sheetgen", "simulate", str(spec), "--cars", str(cars), "--seed", str(seed)],
        check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT,  # (python -m imports from the working folder first)
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    seeds = int(next((a for a in sys.argv[1:] if a.isdigit()), "30"))
    specs = sorted(SPECS.glob("dirt_*.yaml"))
    worst_all = 0.0
    if "--dense" in sys.argv:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_rallyman_dirt import dense

        from sheetgen.games.rallyman.solve_dirt import MAX_DIRT_SIZE

        folder = tempfile.mkdtemp()
        path = Path(folder) / "dense.yaml"
        path.write_text(dense(MAX_DIRT_SIZE), encoding="utf-8")
        specs.append(path)
    for spec in specs:
        for cars in range(1, 7):
            if spec.stem == "dense" and cars < 6:
                continue
            times = [cpu_of(spec, cars, seed) for seed in range(1, seeds + 1)]
            worst = max(times)
            worst_all = max(worst_all, worst)
            print(f"{spec.stem:<20} {cars} cars  seeds 1-{seeds}: median {sorted(times)[len(times) // 2]:5.2f} s, "
                  f"worst {worst:5.2f} s (seed {times.index(worst) + 1})", flush=True)
    print(f"target: every run under 10 s of CPU: {'met' if worst_all < 10 else 'NOT met'} (worst {worst_all:.2f} s)")


if __name__ == "__main__":
    main()
