"""Race sheets read back from the PDF (tests/pdfgeom.py: the content stream's paths and texts,
not the layout code): every bundled race and a sample of generated ones, on A4 and Letter.

- one sheet a race: the pages `sheet.pages_wanted` says (two for the bundled races);
- nothing inside the 10 mm margin;
- planning zones: every piece of zone line at least 2 mm from every other, so that no zone
  runs on into another and parallel zones read as two;
- each corner's N and D pair nearer its own corner line (drawn just before it) than any other;
- no text (space numbers above all) touching a corner line.
"""

from __future__ import annotations

import pytest

from conftest import RALLYTAIRE_SPECS
from pdfgeom import MM, box_segment_distance, polyline_distance, read_pages
from sheetgen.games.rallytaire.generate import generate_race
from sheetgen.games.rallytaire.sheet import pages_wanted
from sheetgen.registry import load_spec
from sheetgen.render.rallytaire.race_sheet import render_race
from sheetgen.template import load_template

PAPERS = ("a4", "letter")


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    value = hex_colour.lstrip("#")
    return tuple(int(value[k : k + 2], 16) / 255 for k in (0, 2, 4))


def _same(a, b) -> bool:
    return len(a) == len(b) and all(abs(x - y) < 0.003 for x, y in zip(a, b))


def check_sheet(race, paper: str) -> int:
    """Render `race` on `paper` in normal ink and check what the pages draw; returns the page
    count."""
    template = load_template("race_sheet")
    ink = template.ink("normal")
    data, count = render_race(race, template, paper=paper)
    pages = read_pages(data)
    assert count == len(pages)
    red = _rgb(ink.corner)
    margin = template.margin_mm * MM
    corners_seen = 0
    for number, page in enumerate(pages, start=1):
        where = (race.name, paper, number)
        # nothing inside the margin
        lo_x, lo_y, hi_x, hi_y = margin - 0.01, margin - 0.01, page.width - margin + 0.01, page.height - margin + 0.01
        for path in page.paths:
            x0, y0, x1, y1 = path.bbox()
            assert lo_x <= x0 and lo_y <= y0 and x1 <= hi_x and y1 <= hi_y, (where, "path in the margin", path.bbox())
        for text in page.texts:
            x0, y0, x1, y1 = text.bbox()
            assert lo_x <= x0 and lo_y <= y0 and x1 <= hi_x and y1 <= hi_y, (where, "text in the margin", text.value, text.bbox())
        # corner lines: one red segment of the corner width; zone lines: red and dashed
        lines = [p for p in page.paths if p.stroked and _same(p.stroke, red) and abs(p.width - ink.corner_width) < 0.01 and len(p.points) == 2]
        zones = [p for p in page.paths if p.stroked and _same(p.stroke, red) and p.dash]
        corners_seen += len(lines)
        segments = [tuple(p.points) for p in lines]
        # zone lines separate, and 2 mm apart
        pieces = [p.points for p in zones]
        for i in range(len(pieces)):
            for j in range(i + 1, len(pieces)):
                d = polyline_distance(pieces[i], pieces[j])
                assert d >= 2 * MM - 0.05, (where, "zone lines closer than 2 mm", round(d / MM, 2), pieces[i][0], pieces[j][0])
        # the N and D boxes: a 5 mm box with N or D in it; the pair's corner is the corner
        # line drawn last before it
        boxes = {}
        for text in page.texts:
            if text.value in ("N", "D") and abs(text.size - 5.5) < 0.01:
                cx, cy = (text.bbox()[0] + text.bbox()[2]) / 2, text.y
                box = next(p for p in page.paths if p.rects and p.order < text.order and p.rects[0][0] <= cx <= p.rects[0][0] + p.rects[0][2] and p.rects[0][1] <= cy <= p.rects[0][1] + p.rects[0][3])
                boxes.setdefault(max(k for k, line in enumerate(lines) if line.order < text.order), []).append(box.rects[0])
        assert sorted(boxes) == list(range(len(lines))), (where, "an N and D pair for every corner")
        for k, pair in boxes.items():
            assert len(pair) == 2, (where, k)
            x0 = min(r[0] for r in pair)
            y0 = min(r[1] for r in pair)
            x1 = max(r[0] + r[2] for r in pair)
            y1 = max(r[1] + r[3] for r in pair)
            own = box_segment_distance((x0, y0, x1, y1), *segments[k])
            for m, other in enumerate(segments):
                if m != k:
                    assert own < box_segment_distance((x0, y0, x1, y1), *other), (where, "N and D nearer another corner", k, m)
        # no text on a corner line
        for text in page.texts:
            for seg in segments:
                assert box_segment_distance(text.ink_box(), *seg) > ink.corner_width / 2, (where, "text on a corner line", text.value)
    assert corners_seen == sum(len(s.corners) for s in race.stages), race.name
    return len(pages)


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("path", RALLYTAIRE_SPECS, ids=lambda p: p.stem)
def test_bundled_races_print_on_one_sheet_and_read_right(path, paper):
    race = load_spec(path).model
    assert check_sheet(race, paper) == 2


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_races_print_on_one_sheet_and_read_right(seed):
    race = generate_race(seed)
    for paper in PAPERS:
        assert check_sheet(race, paper) <= pages_wanted(len(race.stages)) == 2


@pytest.mark.slow
def test_fifty_generated_races_print_on_one_sheet_and_read_right():
    for seed in range(100, 150):
        race = generate_race(seed, stages=2 + seed % 5, difficulty=("easy", "medium", "hard")[seed % 3])
        for paper in PAPERS:
            assert check_sheet(race, paper) <= pages_wanted(len(race.stages)), seed


def test_a_season_prints_its_generated_races_sheets_and_names_its_races():
    """build prints a season's sheet, then the race sheets of its generated races (a race file
    prints its own), each from an odd page; the season sheet names races, never their files."""
    from pypdf import PdfReader

    from conftest import SPECS
    from sheetgen.games.rallytaire.season import expand_season
    from sheetgen.render import build_outputs

    spec = load_spec(SPECS / "seasons" / "winter_season.yaml")
    season = expand_season(spec.model)
    generated = [k for k, entry in enumerate(season.races) if entry.generate]
    assert generated == [2]
    race = season.races[2].race
    for paper in PAPERS:
        data, count = build_outputs(spec, paper=paper)
        pdf = PdfReader(__import__("io").BytesIO(data))
        texts = [page.extract_text() for page in pdf.pages]
        # the season sheet (one page), a blank back, and the generated race on one sheet
        assert count == len(texts) == 4
        assert ".yaml" not in texts[0] and "generated: seed" not in texts[0]
        for k, entry in enumerate(season.races):
            assert f"{k + 1}. {entry.race.name}" in texts[0]
        assert f"3. {race.name}  (generated: its race sheet is page 3 of this file)" in texts[0]
        assert texts[1].startswith("This page is left blank")
        assert f"{race.name}\nRallytaire race sheet, page 1 of 2" in texts[2] and "Time table: the finishing turn" in texts[3]
        for stage in race.stages:
            assert stage.name in texts[2] + texts[3]
