"""Pages as pictures (`render -o FILE.png`) and the live preview (`sheetgen preview`).

The PNG is read back here by hand (its chunks, its inflated rows, the Up filter undone), so
its size, resolution and pixels are checked against pdfium's own bitmap of the page, not
against sheetgen's encoder."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import pypdfium2
import pytest

from conftest import SPECS

RACE = SPECS / "rallytaire" / "thousand_lakes.yaml"  # a race sheet: 2 A4 pages
A4_POINTS = (595.2755905511812, 841.8897637795277)


def png_chunks(data: bytes) -> dict[bytes, list[bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks: dict[bytes, list[bytes]] = {}
    at = 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.setdefault(kind, []).append(body)
        at += 12 + length
    return chunks


def png_size(data: bytes) -> tuple[int, int]:
    width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", png_chunks(data)[b"IHDR"][0])
    assert (depth, colour, interlace) == (8, 2, 0)  # 8-bit RGB, not interlaced
    return width, height


def png_pixels_per_metre(data: bytes) -> int:
    x, y, unit = struct.unpack(">IIB", png_chunks(data)[b"pHYs"][0])
    assert x == y and unit == 1  # unit 1: the metre
    return x


def png_rows(data: bytes) -> list[bytes]:
    """The RGB rows of an 8-bit RGB PNG whose rows are filtered with None or Up."""
    width, height = png_size(data)
    raw = zlib.decompress(b"".join(png_chunks(data)[b"IDAT"]))
    stride = width * 3
    rows, above = [], bytes(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        kind, body = line[0], line[1:]
        assert kind in (0, 2)
        row = body if kind == 0 else bytes((a + b) & 0xFF for a, b in zip(body, above))
        rows.append(row)
        above = row
    return rows


def pdfium_rows(pdf: bytes, page: int, dpi: int) -> list[bytes]:
    document = pypdfium2.PdfDocument(pdf)
    bitmap = document[page].render(scale=dpi / 72, rev_byteorder=True)
    buffer = bytes(bitmap.buffer)
    return [buffer[y * bitmap.stride : y * bitmap.stride + bitmap.width * 3] for y in range(bitmap.height)]


# -- render -o FILE.png ------------------------------------------------------------------------


def test_a_png_page_has_the_size_the_dpi_gives_and_the_pages_pixels(run, tmp_path):
    """Letter at 50 dpi is 8.5 x 11 in: 425 x 550 pixels exactly; A4 at 150 dpi is
    595.28 x 841.89 points: 1241 x 1754 pixels (rounded up, as pdfium does)."""
    letter = tmp_path / "letter.png"
    result = run("render", str(RACE), "-o", str(letter), "--paper", "letter", "--dpi", "50", "--page", "2")
    assert result.exit_code == 0, result.output
    assert (result.stdout, result.stderr) == ("", "")
    data = letter.read_bytes()
    assert png_size(data) == (425, 550)
    assert png_pixels_per_metre(data) == 1969  # 50 / 0.0254 = 1968.5
    pdf = tmp_path / "letter.pdf"
    assert run("render", str(RACE), "-o", str(pdf), "--paper", "letter").exit_code == 0
    assert png_rows(data) == pdfium_rows(pdf.read_bytes(), 1, 50)  # page 2, pixel for pixel
    a4 = tmp_path / "a4.png"
    assert run("render", str(RACE), "-o", str(a4), "--dpi", "150", "--page", "1").exit_code == 0
    assert png_size(a4.read_bytes()) == (1241, 1754) == tuple(math.ceil(p * 150 / 72) for p in A4_POINTS)


def test_the_same_spec_gives_the_same_png_bytes(run, tmp_path):
    first, second = tmp_path / "first.png", tmp_path / "second.png"
    for target in (first, second):
        assert run("render", str(RACE), "-o", str(target), "--page", "1").exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    assert png_size(first.read_bytes()) == (827, 1170)  # 100 dpi unless told: what preview shows


def test_several_pages_are_numbered_files_written_together(run, tmp_path):
    result = run("render", str(RACE), "-o", str(tmp_path / "race.png"), "--dpi", "30")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race-1.png", "race-2.png"]
    assert [png_size((tmp_path / n).read_bytes()) for n in ("race-1.png", "race-2.png")] == [(249, 351)] * 2


@pytest.mark.parametrize(
    "args,message",
    [
        (["-o", "race.svg"], "cannot write SVG (race.svg): render writes pdf or png; give -o FILE.pdf or -o FILE.png"),
        (["-o", "race.png", "--format", "svg"], "Invalid value for '--format': 'svg' is not one of 'pdf', 'png'."),
        (["-o", "race.pdf", "--dpi", "72"], "--dpi is for PNG pictures (-o FILE.png); a PDF holds every page at full size"),
        (["-o", "race.pdf", "--page", "1"], "--page is for PNG pictures (-o FILE.png); a PDF holds every page at full size"),
        (["-o", "race.pdf", "--format", "png"], "-o race.pdf names a PDF file but --format is png; make them agree"),
        (["-o", "race.png", "--page", "3"], "--page 3: this spec prints 2 pages"),
        (["-o", "-", "--format", "png"], "this spec prints 2 pages and standard output holds one picture; give --page K or -o FILE.png"),
        (["-o", "race.png", "--dpi", "5000"], "Invalid value for '--dpi': 5000 is not in the range 20<=x<=600."),
    ],
)
def test_picture_options_that_do_not_go_together_are_usage_errors(run, in_tmp, args, message):
    result = run("render", str(RACE), *args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == f"Error: {message}"
    assert list(Path(in_tmp).iterdir()) == []


def test_one_png_page_goes_to_standard_output(run):
    result = run("render", str(RACE), "-o", "-", "--format", "png", "--page", "2", "--dpi", "20")
    assert result.exit_code == 0
    assert png_size(result.stdout_bytes) == (166, 234)


# -- the kinds of page, named in the PDF's outline -------------------------------------------------


@pytest.mark.parametrize(
    "spec,kinds",
    [
        ("rallytaire/thousand_lakes.yaml", [(0, "race sheet")]),
        ("rally_risk/sections.yaml", [(0, "section cards"), (4, "kit"), (5, "reference card")]),
        ("rally_risk/safari_1.yaml", [(0, "course sheet"), (1, "reference card")]),
        (
            "rallyman/tiny.yaml",
            [(0, "assembly page"), (1, "map"), (2, "roadbook"), (3, "dashboard card"), (4, "dashboard card: odds"), (5, "time sheet")],
        ),
        ("rally_run/house_set.yaml", [(0, "tile fronts"), (1, "tile backs"), (2, "tile fronts"), (3, "tile backs"), (4, "tile fronts"), (5, "tile backs"), (6, "rules summary")]),
        ("seasons/winter_season.yaml", [(0, "season sheet"), (1, "blank page"), (2, "race sheet")]),
    ],
)
def test_the_pdf_outline_names_each_run_of_pages_of_one_kind(run, tmp_path, spec, kinds):
    """Read with pypdf: an outline entry at the first page of each run of pages of one kind
    (what a viewer lists as bookmarks, and the captions of the preview's pages)."""
    from pypdf import PdfReader

    target = tmp_path / "out.pdf"
    assert run("render", str(SPECS / spec), "-o", str(target)).exit_code == 0
    reader = PdfReader(target)
    assert [(reader.get_destination_page_number(entry), entry.title) for entry in reader.outline] == kinds
    assert reader.trailer["/Root"]["/PageMode"] == "/UseNone"  # listed when asked, not opened
