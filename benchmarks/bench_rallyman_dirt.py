"""Time the Rallyman DIRT analysis (`sheetgen analyze`: the par time and its time cards, the
lane per corner, shortcuts, jumps and slides priced) on every bundled DIRT track, and on a
58-cell road of three corners laid in the compact form.

Plain script, not a test: ``python benchmarks/bench_rallyman_dirt.py``. Reports CPU seconds
of the par solve and of the whole analysis per track. Target: the analysis of a 60-cell track
in under 10 s on a 2-core machine.
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


def one(name: str, track) -> float:
    stage = DirtStage(track, default("dirt"), damage=False)
    start = time.process_time()
    solve_dirt.par(stage)
    solve = time.process_time() - start
    start = time.process_time()
    data = solve_dirt.analyze_dirt(track)
    whole = time.process_time() - start
    solves = 1 + sum(1 for f in data["shortcuts_and_jumps"] if f["taken"] > 0)
    print(f"{name:<22} {len(track.cells):>4} cells  par {solve:6.2f} s  analysis {whole:6.2f} s ({solves} solve{'s' if solves > 1 else ''})")
    return whole


def main() -> None:
    from sheetgen.games.rallyman.spec import load

    sixty = one("sixty (compact)", load(load_text(SIXTY, "sixty.yaml")))
    print(f"target: a 60-cell track's analysis under 10 s CPU: {'met' if sixty < 10 else 'NOT met'} ({sixty:.2f} s)")
    for path in sorted(SPECS.glob("dirt_*.yaml")):
        one(path.stem, registry.load_spec(path).model)


if __name__ == "__main__":
    main()
