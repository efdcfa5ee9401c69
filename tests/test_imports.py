"""Heavy libraries are imported only where they are used, so that quick commands start quickly
(the start-up times themselves are in benchmarks/bench_startup.py, never in tests).

Each case runs the CLI in a fresh interpreter and lists which of the heavy libraries ended up
in sys.modules: numpy (solvers), reportlab (renderers), joblib (parallel jobs), networkx (the
structural graphs of a spec) and jsonschema (the wording of a spec's schema failures)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

HEAVY = ("networkx", "jsonschema", "numpy", "reportlab", "joblib")

PROBE = """
import json, sys
from sheetgen.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps([m for m in HEAVY if m in sys.modules]))
""".replace("HEAVY", repr(HEAVY))


def heavy_imports(*args: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "args,allowed",
    [
        (("--help",), ()),
        (("timetable",), ()),
        # a valid file passes the quick schema check (jsonschema words the failures only) and
        # the structural checks without building the networkx graphs
        (("validate", str(SPECS / "rallytaire" / "acropolis.yaml")), ()),
        (("validate", str(SPECS / "rally_risk" / "sweden_1.yaml")), ()),
        (("validate", str(SPECS / "seasons" / "winter_season.yaml")), ()),
        # a Rallyman track's checks walk its moves without networkx; its analysis solves
        # (numpy) and draws nothing
        (("validate", "--strict", str(SPECS / "rallyman" / "compact_hillclimb.yaml")), ()),
        (("analyze", str(SPECS / "rallyman" / "tiny.yaml")), ("numpy",)),
    ],
)
def test_quick_commands_import_no_solver_or_renderer(args, allowed):
    assert set(heavy_imports(*args)) <= set(allowed)


def test_an_invalid_file_still_gets_jsonschemas_wording(tmp_path):
    """The quick check only lets valid files skip jsonschema: a bad value is found and worded
    by it, at its line."""
    bad = tmp_path / "bad.yaml"
    bad.write_text((SPECS / "rallytaire" / "acropolis.yaml").read_text().replace("length: ", "length: x", 1))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "sheetgen", "validate", str(bad)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 1
    assert out.stderr.splitlines()[0] == f"{bad}:8:13: error: 'length' must be a whole number, got 'x55'"
