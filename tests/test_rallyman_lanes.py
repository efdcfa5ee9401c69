"""The lane form of a library tile (ruling RM-24): lanes named, their spaces in driving order,
bends, limits and marks in words, beside pairs, merges and the side the lanes leave by.

The oracles are hex-form tiles written by hand: sheetgen's own bundled tiles
(track_specs/rallyman/tiles.yaml) and an original tile made here ("orig-kink", a crest kink
right whose inside lane has caution limits), each written in both forms. Rekee ids in the
tests' libraries are made up."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import networkx as nx
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from sheetgen.errors import SpecError
from sheetgen.games.rallyman.graph import track_graph
from sheetgen.games.rallyman.hexgrid import Hex, in_frame
from sheetgen.registry import load_spec

BUNDLED = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"

#: the original tile in both forms: outside lane 1 (5 spaces, bending right at its third),
#: inside lane 2 (3 spaces, bending right at its second), an inside line between the
#: outside lane's first corner space and the inside lane's
KINK_LANES = """\
  - id: orig-kink
    rekee: "190a"
    name: crest kink right, 2 lanes
    danger: orange
    leave: south-east
    lanes:
      - name: outside
        spaces: [., ., 5 right, 5, .]
      - name: inside
        spaces: [., 3! right, 3!]
    beside: [[outside 2, inside 2], [outside 4, inside 3]]
    lines:
      - {between: [outside 3, inside 2], limit: 4}
"""
KINK_CELLS = """\
  - id: orig-kink-cells
    rekee: "191a"
    name: crest kink right, 2 lanes, as hex cells
    danger: orange
    cells:
      - {q: -2, r: 0, heading: 0, lane: 1}
      - {q: -1, r: 0, heading: 0, lane: 1}
      - {q: 0, r: 0, heading: 1, lane: 1, limit: 5}
      - {q: 0, r: 1, heading: 1, lane: 1, limit: 5}
      - {q: 0, r: 2, heading: 1, lane: 1}
      - {q: -2, r: 1, heading: 0, lane: 2}
      - {q: -1, r: 1, heading: 1, lane: 2, limit: 3, caution: true}
      - {q: -1, r: 2, heading: 1, lane: 2, limit: 3, caution: true}
    lines:
      - {between: [[0, 0], [-1, 1]], limit: 4}
"""
#: sheetgen's own sg-c60r and sg-c120l, written in the lane form
BUNDLED_AS_LANES = """\
game: rallyman
kind: tiles
name: bundled tiles as lanes
tiles:
  - id: sg-c60r
    danger: orange
    leave: south-east
    lanes:
      - {name: outside, spaces: [., ., 4 right, 4, .]}
      - {name: inside, spaces: [., 3 right, 3]}
    beside: [[outside 2, inside 2], [outside 4, inside 3]]
  - id: sg-c120l
    danger: red
    leave: north-west
    lanes:
      - {name: inside, spaces: [., 2 left, 2 left, .]}
      - {name: outside, spaces: [., 3! left, 3!, 3! left, .]}
    beside: [[inside 2, outside 2]]
    lines:
      - {between: [inside 2, outside 3], limit: 2}
  - id: sg-start2
    leave: east
    lanes:
      - {name: left, begins: 2, spaces: [start, ., ., .]}
      - {name: right, spaces: [start, ., ., .]}
  - id: sg-finish2
    lanes:
      - {name: left, spaces: [., ., ., finish]}
      - {name: right, spaces: [., ., ., finish]}
  - id: sg-grid2
    leave: east
    lanes:
      - {name: left, spaces: [., start, ., finish, .]}
      - {name: right, spaces: [start, ., ., finish]}
  - id: sg-n32
    leave: east
    lanes:
      - {name: left, spaces: [., .], into: centre 3}
      - {name: centre, spaces: [., ., ., ., .]}
      - {name: right, spaces: [., ., ., .]}
"""
TRACK = """\
game: rallyman
variant: gt
name: kink track
library: lib.yaml
tiles:
  - {id: sg-start2, q: 0, r: 0}
  - {id: KINK, q: 1, r: 0}
  - {id: sg-s2, q: 1, r: 1, rotation: 1}
  - {id: sg-finish2, q: 1, r: 2, rotation: 1}
"""


@pytest.fixture
def lib(tmp_path):
    text = (BUNDLED / "tiles.yaml").read_text(encoding="utf-8")
    for tile, rekee in (("sg-s2", "102a"), ("sg-start2", "103a"), ("sg-finish2", "104a")):
        text = text.replace(f"  - id: {tile}\n", f'  - id: {tile}\n    rekee: "{rekee}"\n', 1)
    (tmp_path / "lib.yaml").write_text(text + KINK_LANES + KINK_CELLS, encoding="utf-8")
    (tmp_path / "lanes.yaml").write_text(TRACK.replace("KINK", "orig-kink"), encoding="utf-8")
    (tmp_path / "cells.yaml").write_text(TRACK.replace("KINK", "orig-kink-cells"), encoding="utf-8")
    return tmp_path


def test_bundled_tiles_written_as_lanes_lay_the_bundled_cells(tmp_path):
    """sheetgen's own corners (one with an inside line), start (its left lane begins on the
    tile), finish (its lanes end at finish spaces), circuit start and finish (its lanes run on
    past their finish spaces) and narrowing (a lane runs diagonally into another) written in
    the lane form give the library's cells: places, headings, lanes, limits, cautions, start
    and finish marks, and inside lines. The narrowing's lanes keep their numbers past the
    merge, where the library numbers the two lanes left 1, 2 again."""
    (tmp_path / "lanes.yaml").write_text(BUNDLED_AS_LANES, encoding="utf-8")
    lanes = load_spec(str(tmp_path / "lanes.yaml")).model
    bundled = load_spec(str(BUNDLED / "tiles.yaml")).model
    for tile in ("sg-c60r", "sg-c120l", "sg-start2", "sg-finish2", "sg-grid2"):
        assert set(lanes.get(tile).cells) == set(bundled.get(tile).cells), tile
        assert lanes.get(tile).lines == bundled.get(tile).lines
    merged = {(c.hex, c.heading) for c in lanes.get("sg-n32").cells}
    assert merged == {(c.hex, c.heading) for c in bundled.get("sg-n32").cells}
    assert {c.hex: c.lane for c in lanes.get("sg-n32").cells}[Hex(2, 0)] == 2  # the library's lane 1
    assert lanes.get("sg-c60r").lane_names == ("outside", "inside")
    assert bundled.get("sg-c60r").lane_names == ()


LARGE_AS_LANES = """\
game: rallyman
kind: tiles
frame: large
name: large tiles as lanes
tiles:
  - id: sg-l-c60r2
    danger: orange
    leave: south-east
    lanes:
      - {name: outside, spaces: [., ., 4, 4 right, 4, ., .]}
      - {name: inside, spaces: [., ., 3, 3 right, 3, ., .]}
  - id: sg-l-s4
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., ., ., ., .]}
      - {name: b, spaces: [., ., ., ., ., ., .]}
      - {name: c, spaces: [., ., ., ., ., ., ., .]}
      - {name: d, spaces: [., ., ., ., ., ., .]}
"""


def test_large_tiles_written_as_lanes_lay_the_bundled_cells(tmp_path):
    """In the large frame (RM-16) the lanes enter on its rows for their count (four: one row
    left of the middle one and two to its right): sheetgen's large 60-degree right and
    four-lane straight written as lanes are the library's."""
    (tmp_path / "large.yaml").write_text(LARGE_AS_LANES, encoding="utf-8")
    lanes = load_spec(str(tmp_path / "large.yaml")).model
    bundled = load_spec(str(BUNDLED / "tiles_large.yaml")).model
    for tile in ("sg-l-c60r2", "sg-l-s4"):
        assert set(lanes.get(tile).cells) == set(bundled.get(tile).cells), tile


def test_an_original_tile_in_both_forms_gives_one_move_graph_and_one_par(run, lib):
    """orig-kink written as lanes and as hex cells: the same cells, the same graph of moves
    (nodes with their marks, edges with their kinds and inside lines) in a track, the same
    analysis (par, safe route)."""
    library = load_spec(str(lib / "lib.yaml")).model
    assert set(library.get("orig-kink").cells) == set(library.get("orig-kink-cells").cells)
    a, b = load_spec(str(lib / "lanes.yaml")).model, load_spec(str(lib / "cells.yaml")).model
    ga, gb = track_graph(a), track_graph(b)
    assert nx.utils.graphs_equal(ga, gb)
    # the kink at tile (1, 0), centred on cell (4, 0): the outside lane runs (3, 0), then its
    # corner spaces (4, 0), (4, 1) heading south-east; the inside lane's corner spaces are
    # (3, 1), (3, 2); the inside line lies on the diagonal move from (4, 0) into (3, 1)
    assert ga.has_edge(Hex(3, 0), Hex(4, 0)) and ga.has_edge(Hex(4, 0), Hex(4, 1))
    assert ga.has_edge(Hex(3, 1), Hex(3, 2)) and ga.has_edge(Hex(3, 1), Hex(4, 1))
    assert ga.edges[Hex(4, 0), Hex(3, 1)]["line_limit"] == 4
    out = [json.loads(run("analyze", str(lib / name), "--format", "json").stdout) for name in ("lanes.yaml", "cells.yaml")]
    assert out[0]["par"] == out[1]["par"] and out[0]["safe_route"] == out[1]["safe_route"]
    assert out[0]["par"]["expected_seconds"] > 0


def test_a_track_mixing_a_lane_form_tile_with_hex_tiles_validates_and_renders_its_lanes(run, lib):
    result = run("validate", str(lib / "lanes.yaml"))  # (--strict: the docs' walkthrough test)
    assert (result.exit_code, result.stdout.strip()) == (
        0,
        f"{lib / 'lanes.yaml'}: ok (Rallyman: GT track, 30 cells, 4 tiles, 1 corner)",
    )
    pdf = lib / "lanes.pdf"
    assert run("render", str(lib / "lanes.yaml"), "-o", str(pdf)).exit_code == 0
    pages = [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf.read_bytes())).pages]
    text = " ".join(p for p in pages if "at true scale" in p)
    assert "dashed grey line: a lane of a tile in the lane form (schematic), named at its start" in pages[0]  # the key
    # the tile's label says it is drawn schematically, and each lane's name is at its first space
    assert "tile orig-kink turned 0 orange (medium) lane form: schematic" in text
    assert "tile sg-s2 turned 1 yellow (low) lane form" not in text
    assert "outside" in text and "inside" in text


def test_a_lane_form_tile_placed_reverse_is_its_hex_form_reversed(lib):
    """Driven the other way (RM-18), the lane-form tile lays the reversed hex form's cells, and
    its lanes are named the other way round (its inside lane is now lane 1)."""
    placed = "game: rallyman\nvariant: gt\nname: r\nlibrary: lib.yaml\ntiles:\n  - {id: TILE, q: 0, r: 0, reverse: true}\n"
    (lib / "ra.yaml").write_text(placed.replace("TILE", "orig-kink"), encoding="utf-8")
    (lib / "rb.yaml").write_text(placed.replace("TILE", "orig-kink-cells"), encoding="utf-8")
    a, b = load_spec(str(lib / "ra.yaml")).model, load_spec(str(lib / "rb.yaml")).model
    assert set(a.cells) == set(b.cells) and nx.utils.graphs_equal(track_graph(a), track_graph(b))
    assert a.placements[0].lane_names == ("inside", "outside")
    # the inside lane's first corner space (-1, 2), driven backwards: heading north-west, lane 1
    cell = a.cell(Hex(-1, 2))
    assert (cell.heading, cell.lane, cell.limit, cell.caution) == (4, 1, 3, True)


def test_a_track_holding_a_lane_form_tile_exports_to_rekee_by_its_id(run, lib):
    out = run("export", "rekee", str(lib / "lanes.yaml"))
    assert out.exit_code == 0
    assert [t["id"] for t in json.loads(out.stdout)["tiles"]] == ["103a", "190a", "102a", "104a"]
    back = lib / "back.yaml"
    (lib / "t.json").write_text(out.stdout, encoding="utf-8")
    result = run("import", "rekee", str(lib / "t.json"), "--tiles", str(lib / "lib.yaml"), "--variant", "gt", "-o", str(back))
    assert result.exit_code == 0, result.stderr
    assert set(load_spec(str(back)).model.cells) == set(load_spec(str(lib / "lanes.yaml")).model.cells)


BAD = """\
game: rallyman
kind: tiles
name: bad lanes
tiles:
  - id: unknown-lane
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., .]}
      - {name: b, spaces: [., ., ., .]}
    beside: [[a 1, c 1]]
  - id: beside-itself
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., .]}
      - {name: b, spaces: [., ., ., .]}
    beside: [[a 2, a 2]]
  - id: merge-into-nothing
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., .]}
      - {name: b, spaces: [., ., ., .], into: a 9}
  - id: no-exit
    leave: north-east
    lanes:
      - {name: a, spaces: [., ., ., ., .]}
      - {name: b, spaces: [., ., ., .]}
  - id: off-tile
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., ., .]}
      - {name: b, spaces: [., ., ., .]}
  - id: bad-word
    leave: east
    lanes:
      - {name: a, spaces: [., ., 4 sharp, ., .]}
      - {name: b, spaces: [., ., ., .]}
  - id: miscounted
    leave: south-east
    lanes:
      - {name: outside, spaces: [., ., 4 right, 4, .]}
      - {name: inside, spaces: [., 3 right, 3]}
  - id: same-cell
    leave: east
    lanes:
      - {name: a, spaces: [., right, ., .]}
      - {name: b, spaces: [., ., ., .]}
  - id: twice
    leave: east
    lanes:
      - {name: a, spaces: [.]}
      - {name: a, spaces: [.]}
  - id: merge-behind
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., .]}
      - {name: b, spaces: [., ., .], into: a 1}
  - id: both-forms
    leave: east
    cells: [{q: 0, r: 0, heading: 0}]
    lanes: [{name: a, spaces: [.]}]
  - id: off-row
    leave: south-east
    lanes:
      - {name: a, spaces: [., ., ., right, .]}
  - id: four-lanes
    leave: east
    lanes: [{name: a, spaces: [.]}, {name: b, spaces: [.]}, {name: c, spaces: [.]}, {name: d, spaces: [.]}]
  - id: back-west
    leave: west
    lanes: [{name: a, spaces: [.]}]
  - id: no-leave
    lanes: [{name: a, spaces: [., ., ., ., .]}]
  - id: merge-itself
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., ., .], into: a 2}
  - id: not-neighbours
    leave: east
    lanes:
      - {name: a, spaces: [., ., ., .]}
      - {name: b, spaces: [., ., ., ., .]}
      - {name: c, spaces: [., ., ., .]}
    beside: [[a 1, c 1]]
  - id: scenery-lanes
    scenery: true
    lanes: [{name: a, spaces: [.]}]
"""


def test_every_malformed_lane_description_is_refused_at_its_place(run, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{path}:10:20: error: 'c 1': the tile has no lane 'c' (lanes: a, b)",
        f"{path}:16:14: error: 'a 2' is given beside itself: a pair is two spaces of neighbouring lanes",
        f"{path}:21:47: error: lane 'b' runs into 'a 9', a space that is not there: lane 'a' has 5 spaces",
        f"{path}:25:40: error: lane 'a' does not reach the north-east side: its last space (space 5, cell (2, 0)) heads "
        "east, onto the tile across its east side (count its spaces and bends again, say 'into: LANE N' where it "
        "merges, or mark its last space 'finish')",
        f"{path}:26:37: error: lane 'b' does not reach the north-east side: its last space (space 4, cell (1, 1)) heads "
        "east, onto the tile across its east side (count its spaces and bends again, say 'into: LANE N' where it "
        "merges, or mark its last space 'finish')",
        f"{path}:30:43: error: space 6 of lane 'a' falls off the tile at cell (3, 0): the lane has more spaces, or bends "
        "later, than the tile holds (count its spaces and bends again)",
        f"{path}:35:34: error: space 3 of lane 'a': unknown word 'sharp' (words: N (a corner limit, 1-6), N! (a limit in "
        "a caution triangle), left or right (the lane bends here), start, finish, pit, slide, water, jump N, a surface "
        "(asphalt, gravel, snow), a danger colour (yellow, orange, red), or . (a plain space))",
        f"{path}:41:45: error: space 3 of lane 'outside' and space 3 of lane 'inside' do not lie side by side as the "
        "lanes are laid (cells (0, 0) and (-1, 2)); spaces at the same count lie side by side unless 'beside' says "
        "which do: give the pairs of 'outside' and 'inside'",
        f"{path}:46:31: error: space 2 of lane 'b' lies on cell (-1, 1), where space 3 of lane 'a' lies already (count "
        "the spaces and bends of both lanes again)",
        f"{path}:51:16: error: lane 'a' is named twice (also lane 1)",
        f"{path}:56:44: error: lane 'b' runs into 'a 1', which is not ahead of its last space (space 3, cell (0, 1), "
        "heading east): space 1 of 'a' lies at cell (-2, 0), heading east (a merge leads straight or diagonally ahead "
        "into the other lane)",
        f"{path}:60:12: error: tile 'both-forms' gives both 'cells' and 'lanes': write it in one form (hex cells, or "
        "lanes)",
        f"{path}:64:44: error: lane 'a' leaves the south-east side on cell (1, 1), not on the row lane 1 of 1 crosses a "
        "side by (its last space on cell (0, 2) or just before it): the next tile's lanes would not continue it (count "
        "its spaces and bends again)",
        f"{path}:67:12: error: 4 lanes do not cross a standard tile's side (three rows at most, ruling RM-11): write the "
        "tile in a library of frame: large",
        f"{path}:69:12: error: the lanes enter by the west side; they leave by another one",
        f"{path}:72:12: error: say which side the lanes leave by: 'leave: east' (or another side); a lane that does not "
        "leave runs into another ('into: LANE N') or ends at a finish space",
        f"{path}:76:50: error: lane 'a' runs into itself: a merge joins two lanes",
        f"{path}:83:14: error: 'a 1' and 'c 1' cannot lie side by side: lanes 'a' and 'c' are not next to each other",
        f"{path}:86:12: error: tile 'scenery-lanes' is scenery (a tile with no road: 'scenery: true'): it has no 'lanes'",
    ]


def _walkthrough() -> dict[str, str]:
    """The blocks of docs/rallyman.md's walkthrough of the lane form, by their marker
    (`<!-- lane-walkthrough: NAME -->` before a fenced block)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "rallyman.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- lane-walkthrough: (\S+) -->\n```[a-z]*\n(.*?)```\n", text, re.S)
    return dict(blocks)


def test_the_docs_walkthrough_of_the_lane_form_runs_as_written(run, tmp_path, monkeypatch):
    """docs/rallyman.md walks a player through an original tile: its files, and the output of
    each command it shows, are what the commands give."""
    blocks = _walkthrough()
    assert set(blocks) == {"my_tile.yaml", "validate-tile", "miscounted", "bottleneck.yaml", "validate-track", "analyze"}
    monkeypatch.chdir(tmp_path)
    tile = blocks["my_tile.yaml"]
    (tmp_path / "my_tile.yaml").write_text(tile, encoding="utf-8")
    library = (BUNDLED / "tiles.yaml").read_text(encoding="utf-8") + tile.split("tiles:\n", 1)[1]
    (tmp_path / "my_tiles.yaml").write_text(library, encoding="utf-8")
    (tmp_path / "bottleneck.yaml").write_text(blocks["bottleneck.yaml"], encoding="utf-8")

    def shown(name: str) -> None:
        command, *output = blocks[name].splitlines()
        assert command.startswith("$ sheetgen ")
        result = run(*command.split()[2:])
        assert (result.stdout + result.stderr).splitlines() == output

    shown("validate-tile")
    shown("validate-track")
    shown("analyze")
    miscounted = tile.replace("spaces: [., ., 5, 5, .]", "spaces: [., ., 5, 5, ., .]")
    assert miscounted != tile
    (tmp_path / "my_tile.yaml").write_text(miscounted, encoding="utf-8")
    shown("miscounted")


_WORDS = [".", "3", "4!", "left", "right", "start", "finish", "pit", "jump 4", "5 right", "2! left", "sharp", 7]
_REFS = ["a 1", "a 3", "b 2", "b 9", "c 1", "z 1", "a", "a 0"]


@st.composite
def _straights(draw) -> list[dict]:
    """Straight lanes that cross a standard tile from west to east (each as long as its row:
    rows -1 and 1 hold 4 spaces, row 0 five), their spaces' marks drawn: a tile that loads."""
    count = draw(st.integers(1, 3))
    lengths = {1: [5], 2: [5, 4], 3: [4, 5, 4]}[count]
    words = st.sampled_from([".", "3", "4!", "start", "finish", "slide", "gravel", "red"])
    return [{"name": "abc"[i], "spaces": draw(st.lists(words, min_size=n, max_size=n))} for i, n in enumerate(lengths)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lanes=_straights()
    | st.lists(
        st.fixed_dictionaries(
            {"name": st.sampled_from(["a", "b", "c", "d"]), "spaces": st.lists(st.sampled_from(_WORDS), min_size=1, max_size=9)},
            optional={"into": st.sampled_from(_REFS), "begins": st.integers(1, 4)},
        ),
        min_size=1,
        max_size=4,
    ),
    leave=st.sampled_from(["east", None, "west", "south-east", "north-east", "north-west"]),
    beside=st.lists(st.lists(st.sampled_from(_REFS), min_size=2, max_size=2), max_size=3),
    lines=st.lists(st.lists(st.sampled_from(_REFS), min_size=2, max_size=2), max_size=2),
    large=st.booleans(),
)
def test_any_lane_description_loads_or_is_refused_with_located_problems(lanes, leave, beside, lines, large, tmp_path):
    """Whatever the lanes say, the library loads (and its tile lies on its frame, every lane
    numbered as listed) or is refused with SpecError problems located in the file: never
    another exception."""
    tile: dict = {"id": "t", "lanes": lanes}
    if leave is not None:
        tile["leave"] = leave
    if beside:
        tile["beside"] = beside
    if lines:
        tile["lines"] = [{"between": pair, "limit": 2} for pair in lines]
    data = {"game": "rallyman", "kind": "tiles", "name": "n", "tiles": [tile]}
    if large:
        data["frame"] = "large"
    path = tmp_path / "any.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        library = load_spec(str(path)).model
    except SpecError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.location.file == str(path) and problem.location.line >= 1
            assert "\n" not in problem.message
        return
    (laid,) = library.tiles
    frame = "large" if large else "standard"
    assert all(in_frame(c.hex, frame) for c in laid.cells)
    assert {c.lane for c in laid.cells} == set(range(1, len(lanes) + 1))
    assert len(laid.cells) == sum(len(lane["spaces"]) for lane in lanes)
