"""Time the Rally Risk solver with its compiled kernel against the pure-Python reference, side
by side: the calendar's finishability checks and the full analysis of the bundled races.

Plain script, not a test: ``python benchmarks/bench_rally_risk_kernel.py [--repeats N]``. Each
measurement is its own process (the figures cache off), the kernel's runs and the reference's
(`SHEETGEN_ACCEL=off`) taking turns, so that both meet the same machine:

- ``checks``: the finishability check (one solve and one forward pass, permanent assistance, no
  mechanics) of the 22 races of the bundled championship at seeds 62 and 17 (the calendars of
  the fuzz batch's slowest cases), as `sheetgen calendar` runs it;
- ``analysis``: `analyze_rally_risk_race` of every bundled race (three assistance types, the
  mechanics placed by the exact search), as `sheetgen analyze` and `validate --strict` run it.

Reports the CPU seconds of the work (min / median / max), the ratio reference / kernel of the
medians, and checks that both give the same figures (`==` on their floats' hex).

Target (issue 33): every input under the size limits answered in under 10 s of CPU, the
bundled championship's calendar with `--jobs 2` included (8.4 to 8.9 s quiet before the kernel,
10.7 to 11.3 s in a fuzz batch's load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RR = ROOT / "track_specs" / "rally_risk"
SEEDS = (62, 17)


def checks() -> list[str]:
    from sheetgen.games.rally_risk import championship
    from sheetgen.registry import load_spec

    model = load_spec(RR / "championship.yaml").model
    races = [
        race for seed in SEEDS for _rally, race, _c in championship.build_calendar(model, seed, check=None).races()
    ]
    t = time.process_time()
    figures = [championship._solve_check(race) for race in races]
    spent = time.process_time() - t
    return [f"{spent!r}"] + [x.hex() for pair in figures for x in pair]


def analysis() -> list[str]:
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race
    from sheetgen.registry import load_spec

    races = []
    for path in sorted(RR.glob("*.yaml")):
        model = load_spec(path).model
        if type(model).__name__ == "Race":
            races.append(model)
    t = time.process_time()
    out = []
    for race in races:
        for result in analyze_rally_risk_race(race).results:
            out += [result.expected_rounds.hex(), result.elimination_probability.hex(), repr(result.mechanics)]
    spent = time.process_time() - t
    return [f"{spent!r}"] + out


def run(what: str, accel: bool) -> tuple[float, list[str]]:
    env = {**os.environ, "SHEETGEN_CACHE": "off", "SHEETGEN_ACCEL": "on" if accel else "off"}
    got = subprocess.run(
        [sys.executable, __file__, "--one", what], env=env, check=True, capture_output=True, text=True
    ).stdout
    values = json.loads(got)
    return float(values[0]), values[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", choices=("checks", "analysis"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(checks() if args.one == "checks" else analysis()))
        return
    from sheetgen.games.rally_risk import accel

    if not accel.available():
        sys.exit("the compiled kernel is not built here: pip install -e . first")
    print(f"{'work':9} {'kernel CPU s (min/median/max)':30} {'reference CPU s':30} ratio  same figures")
    for what in ("checks", "analysis"):
        kernel, reference, same = [], [], True
        for _ in range(args.repeats):
            k, kf = run(what, True)
            r, rf = run(what, False)
            kernel.append(k)
            reference.append(r)
            same = same and kf == rf
        ks = f"{min(kernel):.2f} / {statistics.median(kernel):.2f} / {max(kernel):.2f}"
        rs = f"{min(reference):.2f} / {statistics.median(reference):.2f} / {max(reference):.2f}"
        ratio = statistics.median(reference) / statistics.median(kernel)
        print(f"{what:9} {ks:30} {rs:30} {ratio:5.1f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
