"""A seeded sample of the fuzz batch (see tests/fuzz/__init__.py for the big one), and the
harness's own checks: that it finds what it is meant to find."""

from __future__ import annotations

import copy
import os
import random
import stat
from types import SimpleNamespace

import pytest

from fuzz import commands, findings, harness, large, process

SAMPLE_SEED = 2024
SAMPLE_CASES = 200


@pytest.fixture(scope="module")
def corpus():
    return harness.load_corpus_cached()


def test_every_bundled_spec_is_in_the_corpus_with_its_game(corpus):
    import yaml

    found = {}
    for path in sorted(harness.SPECS.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "game" in data:
            found[path.relative_to(harness.ROOT).as_posix()] = data["game"]
    assert {s.path: s.game for s in corpus.specs} == found
    assert set(corpus.games) == set(found.values())


def test_references_are_found(corpus):
    season = next(s for s in corpus.specs if s.kind == "season")
    assert {ref for _where, ref in season.refs} >= {"track_specs/rallytaire/acropolis.yaml"}
    race = corpus.spec("track_specs/rally_risk/montecarlo_1.yaml")
    assert "track_specs/rally_risk/sections.yaml" in harness.inputs_of(corpus, race.path)


def test_a_case_is_made_again_from_its_seed_and_index(corpus):
    for index in range(30):
        one, two = harness.make_case(corpus, 9, index), harness.make_case(corpus, 9, index)
        assert (one.files, one.args, one.fifos, one.description) == (two.files, two.args, two.fifos, two.description)
    assert harness.make_case(corpus, 9, 1).reproducer().startswith("python benchmarks/fuzz.py --seed 9 --case 1 --keep  # sheetgen ")


def _judged(exit_code=1, stdout="", stderr="", before=None, after=None, inputs=(), targets=(), exception=None):
    case = harness.Case(0, 0, args=["render", "a.yaml", "-o", "out.pdf"], targets=list(targets), command="render")
    outcome = harness.Outcome(case)
    result = SimpleNamespace(exit_code=exit_code, stdout=stdout, stderr=stderr, exception=exception, exc_info=None)
    harness._judge(outcome, result, before or {}, after if after is not None else (before or {}), set(inputs), "render")
    return sorted({category for category, _detail in outcome.findings})


FILE = ("file", 3, "aaa")


def test_the_judge_accepts_a_clean_refusal():
    assert _judged(stderr="a.yaml:1:2: error: bad\nsheetgen: error: also bad\n") == []


def test_the_judge_finds_each_kind_of_failure():
    assert _judged(stderr="sheetgen: internal error: ValueError: x\n") == ["internal errors", "unlocated error lines"]
    assert _judged(stderr="Traceback (most recent call last):\n") == ["tracebacks", "unlocated error lines"]
    assert _judged(exit_code=3) == ["bad exit codes"]
    assert _judged(stderr="a.yaml: error: no line\n") == ["unlocated error lines"]
    assert _judged(before={"a.yaml": FILE}, after={"a.yaml": FILE, "out.pdf": FILE}) == ["partial outputs"]
    assert _judged(exit_code=0, before={"a.yaml": FILE}, after={"a.yaml": FILE, ".sheetgen-x.tmp": FILE}) == ["partial outputs"]
    assert _judged(exit_code=0, before={"a.yaml": FILE}, after={"a.yaml": ("file", 4, "bbb")}, inputs={"a.yaml"}, targets=["a.yaml"]) == ["replaced inputs"]
    assert _judged(exit_code=0, before={"b.yaml": FILE}, after={"b.yaml": ("file", 4, "bbb")}) == ["other files changed"]
    assert _judged(exit_code=0, before={"p": ("fifo",)}, after={"p": FILE}, targets=["p"]) == ["special files replaced"]
    assert _judged(exception=ValueError("x")) == ["tracebacks"]


def test_the_judge_lets_a_command_write_what_it_was_asked_to():
    assert _judged(exit_code=0, before={"a.yaml": FILE, "out.pdf": FILE}, after={"a.yaml": FILE, "out.pdf": ("file", 9, "c")}, targets=["out.pdf"]) == []


@pytest.mark.slow  # minutes; benchmarks/fuzz.py runs the large batches
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_seeded_sample_of_cases(corpus):
    """A few hundred cases of every kind; each finding is listed with its reproducer (time is
    the batch's to measure, never the suite's: slow cases are not counted here)."""
    settings = harness.Settings(expensive_share=0.03, content_share=0.3, output_share=0.2, hang=30.0)
    tally = harness.run_batch(SAMPLE_SEED, range(SAMPLE_CASES), settings)
    assert tally.cases == SAMPLE_CASES
    found = tally.problems([c for c in harness.CATEGORIES if c not in findings.UNTIMED])
    assert not found, "\n" + tally.report(10)


# -- the families that ask for work: every command and game, large inputs, real processes --

def test_every_command_of_the_cli_has_valid_cases():
    import click

    from sheetgen.cli import main

    # the games' own too; not `preview`, a server (tests/test_preview.py drives it over HTTP)
    assert sorted(commands.BUILDERS) == [c for c in main.list_commands(click.Context(main)) if c != "preview"]


def test_every_option_a_game_parses_has_values_the_game_accepts():
    from sheetgen import registry

    parsed = [(g, o) for g in registry.games() for o in g.options if o.parse is not None]
    assert {o.name for _g, o in parsed} == {"library", "length", "surface", "dice", "tiles", "table", "box"}
    for game, option in parsed:
        if option.name in commands.UNFUZZED:
            continue
        for size in ("small", "large"):
            for seed in range(5):
                value = commands.PARSED[option.name](random.Random(seed), size, "dirt", game.name)
                option.parse((value,) if option.multiple else value)  # raises ValueError when refused


def _valid_cases(corpus, count: int, **kwargs) -> list:
    cases = []
    for index in range(count):
        case = harness.Case(0, index, files=dict(corpus.files))
        commands.valid_command(case, harness.Mutator(corpus, random.Random(index)), corpus, **kwargs)
        cases.append(case)
    return cases


def test_valid_cases_reach_every_command_and_every_game_s_generator(corpus):
    cases = _valid_cases(corpus, 300)
    assert {c.command for c in cases} == set(commands.BUILDERS)
    made = {c.game for c in cases if c.command == "generate"}
    assert made == {"rallytaire", "rally_risk", "rally_run", "rallyman"}
    # Rally Risk draws its course from a library: every case of it names one
    risk = [c for c in cases if c.command == "generate" and c.game == "rally_risk"]
    assert risk and all(c.args[c.args.index("--library") + 1] == "track_specs/rally_risk/sections.yaml" for c in risk)
    assert {c.game for c in cases if c.command == "odds"} == {"rallyman"}
    assert {c.game for c in cases if c.command == "import"} == {"rallyman"}
    assert {c.game for c in cases if c.command in ("analyze", "render")} == {"rallytaire", "rally_risk", "rally_run", "rallyman"}


def test_valid_export_cases_write_rekee_files_as_well_as_meet_refusals(corpus, tmp_path):
    """The bundled tracks' tiles have no Rekee ids, so `export` refuses them (every export of
    the 20,000-case batch of stop 42 ended so); most valid cases export the same track laid
    from the stand-in library `import` reads, and reach the writer."""
    import json

    cases = [c for c in _valid_cases(corpus, 80, command="export") if not c.hostile_output]
    laid = [c for c in cases if c.subject.startswith(commands.REKEE + "/")]
    assert laid and len(laid) < len(cases)
    rgt = [c for c in laid if "exported.rgt" in c.args][:1]
    assert rgt
    for case in rgt + [c for c in laid if "exported.json" in c.args][:1]:
        (tmp_path / str(case.index)).mkdir()
        outcome = harness.run_case(case, keep=tmp_path / str(case.index))
        assert (outcome.exit_code, outcome.findings) == (0, [])
        written = json.loads(next((tmp_path / str(case.index)).glob("*/" + case.args[-1])).read_bytes())
        track = corpus.spec(f"track_specs/rallyman/{case.subject.split('/')[-1]}").data
        if case.args[-1].endswith(".rgt"):
            assert written["Name"] == track["name"]
        else:
            assert (written["title"], len(written["tiles"])) == (track["name"], len(track["tiles"]))


def test_large_cases_take_options_to_the_end_of_their_ranges(corpus):
    cases = _valid_cases(corpus, 60, size="large", command="analyze")
    run = [c.args for c in cases if c.game == "rally_run"]
    assert run and all(a[a.index("--games") + 1] == "100" and a[a.index("--rounds") + 1] == "1000" for a in run)
    made = _valid_cases(corpus, 60, size="large", command="generate")
    stages = [c.args[c.args.index("--stages") + 1] for c in made if c.game == "rallytaire"]
    assert stages and set(stages) == {"8"}


def test_a_grown_spec_reaches_its_schema_s_limits(corpus):
    data = copy.deepcopy(corpus.spec("track_specs/rallytaire/acropolis.yaml").data)
    knobs = dict(large.knobs(data, large.schema_of("rallytaire")))
    assert knobs[("stages",)]["maxItems"] == 8 and knobs[("stages", 0, "length")]["maximum"] == 300
    assert not [p for p in knobs if p[-1] in ("after", "zone")]  # places, not sizes
    assert large.grow(data, ("stages", 0, "length"), knobs[("stages", 0, "length")], random.Random(1)) == "stages/0/length: 55 -> 300"
    # the stage's corners keep their places along it: after 5 of 55 spaces is after 27 of 300
    assert [(c["after"], c["zone"]) for c in data["stages"][0]["corners"][:3]] == [(27, 5), (60, 38), (87, 65)]
    assert large.grow(data, ("stages",), knobs[("stages",)], random.Random(1)) == "stages: 4 -> 8 items"
    assert [s["name"] for s in data["stages"][4:6]] == ["SS1 Loutraki 5", "SS2 Pissia 6"]
    track = dict(large.knobs(copy.deepcopy(corpus.spec("track_specs/rallyman/gt_hexagon_ring.yaml").data), large.schema_of("rallyman")))
    assert track[("laps",)]["maximum"] == 10 and track[("tiles",)]["maxItems"] == 200


def _ran(monkeypatch, args, ran, **fields):
    """Judge a process case whose process gave `ran` (a `process.Ran`), in a folder holding
    what the case makes; returns its findings' categories."""
    monkeypatch.setattr(process, "run", lambda *a, **k: ran)
    case = harness.Case(0, 0, args=list(args), command=args[0], mode="process", **fields)
    return sorted({c for c, _d in harness.run_case(case).findings})


def test_the_judge_of_processes_finds_each_kind_of_failure(monkeypatch):
    term = dict(signal=("SIGTERM", 0.5))
    said = b"sheetgen: terminated by SIGTERM; nothing written\n"
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(143, stderr=said, delivered=True), **term) == []
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(143, signalled=15, delivered=True), **term) == []
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(0, delivered=True), **term) == ["signals"]
    # the signal came after the command had failed and said so (seed 1, case 4648 of the 20,000-case
    # batch of stop 42): its default action ended the process; its report is judged as a failure's
    failed = (b"sheetgen: error: cannot generate a medium stage of 2..6 spaces in 60 tries: 60 fell outside"
              b" the medium band; try another --length or --difficulty\n")
    generate = ["generate", "rallytaire", "--seed", "622420", "--length", "2..6", "--stages", "2"]
    assert _ran(monkeypatch, generate, process.Ran(143, stderr=failed, signalled=15, delivered=True), **term) == []
    # ... but not a line without its place, nor a report the signal's line follows as if the work went on
    assert _ran(monkeypatch, generate, process.Ran(143, stderr=b"error: cannot generate\n", signalled=15, delivered=True),
                **term) == ["unlocated error lines"]
    assert _ran(monkeypatch, generate, process.Ran(143, stderr=failed + said, delivered=True), **term) == ["signals"]
    interrupted = b'Traceback (most recent call last):\n  File "/x/sheetgen/cli.py", line 16, in <module>\nKeyboardInterrupt\n'
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(130, stderr=interrupted, signalled=2, delivered=True),
                signal=("SIGINT", 0.1)) == ["signals"]
    # before sheetgen's first line (the interpreter's start): Python's, not sheetgen's
    starting = b'Traceback (most recent call last):\n  File "<frozen runpy>", line 112, in _get_module_details\nKeyboardInterrupt\n'
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(130, stderr=starting, signalled=2, delivered=True),
                signal=("SIGINT", 0.05)) == []
    streams = b"Fatal Python error: init_sys_streams: can't initialize sys standard streams\nPython runtime state: core initialized\nKeyboardInterrupt\n"
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(1, stderr=streams, delivered=True), signal=("SIGINT", 0.05)) == []
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(1, stderr=b"sheetgen: interrupted; nothing written\n", delivered=True),
                signal=("SIGINT", 2.0)) == ["signals"]
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(143, stderr=said, delivered=True, left=[99999]), **term) == ["workers left"]
    assert _ran(monkeypatch, ["render", "a.yaml", "-o", "-"], process.Ran(0), stdout="closed") == ["lost output"]
    assert _ran(monkeypatch, ["render", "a.yaml", "-o", "out.pdf"], process.Ran(0), stdout="closed") == []
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(0, stopped="still running after 90 s")) == ["hangs"]
    assert _ran(monkeypatch, ["schema", "rallytaire"], process.Ran(0, cpu=12.5)) == ["slow"]


def test_the_judge_of_what_the_harness_made_first(tmp_path):
    """Write-protected files, files standard output is appended to, devices."""
    case = harness.Case(0, 0, args=["render", "a.yaml", "-o", "kept.pdf"], protected=["kept.pdf"], logs={"log.txt": b"old\n"})
    harness.prepare(case, tmp_path)
    assert stat.S_IMODE(os.stat(tmp_path / "kept.pdf").st_mode) == 0o444
    before = harness._snapshot(tmp_path)

    def judged(exit_code=0) -> list:
        outcome = harness.Outcome(case, exit_code=exit_code)
        harness._judge_files(outcome, tmp_path, before)
        return sorted({c for c, _d in outcome.findings})

    assert judged() == []
    (tmp_path / "log.txt").write_bytes(b"old\n%PDF-1.4")
    assert judged() == [] and judged(exit_code=1) == ["partial outputs"]
    (tmp_path / "log.txt").write_bytes(b"%PDF-1.4")
    assert judged() == ["special files replaced"]
    (tmp_path / "log.txt").write_bytes(b"old\n")
    (tmp_path / "kept.pdf").chmod(0o644)
    (tmp_path / "kept.pdf").write_bytes(b"%PDF-1.4")
    assert judged() == ["protected files replaced"]
    case.args.append("--force")
    assert judged() == ["protected files replaced"]  # (replaced with --force, but its mode 444 lost)
    (tmp_path / "kept.pdf").chmod(0o444)
    assert judged() == []
