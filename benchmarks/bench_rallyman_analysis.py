"""Time the Rallyman GT analysis (`sheetgen analyze`: the safe route and the par time) on
every bundled GT track, and on a 60-cell strip of corners laid in the compact form.

Plain script, not a test: ``python benchmarks/bench_rallyman_analysis.py [TRACK ...]``.
Reports CPU seconds of the safe route, of the par solve and of the whole analysis per track.
Target (issue 15): the analysis of a 60-cell track in under 10 s on a 2-core machine; the
bundled set in a few seconds (`sheetgen build` solves each bundled GT track for its map).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sheetgen import registry
from sheetgen.games.rallyman import report, solve
from sheetgen.games.rallyman.model import Variant
from sheetgen.games.rallyman.rules import Stage
from sheetgen.games.rallyman.ruleset import default
from sheetgen.yamlsrc import load_text

SPECS = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"

SIXTY = """\
game: rallyman
variant: gt
name: Sixty
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments:
    - straight 6
    - corner left limit 3/5
    - straight 5
    - corner right limit 2/4 caution
    - straight 6
    - corner left limit 4/5
    - straight 7
"""


def one(name: str, track) -> float:
    stage = Stage(track, default("gt"), damage=False)
    start = time.process_time()
    safe = solve.safe_route(stage)
    safe_s = time.process_time() - start
    start = time.process_time()
    solved = solve.par(stage)
    par_s = time.process_time() - start
    start = time.process_time()
    report.analyze_track(track)
    whole = time.process_time() - start
    laps = f" x {track.laps}" if track.laps > 1 else ""
    size = f"{len(track.cells)}{laps}"
    safe_text = f"{safe.time} s/{safe.turns} turns" if safe else "none"
    print(f"{name:<18} {size:>7} cells  par {solved.time:7.1f} s  safe {safe_text:<16} safe route {safe_s:5.2f} s  par {par_s:5.2f} s  analysis {whole:5.2f} s CPU", flush=True)
    return whole


def main(names: list[str]) -> None:
    from sheetgen.games.rallyman.spec import load

    if not names:
        one("sixty (compact)", load(load_text(SIXTY, "sixty.yaml")))
    paths = [SPECS / f"{n}.yaml" for n in names] or sorted(SPECS.glob("*.yaml"))
    total = 0.0
    for path in paths:
        model = registry.load_spec(path).model
        if getattr(model, "variant", None) is not Variant.GT or not hasattr(model, "cells"):
            continue
        total += one(path.stem, model)
    print(f"bundled GT tracks: analysis {total:.2f} s CPU in all")


if __name__ == "__main__":
    main(sys.argv[1:])
