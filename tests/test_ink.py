"""Low ink saves ink: on every page kind, the low-ink mode's page takes at most 75% of the
normal mode's ink, text included. Ink is the summed darkness of a greyscale render at
100 dpi (pypdfium2, from the test extra), so it is what a printer would lay down."""

from __future__ import annotations

import functools

import numpy
import pypdfium2
import pytest

from conftest import SPECS
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.template import load_template

LOW_INK_SHARE = 0.75
RR = SPECS / "rally_risk"


def ink(data: bytes, page: int) -> float:
    """The page's ink: the sum over its pixels of darkness (0 white, 1 black) at 100 dpi."""
    document = pypdfium2.PdfDocument(data)
    bitmap = document[page % len(document)].render(scale=100 / 72, grayscale=True)
    return float((255 - numpy.asarray(bitmap.to_numpy(), dtype=numpy.int64)).sum()) / 255


def _calendar(paper: str, mode: str) -> bytes:
    """The bundled championship's first two rallies laid out (seed 1, no finishability
    check: the pages are the same kinds), in `mode` ink."""
    from dataclasses import replace

    from sheetgen.games.rally_risk.championship import build_calendar
    from sheetgen.render.rally_risk.calendar import render_calendar

    championship = _load(RR / "championship.yaml").model
    built = build_calendar(replace(championship, rallies=championship.rallies[:2]), 1, check=None)
    return render_calendar(built, load_template("rally_risk"), paper=paper, ink=mode, library_name="sheetgen road sections")[0]


@functools.cache
def _load(path):
    return load_spec(path)  # once: a race's analysis is kept with its model


def _spec(path):
    return lambda paper, mode: build_outputs(_load(path), paper=paper, ink=mode)[0]


# page kind: (how its PDF is made, the page of that kind in it)
PAGE_KINDS = {
    "Rallytaire race sheet": (_spec(SPECS / "rallytaire" / "monte_carlo.yaml"), 0),
    "Rallytaire season sheet": (_spec(SPECS / "seasons" / "winter_season.yaml"), 0),
    "Rally Risk section cards": (_spec(RR / "sections.yaml"), 0),
    "Rally Risk kit": (_spec(RR / "sections.yaml"), -3),
    "Rally Risk gear simulators": (_spec(RR / "sections.yaml"), -2),
    "Rally Risk reference card": (_spec(RR / "sections.yaml"), -1),
    "Rally Risk course sheet": (_spec(RR / "montecarlo_1.yaml"), 0),
    "Rally Risk calendar overview": (_calendar, 0),
    "Rally Risk calendar score sheet": (_calendar, -2),
    "Rally Risk standings": (_spec(RR / "results.yaml"), 0),
    "Rally Run! tile fronts": (_spec(SPECS / "rally_run" / "house_set.yaml"), 0),
    "Rally Run! tile backs": (_spec(SPECS / "rally_run" / "house_set.yaml"), 1),
    "Rally Run! coloured tiles": (_spec(SPECS / "rally_run" / "house_set.yaml"), 4),
    "Rally Run! cars' other side": (_spec(SPECS / "rally_run" / "house_set.yaml"), 5),
    "Rally Run! rules summary": (_spec(SPECS / "rally_run" / "house_set.yaml"), -1),
    "Rallyman assembly page": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), 0),
    "Rallyman map page": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), 5),
    "Rallyman roadbook": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -6),
    "Rallyman DIRT dashboard card": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -5),
    "Rallyman DIRT odds": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -4),
    "Rallyman DIRT time sheet": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -3),
    "Rallyman DIRT dice key": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -2),
    "Rallyman DIRT damage bag": (_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml"), -1),
    "Rallyman GT dashboard card": (_spec(SPECS / "rallyman" / "tiny.yaml"), -5),
    "Rallyman GT odds": (_spec(SPECS / "rallyman" / "tiny.yaml"), -4),
    "Rallyman GT time sheet": (_spec(SPECS / "rallyman" / "tiny.yaml"), -3),
    "Rallyman GT dice key": (_spec(SPECS / "rallyman" / "tiny.yaml"), -2),
    "Rallyman GT damage bag": (_spec(SPECS / "rallyman" / "tiny.yaml"), -1),
    "Rallyman cut-out tiles": (_spec(SPECS / "rallyman" / "tiles.yaml"), 0),
    "Rallyman standings": (_spec(SPECS / "rallyman" / "results" / "winter_rally.yaml"), 0),
    "Rallyman DIRT rally time sheet": (_spec(SPECS / "rallyman" / "results" / "winter_rally.yaml"), 1),
}


@pytest.fixture(scope="module")
def rendered():
    cache: dict = {}

    def get(make, paper: str, mode: str) -> bytes:
        key = (make, paper, mode)
        if key not in cache:
            cache[key] = make(paper, mode)
        return cache[key]

    return get


# every page kind on A4; on Letter (the same drawing on another page size) under -m slow
@pytest.mark.parametrize("paper", [pytest.param("a4"), pytest.param("letter", marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind", sorted(PAGE_KINDS))
def test_low_ink_uses_at_most_three_quarters_of_the_ink(rendered, kind, paper):
    make, page = PAGE_KINDS[kind]
    normal, low = (rendered(make, paper, mode) for mode in ("normal", "low"))
    assert len(pypdfium2.PdfDocument(normal)) == len(pypdfium2.PdfDocument(low))  # the same pages
    full, saved = ink(normal, page), ink(low, page)
    assert full > 1000  # a page with something on it (a blank page would pass anything)
    assert saved <= LOW_INK_SHARE * full, f"{kind} on {paper}: low ink takes {saved / full:.0%} of normal"


def test_ink_measure_counts_darkness():
    """A 50 mm black square on white is 50 mm x 50 mm at 100 dpi of darkness 1; a 50%
    grey one half of it."""
    from sheetgen.render.pdf import Meta, render_pdf
    from sheetgen.template import MM

    def square(grey: float):
        def draw(sheet):
            sheet.c.setFillGray(grey)
            sheet.c.rect(50 * MM, 50 * MM, 50 * MM, 50 * MM, stroke=0, fill=1)
            sheet.end_page()

        return render_pdf(load_template("rally_risk"), "normal", "a4", Meta("t", "s"), draw)[0]

    pixels = (50 / 25.4 * 100) ** 2
    assert ink(square(0.0), 0) == pytest.approx(pixels, rel=0.02)
    assert ink(square(0.5), 0) == pytest.approx(pixels / 2, rel=0.03)


def strokes(data: bytes, page: int = 0) -> list[dict]:
    """Every stroked path of the page: its line width, line cap, stroke grey (0 black, 1
    white; the mean of its colour's components), number of points and whether it is closed."""
    import io

    from pypdf import PdfReader

    from pdfops import operations

    pdf = PdfReader(io.BytesIO(data))
    state, stack, out, points, closed = {"w": 1.0, "J": 0, "grey": 0.0}, [], [], 0, False
    for operands, op in operations(pdf.pages[page].get_contents(), pdf):
        if op == b"q":
            stack.append(dict(state))
        elif op == b"Q" and stack:
            state = stack.pop()
        elif op == b"w":
            state["w"] = float(operands[0])
        elif op == b"J":
            state["J"] = int(operands[0])
        elif op in (b"RG", b"G"):
            state["grey"] = sum(float(v) for v in operands) / len(operands)
        elif op == b"m":
            points, closed = 1, False
        elif op == b"l":
            points += 1
        elif op == b"h":
            closed = True
        elif op in (b"S", b"s", b"B", b"b"):
            out.append({**state, "points": points, "closed": closed or op in (b"s", b"b")})
    return out


def test_low_ink_corner_lines_stay_apart_from_space_borders_by_shape_and_weight():
    """Read from the low-ink PDFs. Rallytaire: a corner line is a line across the road with
    round ends, at least 2.5 times as heavy as a space's border and darker; borders are
    closed outlines with square ends. Rally Risk: a most dangerous space has a heavy outline
    and a thin one inside it (two outlines where a space has one)."""
    race = build_outputs(_load(SPECS / "rallytaire" / "monte_carlo.yaml"), ink="low")[0]
    drawn = strokes(race)
    corners = [s for s in drawn if s["J"] == 1 and s["points"] == 2]
    borders = [s for s in drawn if s["closed"] and s["points"] == 4 and s["w"] < max(c["w"] for c in corners)]
    assert corners and borders
    assert min(c["w"] for c in corners) >= 2.5 * max(b["w"] for b in borders)
    assert max(c["grey"] for c in corners) < min(b["grey"] for b in borders)
    assert all(b["J"] == 0 for b in borders)
    # Rally Risk: the heavy outlines and their inner outlines, in the corner's ink
    from sheetgen.games.rally_risk.kept import race_figures as race_analysis

    spec = _load(RR / "montecarlo_1.yaml")
    course = build_outputs(spec, ink="low")[0]
    low = load_template("rally_risk").ink("low")
    corner_grey = int(low.corner[1:3], 16) / 255
    drawn = [s for s in strokes(course) if s["closed"] and abs(s["grey"] - corner_grey) < 0.01]
    heavy = [s for s in drawn if abs(s["w"] - low.corner_width) < 1e-6]
    inner = [s for s in drawn if abs(s["w"] - low.thin_width) < 1e-6]
    dangerous = len(race_analysis(spec.model).best.dangerous)
    assert dangerous >= 2 and len(heavy) == len(inner) == dangerous
    assert low.corner_width >= 4 * low.thin_width
