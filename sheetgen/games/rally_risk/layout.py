"""Pure geometry of Rally Risk's printables (no reportlab): a road section drawn in its
square, section cards on a page, and a course laid out on the table as a map.

Units are millimetres, y up, origin at the bottom-left of the square or page.

A section is drawn north up as printed: the road runs from the midpoint of its entry side
to the midpoint of its exit side. A straight crosses the square; a curve is a quarter
circle round the corner between the two sides; a sharp curve runs straight in, turns on a
tight radius next to the square's centre and runs straight out, so the two read apart.
Its spaces split the road's centre line into equal lengths, in driving order.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from itertools import pairwise

from sheetgen.errors import SheetgenError
from sheetgen.games.rally_risk.graph import layout_graph, quarter_turns
from sheetgen.games.rally_risk.model import Leg, Section, Side, Tag

#: Sizes a library's `card_mm` may take (its default is model.DEFAULT_CARD_MM).
MIN_CARD_MM = 50
MAX_CARD_MM = 180
#: Road width as a share of the square's side.
ROAD_WIDTH = 0.26
#: Sharp curves turn on this radius (share of the side), straight in and out.
SHARP_RADIUS = 0.2
#: A space must be at least this long along the road on a card: its factor must fit.
MIN_SPACE_MM = 5.0

Point = tuple[float, float]


class LayoutError(SheetgenError):
    """The printables do not fit the page (cards too big for the paper and margins)."""


# --------------------------------------------------------------------------- roads


def road_kind(section: Section) -> str:
    """'straight', 'curve' or 'sharp' (a turning section tagged sharp_curve)."""
    if not section.turns:
        return "straight"
    return "sharp" if Tag.SHARP_CURVE in section.tags else "curve"


_LENGTH_SHARE = {
    "straight": 1.0,
    "curve": math.pi / 4,
    "sharp": 1.0 - (2.0 - math.pi / 2) * SHARP_RADIUS,
}


def min_card_mm(section: Section) -> float:
    """The smallest card on which every space of `section` is MIN_SPACE_MM long."""
    return MIN_SPACE_MM * len(section.factors) / _LENGTH_SHARE[road_kind(section)]


@dataclass(frozen=True)
class _Line:
    a: Point
    b: Point

    @property
    def length(self) -> float:
        return math.dist(self.a, self.b)

    def at(self, s: float) -> tuple[Point, Point]:
        ux, uy = (self.b[0] - self.a[0]) / self.length, (self.b[1] - self.a[1]) / self.length
        return (self.a[0] + ux * s, self.a[1] + uy * s), (ux, uy)


@dataclass(frozen=True)
class _Arc:
    centre: Point
    radius: float
    a0: float
    a1: float  # a1 < a0: clockwise (a right turn)

    @property
    def length(self) -> float:
        return self.radius * abs(self.a1 - self.a0)

    def at(self, s: float) -> tuple[Point, Point]:
        sign = 1.0 if self.a1 > self.a0 else -1.0
        a = self.a0 + sign * s / self.radius
        p = (self.centre[0] + self.radius * math.cos(a), self.centre[1] + self.radius * math.sin(a))
        return p, (-math.sin(a) * sign, math.cos(a) * sign)


def _canonical(kind: str, exit_: Side, size: float) -> list:
    """Centre line of a section entered from the south, leaving by `exit_` (N, E or W)."""
    h = size / 2
    if kind == "straight":
        return [_Line((h, 0.0), (h, size))]
    right = exit_ is Side.E
    if kind == "curve":
        if right:
            return [_Arc((size, 0.0), h, math.pi, math.pi / 2)]
        return [_Arc((0.0, 0.0), h, 0.0, math.pi / 2)]
    r = SHARP_RADIUS * size
    if right:
        return [
            _Line((h, 0.0), (h, h - r)),
            _Arc((h + r, h - r), r, math.pi, math.pi / 2),
            _Line((h + r, h), (size, h)),
        ]
    return [_Line((h, 0.0), (h, h - r)), _Arc((h - r, h - r), r, 0.0, math.pi / 2), _Line((h - r, h), (0.0, h))]


def _walk(segments: list, s: float) -> tuple[Point, Point]:
    for seg in segments:
        if s <= seg.length + 1e-9 or seg is segments[-1]:
            return seg.at(min(max(s, 0.0), seg.length))
        s -= seg.length
    raise AssertionError("unreachable")


def _rotate(p: Point, size: float, quarter: int) -> Point:
    """`p` turned clockwise by `quarter` * 90 degrees about the square's centre."""
    c = size / 2
    x, y = p[0] - c, p[1] - c
    for _ in range(quarter % 4):
        x, y = y, -x
    return (round(c + x, 9), round(c + y, 9))


def _turn(v: Point, quarter: int) -> Point:
    x, y = v
    for _ in range(quarter % 4):
        x, y = y, -x
    return (round(x, 12), round(y, 12))


@dataclass(frozen=True)
class SpaceShape:
    """One space of a drawn road: its outline, centre, the direction of travel there,
    and `number_point`, inside the road near its edge on the outside of a bend (the left
    edge on a straight), where a small number goes beside the factor."""

    index: int  # 1-based within the section
    factor: int
    ford: bool
    polygon: tuple[Point, ...]
    centre: Point
    tangent: Point
    number_point: Point
    outward: Point  # unit vector from the centre line toward the number's side
    length: float  # along the centre line


@dataclass(frozen=True)
class RoadShape:
    """A section's road in a square of side `size` (origin at its bottom-left), turned
    clockwise by `quarter` quarter turns from how it is printed."""

    size: float
    width: float
    kind: str
    entry: Side  # side of the square (as drawn) the road comes in by
    exit: Side
    outline: tuple[Point, ...]
    spaces: tuple[SpaceShape, ...]
    dividers: tuple[tuple[Point, Point], ...]  # across the road, ends included
    free_corner: tuple[Side, Side]  # (N or S, E or W): where the road leaves room for text

    def edge_point(self, side: Side) -> Point:
        h = self.size / 2
        return {Side.N: (h, self.size), Side.S: (h, 0.0), Side.E: (self.size, h), Side.W: (0.0, h)}[side]


@functools.lru_cache(maxsize=4096)  # the same section drawn again (a course map, its strip, the cards): 4 in 5 calls
def road_shape(
    section: Section, size: float, quarter: int = 0, samples: int = 8, width_share: float = ROAD_WIDTH
) -> RoadShape:
    """The road of `section` drawn in a square of side `size`, turned `quarter` times
    clockwise (0: as printed, north up); the road is `width_share` of the side wide."""
    to_canonical = next(t for t in range(4) if section.entry.turned(t) is Side.S)
    canonical_exit = section.exit.turned(to_canonical)
    kind = road_kind(section)
    segments = _canonical(kind, canonical_exit, size)
    turn = (quarter - to_canonical) % 4  # canonical -> printed -> drawn
    length = sum(seg.length for seg in segments)
    width = width_share * size
    n = len(section.factors)
    step = length / n

    def point(s: float) -> tuple[Point, Point]:
        p, t = _walk(segments, s)
        return _rotate(p, size, turn), _turn(t, turn)

    def offset(p: Point, t: Point, d: float) -> Point:
        return (p[0] - t[1] * d, p[1] + t[0] * d)  # d > 0: to the left of travel

    half = width / 2
    side = -1.0 if kind != "straight" and canonical_exit is Side.W else 1.0  # outside of a bend
    spaces = []
    fords = set(section.fords)
    dividers = []
    for i in range(n):
        s0, s1 = i * step, (i + 1) * step
        pts = [point(s0 + (s1 - s0) * k / samples) for k in range(samples + 1)]
        left = [offset(p, t, half) for p, t in pts]
        right = [offset(p, t, -half) for p, t in reversed(pts)]
        centre, tangent = point((s0 + s1) / 2)
        spaces.append(
            SpaceShape(
                index=i + 1,
                factor=section.factors[i],
                ford=(i + 1) in fords,
                polygon=tuple(left + right),
                centre=centre,
                tangent=tangent,
                number_point=offset(centre, tangent, side * half * 0.62),
                outward=(-tangent[1] * side, tangent[0] * side),
                length=step,
            )
        )
        p0, t0 = pts[0]
        dividers.append((offset(p0, t0, half), offset(p0, t0, -half)))
    p_end, t_end = point(length)
    dividers.append((offset(p_end, t_end, half), offset(p_end, t_end, -half)))
    many = [point(length * k / (samples * n)) for k in range(samples * n + 1)]
    outline = tuple([offset(p, t, half) for p, t in many] + [offset(p, t, -half) for p, t in reversed(many)])
    entry = section.entry.turned(quarter)
    exit_ = section.exit.turned(quarter)
    return RoadShape(
        size, width, kind, entry, exit_, outline, tuple(spaces), tuple(dividers), _free_corner(kind, entry, exit_)
    )


def _free_corner(kind: str, entry: Side, exit_: Side) -> tuple[Side, Side]:
    """The corner of the square that the road and its IN/OUT labels (on the right-hand
    side of travel at both ends) leave free, as (N or S, E or W)."""
    if kind != "straight":
        sides = {entry, exit_}
        ns = Side.S if Side.N in sides else Side.N
        ew = Side.W if Side.E in sides else Side.E
        return ns, ew
    heading = entry.opposite
    left = heading.turned(3)  # the left-hand side of travel
    if left in (Side.E, Side.W):
        return Side.N, left
    return left, Side.W


# --------------------------------------------------------------------------- card pages


@dataclass(frozen=True)
class CardGrid:
    """Cards on a page: `cols` x `rows` squares of side `card`, side by side (one cut
    between two cards), the grid's bottom-left at (x0, y0). Cut marks stand outside the
    grid on every card edge, `mark_gap` away from it and `mark_len` long."""

    cols: int
    rows: int
    card: float
    x0: float
    y0: float
    mark_gap: float
    mark_len: float

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    def origin(self, slot: int) -> Point:
        """Bottom-left of card `slot` (0-based, left to right, top row first)."""
        col, row = slot % self.cols, slot // self.cols
        return (self.x0 + col * self.card, self.y0 + (self.rows - 1 - row) * self.card)

    @property
    def cut_x(self) -> tuple[float, ...]:
        return tuple(self.x0 + i * self.card for i in range(self.cols + 1))

    def marks(self, used: int | None = None) -> tuple[tuple[Point, Point], ...]:
        """The cut marks (line segments) for the first `used` cards (default all): on each
        grid line, outside the grid, at both ends."""
        used = self.per_page if used is None else used
        rows = math.ceil(used / self.cols)
        cols = self.cols if rows > 1 else used
        x_lines = self.cut_x[: cols + 1]
        top = self.y0 + self.rows * self.card
        bottom = top - rows * self.card
        y_lines = tuple(top - j * self.card for j in range(rows + 1))
        right = self.x0 + cols * self.card
        g, m = self.mark_gap, self.mark_len
        out: list[tuple[Point, Point]] = []
        for x in x_lines:
            out.append(((x, top + g), (x, top + g + m)))
            out.append(((x, bottom - g), (x, bottom - g - m)))
        for y in y_lines:
            out.append(((self.x0 - g, y), (self.x0 - g - m, y)))
            out.append(((right + g, y), (right + g + m, y)))
        return tuple(out)


def card_grid(
    page_w: float,
    page_h: float,
    margin: float,
    card: float,
    *,
    header: float,
    footer: float,
    mark_gap: float = 1.0,
    mark_len: float = 3.5,
) -> CardGrid:
    """As many cards of side `card` as fit between the header and footer inside the
    margins, with room for the cut marks around them; the grid is centred across."""
    room = mark_gap + mark_len
    width = page_w - 2 * margin - 2 * room
    height = page_h - 2 * margin - header - footer - 2 * room
    cols, rows = int(width // card + 1e-9), int(height // card + 1e-9)
    if cols < 1 or rows < 1:
        raise LayoutError(
            f"a {card:g} mm card does not fit a {page_w:.0f} x {page_h:.0f} mm page with {margin:g} mm margins "
            f"(room: {max(width, 0):.0f} x {max(height, 0):.0f} mm); choose a smaller card_mm"
        )
    x0 = (page_w - cols * card) / 2
    top = page_h - margin - header - room
    return CardGrid(cols, rows, card, x0, top - rows * card, mark_gap, mark_len)


# --------------------------------------------------------------------------- course map


@dataclass(frozen=True)
class MapSquare:
    leg: int  # 0-based index in the course
    x: float  # bottom-left of the square on the map
    y: float
    quarter: int  # clockwise quarter turns of the printed section as drawn


@dataclass(frozen=True)
class CourseMap:
    """A course drawn as laid on the table: every section on its square of side `cell`.
    The whole layout is turned `rotate` quarter turns clockwise when that lets it be drawn
    larger (`north` is then the side of the map the table's north points to). A course
    whose shape would leave most of the frame empty (a long straight line, say) is cut
    into consecutive pieces drawn side by side or one above the other, each as laid on the
    table and all at one scale: `breaks` are the legs that start a piece after the first."""

    cell: float
    rotate: int
    width: float
    height: float
    squares: tuple[MapSquare, ...]
    breaks: tuple[int, ...] = ()

    @property
    def pieces(self) -> int:
        return len(self.breaks) + 1

    @property
    def north(self) -> Side:
        return Side.N.turned(self.rotate)


#: Room between two pieces of a cut map (for the words where the road runs on).
PIECE_GAP_MM = 7.0
#: A map is cut into pieces only when that draws its squares this much larger (per cut).
PIECE_GAIN = 1.5
MAX_PIECES = 4
#: ... and only a course that, whole, would cover less than this share of the frame.
MIN_FILL = 0.5


def _box(cells: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    return min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1


def _splits(n: int, pieces: int):
    """The ways to cut legs 0..n-1 into `pieces` consecutive runs of at least one leg."""
    from itertools import combinations

    for cuts in combinations(range(1, n), pieces - 1):
        yield (0, *cuts, n)


def course_map(
    course: tuple[Leg, ...], max_w: float, max_h: float, max_cell: float = 40.0, gap: float = PIECE_GAP_MM
) -> CourseMap:
    """The course's squares fitted into max_w x max_h: north up, or turned a quarter when
    that draws the squares at least 10% larger. A course that, whole, would cover less
    than MIN_FILL of the frame is cut into up to MAX_PIECES pieces (side by side, or one
    above the other) when each cut draws the squares PIECE_GAIN times larger."""
    layout = layout_graph(course)
    cells = [layout.nodes[i]["cell"] for i in range(len(course))]
    n = len(course)
    wholes, cuts = [], []  # per rotation: (cell, rotate, bounds, across, turned)
    for rotate in (0, 1):
        turned = [(y, -x) if rotate else (x, y) for x, y in cells]
        whole = cut = None
        for pieces in range(1, min(MAX_PIECES, n) + 1):
            found = None
            for bounds in _splits(n, pieces):
                boxes = [_box(turned[a:b]) for a, b in pairwise(bounds)]
                for across in (True, False):  # side by side, or one above the other
                    if pieces == 1 and not across:
                        continue
                    cols = sum(b[2] for b in boxes) if across else max(b[2] for b in boxes)
                    rows = max(b[3] for b in boxes) if across else sum(b[3] for b in boxes)
                    room_w = max_w - (pieces - 1) * gap * across
                    room_h = max_h - (pieces - 1) * gap * (not across)
                    if room_w <= 0 or room_h <= 0:
                        continue
                    cell = min(room_w / cols, room_h / rows, max_cell)
                    if found is None or cell > found[0] + 1e-9:
                        found = (cell, rotate, bounds, across, turned)
            if found is None:
                break
            if whole is None:
                whole = cut = found
            elif cut is not None and found[0] > whole[0] * PIECE_GAIN ** (pieces - 1) and found[0] > cut[0]:
                cut = found
        wholes.append(whole)
        cuts.append(cut)

    def pick(options):
        return options[1] if options[1][0] > options[0][0] * 1.1 else options[0]

    best = pick(wholes)
    _x, _y, cols, rows = _box([(y, -x) if best[1] else (x, y) for x, y in cells])
    if cols * rows * best[0] ** 2 < MIN_FILL * max_w * max_h:  # the whole leaves the frame mostly empty
        best = pick(cuts)
    cell, rotate, bounds, across, turned = best
    boxes = [_box(turned[a:b]) for a, b in pairwise(bounds)]
    if across:
        width = sum(b[2] for b in boxes) * cell + (len(boxes) - 1) * gap
        height = max(b[3] for b in boxes) * cell
    else:
        width = max(b[2] for b in boxes) * cell
        height = sum(b[3] for b in boxes) * cell + (len(boxes) - 1) * gap
    squares: list[MapSquare] = []
    at = 0.0  # along the pieces: x from the left, or y down from the top
    for (a, b), (x0, y0, cols, rows) in zip(pairwise(bounds), boxes):
        for i in range(a, b):
            gx, gy = turned[i][0] - x0, turned[i][1] - y0
            if across:
                x, y = at + gx * cell, height - rows * cell + gy * cell  # tops in line
            else:
                x, y = gx * cell, height - at - rows * cell + gy * cell
            squares.append(MapSquare(i, x, y, (quarter_turns(course[i]) + rotate) % 4))
        at += (cols if across else rows) * cell + gap
    return CourseMap(cell, rotate, width, height, tuple(squares), tuple(bounds[1:-1]))


# --------------------------------------------------------------------------- space strip


@dataclass(frozen=True)
class Strip:
    """The course's spaces as rows of numbered cells: `per_row` cells of width `cell`."""

    per_row: int
    rows: int
    cell: float


def space_strip(spaces: int, width: float, min_cell: float = 5.5, max_cell: float = 9.0) -> Strip:
    most = max(int(width // min_cell), 1)
    rows = max(math.ceil(spaces / most), 1)
    per_row = math.ceil(spaces / rows)
    return Strip(per_row, rows, min(width / per_row, max_cell))


# --------------------------------------------------------------------------- the kit


#: The pieces of the print-and-play kit (mm): a car token sits on one space of a 80 mm card.
TOKEN_MM = 13.0
MARKER_MM = 9.0
WEATHER_MM = 13.0
RPM_W_MM = 60.0
RPM_H_MM = 84.0
KIT_TITLE_MM = 6.0  # a group's title above its pieces
KIT_GAP_MM = 6.0  # between groups


@dataclass(frozen=True)
class Piece:
    """One cut-out piece of the kit: `kind` is "car", "mechanic", "weather" or "rpm";
    `car` the car it belongs to (1-6; 0 for the weather marker); (x, y) its bottom-left."""

    kind: str
    car: int
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class KitLayout:
    pieces: tuple[Piece, ...]
    titles: tuple[tuple[str, float, float], ...]  # (group, x, y of the title's baseline)

    def of(self, kind: str) -> tuple[Piece, ...]:
        return tuple(p for p in self.pieces if p.kind == kind)


def kit_layout(
    page_w: float, page_h: float, margin: float, *, header: float, cars: int = 6, mechanics: int = 3, weather: int = 2
) -> KitLayout:
    """The kit on one page: a row of car tokens and the weather markers, a row of each
    car's mechanics, and an R.P.M. card per car, three to a row. Pieces of a group touch
    (one cut between two), and everything stays inside the margins below the header."""
    left, right = margin, page_w - margin
    width = right - left
    y = page_h - margin - header
    pieces: list[Piece] = []
    titles: list[tuple[str, float, float]] = []
    # cars and weather markers
    y -= KIT_TITLE_MM
    titles.append(("cars", left, y + 1.5))
    y -= TOKEN_MM
    for k in range(cars):
        pieces.append(Piece("car", k + 1, left + k * TOKEN_MM, y, TOKEN_MM, TOKEN_MM))
    wx = right - weather * WEATHER_MM
    titles.append(("weather", wx, y + TOKEN_MM + 1.5))
    for k in range(weather):
        pieces.append(Piece("weather", 0, wx + k * WEATHER_MM, y + TOKEN_MM - WEATHER_MM, WEATHER_MM, WEATHER_MM))
    y -= KIT_GAP_MM
    # mechanics: a group per car, spread across the page
    y -= KIT_TITLE_MM
    titles.append(("mechanics", left, y + 1.5))
    y -= MARKER_MM
    group = mechanics * MARKER_MM
    gap = (width - cars * group) / max(cars - 1, 1)
    for k in range(cars):
        gx = left + k * (group + gap)
        for m in range(mechanics):
            pieces.append(Piece("mechanic", k + 1, gx + m * MARKER_MM, y, MARKER_MM, MARKER_MM))
    y -= KIT_GAP_MM
    # R.P.M. cards, as large as the room left allows (at most RPM_W_MM x RPM_H_MM)
    y -= KIT_TITLE_MM
    titles.append(("rpm", left, y + 1.5))
    per_row = 3
    rows = math.ceil(cars / per_row)
    scale = min(1.0, (y - margin) / (rows * RPM_H_MM), width / (per_row * RPM_W_MM))
    w, h = RPM_W_MM * scale, RPM_H_MM * scale
    x0 = left + (width - per_row * w) / 2
    for k in range(cars):
        row, col = divmod(k, per_row)
        pieces.append(Piece("rpm", k + 1, x0 + col * w, y - (row + 1) * h, w, h))
    return KitLayout(tuple(pieces), tuple(titles))


# --------------------------------------------------------------------------- gear simulators


#: The gear simulators (mm): a strip per car standing in for the box's gear simulator, with
#: the car's band, a cell per gear and a cell per turn at a halt, each with a spot for a marker.
TRACK_MARKER_MM = 12.0  # a gear or halt marker, cut out at the strip's end
TRACK_SPOT_MM = 13.0  # the dashed square a marker goes on
TRACK_STRIP_MM = 31.0  # a strip's height
TRACK_GAP_MM = 4.0  # between two strips
TRACK_BAND_MM = 18.0  # the car's band at the strip's start
TRACK_HALT_MM = 14.5  # a halt cell's width
TRACK_SPACE_MM = 2.5  # between the gears, the halts and the markers
#: The turns a car can stand at a halt: damage of the 3rd degree, or a repair and a change of
#: tyres in one stop (docs/rulings.md RR-10, RR-13) never leave more than three.
HALT_TURNS = 3


@dataclass(frozen=True)
class Cell:
    """A cell of a gear simulator: `label` ("1st".."5th", "3".."1", "out"), its outline
    (bottom-left x, y, w, h) and the spot a marker goes on (bottom-left x, y; TRACK_SPOT_MM)."""

    label: str
    x: float
    y: float
    w: float
    h: float
    spot: tuple[float, float]


@dataclass(frozen=True)
class TrackerStrip:
    """One car's gear simulator: its band, its gear cells (1st-5th), its halt cells ("out" for
    a car eliminated, then 3, 2, 1 turns: a halted car's marker moves right, off the strip
    after the 1) and its two markers to cut out (gear, halt)."""

    car: int
    band: tuple[float, float, float, float]
    gears: tuple[Cell, ...]
    halts: tuple[Cell, ...]
    markers: tuple[Piece, Piece]


def tracker_layout(
    page_w: float, page_h: float, margin: float, *, header: float, cars: int = 6
) -> tuple[TrackerStrip, ...]:
    """The gear simulators on one page below `header` mm: a strip per car, full width, one
    under the other. The gear cells share what the band, the halt cells and the markers
    leave; everything stays inside the margins. Raises ValueError when the page is too small
    (no paper sheetgen prints on is)."""
    left, right = margin, page_w - margin
    width = right - left
    halts = HALT_TURNS + 1
    gear_w = (width - TRACK_BAND_MM - halts * TRACK_HALT_MM - TRACK_MARKER_MM - 3 * TRACK_SPACE_MM) / 5
    top = page_h - margin - header
    if gear_w < TRACK_SPOT_MM + 2 or top - cars * (TRACK_STRIP_MM + TRACK_GAP_MM) < margin:
        raise ValueError(f"a page of {page_w} x {page_h} mm is too small for {cars} gear simulators")
    strips = []
    for k in range(cars):
        y = top - (k + 1) * TRACK_STRIP_MM - k * TRACK_GAP_MM
        h = TRACK_STRIP_MM
        x = left + TRACK_BAND_MM
        gears = []
        for g in range(5):
            cx = x + g * gear_w
            spot = (cx + (gear_w - TRACK_SPOT_MM) / 2, y + h - 5.0 - TRACK_SPOT_MM)
            gears.append(Cell(("1st", "2nd", "3rd", "4th", "5th")[g], cx, y, gear_w, h, spot))
        x += 5 * gear_w + TRACK_SPACE_MM
        cells = []
        for t in range(halts):
            cx = x + t * TRACK_HALT_MM
            label = str(HALT_TURNS + 1 - t) if t else "out"
            spot = (cx + (TRACK_HALT_MM - TRACK_SPOT_MM) / 2, y + h - 5.0 - TRACK_SPOT_MM)
            cells.append(Cell(label, cx, y, TRACK_HALT_MM, h, spot))
        x += halts * TRACK_HALT_MM + TRACK_SPACE_MM
        mark = TRACK_MARKER_MM
        gap = (h - 2 * mark) / 3
        markers = (
            Piece("gear marker", k + 1, right - mark, y + h - gap - mark, mark, mark),
            Piece("halt marker", k + 1, right - mark, y + gap, mark, mark),
        )
        strips.append(TrackerStrip(k + 1, (left, y, TRACK_BAND_MM, h), tuple(gears), tuple(cells), markers))
    return tuple(strips)
