"""User text keeps to its room: every printable of every game, with every name at the most
characters its schema allows, read back from the PDF (tests/pdfgeom.py: the text runs, their
boxes from the PDF's own glyph widths, through the clipping in force).

- every text run that shows lies inside the 10 mm margins;
- no two text runs overlap (but the Rallyman overview's page names, drawn over the map);
- a name too long for its room ends in an ellipsis, and its start is in the text layer.

Two kinds of long name (tests/longnames.py): a wordy rally name, which may wrap, and capital
Ws without a space, the widest text of its length, which can only shrink, break or be cut.
And the fitting itself (`sheetgen.render.common.fit_text`) on hand-measured cases.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest

from conftest import ROOT, SPECS
from longnames import WIDE, WORDS, lengthen
from pdfgeom import MM, read_pages
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.render.common import ELLIPSIS, fit_text
from sheetgen.render.pdf import Sheet
from sheetgen.template import load_template
from sheetgen.yamlsrc import dump, load_text

#: GT tracks whose par takes seconds to solve under a new name (the solver's cache is keyed
#: by the whole track): the GT printout is checked on tiny.yaml and compact_hillclimb.yaml
SOLVED_SLOWLY = {"gt_col_sprint.yaml", "gt_hexagon_ring.yaml", "gt_wide_boulevard.yaml"}
#: (spec, paper) for each filler: every file on one paper for each kind of name
STYLES = {"words": "a4", "wide": "letter"}
PLAYERS = ["Anna", "Ben", "Carla", "Dario", "Eve", "Fritz"]
OVERVIEW_PAGE = re.compile(r"^[A-Z]\d{1,2}$")  # a Rallyman map page's name on the overview
TOLERANCE = 0.3  # points: rounding of the PDF's numbers and of the glyph widths


@functools.cache
def specs(tmp_root: str, style: str) -> dict[str, str]:
    """Each printable file of the lengthened copy, by its path under track_specs/."""
    root = lengthen(Path(tmp_root), style)
    # a season of six drivers with names of 30 characters (the limit): six columns of names
    filler = WORDS if style == "words" else WIDE
    six = [(name + filler)[:30] for name in PLAYERS]
    season = (root / "seasons" / "winter_season.yaml").read_text(encoding="utf-8")
    old = re.search(r"players:\n(- .*\n)+", season).group(0)
    (root / "seasons" / "six_players.yaml").write_text(season.replace(old, "players:\n" + "".join(f"- {n}\n" for n in six)), encoding="utf-8")
    # the championship's first two rallies (the ones results.yaml scores): every kind of page
    # of a calendar, with fewer course sheets to read back
    path = root / "rally_risk" / "championship.yaml"
    data = load_text(path.read_text(encoding="utf-8")).data
    path.write_text(dump(dict(data, rallies=data["rallies"][:2])), encoding="utf-8")
    return {str(p.relative_to(root)): str(p) for p in sorted(root.rglob("*.yaml"))}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("longnames"))


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return min(w, h)


def _near_pairs(shown):
    """The pairs of (text, box) whose boxes' x ranges meet (a sweep along x)."""
    ordered = sorted(shown, key=lambda item: item[1][0])
    for i, (a, box_a) in enumerate(ordered):
        for b, box_b in itertools.islice(ordered, i + 1, None):
            if box_b[0] >= box_a[2]:
                break
            yield (a, box_a), (b, box_b)


def check_text(data: bytes, where) -> int:
    """Margins and overlaps of every shown text run; returns how many runs were cut short."""
    pages = read_pages(data)
    margin = 10 * MM - TOLERANCE
    cut = 0
    for number, page in enumerate(pages, start=1):
        shown = [(t, t.visible_box()) for t in page.texts if t.value.strip() and t.visible_box() is not None]
        for text, (x0, y0, x1, y1) in shown:
            assert margin <= x0 and x1 <= page.width - margin and margin <= y0 and y1 <= page.height - margin, (where, number, "in the margin", text.value, [round(v / MM, 1) for v in (x0, y0, x1, y1)])
            cut += text.value.endswith(ELLIPSIS)
        for (a, box_a), (b, box_b) in _near_pairs(shown):
            if OVERVIEW_PAGE.match(a.value) or OVERVIEW_PAGE.match(b.value):
                continue
            assert _overlap(box_a, box_b) <= TOLERANCE, (where, number, "overlap", a.value, b.value)
    return cut


#: every printable kind of file of every game (the Rallyman GT printout on its quick tracks)
PRINTED = [
    "rallytaire/monte_carlo.yaml",
    "seasons/six_players.yaml",  # the season sheet and the race sheets of its generated race
    "rally_risk/sections.yaml",  # section cards, the kit, the reference card
    "rally_risk/montecarlo_1.yaml",
    "rally_risk/championship.yaml",  # calendar, course sheets, score sheet, reference card
    "rally_risk/results.yaml",
    "rally_run/house_set.yaml",
    "rallyman/tiny.yaml",
    "rallyman/compact_hillclimb.yaml",
    "rallyman/dirt_lakeside.yaml",
    "rallyman/tiles.yaml",
    "rallyman/tiles_large.yaml",
    "rallyman/results/winter_rally.yaml",
]


def render(path: str, paper: str) -> bytes:
    spec = load_spec(path)
    if spec.kind_name == "calendar":  # the calendar's pages, its races laid out without the
        # finishability checks that `build` runs first (the same pages)
        from sheetgen.games.rally_risk.championship import build_calendar
        from sheetgen.render.rally_risk.calendar import render_calendar

        built = build_calendar(spec.model, 1, check=None)
        return render_calendar(built, load_template(spec.game.template), paper=paper, library_name=spec.model.sections.name)[0]
    return build_outputs(spec, paper=paper)[0]


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("name", PRINTED)
def test_names_at_their_longest_keep_to_their_room(root, style, name):
    paper = STYLES[style]
    check_text(render(specs(root, style)[name], paper), (name, style, paper))


# --------------------------------------------------------------------------- fit_text

W = 0.98876953125  # DejaVu Sans's advance of "W", as a share of the size (its hmtx: 2025/2048)
RALLYE = 3.0703125  # of "Rallye"
SPACE = 0.31787109375


@pytest.fixture(scope="module")
def sheet():
    import io

    from reportlab.pdfgen.canvas import Canvas

    from sheetgen.render.pdf import register_fonts

    register_fonts()
    template = load_template("race_sheet")
    return Sheet(Canvas(io.BytesIO()), template, template.ink("normal"), (595.0, 842.0))


def test_a_text_that_fits_is_left_alone(sheet):
    assert fit_text(sheet, "Monte Carlo", 200, 16, bold=True) == fit_text(sheet, "Monte Carlo", 200, 16, bold=True, lines=3)
    fitted = fit_text(sheet, "Monte Carlo", 200, 16, bold=True)
    assert (fitted.lines, fitted.size, fitted.cut) == (("Monte Carlo",), 16, False)


def test_a_text_shrinks_in_quarter_points_to_its_width(sheet):
    # ten Ws at 5 pt: 49.44 pt; at 5.25 pt: 51.9 pt
    assert 10 * W * 5 <= 50 < 10 * W * 5.25
    fitted = fit_text(sheet, "W" * 10, 50, 10)
    assert (fitted.lines, fitted.size, fitted.cut) == (("W" * 10,), 5.0, False)


def test_below_the_floor_a_text_is_cut_with_an_ellipsis(sheet):
    # at the 4.5 pt floor ten Ws take 44.5 pt; seven and an ellipsis (4.5 pt) 35.6 pt, eight 40.1
    fitted = fit_text(sheet, "W" * 10, 40, 10)
    assert (fitted.lines, fitted.size, fitted.cut) == (("W" * 7 + ELLIPSIS,), 4.5, True)
    assert sheet.text_width(fitted.lines[0], size=4.5) <= 40


def test_a_text_wraps_before_it_shrinks_when_told_so(sheet):
    # "Rallye Rallye Rallye" at 10 pt: 98.5 pt; two on a line: 64.6 pt
    assert 2 * RALLYE * 10 + SPACE * 10 <= 70 < 3 * RALLYE * 10
    fitted = fit_text(sheet, "Rallye Rallye Rallye", 70, 10, lines=2, single=10)
    assert (fitted.lines, fitted.size) == (("Rallye Rallye", "Rallye"), 10)
    # in 20 pt of height, two lines need 2.364 x the size: 8.25 pt
    fitted = fit_text(sheet, "Rallye Rallye Rallye", 70, 10, lines=2, single=10, height=20)
    assert (fitted.lines, fitted.size) == (("Rallye Rallye", "Rallye"), 8.25)
    assert fitted.height <= 20


def test_a_word_too_long_for_its_line_breaks_then_the_last_line_is_cut(sheet):
    # eight Ws at 4.5 pt: 35.6 pt, nine 40.04 pt
    fitted = fit_text(sheet, "W" * 10, 40, 10, lines=2)
    assert (fitted.lines, fitted.size, fitted.cut) == (("W" * 8, "WW"), 4.5, False)
    fitted = fit_text(sheet, "W" * 20, 40, 10, lines=2)
    assert (fitted.lines, fitted.size, fitted.cut) == (("W" * 8, "W" * 7 + ELLIPSIS), 4.5, True)


@pytest.mark.parametrize("lines", [1, 2, 3])
@pytest.mark.parametrize("width", [20.0, 45.5, 130.0])
def test_no_line_is_ever_wider_than_its_room(sheet, lines, width):
    for value in (WORDS * 2, WIDE, "a " * 60, "Col de Turini"):
        fitted = fit_text(sheet, value, width, 12, bold=True, lines=lines)
        assert 1 <= len(fitted.lines) <= lines
        assert all(sheet.text_width(line, bold=True, size=fitted.size) <= width + 1e-9 for line in fitted.lines), (value, fitted)
        assert fitted.cut == (" ".join(fitted.lines).replace(" ", "") != value.replace(" ", ""))
        assert fitted.cut == fitted.lines[-1].endswith(ELLIPSIS)


# --------------------------------------------------------------------------- template sizes

#: a bundled spec of each game: the race sheet, the course sheet and reference card, the
#: tiles and rules page, the GT overview, map, roadbook, dashboard card and time sheet
EACH_GAME = ["rallytaire/monte_carlo.yaml", "rally_risk/montecarlo_1.yaml", "rally_run/house_set.yaml", "rallyman/tiny.yaml"]


def _sized(tmp_path, game_template: str, sizes: dict) -> str:
    text = (ROOT / "templates" / f"{game_template}.yaml").read_text(encoding="utf-8")
    for key, value in sizes.items():
        text, n = re.subn(rf"(\n  {key}: )[0-9.]+", rf"\g<1>{value:g}", text)
        assert n == 1, key
    path = tmp_path / f"{game_template}-{'-'.join(f'{v:g}' for v in sizes.values())}.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("end", "paper"), [("maximum", "a4"), ("maximum", "letter"), ("minimum", "letter")])
@pytest.mark.parametrize("name", EACH_GAME)
def test_every_font_size_at_the_end_of_its_range_lays_out(tmp_path, name, end, paper):
    """Every font size of the template at the largest (or smallest) its schema allows, all at
    once: margins kept and no text on another."""
    from sheetgen.template import FONT_SIZES

    sizes = {key: high if end == "maximum" else low for key, (low, high) in FONT_SIZES.items()}
    spec = load_spec(SPECS / name)
    data = build_outputs(spec, paper=paper, template=_sized(tmp_path, spec.game.template, sizes))[0]
    check_text(data, (name, end, paper))


def test_a_font_size_past_its_range_is_refused_at_its_value(run, tmp_path):
    from sheetgen.template import FONT_SIZES

    for key, (_low, high) in FONT_SIZES.items():
        path = _sized(tmp_path, "race_sheet", {key: high + 0.5})
        line = next(n for n, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1) if text.startswith(f"  {key}: "))
        result = run("render", str(SPECS / "rallytaire" / "monte_carlo.yaml"), "--template", path, "-o", str(tmp_path / "x.pdf"))
        assert result.exit_code == 1
        assert result.stderr == f"{path}:{line}:{len(key) + 5}: error: {key!r} must be at most {high:g}, got {high + 0.5:g}\n"
        assert not (tmp_path / "x.pdf").exists()
