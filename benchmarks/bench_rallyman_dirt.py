"""Time the Rallyman DIRT analysis (`sheetgen analyze`: the par time and its time cards, the
lane per corner, shortcuts, jumps and slides priced) on every bundled DIRT track, on a 58-cell
road of three corners laid in the compact form, and on the densest track the size limit
takes (`solve_dirt.MAX_DIRT_SIZE` cells, a jump or a slide zone every two or three columns:
each feature the par policy takes is priced by a solve of what lies before it).

Plain script, not a test: ``python benchmarks/bench_rallyman_dirt.py`` (with the compiled
kernel where it is built; ``SHEETGEN_ACCEL=off`` for the Python reference). Reports CPU
seconds of the par solve and of the whole analysis per track. Targets: every track under the
size limit analysed in under 10 s of CPU; Forest Stage's analysis at least 10 times faster
than the Python reference's (docs/benchmarks.md times that with farm-bench, whole processes).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen import registry
from sheetgen.games.rallyman import solve_dirt
from sheetgen.games.rallyman.rules_dirt import DirtStage
from sheetgen.games.rallyman.ruleset import default
from sheetgen.yamlsrc import load_text

SPECS = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"

SIXTY = """\
game: rallyman
variant: dirt
name: Sixty
surface: gravel
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments:
    - straight 6
    - corner left limit 3/5
    - straight 5
    - corner right limit 2/4
    - straight 6
    - corner left limit 4/5
    - straight 6
"""


#: a jump or a slide zone every two or three columns, cautions in every corner
DENSE = ["straight 1 jump 4", "straight 1", "straight 2 slide", "straight 1 jump 3", "corner left limit 3/4 caution",
         "straight 1 jump 5", "corner right limit 3/4 caution"]


def dense(cells: int) -> str:
    """The dense DIRT track of the most segments that lays at most `cells` cells."""
    from sheetgen.games.rallyman.spec import load

    best = ""
    for n in range(1, 400):
        text = ("game: rallyman\nvariant: dirt\nname: Dense\nsurface: gravel\npath:\n  lanes: 2\n"
                "  from: {q: 0, r: 0, heading: 0}\n  segments:\n" + "".join(f"    - {s}\n" for s in (DENSE * 60)[:n]))
        if len(load(load_text(text, "dense.yaml")).cells) > cells:
            return best
        best = text
    return best


def one(name: str, track) -> float:
    stage = DirtStage(track, default("dirt"), damage=False)
    start = time.process_time()
    solve_dirt.par(stage)
    solve = time.process_time() - start
    start = time.process_time()
    data = solve_dirt.analyze_dirt(track)
    whole = time.process_time() - start
    solves = 1 + sum(1 for f in data["shortcuts_and_jumps"] if f["taken"] > 0)
    plural = "s" if solves > 1 else ""
    print(f"{name:<22} {len(track.cells):>4} cells  par {solve:6.2f} s  analysis {whole:6.2f} s "
          f"({solves} solve{plural})")
    return whole


def main() -> None:
    from sheetgen.games.rallyman.spec import load

    sixty = one("sixty (compact)", load(load_text(SIXTY, "sixty.yaml")))
    print(f"target: a 60-cell track's analysis under 10 s CPU: {'met' if sixty < 10 else 'NOT met'} ({sixty:.2f} s)")
    for path in sorted(SPECS.glob("dirt_*.yaml")):
        one(path.stem, registry.load_spec(path).model)
    worst = one("dense at the limit", load(load_text(dense(solve_dirt.MAX_DIRT_SIZE), "dense.yaml")))
    print(f"target: the densest track under the size limit under 10 s CPU: {'met' if worst < 10 else 'NOT met'}")


if __name__ == "__main__":
    main()
