"""What validate accepts, render prints: a Rallytaire stage that fits on no page of the race
sheet is refused by validate at its length, with what it would need."""

from __future__ import annotations

import pytest
from pypdf import PdfReader


def race(stages: str) -> str:
    return "game: rallytaire\nname: Long\nstages:\n" + stages


def test_a_stage_too_long_for_any_page_is_refused_at_its_length(run, tmp_path):
    spec = tmp_path / "race.yaml"
    spec.write_text(race("  - {name: SS1, surface: gravel, length: 300, corners: []}\n"), encoding="utf-8")
    line = (
        f"{spec}:4:42: error: cannot be printed on the race sheet: stage 'SS1' (300 spaces) does not fit in 190.0 x 214.9 mm: "
        "it needs a box at least 249.5 mm high at this width; shorten the stage or space its corners out\n"
    )
    for command in (("validate", str(spec)), ("render", str(spec), "-o", str(tmp_path / "r.pdf")), ("build", str(spec), "-o", str(tmp_path / "out"))):
        result = run(*command)
        assert (result.exit_code, result.stderr) == (1, line), command
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race.yaml"]


def test_corners_take_room_too(run, tmp_path):
    corners = ", ".join(f"{{after: {a}, gear: 3, zone: {a}, turn: left}}" for a in range(1, 26))
    spec = tmp_path / "race.yaml"
    spec.write_text(race(f"  - {{name: SS1, surface: gravel, length: 26, corners: [{corners}]}}\n"), encoding="utf-8")
    result = run("validate", str(spec))
    assert result.exit_code == 1 and result.stderr.startswith(f"{spec}:4:42: error: cannot be printed on the race sheet: stage 'SS1' (26 spaces)")


def test_the_longest_stages_that_fit_are_printed(run, tmp_path):
    spec = tmp_path / "race.yaml"
    spec.write_text(race("  - {name: SS1, surface: gravel, length: 220, corners: []}\n  - {name: SS2, surface: snow, length: 240, corners: []}\n"), encoding="utf-8")
    assert run("validate", str(spec)).exit_code == 0
    result = run("render", str(spec), "-o", str(tmp_path / "r.pdf"))
    assert result.exit_code == 0, result.output
    pages = PdfReader(str(tmp_path / "r.pdf")).pages
    text = " ".join(page.extract_text() for page in pages)
    assert "SS1" in text and "SS2" in text and "240" in text


@pytest.mark.slow  # (60 solves of a 300-space stage; the refusal's reasons are checked above)
def test_generate_refuses_a_stage_too_long_to_print_with_the_reason(run):
    result = run("generate", "rallytaire", "--seed", "1", "--stages", "1", "--length", "300..300", "--difficulty", "easy")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("sheetgen: error: cannot generate an easy stage of 300 spaces in 60 tries: ")
    assert result.stderr.endswith("; try another --length or --difficulty\n") and result.stderr.count("\n") == 1
