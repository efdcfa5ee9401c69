"""Championships: the rulebook's calendar built for many seeds and checked here without the
builder's code, impossible calendars explained, scoring A and B with the rulebook's
example and tie rules, results files, standings, the Rallytaire season, and the PDFs."""

from __future__ import annotations

import io
import json
import shutil

import pytest
import yaml
from pypdf import PdfReader

from conftest import SPECS, files_under
from pdfops import operations
from sheetgen.games.rally_risk.championship import (
    CalendarError,
    RaceCheck,
    build_calendar,
    calendar_to_json,
    calendar_yaml,
)
from sheetgen.games.rally_risk.model import Assistance, Calendar, Results
from sheetgen.games.rally_risk.scoring import championship_points, last_to_arrive, score_a
from sheetgen.games.rally_risk.spec import calendar_to_data, load_calendar
from sheetgen.games.rally_risk.standings import standings
from sheetgen.registry import load_spec
from sheetgen.yamlsrc import load_text

RR = SPECS / "rally_risk"
CHAMPIONSHIP = RR / "championship.yaml"
FILL_OPERATORS = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"sh"}

# The rulebook's Calendar, transcribed here (not read from any spec): name, zone, sections of
# each race, sections of each special, limits per race.
RULEBOOK = [
    ("Montecarlo", "EC", [6, 6, 6], [5], {"max_sharp_curves": 1, "max_fords": 1}),
    ("Sweden", "EN", [7, 7], [5], {"max_fords": 2, "max_fast_roads": 2}),
    ("Italy", "EC", [7], [5], {}),
    ("Safari", "A", [8, 8], [], {"max_sharp_curves": 1, "min_fords": 3}),
    ("Marocco", "A", [6, 6], [], {}),
    ("Austrian Alps", "EC", [6, 6], [6], {"max_fords": 1}),
    ("Alpine Cup", "EC", [6, 6, 6], [], {"min_sharp_curves": 2, "max_fords": 1}),
    ("Great Britain", "EC", [6, 6, 6], [], {"max_sharp_curves": 1}),
]
TAG_OF = {"sharp_curves": "sharp_curve", "fords": "ford", "fast_roads": "fast_road"}
SIDES = ["N", "E", "S", "W"]
STEP = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


@pytest.fixture(scope="module")
def championship() -> Calendar:
    return load_spec(CHAMPIONSHIP).model


@pytest.fixture(scope="module")
def library_raw() -> dict:
    """The bundled library read as plain YAML, without sheetgen's loader."""
    data = yaml.safe_load((RR / "sections.yaml").read_text(encoding="utf-8"))
    return {s["id"]: s for s in data["sections"]}


def calendar_problems(data: dict, library: dict) -> list[str]:
    """Every way the calendar JSON breaks the rulebook's calendar or the table's geometry,
    computed here from the rulebook transcription and the raw library."""
    out = []
    if [r["name"] for r in data["rallies"]] != [name for name, *_rest in RULEBOOK]:
        return [f"rallies {[r['name'] for r in data['rallies']]}"]
    for rally, (name, zone, races, specials, limits) in zip(data["rallies"], RULEBOOK):
        if rally["zone"] != zone:
            out.append(f"{name}: zone {rally['zone']}")
        sizes = [len(r["sections"]) for r in rally["races"] if not r["special"]]
        special_sizes = [len(r["sections"]) for r in rally["races"] if r["special"]]
        if sizes != races or special_sizes != specials:
            out.append(f"{name}: sizes {sizes} {special_sizes}")
        if [r["special"] for r in rally["races"]] != sorted(r["special"] for r in rally["races"]):
            out.append(f"{name}: a special before a normal race")
        for race in rally["races"]:
            where = f"{name} / {race['name']}"
            ids = [s["id"] for s in race["sections"]]
            first = library[ids[0]]
            if any(first["factors"]):
                out.append(f"{where}: first section {ids[0]} has factors {first['factors']}")
            for sid in set(ids):
                if ids.count(sid) > library[sid].get("copies", 1):
                    out.append(f"{where}: {sid} used {ids.count(sid)} times")
            for key, word in TAG_OF.items():
                n = sum(word in library[sid].get("tags", []) for sid in ids)
                if n < limits.get(f"min_{key}", 0) or n > limits.get(f"max_{key}", 99):
                    out.append(f"{where}: {n} {key}")
            # "1 ford" read as the fords a player counts on the table, too
            on_table = sum(len(library[sid].get("fords", [])) for sid in ids)
            if on_table > limits.get("max_fords", 99):
                out.append(f"{where}: {on_table} fords on the table")
            # lay the course on a grid: each section turned so that it is entered heading `heading`
            cell, cells, heading = (0, 0), [], None
            for k, section in enumerate(race["sections"]):
                raw = library[section["id"]]
                if section["tags"] != raw.get("tags", []) or section["factors"] != raw["factors"]:
                    out.append(f"{where}: section {k + 1} does not match the library")
                if heading is not None and section["heading"] != heading:
                    out.append(f"{where}: section {k + 1} does not connect")
                entered_through = SIDES[(SIDES.index(section["heading"]) + 2) % 4]
                turn = (SIDES.index(entered_through) - SIDES.index(raw["entry"])) % 4
                heading = SIDES[(SIDES.index(raw["exit"]) + turn) % 4]
                cells.append(cell)
                cell = (cell[0] + STEP[heading][0], cell[1] + STEP[heading][1])
            if len(set(cells)) != len(cells):
                out.append(f"{where}: the layout overlaps itself")
    return out


# --------------------------------------------------------------------------- the calendar spec


def test_championship_spec_is_the_rulebook_calendar(championship):
    got = [
        (r.name, r.zone.value, list(r.races), list(r.specials), {k: v for k, v in vars(r.limits).items() if v is not None})
        for r in championship.rallies
    ]
    assert got == RULEBOOK
    assert championship.library == "sections.yaml" and championship.sections is not None
    # the bundled races are checked against it
    for name in ("montecarlo_1", "montecarlo_special", "sweden_1", "safari_1"):
        race = load_spec(RR / f"{name}.yaml")
        assert str(RR / "championship.yaml") in race.sources, name


def test_twenty_seeds_meet_every_limit_and_differ(championship, library_raw):
    """Limits, section counts, first section, copies, connection and overlap, checked by
    `calendar_problems` for 20 seeds (the finishability analysis is in the next test)."""
    seen = set()
    for seed in range(20):
        built = build_calendar(championship, seed, check=None)
        data = calendar_to_json(built)
        assert calendar_problems(data, library_raw) == [], seed
        courses = tuple(tuple(s["id"] for s in race["sections"]) for rally in data["rallies"] for race in rally["races"])
        assert len(set(courses)) == len(courses), f"seed {seed}: two races of the calendar are the same"
        seen.add(courses)
        if seed < 3:  # (built again for a few: the golden calendar and the fuzz batch check the rest)
            assert build_calendar(championship, seed, check=None) == built  # the seed decides
    assert len(seen) == 20


def test_the_checker_catches_broken_calendars(championship, library_raw):
    """The independent checker is not vacuous: it sees every kind of fault."""
    data = calendar_to_json(build_calendar(championship, 3, check=None))

    def leg(sid, heading):
        raw = library_raw[sid]
        return {"id": sid, "heading": heading, "tags": raw.get("tags", []), "factors": raw["factors"]}

    mc = data["rallies"][0]["races"]
    # four right bends in a row come back onto the first square
    mc[0]["sections"] = [leg("start", "N"), leg("right_bend", "N"), leg("right_bend", "E"), leg("right_bend", "S"), leg("right_sweeper", "W"), leg("straight", "N")]
    mc[1]["sections"][1] = dict(mc[1]["sections"][1], heading="S")
    mc[2]["sections"][0] = leg("fast_road", "N")
    mc[3]["sections"] = [leg("start", "N"), leg("right_hairpin", "N"), leg("left_hairpin", "E"), leg("straight", "N"), leg("straight", "N")]
    safari = data["rallies"][3]["races"][0]
    safari["sections"] = [leg("start", "N")] + [leg("straight", "N")] * 3 + [leg("village", "N"), leg("chicane", "N"), leg("mountain", "N"), leg("start", "N")]
    problems = calendar_problems(data, library_raw)
    assert "Montecarlo / Montecarlo, race 1: the layout overlaps itself" in problems
    assert "Montecarlo / Montecarlo, race 2: section 2 does not connect" in problems
    assert "Montecarlo / Montecarlo, race 3: first section fast_road has factors [0, 0, 1, 0, 0, 1, 0]" in problems
    assert "Montecarlo / Montecarlo, special: 2 sharp_curves" in problems
    assert "Safari / Safari, race 1: 0 fords" in problems
    assert "Safari / Safari, race 1: straight used 3 times" not in problems  # the box has 3
    safari["sections"][4] = leg("straight", "N")
    assert "Safari / Safari, race 1: straight used 4 times" in calendar_problems(data, library_raw)


# --------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def built_files(tmp_path_factory):
    """`sheetgen calendar` on the bundled championship, seed 11, full analysis: its JSON
    and the files it wrote."""
    from click.testing import CliRunner

    from sheetgen.cli import main

    out = tmp_path_factory.mktemp("calendar")
    result = CliRunner().invoke(main, ["calendar", str(CHAMPIONSHIP), "--seed", "11", "-o", str(out), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), out


@pytest.mark.slow  # the calendar command at seed 11 (7 s, shared by four tests): the golden calendar at seed 1 checks the command in the default suite
def test_calendar_command_full_analysis(built_files, library_raw):
    data, out = built_files
    assert calendar_problems(data, library_raw) == []
    assert data["seed"] == 11 and data["check"] == {"assistance": "permanent", "mechanics": 0, "threshold": 0.05}
    races = [race for rally in data["rallies"] for race in rally["races"]]
    assert len(races) == 22
    assert all(race["elimination_probability"] < 0.05 and race["expected_rounds"] > 3 for race in races)
    shape = data["rallies"][0]["races"][0]["sections"][0]
    assert set(shape) >= {"id", "tags", "factors"} and data["rallies"][0]["races"][0]["special"] is False
    assert [f["path"] for f in data["files"]] == [str(out / "championship-seed11.yaml"), str(out / "championship-seed11.pdf")]
    assert files_under(out) == ["championship-seed11.pdf", "championship-seed11.yaml"]


@pytest.mark.slow  # the calendar command at seed 11 (7 s, shared by four tests): the golden calendar at seed 1 checks the command in the default suite
def test_written_calendar_validates_and_round_trips(built_files, run):
    data, out = built_files
    spec = out / "championship-seed11.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.startswith("# World Championship, every race laid out: built by\n")
    result = run("validate", str(spec))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{spec}: ok (Rally Risk: calendar, 8 rallies, 22 races, every race laid out)\n"
    model = load_spec(spec).model
    assert model.built
    ids = [[leg.section.id for leg in race.course] for rally in model.rallies for race in rally.courses]
    assert ids == [[s["id"] for s in race["sections"]] for rally in data["rallies"] for race in rally["races"]]
    # the text is what the dumper gives: the loader reads it back as the same data
    assert load_calendar(load_text(calendar_yaml(model), str(spec))) == model
    assert calendar_to_data(load_calendar(load_text(calendar_yaml(model), str(spec)))) == calendar_to_data(model)


@pytest.mark.slow  # the calendar command at seed 11 (7 s, shared by four tests): the golden calendar at seed 1 checks the command in the default suite
def test_finishability_agrees_with_the_full_analysis(built_files):
    """Two races of the built calendar, analysed as `validate --strict` does for race files
    (every assistance type, mechanics placed): finishable too."""
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race

    _data, out = built_files
    model = load_spec(out / "championship-seed11.yaml").model
    for race in (model.rallies[3].courses[0], model.rallies[6].courses[2]):  # Safari (fords), Alpine Cup (2 hairpins)
        assert analyze_rally_risk_race(race).finishable


@pytest.mark.slow  # the calendar command at seed 11 (7 s, shared by four tests): the golden calendar at seed 1 checks the command in the default suite
def test_calendar_pdf(built_files):
    data, out = built_files
    pdf = PdfReader(out / "championship-seed11.pdf")
    text = [page.extract_text() for page in pdf.pages]
    # overview, 22 course sheets, the score sheet, the reference card (no section lists: the
    # course sheets print them)
    assert len(pdf.pages) == 1 + 22 + 1 + 1
    assert not any("section lists" in t for t in text)
    assert {tuple(round(float(v)) for v in page.mediabox[2:]) for page in pdf.pages} == {(595, 842)}
    assert "World Championship: calendar" in text[0] and "seed 11" in text[0]
    assert "Montecarlo, race 1" in text[1]  # its course sheet
    assert "World Championship: score sheet" in text[-2]
    assert "-3" in text[-2]  # the rulebook's example in the scoring notes
    assert "Rally Risk reference card" in text[-1] and "HOUSE TABLES" in text[-1]
    meta = pdf.metadata
    assert f"spec-sha256:{load_spec(CHAMPIONSHIP).sha256}" in meta["/Keywords"] and "seed:11" in meta["/Keywords"]
    for page in (pdf.pages[0], pdf.pages[1], pdf.pages[len(pdf.pages) - 1]):
        for ref in page["/Resources"]["/Font"].values():
            font = ref.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            assert any(k in descendant["/FontDescriptor"].get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3"))


def _small_calendar(folder, text_rallies: str) -> str:
    shutil.copy(RR / "sections.yaml", folder / "sections.yaml")
    path = folder / "cal.yaml"
    path.write_text("game: rally_risk\nkind: calendar\nname: Small\nlibrary: sections.yaml\nrallies:\n" + text_rallies, encoding="utf-8")
    return str(path)


SMALL = "  - {id: montecarlo, name: Montecarlo, zone: EC, races: [6], specials: [5], limits: {max_sharp_curves: 1, max_fords: 1}}\n"


def test_calendar_is_byte_identical_and_letter_and_low_ink(run, tmp_path):
    spec = _small_calendar(tmp_path, SMALL)
    for name, extra in (("one", []), ("two", []), ("letter", ["--paper", "letter", "--ink", "low"])):
        result = run("calendar", spec, "--seed", "5", "-o", str(tmp_path / name), "--jobs", "1", *extra)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[-1] == f"wrote {tmp_path / name / 'cal-seed5.pdf'} (5 pages)"
    for suffix in ("yaml", "pdf"):
        assert (tmp_path / "one" / f"cal-seed5.{suffix}").read_bytes() == (tmp_path / "two" / f"cal-seed5.{suffix}").read_bytes()
    letter = (tmp_path / "letter" / "cal-seed5.pdf").read_bytes()
    pdf = PdfReader(io.BytesIO(letter))
    assert {tuple(round(float(v)) for v in p.mediabox[2:]) for p in pdf.pages} == {(612, 792)}
    ops = set()
    for page in pdf.pages:
        ops.update(op for _o, op in operations(page.get_contents(), pdf))
    assert not ops & FILL_OPERATORS
    assert "library: ../sections.yaml" in (tmp_path / "one" / "cal-seed5.yaml").read_text(encoding="utf-8")


def test_calendar_text_output_and_seed_is_printed(run, tmp_path):
    spec = _small_calendar(tmp_path, SMALL)
    result = run("calendar", spec, "--jobs", "1")
    assert result.exit_code == 0
    assert result.stderr.startswith("seed ") and "rerun with --seed" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Small: 1 rally, 2 races (seed ")
    assert lines[2] == "Montecarlo (EC): at most 1 sharp curve, at most 1 ford"
    assert lines[3].startswith("  race 1     6 sections, ") and lines[4].startswith("  special    5 sections, ")
    assert files_under(tmp_path) == ["cal.yaml", "sections.yaml"]  # no -o: nothing written


# --------------------------------------------------------------------------- impossible calendars


def _where(path, needle: str, after: str) -> tuple[int, int]:
    """Line and column (1-based) of `needle` on the first line containing `after`."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if after in line:
            return n, line.index(needle) + 1
    raise AssertionError(after)


def test_infeasible_calendar_is_explained_and_writes_nothing(run, tmp_path):
    """The rulebook's Safari asks for 3 fords per race; a box with 2 ford sections cannot."""
    shutil.copy(CHAMPIONSHIP, tmp_path / "championship.yaml")
    library = yaml.safe_load((RR / "sections.yaml").read_text(encoding="utf-8"))
    library["sections"] = [s for s in library["sections"] if s["id"] not in ("ford_bend", "wadi")]
    (tmp_path / "sections.yaml").write_text(yaml.safe_dump(library, sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    result = run("calendar", str(tmp_path / "championship.yaml"), "--seed", "1", "-o", str(out))
    assert result.exit_code == 1
    line, col = _where(tmp_path / "championship.yaml", "3}", "id: safari")
    assert result.stderr == (
        f"{tmp_path / 'championship.yaml'}:{line}:{col}: error: rally 'safari' asks for at least 3 fords per race, "
        "but the library holds 2 ford sections: 'ford' (2 copies)\n"
    )
    assert result.stdout == ""
    assert files_under(out) == []


def test_every_reason_at_once(run, tmp_path):
    spec = _small_calendar(
        tmp_path,
        "  - {id: a, zone: EC, races: [9], limits: {min_sharp_curves: 9}}\n"
        "  - {id: b, zone: EC, races: [25]}\n"
        "  - {id: c, zone: EC, races: [4], limits: {max_fast_roads: 0}}\n"
        "  - {id: d, zone: EC, races: [3], limits: {min_sharp_curves: 2, min_fords: 2}}\n",
    )
    result = run("calendar", spec, "--seed", "1")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{spec}:6:62: error: rally 'a' asks for at least 9 sharp curves per race, but its race 1 has 9 sections, and the first must be a factor-0 section, which no sharp curve is",
        f"{spec}:6:62: error: rally 'a' asks for at least 9 sharp curves per race, but the library holds 2 sharp curve sections: 'right_hairpin', 'left_hairpin'",
        f"{spec}:7:30: error: rally 'b' has races of 25 sections: even the library's shortest sections (5 spaces) make 125 spaces, and sheetgen analyses races of at most 120",
        f"{spec}:7:31: error: rally 'b': race 1 has 25 sections, but the library holds 24 in all",
        f"{spec}:8:60: error: rally 'c' allows no fast road, but every factor-0 section of the library is one ('start' (2 copies)), and a race must start on one",
        f"{spec}:9:43: error: rally 'd': no 3 sections of the library (copies counted, the first a factor-0 section) meet its limits (at least 2 sharp curves, at least 2 fords)",
    ]


def test_a_layout_that_always_overlaps(run, tmp_path):
    (tmp_path / "lib.yaml").write_text(
        "game: rally_risk\nkind: library\nname: Right only\nsections:\n"
        "  - {id: start, tags: [straight], entry: S, exit: N, factors: [0, 0, 0]}\n"
        "  - {id: rb, tags: [curve], entry: S, exit: E, factors: [1, 2, 1], copies: 9}\n",
        encoding="utf-8",
    )
    (tmp_path / "cal.yaml").write_text(
        "game: rally_risk\nkind: calendar\nname: Loops\nlibrary: lib.yaml\nrallies:\n  - {id: loop, zone: EC, races: [8]}\n", encoding="utf-8"
    )
    result = run("calendar", str(tmp_path / "cal.yaml"), "--seed", "1")
    assert result.exit_code == 1
    assert result.stderr == (
        f"{tmp_path / 'cal.yaml'}:6:34: error: rally 'loop': no 8 sections of the library meeting its limits (free choice of sections) "
        "lay out on the table without overlapping (every arrangement tried) for race 1 (8 sections)\n"
    )


def test_unfinishable_courses_are_replaced_then_refused(championship):
    """The check is a parameter: courses it refuses are replaced by other courses; a race
    with no acceptable course is refused with the check's figures."""
    no_hairpins = lambda race: RaceCheck(9.0, 0.5 if any("hairpin" in leg.section.id for leg in race.course) else 0.0)  # noqa: E731
    without_alpine = Calendar("No Alpine Cup", championship.rallies[:6] + championship.rallies[7:], championship.library, championship.sections)
    built = build_calendar(without_alpine, 4, check=no_hairpins)
    assert all("hairpin" not in leg.section.id for _r, race, _c in built.races() for leg in race.course)
    assert built != build_calendar(without_alpine, 4, check=None)  # some courses were replaced
    # the Alpine Cup asks for 2 sharp curves per race: the box's only ones are the hairpins
    alpine = Calendar("Alpine", (championship.rallies[6],), championship.library, championship.sections)
    with pytest.raises(CalendarError) as caught:
        build_calendar(alpine, 4, check=no_hairpins)
    (path, message), *_rest = caught.value.problems
    assert path == ("rallies", 0, "races", 0)
    assert message == (
        "rally 'alpine_cup': race 1 (6 sections): none of the 12 courses tried can be finished "
        "(permanent assistance, no mechanics, P(elimination) under 5%); the safest was eliminated with probability 50.0%"
    )


def test_a_calendar_without_library_and_a_course_that_breaks_its_rally(run, tmp_path):
    (tmp_path / "cal.yaml").write_text(
        "game: rally_risk\nkind: calendar\nname: No box\nrallies:\n  - {id: a, zone: EC, races: [6]}\n", encoding="utf-8"
    )
    result = run("calendar", str(tmp_path / "cal.yaml"), "--seed", "1")
    assert result.exit_code == 1
    assert result.stderr == f"{tmp_path / 'cal.yaml'}:1:1: error: the calendar names no 'library': add the file of the road sections to choose from (library: sections.yaml)\n"
    spec = _small_calendar(
        tmp_path,
        "  - id: montecarlo\n    zone: EC\n    races: [3]\n    specials: [2]\n    limits: {max_sharp_curves: 0}\n    courses:\n"
        "      - special: true\n        course: [{section: start, heading: N}, {section: right_hairpin, heading: N}]\n"
        "      - course: [{section: start, heading: N}, {section: right_bend, heading: N}, {section: straight, heading: N}]\n",
    )
    result = run("validate", spec)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{spec}:13:9: error: the course has 1 sharp curve section; rally 'montecarlo' allows at most 0",
        f"{spec}:14:9: error: a normal race cannot follow a special: list the normal races first, then the specials",
        f"{spec}:14:112: error: section 3 'straight' is entered heading N, but section 2 'right_bend' leaves heading E: the sections do not connect",
    ]
    spec = _small_calendar(
        tmp_path,
        "  - id: montecarlo\n    zone: EC\n    races: [3, 3]\n    courses:\n"
        "      - course: [{section: start, heading: N}, {section: straight, heading: N}]\n",
    )
    result = run("validate", spec)
    assert result.stderr.splitlines() == [
        f"{spec}:9:5: error: rally 'montecarlo' has 2 races; 'courses' gives 1 race",
        f"{spec}:10:9: error: race 1 of rally 'montecarlo' has 3 sections; this course has 2",
    ]


# --------------------------------------------------------------------------- scoring


def test_rulebook_scoring_example():
    """Players 2 and 3 finish together, player 1 two rounds later, player 4 four rounds
    later: relative times 3: -3, 2: -2, 4: 0, 1: +1 (players in departure order)."""
    assert score_a([12, 10, 10, 14]) == (1, -2, -3, 0)


def test_destroyed_car_scores_the_last_arrival_plus_two():
    assert score_a([5, None, 7]) == (-1, 1, -1)  # last arrival -1, destroyed -1 + 2
    assert score_a([None, None]) == (2, 2)


def test_the_last_to_arrive_is_the_last_of_the_order_of_arrival():
    """RR-19/RR-21 (issue 34, replacing the reading "the car that crossed the finish last, in
    rounds"): the order of arrival is the score A ranking ("At the same time we have this
    order of arrival"), so the last to arrive is the car that arrived with the worst score A.
    The issue's five cars, in departure order: Anna 10, Ben 10, Carla destroyed, Dario 10,
    Ema 11. Scores A: Anna 0 - 1 = -1, Ben -2, Dario -4, Ema 1 - 5 = -4; the last to arrive
    is Anna (-1), so Carla scores -1 + 2 = +1, behind every car that arrived. By rounds Ema
    (round 11, a winner of the race) was the last: Carla scored -4 + 2 = -2, ahead of Anna."""
    five = [10, 10, None, 10, 11]
    assert score_a(five) == (-1, -2, 1, -4, -4)
    assert last_to_arrive(five) == (0,)  # Anna chooses the next race (not Ema)
    points = championship_points(dict(zip(("Anna", "Ben", "Carla", "Dario", "Ema"), score_a(five))))
    # Dario and Ema share first (9), Ben third (4), Anna fourth (3), Carla fifth (2); before:
    # Carla third with Ben (4 points), Anna fifth (2)
    assert points == {"Dario": 9, "Ema": 9, "Ben": 4, "Anna": 3, "Carla": 2}
    # car 1 finished in round 11 (score 0), car 3 in round 12 (score -1): car 1 is last
    assert last_to_arrive([11, 10, 12, None]) == (0,)
    assert score_a([11, 10, 12, None]) == (0, -2, -1, 2)
    # two cars tied on the worst score: both are last (they draw lots to choose the next race)
    assert score_a([12, 10, 14, None]) == (1, -2, 1, 3) and last_to_arrive([12, 10, 14, None]) == (0, 2)
    # no car arrived: all draw lots, a destroyed car scores 2
    assert last_to_arrive([None, None]) == (0, 1) and score_a([None, None]) == (2, 2)


def test_a_races_counts_give_the_fords_on_the_table_and_the_ford_sections():
    """RR-18 (issue 34): the calendar's `counts.fords` counted ford sections while a maximum
    of fords counts the fords on the table. `fords` is now the fords on the table (what
    `max_fords` limits), `ford_sections` the sections holding one (what `min_fords` counts):
    a two-ford section and a one-ford section are 3 fords in 2 ford sections."""
    from sheetgen.games.rally_risk.championship import tag_counts
    from sheetgen.games.rally_risk.model import Leg, Race, Section, Side, Tag, Zone
    from sheetgen.games.rally_risk.tables import house_tables

    def section(id_: str, tags: tuple, fords: tuple = ()) -> Section:
        return Section(id_, id_, Side.S, Side.N, (0, 1, 1, 2, 1, 1), fords, tags)

    course = (
        section("start", (Tag.STRAIGHT, Tag.FAST_ROAD)),
        section("double_ford", (Tag.STRAIGHT, Tag.FORD), (2, 5)),
        section("ford", (Tag.STRAIGHT, Tag.FORD), (3,)),
        section("hairpin", (Tag.SHARP_CURVE,)),
    )
    race = Race("r", Zone.EC, tuple(Leg(s, Side.N) for s in course), house_tables())
    assert tag_counts(race) == {"sharp_curves": 1, "fords": 3, "ford_sections": 2, "fast_roads": 1}


def test_points_and_ties():
    assert championship_points({"a": -5, "b": -3, "c": -1, "d": 0, "e": 2, "f": 9}) == {"a": 9, "b": 6, "c": 4, "d": 3, "e": 2, "f": 1}
    # two second places: both score the second's points, the next driver is fourth
    assert championship_points({"a": -5, "b": -3, "c": -3, "d": 0}) == {"a": 9, "b": 6, "c": 6, "d": 3}
    assert championship_points({"a": 1, "b": 1, "c": 1}) == {"a": 9, "b": 9, "c": 9}
    assert championship_points({"a": 0, "b": 1, "c": 1, "d": 1, "e": 4}) == {"a": 9, "b": 6, "c": 6, "d": 6, "e": 2}


RESULTS = """\
game: rally_risk
kind: results
name: Club championship
calendar: championship.yaml
players: [Anna, Ben, Carla, Dario]
rallies:
  - rally: montecarlo
    races:
      - finish: {Anna: 14, Ben: 12, Carla: 12, Dario: 16}
      - finish: {Carla: 11, Ben: 12, Dario: 12, Anna: destroyed}
      - departure: [Dario, Ben, Carla, Anna]
        finish: {Carla: 10, Ben: 10, Dario: 13, Anna: 11}
  - rally: sweden
    races:
      - departure: [Anna, Carla, Ben, Dario]
        finish: {Carla: 11, Ben: 13, Dario: 12, Anna: 12}
"""


@pytest.fixture
def results_file(tmp_path):
    shutil.copy(CHAMPIONSHIP, tmp_path / "championship.yaml")
    shutil.copy(RR / "sections.yaml", tmp_path / "sections.yaml")

    def write(text: str = RESULTS) -> str:
        path = tmp_path / "results.yaml"
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def test_standings_from_results(results_file):
    results = load_spec(results_file()).model
    assert isinstance(results, Results)
    st = standings(results)
    mc = st.rallies[0]
    first = mc.races[0]
    # the rulebook's example: Anna left first ... Dario fourth
    assert [first.score(p) for p in ("Carla", "Ben", "Dario", "Anna")] == [-3, -2, 0, 1]
    assert first.arrival == (("Carla",), ("Ben",), ("Dario",), ("Anna",))
    # race 2 leaves in race 1's order of arrival; Anna's car is destroyed: last (-1) + 2
    assert mc.races[1].race.departure == ("Carla", "Ben", "Dario", "Anna")
    assert mc.races[1].score("Anna") == 1 and mc.races[1].arrival == (("Dario",), ("Carla", "Ben"), ("Anna",))
    assert mc.totals == (-1, -5, -7, 0) and mc.places == (3, 2, 1, 4) and mc.points == (4, 6, 9, 3)
    sweden = st.rallies[1]
    assert not sweden.result.complete and sweden.points is None
    assert [(row.place, row.player, row.points) for row in st.table] == [(1, "Carla", 9), (2, "Ben", 6), (3, "Anna", 4), (4, "Dario", 3)]
    # Sweden race 1 (departure Anna, Carla, Ben, Dario): Anna's score A (12 - 11 - 1 = 0) is the
    # worst, the last of the order of arrival: Anna chooses the next race (RR-21), though Ben
    # crossed the finish in the latest round (13; he chose under the earlier reading)
    assert st.next_departure == (("Dario",), ("Carla",), ("Ben",), ("Anna",)) and st.chooses_next == ("Anna",)
    assert st.remaining[:2] == ("Montecarlo, special (optional)", "Sweden, race 2")


def test_standings_command(run, results_file, tmp_path):
    path = results_file()
    text = run("standings", path)
    assert text.exit_code == 0, text.output
    assert "  race 1: Anna +1  Ben -2  Carla -3  Dario 0" in text.stdout
    assert "   1. Carla    9 points   (score A over all races -9)" in text.stdout
    assert "Next race leaves in this order: Dario, Carla, Ben, Anna" in text.stdout
    data = json.loads(run("standings", path, "--format", "json").stdout)
    assert data["rallies"][0]["races"][1]["finish"]["Anna"] == "destroyed"
    assert data["rallies"][0]["points"] == {"Anna": 4, "Ben": 6, "Carla": 9, "Dario": 3}
    assert data["rallies"][1]["points"] is None and data["draw_lots"] is False
    for name in ("one.pdf", "two.pdf"):
        assert run("standings", path, "-o", str(tmp_path / name)).exit_code == 0
    assert (tmp_path / "one.pdf").read_bytes() == (tmp_path / "two.pdf").read_bytes()
    pdf = PdfReader(tmp_path / "one.pdf")
    page = pdf.pages[0].extract_text()
    assert "Club championship: standings" in page and "Starting order: Dario, Carla, Ben, Anna" in page
    assert run("validate", path).stdout.endswith("ok (Rally Risk: results, 4 drivers, 2 rallies, 4 races)\n")


def test_tied_drivers_draw_lots(results_file):
    text = RESULTS.replace("      - departure: [Dario, Ben, Carla, Anna]\n", "      - name: Montecarlo, race 3\n")
    path = results_file(text)
    from sheetgen.errors import SpecError

    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:11:9: error: tied in Montecarlo, race 2: Carla and Ben (score -1); give this race's 'departure' (the rulebook draws lots)"
    ]
    # the last race tied: the next departure says so
    text = RESULTS.replace("Carla: 11, Ben: 13, Dario: 12, Anna: 12", "Carla: 11, Ben: 12, Dario: 12, Anna: 12")
    st = standings(load_spec(results_file(text)).model)
    assert st.draw_lots and st.next_departure == (("Dario",), ("Carla", "Ben"), ("Anna",))


@pytest.mark.parametrize(
    "change,line,col,message",
    [
        (("departure: [Dario, Ben, Carla, Anna]", "departure: [Ben, Dario, Carla, Anna]"), 11, 21,
         "'Ben' leaves before 'Dario' but arrived after them in Montecarlo, race 2 (score -1 against -2): a race leaves in the order of arrival of the race before"),
        (("{Anna: 14, Ben: 12,", "{Ana: 14, Ben: 12,"), 9, 17, "no result for 'Anna': give the round Anna finished in, or destroyed\n"
         + "{path}:9:18: error: unknown player 'Ana', did you mean 'Anna'?"),
        (("{Carla: 11, Ben: 12, Dario: 12, Anna: destroyed}", "{Carla: 11, Ben: 12, Dario: 12}"), 10, 17,
         "no result for 'Anna': give the round Anna finished in, or destroyed"),
        (("rally: sweden", "rally: swedn"), 13, 12, "unknown rally 'swedn', did you mean 'sweden'?"),
        (("Anna: destroyed", "Anna: crashed"), 10, 55, "'Anna' must have the round the car finished in (1 to 10000) or destroyed / eliminated, got 'crashed'"),
        (("Dario: 16}", "Dario: 0}"), 9, 55, "'Dario' must have the round the car finished in (1 to 10000) or destroyed / eliminated, got 0"),
        (("Dario: 16}", "Dario: 10001}"), 9, 55, "'Dario' must have the round the car finished in (1 to 10000) or destroyed / eliminated, got 10001"),
    ],
)
def test_results_refused(results_file, change, line, col, message):
    from sheetgen.errors import SpecError

    path = results_file(RESULTS.replace(*change))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert "\n".join(str(p) for p in caught.value.problems) == f"{path}:{line}:{col}: error: {message}".replace("{path}", path)


def test_assistance_never_changes_from_permanent_to_normal(results_file):
    """RR-26: assistance may change between races, never from permanent to normal; the
    refusal points at the normal assistance recorded after a permanent one."""
    from sheetgen.errors import SpecError

    text = RESULTS.replace(
        "      - finish: {Anna: 14, Ben: 12, Carla: 12, Dario: 16}\n",
        "      - finish: {Anna: 14, Ben: 12, Carla: 12, Dario: 16}\n        assistance: {Anna: permanent, Ben: permanent, Carla: rapid}\n",
    ).replace(
        "      - finish: {Carla: 11, Ben: 12, Dario: 12, Anna: destroyed}\n",
        "      - finish: {Carla: 11, Ben: 12, Dario: 12, Anna: destroyed}\n        assistance: {Anna: rapid, Ben: normal, Carla: permanent}\n",
    )
    path = results_file(text)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:12:40: error: Ben had permanent assistance in Montecarlo, race 1: it may change between races, but not from permanent to normal"
    ]
    # permanent to rapid, rapid to permanent, and (one change at a time) rapid to normal are allowed
    allowed = text.replace("Ben: normal", "Ben: rapid").replace(
        "        finish: {Carla: 10, Ben: 10, Dario: 13, Anna: 11}\n",
        "        finish: {Carla: 10, Ben: 10, Dario: 13, Anna: 11}\n        assistance: {Ben: normal, Anna: normal}\n",
    )
    results = load_spec(results_file(allowed)).model
    race2 = results.rallies[0].races[1]
    assert race2.assistance == (Assistance.PERMANENT, Assistance.RAPID, None, Assistance.RAPID)  # Carla, Ben, Dario, Anna
    assert results.rallies[1].races[0].assistance == ()


def test_too_many_races_for_the_rally(results_file):
    from sheetgen.errors import SpecError

    extra = "      - finish: {Anna: 1, Ben: 2, Carla: 3, Dario: 4}\n"
    text = RESULTS.replace("  - rally: sweden\n", extra + extra + "  - rally: sweden\n")
    with pytest.raises(SpecError) as caught:
        load_spec(results_file(text))
    messages = [p.message for p in caught.value.problems]
    assert "rally 'montecarlo' has 3 races and 1 specials; this is its entry 5" in messages


# --------------------------------------------------------------------------- Rallytaire season


SEASON = """\
game: rallytaire
kind: season
name: Winter season
players: [Anna, Ben]
races:
  - race: monte_carlo.yaml
  - race: acropolis.yaml
  - generate: {seed: 7, stages: 2, difficulty: easy}
"""


def test_season_sheet(run, tmp_path):
    for name in ("monte_carlo.yaml", "acropolis.yaml"):
        shutil.copy(SPECS / "rallytaire" / name, tmp_path / name)
    path = tmp_path / "season.yaml"
    path.write_text(SEASON, encoding="utf-8")
    result = run("season", str(path), "-o", str(tmp_path / "season.pdf"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Winter season: 3 races; times for: Anna, Ben"
    assert lines[1].startswith("  1. Monte Carlo Classic (monte_carlo.yaml): 4 stages, par ")
    assert any(line.startswith("  3. ") and "(generated: seed 7, stages 2, difficulty easy): 2 stages" in line for line in lines)
    data = json.loads(run("season", str(path), "--format", "json", "--no-par").stdout)
    assert data["columns"] == ["Anna", "Ben"] and data["par_time"] is None and len(data["races"]) == 3
    assert run("season", str(path), "-o", str(tmp_path / "again.pdf")).exit_code == 0
    assert (tmp_path / "season.pdf").read_bytes() == (tmp_path / "again.pdf").read_bytes()
    pdf = PdfReader(tmp_path / "season.pdf")
    text = pdf.pages[0].extract_text()
    assert "Winter season" in text and "SS1 Col de Turini (asphalt)" in text and "season total" in text
    # solo: three attempts and a best column
    path.write_text(SEASON.replace("players: [Anna, Ben]\n", ""), encoding="utf-8")
    assert run("season", str(path), "--no-par").stdout.startswith("Winter season: 3 races; times for: try 1, try 2, try 3, best\n")


def test_every_bad_race_file_of_a_season_is_reported_at_once(run, tmp_path):
    (tmp_path / "bad.yaml").write_text("game: rallytaire\nname: Bad\nstages: []\nlenght: 3\n", encoding="utf-8")
    path = tmp_path / "season.yaml"
    path.write_text(SEASON.replace("monte_carlo.yaml", "nope.yaml").replace("acropolis.yaml", "bad.yaml"), encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{tmp_path}/bad.yaml:3:9: error: 'stages' must have at least 1 item",
        f"{tmp_path}/bad.yaml:4:1: error: unknown key 'lenght' (expected one of: boxes, game, name, stages, tyres)",
        f"{path}:6:11: error: race 'nope.yaml': cannot read file: No such file or directory",
        f"{path}:7:11: error: race 'bad.yaml' has errors (listed with its name)",
    ]


def test_a_generate_entry_that_fails_names_the_entry_s_keys(run, tmp_path):
    shutil.copy(SPECS / "rallytaire" / "acropolis.yaml", tmp_path / "acropolis.yaml")
    path = tmp_path / "season.yaml"
    path.write_text("game: rallytaire\nkind: season\nname: S\nraces:\n  - race: acropolis.yaml\n  - generate: {seed: 1, stages: 1, length: [2, 3], difficulty: hard}\n", encoding="utf-8")
    result = run("season", str(path), "--no-par")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{path}:6:15: error: cannot generate this race: cannot generate a hard stage of 2..3 spaces in 60 tries: ")
    assert result.stderr.endswith("; try another 'length' or 'difficulty'\n") and result.stderr.count("\n") == 1


def test_season_refusals(run, tmp_path):
    path = tmp_path / "season.yaml"
    path.write_text(SEASON.replace("acropolis.yaml", "nope.yaml").replace("monte_carlo.yaml", str(SPECS / "rallytaire" / "monte_carlo.yaml")), encoding="utf-8")
    result = run("season", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"{path}:7:11: error: race 'nope.yaml': cannot read file: No such file or directory\n"
    path.write_text(SEASON.replace("  - generate: {seed: 7, stages: 2, difficulty: easy}\n", "  - {race: a.yaml, generate: {seed: 1}}\n"), encoding="utf-8")
    result = run("season", str(path))
    assert result.stderr.splitlines()[-1] == f"{path}:8:5: error: races[3] must be a mapping with one key: 'race' (a race file) or 'generate' (options of a generated race)"
    assert run("season", str(RR / "championship.yaml")).exit_code == 1


def test_validate_build_and_render_take_a_season(run, tmp_path):
    """A season file is a Rallytaire spec like a race: validate names it, build and render print
    its season sheet (the page `season -o` prints) and then the race sheets of its generated
    race, analyze and simulate say it is no race."""
    for name in ("monte_carlo.yaml", "acropolis.yaml"):
        shutil.copy(SPECS / "rallytaire" / name, tmp_path / name)
    path = tmp_path / "season.yaml"
    path.write_text(SEASON, encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{path}: ok (Rallytaire: season of 3 races, 10 stages, drivers Anna, Ben)\n"
    assert run("validate", "--strict", str(path)).exit_code == 0
    out = tmp_path / "out"
    result = run("build", str(path), "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert run("season", str(path), "-o", str(tmp_path / "season.pdf")).exit_code == 0
    assert run("render", str(path), "-o", str(tmp_path / "r.pdf")).exit_code == 0
    # season -o writes what build and render print for the file, byte for byte
    assert (tmp_path / "r.pdf").read_bytes() == (out / "season.pdf").read_bytes() == (tmp_path / "season.pdf").read_bytes()
    assert run("season", str(path), "--no-par", "-o", str(tmp_path / "alone.pdf")).exit_code == 0
    alone = PdfReader(str(tmp_path / "alone.pdf")).pages
    built = PdfReader(str(out / "season.pdf")).pages
    # the season sheet, a blank back, then the generated race's sheet (two stages: one page);
    # --no-par: the season sheet alone, without its par times
    assert (len(alone), len(built)) == (1, 3)
    note = "  (generated: its race sheet is page 3 of this file)"
    assert note in built[0].extract_text() and note not in alone[0].extract_text()
    assert "Rallytaire race sheet, page 1 of 1" in built[2].extract_text()
    for command in (("analyze",), ("simulate", "--seed", "1")):
        result = run(*command, str(path))
        assert result.exit_code == 1
        assert result.stdout == ""  # no seed picked, nothing printed
        assert result.stderr.startswith(f"{path}:2:7: error: a Rallytaire season, not a race: analysis and simulation need a race file")
    # a kind that is neither, located and with the near miss
    path.write_text(SEASON.replace("kind: season", "kind: seasons"), encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"{path}:2:7: error: unknown kind 'seasons', did you mean 'season'? (a Rallytaire race has no 'kind' key, a season has 'kind: season')\n"


def test_validate_strict_refuses_a_calendar_its_library_cannot_fill(run, tmp_path):
    """What build and `sheetgen calendar` refuse by counting, before their search."""
    shutil.copy(SPECS / "rally_risk" / "sections.yaml", tmp_path / "sections.yaml")
    path = tmp_path / "wet.yaml"
    path.write_text(
        "game: rally_risk\nkind: calendar\nname: Wet\nlibrary: sections.yaml\nrallies:\n"
        "  - {id: wet, name: Wet, zone: EC, races: [6], limits: {min_fords: 6}}\n",
        encoding="utf-8",
    )
    assert run("validate", str(path)).exit_code == 0  # valid, but it cannot be built
    strict = run("validate", "--strict", str(path))
    expected = [
        f"{path}:6:68: error: rally 'wet' asks for at least 6 fords per race, but its race 1 has 6 sections, and the first must be a factor-0 section, which no ford is",
        f"{path}:6:68: error: rally 'wet' asks for at least 6 fords per race, but the library holds 4 ford sections: 'ford' (2 copies), 'ford_bend', 'wadi'",
    ]
    assert (strict.exit_code, strict.stderr.splitlines()) == (1, expected)
    built = run("calendar", str(path), "--seed", "1", "-o", str(tmp_path / "out"))
    assert (built.exit_code, built.stderr.splitlines()) == (1, expected)


def test_validate_strict_reruns_the_finishability_check(run, tmp_path, monkeypatch):
    from sheetgen.games.rally_risk import championship as builder

    spec = _small_calendar(tmp_path, SMALL)
    assert run("calendar", spec, "--seed", "2", "-o", str(tmp_path / "out"), "--jobs", "1").exit_code == 0
    written = tmp_path / "out" / "cal-seed2.yaml"
    strict = run("validate", "--strict", str(written))
    assert strict.exit_code == 0, strict.output
    # a race the check refuses (as under a box's own deadlier tables) is reported at its course
    special = load_spec(written).model.rallies[0].courses[1]
    real, deadly = builder.check_race, builder._check_key(special)
    monkeypatch.setattr(builder, "check_race", lambda race: RaceCheck(12.0, 0.25) if builder._check_key(race) == deadly else real(race))
    monkeypatch.setenv("SHEETGEN_PARALLEL_BACKEND", "threading")  # workers that see the patched check
    strict = run("validate", "--strict", str(written))
    assert strict.exit_code == 1
    line, _col = _where(written, "name", "name: Montecarlo, special")
    assert strict.stderr == (
        f"{written}:{line + 2}:5: error: Montecarlo, special is not finishable: with permanent assistance and no mechanics "
        "the best play is eliminated with probability 25.0%; the limit is 5%\n"
    )


def test_a_rally_with_more_races_than_a_calendar_holds_is_refused_at_its_line(run, tmp_path):
    """61 races and specials would pass the search, then not fit the written calendar's
    `courses` (at most 60): refused up front, where the races are listed."""
    # (races of one section: 60 races of 6 would be over the calendar's spaces, MAX_CALENDAR_SPACES)
    spec = _small_calendar(tmp_path, "  - {id: big, name: Big, zone: EC, races: [" + ", ".join(["1"] * 60) + "], specials: [1]}\n")
    result = run("validate", spec)
    assert result.exit_code == 1
    assert result.stderr == f"{spec}:6:43: error: a rally has at most 60 races and specials together, got 61\n"
    assert run("validate", _small_calendar(tmp_path, "  - {id: big, name: Big, zone: EC, races: [" + ", ".join(["1"] * 59) + "], specials: [1]}\n")).exit_code == 0


def test_build_prints_a_results_file_as_its_standings_sheet(run, tmp_path):
    """The bundled results file (the README's example) builds into the sheet `standings -o`
    writes, byte for byte; the bundled season builds into its season sheet."""
    results = RR / "results.yaml"
    assert run("build", str(results), "-o", str(tmp_path / "out"), "-q").exit_code == 0
    assert run("standings", str(results), "-o", str(tmp_path / "s.pdf")).exit_code == 0
    assert (tmp_path / "out" / "results.pdf").read_bytes() == (tmp_path / "s.pdf").read_bytes()
    season = SPECS / "seasons" / "winter_season.yaml"
    result = run("season", str(season), "--no-par")
    assert result.exit_code == 0 and result.stdout.startswith("Winter season: 4 races; times for: Anna, Ben\n")


def test_loading_a_season_runs_no_generator(run, tmp_path, monkeypatch):
    """Generated races are made by an explicit step (`expand_season`), never while a season
    loads: validate checks the options alone; validate --strict, build and season make them, a
    race that cannot be made being a problem at its `generate:` entry."""
    from sheetgen.games.rallytaire import generate

    for name in ("monte_carlo.yaml", "acropolis.yaml"):
        shutil.copy(SPECS / "rallytaire" / name, tmp_path / name)
    path = tmp_path / "season.yaml"
    path.write_text(SEASON, encoding="utf-8")

    def refuse(*args, **kwargs):
        raise generate.GenerateError("no room for this race")

    monkeypatch.setattr(generate, "generate_race", refuse)
    result = run("validate", str(path))
    assert (result.exit_code, result.stdout) == (0, f"{path}: ok (Rallytaire: season of 3 races, 10 stages, drivers Anna, Ben)\n")
    line = f"{path}:8:15: error: cannot generate this race: no room for this race\n"
    for command in (("validate", "--strict", str(path)), ("season", str(path)), ("build", str(path), "-o", str(tmp_path / "out"))):
        result = run(*command)
        assert (result.exit_code, result.stderr) == (1, line), command
    assert not (tmp_path / "out").exists()


def test_a_one_race_calendar_says_one_race(run, tmp_path):
    import shutil

    shutil.copy(SPECS / "rally_risk" / "sections.yaml", tmp_path / "sections.yaml")
    spec = tmp_path / "one.yaml"
    spec.write_text("game: rally_risk\nkind: calendar\nname: One\nlibrary: sections.yaml\nrallies:\n"
                    "  - {id: sweden, name: Sweden, zone: EN, races: [6]}\n", encoding="utf-8")
    assert run("validate", str(spec)).stdout == f"{spec}: ok (Rally Risk: calendar, 1 rally, 1 race)\n"


@pytest.mark.parametrize("name", ["montecarlo_special", "safari_1"])
def test_the_check_gives_the_analysis_figures_to_the_bit(name, monkeypatch):
    """The finishability check solves once and evaluates once, without the rest of the
    analysis: its figures are the analysis's of the check's car (permanent assistance, no
    mechanics) to the bit."""
    from sheetgen.games.rally_risk import championship
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race

    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    race = load_spec(SPECS / "rally_risk" / f"{name}.yaml").model
    check = championship.check_race(race)
    full = analyze_rally_risk_race(race, Assistance.PERMANENT, mechanics=(), threshold=championship.THRESHOLD)
    assert (check.expected_rounds.hex(), check.elimination_probability.hex()) == (
        full.best.expected_rounds.hex(),
        full.best.elimination_probability.hex(),
    )
    assert check.finishable == full.finishable
