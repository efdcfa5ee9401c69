"""reportlab's C accelerator (package rl-accel, a dependency on CPython) changes no byte of
a PDF: the same spec rendered with it and with reportlab's pure-Python fallback."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

pytestmark = pytest.mark.skipif(importlib.util.find_spec("_rl_accel") is None, reason="rl-accel is not installed")

RENDER = """
import sys
if sys.argv[1] == "python":
    sys.modules["_rl_accel"] = None  # reportlab's own switch to its pure-Python functions
import reportlab.lib.rl_accel as accel
print(accel.fp_str.__module__, file=sys.stderr)
from sheetgen.cli import main
main(["render", sys.argv[2], "-o", sys.argv[3]], standalone_mode=False)
"""


@pytest.mark.parametrize("spec", [SPECS / "rallytaire" / "thousand_lakes.yaml", SPECS / "rally_risk" / "sweden_1.yaml"], ids=lambda p: p.stem)
def test_the_accelerator_gives_the_same_pdf(tmp_path, spec):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    made = {}
    for mode in ("c", "python"):
        out = tmp_path / f"{mode}.pdf"
        done = subprocess.run([sys.executable, "-c", RENDER, mode, str(spec), str(out)], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        assert done.returncode == 0, done.stderr
        made[mode] = (out.read_bytes(), done.stderr.splitlines()[0])
    assert made["c"][1] != made["python"][1]  # the two runs really used different functions
    assert made["c"][0] == made["python"][0]
