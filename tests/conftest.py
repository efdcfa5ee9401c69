from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

# the tests' own disk cache of solved figures (sheetgen/cache.py), shared by the test processes
# and never the user's: entries are keyed by the solver's source, so an old one is never met
os.environ.setdefault("SHEETGEN_CACHE", os.path.join(tempfile.gettempdir(), f"sheetgen-test-cache-{os.getuid()}"))
# one process per command unless a test asks for more with --jobs: the suite already runs in
# two processes (pytest-xdist), and worker processes started by every build only add their
# start-up (tests/test_parallel.py and the --jobs 2 cases check the worker pools)
os.environ.setdefault("SHEETGEN_JOBS", "1")

from sheetgen.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "track_specs"
RALLYTAIRE_SPECS = sorted((SPECS / "rallytaire").glob("*.yaml"))


@pytest.fixture
def run():
    """Run the CLI in-process; returns click's Result (stdout and stderr kept apart)."""

    def invoke(*args: str, input: str | bytes | None = None):
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def write(tmp_path):
    """Write a spec file into a temporary folder and return its path as a string."""

    def writer(text: str | bytes, name: str = "spec.yaml") -> str:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    return writer


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


VALID = """\
game: rallytaire
name: Test Race
stages:
  - name: SS1
    surface: gravel
    length: 30
    corners:
      - {after: 10, gear: 3, zone: 5, turn: left}
      - {after: 20, gear: 2, zone: 15, turn: right}
"""
