"""`sheetgen generate rallyman`: tracks laid from a library's tiles within a box and a table,
checked by the track's own checks and rated into difficulty bands (docs/rallyman_generate.md,
rulings RM-20 to RM-23)."""

from __future__ import annotations

import shutil

import pytest

from conftest import SPECS
from sheetgen.registry import load_spec

RALLYMAN = SPECS / "rallyman"
LIBRARY = RALLYMAN / "tiles.yaml"


@pytest.fixture
def folder(tmp_path):
    """A folder holding a copy of the bundled tile library."""
    shutil.copy(LIBRARY, tmp_path / "tiles.yaml")
    return tmp_path


# --------------------------------------------------------------------------- the box


def test_a_library_tile_gives_its_count_and_the_bundled_box_holds_60_tiles():
    library = load_spec(LIBRARY).model
    counts = {t.id: t.count for t in library.tiles}
    assert counts["sg-s2"] == 6 and counts["sg-grid2"] == 1 and counts["sg-d-c120l"] == 2
    assert sum(counts.values()) == 60


def test_two_faces_of_one_tile_that_give_different_counts_are_refused(run, tmp_path):
    lib = tmp_path / "box.yaml"
    lib.write_text(
        "game: rallyman\nkind: tiles\nname: my box\ntiles:\n"
        "  - {id: 102a, count: 2, cells: [{q: -2, r: 0, heading: 0}]}\n"
        "  - {id: 102b, count: 3, cells: [{q: -2, r: 0, heading: 0}]}\n"
        "  - {id: 103a, count: 1, cells: [{q: -2, r: 0, heading: 0}]}\n"
        "  - {id: 103b, count: 1, cells: [{q: -2, r: 0, heading: 0}]}\n",
        encoding="utf-8",
    )
    result = run("validate", str(lib))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{lib}:6:23: error: tile '102b' is a face of tile 102, which tile '102a' counts 2: the two faces of one tile "
        "share one count"
    ]
