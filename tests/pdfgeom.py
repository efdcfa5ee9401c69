"""A small PDF path reader for the tests: what a page draws, read back from its content stream
(pypdf's parser), never from the code that laid it out.

Each stroked or filled path comes with the graphics state it was painted in (stroke colour,
line width, dash, line cap) and its points in page coordinates (points, y up; curves are
flattened to their end and control points, enough for bounding boxes). Each text run comes
with its position, font size, font name and string; its box is measured with the font's own
metrics (the embedded DejaVu fonts).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.pdfbase import pdfmetrics

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


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    size: float
    font: str
    value: str
    order: int

    def bbox(self) -> tuple[float, float, float, float]:
        """The run's box: advance width by the font, from the descender to the ascender."""
        face = pdfmetrics.getFont(self.font)
        width = pdfmetrics.stringWidth(self.value, self.font, self.size)
        return (self.x, self.y + face.face.descent / 1000 * self.size, self.x + width, self.y + face.face.ascent / 1000 * self.size)

    def ink_box(self) -> tuple[float, float, float, float]:
        """A tighter box: digits and capitals, from the baseline to the cap height."""
        width = pdfmetrics.stringWidth(self.value, self.font, self.size)
        return (self.x, self.y, self.x + width, self.y + 0.73 * self.size)


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


def _read(pdf: PdfReader, page) -> Page:
    fonts = {name: str(ref.get_object()["/BaseFont"]).split("+")[-1] for name, ref in page["/Resources"]["/Font"].items()}
    ops = ContentStream(page.get_contents(), pdf).operations
    stack: list[tuple] = []
    ctm = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    stroke, width, dash, cap = (0.0,), 1.0, (), 0
    font, size = "", 0.0
    tm = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    subpaths: list[list[tuple[float, float]]] = []
    rects: list[tuple[float, float, float, float]] = []
    paths: list[Path] = []
    texts: list[Text] = []
    order = 0

    def at(x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = ctm
        return (a * x + c * y + e, b * x + d * y + f)

    for operands, op in ops:
        if op == b"q":
            stack.append((ctm, stroke, width, dash, cap))
        elif op == b"Q":
            ctm, stroke, width, dash, cap = stack.pop()
        elif op == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            A, B, C, D, E, F = ctm
            ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)
        elif op == b"RG":
            stroke = tuple(float(v) for v in operands)
        elif op == b"G":
            stroke = (float(operands[0]),) * 3
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
                paths.append(Path(op, tuple(tuple(s) for s in subpaths), tuple(rects), stroke, width, dash, cap, order))
                order += 1
            subpaths, rects = [], []
        elif op == b"BT":
            tm = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        elif op == b"Tm":
            tm = tuple(float(v) for v in operands)
        elif op == b"Td":
            tm = (tm[0], tm[1], tm[2], tm[3], tm[4] + float(operands[0]), tm[5] + float(operands[1]))
        elif op == b"Tf":
            font, size = fonts[operands[0]], float(operands[1])
        elif op == b"Tj":
            x, y = at(tm[4], tm[5])
            texts.append(Text(x, y, size, font, str(operands[0]), order))
            order += 1
    box = page.mediabox
    return Page(float(box.width), float(box.height), tuple(paths), tuple(texts))


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
