"""Small inputs that would take minutes are refused at once, naming the limit they exceed
(issue: slow small inputs). Each refusal is one located line; the limits are the solvers'."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from conftest import SPECS
from sheetgen.games.rally_risk.spec import MAX_CALENDAR_RACES, MAX_CALENDAR_SPACES, MAX_RACE_SPACES
from sheetgen.games.rallytaire.solve_advanced import MAX_SOLVE_POINTS, MAX_SOLVE_SIZE

LONG_LIBRARY = """\
game: rally_risk
kind: library
name: long roads
card_mm: 110
sections:
  - {id: start, name: Start, tags: [straight, fast_road], entry: S, exit: N, factors: [0, 0, 0, 0, 0, 0], copies: 1}
  - {id: long, name: Long, tags: [straight], entry: S, exit: N, factors: [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], copies: 20}
"""


def race_of(sections: int) -> str:
    legs = "\n".join(["  - {section: start, heading: N}"] + ["  - {section: long, heading: N}"] * (sections - 1))
    return f"game: rally_risk\nkind: race\nname: Long\nzone: EC\nspecial: false\nlibrary: lib.yaml\ncourse:\n{legs}\n"


def test_a_rally_risk_race_over_the_analysed_length_is_refused_at_its_course(run, tmp_path):
    (tmp_path / "lib.yaml").write_text(LONG_LIBRARY, encoding="utf-8")
    race = tmp_path / "race.yaml"
    race.write_text(race_of(21), encoding="utf-8")  # 6 + 20 x 20 = 406 spaces: about 30 s per assistance type
    for command in (("validate", str(race)), ("analyze", str(race)), ("render", str(race), "-o", str(tmp_path / "r.pdf"))):
        result = run(*command)
        assert (result.exit_code, result.stderr) == (1, f"{race}:7:1: error: the course has 406 spaces; sheetgen analyses and prints races of at most {MAX_RACE_SPACES} spaces\n")
    race.write_text(race_of(6), encoding="utf-8")  # 106 spaces: analysed
    assert run("validate", str(race)).exit_code == 0


def test_a_calendar_over_its_race_count_is_refused_at_its_rallies(run, tmp_path):
    rallies = "\n".join(f"  - {{id: r{i}, name: R{i}, zone: EC, races: [{', '.join(['8'] * 60)}]}}" for i in range(30))
    spec = tmp_path / "cal.yaml"
    spec.write_text(f"game: rally_risk\nkind: calendar\nname: Huge\nlibrary: {SPECS / 'rally_risk' / 'sections.yaml'}\nrallies:\n{rallies}\n", encoding="utf-8")
    for command in (("validate", str(spec)), ("calendar", str(spec), "--seed", "1", "--jobs", "1")):
        result = run(*command)
        assert (result.exit_code, result.stderr) == (1, f"{spec}:5:1: error: the calendar has 1800 races and specials; at most {MAX_CALENDAR_RACES} (each is analysed when the calendar is built)\n")


def championship_with(tmp_path, rally: str):
    """The rulebook's championship (8 rallies, 22 races: 952 spaces at most, its sections'
    longest being 7 spaces) with one rally more, beside a copy of its library."""
    shutil.copy(SPECS / "rally_risk" / "sections.yaml", tmp_path / "sections.yaml")
    spec = tmp_path / "championship.yaml"
    text = (SPECS / "rally_risk" / "championship.yaml").read_text(encoding="utf-8")
    spec.write_text(text + rally, encoding="utf-8")
    return spec


def test_a_calendar_whose_races_may_run_over_its_spaces_is_refused_at_its_rallies(run, tmp_path):
    """A championship grown to 30 rallies (82 races, found by the fuzz harness) took 23 s of
    CPU: a calendar's races, each counted at its longest, may run to 1,000 spaces in all. One
    race of 7 sections more than the rulebook's 22 (952 + 49) is refused at once, nothing
    written, by every command that would analyse it; one of 6 (952 + 42 = 994) is not."""
    spec = championship_with(tmp_path, "  - {id: extra, name: Extra, zone: EC, races: [7]}\n")
    line = (
        f"{spec}:10:1: error: the calendar's races may run to 1,001 spaces in all (each race's sections x the library's "
        f"longest section, 7 spaces, at most {MAX_RACE_SPACES} a race); at most {MAX_CALENDAR_SPACES:,} (each race is "
        "analysed when the calendar is built)\n"
    )
    out = tmp_path / "out"
    for command in (
        ("validate", str(spec)),
        ("calendar", str(spec), "--seed", "1", "--jobs", "1", "-o", str(out)),
        ("build", str(spec), "-o", str(out), "--jobs", "1"),
        ("render", str(spec), "-o", str(tmp_path / "cal.pdf")),
    ):
        result = run(*command)
        assert (result.exit_code, result.stderr, result.stdout) == (1, line, ""), command
    assert sorted(p.name for p in tmp_path.iterdir()) == ["championship.yaml", "sections.yaml"]
    spec = championship_with(tmp_path, "  - {id: extra, name: Extra, zone: EC, races: [6]}\n")
    assert run("validate", str(spec)).exit_code == 0


@pytest.mark.slow  # 23 races analysed and printed: about 7 s of CPU
def test_the_largest_calendar_allowed_is_built(run, tmp_path):
    spec = championship_with(tmp_path, "  - {id: extra, name: Extra, zone: EC, races: [6]}\n")
    result = run("calendar", str(spec), "--seed", "1", "--jobs", "1", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("World Championship: 9 rallies, 23 races (seed 1)\n")
    assert "\nExtra (EC): free choice of sections\n  race 1     6 sections, " in result.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["championship-seed1.pdf", "championship-seed1.yaml"]


def test_a_calendar_whose_races_cannot_be_short_enough_is_explained(run, tmp_path):
    (tmp_path / "lib.yaml").write_text(LONG_LIBRARY.replace("factors: [0, 0, 0, 0, 0, 0]", "factors: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"), encoding="utf-8")
    spec = tmp_path / "cal.yaml"
    spec.write_text("game: rally_risk\nkind: calendar\nname: Long\nlibrary: lib.yaml\nrallies:\n  - {id: far, name: Far, zone: EC, races: [7]}\n", encoding="utf-8")
    result = run("calendar", str(spec), "--seed", "1", "--jobs", "1")
    assert result.exit_code == 1
    assert result.stderr == (
        f"{spec}:6:43: error: rally 'far' has races of 7 sections: even the library's shortest sections (20 spaces) make 140 spaces, "
        f"and sheetgen analyses races of at most {MAX_RACE_SPACES}\n"
    )


ADVANCED = "game: rallytaire\nname: Huge\nboxes: {engine: 9, brakes: 9, gearbox: 9, car: 9}\nstages:\n" + "".join(
    f"  - {{name: SS{i + 1}, surface: gravel, length: 110, corners: []}}\n" for i in range(2)
)
LONG = "game: rallytaire\nname: Long\nstages:\n" + "".join(
    f"  - {{name: SS{i + 1}, surface: gravel, length: 220, corners: []}}\n" for i in range(8)
)


def test_an_advanced_race_too_large_to_solve_is_refused_at_its_boxes(run, tmp_path):
    race = tmp_path / "race.yaml"
    race.write_text(ADVANCED, encoding="utf-8")
    line = (
        f"{race}:3:1: error: the advanced game's exact analysis of this race is too large: (220 spaces + 0 corners) x 9000 box states "
        f"x 3 tyres = 5,940,000 (the limit is {MAX_SOLVE_SIZE:,}); fewer boxes, tyres, spaces or corners make it solvable\n"
    )
    for command in (("analyze", str(race), "--rules", "advanced"), ("simulate", str(race), "--rules", "advanced", "--seed", "1")):
        result = run(*command)
        assert (result.exit_code, result.stderr, result.stdout) == (1, line, ""), command
    # the basic game is solved as ever; the race sheet leaves the advanced par out
    assert run("analyze", str(race)).exit_code == 0


def test_an_advanced_race_too_long_to_solve_is_refused_at_its_stages(run, tmp_path):
    """Building the solve's graphs grows with (spaces + corners) x tyres whatever the boxes:
    8 stages of 220 spaces (5,280) would take over 10 s of CPU."""
    race = tmp_path / "race.yaml"
    race.write_text(LONG, encoding="utf-8")
    line = (
        f"{race}:3:1: error: the advanced game's exact analysis of this race is too long: (1760 spaces + 0 corners) x 3 tyres "
        f"= 5,280 (the limit is {MAX_SOLVE_POINTS:,}: about 10 s of CPU); fewer or shorter stages, fewer corners or tyres "
        "make it solvable\n"
    )
    for command in (("analyze", str(race), "--rules", "advanced"), ("simulate", str(race), "--rules", "advanced", "--seed", "1")):
        result = run(*command)
        assert (result.exit_code, result.stderr, result.stdout) == (1, line, ""), command


def test_the_race_sheet_prints_the_advanced_figures_up_to_its_own_limit():
    """The race sheet's advanced figures: the bundled races have them; a race over
    SHEET_MAX_POINTS, which `analyze --rules advanced` still solves, prints without them."""
    from sheetgen.games.rallytaire.analysis_advanced import sheet_figures
    from sheetgen.games.rallytaire.solve_advanced import SHEET_MAX_POINTS, solve_points, too_large_to_solve
    from sheetgen.registry import load_spec

    race = load_spec(SPECS / "rallytaire" / "thousand_lakes.yaml").model
    assert sheet_figures(race) is not None
    stage = race.stages[0]
    count = SHEET_MAX_POINTS // solve_points(replace(race, stages=(stage,))) + 1
    long = replace(race, stages=tuple(replace(stage, name=f"SS{k}") for k in range(count)))
    assert SHEET_MAX_POINTS < solve_points(long) <= MAX_SOLVE_POINTS and too_large_to_solve(long) is None
    assert sheet_figures(long) is None


def test_the_bundled_races_are_far_below_the_limits():
    from sheetgen.games.rallytaire.solve_advanced import SHEET_MAX_POINTS, solve_points, solve_size
    from sheetgen.registry import load_spec

    for path in sorted((SPECS / "rallytaire").glob("*.yaml")):
        assert solve_size(load_spec(path).model) < MAX_SOLVE_SIZE / 5
        assert solve_points(load_spec(path).model) <= SHEET_MAX_POINTS
    for path in sorted((SPECS / "rally_risk").glob("*.yaml")):
        spec = load_spec(path)
        if spec.kind == "race":
            assert spec.model.length <= MAX_RACE_SPACES / 2


def test_a_huge_number_in_an_option_is_a_usage_error(run):
    result = run("generate", "rallytaire", "--seed", "1", "--length", "9" * 5000)
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: Invalid value for '--length': expected MIN..MAX such as 40..70, got '99999999999999999999'... (5000 characters)\n")


def test_a_season_that_would_generate_too_much_is_refused_at_once(run, tmp_path):
    from sheetgen.games.rallytaire.season import MAX_GENERATED_SPACES

    # two races of 4 stages of 40-70 spaces (the defaults) took 9.5 s of CPU on a loaded machine
    races = "".join(f"  - generate: {{seed: {i}}}\n" for i in range(20))
    spec = tmp_path / "season.yaml"
    spec.write_text(f"game: rallytaire\nkind: season\nname: Huge\nraces:\n{races}", encoding="utf-8")
    line = (
        f"{spec}:6:15: error: the season's generated races reach 560 spaces here (stages x longest length); at most {MAX_GENERATED_SPACES} "
        "are generated for a season: give fewer or shorter generated races, or race files\n"
    )
    for command in (("validate", str(spec)), ("validate", "--strict", str(spec)), ("season", str(spec))):
        result = run(*command)
        assert (result.exit_code, result.stderr) == (1, line), command
    # at the limit: 280 + 20
    spec.write_text(
        "game: rallytaire\nkind: season\nname: Full\nraces:\n  - generate: {seed: 1}\n"
        "  - generate: {seed: 2, stages: 1, length: [10, 20]}\n",
        encoding="utf-8",
    )
    assert MAX_GENERATED_SPACES == 4 * 70 + 20
    assert run("validate", str(spec)).exit_code == 0


def test_a_race_sheet_without_its_advanced_figures_says_why(run, tmp_path):
    """A race over the sheet's limit prints its basic par and, where the advanced figures
    would be, that they were left out and where to find them; the bundled race beside it
    prints them."""
    import copy
    import io

    import yaml
    from pypdf import PdfReader

    doc = yaml.safe_load((SPECS / "rallytaire" / "thousand_lakes.yaml").read_text(encoding="utf-8"))
    doc["stages"] = [dict(copy.deepcopy(stage), name=f"{stage['name']} {k}") for k in range(2) for stage in doc["stages"]]
    spec = tmp_path / "long.yaml"
    spec.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for path, has in ((spec, False), (SPECS / "rallytaire" / "thousand_lakes.yaml", True)):
        pdf = tmp_path / "sheet.pdf"
        assert run("render", str(path), "-o", str(pdf)).exit_code == 0
        first = PdfReader(io.BytesIO(pdf.read_bytes())).pages[0].extract_text()
        assert "race par" in first and "basic game" in first
        assert ("advanced: p10" in first) is has
        assert ("advanced figures left out:" in first and "see analyze --rules advanced" in first) is not has
