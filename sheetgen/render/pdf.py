"""Shared PDF machinery: embedded fonts, deterministic canvases, metadata, print aids.

Every sheetgen PDF is made here: fonts are TrueType and embedded (the canvas starts in
DejaVu Sans, never the unembedded Helvetica), invariant mode makes the bytes depend on
the content only, and viewers are asked not to scale the page when printing and to print
one-sided or double-sided as the printable says (`/ViewerPreferences /Duplex`, from the
game's `registry.Printable.duplex`, set around the render call with :func:`printing`).

Every page carries its number in the PDF, "page N of M": after the scale bar's label on a
page that draws the bar (a page lays the bar out with :meth:`Sheet.scale_bar_width`, which
counts the number in), else at the bottom right inside the margins. The total is known only
when the last page is done, so each page shows a form XObject that :func:`render_pdf`
fills in at the end.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
from collections.abc import Callable, Iterable, Iterator
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

SCALE_LABEL = "50 mm: if not, print at 100 % (no fit to page)"
#: the /Duplex viewer preference of each way a printable is meant to be printed
DUPLEX = {"simplex": "Simplex", "long_edge": "DuplexFlipLongEdge", "short_edge": "DuplexFlipShortEdge"}
#: the room a page number's total is given while the total is not known yet: up to 999 pages
_TOTAL_ROOM = "999"
#: between a scale bar's label and the page number after it
NUMBER_GAP = 2 * MM
_DUPLEX: contextvars.ContextVar[str] = contextvars.ContextVar("sheetgen_duplex", default="simplex")
_ELSEWHERE: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("sheetgen_elsewhere", default=frozenset())


@contextlib.contextmanager
def printing(duplex: str, elsewhere: frozenset[str] = frozenset()) -> Iterator[None]:
    """Within this block, the PDFs :func:`render_pdf` makes ask to be printed `duplex`
    ("simplex", "long_edge" or "short_edge": `registry.Printable.duplex`), and the shared
    pages keyed in `elsewhere` are printed by another file of the job
    (`registry.Printable.shared`); the renderers' core sets both around a printable's render
    function."""
    if duplex not in DUPLEX:
        raise ValueError(f"unknown duplex setting: {duplex!r}")
    token = _DUPLEX.set(duplex)
    leave = _ELSEWHERE.set(frozenset(elsewhere))
    try:
        yield
    finally:
        _ELSEWHERE.reset(leave)
        _DUPLEX.reset(token)


def printed_elsewhere(key: str) -> bool:
    """Whether the shared page `key` (`registry.Printable.shared`) is printed by another file
    of the job, so that this one leaves it out."""
    return key in _ELSEWHERE.get()

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
        #: per page ended, where its number was put: (x, y, align) of the "page N of M" text
        self.numbers: list[tuple[float, float, str]] = []
        self._number: tuple[float, float, str] | None = None  # the current page's, once placed

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
        if self._number is None:  # no scale bar on the page: the number at the bottom right
            size = self.t.sizes["small"]
            self._place_number(self.right, self.bottom - pdfmetrics.getDescent(self.t.font_regular, size), "right")
        assert self._number is not None
        self.numbers.append(self._number)
        self._number = None
        self.c.showPage()
        self.pages += 1

    # -- the page number ---------------------------------------------------------------
    def number_text(self, total: int | str) -> str:
        """What this page's number reads, "page N of M"."""
        return f"page {self.pages + 1} of {total}"

    def number_width(self) -> float:
        """The room this page's number takes (its total not known yet: up to 999 pages)."""
        return self.text_width(self.number_text(_TOTAL_ROOM), "small")

    def page_number(self, x: float, y: float, align: str = "left") -> None:
        """Print this page's number ("page N of M", in the small size) with its baseline at
        (x, y), left-aligned or right-aligned there: for a page that gives it a place of
        its own (else it follows the scale bar's label, or goes at the bottom right)."""
        if self._number is not None:
            raise ValueError(f"page {self.pages + 1} already has its number")
        self._place_number(x, y, align)

    def _place_number(self, x: float, y: float, align: str) -> None:
        """Show this page's number (a form filled in when the PDF is done) at (x, y), its
        baseline, left-aligned or right-aligned there."""
        self._number = (x, y, align)
        self.c.saveState()
        self.c.translate(x, y)
        self.c.doForm(_number_form(self.pages + 1))
        self.c.restoreState()

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

    def scale_bar_width(self, label: str = SCALE_LABEL, number: bool = True) -> float:
        """How wide :meth:`scale_bar` draws, its ink, its label and (`number`) the page
        number after it: a bar ending at the right margin starts this far before it."""
        width = self.ink.line_width / 2 + 50 * MM + 2 * MM + self.text_width(label, "small")
        return width + (NUMBER_GAP + self.number_width() if number else 0.0)

    def scale_bar(self, x: float, y: float, label: str = SCALE_LABEL, number: bool = True) -> None:
        """A 50 mm bar with 10 mm ticks: measure it to check the printer did not scale the page.
        `x` is where its ink begins (the left margin): the first tick's line is centred half
        its width further on, so that nothing crosses the margin. The page's number follows
        the label unless `number` is False (or the page has placed it already)."""
        length = 50 * MM
        self.stroke(width=self.ink.line_width)
        x += self.ink.line_width / 2
        self.c.line(x, y, x + length, y)
        for i in range(6):
            tick = 2.2 * MM if i in (0, 5) else 1.2 * MM
            self.c.line(x + i * 10 * MM, y, x + i * 10 * MM, y + tick)
        self.text(x + length + 2 * MM, y, label, "small")
        if number and self._number is None:
            self._place_number(x + length + 2 * MM + self.text_width(label, "small") + NUMBER_GAP, y, "left")


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
    canvas.setViewerPreference("Duplex", DUPLEX[_DUPLEX.get()])
    sheet = Sheet(canvas, template, template.ink(ink_mode), page_size)
    draw(sheet)
    size = template.sizes["small"]
    for number, (_x, _y, align) in enumerate(sheet.numbers, start=1):
        text = f"page {number} of {sheet.pages}"
        width = pdfmetrics.stringWidth(text, template.font_regular, size)
        left = -width if align == "right" else 0.0
        canvas.beginForm(_number_form(number), lowerx=left, lowery=-size, upperx=left + width, uppery=size)
        canvas.setFont(template.font_regular, size)
        canvas.setFillColor(HexColor(sheet.ink.text))
        canvas.drawString(left, 0, text)
        canvas.endForm()
    canvas.save()
    return buffer.getvalue(), sheet.pages


def _number_form(number: int) -> str:
    return f"PageNumber{number}"
