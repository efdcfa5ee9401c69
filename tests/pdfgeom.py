"""A small PDF path reader for the tests: what a page draws, read back from its content stream
(pypdf's parser), never from the code that laid it out.

Each stroked or filled path comes with the graphics state it was painted in (stroke colour,
line width, dash, line cap) and its points in page coordinates (points, y up; curves are
flattened to their end and control points, enough for bounding boxes). Each text run (one
show operation) comes with its position, font size, font name and string (decoded through
the font's ToUnicode map, as a viewer's text layer reads it), and its box: the advance
widths the PDF gives for its glyphs, from the font's descender to its ascender, through the
text and page transformations (rotated text included).
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass

from pypdf import PdfReader
from reportlab.pdfbase import pdfmetrics

from pdfops import operations
from sheetgen.render.pdf import register_fonts

MM = 72 / 25.4


@dataclass(frozen=True)
class Path:
    op: bytes  # the painting operator: S, f, B, ...
    subpaths: tuple[tuple[tuple[float, float], ...], ...]
    rects: tuple[tuple[float, float, float, float], ...]  # x, y, w, h of each `re`
    stroke: tuple[float, ...]
    width: float
    dash: tuple[float, ...]
    cap: int
    order: int  # position among the page's paths and texts
    #: the box of the clipping paths in force (their bounding boxes intersected), or None
    clip: tuple[float, float, float, float] | None = None

    @property
    def points(self) -> list[tuple[float, float]]:
        pts = [p for sub in self.subpaths for p in sub]
        for x, y, w, h in self.rects:
            pts += [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        return pts

    @property
    def stroked(self) -> bool:
        return self.op in (b"S", b"s", b"B", b"B*", b"b", b"b*")

    def bbox(self) -> tuple[float, float, float, float]:
        """What the path covers: its points, and a stroke's half width around them (only
        across a single straight segment with butt caps, which end where the segment does)."""
        pts = self.points
        if self.stroked and self.cap == 0 and len(pts) == 2 and not self.rects:
            (ax, ay), (bx, by) = pts
            n = math.hypot(bx - ax, by - ay) or 1.0
            nx, ny = -(by - ay) / n * self.width / 2, (bx - ax) / n * self.width / 2
            pts = [(ax + nx, ay + ny), (ax - nx, ay - ny), (bx + nx, by + ny), (bx - nx, by - ny)]
            grow = 0.0
        else:
            grow = self.width / 2 if self.stroked else 0.0
        xs = [x for x, _ in pts]
        ys = [y for _, y in pts]
        return (min(xs) - grow, min(ys) - grow, max(xs) + grow, max(ys) + grow)


IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _mul(m, n):
    """m then n (PDF's row-vector convention)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    size: float
    font: str
    value: str
    order: int
    #: the advance of the run in text space (points at the font size), from the PDF's widths
    advance: float = 0.0
    #: text space to page: the text matrix then the CTM at the show operation
    matrix: tuple[float, ...] = IDENTITY
    ascent: float = 0.928  # of the font size, from the PDF's font descriptor
    descent: float = -0.236
    #: the box of the clipping paths in force (their bounding boxes intersected), or None
    clip: tuple[float, float, float, float] | None = None
    #: the fill colour the run is painted in (grey or RGB, 0 to 1, as the PDF sets it)
    fill: tuple[float, ...] = (0.0, 0.0, 0.0)

    def _box(self, bottom: float, top: float) -> tuple[float, float, float, float]:
        a, b, c, d, e, f = self.matrix
        width = self.advance if self.advance else pdfmetrics.stringWidth(self.value, self.font, self.size)
        corners = [(a * u + c * v + e, b * u + d * v + f) for u in (0.0, width) for v in (bottom, top)]
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        return (min(xs), min(ys), max(xs), max(ys))

    def bbox(self) -> tuple[float, float, float, float]:
        """The run's box on the page: its advance width, from the descender to the ascender."""
        return self._box(self.descent * self.size, self.ascent * self.size)

    def ink_box(self) -> tuple[float, float, float, float]:
        """A tighter box: digits and capitals, from the baseline to the cap height."""
        return self._box(0.0, 0.73 * self.size)

    def glyph_box(self) -> tuple[float, float, float, float]:
        """The box its glyphs can reach: up to the ascender of the ASCII letters (0.76 of the
        size; the font's whole ascender for any other character, an accented capital), down
        to the baseline unless a character descends (then to the font's descender)."""
        top = 0.76 if self.value.isascii() else self.ascent
        low = not self.value.isascii() or any(ch in _DESCENDING for ch in self.value)
        return self._box(self.descent * self.size if low else -0.02 * self.size, top * self.size)

    def visible_box(self) -> tuple[float, float, float, float] | None:
        """`glyph_box` cut to the clipping box in force: None when the clip hides the run."""
        return intersection(self.glyph_box(), self.clip)


_DESCENDING = frozenset("gjpqyQ,;()[]{}|_$@/\\")


def intersection(box, clip):
    """Two boxes' common part (clip None: no clip), or None when they do not meet."""
    if clip is None:
        return box
    x0, y0, x1, y1 = max(box[0], clip[0]), max(box[1], clip[1]), min(box[2], clip[2]), min(box[3], clip[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


@dataclass(frozen=True)
class Page:
    width: float
    height: float
    paths: tuple[Path, ...]
    texts: tuple[Text, ...]


def read_pages(data: bytes) -> list[Page]:
    register_fonts()
    pdf = PdfReader(io.BytesIO(data))
    return [_read(pdf, page) for page in pdf.pages]


def _tounicode(data: bytes) -> dict[int, str]:
    """A ToUnicode CMap's one-byte bfchar and bfrange entries: code -> text."""
    text = data.decode("latin-1")
    found: dict[int, str] = {}

    def uni(hexes: str) -> str:
        return bytes.fromhex(hexes).decode("utf-16-be", errors="replace")

    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.DOTALL):
        for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            found[int(src, 16)] = uni(dst)
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.DOTALL):
        for lo, hi, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            for i in range(int(hi, 16) - int(lo, 16) + 1):
                found[int(lo, 16) + i] = chr(int(dst, 16) + i)
    return found


@dataclass(frozen=True)
class _Font:
    name: str
    unicode: dict
    widths: dict
    ascent: float
    descent: float

    @staticmethod
    def of(ref) -> _Font:
        font = ref.get_object()
        first = int(font.get("/FirstChar", 0))
        widths = {first + i: float(w) for i, w in enumerate(font.get("/Widths", []))}
        unicode = _tounicode(font["/ToUnicode"].get_object().get_data()) if "/ToUnicode" in font else {}
        descriptor = font["/FontDescriptor"].get_object() if "/FontDescriptor" in font else {}
        return _Font(str(font["/BaseFont"]).split("+")[-1], unicode, widths, float(descriptor.get("/Ascent", 928)) / 1000, float(descriptor.get("/Descent", -236)) / 1000)


def _shown(operand) -> bytes:
    if isinstance(operand, bytes):
        return bytes(operand)
    return operand.original_bytes if hasattr(operand, "original_bytes") else str(operand).encode("latin-1")


def _read(pdf: PdfReader, page) -> Page:
    paths: list[Path] = []
    texts: list[Text] = []
    _walk(pdf, page, page["/Resources"], IDENTITY, None, paths, texts)
    box = page.mediabox
    return Page(float(box.width), float(box.height), tuple(paths), tuple(texts))


def _walk(pdf: PdfReader, holder, resources, ctm, clip, paths: list[Path], texts: list[Text]) -> None:
    """The paths and texts of a page's content stream (or a form XObject's, `holder`), in the
    CTM and clip it is shown in; a form it shows (Do) is walked where it is shown."""
    resources = resources.get_object() if hasattr(resources, "get_object") else resources
    fonts = {name: _Font.of(ref) for name, ref in resources.get("/Font", {}).items()}
    ops = operations(holder.get_contents() if hasattr(holder, "get_contents") else holder, pdf)
    stack: list[tuple] = []
    stroke: tuple[float, ...] = (0.0,)
    dash: tuple[float, ...] = ()
    width, cap = 1.0, 0
    fill: tuple[float, ...] = (0.0, 0.0, 0.0)
    font, size = _Font("", {}, {}, 0.928, -0.236), 0.0
    tm: tuple[float, ...] = IDENTITY
    tlm: tuple[float, ...] = IDENTITY
    subpaths: list[list[tuple[float, float]]] = []
    rects: list[tuple[float, float, float, float]] = []
    clipping = False  # a W or W* waits for the path's painting operator

    def at(x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = ctm
        return (a * x + c * y + e, b * x + d * y + f)

    def order() -> int:
        return len(paths) + len(texts)

    for operands, op in ops:
        if op == b"q":
            stack.append((ctm, stroke, width, dash, cap, clip, fill))
        elif op == b"Q":
            ctm, stroke, width, dash, cap, clip, fill = stack.pop()
        elif op in (b"W", b"W*"):
            clipping = True
        elif op == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            A, B, C, D, E, F = ctm
            ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)
        elif op == b"RG":
            stroke = tuple(float(v) for v in operands)
        elif op == b"G":
            stroke = (float(operands[0]),) * 3
        elif op == b"rg":
            fill = tuple(float(v) for v in operands)
        elif op == b"g":
            fill = (float(operands[0]),) * 3
        elif op == b"w":
            width = float(operands[0]) * math.hypot(ctm[0], ctm[1])
        elif op == b"d":
            dash = tuple(float(v) for v in operands[0])
        elif op == b"J":
            cap = int(operands[0])
        elif op == b"m":
            subpaths.append([at(float(operands[0]), float(operands[1]))])
        elif op == b"l":
            subpaths[-1].append(at(float(operands[0]), float(operands[1])))
        elif op == b"c":
            vals = [float(v) for v in operands]
            subpaths[-1] += [at(vals[0], vals[1]), at(vals[2], vals[3]), at(vals[4], vals[5])]
        elif op == b"re":
            x, y, w, h = (float(v) for v in operands)
            (x0, y0), (x1, y1) = at(x, y), at(x + w, y + h)
            rects.append((min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)))
        elif op == b"h":
            if subpaths and subpaths[-1]:
                subpaths[-1].append(subpaths[-1][0])
        elif op in (b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"n"):
            if op != b"n" and (subpaths or rects):
                paths.append(Path(op, tuple(tuple(s) for s in subpaths), tuple(rects), stroke, width, dash, cap, order(), clip))
            if clipping:
                pts = [p for sub in subpaths for p in sub] + [c for x, y, w, h in rects for c in ((x, y), (x + w, y + h))]
                if pts:
                    box = (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
                    clip = intersection(box, clip) or (box[0], box[1], box[0], box[1])
                clipping = False
            subpaths, rects = [], []
        elif op == b"BT":
            tm = tlm = IDENTITY
        elif op == b"Tm":
            tm = tlm = tuple(float(v) for v in operands)
        elif op == b"Td":
            tm = tlm = _mul((1.0, 0.0, 0.0, 1.0, float(operands[0]), float(operands[1])), tlm)
        elif op == b"Tf":
            font, size = fonts[operands[0]], float(operands[1])
        elif op == b"Tj":
            codes = _shown(operands[0])
            advance = sum(font.widths.get(code, 0.0) for code in codes) / 1000 * size
            value = "".join(font.unicode.get(code, chr(code)) for code in codes)
            matrix = _mul(tm, ctm)
            x, y = matrix[4], matrix[5]
            texts.append(
                Text(x, y, size, font.name, value, order(), advance, matrix, font.ascent, font.descent, clip, fill)
            )
            tm = _mul((1.0, 0.0, 0.0, 1.0, advance, 0.0), tm)
        elif op == b"Do":
            xobject = resources["/XObject"][operands[0]].get_object()
            if xobject.get("/Subtype") == "/Form":
                inner = _mul(tuple(float(v) for v in xobject.get("/Matrix", IDENTITY)), ctm)
                _walk(pdf, xobject, xobject.get("/Resources", resources), inner, clip, paths, texts)


# -- plane geometry (points) ---------------------------------------------------------------


def _point_segment(p, a, b) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


def _cross(a, b, c, d) -> bool:
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0


def segment_distance(a, b, c, d) -> float:
    if _cross(a, b, c, d):
        return 0.0
    return min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b), _point_segment(d, a, b))


def polyline_distance(p, q) -> float:
    return min(segment_distance(a, b, c, d) for a, b in zip(p, p[1:]) for c, d in zip(q, q[1:]))


def box_segment_distance(box, a, b) -> float:
    x0, y0, x1, y1 = box
    if x0 <= a[0] <= x1 and y0 <= a[1] <= y1:
        return 0.0
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    return min(segment_distance(a, b, c, d) for c, d in zip(corners, corners[1:] + corners[:1]))
