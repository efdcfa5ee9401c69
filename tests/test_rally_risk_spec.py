"""Rally Risk specs: libraries, races and calendars; the layout and course graphs; every
refused input as exact FILE:LINE:COL lines through `sheetgen validate`."""

from __future__ import annotations

import shutil

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SPECS, files_under
from sheetgen.errors import SpecError
from sheetgen.games.rally_risk.graph import cells, course_graph, exit_heading, layout_graph
from sheetgen.games.rally_risk.model import Calendar, Library, Race, Side, Tag, Zone
from sheetgen.games.rally_risk.spec import library_to_data, race_to_data
from sheetgen.registry import load_spec

RR = SPECS / "rally_risk"
RACES = sorted(p for p in RR.glob("*.yaml") if load_spec(p).model.__class__ is Race)

RACE = """\
game: rally_risk
kind: race
name: Test race
zone: EC
library: sections.yaml
course:
  - {section: start, heading: N}
  - {section: right_bend, heading: N}
  - {section: straight, heading: E}
  - {section: left_bend, heading: E}
"""


@pytest.fixture
def folder(tmp_path):
    """A folder with the bundled library and calendar, where race files are written."""
    shutil.copy(RR / "sections.yaml", tmp_path / "sections.yaml")
    shutil.copy(RR / "championship.yaml", tmp_path / "championship.yaml")
    return tmp_path


def errors(run, path):
    result = run("validate", str(path))
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    return result.stderr.splitlines()


def race_file(folder, text, name="race.yaml"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- bundled


def test_bundled_library_has_12_sections_covering_every_tag():
    library = load_spec(RR / "sections.yaml").model
    assert isinstance(library, Library)
    assert len(library.sections) >= 12
    assert {t for s in library.sections for t in s.tags} == set(Tag)
    assert any(s.fords for s in library.sections)


def test_bundled_races_and_calendar_validate(run):
    assert len(RACES) >= 4
    zones = {load_spec(p).model.zone for p in RACES}
    assert zones == set(Zone)
    assert any(load_spec(p).model.special for p in RACES)
    result = run("validate", *[str(p) for p in sorted(RR.glob("*.yaml"))])
    assert result.exit_code == 0, result.output
    assert f"{RR / 'montecarlo_1.yaml'}: ok (Rally Risk: race, zone EC, 6 sections, 32 spaces)" in result.stdout
    assert f"{RR / 'sections.yaml'}: ok (Rally Risk: section library, 15 sections, 24 in the box)" in result.stdout
    calendar = load_spec(RR / "championship.yaml").model
    assert isinstance(calendar, Calendar) and len(calendar.rallies) == 8
    assert [r.id for r in calendar.rallies][:2] == ["montecarlo", "sweden"]


def test_race_round_trip(folder):
    import yaml

    race = load_spec(RR / "montecarlo_1.yaml").model
    path = race_file(folder, yaml.safe_dump(race_to_data(race), sort_keys=False))
    again = load_spec(path).model
    assert again.course == race.course and again.zone == race.zone and again.tables == race.tables
    library = load_spec(RR / "sections.yaml").model
    lib_path = race_file(folder, yaml.safe_dump(library_to_data(library), sort_keys=False), "lib.yaml")
    assert load_spec(lib_path).model == library


# --------------------------------------------------------------------------- graphs


def test_layout_and_course_graphs():
    race = load_spec(RR / "montecarlo_1.yaml").model
    layout = layout_graph(race.course)
    assert [layout.nodes[i]["cell"] for i in layout] == [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2), (2, 3)]
    assert [(cell, out.value) for cell, out in cells(race.course)] == [(layout.nodes[i]["cell"], layout.nodes[i]["exit"]) for i in layout]
    assert layout.nodes[1]["entry"] == "S" and layout.nodes[1]["exit"] == "E"
    assert [exit_heading(leg) for leg in race.course] == [Side.N, Side.E, Side.E, Side.N, Side.N, Side.W]
    graph = course_graph(race.course)
    assert nx.is_directed_acyclic_graph(graph)
    assert list(nx.topological_sort(graph)) == list(range(0, race.length + 2))
    assert graph.nodes[0]["kind"] == "start" and graph.nodes[race.length + 1]["kind"] == "finish"
    space = graph.nodes[25]  # the ford of section 5
    assert (space["section"], space["index"], space["factor"], space["ford"]) == ("ford", 3, 2, True)
    assert [s.number for s in race.spaces] == list(range(1, 33))


def test_turned_sections_keep_their_sides():
    library = load_spec(RR / "sections.yaml").model
    from sheetgen.games.rally_risk.model import Leg

    right = library.get("right_bend")
    assert [exit_heading(Leg(right, h)) for h in Side] == [Side.E, Side.S, Side.W, Side.N]
    left = library.get("left_hairpin")
    assert [exit_heading(Leg(left, h)) for h in Side] == [Side.W, Side.N, Side.E, Side.S]


# --------------------------------------------------------------------------- refused races


def test_sections_that_do_not_connect(run, folder):
    path = race_file(folder, RACE.replace("{section: straight, heading: E}", "{section: straight, heading: N}"))
    assert errors(run, path) == [
        f"{path}:9:34: error: section 3 'straight' is entered heading N, but section 2 'right_bend' leaves heading E: the sections do not connect",
        f"{path}:10:35: error: section 4 'left_bend' is entered heading E, but section 3 'straight' leaves heading N: the sections do not connect",
    ]


def test_overlapping_layout(run, folder):
    text = RACE.replace(
        "  - {section: straight, heading: E}\n  - {section: left_bend, heading: E}\n",
        "  - {section: right_bend, heading: E}\n  - {section: right_bend, heading: S}\n  - {section: left_bend, heading: W}\n",
    )
    path = race_file(folder, text)
    assert errors(run, path) == [
        f"{path}:11:15: error: section 5 'left_bend' would lie on the square of section 1 'start': the layout overlaps itself"
    ]


def test_first_section_with_a_non_zero_factor(run, folder):
    path = race_file(folder, RACE.replace("{section: start, heading: N}", "{section: fast_road, heading: N}"))
    assert errors(run, path) == [
        f"{path}:7:15: error: the first road section must have factor 0 on every space; 'fast_road' has factor 1 on space 3"
    ]


def test_unknown_section_id_with_near_miss(run, folder):
    path = race_file(folder, RACE.replace("section: straight,", "section: stright,").replace("section: left_bend", "section: loop"))
    assert errors(run, path) == [
        f"{path}:9:15: error: unknown section 'stright', did you mean 'straight'?",
        f"{path}:10:15: error: unknown section 'loop' (the library has: start, fast_road, straight, village, chicane, mountain, "
        "right_bend, left_bend, right_sweeper, left_sweeper, right_hairpin, left_hairpin, ford, ford_bend, wadi)",
    ]


def test_unknown_keys_and_wrong_types(run, folder):
    text = RACE.replace("zone: EC", "zone: EX\nspecial: yes\nlaps: 2").replace("heading: N}\n  - {section: right_bend", "heading: N, gear: 3}\n  - {section: right_bend")
    path = race_file(folder, text)
    assert errors(run, path) == [
        f"{path}:4:7: error: 'zone' must be one of EC, EN, A; got 'EX'",
        f"{path}:5:10: error: 'special' must be true or false, got 'yes'",
        f"{path}:6:1: error: unknown key 'laps' (expected one of: calendar, course, game, kind, library, limits, name, rally, special, tables, zone)",
        f"{path}:9:34: error: unknown key 'gear' (expected one of: heading, section)",
    ]


def test_more_copies_than_the_box_has(run, folder):
    text = RACE.replace(
        "  - {section: straight, heading: E}\n  - {section: left_bend, heading: E}\n",
        "  - {section: left_hairpin, heading: E}\n  - {section: left_hairpin, heading: N}\n",
    )
    path = race_file(folder, text)
    assert errors(run, path) == [f"{path}:10:15: error: section 'left_hairpin' is used more often than the library has copies (1 copy)"]


def test_missing_library(run, folder):
    path = race_file(folder, RACE.replace("library: sections.yaml", "library: nope.yaml"))
    assert errors(run, path) == [f"{path}:5:10: error: library 'nope.yaml': cannot read file: No such file or directory"]


def test_a_library_with_errors_is_reported_in_its_own_file(run, folder):
    lib = folder / "sections.yaml"
    text = lib.read_text(encoding="utf-8")
    text = text.replace("factors: [1, 1, 2, 2, 1]", "factors: [1, 1, 2, 7, 1]", 1).replace("exit: W\n    factors: [1, 2, 2, 1, 1]", "exit: S\n    factors: [1, 2, 2, 1, 1]")
    lib.write_text(text, encoding="utf-8")
    path = race_file(folder, RACE)
    assert errors(run, path) == [
        f"{path}:5:10: error: library 'sections.yaml' has errors (listed with its name)",
        f"{lib}:56:24: error: factors[4] must be at most 4, got 7",
        f"{lib}:62:11: error: a section cannot be entered and left by the same side (S)",
    ]


def test_race_checked_against_its_rally(run, folder):
    text = RACE.replace("zone: EC", "zone: EN\ncalendar: championship.yaml\nrally: montecarlo").replace(
        "{section: straight, heading: E}", "{section: right_hairpin, heading: E}"
    ).replace("{section: left_bend, heading: E}", "{section: left_hairpin, heading: S}")
    path = race_file(folder, text)
    assert errors(run, path) == [
        f"{path}:4:7: error: rally 'montecarlo' is run in weather zone EC, not EN",
        f"{path}:6:8: error: the course has 2 sharp curve sections; rally 'montecarlo' allows at most 1",
        f"{path}:9:3: error: rally 'montecarlo' has races of 6 sections; this course has 4",
    ]


def test_unknown_rally_and_inline_limits(run, folder):
    text = RACE.replace("zone: EC", "zone: EC\ncalendar: championship.yaml\nrally: monte_carlo\nlimits: {min_fords: 1}")
    path = race_file(folder, text)
    assert errors(run, path) == [
        f"{path}:6:8: error: unknown rally 'monte_carlo', did you mean 'montecarlo'?",
        f"{path}:7:9: error: the course has 0 ford sections; the race's limits ask for at least 1",
    ]


def test_a_two_ford_section_counts_two_fords_against_a_maximum(run, folder):
    """RR-18: "1 ford" holds whether it is read as sections or as fords on the table. A
    section with two ford spaces is one ford section but two fords: refused under a
    maximum of 1, at the course; it still counts once towards a minimum."""
    library = (folder / "sections.yaml").read_text(encoding="utf-8")
    library += """  - id: double_ford
    name: Double ford
    tags: [straight, ford]
    entry: S
    exit: N
    factors: [1, 1, 1, 2, 1, 1]
    fords: [2, 5]
"""
    (folder / "sections.yaml").write_text(library, encoding="utf-8")
    text = RACE.replace("zone: EC", "zone: EC\nlimits: {max_fords: 1}").replace("{section: straight, heading: E}", "{section: double_ford, heading: E}")
    path = race_file(folder, text)
    assert errors(run, path) == [f"{path}:5:9: error: the course has 2 fords on the table (1 ford section); the race's limits allow at most 1"]
    ok = race_file(folder, text.replace("max_fords: 1", "min_fords: 1, max_fords: 2"), "ok.yaml")
    assert run("validate", str(ok)).exit_code == 0
    short = race_file(folder, text.replace("max_fords: 1", "min_fords: 2"), "short.yaml")
    assert errors(run, short) == [f"{short}:5:9: error: the course has 1 ford section; the race's limits ask for at least 2"]


def test_the_first_section_counts_towards_the_fast_roads(run, folder):
    """RR-17/RR-18: the required factor-0 first section ('start', tagged fast_road) uses up
    one of the fast roads a limit allows: with one more fast road the course holds two,
    which Sweden's "no more than 2 fords or 2 fast roads" allows and a limit of 1 refuses."""
    text = RACE.replace("{section: straight, heading: E}", "{section: fast_road, heading: E}")
    sweden = race_file(folder, text.replace("zone: EC", "zone: EC\nlimits: {max_fords: 2, max_fast_roads: 2}"), "sweden.yaml")
    assert run("validate", str(sweden)).exit_code == 0
    one = race_file(folder, text.replace("zone: EC", "zone: EC\nlimits: {max_fast_roads: 1}"), "one.yaml")
    assert errors(run, one) == [f"{one}:5:9: error: the course has 2 fast road sections; the race's limits allow at most 1"]


def test_every_house_ford_section_holds_one_ford():
    """RR-18: in the house library the two readings of "1 ford" agree."""
    library = load_spec(RR / "sections.yaml").model
    fords = [s for s in library.sections if s.fords or "ford" in [t.value for t in s.tags]]
    assert fords and all(len(s.fords) == 1 for s in fords), [(s.id, s.fords) for s in fords]


@pytest.mark.parametrize(
    "change,expected",
    [
        (("kind: race\n", ""), (1, 1, "missing required key 'kind' (one of: library, race, calendar, results)")),
        (("kind: race", "kind: raec"), (2, 7, "unknown kind 'raec', did you mean 'race'?")),
        ((RACE[RACE.index("course:") :], "course: []\n"), (6, 9, "'course' must have at least 1 item")),
        (("{section: left_bend, heading: E}", "{section: left_bend, heading: east}"), (10, 35, "'heading' must be one of N, E, S, W; got 'east'")),
        (("name: Test race\n", ""), (1, 1, "missing required key 'name' in the spec")),
    ],
)
def test_other_refused_races(run, folder, change, expected):
    path = race_file(folder, RACE.replace(*change))
    line, col, message = expected
    assert errors(run, path) == [f"{path}:{line}:{col}: error: {message}"]


# --------------------------------------------------------------------------- refused libraries


LIBRARY = """\
game: rally_risk
kind: library
name: Test box
sections:
  - {id: start, tags: [straight], entry: S, exit: N, factors: [0, 0, 0]}
  - {id: bend, tags: [straight], entry: S, exit: E, factors: [1, 2, 1]}
  - {id: ford, tags: [ford], entry: S, exit: N, factors: [1, 2, 1], fords: [4]}
  - {id: start, entry: W, exit: E, factors: [0, 5], copys: 2}
"""


def test_library_problems_all_at_once(run, folder):
    path = race_file(folder, LIBRARY, "lib.yaml")
    assert errors(run, path) == [
        f"{path}:6:22: error: the road turns (S to E): it cannot be tagged 'straight'",
        f"{path}:6:22: error: the road turns (S to E): tag the section 'curve' or 'sharp_curve'",
        f"{path}:7:77: error: ford space 4 is beyond the section's 3 spaces",
        f"{path}:8:10: error: duplicate section id 'start' (also section 1)",
        f"{path}:8:49: error: factors[2] must be at most 4, got 5",
        f"{path}:8:53: error: unknown key 'copys', did you mean 'copies'?",
    ]


def test_refusing_writes_nothing(run, folder):
    before = files_under(folder)
    path = race_file(folder, RACE.replace("section: straight,", "section: stright,"))
    errors(run, path)
    assert files_under(folder) == sorted(before + ["race.yaml"])


# --------------------------------------------------------------------------- damaged specs


def _texts():
    return [p.read_text(encoding="utf-8") for p in sorted(RR.glob("*.yaml"))]


@st.composite
def damaged(draw):
    """A bundled spec with a few characters deleted, inserted or replaced."""
    texts = _texts()
    i = draw(st.integers(0, len(texts) - 1))
    text = texts[i]
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(text)))
        piece = draw(st.sampled_from(["", "0", "9", "-", "x", ":", "[", "]", "{", "}", ",", " ", "\n", "N", "E", "true", "~", "'"]))
        cut = draw(st.integers(0, 6))
        text = text[:where] + piece + text[where + cut :]
    return i, text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=damaged())
def test_damaged_specs_raise_only_spec_errors(case, tmp_path):
    """Every damaged library, calendar or race is loaded or refused with SpecError; the
    races find the (undamaged) library and calendar next to them."""
    index, text = case
    name = sorted(RR.glob("*.yaml"))[index].name
    for other in ("sections.yaml", "championship.yaml"):
        if other != name:
            shutil.copy(RR / other, tmp_path / other)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    try:
        load_spec(path)
    except SpecError as exc:
        assert exc.problems and all(p.location.line >= 1 for p in exc.problems)
