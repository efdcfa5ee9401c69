"""Rally Risk tables: the rulebook's worked examples (RULINGS.md), monotonicity of every cell,
and a spec's own tables honoured and checked."""

from __future__ import annotations

import copy
import json

import pytest

from conftest import SPECS
from sheetgen.games.rally_risk import rules, tables
from sheetgen.games.rally_risk.house_tables import HOUSE_TABLES, LABEL
from sheetgen.games.rally_risk.model import DIE, GEARS, Assistance, Outcome, Tyres, Weather, WeatherChart, WeatherSector
from sheetgen.games.rally_risk.rules import Car, CarState, Course, Move
from sheetgen.games.rally_risk.scoring import championship_points, score_a
from sheetgen.games.rally_risk.tables import format_tables_text, house_tables, tables_in_effect
from sheetgen.registry import load_spec

CLEAR = WeatherSector(Weather.CLEAR)
HOUSE = house_tables()


def course(factors, fords=(), tables_=HOUSE, special=False, sectors=(CLEAR,)):
    """A course straight from factors (spaces 1..N), for engine tests."""
    return Course(
        name="test",
        factors=(0,) + tuple(factors),
        fords=(False,) + tuple(i in fords for i in range(1, len(factors) + 1)),
        tables=tables_,
        chart=WeatherChart(tuple(sectors), 0),
        special=special,
    )


# --------------------------------------------------------------------------- worked examples


def test_risk_4th_gear_die_3_is_factor_3():
    assert rules.risk_factor(HOUSE, 4, 3, Assistance.PERMANENT, CLEAR) == 3


def test_risk_4th_gear_die_5_rapid_is_factor_2():
    assert rules.risk_roll(HOUSE, 5, Assistance.RAPID, CLEAR) == 6
    assert rules.risk_factor(HOUSE, 4, 5, Assistance.RAPID, CLEAR) == 2


def test_normal_assistance_adds_2_and_never_goes_over_6():
    assert rules.risk_roll(HOUSE, 3, Assistance.NORMAL, CLEAR) == 5
    assert [rules.risk_roll(HOUSE, d, Assistance.NORMAL, WeatherSector(Weather.STORM, 3)) for d in DIE] == [6] * 6


def test_minimum_movement_of_4th_gear_with_rapid_assistance_is_4():
    c = course([0] * 20)
    assert rules.movement_range(c, Car(Assistance.RAPID), CarState(), 4, CLEAR)[0] == 4


def test_first_gear_always_moves_one_space():
    c = course([0] * 20, special=True)
    for a in Assistance:
        assert rules.movement_range(c, Car(a), CarState(), 1, CLEAR) == (1, 1)


def test_special_races_add_2_4_6_to_the_maximum_of_3rd_4th_5th():
    plain, special = course([0] * 30), course([0] * 30, special=True)
    car = Car(Assistance.PERMANENT)
    for gear, extra in ((2, 0), (3, 2), (4, 4), (5, 6)):
        lo, hi = rules.movement_range(plain, car, CarState(), gear, CLEAR)
        assert rules.movement_range(special, car, CarState(), gear, CLEAR) == (lo, hi + extra)


def test_damage_difference_1_die_2_is_none_and_difference_2_die_6_is_2nd_degree():
    assert rules.damage(HOUSE, 1, 2) is Outcome.NONE
    assert rules.damage(HOUSE, 2, 6) is Outcome.SECOND


def test_the_rulebook_damage_example_as_one_turn():
    """4th gear, die 5, rapid assistance: factor 2, minimum 4 spaces. The second space has
    factor 3 (difference 1, die 2: no damage), the third factor 4 (difference 2, die 6: II):
    the car stops there, halted two turns."""
    c = course([0, 0, 1, 3, 4, 0, 0, 0, 0, 0, 0])
    start = CarState(position=2, gear=4)
    car = Car(Assistance.RAPID)
    assert rules.movement_range(c, car, start, 4, CLEAR)[0] == 4
    result, after, checks = rules.apply_turn(c, car, start, 4, 5, Move(4), (2, 6), CLEAR)
    assert checks == ((4, 1, Outcome.NONE), (5, 2, Outcome.SECOND))
    assert (result.kind, result.position, result.halt) == ("off", 5, 2)
    assert (after.position, after.gear, after.halt) == (5, 0, 2)


def test_braking_twice_on_a_factor_1_space_makes_it_3_and_a_minimum_of_6_becomes_4():
    c = course([0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    car = Car(Assistance.NORMAL)
    state = CarState(position=0, gear=5)
    assert rules.movement_range(c, car, state, 5, CLEAR)[0] == 6
    move = Move(4, (0, 0, 2, 0))
    assert move in rules.legal_moves(c, car, state, 5, CLEAR)
    assert rules.entered_factors(c, state, move, Weather.CLEAR) == ((1, 0), (2, 0), (3, 3), (4, 0))
    # braking is exactly "one less space" per braking: 4 spaces need 2, 5 need 1, 3 need 3
    assert {m.spaces: m.brakings for m in rules.legal_moves(c, car, state, 5, CLEAR)} == {
        11: 0, 10: 0, 9: 0, 8: 0, 7: 0, 6: 0, 5: 1, 4: 2, 3: 3, 2: 4, 1: 5
    }


def test_scoring_a_example():
    # departure order 1..4; players 2 and 3 finish together, 1 two rounds later, 4 four later
    assert score_a([12, 10, 10, 14]) == (1, -2, -3, 0)


def test_an_eliminated_car_scores_the_last_arrival_plus_two():
    assert score_a([12, None, 10]) == (1, 3, -3)
    assert score_a([None, None]) == (2, 2)


def test_championship_points_and_ties():
    assert championship_points({"a": -3, "b": -2, "c": 0, "d": 1, "e": 2, "f": 5, "g": 9}) == {
        "a": 9, "b": 6, "c": 4, "d": 3, "e": 2, "f": 1, "g": 0
    }
    # two second places: the next driver is fourth
    assert championship_points({"a": 1, "b": 3, "c": 3, "d": 5}) == {"a": 9, "b": 6, "c": 6, "d": 3}


# --------------------------------------------------------------------------- monotonicity


def test_table_of_risks_is_monotone_in_every_cell():
    risk = HOUSE.risk
    assert len(risk) == 5 and all(len(row) == 6 for row in risk)
    for g in GEARS:
        for d in DIE:
            here = risk[g - 1][d - 1]
            if d < 6:
                assert risk[g - 1][d] <= here, (g, d)  # a higher roll is never safer
            if g < 5:
                assert risk[g][d - 1] <= here, (g, d)  # a higher gear is never safer


def test_damages_table_is_monotone_in_every_cell():
    damage = HOUSE.damage
    for i, row in enumerate(damage):
        for j, cell in enumerate(row):
            if j < 5:
                assert row[j + 1].severity >= cell.severity, (i + 1, j + 1)
            if i + 1 < len(damage):
                assert damage[i + 1][j].severity >= cell.severity, (i + 1, j + 1)
    # beyond the last row the last row holds, so bigger differences stay monotone too
    for diff in range(1, 12):
        for d in DIE:
            assert rules.damage(HOUSE, diff + 1, d).severity >= rules.damage(HOUSE, diff, d).severity


def test_house_tables_pass_the_validator_a_spec_goes_through():
    assert tables.problems(HOUSE_TABLES) == []


@pytest.mark.parametrize(
    "name,path,value,message",
    [
        ("risk", (3, 4), 3, "the Table of Risks must not get safer with a higher roll: 4th gear gives 3 on die 5 but 2 on die 4"),
        ("risk", (4, 0), 5, "the Table of Risks must not get safer in a higher gear: die 1 gives 5 in 5th gear but 4 in 4th"),
        ("damage", (1, 3), "-", "the Damages Table must not get lighter with a higher roll: difference 2 gives '-' on die 4 but 'tc' on die 3"),
        ("damage", (3, 0), "-", "the Damages Table must not get lighter with a bigger difference: die 1 gives '-' at difference 4 but 'tc' at 3"),
        ("damage", (0, 0), "x", "a damage result must be one of -, tc, 1, 2, 3, e; got 'x'"),
        ("gear_chart", (2, 1), 1, "3rd gear's maximum must be between its minimum (2) and 20, got 1"),
        ("gear_chart", (0,), [1, 2], "1st gear always moves 1 space: it must be [1, 1], got [1, 2]"),
    ],
)
def test_each_kind_of_bad_cell_is_named(name, path, value, message):
    data = copy.deepcopy(HOUSE_TABLES)
    target = data[name]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    found = tables.problems({name: data[name]})
    assert ((name,) + path, message) in found, found


# --------------------------------------------------------------------------- JSON and text


def test_tables_in_effect_json_shape():
    data = tables_in_effect(None)
    json.dumps(data)
    assert data["source"] == LABEL
    assert data["gear_chart"]["1"] == {"min": 1, "max": 1}
    assert data["gear_chart"]["4"] == {"min": 3, "max": 7}
    assert data["risk"]["4"][2] == 3 and len(data["risk"]) == 5
    assert data["damage"]["1"][1] == "-" and data["damage"]["2"][5] == "2"
    assert {o for row in data["damage"].values() for o in row} <= {"-", "tc", "1", "2", "3", "e"}
    assert set(data["weather"]) == {"EC", "EN", "A"}
    for chart in data["weather"].values():
        assert 1 <= chart["start"] <= len(chart["sectors"])
        kinds = {s["weather"] for s in chart["sectors"]}
        assert kinds <= {"clear", "cloudy", "rain", "storm", "snow"}
    assert data["special_extra"] == {"1": 0, "2": 0, "3": 2, "4": 4, "5": 6}
    assert data["assistance"] == {"permanent": 0, "rapid": 1, "normal": 2}


def test_every_weather_kind_appears_in_the_house_charts():
    kinds = {s.weather for _z, chart in HOUSE.weather for s in chart.sectors}
    assert kinds == set(Weather)


def test_text_formatter_shows_every_table():
    text = format_tables_text(tables_in_effect(None))
    assert text.startswith(f"Rally Risk tables: {LABEL}\n")
    for needle in ("Gear chart", "Table of Risks", "Damages Table", "Weather charts", "Special tyres", "  4th      3    7           11"):
        assert needle in text, needle


# --------------------------------------------------------------------------- a spec's own tables


OWN = """\
game: rally_risk
kind: race
name: Own box
zone: EC
library: {library}
course:
  - {{section: start, heading: N}}
  - {{section: right_bend, heading: N}}
tables:
  risk:
    - [5, 5, 5, 5, 5, 5]
    - [4, 4, 4, 4, 4, 4]
    - [3, 3, 3, 3, 3, 3]
    - [2, 2, 2, 2, 2, 2]
    - [1, 1, 1, 1, 1, 1]
  damage:
    - ["-", "-", "-", tc, tc, 1]
    - [tc, tc, 1, 1, 2, 2]
    - [1, 2, 3, e, e, e]
  weather:
    EC: {{start: 1, sectors: [clear, rain+1, "storm (+3)"]}}
"""


def own_spec(write, text=OWN):
    return write(text.format(library=(SPECS / "rally_risk" / "sections.yaml").as_posix()), "own.yaml")


def test_a_spec_replacing_tables_is_honoured(write):
    spec = load_spec(own_spec(write))
    data = tables_in_effect(spec)
    assert data["risk"]["4"] == [2] * 6
    assert data["damage"] == {"1": ["-", "-", "-", "tc", "tc", "1"], "2": ["tc", "tc", "1", "1", "2", "2"], "3": ["1", "2", "3", "e", "e", "e"]}
    assert data["weather"]["EC"] == {
        "start": 1,
        "sectors": [{"weather": "clear", "modifier": 0}, {"weather": "rain", "modifier": 1}, {"weather": "storm", "modifier": 3}],
    }
    assert data["weather"]["EN"] == tables_in_effect(None)["weather"]["EN"]  # other zones kept
    assert data["gear_chart"] == tables_in_effect(None)["gear_chart"]  # tables not given kept
    assert data["source"] == f"{LABEL}; replaced by the spec: damage, risk, weather"
    # and the engine plays with them
    race = spec.model
    c = Course.of(race)
    assert rules.risk_factor(c.tables, 4, 3, Assistance.PERMANENT, CLEAR) == 2
    assert rules.damage(c.tables, 5, 1) is Outcome.FIRST  # past the last row: the last row
    assert [s for s, _p in rules.weather_outcomes(c.chart, 0)] == [0, 1]


def test_spec_tables_are_checked_with_locations(run, write):
    bad = OWN.replace("    - [4, 4, 4, 4, 4, 4]", "    - [4, 4, 4, 4, 6, 4]").replace("[tc, tc, 1, 1, 2, 2]", "[tc, tc, 1, 1, 2]")
    bad = bad.replace("storm (+3)", "hail")
    path = own_spec(write, bad + "  gear_chart: [[1, 1], [1, 3]]\n  tyres: {{rain: {{fog: {{move: -1}}}}}}\n")
    result = run("validate", path)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{path}:12:20: error: the Table of Risks must not get safer in a higher gear: die 5 gives 6 in 2nd gear but 5 in 1st",
        f"{path}:12:20: error: the Table of Risks must not get safer with a higher roll: 2nd gear gives 6 on die 5 but 4 on die 4",
        f"{path}:18:7: error: the Damages Table row 2 needs 6 results (die 1 to 6), got 5",
        f"{path}:21:45: error: a weather sector must be clear, cloudy, rain, storm or snow, with +N for rain, storms and snow (e.g. 'rain+1'); got 'hail'",
        f"{path}:22:15: error: the gear chart needs 5 rows (gears 1st to 5th), got 2",
        f"{path}:23:18: error: unknown key 'fog' (expected one of: clear, cloudy, rain, snow, storm)",
    ]


def test_tyre_effects_apply_by_weather():
    c = course([2, 2, 2, 2, 2, 2, 2, 2, 2, 2])
    car = Car(Assistance.PERMANENT)
    rain_tyres = CarState(tyres=Tyres.RAIN)
    assert rules.space_factor(c, 1, Weather.RAIN, Tyres.RAIN) == 1
    assert rules.space_factor(c, 1, Weather.SNOW, Tyres.RAIN) == 2
    assert rules.space_factor(c, 1, Weather.SNOW, Tyres.SNOW) == 1
    assert rules.movement_range(c, car, rain_tyres, 3, CLEAR) == (1, 4)
    assert rules.movement_range(c, car, rain_tyres, 3, WeatherSector(Weather.CLOUDY)) == (1, 3)
    assert rules.movement_range(c, car, rain_tyres, 1, WeatherSector(Weather.CLOUDY)) == (1, 1)


def test_fords_take_5_in_rain_and_storms_and_3_in_snow():
    c = course([1, 1, 1], fords=(2,))
    assert [rules.space_factor(c, 2, w, Tyres.NORMAL) for w in Weather] == [1, 1, 5, 5, 3]
    assert rules.space_factor(c, 2, Weather.STORM, Tyres.RAIN) == 4
    assert rules.space_factor(c, 1, Weather.STORM, Tyres.NORMAL) == 1
