"""Rally Run! tiles to print and cut: every road tile of the set (as many as it has), the pit
stop, the four start-finish tiles and the trophies, all at the set's `tile_mm` (default 60 mm),
on pages of tiles side by side with cut marks outside the grid; after each page of fronts, its
page of backs; then a one-page rules summary.

Roads leave every tile at the middle of its sides, a third of the tile wide, so that any two
tiles laid side by side join edge to edge. Start-finish and trophy tiles carry their colour,
their pattern and their name (never colour alone). Backs are on the mirrored positions of the
fronts for the set's `duplex` flip edge: `long_edge` (the sheet turns over about its long side:
a tile's back is mirrored left to right) or `short_edge` (about its short side: mirrored top to
bottom), so that a duplex print puts each back behind its front.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportlab.lib.colors import HexColor

from sheetgen.games.rally_run.model import COLOURS, SIDES, TileKind, TileSet
from sheetgen.render.common import fit_size, fit_text, fitted_text, wrap
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.template import MM, Template

HEADER_MM = 10.0
MARK_GAP_MM = 1.0
MARK_LEN_MM = 2.5
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
    what: str  # road | pit | start | trophy
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
    return out


def _kind_note(kind: TileKind, copy: int) -> str:
    return f"{copy} of {kind.count}"


# -- drawing ------------------------------------------------------------------------------------


def _tint(hex_colour: str, share: float) -> str:
    """`hex_colour` mixed with white: `share` of the colour."""
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - (255 - v) * share) for v in rgb]
    return "#" + "".join(f"{v:02x}" for v in mixed)


def draw_road(sheet: Sheet, slot: Slot, openings: frozenset[int]) -> None:
    """The road: a third of the tile wide, from the centre to the middle of each opening side."""
    c = sheet.c
    s = slot.size
    a, b = slot.x + s / 3, slot.x + 2 * s / 3  # the road's edges across
    lo, hi = slot.y + s / 3, slot.y + 2 * s / 3
    cx, cy = slot.x + s / 2, slot.y + s / 2
    if not openings:
        return
    arms = {
        0: (a, hi, s / 3, s / 3),
        1: (b, lo, s / 3, s / 3),
        2: (a, slot.y, s / 3, s / 3),
        3: (slot.x, lo, s / 3, s / 3),
    }
    if sheet.ink.fill:
        sheet.fill(sheet.ink.track_fill)
        c.rect(a, lo, s / 3, s / 3, stroke=0, fill=1)
        for side in openings:
            x, y, w, h = arms[side]
            c.rect(x, y, w, h, stroke=0, fill=1)
    sheet.stroke(width=sheet.ink.line_width)
    edges = {  # each side of the centre square: closed, or two road edges out to the tile's side
        0: (((a, hi), (b, hi)), ((a, hi), (a, slot.y + s)), ((b, hi), (b, slot.y + s))),
        1: (((b, lo), (b, hi)), ((b, lo), (slot.x + s, lo)), ((b, hi), (slot.x + s, hi))),
        2: (((a, lo), (b, lo)), ((a, lo), (a, slot.y)), ((b, lo), (b, slot.y))),
        3: (((a, lo), (a, hi)), ((a, lo), (slot.x, lo)), ((a, hi), (slot.x, hi))),
    }
    for side in range(4):
        closed, one, two = edges[side]
        for p, q in ((one, two) if side in openings else (closed,)):
            c.line(p[0], p[1], q[0], q[1])
    sheet.stroke(width=sheet.ink.thin_width, dash=(2.2, 1.8))
    ends = {0: (cx, slot.y + s), 1: (slot.x + s, cy), 2: (cx, slot.y), 3: (slot.x, cy)}
    for side in sorted(openings):
        c.line(cx, cy, *ends[side])
    sheet.stroke()
    if len(openings) == 1:  # a dead end: a barrier across the road's closed end
        side = next(iter(openings))
        sheet.stroke(width=sheet.ink.corner_width)
        x1, y1, x2, y2 = {0: (a, lo, b, lo), 1: (a, lo, a, hi), 2: (a, hi, b, hi), 3: (b, lo, b, hi)}[side]
        c.line(x1, y1, x2, y2)
        sheet.stroke()


def draw_pattern(sheet: Sheet, slot: Slot, pattern: str, colour: str) -> None:
    """A colour's pattern over the tile, in thin lines of that colour (black in low ink)."""
    c = sheet.c
    c.saveState()
    clip = c.beginPath()
    clip.rect(slot.x, slot.y, slot.size, slot.size)
    c.clipPath(clip, stroke=0, fill=0)
    line = COLOURS[colour] if sheet.ink.fill else sheet.ink.line
    if colour == "white" and sheet.ink.fill:
        line = "#9a9a9a"
    sheet.stroke(colour=line, width=max(sheet.ink.thin_width * 2, 0.6))
    s = slot.size
    step = s / 10
    n = 11
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


def draw_front(sheet: Sheet, tile: Tile, slot: Slot) -> None:
    s = slot.size
    scale = s / (60 * MM)
    small = max(6.5 * scale, 5.0)
    if tile.what in ("start", "trophy"):
        if sheet.ink.fill:
            sheet.fill(_tint(COLOURS[tile.colour], 0.35))
            sheet.c.rect(slot.x, slot.y, s, s, stroke=0, fill=1)
        draw_pattern(sheet, slot, tile.pattern, tile.colour)
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
        draw_road(sheet, slot, tile.openings)
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
            # the name in the corner the road leaves free: two lines, then smaller, then cut
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
            openings = "".join(SIDES[d] for d in sorted(tile.openings)) or "none"
            sheet.text(slot.x + s - inset, slot.y + inset, openings, size=small, align="right")
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.rect(slot.x, slot.y, s, s, stroke=1, fill=0)


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


def draw_back(sheet: Sheet, slot: Slot, title: str) -> None:
    """The one back every tile has (face-down road tiles must all look alike)."""
    s = slot.size
    c = sheet.c
    c.saveState()
    clip = c.beginPath()
    clip.rect(slot.x, slot.y, s, s)
    c.clipPath(clip, stroke=0, fill=0)
    if sheet.ink.fill:
        sheet.fill(sheet.ink.shade)
        c.rect(slot.x, slot.y, s, s, stroke=0, fill=1)
        sheet.stroke(width=sheet.ink.thin_width)
        step = s / 8
        for k in range(-8, 9):
            c.line(slot.x + k * step, slot.y, slot.x + k * step + s, slot.y + s)
            c.line(slot.x + k * step, slot.y + s, slot.x + k * step + s, slot.y)
    c.restoreState()
    scale = s / (60 * MM)
    _label(sheet, slot, [("RALLY RUN!", 10 * scale, True), (title, max(6 * scale, 5.0), False)])
    sheet.stroke(width=sheet.ink.thin_width)
    c.rect(slot.x, slot.y, s, s, stroke=1, fill=0)


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
    y = sheet.top - 4 * MM if at_top else sheet.bottom + 5.5 * MM
    fitted_text(
        sheet,
        sheet.left,
        y,
        tiles.name,
        sheet.right - sheet.left - sheet.text_width(text, "small") - 4 * MM,
        "heading",
        bold=True,
    )
    sheet.text(sheet.right, y, text, "small", align="right")
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
        subject="Rally Run! print-and-play tiles, their backs and a rules summary",
        keywords=("rally run", "tiles") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        for number, chunk in enumerate(pages, start=1):
            _header(sheet, tiles, f"Rally Run! tiles, sheet {number} of {len(pages)}: fronts", True)
            bar_label = "50 mm: print at 100 %"
            sheet.scale_bar(sheet.right - sheet.scale_bar_width(bar_label), sheet.top - 8.4 * MM, bar_label)
            slots = [grid.slot(k) for k in range(len(chunk))]
            for tile, slot in zip(chunk, slots):
                draw_front(sheet, tile, slot)
            draw_marks(sheet, grid, slots)
            sheet.end_page("tile fronts")
            backs = [back_slot(slot, page, tiles.duplex) for slot in slots]
            _header(
                sheet,
                tiles,
                f"sheet {number} of {len(pages)}: backs (print double-sided, flip on the {flip})",
                tiles.duplex == "long_edge",
            )
            for slot in backs:
                draw_back(sheet, slot, tiles.name)
            draw_marks(sheet, grid, backs)
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
            f": {tiles.road_tiles} road tiles, {tiles.size} x {tiles.size} grid. The rulings sheetgen follows are in "
            "docs/rulings.md (RN-*)."
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
            + (len(tiles.kinds) + len(tiles.start_finish)) * body * 1.5
            + body
        )

    # the page's type, smaller when the rules and the list would not fit above the margin
    # (a larger template size, or a set of many kinds of tile)
    body = sheet.t.sizes["body"] + 1.5
    while body > 4.5 and height(body) > y - sheet.bottom:
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
    sheet.c.setFillColor(HexColor(sheet.ink.text))


def print_set(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rally Run! tile set: tiles with their backs, then the rules summary."""
    return render_set(spec.model, template, paper=paper, ink=ink, keywords=keywords)
