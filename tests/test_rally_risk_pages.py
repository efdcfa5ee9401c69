"""Rally Risk and championship pages read back from the PDF as a player would hold them:
every character inside the 10 mm margins (the course legend included), ford marks clear
of every digit, course maps filling their frame whatever the course's shape, a calendar
without section lists besides its course sheets, the standings on one page with rally rows that say total, place and
points. Positions come from the PDF (pypdfium2's character boxes, pypdf's content
stream), not from the layout code."""

from __future__ import annotations

import functools
import io
import itertools
import math
import shutil

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import SPECS
from pdfops import operations
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.template import MM, PAPERS, load_template

RR = SPECS / "rally_risk"
RACES = ("montecarlo_1", "montecarlo_special", "safari_1", "sweden_1")
STRAIGHT = """\
game: rally_risk
kind: race
name: All straight
zone: EC
library: sections.yaml
course:
  - {section: start, heading: N}
  - {section: straight, heading: N}
  - {section: fast_road, heading: N}
  - {section: village, heading: N}
  - {section: straight, heading: N}
  - {section: mountain, heading: N}
"""


@functools.cache
def _load(path):
    return load_spec(path)


@functools.cache
def pdf_of(path, paper: str) -> bytes:
    return build_outputs(_load(path), paper=paper)[0]


@functools.cache
def calendar_pdf(paper: str) -> bytes:
    """The bundled championship laid out with seed 1 (no finishability check: the same
    pages), as the calendar prints it."""
    from sheetgen.games.rally_risk.championship import build_calendar
    from sheetgen.render.rally_risk.calendar import render_calendar

    built = build_calendar(_load(RR / "championship.yaml").model, 1, check=None)
    return render_calendar(built, load_template("rally_risk"), paper=paper, library_name="sheetgen road sections")[0]


def chars(data: bytes, page: int) -> list[tuple[str, float, float, float, float]]:
    """Every printed character of the page with its box (left, bottom, right, top), points."""
    text = pypdfium2.PdfDocument(data)[page].get_textpage()
    out = []
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if ch.strip():
            out.append((ch, *text.get_charbox(i)))
    return out


def pages(data: bytes) -> int:
    return len(pypdfium2.PdfDocument(data))


def open_paths(data: bytes, page: int) -> list[list[tuple[float, float]]]:
    """Paths stroked without closing (`m l l ... S`), with at least 8 points: wavy lines."""
    pdf = PdfReader(io.BytesIO(data))
    out, path = [], []
    for operands, op in operations(pdf.pages[page].get_contents(), pdf):
        if op == b"m":
            path = [tuple(float(v) for v in operands)]
        elif op == b"l" and path:
            path.append(tuple(float(v) for v in operands))
        elif op in (b"S", b"h", b"s", b"n", b"f", b"B", b"re"):
            if op == b"S" and len(path) >= 8:
                out.append(path)
            path = []
    return out


def dashed_rects(data: bytes, page: int) -> list[tuple[float, float, float, float]]:
    """Rectangles drawn with a dash pattern: the course map's squares."""
    pdf = PdfReader(io.BytesIO(data))
    out, dashed = [], False
    for operands, op in operations(pdf.pages[page].get_contents(), pdf):
        if op == b"d":
            dashed = len(operands[0]) > 0
        elif op == b"Q":
            dashed = False
        elif op == b"re" and dashed:
            out.append(tuple(float(v) for v in operands))
    return out


def _every_race_pdf(paper: str):
    for name in RACES:
        yield name, pdf_of(RR / f"{name}.yaml", paper)


# --------------------------------------------------------------------------- margins


# Letter under -m slow here: the margins of both papers are read back page by page in
# tests/test_printable.py and tests/test_render_rally_risk.py
@pytest.mark.parametrize("paper", [pytest.param("a4"), pytest.param("letter", marks=pytest.mark.slow)])
def test_every_character_is_inside_the_10_mm_margins(paper):
    """Course sheets (their legends), section cards, the kit, the reference card, the
    standings and every page of the calendar: no character within 10 mm of the edge."""
    width, height = PAPERS[paper]
    lo = 10 * MM - 0.3
    documents = dict(_every_race_pdf(paper))
    documents["sections"] = pdf_of(RR / "sections.yaml", paper)
    documents["results"] = pdf_of(RR / "results.yaml", paper)
    documents["calendar"] = calendar_pdf(paper)
    for name, data in documents.items():
        for page in range(pages(data)):
            for ch, left, bottom, right, top in chars(data, page):
                assert lo <= left and right <= width - lo and lo <= bottom and top <= height - lo, (name, page + 1, ch, left, bottom, right, top)


# --------------------------------------------------------------------------- fords


def _crosses(path, box, step: float = 0.2) -> bool:
    left, bottom, right, top = box
    for (ax, ay), (bx, by) in itertools.pairwise(path):
        if max(ax, bx) < left or min(ax, bx) > right or max(ay, by) < bottom or min(ay, by) > top:
            continue  # every point sampled below lies in the segment's bounding box, outside the box
        n = max(int(math.dist((ax, ay), (bx, by)) / step), 1)
        for k in range(n + 1):
            x, y = ax + (bx - ax) * k / n, ay + (by - ay) * k / n
            if left <= x <= right and bottom <= y <= top:
                return True
    return False


@pytest.mark.parametrize("paper", [pytest.param("a4"), pytest.param("letter", marks=pytest.mark.slow)])  # (Letter under -m slow: the same marks, moved)
def test_ford_marks_never_cross_a_digit(paper):
    """Every wavy line (a ford on the map, the strip or a card) against every digit's box,
    on the bundled races, the section cards and the 22 course sheets of the calendar."""
    documents = dict(_every_race_pdf(paper))
    documents["sections"] = pdf_of(RR / "sections.yaml", paper)
    documents["calendar"] = calendar_pdf(paper)
    waves_seen = 0
    for name, data in documents.items():
        for page in range(pages(data) - 1):  # the reference card has no fords
            found = chars(data, page)
            if "print-and-playkit" in "".join(c[0] for c in found):
                continue  # the kit's patterns are cut out round their digits (a clip path)
            digits = [box for ch, *box in found if ch.isdigit()]
            for path in open_paths(data, page):
                waves_seen += 1
                for box in digits:
                    assert not _crosses(path, box), (name, page + 1, box)
    assert waves_seen >= 20  # the fords were found: safari alone has three


# --------------------------------------------------------------------------- course maps


def _frame(data: bytes, paper: str) -> tuple[float, float, float, float]:
    """The map's frame on a course sheet's first page, from the printed words around it:
    from the left margin to the side panel, from under the "Course" title to above the
    "Spaces" title."""
    from sheetgen.render.rally_risk.course_sheet import PANEL_MM

    width, _height = PAPERS[paper]
    found = chars(data, 0)
    text = "".join(c[0] for c in found)
    course = text.index("Course")
    spaces = text.index("Spaces")
    top = found[course][2]
    bottom = found[spaces][4]
    return 10 * MM, bottom, width - 10 * MM - PANEL_MM * MM - 4 * MM, top


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("name", [*RACES, "straight"])
def test_course_map_fills_its_frame(tmp_path, paper, name):
    """Whatever the course's shape, its squares span at least 85% of the frame one way and
    cover at least 40% of it; an all-straight course is drawn in pieces, not as a column of
    six small squares."""
    if name == "straight":
        shutil.copy(RR / "sections.yaml", tmp_path / "sections.yaml")
        (tmp_path / "straight.yaml").write_text(STRAIGHT, encoding="utf-8")
        data = build_outputs(load_spec(tmp_path / "straight.yaml"), paper=paper)[0]
    else:
        data = pdf_of(RR / f"{name}.yaml", paper)
    left, bottom, right, top = _frame(data, paper)
    squares = dashed_rects(data, 0)
    assert len(squares) == len(_load(RR / f"{name}.yaml").model.course) if name != "straight" else len(squares) == 6
    x0, y0 = min(s[0] for s in squares), min(s[1] for s in squares)
    x1, y1 = max(s[0] + s[2] for s in squares), max(s[1] + s[3] for s in squares)
    assert left - 0.5 <= x0 and x1 <= right + 0.5 and bottom - 0.5 <= y0 and y1 <= top + 0.5  # inside the frame
    span = max((x1 - x0) / (right - left), (y1 - y0) / (top - bottom))
    assert span >= 0.85, span
    assert (x1 - x0) * (y1 - y0) >= 0.4 * (right - left) * (top - bottom)
    side = squares[0][2] / MM
    if name == "straight":  # in pieces side by side, squares half as large again as a column of six
        assert side >= 1.5 * (top - bottom) / MM / 6


# --------------------------------------------------------------------------- names


def test_pages_name_sections_and_rallies_not_ids():
    """No code word (an id with an underscore, a rally id) on a course sheet or a card; every
    course sheet of the calendar names its sections as the library does."""
    data = calendar_pdf("a4")
    reader = PdfReader(io.BytesIO(data))
    texts = [page.extract_text() for page in reader.pages]
    assert not any("_" in t for t in texts)
    courses = [t for t in texts if "Rally Risk course sheet" in t]
    assert len(courses) == 22 and all("Departure straight" in t for t in courses)  # every race starts on it
    for name, data in _every_race_pdf("a4"):
        text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
        assert "_" not in text and "rally montecarlo" not in text, name


def test_the_course_sheet_says_whether_the_mechanics_placement_is_proven():
    """RR-30 (issue 34: "Mechanics placement is called optimal and is not ... call it what it
    is everywhere"): the course sheet of a race whose placements the exact search proves says
    "proven"; Safari 1's, whose budget runs out, says "best found" and the most another could
    save, and neither "proven" nor "optimal"."""
    for name, data in _every_race_pdf("a4"):
        text = " ".join(PdfReader(io.BytesIO(data)).pages[0].extract_text().split())
        assert "optimal" not in text.lower(), name
        if name == "safari_1":
            assert "mechanics: best found; another may save 0.025 rounds at most" in text
            assert "proven" not in text
        else:
            assert "mechanics: no placement costs less (proven)" in text, name


# --------------------------------------------------------------------------- no repeats


def test_the_calendar_prints_no_section_lists_besides_the_course_sheets():
    """The calendar: its overview, then each race's course sheet (the race's sections in
    driving order), the score sheet and one reference card: 1 + 22 + 1 + 1 pages for the
    bundled championship, no page of section lists (issue 30: five pages repeated what the
    course sheets print). Every section of every race is named on its race's course sheet."""
    championship = _load(RR / "championship.yaml").model
    from sheetgen.games.rally_risk.championship import build_calendar

    built = build_calendar(championship, 1, check=None)
    data = calendar_pdf("a4")
    reader = PdfReader(io.BytesIO(data))
    kinds = [(o.title, reader.get_destination_page_number(o) + 1) for o in reader.outline]
    assert kinds == [("calendar", 1), ("course sheet", 2), ("score sheet", 24), ("reference card", 25)]
    assert len(reader.pages) == 25
    texts = [page.extract_text() for page in reader.pages]
    assert not any("section lists" in t for t in texts)
    courses = [race for rally in built.calendar.rallies for race in rally.courses]
    for k, race in enumerate(courses):
        text = texts[1 + k]
        assert race.name in text
        for leg in race.course:
            assert leg.section.name in text, (race.name, leg.section.name)


# --------------------------------------------------------------------------- standings


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_standings_fit_one_page_with_total_place_points_heads(paper):
    """The bundled results on one page; each driver's three columns are headed with what a
    race row and what a rally's total row hold there: start / total, round / place, score /
    points (read as the characters are printed, top to bottom)."""
    data = pdf_of(RR / "results.yaml", paper)
    assert pages(data) == 1
    printed = "".join(c[0] for c in chars(data, 0))
    for head in ("starttotal", "roundplace", "scorepoints"):
        assert printed.count(head) == 6, head  # one per driver column, six drivers at most
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert "Montecarlo total" in text and "championship: place, points" in text
