"""Rekee's files: `sheetgen import rekee` and `sheetgen export rekee` on tracks in Rekee's JSON
(tests/data/rallyman/track.json, written by hand) and in RGT (written by the tests from the
format's facts: Rekee's own test files' coordinates and tokens), with tile libraries made for
the tests whose tiles stand for made-up Rekee ids (tests/rekee_ids.py; sheetgen ships no
official tile)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from rekee_ids import stand_in
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


def test_export_refuses_a_track_of_tiles_rekee_does_not_know_naming_each_tile(run):
    """sheetgen's own tiles have no Rekee id: Rekee would drop every one of them and open an
    empty map. Each tile is named once, at its first placement."""
    sprint = BUNDLED / "gt_col_sprint.yaml"
    refused = run("export", "rekee", str(sprint))
    assert (refused.exit_code, refused.stdout) == (1, "")
    advice = (
        "has no Rekee id: Rekee would leave it out of the map; give it 'rekee: ID' in the library 'tiles.yaml' (the id "
        "Rekee names it by: three digits, a or b, -N for a variant, as 102b or 106b-2)"
    )
    named = [
        (8, "'sg-start2'"), (9, "'sg-s2' (placed 4 times)"), (10, "'sg-c60l-fast'"), (11, "'sg-chicane'"),
        (12, "'sg-c60r' (placed 2 times)"), (13, "'sg-w23'"), (14, "'sg-s3'"), (15, "'sg-n32'"), (16, "'sg-c60r-fast'"),
        (18, "'sg-hairpin-l'"), (19, "'sg-c60l'"), (22, "'sg-c120l'"), (24, "'sg-finish2'"),
    ]
    assert refused.stderr.splitlines() == [f"{sprint}:{line}:10: error: tile {tile} {advice}" for line, tile in named]
    refused = run("export", "rekee", str(BUNDLED / "compact_hillclimb.yaml"))
    assert refused.exit_code == 1
    assert refused.stderr == f"{BUNDLED / 'compact_hillclimb.yaml'}:3:7: error: a track without tiles: Rekee's files hold tiles placed, not cells or a path\n"


@pytest.fixture
def stand_ins(tmp_path):
    """The bundled tracks beside copies of their libraries whose tiles stand for made-up Rekee
    ids (tests/rekee_ids.py); the maps from each tile's id to its stand-in, by library."""
    ids = {name: stand_in(BUNDLED / name, tmp_path / name) for name in ("tiles.yaml", "tiles_large.yaml")}
    for spec in BUNDLED.glob("*.yaml"):
        if spec.name not in ids:
            shutil.copy(spec, tmp_path / spec.name)
    return ids


def test_a_circuit_is_exported_with_its_laps_said_and_imported_again_with_laps(run, tmp_path, stand_ins):
    """Rekee's files have no place for laps: the ring's tiles are written and the laps said on
    standard error; its import refuses the circuit (its finish leads back to its start) until
    --laps says how many."""
    ring = tmp_path / "gt_hexagon_ring.yaml"
    exported = tmp_path / "ring.json"
    result = run("export", "rekee", str(ring), "-o", str(exported))
    assert (result.exit_code, result.stderr) == (
        0,
        f"{ring}:6:7: warning: a track of 3 laps: Rekee's files have no place for laps, written without them (give --laps 3 "
        "to import it again)\n",
    )
    data = json.loads(exported.read_text(encoding="utf-8"))
    ids = stand_ins["tiles.yaml"]
    bundled = load_spec(BUNDLED / "gt_hexagon_ring.yaml").model
    assert data["title"] == "Hexagon Ring" and "laps" not in data
    assert [(t["id"], t["q"], t["r"], t["dir"]) for t in data["tiles"]] == [(ids[p.tile], p.q, p.r, p.rotation) for p in bundled.placements]
    assert [t["dir"] for t in data["tiles"]] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    spec = tmp_path / "again.yaml"
    given = ("import", "rekee", str(exported), "--tiles", str(tmp_path / "tiles.yaml"), "--variant", "gt", "-o", str(spec))
    refused = run(*given)
    assert (refused.exit_code, refused.stderr) == (
        1,
        f"{exported}:4:7: error: the track is a circuit: moves lead from its finish at cell (1, 0) (tile 'sg-grid2' at (0, 0)) "
        "back to its start, and Rekee's files have no place for laps; give --laps N, the laps of the race\n",
    )
    assert not spec.exists()
    assert run(*given, "--laps", "3").exit_code == 0
    assert "\nlaps: 3\nlibrary: \"tiles.yaml\"\n" in spec.read_text(encoding="utf-8")
    again = load_spec(spec).model
    assert again.laps == 3 and again.cells == bundled.cells
    assert run("validate", "--strict", str(spec)).exit_code == 0
    # a stage is no circuit: laps are refused at its finish tile, the last of its 17 (each
    # written on 6 lines from line 4: the 17th from line 100)
    stage = tmp_path / "sprint.json"
    assert run("export", "rekee", str(tmp_path / "gt_col_sprint.yaml"), "-o", str(stage)).exit_code == 0
    refused = run("import", "rekee", str(stage), "--tiles", str(tmp_path / "tiles.yaml"), "--variant", "gt", "--laps", "2", "-o", str(spec), "--force")
    assert (refused.exit_code, refused.stderr) == (
        1,
        f"{stage}:100:7: error: --laps 2 is for a circuit, and no move leads from the track's finish back to its start (a stage is driven once)\n",
    )
    # DIRT is driven once; --laps counts 1 to 10
    result = run(*given[:-4], "--variant", "dirt", "--laps", "2", "-o", str(spec), "--force")
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, "Error: --laps 2: a Rallyman DIRT track is driven once (--laps 1 for a DIRT circuit)")
    assert run(*given, "--laps", "11", "--force").exit_code == 2


def test_a_one_lap_circuit_imported_is_a_whole_lap(run, tmp_path, stand_ins):
    """RG-23: the ring imported with --laps 1 is driven one whole lap (its first crossing,
    two spaces past the grid, starts the lap: it ended the race there, a par of 21.7 s).
    Standing start, the one lap takes longer than the second lap of a two-lap race, a flying
    lap, and less than both laps."""
    exported = tmp_path / "ring.json"
    assert run("export", "rekee", str(tmp_path / "gt_hexagon_ring.yaml"), "-o", str(exported)).exit_code == 0
    par = {}
    for laps in (1, 2):
        spec = tmp_path / f"ring{laps}.yaml"
        given = ("import", "rekee", str(exported), "--tiles", str(tmp_path / "tiles.yaml"), "--variant", "gt", "--laps", str(laps), "-o", str(spec))
        assert run(*given).exit_code == 0
        imported = load_spec(spec).model
        assert (imported.laps, imported.cells) == (laps, load_spec(BUNDLED / "gt_hexagon_ring.yaml").model.cells)
        result = run("analyze", str(spec), "--format", "json")
        assert result.exit_code == 0, result.output
        par[laps] = json.loads(result.stdout)["par"]["expected_seconds"]
    assert par[2] - par[1] < par[1] < par[2]
    assert par[1] > 90  # (a lap of 45 spaces a lane, where the bug's race lasted 21.7 s)


@pytest.mark.parametrize("fmt", ["json", "rgt"])
@pytest.mark.parametrize(
    "name, library, laps",
    [
        ("gt_col_sprint", "tiles.yaml", None),
        ("gt_hexagon_ring", "tiles.yaml", "3"),
        ("dirt_forest_stage", "tiles.yaml", None),
        ("dirt_lakeside", "tiles.yaml", None),
        ("gt_wide_boulevard", "tiles_large.yaml", None),  # RM-16: the frame is the library's, Rekee's q, r stay tile q, r
    ],
)
def test_every_bundled_tile_track_goes_to_rekee_and_back(run, tmp_path, stand_ins, name, library, laps, fmt):
    exported = tmp_path / f"{name}.{fmt}"
    result = run("export", "rekee", str(tmp_path / f"{name}.yaml"), "--format", fmt, "-o", str(exported))
    assert result.exit_code == 0, result.output
    first = json.loads(exported.read_text(encoding="utf-8"))
    if fmt == "rgt":
        assert list(first) == (["Path", "Name", "Tuiles", "lowResWidth", "lowResHeight"])
    spec = tmp_path / f"{name}.again.yaml"
    given = ("import", "rekee", str(exported), "--tiles", str(tmp_path / library), "--variant", name.split("_")[0], "-o", str(spec))
    result = run(*given, *(("--laps", laps) if laps else ()))
    assert result.exit_code == 0, result.output
    before, after = load_spec(BUNDLED / f"{name}.yaml").model, load_spec(spec).model
    assert [(p.tile, p.q, p.r, p.rotation) for p in after.placements] == [(p.tile, p.q, p.r, p.rotation) for p in before.placements]
    assert [p.rekee for p in after.placements] == [stand_ins[library][p.tile] for p in before.placements]
    assert after.cells == before.cells and after.variant == before.variant and after.laps == before.laps


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
    # (its laps are no refusal: the file goes without them, said as a warning once written)
    stand_in(BUNDLED / "tiles.yaml", tmp_path / "tiles.yaml")
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
    assert (result.exit_code, result.stderr) == (1, f"{BUNDLED / 'tiles.yaml'}:7:7: error: a Rallyman tile library, not a track: Rekee's files hold tracks\n")
    result = run("simulate", str(BUNDLED / "tiles.yaml"), "--seed", "1")
    assert result.stderr == f"{BUNDLED / 'tiles.yaml'}:7:7: error: a Rallyman tile library, not a track: analyze and simulate take a Rallyman GT or DIRT track\n"
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


# --------------------------------------------------------------------------- RGT

#: a library of the round-trip box's tiles under ids of their own, each standing for a
#: made-up Rekee id
MY_BOX = {"901a": ("my-start", "102b"), "902a": ("my-straight", "104b-2"), "903b-1": ("my-right", "106b-1"),
          "903b-2": ("my-left", "106b-2"), "904a": ("my-finish", "103a")}


@pytest.fixture
def my_box(tmp_path):
    text = (DATA / "box.yaml").read_text(encoding="utf-8")
    for old, (own, rekee) in MY_BOX.items():
        text = text.replace(f'  - id: "{old}"\n', f'  - id: {own}\n    rekee: "{rekee}"\n')
    (tmp_path / "lib.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "lib.yaml"


#: one track in Rekee's JSON and in RGT: the tiles' (q, r) and (X, Y) pairs and the tokens
#: are those of Rekee's own test files (short-track2 and chicane-example1, .json and .rgt);
#: RGT's ids in upper case, as its DIRT tiles are written
TWO_JSON = """{"title": "Two Formats", "author": "A Tester", "tiles": [
 {"q": 0, "r": 0, "id": "102b", "dir": 0},
 {"q": 1, "r": 0, "id": "106b-1", "dir": 0, "tokens": [{"id": "chicane-limit-gravel", "q": 0.0, "r": 0.0, "dir": 3.0},
                                                       {"id": "chicane-gravel", "q": 0.33, "r": 0.0, "dir": 0.0}]},
 {"q": 1, "r": 1, "id": "104b-2", "dir": 1},
 {"q": 1, "r": 2, "id": "106b-2", "dir": 1},
 {"q": 2, "r": 2, "id": "103a", "dir": 0}]}
"""
TWO_RGT = """{"Path": "C:\\\\Users\\\\me\\\\Tracks", "Name": "Two Formats", "Author": "A Tester", "Tuiles": [
 {"X": 55, "Y": 52, "Orientation": 0, "TuileId": "102B"},
 {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "106b-1", "Tokens": [{"X": 0.0, "Y": 0.0, "Orientation": 180.0, "TokenId": "dirt1"},
                                                                    {"X": -0.5715768, "Y": 0.0, "Orientation": 0.0, "TokenId": "dirt2"}]},
 {"X": 53, "Y": 53, "Orientation": 1, "TuileId": "104B-2"},
 {"X": 53, "Y": 54, "Orientation": 1, "TuileId": "106B-02"},
 {"X": 52, "Y": 54, "Orientation": 0, "TuileId": "103a"}],
 "lowResWidth": 2480, "lowResHeight": 1748}
"""
TWO_SPEC = """game: rallyman
variant: gt
name: "Two Formats"
author: "A Tester"
library: "lib.yaml"
tiles:
  - {id: "my-start", q: 0, r: 0, rotation: 0}
  - {id: "my-right", q: 1, r: 0, rotation: 0, tokens: [{id: "chicane-limit-gravel", q: 0.0, r: 0.0, dir: 3.0}, {id: "chicane-gravel", q: 0.33, r: 0.0, dir: 0.0}]}
  - {id: "my-straight", q: 1, r: 1, rotation: 1}
  - {id: "my-left", q: 1, r: 2, rotation: 1}
  - {id: "my-finish", q: 2, r: 2, rotation: 0}
"""


def test_the_rgt_and_the_json_of_one_track_import_to_the_same_spec(run, tmp_path, my_box):
    # told apart by what they hold: the RGT named .json, the JSON named .rgt
    (tmp_path / "two.json").write_text(TWO_RGT, encoding="utf-8")
    (tmp_path / "two.rgt").write_text(TWO_JSON, encoding="utf-8")
    for name in ("two.json", "two.rgt"):
        spec = tmp_path / f"{name}.yaml"
        result = run("import", "rekee", str(tmp_path / name), "--tiles", str(my_box), "-o", str(spec))
        assert result.exit_code == 0, result.output
        assert spec.read_text(encoding="utf-8") == f"# Imported from Rekee: {name}\n" + TWO_SPEC
    assert run("validate", "--strict", str(tmp_path / "two.json.yaml")).exit_code == 0


def test_export_writes_rgt_as_rekee_writes_it_and_it_imports_back(run, tmp_path, my_box):
    (tmp_path / "two.yaml").write_text(TWO_SPEC, encoding="utf-8")
    result = run("export", "rekee", str(tmp_path / "two.yaml"), "--format", "rgt")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        '{"Path":"C:\\\\Applications\\\\RallymanGT Track Editor\\\\My Tracks","Name":"Two Formats","Author":"A Tester","Tuiles":['
        '{"X":55,"Y":52,"Orientation":0,"TuileId":"102b"},'
        '{"X":54,"Y":52,"Orientation":0,"TuileId":"106b-1","Tokens":[{"X":0.0,"Y":0.0,"Orientation":180.0,"TokenId":"dirt1"},'
        '{"X":-0.5715768,"Y":0.0,"Orientation":0.0,"TokenId":"dirt2"}]},'
        '{"X":53,"Y":53,"Orientation":1,"TuileId":"104b-2"},{"X":53,"Y":54,"Orientation":1,"TuileId":"106b-2"},'
        '{"X":52,"Y":54,"Orientation":0,"TuileId":"103a"}],"lowResWidth":2480,"lowResHeight":1748}\n'
    )
    for fmt in ("rgt", "json"):
        out = tmp_path / f"out.{fmt}"
        assert run("export", "rekee", str(tmp_path / "two.yaml"), "--format", fmt, "-o", str(out)).exit_code == 0
        again = tmp_path / f"again.{fmt}.yaml"
        assert run("import", "rekee", str(out), "--tiles", str(my_box), "-o", str(again)).exit_code == 0
        assert again.read_text(encoding="utf-8") == f"# Imported from Rekee: out.{fmt}\n" + TWO_SPEC
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == json.loads(TWO_JSON)


def test_tokens_pass_rgt_at_rekees_single_precision(run, box):
    """RGT places a token in pixels: Rekee turns q, r into them and back in single precision,
    and a pixel is read back as a position Rekee writes as that very pixel, of the fewest
    digits (RM-26): Rekee's own reading of the water token's pixel x -0.3550704 is q
    0.32999998, which it writes back as -0.35507035; sheetgen's is the JSON's 0.33, written as
    -0.3550704. Tiles, title and author come back exactly. DIRT tiles (902 to 905) are
    written in upper case."""
    spec = box / "specs" / "track.yaml"
    assert run("import", "rekee", str(box / "track.json"), "--tiles", str(box / "box.yaml"), "-o", str(spec)).exit_code == 0
    rgt = box / "track.rgt"
    assert run("export", "rekee", str(spec), "--format", "rgt", "-o", str(rgt)).exit_code == 0
    assert [t["TuileId"] for t in json.loads(rgt.read_text(encoding="utf-8"))["Tuiles"]] == ["901a", "903B-1", "902A", "903B-2", "904A"]
    again = box / "specs" / "again.yaml"
    assert run("import", "rekee", str(rgt), "--tiles", str(box / "box.yaml"), "-o", str(again)).exit_code == 0
    before, after = load_spec(spec).model, load_spec(again).model
    assert (after.name, after.author, after.cells) == (before.name, before.author, before.cells)
    assert [(p.tile, p.q, p.r, p.rotation) for p in after.placements] == [(p.tile, p.q, p.r, p.rotation) for p in before.placements]
    tokens = [(t.id, t.q, t.r, t.dir) for t in after.placements[1].tokens]
    assert [t[0] for t in tokens] == ["chicane-limit-gravel", "water-gravel"]
    assert tokens[0][1:] == (0.0, 0.0, 3.0)
    assert tokens[1][1:] == (0.33, -0.25, 0.5)


def test_rekees_coordinates_and_ids_of_rgt():
    """The facts of Rekee's RGT import and export (import.rs, its test files short-track2 and
    chicane-example1, hexagon.rs, tile.rs, token.rs)."""
    from sheetgen.games.rallyman.rekee import (
        from_offset,
        rekee_tile_id,
        rgt_tile_id,
        rgt_token_id,
        to_offset,
        token_from_rgt,
        token_to_rgt,
    )

    # short-track2.rgt's (X, Y) and short-track2.json's (q, r), tile by tile
    pairs = [((54, 53), (0, 1)), ((53, 53), (1, 1)), ((55, 52), (0, 0)), ((54, 52), (1, 0)), ((53, 51), (2, -1)), ((56, 52), (-1, 0)),
             ((53, 52), (2, 0)), ((56, 51), (-1, -1)), ((57, 52), (-2, 0)), ((55, 53), (-1, 1)), ((56, 53), (-2, 1))]
    assert [from_offset(*xy) for xy, _qr in pairs] == [qr for _xy, qr in pairs]
    assert [to_offset(*qr) for _xy, qr in pairs] == [xy for xy, _qr in pairs]
    # rows above RGT's row 0, odd and even: q = -X - (Y + (Y & 1)) / 2 + 81, r = Y - 52
    assert [from_offset(81, -1), from_offset(82, -2), from_offset(82, -3)] == [(0, -53), (0, -54), (0, -55)]
    assert [to_offset(0, -53), to_offset(0, -54), to_offset(0, -55)] == [(81, -1), (82, -2), (82, -3)]
    # chicane-example1's tokens: (X, Y, degrees) <-> (q, r, dir); an angle is taken modulo 360
    assert token_from_rgt(-0.5715768, 0.0, 0.0) == (0.33, 0.0, 0.0)
    assert token_from_rgt(0.0, 0.0, 180.0) == (0.0, 0.0, 3.0)
    assert token_to_rgt(0.33, 0.0, 0.0) == (-0.5715768, 0.0, 0.0)
    assert token_to_rgt(0.0, 0.0, 3.0) == (0.0, 0.0, 180.0)
    assert [token_from_rgt(0.0, 0.0, a)[2] for a in (30.0, -30.0, 390.0)] == [0.5, 5.5, 0.5]
    # tile ids as Rekee reads them, and as RGT writes them
    assert [rekee_tile_id(t) for t in ("102b", "106B-2", "106b-02", "PODIUM", "filler2b", "101", "sg-s2", "102c", "102a-300")] == [
        "102b", "106b-2", "106b-2", "905a", "903b", "101", None, None, None]
    assert (rekee_tile_id("101a"), rekee_tile_id("101a", rgt=True)) == ("101a", "101")  # RGT's pit-stop tile has no side
    assert [rgt_tile_id(t) for t in ("119b", "101", "205a", "403b-2", "905a", "901a", "902a")] == ["119b", "101a", "205A", "403B-2", "905A", "901a", "902A"]
    # token ids: RGT's terrains asphalt, dirt, ice are Rekee's asphalt, gravel, snow
    assert [rgt_token_id(t) for t in ("chicane-limit-asphalt", "chicane-gravel", "Water Snow", "jump", "climb-ascent", "oxygen-3", "finish")] == [
        "asphalt1", "dirt2", "ice3", "dirt4", "climbm1", "climbr3", "whitedoor"]
    assert [rgt_token_id(t) for t in ("mud-spray", "oxygen", "oxygen-4", "banana")] == [None, None, None, None]


def test_a_bad_rgt_file_is_refused_at_its_places(run, tmp_path, my_box):
    bad = tmp_path / "bad.rgt"
    bad.write_text(
        '{"Name": "Bad", "Zoom": 2, "Tuiles": [\n'
        ' {"X": 55, "Y": 52, "Orientation": 6, "TuileId": "102b"},\n'
        ' {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "106b-1", "Rotation": 1},\n'
        ' {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "106b-1", "Tokens": [{"X": 0, "Y": 0, "Orientation": 0}]}]}\n',
        encoding="utf-8",
    )
    result = run("import", "rekee", str(bad), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"{bad}:1:17: error: unknown key 'Zoom' (expected one of: Author, Name, Path, Tuiles, lowResHeight, lowResWidth)",
            f"{bad}:2:36: error: 'Orientation' must be at most 5, got 6",
            f"{bad}:3:60: error: unknown key 'Rotation', did you mean 'Orientation'?",
            f"{bad}:4:71: error: missing required key 'TokenId' in Tokens[1]",
        ],
    )
    bad.write_text(
        '{"Name": "Bad", "Tuiles": [\n'
        ' {"X": 55, "Y": 52, "Orientation": 0, "TuileId": "999b"},\n'
        ' {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "PODIUM"},\n'
        ' {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "106b-1", "Tokens": [{"X": 0, "Y": 0, "Orientation": 0, "TokenId": "dirt9"}]}]}\n',
        encoding="utf-8",
    )
    result = run("import", "rekee", str(bad), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"{bad}:4:117: error: token 'dirt9' is not one of RGT's: asphalt1, asphalt2, asphalt3, asphalt4, climbm1, climbp1, "
            "climbr1, climbr2, climbr3, climbw, dirt1, dirt2, dirt3, dirt4, greendoor, ice1, ice2, ice3, ice4, reddoor, whitedoor",
        ],
    )
    bad.write_text(bad.read_text(encoding="utf-8").replace('"dirt9"', '"dirt3"'), encoding="utf-8")
    result = run("import", "rekee", str(bad), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
    assert (result.exit_code, result.stderr.splitlines()) == (
        1,
        [
            f"{bad}:2:50: error: tile '999b' at (0, 0) is not in the library '{my_box}': none of its tiles is '999b' or says rekee: '999b'",
            f"{bad}:3:50: error: tile 'PODIUM' (Rekee's '905a') at (1, 0) is not in the library '{my_box}': none of its tiles is '905a' or says rekee: '905a'",
        ],
    )
    # a tile beyond the coordinates a track holds: X 2000 is Rekee's q -2000 - 26 + 81
    far = tmp_path / "far.rgt"
    far.write_text('{"Tuiles": [{"X": 55, "Y": 52, "Orientation": 0, "TuileId": "102b"},\n {"X": 2000, "Y": 52, "Orientation": 0, "TuileId": "102b"}]}\n', encoding="utf-8")
    result = run("import", "rekee", str(far), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
    assert (result.exit_code, result.stderr) == (1, f"{far}:2:2: error: the tile at X 2000, Y 52 lies at Rekee's (-1945, 0): a track's tile coordinates are -1000 to 1000\n")
    # a problem of the track made is at its tile in the RGT file
    bad.write_text(bad.read_text(encoding="utf-8").replace('"999b"', '"102b"').replace('"PODIUM"', '"106b-1"'), encoding="utf-8")
    result = run("import", "rekee", str(bad), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
    assert (result.exit_code, result.stderr) == (1, f"{bad}:4:2: error: two tiles at (1, 0): tile 2 is there already\n")
    assert not (tmp_path / "t.yaml").exists()


def test_rgt_export_refuses_a_token_rgt_has_no_id_for(run, tmp_path, my_box):
    spec = tmp_path / "two.yaml"
    spec.write_text(TWO_SPEC.replace('"chicane-gravel"', '"mud-spray"'), encoding="utf-8")
    assert run("export", "rekee", str(spec), "-o", str(tmp_path / "two.json")).exit_code == 0  # (Rekee's JSON keeps it)
    result = run("export", "rekee", str(spec), "--format", "rgt", "-o", str(tmp_path / "two.rgt"))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{spec}:8:117: error: token 'mud-spray' has no id in RGT files (its tokens are asphalt1, asphalt2, asphalt3, asphalt4, "
        "climbm1, climbp1, climbr1, climbr2, climbr3, climbw, dirt1, dirt2, dirt3, dirt4, greendoor, ice1, ice2, ice3, ice4, "
        "reddoor, whitedoor, as Rekee's chicane, chicane-limit, water and jump of a terrain, climb and joker tokens, oxygen 1 to "
        "3 and the finish): export it as --format json\n",
    )
    assert not (tmp_path / "two.rgt").exists()


def test_a_file_of_neither_format_is_refused_saying_what_each_holds(run, tmp_path, my_box):
    neither = "not a Rekee track: a JSON object with its tiles in 'tiles' (Rekee's own JSON) or 'Tuiles' (RGT)"
    cases = [
        ('{"title": "x"}\n', [f"1:1: error: {neither}; this file has neither"]),
        # RGT's keys make it RGT: its unknown key is named with RGT's keys
        ('{"Name": "x", "zoom": 1}\n', [f"1:1: error: {neither}; this file has neither", "1:15: error: unknown key 'zoom' (expected one of: Author, Name, Path, Tuiles, lowResHeight, lowResWidth)"]),
        ("[1, 2]\n", [f"1:1: error: {neither}; this file is a list (an array)"]),
    ]
    for number, (text, expected) in enumerate(cases):
        path = tmp_path / f"case{number}.json"
        path.write_text(text, encoding="utf-8")
        result = run("import", "rekee", str(path), "--tiles", str(my_box), "-o", str(tmp_path / "t.yaml"))
        assert (result.exit_code, result.stderr.splitlines()) == (1, [f"{path}:{line}" for line in expected])
    assert not (tmp_path / "t.yaml").exists()


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="no /proc/self/fd here")
@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1"])
def test_an_import_written_through_a_descriptor_names_its_library_from_the_file_behind_it(box, target):
    """`import rekee ... -o /dev/fd/1 >> specs/log.yaml` was refused ("library not found": the
    path made from /dev/fd) and `-o /dev/stdout` named the library from /dev (the fuzz
    harness): the library's path starts from the file the descriptor writes."""
    import subprocess
    import sys

    (box / "specs" / "track.yaml").write_bytes(b"")
    line = f"{sys.executable} -m sheetgen import rekee track.json --tiles box.yaml -o {target} >> specs/track.yaml"
    done = subprocess.run(["bash", "-c", line], cwd=box, capture_output=True, timeout=120)
    assert done.returncode == 0 and all(b": warning: " in line for line in done.stderr.splitlines())  # (its water token)
    text = (box / "specs" / "track.yaml").read_text(encoding="utf-8")
    assert 'library: "../box.yaml"' in text
    assert load_spec(box / "specs" / "track.yaml").sources[1] == str(box / "specs" / "../box.yaml")


def _rekee_pixel(q: float, r: float, d: float) -> tuple[str, str, str]:
    """The format's facts, in numpy's single precision (independent of rekee.py): Rekee writes
    a token at (q, r) turned d as RGT's pixel x = (sqrt(3) q + sqrt(3)/2 r) * -1, y = (0 q +
    1.5 r) * 1 and angle (60 d) mod 360 (hexagon.rs to_pixel on the pointy layout of size
    (-1, 1), to_angle), every step an f32, each number as serde_json writes an f32: its
    shortest decimal (numpy's repr of a float32)."""
    f = np.float32
    sqrt3 = f(1.7320508075688772)
    q32, r32, d32 = f(q), f(r), f(d)
    x = (f(f(sqrt3 * q32) + f(f(sqrt3 / f(2.0)) * r32))) * f(-1.0) + f(0.0)
    y = (f(f(f(0.0) * q32) + f(f(1.5) * r32))) * f(1.0) + f(0.0)
    angle = np.fmod(f(d32 * f(60.0)), f(360.0))
    return tuple(np.format_float_positional(v, unique=True, trim="0") for v in (f(x), f(y), f(angle)))


def _rekee_reads(x: float, y: float) -> tuple[float, float]:
    """Rekee's own reading of an RGT pixel (from_pixel, f32): q = (sqrt(3)/3 x' - 1/3 y'),
    r = 2/3 y', with x' = x / -1, y' = y / 1."""
    f = np.float32
    px, py = f(f(x) / f(-1.0)), f(f(y) / f(1.0))
    b0, b1, b3 = f(f(1.7320508075688772) / f(3.0)), f(-1.0 / 3.0), f(2.0 / 3.0)
    return float(f(f(b0 * px) + f(b1 * py))), float(f(f(f(0.0) * px) + f(b3 * py)))


#: token positions as Rekee's editor makes them: round ones, and ones from its polar fields
#: (a distance and an angle: q, r by cos and sin in f32)
TOKEN_SPOTS = [(-1.0, 0.2, 3.0), (-0.03, -0.55, 0.5), (0.33, -0.25, 0.5), (0.0, 0.0, 3.0), (-0.01, 0.55, 5.5)] + [
    (
        float(np.float32(dist * np.cos(np.radians(a)) - dist * np.sin(np.radians(a)) / np.sqrt(3))),
        float(np.float32(2 * dist * np.sin(np.radians(a)) / np.sqrt(3))),
        float(np.float32(a / 60.0 + 1.5)),
    )
    for dist in (0.125, 0.25, 0.5)
    for a in (10.0, 35.0, 100.0, 215.0, 300.0)
]


def test_rgt_tokens_written_by_rekee_come_back_as_the_file_wrote_them(run, box, tmp_path):
    """An RGT file whose tokens are as Rekee writes them (the format's facts, `_rekee_pixel`):
    imported and exported again, every token's X, Y and Orientation are the file's own digits
    (ruling RM-26), though Rekee's own reading of some of them (`_rekee_reads`) would write
    back another last digit; tiles, title and author come back as they were."""
    tokens = [
        {"X": x, "Y": y, "Orientation": a, "TokenId": "asphalt2"}
        for x, y, a in (_rekee_pixel(*spot) for spot in TOKEN_SPOTS)
    ]
    numbers = [(t["X"], t["Y"], t["Orientation"]) for t in tokens]
    # some of them Rekee itself reads as a position it writes back otherwise
    moved = [n for n in numbers if _rekee_pixel(*_rekee_reads(float(n[0]), float(n[1])), 0.0)[:2] != n[:2]]
    assert len(moved) >= 3
    body = ", ".join(f'{{"X":{x},"Y":{y},"Orientation":{a},"TokenId":"asphalt2"}}' for x, y, a in numbers)
    rgt = tmp_path / "tokens.rgt"
    rgt.write_text(
        '{"Path":"C:\\\\Tracks","Name":"Token spots","Author":"A Tester","Tuiles":['
        '{"X":81,"Y":52,"Orientation":0,"TuileId":"901a"},'
        f'{{"X":80,"Y":52,"Orientation":0,"TuileId":"902a","Tokens":[{body}]}}],'
        '"lowResWidth":2480,"lowResHeight":1748}',
        encoding="utf-8",
    )
    spec = box / "specs" / "spots.yaml"
    result = run("import", "rekee", str(rgt), "--tiles", str(box / "box.yaml"), "-o", str(spec))
    assert result.exit_code == 0, result.stderr
    out = run("export", "rekee", str(spec), "--format", "rgt")
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert (data["Name"], data["Author"]) == ("Token spots", "A Tester")
    assert [(t["X"], t["Y"], t["TuileId"]) for t in data["Tuiles"]] == [(81, 52, "901a"), (80, 52, "902A")]
    back = [(t["X"], t["Y"], t["Orientation"]) for t in data["Tuiles"][1]["Tokens"]]
    assert back == [tuple(float(v) for v in n) for n in numbers]
    # the round ones read back as Rekee's JSON says them
    read = [(t.q, t.r, t.dir) for t in load_spec(spec).model.placements[1].tokens]
    assert read[:4] == [(-1.0, 0.2, 3.0), (-0.03, -0.55, 0.5), (0.33, -0.25, 0.5), (0.0, 0.0, 3.0)]
