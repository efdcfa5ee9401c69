"""Time building the rulebook's full calendar (8 rallies, 22 races) with its PDF.

Plain script, not a test: ``python benchmarks/bench_calendar.py [repeats] [jobs]``. Target: the
whole job under 5 s, that is what ``sheetgen calendar track_specs/rally_risk/championship.yaml
--seed N -o DIR`` does after start-up: choose the sections of every race, check that every
race can be finished (one exact analysis per race, run in `jobs` processes), write the
calendar spec (loaded back first) and render the PDF (33 pages). Every repeat uses another
seed, so no analysis is reused; the figures are reported apart and together.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sheetgen.games.rally_risk.championship import build_calendar, default_jobs
from sheetgen.registry import load_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "track_specs" / "rally_risk" / "championship.yaml"


def run(seed: int, jobs: int, out: str) -> dict[str, float]:
    from sheetgen.games.rally_risk.commands import _write_calendar

    cpu0 = _cpu()
    t0 = time.perf_counter()
    loaded = load_spec(SPEC)
    t1 = time.perf_counter()
    built = build_calendar(loaded.model, seed, check=None)
    t2 = time.perf_counter()
    built = build_calendar(loaded.model, seed, jobs=jobs)
    t3 = time.perf_counter()
    files = _write_calendar(loaded, built, out, None, "normal", False, lambda written: None)
    t4 = time.perf_counter()
    return {
        "load": t1 - t0,
        "search": t2 - t1,
        "search + analyses": t3 - t2,
        "spec + pdf": t4 - t3,
        "total": (t1 - t0) + (t4 - t2),
        "cpu (all processes)": _cpu() - cpu0,
        "pages": files[-1][1],
    }


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the analysis workers): what
    the job costs on one free core, whatever else the machine is running."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else default_jobs()
    import sheetgen.games.rally_risk.solve  # noqa: F401 - imports are start-up, not the job
    import sheetgen.render.rally_risk.calendar  # noqa: F401 - and the course sheet it draws

    with tempfile.TemporaryDirectory() as out:
        rows = [run(1000 + k, jobs, out) for k in range(repeats)]
    print(f"full calendar (8 rallies, 22 races, {rows[0]['pages']:.0f}-page PDF), {repeats} seeds, {jobs} analysis process(es):")
    for key in ("load", "search", "search + analyses", "spec + pdf", "total", "cpu (all processes)"):
        values = [r[key] for r in rows]
        print(f"  {key:<18} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    print(f"target: total < 5 s -> {'met' if statistics.median(r['total'] for r in rows) < 5 else 'NOT met'} (median)")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (other work slows the wall-clock figures, not the CPU ones)")


if __name__ == "__main__":
    main()
