"""The Rallytaire race generator: valid, in its band, printable, believable, reproducible.

The bulk (50 seeds at each difficulty, one- and two-stage races) runs through the library in
two worker processes; each race is then checked here independently of the generator: the
spec validator, the exact solver (band figures recomputed from `analyze_stage`), and the
renderer's own page plan on A4 and Letter with every layout invariant of test_layout.
A few races go through the CLI, as a user makes them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import cache

import pytest

from conftest import ROOT, files_under
from sheetgen import __version__
from sheetgen.games.rallytaire import spec as rallytaire_spec
from sheetgen.games.rallytaire.generate import (
    BANDS,
    GenerateError,
    generate_race,
    propose_corners,
    service_parks,
    spec_text,
    stage_difficulty,
)
from sheetgen.games.rallytaire.model import Stage, Surface
from sheetgen.games.rallytaire.solve import analyze_stage
from sheetgen.registry import load_spec
from sheetgen.yamlsrc import load_bytes

#: the seeds of every band the default suite generates and checks (12 races: 4 a band); the
#: slow runs (`-m slow`) check 20 a band (60 races, the costliest fixture of the suite, about
#: 25 s of CPU) and the corner sequences over them (with fewer the counts are too few to say
#: "mostly"); the generator's benchmark and the fuzz batch make many more
SEEDS = range(int(os.environ.get("SHEETGEN_TEST_SEEDS", "4")))
MANY_SEEDS = range(20)
PAPERS = ("a4", "letter")

# The bands as documented in the README, written out here rather than read from BANDS:
# (delay s/space, daring, crash), each [low, high) with None for no bound.
DOCUMENTED = {
    "easy": ((0.15, 0.45), (0.0, 0.03), (0.0, 0.06)),
    "medium": ((0.45, 0.85), (0.0, 0.06), (0.0, 0.25)),
    "hard": ((0.85, None), (0.008, None), (0.04, 0.35)),
}


@cache
def straight_par(length: int) -> float:
    return analyze_stage(Stage("straight", Surface.GRAVEL, length)).par_time


def band_figures(stage: Stage) -> tuple[float, float, float]:
    """(delay, daring, crash) from the exact solver, computed here from its raw figures."""
    a = analyze_stage(stage)
    return (
        (a.par_time - straight_par(stage.length)) / stage.length,
        (a.cautious_time - a.par_time) / a.par_time,
        a.crash_probability,
    )


def in_band(values, band) -> bool:
    return all(lo <= v and (hi is None or v < hi) for v, (lo, hi) in zip(values, band))


def _check_race(job: tuple[str, int]) -> dict:
    """Generate one race and check it in this (worker) process; return what the test asserts."""
    from sheetgen.games.rallytaire.sheet import pages_wanted, plan_race
    from sheetgen.template import MM, load_template
    from test_layout import check

    difficulty, seed = job
    race = generate_race(seed, stages=1 + seed % 2, difficulty=difficulty)
    text = spec_text(race, f"test {difficulty} {seed}")
    template = load_template()
    placed = {}
    for paper in PAPERS:
        _width_pt, height_pt = template.page_size(paper)
        plan = plan_race(race, template, height_pt / MM)
        # one sheet (one page for one stage), the time table on its last page: what the
        # generator's check asked of the plan
        assert plan.page_count <= pages_wanted(len(race.stages)) == len(race.stages)
        assert plan.table_page == len(plan.pages) - 1
        pages = plan.pages
        for page in pages:
            for p in page:
                # every promise of layout_stage (no overlap, inside the box) from the result
                check(race.stages[p.index], p.layout, p.layout.width, p.layout.height)
        placed[paper] = [[(p.index, p.layout) for p in page] for page in pages]
    # one plan and one track per stage on every paper (see games.rallytaire.sheet.track_box)
    assert placed["a4"] == placed["letter"]
    placed = {paper: sorted((i, lay.style) for page in pages for i, lay in page) for paper, pages in placed.items()}
    return {
        "text": text,
        "stages": [(s.name, s.length, len(s.corners), band_figures(s)) for s in race.stages],
        "placed": placed,
    }


def _generate(seeds) -> dict:
    jobs = [(d, seed) for d in BANDS for seed in seeds]
    workers = min(2, os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_check_race, jobs, chunksize=5))
    else:  # pragma: no cover - a one-core machine
        results = [_check_race(job) for job in jobs]
    return dict(zip(jobs, results))


@pytest.fixture(scope="module")
def generated():
    return _generate(SEEDS)


@pytest.fixture(scope="module")
def generated_many():
    return _generate(MANY_SEEDS)


# --------------------------------------------------------------------------- the bulk


def test_the_bands_are_the_documented_ones():
    for name, (delay, daring, crash) in DOCUMENTED.items():
        band = BANDS[name]
        assert (band.delay, band.daring, band.crash) == (delay, daring, crash)


@pytest.mark.parametrize("difficulty", list(DOCUMENTED))
def test_generated_races_are_valid_printable_and_in_their_band(generated, difficulty):
    _check_generated(generated, difficulty)


@pytest.mark.slow  # 60 races: see MANY_SEEDS
@pytest.mark.parametrize("difficulty", list(DOCUMENTED))
def test_many_generated_races_are_valid_printable_and_in_their_band(generated_many, difficulty):
    _check_generated(generated_many, difficulty)


def _check_generated(generated: dict, difficulty: str) -> None:
    for (band, seed), result in generated.items():
        if band != difficulty:
            continue
        # the spec text loads through the ordinary loader with no problem
        race = rallytaire_spec.load(load_bytes(result["text"].encode("utf-8"), f"seed{seed}.yaml"))
        assert rallytaire_spec.validate(race) == []
        assert len(race.stages) == 1 + seed % 2
        for name, length, corners, figures in result["stages"]:
            assert in_band(figures, DOCUMENTED[difficulty]), (difficulty, seed, name, figures)
            assert 40 <= length <= 70
            assert corners >= length // 10  # one corner per 10 spaces at least
        # each stage printed once per paper, on one page (no overlap: checked in the worker)
        for paper in PAPERS:
            assert [i for i, _style in result["placed"][paper]] == list(range(len(race.stages))), (seed, paper)


def test_the_figures_agree_with_stage_difficulty(generated):
    # stage_difficulty is the library's own classification; the test recomputed the figures
    from sheetgen.games.rallytaire.spec import load as load_race

    for difficulty in DOCUMENTED:
        for seed in SEEDS[:5]:
            race = load_race(load_bytes(generated[difficulty, seed]["text"].encode("utf-8"), "x.yaml"))
            for stage in race.stages:
                assert stage_difficulty(analyze_stage(stage)) == difficulty


def test_seeds_give_different_races(generated):
    for difficulty in DOCUMENTED:
        bodies = {generated[difficulty, seed]["text"].split("\ngame:", 1)[1] for seed in SEEDS}
        assert len(bodies) == len(SEEDS)


@pytest.mark.slow  # the counts need the 60 races of MANY_SEEDS
def test_corners_come_in_believable_sequences(generated_many):
    """Corners every few spaces, zones 4-8 spaces long and never reaching back past the
    previous corner, grouped corners sharing a zone, hairpins mostly after long straights."""
    from sheetgen.games.rallytaire.spec import load as load_race

    shared = hairpins = after_straight = 0
    gears: dict[str, list[int]] = {d: [] for d in DOCUMENTED}
    for (difficulty, _seed), result in generated_many.items():
        race = load_race(load_bytes(result["text"].encode("utf-8"), "x.yaml"))
        for stage in race.stages:
            previous = None
            for c in stage.corners:
                gears[difficulty].append(c.gear)
                assert c.after - c.zone + 1 <= 8 or (previous is not None and previous.zone == c.zone)
                if previous is None:
                    assert 4 <= c.after - c.zone + 1 and c.after >= 4
                elif previous.zone == c.zone:
                    shared += 1
                    assert 2 <= c.after - previous.after <= 5  # a chicane, esses or switchback
                else:
                    assert c.zone > previous.after
                    assert c.after - previous.after >= 3
                    assert c.after - c.zone + 1 >= 3
                if c.gear == 1:
                    hairpins += 1
                    gap = c.after - (previous.after if previous else 0)
                    after_straight += gap >= 12
                previous = c
            assert stage.length - stage.corners[-1].after >= 3  # a run to the finish
    races = len(generated_many)  # (50 shared corners and 50 hairpins in the 60 races of 20 seeds a band)
    assert shared > races * 5 / 6 and hairpins > races * 5 / 6 and after_straight > hairpins / 3
    mean = {d: sum(g) / len(g) for d, g in gears.items()}
    assert mean["easy"] > mean["medium"] > mean["hard"]  # harder stages, tighter corners


# --------------------------------------------------------------------------- the race around the stages


def test_service_parks_mid_race_never_after_the_last_stage():
    assert service_parks(1) == (False,)
    assert service_parks(2) == (False, False)
    assert service_parks(3) == (False, True, False)
    assert service_parks(4) == (False, True, False, False)
    assert service_parks(5) == (False, False, True, False, False)
    for count in range(1, 9):
        parks = service_parks(count)
        assert not parks[-1]
        assert sum(parks) == (0 if count < 3 else 1 if count <= 5 else 2)


def test_surfaces_vary_and_respect_the_restriction():
    race = generate_race(11, stages=4, length=(30, 45), difficulty="easy", sheet=False)
    assert len({s.surface for s in race.stages}) >= 2
    assert [s.service_park for s in race.stages] == [False, True, False, False]
    only = generate_race(11, stages=3, length=(30, 45), surfaces=["snow"], difficulty="easy", sheet=False)
    assert {s.surface for s in only.stages} == {Surface.SNOW}
    two = generate_race(12, stages=3, length=(30, 45), surfaces=["gravel", "snow"], difficulty="easy", sheet=False)
    assert {s.surface for s in two.stages} == {Surface.GRAVEL, Surface.SNOW}
    assert len({s.name for s in race.stages}) == 4


def test_the_stage_that_fits_no_page_is_named_by_its_index():
    """The page plan names the stage that fits no page by its index in the race (two stages
    may share a name), and the generator's check picks that stage to draw again."""
    from sheetgen.games.rallytaire.generate import RaceSheetFit
    from sheetgen.games.rallytaire.layout import LayoutError
    from sheetgen.games.rallytaire.model import Corner, Race, Stage, Surface, Turn
    from sheetgen.games.rallytaire.sheet import plan_pages
    from sheetgen.template import MM, load_template

    short = Stage("SS1 Twin", Surface.GRAVEL, 12, (Corner(after=4, gear=3, zone=1, turn=Turn.LEFT),))
    endless = Stage("SS1 Twin", Surface.GRAVEL, 600)  # rows with U-turns need about two pages
    race = Race(name="Twins", stages=(short, endless))
    template = load_template()
    with pytest.raises(LayoutError, match="'SS1 Twin' \\(600 spaces\\)") as caught:
        plan_pages(race, template, template.page_size("a4")[1] / MM)
    assert (caught.value.stage_index, caught.value.stage_name) == (1, "SS1 Twin")
    assert RaceSheetFit().race(race) == 1


def test_the_sheet_check_refuses_a_stage_with_a_mark_on_a_zone_line(monkeypatch):
    """Issue 30: a layout that could only put a gear label or an N or D box on a zone line
    (`StageLayout.marks_on_lines`) is not printed: the generator's check refuses the stage
    alone and names it in the race, so that it is proposed again; the same layout without
    the flag passes."""
    from dataclasses import replace

    from sheetgen.games.rallytaire import layout as layout_module
    from sheetgen.games.rallytaire import sheet
    from sheetgen.games.rallytaire.generate import RaceSheetFit
    from sheetgen.games.rallytaire.model import Corner, Race, Stage, Surface, Turn

    corners = (Corner(after=6, gear=3, zone=2, turn=Turn.LEFT), Corner(after=14, gear=2, zone=10, turn=Turn.RIGHT))
    first = Stage("SS1 Clean", Surface.GRAVEL, 20, corners)
    second = Stage("SS2 Crossed", Surface.GRAVEL, 22, corners)
    race = Race(name="Marks", stages=(first, second))
    fit = RaceSheetFit()
    assert fit.stage(second, 1) and fit.race(race) is None
    real = layout_module.layout_stage

    def crossed(stage, *args, **kwargs):
        lay = real(stage, *args, **kwargs)
        return replace(lay, marks_on_lines=True) if stage.name == "SS2 Crossed" else lay

    monkeypatch.setattr(layout_module, "layout_stage", crossed)
    monkeypatch.setattr(sheet, "layout_stage", crossed)
    assert fit.stage(first, 0) and not fit.stage(second, 1)
    assert fit.race(race) == 1


@pytest.mark.parametrize("difficulty", [d if d == "hard" else pytest.param(d, marks=pytest.mark.slow) for d in DOCUMENTED])
def test_stages_too_long_to_wind_print_as_rows_with_u_turns(difficulty):
    """A stage too long to wind on a page at all is accepted as the renderer's serpentine (rows
    with U-turns), on both papers and without overlap; a stage that could wind must wind."""
    from sheetgen.games.rallytaire.layout import can_wind
    from sheetgen.games.rallytaire.sheet import plan_pages, track_box
    from sheetgen.template import MM, load_template
    from test_layout import check

    template = load_template()
    race = generate_race(3, stages=2, length=(150, 170), difficulty=difficulty)
    for index, stage in enumerate(race.stages):
        assert 150 <= stage.length <= 170 and in_band(band_figures(stage), DOCUMENTED[difficulty])
        assert not can_wind(stage, *track_box(template, index == 0))
    for paper in PAPERS:
        pages = plan_pages(race, template, template.page_size(paper)[1] / MM)
        assert [[p.index for p in page] for page in pages] == [[0], [1]]
        for page in pages:
            for p in page:
                assert p.layout.style == "serpentine"
                check(race.stages[p.index], p.layout, p.layout.width, p.layout.height)
    # an ordinary length could wind alone on a page
    assert can_wind(Stage("x", Surface.GRAVEL, 70), *track_box(template, True))


def test_impossible_constraints_say_what_failed():
    with pytest.raises(GenerateError) as caught:
        generate_race(1, length=(2, 3), difficulty="hard")
    message = str(caught.value)
    assert message.startswith("cannot generate a hard stage of 2..3 spaces in 60 tries: 60 fell outside the hard band (delay at least 0.85 s/space")
    assert message.endswith("try another --length or --difficulty")
    with pytest.raises(GenerateError, match="unknown difficulty 'brutal'"):
        generate_race(1, difficulty="brutal")
    with pytest.raises(GenerateError, match="unknown surface 'mud'"):
        generate_race(1, surfaces=["mud"])
    with pytest.raises(GenerateError, match="a race has 1 to 8 stages, got 9"):
        generate_race(1, stages=9)


def test_proposals_use_only_the_generator_they_are_given():
    import random

    first = propose_corners(random.Random(5), 60, "medium", Surface.GRAVEL)
    random.seed(123)  # the global generator must not matter
    assert propose_corners(random.Random(5), 60, "medium", Surface.GRAVEL) == first


def test_the_race_does_not_depend_on_the_process():
    """No str hash() or global random anywhere: other hash seeds give the same bytes."""
    code = (
        "from sheetgen.games.rallytaire.generate import generate_race, spec_text;"
        "print(spec_text(generate_race(4, stages=2, length=(30, 40)), 'x'), end='')"
    )
    outputs = set()
    for hashseed in ("0", "1"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        outputs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT).stdout)
    assert len(outputs) == 1


# --------------------------------------------------------------------------- the command line


def test_cli_same_seed_same_bytes_file_and_stdout(run, tmp_path):
    args = ["generate", "rallytaire", "--seed", "21", "--stages", "2", "--length", "35..50", "--difficulty", "hard"]
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    assert run(*args, "-o", str(one)).exit_code == 0
    assert run(*args, "-o", str(two)).exit_code == 0
    assert one.read_bytes() == two.read_bytes()
    shown = run(*args)
    assert shown.exit_code == 0 and shown.stderr == ""
    assert shown.stdout.encode("utf-8") == one.read_bytes()
    first = one.read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# Generated by sheetgen {__version__}: sheetgen generate rallytaire --seed 21 --stages 2 --length 35..50 --difficulty hard"
    other = run("generate", "rallytaire", "--seed", "22", "--stages", "2", "--length", "35..50", "--difficulty", "hard")
    assert other.stdout.split("\ngame:", 1)[1] != shown.stdout.split("\ngame:", 1)[1]


def test_cli_spec_passes_validate_analyze_and_render(run, tmp_path):
    target, pdf = tmp_path / "race.yaml", tmp_path / "race.pdf"
    result = run("generate", "rallytaire", "--seed", "3", "--stages", "3", "--surface", "asphalt,snow", "-o", str(target), "--render", str(pdf))
    assert result.exit_code == 0, result.output
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert run("validate", "--strict", str(target)).exit_code == 0
    assert run("analyze", str(target), "--format", "json").exit_code == 0
    again = tmp_path / "again.pdf"
    assert run("render", str(target), "-o", str(again)).exit_code == 0
    assert again.read_bytes() == pdf.read_bytes()  # --render printed what render prints
    spec = load_spec(target)
    assert [s.service_park for s in spec.model.stages] == [False, True, False]
    assert {s.surface for s in spec.model.stages} <= {Surface.ASPHALT, Surface.SNOW}


def test_cli_without_seed_picks_one_and_says_so(run):
    result = run("generate", "rallytaire", "--stages", "1", "--length", "30..40")
    assert result.exit_code == 0
    seed = result.stderr.split()[1]
    assert result.stderr == f"seed {seed} (rerun with --seed {seed} to get this race again)\n"
    again = run("generate", "rallytaire", "--seed", seed, "--stages", "1", "--length", "30..40")
    assert again.stdout == result.stdout


def test_cli_failure_writes_nothing(run, tmp_path):
    target, pdf = tmp_path / "race.yaml", tmp_path / "race.pdf"
    result = run("generate", "rallytaire", "--seed", "1", "--length", "2..3", "--difficulty", "hard", "-o", str(target), "--render", str(pdf))
    assert result.exit_code == 1
    assert result.stderr.startswith("sheetgen: error: cannot generate a hard stage of 2..3 spaces")
    assert result.stdout == ""
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    "args,message",
    [
        (["--length", "5..x"], "Invalid value for '--length': expected MIN..MAX such as 40..70, got '5..x'"),
        (["--length", "50..40"], "Invalid value for '--length': expected 2 <= MIN <= MAX <= 160, got 50..40"),
        (
            ["--length", "300..300"],
            "Invalid value for '--length': expected 2 <= MIN <= MAX <= 160, got 300..300 (a spec may hold stages of up to "
            "300 spaces; a generated one, 160)",
        ),
        (
            ["--stages", "8", "--length", "100..160"],
            "--stages 8 and --length 100..160 ask for up to 1280 spaces; a generated race has at most 640 in all "
            "(stages x MAX): ask for fewer stages or a lower MAX",
        ),
        (["--surface", "mud"], "Invalid value for '--surface': unknown surface 'mud' (expected asphalt, gravel or snow)"),
        (["--surface", ","], "Invalid value for '--surface': no surface named (expected asphalt, gravel or snow, comma separated)"),
    ],
)
def test_cli_bad_options_are_usage_errors(run, args, message):
    result = run("generate", "rallytaire", "--seed", "1", *args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == f"Error: {message}"


def test_cli_spec_that_cannot_be_written_takes_its_pdf_back(run, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    pdf = tmp_path / "race.pdf"
    result = run("generate", "rallytaire", "--seed", "5", "--stages", "1", "--length", "30..40", "-o", str(tmp_path / "file" / "race.yaml"), "--render", str(pdf))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"sheetgen: error: cannot write {tmp_path / 'file' / 'race.yaml'}")
    assert files_under(tmp_path) == ["file"]


def test_cli_dash_is_standard_output(run):
    args = ["generate", "rallytaire", "--seed", "5", "--stages", "1", "--length", "30..40"]
    assert run(*args, "-o", "-").stdout == run(*args).stdout
