"""Rallyman results (kind `results`) and the standings of a rally of several stages (RD-16)."""

from __future__ import annotations

import json
import os

import pytest

from sheetgen.games.rallyman.results import DNF, parse_time

RESULTS = "track_specs/rallyman/results/winter_rally.yaml"


def test_standings_of_the_bundled_rally(run):
    result = run("analyze", RESULTS, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    table = [(r["place"], r["driver"], r["total_seconds"], r["gap_seconds"]) for r in data["standings"]]
    # Ana 130 + 175 = Ben 125 + 180 = 305 share first; Chloe 150 + 165 = 315; Dev did not finish stage 2
    assert table == [(1, "Ana", 305, 0), (1, "Ben", 305, 0), (3, "Chloe", 315, 10), (None, "Dev", 125, None)]
    assert data["stage_winners"] == [["Ben", "Dev"], ["Chloe"]]  # ties: all the fastest
    text = run("analyze", RESULTS).stdout
    assert "  3.  Chloe  2:30    2:45       5:15  +0:10" in text and "not classified" in text


def test_sheetgen_standings_scores_a_rallyman_results_file_as_analyze_does(run, tmp_path):
    """`sheetgen standings` takes any game's results file (`Game.standings`): the same table
    as analyze, and with -o the sheet build prints for the file, byte for byte."""
    data = json.loads(run("standings", RESULTS, "--format", "json").stdout)
    assert [(r["place"], r["driver"], r["total_seconds"]) for r in data["standings"]] == [(1, "Ana", 305), (1, "Ben", 305), (3, "Chloe", 315), (None, "Dev", 125)]
    assert run("standings", RESULTS).stdout == run("analyze", RESULTS).stdout
    assert run("standings", RESULTS, "-o", str(tmp_path / "s.pdf")).exit_code == 0
    assert run("build", RESULTS, "-o", str(tmp_path / "out"), "-q").exit_code == 0
    assert (tmp_path / "s.pdf").read_bytes() == (tmp_path / "out" / "winter_rally.pdf").read_bytes()


def test_a_gt_solo_league_with_stages_still_to_run(run, write):
    path = write("game: rallyman\nkind: results\nvariant: gt\nname: Solo League\nstages: [Col, Ring, Hill]\ndrivers:\n  - {name: A, times: [100, 90]}\n  - {name: B, times: [95]}\n")
    data = json.loads(run("analyze", path, "--format", "json").stdout)
    assert data["stages_run"] == 2 and data["variant"] == "gt"
    assert [(r["place"], r["driver"]) for r in data["standings"]] == [(1, "A"), (None, "B")]


@pytest.mark.parametrize(
    ("times", "where", "message"),
    [
        ('[100, "1:75"]', "7:18", "a stage time must be seconds, m:ss, dnf or null, got '1:75'"),
        ("[1, 2, 3]", "7:12", "3 times for 2 stages"),
        ("[100, 356401]", "7:18", "a stage time in seconds must be from 0 to 356400 (99 hours), got 356401"),
        ('[100, "9999:59"]', "7:18", "a stage time must be at most 5940:00 (99 hours), got '9999:59'"),
        ("[-5]", "7:13", "a stage time in seconds must be from 0 to 356400 (99 hours), got -5"),
        ("[true]", "7:13", "times[1] must be a whole number or a string or a mapping or empty, got true"),
    ],
)
def test_bad_results_are_located(run, write, times, where, message):
    path = write(f"game: rallyman\nkind: results\nname: R\nstages: [A, B]\ndrivers:\n  - name: X\n    times: {times}\n")
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{path}:{where}: error: {message}" in result.output


def test_stage_times_as_written():
    assert parse_time(75) == 75 and parse_time("1:15") == 75 and parse_time("DNF") == DNF and parse_time(None) is None
    with pytest.raises(ValueError):
        parse_time("fast")


def test_the_standings_sheet_prints_every_driver_on_a4_and_letter():
    from io import BytesIO

    from pypdf import PdfReader

    from sheetgen import registry
    from sheetgen.render.rallyman.standings import print_standings
    from sheetgen.template import load_template

    spec = registry.load_spec(RESULTS)
    for paper, size in (("a4", (595.28, 841.89)), ("letter", (612.0, 792.0))):
        pdf, pages = print_standings(spec, load_template("rally_risk"), paper=paper, ink="low", keywords=())
        reader = PdfReader(BytesIO(pdf))
        # the standings, then the DIRT rally's time sheet (its stages side by side)
        assert pages == 2 and len(reader.pages) == 2
        assert "Winter Rally: rally time sheet" in reader.pages[1].extract_text()
        box = reader.pages[0].mediabox
        assert (round(float(box.width), 2), round(float(box.height), 2)) == size
        text = reader.pages[0].extract_text()
        for needle in ("Winter Rally: standings", "Chloe", "5:15", "+0:10", "DNF", "not classified", "Ben, Dev"):
            assert needle in text, needle


def test_build_prints_the_standings_sheet_with_no_total_for_a_driver_not_classified(run, tmp_path):
    from pypdf import PdfReader

    target = tmp_path / "rally.pdf"
    assert run("render", RESULTS, "-o", str(target)).exit_code == 0
    reader = PdfReader(str(target))
    cells = [c.strip() for c in reader.pages[0].extract_text().splitlines()]
    assert len(reader.pages) == 2  # the standings, then the rally time sheet
    # Dev finished only the first stage: his 2:05 is a stage time, not a total that beats 5:05
    at = cells.index("Dev")
    assert cells[at - 1 : at + 5] == ["-", "Dev", "2:05", "DNF", "-", "not classified"]


def test_a_stage_names_a_track_file_that_exists(run, write):
    path = write("game: rallyman\nkind: results\nname: R\nstages: [{name: A, track: nope.yaml}]\ndrivers:\n  - {name: X, times: [1]}\n")
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (1, f"{path}:4:27: error: stage 'A': no track file 'nope.yaml' (a path from this file's folder)\n")


def test_a_stages_track_file_is_loaded_and_checked_as_a_track(run, write, tmp_path):
    """A stage's track is loaded as any track is (it was only named: a results file naming a
    broken track validated): its own problems at their places; a file that is no Rallyman
    track, or a track of the other game, at the stage's `track:`."""
    from conftest import SPECS

    def results(track: str) -> str:
        return write(f"game: rallyman\nkind: results\nname: R\nstages: [{{name: A, track: {track}}}]\ndrivers: [{{name: Ana, times: [100]}}]\n", "results.yaml")

    broken = write("game: rallyman\nvariant: dirt\nname: X\nlaps: 0\ncells: []\n", "broken.yaml")
    result = run("validate", results("broken.yaml"))
    assert result.exit_code == 1 and result.stderr.startswith(f"{os.path.join(os.path.dirname(broken), 'broken.yaml')}:")
    for track, words in ((str(SPECS / "rallyman" / "tiles.yaml"), "is a Rallyman tile library, not a Rallyman track"),
                         (str(SPECS / "rallytaire" / "acropolis.yaml"), "is a Rallytaire spec, not a Rallyman track"),
                         (str(SPECS / "rallyman" / "tiny.yaml"), "is a GT track; these are DIRT results")):
        path = results(track)
        result = run("validate", path)
        assert (result.exit_code, result.stderr) == (1, f"{path}:4:27: error: stage 'A': {track!r} {words}\n"), track
    assert run("validate", results(str(SPECS / "rallyman" / "dirt_lakeside.yaml"))).exit_code == 0


def test_analyze_refuses_a_track_that_cannot_be_finished_at_its_cells(run, write):
    """No solver runs on a dead end: the located lines validate --strict gives (GT and DIRT)."""
    for variant in ("gt", "dirt"):
        path = write(f"game: rallyman\nvariant: {variant}\nname: Dead\ncells:\n  - {{q: 0, r: 0, heading: 0, start: true}}\n  - {{q: 1, r: 0, heading: 3, finish: true}}\n")
        for command in (("analyze",), ("simulate", "--seed", "1")):
            result = run(*command, path)
            assert result.exit_code == 1 and result.stdout == ""
            assert result.stderr.splitlines()[0] == f"{path}:5:5: error: the track cannot be finished: no finish space is reached from the start; the road stops at cell (0, 0)"


def test_a_stage_that_fits_neither_form_is_worded_by_the_form_meant(run, write):
    """A stage is a name or {name, track}: a mapping with a typo is told its key, another
    value the forms it may take (never "is not valid under any of the given schemas")."""
    path = write("game: rallyman\nkind: results\nname: R\nstages: [{name: A, trak: x}, 5]\ndrivers:\n  - {name: X, times: [1]}\n")
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (1, f"{path}:4:20: error: unknown key 'trak', did you mean 'track'?\n{path}:4:30: error: stages[2] must be a string or a mapping, got 5\n")


def test_names_the_sheets_cannot_print_are_refused_at_their_values(run, write):
    """The results file's names are printed (the standings sheet): characters the sheets'
    font has no glyph for, or beyond U+FFFF, are refused where they are, as every game's names."""
    path = write('game: rallyman\nkind: results\nname: "東京"\nstages: [A]\ndrivers: [{name: "Ana😀", times: [100]}]\n')
    result = run("validate", path)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{path}:3:7: error: 'name' holds characters the sheets cannot print: '東' (U+6771), '京' (U+4EAC): not in the sheets' font (DejaVu Sans)",
        f"{path}:5:18: error: 'name' holds characters the sheets cannot print: '😀' (U+1F600): beyond U+FFFF, which the PDFs cannot map to text",
    ]


def test_results_that_name_themselves_or_each_other_are_refused_at_the_name(run, tmp_path):
    """A stage naming a results file (itself, or two naming each other) recursed until an
    internal RecursionError; references are checked for cycles before anything recurses."""
    head = "game: rallyman\nkind: results\nvariant: dirt\nname: Loop\nstages:\n  - {name: SS1, track: %s}\ndrivers:\n  - {name: A, times: [60]}\n"
    (tmp_path / "self.yaml").write_text(head % "self.yaml")
    result = run("validate", str(tmp_path / "self.yaml"))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{tmp_path / 'self.yaml'}:6:24: error: 'self.yaml' leads back to a file that refers to it (self.yaml -> self.yaml): files cannot refer to each other in a cycle\n",
    )
    (tmp_path / "a.yaml").write_text(head % "b.yaml")
    (tmp_path / "b.yaml").write_text(head % "a.yaml")
    result = run("standings", str(tmp_path / "a.yaml"))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{tmp_path / 'b.yaml'}:6:24: error: 'a.yaml' leads back to a file that refers to it (a.yaml -> b.yaml -> a.yaml): files cannot refer to each other in a cycle\n",
    )


def test_references_nested_past_the_limit_are_refused(run, tmp_path):
    from sheetgen.yamlsrc import MAX_REFERENCE_DEPTH

    head = "game: rallyman\nkind: results\nvariant: dirt\nname: Deep\nstages:\n  - {name: SS1, track: %s}\ndrivers:\n  - {name: A, times: [60]}\n"
    for k in range(MAX_REFERENCE_DEPTH + 2):
        (tmp_path / f"r{k}.yaml").write_text(head % f"r{k + 1}.yaml")
    result = run("validate", str(tmp_path / "r0.yaml"))
    deepest = MAX_REFERENCE_DEPTH - 1
    assert (result.exit_code, result.stderr) == (
        1,
        f"{tmp_path / f'r{deepest}.yaml'}:6:24: error: 'r{deepest + 1}.yaml': references nested too deep (a file naming a file naming a file ... over {MAX_REFERENCE_DEPTH} levels)\n",
    )
