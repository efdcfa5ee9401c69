"""Pages as pictures (`render -o FILE.png`) and the live preview (`sheetgen preview`).

The PNG is read back here by hand (its chunks, its inflated rows, the Up filter undone), so
its size, resolution and pixels are checked against pdfium's own bitmap of the page, not
against sheetgen's encoder."""

from __future__ import annotations

import http.client
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit

import pypdfium2
import pytest

from conftest import ROOT, SPECS

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
        (["-o", "race.png", "--format", "jpg"], "Invalid value for '--format': 'jpg' is not one of 'pdf', 'png', 'svg'."),
        (["-o", "race.pdf", "--dpi", "72"], "--dpi is for pictures (-o FILE.png, -o FILE.svg); a PDF holds every page at full size"),
        (["-o", "race.pdf", "--page", "1"], "--page is for pictures (-o FILE.png, -o FILE.svg); a PDF holds every page at full size"),
        (["-o", "race.pdf", "--format", "png"], "-o race.pdf names a PDF file but --format is png; make them agree"),
        (["-o", "race.svg", "--format", "png"], "-o race.svg names an SVG file but --format is png; make them agree"),
        (["-o", "race.png", "--page", "3"], "--page 3: this spec prints 2 pages"),
        (["-o", "race.svg", "--page", "3"], "--page 3: this spec prints 2 pages"),
        (["-o", "-", "--format", "png"], "this spec prints 2 pages and standard output holds one picture; give --page K or -o FILE.png"),
        (["-o", "-", "--format", "svg"], "this spec prints 2 pages and standard output holds one picture; give --page K or -o FILE.svg"),
        (["-o", "race.png", "--dpi", "5000"], "Invalid value for '--dpi': 5000 is not in the range 20<=x<=600."),
    ],
)
def test_picture_options_that_do_not_go_together_are_usage_errors(run, in_tmp, args, message):
    result = run("render", str(RACE), *args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == f"Error: {message}"
    assert list(Path(in_tmp).iterdir()) == []


# -- render -o FILE.svg ------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"
LETTER_POINTS = (612.0, 792.0)


def svg_texts(root) -> list[tuple[str, float, float]]:
    """Each `<text>` of an SVG of sheetgen's: its string and the PDF-space origin of its first
    character (the translation of its matrix; the page's own flip is the outer group)."""
    found = []
    for element in root.iter(f"{SVG}text"):
        numbers = element.get("transform").removeprefix("matrix(").removesuffix(")").split()
        found.append((element.text or "", float(numbers[4]), float(numbers[5])))
    return found


def svg_lines(root) -> list[tuple[float, float, float, float]]:
    """The single straight segments among the SVG's paths (no transform): (x1, y1, x2, y2)."""
    import re

    found = []
    for element in root.iter(f"{SVG}path"):
        match = re.fullmatch(r"M(\S+) (\S+)L(\S+) (\S+)", element.get("d", ""))
        if match and element.get("transform") is None:
            found.append(tuple(float(v) for v in match.groups()))
    return found


def test_an_svg_page_has_the_pdfs_size_text_and_scale_bar(run, tmp_path):
    """Read back with ElementTree: the SVG is the PDF page's size (A4: 210 x 297 mm, its
    viewBox the MediaBox pypdf reads from the PDF, in points); every word pypdf extracts from
    the PDF page is among the SVG's texts, the title starts at the 10 mm margin, the footer's
    "page 1 of 2" (drawn in a form) is there, and the 50 mm scale bar is a 141.732 pt line."""
    import xml.etree.ElementTree as ET

    from pypdf import PdfReader

    svg, pdf = tmp_path / "race.svg", tmp_path / "race.pdf"
    assert run("render", str(RACE), "-o", str(svg), "--page", "1").exit_code == 0
    assert run("render", str(RACE), "-o", str(pdf)).exit_code == 0
    root = ET.fromstring(svg.read_bytes())
    assert (root.get("width"), root.get("height")) == ("210mm", "297mm")
    page = PdfReader(pdf).pages[0]
    box = [float(v) for v in page.mediabox]
    assert [float(v) for v in root.get("viewBox").split()] == pytest.approx(box, abs=0.001)
    assert box[2:] == pytest.approx(A4_POINTS)
    texts = svg_texts(root)
    words = " ".join(text for text, _x, _y in texts).split()
    assert set(page.extract_text().split()) <= set(words)
    title = next((x, y) for text, x, y in texts if text == "Thousand Lakes")
    assert title[0] == pytest.approx(10 * 72 / 25.4, abs=0.001)
    assert any(text == "page 1 of 2" for text, _x, _y in texts)
    bars = [(x1, y1) for x1, y1, x2, y2 in svg_lines(root) if y1 == y2 and x2 - x1 == pytest.approx(50 * 72 / 25.4, abs=0.002)]
    assert len(bars) == 1
    ticks = sorted(x1 for x1, y1, x2, y2 in svg_lines(root) if x1 == x2 and min(y1, y2) == bars[0][1])
    assert [b - a for a, b in zip(ticks, ticks[1:])] == pytest.approx([10 * 72 / 25.4] * 5, abs=0.002)


def test_an_svg_on_letter_at_a_dpi_is_sized_in_pixels_and_the_same_bytes_each_time(run, tmp_path):
    """Letter is 8.5 x 11 in: 612 x 792 points, 425 x 550 pixels at 50 dpi (as the PNG)."""
    import xml.etree.ElementTree as ET

    first, second = tmp_path / "first.svg", tmp_path / "second.svg"
    for target in (first, second):
        result = run("render", str(RACE), "-o", str(target), "--paper", "letter", "--dpi", "50", "--page", "2")
        assert result.exit_code == 0, result.output
        assert (result.stdout, result.stderr) == ("", "")
    assert first.read_bytes() == second.read_bytes()
    root = ET.fromstring(first.read_bytes())
    assert (root.get("width"), root.get("height")) == ("425", "550")
    assert [float(v) for v in root.get("viewBox").split()] == [0, 0, *LETTER_POINTS]
    assert any(text == "page 2 of 2" for text, _x, _y in svg_texts(root))


def test_several_svg_pages_are_numbered_files_and_one_goes_to_standard_output(run, tmp_path):
    import xml.etree.ElementTree as ET

    assert run("render", str(RACE), "-o", str(tmp_path / "race.svg")).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race-1.svg", "race-2.svg"]
    second = (tmp_path / "race-2.svg").read_bytes()
    result = run("render", str(RACE), "-o", "-", "--format", "svg", "--page", "2")
    assert result.exit_code == 0
    assert result.stdout_bytes == second
    assert ET.fromstring(second).find(f"{SVG}title").text == "race sheet"  # the page's kind


def test_the_svg_writer_keeps_what_a_pdf_draws(tmp_path):
    """A PDF drawn here with reportlab (not by sheetgen's renderers): each thing it draws is
    found in the SVG with the values it was drawn with: a dashed red line, an even-odd filled
    square with a round-capped stroke, a label turned 90 degrees at a known place, a form's
    text moved by its matrix, and a clipped line with its clipping rectangle."""
    import xml.etree.ElementTree as ET

    from reportlab.pdfgen.canvas import Canvas

    from sheetgen.render.pdf import register_fonts
    from sheetgen.render.vector import vectors

    register_fonts()
    target = tmp_path / "drawn.pdf"
    c = Canvas(str(target), pagesize=(200, 100), invariant=1)
    c.setFont("DejaVuSans", 10)
    c.setStrokeColorRGB(1, 0, 0)
    c.setDash(3, 1.5)
    c.setLineWidth(0.5)
    c.line(10, 10, 60, 10)
    c.setDash()
    c.setStrokeColorRGB(0, 0, 0)
    c.setFillColorRGB(0, 0, 1)
    c.setLineCap(1)
    path = c.beginPath()
    path.rect(70, 20, 20, 20)
    c.drawPath(path, stroke=1, fill=1, fillMode=0)  # 0: even-odd
    c.setFillColorRGB(0, 0, 0)
    c.saveState()
    c.translate(150, 50)
    c.rotate(90)
    c.drawString(0, 0, "up")
    c.restoreState()
    c.beginForm("tag", 0, 0, 50, 20)  # its bounding box clips it: 50 x 20 where it is shown
    c.setFont("DejaVuSans", 8)
    c.drawString(0, 0, "formed")
    c.endForm()
    c.saveState()
    c.translate(20, 80)
    c.doForm("tag")
    c.restoreState()
    c.saveState()
    clip = c.beginPath()
    clip.rect(100, 60, 30, 10)
    c.clipPath(clip, stroke=0, fill=0)
    c.line(90, 65, 140, 65)
    c.restoreState()
    c.showPage()
    c.save()

    (page,) = vectors(target.read_bytes())
    assert (page.width, page.height) == (200, 100)
    root = ET.fromstring(page.svg)
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("70.556mm", "35.278mm", "0 0 200 100")
    paths = {element.get("d"): element for element in root.iter(f"{SVG}path")}
    dashed = paths["M10 10L60 10"]
    assert (dashed.get("stroke"), dashed.get("stroke-width"), dashed.get("stroke-dasharray")) == ("#ff0000", "0.5", "3 1.5")
    assert dashed.get("fill") == "none"
    square = paths["M70 20L90 20L90 40L70 40L70 20Z"]
    assert (square.get("fill"), square.get("fill-rule"), square.get("stroke-linecap")) == ("#0000ff", "evenodd", "round")
    texts = {text: (x, y) for text, x, y in svg_texts(root)}
    assert texts == {"up": (150, 50), "formed": (20, 80)}
    assert next(e for e in root.iter(f"{SVG}text") if e.text == "formed").get("font-size") == "8"
    up = next(e for e in root.iter(f"{SVG}text") if e.text == "up")
    assert up.get("transform") == "matrix(0 1 1 0 150 50)"  # x along the page's y; the letters flipped back
    assert up.get("font-size") == "10"
    clips = {clip.get("id"): clip.find(f"{SVG}path") for clip in root.iter(f"{SVG}clipPath")}
    clipping = {
        "".join(e.text or "" for e in g.iter(f"{SVG}text")) + "".join(e.get("d") for e in g.iter(f"{SVG}path")): (
            clips[g.get("clip-path")[5:-1]].get("d"),
            clips[g.get("clip-path")[5:-1]].get("transform"),
        )
        for g in root.iter(f"{SVG}g")
        if g.get("clip-path")
    }
    assert clipping == {
        "formed": ("M0 0L0 20L50 20L50 0L0 0Z", "matrix(1 0 0 1 20 80)"),  # the form's box, where the form is
        "M90 65L140 65": ("M100 60L130 60L130 70L100 70L100 60Z", None),
    }


def test_one_png_page_goes_to_standard_output(run):
    result = run("render", str(RACE), "-o", "-", "--format", "png", "--page", "2", "--dpi", "20")
    assert result.exit_code == 0
    assert png_size(result.stdout_bytes) == (166, 234)


# -- the kinds of page, named in the PDF's outline -------------------------------------------------


@pytest.mark.parametrize(
    "spec,kinds",
    [
        ("rallytaire/thousand_lakes.yaml", [(0, "race sheet")]),
        ("rally_risk/sections.yaml", [(0, "section cards"), (4, "kit"), (6, "reference card")]),  # the kit: two pages
        ("rally_risk/safari_1.yaml", [(0, "course sheet"), (1, "reference card")]),
        (
            "rallyman/tiny.yaml",
            # a one-page map has no assembly page; the pieces to play without the box come last
            [(0, "map"), (1, "roadbook"), (2, "dashboard card"), (3, "dashboard card: odds"), (4, "time sheet"),
             (5, "without the box"), (6, "damage bag")],
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


# -- sheetgen preview ------------------------------------------------------------------------------
#
# Each server is `python -m sheetgen preview --port 0` in a process of its own (the port is
# free: the system picks it and the server says it), stopped with SIGINT as Ctrl-C stops it.
# The tests wait for what the page must show with a generous time limit: a wait, never a
# measure of speed.

PATIENCE = 300.0  # seconds a wait may take on a loaded 2-core machine before the test fails


class Preview:
    """A running `sheetgen preview` of `specs`, and HTTP requests to it."""

    def __init__(self, *specs: Path, args: tuple[str, ...] = ()):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sheetgen", "preview", "--port", "0", *args, *map(str, specs)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the first line says where it serves, or it ended
        if not line:
            self.process.wait()
            raise AssertionError(f"preview did not start: {self.process.stderr.read() if self.process.stderr else ''}")
        self.said = line
        self.url = line.split()[2]
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        self.stopped: tuple[int, str] | None = None

    def request(self, path: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict, bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path, headers=headers or {})
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read()
        finally:
            connection.close()

    def get(self, path: str) -> bytes:
        status, _headers, body = self.request(path)
        assert status == 200, (path, status, body[:200])
        return body

    def state(self) -> dict:
        return json.loads(self.get("/state.json"))

    def spec(self, path: Path) -> dict:
        return next(s for s in self.state()["specs"] if s["path"] == str(path))

    def settled(self) -> dict:
        """The state once no spec is waiting or being worked on."""
        return self.wait_for(lambda state: all(s["status"] not in ("waiting", "working") for s in state["specs"]))

    def wait_for(self, test) -> dict:
        deadline = time.monotonic() + PATIENCE
        while True:
            state = self.state()
            if test(state):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"the preview never showed it: {json.dumps(state)[:2000]}")
            time.sleep(0.2)

    def workers(self) -> list[int]:
        """The server's child processes (its workers), read from /proc."""
        found = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                found += [int(p) for p in (task / "children").read_text().split()]
            except FileNotFoundError:  # a thread (one that answered a request) ended meanwhile
                continue
        return found

    def stop(self) -> tuple[int, str]:
        """Ctrl-C: the exit status and what it said on standard error."""
        if self.stopped is None:
            self.process.send_signal(signal.SIGINT)
            _out, err = self.process.communicate(timeout=PATIENCE)
            self.stopped = (self.process.returncode, err)
        return self.stopped


@pytest.fixture
def preview():
    started: list[Preview] = []

    def start(*specs: Path, args: tuple[str, ...] = ()) -> Preview:
        server = Preview(*specs, args=args)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.communicate()


class Events:
    """The page's update channel (/events), read line by line in a thread of its own."""

    def __init__(self, server: Preview):
        self.connection = http.client.HTTPConnection(server.host, server.port, timeout=PATIENCE)
        self.connection.request("GET", "/events")
        self.answer = self.connection.getresponse()
        assert self.answer.status == 200 and self.answer.getheader("Content-Type") == "text/event-stream"
        self.versions: list[int] = []
        self.seen = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            event = None
            for raw in self.answer:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[len("event: ") :]
                elif line.startswith("data: ") and event == "version":
                    with self.seen:
                        self.versions.append(int(line[len("data: ") :]))
                        self.seen.notify_all()
        except (OSError, ValueError):
            pass

    def next_version(self, after: int) -> int:
        """The first version the channel announces above `after`."""
        with self.seen:
            assert self.seen.wait_for(lambda: any(v > after for v in self.versions), timeout=PATIENCE)
            return next(v for v in self.versions if v > after)

    def close(self) -> None:
        self.connection.close()


def copy_specs(folder: Path) -> dict[str, Path]:
    """Small specs of the four games (and the files they read) copied into `folder`."""
    folder.mkdir(exist_ok=True)
    for name in ("rallytaire/thousand_lakes.yaml", "rally_risk/safari_1.yaml", "rally_risk/sections.yaml",
                 "rally_risk/championship.yaml", "rallyman/tiny.yaml", "rally_run/house_set.yaml"):
        shutil.copy(SPECS / name, folder / Path(name).name)
    return {p.stem: p for p in folder.iterdir()}


def damaged(path: Path, old: str, new: str) -> None:
    """One save of `path` with `old` replaced, put in place at once (as an editor's save-and-
    rename): written in place, a poll between the truncation and the write saw two changes, a
    revision more than the test counts (a flake of one run in many)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(text.replace(old, new), encoding="utf-8")
    os.replace(temp, path)


DEAD_END = """\
game: rallyman
variant: gt
name: Dead End
cells:
  - {q: 0, r: 0, heading: 0, lane: 1, start: true}
  - {q: 1, r: 0, heading: 0, lane: 1}
  - {q: 3, r: 0, heading: 0, lane: 1, finish: true}
"""


@pytest.fixture(scope="module")
def gallery(tmp_path_factory):
    """One preview of eleven specs: a valid one of each game, a damaged copy of each, a track
    that cannot be finished, a file that is not there, and a race whose library is a symbolic
    link leading out of its folder."""
    root = tmp_path_factory.mktemp("gallery")
    good = copy_specs(root / "good")
    bad = copy_specs(root / "bad")
    damaged(bad["thousand_lakes"], "length: 96", "length: x96")
    damaged(bad["safari_1"], "{section: wadi, heading: E}", "{section: wadi, heading: Q}")
    damaged(bad["tiny"], "limit: 4}", "limit: 9}")
    damaged(bad["house_set"], "openings: NS, count: 6", "openings: NS, count: -6")
    (root / "dead.yaml").write_text(DEAD_END, encoding="utf-8")
    linked = root / "linked"
    linked.mkdir()
    outside = tmp_path_factory.mktemp("outside")
    shutil.copy(SPECS / "rally_risk" / "sections.yaml", outside / "sections.yaml")
    (linked / "sections.yaml").symlink_to(outside / "sections.yaml")
    for name in ("safari_1.yaml", "championship.yaml"):
        shutil.copy(SPECS / "rally_risk" / name, linked / name)
    specs = {
        "race": good["thousand_lakes"],
        "safari": good["safari_1"],
        "tiny": good["tiny"],
        "tiles": good["house_set"],
        "bad race": bad["thousand_lakes"],
        "bad safari": bad["safari_1"],
        "bad tiny": bad["tiny"],
        "bad tiles": bad["house_set"],
        "dead end": root / "dead.yaml",
        "missing": root / "missing.yaml",
        "linked": linked / "safari_1.yaml",
    }
    server = Preview(*specs.values())
    try:
        state = server.settled()
        yield server, specs, {s["path"]: s for s in state["specs"]}
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.communicate()


def test_the_server_says_where_it_serves(gallery):
    server, _specs, _state = gallery
    assert server.said == f"sheetgen preview: http://127.0.0.1:{server.port}/ (11 specs; Ctrl-C stops it)\n"


@pytest.mark.parametrize(
    "name,kinds,figure",
    [
        ("race", ["race sheet"] * 2, (("stages", 0, "par_time"), 153.3184)),
        ("safari", ["course sheet", "reference card"], (("best_assistance",), "normal")),
        ("tiny", ["map", "roadbook", "dashboard card", "dashboard card: odds", "time sheet", "without the box", "damage bag"], (("par", "expected_seconds"), 23.889)),
        ("tiles", ["tile fronts", "tile backs"] * 3 + ["rules summary"], (("finished_share",), 0.9716)),
    ],
)
def test_a_valid_spec_shows_its_pages_their_kinds_and_its_figures(gallery, name, kinds, figure):
    server, specs, state = gallery
    spec = state[str(specs[name])]
    assert (spec["status"], spec["problems"], spec["draft"], spec["stale"], spec["failure"]) == ("ready", [], False, False, None)
    assert [p["kind"] for p in spec["pages"]] == kinds
    keys, value = figure
    found = spec["figures"]["data"]
    for key in keys:
        found = found[key]
    assert found == value
    page = server.get("/").decode()
    assert f"page {len(kinds)} of {len(kinds)}: {kinds[-1]}" in page
    assert "No problems: valid and playable." in page


def test_the_figures_are_a_table(gallery):
    server, _specs, _state = gallery
    page = server.get("/").decode()
    assert "<tr><th>expected seconds</th><td>23.889</td></tr>" in page  # tiny's par
    assert "<th>par time</th>" in page and "<td>153.3184</td>" in page  # a column of the race's stages


def test_a_page_shown_is_the_picture_render_writes(gallery, run, tmp_path):
    server, specs, state = gallery
    shown = server.get(state[str(specs["race"])]["pages"][1]["url"])
    target = tmp_path / "page2.png"
    assert run("render", str(specs["race"]), "-o", str(target), "--page", "2").exit_code == 0
    assert shown == target.read_bytes()
    assert png_size(shown) == (827, 1170)


@pytest.mark.parametrize(
    "name,line,quote",
    [
        ("bad race", "{}:8:13: error: 'length' must be a whole number, got 'x96'", "    length: x96"),
        ("bad safari", "{}:14:30: error: 'heading' must be one of N, E, S, W; got 'Q'", "  - {section: wadi, heading: Q}"),
        ("bad tiny", "{}:8:46: error: 'limit' must be at most 6, got 9", "  - {q: 1, r: 0, heading: 0, lane: 1, limit: 9}"),
        ("bad tiles", "{}:11:43: error: 'count' must be at least 1, got -6", "  - {name: straight, openings: NS, count: -6}"),
        ("missing", "{}:1:1: error: cannot read file: No such file or directory", None),
    ],
)
def test_a_spec_that_does_not_load_shows_each_problem_with_its_line(gallery, name, line, quote):
    import html

    server, specs, state = gallery
    path = str(specs[name])
    spec = state[path]
    assert spec["status"] == "refused" and spec["pages"] == [] and spec["figures"] is None
    assert [(p["line"], p["quote"]) for p in spec["problems"]] == [(line.format(path), quote)]
    page = server.get("/").decode()
    assert html.escape(line.format(path)) in page
    if quote is not None:
        col = int(line.split(":")[2])
        row = int(line.split(":")[1])
        assert html.escape(f"{row:>5} | {quote}\n      | {' ' * (col - 1)}^") in page


def test_a_spec_that_cannot_be_played_is_drawn_as_a_draft(gallery):
    server, specs, state = gallery
    path = str(specs["dead end"])
    spec = state[path]
    assert (spec["status"], spec["draft"]) == ("ready", True)
    assert [p["line"] for p in spec["problems"]] == [
        f"{path}:6:5: warning: the track cannot be finished: no finish space is reached from the start; the road stops at cell (1, 0) (drawn all the same, as a draft)",
        f"{path}:7:5: warning: cell (3, 0) cannot be reached from the start (drawn all the same, as a draft)",
    ]
    assert [p["quote"] for p in spec["problems"]] == ["  - {q: 1, r: 0, heading: 0, lane: 1}", "  - {q: 3, r: 0, heading: 0, lane: 1, finish: true}"]
    assert [p["kind"] for p in spec["pages"]][:2] == ["map", "roadbook"]
    assert spec["figures"]["note"].startswith("the track cannot be finished")
    assert "Drawn as a draft: the problems above make it unplayable as it is." in server.get("/").decode()


def test_the_server_answers_for_the_specs_and_the_files_they_read_only(gallery):
    server, specs, state = gallery
    index = {name: list(state).index(str(path)) for name, path in specs.items()}
    race, linked = index["race"], index["linked"]
    assert b"name: Thousand Lakes" in server.get(f"/spec/{race}/source/thousand_lakes.yaml")
    assert b"kind: calendar" in server.get(f"/spec/{linked}/source/championship.yaml")
    refused = {
        f"/spec/{race}/source/../bad/thousand_lakes.yaml": 403,  # '..'
        f"/spec/{race}/source/%2e%2e/%2e%2e/%2e%2e/etc/passwd": 403,
        f"/spec/{race}/source//etc/passwd": 403,  # absolute
        f"/spec/{race}/source/%2Fetc%2Fpasswd": 403,
        f"/spec/{linked}/source/sections.yaml": 403,  # read by the race, but a link out of its folder
        f"/spec/{race}/source/tiny.yaml": 404,  # in the folder, not read by this spec
        f"/spec/{race}/source/": 404,
        "/../../etc/passwd": 404,
        "/etc/passwd": 404,
        f"/spec/{len(specs)}/source/thousand_lakes.yaml": 404,
        f"/spec/{race}/page/1/3.png": 404,  # two pages
        f"/spec/{race}/page/7/1.png": 404,  # no such version
    }
    answers = {path: server.request(path) for path in refused}
    assert {path: status for path, (status, _h, _b) in answers.items()} == refused
    assert not any(b"root:" in body or b"copies:" in body for _s, _h, body in answers.values())
    assert server.request("/", method="POST")[0] == 501  # nothing is written: GET and HEAD only
    assert server.request("/", headers={"Host": f"rebound.example:{server.port}"})[0] == 403
    assert server.state()["specs"][linked]["status"] == "ready"  # previewed all the same


def test_ctrl_c_stops_the_server_and_its_workers(preview, tmp_path):
    server = preview(copy_specs(tmp_path)["tiny"])
    assert server.settled()["specs"][0]["status"] == "ready"
    workers = server.workers()
    assert workers  # (kept for the next save)
    code, said = server.stop()
    assert (code, said) == (130, "sheetgen: preview stopped\n")
    assert [pid for pid in workers if Path(f"/proc/{pid}").exists()] == []


def test_saves_update_the_page_through_its_update_channel(preview, tmp_path):
    """A rewritten spec, a library it reads and a file that was missing are each seen
    through /events without asking for the page again; requests start no work."""
    specs = copy_specs(tmp_path)
    missing = tmp_path / "later.yaml"
    server = preview(specs["thousand_lakes"], specs["safari_1"], missing)
    state = server.settled()
    assert [s["status"] for s in state["specs"]] == ["ready", "ready", "refused"]
    events = Events(server)
    try:
        seen = events.next_version(0)

        def update_until(test) -> dict:
            nonlocal seen
            while True:
                seen = events.next_version(seen)
                state = server.state()
                if test(state):
                    return state

        race = str(specs["thousand_lakes"])
        damaged(specs["thousand_lakes"], "length: 96", "length: x96")
        state = update_until(lambda s: s["specs"][0]["status"] == "refused")
        spec = state["specs"][0]
        assert [(p["line"], p["quote"]) for p in spec["problems"]] == [
            (f"{race}:8:13: error: 'length' must be a whole number, got 'x96'", "    length: x96")
        ]
        assert (spec["revision"], spec["stale"], len(spec["pages"])) == (2, True, 2)  # the last pages that loaded

        jobs = server.state()["jobs"]
        for _ in range(100):  # a flood of requests while it settles: no job starts again
            for path in ("/", "/view", "/state.json", spec["pages"][0]["url"]):
                server.request(path)
        assert server.settled()["jobs"] == jobs

        library = str(specs["sections"])
        damaged(specs["sections"], "    copies: 2\n  - id: fast_road", "    copies: many\n  - id: fast_road")
        state = update_until(lambda s: s["specs"][1]["status"] == "refused")
        lines = {p["line"]: p["quote"] for p in state["specs"][1]["problems"]}
        assert lines[f"{library}:15:13: error: 'copies' must be a whole number, got 'many'"] == "    copies: many"

        missing.write_text((SPECS / "rallyman" / "tiny.yaml").read_text(encoding="utf-8"), encoding="utf-8")
        state = update_until(lambda s: s["specs"][2]["status"] == "ready")
        assert [p["kind"] for p in state["specs"][2]["pages"]][:3] == ["map", "roadbook", "dashboard card"]

        damaged(specs["thousand_lakes"], "length: x96", "length: 96")
        state = update_until(lambda s: s["specs"][0]["status"] == "ready")
        assert (state["specs"][0]["revision"], state["specs"][0]["stale"], state["specs"][0]["problems"]) == (3, False, [])
    finally:
        events.close()
    assert server.stop() == (130, "sheetgen: preview stopped\n")


def test_a_tile_library_and_a_template_file_are_watched_too(preview, tmp_path):
    """A DIRT track laid from a tile library, drawn with `--template FILE`: a save of the
    template (a space too large) and one of the library (a count that is not a number) are
    each seen through /events and shown at their own file's line; put right, it is drawn."""
    lake, tiles = tmp_path / "lakeside.yaml", tmp_path / "tiles.yaml"
    shutil.copy(SPECS / "rallyman" / "dirt_lakeside.yaml", lake)
    shutil.copy(SPECS / "rallyman" / "tiles.yaml", tiles)
    template = tmp_path / "my_template.yaml"
    shutil.copy(ROOT / "templates" / "rallyman.yaml", template)
    server = preview(lake, args=("--template", str(template)))
    assert server.settled()["specs"][0]["status"] == "ready"
    events = Events(server)
    try:
        seen = events.next_version(0)

        def update_until(test) -> dict:
            nonlocal seen
            while True:
                seen = events.next_version(seen)
                state = server.state()
                if test(state["specs"][0]):
                    return state["specs"][0]

        damaged(template, "hex_mm: 30 ", "hex_mm: 300 ")
        spec = update_until(lambda s: s["status"] == "refused")
        assert [(p["line"], p["quote"]) for p in spec["problems"]] == [
            (f"{template}:6:9: error: 'hex_mm' must be at most 60, got 300", template.read_text(encoding="utf-8").splitlines()[5])
        ]
        damaged(template, "hex_mm: 300 ", "hex_mm: 30 ")
        update_until(lambda s: s["status"] == "ready")
        damaged(tiles, "    count: 6\n", "    count: six\n")
        spec = update_until(lambda s: s["status"] == "refused")
        assert [(p["line"], p["quote"]) for p in spec["problems"]] == [
            (f"{tiles}:12:12: error: 'count' must be a whole number, got 'six'", "    count: six")
        ]
        damaged(tiles, "    count: six\n", "    count: 6\n")
        spec = update_until(lambda s: s["status"] == "ready")
        assert spec["problems"] == [] and spec["revision"] == 5 and spec["pages"][0]["kind"] == "assembly page"
    finally:
        events.close()
    assert server.stop() == (130, "sheetgen: preview stopped\n")


def put(path: Path, text: str) -> None:
    """A file written whole at once (save and rename), as an editor saves a new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".{path.name}.saving"
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def test_the_watcher_lists_a_folder_again_for_specs_added_and_deleted(tmp_path):
    """The cheap twin of the test below, without a server or workers: the watcher's scan of
    the folders given takes in a spec added (in a folder under it too, not a .txt), drops one
    deleted from the snapshot the page is made of, keeps a spec named on the command line
    that was deleted (the page says it cannot be read), and gives one put back its index."""
    from sheetgen.cliutil import spec_files
    from sheetgen.preview.server import Preview, Settings

    folder = tmp_path / "specs"
    first, named = folder / "a.yaml", folder / "named.yaml"
    put(first, "game: rallytaire\n")
    put(named, "game: rallytaire\n")
    given = (str(folder), str(named))
    watcher = Preview(spec_files(given), Settings(), given=given)

    def listed() -> list[tuple[int, str]]:
        return [(s["index"], Path(s["path"]).name) for s in watcher.snapshot()["specs"]]

    assert listed() == [(0, "a.yaml"), (1, "named.yaml")]
    put(folder / "sub" / "b.yml", "game: rallytaire\n")
    put(folder / "notes.txt", "not a spec\n")
    version = watcher.version
    watcher._scan(0.0)
    assert listed() == [(0, "a.yaml"), (1, "named.yaml"), (2, "b.yml")]
    assert watcher.version > version  # the update channel says so
    first.unlink()
    named.unlink()
    watcher._scan(1.0)
    assert listed() == [(1, "named.yaml"), (2, "b.yml")]
    put(first, "game: rallytaire\n")
    watcher._scan(2.0)
    assert listed() == [(0, "a.yaml"), (1, "named.yaml"), (2, "b.yml")]
    assert watcher.entries[0].revision == 2  # read again


def test_a_template_file_is_watched_and_its_mistake_refuses_the_spec_keeping_the_last_pages(tmp_path):
    """The cheap twin of test_a_tile_library_and_a_template_file_are_watched_too, in process:
    a save of the `--template` file is a new revision of every spec; a job whose pages could
    not be drawn (the worker's 'pages' message with an error: a template with a mistake) leaves
    the spec refused, its last pages kept and said to be old, until a job draws them again."""
    from types import SimpleNamespace

    from sheetgen.preview import page
    from sheetgen.preview.server import Preview, Settings

    spec, template = tmp_path / "a.yaml", tmp_path / "mine.yaml"
    put(spec, "game: rallytaire\n")
    put(template, (ROOT / "templates" / "rallyman.yaml").read_text(encoding="utf-8"))
    watcher = Preview([str(spec)], Settings(template=str(template), template_file=True))
    entry = watcher.entries[0]
    put(template, template.read_text(encoding="utf-8").replace("hex_mm: 30 ", "hex_mm: 300 "))
    watcher._look(time.monotonic())
    assert entry.revision == 2 and watcher.snapshot()["specs"][0]["status"] == "working"
    worker = SimpleNamespace(entry=entry, job=1)
    shown = [{"png": b"", "width": 10, "height": 10, "kind": "race sheet"}]
    problem = {"severity": "error", "file": str(template), "line": f"{template}:6:9: error: 'hex_mm' must be at most 60, got 300",
               "row": 6, "col": 9, "quote": "hex_mm: 300"}
    for message in ({"stage": "pages", "pages": shown, "problems": [], "note": None}, {"stage": "done"},
                    {"stage": "pages", "pages": [], "problems": [problem], "note": None}, {"stage": "done"}):
        entry.state["status"] = "working" if message["stage"] == "pages" else entry.state["status"]
        worker.entry = entry
        watcher._message(worker, {**message, "job": 1})  # type: ignore[arg-type]
    state = watcher.snapshot()["specs"][0]
    assert (state["status"], len(state["pages"]), state["stale"], [p["line"] for p in state["problems"]]) == (
        "refused", 1, True, [problem["line"]])
    assert "These pages are from the last version that loaded." in page.document(watcher.snapshot())


@pytest.mark.slow
def test_a_folder_shows_the_specs_added_to_it_and_drops_those_deleted(preview, tmp_path):
    """`preview FOLDER`: a spec saved into the folder (or a folder under it) after the start
    gets a section, seen through /events, drawn or refused like the others; one deleted leaves
    the page and its pictures are gone (404); put back, it returns under its old index. A
    file that is not a spec (.txt) is not taken."""
    folder = tmp_path / "specs"
    folder.mkdir()
    race = folder / "race.yaml"
    shutil.copy(RACE, race)
    server = preview(folder)
    state = server.settled()
    assert [(s["index"], s["path"], s["status"]) for s in state["specs"]] == [(0, str(race), "ready")]
    old_page = state["specs"][0]["pages"][0]["url"]
    events = Events(server)
    try:
        seen = events.next_version(0)

        def update_until(test) -> dict:
            nonlocal seen
            while True:
                seen = events.next_version(seen)
                state = server.state()
                if test(state):
                    return state

        def shown(state) -> dict[str, dict]:
            return {s["path"]: s for s in state["specs"]}

        later, broken = folder / "more" / "later.yaml", folder / "broken.yaml"
        put(folder / "notes.txt", "not a spec\n")
        put(later, RACE.read_text(encoding="utf-8").replace("Thousand Lakes", "Later Lakes"))
        put(broken, RACE.read_text(encoding="utf-8").replace("length: 96", "length: x96"))
        state = update_until(
            lambda s: len(s["specs"]) == 3 and all(x["status"] in ("ready", "refused") for x in s["specs"])
        )
        specs = shown(state)
        assert sorted(specs) == sorted(map(str, (race, later, broken)))
        assert (specs[str(later)]["status"], specs[str(later)]["summary"]) == ("ready", "3 stages, 214 spaces, 24 corners")
        assert [p["kind"] for p in specs[str(later)]["pages"]] == ["race sheet", "race sheet"]
        assert [p["line"] for p in specs[str(broken)]["problems"]] == [
            f"{broken}:8:13: error: 'length' must be a whole number, got 'x96'"
        ]
        assert {specs[str(later)]["index"], specs[str(broken)]["index"]} == {1, 2}

        race.unlink()
        state = update_until(lambda s: str(race) not in shown(s))
        assert sorted(shown(state)) == sorted(map(str, (later, broken)))
        assert server.request(old_page)[0] == 404
        assert server.request("/spec/0/source/race.yaml")[0] == 404
        assert b"race.yaml" not in server.get("/view")

        shutil.copy(RACE, race)
        state = update_until(lambda s: shown(s).get(str(race), {}).get("status") == "ready")
        assert shown(state)[str(race)]["index"] == 0 and len(state["specs"]) == 3
    finally:
        events.close()
    assert server.stop() == (130, "sheetgen: preview stopped\n")


def test_a_newer_save_is_what_the_page_ends_with(preview, tmp_path):
    """Two saves, the second while the first one's work has started: the page shows the
    second (a job running on older files is ended and started again)."""
    tiles = copy_specs(tmp_path)["house_set"]
    server = preview(tiles)
    assert server.settled()["jobs"] == 1
    damaged(tiles, "name: sheetgen house set", "name: First")
    server.wait_for(lambda s: s["jobs"] == 2)
    damaged(tiles, "name: First", "name: Second")
    state = server.wait_for(lambda s: s["specs"][0]["revision"] == 3 and s["specs"][0]["status"] == "ready")
    spec = state["specs"][0]
    assert (state["jobs"], spec["figures"]["data"]["set"], spec["problems"]) == (3, "Second", [])


def test_the_page_says_what_is_being_done_while_a_job_runs(tmp_path):
    """The watcher's steps taken one at a time, in this process, with a real worker: from the
    job's start until its last message the page says what is being done ("loading",
    "solving and drawing the pages", "analysing"), the earlier pages said to be old while
    they are drawn again, then "up to date"."""
    from sheetgen.preview import page
    from sheetgen.preview.server import POLL, Preview, Settings

    race = copy_specs(tmp_path)["thousand_lakes"]
    watcher = Preview([str(race)], Settings())
    said: list[str] = []

    def shown() -> str:
        document = page.document(watcher.snapshot())
        status = document.split("<h2>", 1)[1].split("</h2>", 1)[0]
        return status.split("class='status ", 1)[1].split("</span>", 1)[0]

    try:
        for revision in (1, 2):
            watcher._start_jobs(time.monotonic() + POLL)  # (a save is taken once it stood for a look)
            said.append(shown())
            while True:
                worker, message = watcher.inbox.get(timeout=PATIENCE)
                assert message is not None, "the worker ended"
                watcher._message(worker, message)
                said.append(shown())
                if message["stage"] == "pages" and revision == 2:
                    assert "Being drawn again" not in page.document(watcher.snapshot())
                if message["stage"] == "done":
                    break
            if revision == 1:
                damaged(race, "length: 96", "length: 94")
                watcher._look(time.monotonic())  # the save seen: a new revision
                said.append(shown())
                assert "Being drawn again: these pages are from an earlier version." in page.document(watcher.snapshot())
    finally:
        watcher.stop()
    first = ["working'>loading&hellip;", "working'>solving and drawing the pages&hellip;", "working'>analysing&hellip;",
             "working'>analysing&hellip;", "ready'>up to date"]  # (loaded, pages, figures, done)
    again = ["working'>a newer save: starting again&hellip;", *first]
    assert said == first + again


def test_the_server_listens_on_loopback_only_unless_host_names_another(preview, tmp_path):
    """Read from the kernel's table of listening sockets (/proc/net/tcp): 127.0.0.1 only by
    default; `--host 127.0.0.2` listens there (and answers requests that name it)."""

    def listening(port: int) -> list[str]:
        found = []
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, at = local.split(":")
            if int(at, 16) == port and state == "0A":  # LISTEN
                found.append(".".join(str(b) for b in reversed(bytes.fromhex(address))))
        return found

    later = tmp_path / "later.yaml"  # not there yet: nothing to solve
    server = preview(later)
    assert listening(server.port) == ["127.0.0.1"]
    other = preview(later, args=("--host", "127.0.0.2"))
    assert other.said.startswith(f"sheetgen preview: http://127.0.0.2:{other.port}/ ")
    assert listening(other.port) == ["127.0.0.2"]
    assert other.spec(later)["status"] in ("waiting", "working", "refused")
    assert server.stop()[0] == other.stop()[0] == 130


def test_a_huge_spec_and_a_flood_of_requests_leave_it_answering_and_write_nothing(preview, tmp_path):
    """A 2 MB spec and one of anchors and aliases are refused at their lines, beside a race
    that is drawn; 40 update channels at once (past the 32 it holds, 503) and 16 threads of
    requests leave it answering, with no job started again; the folder holds what it held."""
    folder = tmp_path / "specs"
    race = copy_specs(folder)["thousand_lakes"]
    huge, bomb = folder / "huge.yaml", folder / "bomb.yaml"
    huge.write_text("game: rallytaire\n# " + "x" * 2_000_000 + "\n", encoding="utf-8")
    bomb.write_text("game: rallytaire\nname: &a Big\nalso: *a\n", encoding="utf-8")

    def files() -> dict[str, tuple[int, int]]:
        return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}

    before = files()
    server = preview(race, huge, bomb)
    state = server.settled()
    assert [s["status"] for s in state["specs"]] == ["ready", "refused", "refused"]
    assert [p["line"] for p in state["specs"][1]["problems"]] == [f"{huge}:1:1: error: file is too large: 2000020 bytes (the limit is 1 MiB)"]
    assert [p["line"] for p in state["specs"][2]["problems"]] == [
        f"{bomb}:2:7: error: YAML anchors are not allowed (&a); write the value out",
        f"{bomb}:3:7: error: YAML aliases are not allowed (*a); write the value out",
    ]
    jobs = state["jobs"]
    channels = []
    for _ in range(40):
        connection = http.client.HTTPConnection(server.host, server.port, timeout=60)
        connection.request("GET", "/events")
        channels.append((connection, connection.getresponse()))
    answers: list[int] = []

    def flood() -> None:
        for k in range(25):
            answers.append(server.request(("/", "/view", "/state.json", "/spec/1/source/huge.yaml")[k % 4])[0])

    threads = [threading.Thread(target=flood) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PATIENCE)
    statuses = sorted(answer.status for _c, answer in channels)
    for connection, _answer in channels:
        connection.close()
    assert statuses == [200] * 32 + [503] * 8
    assert answers == [200] * 400
    state = server.settled()
    assert state["jobs"] == jobs and [s["status"] for s in state["specs"]] == ["ready", "refused", "refused"]
    assert server.stop() == (130, "sheetgen: preview stopped\n")
    assert files() == before


# -- in a browser ----------------------------------------------------------------------------------

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None)


#: runs argv[3:] with descriptor argv[1] as its 3 and argv[2] as its 4 (whichever numbers they had)
LAUNCHER = """
import os, sys
given = [int(sys.argv[1]), int(sys.argv[2])]
copies = [os.dup(fd) for fd in given]
for target, fd in zip((3, 4), copies):
    if fd != target:
        os.dup2(fd, target)
    os.set_inheritable(target, True)
for fd in set(given + copies) - {3, 4}:
    os.close(fd)
os.execv(sys.argv[3], sys.argv[3:])
"""


class Chromium:
    """Headless Chromium driven through the DevTools protocol on a pipe (`--remote-debugging-pipe`:
    JSON messages ended by a NUL byte, read on its descriptor 3 and written on its 4), with
    the standard library alone."""

    def __init__(self, profile: Path):
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        command = [CHROMIUM, "--headless", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
                   f"--user-data-dir={profile}", "--window-size=1200,1600", "about:blank"]
        if os.geteuid() == 0:
            command.insert(1, "--no-sandbox")  # root (a container, CI) has no user namespace sandbox
        # the pipe's ends put at 3 and 4 by a small Python launcher, which then becomes the browser
        self.process = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(to_browser), str(from_browser), *command],
                                        pass_fds=(to_browser, from_browser), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._id = 0
        self.session: str | None = None

    def call(self, method: str, **params) -> dict:
        self._id += 1
        message: dict = {"id": self._id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise AssertionError("chromium closed its pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                assert "error" not in answer, answer
                return answer["result"]

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def text_when(self, test) -> str:
        """The page's text once `test(text)` holds (read every 0.2 s, without reloading it)."""
        deadline = time.monotonic() + PATIENCE
        while True:
            text = self.evaluate("document.body ? document.body.innerText : ''") or ""
            if test(text):
                return text
            assert time.monotonic() < deadline, f"the page never showed it: {text[:2000]}"
            time.sleep(0.2)

    def close(self) -> None:
        try:
            self.session = None
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary found (Debian: apt-get install chromium; .ci/run installs it)")
def test_the_page_in_a_browser_shows_a_new_problem_and_new_figures_without_a_reload(preview, tmp_path):
    race = copy_specs(tmp_path / "specs")["thousand_lakes"]
    server = preview(race)
    browser = Chromium(tmp_path / "profile")
    try:
        browser.open(server.url)
        browser.text_when(lambda text: "up to date" in text and "153.3184" in text and "live" in text)
        # the race's figures table fits its box in a window 1100 px wide (beside the pages) and
        # 800 px wide (above them), and nothing makes the page scroll sideways (the README's
        # screenshot, docs/preview.png, had its percentiles cut at 1100 px)
        measure = ("JSON.stringify([...document.querySelectorAll('.figures')].map(f => [f.scrollWidth, f.clientWidth])"
                   ".concat([[document.documentElement.scrollWidth, document.documentElement.clientWidth]]))")
        for width in (1100, 800):
            browser.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
            boxes = json.loads(browser.evaluate(measure))
            assert len(boxes) == 2 and all(inner <= outer for inner, outer in boxes), (width, boxes)
        browser.call("Emulation.clearDeviceMetricsOverride")
        browser.evaluate("window.loaded_once = true")  # gone if the page were loaded again
        damaged(race, "length: 96", "length: x96")
        text = browser.text_when(lambda text: "does not load" in text)
        assert f"{race}:8:13: error: 'length' must be a whole number, got 'x96'" in text
        assert "These pages are from the last version that loaded." in text
        # a new figure: the first stage two spaces shorter
        damaged(race, "length: x96", "length: 94")
        text = browser.text_when(lambda text: "up to date" in text and "version 3" in text)
        par = server.state()["specs"][0]["figures"]["data"]["stages"][0]["par_time"]
        assert par != 153.3184 and f"{par:.4f}".rstrip("0").rstrip(".") in text  # as the table writes it
        assert browser.evaluate("window.loaded_once") is True
        assert browser.evaluate("document.querySelectorAll('figure.page img').length") == 2
    finally:
        browser.close()


def test_other_commands_import_nothing_of_the_server():
    """The preview's modules and the HTTP server load when `preview` runs, not at start-up."""
    probe = (
        "import sys\n"
        "from sheetgen.cli import main\n"
        "try:\n"
        f"    main(['validate', {str(RACE)!r}], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('sheetgen.preview', 'http.server', 'pypdfium2'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, check=True)
    assert out.stdout.splitlines()[-1] == "[]"


def test_a_port_in_use_is_one_line_and_nothing_is_served(run):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("preview", str(RACE), "--port", str(port))
    assert result.exit_code == 1
    assert result.stderr == (
        f"sheetgen: error: cannot serve on 127.0.0.1:{port}: the port is in use; give another with --port (0: any free port)\n"
    )
    assert result.stdout == ""


def test_an_empty_folder_is_refused(run, tmp_path):
    result = run("preview", str(tmp_path))
    assert (result.exit_code, result.stderr) == (1, "sheetgen: error: no spec files found\n")
