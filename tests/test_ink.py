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
    "Rally Risk kit": (_spec(RR / "sections.yaml"), -2),
    "Rally Risk reference card": (_spec(RR / "sections.yaml"), -1),
    "Rally Risk course sheet": (_spec(RR / "montecarlo_1.yaml"), 0),
    "Rally Risk calendar overview": (_calendar, 0),
    "Rally Risk section lists": (_calendar, 1),
    "Rally Risk calendar score sheet": (_calendar, -1),
    "Rally Risk standings": (_spec(RR / "results.yaml"), 0),
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


@pytest.mark.parametrize("paper", ["a4", "letter"])
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
