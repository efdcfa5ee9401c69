"""A seeded sample of the fuzz batch (see tests/fuzz/__init__.py for the big one), and the
harness's own checks: that it finds what it is meant to find."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from fuzz import harness

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


@pytest.mark.slow  # 18 s; benchmarks/fuzz.py runs the large batches
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_seeded_sample_of_cases(corpus):
    """A few hundred cases of every kind; each finding is listed with its reproducer."""
    settings = harness.Settings(expensive_share=0.03, content_share=0.3, output_share=0.2, hang=30.0)
    tally = harness.run_batch(SAMPLE_SEED, range(SAMPLE_CASES), settings)
    assert tally.cases == SAMPLE_CASES
    found = tally.problems()
    assert not found, "\n" + tally.report(10)
