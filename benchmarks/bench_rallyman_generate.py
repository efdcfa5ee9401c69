"""Benchmark (not a test): checked Rallyman tracks per CPU second from `generate rallyman`.

Every track counted was laid from the bundled library within its box and a 150 x 90 cm table,
loaded back and passed the track's checks (what `validate --strict` says), and is inside its
difficulty band by the exact analysis: GT by the exact par solve, DIRT by the exact DIRT par
solve (docs/rallyman_generate.md).
A request refused (no layout in the band within the budget) counts its CPU time and no track.
The figures cache is off (SHEETGEN_CACHE=off), so that every GT track is solved (DIRT
ratings are not cached).

    python benchmarks/bench_rallyman_generate.py [--seeds N]

Reports per request shape: tracks made of the seeds asked, CPU seconds, tracks per CPU second and
the slowest request's CPU seconds (every request must be answered within 10 s of CPU).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ["SHEETGEN_CACHE"] = "off"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sheetgen.errors import SheetgenError  # noqa: E402
from sheetgen.games.rallyman import generate as gen  # noqa: E402

SHAPES = [
    # label, variant, laps (None: stage), length, difficulty
    ("GT stage easy", "gt", None, (30, 60), "easy"),
    ("GT stage medium", "gt", None, (50, 90), "medium"),
    ("GT stage hard", "gt", None, (50, 90), "hard"),
    ("GT circuit 1 lap easy", "gt", 1, (50, 90), "easy"),
    ("GT circuit 2 laps easy", "gt", 2, (50, 90), "easy"),
    ("GT circuit 2 laps medium", "gt", 2, (50, 90), "medium"),
    ("GT circuit 3 laps hard", "gt", 3, (40, 80), "hard"),
    ("DIRT stage easy", "dirt", None, (40, 80), "easy"),
    ("DIRT stage medium", "dirt", None, (40, 80), "medium"),
    ("DIRT stage hard", "dirt", None, (60, 100), "hard"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="requests per shape (default 10)")
    options = parser.parse_args()
    library, name = gen.load_library_option(str(ROOT / "track_specs" / "rallyman" / "tiles.yaml"))
    box = gen.box_of(library, name, None)
    print(f"{options.seeds} requests per shape, seeds 1000..; load average {os.getloadavg()[0]:.1f}")
    print(f"{'request':<26} {'made':>5} {'CPU s':>7} {'per CPU s':>10} {'slowest':>8}")
    for label, variant, laps, length, difficulty in SHAPES:
        made, total, slowest = 0, 0.0, 0.0
        for seed in range(1000, 1000 + options.seeds):
            request = gen.Request(gen.Variant(variant), laps, length, gen.DEFAULT_TABLE, difficulty, seed)
            cpu = time.process_time()
            try:
                gen.generate_track(library, name, box, request, ".", "bench", "bench")
                made += 1
            except SheetgenError:
                pass
            spent = time.process_time() - cpu
            total += spent
            slowest = max(slowest, spent)
        print(f"{label:<26} {made:>5} {total:>7.1f} {made / total:>10.2f} {slowest:>8.1f}")


if __name__ == "__main__":
    main()
