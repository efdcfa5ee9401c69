"""What every Rallyman printable draws: a space (hex cell) with its marks, an inside line, a
tile's outline and label, the legend, and the view that puts the track's millimetres on a
page.

The track's own plane is in millimetres, x right and y DOWN (as `hexgrid` lays cells out);
`View` maps it to page points (y up). A cell is drawn as an absolute path of its six corners
(no transformation), so that a test can read the hex centres back from the PDF.

Nothing is told by colour alone: the danger colour of a tile is a light fill AND inner rings
(none for yellow, one for orange, two for red) and is written on the tile label; a corner
limit is a number in a circle, a caution limit a number in a triangle, a shortcut's a number
in a diamond, a jump's gear a number in a square.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.games.rallyman.hexgrid import SQRT3, centre, frame_of
from sheetgen.games.rallyman.model import Cell, Danger, InsideLine, Placement, Surface, Token
from sheetgen.games.rallyman.tokens import centre_in_frame
from sheetgen.render.common import CAP, fit_size
from sheetgen.render.pdf import Sheet
from sheetgen.template import MM

#: light tints of the danger colours (normal ink only; the rings and labels carry them too)
DANGER_FILL = {Danger.YELLOW: "#fbf1bf", Danger.ORANGE: "#f8d6ae", Danger.RED: "#f3b8b0"}
#: inner rings drawn in a cell of each danger colour (the pattern that does not need colour)
DANGER_RINGS = {Danger.YELLOW: 0, Danger.ORANGE: 1, Danger.RED: 2}
DANGER_WORD = {Danger.YELLOW: "yellow (low)", Danger.ORANGE: "orange (medium)", Danger.RED: "red (high)"}
GREY = "#8a8a8a"
#: the least size (points) of a tile's label on a map or a cut-out tile: the size of the
#: template's small print, readable at arm's length (4.2 pt in grey was not, issue 30)
LABEL_PT = 6.0
#: radius of the alignment marks of a tiled map (no other circle of a map has it)
MARK_RADIUS_MM = 3.0


@dataclass(frozen=True)
class View:
    """The track's plane (mm, y down) on a page: plane point (x0, y0) at page point (px, py)
    (points, y up), `scale` page millimetres per plane millimetre."""

    x0: float
    y0: float
    px: float
    py: float
    scale: float = 1.0

    def at(self, x: float, y: float) -> tuple[float, float]:
        return self.px + (x - self.x0) * self.scale * MM, self.py - (y - self.y0) * self.scale * MM

    def mm(self, length: float) -> float:
        """A plane length in page points."""
        return length * self.scale * MM


def radius(hex_mm: float) -> float:
    """A cell's circumradius (centre to corner) for a space `hex_mm` across flats."""
    return hex_mm / SQRT3


def cell_centre(cell_or_hex, hex_mm: float) -> tuple[float, float]:
    h = cell_or_hex.hex if isinstance(cell_or_hex, Cell) else cell_or_hex
    return centre(h, radius(hex_mm))


def hexagon(
    sheet: Sheet,
    view: View,
    cx: float,
    cy: float,
    rad: float,
    *,
    fill: str | None = None,
    width: float | None = None,
    colour: str | None = None,
    dash=None,
) -> None:
    """A pointy-top hexagon of circumradius `rad` (plane mm) centred on plane point (cx, cy),
    as an absolute path of six corners."""
    path = sheet.c.beginPath()
    for i in range(6):
        a = math.radians(-90 + 60 * i)
        x, y = view.at(cx + rad * math.cos(a), cy + rad * math.sin(a))
        (path.moveTo if i == 0 else path.lineTo)(x, y)
    path.close()
    filled = fill is not None and sheet.ink.fill
    if filled and fill is not None:
        sheet.fill(fill)
    sheet.stroke(colour=colour, width=width, dash=dash)
    sheet.c.drawPath(path, stroke=1, fill=1 if filled else 0)
    sheet.stroke()


def _direction(heading: int) -> tuple[float, float]:
    a = math.radians(60 * heading)
    return math.cos(a), math.sin(a)


def _edge(cx: float, cy: float, rad: float, direction: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two corners of the side of a cell facing `direction` (plane mm)."""
    # the side facing direction d lies between corners at angles 60d-30 and 60d+30 degrees
    out = []
    for a in (60 * direction - 30, 60 * direction + 30):
        r = math.radians(a)
        out.append((cx + rad * math.cos(r), cy + rad * math.sin(r)))
    return out[0], out[1]


def label(
    sheet: Sheet, view: View, x: float, y: float, value: str, size: float, bold: bool = False, colour: str | None = None
) -> None:
    """Text centred on plane point (x, y) by the height of its capitals."""
    px, py = view.at(x, y)
    sheet.font(size=size, bold=bold)
    if colour:
        sheet.fill(colour)
    sheet.c.drawCentredString(px, py - CAP * size / 2, value)


def _badge(
    sheet: Sheet, view: View, x: float, y: float, shape: str, value: str, size_mm: float, bold: bool = True
) -> None:
    """A number in a shape (circle, triangle, diamond, square) of about `size_mm` across,
    filled white in either ink (white costs no ink), so that the lines under it (a space's
    outline, danger rings) never run through its number."""
    c = sheet.c
    px, py = view.at(x, y)
    s = view.mm(size_mm) / 2
    sheet.fill("#ffffff")
    sheet.stroke(width=sheet.ink.corner_width if shape in ("circle", "triangle") else sheet.ink.line_width)
    fill = 1
    if shape == "circle":
        c.circle(px, py, s, stroke=1, fill=fill)
        ty = py
    elif shape == "square":
        c.rect(px - s * 0.9, py - s * 0.9, 1.8 * s, 1.8 * s, stroke=1, fill=fill)
        ty = py
    else:
        path = c.beginPath()
        if shape == "triangle":
            t = s * 1.25
            pts = [(px, py + t), (px + t * 0.95, py - t * 0.62), (px - t * 0.95, py - t * 0.62)]
            ty = py - t * 0.15
        else:  # diamond
            pts = [(px, py + s * 1.1), (px + s * 1.1, py), (px, py - s * 1.1), (px - s * 1.1, py)]
            ty = py
        for k, p in enumerate(pts):
            (path.moveTo if k == 0 else path.lineTo)(*p)
        path.close()
        c.drawPath(path, stroke=1, fill=fill)
    size = s * (1.05 if len(value) == 1 else 0.8)
    if shape == "triangle":
        size *= 0.85
    sheet.font(size=size, bold=bold)
    c.drawCentredString(px, ty - CAP * size / 2, value)
    sheet.stroke()


def draw_cell(sheet: Sheet, view: View, cell: Cell, hex_mm: float, *, corner_side: str | None = None) -> None:
    """One space with everything a player needs on it. `corner_side` ("in" or "out") names
    a DIRT corner space's side of the corner."""
    rad = radius(hex_mm)
    cx, cy = cell_centre(cell, hex_mm)
    k = hex_mm / 30.0  # marks scale with the space
    ink = sheet.ink
    shortcut = cell.shortcut is not None
    hexagon(
        sheet, view, cx, cy, rad, fill=DANGER_FILL[cell.danger], width=ink.line_width, dash=(3, 2) if shortcut else None
    )
    for ring in range(DANGER_RINGS[cell.danger]):
        hexagon(sheet, view, cx, cy, rad * (0.9 - 0.07 * ring), width=ink.thin_width)
    c = sheet.c
    fx, fy = _direction(cell.heading)
    small = 5.0 * k
    badged = cell.limit is not None or shortcut or cell.jump is not None
    if not badged:
        # the direction of travel: a chevron at the centre
        wing = 2.6 * k
        tip = (cx + fx * wing * 0.6, cy + fy * wing * 0.6)
        nx, ny = -fy, fx
        sheet.stroke(colour=GREY, width=ink.line_width)
        path = c.beginPath()
        path.moveTo(*view.at(tip[0] - fx * wing + nx * wing, tip[1] - fy * wing + ny * wing))
        path.lineTo(*view.at(*tip))
        path.lineTo(*view.at(tip[0] - fx * wing - nx * wing, tip[1] - fy * wing - ny * wing))
        c.drawPath(path, stroke=1, fill=0)
        sheet.stroke()
    # lane number on the left, the surface mark on the right (upright, fixed places)
    side = 0.36 * hex_mm
    if cell.lane:
        label(sheet, view, cx - side, cy, f"L{cell.lane}", small, colour=GREY)
    if cell.surface is not Surface.ASPHALT:
        _surface(sheet, view, cell.surface, cx + side, cy, k)
    # start and finish lines across the rear side (the line the car crosses to enter)
    rear = (cell.heading + 3) % 6
    if cell.start or cell.finish:
        a, b = _edge(cx, cy, rad, rear)
        if cell.finish:
            _checker(sheet, view, a, b, fx, fy, k)
        else:
            sheet.stroke(width=ink.corner_width * 1.6)
            c.line(*view.at(*a), *view.at(*b))
            sheet.stroke()
    words = []
    if cell.start:
        words.append("START")
    if cell.finish:
        words.append("FINISH")
    if cell.pit:
        words.append("PIT")
    if cell.slide:
        words.append("slide")
    if cell.water:
        words.append("water")
    if words:
        # below the centre, or above it when the start or finish line runs along the bottom
        up = (cell.start or cell.finish) and rear in (1, 2) and not badged
        label(sheet, view, cx, cy + (-0.56 if up else 0.56) * rad, " ".join(words), small, bold=True)
    # DIRT slide zone: a dotted split along the heading
    if cell.slide:
        sheet.stroke(width=ink.line_width, dash=(0.6, 2.2))
        c.setLineCap(1)
        c.line(
            *view.at(cx - fx * rad * 0.85, cy - fy * rad * 0.85), *view.at(cx + fx * rad * 0.85, cy + fy * rad * 0.85)
        )
        c.setLineCap(0)
        sheet.stroke()
    if cell.water:
        for off in (0.24, 0.4):
            _wave(sheet, view, (cx - 0.5 * rad, cy + off * rad), (cx + 0.5 * rad, cy + off * rad), k)
    if cell.pit:
        # the pit-lane edge: a heavy line along the right-hand side of the cell
        a, b = _edge(cx, cy, rad * 0.92, (cell.heading + 1) % 6)
        sheet.stroke(width=ink.corner_width, dash=(4, 2))
        c.line(*view.at(*a), *view.at(*b))
        sheet.stroke()
    # the number in the middle: corner limit, shortcut limit, jump gear
    badge = 10.5 * k
    if cell.limit is not None:
        _badge(sheet, view, cx, cy - 0.05 * rad, "triangle" if cell.caution else "circle", str(cell.limit), badge)
        if corner_side:
            label(sheet, view, cx, cy - 0.55 * rad, corner_side, small, bold=True)
    elif shortcut:
        _badge(sheet, view, cx, cy - 0.05 * rad, "diamond", str(cell.shortcut), badge * 0.9)
        label(sheet, view, cx, cy - 0.55 * rad, "shortcut", small, bold=True)
    if cell.jump is not None:
        if cell.limit is None and not shortcut:
            _badge(sheet, view, cx, cy - 0.05 * rad, "square", str(cell.jump), badge * 0.85)
            label(sheet, view, cx, cy - 0.55 * rad, "JUMP", small, bold=True)
        else:
            label(sheet, view, cx, cy + 0.36 * rad, f"JUMP {cell.jump}", small, bold=True)


def _checker(sheet: Sheet, view: View, a, b, fx: float, fy: float, k: float) -> None:
    """A finish line: two rows of squares along the segment a-b, alternately filled."""
    c = sheet.c
    n = 6
    depth = 1.4 * k
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.fill(sheet.ink.line)
    for row in range(2):
        for i in range(n):
            t0, t1 = i / n, (i + 1) / n
            p = [(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t) for t in (t0, t1)]
            o0, o1 = row * depth, (row + 1) * depth
            quad = [
                (p[0][0] + fx * o0, p[0][1] + fy * o0),
                (p[1][0] + fx * o0, p[1][1] + fy * o0),
                (p[1][0] + fx * o1, p[1][1] + fy * o1),
                (p[0][0] + fx * o1, p[0][1] + fy * o1),
            ]
            path = c.beginPath()
            for j, q in enumerate(quad):
                (path.moveTo if j == 0 else path.lineTo)(*view.at(*q))
            path.close()
            c.drawPath(path, stroke=1, fill=1 if (i + row) % 2 == 0 else 0)
    sheet.stroke()


def _wave(sheet: Sheet, view: View, a, b, k: float) -> None:
    length = math.dist(a, b)
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    steps = 24
    path = sheet.c.beginPath()
    for i in range(steps + 1):
        s = length * i / steps
        w = 0.6 * k * math.sin(2 * math.pi * s / (3.0 * k))
        (path.moveTo if i == 0 else path.lineTo)(*view.at(a[0] + ux * s - uy * w, a[1] + uy * s + ux * w))
    sheet.stroke(width=sheet.ink.line_width)
    sheet.c.drawPath(path, stroke=1, fill=0)


def _surface(sheet: Sheet, view: View, surface: Surface, x: float, y: float, k: float) -> None:
    """A small mark of the surface: three stones for gravel, a flake for snow."""
    c = sheet.c
    sheet.stroke(width=sheet.ink.thin_width)
    if surface is Surface.GRAVEL:
        for dx, dy in ((-1.1, 0.5), (0.9, 0.7), (0.0, -0.8)):
            px, py = view.at(x + dx * k, y + dy * k)
            c.circle(px, py, view.mm(0.45 * k), stroke=1, fill=0)
    else:
        arm = 1.4 * k
        for i in range(3):
            a = math.pi / 2 + i * math.pi / 3
            c.line(
                *view.at(x - arm * math.cos(a), y - arm * math.sin(a)),
                *view.at(x + arm * math.cos(a), y + arm * math.sin(a)),
            )
    sheet.stroke()


def draw_line(sheet: Sheet, view: View, line: InsideLine, hex_mm: float) -> None:
    """An inside line: a heavy dotted line from one cell towards the other across their
    shared side, with its limit in a small circle or a caution triangle at the side."""
    ax, ay = cell_centre(line.a, hex_mm)
    bx, by = cell_centre(line.b, hex_mm)
    k = hex_mm / 30.0
    mx, my = (ax + bx) / 2, (ay + by) / 2
    sheet.stroke(width=sheet.ink.corner_width, dash=(0.8, 2.0))
    sheet.c.setLineCap(1)
    t = 0.3
    sheet.c.line(*view.at(ax + (bx - ax) * t, ay + (by - ay) * t), *view.at(bx + (ax - bx) * t, by + (ay - by) * t))
    sheet.c.setLineCap(0)
    sheet.stroke()
    if line.limit is not None:
        _badge(sheet, view, mx, my, "triangle" if line.caution else "circle", str(line.limit), 6.0 * k)
    elif line.caution:
        _badge(sheet, view, mx, my, "triangle", "!", 6.0 * k)


def tile_outline(
    sheet: Sheet,
    view: View,
    tile_centre: tuple[float, float],
    hex_mm: float,
    *,
    width: float | None = None,
    colour: str | None = GREY,
    dash=(2, 2),
    frame=None,
) -> None:
    """A tile's outline: the big pointy-top hexagon `span` spaces across flats (4 in the
    standard frame, 7 in the large one: `hexgrid.FRAMES`)."""
    hexagon(
        sheet,
        view,
        tile_centre[0],
        tile_centre[1],
        tile_radius(hex_mm, frame),
        width=width if width is not None else sheet.ink.thin_width,
        colour=colour,
        dash=dash,
    )


def tile_radius(hex_mm: float, frame=None) -> float:
    """A tile's circumradius: its flats are `span` spaces apart (TILE_SPAN = 4 in the
    standard frame)."""
    return frame_of(frame).span * hex_mm / SQRT3


def free_cell(taken, to_grid=None, frame=None, within=None):
    """The frame cell where a tile's label goes: a whole cell of the tile's frame that holds no
    space (`taken`: the grid cells in use; `to_grid` maps a frame cell to the grid; `within`,
    if given, says which frame cells may hold it), the topmost and then the most central;
    None when every whole cell is taken."""
    shape = frame_of(frame)
    free = [h for h in shape.whole if (to_grid(h) if to_grid else h) not in taken and (within is None or within(h))]
    if not free:
        return None
    return min(free, key=lambda h: (h.r, abs(h.q + h.r / 2), h.q))


def tile_label(
    sheet: Sheet,
    view: View,
    tile_centre: tuple[float, float],
    hex_mm: float,
    lines: list[tuple[str, bool]],
    spot=None,
    size: float | None = None,
    colour: str | None = GREY,
    frame=None,
) -> None:
    """A tile's label: lines of (text, bold) centred on the frame cell `spot` (plane offset from
    the tile's centre), or just inside the tile's top corner when no cell is free; grey unless
    `colour` says otherwise (None: the text colour). No line is smaller than `size` and
    LABEL_PT: a long id or name is cut with an ellipsis rather than shrunk."""
    from sheetgen.render.common import fit_text, wrap

    size = max(size or 4.8 * hex_mm / 30.0, LABEL_PT)
    x, y = tile_centre
    room = view.mm(hex_mm * 0.8)  # a space's width, less a little
    rows: list[tuple[str, float, bool]] = []
    if spot is None:
        y = y - tile_radius(hex_mm, frame) + 0.2 * hex_mm
        for text, bold in lines[:1]:
            fitted = fit_text(sheet, text, room, size * (1.5 if bold else 1), bold=bold, least=size)
            rows.append((fitted.lines[0], fitted.size, bold))
    else:
        # in the free space: the id (two lines at most), the name in the lines the space's
        # height leaves (where a space is 0.8 of its width wide: 0.69 of it), the rest
        x, y = x + spot[0], y + spot[1]
        lead = size * 1.25 / (view.scale * MM)
        (ident, id_bold), (name, name_bold), *rest = lines
        fitted = fit_text(
            sheet,
            ident,
            room,
            size * (1.5 if id_bold else 1),
            bold=id_bold,
            lines=2,
            single=size * (1.5 if id_bold else 1),
            least=size,
        )
        rows += [(part, fitted.size, id_bold) for part in fitted.lines]
        tail = [
            (part, size * (1.5 if bold else 1), bold)
            for text, bold in rest
            for part in wrap(sheet, text, room, size * (1.5 if bold else 1), bold)
        ]
        used = sum(lead * (1.5 if bold else 1) for _t, _s, bold in rows + tail)
        at = size * (1.5 if name_bold else 1)
        fitted = fit_text(
            sheet,
            name,
            room,
            at,
            bold=name_bold,
            lines=max(1, int((0.69 * hex_mm - used) / (lead * at / size) + 1e-9)),
            single=at,
            least=size,
        )
        rows += [(part, fitted.size, name_bold) for part in fitted.lines] + tail
    lead = size * 1.25 / (view.scale * MM)
    heights = [lead * (1.5 if bold else 1) for _t, _s, bold in rows]
    top = y - sum(heights) / 2
    for (text, at, bold), h in zip(rows, heights):
        label(sheet, view, x, top + h / 2, text, at, bold=bold, colour=colour)
        top += h


def token_point(placement: Placement, token: Token, hex_mm: float) -> tuple[float, float]:
    """A Rekee token's centre in the track's plane (mm): its place in its tile's own frame
    (`tokens.centre_in_frame`), turned with the tile."""
    return placement.point(*centre_in_frame(token, frame_of(placement.frame).span), size=radius(hex_mm))


def draw_token_marker(sheet: Sheet, view: View, placement: Placement, token: Token, hex_mm: float) -> None:
    """A Rekee token no rulebook gives a rule (`Token.effect` None: it changes nothing): a
    dashed circle at its centre, half a space across, with its id under it. The circle is not
    filled: what the space prints beneath it (a jump's gear, a limit) stays readable."""
    x, y = token_point(placement, token, hex_mm)
    px, py = view.at(x, y)
    r = view.mm(0.25 * hex_mm)
    sheet.stroke(width=sheet.ink.line_width, dash=(1.5, 1.5))
    sheet.c.circle(px, py, r, stroke=1, fill=0)
    sheet.stroke()
    k = hex_mm / 30.0
    sheet.fill(sheet.ink.line)
    label(sheet, view, x, y, "T", 5.0 * k, bold=True)
    size = fit_size(sheet, token.id, view.mm(1.4 * hex_mm), 4.2 * k, least=2.5)
    label(sheet, view, x, y + 0.25 * hex_mm + 2.2 * k, token.id, size)


def danger_of(cells) -> Danger:
    """The danger colour most of `cells` have (the highest on a tie)."""
    counts = {d: 0 for d in Danger}
    for c in cells:
        counts[c.danger] += 1
    return max(Danger, key=lambda d: (counts[d], DANGER_RINGS[d]))


def corner_sides(track) -> dict:
    """DIRT: each corner space's side of its corner, "in" (the inside lane) or "out", for
    corners more than one lane wide."""
    out = {}
    for corner in track.corners():
        lanes = sorted({c.lane for c in corner.cells})
        if len(lanes) < 2 or corner.turn not in ("left", "right"):
            continue
        inside = lanes[0] if corner.turn == "left" else lanes[-1]
        for c in corner.cells:
            out[c.hex] = "in" if c.lane == inside else "out"
    return out


def legend_items(track_or_cells, markers: bool = False, lanes: bool = False) -> list[tuple[str, str]]:
    """(symbol key, words) for every kind of mark the cells carry, in a fixed order; with
    `markers`, the marker of a token no rulebook gives a rule too; with `lanes`, the dashed
    line of a lane of a tile in the lane form."""
    cells = list(track_or_cells)
    items = [("lane", "L1, L2: lane (1 = leftmost in the direction of travel); the grey chevron points the way")]
    if any(c.limit is not None and not c.caution for c in cells):
        items.append(("limit", "corner limit: the top gear on that space"))
    if any(c.caution for c in cells):
        items.append(("caution", "limit in a triangle: one caution more when passed in that very gear"))
    for flag, words in (
        ("start", "START: heavy line, the start line behind the starting spaces"),
        ("finish", "FINISH: chequered line, reaching a space beyond it finishes"),
        ("pit", "PIT: pit-lane edge space (dashed heavy edge)"),
        ("slide", "slide: dotted line splitting a slide-zone space"),
        ("water", "water: wavy lines, a water hazard"),
    ):
        if any(getattr(c, flag) for c in cells):
            items.append((flag, words))
    if any(c.shortcut is not None for c in cells):
        items.append(("shortcut", "shortcut space: dashed outline, its limit in a diamond"))
    if any(c.jump is not None for c in cells):
        items.append(("jump", "JUMP: its gear in a square"))
    if any(c.surface is Surface.GRAVEL for c in cells):
        items.append(("gravel", "three stones: gravel"))
    if any(c.surface is Surface.SNOW for c in cells):
        items.append(("snow", "flake: snow"))
    items.append(("danger", "danger colour of the tile: yellow no inner ring, orange one, red two (and a tint)"))
    if markers:
        items.append(("token", "T in a dashed circle: a Rekee token no rulebook has a rule for (it changes nothing)"))
    if lanes:
        items.append(("lanes", "dashed grey line: a lane of a tile in the lane form (schematic), named at its start"))
    return items
