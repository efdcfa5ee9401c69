"""Time Rallyman tracks: load (with the tile library), the strict graph checks and, once the
game has printables, the print, for every bundled track.

Plain script, not a test: ``python benchmarks/bench_rallyman.py [repeats]``. Reports per track
the median milliseconds of each step over the repeats (default 5). Target: load and check a
track of 25 tiles in well under a second on a 2-core machine.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen import registry

SPECS = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, (time.perf_counter() - start) * 1000


def main(repeats: int) -> None:
    from sheetgen.render import build_outputs, can_render

    for path in sorted(SPECS.glob("*.yaml")):
        loads, checks, prints = [], [], []
        for _ in range(repeats):
            spec, ms = timed(registry.load_spec, path)
            loads.append(ms)
            problems, ms = timed(spec.game.strict, spec)
            checks.append(ms)
            assert not problems, problems
            if can_render(spec):
                _pdf, ms = timed(build_outputs, spec)
                prints.append(ms)
        printed = f"print {statistics.median(prints):7.1f} ms" if prints else "no printables yet"
        print(f"{path.name:28} {spec.game.summary(spec.model):48} load {statistics.median(loads):6.1f} ms  check {statistics.median(checks):6.1f} ms  {printed}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
