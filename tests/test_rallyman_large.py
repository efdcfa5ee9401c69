"""Rallyman's large tile frame (`frame: large`, ruling RM-16): the geometry against values
worked out by hand (docs/rallyman.md, "The large frame", has the figure), the bundled large
library's tiles meeting four lanes across a side, the checks and refusals in that frame, the
Rekee coordinates, and the large tiles printed in halves."""

from __future__ import annotations

import io
import math
import shutil

import pytest
from pypdf import PdfReader

from conftest import SPECS
from pdfops import operations
from sheetgen.games.rallyman import hexgrid as g
from sheetgen.games.rallyman.graph import (
    crossing_cells,
    tile_edge_problems,
    track_problems,
)
from sheetgen.games.rallyman.hexgrid import LARGE, STANDARD, Hex
from sheetgen.games.rallyman.model import Placement, Track, Variant
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.template import MM

RALLYMAN = SPECS / "rallyman"
#: rows a road crosses a side on, counted across the road from the side's centre line to
#: the right (docs/rallyman.md: the large library's convention)
ROWS = {2: [0, 1], 3: [-1, 0, 1], 4: [-1, 0, 1, 2]}
TOL_MM = 0.1


@pytest.fixture
def folder(tmp_path):
    shutil.copy(RALLYMAN / "tiles_large.yaml", tmp_path / "tiles_large.yaml")
    return tmp_path


def laid(folder, tiles, variant="gt", extra=""):
    body = "".join(f"  - {{id: {t}, q: {q}, r: {r}, rotation: {k}}}\n" for t, q, r, k in tiles)
    path = folder / "t.yaml"
    path.write_text(f"game: rallyman\nvariant: {variant}\nname: T\nlibrary: tiles_large.yaml\ntiles:\n{body}{extra}", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- geometry


def test_a_large_tile_is_seven_cells_across_with_two_half_cells_on_each_side():
    assert LARGE.span == 7 and STANDARD.span == g.TILE_SPAN == 4
    assert g.FRAMES == {"standard": STANDARD, "large": LARGE} and g.DEFAULT_FRAME == "standard"
    # every cell within 3 steps, and 18 at 4: the 6 whole cells twice a direction out, such
    # as (4, -2), and 12 halves
    assert len(LARGE.cells) == 55 and LARGE.reach == 4
    assert {h for h in LARGE.cells if g.distance(h) <= 3} == {Hex(q, r) for q in range(-3, 4) for r in range(-3, 4) if g.distance(Hex(q, r)) <= 3}
    assert {h for h in LARGE.cells if g.distance(h) == 4} - LARGE.halves == {g.rotate(Hex(4, -2), k) for k in range(6)}
    assert LARGE.halves == {g.rotate(h, k) for h in (Hex(4, -1), Hex(3, 1)) for k in range(6)}
    # 43 whole cells and 12 halves: 49 cells' worth, the area of a tile 7 cells across
    assert len(LARGE.whole) + len(LARGE.halves) / 2 == 49
    # the east side: rows -2 to 2 cross it, the half cells on rows -1 and 1
    assert LARGE.side_cells(0) == (Hex(4, -2), Hex(4, -1), Hex(3, 0), Hex(3, 1), Hex(2, 2))
    assert [LARGE.half_cell_side(h) for h in (Hex(4, -1), Hex(3, 1), Hex(-4, 1), Hex(3, 0))] == [0, 0, 3, None]
    # a span of 6 (a radius-3 hexagon) would put cells on the tile corners
    with pytest.raises(ValueError):
        g.Frame("radius 3", 6)


def test_a_large_tile_outline_runs_through_its_half_cells_and_no_cell_centre_is_on_a_corner():
    corners = g.tile_corners(0, 0, frame="large")
    assert corners[0] == pytest.approx((0.0, -7.0))
    assert corners[1] == pytest.approx((3.5 * math.sqrt(3), -3.5))  # the east side: x = 3.5 sqrt(3)
    assert g.centre(Hex(4, -1)) == pytest.approx((3.5 * math.sqrt(3), -1.5))  # a half cell, on it
    assert g.centre(Hex(3, 0))[0] < 3.5 * math.sqrt(3) < g.centre(Hex(4, 0))[0]  # row 0: a clean border
    assert g.centre(g.tile_centre(1, 0, "large")) == pytest.approx((7 * math.sqrt(3), 0.0))
    centres = [g.centre(Hex(q, r)) for q in range(-9, 10) for r in range(-9, 10)]
    for x, y in corners:
        assert min(math.dist((x, y), c) for c in centres) > 0.4


def test_a_large_tile_rotated_six_times_is_itself():
    for h in LARGE.cells:
        assert g.rotate(h, 6) == h
        turned = [g.place(h, 2, -1, k, "large") for k in range(6)]
        assert len(set(turned)) == (1 if h == (0, 0) else 6)
        assert all(g.unplace(t, 2, -1, k, "large") == h for k, t in enumerate(turned))
    assert sorted(g.rotate(h, 1) for h in LARGE.cells) == sorted(LARGE.cells)
    assert {g.rotate(h, 1) for h in LARGE.halves} == LARGE.halves


def test_large_tiles_cover_the_grid_once_and_share_only_the_half_cells():
    for q in range(-15, 16):
        for r in range(-15, 16):
            owners = g.tile_of(Hex(q, r), "large")
            assert 1 <= len(owners) <= 2
            for tq, tr in owners:
                frame = Hex(q, r) - g.tile_centre(tq, tr, "large")
                assert LARGE.contains(frame)
                assert (len(owners) == 2) == (frame in LARGE.halves)


def test_neighbours_across_a_large_tile_edge():
    # tile (0, 0)'s east side: the half cell (4, -1) is on both tiles, the next tile's frame
    # calls it (-3, -1); (3, 0) is wholly on (0, 0) and its east neighbour (4, 0) wholly on
    # tile (1, 0), centred on cell (7, 0), whose frame calls it (-3, 0)
    assert g.tile_of(Hex(4, -1), "large") == ((0, 0), (1, 0))
    assert g.unplace(Hex(4, -1), 1, 0, 0, "large") == Hex(-3, -1)
    assert g.tile_of(Hex(3, 0), "large") == ((0, 0),) and g.tile_of(Hex(4, 0), "large") == ((1, 0),)
    assert g.unplace(Hex(4, 0), 1, 0, 0, "large") == Hex(-3, 0)
    # tile (0, 1) is centred on (0, 7), south-east; turned twice, tile (1, 0)'s frame half
    # cell (4, -1) goes to (7, 0) + rotate((4, -1), 2) = (7, 0) + (-3, 4) = (4, 4)
    assert g.place(Hex(4, -1), 1, 0, 2, "large") == Hex(4, 4)
    assert g.tile_of(Hex(4, 4), "large") == ((0, 1), (1, 0))
    assert g.tile_neighbour(0, 0, 1) == (0, 1)


# --------------------------------------------------------------------------- the large library


def _sides(tile) -> dict[int, list[int]]:
    """Per side the tile carries lanes across: their rows, counted to the right of the side's
    centre line in the direction of travel (from the west side heading east)."""
    track = Track("t", Variant.GT, tile.cells, placements=(Placement(tile.id, 0, 0, 0, tile.cells, frame="large"),))
    out = {}
    for d in range(6):
        cells = crossing_cells(track, 0, g.tile_neighbour(0, 0, d))
        if cells:
            out[d] = sorted(g.rotate(h, -(0 if d == 3 else d)).r for h in cells)
    return out


def test_every_large_tile_enters_by_the_west_side_and_leaves_on_the_rows_of_its_lanes():
    # RM-16: every road crosses a side on the same rows for its lane count, so tiles meet
    library = load_spec(RALLYMAN / "tiles_large.yaml").model
    assert library.frame == "large" and len(library.tiles) == 22
    leaves = {"c60r": 1, "c60l": 5, "c120r": 2, "c120l": 4, "hairpin-r": 2}
    counts = set()
    for tile in library.tiles:
        side = next((d for word, d in leaves.items() if word in tile.id), 0)
        lanes_in = lanes_out = int(tile.id[-1]) if tile.id[-1].isdigit() else 2
        if tile.id.startswith(("sg-l-w", "sg-l-n")):
            lanes_in, lanes_out = int(tile.id[-2]), int(tile.id[-1])
        expected = {3: ROWS[lanes_in], side: ROWS[lanes_out]}
        if "start" in tile.id:
            del expected[3]
        if "finish" in tile.id:
            del expected[side]
        assert _sides(tile) == expected, tile.id
        counts |= {lanes_in, lanes_out}
        assert all(c.limit is None for c in tile.cells if c.hex in LARGE.halves), tile.id  # RM-2: no limit on a half cell
    assert counts == {2, 3, 4}
    straights = {t.id: t.lanes for t in library.tiles if t.id in ("sg-l-s2", "sg-l-s3", "sg-l-s4")}
    assert straights == {"sg-l-s2": 2, "sg-l-s3": 3, "sg-l-s4": 4}


def test_every_large_tile_alone_is_playable_from_its_entry_side_to_its_exit_side():
    from dataclasses import replace

    library = load_spec(RALLYMAN / "tiles_large.yaml").model
    for tile in library.tiles:
        track = Track("t", Variant.GT, tile.cells, placements=(Placement(tile.id, 0, 0, 0, tile.cells, frame="large"),))
        sides = {d: crossing_cells(track, 0, g.tile_neighbour(0, 0, d)) for d in range(6)}
        entry = sides[3] if "start" not in tile.id else {c.hex for c in tile.cells if c.start}
        leave = [cells for d, cells in sides.items() if d != 3 and cells]
        leave = leave[0] if leave else {c.hex for c in tile.cells if c.finish}
        cells = tuple(replace(c, start=c.hex in entry, finish=c.hex in leave) for c in tile.cells)
        alone = Track("t", Variant.GT, cells, placements=(Placement(tile.id, 0, 0, 0, cells, frame="large"),))
        assert [p.message for p in track_problems(None, alone)] == [], tile.id


CORNERS = {
    "sg-l-c60r2": ("right", 60, ((1, 4), (2, 3))),
    "sg-l-c60l2": ("left", 60, ((1, 3), (2, 4))),
    "sg-l-c60r3": ("right", 60, ((1, 5), (2, 4), (3, 4))),
    "sg-l-c60l3": ("left", 60, ((1, 4), (2, 4), (3, 5))),
    "sg-l-c60r4": ("right", 60, ((1, 5), (2, 5), (3, 4), (4, 4))),
    "sg-l-c60l4": ("left", 60, ((1, 4), (2, 4), (3, 5), (4, 5))),
    "sg-l-c120r2": ("right", 120, ((1, 3), (2, 2))),
    "sg-l-c120l2": ("left", 120, ((1, 2), (2, 3))),
    "sg-l-c120r3": ("right", 120, ((1, 3), (2, 3), (3, 2))),
    "sg-l-c120l3": ("left", 120, ((1, 2), (2, 3), (3, 3))),
    "sg-l-c120l4": ("left", 120, ((1, 2), (2, 3), (3, 3), (4, 4))),
    "sg-l-hairpin-r": ("right", 120, ((1, 2), (2, 1))),
}


def test_every_large_corner_between_two_straights_reads_as_one_corner_of_its_turn():
    # the roadbook's reading (RM-10): one corner, its turn, its degrees, its limits by lane
    from dataclasses import replace

    library = load_spec(RALLYMAN / "tiles_large.yaml").model
    assert sorted(CORNERS) == sorted(t.id for t in library.tiles if "c60" in t.id or "c120" in t.id or "hairpin" in t.id)
    for tile_id, expected in CORNERS.items():
        tile = library.get(tile_id)
        side = {"right": 1, "left": 5}[expected[0]] if expected[1] == 60 else {"right": 2, "left": 4}[expected[0]]
        straight = library.get(f"sg-l-s{tile.lanes}")
        step = g.DIRECTIONS[side]
        seq = [(straight, -1, 0, 0), (tile, 0, 0, 0), (straight, step.q, step.r, side)]
        placements, cells = [], {}
        for i, (t, q, r, k) in enumerate(seq):
            mine = tuple(replace(c, hex=g.place(c.hex, q, r, k, "large"), heading=(c.heading + k) % 6, tile=i) for c in t.cells)
            placements.append(Placement(t.id, q, r, k, mine, frame="large"))
            for c in mine:
                cells.setdefault(c.hex, c)
        entry = crossing_cells(Track("t", Variant.GT, tuple(cells.values()), placements=tuple(placements)), 0, (-2, 0))
        leave = crossing_cells(Track("t", Variant.GT, tuple(cells.values()), placements=tuple(placements)), 2, (step.q * 2, step.r * 2))
        marked = tuple(replace(c, start=c.hex in entry, finish=c.hex in leave) for c in cells.values())
        track = Track("t", Variant.GT, marked, placements=tuple(placements))
        assert [(c.turn, c.degrees, c.limits) for c in track.corners()] == [expected], tile_id
        assert track_problems(None, track) == [], tile_id


def test_one_large_tile_turns_a_two_lane_road_120_degrees_right(folder):
    # RM-11: the standard frame cannot (the west and south-west sides share a cell); the
    # large one can, the inside lane (2) on its own row of the south-west side
    track = load_spec(laid(folder, [("sg-l-s2", -1, 0, 0), ("sg-l-c120r2", 0, 0, 0), ("sg-l-finish2", -1, 1, 2)], extra="cells:\n  - {q: -10, r: 0, heading: 0, lane: 1, start: true, replace: true}\n  - {q: -11, r: 1, heading: 0, lane: 2, start: true, replace: true}\n")).model
    (corner,) = track.corners()
    assert (corner.turn, corner.degrees, corner.limits) == ("right", 120, ((1, 3), (2, 2)))
    # four lanes cannot: the west side's row 2 (heading east) and the south-west side's row 2
    # (heading south-west) are one cell, at the corner of the two sides
    assert set(LARGE.side_cells(3)) & set(LARGE.side_cells(2)) == {Hex(-4, 2)}
    assert g.rotate(Hex(-4, 2), 0).r == 2 == g.rotate(Hex(-4, 2), -2).r
    assert track_problems(None, track) == []
    boulevard = load_spec(RALLYMAN / "gt_wide_boulevard.yaml").model
    turns = [(c.turn, c.degrees) for c in boulevard.corners()]
    assert ("right", 120) in turns and ("left", 120) in turns
    assert {p.tile for p in boulevard.placements} >= {"sg-l-s4", "sg-l-c60r4", "sg-l-n43", "sg-l-n32", "sg-l-c120r2", "sg-l-w34"}
    assert {c.lane for c in boulevard.cells} == {1, 2, 3, 4}


def test_four_lanes_meet_across_a_large_tile_edge_and_a_lane_count_that_differs_is_refused(folder):
    track = load_spec(laid(folder, [("sg-l-start4", 0, 0, 0), ("sg-l-s4", 1, 0, 0), ("sg-l-finish4", 2, 0, 0)])).model
    # the shared east side of (0, 0): its half cells (4, -1), (3, 1) and the whole (3, 0),
    # (2, 2) whose cells ahead lie wholly on (1, 0)
    assert crossing_cells(track, 0, (1, 0)) == {Hex(4, -1), Hex(3, 0), Hex(3, 1), Hex(2, 2)}
    assert len(crossing_cells(track, 1, (0, 0))) == 4
    assert tile_edge_problems(None, track) == [] and track_problems(None, track) == []
    assert track.placements[1].centre_hex == Hex(7, 0) and track.placements[1].frame == "large"
    mixed = load_spec(laid(folder, [("sg-l-start4", 0, 0, 0), ("sg-l-s3", 1, 0, 0)])).model
    assert [p.message for p in tile_edge_problems(None, mixed)] == [
        "tiles do not meet: tile 'sg-l-start4' at (0, 0) has 4 lanes across its east side, tile 'sg-l-s3' at (1, 0) has 3 across it"
    ]


def _errors(run, path):
    result = run("validate", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    return result.stderr.splitlines()


def test_overlapping_large_tiles_are_refused_at_their_place(run, folder):
    path = laid(folder, [("sg-l-start4", 0, 0, 0), ("sg-l-finish4", 0, 0, 0)])
    assert _errors(run, path) == [f"{path}:7:5: error: two tiles at (0, 0): tile 1 is there already"]
    # (3, 0) is a whole cell of tile (0, 0): an explicit cell there needs 'replace: true'
    path = laid(folder, [("sg-l-s4", 0, 0, 0)], extra="cells:\n  - {q: 3, r: 0, heading: 0}\n")
    assert _errors(run, path) == [f"{path}:8:5: error: cell (3, 0) is laid by tile 'sg-l-s4' at (0, 0) already; say 'replace: true' to replace it"]
    # the half cells (3, 1) and (4, -1) of the east side: laid heading east by one tile, west
    # by the other (turned three times, its rows -2 to 1 are the grid's 2 to -1)
    path = laid(folder, [("sg-l-s4", 0, 0, 0), ("sg-l-s4", 1, 0, 3)])
    assert _errors(run, path) == [
        f"{path}:7:5: error: tile 'sg-l-s4' at (1, 0) and tile 'sg-l-s4' at (0, 0) disagree on their shared half cell {h} (heading 0 and 3)" for h in ("(3, 1)", "(4, -1)")
    ]


def test_a_bad_frame_and_a_cell_off_a_large_tile_are_refused_at_their_place(run, tmp_path):
    head = "game: rallyman\nkind: tiles\nframe: {frame}\nname: mine\ntiles:\n  - id: 117a\n    cells:\n      - {{q: 0, r: 0, heading: 0}}\n"
    bad = tmp_path / "bad.yaml"
    bad.write_text(head.format(frame="huge"), encoding="utf-8")
    assert _errors(run, bad) == [f"{bad}:3:8: error: 'frame' must be one of standard, large; got 'huge'"]
    off = tmp_path / "off.yaml"
    off.write_text(head.format(frame="large") + "      - {q: 4, r: -1, heading: 0}\n      - {q: 5, r: -1, heading: 0}\n", encoding="utf-8")
    assert _errors(run, off) == [
        f"{off}:10:9: error: cell (5, -1) is off the tile: a large tile's cells are the 55 within its outline or cut by it, every cell within 3 steps of its centre (0, 0) and 18 of those at 4"
    ]
    # without 'frame', a library is of the standard frame
    plain = tmp_path / "plain.yaml"
    plain.write_text(head.format(frame="large").replace("frame: large\n", ""), encoding="utf-8")
    assert load_spec(plain).model.frame == "standard"


def test_rekee_coordinates_of_a_large_track_are_its_tile_coordinates(run, tmp_path):
    # RM-15/RM-16: the frame belongs to the library; a Rekee file holds tile q, r and dir
    # (the large tiles stand for made-up Rekee ids: sheetgen's own have none)
    import json

    from rekee_ids import stand_in

    ids = stand_in(RALLYMAN / "tiles_large.yaml", tmp_path / "tiles_large.yaml")
    shutil.copy(RALLYMAN / "gt_wide_boulevard.yaml", tmp_path)
    out = tmp_path / "boulevard.json"
    assert run("export", "rekee", str(tmp_path / "gt_wide_boulevard.yaml"), "-o", str(out)).exit_code == 0
    tiles = json.loads(out.read_text())["tiles"]
    assert [(t["id"], t["q"], t["r"], t["dir"]) for t in tiles[:4]] == [
        (ids["sg-l-start4"], 0, 0, 0), (ids["sg-l-s4"], 1, 0, 0), (ids["sg-l-c60r4"], 2, 0, 0), (ids["sg-l-n43"], 2, 1, 1)
    ]


# --------------------------------------------------------------------------- printing


ONE_TILE = "game: rallyman\nkind: tiles\nframe: large\nname: one large tile\ntiles:\n  - id: big-s4\n    name: straight, 4 lanes\n    cells:\n" + "".join(
    f"      - {{q: {h.q}, r: {h.r}, heading: 0, lane: {h.r + 2}}}\n" for h in LARGE.cells if -1 <= h.r <= 2
)


def _quads(page, pdf) -> list[list[tuple[float, float]]]:
    """The four-cornered closed paths of a page (page mm): the outlines of half tiles."""
    out, sub = [], []
    for operands, op in operations(page.get_contents(), pdf):
        op = op.decode() if isinstance(op, bytes) else op
        if op == "m":
            sub = [("m", tuple(float(v) / MM for v in operands))]
        elif op == "l":
            sub.append(("l", tuple(float(v) / MM for v in operands)))
        elif op == "h":
            if [k for k, _p in sub] == ["m", "l", "l", "l"]:
                out.append([p for _k, p in sub])
            sub = []
    return out


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_large_tile_prints_in_two_halves_at_true_scale_inside_the_margins(tmp_path, paper):
    path = tmp_path / "one.yaml"
    path.write_text(ONE_TILE, encoding="utf-8")
    data = build_outputs(load_spec(path), paper=paper)[0]
    pdf = PdfReader(io.BytesIO(data))
    assert len(pdf.pages) == 2  # 210 mm across at 30 mm a space: wider than the page
    texts = [p.extract_text() for p in pdf.pages]
    assert "left half" in texts[0] and "right half" in texts[1] and all("big-s4" in t for t in texts)
    page_w, page_h = (float(v) / MM for v in pdf.pages[0].mediabox[2:])
    rad = 7 * 30.0 / math.sqrt(3)
    for page in pdf.pages:
        outlines = [q for q in _quads(page, pdf) if max(abs(a[1] - b[1]) for a in q for b in q) > 200]
        assert len(outlines) == 2  # the clip and the cut line
        quad = outlines[-1]
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        assert max(ys) - min(ys) == pytest.approx(2 * rad, abs=TOL_MM)  # the join line, corner to corner
        assert max(xs) - min(xs) == pytest.approx(105.0, abs=TOL_MM)  # half of 7 spaces of 30 mm
        assert min(xs) >= 10 and max(xs) <= page_w - 10 and min(ys) >= 10 and max(ys) <= page_h - 10


def test_a_large_track_map_draws_large_tile_outlines(folder):
    spec = load_spec(laid(folder, [("sg-l-start4", 0, 0, 0), ("sg-l-finish4", 1, 0, 0)]))
    data = build_outputs(spec)[0]
    pdf = PdfReader(io.BytesIO(data))
    from test_render_rallyman import shapes

    rad = 7 * 30.0 / math.sqrt(3)
    big = [r for page in pdf.pages[1:] for _c, r in shapes(page, pdf)["hexes"] if r > 40]
    assert big and all(abs(r - rad) <= TOL_MM for r in big)


def test_a_left_halfs_cut_marks_are_the_right_halfs_mirrored():
    """Each half of a large tile marks its three outer sides beyond their corners and leaves
    the join line unmarked (it is taped, not cut): the left half's marks ran along its join
    line instead, up past the tile into a Letter page's header, and its upper outer side had
    none."""
    from sheetgen.render.rallyman.tiles import cut_marks

    def marks(side, flip):
        return sorted(tuple(sorted((round(flip * x, 6), round(y, 6)) for x, y in mark)) for mark in cut_marks(0.0, 0.0, 100.0, side))

    assert marks("left", -1) == marks("right", 1)
    assert len(marks("right", 1)) == 6
    # no mark lies on the join line (x = 0)
    assert all(abs(x) > 1e-6 or abs(y) < 100 for mark in marks("left", 1) for x, y in mark)
