"""Rallyman printables read back from the PDF: the true-scale map (the printed space size,
neighbouring pages lining up on their overlap marks and hex centres, page labels and
neighbours), the roadbook, the cut-out tiles; margins, low ink, determinism, build."""

from __future__ import annotations

import io
import json
import math
import re

import pytest
from pypdf import PdfReader

from conftest import SPECS, files_under
from pdfops import operations
from sheetgen.games.rallyman import HEX_MM
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.render.rallyman.roadbook import entries
from sheetgen.template import MM, load_template

RM = SPECS / "rallyman"
TOL_MM = 0.1

# A DIRT loop: every kind of corner (60, 120, 180), caution limits, a jump, water, a slide
# zone, three surfaces, three danger colours and an inside line.
LOOP = """\
game: rallyman
variant: dirt
name: Test loop
surface: gravel
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments: straight 4, corner right 120 limit 3/4 orange, straight 3 jump 4, corner left 60 limit 2/3 caution red, straight 3 water, corner right 180 limit 2/3 radius 2 snow, straight 5 slide
lines:
  - {between: [[4, 0], [5, 0]], limit: 2}
"""

# A GT track laid from tiles of its own library: start, finish, a pit edge, an inside line
# with a caution.
LIBRARY = """\
game: rallyman
kind: tiles
name: test tiles
tiles:
  - id: t-s2
    name: straight, 2 lanes
    cells:
      - {q: -2, r: 0, heading: 0, lane: 1}
      - {q: -1, r: 0, heading: 0, lane: 1}
      - {q: 0, r: 0, heading: 0, lane: 1}
      - {q: 1, r: 0, heading: 0, lane: 1}
      - {q: 2, r: 0, heading: 0, lane: 1}
      - {q: -2, r: 1, heading: 0, lane: 2}
      - {q: -1, r: 1, heading: 0, lane: 2}
      - {q: 0, r: 1, heading: 0, lane: 2}
      - {q: 1, r: 1, heading: 0, lane: 2}
  - id: t-s2-red
    name: straight, 2 lanes, a tight spot
    danger: red
    cells:
      - {q: -2, r: 0, heading: 0, lane: 1, danger: yellow}
      - {q: -1, r: 0, heading: 0, lane: 1, limit: 3}
      - {q: 0, r: 0, heading: 0, lane: 1, limit: 3, caution: true}
      - {q: 1, r: 0, heading: 0, lane: 1}
      - {q: 2, r: 0, heading: 0, lane: 1, danger: yellow}
      - {q: -2, r: 1, heading: 0, lane: 2}
      - {q: -1, r: 1, heading: 0, lane: 2, limit: 4}
      - {q: 0, r: 1, heading: 0, lane: 2, limit: 4}
      - {q: 1, r: 1, heading: 0, lane: 2}
    lines:
      - {between: [[0, 0], [0, 1]], caution: true}
  - id: t-s1
    name: straight, 1 lane
    surface: snow
    cells:
      - {q: -2, r: 0, heading: 0, lane: 1}
      - {q: -1, r: 0, heading: 0, lane: 1}
      - {q: 0, r: 0, heading: 0, lane: 1}
      - {q: 1, r: 0, heading: 0, lane: 1}
      - {q: 2, r: 0, heading: 0, lane: 1}
"""

TILED = """\
game: rallyman
variant: gt
name: Tiled straight
library: tiles.yaml
tiles:
  - {id: t-s2, q: 0, r: 0, rotation: 0}
  - {id: t-s2-red, q: 1, r: 0, rotation: 0}
  - {id: t-s2, q: 2, r: 0, rotation: 0}
cells:
  - {q: -2, r: 0, heading: 0, lane: 1, start: true, replace: true}
  - {q: -2, r: 1, heading: 0, lane: 2, start: true, replace: true}
  - {q: 9, r: 0, heading: 0, lane: 1, finish: true, pit: true, replace: true}
  - {q: 9, r: 1, heading: 0, lane: 2, finish: true, replace: true}
"""


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rallyman")
    for name, text in (("loop.yaml", LOOP), ("tiles.yaml", LIBRARY), ("tiled.yaml", TILED)):
        (folder / name).write_text(text, encoding="utf-8")
    big = load_template("rallyman")
    template = folder / "big.yaml"
    source = (SPECS.parent / "templates" / "rallyman.yaml").read_text(encoding="utf-8")
    template.write_text(source.replace("hex_mm: 30 ", "hex_mm: 42 "), encoding="utf-8")
    assert big.size(HEX_MM) == 30 and big.game_sizes == {"hex_mm": 30}
    return {name: load_spec(folder / f"{name}.yaml") for name in ("loop", "tiles", "tiled")} | {"big": str(template)}


_cache: dict = {}


def pdf_of(specs, name: str, paper: str = "a4", ink: str = "normal", template: str | None = None) -> bytes:
    key = (name, paper, ink, template)
    if key not in _cache:
        _cache[key] = build_outputs(specs[name], paper=paper, ink=ink, template=template)[0]
    return _cache[key]


def reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


# --------------------------------------------------------------------------- reading the PDF


def _mul(m, n):
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def shapes(page, pdf) -> dict:
    """The hexagons (centre, circumradius), circles (centre, radius) and clip rectangles of
    a page, in page millimetres, from its content stream (every transformation applied)."""
    ctm, stack = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), []
    hexes, circles, clips = [], [], []
    sub: list = []
    subs: list = []
    pending_rect = None

    def point(x, y):
        return ((ctm[0] * x + ctm[2] * y + ctm[4]) / MM, (ctm[1] * x + ctm[3] * y + ctm[5]) / MM)

    for operands, op in operations(page.get_contents(), pdf):
        op = op.decode() if isinstance(op, bytes) else op
        if op == "q":
            stack.append(ctm)
        elif op == "Q":
            ctm = stack.pop()
        elif op == "cm":
            ctm = _mul(tuple(float(v) for v in operands), ctm)
        elif op == "m":
            sub = [("m", point(*map(float, operands)))]
            subs.append(sub)
        elif op == "l":
            sub.append(("l", point(*map(float, operands))))
        elif op == "c":
            v = list(map(float, operands))
            sub.append(("c", point(v[4], v[5])))
        elif op == "h":
            sub.append(("h", None))
        elif op == "re":
            x, y, w, h = map(float, operands)
            pending_rect = (point(x, y), point(x + w, y + h))
        elif op in ("W", "W*"):
            if pending_rect:
                (x0, y0), (x1, y1) = pending_rect
                clips.append((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
        elif op == "n":  # a clipping path, not painted
            subs, pending_rect = [], None
        elif op in ("S", "s", "f", "f*", "F", "B", "B*", "b", "b*"):
            for s in subs:
                kinds = [k for k, _p in s]
                pts = [p for k, p in s if p is not None]
                if kinds == ["m", "l", "l", "l", "l", "l", "h"]:
                    cx, cy = sum(p[0] for p in pts) / 6, sum(p[1] for p in pts) / 6
                    hexes.append(((cx, cy), sum(math.dist((cx, cy), p) for p in pts) / 6))
                elif kinds[:5] == ["m", "c", "c", "c", "c"]:
                    ends = pts[:4]
                    cx, cy = sum(p[0] for p in ends) / 4, sum(p[1] for p in ends) / 4
                    circles.append(((cx, cy), math.dist((cx, cy), pts[0])))
            subs, pending_rect = [], None
    return {"hexes": hexes, "circles": circles, "clips": clips}


def page_texts(data: bytes) -> list[str]:
    return [p.extract_text() for p in reader(data).pages]


def map_pages(data: bytes) -> dict[str, int]:
    """The map pages by their grid label ("B2"), read from their headers."""
    out = {}
    for i, text in enumerate(page_texts(data)):
        found = re.search(r"map page ([A-Z]+\d+) at true scale", text)
        if found:
            out[found.group(1)] = i
    return out


def cell_centres(page, pdf, hex_mm: float) -> list[tuple[float, float]]:
    """The centres of the spaces: hexagons of a space's circumradius (not the tiles' outlines
    nor the inner danger rings), each once."""
    rad = hex_mm / math.sqrt(3)
    seen = []
    for c, r in shapes(page, pdf)["hexes"]:
        if abs(r - rad) < 0.05 and not any(math.dist(c, s) < 0.01 for s in seen):
            seen.append(c)
    return seen


def _label(col: int, row: int) -> str:
    return f"{chr(ord('A') + col)}{row + 1}"


def _split(label: str) -> tuple[int, int]:
    return ord(label[0]) - ord("A"), int(label[1:]) - 1


# --------------------------------------------------------------------------- the map at true scale


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("big", [False, True])
def test_printed_space_is_the_templates_hex_size(specs, paper, big):
    template = specs["big"] if big else None
    hex_mm = 42.0 if big else 30.0
    data = pdf_of(specs, "loop", paper, template=template)
    pdf = reader(data)
    pages = map_pages(data)
    assert pages
    pairs = 0
    for index in pages.values():
        page = pdf.pages[index]
        rad = hex_mm / math.sqrt(3)
        spaces = [r for _c, r in shapes(page, pdf)["hexes"] if abs(r - rad) < 1.0]
        assert spaces and all(abs(r * math.sqrt(3) - hex_mm) <= TOL_MM for r in spaces)
        centres = cell_centres(page, pdf, hex_mm)
        near = [math.dist(a, b) for i, a in enumerate(centres) for b in centres[i + 1 :] if math.dist(a, b) < 1.3 * hex_mm]
        # neighbouring spaces are one space across flats apart
        assert all(abs(d - hex_mm) <= TOL_MM for d in near), sorted(near)[:3]
        pairs += len(near)
    assert pairs >= 40


def pages_line_up(data: bytes, hex_mm: float) -> tuple[int, int]:
    """Check that every two printed map pages side by side (or one above the other) line up:
    the overlap marks they share give the shift from one to the other, and every space in the
    band both show is on the other at the same place, within 0.1 mm. Returns how many pairs
    of pages and spaces were checked."""
    pdf = reader(data)
    pages = map_pages(data)
    marks = {label: [c for c, r in shapes(pdf.pages[i], pdf)["circles"] if abs(r - 3.0) < 0.05] for label, i in pages.items()}
    pairs = checked = 0
    for label, index in pages.items():
        col, row = _split(label)
        for other in (_label(col + 1, row), _label(col, row + 1)):
            if other not in pages:
                continue
            pairs += 1
            mine, theirs = marks[label], marks[other]
            vertical = other[1:] == label[1:]  # the page to the right: a vertical band between them
            # the shift from this page to the other lays the same place of the track on it:
            # to the left on the page to the right, upwards on the page below
            shifts = [(b[0] - a[0], b[1] - a[1]) for a in mine for b in theirs]
            shifts = [t for t in shifts if (t[0] < -10 and abs(t[1]) <= TOL_MM) if vertical] if vertical else [t for t in shifts if t[1] > 10 and abs(t[0]) <= TOL_MM]
            assert shifts, (label, other)
            best = max(shifts, key=lambda t: sum(any(math.dist((a[0] + t[0], a[1] + t[1]), b) <= TOL_MM for b in theirs) for a in mine))
            shared = [a for a in mine if any(math.dist((a[0] + best[0], a[1] + best[1]), b) <= TOL_MM for b in theirs)]
            assert len(shared) >= 3, (label, other)
            # the shared marks lie on one line: the middle of the band
            line = shared[0][0] if vertical else shared[0][1]
            assert all(abs((m[0] if vertical else m[1]) - line) <= TOL_MM for m in shared), (label, other, best, shared)
            clip_a = shapes(pdf.pages[index], pdf)["clips"][0]
            clip_b = shapes(pdf.pages[pages[other]], pdf)["clips"][0]
            there = cell_centres(pdf.pages[pages[other]], pdf, hex_mm)
            # every space that shows in the band both pages share (its centre within half a
            # space of both pages' windows)
            reach = hex_mm / 2
            for c in cell_centres(pdf.pages[index], pdf, hex_mm):
                moved = (c[0] + best[0], c[1] + best[1])
                inside_a = clip_a[0] - reach <= c[0] <= clip_a[2] + reach and clip_a[1] - reach <= c[1] <= clip_a[3] + reach
                inside_b = clip_b[0] - reach <= moved[0] <= clip_b[2] + reach and clip_b[1] - reach <= moved[1] <= clip_b[3] + reach
                if inside_a and inside_b:
                    checked += 1
                    assert any(math.dist(moved, t) <= TOL_MM for t in there), (label, other, c)
    return pairs, checked


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_neighbouring_pages_line_up(specs, paper):
    """The overlap marks of two neighbouring pages give the shift from one page to the other;
    every space in the overlap band of one is on the other at the same place, within 0.1 mm."""
    data = pdf_of(specs, "loop", paper, template=specs["big"])
    cols = {_split(label)[0] for label in map_pages(data)}
    rows = {_split(label)[1] for label in map_pages(data)}
    assert len(cols) >= 2 and len(rows) >= 2, sorted(map_pages(data))  # both kinds of band are tested
    pairs, checked = pages_line_up(data, 42.0)
    assert pairs >= 2 and checked >= 4


def test_pages_name_their_neighbours_and_the_assembly_page_names_every_page(specs):
    data = pdf_of(specs, "loop", "a4", template=specs["big"])
    texts = page_texts(data)
    pages = map_pages(data)
    words = {"left": (-1, 0), "right": (1, 0), "above": (0, -1), "below": (0, 1)}
    opposite = {"left": "right", "right": "left", "above": "below", "below": "above"}
    for label, index in pages.items():
        col, row = _split(label)
        for word, (dc, dr) in words.items():
            other = _label(col + dc, row + dr) if col + dc >= 0 and row + dr >= 0 else None
            named = re.search(rf"{word}: ([A-Z]+\d+)", texts[index])
            if other in pages:
                assert named and named.group(1) == other, (label, word)
                assert f"{opposite[word]}: {label}" in texts[pages[other]]
            else:
                assert named is None, (label, word)
    assembly = texts[0]
    assert "Assembly" in assembly and f"{len(pages)} map pages" in assembly
    for label in pages:
        assert label in assembly


def test_dirt_map_marks(specs):
    text = "\n".join(page_texts(pdf_of(specs, "loop")))
    for word in ("JUMP", "water", "slide", "START", "FINISH", "in", "out"):
        assert word in text


# --------------------------------------------------------------------------- the roadbook


def test_roadbook_notes_in_track_order(specs):
    """The loop's notes, worked out from its path by hand: straight 4 (spaces 0-3), a right
    120 on 4-6, the jump on 7-9, the left 60 on 10-11, water on 12-14, the hairpin (inside
    radius 2: 6 spaces on its inside lane) on 15-20, the slide zone on 21-25 and the finish
    on the path's last spaces (25)."""
    got = [(n.step, n.call) for n in entries(specs["loop"].model)]
    assert got == [
        (0, "start"),
        (4, "right 120, in 3 / out 4"),
        (7, "jump, gear 4"),
        (10, "left 60, in 2 / out 3"),
        (12, "water"),
        (15, "onto snow"),
        (15, "right 180, in 2 / out 3"),
        (21, "slide zone"),
        (23, "onto gravel"),
        (25, "finish"),
    ]
    book = {n.call: n for n in entries(specs["loop"].model)}
    # a right turn's inside lane is the last (lane 2), a left turn's lane 1
    assert book["right 120, in 3 / out 4"].details[:3] == (
        "inside lane 2: limit 3; shorter",
        "outside lane 1: limit 4; longer, a drift",
        "choose the lane on entry and keep it through the corner",
    )
    assert "inside line in lane 1: limit 2" in book["right 120, in 3 / out 4"].details
    assert book["left 60, in 2 / out 3"].details[:2] == ("inside lane 1: limit 2 (caution); shorter", "outside lane 2: limit 3 (caution); longer, a drift")
    assert book["jump, gear 4"].details == (
        "lanes 1, 2, 3 spaces long",
        "gear 3 or lower: a normal space",
        "gear 4: land 1 space on (straight or diagonal)",
        "gear 5: land 2 spaces on; a caution on that die loses control where you land",
        "gear 6: land 2 spaces on and lose control there",
        "never onto a car or obstacle; into a corner in either lane",
    )
    assert book["water"].details[1].startswith("only a coast or leader die or the gear-1 die goes through")
    assert book["slide zone"].details[1].startswith("enter normally, or slide: the zone counts as two spaces across the track")


def test_roadbook_page_prints_every_note_with_its_distance(specs):
    data = pdf_of(specs, "loop")
    text = next(t for t in page_texts(data) if "roadbook" in t)
    for call in ("right 120, in 3 / out 4", "jump, gear 4", "left 60, in 2 / out 3", "right 180, in 2 / out 3", "finish"):
        assert call in text
    # distances from the previous note: 4, 3, 3, 2, 3, 0, 6, 2, 2
    for distance in ("+4", "+3", "+2", "+6", "+0"):
        assert distance in text


def test_gt_roadbook_from_tiles(specs):
    got = [(n.step, n.call) for n in entries(specs["tiled"].model)]
    # the red tile's corner: lane 1 limit 3 (caution on its second space), lane 2 limit 4,
    # from the 4th space of the track (tile 1 spans spaces 0-3, a half cell shared)
    assert got[0] == (0, "start") and got[-1][1] == "finish"
    corner = next(n for n in entries(specs["tiled"].model) if n.call.startswith("limit"))
    assert corner.call == "limit 3/4"
    assert "limit by lane: lane 1 3 (caution), lane 2 4" in corner.details
    assert "inside line between lanes 1 and 2: caution" in corner.details
    assert any(n.call == "pit lane" for n in entries(specs["tiled"].model))


# --------------------------------------------------------------------------- tiles


@pytest.mark.parametrize("paper,pages", [("a4", 2), ("letter", 2)])
def test_tiles_are_cut_out_at_true_scale(specs, paper, pages):
    data = pdf_of(specs, "tiles", paper)
    pdf = reader(data)
    assert len(pdf.pages) == pages  # two tiles nest on a page of either paper (three tiles: two pages)
    tile_rad = 4 * 30.0 / math.sqrt(3)
    outlines = [r for page in pdf.pages for _c, r in shapes(page, pdf)["hexes"] if r > 40]
    assert len(outlines) == 3 and all(abs(r * math.sqrt(3) - 120.0) <= TOL_MM for r in outlines)
    assert all(abs(r - tile_rad) <= TOL_MM for r in outlines)
    text = "\n".join(page_texts(data))
    for tile in ("t-s2", "t-s2-red", "t-s1", "red (high)"):
        assert tile in text


# --------------------------------------------------------------------------- every page kind


# a track's PDF ends with the roadbook, the dashboard card (2 pages), the time sheet (1 page)
# and the pieces to play without the box (2 pages: the dice key and cars, the damage bag)
PAGE_KINDS = {
    "assembly": ("loop", 0),
    "map": ("loop", 1),
    "roadbook": ("loop", -6),
    "tiles": ("tiles", 0),
    "tiled map": ("tiled", 1),
    "DIRT dashboard card": ("loop", -5),
    "DIRT odds": ("loop", -4),
    "DIRT time sheet": ("loop", -3),
    "DIRT dice key": ("loop", -2),
    "DIRT damage bag": ("loop", -1),
    "GT dashboard card": ("tiled", -5),
    "GT odds": ("tiled", -4),
    "GT time sheet": ("tiled", -3),
    "GT dice key": ("tiled", -2),
    "GT damage bag": ("tiled", -1),
}


def _darkness(data: bytes, page: int):
    pypdfium2 = pytest.importorskip("pypdfium2")
    numpy = pytest.importorskip("numpy")
    document = pypdfium2.PdfDocument(data)
    p = document[page % len(document)]
    bitmap = p.render(scale=100 / 72, grayscale=True)
    return (255 - numpy.asarray(bitmap.to_numpy(), dtype=numpy.int64)), p.get_size()


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("ink", ["normal", "low"])
@pytest.mark.parametrize("kind", sorted(PAGE_KINDS))
def test_nothing_crosses_the_10_mm_margins(specs, paper, ink, kind):
    name, page = PAGE_KINDS[kind]
    dark, (_w, h) = _darkness(pdf_of(specs, name, paper, ink), page)
    px = 100 / 25.4  # pixels per mm
    edge = int((10 - 0.4) * px)  # 0.4 mm: half a thick line and a pixel of antialiasing
    assert dark.shape[0] == round(h / 72 * 100) or abs(dark.shape[0] - h / 72 * 100) <= 1
    assert dark.any()
    for band in (dark[:edge, :], dark[-edge:, :], dark[:, :edge], dark[:, -edge:]):
        assert band.max() == 0, kind


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("kind", sorted(PAGE_KINDS))
def test_low_ink_takes_at_most_three_quarters_of_the_ink(specs, paper, kind):
    name, page = PAGE_KINDS[kind]
    normal = _darkness(pdf_of(specs, name, paper, "normal"), page)[0].sum()
    low = _darkness(pdf_of(specs, name, paper, "low"), page)[0].sum()
    assert low <= 0.75 * normal, (kind, low / normal)


def test_same_input_same_bytes(specs):
    for name in ("loop", "tiles", "tiled"):
        assert build_outputs(specs[name], ink="low")[0] == build_outputs(specs[name], ink="low")[0]
        assert build_outputs(specs[name])[0] == pdf_of(specs, name)


def test_every_font_is_embedded_and_metadata(specs):
    for name in ("loop", "tiles"):
        pdf = reader(pdf_of(specs, name))
        assert pdf.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
        assert f"spec-sha256:{specs[name].sha256}" in pdf.metadata["/Keywords"]
        for page in pdf.pages:
            for ref in page["/Resources"]["/Font"].values():
                font = ref.get_object()
                descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
                descriptor = descendant["/FontDescriptor"].get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    assert reader(pdf_of(specs, "loop")).metadata.title == "Test loop: Rallyman DIRT map, roadbook, dashboard card and time sheet"


@pytest.mark.slow  # 7 s; the default suite's golden build (build-report/a4-quick.txt) builds these files and reads every page
def test_build_prints_every_bundled_rallyman_track(run, tmp_path):
    """Every bundled Rallyman file builds to its printout: the tracks, the tile libraries and
    the results files (a league's file names its tracks: the folder is built whole; it once
    left out the two GT tracks whose par took 40 s each before the compiled kernel, and the
    league naming one of them could not be read)."""
    out = tmp_path / "out"
    result = run("build", "-o", str(out), str(RM))
    assert result.exit_code == 0, result.output + result.stderr
    expected = sorted(p.stem + ".pdf" for p in RM.rglob("*.yaml"))  # tracks, the tiles, results/
    assert files_under(out) == expected
    for name in expected:
        title = reader((out / name).read_bytes()).metadata.title
        assert title.endswith(("map, roadbook, dashboard card and time sheet", "Rallyman tiles", "standings")), title


def test_a_circuit_calls_its_finish_line_for_every_lap():
    ring = load_spec(RM / "gt_hexagon_ring.yaml").model
    assert ring.laps == 3
    book = entries(ring)
    line = next(e for e in book if e.call == "finish line")
    assert "the race ends after 3 laps" in line.details[0]
    assert not any(e.call == "finish" for e in book)


def test_a_space_too_large_for_a_tile_on_the_page_is_refused_with_the_largest_that_prints(run, specs, tmp_path):
    template = tmp_path / "huge.yaml"
    template.write_text((SPECS.parent / "templates" / "rallyman.yaml").read_text(encoding="utf-8").replace("hex_mm: 30 ", "hex_mm: 55 "), encoding="utf-8")
    target = tmp_path / "tiles.pdf"
    result = run("render", specs["tiles"].path, "--template", str(template), "-o", str(target))
    assert result.exit_code == 1 and not target.exists()
    assert result.stderr == "sheetgen: error: huge.yaml: hex_mm 55 makes a tile 227 x 258 mm with its cut marks, more than the 190 x 260 mm the A4 page has for it: tiles print with hex_mm up to 45.5\n"
    # 45.5 mm tiles do print (182 mm across flats with their marks, inside 190 mm)
    template.write_text(template.read_text(encoding="utf-8").replace("hex_mm: 55 ", "hex_mm: 45.5 "), encoding="utf-8")
    assert run("render", specs["tiles"].path, "--template", str(template), "-o", str(target)).exit_code == 0
    # the map takes any size a template allows (up to 60 mm)
    template.write_text(template.read_text(encoding="utf-8").replace("hex_mm: 45.5 ", "hex_mm: 60 "), encoding="utf-8")
    assert run("render", specs["loop"].path, "--template", str(template), "-o", str(tmp_path / "map.pdf")).exit_code == 0


def test_the_assembly_page_prints_the_par_time_and_safe_route_of_a_gt_track(run, specs):
    """RG-31: the bundled tiny track's printout says what analyze says (par 215/9 s, the safe
    route 40 s in one turn) and what the par means; a DIRT map prints no par."""
    analysis = json.loads(run("analyze", "track_specs/rallyman/tiny.yaml", "--format", "json").stdout)
    assert analysis["par"]["expected_seconds"] == 23.889 and analysis["safe_route"]["seconds"] == 40
    data = build_outputs(load_spec("track_specs/rallyman/tiny.yaml"), paper="a4", ink="normal")[0]
    # (a one-page map has no assembly page: what it would print follows the roadbook)
    assembly = " ".join(next(t for t in page_texts(data) if "Key to the map" in t).split())
    assert ("Par 23.9 s (exact, best solo plans with the dice resolved in plan order (re-allocating them after a loss of control can do "
            "a little better): the expected stage time of the best plans of dice, rolled all at once or one at a time "
            "(securing with focus tokens, counted up to 4, or stopping when that pays), for a car alone") in assembly
    assert "no damage drawn and no flying start). Safe route: 40 s in 1 turn, with no chance of losing control (focus tokens counted up to 3)." in assembly
    assert "Par " not in page_texts(pdf_of(specs, "loop"))[0]
