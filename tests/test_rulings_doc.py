"""docs/rulings.md against the tests: every ruling pinned above its "Not yet pinned" section
gives its source and the tests that pin it, and every test it names exists (read from the
test files' text: a test renamed or merged leaves the document naming nothing)."""

from __future__ import annotations

import re

from conftest import ROOT

TEXT = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
PINNED, _UNPINNED = TEXT.split("\n## Not yet pinned by a test\n")


def _rulings() -> dict[str, str]:
    """Each pinned ruling's id and its text (up to the next ruling or heading)."""
    out = {}
    for block in re.split(r"\n(?=\*\*R[A-Z]-\d+[a-z]?\. )", PINNED)[1:]:
        rid = re.match(r"\*\*(R[A-Z]-\d+[a-z]?)\.", block)
        assert rid is not None
        out[rid.group(1)] = re.split(r"\n#+ ", block)[0]
    return out


def test_every_pinned_ruling_gives_its_source_and_its_tests():
    rulings = _rulings()
    assert len(rulings) > 150
    assert [r for r, text in rulings.items() if "Source" not in text] == []
    assert [r for r, text in rulings.items() if "Pinned by" not in text] == []


def test_every_test_the_rulings_name_exists():
    named = re.findall(r"`(test_\w+\.py)::(\w+)", TEXT)
    assert len(named) > 400
    missing = []
    for file, name in sorted(set(named)):
        path = ROOT / "tests" / file
        if not path.exists() or not re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.M):
            missing.append(f"{file}::{name}")
    assert missing == []


def test_the_rulings_of_issue_34_each_name_it():
    """Issue 34's points, each a ruling that says what changed (or what was added) and why."""
    rulings = _rulings()
    for rid in ("RG-23", "RG-27", "RG-28", "RG-33", "RG-34", "RD-17", "RD-20", "RD-21", "RD-22", "RD-23",
                "RD-24", "RR-18", "RR-19", "RR-21", "RR-30", "RN-16", "RN-21", "RN-22", "RN-23"):
        assert re.search(r"[Ii]ssue 34", rulings[rid]), rid
