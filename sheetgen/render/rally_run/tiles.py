"""Rally Run! tiles to print and cut: every road tile of the set (as many as it has), the pit
stop, the four start-finish tiles, the trophies and the four cars (the box's "4 rally race
cars", four tokens cut from one tile's place), all at the set's `tile_mm` (default 60 mm), on
pages of tiles side by side with cut marks outside the grid; after each page of fronts, the
other side of its sheet; then a one-page rules summary on a sheet of its own.

Roads leave every tile at the middle of its sides, a third of the tile wide, so that any two
tiles laid side by side join edge to edge. A road tile names its kind, never its openings
(they turn with the tile). Start-finish and trophy tiles carry their colour, their pattern and
their name (never colour alone).

Only road tiles are ever face down, so only they have backs (the pit stop, start-finish and
trophy tiles lie face up all game): a back is on the mirrored position of its front for the
set's `duplex` flip edge: `long_edge` (the sheet turns over about its long side: a tile's back
is mirrored left to right) or `short_edge` (about its short side: mirrored top to bottom), so
that a duplex print puts each back behind its front. The backs are one pattern that runs on
`BLEED_MM` past the outer cut lines (a front coloured to its edge, a tinted tile or a road's
end, does too), so that a sheet printed a millimetre or two off on its back shows no white
strip on the edge tiles: face-down tiles stay alike. The cars' other sides repeat the cars;
a sheet with nothing on its other side gets a page left blank, so that in a double-sided
print the next sheet starts on a new sheet of paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import FILL_NON_ZERO

from sheetgen.games.rally_run.model import COLOURS, SIDES, TileKind, TileSet
from sheetgen.render.common import fit_size, fit_text, fitted_text, wrap
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.template import MM, Template

HEADER_MM = 9.2
#: how far the backs (and coloured fronts) run on past the outer cut lines
BLEED_MM = 3.0
#: cut marks start where the bleed ends, on the cut line's extension
MARK_GAP_MM = BLEED_MM
MARK_LEN_MM = 1.8
#: the box's "4 rally race cars", printed as tokens four to a tile's place
CARS = 4
HOUSE_NOTE = "House set: the published game's tile counts are unknown; these are sheetgen's own."
SHORT_HOUSE_NOTE = "House set (the published counts are unknown)."


@dataclass(frozen=True)
class Slot:
    """A tile's place on a page, in points: bottom-left corner and side."""

    x: float
    y: float
    size: float


@dataclass(frozen=True)
class Grid:
    columns: int
    rows: int
    x0: float  # left of the grid
    y0: float  # bottom of the grid
    size: float  # tile side

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def slot(self, k: int) -> Slot:
        row, column = divmod(k, self.columns)
        return Slot(self.x0 + column * self.size, self.y0 + (self.rows - 1 - row) * self.size, self.size)


def tile_grid(page: tuple[float, float], margin_mm: float, tile_mm: float) -> Grid:
    """The largest grid of tiles that fits inside the margins, below the header, with room for
    the cut marks around it; centred across the page."""
    width, height = page
    margin = margin_mm * MM
    room = (MARK_GAP_MM + MARK_LEN_MM) * MM
    size = tile_mm * MM
    columns = int((width - 2 * margin - 2 * room) // size)
    rows = int((height - 2 * margin - HEADER_MM * MM - 2 * room) // size)
    if columns < 1 or rows < 1:
        raise ValueError(f"a {tile_mm:g} mm tile does not fit on the page")
    x0 = (width - columns * size) / 2
    top = height - margin - HEADER_MM * MM - room
    bottom_room = top - rows * size - (margin + room)
    y0 = margin + room + bottom_room / 2
    return Grid(columns, rows, x0, y0, size)


def back_slot(slot: Slot, page: tuple[float, float], duplex: str) -> Slot:
    """Where the back of a tile printed at `slot` goes on the other side of the sheet."""
    width, height = page
    if duplex == "long_edge":
        return Slot(width - slot.x - slot.size, slot.y, slot.size)
    return Slot(slot.x, height - slot.y - slot.size, slot.size)


# -- what is printed --------------------------------------------------------------------------


@dataclass(frozen=True)
class Tile:
    what: str  # road | pit | start | trophy | cars
    name: str
    openings: frozenset[int] = frozenset()
    colour: str = ""
    pattern: str = ""
    note: str = ""


def tiles_of(tiles: TileSet) -> list[Tile]:
    out = [
        Tile("road", kind.name, kind.openings, note=_kind_note(kind, k + 1))
        for kind in tiles.kinds
        for k in range(kind.count)
    ]
    out.append(Tile("pit", tiles.pit_name, tiles.pit_openings))
    for sf in tiles.start_finish:
        out.append(
            Tile("start", sf.name, colour=sf.colour, pattern=sf.pattern, note=f"start-finish, corner {sf.corner}")
        )
    patterns = {sf.colour: sf.pattern for sf in tiles.start_finish}
    for trophy in tiles.trophies:
        out.append(
            Tile(
                "trophy",
                trophy.name,
                colour=trophy.colour,
                pattern=patterns[trophy.colour],
                note=f"finish at the {trophy.colour} start-finish",
            )
        )
    out.append(Tile("cars", "cars"))
    return out


def two_sided(tile: Tile) -> bool:
    """Whether the other side of the sheet carries something behind `tile`: a road tile's
    back (road tiles are the ones laid face down), the cars again; never the pit stop,
    start-finish or trophy tiles, which lie face up all game."""
    return tile.what in ("road", "cars")


def _kind_note(kind: TileKind, copy: int) -> str:
    return f"{copy} of {kind.count}"


# -- drawing ------------------------------------------------------------------------------------


def _tint(hex_colour: str, share: float) -> str:
    """`hex_colour` mixed with white: `share` of the colour."""
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - (255 - v) * share) for v in rgb]
    return "#" + "".join(f"{v:02x}" for v in mixed)


def draw_road(sheet: Sheet, slot: Slot, openings: frozenset[int], reach: frozenset[int] = frozenset()) -> None:
    """The road: a third of the tile wide, from the centre to the middle of each opening side;
    on the sides in `reach` (outer cut lines) it runs on `BLEED_MM` past the tile's edge."""
    c = sheet.c
    s = slot.size
    a, b = slot.x + s / 3, slot.x + 2 * s / 3  # the road's edges across
    lo, hi = slot.y + s / 3, slot.y + 2 * s / 3
    cx, cy = slot.x + s / 2, slot.y + s / 2
    if not openings:
        return
    run = {side: BLEED_MM * MM if side in reach else 0.0 for side in range(4)}
    north, east, south, west = slot.y + s + run[0], slot.x + s + run[1], slot.y - run[2], slot.x - run[3]
    arms = {
        0: (a, hi, s / 3, north - hi),
        1: (b, lo, east - b, s / 3),
        2: (a, south, s / 3, lo - south),
        3: (west, lo, a - west, s / 3),
    }
    if sheet.ink.fill:
        sheet.fill(sheet.ink.track_fill)
        c.rect(a, lo, s / 3, s / 3, stroke=0, fill=1)
        for side in openings:
            x, y, w, h = arms[side]
            c.rect(x, y, w, h, stroke=0, fill=1)
    sheet.stroke(width=sheet.ink.line_width)
    edges = {  # each side of the centre square: closed, or two road edges out to the tile's side
        0: (((a, hi), (b, hi)), ((a, hi), (a, north)), ((b, hi), (b, north))),
        1: (((b, lo), (b, hi)), ((b, lo), (east, lo)), ((b, hi), (east, hi))),
        2: (((a, lo), (b, lo)), ((a, lo), (a, south)), ((b, lo), (b, south))),
        3: (((a, lo), (a, hi)), ((a, lo), (west, lo)), ((a, hi), (west, hi))),
    }
    for side in range(4):
        closed, one, two = edges[side]
        for p, q in ((one, two) if side in openings else (closed,)):
            c.line(p[0], p[1], q[0], q[1])
    sheet.stroke(width=sheet.ink.thin_width, dash=(2.2, 1.8))
    ends = {0: (cx, north), 1: (east, cy), 2: (cx, south), 3: (west, cy)}
    for side in sorted(openings):
        c.line(cx, cy, *ends[side])
    sheet.stroke()
    if len(openings) == 1:  # a dead end: a barrier across the road's closed end
        side = next(iter(openings))
        sheet.stroke(width=sheet.ink.corner_width)
        x1, y1, x2, y2 = {0: (a, lo, b, lo), 1: (a, lo, a, hi), 2: (a, hi, b, hi), 3: (b, lo, b, hi)}[side]
        c.line(x1, y1, x2, y2)
        sheet.stroke()


def bled(slot: Slot, reach: frozenset[int]) -> tuple[float, float, float, float]:
    """The slot's square (x, y, w, h) run on `BLEED_MM` past the sides in `reach`."""
    run = BLEED_MM * MM
    x0 = slot.x - (run if 3 in reach else 0.0)
    y0 = slot.y - (run if 2 in reach else 0.0)
    x1 = slot.x + slot.size + (run if 1 in reach else 0.0)
    y1 = slot.y + slot.size + (run if 0 in reach else 0.0)
    return (x0, y0, x1 - x0, y1 - y0)


def outer_sides(slot: Slot, others: list[Slot]) -> frozenset[int]:
    """The sides of `slot` (0 N, 1 E, 2 S, 3 W) with no slot of `others` beyond them: its
    outer cut lines."""
    near = 0.01
    out = set()
    for side, (dx, dy) in enumerate(((0, 1), (1, 0), (0, -1), (-1, 0))):
        x, y = slot.x + dx * slot.size, slot.y + dy * slot.size
        if not any(abs(o.x - x) < near and abs(o.y - y) < near for o in others):
            out.add(side)
    return frozenset(out)


def draw_pattern(sheet: Sheet, slot: Slot, pattern: str, colour: str, reach: frozenset[int] = frozenset()) -> None:
    """A colour's pattern over the tile (run on past the sides in `reach`), in thin lines of
    that colour (black in low ink)."""
    c = sheet.c
    c.saveState()
    clip = c.beginPath()
    clip.rect(*bled(slot, reach))
    c.clipPath(clip, stroke=0, fill=0)
    # the pattern's rows and columns from one row and column before the tile to one after,
    # so that a bleed past its sides carries it on
    slot = Slot(slot.x - slot.size / 10, slot.y - slot.size / 10, slot.size * 1.2)
    line = COLOURS[colour] if sheet.ink.fill else sheet.ink.line
    if colour == "white" and sheet.ink.fill:
        line = "#9a9a9a"
    sheet.stroke(colour=line, width=max(sheet.ink.thin_width * 2, 0.6))
    s = slot.size
    step = s / 12
    n = 13
    if pattern == "stripes":
        for k in range(-n, n + 1):
            c.line(slot.x + k * step, slot.y, slot.x + k * step + s, slot.y + s)
    elif pattern == "bars":
        for k in range(n):
            c.line(slot.x, slot.y + (k + 0.5) * step, slot.x + s, slot.y + (k + 0.5) * step)
    elif pattern == "dots":
        for i in range(n):
            for j in range(n):
                c.circle(slot.x + (i + 0.5) * step, slot.y + (j + 0.5) * step, step * 0.18, stroke=1, fill=0)
    elif pattern == "checks":
        for i in range(n):
            for j in range(n):
                if (i + j) % 2 == 0:
                    c.rect(slot.x + i * step, slot.y + j * step, step, step, stroke=1, fill=0)
                    c.line(slot.x + i * step, slot.y + j * step, slot.x + (i + 1) * step, slot.y + (j + 1) * step)
    elif pattern == "crosses":
        arm = step * 0.25
        for i in range(n):
            for j in range(n):
                x, y = slot.x + (i + 0.5) * step, slot.y + (j + 0.5) * step
                c.line(x - arm, y - arm, x + arm, y + arm)
                c.line(x - arm, y + arm, x + arm, y - arm)
    elif pattern == "waves":
        for k in range(n):
            path = c.beginPath()
            y = slot.y + (k + 0.5) * step
            for i in range(41):
                x = slot.x + s * i / 40
                (path.moveTo if i == 0 else path.lineTo)(x, y + step * 0.25 * math.sin(i * math.pi / 4))
            c.drawPath(path, stroke=1, fill=0)
    c.restoreState()
    sheet.stroke()


def _label(sheet: Sheet, slot: Slot, lines: list[tuple[str, float, bool]]) -> None:
    """A white box in the middle of the tile with the lines in it (a name, bold, in up to
    two lines when one does not hold it)."""
    s = slot.size
    w = s * 0.78
    shown: list[tuple[str, float, float, bool]] = []  # text, size, the line's lead, bold
    for text, size, bold in lines:
        fitted = fit_text(sheet, text, w - 2 * MM, size, bold=bold, lines=2 if bold else 1)
        shown += [(line, fitted.size, size * 1.3, bold) for line in fitted.lines]
    h = sum(lead for _t, _s, lead, _b in shown) + 3 * MM
    x, y = slot.x + (s - w) / 2, slot.y + (s - h) / 2
    sheet.fill(sheet.ink.box_fill)
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.rect(x, y, w, h, stroke=1, fill=1)
    ty = y + h - 1.5 * MM
    for text, size, step, bold in shown:
        ty -= step * 0.85
        sheet.text(slot.x + s / 2, ty, text, bold=bold, size=size, align="center")
        ty -= step * 0.15


def draw_front(sheet: Sheet, tile: Tile, slot: Slot, reach: frozenset[int] = frozenset()) -> None:
    """A tile's face; what is coloured to its edge (a tint, a road's end) runs on past the
    sides in `reach`, its outer cut lines."""
    s = slot.size
    scale = s / (60 * MM)
    small = max(6.5 * scale, 5.0)
    if tile.what == "cars":
        draw_cars(sheet, slot)
        return
    if tile.what in ("start", "trophy"):
        if sheet.ink.fill:
            sheet.fill(_tint(COLOURS[tile.colour], 0.35))
            sheet.c.rect(*bled(slot, reach), stroke=0, fill=1)
        draw_pattern(sheet, slot, tile.pattern, tile.colour, reach)
        kind = "START-FINISH" if tile.what == "start" else "TROPHY"
        _label(
            sheet,
            slot,
            [
                (kind, 7.5 * scale, True),
                (tile.name, 9 * scale, True),
                (f"{tile.colour}, {tile.pattern}", small, False),
                (tile.note, small, False),
            ],
        )
    else:
        draw_road(sheet, slot, tile.openings, reach)
        inset = 1.6 * MM
        if tile.what == "pit":
            _chequer(sheet, slot)
            fitted_text(
                sheet,
                slot.x + inset,
                slot.y + s - inset - 8 * scale,
                tile.name.upper(),
                s / 3 - inset,
                bold=True,
                size=8 * scale,
            )
            sheet.text(slot.x + inset, slot.y + inset, "pit stop", size=small)
        else:
            room = s / 3 - 1.5 * inset
            # the name in the corner the road leaves free: two lines, then smaller, then cut;
            # no openings: they turn with the tile ("NE" is wrong once it is turned)
            name = fit_text(sheet, tile.name, room, 7.5 * scale, bold=True, lines=2, single=7.5 * scale)
            for k, part in enumerate(name.lines):
                sheet.text(
                    slot.x + inset,
                    slot.y + s - inset - (k + 1) * 8.5 * scale,
                    part,
                    bold=True,
                    size=fit_size(sheet, part, room, name.size, True),
                )
            fitted_text(sheet, slot.x + inset, slot.y + inset, tile.note, room, size=small)
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.rect(slot.x, slot.y, s, s, stroke=1, fill=0)


def car_slots(slot: Slot) -> list[Slot]:
    """The four car tokens in a tile's place, a quarter each: top left, top right, bottom
    left, bottom right."""
    half = slot.size / 2
    return [Slot(slot.x + (k % 2) * half, slot.y + (1 - k // 2) * half, half) for k in range(CARS)]


def draw_cars(sheet: Sheet, slot: Slot, flip: str | None = None) -> None:
    """The four cars, numbered 1 to 4 (a number, never a colour alone, tells them apart), each
    a car seen from above on a token a quarter of a tile's place, cut apart along the lines
    between them. `flip`: the other side of the sheet turned over about that edge, each car
    behind itself (left and right swapped for the long edge, top and bottom for the short)."""
    tokens = car_slots(slot)
    if flip is not None:
        tokens = [tokens[k ^ (1 if flip == "long_edge" else 2)] for k in range(CARS)]
    for number, token in enumerate(tokens, start=1):
        _car(sheet, token, number)
    sheet.stroke(width=sheet.ink.thin_width)
    for token in tokens:
        sheet.c.rect(token.x, token.y, token.size, token.size, stroke=1, fill=0)


def _car(sheet: Sheet, token: Slot, number: int) -> None:
    """A rally car from above (body, windscreen, rear window, four wheels), its number on the
    roof."""
    c = sheet.c
    t = token.size
    cx = token.x + t / 2
    body_w, body_h = t * 0.42, t * 0.78
    x, y = cx - body_w / 2, token.y + (t - body_h) / 2
    sheet.stroke(width=sheet.ink.line_width)
    for wx in (x - t * 0.05, x + body_w - t * 0.03):  # wheels
        for wy in (y + body_h * 0.12, y + body_h * 0.72):
            if sheet.ink.fill:
                sheet.fill(sheet.ink.text)
            c.rect(wx, wy, t * 0.08, body_h * 0.16, stroke=1, fill=1 if sheet.ink.fill else 0)
    sheet.fill(sheet.ink.box_fill)
    c.roundRect(x, y, body_w, body_h, t * 0.08, stroke=1, fill=1)
    sheet.stroke(width=sheet.ink.thin_width)
    c.roundRect(x + body_w * 0.12, y + body_h * 0.68, body_w * 0.76, body_h * 0.16, t * 0.02, stroke=1, fill=0)
    c.roundRect(x + body_w * 0.16, y + body_h * 0.08, body_w * 0.68, body_h * 0.1, t * 0.02, stroke=1, fill=0)
    size = t * 0.24
    sheet.text(cx, y + body_h * 0.45 - 0.36 * size, str(number), bold=True, size=size, align="center")
    sheet.stroke()


def _chequer(sheet: Sheet, slot: Slot) -> None:
    """A chequered square in the pit stop's centre (filled squares, or hatched in low ink)."""
    s = slot.size
    k = 4
    cell = s / 3 / k
    for i in range(k):
        for j in range(k):
            if (i + j) % 2:
                continue
            x, y = slot.x + s / 3 + i * cell, slot.y + s / 3 + j * cell
            if sheet.ink.fill:
                sheet.fill(sheet.ink.text)
                sheet.c.rect(x, y, cell, cell, stroke=0, fill=1)
            else:
                sheet.stroke(width=sheet.ink.thin_width)
                sheet.c.rect(x, y, cell, cell, stroke=1, fill=0)
                sheet.c.line(x, y, x + cell, y + cell)
                sheet.c.line(x, y + cell, x + cell, y)
    sheet.stroke()


def draw_backs(sheet: Sheet, slots: list[Slot], title: str, others: tuple[Slot, ...] = ()) -> None:
    """The one back every road tile has (face-down road tiles must all look alike): one
    lattice over all of them, aligned to the grid of tiles so that each shows the same part
    of it, running on `BLEED_MM` past the outer cut lines (not into `others`, the places
    behind which something else is printed), then a label on each. No outline:
    a back printed a little off its front must show nothing that tells one tile from another."""
    if not slots:
        return
    c = sheet.c
    s = slots[0].size
    if sheet.ink.fill:
        c.saveState()
        clip = c.beginPath()
        for slot in slots:
            clip.rect(*bled(slot, outer_sides(slot, [*slots, *others])))
        c.clipPath(clip, stroke=0, fill=0, fillMode=FILL_NON_ZERO)
        x0, y0 = min(slot.x for slot in slots), min(slot.y for slot in slots)
        x1, y1 = max(slot.x for slot in slots) + s, max(slot.y for slot in slots) + s
        run = BLEED_MM * MM
        sheet.fill(sheet.ink.shade)
        c.rect(x0 - run, y0 - run, x1 - x0 + 2 * run, y1 - y0 + 2 * run, stroke=0, fill=1)
        sheet.stroke(width=sheet.ink.thin_width)
        step = s / 8
        # the lattice's lines through the tiles' corners, as far as the bleed reaches
        first = -int((x1 - x0 + y1 - y0 + 4 * run) // step) - 2
        last = -first
        for k in range(first, last + 1):
            u = x0 + k * step  # lines x - y = u - y0 and x + y = u + y1
            c.line(u - 2 * run - (y1 - y0), y0 - 2 * run - (y1 - y0), u + (y1 - y0) + 2 * run, y1 + 2 * run)
            c.line(u - 2 * run - (y1 - y0), y1 + 2 * run + (y1 - y0), u + (y1 - y0) + 2 * run, y0 - 2 * run)
        c.restoreState()
    scale = s / (60 * MM)
    for slot in slots:
        _label(sheet, slot, [("RALLY RUN!", 10 * scale, True), (title, max(6 * scale, 5.0), False)])
    sheet.stroke()


def draw_marks(sheet: Sheet, grid: Grid, slots: list[Slot]) -> None:
    """Cut marks outside the tiles, along every cut line, past the last tile each line touches
    (a short last row too), never inside the margins."""
    c = sheet.c
    gap, length = MARK_GAP_MM * MM, MARK_LEN_MM * MM
    vertical: dict[float, list[Slot]] = {}
    horizontal: dict[float, list[Slot]] = {}
    for slot in slots:
        for x in (slot.x, slot.x + slot.size):
            vertical.setdefault(round(x, 3), []).append(slot)
        for y in (slot.y, slot.y + slot.size):
            horizontal.setdefault(round(y, 3), []).append(slot)
    sheet.stroke(width=sheet.ink.thin_width)
    for x, touching in sorted(vertical.items()):
        top = max(s.y + s.size for s in touching)
        bottom = min(s.y for s in touching)
        c.line(x, top + gap, x, top + gap + length)
        c.line(x, bottom - gap, x, bottom - gap - length)
    for y, touching in sorted(horizontal.items()):
        left = min(s.x for s in touching)
        right = max(s.x + s.size for s in touching)
        c.line(left - gap, y, left - gap - length, y)
        c.line(right + gap, y, right + gap + length, y)


def _header(sheet: Sheet, tiles: TileSet, text: str, at_top: bool) -> None:
    """The set's name and what the page is, then the page's number, on the first line; what
    to do with the tiles on the second."""
    y = sheet.top - 4 * MM if at_top else sheet.bottom + 5.5 * MM
    sheet.page_number(sheet.right, y, "right")
    right = sheet.right - sheet.number_width() - 2 * MM
    fitted_text(
        sheet,
        sheet.left,
        y,
        tiles.name,
        right - sheet.left - sheet.text_width(text, "small") - 4 * MM,
        "heading",
        bold=True,
    )
    sheet.text(right, y, text, "small", align="right")
    note = f"Tiles {tiles.tile_mm:g} mm square: cut along the marks."
    if tiles.house_set:
        note += " " + SHORT_HOUSE_NOTE
    sheet.text(sheet.left, y - 4.4 * MM, note, "small")


def render_set(
    tiles: TileSet, template: Template, *, paper: str | None = None, ink: str = "normal", keywords: tuple[str, ...] = ()
) -> tuple[bytes, int]:
    page = template.page_size(paper)
    grid = tile_grid(page, template.margin_mm, tiles.tile_mm)
    todo = tiles_of(tiles)
    pages = [todo[i : i + grid.per_page] for i in range(0, len(todo), grid.per_page)]
    flip = "long edge" if tiles.duplex == "long_edge" else "short edge"
    meta = Meta(
        title=f"{tiles.name}: Rally Run! tiles",
        subject="Rally Run! print-and-play tiles and cars, the road tiles' backs and a rules summary",
        keywords=("rally run", "tiles") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        for number, chunk in enumerate(pages, start=1):
            _header(sheet, tiles, f"Rally Run! tiles, sheet {number} of {len(pages)}: fronts", True)
            bar_label = "50 mm: print at 100 %"
            bar_x = sheet.right - sheet.scale_bar_width(bar_label, number=False)
            sheet.scale_bar(bar_x, sheet.top - 8.4 * MM, bar_label, number=False)
            slots = [grid.slot(k) for k in range(len(chunk))]
            for tile, slot in zip(chunk, slots):
                draw_front(sheet, tile, slot, outer_sides(slot, slots))
            draw_marks(sheet, grid, slots)
            sheet.end_page("tile fronts")
            behind = [
                (tile, back_slot(slot, page, tiles.duplex)) for tile, slot in zip(chunk, slots) if two_sided(tile)
            ]
            if not behind:  # nothing is ever turned over here: the next sheet starts a new sheet
                _header(sheet, tiles, f"sheet {number} of {len(pages)}: left blank", tiles.duplex == "long_edge")
                sheet.text(
                    sheet.left,
                    sheet.top - 16 * MM,
                    "This side is left blank: the tiles on the other side lie face up all game.",
                    "small",
                )
                sheet.end_page("blank page")
                continue
            _header(
                sheet,
                tiles,
                f"sheet {number} of {len(pages)}: backs (print double-sided, flip on the {flip})",
                tiles.duplex == "long_edge",
            )
            roads = [slot for tile, slot in behind if tile.what == "road"]
            draw_backs(sheet, roads, tiles.name, tuple(slot for tile, slot in behind if tile.what != "road"))
            for tile, slot in behind:
                if tile.what == "cars":
                    draw_cars(sheet, slot, flip=tiles.duplex)
            draw_marks(sheet, grid, [slot for _tile, slot in behind])
            sheet.end_page("tile backs")
        draw_rules(sheet, tiles)
        sheet.end_page("rules summary")

    return render_pdf(template, ink, paper, meta, draw)


RULES = [
    (
        "Setting up",
        [
            (
                "Lay the pit stop in the middle. Shuffle the road tiles and lay them face down in a {size} x {size} "
                "grid around it. "
                "Lay a start-finish tile at each corner of the grid, outside it, touching the corner tile: a road "
                "leaving the corner "
                "tile by either of its outer sides leads to it. Shuffle one trophy per player (drawn at random) and "
                "stack them face up "
                "on the pit stop. Each car starts on a start-finish tile (two players: opposite corners)."
            ),
        ],
    ),
    (
        "Your turn: one of",
        [
            (
                "Turn a tile over and drive onto it. The tile must border your car's tile, and your car's road must "
                "lead to it. "
                "Turn it so that its road joins yours (you choose when several ways do), then put your car on it, even "
                "on a dead end. "
                "If no way joins, everyone sees it, it goes back face down and your car stays."
            ),
            (
                "Drive onto a face-up tile next door (a tile with another car, the pit stop, your finish) when your "
                "road leads to it "
                "and its road leads back. No tile is turned over."
            ),
            "Switch two face-down tiles without looking at them, but not one of the two the player before you just "
            "switched.",
            "With none of these, you pass.",
        ],
    ),
    (
        "After you drive",
        [
            (
                "Turn the tile your car left face down again, unless another car stands on it. "
                "Pit stop and start-finish tiles stay face up."
            ),
        ],
    ),
    (
        "First round",
        [
            "A dead end turned over in your first turn is turned to face a bordering face-down tile, never your "
            "start-finish tile.",
        ],
    ),
    (
        "Pit stop and trophy",
        [
            (
                "The first time your car reaches the pit stop, take the top trophy. Its colour (and pattern) names the "
                "start-finish tile "
                "you must reach."
            ),
        ],
    ),
    (
        "Winning",
        [
            "The first car to drive onto the start-finish tile its trophy names wins.",
        ],
    ),
]


def draw_rules(sheet: Sheet, tiles: TileSet) -> None:
    """The one-page rules summary, in the rulebook's words as sheetgen reads them."""
    width = sheet.right - sheet.left
    y = sheet.top - 6 * MM
    sheet.text(sheet.left, y, "Rally Run!: the rules on one page", "title", bold=True)
    y -= 6 * MM
    fitted_text(
        sheet,
        sheet.left,
        y,
        tiles.name,
        width,
        "small",
        after=(
            f": {tiles.road_tiles} road tiles, {tiles.size} x {tiles.size} grid, {CARS} cars. Where the rulebook "
            "is silent, these rules are sheetgen's readings of it."
        ),
    )
    if tiles.house_set:
        y -= 4 * MM
        sheet.text(sheet.left, y, HOUSE_NOTE, "small")

    def height(body: float) -> float:
        """What the rules and the list of tiles take below here at `body` points."""
        lines = sum(
            len(wrap(sheet, "- " + paragraph.format(size=tiles.size), width, body))
            for _h, paragraphs in RULES
            for paragraph in paragraphs
        )
        blocks = sum(len(paragraphs) for _h, paragraphs in RULES)
        return (
            len(RULES) * 11 * MM
            + lines * body * 1.35
            + blocks * 1.2 * MM
            + 8 * MM
            + (len(tiles.kinds) + len(tiles.start_finish) + 1) * body * 1.5
            + body
        )

    # the page's type, smaller when the rules and the list would not fit above the margin
    # (a larger template size, or a set of many kinds of tile)
    body = sheet.t.sizes["body"] + 1.5
    # the page's number goes at the bottom right: the rules keep above it
    floor = sheet.bottom + sheet.t.sizes["small"] + 1 * MM
    while body > 4.5 and height(body) > y - floor:
        body -= 0.25
    for heading, paragraphs in RULES:
        y -= 9 * MM
        sheet.text(sheet.left, y, heading, "heading", bold=True)
        y -= 2 * MM
        for paragraph in paragraphs:
            for line in wrap(sheet, "- " + paragraph.format(size=tiles.size), width, body):
                y -= body * 1.35
                sheet.text(sheet.left, y, line, size=body)
            y -= 1.2 * MM
    y -= 8 * MM
    sheet.text(sheet.left, y, "The tiles", "heading", bold=True)
    for kind in tiles.kinds:
        y -= body * 1.5
        fitted_text(
            sheet,
            sheet.left,
            y,
            f"{kind.count} x {kind.name}",
            width,
            size=body,
            after=(
                f": {kind.word}, road openings {''.join(SIDES[d] for d in sorted(kind.openings)) or 'none'} (north up)"
            ),
        )
    for sf in tiles.start_finish:
        y -= body * 1.5
        fitted_text(
            sheet,
            sheet.left,
            y,
            sf.name,
            width,
            size=body,
            after=f": {sf.colour}, pattern {sf.pattern}, corner {sf.corner}",
        )
    y -= body * 1.5
    sheet.text(sheet.left, y, f"{CARS} cars, numbered 1 to {CARS}: cut the four tokens apart", size=body)
    sheet.c.setFillColor(HexColor(sheet.ink.text))


def print_set(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rally Run! tile set: tiles with their backs, then the rules summary."""
    return render_set(spec.model, template, paper=paper, ink=ink, keywords=keywords)
