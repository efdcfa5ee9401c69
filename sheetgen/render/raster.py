"""Pages as pictures: the PDF sheetgen prints, rasterised with pypdfium2 and written as PNG.

`render -o FILE.png` and `preview` share this module, so the pixels a preview shows are the
pixels a shared PNG holds (at one resolution, `DEFAULT_DPI` unless told). The PNG is written
here with zlib (no imaging library): RGB, 8 bits, each row filtered by the row above it (the
PNG "Up" filter, which shrinks a printed page about threefold), a `pHYs` chunk giving the
resolution, and no time stamp, so one PDF gives the same bytes every time.

A page of W x H points at D dots per inch is ceil(W * D / 72) x ceil(H * D / 72) pixels
(pdfium's own rounding: the whole page, never a cropped pixel).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

#: the resolution of a preview and of `render -o FILE.png` without --dpi
DEFAULT_DPI = 100
#: the resolutions `--dpi` takes: enough to read a sheet on a screen, at most a printer's
MIN_DPI, MAX_DPI = 20, 600

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Picture:
    """One page as a PNG: its bytes, size in pixels and what the PDF's outline calls the page."""

    png: bytes
    width: int
    height: int
    kind: str


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(rgb: bytes, width: int, height: int, stride: int, dpi: int) -> bytes:
    """A PNG of an RGB bitmap (3 bytes a pixel, rows `stride` bytes apart), `dpi` recorded."""
    import numpy as np

    rows = np.frombuffer(rgb, dtype=np.uint8, count=stride * height).reshape(height, stride)[:, : width * 3]
    up = rows.copy()
    up[1:] -= rows[:-1]  # the Up filter: each byte less the byte above it, modulo 256
    filtered = np.empty((height, width * 3 + 1), dtype=np.uint8)
    filtered[:, 0] = 2  # filter type: Up (the first row's "above" is zero: itself)
    filtered[:, 1:] = up
    per_metre = round(dpi / 0.0254)
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
            _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
            _chunk(b"IDAT", zlib.compress(filtered.tobytes(), 6)),
            _chunk(b"IEND", b""),
        )
    )


def page_kinds(document, default: str) -> list[str]:
    """What each page of a pdfium document is, read from the PDF's outline (a printable names
    the first page of each run of pages of one kind: `Sheet.end_page(kind)`); pages before the
    first entry, or a PDF without an outline, are `default`."""
    count = len(document)
    starts: dict[int, str] = {}
    for bookmark in document.get_toc(max_depth=1):
        dest = bookmark.get_dest()
        index = dest.get_index() if dest is not None else None
        if index is not None and 0 <= index < count:
            starts.setdefault(index, bookmark.get_title())
    kinds, current = [], default
    for index in range(count):
        current = starts.get(index, current)
        kinds.append(current)
    return kinds


def pictures(
    pdf: bytes, dpi: int = DEFAULT_DPI, pages: list[int] | None = None, default_kind: str = ""
) -> list[Picture]:
    """The pages of a PDF as PNG pictures at `dpi` (`pages`: 0-based indices, default all)."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        kinds = page_kinds(document, default_kind)
        made = []
        for index in range(len(document)) if pages is None else pages:
            page = document[index]
            try:
                bitmap = page.render(scale=dpi / 72, rev_byteorder=True)
                try:
                    width, height = bitmap.width, bitmap.height
                    png = png_bytes(bytes(bitmap.buffer), width, height, bitmap.stride, dpi)
                    made.append(Picture(png, width, height, kinds[index]))
                finally:
                    bitmap.close()
            finally:
                page.close()
        return made
    finally:
        document.close()


def page_count(pdf: bytes) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()
