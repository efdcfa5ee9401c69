"""Pages as SVG: the PDF sheetgen prints, read back with pdfium and written as vector SVG.

`render -o FILE.svg` writes what the PDF draws, object for object: pdfium (pypdfium2, the
library that rasterises the PNG pictures) parses the page into its path, text and form
objects, and each becomes an SVG element in the PDF's painting order, so a shape drawn over
another in the PDF is over it in the SVG too:

- a path keeps its segments, its transformation, its fill (with its fill rule) and stroke
  colours, stroke width, caps, joins and dashes;
- a text object becomes one ``<text>`` of its characters, each placed at the origin pdfium
  gives it (so the words keep the PDF's widths whatever font the viewer finds), in "DejaVu
  Sans" (bold where the PDF's font is), the font sheetgen embeds in its PDFs;
- a form's objects (the page number's "page N of M") are drawn where the form puts them;
- every clipping path is a ``<clipPath>``, written once and referred to by each object it
  clips.

The SVG's ``viewBox`` is the page in PDF points, its size the page's in millimetres (or, with
`dpi`, in pixels at that resolution), so it prints at the PDF's size. Numbers are written to
three decimals (1/1000 of a point) and identifiers are counted in order: one PDF gives the same
bytes every time.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

_POINTS_PER_MM = 72 / 25.4
#: the fonts a viewer tries, in order, for the PDF's DejaVu Sans
_FAMILY = "'DejaVu Sans', Verdana, sans-serif"


@dataclass(frozen=True)
class Vector:
    """One page as an SVG: its text (UTF-8 bytes), size in points and what the PDF's outline
    calls the page."""

    svg: bytes
    width: float
    height: float
    kind: str


def _num(value: float) -> str:
    """A coordinate to 1/1000 of a point, without a trailing zero or a negative zero."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


#: an affine map (a, b, c, d, e, f): (x, y) -> (a x + c y + e, b x + d y + f), as PDF and SVG say it
_Affine = tuple[float, float, float, float, float, float]
_IDENTITY: _Affine = (1, 0, 0, 1, 0, 0)


def _compose(outer: _Affine, inner: _Affine) -> _Affine:
    """The map that applies `inner`, then `outer`."""
    a, b, c, d, e, f = outer
    p, q, r, s, t, u = inner
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def _object_matrix(raw, obj) -> _Affine:
    matrix = raw.FS_MATRIX()
    raw.FPDFPageObj_GetMatrix(obj, matrix)
    return (matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f)


def _colour(r: int, g: int, b: int) -> str:
    return f"#{r:02x}{g:02x}{b:02x}"


def _handle(obj) -> int:
    return ctypes.cast(obj, ctypes.c_void_p).value or 0


@dataclass
class _Char:
    text: str
    x: float
    y: float
    size: float
    bold: bool
    colour: str
    matrix: tuple[float, float, float, float]


class _Page:
    """The SVG elements of one pdfium page, made in painting order."""

    def __init__(self, raw, page) -> None:
        self.raw = raw
        self.page = page
        # a clipping path's attributes (its path data, and its transform if any) -> its id
        self.clips: dict[str, str] = {}
        self.chars = self._characters()

    # -- text ---------------------------------------------------------------------------------

    def _characters(self) -> dict[int, list[_Char]]:
        """Each text object's characters (pdfium's text page knows their places), in order;
        the spaces and line ends pdfium makes up between objects are left out."""
        r = self.raw
        text_page = r.FPDFText_LoadPage(self.page)
        found: dict[int, list[_Char]] = {}
        try:
            x, y = ctypes.c_double(), ctypes.c_double()
            name = ctypes.create_string_buffer(256)
            flags = ctypes.c_int()
            red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
            matrix = r.FS_MATRIX()
            for index in range(r.FPDFText_CountChars(text_page)):
                obj = r.FPDFText_GetTextObject(text_page, index)
                if not obj or r.FPDFText_IsGenerated(text_page, index) == 1:
                    continue
                code = r.FPDFText_GetUnicode(text_page, index)
                if code < 0x20 and code not in (0x09,):
                    continue
                r.FPDFText_GetCharOrigin(text_page, index, x, y)
                r.FPDFText_GetFontInfo(text_page, index, name, len(name), flags)
                r.FPDFText_GetFillColor(text_page, index, red, green, blue, alpha)
                r.FPDFText_GetMatrix(text_page, index, matrix)
                bold = b"Bold" in name.value or r.FPDFText_GetFontWeight(text_page, index) >= 600
                found.setdefault(_handle(obj), []).append(
                    _Char(
                        chr(code),
                        x.value,
                        y.value,
                        r.FPDFText_GetFontSize(text_page, index),
                        bold,
                        _colour(red.value, green.value, blue.value),
                        (matrix.a, matrix.b, matrix.c, matrix.d),
                    )
                )
        finally:
            r.FPDFText_ClosePage(text_page)
        return found

    def _text(self, obj) -> Iterator[str]:
        """A text object's characters as `<text>` elements, one for each run of one font, size,
        colour and direction, each character at its own origin."""
        chars = self.chars.get(_handle(obj), [])
        run: list[_Char] = []
        for char in chars:
            if run and (char.size, char.bold, char.colour, char.matrix) != (
                run[0].size,
                run[0].bold,
                run[0].colour,
                run[0].matrix,
            ):
                yield self._text_run(run)
                run = []
            run.append(char)
        if run:
            yield self._text_run(run)

    @staticmethod
    def _text_run(run: list[_Char]) -> str:
        first = run[0]
        a, b, c, d = first.matrix
        scale = math.sqrt(abs(a * d - b * c)) or 1.0
        a, b, c, d = a / scale, b / scale, c / scale, d / scale
        det = a * d - b * c or 1.0
        # the run's own frame: x along the baseline, y down (SVG's), origin at the first
        # character; each character's place in it is the inverse of the direction matrix
        xs, ys = [], []
        for char in run:
            dx, dy = char.x - first.x, char.y - first.y
            xs.append(_num((d * dx - c * dy) / det))
            ys.append(_num(-(-b * dx + a * dy) / det))
        frame = " ".join(_num(v) for v in (a, b, -c, -d, first.x, first.y))
        place = f' x="{" ".join(xs)}"'
        if any(v != "0" for v in ys):
            place += f' y="{" ".join(ys)}"'
        weight = ' font-weight="bold"' if first.bold else ""
        fill = "" if first.colour == "#000000" else f' fill="{first.colour}"'
        text = escape("".join(char.text for char in run))
        return (
            f'<text transform="matrix({frame})"{place} font-size="{_num(first.size * scale)}"'
            f"{weight}{fill}>{text}</text>"
        )

    # -- paths ----------------------------------------------------------------------------------

    def _path_data(self, count: int, segment) -> str:
        r = self.raw
        x, y = ctypes.c_float(), ctypes.c_float()
        parts: list[str] = []
        pending: list[str] = []  # a Bezier curve's three points come as three segments
        for index in range(count):
            seg = segment(index)
            r.FPDFPathSegment_GetPoint(seg, x, y)
            point = f"{_num(x.value)} {_num(y.value)}"
            kind = r.FPDFPathSegment_GetType(seg)
            if kind == r.FPDF_SEGMENT_MOVETO:
                parts.append(f"M{point}")
            elif kind == r.FPDF_SEGMENT_LINETO:
                parts.append(f"L{point}")
            elif kind == r.FPDF_SEGMENT_BEZIERTO:
                pending.append(point)
                if len(pending) == 3:
                    parts.append("C" + " ".join(pending))
                    pending = []
            if r.FPDFPathSegment_GetClose(seg):
                parts.append("Z")
        return "".join(parts)

    def _path(self, obj, outer: _Affine) -> str | None:
        r = self.raw
        data = self._path_data(r.FPDFPath_CountSegments(obj), lambda i: r.FPDFPath_GetPathSegment(obj, i))
        fill_mode, stroke = ctypes.c_int(), ctypes.c_int()
        r.FPDFPath_GetDrawMode(obj, fill_mode, stroke)
        if not data or (fill_mode.value == r.FPDF_FILLMODE_NONE and not stroke.value):
            return None
        red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
        attrs = []
        if fill_mode.value == r.FPDF_FILLMODE_NONE:
            attrs.append('fill="none"')
        else:
            r.FPDFPageObj_GetFillColor(obj, red, green, blue, alpha)
            attrs.append(f'fill="{_colour(red.value, green.value, blue.value)}"')
            if fill_mode.value == r.FPDF_FILLMODE_ALTERNATE:
                attrs.append('fill-rule="evenodd"')
        if stroke.value:
            r.FPDFPageObj_GetStrokeColor(obj, red, green, blue, alpha)
            width = ctypes.c_float()
            r.FPDFPageObj_GetStrokeWidth(obj, width)
            attrs.append(f'stroke="{_colour(red.value, green.value, blue.value)}"')
            attrs.append(f'stroke-width="{_num(width.value)}"')
            cap = r.FPDFPageObj_GetLineCap(obj)
            join = r.FPDFPageObj_GetLineJoin(obj)
            if cap in (1, 2):
                attrs.append(f'stroke-linecap="{("round", "square")[cap - 1]}"')
            if join in (1, 2):
                attrs.append(f'stroke-linejoin="{("round", "bevel")[join - 1]}"')
            else:
                attrs.append('stroke-miterlimit="10"')  # the PDF's default
            dashes = r.FPDFPageObj_GetDashCount(obj)
            if dashes > 0:
                array = (ctypes.c_float * dashes)()
                r.FPDFPageObj_GetDashArray(obj, array, dashes)
                attrs.append(f'stroke-dasharray="{" ".join(_num(v) for v in array)}"')
                phase = ctypes.c_float()
                r.FPDFPageObj_GetDashPhase(obj, phase)
                if phase.value:
                    attrs.append(f'stroke-dashoffset="{_num(phase.value)}"')
        matrix = _compose(outer, _object_matrix(r, obj))
        if matrix != _IDENTITY:
            attrs.append(f'transform="matrix({" ".join(_num(v) for v in matrix)})"')
        return f'<path d="{data}" {" ".join(attrs)}/>'

    # -- clipping -------------------------------------------------------------------------------

    def _clip_ids(self, obj, outer: _Affine) -> list[str]:
        """The ids of the clipping paths that clip `obj` (each a `<clipPath>` made once); pdfium
        gives them in the space of the page or form that holds `obj`, which `outer` maps to the
        page."""
        r = self.raw
        clip = r.FPDFPageObj_GetClipPath(obj)
        if not clip:
            return []
        ids = []
        for path in range(r.FPDFClipPath_CountPaths(clip)):
            count = r.FPDFClipPath_CountPathSegments(clip, path)
            if count <= 0:
                continue
            data = self._path_data(count, lambda i, p=path: r.FPDFClipPath_GetPathSegment(clip, p, i))
            attrs = f'd="{data}"'
            if outer != _IDENTITY:
                attrs += f' transform="matrix({" ".join(_num(v) for v in outer)})"'
            if attrs not in self.clips:
                self.clips[attrs] = f"clip{len(self.clips) + 1}"
            ids.append(self.clips[attrs])
        return ids

    # -- objects --------------------------------------------------------------------------------

    def elements(self, objects: list, outer: _Affine = (1, 0, 0, 1, 0, 0)) -> Iterator[str]:
        """The SVG of `objects` (a page's, or a form's whose matrix to the page is `outer`),
        in painting order, in page space: pdfium gives the characters' places and the clipping
        paths there, so a form's objects take its matrix into their own, not a group's."""
        r = self.raw
        for obj in objects:
            kind = r.FPDFPageObj_GetType(obj)
            made: list[str]
            if kind == r.FPDF_PAGEOBJ_PATH:
                path = self._path(obj, outer)
                made = [path] if path else []
            elif kind == r.FPDF_PAGEOBJ_TEXT:
                made = list(self._text(obj))
            elif kind == r.FPDF_PAGEOBJ_FORM:
                inner = [r.FPDFFormObj_GetObject(obj, i) for i in range(r.FPDFFormObj_CountObjects(obj))]
                made = list(self.elements(inner, _compose(outer, _object_matrix(r, obj))))
            else:  # sheetgen draws no images or shadings
                made = []
            if not made:
                continue
            text = "".join(made)
            for clip in reversed(self._clip_ids(obj, outer)):
                text = f'<g clip-path="url(#{clip})">{text}</g>'
            yield text


def page_svg(raw, document, index: int, dpi: int | None, kind: str) -> Vector:
    """Page `index` (0-based) of a pdfium document as an SVG."""
    page = document[index]
    try:
        width, height = page.get_size()
        drawing = _Page(raw, page.raw)
        objects = [raw.FPDFPage_GetObject(page.raw, i) for i in range(raw.FPDFPage_CountObjects(page.raw))]
        body = "\n".join(drawing.elements(objects))
    finally:
        page.close()
    if dpi is None:
        size = f'width="{_num(width / _POINTS_PER_MM)}mm" height="{_num(height / _POINTS_PER_MM)}mm"'
    else:
        size = f'width="{math.ceil(width * dpi / 72)}" height="{math.ceil(height * dpi / 72)}"'
    clips = "".join(
        f'<clipPath id="{name}"><path {attrs}/></clipPath>' for attrs, name in drawing.clips.items()
    )
    title = f"<title>{escape(kind)}</title>\n" if kind else ""
    svg = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" {size} '
        f'viewBox="0 0 {_num(width)} {_num(height)}">\n'
        f"{title}"
        f"<defs>{clips}</defs>\n"
        '<rect width="100%" height="100%" fill="#ffffff"/>\n'
        # PDF space has y up: one flip for the page; each text run flips back for its letters
        f'<g transform="matrix(1 0 0 -1 0 {_num(height)})" font-family={quoteattr(_FAMILY)} '
        'xml:space="preserve">\n'
        f"{body}\n</g>\n</svg>\n"
    )
    return Vector(svg.encode("utf-8"), width, height, kind)


def vectors(pdf: bytes, dpi: int | None = None, pages: list[int] | None = None, default_kind: str = "") -> list[Vector]:
    """The pages of a PDF as SVG (`pages`: 0-based indices, default all); `dpi`: the SVG's
    size in pixels at that resolution, else the page's size in millimetres."""
    import pypdfium2
    import pypdfium2.raw as raw

    from sheetgen.render.raster import page_kinds

    document = pypdfium2.PdfDocument(pdf)
    try:
        kinds = page_kinds(document, default_kind)
        return [
            page_svg(raw, document, index, dpi, kinds[index])
            for index in (range(len(document)) if pages is None else pages)
        ]
    finally:
        document.close()
