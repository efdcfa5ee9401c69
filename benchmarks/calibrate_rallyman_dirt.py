"""Not a test: the sample the DIRT difficulty bands of `generate rallyman` were calibrated on.

Lays DIRT stages from the bundled library and its box by the generator's own search, 5 at each
of five leans (0.2 to 2.4: from straights toward hairpins) and three lengths, solves each
exactly (the DIRT par) and prints one JSON line a stage, then the delay's tertiles and the
losses of control a step within each third (docs/rallyman_generate.md, "How they were
calibrated": 75 stages, tertiles 0.087 and 0.579).

    python benchmarks/calibrate_rallyman_dirt.py [--per N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sheetgen.errors import SpecError  # noqa: E402
from sheetgen.games.rallyman import generate as gen  # noqa: E402
from sheetgen.games.rallyman.graph import track_problems  # noqa: E402
from sheetgen.games.rallyman.solve_dirt import analyze_dirt  # noqa: E402
from sheetgen.registry import spec_of  # noqa: E402
from sheetgen.yamlsrc import load_bytes  # noqa: E402

LEANS = (0.2, 0.5, 1.0, 1.6, 2.4)
LENGTHS = ((30, 60), (50, 90), (60, 100))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per", type=int, default=5, help="stages per lean and length (default 5)")
    options = parser.parse_args()
    path = str(ROOT / "track_specs" / "rallyman" / "tiles.yaml")
    library, name = gen.load_library_option(path)
    box = gen.box_of(library, name, None)
    pieces = gen.usable_pieces(library, gen.Variant.DIRT)
    rows = []
    for lean in LEANS:
        for length in LENGTHS:
            got = seed = 0
            while got < options.per and seed < 40:
                seed += 1
                request = gen.Request(
                    gen.Variant.DIRT,
                    None,
                    length,
                    gen.DEFAULT_TABLE,
                    "medium",
                    7000 + seed + int(lean * 100) + length[0],
                )
                laid = next(
                    iter(gen.layouts(library, pieces, box, request, random.Random(request.seed), [lean], Counter())),
                    None,
                )
                if laid is None:
                    continue
                try:
                    spec = spec_of(load_bytes(gen.spec_text(laid, request, path, "s", "c", []).encode(), "g.yaml"))
                except SpecError:
                    continue
                track = spec.model
                if track_problems(spec.document, track) or not track.corners():
                    continue
                par = analyze_dirt(track)["par"]
                steps = gen.road_steps(track)
                delay = (
                    par["expected_seconds"] - (gen.DIRT_STRAIGHT_START + gen.DIRT_STRAIGHT_PER_STEP * steps)
                ) / steps
                row = {
                    "lean": lean,
                    "length": length,
                    "cells": len(track.cells),
                    "steps": steps,
                    "par": par["expected_seconds"],
                    "delay": round(delay, 4),
                    "lose_per_step": round(par["lose_control_expected"] / steps, 5),
                    "severity": round(gen.dirt_features(track), 4),
                }
                print(json.dumps(row), flush=True)
                rows.append(row)
                got += 1
    delays = sorted(r["delay"] for r in rows)
    low, high = statistics.quantiles(delays, n=3, method="inclusive")
    print(f"{len(rows)} stages; delay tertiles {low:.3f} and {high:.3f}")
    for label, part in (
        ("easy", [r for r in rows if r["delay"] < low]),
        ("medium", [r for r in rows if low <= r["delay"] < high]),
        ("hard", [r for r in rows if r["delay"] >= high]),
    ):
        losses = sorted(r["lose_per_step"] for r in part)
        deciles = statistics.quantiles(losses, n=10, method="inclusive")
        print(
            f"{label}: {len(part)} stages, losses a step {losses[0]:.4f}..{losses[-1]:.4f}, "
            f"10th percentile {deciles[0]:.4f}, 90th {deciles[-1]:.4f}"
        )


if __name__ == "__main__":
    main()
