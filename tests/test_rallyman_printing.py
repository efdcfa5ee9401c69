"""Rallyman's print, read back from the PDFs (issue 30): map pages that carry track outside
the band they are cut along, Letter tile pages, labels a player can read, no assembly page for
a one-page map, page numbers that match the PDF's, one word for spaces and another for moves.

Every figure here is read from the PDF (tests/pdfgeom.py) or worked out by hand from the
spec files, never from the code that lays the pages out.
"""

from __future__ import annotations

import math
import re

import pytest

from conftest import SPECS
from pdfgeom import MM, read_pages
from sheetgen.registry import Figures, load_spec
from sheetgen.render import build_outputs

_built: dict = {}


def pdf(name: str, paper: str = "a4", ink: str = "normal") -> bytes:
    """A bundled Rallyman file's PDF (a GT track's par left out: it is not what these test)."""
    key = (name, paper, ink)
    if key not in _built:
        spec = load_spec(SPECS / "rallyman" / f"{name}.yaml")
        _built[key] = build_outputs(spec, paper=paper, ink=ink, figures=Figures.given(spec, None))[0]
    return _built[key]


_read: dict = {}


def texts(data: bytes) -> list[str]:
    """Each page's text runs, in drawing order, joined by newlines."""
    return ["\n".join(t.value for t in page.texts) for page in pages_of(data)]


def pages_of(data: bytes) -> list:
    """The PDF's pages read back (tests/pdfgeom.py), once per PDF."""
    key = ("pages", data)
    if key not in _read:
        _read[key] = read_pages(data)
    return _read[key]


def map_page_indices(data: bytes) -> dict[str, int]:
    out = {}
    for i, text in enumerate(texts(data)):
        found = re.search(r"map page ([A-Z]+\d+) at true scale", text)
        if found:
            out[found.group(1)] = i
    return out


SPACE_RADIUS = 30 / math.sqrt(3) * MM  # a space 30 mm across flats (the template's hex_mm), points


def space_hexagons(page) -> list[list[tuple[float, float]]]:
    """The hexagons of the spaces a page draws (six corners at a space's circumradius)."""
    out = []
    for path in page.paths:
        for sub in path.subpaths:
            pts = list(sub[:-1]) if len(sub) == 7 and math.dist(sub[0], sub[-1]) < 0.01 else list(sub)
            if len(pts) != 6:
                continue
            cx, cy = sum(p[0] for p in pts) / 6, sum(p[1] for p in pts) / 6
            if all(abs(math.dist((cx, cy), p) - SPACE_RADIUS) < 0.05 * MM for p in pts):
                out.append(pts)
    return out


def clipped_area(polygon, box) -> float:
    """The area (points^2) of a convex polygon inside a box (Sutherland-Hodgman)."""
    x0, y0, x1, y1 = box
    pts = list(polygon)
    for inside, cut in (
        (lambda p: p[0] >= x0, lambda a, b: (x0, a[1] + (b[1] - a[1]) * (x0 - a[0]) / (b[0] - a[0]))),
        (lambda p: p[0] <= x1, lambda a, b: (x1, a[1] + (b[1] - a[1]) * (x1 - a[0]) / (b[0] - a[0]))),
        (lambda p: p[1] >= y0, lambda a, b: (a[0] + (b[0] - a[0]) * (y0 - a[1]) / (b[1] - a[1]), y0)),
        (lambda p: p[1] <= y1, lambda a, b: (a[0] + (b[0] - a[0]) * (y1 - a[1]) / (b[1] - a[1]), y1)),
    ):
        out = []
        for i, p in enumerate(pts):
            q = pts[i - 1]
            if inside(p):
                if not inside(q):
                    out.append(cut(q, p))
                out.append(p)
            elif inside(q):
                out.append(cut(q, p))
        pts = out
        if not pts:
            return 0.0
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1]))) / 2


def kept_part(page) -> tuple[float, float, float, float]:
    """The part of a map page left once it is cut: its map window (the clip of its spaces)
    less what lies left of its vertical dashed cut line and above its horizontal one."""
    window = next(p.clip for p in page.paths if p.clip is not None)
    x0, y0, x1, y1 = window
    for path in page.paths:
        if not path.dash or len(path.points) != 2:
            continue
        (ax, ay), (bx, by) = path.points
        if abs(ax - bx) < 0.01 and abs(ay - by) > 0.9 * (y1 - y0):
            x0 = ax  # the cut on the left: what lies left of it is cut off
        elif abs(ay - by) < 0.01 and abs(ax - bx) > 0.9 * (x1 - x0):
            y1 = ay  # the cut at the top
    return (x0, y0, x1, y1)


TRACKS = [
    "tiny",
    "compact_hillclimb",
    "dirt_forest_stage",
    "dirt_lakeside",
    "gt_col_sprint",
    "gt_hexagon_ring",
    "gt_wide_boulevard",
]


def _check_map_pages(name: str, paper: str) -> None:
    data = pdf(name, paper)
    pages = pages_of(data)
    found = map_page_indices(data)
    assert found, name
    for label, index in found.items():
        page = pages[index]
        kept = kept_part(page)
        best = max((clipped_area(h, kept) for h in space_hexagons(page)), default=0.0)
        # at least a square millimetre of a space beyond the cut lines (Wide Boulevard's A4
        # page I2 had none: only slivers in the band cut away)
        assert best > 1.0 * MM * MM, (name, paper, label, best / MM / MM)
        # and no sheet printed for a strip of track: at least 4 % of what is kept of the page
        # (about two spaces on A4) is track (Wide Boulevard A4 had pages of 1.7 % and 2.4 %)
        share = sum(clipped_area(h, kept) for h in space_hexagons(page)) / ((kept[2] - kept[0]) * (kept[3] - kept[1]))
        assert share >= 0.04, (name, paper, label, share)
    # every printed page joins the others through shared sides (they register by the marks
    # on the bands they share)
    cells = {(ord(label[0]) - ord("A"), int(label[1:])) for label in found}
    seen, todo = set(), [min(cells)]
    while todo:
        c, r = todo.pop()
        if (c, r) in seen:
            continue
        seen.add((c, r))
        todo += [n for n in ((c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)) if n in cells]
    assert seen == cells, (name, paper, sorted(found))


def test_no_map_page_of_lakeside_prints_track_only_in_its_cut_bands():
    _check_map_pages("dirt_lakeside", "a4")


@pytest.mark.slow  # (3-6 s a paper; in the default suite: test_render_rallyman's test_neighbouring_pages_line_up)
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_printed_map_pages_of_lakeside_line_up_around_those_left_out(paper):
    """Lakeside's grid leaves out pages without track (A1 and D1 on A4; E1 too on Letter): the
    pages printed still line up with each neighbour on their overlap marks, every space in a
    band two pages share on both within 0.1 mm (tests/test_render_rallyman.py's check)."""
    from test_render_rallyman import pages_line_up

    data = pdf("dirt_lakeside", paper)
    found = map_page_indices(data)
    assert "A1" not in found and "D1" not in found and "A2" in found and "D2" in found and "C1" in found
    pairs, checked = pages_line_up(data, 30.0)
    assert pairs >= 5 and checked >= 10, (pairs, checked)


@pytest.mark.slow  # every bundled track on both papers (Wide Boulevard's A4 page I2 among them): a minute
@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("name", TRACKS)
def test_no_map_page_prints_track_only_in_its_cut_bands(name, paper):
    _check_map_pages(name, paper)


def test_map_pages_carry_their_pdf_page_number_after_the_assembly_page():
    data = pdf("dirt_lakeside")
    all_texts = texts(data)
    assert "Assembly" in all_texts[0]
    found = map_page_indices(data)
    assert len(found) >= 5
    for label, index in found.items():
        assert f"page {index + 1} of the PDF" in all_texts[index], label
    # numbered in PDF order: the first map page is the PDF's second page
    assert min(found.values()) == 1


def test_a_one_page_map_has_no_assembly_page_and_its_key_follows_the_roadbook():
    data = pdf("tiny")
    all_texts = texts(data)
    assert map_page_indices(data) == {"A1": 0}
    assert "page 1 of the PDF" in all_texts[0]
    assert not any("Assembly" in t for t in all_texts)
    roadbook = [t for t in all_texts if "roadbook" in t]
    assert "Key to the map" in roadbook[-1] and "corner limit" in roadbook[-1]


def test_spaces_are_cells_and_moves_are_distance():
    """Tiny: 6 spaces (two lanes of three), 2 moves from a start space to a finish space;
    the hill climb: 51 spaces (docs/rallyman_printing.md)."""
    words = " ".join(texts(pdf("tiny")))
    assert "2 moves from start to finish" in words
    assert not re.search(r"\d+ spaces? (to|from)", words)
    climb = " ".join(texts(pdf("compact_hillclimb")))
    # (a run of spaces on the road, "a pit lane 2 spaces long", "land 2 spaces on", is the
    # rulebook's wording for what lies on the track, not a distance to drive)
    assert set(re.findall(r"(\d+) spaces\b(?! long| on)", climb)) == {"51"}
    moves = set(re.findall(r"(\d+) moves from start to finish", climb))
    assert len(moves) == 1 and moves != {"51"}


def _hexagons_of(page, radius_mm: float) -> list[list[tuple[float, float]]]:
    out = []
    for path in page.paths:
        for sub in path.subpaths:
            pts = list(sub[:-1]) if len(sub) == 7 else list(sub)
            if len(pts) != 6:
                continue
            cx, cy = sum(p[0] for p in pts) / 6, sum(p[1] for p in pts) / 6
            if all(abs(math.dist((cx, cy), p) - radius_mm * MM) < 0.05 * MM for p in pts):
                out.append(pts)
    return out


def _inside(point, hexagon) -> bool:
    """Whether a point lies inside a convex polygon (either winding)."""
    signs = set()
    for a, b in zip(hexagon, hexagon[1:] + hexagon[:1]):
        cross = (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0])
        signs.add(cross > 0)
    return len(signs) == 1


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cut_out_tiles_take_two_a_page_on_letter_as_on_a4(paper):
    """26 tiles in the bundled library (its `- id:` entries), two nested on every page: 13
    pages on either paper (Letter took 26). Both tiles lie inside the 10 mm margins, apart,
    and no header text runs into either."""
    library = (SPECS / "rallyman" / "tiles.yaml").read_text(encoding="utf-8")
    assert len(re.findall(r"^  - id: ", library, re.M)) == 26
    pages = pages_of(pdf("tiles", paper))
    assert len(pages) == 13
    tile = 4 * 30 / math.sqrt(3)  # a tile's circumradius: four spaces of 30 mm across flats
    for number, page in enumerate(pages, 1):
        outlines = {
            (round(sum(p[0] for p in h) / 6, 1), round(sum(p[1] for p in h) / 6, 1)): h
            for h in _hexagons_of(page, tile)
        }
        assert len(outlines) == 2, number
        (a, ha), (b, hb) = outlines.items()
        assert math.dist(a, b) >= 120 * MM  # two tiles 120 mm across flats do not overlap
        for hexagon in (ha, hb):
            assert all(10 * MM - 0.01 <= x <= page.width - 10 * MM + 0.01 for x, _y in hexagon)
            assert all(10 * MM - 0.01 <= y <= page.height - 10 * MM + 0.01 for _x, y in hexagon)
        heads = [
            t for t in page.texts if re.match(r"(sheetgen original tiles|Rallyman tiles|Spaces 30 mm)", t.value)
        ]
        assert len(heads) == 3, number
        for t in heads:
            x0, y0, x1, y1 = t.bbox()
            corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            assert not any(_inside(c, h) for c in corners for h in (ha, hb)), (number, t.value)


def _dark(text) -> bool:
    return max(text.fill) <= 0.4  # no lighter than the template's low-ink text (#5a5a5a: 0.35)


@pytest.mark.parametrize("ink", ["normal", "low"])
def test_tile_labels_are_at_least_6_pt_and_dark(ink):
    """A map's tile labels (its id, its turn, its danger colour) and a cut-out tile's (its id,
    name, danger colour and which way up) were 4.2 pt in mid grey and 5 pt."""
    data = pdf("dirt_lakeside", ink=ink)
    pages = pages_of(data)
    labels = [
        t
        for index in map_page_indices(data).values()
        for t in pages[index].texts
        if re.match(r"(tile \S+|turned \d|yellow \(|orange \(|red \()", t.value)
    ]
    assert len(labels) >= 20
    assert min(t.size for t in labels) >= 6.0
    assert all(_dark(t) for t in labels)
    tiles = pages_of(pdf("tiles", ink=ink))
    ids = set(re.findall(r"^  - id: (\S+)", (SPECS / "rallyman" / "tiles.yaml").read_text(encoding="utf-8"), re.M))
    marks = [t for page in tiles for t in page.texts if t.value in ids or "rotation 0" in t.value]
    assert len([t for t in marks if t.value in ids]) == len([t for t in marks if "rotation 0" in t.value]) == 26
    assert min(t.size for t in marks) >= 6.0
    assert all(_dark(t) for t in marks)


# --------------------------------------------------------------------------- without the box


def _page_with(pages, words: str):
    return next(p for p in pages if any(words in t.value for t in p.texts))


def _row_texts(page, first: str) -> list[str]:
    """The texts on the line of the text `first` (same baseline), left to right."""
    start = next(t for t in page.texts if t.value == first)
    return [t.value for t in sorted(page.texts, key=lambda t: t.x) if abs(t.y - start.y) < 0.5]


def test_a_tracks_pages_carry_one_number_the_pdfs():
    """Tiny's seven pages (map, roadbook, dashboard card, its odds, time sheet, without the
    box, damage bag): the one "page N of M" or "card N of M" each prints is the footer's (the
    pages' own "page 1 of 2" and "dashboard card 1 of 2" are gone, issue 30)."""
    all_texts = texts(pdf("tiny"))
    for k, text in enumerate(all_texts, start=1):
        numbers = re.findall(r"\b(?:page|card) \d+ of \d+", text)
        assert numbers == [f"page {k} of {len(all_texts)}"], (k, numbers)


def test_gt_weather_and_yellow_flags_are_tallied_on_the_table_page():
    """Rallyman GT's bag holds 6 weather and 6 yellow-flag tokens (rulebook "Damage": "Qty x
    6" each), which stay on the table, not with a car: the page without the box has a cell
    for the weather at the start and after each of the 6 changes the bag can make (sun / rain
    to circle), and a yellow-flag box per car of the 6 counters. DIRT's bag has neither: no
    such table."""
    page = _page_with(pages_of(pdf("tiny")), "The table: weather and yellow flags")
    assert _row_texts(page, "weather now") == ["weather now", "start", *(f"change {k}" for k in range(1, 7))]
    assert _row_texts(page, "circle one") == ["circle one", *(["sun / rain"] * 7)]
    assert _row_texts(page, "yellow flag out") == ["yellow flag out", *(f"car {k}" for k in range(1, 7))]
    words = " ".join(t.value for t in page.texts)
    assert "the bag holds 6 weather tokens" in words and "Yellow flags: the bag holds 6." in words
    lakeside = _page_with(pages_of(pdf("dirt_lakeside")), "Dice key")
    assert not any("weather" in t.value.lower() for t in lakeside.texts)


def test_the_dice_key_reads_a_plain_d6_with_the_rulebooks_caution_chances():
    """Rulebook "The Dice": the white coast dice and gears 1 and 2 have one caution face,
    the others two: on a plain d6 a 6 is a caution (1/6), or a 5 or a 6 (2/6 = 1/3)."""
    page = _page_with(pages_of(pdf("tiny")), "Dice key: which faces of a plain die are a caution")
    assert _row_texts(page, "gear 1-2 (black)")[1:] == ["one gear up or down", "1 of 6", "d6: 6", "1/6", "yes"]
    assert _row_texts(page, "gear 3-6 (black)")[1:] == ["one gear up or down", "2 of 6", "d6: 5 or 6", "1/3", "yes"]
    assert _row_texts(page, "coast (white)")[1:] == ["keeps the gear", "1 of 6", "d6: 6", "1/6", "yes"]
    assert _row_texts(page, "brake (red)")[1:] == ["skips a gear down", "2 of 6", "d6: 5 or 6", "1/3", "no"]
    assert _row_texts(page, "boost (green)")[1:] == ["skips a gear up", "2 of 6", "d6: 5 or 6", "1/3", "no"]
    words = " ".join(t.value for t in page.texts)
    assert "HOUSE WAY TO PLAY (not in the rulebook)" in words
    # six car counters to cut out, 0.72 of a 30 mm space across, told apart by number
    circles = [p for p in page.paths if len(p.points) >= 12 and p.stroked and not p.rects]
    cars_at = next(t.y for t in page.texts if t.value.startswith("Cars: cut out a counter"))
    counters = [t.value for t in page.texts if re.fullmatch(r"car \d", t.value) and t.y < cars_at]
    assert counters == [f"car {k}" for k in range(1, 7)]  # (above them: the yellow flags' heads)
    spans = sorted(round((max(x for x, _y in c.points) - min(x for x, _y in c.points)) / MM, 1) for c in circles)
    assert spans.count(21.6) == 6, spans


def test_a_die_of_the_specs_own_caution_faces_keeps_its_chance_on_a_plain_die(tmp_path):
    """A box whose gear-3 die has one caution face (a ruleset value a spec may change, RG-2):
    the key reads a gear-3 roll of 6 as its only caution, 1/6 as the spec says."""
    tiny = (SPECS / "rallyman" / "tiny.yaml").read_text(encoding="utf-8")
    path = tmp_path / "own.yaml"
    path.write_text(
        tiny.replace("name: Tiny\n", "name: Own dice\nruleset:\n  dice:\n    '3': {faces: 6, cautions: 1}\n"),
        encoding="utf-8",
    )
    spec = load_spec(path)
    page = _page_with(read_pages(build_outputs(spec, figures=Figures.given(spec, None))[0]), "Dice key")
    assert _row_texts(page, "gear 1-3 (black)")[1:] == ["one gear up or down", "1 of 6", "d6: 6", "1/6", "yes"]
    assert _row_texts(page, "gear 4-6 (black)")[1:] == ["one gear up or down", "2 of 6", "d6: 5 or 6", "1/3", "yes"]


def _tokens(page, side_mm: float) -> list[str]:
    """The words of each cut-out token (a square of `side_mm`): the texts inside it, joined."""
    squares = [
        r for p in page.paths for r in p.rects if abs(r[2] / MM - side_mm) < 0.05 and abs(r[3] / MM - side_mm) < 0.05
    ]
    out = []
    for x, y, w, h in squares:
        inside = sorted((t for t in page.texts if x < t.x < x + w and y < t.y < y + h), key=lambda t: (-t.y, t.x))
        out.append(" ".join(t.value for t in inside))
    return out


def test_the_gt_damage_bag_prints_its_42_tokens_to_cut_out():
    """RULINGS.md: 6 of each lose-a-die token (gear, brake, coast), 6 weather, 6 yellow flag,
    12 green flag: 42, drawn without replacement."""
    page = _page_with(pages_of(pdf("tiny")), "damage tokens to cut out")
    tokens = _tokens(page, 17.0)
    assert len(tokens) == 42
    for words, n in (
        ("lose a gear die", 6),
        ("lose a brake die", 6),
        ("lose a coast die", 6),
        ("weather changes", 6),
        ("yellow flag", 6),
        ("green flag: no damage", 12),
    ):
        assert tokens.count(words) == n, (words, sorted(set(tokens)))


def test_the_dirt_damage_bag_prints_48_tokens_with_their_shortcut_sides():
    """The house bag (RD-4): 12 of each of four kinds; on the shortcut side half OK, a
    quarter coast-die damage, a quarter mud: 24 OK sides."""
    page = _page_with(pages_of(pdf("dirt_lakeside")), "damage tokens to cut out")
    tokens = _tokens(page, 19.0)
    assert len(tokens) == 48
    for kind in ("gear damage", "brake damage", "coast/leader damage", "green flag: no damage"):
        mine = [t[len(kind) + 1 :] for t in tokens if t.startswith(kind + " ")]
        assert len(mine) == 12, kind
        assert mine.count("shortcut: OK!") == 6, kind
        assert sum(m.startswith("shortcut: coast") for m in mine) == 3 and sum("mud" in m for m in mine) == 3, kind


def test_time_sheets_tally_tokens_and_damage():
    gt = _page_with(pages_of(pdf("tiny")), "Rallyman GT time sheet")
    words = [t.value for t in gt.texts]
    assert words.count("focus") == 2 and words.count("tokens") >= 2  # the head of both blocks
    assert "damage kept:" in words
    for kind in ("gear die lost", "brake die lost", "coast die lost"):
        assert kind in words
    # four tick boxes for each of the three kinds, the lost-control boxes of the rows aside
    boxes = [r for p in gt.paths for r in p.rects if abs(r[2] / MM - 3.2) < 0.05 and abs(r[3] / MM - 3.2) < 0.05]
    tally_y = next(t.y for t in gt.texts if t.value == "damage kept:")
    assert sum(1 for r in boxes if abs(r[1] + r[3] / 2 - tally_y - 1.0 * MM) < 2 * MM) == 12
    dirt = _page_with(pages_of(pdf("dirt_lakeside")), "Rallyman DIRT time sheet")
    words = [t.value for t in dirt.texts]
    assert words.count("2nd") == 3  # a column in each of the three stages
    for kind in ("gear", "brake", "coast/leader", "shortcut: coast die"):
        assert kind in words


def _rows_per_stage(page) -> list[int]:
    """The rows of each stage of a DIRT rally sheet: its 'SISU' icons to ring, by column."""
    heads = sorted((t.x, t.value) for t in page.texts if t.value.startswith("stage ") and ":" in t.value)
    edges = [x for x, _v in heads] + [page.width]
    icons = [t.x for t in page.texts if t.value == "SISU"]
    return [sum(1 for x in icons if a <= x < b) for a, b in zip(edges, edges[1:])]


def test_a_dirt_rally_sheet_gives_each_stage_its_own_rows():
    """Winter Rally: Lakeside then Forest Stage. Forest Stage needs 25 turns (49 moves at two
    a turn, RP-2); Lakeside's rows are those its own track's sheet gives it (19, fewer than
    the 24 its page holds)."""
    lakeside = _page_with(pages_of(pdf("dirt_lakeside")), "Rallyman DIRT time sheet")
    own = _rows_per_stage(lakeside)
    # a track's own sheet: stage 1 has its own turns; the stages the sheet does not know take
    # every row its page holds
    assert own[0] < own[1] == own[2]
    rally = _page_with(pages_of(pdf("results/winter_rally")), "Rallyman DIRT time sheet")
    words = " ".join(t.value for t in rally.texts)
    assert "stage 1: Lakeside" in words and "stage 2: Forest Stage" in words
    assert _rows_per_stage(rally) == [own[0], 25]


OWN_CARDS = """\
ruleset:
  time_cards:
    loss_seconds: 90
    gears:
      "1": {seconds: 60, sisu: 1, spin: 1, crash: 1}
      "2": {seconds: 50, sisu: 1, spin: 1, crash: 1}
      "3": {seconds: 40, sisu: 1, spin: 1, crash: 1}
      "4": {seconds: 30, sisu: 1, spin: 1, crash: 1}
      "5": {seconds: 20, sisu: 1, spin: 1, crash: 1}
      "6": {seconds: 10, sisu: 1, spin: 1, crash: 1}
"""


def test_a_dirt_rally_sheet_prints_each_stage_tracks_own_time_cards(tmp_path):
    """A rally of Lakeside (the variant's cards) then Forest Stage with its own `ruleset:`
    time cards (60 s in first gear down to 10 s in sixth, spins and crashes 90 s), then a
    stage whose track is not named: two sheets, the first Lakeside's with the shipped cards,
    the second Forest Stage's and the unnamed stage's with Forest Stage's own values (the
    sheet prints one set of cards: a stage of other cards starts a sheet of its own)."""
    import shutil

    for name in ("dirt_lakeside.yaml", "dirt_forest_stage.yaml", "tiles.yaml"):
        shutil.copy(SPECS / "rallyman" / name, tmp_path / name)
    forest = tmp_path / "dirt_forest_stage.yaml"
    forest.write_text(forest.read_text(encoding="utf-8") + OWN_CARDS, encoding="utf-8")
    results = tmp_path / "rally.yaml"
    results.write_text(
        "game: rallyman\nkind: results\nvariant: dirt\nname: Own Cards Rally\nstages:\n"
        "  - {name: Lakeside, track: dirt_lakeside.yaml}\n  - {name: Forest, track: dirt_forest_stage.yaml}\n"
        "  - {name: Night}\ndrivers:\n  - {name: Ana, times: [130, 175, null]}\n",
        encoding="utf-8",
    )
    sheets = [p for p in pages_of(build_outputs(load_spec(results))[0]) if any(t.value == "Time cards" for t in p.texts)]
    assert len(sheets) == 2
    own = ["60 s", "50 s", "40 s", "30 s", "20 s", "10 s"]
    for page, stages in zip(sheets, (["stage 1: Lakeside"], ["stage 2: Forest", "stage 3: Night"])):
        assert sorted(t.value for t in page.texts if re.fullmatch(r"stage \d: \w+", t.value)) == stages
        seconds = [t.value for t in sorted(page.texts, key=lambda t: t.x) if re.fullmatch(r"\d+ s", t.value)]
        assert (seconds[:6] == own) == (stages[0] != "stage 1: Lakeside"), seconds
    assert "90 s" in " ".join(t.value for t in sheets[1].texts)  # its spins and crashes


def test_dirt_time_cards_become_a_roll_with_each_icons_share_of_the_deck(tmp_path):
    """The house time cards (RD-2): every gear's deck of 10 holds 2 SISU, 3 Spin, 5 Crash: a
    d10 reads 1-2 SISU, 3-5 Spin, 6-10 Crash. A spec's own gear-6 deck of 1 SISU, 1 Spin and 1
    Crash card has no common die: a numbered slip of 3."""
    page = _page_with(pages_of(pdf("dirt_lakeside")), "Time cards: a roll instead of the card's back")
    assert _row_texts(page, "gear 1-6")[1:] == ["d10", "1-2: SISU; 3-5: Spin; 6-10: Crash"]
    lakeside = (SPECS / "rallyman" / "dirt_lakeside.yaml").read_text(encoding="utf-8")
    assert "ruleset:" not in lakeside and "library: tiles.yaml" in lakeside
    path = tmp_path / "own.yaml"
    (tmp_path / "tiles.yaml").write_text(
        (SPECS / "rallyman" / "tiles.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    cards = "".join(
        f'      "{g}": {{seconds: {s}, sisu: {k}, spin: {k}, crash: {k}}}\n'
        for g, s, k in ((1, 50, 2), (2, 40, 2), (3, 30, 2), (4, 20, 2), (5, 15, 2), (6, 10, 1))
    )
    path.write_text(
        lakeside.replace(
            "\nname: ", "\nruleset:\n  time_cards:\n    loss_seconds: 60\n    gears:\n" + cards + "name: ", 1
        ),
        encoding="utf-8",
    )
    spec = load_spec(path)
    page = _page_with(pages_of(build_outputs(spec, figures=Figures.given(spec, None))[0]), "Time cards: a roll")
    assert _row_texts(page, "gear 1-5")[1:] == ["d6", "1-2: SISU; 3-4: Spin; 5-6: Crash"]
    assert _row_texts(page, "gear 6")[1:] == ["a numbered slip of 3", "1: SISU; 2: Spin; 3: Crash"]
