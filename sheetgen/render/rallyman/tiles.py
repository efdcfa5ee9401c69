"""A Rallyman tile library as cut-out tiles at true scale, for people who play on printed
tiles (`print_tiles`, the printable of a `kind: tiles` file).

Each tile is its big hexagon (`span` spaces across flats: 4 in the standard frame, 7 in the
large one, `hexgrid.FRAMES`) with every space of its own frame drawn as on the map, half
cells cut by the outline. The outline is the cut line; cut marks extend each side beyond its
corners (a gap, then a short line), all inside the page margins. Two tiles share a page when
they fit (nested, the second lower right; on Letter, shorter, the pair nests from the top
margin and the header sits in the corner they leave free), else one. A tile wider than the page (a large
tile with spaces of 30 mm is 210 mm across) prints in two halves, left and right of the line
through its top and bottom corners, each on its own page: cut both out along their outlines
(the join line too) and tape them together along it, the spaces it cuts matching.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.errors import UsageError
from sheetgen.games.rallyman import HEX_MM
from sheetgen.games.rallyman.hexgrid import TILE_SPAN, frame_of
from sheetgen.games.rallyman.model import Library, TileDef
from sheetgen.render.common import fit_size, fit_text, fitted_text
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rallyman.common import (
    DANGER_WORD,
    LABEL_PT,
    View,
    cell_centre,
    danger_of,
    draw_cell,
    draw_line,
    free_cell,
    legend_items,
    tile_label,
    tile_radius,
)
from sheetgen.template import MM, Template

HEAD_MM = 10.0
FOOT_MM = 7.0
GAP_MM = 6.0  # between two tiles of a page
MARK_GAP_MM = 1.0
MARK_LEN_MM = 3.0


HALF_HEAD_MM = 5.0  # the header of a page holding half a tile (one line)


@dataclass(frozen=True)
class TilePlan:
    per_page: int
    centres: tuple[tuple[float, float], ...]  # tile centres on the page, mm from bottom-left, y up
    #: None: whole tiles; else each tile prints in two halves, one a page, with the tile's
    #: centre at these page points for the left half and for the right half
    halves: tuple[tuple[float, float], tuple[float, float]] | None = None
    #: None: the header runs across the top of the page; else the two tiles nest from the top
    #: margin down (Letter) and the header sits in the free top-right corner, from this x (mm)
    header_x: float | None = None


def tile_corners(cx: float, cy: float, rad: float) -> list[tuple[float, float]]:
    """A pointy-top hexagon's corners, page mm (y up), clockwise from the top."""
    return [
        (cx + rad * math.cos(math.radians(90 - 60 * i)), cy + rad * math.sin(math.radians(90 - 60 * i)))
        for i in range(6)
    ]


def half_corners(cx: float, cy: float, rad: float, side: str) -> list[tuple[float, float]]:
    """The corners of a tile's left or right half (mm, y up), clockwise, the join line (top
    corner to bottom corner) the closing side, from the last corner back to the first, which
    `cut_marks` leaves unmarked: the right half from its top corner, the left from its
    bottom one (listed from the top, the left half's cut marks ran along its join line, above
    the tile into a Letter page's header, and missed its upper outer side)."""
    pts = tile_corners(cx, cy, rad)
    return pts[0:4] if side == "right" else pts[3:6] + [pts[0]]


def cut_marks(
    cx: float, cy: float, rad: float, side: str | None = None
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Each side of the tile (of its half `side`: the join line's ends are marked by the
    outer sides' marks) extended beyond both its corners: a gap, then a short line (mm)."""
    pts = tile_corners(cx, cy, rad) if side is None else half_corners(cx, cy, rad, side)
    out = []
    for i in range(len(pts) if side is None else len(pts) - 1):
        a, b = pts[i], pts[(i + 1) % len(pts)]
        length = math.dist(a, b)
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        for p, s in ((a, -1), (b, 1)):
            s0, s1 = MARK_GAP_MM * s, (MARK_GAP_MM + MARK_LEN_MM) * s
            out.append(((p[0] + ux * s0, p[1] + uy * s0), (p[0] + ux * s1, p[1] + uy * s1)))
    return out


def _extent(rad: float) -> tuple[float, float]:
    """Half width and half height of a tile with its cut marks (mm)."""
    xs, ys = [], []
    for a, b in cut_marks(0.0, 0.0, rad):
        xs += [abs(a[0]), abs(b[0])]
        ys += [abs(a[1]), abs(b[1])]
    return max(xs + [rad * math.sqrt(3) / 2]), max(ys + [rad])


def _half_extent(rad: float) -> tuple[float, float, float]:
    """The right half of a tile centred on (0, 0) with its cut marks: its leftmost x (the
    join line, marks aside), its rightmost x and its half height (mm)."""
    xs, ys = [0.0, rad * math.sqrt(3) / 2], [rad]
    for a, b in cut_marks(0.0, 0.0, rad, "right"):
        xs += [a[0], b[0]]
        ys += [abs(a[1]), abs(b[1])]
    return min(xs), max(xs), max(ys)


def _fits(hex_mm: float, width: float, height: float, frame=None) -> bool:
    hw, hh = _extent(tile_radius(hex_mm, frame))
    return 2 * hw <= width and 2 * hh <= height


def _half_fits(hex_mm: float, width: float, height: float, frame=None) -> bool:
    x0, x1, hh = _half_extent(tile_radius(hex_mm, frame))
    return x1 - x0 <= width and 2 * hh <= height


def tile_plan(template: Template, paper: str | None = None, frame=None) -> TilePlan:
    page_w, page_h = (v / MM for v in template.page_size(paper))
    m = template.margin_mm
    rad = tile_radius(template.size(HEX_MM), frame)
    hw, hh = _extent(rad)
    left, right = m, page_w - m
    bottom, top = m + FOOT_MM, page_h - m - HEAD_MM
    if right - left < 2 * hw or top - bottom < 2 * hh:
        half_top = page_h - m - HALF_HEAD_MM
        # (halves are for the large frame: a standard tile always prints whole)
        halves = frame_of(frame).span > TILE_SPAN
        if halves and _half_fits(template.size(HEX_MM), right - left, half_top - bottom, frame):
            x0, x1, _hh = _half_extent(rad)
            mid_y = (half_top + bottom) / 2
            # each half centred across the page: the right half's join line at x0 from the centre
            shift = (left + right) / 2 - (x0 + x1) / 2
            return TilePlan(1, (), ((left + right - shift, mid_y), (shift, mid_y)))
        most = template.size(HEX_MM)
        while most > 15 and not (
            _fits(most, right - left, top - bottom, frame)
            or (halves and _half_fits(most, right - left, half_top - bottom, frame))
        ):
            most -= 0.5
        raise UsageError(
            f"{template.name}: hex_mm {template.size(HEX_MM):g} makes a tile {2 * hw:.0f} x {2 * hh:.0f} mm with its "
            "cut marks, "
            f"more than the {right - left:.0f} x {top - bottom:.0f} mm the "
            f"{'A4' if (paper or template.paper) == 'a4' else 'Letter'} page has for it: "
            f"tiles print with hex_mm up to {most:g}"
        )
    first = (left + hw, top - hh)
    # the second tile nested lower right: as far right as the page allows, then low enough
    # that the sides facing each other stay GAP_MM apart
    dx = right - left - 2 * hw
    apothem = rad * math.sqrt(3) / 2
    need = 2 * apothem + GAP_MM  # along the normal of the facing sides (60 degrees down)
    if dx >= need:
        dy = 0.0
    else:
        dy = (need - dx * 0.5) / math.sin(math.radians(60))
    second = (first[0] + dx, first[1] - dy)
    if dx < need and second[1] - hh < bottom:
        corner = _corner_nest(rad, hw, hh, left, right, bottom, page_h - m, need)
        if corner is not None:
            return corner
        centre = ((left + right) / 2, (top + bottom) / 2)
        return TilePlan(1, (centre,))
    return TilePlan(2, (first, second))


def _corner_nest(
    rad: float, hw: float, hh: float, left: float, right: float, bottom: float, top: float, need: float
) -> TilePlan | None:
    """Two tiles nested as neighbours of a honeycomb, the second one below and to the right of
    the first (their facing sides `need` apart between centres, 60 degrees down), the first
    from the top margin: the header goes in the top-right corner the tiles leave free (Letter,
    17.6 mm shorter than A4, has no room for a header band above the pair). None when the pair,
    or the header's room, does not fit."""
    dx, dy = need * 0.5, need * math.sin(math.radians(60))
    if 2 * hw + dx > right - left or 2 * hh + dy > top - bottom:
        return None
    first = (left + hw, top - hh)
    second = (first[0] + dx, first[1] - dy)
    # the header's two lines reach HEAD_MM below the top margin: right of the first tile's
    # outline (with its cut marks) down to there, where the hexagon is widest
    depth = HEAD_MM - (top - (first[1] + rad))
    header_x = first[0] + max(depth, 0.0) * math.tan(math.radians(60)) + MARK_GAP_MM + MARK_LEN_MM + 2.0
    if right - header_x < 80.0:
        return None
    return TilePlan(2, (first, second), header_x=header_x)


def draw_tile(
    sheet: Sheet, tile: TileDef, cx: float, cy: float, hex_mm: float, frame=None, side: str | None = None
) -> None:
    """One tile centred on page point (cx, cy) mm (or its half `side`, "left" or "right"):
    its spaces clipped to its outline, the outline (the cut line), its cut marks and its
    label."""
    c = sheet.c
    rad = tile_radius(hex_mm, frame)
    pts = tile_corners(cx, cy, rad) if side is None else half_corners(cx, cy, rad, side)
    c.saveState()
    clip = c.beginPath()
    for i, p in enumerate(pts):
        (clip.moveTo if i == 0 else clip.lineTo)(p[0] * MM, p[1] * MM)
    clip.close()
    c.clipPath(clip, stroke=0, fill=0)
    view = View(0.0, 0.0, cx * MM, cy * MM)
    for cell in sorted(tile.cells, key=lambda c: (c.hex.r, c.hex.q)):
        draw_cell(sheet, view, cell, hex_mm)
    for line in tile.lines:
        draw_line(sheet, view, line, hex_mm)
    c.restoreState()
    path = c.beginPath()
    for i, p in enumerate(pts):
        (path.moveTo if i == 0 else path.lineTo)(p[0] * MM, p[1] * MM)
    path.close()
    sheet.stroke(width=sheet.ink.line_width)
    c.drawPath(path, stroke=1, fill=0)
    sheet.stroke(width=sheet.ink.thin_width)
    for a, b in cut_marks(cx, cy, rad, side):
        c.line(a[0] * MM, a[1] * MM, b[0] * MM, b[1] * MM)
    # the id, the name, the danger colour and which way up, in a free cell of the tile (of
    # a half: a cell wholly on its side of the join line, the label clear of it)
    view = View(0.0, 0.0, cx * MM, cy * MM)
    within = None
    words = [(tile.id, True), (tile.name, False)]
    if side is not None:
        sign = 1 if side == "right" else -1

        def within(h, sign=sign):
            return sign * cell_centre(h, hex_mm)[0] >= hex_mm

        other = "right" if side == "left" else "left"
        words.append((f"{side} half: tape its straight edge to the {other} half", False))
    spot = free_cell({c.hex for c in tile.cells}, frame=frame, within=within)
    what = DANGER_WORD[danger_of(tile.cells)] if tile.cells else "scenery, no road" if tile.scenery else ""
    danger = (what + "; " if what else "") + "this way up: rotation 0"
    offset = cell_centre(spot, hex_mm) if spot is not None else None
    tile_label(
        sheet,
        view,
        (0.0, 0.0),
        hex_mm,
        words + [(danger, False)],
        offset,
        size=LABEL_PT * hex_mm / 30,
        colour=None,
        frame=frame,
    )


def print_tiles(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a tile library: every tile at true scale, ready to cut out."""
    return render_tiles(spec.model, template, paper=paper, ink=ink, keywords=keywords)


def render_tiles(
    library: Library,
    template: Template,
    *,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
) -> tuple[bytes, int]:
    frame = library.frame
    plan = tile_plan(template, paper, frame)
    tiles = list(library.tiles)
    pages = [tiles[i : i + plan.per_page] for i in range(0, len(tiles), plan.per_page)] or [[]]
    meta = Meta(
        title=f"{library.name}: Rallyman tiles",
        subject="Rallyman tiles to cut out, at true scale",
        keywords=("rallyman", "tiles") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        if plan.halves is not None:
            draw_halves(sheet, plan.halves)
            return
        for page in pages:
            top = sheet.top
            kind = "Rallyman tiles"
            how = f"Spaces {template.size(HEX_MM):g} mm across flats. Cut along the outline, from mark to mark."
            if plan.header_x is None:
                fitted_text(
                    sheet,
                    sheet.left,
                    top - 5 * MM,
                    library.name,
                    sheet.right - sheet.left - sheet.text_width(kind, "small") - 4 * MM,
                    "heading",
                    bold=True,
                )
                sheet.text(sheet.right, top - 5 * MM, kind, "small", align="right")
                sheet.text(sheet.left, top - 9 * MM, how, "small")
            else:  # in the top-right corner the nested pair leaves free
                room = sheet.right - plan.header_x * MM
                name = fit_text(sheet, library.name, room, sheet.t.sizes["heading"], bold=True)
                sheet.text(sheet.right, top - 4 * MM, name.lines[0], size=name.size, bold=True, align="right")
                sheet.text(
                    sheet.right,
                    top - 7.5 * MM,
                    kind,
                    size=fit_size(sheet, kind, room, sheet.t.sizes["small"]),
                    align="right",
                )
                sheet.text(
                    sheet.right,
                    top - 10.5 * MM,
                    how,
                    size=fit_size(sheet, how, room, sheet.t.sizes["small"]),
                    align="right",
                )
            for tile, (x, y) in zip(page, plan.centres):
                draw_tile(sheet, tile, x, y, template.size(HEX_MM), frame)
            keys = ", ".join(
                k for k, _w in legend_items([c for t in page for c in t.cells]) if k not in ("lane", "danger")
            )
            sheet.scale_bar(
                sheet.left, sheet.bottom + 1.5 * MM, "50 mm: print at 100 %" + (f". Marks: {keys}" if keys else "")
            )
            sheet.end_page("cut-out tiles")

    def draw_halves(sheet: Sheet, halves: tuple[tuple[float, float], tuple[float, float]]) -> None:
        for tile in tiles:
            for side, (x, y) in zip(("left", "right"), halves):
                top = sheet.top
                kind = f"Spaces {template.size(HEX_MM):g} mm across flats. Rallyman tiles"
                room = sheet.right - sheet.left - sheet.text_width(kind, "small") - 4 * MM
                fitted_text(
                    sheet,
                    sheet.left,
                    top - 4 * MM,
                    library.name,
                    room,
                    "body",
                    bold=True,
                    after=f": tile {tile.id}, {side} half",
                )
                sheet.text(sheet.right, top - 4 * MM, kind, "small", align="right")
                draw_tile(sheet, tile, x, y, template.size(HEX_MM), frame, side)
                keys = ", ".join(k for k, _w in legend_items(list(tile.cells)) if k not in ("lane", "danger"))
                sheet.scale_bar(
                    sheet.left, sheet.bottom + 1.5 * MM, "50 mm: print at 100 %" + (f". Marks: {keys}" if keys else "")
                )
                sheet.end_page("cut-out tiles")

    return render_pdf(template, ink, paper, meta, draw)
