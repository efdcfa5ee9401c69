"""The fuzz harness's past findings run again, every one on every run of the suite
(tests/fuzz/corpus/*.yaml, see tests/fuzz/findings.py): what each must answer now, and the
harness's own rules."""

from __future__ import annotations

import os

import pytest

from fuzz import findings

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc") or not hasattr(os, "mkfifo"), reason="POSIX processes")


@pytest.mark.parametrize("path", findings.entries(), ids=lambda p: p.stem)
def test_a_past_finding_stays_fixed(path):
    done = findings.replay(path)
    try:
        assert done.failures == [], f"{path.name}: {done.outcome.case.reproducer()}"
    finally:
        findings.discard(done)


def test_every_finding_says_what_was_wrong_and_what_is_right():
    entries = [findings.load(path) for path in findings.entries()]
    assert len(entries) >= 9
    assert all(e["finding"].strip() and e["right"].strip() and "TODO" not in e["finding"] + e["right"] for e in entries)


def test_a_replay_finds_an_answer_that_is_not_the_one_kept(tmp_path):
    """The replay is no formality: an entry whose kept answer is not what the command says
    fails, and so does one whose command breaks a rule of the harness."""
    entry = tmp_path / "wrong.yaml"
    entry.write_text(
        "finding: x\nright: y\nfiles: {race.yaml: {copy: track_specs/rallytaire/acropolis.yaml}}\n"
        "run: [validate, race.yaml]\nexit: 1\nstderr: \"\"\n",
        encoding="utf-8",
    )
    done = findings.replay(entry)
    findings.discard(done)
    assert done.failures == ["exit 0, not 1 (standard error '')"]
    entry.write_text(
        "finding: x\nright: y\nfiles: {race.yaml: {copy: track_specs/rallytaire/acropolis.yaml}}\n"
        "run: [render, race.yaml, -o, race.yaml]\ntargets: [race.yaml]\nexit: 0\n",
        encoding="utf-8",
    )
    done = findings.replay(entry)
    findings.discard(done)
    assert done.failures == [
        "exit 1, not 0 (standard error 'sheetgen: error: refusing to write race.yaml: it is an input of this command "
        "(race.yaml); choose another output file\\n')"
    ]
