"""Time the Rallytaire track layout (`sheetgen.games.rallytaire.layout.layout_stage`) from a cold cache.

Plain script, not a test: ``python benchmarks/bench_layout.py [repeats]``. Lays out every
bundled stage and twelve generated ones (60-100 spaces, medium and hard) in the box a stage gets
alone on a race sheet page (`games.rallytaire.sheet.track_box`), and reports the median and worst
milliseconds per stage and how many wound (the rest are serpentines). Target: under 0.5 s for
any stage of up to 100 spaces on a 2-core machine (the race sheet of a 4-stage race then lays
out in about a second).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen.games.rallytaire import layout  # noqa: E402
from sheetgen.games.rallytaire.generate import propose_corners  # noqa: E402
from sheetgen.games.rallytaire.model import Stage, Surface  # noqa: E402
from sheetgen.registry import load_spec  # noqa: E402
from sheetgen.games.rallytaire.sheet import track_box  # noqa: E402
from sheetgen.template import load_template  # noqa: E402

SPECS = Path(__file__).resolve().parent.parent / "track_specs" / "rallytaire"


def stages() -> list[Stage]:
    out = [s for path in sorted(SPECS.glob("*.yaml")) for s in load_spec(path).model.stages]
    rng = random.Random(2026)
    for k in range(12):
        length = 60 + 4 * k
        difficulty = "hard" if k % 2 else "medium"
        out.append(Stage(f"bench {k}", Surface.GRAVEL, length, propose_corners(rng, length, difficulty)))
    return out


def main(repeats: int = 3) -> None:
    template = load_template("race_sheet")
    box = track_box(template, first_page=False)
    per_stage: dict[str, list[float]] = {}
    wound = 0
    for _ in range(repeats):
        for stage in stages():
            layout.clear_caches()
            t0 = time.perf_counter()
            result = layout.layout_stage(stage, *box, space_mm=template.space_mm)
            per_stage.setdefault(f"{stage.name} ({stage.length})", []).append(time.perf_counter() - t0)
            wound += result.style == "winding"
    best = {name: min(ts) for name, ts in per_stage.items()}
    worst = max(best, key=best.__getitem__)
    print(f"{len(best)} stages in a {box[0]:.1f} x {box[1]:.1f} mm box, best of {repeats} runs each")
    print(f"median {1000 * statistics.median(best.values()):.1f} ms per stage, slowest {1000 * best[worst]:.1f} ms ({worst})")
    print(f"winding roads: {wound // repeats} of {len(best)} (the others are serpentines)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
