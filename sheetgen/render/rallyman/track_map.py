"""The map of a Rallyman track at true scale, tiled across pages, and its assembly page.

The track's plane (millimetres, spaces the template's `hex_mm` (`HEX_MM`) across flats) is cut into windows
of the room a page has inside its margins, header and footer; neighbouring windows share an
overlap band of `OVERLAP_MM`. Every page is named on a page grid (columns A, B, ...; rows 1,
2, ...: "B2"), names its neighbours at its edges, and carries alignment marks (a circle and a
cross, `MARK_RADIUS_MM`) on the middle line of each band it shares: both pages draw them at
the same place of the plane. Pages whose window holds no space are not printed (the assembly
page says so).

To assemble: cut each page along its dashed line(s) on the left and at the top (the middle of
the band it shares with the page to its left or above), lay it over that page so that the half
marks and the half spaces meet, and tape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.games.rallyman import HEX_MM, cards
from sheetgen.games.rallyman.hexgrid import frame_of, tile_corners
from sheetgen.games.rallyman.model import Placement, Track, Variant
from sheetgen.render.common import CAP, TITLE_LEAST, fit_size, fitted_text, wrap
from sheetgen.render.pdf import Sheet
from sheetgen.render.rallyman.common import (
    DANGER_FILL,
    DANGER_RINGS,
    DANGER_WORD,
    GREY,
    LABEL_PT,
    MARK_RADIUS_MM,
    View,
    _badge,
    cell_centre,
    corner_sides,
    danger_of,
    draw_cell,
    draw_line,
    draw_token_marker,
    free_cell,
    hexagon,
    label,
    legend_items,
    radius,
    tile_label,
    tile_outline,
    tile_radius,
    token_point,
)
from sheetgen.template import MM, Template

OVERLAP_MM = 16.0  # the band two neighbouring pages share
HEAD_MM = 11.0  # page label, track name, the neighbour above
FOOT_MM = 9.0  # scale bar, the neighbour below
SIDE_MM = 5.0  # the neighbours left and right (rotated text)
MARK_FRACTIONS = (
    0.2,
    0.45,
    0.8,
)  # where along a band its alignment marks sit (unevenly: no shift but the right one lays three on three)
LEGEND_ROW_MM = 4.8
#: the largest page grid whose blank pages the overview outlines (one of thousands would be
#: a grey smear costing a minute to draw)
BLANKS_DRAWN = 400


@dataclass(frozen=True)
class MapPage:
    col: int
    row: int
    x0: float  # the window's top-left corner in the plane (mm)
    y0: float
    printed: bool  # its window holds a space

    @property
    def label(self) -> str:
        return page_label(self.col, self.row)


@dataclass(frozen=True)
class MapPlan:
    """How a track's plane is cut into pages: `cols` x `rows` windows `width` x `height` mm,
    `step` apart (the window less the overlap), the first at (`x0`, `y0`) in the plane. Only
    the pages that print (their window holds a space) are kept, in `taken`: a track laid
    far apart has a grid of thousands of blank pages, which cost nothing."""

    hex_mm: float
    cols: int
    rows: int
    width: float
    height: float
    overlap: float
    left: float  # the window's top-left corner on the page (mm from the page's bottom-left)
    top: float
    x0: float  # the first window's corner in the plane (mm)
    y0: float
    taken: frozenset  # (col, row) of the printed pages
    page_size: tuple[float, float] = (0.0, 0.0)  # points: the paper, turned when landscape
    landscape: bool = False
    off_centre: float = 0.0  # how far the grid sits from centred on the track (shares of its spare room)
    thin: int = 0  # printed pages whose share of the track is under `THIN_SHARE` of their window
    shift: tuple[float, float] = (0.5, 0.5)  # where the grid sits (`SHIFTS`): shares of its spare room

    @property
    def pages(self) -> tuple[MapPage, ...]:
        """Every page of the grid, row by row (for a small grid: `blank_pages_drawn`)."""
        return tuple(self._page(col, row) for row in range(self.rows) for col in range(self.cols))

    def _page(self, col: int, row: int) -> MapPage:
        x0, y0 = self.x0 + col * (self.width - self.overlap), self.y0 + row * (self.height - self.overlap)
        return MapPage(col, row, round(x0, 6), round(y0, 6), (col, row) in self.taken)

    @property
    def step_x(self) -> float:
        return self.width - self.overlap

    @property
    def step_y(self) -> float:
        return self.height - self.overlap

    def first(self) -> MapPage:
        """The grid's first page (its top-left, printed or not): where the plane starts."""
        return self._page(0, 0)

    def page(self, col: int, row: int) -> MapPage | None:
        if 0 <= col < self.cols and 0 <= row < self.rows:
            return self._page(col, row)
        return None

    def printed(self) -> tuple[MapPage, ...]:
        return tuple(self._page(col, row) for row, col in sorted((r, c) for c, r in self.taken))

    def neighbour(self, page: MapPage, dc: int, dr: int) -> MapPage | None:
        n = self.page(page.col + dc, page.row + dr)
        return n if n is not None and n.printed else None

    def marks(self, page: MapPage) -> list[tuple[float, float, str]]:
        """The alignment marks on a page, in the plane: (x, y, the neighbour's label) on the
        middle line of every band it shares with a printed neighbour."""
        out = []
        for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            n = self.neighbour(page, dc, dr)
            if n is None:
                continue
            if dc:
                x = (n.x0 if dc > 0 else page.x0) + self.overlap / 2
                out += [(x, page.y0 + f * self.height, n.label) for f in MARK_FRACTIONS]
            else:
                y = (n.y0 if dr > 0 else page.y0) + self.overlap / 2
                out += [(page.x0 + f * self.width, y, n.label) for f in MARK_FRACTIONS]
        return out


def page_label(col: int, row: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + 1}"


def track_box(track: Track, hex_mm: float) -> tuple[float, float, float, float]:
    """The plane box (mm) holding every space of the track (whole hexagons) and every scenery
    tile (its outline)."""
    rad = radius(hex_mm)
    xs, ys = [], []
    for c in track.cells:
        x, y = cell_centre(c, hex_mm)
        xs += [x - hex_mm / 2, x + hex_mm / 2]
        ys += [y - rad, y + rad]
    for x, y in _scenery_corners(track, hex_mm):
        xs.append(x)
        ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys))


def _scenery_corners(track: Track, hex_mm: float) -> list[tuple[float, float]]:
    """The outline corners (plane mm) of the track's scenery tiles (no spaces)."""
    return [
        corner
        for p in track.placements
        if p.scenery
        for corner in tile_corners(p.q, p.r, radius(hex_mm), p.frame)
    ]


def map_plan(track: Track, template: Template, paper: str | None = None) -> MapPlan:
    """The page grid of a track's true-scale map on `paper` (the template's by default): the
    paper upright or turned, and the grid slid over the track, whichever prints fewest pages;
    then fewest thin pages (a page that prints only a strip of track beside its cut line, a
    sheet of paper for a few spaces); then upright; then nearest to centred.

    The grid's place is looked for in two steps: `SHIFTS` across and down for both ways of
    the paper, then, from the best of those, each direction alone in the finer `FINE_SHIFTS`
    (the other held), twice: a few dozen plans, not the hundreds of every pair of fine
    shifts."""
    upright = template.page_size(paper)
    shapes = _track_shapes(track, template.size(HEX_MM))
    box = track_box(track, template.size(HEX_MM))
    sizes = {False: upright, True: (upright[1], upright[0])}
    made: dict[tuple[bool, float, float], MapPlan] = {}

    def plan(landscape: bool, sx: float, sy: float) -> MapPlan:
        key = (landscape, sx, sy)
        if key not in made:
            made[key] = _plan(track, template, sizes[landscape], landscape, sx, sy, shapes, box)
        return made[key]

    def order(p: MapPlan) -> tuple:
        return (len(p.taken), p.thin, p.landscape, p.off_centre)

    best = min((plan(landscape, sx, sy) for landscape in (False, True) for sx in SHIFTS for sy in SHIFTS), key=order)
    landscape, (sx, sy) = best.landscape, best.shift
    for _round in range(2):
        sx = min((plan(landscape, x, sy) for x in FINE_SHIFTS), key=order).shift[0]
        sy = min((plan(landscape, sx, y) for y in FINE_SHIFTS), key=order).shift[1]
    return min(made.values(), key=order)


#: where the page grid may sit on the track, as a share of the room it has to spare
SHIFTS = (0.5, 0.25, 0.75, 0.0, 1.0)
#: the finer places tried in one direction at a time, from the best of `SHIFTS`
FINE_SHIFTS = tuple(k / 10 for k in range(11))
#: a printed page whose track (what it shows between its cut lines) covers less than this
#: share of its window is thin: among grids of as many pages, the one with fewest is chosen
THIN_SHARE = 0.05


def _plan(
    track: Track,
    template: Template,
    page_size: tuple[float, float],
    landscape: bool,
    sx: float = 0.5,
    sy: float = 0.5,
    shapes: list[Shape] | None = None,
    box: tuple[float, float, float, float] | None = None,
) -> MapPlan:
    hex_mm = template.size(HEX_MM)
    page_w, page_h = (v / MM for v in page_size)
    m = template.margin_mm
    left, right = m + SIDE_MM, page_w - m - SIDE_MM
    bottom, top = m + FOOT_MM, page_h - m - HEAD_MM
    width, height = right - left, top - bottom
    overlap = OVERLAP_MM
    x0, y0, x1, y1 = track_box(track, hex_mm) if box is None else box
    pad = 2.0  # room round the track
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad

    def count(extent: float, window: float) -> int:
        return 1 if extent <= window else 1 + math.ceil((extent - window) / (window - overlap) - 1e-9)

    cols, rows = count(x1 - x0, width), count(y1 - y0, height)
    total_w = width + (cols - 1) * (width - overlap)
    total_h = height + (rows - 1) * (height - overlap)
    ox = x0 - (total_w - (x1 - x0)) * sx
    oy = y0 - (total_h - (y1 - y0)) * sy
    step_x, step_y = width - overlap, height - overlap
    shapes = _track_shapes(track, hex_mm) if shapes is None else shapes
    taken, shares = _pages_needed(shapes, ox, oy, step_x, step_y, width, height, overlap, cols, rows)
    off_centre = abs(sx - 0.5) + abs(sy - 0.5)
    grid = (hex_mm, cols, rows, width, height, overlap, left, top, ox, oy)
    thin = sum(1 for page in taken if shares.get(page, 0.0) < THIN_SHARE * width * height)
    return MapPlan(*grid, frozenset(taken), page_size, landscape, off_centre, thin, (sx, sy))


#: how far (mm) a shape must reach into the part of a page no neighbour covers for the page to
#: print: less is a sliver of a line width
REACH_MM = 0.3


#: a convex polygon as the page planner tests it: its bounds (x0, y0, x1, y1) and, per side
#: direction, the unit normal and the polygon's extent along it (nx, ny, least, most)
Shape = tuple[tuple[float, float, float, float], tuple[tuple[float, float, float, float], ...]]


def _shape(points: list[tuple[float, float]]) -> Shape:
    xs, ys = [x for x, _y in points], [y for _x, y in points]
    axes: list[tuple[float, float, float, float]] = []
    for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
        n = math.hypot(bx - ax, by - ay)
        if n < 1e-9:
            continue
        nx, ny = (ay - by) / n, (bx - ax) / n
        if abs(nx) < 1e-9 or abs(ny) < 1e-9 or any(abs(nx * mx + ny * my) > 1 - 1e-9 for mx, my, _l, _h in axes):
            continue  # the box's own axes, or a direction already kept
        along = [nx * x + ny * y for x, y in points]
        axes.append((nx, ny, min(along), max(along)))
    return (min(xs), min(ys), max(xs), max(ys)), tuple(axes)


def _track_shapes(track: Track, hex_mm: float) -> list[Shape]:
    """What a map page prints, as convex polygons in the plane (mm): every space's hexagon and
    every scenery tile's outline."""
    rad = radius(hex_mm)
    corners = [(rad * math.cos(math.radians(30 + 60 * k)), rad * math.sin(math.radians(30 + 60 * k))) for k in range(6)]
    shapes = []
    for c in track.cells:
        x, y = cell_centre(c, hex_mm)
        shapes.append(_shape([(x + dx, y + dy) for dx, dy in corners]))
    for p in track.placements:
        if p.scenery:
            shapes.append(_shape(list(tile_corners(p.q, p.r, rad, p.frame))))
    return shapes


def _overlaps(shape: Shape, box: tuple[float, float, float, float]) -> bool:
    """Whether a convex polygon and a box overlap by more than REACH_MM across (no separating
    axis among the box's and the polygon's side normals, with that margin)."""
    (sx0, sy0, sx1, sy1), axes = shape
    x0, y0, x1, y1 = box
    if min(sx1, x1) - max(sx0, x0) <= REACH_MM or min(sy1, y1) - max(sy0, y0) <= REACH_MM:
        return False
    for nx, ny, lo, hi in axes:
        b = (nx * x0 + ny * y0, nx * x1 + ny * y0, nx * x1 + ny * y1, nx * x0 + ny * y1)
        if min(hi, max(b)) - max(lo, min(b)) <= REACH_MM:
            return False
    return True


def _pages_needed(
    shapes: list[Shape],
    ox: float,
    oy: float,
    step_x: float,
    step_y: float,
    width: float,
    height: float,
    overlap: float,
    cols: int,
    rows: int,
) -> tuple[set[tuple[int, int]], dict[tuple[int, int], float]]:
    """The pages of a grid that print, and each page's share of the track (the area, mm², of
    the bounds of what it shows between its cut lines: a measure, not the exact area).
    Assembled, the pages show the plane cut along the middle of every shared band (the dashed
    lines): a page shows its window less the halves of the bands it shares with printed
    neighbours. So a page prints when a shape reaches into its share of the plane, the cell
    between the cut lines round it; and then, a page whose share of the track lies inside one
    printed neighbour's window is left out (that neighbour, no longer cut on that side, shows
    it), unless leaving it out would split the printed pages (pages register through the marks
    on the bands they share) or another page was left out for it to show."""
    import numpy as np

    half = overlap / 2

    def cell(col: int, row: int) -> tuple[float, float, float, float]:
        x0 = ox + col * step_x + (half if col else 0.0)
        y0 = oy + row * step_y + (half if row else 0.0)
        x1 = ox + (col + 1) * step_x + half if col < cols - 1 else ox + col * step_x + width
        y1 = oy + (row + 1) * step_y + half if row < rows - 1 else oy + row * step_y + height
        return (x0, y0, x1, y1)

    def window(col: int, row: int) -> tuple[float, float, float, float]:
        return (ox + col * step_x, oy + row * step_y, ox + col * step_x + width, oy + row * step_y + height)

    # what each page must show, summed up: the bounds of its pieces (x0, y0, x1, y1) and
    # their areas (a piece: a shape's bounds within the page's cell)
    spans: dict[tuple[int, int], list[float]] = {}

    def add(page: tuple[int, int], x0: float, y0: float, x1: float, y1: float) -> None:
        span = spans.get(page)
        area = (x1 - x0) * (y1 - y0)
        if span is None:
            spans[page] = [x0, y0, x1, y1, area]
        else:
            span[0], span[1] = min(span[0], x0), min(span[1], y0)
            span[2], span[3] = max(span[2], x1), max(span[3], y1)
            span[4] += area

    bounds = np.array([shape[0] for shape in shapes], dtype=float).reshape(-1, 4)
    c0, c1 = (np.clip(np.floor((bounds[:, k] - ox - half) / step_x), 0, cols - 1).astype(int) for k in (0, 2))
    r0, r1 = (np.clip(np.floor((bounds[:, k] - oy - half) / step_y), 0, rows - 1).astype(int) for k in (1, 3))
    single = (c0 == c1) & (r0 == r1)
    if single.any():  # wholly in one page's share (the usual case): summed up page by page
        at = c0[single] * rows + r0[single]
        found, where = np.unique(at, return_inverse=True)
        inside = bounds[single]
        low = np.full((len(found), 2), np.inf)
        high = np.full((len(found), 2), -np.inf)
        area = np.zeros(len(found))
        np.minimum.at(low, where, inside[:, :2])
        np.maximum.at(high, where, inside[:, 2:])
        np.add.at(area, where, (inside[:, 2] - inside[:, 0]) * (inside[:, 3] - inside[:, 1]))
        for i, at_page in enumerate(found.tolist()):
            spans[(at_page // rows, at_page % rows)] = [*low[i].tolist(), *high[i].tolist(), float(area[i])]
    for k in np.flatnonzero(~single):
        shape = shapes[k]
        sx0, sy0, sx1, sy1 = shape[0]
        for col in range(int(c0[k]), int(c1[k]) + 1):
            for row in range(int(r0[k]), int(r1[k]) + 1):
                box = cell(col, row)
                if _overlaps(shape, box):
                    # the shape's bounds within the cell: what a neighbour must hold to show it
                    add((col, row), max(sx0, box[0]), max(sy0, box[1]), min(sx1, box[2]), min(sy1, box[3]))
    taken = set(spans)
    absorbers: set[tuple[int, int]] = set()
    groups = _groups(taken)
    for page in sorted(spans, key=lambda p: (spans[p][4], p[1], p[0])):
        if page in absorbers:
            continue
        col, row = page
        x0, y0, x1, y1, _area = spans[page]
        for n in ((col - 1, row), (col + 1, row), (col, row - 1), (col, row + 1)):
            if n not in taken:
                continue
            wx0, wy0, wx1, wy1 = window(*n)
            held = wx0 + REACH_MM <= x0 and x1 <= wx1 - REACH_MM and wy0 + REACH_MM <= y0 and y1 <= wy1 - REACH_MM
            if held and _groups(taken - {page}) <= groups:
                taken.discard(page)
                absorbers.add(n)
                break
    return taken, {page: spans[page][4] for page in taken}


def _groups(pages: set[tuple[int, int]]) -> int:
    """How many groups the pages form through shared sides (their marks join them)."""
    seen: set[tuple[int, int]] = set()
    count = 0
    for start in sorted(pages):
        if start in seen:
            continue
        count += 1
        seen.add(start)
        todo = [start]
        while todo:
            col, row = todo.pop()
            for n in ((col - 1, row), (col + 1, row), (col, row - 1), (col, row + 1)):
                if n in pages and n not in seen:
                    seen.add(n)
                    todo.append(n)
    return count


def _view(plan: MapPlan, page: MapPage) -> View:
    return View(page.x0, page.y0, plan.left * MM, plan.top * MM)


def draw_track_cells(
    sheet: Sheet, view: View, track: Track, hex_mm: float, window: tuple[float, float, float, float] | None = None
) -> None:
    """Every space (in the window, if one is given), the tile outlines and ids, the inside
    lines."""
    rad = radius(hex_mm)
    sides = corner_sides(track) if track.variant is Variant.DIRT else {}

    def inside(x: float, y: float, reach: float) -> bool:
        if window is None:
            return True
        wx0, wy0, wx1, wy1 = window
        return wx0 - reach < x < wx1 + reach and wy0 - reach < y < wy1 + reach

    for cell in sorted(track.cells, key=lambda c: (c.hex.r, c.hex.q)):
        if inside(*cell_centre(cell, hex_mm), rad):
            draw_cell(sheet, view, cell, hex_mm, corner_side=sides.get(cell.hex))
    taken = {c.hex for c in track.cells}
    for placement in track.placements:
        centre = cell_centre(placement.centre_hex, hex_mm)
        if inside(*centre, frame_of(placement.frame).span * rad):
            tile_outline(sheet, view, centre, hex_mm, frame=placement.frame)
            words = [(f"tile {placement.tile}", True)]
            if placement.scenery:
                words += [("scenery: no road", False), (f"turned {placement.rotation}", False)]
            else:
                turned = f"turned {placement.rotation}" + (", driven reversed" if placement.reverse else "")
                words += [(turned, False), (DANGER_WORD[danger_of(placement.cells)], False)]
                if placement.lane_names:
                    words.append(("lane form: schematic", False))
            spot = free_cell(taken, placement.place, frame=placement.frame)
            offset = None
            if spot is not None:
                gx, gy = cell_centre(placement.place(spot), hex_mm)
                offset = (gx - centre[0], gy - centre[1])
            size = LABEL_PT * hex_mm / 30.0
            tile_label(sheet, view, centre, hex_mm, words, offset, size=size, colour=None, frame=placement.frame)
    steps = track.steps()
    for placement in track.placements:
        if placement.lane_names and inside(
            *cell_centre(placement.centre_hex, hex_mm), frame_of(placement.frame).span * rad
        ):
            draw_lanes(sheet, view, placement, steps, hex_mm)
    for line in track.lines:
        if inside(*cell_centre(line.a, hex_mm), rad):
            draw_line(sheet, view, line, hex_mm)
    for placement in track.placements:
        for token in placement.tokens:
            if token.effect is None and inside(*token_point(placement, token, hex_mm), rad):
                draw_token_marker(sheet, view, placement, token, hex_mm)


def draw_lanes(sheet: Sheet, view: View, placement: Placement, steps: dict, hex_mm: float) -> None:
    """A tile written in the lane form (ruling RM-24), schematically: each lane a row of its
    spaces joined by a thin dashed line through their centres in driving order, its name on
    the line between its first two spaces; a lane that runs into another goes on to the space
    it runs into. The
    spaces are the hex cells the lanes are laid on (drawn as any tile's); the line says which
    spaces the tile's printed lane holds."""
    far = len(steps) + 1
    k = hex_mm / 30.0
    for number, name in enumerate(placement.lane_names, 1):
        lane = sorted((c for c in placement.cells if c.lane == number), key=lambda c: (steps.get(c.hex, far), c.hex))
        if not lane:
            continue
        # a lane that runs into another (a merge) is laid straight on into it: the line goes on
        on = lane[-1].hex.neighbour(lane[-1].heading)
        into = [c for c in placement.cells if c.hex == on]
        points = [view.at(*cell_centre(c, hex_mm)) for c in lane + into]
        sheet.stroke(colour=GREY, width=sheet.ink.thin_width, dash=(2, 1.5))
        path = sheet.c.beginPath()
        path.moveTo(*points[0])
        for point in points[1:]:
            path.lineTo(*point)
        sheet.c.drawPath(path, stroke=1, fill=0)
        sheet.stroke()
        # the name on the line between its first two spaces (on their shared edge, where no mark
        # of a space is printed), on a white ground; a lane of one space: below its centre
        ends = [cell_centre(c, hex_mm) for c in (lane + into)[:2]]
        x, y = (ends[0][0], ends[0][1] + 0.3 * hex_mm) if len(ends) < 2 else (
            (ends[0][0] + ends[1][0]) / 2,
            (ends[0][1] + ends[1][1]) / 2,
        )
        size = max(4.2 * k, 3.0)
        px, py = view.at(x, y)
        width = sheet.text_width(name, size=size) + 1.0
        sheet.fill("#ffffff")
        sheet.c.rect(px - width / 2, py - 0.45 * size, width, 0.9 * size, stroke=0, fill=1)
        label(sheet, view, x, y, name, size, colour=GREY)


def _mark(sheet: Sheet, view: View, x: float, y: float) -> None:
    """An alignment mark: a circle of MARK_RADIUS_MM and a cross through its centre."""
    px, py = view.at(x, y)
    r = view.mm(MARK_RADIUS_MM)
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.circle(px, py, r, stroke=1, fill=0)
    arm = r * 1.6
    sheet.c.line(px - arm, py, px + arm, py)
    sheet.c.line(px, py - arm, px, py + arm)


def draw_map_page(
    sheet: Sheet, track: Track, plan: MapPlan, page: MapPage, number: int, pages: int, pdf_page: int | None = None
) -> None:
    """Map page `page`, the `number`-th of `pages`; `pdf_page`: its page number in the PDF
    (the header gives it, so that the map's numbers match the PDF's)."""
    view = _view(plan, page)
    hex_mm = plan.hex_mm
    c = sheet.c
    wl, wt = plan.left * MM, plan.top * MM
    ww, wh = plan.width * MM, plan.height * MM
    c.saveState()
    clip = c.beginPath()
    clip.rect(wl, wt - wh, ww, wh)
    c.clipPath(clip, stroke=0, fill=0)
    draw_track_cells(sheet, view, track, hex_mm, (page.x0, page.y0, page.x0 + plan.width, page.y0 + plan.height))
    for x, y, _n in plan.marks(page):
        _mark(sheet, view, x, y)
    # cut lines: the middle of the bands shared with the page to the left and above
    sheet.stroke(width=sheet.ink.line_width, dash=(4, 3))
    left_n, top_n = plan.neighbour(page, -1, 0), plan.neighbour(page, 0, -1)
    if left_n:
        x = view.at(page.x0 + plan.overlap / 2, 0)[0]
        c.line(x, wt - wh, x, wt)
    if top_n:
        y = view.at(0, page.y0 + plan.overlap / 2)[1]
        c.line(wl, y, wl + ww, y)
    c.restoreState()
    sheet.stroke(width=sheet.ink.thin_width)
    c.rect(wl, wt - wh, ww, wh, stroke=1, fill=0)
    # header: the page label, the track, the neighbour above
    top = sheet.top
    sheet.text(sheet.left, top - 6 * MM, page.label, "title", bold=True)
    lw = sheet.text_width(page.label, "title", bold=True) + 3 * MM
    place = f"page {pdf_page} of the PDF, " if pdf_page is not None else ""
    end = f": map page {page.label} at true scale ({place}map {number} of {pages}, grid {plan.cols} x {plan.rows})"
    fitted_text(
        sheet,
        sheet.left + lw,
        top - 3.2 * MM,
        track.name,
        sheet.right - sheet.left - lw - 30 * MM,
        bold=True,
        after=end,
    )
    sheet.text(
        sheet.left + lw,
        top - 7 * MM,
        f"spaces {hex_mm:g} mm across flats; "
        + (
            "the whole map on one page"
            if pages == 1
            else "cut along the dashed lines, lay on the page named there, match the marks"
        ),
        "small",
    )
    above = plan.neighbour(page, 0, -1)
    if above:
        sheet.text(sheet.right, top - 6 * MM, f"\u2191 above: {above.label}", "heading", bold=True, align="right")
    below = plan.neighbour(page, 0, 1)
    bottom = sheet.bottom
    sheet.scale_bar(sheet.left, bottom + 2.5 * MM, "50 mm: print at 100 % (no fit to page)")
    if below:
        sheet.text(sheet.right, bottom + 2.5 * MM, f"\u2193 below: {below.label}", "heading", bold=True, align="right")
    # left and right neighbours: rotated along the side strips
    for dc, x, angle in ((-1, sheet.left + 3.6 * MM, 90), (1, sheet.right - 3.6 * MM, -90)):
        n = plan.neighbour(page, dc, 0)
        if n is None:
            continue
        c.saveState()
        c.translate(x, wt - wh / 2)
        c.rotate(angle)
        arrow = "\u2190 left" if dc < 0 else "\u2192 right"
        sheet.text(0, 0, f"{arrow}: {n.label}", "heading", bold=True, align="center")
        c.restoreState()


def figures_lines(sheet: Sheet, figures: dict | None, width: float) -> list[str]:
    """The par time and safe route as the assembly page prints them (wrapped to `width`):
    the figures are the game's (`Game.figures`); nothing when there are none."""
    if figures is None:
        return []
    words = f"Par {figures['par_seconds']:.1f} s ({figures['par_words']})."
    if figures["safe_seconds"] is not None:
        turns = figures["safe_turns"]
        words += (
            f" Safe route: {figures['safe_seconds']} s in {turns} turn{'s' if turns != 1 else ''}, with no chance of "
            "losing control"
            f" (focus tokens counted up to {figures['safe_focus']})."
        )
    return wrap(sheet, words, width, sheet.t.sizes["body"])


def draw_assembly_page(
    sheet: Sheet, track: Track, plan: MapPlan, template: Template, figures: dict | None = None
) -> None:
    """The whole track, small, with the page grid over it, then how to assemble and read it;
    under the title, the par time and safe route when `figures` gives them."""
    c = sheet.c
    top = sheet.top
    fitted_text(
        sheet, sheet.left, top - 6 * MM, track.name, sheet.right - sheet.left, "title", bold=True, least=TITLE_LEAST
    )
    variant = "Rallyman GT" if track.variant is Variant.GT else "Rallyman DIRT"
    printed = plan.printed()
    sheet.text(
        sheet.left,
        top - 11 * MM,
        f"{variant} track, {len(track.cells)} spaces (hexagons), {cards.distance(track)} moves from start to finish. "
        f"Assembly: {len(printed)} map page{'s' if len(printed) != 1 else ''} on a grid of {plan.cols} x {plan.rows}",
        "body",
    )
    par_lines = figures_lines(sheet, figures, sheet.right - sheet.left)
    for i, line in enumerate(par_lines):
        sheet.text(sheet.left, top - (15 + 4 * i) * MM, line, "body")
    head = 15 + 4 * len(par_lines)
    steps = [
        "Print the map pages at 100 % (no fit to page): the 50 mm bar on each page must measure 50 mm.",
        f"Lay the pages out as the grid above shows. Neighbouring pages share a {plan.overlap:g} mm band; each page "
        "names its neighbours at its edges.",
        "Cut each page along its dashed line(s) on the left and at the top, lay it over the page named there, match "
        "the half circles and the half spaces, and tape.",
        "Tile outlines are dashed grey; the tile id, its turn and danger colour are printed in a free space of the "
        "tile.",
    ]
    body = sheet.t.sizes["body"]
    lines = [
        (k, line)
        for i, step in enumerate(steps, 1)
        for k, line in enumerate(wrap(sheet, f"{i}. {step}", sheet.right - sheet.left - 3 * MM, body))
    ]
    markers = any(t.effect is None for p in track.placements for t in p.tokens)
    lanes = any(p.lane_names for p in track.placements)
    items = legend_items(track.cells, markers, lanes)
    block = 6 + 5 + 4 * len(lines) + 2 + 5 + LEGEND_ROW_MM * len(items) + 9
    # the overview
    area_w = (sheet.right - sheet.left) / MM
    area_top = top / MM - head
    area_h = area_top - (sheet.bottom / MM + block)
    total_w = plan.width + (plan.cols - 1) * plan.step_x
    total_h = plan.height + (plan.rows - 1) * plan.step_y
    scale = min(area_w / total_w, area_h / total_h)
    first = plan.first()
    ox = sheet.left / MM + (area_w - total_w * scale) / 2
    view = View(first.x0, first.y0, ox * MM, area_top * MM, scale)
    hex_mm = plan.hex_mm
    rad = radius(hex_mm)
    marks = []  # the S and F letters' boxes, which no page label may cover
    for cell in sorted(track.cells, key=lambda c: (c.hex.r, c.hex.q)):
        x, y = cell_centre(cell, hex_mm)
        hexagon(sheet, view, x, y, rad, fill=DANGER_FILL[cell.danger], width=sheet.ink.thin_width)
        if DANGER_RINGS[cell.danger] and scale * rad > 1.2:
            hexagon(sheet, view, x, y, rad * 0.7, width=sheet.ink.thin_width)
        if (cell.start or cell.finish) and view.mm(rad) > 3:
            px, py = view.at(x, y)
            letter = "S" if cell.start else "F"
            sheet.text(px, py - CAP * view.mm(rad) * 0.45, letter, bold=True, size=view.mm(rad) * 0.9, align="center")
            half = view.mm(rad) * 0.6
            marks.append((px - half, py - half, px + half, py + half))
    # tile outlines reach past the spaces: kept inside the overview's area, off the text
    c.saveState()
    clip = c.beginPath()
    clip.rect(sheet.left, area_top * MM - area_h * MM, area_w * MM, area_h * MM)
    c.clipPath(clip, stroke=0, fill=0)
    for placement in track.placements:
        centre = cell_centre(placement.centre_hex, hex_mm)
        tile_outline(sheet, view, centre, hex_mm, frame=placement.frame)
        if placement.scenery:  # (a tile with no spaces: its id says what lies there)
            px, py = view.at(*centre)
            size = fit_size(sheet, placement.tile, view.mm(tile_radius(hex_mm, placement.frame)), 7.0, least=3.0)
            sheet.fill(GREY)
            sheet.text(px, py - size * 0.35, placement.tile, size=size, align="center")
            sheet.fill(sheet.ink.line)
    c.restoreState()
    w, h = view.mm(plan.width), view.mm(plan.height)
    size = min(18.0, h * 0.3, w * 0.3)
    # each printed page's label: its place, off the S and F letters and the other labels
    labels: dict[str, tuple[float, float, float, float]] = {}
    for page in plan.printed():
        x0, y0 = view.at(page.x0, page.y0)
        labels[page.label] = _label_corner(
            sheet, page.label, size, (x0, y0 - h, x0 + w, y0), marks, list(labels.values())
        )
    # the blank pages of a grid too large to show them are left out (a track laid far apart)
    for page in plan.pages if plan.cols * plan.rows <= BLANKS_DRAWN else plan.printed():
        x0, y0 = view.at(page.x0, page.y0)
        if page.printed:
            sheet.stroke(width=sheet.ink.line_width)
        else:
            sheet.stroke(colour=GREY, width=sheet.ink.thin_width, dash=(2, 2))
        c.rect(x0, y0 - h, w, h, stroke=1, fill=0)
        sheet.stroke()
        if page.printed:
            lx, ly, _x1, _y1 = labels[page.label]
            sheet.text(lx, ly + size * 0.05, page.label, bold=True, size=size)
        else:
            small = min(size * 0.5, 7.0)
            sheet.text(x0 + 1.5 * MM, y0 - 1.5 * MM - small * 0.75, page.label, size=small)
            note = "blank: not printed"
            if sheet.text_width(note, size=small * 0.8) < w - 3 * MM:
                sheet.text(x0 + 1.5 * MM, y0 - 1.5 * MM - small * 1.9, note, size=small * 0.8)
    y = (area_top - total_h * scale - 5) * MM
    sheet.text(
        sheet.left,
        y,
        f"Overview, not to scale (the map pages draw spaces {hex_mm:g} mm across flats). S: starting spaces, F: the "
        "spaces beyond the finish line.",
        "small",
    )
    y -= 6 * MM
    sheet.text(sheet.left, y, "Assembly", "heading", bold=True)
    y -= 5 * MM
    for k, line in lines:
        sheet.text(sheet.left + (3 * MM if k else 0), y, line, "body")
        y -= 4 * MM
    y -= 2 * MM
    draw_legend(sheet, track.cells, sheet.left, y, markers, lanes=lanes)
    sheet.scale_bar(sheet.left, sheet.bottom + 1 * MM)


def draw_legend(
    sheet: Sheet, cells, x: float, y: float, markers: bool = False, title: str = "Key", lanes: bool = False
) -> float:
    """The key to the marks the cells carry (and with `markers`, to a token's marker; with
    `lanes`, to a lane-form tile's lanes), from (x, y) down; returns the y below it."""
    sheet.text(x, y, title, "heading", bold=True)
    y -= 5 * MM
    symbol = {
        "limit": ("circle", "3"),
        "caution": ("triangle", "3"),
        "shortcut": ("diamond", "2"),
        "jump": ("square", "4"),
    }
    view = View(0, 0, 0, 0)
    for key, words in legend_items(cells, markers, lanes):
        fitted = fit_size(sheet, words, sheet.right - x - 16 * MM, sheet.t.sizes["body"])
        if key in symbol:
            shape, value = symbol[key]
            _badge(sheet, view, (x + 3 * MM) / MM, -(y + 1 * MM) / MM, shape, value, 4.2)
        elif key == "token":
            px, py = x + 3 * MM, y + 1 * MM
            sheet.stroke(width=sheet.ink.line_width, dash=(1.5, 1.5))
            sheet.c.circle(px, py, 2.0 * MM, stroke=1, fill=0)
            sheet.stroke()
            sheet.text(px, py - 1.1 * MM, "T", bold=True, size=5.0, align="center")
        elif key == "lanes":
            sheet.stroke(colour=GREY, width=sheet.ink.thin_width, dash=(2, 1.5))
            sheet.c.line(x, y + 1 * MM, x + 6 * MM, y + 1 * MM)
            sheet.stroke()
        elif key == "danger":
            for i, ring in enumerate((0, 1, 2)):
                cx, cy = (x + (2 + 4.4 * i) * MM) / MM, -(y + 1 * MM) / MM
                fills = list(DANGER_FILL.values())
                hexagon(sheet, view, cx, cy, 2.2, fill=fills[i], width=sheet.ink.thin_width)
                for k in range(ring):
                    hexagon(sheet, view, cx, cy, 2.2 * (0.75 - 0.2 * k), width=sheet.ink.thin_width)
        lx = x + (15 * MM if key == "danger" else 8 * MM)
        sheet.text(lx, y, words, size=fitted)
        y -= LEGEND_ROW_MM * MM
    return y


def _turn_page(sheet: Sheet, size: tuple[float, float]) -> None:
    """The next page upright or turned (landscape map pages): the canvas and the frame."""
    sheet.c.setPageSize(size)
    sheet.width, sheet.height = size


def _label_corner(
    sheet: Sheet, label: str, size: float, rect: tuple[float, float, float, float], marks: list, placed: list
) -> tuple[float, float, float, float]:
    """The box of a printed page's label in its rectangle of the overview (its text's
    baseline at the box's bottom plus a twentieth of its size): at the top left, or the first
    place further right along the top, then along the bottom from the left, where it covers no
    S or F letter (`marks`) and no label placed before it (`placed`); the top left when every
    place would."""
    x0, y0, x1, y1 = rect
    width = sheet.text_width(label, bold=True, size=size)
    pad = 1.5 * MM
    steps = max(int((x1 - x0 - 2 * pad - width) // (width / 2)), 0)
    along = [x0 + pad + k * width / 2 for k in range(steps + 1)]
    corners = [(lx, y1 - pad - size * 0.8) for lx in along] + [(lx, y0 + pad) for lx in along]
    boxes = [(lx, ly, lx + width, ly + size * 0.8) for lx, ly in corners]
    for box in boxes:
        if not any(box[0] < m[2] and m[0] < box[2] and box[1] < m[3] and m[1] < box[3] for m in (*marks, *placed)):
            return box
    return boxes[0]
