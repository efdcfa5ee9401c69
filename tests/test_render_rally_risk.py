"""Rally Risk printables read back: section cards (their printed size measured in the PDF),
course sheets, the reference card; fonts, metadata, determinism, low ink, build."""

from __future__ import annotations

import io
import math
import shutil

import pytest
from pypdf import PdfReader

from conftest import SPECS, files_under
from pdfops import operations as read_operations
from sheetgen.errors import SpecError
from sheetgen.games.rally_risk.layout import card_grid, course_map, road_shape
from sheetgen.games.rally_risk.model import Library, Race
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs, can_render
from sheetgen.render.rally_risk.section_cards import card_plan
from sheetgen.template import MM, load_template

RR = SPECS / "rally_risk"
A4 = (595, 842)
LETTER = (612, 792)
FILL_OPERATORS = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"sh"}


@pytest.fixture(scope="module")
def library():
    return load_spec(RR / "sections.yaml")


@pytest.fixture(scope="module")
def race():
    return load_spec(RR / "montecarlo_1.yaml")


@pytest.fixture(scope="module")
def pdfs(library, race):
    """The library and a race, each on A4 and Letter, normal ink."""
    return {(spec.model.__class__.__name__, paper): build_outputs(spec, paper=paper)[0] for spec in (library, race) for paper in ("a4", "letter")}


def reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in reader(data).pages)


def operations(page, pdf):
    return read_operations(page.get_contents(), pdf)


def segments(page, pdf) -> list[tuple[float, float, float, float]]:
    """Straight lines drawn as `x y m x y l S` (how the cut marks are drawn)."""
    out, start, path = [], None, []
    for operands, op in operations(page, pdf):
        if op == b"m":
            start = tuple(float(v) for v in operands)
            path = []
        elif op == b"l" and start is not None:
            path.append(tuple(float(v) for v in operands))
        elif op == b"S":
            if start is not None and len(path) == 1:
                out.append(start + path[0])
            start, path = None, []
    return out


def rects(page, pdf) -> list[tuple[float, float, float, float]]:
    return [tuple(float(v) for v in operands) for operands, op in operations(page, pdf) if op == b"re"]


# --------------------------------------------------------------------------- card geometry


@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_six_80_mm_cards_fit_a4_and_letter(paper, size):
    template = load_template("rally_risk")
    grid = card_grid(size[0] / MM, size[1] / MM, template.margin_mm, 80.0, header=10.0, footer=0.0)
    assert (grid.cols, grid.rows) == (2, 3)
    # every card and its cut marks stay inside the 10 mm margins
    for slot in range(grid.per_page):
        x, y = grid.origin(slot)
        assert x >= 10 and y >= 10 and x + 80 <= size[0] / MM - 10 and y + 80 <= size[1] / MM - 10
    for a, b in grid.marks():
        for px, py in (a, b):
            assert 10 - 1e-6 <= px <= size[0] / MM - 10 + 1e-6 and 10 - 1e-6 <= py <= size[1] / MM - 10 + 1e-6


def test_road_geometry_meets_the_edges_it_is_printed_with(library):
    for section in library.model.sections:
        for quarter in range(4):
            road = road_shape(section, 80.0, quarter)
            assert road.entry == section.entry.turned(quarter) and road.exit == section.exit.turned(quarter)
            first, last = road.dividers[0], road.dividers[-1]
            mid = lambda seg: ((seg[0][0] + seg[1][0]) / 2, (seg[0][1] + seg[1][1]) / 2)  # noqa: E731
            assert math.dist(mid(first), road.edge_point(road.entry)) < 1e-6
            assert math.dist(mid(last), road.edge_point(road.exit)) < 1e-6
            assert len(road.spaces) == len(section.factors)
            assert all(0 <= c <= 80 for s in road.spaces for p in s.polygon for c in p)


def test_course_map_puts_each_section_on_its_square(race):
    cmap = course_map(race.model.course, 120, 140)
    cells = [(round(s.x / cmap.cell), round(s.y / cmap.cell)) for s in cmap.squares]
    assert cells == [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2), (2, 3)]  # the layout graph's squares
    assert cmap.width <= 120 and cmap.height <= 140 and cmap.rotate == 0


# --------------------------------------------------------------------------- section cards


@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_library_pages_and_text(pdfs, library, paper, size):
    data = pdfs["Library", paper]
    pdf = reader(data)
    cards = sum(s.copies for s in library.model.sections)
    assert len(pdf.pages) == math.ceil(cards / 6) + 3  # six cards a page, the kit's two pages, then the reference card
    for page in pdf.pages:
        assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == size
    text = text_of(data)
    for section in library.model.sections:  # named as a player calls them, never by id
        assert "factors " + " ".join(str(f) for f in section.factors) in text
        assert text.replace("\n", " ").count(f"{section.name} ") >= section.copies, section.name
        assert f"copy {section.copies} of {section.copies}" in text
    assert "_" not in text  # no code words (left_hairpin, fast_road)
    assert "IN" in text.split() and "OUT" in text.split()
    assert "Rally Risk reference card" in pdf.pages[-1].extract_text()
    # every page numbered out of the pages there are (the cards said "of 5" with 6 pages, the
    # reference card had no number)
    total = len(pdf.pages)
    for number, page in enumerate(pdf.pages, start=1):
        assert f"page {number} of {total}" in page.extract_text().replace("\n", " "), number


def _card_rects(page, pdf, size_mm: float) -> list[tuple[float, float, float, float]]:
    side = size_mm * MM
    return [r for r in rects(page, pdf) if abs(r[2] - side) < 0.01 and abs(r[3] - side) < 0.01]


def _cut_mark_spacing(page, pdf, mark_len_mm: float = 3.5) -> tuple[list[float], list[float]]:
    """x of the vertical cut marks and y of the horizontal ones (3.5 mm lines)."""
    xs, ys = set(), set()
    for x1, y1, x2, y2 in segments(page, pdf):
        if abs(math.dist((x1, y1), (x2, y2)) - mark_len_mm * MM) > 0.01:
            continue
        if abs(x1 - x2) < 1e-3:
            xs.add(round(x1, 3))
        elif abs(y1 - y2) < 1e-3:
            ys.add(round(y1, 3))
    return sorted(xs), sorted(ys)


def _render_gray(data: bytes, page: int, dpi: float = 100):
    import numpy
    import pypdfium2

    bitmap = pypdfium2.PdfDocument(data)[page].render(scale=dpi / 72, grayscale=True)
    return numpy.asarray(bitmap.to_numpy(), dtype=float)


@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_kit_page_has_six_cars_their_markers_and_rpm_cards(pdfs, paper, size):
    """The page after the cards: measured in the PDF, six car tokens 13 mm square, three
    9 mm mechanic markers per car, two weather markers and six R.P.M. cards, all inside the
    margins; each car's pattern differs from every other's (compared on the render)."""
    from sheetgen.games.rally_risk.layout import MARKER_MM, TOKEN_MM

    data = pdfs["Library", paper]
    pdf = reader(data)
    index = len(pdf.pages) - 3
    page = pdf.pages[index]
    text = page.extract_text()
    assert "print-and-play kit" in text
    assert text.count("TOO HIGH") == 6
    for car in range(1, 7):
        assert text.count(f"M{car}") == 3 and f"car {car} (" in text
    outlines = rects(page, pdf)

    def sized(side):
        return sorted({(round(x, 2), round(y, 2)) for x, y, rw, rh in outlines if abs(rw - side * MM) < 0.05 and abs(rh - side * MM) < 0.05})

    assert len(sized(TOKEN_MM)) == 6 + 2  # the car tokens and the weather markers
    markers = sized(MARKER_MM)
    assert len(markers) == 18
    cards = {(round(x, 2), round(y, 2)) for x, y, w, h in outlines if w > 40 * MM and h > 60 * MM}
    assert len(cards) == 6
    for x, y, w, h in outlines:
        assert 10 * MM - 0.5 <= x and x + w <= size[0] - 10 * MM + 0.5 and 10 * MM - 0.5 <= y and y + h <= size[1] - 10 * MM + 0.5
    # each car's pattern, in the band of its first mechanic marker (no digits there)
    gray = _render_gray(data, index)
    scale = 100 / 72
    bands = []
    for x, y in markers[::3]:
        top = size[1] - (y + MARKER_MM * MM)
        row, col = int(top * scale) + 2, int(x * scale) + 2
        bands.append(gray[row : row + 8, col : col + 30])
    assert len(bands) == 6
    for i in range(6):
        for j in range(i + 1, 6):
            assert abs(bands[i] - bands[j]).mean() > 5, (i + 1, j + 1)


def _paths(page, pdf) -> list[tuple[bytes, tuple[float, ...], list[tuple[float, float, float, float]]]]:
    """(painting operator, dash array, the `re` rectangles) of each painted path."""
    out, found, dash = [], [], ()
    for operands, op in operations(page, pdf):
        if op == b"d":
            dash = tuple(float(v) for v in operands[0])
        elif op == b"re":
            found.append(tuple(float(v) for v in operands))
        elif op in (b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"n"):
            out.append((op, dash, found))
            found = []
    return out


@pytest.mark.parametrize("ink", ["normal", "low"])
@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_gear_simulators_page_tracks_six_cars_gears_and_halts(library, paper, size, ink):
    """The kit's second page stands in for the box's six gear simulators (the rulebook: "the
    gear used is to be shown by placing a marker on the gear chart itself"; a car stops "at a
    halt through" one, two or three turns, or is eliminated). Read from the PDF, on A4 and
    Letter, normal and low ink: per car its number, five gear cells 1st-5th with the spaces
    each moves by assistance (house gear chart: 4th with rapid assistance 4-8, the rulebook's
    minimum of 4; 5th with normal 6-11, the braking example's minimum of 6; 1st always 1),
    "out" and halt cells 3, 2, 1 (in that order, left to right), a 13 mm dashed spot in each of those nine cells and a 12 mm
    gear and halt marker per car to cut out; all inside the 10 mm margins, nothing filled."""
    from sheetgen.games.rally_risk.layout import TRACK_MARKER_MM, TRACK_SPOT_MM

    data = build_outputs(library, paper=paper, ink=ink)[0]
    pdf = reader(data)
    index = len(pdf.pages) - 2
    page = pdf.pages[index]
    text = page.extract_text()
    assert "Gear simulators: a strip per car" in text
    assert "Rally Risk print-and-play kit" in text and f"page {index + 1} of {len(pdf.pages)}" in text
    lines = [line.strip() for line in text.split("\n")]
    for label in ("1st", "2nd", "3rd", "4th", "5th", "out", "eliminated", "3 turns", "2 turns", "1 turn", "P 1", "R 1", "N 1"):
        assert lines.count(label) == 6, label
    assert lines.count("R 4\u20138") == 6 and lines.count("N 6\u201311") == 6 and lines.count("P 3\u20137") == 6
    assert lines.count("gear") == 6 and lines.count("halt") == 6 * 3 + 6  # three halt cells and a marker a car
    for car in range(1, 7):
        assert lines.count(str(car)) >= 3, car  # on its band and its two markers
    # each strip's cell heads (9 pt) left to right: the gears up, then out and the turns at a
    # halt counting down, so that a halt marker moved right leaves the strip after the 1
    from pdfgeom import read_pages

    heads: dict[float, list[tuple[float, str]]] = {}
    for t in read_pages(data)[index].texts:
        if abs(t.size - 9.0) < 0.01:
            heads.setdefault(round(t.y, 1), []).append((t.x, t.value))
    assert len(heads) == 6
    for row in heads.values():
        assert [v for _x, v in sorted(row)] == ["1st", "2nd", "3rd", "4th", "5th", "out", "3", "2", "1"]
    paths = _paths(page, pdf)
    assert not [op for op, _dash, _r in paths if op in FILL_OPERATORS], "nothing filled on the gear simulators"

    def sized(side, dashed):
        return {
            (round(x, 1), round(y, 1))
            for _op, dash, found in paths
            if bool(dash) == dashed
            for x, y, w, h in found
            if abs(abs(w) - side * MM) < 0.05 and abs(abs(h) - side * MM) < 0.05
        }

    spots = sized(TRACK_SPOT_MM, True)
    markers = sized(TRACK_MARKER_MM, False)
    assert len(spots) == 6 * 9 and len(markers) == 6 * 2
    # every marker fits on a spot
    assert TRACK_MARKER_MM < TRACK_SPOT_MM
    # six strips: the spots stand in six rows of nine
    rows = sorted({y for _x, y in spots})
    assert len(rows) == 6 and all(sum(1 for _x, y in spots if y == row) == 9 for row in rows)
    for x, y, w, h in (r for _op, _d, found in paths for r in found):
        x0, x1 = sorted((x, x + w))
        y0, y1 = sorted((y, y + h))
        assert 10 * MM - 0.5 <= x0 and x1 <= size[0] - 10 * MM + 0.5 and 10 * MM - 0.5 <= y0 and y1 <= size[1] - 10 * MM + 0.5


def test_printed_card_size_is_the_spec_size(pdfs, library):
    """Measured twice in the content stream: the card outlines, and the cut marks' spacing;
    both agree with the pure layout's grid."""
    data = pdfs["Library", "a4"]
    pdf = reader(data)
    grid, pages = card_plan(library.model, load_template("rally_risk"), "a4")
    page = pdf.pages[0]
    found = _card_rects(page, pdf, 80.0)
    assert len(found) == len(pages[0]) == 6
    assert sorted((round(x / MM, 3), round(y / MM, 3)) for x, y, _w, _h in found) == sorted(
        (round(grid.origin(i)[0], 3), round(grid.origin(i)[1], 3)) for i in range(6)
    )
    xs, ys = _cut_mark_spacing(page, pdf)
    assert [(b - a) / MM for a, b in zip(xs, xs[1:])] == pytest.approx([80.0, 80.0], abs=0.005)
    assert [(b - a) / MM for a, b in zip(ys, ys[1:])] == pytest.approx([80.0, 80.0, 80.0], abs=0.005)


def test_card_size_option(tmp_path):
    text = (RR / "sections.yaml").read_text(encoding="utf-8").replace("name: sheetgen road sections\n", "name: sheetgen road sections\ncard_mm: 61.5\n")
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    spec = load_spec(path)
    assert spec.model.card_mm == 61.5
    data, pages = build_outputs(spec, paper="letter")
    pdf = reader(data)
    grid, plan = card_plan(spec.model, load_template("rally_risk"), "letter")
    assert (grid.cols, grid.rows) == (3, 3) and pages == len(plan) + 3  # the cards, the kit's two pages, the reference card
    assert len(_card_rects(pdf.pages[0], pdf, 61.5)) == 9
    xs, _ys = _cut_mark_spacing(pdf.pages[0], pdf)
    assert [(b - a) / MM for a, b in zip(xs, xs[1:])] == pytest.approx([61.5, 61.5, 61.5], abs=0.005)
    assert "Cards 61.5 mm square" in pdf.pages[0].extract_text()


@pytest.mark.parametrize(
    "change,message",
    [
        ("card_mm: 40\n", "8:10: error: 'card_mm' must be at least 50, got 40"),
        ("card_mm: big\n", "8:10: error: 'card_mm' must be a number, got 'big'"),
        (
            "card_mm: 50\n",
            "8:10: error: section 'mountain' has 14 spaces on a straight road: on a card of 50 mm each space would be under 5 mm long; "
            "give the library card_mm: 70 or more",
        ),
    ],
)
def test_card_size_is_checked_with_its_location(run, tmp_path, change, message):
    text = (RR / "sections.yaml").read_text(encoding="utf-8")
    text = text.replace("name: sheetgen road sections\n", "name: sheetgen road sections\n" + change)
    text = text.replace("factors: [2, 2, 3, 2, 2, 3, 2]", "factors: [2, 2, 3, 2, 2, 3, 2, 2, 2, 2, 2, 2, 2, 2]")
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"{path}:{message}"]


def test_a_section_too_long_for_the_default_card_is_located_at_its_factors(tmp_path):
    text = (RR / "sections.yaml").read_text(encoding="utf-8").replace("factors: [1, 1, 2, 2, 1]", "factors: [1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]")
    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    (problem,) = caught.value.problems
    assert (problem.location.line, problem.location.col) == (56, 14)
    assert problem.message.startswith("section 'right_bend' has 14 spaces on a curve") and "card_mm: 90 or more" in problem.message


# --------------------------------------------------------------------------- course sheets


@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_course_sheet(pdfs, race, paper, size):
    from sheetgen.games.rally_risk.kept import race_figures as race_analysis

    data = pdfs["Race", paper]
    pdf = reader(data)
    assert len(pdf.pages) == 2
    for page in pdf.pages:
        assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == size
    sheet = pdf.pages[0].extract_text()
    model = race.model
    assert model.name in sheet and "Rally Risk course sheet" in sheet
    assert "Normal race" in sheet and "weather zone EC (Central Europe)" in sheet
    for i, leg in enumerate(model.course, start=1):  # the map's labels (maybe wrapped) and the strip's
        assert f"{i} {leg.section.name}" in sheet.replace("\n", " ")
        assert "_" not in sheet  # no code words: left_hairpin, fast_road
    words = sheet.split()
    for space in model.spaces:  # every progressive number is printed
        assert str(space.number) in words
    analysis = race_analysis(model)
    for r in analysis.results:
        assert f"{r.expected_rounds:.2f}" in sheet
    for d in analysis.best.dangerous:
        assert f"space {d.space}" in sheet and f"off {100 * d.damage_probability:.1f}%" in sheet
    for label in ("START", "FINISH", "Drivers", "Mechanics on", "Tyres N R S", "Rounds", "weather"):
        assert label in sheet
    assert sheet.count("clear") >= 2  # the zone's weather chart, by sector
    reference = pdf.pages[1].extract_text()
    for title in ("Gear chart", "Table of Risks", "Damages Table", "Weather charts", "Special tyres", "Summary of the modifying factors"):
        assert title in reference
    assert "HOUSE TABLES" in reference and reference.count("HOUSE TABLE") >= 6


def test_special_race_and_own_tables(tmp_path):
    for name in ("sections.yaml", "championship.yaml"):
        shutil.copy(RR / name, tmp_path / name)
    text = (RR / "montecarlo_special.yaml").read_text(encoding="utf-8") + "tables:\n  risk:\n" + "".join(
        f"    - {row}\n" for row in ([5, 5, 5, 4, 4, 4], [5, 4, 4, 4, 3, 3], [4, 4, 3, 3, 3, 2], [4, 3, 3, 2, 2, 2], [3, 2, 2, 1, 1, 1])
    )
    path = tmp_path / "special.yaml"
    path.write_text(text, encoding="utf-8")
    data = build_outputs(load_spec(path), ink="low")[0]
    sheet, reference = (page.extract_text() for page in reader(data).pages)
    assert "SPECIAL RACE: no speed limits" in sheet and "3rd +2, 4th +4, 5th +6" in sheet
    assert "From your box (given in the race spec): Table of Risks" in reference
    assert "from your box (spec)" in reference and "HOUSE TABLE" in reference  # the others stay house tables


def test_course_sheet_is_reusable_on_another_sheet(race):
    """A calendar draws a course sheet per race on one canvas: draw_course_sheet takes the
    Sheet, draws one page and ends it."""
    from sheetgen.render.pdf import Meta, render_pdf
    from sheetgen.render.rally_risk.course_sheet import draw_course_sheet

    template = load_template("rally_risk")

    def draw(sheet):
        for k in range(2):
            assert draw_course_sheet(sheet, race.model, None, page=k + 1, pages=2) == 1

    data, pages = render_pdf(template, "normal", "a4", Meta("t", "s"), draw)
    assert pages == 2
    texts = [p.extract_text() for p in reader(data).pages]
    assert [t.count(race.model.name) for t in texts] == [1, 1]
    assert "page 1 of 2" in texts[0] and "page 2 of 2" in texts[1]


# --------------------------------------------------------------------------- every PDF


def test_every_font_is_embedded(pdfs):
    for data in pdfs.values():
        pdf = reader(data)
        for page in pdf.pages:
            for ref in page["/Resources"]["/Font"].values():
                font = ref.get_object()
                descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
                descriptor = descendant["/FontDescriptor"].get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]


def test_metadata_and_print_scaling(pdfs, library, race):
    for spec, kind, title, subject in (
        (library, "Library", "sheetgen road sections: Rally Risk road sections", "Rally Risk print-and-play road-section cards and reference card"),
        (race, "Race", "Montecarlo, race 1: Rally Risk course sheet", "Rally Risk course sheet and reference card"),
    ):
        pdf = reader(pdfs[kind, "a4"])
        assert pdf.metadata.title == title and pdf.metadata.subject == subject
        assert pdf.metadata.creator.startswith("sheetgen ")
        assert f"spec-sha256:{spec.sha256}" in pdf.metadata["/Keywords"]
        assert pdf.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"


def test_drawing_stays_inside_10_mm_margins(pdfs):
    for (kind, paper), data in pdfs.items():
        pdf = reader(data)
        w, h = (A4 if paper == "a4" else LETTER)
        lo, tol = 10 * MM, 0.6  # half the widest line
        for page in pdf.pages:
            for x1, y1, x2, y2 in segments(page, pdf):
                for x, y in ((x1, y1), (x2, y2)):
                    assert lo - tol <= x <= w - lo + tol and lo - tol <= y <= h - lo + tol, (kind, paper, x, y)
            for x, y, rw, rh in rects(page, pdf):
                assert lo - tol <= x and x + rw <= w - lo + tol and lo - tol <= y and y + rh <= h - lo + tol, (kind, paper, x, y)


def _operators(data: bytes) -> set[bytes]:
    pdf = reader(data)
    return {op for page in pdf.pages for _operands, op in operations(page, pdf)}


def test_renders_are_byte_identical_and_low_ink_fills_nothing(pdfs, library, race):
    for spec, kind in ((library, "Library"), (race, "Race")):
        assert build_outputs(spec, paper="a4")[0] == pdfs[kind, "a4"]
        low = build_outputs(spec, ink="low")[0]
        assert build_outputs(spec, ink="low")[0] == low
        assert _operators(pdfs[kind, "a4"]) & FILL_OPERATORS  # normal ink shades the road
        assert not _operators(low) & FILL_OPERATORS


def test_templates_are_chosen_per_game(library, race):
    assert build_outputs(library)[0] == build_outputs(library, template="rally_risk")[0]
    # any template drives any game's sheets: they share one schema
    assert build_outputs(library, template="race_sheet")[0][:4] == b"%PDF"


# --------------------------------------------------------------------------- commands


def test_build_prints_a_calendar_as_the_calendar_command_does_with_seed_1(run, tmp_path):
    """`build` prints championship.yaml: the PDF `sheetgen calendar --seed 1 -o` writes, byte
    for byte, and the same bytes run to run (the seed is fixed, not drawn)."""
    from sheetgen.games.rally_risk.championship import BUILD_SEED

    assert BUILD_SEED == 1
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("sections.yaml", "championship.yaml"):
        shutil.copy(RR / name, folder / name)
    result = run("build", "-o", str(tmp_path / "out"), str(folder / "championship.yaml"), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert result.stderr == "" and files_under(tmp_path / "out") == ["championship.pdf"]
    built = (tmp_path / "out" / "championship.pdf").read_bytes()
    assert run("calendar", str(folder / "championship.yaml"), "--seed", "1", "-o", str(tmp_path / "cal"), "--jobs", "1").exit_code == 0
    assert (tmp_path / "cal" / "championship-seed1.pdf").read_bytes() == built
    assert "seed 1" in reader(built).pages[0].extract_text()
    # the built calendar spec (every race laid out) prints the same pages, without the seed
    spec = load_spec(tmp_path / "cal" / "championship-seed1.yaml")
    assert can_render(spec) and len(reader(build_outputs(spec)[0]).pages) == len(reader(built).pages)


@pytest.mark.slow  # 6 s: the golden build (build-report/a4-quick.txt) builds these files; a bad file of a build writes nothing: test_loading
def test_build_writes_a_pdf_per_race_and_library_and_nothing_when_one_is_bad(run, tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("sections.yaml", "championship.yaml", "montecarlo_1.yaml"):
        shutil.copy(RR / name, folder / name)
    out = tmp_path / "out"
    result = run("build", "-o", str(out), str(folder / "sections.yaml"), str(folder / "montecarlo_1.yaml"))
    assert result.exit_code == 0, result.output
    assert files_under(out) == ["montecarlo_1.pdf", "sections.pdf"]
    assert result.stderr == ""
    for name, model in (("sections.pdf", Library), ("montecarlo_1.pdf", Race)):
        assert reader((out / name).read_bytes()).metadata.title.endswith("road sections" if model is Library else "course sheet")
    bad = (folder / "montecarlo_1.yaml").read_text(encoding="utf-8").replace("{section: straight, heading: E}", "{section: stright, heading: E}")
    (folder / "montecarlo_1.yaml").write_text(bad, encoding="utf-8")
    fresh = tmp_path / "fresh"
    result = run("build", "-o", str(fresh), str(folder))
    assert result.exit_code == 1
    assert "unknown section 'stright', did you mean 'straight'?" in result.stderr
    assert files_under(fresh) == []


OWN_TABLES = """\
game: rally_risk
kind: race
name: Own box
zone: EC
library: sections.yaml
course:
  - {section: start, heading: N}
  - {section: right_bend, heading: N}
tables:
  risk:
    - [5, 5, 5, 5, 5, 5]
    - [4, 4, 4, 4, 4, 4]
    - [3, 3, 3, 3, 3, 3]
    - [2, 2, 2, 2, 2, 2]
    - [1, 1, 1, 1, 1, 1]
"""


def _kinds(data: bytes) -> list[tuple[str, int]]:
    pdf = reader(data)
    return [(o.title, pdf.get_destination_page_number(o) + 1) for o in pdf.outline]


def test_a_card_printed_elsewhere_is_left_out(race, library):
    """A race and the library leave the house tables' card out when another file of the job
    prints it (the key `build` hands them), and number their pages without it."""
    from sheetgen.cli import _shared_elsewhere
    from sheetgen.games.rally_risk.tables import card_key, house_tables
    from sheetgen.render import shared_pages

    house = card_key(house_tables())
    assert shared_pages(race) == shared_pages(library) == (house,)
    whole, without = build_outputs(race), build_outputs(race, elsewhere=frozenset({house}))
    assert (whole[1], without[1]) == (2, 1)
    assert _kinds(without[0]) == [("course sheet", 1)] and "page 1 of 1" in reader(without[0]).pages[0].extract_text()
    cards = build_outputs(library, elsewhere=frozenset({house}))
    assert [kind for kind, _page in _kinds(cards[0])] == ["section cards", "kit"]
    # in a job, each key goes with the first file that holds it
    job = [((house,), False), ((), False), (("other",), False), ((house, "other"), False)]
    assert _shared_elsewhere(job) == {3: frozenset({house, "other"})}
    # ... unless a file that is its home holds it (a library: the card beside its section
    # cards), wherever that file comes in the job
    job += [((house,), True), ((house,), True)]
    assert _shared_elsewhere(job) == {0: frozenset({house}), 3: frozenset({house, "other"}), 5: frozenset({house})}


@pytest.mark.slow  # (three builds of four files and a render: about 10 s, and process start-up with --jobs 2)
def test_one_reference_card_per_job(run, tmp_path):
    """`build` of two races and the library on the house tables prints the reference card
    once, in the library's file, after its section cards and kit (where a player looks for
    the tables the section cards are played with), not in the first race's;
    a race with its own tables keeps its own card; `render` of one race (a job of one file)
    prints its card; and a build's files are the same with one process or two."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("sections.yaml", "championship.yaml", "montecarlo_1.yaml", "safari_1.yaml"):
        shutil.copy(RR / name, folder / name)
    (folder / "own_box.yaml").write_text(OWN_TABLES, encoding="utf-8")
    files = [str(folder / name) for name in ("montecarlo_1.yaml", "own_box.yaml", "safari_1.yaml", "sections.yaml")]
    out = tmp_path / "out"
    result = run("build", "-o", str(out), *files, "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"built 4 specs: 11 pages, 4 files written to {out}/\n"  # the library: 4 card pages, the kit 2
    kinds = {name: _kinds((out / name).read_bytes()) for name in files_under(out)}
    assert kinds == {
        "montecarlo_1.pdf": [("course sheet", 1)],
        "own_box.pdf": [("course sheet", 1), ("reference card", 2)],
        "safari_1.pdf": [("course sheet", 1)],
        "sections.pdf": [("section cards", 1), ("kit", 5), ("reference card", 7)],
    }
    assert "HOUSE TABLES" in reader((out / "sections.pdf").read_bytes()).pages[6].extract_text()
    assert "From your box (given in the race spec): Table of Risks" in reader((out / "own_box.pdf").read_bytes()).pages[1].extract_text()
    # the pages say how many the file has: safari's course sheet is page 1 of 1
    assert "page 1 of 1" in reader((out / "safari_1.pdf").read_bytes()).pages[0].extract_text()
    alone = tmp_path / "safari_1.pdf"
    assert run("render", str(folder / "safari_1.yaml"), "-o", str(alone)).exit_code == 0
    assert _kinds(alone.read_bytes()) == [("course sheet", 1), ("reference card", 2)]
    two = tmp_path / "two"
    assert run("build", "-o", str(two), *files, "--jobs", "2").exit_code == 0
    assert {name: (two / name).read_bytes() for name in files_under(two)} == {name: (out / name).read_bytes() for name in files_under(out)}


def test_render_command_streams_the_same_bytes(run, tmp_path):
    target = tmp_path / "cards.pdf"
    path = str(RR / "sections.yaml")
    assert run("render", path, "-o", str(target), "--paper", "letter", "--ink", "low").exit_code == 0
    streamed = run("render", path, "-o", "-", "--paper", "letter", "--ink", "low")
    assert streamed.exit_code == 0 and streamed.stdout_bytes == target.read_bytes()


def _snake(folder, sections: int = 30) -> str:
    """A library of long sections and a race that snakes through `sections` of them."""
    (folder / "lib.yaml").write_text(
        "game: rally_risk\nkind: library\nname: long roads\nsections:\n"
        "  - {id: start, tags: [straight], entry: W, exit: E, factors: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n"
        "  - {id: long, tags: [straight, ford], entry: N, exit: S, factors: [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1], fords: [5], copies: 20}\n"
        "  - {id: lb, tags: [curve], entry: E, exit: S, factors: [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2], copies: 10}\n"
        "  - {id: rb, tags: [sharp_curve], entry: S, exit: E, factors: [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], copies: 10}\n",
        encoding="utf-8",
    )
    legs, heading = [("start", "E")], "E"
    while len(legs) < sections:
        legs += [("long", heading)] * 3
        legs += [("lb", "E"), ("lb", "N")] if heading == "E" else [("rb", "W"), ("rb", "N")]
        heading = "W" if heading == "E" else "E"
    course = "".join(f"  - {{section: {s}, heading: {h}}}\n" for s, h in legs[:sections])
    path = folder / "snake.yaml"
    path.write_text(f"game: rally_risk\nkind: race\nname: Snake\nzone: EN\nlibrary: lib.yaml\ncourse:\n{course}", encoding="utf-8")
    return str(path)


# Letter in slow runs (3 s a paper)
@pytest.mark.parametrize("paper", ["a4", pytest.param("letter", marks=pytest.mark.slow)])
def test_a_very_long_course_puts_its_spaces_on_pages_of_their_own(tmp_path, monkeypatch, paper):
    """The course sheet can draw any length (a library user's course); race files stop at
    MAX_RACE_SPACES for the analysis' sake, so the limit is lifted to load this one."""
    from sheetgen.games.rally_risk import spec as rally_risk_spec
    from sheetgen.render.rally_risk.course_sheet import course_sheet_pages, render_race

    monkeypatch.setattr(rally_risk_spec, "MAX_RACE_SPACES", 1000)
    race = load_spec(_snake(tmp_path)).model
    template = load_template("rally_risk")
    size = {"a4": A4, "letter": LETTER}[paper]
    pages = course_sheet_pages(race, None, size[0] / MM, size[1] / MM, template.margin_mm)
    assert pages == 2
    data, total = render_race(race, template, analysis=None, paper=paper)  # the solver is not needed to draw
    assert total == pages + 1
    pdf = reader(data)
    assert "every space by number: next page" in pdf.pages[0].extract_text()
    words = pdf.pages[1].extract_text().split()
    assert all(str(n) in words for n in range(1, race.length + 1))
    lo = 10 * MM - 0.6
    for page in pdf.pages:
        for x1, y1, x2, y2 in segments(page, pdf):
            assert min(x1, x2, y1, y2) >= lo and max(x1, x2) <= size[0] - lo and max(y1, y2) <= size[1] - lo


def test_side_panel_height_is_what_it_draws(race):
    from sheetgen.games.rally_risk.kept import race_figures as race_analysis
    from sheetgen.render.pdf import Meta, render_pdf
    from sheetgen.render.rally_risk.course_sheet import PANEL_MM, draw_side_panel, side_panel_height

    analysis = race_analysis(race.model)
    reached = []

    def draw(sheet):
        top = sheet.top
        reached.append((top - draw_side_panel(sheet, race.model, analysis, sheet.right - PANEL_MM * MM, top, PANEL_MM * MM)) / MM)
        sheet.end_page()

    render_pdf(load_template("rally_risk"), "normal", "a4", Meta("t", "s"), draw)
    assert reached[0] == pytest.approx(side_panel_height(race.model, analysis))
