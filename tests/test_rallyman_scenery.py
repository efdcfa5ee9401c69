"""Scenery tiles (ruling RM-19): a library tile with no road (`scenery: true`: a podium, a
filler) is placed in a track, read from and written to Rekee's files (which name them
`podium`, `filler1a`... or 902a to 905a), drawn on the map, and never part of the moves.

The library is sheetgen's original tiles with a scenery tile added by the test, standing for
Rekee's podium id (905a, a fact of Rekee's tile.rs)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pypdf import PdfReader

from sheetgen.games.rallyman.graph import track_graph
from sheetgen.registry import load_spec

BUNDLED = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"
TRACK = """\
game: rallyman
variant: gt
name: with a podium
library: lib.yaml
tiles:
  - {id: sg-start2, q: 0, r: 0}
  - {id: sg-s2, q: 1, r: 0}
  - {id: podium, q: 1, r: -1, rotation: 2}
  - {id: sg-finish2, q: 2, r: 0}
"""


def words(text: str) -> str:
    """The text of a page with its line breaks and runs of blanks as single blanks."""
    return " ".join(text.split())


@pytest.fixture
def lib(tmp_path):
    text = (BUNDLED / "tiles.yaml").read_text(encoding="utf-8")
    text = text.replace("  - id: sg-s2\n", '  - id: sg-s2\n    rekee: "102a"\n', 1)
    text = text.replace("  - id: sg-start2\n", '  - id: sg-start2\n    rekee: "103a"\n', 1)
    text = text.replace("  - id: sg-finish2\n", '  - id: sg-finish2\n    rekee: "104a"\n', 1)
    text += '  - id: podium\n    rekee: "905a"\n    name: the podium\n    scenery: true\n'
    (tmp_path / "lib.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "track.yaml").write_text(TRACK, encoding="utf-8")
    return tmp_path


def test_a_scenery_tile_is_placed_with_no_spaces_and_no_moves(run, lib):
    library = load_spec(lib / "lib.yaml").model
    podium = library.get("podium")
    assert (podium.scenery, podium.cells, podium.name, podium.rekee_id) == (True, (), "the podium", "905a")
    track = load_spec(lib / "track.yaml").model
    placement = track.placements[2]
    assert (placement.tile, placement.scenery, placement.cells) == ("podium", True, ())
    # the three road tiles' 8 + 9 + 8 cells, less the two half cells the tiles share
    assert len(track.cells) == 23 and all(c.tile != 2 for c in track.cells)
    assert set(track_graph(track).nodes) == {c.hex for c in track.cells}
    assert run("validate", "--strict", str(lib / "track.yaml")).exit_code == 0


def test_a_road_into_a_scenery_tile_does_not_meet_it(run, lib):
    (lib / "track.yaml").write_text(TRACK.replace("{id: sg-finish2, q: 2, r: 0}", "{id: podium, q: 2, r: 0}"), encoding="utf-8")
    result = run("validate", "--strict", str(lib / "track.yaml"))
    assert result.exit_code == 1
    assert (
        f"{lib / 'track.yaml'}:9:5: error: tiles do not meet: tile 'sg-s2' at (1, 0) has 2 lanes across its east side, "
        "tile 'podium' at (2, 0) has 0 across it"
    ) in result.stderr.splitlines()


def test_a_scenery_tile_says_scenery_and_has_no_cells(run, tmp_path):
    path = tmp_path / "lib.yaml"
    path.write_text(
        "game: rallyman\nkind: tiles\nname: box\ntiles:\n"
        "  - {id: podium, scenery: true, cells: [{q: 0, r: 0, heading: 0}], danger: red}\n"
        "  - {id: lake, name: a lake}\n",
        encoding="utf-8",
    )
    result = run("validate", str(path))
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"{path}:5:40: error: tile 'podium' is scenery (a tile with no road: 'scenery: true'): it has no 'cells'",
            f"{path}:5:76: error: tile 'podium' is scenery (a tile with no road: 'scenery: true'): it has no 'danger'",
            f"{path}:6:5: error: tile 'lake' has no 'cells': give its spaces (as hex cells, or in the lane form: "
            "'lanes'), or say 'scenery: true' for a tile with no road (a podium, a filler)",
        ],
    )


def test_rekee_s_podium_is_read_by_its_alias_and_written_back_by_its_id(run, lib):
    rekee = lib / "podium.json"
    rekee.write_text(
        json.dumps(
            {
                "title": "with a podium",
                "tiles": [
                    {"q": 0, "r": 0, "id": "103a", "dir": 0},
                    {"q": 1, "r": 0, "id": "102a", "dir": 0},
                    {"q": 1, "r": -1, "id": "PODIUM", "dir": 2},
                    {"q": 2, "r": 0, "id": "104a", "dir": 0},
                ],
            }
        ),
        encoding="utf-8",
    )
    spec = lib / "imported.yaml"
    result = run("import", "rekee", str(rekee), "--tiles", str(lib / "lib.yaml"), "--variant", "gt", "-o", str(spec))
    assert (result.exit_code, result.stderr) == (0, "")
    assert '  - {id: "podium", q: 1, r: -1, rotation: 2}' in spec.read_text(encoding="utf-8").splitlines()
    out = lib / "out.json"
    assert run("export", "rekee", str(spec), "-o", str(out)).exit_code == 0
    assert [t["id"] for t in json.loads(out.read_text(encoding="utf-8"))["tiles"]] == ["103a", "102a", "905a", "104a"]
    rgt = run("export", "rekee", str(spec), "--format", "rgt")
    assert [t["TuileId"] for t in json.loads(rgt.stdout)["Tuiles"]] == ["103a", "102a", "905A", "104a"]


def test_a_scenery_tile_is_drawn_on_the_map_where_it_lies(run, lib):
    """The podium lies north-east of the straight, beyond the road's box: the map's pages take
    it in, and it is outlined and named there (the road alone fits two pages across)."""
    pdf = lib / "track.pdf"
    assert run("render", str(lib / "track.yaml"), "-o", str(pdf)).exit_code == 0
    pages = [words(p.extract_text()) for p in PdfReader(io.BytesIO(pdf.read_bytes())).pages]
    maps = [p for p in pages if "at true scale" in p]
    assert any("tile podium scenery: no road turned 2" in p for p in maps)
    assert "podium" in pages[0]  # its id in the overview
    road_only = lib / "road.yaml"
    road_only.write_text(TRACK.replace("  - {id: podium, q: 1, r: -1, rotation: 2}\n", ""), encoding="utf-8")
    assert run("render", str(road_only), "-o", str(lib / "road.pdf")).exit_code == 0
    road_maps = [p for p in (q.extract_text() for q in PdfReader(io.BytesIO((lib / "road.pdf").read_bytes())).pages) if "at true scale" in p]
    assert len(maps) > len(road_maps)


def test_a_scenery_tile_prints_among_the_cut_out_tiles(run, lib):
    pdf = lib / "lib.pdf"
    assert run("render", str(lib / "lib.yaml"), "-o", str(pdf)).exit_code == 0
    text = words("\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.read_bytes())).pages))
    assert "podium the podium scenery, no road; this way up: rotation 0" in text
