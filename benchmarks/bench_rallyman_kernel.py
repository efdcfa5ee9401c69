"""Time the Rallyman GT par and safe route with the compiled kernel against the pure-Python
reference, side by side, on every bundled GT track (or those named).

Plain script, not a test: ``python benchmarks/bench_rallyman_kernel.py [--repeats N]
[--reference-repeats M] [TRACK ...]``. Each measurement is its own process (the figures cache
off), so that each has its own peak memory: the par then the safe route of one track (as
`analyze` and the printouts solve them), solved with the kernel or with `SHEETGEN_ACCEL=off`,
the runs of the two taking turns. Reports per track the CPU seconds of the solves (min /
median / max over the runs), their wall seconds (median), the peak resident memory of the
process, and for the kernel runs how its time splits: inside the kernel's calls (C), of which
the engine's dice asked through the callback (`rules.next_dice`, Python), and the rest (the
policy's forward pass, the tables' Python objects). Each run's figures are checked the same
(par seconds, expected turns, safe seconds and turns).

Targets (issue: the compiled kernel): par + safe route of each bundled GT track at least 20
times faster than the reference; Hexagon Ring and Wide Boulevard under 3 s of CPU each.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SPECS = ROOT / "track_specs" / "rallyman"


def gt_tracks() -> list[str]:
    from sheetgen import registry
    from sheetgen.games.rallyman.model import Variant

    out = []
    for path in sorted(SPECS.glob("*.yaml")):
        model = registry.load_spec(path).model
        if getattr(model, "variant", None) is Variant.GT and getattr(model, "cells", None):
            out.append(path.stem)
    return out


def one(name: str) -> dict:
    """One measurement in this process: the track's par and safe route (the mode comes from
    the environment: SHEETGEN_ACCEL)."""
    from sheetgen import registry
    from sheetgen.games.rallyman import accel, rules, solve
    from sheetgen.games.rallyman.rules import Stage
    from sheetgen.games.rallyman.ruleset import ruleset_of

    track = registry.load_spec(SPECS / f"{name}.yaml").model
    stage = Stage(track, ruleset_of(track), damage=False)
    spent = {"kernel": 0.0, "next_dice": 0.0}
    module = accel.kernel()
    if module is not None:
        # the time inside the kernel's calls, and inside the engine's dice they ask for
        class Timed:
            SOURCE_SHA256 = module.SOURCE_SHA256

            def __getattr__(self, attr):
                function = getattr(module, attr)

                def timed(*args):
                    start = time.process_time()
                    try:
                        return function(*args)
                    finally:
                        spent["kernel"] += time.process_time() - start

                return timed

        accel._LOADED[:] = [Timed()]
    next_dice = rules.next_dice

    def timed_next_dice(*args, **kwargs):
        start = time.process_time()
        try:
            return next_dice(*args, **kwargs)
        finally:
            spent["next_dice"] += time.process_time() - start

    rules.next_dice = timed_next_dice
    wall, cpu = time.perf_counter(), time.process_time()
    solved = solve.par(stage)
    safe = solve.safe_route(stage)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "track": name,
        "kernel": module is not None,
        "cpu": cpu,
        "wall": wall,
        "kernel_cpu": spent["kernel"],
        "next_dice_cpu": spent["next_dice"],
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "figures": [solved.time, solved.expected_turns, solved.choice[solved.start][0], None if safe is None else safe.time, None if safe is None else safe.turns],
    }


def run(name: str, kernel: bool) -> dict:
    env = dict(os.environ, SHEETGEN_CACHE="off")
    if kernel:
        env.pop("SHEETGEN_ACCEL", None)
    else:
        env["SHEETGEN_ACCEL"] = "off"
    out = subprocess.run([sys.executable, __file__, "--one", name], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def spread(values: list[float]) -> str:
    return f"{min(values):6.2f} / {statistics.median(values):6.2f} / {max(values):6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tracks", nargs="*")
    parser.add_argument("--repeats", type=int, default=5, help="kernel runs per track")
    parser.add_argument("--reference-repeats", type=int, default=3, help="reference runs per track")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    from sheetgen.games.rallyman import accel

    if not accel.available():
        sys.exit("the compiled kernel is not built here (or SHEETGEN_ACCEL=off): pip install . with a C compiler")
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds min / median / max; par + safe route, one process a run", flush=True)
    for name in args.tracks or gt_tracks():
        ref, ker = [], []
        for i in range(max(args.repeats, args.reference_repeats)):
            if i < args.reference_repeats:
                ref.append(run(name, False))
            if i < args.repeats:
                ker.append(run(name, True))
        figures = {json.dumps(r["figures"]) for r in ref + ker}
        assert len(figures) == 1, (name, figures)
        rc, kc = [r["cpu"] for r in ref], [r["cpu"] for r in ker]
        k_in = statistics.median(r["kernel_cpu"] for r in ker)
        k_dice = statistics.median(r["next_dice_cpu"] for r in ker)
        reference = (f"reference {spread(rc)} s (wall {statistics.median(r['wall'] for r in ref):6.2f}, {max(r['maxrss_mb'] for r in ref):4.0f} MB)  "
                     if ref else "")
        ratio = f"x{statistics.median(rc) / statistics.median(kc):5.1f}  " if ref else ""
        print(f"{name:<18} {reference}kernel {spread(kc)} s (wall {statistics.median(r['wall'] for r in ker):5.2f}, "
              f"{max(r['maxrss_mb'] for r in ker):4.0f} MB; in the kernel's calls {k_in:.2f} s, of which next_dice {k_dice:.2f} s)  "
              f"{ratio}load {os.getloadavg()[0]:.1f}", flush=True)

if __name__ == "__main__":
    main()
