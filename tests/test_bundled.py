"""Every bundled spec validates, analyses, and plays as the solver says it does."""

from __future__ import annotations

import json
import math
import random

import pytest

from conftest import RALLYTAIRE_SPECS
from sheetgen.games.rallytaire.simulate import play_stage
from sheetgen.games.rallytaire.solve import analyze_stage
from sheetgen.registry import load_spec

STAGES = [(path.stem, i) for path in RALLYTAIRE_SPECS for i in range(len(load_spec(path).model.stages))]


def test_at_least_three_bundled_races_of_three_or_four_stages():
    races = [load_spec(p).model for p in RALLYTAIRE_SPECS]
    assert len(races) >= 3
    for race in races:
        assert 3 <= len(race.stages) <= 4
        for stage in race.stages:
            assert 40 <= stage.length <= 100
    assert {s.surface for r in races for s in r.stages} == {"asphalt", "gravel", "snow"}


@pytest.mark.parametrize("path", RALLYTAIRE_SPECS, ids=lambda p: p.stem)
def test_analyze_every_bundled_race(run, path):
    result = run("analyze", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    race = load_spec(path).model
    assert data["race"] == race.name
    assert [s["name"] for s in data["stages"]] == [s.name for s in race.stages]
    for stage, figures in zip(race.stages, data["stages"]):
        assert figures["best_time"] <= figures["percentiles"]["p10"] <= figures["percentiles"]["p50"] <= figures["percentiles"]["p90"]
        assert figures["best_time"] <= figures["par_time"] <= figures["cautious_time"]
        assert len(figures["corners"]) == len(stage.corners)
    text = run("analyze", str(path)).stdout
    for stage in race.stages:
        assert stage.name in text


# a long cross-check (python -m pytest -m slow): the exact solver is checked against an
# expectimax over the engine in the default suite (tests/test_engine.py)
@pytest.mark.slow
@pytest.mark.parametrize("name,index", STAGES)
def test_monte_carlo_agrees_with_par_time_on_bundled_stages(name, index):
    """4000 seeded plays per stage under the optimal policy: the mean time lies within 4
    standard errors of the exact par time, the crash rate within 4 of its exact value."""
    stage = load_spec(next(p for p in RALLYTAIRE_SPECS if p.stem == name)).model.stages[index]
    analysis = analyze_stage(stage)
    rng = random.Random(1000 + index)
    n = 4000
    times, crashed = [], 0
    for _ in range(n):
        run = play_stage(stage, analysis.policy, rng)
        times.append(run.tenths / 10)
        crashed += run.crashes > 0
    mean = math.fsum(times) / n
    sd = math.sqrt(math.fsum((t - mean) ** 2 for t in times) / (n - 1))
    assert abs(mean - analysis.par_time) < 4 * sd / math.sqrt(n)
    p = analysis.crash_probability
    assert abs(crashed / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12


def test_bad_spec_gets_error_lines_from_analyze_and_simulate(run, write):
    from conftest import VALID

    path = write(VALID.replace("gear: 3,", "gear: 8,"))
    for args in (("analyze", path), ("simulate", path, "--seed", "1")):
        result = run(*args)
        assert result.exit_code == 1
        assert result.stderr == f"{path}:8:27: error: 'gear' must be at most 5, got 8\n"


def test_simulate_same_seed_same_output_and_no_seed_prints_one(run):
    path = str(RALLYTAIRE_SPECS[0])
    one = run("simulate", path, "--seed", "42")
    two = run("simulate", path, "--seed", "42")
    assert one.exit_code == 0 and one.stdout == two.stdout
    assert one.stdout.splitlines()[-1].startswith("race time: ")
    assert run("simulate", path, "--seed", "43").stdout != one.stdout
    picked = run("simulate", path)
    seed = int(picked.stderr.split()[1])
    assert picked.stdout == run("simulate", path, "--seed", str(seed)).stdout


@pytest.mark.slow  # (the advanced analyses' JSON and text are golden references: tests/golden/analyze)
def test_analyze_advanced_json_and_text(run):
    path = str(RALLYTAIRE_SPECS[0])
    result = run("analyze", path, "--rules", "advanced", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["race"] == load_spec(path).model.name
    assert 0.0 <= data["dnf_probability"] <= 1.0
    assert data["race_par_time"] == pytest.approx(sum(s["par_time"] for s in data["stages"]), abs=0.01)
    basic = json.loads(run("analyze", path, "--format", "json").stdout)
    # boxes and tyre choice can only help: the advanced par is never above the basic par
    assert data["race_par_time"] <= sum(s["par_time"] for s in basic["stages"]) + 1e-6
    text = run("analyze", path, "--rules", "advanced").stdout
    assert "Race par:" in text


@pytest.mark.slow  # (seeded advanced plays are golden references: tests/golden/simulate)
def test_simulate_advanced_is_seeded_and_refuses_cautious(run):
    path = str(RALLYTAIRE_SPECS[0])
    one = run("simulate", path, "--rules", "advanced", "--seed", "5")
    assert one.exit_code == 0 and one.stdout == run("simulate", path, "--rules", "advanced", "--seed", "5").stdout
    bad = run("simulate", path, "--rules", "advanced", "--policy", "cautious", "--seed", "5")
    assert bad.exit_code == 2  # a usage mistake, as click reports one
    assert bad.stderr.endswith("\nError: --policy cautious is for the basic rules; the advanced game is played by its optimal policy\n")
    assert bad.stderr.startswith("Usage: ") and " simulate [OPTIONS] SPEC\n" in bad.stderr
