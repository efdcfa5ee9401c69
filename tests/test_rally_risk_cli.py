"""Rally Risk through the command line: tables, analyze, simulate, validate --strict, build."""

from __future__ import annotations

import json
import shutil

from conftest import ROOT, files_under

RR = ROOT / "track_specs" / "rally_risk"
RACE = str(RR / "montecarlo_special.yaml")


def test_tables_json_shape_and_worked_examples(run):
    result = run("tables", "rally-risk", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["gear_chart"]["1"] == {"min": 1, "max": 1}
    assert data["risk"]["4"][3 - 1] == 3  # 4th gear, die 3: factor 3 (RULINGS.md)
    assert data["damage"]["1"][2 - 1] == "-" and data["damage"]["2"][6 - 1] == "2"
    assert set(data) >= {"gear_chart", "risk", "damage", "weather"}
    assert "house tables" in run("tables", "rally-risk").stdout


def test_tables_of_a_spec_and_refusals(run, write):
    assert run("tables", "rally-risk", "--spec", RACE, "--format", "json").exit_code == 0
    from conftest import VALID

    other = run("tables", "rally-risk", "--spec", write(VALID))
    assert other.exit_code == 1 and other.stderr.endswith(":1:7: error: a Rallytaire spec, not a Rally Risk one: --spec takes a Rally Risk race whose own tables replace the house tables\n")


def test_analyze_json(run):
    result = run("analyze", RACE, "--format", "json", "--assistance", "rapid")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best_assistance"] == "rapid"
    (only,) = data["assistance"]
    assert only["assistance"] == "rapid"


def test_analyze_refuses_a_library_and_mismatched_options(run):
    library = run("analyze", str(RR / "sections.yaml"))
    assert library.exit_code == 1 and "Traceback" not in library.output
    rules = run("analyze", RACE, "--rules", "advanced")
    assert rules.exit_code == 2  # an option the game does not take: a usage error, as click's
    assert rules.stderr.endswith(f"\nError: --rules is for Rallytaire; {RACE} is a Rally Risk spec\n")
    from conftest import RALLYTAIRE_SPECS

    path = str(RALLYTAIRE_SPECS[0])
    wrong = run("analyze", path, "--assistance", "rapid")
    assert wrong.exit_code == 2 and wrong.stderr.endswith(f"\nError: --assistance is for Rally Risk; {path} is a Rallytaire spec\n")
    players = run("simulate", path, "--players", "2", "--seed", "1")
    assert players.exit_code == 2 and players.stderr.endswith(f"\nError: --players is for Rally Risk and Rally Run!; {path} is a Rallytaire spec\n")
    policy = run("simulate", RACE, "--policy", "optimal", "--seed", "1")
    assert policy.exit_code == 2 and policy.stderr.endswith(f"\nError: --policy is for Rally Run! and Rallytaire; {RACE} is a Rally Risk spec\n")


def test_simulate_several_cars_is_seeded(run):
    one = run("simulate", RACE, "--seed", "9", "--players", "3")
    assert one.exit_code == 0, one.output
    assert one.stdout == run("simulate", RACE, "--seed", "9", "--players", "3").stdout
    assert "car 3" in one.stdout
    assert run("simulate", RACE, "--seed", "9", "--players", "7").exit_code == 2


DEADLY = """\
tables:
  risk:                      # every gear and die: factor 0, so every space above 0 is checked
    - [0, 0, 0, 0, 0, 0]
    - [0, 0, 0, 0, 0, 0]
    - [0, 0, 0, 0, 0, 0]
    - [0, 0, 0, 0, 0, 0]
    - [0, 0, 0, 0, 0, 0]
  damage:                    # and half of the checks eliminate the car
    - ["-", "-", "-", e, e, e]
"""


def test_validate_strict_and_build_refuse_unfinishable_races(run, tmp_path):
    folder = tmp_path / "rr"
    shutil.copytree(RR, folder)
    race = folder / "montecarlo_special.yaml"
    assert run("validate", "--strict", str(race)).exit_code == 0
    race.write_text(race.read_text(encoding="utf-8") + DEADLY, encoding="utf-8")
    assert run("validate", str(race)).exit_code == 0  # valid, just not finishable
    strict = run("validate", "--strict", str(race))
    assert strict.exit_code == 1
    (line,) = strict.stderr.splitlines()
    assert line.startswith(f"{race}:10:1: error: the race is not finishable: the best policy (")
    assert line.endswith("the limit is 5.0%")
    out = tmp_path / "out"
    # (with the library beside it: one bad file of two stops the build; the folder's calendar
    # and other races would add a championship's analysis to the test's time)
    built = run("build", "-q", "-o", str(out), str(folder / "sections.yaml"), str(race))
    assert built.exit_code == 1
    assert built.stderr == strict.stderr
    assert files_under(out) == []
