"""Rallyman specs: the three ways to write a track, the tile library, every refused input at
its FILE:LINE:COL, and every graph check with a small track that fails it."""

from __future__ import annotations

import json
import shutil

import jsonschema
import pytest

from conftest import SPECS
from sheetgen.games.rallyman.graph import track_graph
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.registry import load_spec
from sheetgen.yamlsrc import load_file

RALLYMAN = SPECS / "rallyman"
LIBRARIES = [RALLYMAN / "tiles.yaml", RALLYMAN / "tiles_large.yaml"]
TRACKS = sorted(p for p in RALLYMAN.glob("*.yaml") if p not in LIBRARIES)
HEAD = "game: rallyman\nvariant: {variant}\nname: T\n"


@pytest.fixture
def folder(tmp_path):
    """A folder holding a copy of the bundled tile library."""
    shutil.copy(RALLYMAN / "tiles.yaml", tmp_path / "tiles.yaml")
    return tmp_path


def errors(run, path, *options):
    result = run("validate", *options, str(path))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return result.stderr.splitlines()


def track(folder, body, variant="gt", name="t.yaml"):
    path = folder / name
    path.write_text(HEAD.format(variant=variant) + body, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- bundled


def test_bundled_tracks_pass_the_strict_checks(run):
    result = run("validate", "--strict", *map(str, TRACKS), *map(str, LIBRARIES))
    assert result.exit_code == 0, result.output
    assert "tiles.yaml: ok (Rallyman: tile library, 26 tiles)" in result.stdout
    assert "tiles_large.yaml: ok (Rallyman: tile library, 22 tiles)" in result.stdout
    variants = [load_spec(p).model.variant.value for p in TRACKS]
    assert variants.count("gt") >= 2 and variants.count("dirt") >= 2


def test_one_bundled_dirt_track_uses_every_dirt_feature():
    stage = load_spec(RALLYMAN / "dirt_forest_stage.yaml").model
    cells = stage.cells
    assert any(c.slide for c in cells) and any(c.water for c in cells)
    assert any(c.shortcut is not None for c in cells) and any(c.jump is not None for c in cells)
    assert any(c.caution for c in cells)
    assert {c.surface.value for c in cells} >= {"gravel", "snow"}
    # inside and outside lanes of its corners have limits of their own
    assert any(len({limit for _lane, limit in corner.limits}) == 2 for corner in stage.corners())


def test_bundled_tracks_use_only_sheetgens_own_tiles():
    for path in LIBRARIES:
        assert all(t.id.startswith("sg-") for t in load_spec(path).model.tiles)
    for path in TRACKS:
        assert all(p.tile.startswith("sg-") for p in load_spec(path).model.placements)


def test_a_track_records_its_library_as_an_input():
    spec = load_spec(RALLYMAN / "gt_hexagon_ring.yaml")
    assert spec.sources == (str(RALLYMAN / "gt_hexagon_ring.yaml"), str(RALLYMAN / "tiles.yaml"))


def test_schema_covers_tracks_and_libraries(run):
    schema = json.loads(run("schema", "rallyman").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(RALLYMAN.glob("*.yaml")):
        assert validator.is_valid(load_file(path).data), path
    compact = load_file(RALLYMAN / "compact_hillclimb.yaml").data
    assert "path" in compact and validator.is_valid(compact)
    assert not validator.is_valid(dict(compact, variant="rx"))


# --------------------------------------------------------------------------- the compact form

COMPACT = """\
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments: straight 2, corner right limit 2/3, straight 1
"""

# Worked out by hand (docs/rallyman.md, "the compact form"): lane 2 is the inside lane of the
# right corner, on the ring of radius 1 round the pivot (1, 2) = (1, 1) + east - north-east;
# its ring corner is (2, 1), lane 1's (at radius 2) is (3, 0), two cells ahead of its last
# straight cell (1, 0), so lane 1 runs on through (2, 0). Each lane then takes one more cell
# south-east (the corner's last space) and the final straight one more.
EXPLICIT = """\
cells:
  - {q: 0, r: 0, heading: 0, lane: 1, start: true}
  - {q: 1, r: 0, heading: 0, lane: 1}
  - {q: 2, r: 0, heading: 0, lane: 1}
  - {q: 3, r: 0, heading: 1, lane: 1, limit: 3}
  - {q: 3, r: 1, heading: 1, lane: 1, limit: 3}
  - {q: 3, r: 2, heading: 1, lane: 1, finish: true}
  - {q: 0, r: 1, heading: 0, lane: 2, start: true}
  - {q: 1, r: 1, heading: 0, lane: 2}
  - {q: 2, r: 1, heading: 1, lane: 2, limit: 2}
  - {q: 2, r: 2, heading: 1, lane: 2, limit: 2}
  - {q: 2, r: 3, heading: 1, lane: 2, finish: true}
"""


def test_the_compact_form_lays_out_its_explicit_equivalent(folder):
    laid = load_spec(track(folder, COMPACT, name="compact.yaml")).model
    written = load_spec(track(folder, EXPLICIT, name="explicit.yaml")).model
    assert sorted(laid.cells, key=lambda c: c.hex) == sorted(written.cells, key=lambda c: c.hex)
    (corner,) = laid.corners()
    assert (corner.turn, corner.degrees, corner.limits) == ("right", 60, ((1, 3), (2, 2)))


def test_a_compact_hairpin_turns_round_and_its_inside_lane_is_shorter(folder):
    hairpin = load_spec(track(folder, "path:\n  lanes: 2\n  segments: [straight 2, corner left 180 limit 1/2, straight 2]\n")).model
    (corner,) = hairpin.corners()
    assert (corner.turn, corner.degrees) == ("left", 180)
    per_lane = {lane: sum(1 for c in corner.cells if c.lane == lane) for lane in (1, 2)}
    assert per_lane == {1: 4, 2: 6}  # the ring of radius 1 and 2: 1 + 1 + 1 + 1 and 1 + 2 + 2 + 1
    assert {c.heading for c in hairpin.finishes} == {3}  # heading west: turned round
    assert track_graph(hairpin).number_of_nodes() == len(hairpin.cells)


def test_bundled_compact_track_passes(run):
    result = run("validate", "--strict", str(RALLYMAN / "compact_hillclimb.yaml"))
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- refused input

REFUSED = [
    ("path segment", "path:\n  segments: straight 2, corner rihgt limit 3, straight 1\n", ["5:13: error: path segment 2: 'corner rihgt limit 3': a corner turns 'left' or 'right', e.g. 'corner right limit 3'"]),
    ("path list item", "path:\n  segments: [straight 2, straight 0]\n", ["5:26: error: path segment 2: 'straight 0': a straight is 1 to 40 cells long"]),
    ("limits for lanes", "path:\n  lanes: 3\n  segments: straight 2, corner left limit 2/3\n", ["6:13: error: path: segment 2: 2 limits for 3 lanes (give one limit, or one per lane from the inside lane out)"]),
    ("crossing path", "path:\n  lanes: 1\n  segments: corner right 180 limit 2, corner right 180 limit 2, corner right 180 limit 2\n", ["6:13: error: path: segment 3 comes back onto cell (0, 0) (laid before): the path crosses itself"]),
    # a layout problem that names its segment is at that segment when the segments are a list
    ("limits for lanes, listed", "path:\n  lanes: 2\n  from: {q: 0, r: 0, heading: 0}\n  segments:\n    - straight 2\n    - corner left limit 3/4/5\n", ["9:7: error: path: segment 2: 3 limits for 2 lanes (give one limit, or one per lane from the inside lane out)"]),
    ("crossing path, listed", "path:\n  lanes: 1\n  segments: [corner right 180 limit 2, corner right 180 limit 2, corner right 180 limit 2]\n", ["6:66: error: path: segment 3 comes back onto cell (0, 0) (laid before): the path crosses itself"]),
    ("path over tiles, listed", "library: tiles.yaml\ntiles:\n  - {id: sg-s2, q: 1, r: 0}\npath:\n  segments: [straight 2, straight 2]\n", ["8:26: error: the path lays cell (2, 0), which tile 'sg-s2' at (1, 0) lays too (and 3 more cells)"]),
    # a word that sets what another already set: refused, not the last one kept
    ("two danger colours", "path:\n  segments: [straight 2, corner left 60 limit 3/4 orange red]\n", ["5:26: error: path segment 2: 'corner left 60 limit 3/4 orange red': two danger colours, 'orange' and 'red': give one"]),
    ("two surfaces", "path:\n  segments: straight 3 gravel asphalt\n", ["5:13: error: path segment 1: 'straight 3 gravel asphalt': two surfaces, 'gravel' and 'asphalt': give one"]),
    ("radius twice", "path:\n  segments: [corner left limit 3 radius 2 radius 5]\n", ["5:14: error: path segment 1: 'corner left limit 3 radius 2 radius 5': 'radius' is given twice"]),
    ("pit twice", "path:\n  segments: [straight 3 pit pit]\n", ["5:14: error: path segment 1: 'straight 3 pit pit': 'pit' is given twice"]),
    ("caution twice", "path:\n  segments: [corner right limit 3 caution caution]\n", ["5:14: error: path segment 1: 'corner right limit 3 caution caution': 'caution' is given twice"]),
    ("unknown tile", "library: tiles.yaml\ntiles:\n  - {id: sg-start2, q: 0, r: 0}\n  - {id: sg-s22, q: 1, r: 0}\n", ["7:10: error: tile 'sg-s22' is not in the library 'tiles.yaml', did you mean 'sg-s2'?"]),
    ("dirt tile on gt", "library: tiles.yaml\ntiles:\n  - {id: sg-d-jump, q: 0, r: 0}\n", ["6:10: error: tile 'sg-d-jump' has DIRT spaces (jump 3 at (0, 0)); this is a GT track"]),
    ("rotation", "library: tiles.yaml\ntiles:\n  - {id: sg-s2, q: 0, r: 0, rotation: 6}\n", ["6:39: error: 'rotation' must be at most 5, got 6"]),
    # a library that cannot be read is refused at the track's `library:` value, not in the missing file
    ("missing library", "library: missing.yaml\ntiles:\n  - {id: sg-s2, q: 0, r: 0}\n", ["4:10: error: library 'missing.yaml': cannot read file: No such file or directory"]),
    ("library a folder", "library: .\ntiles:\n  - {id: sg-s2, q: 0, r: 0}\n", ["4:10: error: library '.': is a directory, not a spec file"]),
    ("tiles without library", "tiles:\n  - {id: sg-s2, q: 0, r: 0}\n", ["4:1: error: tiles are placed from a library: give 'library: FILE' (a file of kind: tiles)"]),
    ("two tiles at one place", "library: tiles.yaml\ntiles:\n  - {id: sg-start2, q: 0, r: 0}\n  - {id: sg-finish2, q: 0, r: 0}\n", ["7:5: error: two tiles at (0, 0): tile 1 is there already"]),
    ("cell under a tile", "library: tiles.yaml\ntiles:\n  - {id: sg-start2, q: 0, r: 0}\ncells:\n  - {q: 1, r: 0, heading: 0}\n", ["8:5: error: cell (1, 0) is laid by tile 'sg-start2' at (0, 0) already; say 'replace: true' to replace it"]),
    ("half cells disagree", "library: tiles.yaml\ntiles:\n  - {id: sg-start2, q: 0, r: 0}\n  - {id: sg-s2, q: 1, r: 0, rotation: 3}\n", ["7:5: error: tile 'sg-s2' at (1, 0) and tile 'sg-start2' at (0, 0) disagree on their shared half cell (2, 0) (heading 0 and 3)"]),
    ("path over tiles", "library: tiles.yaml\ntiles:\n  - {id: sg-s2, q: 0, r: 0}\npath:\n  segments: straight 2\n", ["8:13: error: the path lays cell (0, 0), which tile 'sg-s2' at (0, 0) lays too (and 3 more cells)"]),
    ("limit and gear ranges", "cells:\n  - {q: 0, r: 0, heading: 0, start: true, limit: 0}\n  - {q: 1, r: 0, heading: 6, jump: 7}\n", ["5:50: error: 'limit' must be at least 1, got 0", "6:27: error: 'heading' must be at most 5, got 6", "6:36: error: 'jump' must be at most 6, got 7"]),
    ("dirt cell on gt", "cells:\n  - {q: 0, r: 0, heading: 0, water: true}\n", ["5:37: error: 'water' is a Rallyman DIRT feature; this is a GT track"]),
    ("line between far cells", "cells:\n  - {q: 0, r: 0, heading: 0}\n  - {q: 2, r: 0, heading: 0}\nlines:\n  - {between: [[0, 0], [2, 0]], limit: 2}\n", ["8:15: error: an inside line runs between neighbouring cells; (0, 0) and (2, 0) are 2 apart"]),
    ("line off the track", "cells:\n  - {q: 0, r: 0, heading: 0}\nlines:\n  - {between: [[0, 0], [1, 0]], caution: true}\n", ["7:15: error: an inside line runs between two cells of the track; (1, 0) is not one"]),
    ("caution without a limit", "cells:\n  - {q: 0, r: 0, heading: 0, caution: true}\n", ["5:39: error: 'caution' marks a corner limit: give the cell a 'limit'"]),
    ("nothing laid", "laps: 1\n", ["1:1: error: a track needs 'tiles', 'path' or 'cells' (or several of them)"]),
    ("unknown key", "cells:\n  - {q: 0, r: 0, heading: 0, lmit: 3}\n", ["5:30: error: unknown key 'lmit', did you mean 'limit'?"]),
    # digits that are not ASCII digits ('²' passes str.isdigit(), not int()): refused as words
    ("superscript length", "path:\n  segments: straight ³\n", ["5:13: error: path segment 1: 'straight ³': a straight needs its length in cells, e.g. 'straight 3'"]),
    (
        "superscript degrees",
        "path:\n  segments: corner left ² limit 3\n",
        ["5:13: error: path segment 1: 'corner left ² limit 3': a corner needs its limit, e.g. 'limit 3' or 'limit 3/4' (inside lane first)"],
    ),
    ("superscript limit", "path:\n  segments: [corner left limit 3/²]\n", ["5:14: error: path segment 1: 'corner left limit 3/²': the limit '3/²' is not a number or numbers joined by '/'"]),
    ("superscript radius", "path:\n  segments: corner left limit 3 radius ²\n", ["5:13: error: path segment 1: 'corner left limit 3 radius ²': 'radius' needs a number after it"]),
    ("superscript jump", "path:\n  segments: straight 3 jump ²\n", ["5:13: error: path segment 1: 'straight 3 jump ²': 'jump' needs a number after it"]),
    ("a length past int()", "path:\n  segments: straight " + "9" * 5000 + "\n", ["5:13: error: path segment 1: 'straight " + "9" * 5000 + "': a straight is 1 to 40 cells long"]),
    # the compact path's cells have the checks of explicit cells, at their segment
    (
        "dirt marks on a gt path",
        "path:\n  segments: [straight 2, straight 1 jump 3 slide water]\n",
        [
            "5:26: error: path segment 2: 'straight 1 jump 3 slide water': 'jump' is a Rallyman DIRT feature; this is a GT track",
            "5:26: error: path segment 2: 'straight 1 jump 3 slide water': 'slide' is a Rallyman DIRT feature; this is a GT track",
            "5:26: error: path segment 2: 'straight 1 jump 3 slide water': 'water' is a Rallyman DIRT feature; this is a GT track",
        ],
    ),
    ("pit in a corner", "path:\n  segments: straight 2, corner left limit 3 pit\n", ["5:13: error: path segment 2: 'corner left limit 3 pit': a pit-lane edge space is not a corner space (it has a limit)"]),
    (
        "inside line given twice",
        "cells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0, finish: true}\nlines:\n  - {between: [[0, 0], [1, 0]], limit: 2}\n  - {between: [[1, 0], [0, 0]], limit: 3}\n",
        ["9:5: error: an inside line between (1, 0) and (0, 0) is given twice (also line 1 of 'lines')"],
    ),
    # a token's number past what a float holds (it was an OverflowError)
    (
        "token q overflow",
        "library: tiles.yaml\ntiles:\n  - {id: sg-s2, q: 0, r: 0, tokens: [{id: x, q: 1" + "0" * 309 + ", r: 0, dir: 0}]}\n",
        ["6:49: error: 'q' must be at most 1000, got 10000000000000000000... (310 digits)"],
    ),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_tracks(run, folder, body, expected):
    path = track(folder, body)
    assert errors(run, path) == [f"{path}:{line}" for line in expected]


def test_a_gt_pit_space_on_dirt_and_a_shortcut_on_the_road(run, folder):
    path = track(folder, "cells:\n  - {q: 0, r: 0, heading: 0, pit: true}\n  - {q: 1, r: 0, heading: 0, shortcut: 2}\n", variant="dirt")
    assert errors(run, path) == [
        f"{path}:5:35: error: 'pit' is a Rallyman GT feature; this is a DIRT track",
        f"{path}:6:40: error: a shortcut space is off the road: give it 'lane: 0'",
    ]


def test_a_pit_on_a_dirt_path_is_refused_at_its_segment(run, folder):
    path = track(folder, "path:\n  segments:\n    - straight 2 gravel\n    - straight 3 pit\n", variant="dirt")
    assert errors(run, path) == [f"{path}:7:7: error: path segment 2: 'straight 3 pit': 'pit' is a Rallyman GT feature; this is a DIRT track"]


def test_a_dirt_stage_is_driven_once(run, folder):
    path = track(folder, "laps: 10\npath:\n  segments: straight 3\n", variant="dirt")
    assert errors(run, path) == [f"{path}:4:7: error: a Rallyman DIRT stage is driven once, from its start to its finish: 'laps' must be 1 on a DIRT track, got 10"]
    assert run("validate", str(track(folder, "laps: 1\npath:\n  segments: straight 3\n", variant="dirt"))).exit_code == 0


def test_a_library_problem_is_reported_in_the_library(run, folder):
    (folder / "mine.yaml").write_text(
        "game: rallyman\nkind: tiles\nname: mine\ntiles:\n  - id: 117a\n    cells:\n      - {q: 3, r: 0, heading: 0}\n", encoding="utf-8"
    )
    path = track(folder, "library: mine.yaml\ntiles:\n  - {id: 117a, q: 0, r: 0}\n")
    assert errors(run, path) == [f"{folder / 'mine.yaml'}:7:9: error: cell (3, 0) is off the tile: a tile's cells are within 2 steps of its centre (0, 0)"]


def test_an_inside_line_given_twice_in_a_tile(run, folder):
    (folder / "mine.yaml").write_text(
        "game: rallyman\nkind: tiles\nname: mine\ntiles:\n  - id: t1\n    cells:\n      - {q: 0, r: 0, heading: 0}\n      - {q: 1, r: 0, heading: 0}\n"
        "    lines:\n      - {between: [[0, 0], [1, 0]], limit: 2}\n      - {between: [[0, 0], [1, 0]], caution: true}\n",
        encoding="utf-8",
    )
    assert errors(run, folder / "mine.yaml") == [f"{folder / 'mine.yaml'}:11:9: error: an inside line between (0, 0) and (1, 0) is given twice in tile 't1' (also its line 1)"]


def test_a_library_of_rekee_ids_loads(folder):
    (folder / "box.yaml").write_text(
        "game: rallyman\nkind: tiles\nname: my box\ntiles:\n  - id: 205a-2\n    cells:\n      - {q: 0, r: 0, heading: 0, start: true}\n", encoding="utf-8"
    )
    assert load_spec(folder / "box.yaml").model.get("205a-2").cells[0].hex == Hex(0, 0)


# --------------------------------------------------------------------------- graph checks

STRICT = [
    (
        "unfinishable",
        "cells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0}\n  - {q: 5, r: 0, heading: 0}\n  - {q: 6, r: 0, heading: 0, finish: true}\n",
        [
            "6:5: error: the track cannot be finished: no finish space is reached from the start; the road stops at cell (1, 0)",
            "7:5: error: cell (5, 0) cannot be reached from the start",
            "8:5: error: cell (6, 0) cannot be reached from the start",
        ],
    ),
    (
        "dead end",
        "cells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0}\n  - {q: 2, r: 0, heading: 0, finish: true}\n  - {q: 1, r: 1, heading: 1, lane: 2}\n",
        ["8:5: error: dead end: cell (1, 1) (heading south-east) has no forward move and is not a finish space"],
    ),
    ("unreachable", "cells:\n  - {q: -1, r: 0, heading: 0}\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0, finish: true}\n", ["5:5: error: cell (-1, 0) cannot be reached from the start"]),
    ("no start", "cells:\n  - {q: 0, r: 0, heading: 0}\n  - {q: 1, r: 0, heading: 0, finish: true}\n", ["5:3: error: the track has no starting space: mark the cells behind the start line 'start: true'"]),
    (
        "tiles do not meet",
        "library: tiles.yaml\ntiles:\n  - {id: sg-start2, q: 0, r: 0}\n  - {id: sg-s3, q: 1, r: 0}\n  - {id: sg-finish2, q: 2, r: 0}\n",
        [
            "7:5: error: tiles do not meet: tile 'sg-start2' at (0, 0) has 2 lanes across its east side, tile 'sg-s3' at (1, 0) has 3 across it",
            "8:5: error: tiles do not meet: tile 'sg-s3' at (1, 0) has 3 lanes across its east side, tile 'sg-finish2' at (2, 0) has 2 across it",
        ],
    ),
    (
        "inside line no move crosses",
        "cells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0, finish: true}\n  - {q: 0, r: 1, heading: 3, lane: 2}\nlines:\n  - {between: [[0, 0], [0, 1]], limit: 2}\n",
        ["5:5: error: the inside line between (0, 0) and (0, 1) is crossed by no forward move", "7:5: error: cell (0, 1) cannot be reached from the start"],
    ),
    (
        "start and finish on one cell",
        "cells:\n  - {q: 0, r: 0, heading: 0, start: true, finish: true}\n",
        ["5:5: error: cell (0, 0) is both a starting space and a finish space: a car would finish before it moves (a stage needs at least one move from the start to the finish, a circuit a loop back to its start)"],
    ),
    (
        "circuit of one start-finish cell",
        "laps: 3\ncells:\n  - {q: 0, r: 0, heading: 0, start: true, finish: true}\n",
        [
            "6:5: error: a track of 3 laps is a circuit, but no move leads from its finish (e.g. (0, 0)) back to its start",
            "6:5: error: cell (0, 0) is both a starting space and a finish space: a car would finish before it moves (a stage needs at least one move from the start to the finish, a circuit a loop back to its start)",
        ],
    ),
    ("circuit", "laps: 2\ncells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0, finish: true}\n", ["7:5: error: a track of 2 laps is a circuit, but no move leads from its finish (e.g. (1, 0)) back to its start"]),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in STRICT], ids=[c[0] for c in STRICT])
def test_strict_checks(run, folder, body, expected):
    path = track(folder, body)
    assert run("validate", str(path)).exit_code == 0  # valid, but unplayable
    assert errors(run, path, "--strict") == [f"{path}:{line}" for line in expected]
    assert run("build", "-o", str(folder / "out"), str(path)).exit_code == 1


def test_a_dirt_stage_of_one_start_and_finish_cell(run, folder):
    path = track(folder, "cells:\n  - {q: 0, r: 0, heading: 0, start: true, finish: true}\n", variant="dirt")
    assert errors(run, path, "--strict") == [
        f"{path}:5:5: error: cell (0, 0) is both a starting space and a finish space: a car would finish before it moves (a stage needs at least one move from the start to the finish, a circuit a loop back to its start)"
    ]
    assert run("build", "-o", str(folder / "out"), str(path)).exit_code == 1
    assert not (folder / "out").exists()


def test_a_jump_that_lands_nowhere(run, folder):
    path = track(folder, "cells:\n  - {q: 0, r: 0, heading: 0, start: true}\n  - {q: 1, r: 0, heading: 0, jump: 3}\n  - {q: 2, r: 0, heading: 0, finish: true}\n", variant="dirt")
    assert errors(run, path, "--strict") == [f"{path}:6:5: error: the jump at cell (1, 0) (gear 3) lands nowhere: no cell two moves ahead"]


def test_the_summary_counts_in_the_singular(run, write):
    path = write("game: rallyman\nvariant: gt\nname: One\ncells:\n  - {q: 0, r: 0, heading: 0, start: true, finish: true}\n")
    assert run("validate", path).stdout == f"{path}: ok (Rallyman: GT track, 1 cell, 0 corners)\n"
