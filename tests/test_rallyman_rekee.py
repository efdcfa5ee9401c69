"""Rekee round trip: `sheetgen import rekee` and `sheetgen export rekee` on a track written by
hand in Rekee's JSON (tests/data/rallyman/track.json) with a user's own tile library."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.registry import load_spec

DATA = Path(__file__).resolve().parent / "data" / "rallyman"
BUNDLED = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"


@pytest.fixture
def box(tmp_path):
    shutil.copy(DATA / "box.yaml", tmp_path / "box.yaml")
    shutil.copy(DATA / "track.json", tmp_path / "track.json")
    (tmp_path / "specs").mkdir()
    return tmp_path


def test_a_rekee_track_imported_and_exported_gives_the_same_json(run, box):
    spec = box / "specs" / "track.yaml"
    result = run("import", "rekee", str(box / "track.json"), "--tiles", str(box / "box.yaml"), "-o", str(spec))
    assert result.exit_code == 0, result.output
    assert "library: \"../box.yaml\"" in spec.read_text()  # named relative to the spec written
    loaded = load_spec(spec)
    assert loaded.sources == (str(spec), str(box / "specs" / "../box.yaml"))
    track = loaded.model
    assert [(p.tile, p.q, p.r, p.rotation) for p in track.placements] == [("901a", 0, 0, 0), ("903b-1", 1, 0, 0), ("902a", 1, 1, 1), ("903b-2", 1, 2, 1), ("904a", 2, 2, 0)]
    # the tile at (1, 1) is centred on cell (4, 4); turned once, its frame's east half cell
    # (2, 0) lies south-east of the centre, on cell (4, 6)
    assert track.placements[2].centre_hex == Hex(4, 4)
    assert track.cell(Hex(4, 6)) is not None and track.cell(Hex(4, 6)).heading == 1
    assert run("validate", "--strict", str(spec)).exit_code == 0
    out = box / "again.json"
    assert run("export", "rekee", str(spec), "-o", str(out)).exit_code == 0
    original = json.loads((box / "track.json").read_text())
    for editor_state in ("active_pos", "active_dir"):
        original.pop(editor_state)
    assert json.loads(out.read_text()) == original
    # and once more: the exported file imports to the same spec
    again = box / "specs" / "again.yaml"
    assert run("import", "rekee", str(out), "--tiles", str(box / "box.yaml"), "-o", str(again)).exit_code == 0
    assert again.read_text().splitlines()[1:] == spec.read_text().splitlines()[1:]


def test_tile_ids_the_library_lacks_are_named_at_their_place_in_the_json(run, box):
    text = (box / "track.json").read_text().replace('"902a"', '"999x"').replace('"904a"', '"998y"')
    (box / "track.json").write_text(text)
    result = run("import", "rekee", str(box / "track.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.exit_code == 1
    name = box / "track.json"
    assert result.stderr.splitlines() == [
        f"{name}:32:16: error: tile '999x' at (1, 1) is not in the library '{box / 'box.yaml'}'",
        f"{name}:42:16: error: tile '998y' at (2, 2) is not in the library '{box / 'box.yaml'}'",
    ]
    assert not (box / "t.yaml").exists()


def test_a_bad_rekee_file_is_refused_at_its_position(run, box):
    (box / "bad.json").write_text('{"title": "x", "tiles": [{"q": 0, "r": 0, "id": "901a", "dir": 7}]}\n')
    result = run("import", "rekee", str(box / "bad.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.stderr == f"{box / 'bad.json'}:1:64: error: 'dir' must be at most 5, got 7\n"


def test_import_needs_the_tiles(run, box):
    result = run("import", "rekee", str(box / "track.json"), "-o", str(box / "t.yaml"))
    assert result.exit_code == 2
    assert "--tiles is needed for Rallyman" in result.stderr


def test_export_of_a_bundled_tile_track_and_refusal_of_a_compact_one(run, tmp_path):
    # the ring is a circuit of 3 laps, which Rekee's files cannot say: refused, not lost
    refused = run("export", "rekee", str(BUNDLED / "gt_hexagon_ring.yaml"))
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr == f"{BUNDLED / 'gt_hexagon_ring.yaml'}:6:7: error: a track of 3 laps: Rekee's files have no place for laps (the track would come back as one lap)\n"
    # its tiles, as one lap
    shutil.copy(BUNDLED / "tiles.yaml", tmp_path / "tiles.yaml")
    text = (BUNDLED / "gt_hexagon_ring.yaml").read_text(encoding="utf-8")
    assert "\nlaps: 3\n" in text
    (tmp_path / "ring.yaml").write_text(text.replace("\nlaps: 3\n", "\n"), encoding="utf-8")
    result = run("export", "rekee", str(tmp_path / "ring.yaml"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["title"] == "Hexagon Ring"
    assert [t["dir"] for t in data["tiles"]] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    refused = run("export", "rekee", str(BUNDLED / "compact_hillclimb.yaml"))
    assert refused.exit_code == 1
    assert refused.stderr == f"{BUNDLED / 'compact_hillclimb.yaml'}:3:7: error: a track without tiles: Rekee's files hold tiles placed, not cells or a path\n"


@pytest.mark.parametrize(
    "name, library",
    [
        ("gt_col_sprint", "tiles.yaml"),  # (gt_hexagon_ring has 3 laps: refused, above)
        ("dirt_forest_stage", "tiles.yaml"),
        ("dirt_lakeside", "tiles.yaml"),
        ("gt_wide_boulevard", "tiles_large.yaml"),  # RM-16: the frame is the library's, Rekee's q, r stay tile q, r
    ],
)
def test_every_bundled_tile_track_goes_to_rekee_and_back(run, tmp_path, name, library):
    exported = tmp_path / f"{name}.json"
    assert run("export", "rekee", str(BUNDLED / f"{name}.yaml"), "-o", str(exported)).exit_code == 0
    spec = tmp_path / f"{name}.yaml"
    result = run("import", "rekee", str(exported), "--tiles", str(BUNDLED / library), "--variant", name.split("_")[0], "-o", str(spec))
    assert result.exit_code == 0, result.output
    before, after = load_spec(BUNDLED / f"{name}.yaml").model, load_spec(spec).model
    assert [(p.tile, p.q, p.r, p.rotation) for p in after.placements] == [(p.tile, p.q, p.r, p.rotation) for p in before.placements]
    assert after.cells == before.cells and after.variant == before.variant


def test_a_token_number_past_a_float_is_refused_at_its_position(run, box):
    (box / "big.json").write_text('{"tiles": [{"q": 0, "r": 0, "id": "901a", "dir": 0, "tokens": [{"id": "x", "q": 1' + "0" * 309 + ', "r": 0, "dir": 0}]}]}\n')
    result = run("import", "rekee", str(box / "big.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.exit_code == 1
    assert result.stderr == f"{box / 'big.json'}:1:81: error: 'q' must be at most 1000, got 10000000000000000000... (310 digits)\n"
    assert not (box / "t.yaml").exists()


def test_unknown_keys_of_a_rekee_file_are_refused_where_they_stand(run, box):
    (box / "keys.json").write_text(
        '{"title": "x", "laps": 3, "active_pos": {"q": 0, "r": 0}, "active_dir": 3,\n'
        ' "tiles": [{"q": 0, "r": 0, "id": "901a", "dir": 0, "rot": 1,\n'
        '   "tokens": [{"id": "x", "q": 0, "r": 0, "dir": 0, "size": 2}]}]}\n'
    )
    result = run("import", "rekee", str(box / "keys.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.exit_code == 1
    name = box / "keys.json"
    assert result.stderr.splitlines() == [
        f"{name}:1:16: error: unknown key 'laps' (expected one of: active_dir, active_pos, author, tiles, title)",
        f"{name}:2:53: error: unknown key 'rot' (expected one of: dir, id, q, r, tokens)",
        f"{name}:3:53: error: unknown key 'size' (expected one of: dir, id, q, r)",
    ]
    assert not (box / "t.yaml").exists()


@pytest.mark.parametrize("to_file", [True, False], ids=["-o", "stdout"])
def test_a_problem_of_the_imported_track_is_located_in_the_rekee_file(run, box, to_file):
    # (not in the spec, which is never written: it was 'SPEC:8:5', or '<stdout>:8:5')
    (box / "twice.json").write_text('{"tiles": [\n  {"q": 0, "r": 0, "id": "901a", "dir": 0},\n  {"q": 0, "r": 0, "id": "902a", "dir": 0}\n]}\n')
    out = ["-o", str(box / "t.yaml")] if to_file else []
    result = run("import", "rekee", str(box / "twice.json"), "--tiles", str(box / "box.yaml"), *out)
    assert result.exit_code == 1
    assert result.stderr == f"{box / 'twice.json'}:3:3: error: two tiles at (0, 0): tile 1 is there already\n"
    assert result.stdout == "" and not (box / "t.yaml").exists()


def test_a_dirt_tile_imported_for_gt_is_named_at_its_id_in_the_rekee_file(run, box):
    (box / "dirt.json").write_text('{"tiles": [{"q": 0, "r": 0, "id": "sg-d-jump", "dir": 0}]}\n')
    result = run("import", "rekee", str(box / "dirt.json"), "--tiles", str(BUNDLED / "tiles.yaml"), "--variant", "gt", "-o", str(box / "t.yaml"))
    assert result.exit_code == 1
    assert result.stderr == f"{box / 'dirt.json'}:1:35: error: tile 'sg-d-jump' has DIRT spaces (jump 3 at (0, 0)); this is a GT track\n"


def test_a_json_surrogate_pair_is_one_character_and_columns_stay_the_files(run, box):
    # JSON writes U+1F600 as the pair \ud83d\ude00 (Python's json reads it so); YAML alone
    # would read two lone halves. The author (kept, not printed) may hold it.
    text = '{"author": "smile \\ud83d\\ude00 and \\ud83d\\ude01!", "tiles": [{"q": 0, "r": 0, "id": "901a", "dir": 1}]}\n'
    assert json.loads(text)["author"] == "smile \U0001f600 and \U0001f601!"
    (box / "pair.json").write_text(text)
    spec = box / "pair.yaml"
    assert run("import", "rekee", str(box / "pair.json"), "--tiles", str(box / "box.yaml"), "-o", str(spec)).exit_code == 0
    assert load_spec(spec).model.author == "smile \U0001f600 and \U0001f601!"
    # a problem after the pairs on their line is at the file's own column
    (box / "pair.json").write_text(text.replace('"dir": 1', '"dir": 9'))
    result = run("import", "rekee", str(box / "pair.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.stderr == f"{box / 'pair.json'}:1:100: error: 'dir' must be at most 5, got 9\n"  # (the 9 is the file's 100th character)
    # the title becomes the track's name, which the sheets print: one character beyond U+FFFF
    # is refused (not two halves), at the title in the Rekee file
    (box / "pair.json").write_text(text.replace('"author"', '"title"'))
    result = run("import", "rekee", str(box / "pair.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.stderr == (
        f"{box / 'pair.json'}:1:11: error: 'name' holds characters the sheets cannot print: '\U0001f600' (U+1F600), '\U0001f601' (U+1F601): "
        "beyond U+FFFF, which the PDFs cannot map to text\n"
    )
    assert not (box / "t.yaml").exists()


def test_a_lone_surrogate_in_json_is_refused_in_jsons_words(run, box):
    (box / "lone.json").write_text('{"title": "\\ud83d\\ude00 \\ude00", "author": "a\\\\ud83d", "tiles": [{"q": 0, "r": 0, "id": "901a", "dir": 0}]}\n')
    result = run("import", "rekee", str(box / "lone.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert result.exit_code == 1
    assert result.stderr == (
        f"{box / 'lone.json'}:1:11: error: a lone surrogate '\\ude00' is not a character (it is half of a UTF-16 pair); "
        "write the character itself or both halves of its pair, high then low (as \\ud83d\\ude00)\n"
    )
    assert not (box / "t.yaml").exists()


def test_export_refuses_what_rekee_cannot_hold_at_its_place_in_the_spec(run, tmp_path):
    shutil.copy(BUNDLED / "tiles.yaml", tmp_path / "tiles.yaml")
    spec = tmp_path / "t.yaml"
    spec.write_text(
        "game: rallyman\nvariant: gt\nname: T\nlaps: 2\nlibrary: tiles.yaml\ntiles:\n  - {id: sg-s2, q: 0, r: 0}\n"
        "cells:\n  - {q: 0, r: 0, heading: 0, limit: 3, replace: true}\nlines:\n  - {between: [[0, 0], [1, 0]], limit: 2}\n"
        "ruleset: {caution_limit: 1}\n",
        encoding="utf-8",
    )
    assert run("validate", str(spec)).exit_code == 0
    result = run("export", "rekee", str(spec), "-o", str(tmp_path / "t.json"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{spec}:4:7: error: a track of 2 laps: Rekee's files have no place for laps (the track would come back as one lap)",
        f"{spec}:9:5: error: cell (0, 0) replaces a tile's: Rekee's files have no place for cells, only for tiles placed",
        f"{spec}:11:5: error: the track's own inside lines: Rekee's files have no place for them (only tiles placed, with the lines of their tiles)",
        f"{spec}:12:10: error: the values of your own box ('ruleset'): Rekee's files have no place for them",
    ]
    assert not (tmp_path / "t.json").exists()


def test_a_tile_id_ending_in_a_newline_is_refused(run, box):
    (box / "bad.json").write_text('{"title": "x", "tiles": [{"q": 0, "r": 0, "id": "901a\\n", "dir": 0}]}\n')
    result = run("import", "rekee", str(box / "bad.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert (result.exit_code, result.stderr) == (1, f"{box / 'bad.json'}:1:49: error: 'id' has an invalid form: '901a\\n'\n")
    assert not (box / "t.yaml").exists()


def test_rekee_refusals_name_the_user_s_own_file(run, box, tmp_path):
    """Messages about the JSON read, or the spec given, in their own words."""
    (box / "empty.json").write_text('{"tiles": []}\n')
    result = run("import", "rekee", str(box / "empty.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert (result.exit_code, result.stderr) == (1, f"{box / 'empty.json'}:1:11: error: 'tiles' must have at least 1 item\n")
    (box / "broken.json").write_text('{"tiles": [}\n')
    result = run("import", "rekee", str(box / "broken.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "t.yaml"))
    assert (result.exit_code, result.stderr) == (1, f"{box / 'broken.json'}:1:12: error: invalid JSON: expected the node content, but found '}}'\n")
    assert not (box / "t.yaml").exists()
    results = BUNDLED / "results" / "winter_rally.yaml"
    result = run("export", "rekee", str(results), "-o", str(tmp_path / "x.json"))
    assert (result.exit_code, result.stderr) == (1, f"{results}:4:7: error: a Rallyman results file, not a track: Rekee's files hold tracks\n")
    result = run("export", "rekee", str(BUNDLED / "tiles.yaml"), "-o", str(tmp_path / "x.json"))
    assert (result.exit_code, result.stderr) == (1, f"{BUNDLED / 'tiles.yaml'}:6:7: error: a Rallyman tile library, not a track: Rekee's files hold tracks\n")
    result = run("simulate", str(BUNDLED / "tiles.yaml"), "--seed", "1")
    assert result.stderr == f"{BUNDLED / 'tiles.yaml'}:6:7: error: a Rallyman tile library, not a track: analyze and simulate take a Rallyman GT or DIRT track\n"
    risk = BUNDLED.parent / "rally_risk" / "results.yaml"
    result = run("simulate", str(risk), "--seed", "1")
    assert result.stderr == f"{risk}:6:7: error: a Rally Risk results file, not a race: analysis and simulation need a race (kind: race) (`sheetgen standings {risk}` gives its standings)\n"


def test_a_library_on_another_drive_is_named_by_its_absolute_path(run, box, monkeypatch):
    """On Windows, `import rekee` with the library on another drive crashed: os.path.relpath
    raises ValueError across drives. The spec names it by its absolute path then, as the Rally
    Risk generator does (one helper, yamlsrc.path_from)."""
    import os

    from sheetgen import yamlsrc

    assert yamlsrc.path_from("/a/b", "/a/c/lib.yaml") == "../c/lib.yaml"

    def across_drives(path, start=None):
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(os.path, "relpath", across_drives)
    assert yamlsrc.path_from("/a/b", "/a/c/lib.yaml") == os.path.abspath("/a/c/lib.yaml")
    result = run("import", "rekee", str(box / "track.json"), "--tiles", str(box / "box.yaml"), "-o", str(box / "specs" / "t.yaml"))
    assert result.exit_code == 0, result.output
    assert f'library: "{box / "box.yaml"}"' in (box / "specs" / "t.yaml").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- a library's Rekee ids

LIBRARY_HEAD = "game: rallyman\nkind: tiles\nname: my box\ntiles:\n"


def _tile(own: str, rekee: str | None = None) -> str:
    key = f'    rekee: "{rekee}"\n' if rekee is not None else ""
    return f'  - id: "{own}"\n{key}    cells: [{{q: 0, r: 0, heading: 0}}]\n'


def test_a_library_tile_stands_for_its_rekee_id_or_its_own_id_of_rekees_shape(tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(
        LIBRARY_HEAD + _tile("my-straight", "102b") + _tile("103a-2") + _tile("sg-s2") + _tile("101") + _tile("104B"),
        encoding="utf-8",
    )
    library = load_spec(path).model
    assert [(t.id, t.rekee_id) for t in library.tiles] == [
        ("my-straight", "102b"),
        ("103a-2", "103a-2"),  # (its own id has Rekee's shape)
        ("sg-s2", None),
        ("101", "101"),  # (the pit-stop tile: no side)
        ("104B", None),  # (Rekee writes the side in lower case)
    ]
    assert library.by_rekee("102b").id == "my-straight" and library.by_rekee("103a-2").id == "103a-2"
    assert library.by_rekee("sg-s2") is None


def test_a_rekee_id_of_another_shape_or_of_two_tiles_is_refused_at_its_place(run, tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(
        LIBRARY_HEAD
        + _tile("my-straight", "102B")
        + _tile("my-pit", "101a")
        + _tile("my-corner", "106b-2")
        + _tile("106b-2")
        + _tile("other-corner", "106b-2")
        + _tile("my-jump", "20a"),
        encoding="utf-8",
    )
    result = run("validate", str(path))
    shape = "(three digits, then a or b for the side, then -N for a variant: as 102b or 106b-2; the pit-stop tile 101 has no side)"
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"{path}:6:12: error: 'rekee' is not a tile id as Rekee writes it: '102B' {shape}",
            f"{path}:9:12: error: 'rekee' is not a tile id as Rekee writes it: '101a' {shape}",
            f"{path}:14:9: error: tile '106b-2' stands for Rekee's tile '106b-2' (its own id), as tile 'my-corner' (tile 3) does: a Rekee id names one tile of the library",
            f"{path}:17:12: error: tile 'other-corner' stands for Rekee's tile '106b-2', as tile 'my-corner' (tile 3) does: a Rekee id names one tile of the library",
            f"{path}:20:12: error: 'rekee' is not a tile id as Rekee writes it: '20a' {shape}",
        ],
    )
    # the published schema says the shape too (an editor checks it as it is typed)
    schema = json.loads(run("schema", "rallyman").stdout)
    tiles = next(branch for branch in schema["oneOf"] if branch.get("title") == "sheetgen Rallyman tile library")
    pattern = tiles["properties"]["tiles"]["items"]["properties"]["rekee"]["pattern"]
    assert [bool(re.match(pattern, text)) for text in ("102b", "106b-2", "101", "205", "102B", "101a", "20a", "102b-0")] == [True, True, True, True, False, False, False, False]
