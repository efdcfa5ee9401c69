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


def test_generate_refuses_a_stage_too_long_to_print_naming_the_limit(run):
    # (it answered after 50 s of CPU, laying out 60 stages of 300 spaces too long for the sheet)
    result = run("generate", "rallytaire", "--seed", "1", "--stages", "1", "--length", "300..300", "--difficulty", "easy")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: Invalid value for '--length': expected 2 <= MIN <= MAX <= 160, got 300..300 (a spec may hold stages "
        "of up to 300 spaces; a generated one, 160)"
    )


# --------------------------------------------------------------------------- how to print: duplex, page numbers


def _duplex(data: bytes) -> str:
    import io

    return str(PdfReader(io.BytesIO(data)).trailer["/Root"]["/ViewerPreferences"]["/Duplex"])


def test_every_pdf_says_how_it_is_printed_as_printing_md_says(tmp_path):
    """docs/printing.md's table "One side or two" read as a player reads it: per game, the
    /Duplex values its last column names; each game's PDFs (bundled specs of each kind of
    file it prints: a race, a season, a library, a race with its card, standings, the tile
    set flipped on either edge, a track, a tile library, a rally's results) ask for one of
    them, and a game that names two asks for both: a Rally Run! set flipped on the edge the
    set names (its backs are laid out for it), Rallytaire's race and season sheets double-
    sided, Rally Risk's and Rallyman's one-sided (cut out, no backs)."""
    import re

    from conftest import ROOT, SPECS
    from sheetgen.registry import Figures, load_spec
    from sheetgen.render import build_outputs

    section = (ROOT / "docs" / "printing.md").read_text(encoding="utf-8").split("## One side or two", 1)[1]
    rows = [line.split("|")[1:-1] for line in section.split("\n## ", 1)[0].splitlines() if line.startswith("| ")][2:]
    said = {cells[0].strip(): {f"/{v}" for v in re.findall(r"`(\w+)`", cells[3])} for cells in rows}
    assert sorted(said) == ["Rally Risk", "Rally Run!", "Rallyman GT and DIRT", "Rallytaire"]
    house = SPECS / "rally_run" / "house_set.yaml"
    short = tmp_path / "short.yaml"
    short.write_text(house.read_text(encoding="utf-8").replace("duplex: long_edge", "duplex: short_edge"), encoding="utf-8")
    printed = {
        "Rallytaire": [SPECS / "rallytaire" / "monte_carlo.yaml", SPECS / "seasons" / "winter_season.yaml"],
        "Rally Risk": [SPECS / "rally_risk" / name for name in ("sections.yaml", "safari_1.yaml", "results.yaml")],
        "Rally Run!": [house, short],
        "Rallyman GT and DIRT": [SPECS / "rallyman" / name for name in ("tiny.yaml", "tiles.yaml", "results/winter_rally.yaml")],
    }
    for game, paths in printed.items():
        asked = set()
        for path in paths:
            spec = load_spec(path)
            # (a track's par is not what this reads: left out)
            figures = Figures.given(spec, None) if game.startswith("Rallyman") else None
            asked.add(_duplex(build_outputs(spec, figures=figures)[0]))
        assert asked == said[game], (game, asked, said[game])


def page_numbers(data: bytes, alone: bool = False) -> list[str]:
    """Per page, the problems of its "page N of M": there must be one that reads the page's
    place in the PDF and the PDF's page count, inside the 10 mm margins, over no other text
    and no line or fill (tests/pdfgeom.py: what the page and its forms draw). `alone`: and no
    other text on the page numbers it ("page 1 of 2", "card 1 of 2" of a part of the PDF beside
    the footer's "page 5 of 7": Rallyman's and Rally Risk's pages, issue 30)."""
    import re

    from pdfgeom import MM, intersection, read_pages

    pages = read_pages(data)
    problems = []
    for k, page in enumerate(pages, start=1):
        numbers = [t for t in page.texts if re.fullmatch(r"page \d+ of \d+", t.value)]
        mine = [t for t in numbers if t.value == f"page {k} of {len(pages)}"]
        if not mine:
            problems.append(f"page {k}: {[t.value for t in numbers]}")
            continue
        number = mine[-1]  # the footer's, drawn last
        if alone:
            inner = [t.value for t in page.texts if t is not number and re.search(r"\b(page|card) \d+ of \d+", t.value)]
            if inner:
                problems.append(f"page {k}: numbered again: {inner}")
        x0, y0, x1, y1 = number.glyph_box()
        margin = 10 * MM - 0.01
        if not (margin <= x0 and margin <= y0 and x1 <= page.width - margin and y1 <= page.height - margin):
            problems.append(f"page {k}: in the margin")
        others = [t.visible_box() for t in page.texts if t is not number]
        others += [intersection(p.bbox(), p.clip) for p in page.paths]
        for box in others:
            if box and box[0] < x1 - 0.3 and x0 < box[2] - 0.3 and box[1] < y1 - 0.3 and y0 < box[3] - 0.3:
                problems.append(f"page {k}: over something at {[round(v / MM, 1) for v in box]} mm")
    return problems


def test_every_page_is_numbered_where_nothing_else_is():
    """A Rally Run! set (tile fronts and backs, the cars' page, the rules summary) and a Rally
    Risk library (section cards, the kit, the reference card), on A4 (Letter and every other
    page kind: the slow test below): every page prints "page N of M" with N its place in the
    PDF, inside the margins and clear of everything else."""
    paper = "a4"
    from conftest import SPECS
    from sheetgen.registry import load_spec
    from sheetgen.render import build_outputs

    for spec in (SPECS / "rally_run" / "house_set.yaml", SPECS / "rally_risk" / "sections.yaml"):
        # the Rally Risk library's cards, kit and reference card: the footer's is their only
        # number (issue 30)
        alone = spec.name == "sections.yaml"
        assert page_numbers(build_outputs(load_spec(spec), paper=paper)[0], alone=alone) == [], spec.name


@pytest.mark.slow  # (a Rally Risk race and library, a tile library, a track with its par: about 10 s)
def test_rallyman_and_rally_risk_pages_are_numbered_by_the_footer_alone():
    """A Rallyman track (map, roadbook, dashboard card and its odds, time sheet, the pieces
    without the box), a Rally Risk course sheet with its reference card, a library with its
    kit and a Rallyman tile library: each page's one number is the footer's "page N of M"
    (their own "page 1 of 2" and "dashboard card 1 of 2" beside it are gone; the kinds of page
    are named in their headers and the PDF's outline). The cheap twins: the library in the
    test above, the track in tests/test_rallyman_printing.py."""
    from conftest import SPECS
    from sheetgen.registry import load_spec
    from sheetgen.render import build_outputs

    for name in ("rallyman/tiny.yaml", "rally_risk/safari_1.yaml", "rally_risk/sections.yaml", "rallyman/tiles.yaml"):
        assert page_numbers(build_outputs(load_spec(SPECS / name))[0], alone=True) == [], name


@pytest.mark.slow  # (every bundled spec on both papers: a full build twice, about a minute)
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_page_of_every_bundled_spec_is_numbered_where_nothing_else_is(run, tmp_path, paper):
    from conftest import ROOT

    out = tmp_path / "out"
    result = run("build", str(ROOT / "track_specs"), "-o", str(out), "--paper", paper)
    assert result.exit_code == 0, result.output
    problems = {}
    for pdf in sorted(out.glob("*.pdf")):
        data = pdf.read_bytes()
        assert _duplex(data) in ("/Simplex", "/DuplexFlipLongEdge", "/DuplexFlipShortEdge"), pdf.name
        found = page_numbers(data)
        if found:
            problems[pdf.name] = found
    assert problems == {}
