"""Race-sheet PDFs read back: sizes, text, fonts, metadata, determinism, low ink, atomic writes."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from conftest import RALLYTAIRE_SPECS, VALID, files_under
from pdfops import operations
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs

A4 = (595, 842)
LETTER = (612, 792)
FILL_OPERATORS = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"sh"}


@pytest.fixture(scope="module")
def bundled():
    """Each bundled race rendered once per paper size (A4, Letter) in normal ink."""
    out = {}
    for path in RALLYTAIRE_SPECS:
        spec = load_spec(path)
        for paper in ("a4", "letter"):
            out[path.stem, paper] = (spec, build_outputs(spec, paper=paper)[0])
    return out


def reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


def all_text(pdf: PdfReader) -> str:
    return "\n".join(page.extract_text() for page in pdf.pages)


@pytest.mark.parametrize("paper,size", [("a4", A4), ("letter", LETTER)])
def test_page_sizes(bundled, paper, size):
    for (_name, p), (_spec, data) in bundled.items():
        if p != paper:
            continue
        for page in reader(data).pages:
            assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == size


def test_stage_names_and_corner_gears_are_text(bundled):
    for (name, paper), (spec, data) in bundled.items():
        pdf = reader(data)
        text = all_text(pdf)
        race = spec.model
        assert race.name in text
        for stage in race.stages:
            assert stage.name in text, (name, paper, stage.name)
        # every corner's gear number is drawn: count the single-digit gear labels per stage page
        words = text.split()
        for gear in {c.gear for s in race.stages for c in s.corners}:
            assert str(gear) in words
        assert "FINISH" in text and "START" in text
        assert "Time table: the finishing turn" in text
        for label in ("Engine", "Brakes", "Gearbox", "Car", "asphalt", "gravel", "snow", "Base speed"):
            assert label in text


def test_par_times_are_printed(bundled):
    from sheetgen.games.rallytaire.solve import analyze_race

    spec, data = bundled[RALLYTAIRE_SPECS[0].stem, "a4"]
    analysis = analyze_race(spec.model)
    text = all_text(reader(data))
    assert f"race par {analysis.par_time:.1f} s" in text
    for stage in analysis.stages:
        assert f"par {stage.par_time:.1f} s" in text


def test_every_font_is_embedded(bundled):
    for (_name, _paper), (_spec, data) in bundled.items():
        pdf = reader(data)
        seen = 0
        for page in pdf.pages:
            fonts = page["/Resources"]["/Font"]
            for ref in fonts.values():
                font = ref.get_object()
                descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
                descriptor = descendant["/FontDescriptor"].get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), font["/BaseFont"]
                seen += 1
        assert seen


def test_metadata_and_print_scaling(bundled):
    spec, data = bundled[RALLYTAIRE_SPECS[0].stem, "a4"]
    pdf = reader(data)
    meta = pdf.metadata
    assert meta.title == f"{spec.model.name}: Rallytaire race sheet"
    assert meta.subject == "Rallytaire race sheet and time table"
    assert meta.creator.startswith("sheetgen ")
    assert f"spec-sha256:{spec.sha256}" in meta["/Keywords"]
    assert pdf.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"


@pytest.mark.slow  # 12 s; test_parallel.py's two builds of every bundled spec are compared byte for byte
def test_two_renders_are_byte_identical():
    spec = load_spec(RALLYTAIRE_SPECS[1])
    assert build_outputs(spec)[0] == build_outputs(spec)[0]
    assert build_outputs(spec, ink="low")[0] == build_outputs(spec, ink="low")[0]


def _operators(data: bytes) -> set[bytes]:
    pdf = reader(data)
    ops = set()
    for page in pdf.pages:
        ops.update(op for _operands, op in operations(page.get_contents(), pdf))
    return ops


def test_low_ink_fills_no_areas():
    spec = load_spec(RALLYTAIRE_SPECS[0])
    normal = _operators(build_outputs(spec)[0])
    low = _operators(build_outputs(spec, ink="low")[0])
    assert normal & FILL_OPERATORS  # the normal sheet does shade and fill
    assert not low & FILL_OPERATORS


def test_render_command_writes_and_streams(run, write, tmp_path):
    spec = write(VALID)
    target = tmp_path / "race.pdf"
    result = run("render", spec, "-o", str(target), "--paper", "letter", "--ink", "low")
    assert result.exit_code == 0, result.output
    pdf = reader(target.read_bytes())
    assert (round(float(pdf.pages[0].mediabox.width)), round(float(pdf.pages[0].mediabox.height))) == LETTER
    streamed = run("render", spec, "-o", "-", "--paper", "letter", "--ink", "low")
    assert streamed.stdout_bytes == target.read_bytes()


def test_render_failure_leaves_existing_file_untouched(run, write, tmp_path):
    write(VALID)
    target = tmp_path / "race.pdf"
    target.write_bytes(b"old")
    bad = write(VALID.replace("gear: 3,", "gear: 6,"), "bad.yaml")
    result = run("render", bad, "-o", str(target))
    assert result.exit_code == 1
    assert target.read_bytes() == b"old"
    assert files_under(tmp_path) == ["bad.yaml", "race.pdf", "spec.yaml"]


def test_template_by_path_and_bad_template(run, write, tmp_path):
    from sheetgen.template import _templates

    text = _templates().joinpath("race_sheet.yaml").read_text(encoding="utf-8")
    custom = write(text.replace("paper: a4", "paper: letter"), "mine.yaml")
    spec = write(VALID)
    out = tmp_path / "x.pdf"
    assert run("render", spec, "-o", str(out), "--template", custom).exit_code == 0
    assert round(float(reader(out.read_bytes()).pages[0].mediabox.width)) == LETTER[0]
    broken = write(text.replace("margin_mm: 10", "margin_mm: 2"), "broken.yaml")
    result = run("render", spec, "-o", str(tmp_path / "y.pdf"), "--template", broken)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{broken}:")
    assert "'margin_mm' must be at least 5, got 2" in result.stderr
    assert not (tmp_path / "y.pdf").exists()
    unknown = run("render", spec, "-o", str(tmp_path / "z.pdf"), "--template", "fancy")
    assert unknown.exit_code == 2 and unknown.stderr.endswith("\nError: unknown template 'fancy' (built in: race_sheet, rally_risk, rallyman; or give a path)\n")
    empty = run("render", spec, "-o", str(tmp_path / "z.pdf"), "--template", "")  # not the default
    assert empty.exit_code == 2 and "Error: unknown template ''" in empty.stderr


def test_a_games_size_in_a_template_is_the_games_to_declare_and_to_range(run, write, tmp_path):
    """The template code names no game's size: a key ending in _mm is a size some game
    declares (Game.template_sizes: space_mm for Rallytaire, hex_mm for Rallyman, each with
    its range and default), and in a template a user gives, one no game declares, or out of
    its game's range, is refused at its place; any template drives any game's sheets, so a
    Rallyman size in a race sheet's template is fine."""
    from sheetgen import registry
    from sheetgen.template import SCHEMA, _templates, load_template

    assert [k for k in SCHEMA["properties"] if k.endswith("_mm")] == ["margin_mm"]
    declared = {size.key: (size.minimum, size.maximum, size.default) for game in registry.games() for size in game.template_sizes}
    assert declared == {"space_mm": (7, 14, 8.0), "hex_mm": (15, 60, 30.0)}
    assert load_template("race_sheet").size(registry.game("rallyman").template_sizes[0]) == 30.0  # not given: the default
    assert load_template("race_sheet").game_sizes == {"space_mm": 8.0}
    text = _templates().joinpath("race_sheet.yaml").read_text(encoding="utf-8")
    assert "\nspace_mm: 8 " in text
    spec = write(VALID)
    both = write(text.replace("\nspace_mm: 8 ", "\nspace_mm: 9 \nhex_mm: 42\n"), "both.yaml")
    assert run("render", spec, "-o", str(tmp_path / "ok.pdf"), "--template", both).exit_code == 0
    for bad, line in (("space_mn: 8", "{t}:6:1: error: unknown key 'space_mn', did you mean 'space_mm'?"),
                      ("zoom: 8", "{t}:6:1: error: unknown key 'zoom' (expected one of: font_size, fonts, hex_mm, ink, kind, margin_mm, paper, space_mm)"),
                      ("space_mm: 15", "{t}:6:11: error: 'space_mm' must be at most 14, got 15"),
                      ("space_mm: 6.5", "{t}:6:11: error: 'space_mm' must be at least 7, got 6.5"),
                      ("hex_mm: 70", "{t}:6:9: error: 'hex_mm' must be at most 60, got 70")):
        template = write(text.replace("\nspace_mm: 8 ", f"\n{bad} "), "bad.yaml")
        result = run("render", spec, "-o", str(tmp_path / "no.pdf"), "--template", template)
        assert (result.exit_code, result.stderr) == (1, line.format(t=template) + "\n"), bad
        assert not (tmp_path / "no.pdf").exists()


def test_advanced_par_and_best_tyres_are_printed(bundled):
    from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced

    spec, data = bundled[RALLYTAIRE_SPECS[0].stem, "a4"]
    advanced = analyze_race_advanced(spec.model)
    text = all_text(reader(data))
    assert f"{advanced.race_par_time:.1f} s advanced (best tyres: {advanced.tyres.value})" in text
    for stage in advanced.stages:
        assert f"advanced par {stage.par_time:.1f} s" in text


def test_time_table_reaches_17_only_when_the_engine_can_be_pushed(run, write, tmp_path):
    with_engine = write(VALID, "engine.yaml")
    without = write(VALID.replace("name: Test Race\n", "name: Test Race\nboxes: {engine: 0}\n"), "no_engine.yaml")
    for spec, last_row in ((with_engine, "17"), (without, "16")):
        out = tmp_path / "t.pdf"
        assert run("render", spec, "-o", str(out)).exit_code == 0
        table_page = reader(out.read_bytes()).pages[-1].extract_text()
        assert "Time table: the finishing turn" in table_page
        # every row ends with 10.0 s (moved == speed), so the rows are counted by it
        assert str(table_page.split().count("10.0")) == last_row
        assert ("Speed 17 only when pushing the engine" in table_page) == (last_row == "17")


def test_service_park_and_fix_points_marked(bundled):
    spec, data = bundled["monte_carlo", "a4"]
    text = all_text(reader(data))
    race = spec.model
    assert sum(s.service_park for s in race.stages[:-1]) == text.count("then 4 fix-points at the service park")
    assert sum(not s.service_park for s in race.stages[:-1]) == text.count("then 2 fix-points")
    assert "SP" in text.split()


def test_same_pages_and_tracks_on_a4_and_letter():
    """One league, two papers: every race prints the same stages on the same pages with the same
    track, laid out in the room both papers have and fitting inside each page; each race of up
    to four stages on one sheet (two pages), the time table on its last page."""
    from sheetgen.games.rallytaire.sheet import (
        FOOTER_MM,
        HEADER_MM,
        PANEL_GAP_MM,
        PANEL_HEAD_MM,
        RUNNING_HEADER_MM,
        max_speed,
        plan_race,
        table_height,
        track_box,
    )
    from sheetgen.template import MM, PAPERS, load_template

    template = load_template("race_sheet")
    for path in RALLYTAIRE_SPECS:
        race = load_spec(path).model
        plans = {}
        for paper, (width_pt, height_pt) in PAPERS.items():
            width, height = width_pt / MM, height_pt / MM
            plan = plan_race(race, template, height)
            assert plan.page_count == len(plan.pages) == 2 and plan.table_page == 1, (path.stem, paper)
            for number, page in enumerate(plan.pages):
                top = HEADER_MM if number == 0 else RUNNING_HEADER_MM
                room = height - 2 * template.margin_mm - FOOTER_MM - top
                if number == plan.table_page:
                    room -= PANEL_GAP_MM + table_height(max_speed(race))
                    assert plan.table_top_mm == pytest.approx(page[-1].top_mm + page[-1].height_mm + PANEL_GAP_MM)
                # the panels fill this page's room, no more
                assert page[0].top_mm == top
                assert page[-1].top_mm + page[-1].height_mm == pytest.approx(top + room)
                for placed in page:
                    assert placed.layout.width == 190.0 <= width - 2 * template.margin_mm + 1e-9
                    assert placed.layout.height <= placed.height_mm - PANEL_HEAD_MM + 1e-9
                    assert placed.layout.space_mm >= 7.0
            plans[paper] = [[(p.index, p.layout) for p in page] for page in plan.pages]
        assert plans["a4"] == plans["letter"], path.stem
    # the common room: A4's width (the narrower) and Letter's height (the lower)
    assert track_box(template, False) == pytest.approx((210.0 - 20, 279.4 - 20 - FOOTER_MM - RUNNING_HEADER_MM - PANEL_HEAD_MM))
