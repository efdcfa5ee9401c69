"""Shared PDF machinery: embedded fonts, deterministic canvases, metadata, print aids.

Every sheetgen PDF is made here: fonts are TrueType and embedded (the canvas starts in
DejaVu Sans, never the unembedded Helvetica), invariant mode makes the bytes depend on
the content only, and viewers are asked not to scale the page when printing.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources

from reportlab import rl_config
from reportlab.lib.colors import HexColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from sheetgen import __version__
from sheetgen.template import MM, Ink, Template

# Streams compressed and left binary, not also spelled in ASCII85 (reportlab's default): the
# files are smaller and read faster (every PDF reader takes both)
rl_config.useA85 = 0

SCALE_LABEL = "50 mm: if this bar measures otherwise, print at 100 % (no fit to page)"

_FONT_FILES = {"DejaVuSans": "DejaVuSans.ttf", "DejaVuSans-Bold": "DejaVuSans-Bold.ttf"}


def register_fonts() -> None:
    registered = set(pdfmetrics.getRegisteredFontNames())
    for name, filename in _FONT_FILES.items():
        if name not in registered:
            with resources.as_file(resources.files("sheetgen") / "data" / "fonts" / filename) as path:
                pdfmetrics.registerFont(TTFont(name, str(path)))


@dataclass(frozen=True)
class Meta:
    title: str
    subject: str
    keywords: tuple[str, ...] = ()


class Sheet:
    """A canvas plus the template and ink it draws with; coordinates in points, y up."""

    def __init__(self, canvas: Canvas, template: Template, ink: Ink, page_size: tuple[float, float]):
        self.c = canvas
        self.t = template
        self.ink = ink
        self.width, self.height = page_size
        self.margin = template.margin_mm * MM
        self.pages = 0
        self.kind: str | None = None  # what the last page ended was (`end_page`)

    # -- frame -------------------------------------------------------------------------
    @property
    def left(self) -> float:
        return self.margin

    @property
    def right(self) -> float:
        return self.width - self.margin

    @property
    def top(self) -> float:
        return self.height - self.margin

    @property
    def bottom(self) -> float:
        return self.margin

    def end_page(self, kind: str | None = None) -> None:
        """End the page. `kind` says what it is ("race sheet", "map", "time sheet"): a page
        of another kind than the one before starts an entry of the PDF's outline (the
        bookmarks a viewer lists, which `preview` and the pictures caption the pages with);
        None: the same kind as the page before."""
        if kind is not None and kind != self.kind:
            key = f"page-{self.pages + 1}"
            self.c.bookmarkPage(key)
            self.c.addOutlineEntry(kind, key, level=0)
            self.kind = kind
        self.c.showPage()
        self.pages += 1

    # -- drawing helpers -----------------------------------------------------------------
    def font(self, size_key: str = "body", bold: bool = False, size: float | None = None) -> float:
        points = size if size is not None else self.t.sizes[size_key]
        self.c.setFont(self.t.font_bold if bold else self.t.font_regular, points)
        self.c.setFillColor(HexColor(self.ink.text))
        return points

    def text(
        self,
        x: float,
        y: float,
        value: str,
        size_key: str = "body",
        bold: bool = False,
        align: str = "left",
        size: float | None = None,
    ) -> None:
        self.font(size_key, bold, size)
        if align == "center":
            self.c.drawCentredString(x, y, value)
        elif align == "right":
            self.c.drawRightString(x, y, value)
        else:
            self.c.drawString(x, y, value)

    def text_width(self, value: str, size_key: str = "body", bold: bool = False, size: float | None = None) -> float:
        points = size if size is not None else self.t.sizes[size_key]
        return pdfmetrics.stringWidth(value, self.t.font_bold if bold else self.t.font_regular, points)

    def stroke(
        self, colour: str | None = None, width: float | None = None, dash: Iterable[float] | None = None
    ) -> None:
        self.c.setStrokeColor(HexColor(colour or self.ink.line))
        self.c.setLineWidth(self.ink.line_width if width is None else width)
        self.c.setDash(list(dash) if dash else [])

    def fill(self, colour: str) -> None:
        self.c.setFillColor(HexColor(colour))

    def box(self, x: float, y: float, w: float, h: float, shaded: bool = False, width: float | None = None) -> None:
        """A rectangle outline; shaded only when the ink mode fills areas."""
        self.stroke(width=width)
        filled = shaded and self.ink.fill
        if filled:
            self.fill(self.ink.shade)
        self.c.rect(x, y, w, h, stroke=1, fill=1 if filled else 0)

    def scale_bar_width(self, label: str = SCALE_LABEL) -> float:
        """How wide :meth:`scale_bar` draws, its ink and its label: a bar ending at the right
        margin starts this far before it."""
        return self.ink.line_width / 2 + 50 * MM + 2 * MM + self.text_width(label, "small")

    def scale_bar(self, x: float, y: float, label: str = SCALE_LABEL) -> None:
        """A 50 mm bar with 10 mm ticks: measure it to check the printer did not scale the page.
        `x` is where its ink begins (the left margin): the first tick's line is centred half
        its width further on, so that nothing crosses the margin."""
        length = 50 * MM
        self.stroke(width=self.ink.line_width)
        x += self.ink.line_width / 2
        self.c.line(x, y, x + length, y)
        for i in range(6):
            tick = 2.2 * MM if i in (0, 5) else 1.2 * MM
            self.c.line(x + i * 10 * MM, y, x + i * 10 * MM, y + tick)
        self.text(x + length + 2 * MM, y, label, "small")


def render_pdf(
    template: Template,
    ink_mode: str,
    paper: str | None,
    meta: Meta,
    draw: Callable[[Sheet], None],
) -> tuple[bytes, int]:
    """Run `draw` on a fresh deterministic canvas and return (pdf bytes, page count)."""
    register_fonts()
    page_size = template.page_size(paper)
    buffer = io.BytesIO()
    canvas = Canvas(
        buffer,
        pagesize=page_size,
        invariant=1,
        pageCompression=1,
        initialFontName=template.font_regular,
        initialFontSize=template.sizes["body"],
    )
    canvas.setTitle(meta.title)
    canvas.setAuthor("sheetgen")
    canvas.setSubject(meta.subject)
    canvas.setCreator(f"sheetgen {__version__}")
    canvas.setKeywords(", ".join(meta.keywords))
    canvas.setViewerPreference("PrintScaling", "None")
    sheet = Sheet(canvas, template, template.ink(ink_mode), page_size)
    draw(sheet)
    canvas.save()
    return buffer.getvalue(), sheet.pages
