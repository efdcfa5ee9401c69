"""Every refused input: one FILE:LINE:COL line per problem, exit 1, no traceback, nothing written."""

from __future__ import annotations

import re

import pytest

from conftest import VALID, files_under

LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.+)$")


def errors_of(result) -> list[tuple[int, int, str]]:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stdout == ""
    found = []
    for line in result.stderr.splitlines():
        match = LINE.match(line)
        assert match, f"not a FILE:LINE:COL error line: {line!r}"
        found.append((int(match["line"]), int(match["col"]), match["message"]))
    assert found
    return found


CASES = [
    ("syntax error", "game: rallytaire\nname: [unclosed\n", (3, 1, "invalid YAML")),
    ("tab indentation", "game: rallytaire\nname: x\nstages:\n\t- name: a\n", (4, 1, "invalid YAML")),
    ("duplicate key", VALID.replace("name: Test Race\n", "name: Test Race\nname: Again\n"), (3, 1, "duplicate key 'name' (first given on line 2)")),
    ("anchor", VALID.replace("surface: gravel", "surface: &s gravel"), (5, 14, "YAML anchors are not allowed (&s)")),
    ("alias", VALID + "  - name: SS2\n    surface: *s\n    length: 10\n", (11, 14, "YAML aliases are not allowed (*s)")),
    ("unknown key with near miss", VALID.replace("length: 30", "lenght: 30"), (6, 5, "unknown key 'lenght', did you mean 'length'?")),
    ("unknown key without near miss", VALID.replace("name: Test Race", "name: Test Race\ncolour: red"), (3, 1, "unknown key 'colour' (expected one of: boxes, game, name, stages, tyres)")),
    ("wrong type", VALID.replace("length: 30", "length: thirty"), (6, 13, "'length' must be a whole number, got 'thirty'")),
    ("float for integer", VALID.replace("gear: 3,", "gear: 3.0,"), (8, 27, "'gear' must be a whole number, got 3.0")),
    ("bool is not a number", VALID.replace("length: 30", "length: true"), (6, 13, "'length' must be a whole number, got true")),
    ("gear out of range", VALID.replace("gear: 3,", "gear: 6,"), (8, 27, "'gear' must be at most 5, got 6")),
    ("gear below range", VALID.replace("gear: 3,", "gear: 0,"), (8, 27, "'gear' must be at least 1, got 0")),
    ("length too short", VALID.replace("length: 30", "length: 1").replace("      - {after: 10, gear: 3, zone: 5, turn: left}\n      - {after: 20, gear: 2, zone: 15, turn: right}\n", "      []\n"), (6, 13, "'length' must be at least 2, got 1")),
    ("bad surface", VALID.replace("surface: gravel", "surface: mud"), (5, 14, "'surface' must be one of asphalt, gravel, snow; got 'mud'")),
    ("bad turn", VALID.replace("turn: left", "turn: up"), (8, 45, "'turn' must be one of left, right; got 'up'")),
    ("missing key", VALID.replace("    surface: gravel\n", ""), (4, 5, "missing required key 'surface' in stages[1]")),
    ("missing game", VALID.replace("game: rallytaire\n", ""), (1, 1, "missing required key 'game' (one of: rally_risk, rally_run, rallyman, rallytaire)")),
    ("unknown game", VALID.replace("game: rallytaire", "game: rallytair"), (1, 7, "unknown game 'rallytair', did you mean 'rallytaire'?")),
    ("after beyond the track", VALID.replace("after: 20", "after: 30"), (9, 17, "'after' must be between 1 and 29 (the stage has 30 spaces), got 30")),
    ("zone after its corner", VALID.replace("zone: 5", "zone: 11"), (8, 36, "'zone' must be between 1 and 'after' (10), got 11")),
    ("corners out of order", VALID.replace("after: 20", "after: 8").replace("zone: 15", "zone: 4"), (9, 17, "corners must be in track order: after space 8 comes before the previous corner's 10")),
    ("two corners on one line", VALID.replace("after: 20", "after: 10"), (9, 17, "two corners after space 10; each corner needs its own line")),
    ("duplicate stage names", VALID + "  - name: SS1\n    surface: snow\n    length: 10\n", (10, 11, "duplicate stage name 'SS1' (also stage 1)")),
    ("no stages", "game: rallytaire\nname: x\nstages: []\n", (3, 9, "'stages' must have at least 1 item")),
    ("not a mapping", "- 1\n- 2\n", (1, 1, "a spec must be a mapping with a 'game' key")),
    ("empty file", "", (1, 1, "file is empty; expected a spec mapping")),
    ("only comments", "# a race to come\n\n# more\n", (1, 1, "file holds only comments; expected a spec mapping")),
    ("custom tag", VALID.replace("length: 30", "length: !!python/object 30"), (6, 13, "unsupported YAML tag")),
    ("two documents", VALID + "---\ngame: rallytaire\n", (10, 1, "invalid YAML: several YAML documents in one file")),
    ("non-string key", VALID.replace("name: Test Race", "name: Test Race\n1: one"), (3, 1, "mapping keys must be plain names, got '1'")),
    ("infinite number", VALID.replace("length: 30", "length: .inf"), (6, 13, "number must be finite")),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_with_located_message(run, write, text, expected):
    path = write(text)
    errors = errors_of(run("validate", path))
    line, col, message = expected
    assert any((ln, c) == (line, col) and m.startswith(message) for ln, c, m in errors), errors


def test_file_name_leads_every_line(run, write):
    path = write(VALID.replace("gear: 3,", "gear: 9,"), "my race.yaml")
    result = run("validate", path)
    assert result.stderr == f"{path}:8:27: error: 'gear' must be at most 5, got 9\n"


def test_all_problems_of_a_file_at_once(run, write):
    text = VALID.replace("length: 30", "lenght: 30").replace("gear: 2,", "gear: 7,") + (
        "  - name: SS2\n    surface: snow\n    length: 10\n    corners:\n      - {after: 12, gear: 2, zone: 3, turn: left}\n"
    )
    errors = errors_of(run("validate", write(text)))
    messages = [m for _l, _c, m in errors]
    assert "unknown key 'lenght', did you mean 'length'?" in messages
    assert "'gear' must be at most 5, got 7" in messages
    assert "'after' must be between 1 and 9 (the stage has 10 spaces), got 12" in messages
    assert "missing required key 'length' in stages[1]" in messages


def test_huge_file_refused_before_parsing(run, write):
    path = write("game: rallytaire\n" + "#" * (1024 * 1024) + "\n")
    assert errors_of(run("validate", path)) == [(1, 1, f"file is too large: {1024 * 1024 + 18} bytes (the limit is 1 MiB)")]


def test_billion_laughs_refused(run, write):
    text = 'a: &a ["lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n'
    errors = errors_of(run("validate", write(text)))
    assert (1, 4, "YAML anchors are not allowed (&a); write the value out") in errors


def test_deep_nesting_refused(run, write):
    errors = errors_of(run("validate", write("a: " + "[" * 500 + "]" * 500 + "\n")))
    assert errors[0][2] == "nesting is too deep (the limit is 64 levels)"


def test_not_utf8(run, write):
    path = write(b"game: rallytaire\nname: \xff\xfe\n")
    assert errors_of(run("validate", path)) == [(2, 7, "file is not valid UTF-8 text")]


def test_missing_file(run, tmp_path):
    path = str(tmp_path / "nope.yaml")
    assert errors_of(run("validate", path)) == [(1, 1, "cannot read file: No such file or directory")]


def test_yaml_1_2_scalars_keep_names_as_strings(run, write):
    # YAML 1.1 would read `No` as false and `1:20` as 80.
    text = VALID.replace("name: SS1", "name: No").replace("name: Test Race", "name: '1:20'")
    assert run("validate", write(text)).exit_code == 0
    from sheetgen.registry import load_spec

    race = load_spec(write(text.replace("'1:20'", "1:20"), "other.yaml")).model
    assert race.name == "1:20" and race.stages[0].name == "No"


def test_valid_spec_passes(run, write):
    path = write(VALID)
    result = run("validate", path)
    assert result.exit_code == 0
    assert result.stdout == f"{path}: ok (Rallytaire: 1 stage, 30 spaces, 2 corners)\n"


def test_validate_json(run, write):
    import json

    good, bad = write(VALID, "good.yaml"), write(VALID.replace("gear: 3,", "gear: 6,"), "bad.yaml")
    result = run("validate", "--format", "json", good, bad)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["specs"][0] == {"file": good, "valid": True, "game": "rallytaire", "errors": []}
    assert data["specs"][1]["errors"] == [{"file": bad, "line": 8, "col": 27, "message": "'gear' must be at most 5, got 6"}]


def test_failing_build_writes_nothing(run, write, tmp_path):
    good = write(VALID, "good.yaml")
    bad = write(VALID.replace("gear: 3,", "gear: 6,"), "bad.yaml")
    out = tmp_path / "out"
    result = run("build", "-q", "-o", str(out), good, bad)
    errors_of(result)
    assert files_under(out) == []


def test_failing_build_keeps_existing_pdf(run, write, tmp_path):
    good = write(VALID, "good.yaml")
    out = tmp_path / "out"
    assert run("build", "-q", "-o", str(out), good).exit_code == 0
    before = (out / "good.pdf").read_bytes()
    write(VALID.replace("gear: 3,", "gear: 6,"), "good.yaml")
    errors_of(run("build", "-q", "-o", str(out), good))
    assert (out / "good.pdf").read_bytes() == before
    assert files_under(out) == ["good.pdf"]


def test_only_sheetgen_errors_leave_the_library(write):
    from sheetgen.errors import SpecError
    from sheetgen.registry import load_spec

    with pytest.raises(SpecError) as info:
        load_spec(write("game: rallytaire\nname: [\n"))
    assert [str(p).split(": error: ")[1] for p in info.value.problems][0].startswith("invalid YAML")


def test_a_huge_integer_is_refused_without_quoting_all_of_it():
    from sheetgen.errors import SpecError
    from sheetgen.yamlsrc import load_text

    with pytest.raises(SpecError) as caught:
        load_text("x: " + "9" * 5000, "big.yaml")
    (problem,) = caught.value.problems
    assert str(problem) == "big.yaml:1:4: error: not a valid int: '99999999999999999999'... (5000 characters; at most 4300 digits)"


@pytest.mark.parametrize(
    "text, expected",
    [
        # a value the YAML cannot stand for hides none of the file's other problems
        (VALID.replace("length: 30", "length: .nan").replace("gear: 2,", "gear: 7,"), [(6, 13, "number must be finite, got '.nan'"), (9, 27, "'gear' must be at most 5, got 7")]),
        (VALID.replace("length: 30", "length: -.inf") + "lenght: 3\n", [(6, 13, "number must be finite, got '-.inf'"), (10, 1, "unknown key 'lenght' (expected one of: boxes, game, name, stages, tyres)")]),
        # the value stands for nothing: no second line about it
        (VALID.replace("length: 30", "length: .nan"), [(6, 13, "number must be finite, got '.nan'")]),
        ("game: .nan\n", [(1, 7, "number must be finite, got '.nan'")]),
    ],
)
def test_a_bad_value_is_reported_with_every_other_problem(run, write, text, expected):
    assert errors_of(run("validate", write(text))) == expected


def test_a_nan_in_a_results_file_hides_no_other_problem(run, tmp_path):
    import shutil

    from conftest import SPECS

    for name in ("championship.yaml", "sections.yaml"):
        shutil.copy(SPECS / "rally_risk" / name, tmp_path / name)
    results = tmp_path / "results.yaml"
    results.write_text(
        "game: rally_risk\nkind: results\nname: Club\ncalendar: championship.yaml\nplayers: [Anna, Ben]\nrallies:\n"
        "  - rally: montecarlo\n    races:\n      - finish: {Anna: .nan, Ben: 0}\n",
        encoding="utf-8",
    )
    assert errors_of(run("validate", str(results))) == [
        (9, 24, "number must be finite, got '.nan'"),
        (9, 35, "'Ben' must have the round the car finished in (1 to 10000) or destroyed / eliminated, got 0"),
    ]


def test_an_id_or_colour_ending_in_a_newline_is_refused(run, tmp_path):
    """A schema pattern ends at the end of the text (as JSON Schema reads `$`), not before a
    final newline as Python's `$` does."""
    from conftest import SPECS

    sections = (SPECS / "rally_risk" / "sections.yaml").read_text(encoding="utf-8")
    (tmp_path / "sections.yaml").write_text(sections.replace("id: start\n", 'id: "start\\n"\n', 1), encoding="utf-8")
    tiles = (SPECS / "rallyman" / "tiles.yaml").read_text(encoding="utf-8")
    (tmp_path / "tiles.yaml").write_text(tiles.replace("  - id: sg-s2\n", '  - id: "sg-s2\\n"\n', 1), encoding="utf-8")
    assert errors_of(run("validate", str(tmp_path / "sections.yaml"))) == [(9, 9, "'id' has an invalid form: 'start\\n'")]
    assert errors_of(run("validate", str(tmp_path / "tiles.yaml"))) == [(10, 9, "'id' has an invalid form: 'sg-s2\\n'")]
    template = (SPECS.parent / "templates" / "race_sheet.yaml").read_text(encoding="utf-8")
    (tmp_path / "t.yaml").write_text(template.replace('"#1a1a1a"', '"#1a1a1a\\n"', 1), encoding="utf-8")
    result = run("render", str(SPECS / "rallytaire" / "acropolis.yaml"), "--template", str(tmp_path / "t.yaml"), "-o", str(tmp_path / "x.pdf"))
    assert errors_of(result) == [(18, 11, "'text' has an invalid form: '#1a1a1a\\n'")]
    assert not (tmp_path / "x.pdf").exists()
