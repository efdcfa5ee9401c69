"""Tiles driven the other way (`reverse: true`, ruling RM-18): the cells of the tile with
their headings turned round and their lanes numbered from the other side; Rekee's files hold
no direction, so `import rekee` turns a tile round where the track connects only that way,
and `export rekee` says it writes without it.

The tiles are sheetgen's originals (track_specs/rallyman/tiles.yaml) and a library of
one-lane tiles made here, whose road runs along the row through the tile's centre (so that
turning a tile round lays its road on the same cells)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sheetgen.errors import SpecError
from sheetgen.games.rallyman.graph import choose_reversals
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.registry import load_spec

BUNDLED = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"

#: one-lane tiles standing for made-up Rekee ids: a start, a straight, a 60-degree right and
#: a finish, every road entering by the west side
ONE_LANE = """\
game: rallyman
kind: tiles
name: one lane
tiles:
  - id: t-start
    rekee: "102a"
    cells:
      - {q: -1, r: 0, heading: 0, start: true}
      - {q: 0, r: 0, heading: 0}
      - {q: 1, r: 0, heading: 0}
      - {q: 2, r: 0, heading: 0}
  - id: t-s
    rekee: "103a"
    cells:
      - {q: -2, r: 0, heading: 0}
      - {q: -1, r: 0, heading: 0}
      - {q: 0, r: 0, heading: 0}
      - {q: 1, r: 0, heading: 0}
      - {q: 2, r: 0, heading: 0}
  - id: t-r60
    rekee: "104a"
    cells:
      - {q: -2, r: 0, heading: 0}
      - {q: -1, r: 0, heading: 0}
      - {q: 0, r: 0, heading: 1, limit: 3}
      - {q: 0, r: 1, heading: 1, limit: 3}
      - {q: 0, r: 2, heading: 1}
  - id: t-finish
    rekee: "105a"
    cells:
      - {q: -2, r: 0, heading: 0}
      - {q: -1, r: 0, heading: 0}
      - {q: 0, r: 0, heading: 0}
      - {q: 1, r: 0, heading: 0, finish: true}
"""


@pytest.fixture
def lib(tmp_path):
    shutil.copy(BUNDLED / "tiles.yaml", tmp_path / "tiles.yaml")
    (tmp_path / "one.yaml").write_text(ONE_LANE, encoding="utf-8")
    return tmp_path


def spec(lib: Path, tiles: str, library: str = "tiles.yaml", name: str = "t.yaml") -> Path:
    path = lib / name
    path.write_text(f"game: rallyman\nvariant: gt\nname: reversed\nlibrary: {library}\ntiles:\n{tiles}", encoding="utf-8")
    return path


def test_a_reversed_tile_turns_every_heading_round_and_numbers_its_lanes_from_the_other_side(lib):
    """sg-c60r at tile (0, 0): lane 1 runs (-2, 0), (-1, 0), then the corner spaces (0, 0), (0, 1)
    heading south-east (limit 4) to (0, 2); lane 2 runs (-2, 1), then (-1, 1), (-1, 2) (limit 3).
    Reversed, the same cells head the other way and lane 2 (the inside of the right turn)
    is lane 1, the leftmost as it is now driven; every limit stays on its space."""
    forward = load_spec(spec(lib, "  - {id: sg-c60r, q: 0, r: 0}\n")).model
    reverse = load_spec(spec(lib, "  - {id: sg-c60r, q: 0, r: 0, reverse: true}\n", name="r.yaml")).model
    before = {c.hex: (c.heading, c.lane, c.limit) for c in forward.cells}
    after = {c.hex: (c.heading, c.lane, c.limit) for c in reverse.cells}
    assert after == {
        Hex(-2, 0): (3, 2, None),
        Hex(-1, 0): (3, 2, None),
        Hex(0, 0): (4, 2, 4),
        Hex(0, 1): (4, 2, 4),
        Hex(0, 2): (4, 2, None),
        Hex(-2, 1): (3, 1, None),
        Hex(-1, 1): (4, 1, 3),
        Hex(-1, 2): (4, 1, 3),
    }
    assert {h: ((d + 3) % 6, 3 - lane, limit) for h, (d, lane, limit) in before.items()} == after
    assert reverse.placements[0].reverse and not forward.placements[0].reverse


def test_the_moves_of_a_reversed_straight_are_its_moves_backwards(lib):
    """sg-s2: 7 moves straight ahead (4 in lane 1, 3 in lane 2) and 8 diagonal ones."""
    forward = load_spec(spec(lib, "  - {id: sg-s2, q: 0, r: 0}\n")).model
    reverse = load_spec(spec(lib, "  - {id: sg-s2, q: 0, r: 0, reverse: true}\n", name="r.yaml")).model
    ahead = {(m.frm, m.to) for c in forward.cells for m in forward.moves(c.hex)}
    back = {(m.frm, m.to) for c in reverse.cells for m in reverse.moves(c.hex)}
    assert len(ahead) == 15 and back == {(b, a) for a, b in ahead}


def test_a_right_corner_driven_the_other_way_is_a_left_corner(run, lib):
    """t-r60 turned twice and reversed: entered by its west side (its frame's south-east half
    cell (0, 2), now at (-2, 0)), it turns 60 degrees left to leave by the north-east side."""
    path = spec(
        lib,
        "  - {id: t-start, q: 0, r: 0}\n  - {id: t-r60, q: 1, r: 0, rotation: 2, reverse: true}\n"
        "  - {id: t-s, q: 2, r: -1, rotation: 5}\n  - {id: t-finish, q: 3, r: -2, rotation: 5}\n",
        "one.yaml",
    )
    track = load_spec(path).model
    ((turn, degrees, limits),) = [(c.turn, c.degrees, c.limits) for c in track.corners()]
    assert (turn, degrees, limits) == ("left", 60, ((1, 3),))
    assert run("validate", "--strict", str(path)).exit_code == 0
    # and not reversed, the road runs into the start tile: the tiles disagree on their half cell
    with pytest.raises(SpecError, match=r"disagree on their shared half cell \(2, 0\) \(heading 0 and 3\)"):
        load_spec(spec(lib, "  - {id: t-start, q: 0, r: 0}\n  - {id: t-r60, q: 1, r: 0, rotation: 2}\n", "one.yaml", "f.yaml"))


def test_reverse_is_refused_on_a_scenery_tile(run, lib):
    (lib / "scenery.yaml").write_text(ONE_LANE + "  - {id: podium, scenery: true}\n", encoding="utf-8")
    path = spec(lib, "  - {id: t-start, q: 0, r: 0}\n  - {id: podium, q: 0, r: 1, reverse: true}\n", "scenery.yaml")
    result = run("validate", str(path))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{path}:7:39: error: tile 'podium' is scenery (no road): there is no direction of travel to turn round\n",
    )


# --------------------------------------------------------------------------- Rekee


def rekee_file(path: Path, tiles: list[tuple[str, int, int, int]]) -> Path:
    path.write_text(
        json.dumps({"title": "reversed", "tiles": [{"q": q, "r": r, "id": i, "dir": d} for i, q, r, d in tiles]}),
        encoding="utf-8",
    )
    return path


def test_import_turns_round_the_tiles_the_track_connects_through_only_reversed(run, lib):
    """A start heading east, then a right corner turned twice (Rekee's tiles have no direction:
    as laid it would be driven from its north-east side round to the west, into the start),
    a straight and the finish heading north-east: the corner and the straight (laid turned
    twice, heading south-west) are driven reversed; the start and finish stay as laid."""
    file = rekee_file(lib / "a.json", [("102a", 0, 0, 0), ("104a", 1, 0, 2), ("103a", 2, -1, 2), ("105a", 3, -2, 5)])
    out = lib / "a.yaml"
    result = run("import", "rekee", str(file), "--tiles", str(lib / "one.yaml"), "--variant", "gt", "-o", str(out))
    assert (result.exit_code, result.stderr) == (0, "")
    assert out.read_text(encoding="utf-8").splitlines()[-4:] == [
        '  - {id: "t-start", q: 0, r: 0, rotation: 0}',
        '  - {id: "t-r60", q: 1, r: 0, rotation: 2, reverse: true}',
        '  - {id: "t-s", q: 2, r: -1, rotation: 2, reverse: true}',
        '  - {id: "t-finish", q: 3, r: -2, rotation: 5}',
    ]
    assert run("validate", "--strict", str(out)).exit_code == 0
    # the export writes the tiles without their direction and says so, a line a tile
    exported = lib / "b.json"
    result = run("export", "rekee", str(out), "-o", str(exported))
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        f"{out}:8:53: warning: tile 't-r60' at (1, 0) is driven reversed: Rekee's files have no place for a tile's "
        "direction of travel, written without it (import turns a tile round again where the track connects only that "
        "way)",
        f"{out}:9:52: warning: tile 't-s' at (2, -1) is driven reversed: Rekee's files have no place for a tile's "
        "direction of travel, written without it (import turns a tile round again where the track connects only that "
        "way)",
    ]
    assert json.loads(exported.read_text(encoding="utf-8")) == json.loads(file.read_text(encoding="utf-8"))
    again = lib / "again.yaml"
    assert run("import", "rekee", str(exported), "--tiles", str(lib / "one.yaml"), "--variant", "gt", "-o", str(again)).exit_code == 0
    assert again.read_text(encoding="utf-8").splitlines()[1:] == out.read_text(encoding="utf-8").splitlines()[1:]


def test_which_tiles_are_turned_round(lib):
    """`choose_reversals` on the one-lane tiles, by the sides two tiles share."""
    library = load_spec(lib / "one.yaml").model
    start, straight, finish = (library.get(i) for i in ("t-start", "t-s", "t-finish"))
    frame = library.frame
    # a road that connects as laid turns nothing round
    assert choose_reversals([(start, 0, 0, 0), (straight, 1, 0, 0), (finish, 2, 0, 0)], frame) == frozenset()
    # a straight laid heading west between two heading east: it alone (the fewest)
    assert choose_reversals([(start, 0, 0, 0), (straight, 1, 0, 3), (finish, 2, 0, 0)], frame) == {1}
    # three straights heading west after a start heading east: the start holds a starting
    # space, and the three, more tiles, are turned round rather than it
    row = [(start, 0, 0, 0)] + [(straight, q, 0, 3) for q in (1, 2, 3)]
    assert choose_reversals(row, frame) == {1, 2, 3}
    # two straights facing each other and nothing else: one is turned round, the second
    # (the first in the file stays as laid)
    assert choose_reversals([(straight, 0, 0, 0), (straight, 1, 0, 3)], frame) == {1}
    # two starts facing each other across a straight: either start is turned round with no
    # more (one tile), rather than the straight and the second start (two): the first start
    # holds a starting space as the second does, and the fewest tiles win
    assert choose_reversals([(start, 0, 0, 0), (straight, 1, 0, 3), (start, 2, 0, 3)], frame) == {0}
