"""Golden references: what the CLI prints and what its PDFs draw, compared exactly.

Every golden under tests/golden/ is recomputed here through the CLI in-process (from the
repository root, as a user runs it) and compared with the stored file. PDFs are not stored:
each is described by `describe_pdf` below, read from the file itself (page sizes, text runs,
painted paths in page coordinates), so a reportlab release that changes bytes but not pages
changes nothing here.

Regenerate (each capture is made twice and must come out the same):
    SHEETGEN_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py
and commit the regeneration on its own, saying why a figure or page changed (tests/golden/README.md).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from pypdf import PdfReader

from conftest import ROOT, SPECS
from pdfops import operations as read_operations
from sheetgen.cli import main

GOLDEN = ROOT / "tests" / "golden"
REGEN = os.environ.get("SHEETGEN_REGEN_GOLDEN") == "1"
HOW_TO_REGENERATE = (
    "if the change is intended, regenerate with `SHEETGEN_REGEN_GOLDEN=1 .venv/bin/python -m pytest "
    "tests/test_golden.py` and commit the regeneration on its own, saying why (tests/golden/README.md)"
)


# ---------------------------------------------------------------------------------------------
# PDF description: read back from the PDF's own content streams, nothing from sheetgen
# ---------------------------------------------------------------------------------------------

IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
INFO_KEYS = ("/Title", "/Author", "/Subject", "/Keywords")  # not Creator/Producer: versions
STROKES = {"S", "s", "B", "B*", "b", "b*"}
FILLS = {"f", "f*", "B", "B*", "b", "b*"}
PAINTS = STROKES | FILLS | {"n", "F"}


def _mul(m, n):
    """m then n, in PDF's row-vector convention (a point p becomes p x m x n)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _apply(m, x, y):
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _scale(m) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _r(value, places: int = 2) -> float:
    value = round(float(value), places)
    return 0.0 if value == 0 else value  # never -0.0


def _translate(x: float, y: float):
    return (1.0, 0.0, 0.0, 1.0, x, y)


def _bytes(obj) -> bytes:
    if isinstance(obj, bytes):
        return bytes(obj)
    return obj.original_bytes if hasattr(obj, "original_bytes") else str(obj).encode("latin-1")


def _tounicode(data: bytes) -> dict[bytes, str]:
    """A ToUnicode CMap's bfchar and bfrange entries: code bytes -> text."""
    text = data.decode("latin-1")
    found: dict[bytes, str] = {}

    def uni(hexes: str) -> str:
        return bytes.fromhex(hexes).decode("utf-16-be", errors="replace") if hexes else ""

    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            found[bytes.fromhex(src)] = uni(dst)
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block):
            width, first, last = len(lo) // 2, int(lo, 16), int(hi, 16)
            if dst.startswith("["):
                for i, target in enumerate(re.findall(r"<([0-9A-Fa-f]*)>", dst)[: last - first + 1]):
                    found[(first + i).to_bytes(width, "big")] = uni(target)
            else:
                base, digits = int(dst[1:-1], 16), len(dst) - 2
                for i in range(last - first + 1):
                    found[(first + i).to_bytes(width, "big")] = uni(f"{base + i:0{digits}X}")
    return found


class _Font:
    """Enough of a PDF font to turn shown bytes into text and advance widths."""

    def __init__(self, font):
        font = font.get_object()
        self.name = re.sub(r"^[A-Z]{6}\+", "", str(font.get("/BaseFont", "?")).lstrip("/"))  # no subset tag
        self.two_byte = font.get("/Subtype") == "/Type0"
        self.unicode = _tounicode(font["/ToUnicode"].get_object().get_data()) if "/ToUnicode" in font else {}
        self.default_width: float | None = None
        self.widths: dict[int, float] = {}
        if self.two_byte:
            descendant = font["/DescendantFonts"][0].get_object()
            self.default_width = float(descendant.get("/DW", 1000))
            w = [v.get_object() for v in descendant.get("/W", [])]
            i = 0
            while i < len(w):
                if isinstance(w[i + 1], list):
                    self.widths.update((int(w[i]) + k, float(v)) for k, v in enumerate(w[i + 1]))
                    i += 2
                else:
                    self.widths.update((code, float(w[i + 2])) for code in range(int(w[i]), int(w[i + 1]) + 1))
                    i += 3
        elif "/Widths" in font:
            first = int(font.get("/FirstChar", 0))
            self.widths = {first + i: float(v) for i, v in enumerate(font["/Widths"])}
            self.default_width = 0.0

    def codes(self, data: bytes) -> list[bytes]:
        step = 2 if self.two_byte else 1
        return [data[i : i + step] for i in range(0, len(data) - step + 1, step)]

    def text(self, code: bytes) -> str:
        if code in self.unicode:
            return self.unicode[code]
        return code.decode("cp1252", errors="replace")  # a simple font without ToUnicode: WinAnsi

    def width(self, code: bytes) -> float | None:
        """In thousandths of the font size; None when the file does not say (standard 14 fonts)."""
        if self.default_width is None:
            return None
        return self.widths.get(int.from_bytes(code, "big"), self.default_width)


class _State:
    """The graphics state a recorded item depends on (saved and restored by q/Q)."""

    def __init__(self):
        self.ctm = IDENTITY
        self.lw, self.dash, self.cap, self.join = 1.0, ((), 0.0), 0, 0
        self.stroke, self.fill = [0.0], [0.0]
        self.stroke_alpha = self.fill_alpha = 1.0
        self.font: _Font | None = None
        self.size = self.char_space = self.word_space = self.leading = self.rise = 0.0
        self.hscale = 1.0

    def copy(self) -> _State:
        twin = _State.__new__(_State)
        twin.__dict__.update(self.__dict__)
        return twin


def _colour(operands) -> list:
    if operands and str(operands[-1]).startswith("/"):
        return [str(operands[-1])]  # a pattern
    return [_r(v, 4) for v in operands]


def _corners(gs: _State, x: float, y: float, w: float, h: float) -> list[float]:
    points = [_apply(gs.ctm, px, py) for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
    return [_r(v) for p in points for v in p]


def describe_pdf(source) -> dict:
    """Per page: MediaBox, then in drawing order every text run and every painted path.

    Coordinates are page points rounded to 0.01 (the CTM followed through q/Q/cm and forms);
    a text run is one show operation: position of its origin, font (subset tag dropped), size
    in page units, string (from ToUnicode) and fill colour. A path is its segments (m, l, c
    with v/y spelled out as c, h, re as its four corners), the painting operator, and what the
    painting uses: line width, dash, cap and join in page units and the stroke colour for a
    stroke, the fill colour for a fill, the clip operator when the path also clips.
    """
    reader = PdfReader(source)
    info = reader.metadata or {}
    pages = []
    for page in reader.pages:
        items: list[dict] = []
        _walk(page.get_contents(), page.get("/Resources") or {}, reader, _State(), items, {})
        entry: dict = {"mediabox": [_r(v) for v in page.mediabox], "items": items}
        if int(page.get("/Rotate", 0) or 0):
            entry["rotate"] = int(page["/Rotate"])
        annots = []
        for annot in page.get("/Annots", None) or []:
            annot = annot.get_object()
            action = (annot.get("/A") or {}).get_object() if annot.get("/A") else {}
            annots.append({"subtype": str(annot.get("/Subtype")), "rect": [_r(v) for v in annot.get("/Rect", [])],
                           "uri": str(action.get("/URI", "")), "dest": str(annot.get("/Dest", ""))})
        if annots:
            entry["annots"] = annots
        pages.append(entry)
    return {"info": {k.lstrip("/").lower(): str(info[k]) for k in INFO_KEYS if k in info}, "pages": pages}


def _walk(contents, resources, reader, gs: _State, items: list, fonts: dict) -> None:
    if contents is None:
        return
    resources = resources.get_object() if hasattr(resources, "get_object") else resources
    stack: list[_State] = []
    path: list[list] = []
    clip = None
    current = start = (0.0, 0.0)
    tm = tlm = IDENTITY
    operations = read_operations(contents, reader)

    def point(x, y):
        return _apply(gs.ctm, float(x), float(y))

    def font(name):
        key = (id(resources), str(name))
        if key not in fonts:
            fonts[key] = _Font(resources["/Font"][name])
        return fonts[key]

    def show(data: bytes):
        nonlocal tm
        if tm is None:
            raise ValueError(f"font {gs.font.name!r} gives no widths: cannot place a run that follows another")
        trm = _mul(tm, gs.ctm)
        x, y = _apply(trm, 0.0, gs.rise)
        codes = gs.font.codes(data)
        item = {"text": "".join(gs.font.text(code) for code in codes), "font": gs.font.name, "x": _r(x), "y": _r(y),
                "size": _r(gs.size * math.hypot(trm[2], trm[3])), "fill": gs.fill}
        angle = math.degrees(math.atan2(trm[1], trm[0]))
        if abs(angle) >= 0.005:
            item["angle"] = _r(angle)
        if gs.fill_alpha != 1.0:
            item["fill_alpha"] = gs.fill_alpha
        items.append(item)
        advance = 0.0
        for code in codes:
            width = gs.font.width(code)
            if width is None:
                tm = None  # unknown: only an error if another run follows without a new position
                return
            advance += width / 1000 * gs.size + gs.char_space + (gs.word_space if code == b" " else 0.0)
        tm = _mul(_translate(advance * gs.hscale, 0.0), tm)

    def paint(op):
        nonlocal path, clip
        if path:  # a painting operator with no path (reportlab's `n` before `re`) draws nothing
            item: dict = {"paint": op, "path": path}
            if op in STROKES:
                k = _scale(gs.ctm)
                item.update(lw=_r(gs.lw * k, 3), cap=gs.cap, join=gs.join, stroke=gs.stroke,
                            dash=[[_r(v * k) for v in gs.dash[0]], _r(gs.dash[1] * k)])
                if gs.stroke_alpha != 1.0:
                    item["stroke_alpha"] = gs.stroke_alpha
            if op in FILLS:
                item["fill"] = gs.fill
                if gs.fill_alpha != 1.0:
                    item["fill_alpha"] = gs.fill_alpha
            if clip:
                item["clip"] = clip
            items.append(item)
        path, clip = [], None

    for operands, raw in operations:
        op = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
        if op == "q":
            stack.append(gs.copy())
        elif op == "Q":
            gs = stack.pop() if stack else gs
        elif op == "cm":
            gs.ctm = _mul(tuple(float(v) for v in operands), gs.ctm)
        elif op == "w":
            gs.lw = float(operands[0])
        elif op == "d":
            gs.dash = (tuple(float(v) for v in operands[0]), float(operands[1]))
        elif op == "J":
            gs.cap = int(operands[0])
        elif op == "j":
            gs.join = int(operands[0])
        elif op in ("rg", "g", "k", "sc", "scn"):
            gs.fill = _colour(operands)
        elif op in ("RG", "G", "K", "SC", "SCN"):
            gs.stroke = _colour(operands)
        elif op == "cs":
            gs.fill = [0.0]
        elif op == "CS":
            gs.stroke = [0.0]
        elif op == "gs":
            state = resources["/ExtGState"][operands[0]].get_object()
            gs.stroke_alpha = _r(state.get("/CA", gs.stroke_alpha), 4)
            gs.fill_alpha = _r(state.get("/ca", gs.fill_alpha), 4)
            if "/LW" in state:
                gs.lw = float(state["/LW"])
        elif op == "m":
            current = start = point(*operands)
            path.append(["m", _r(current[0]), _r(current[1])])
        elif op == "l":
            current = point(*operands)
            path.append(["l", _r(current[0]), _r(current[1])])
        elif op in ("c", "v", "y"):
            points = [point(operands[i], operands[i + 1]) for i in range(0, len(operands), 2)]
            points = [current] + points if op == "v" else points + [points[-1]] if op == "y" else points
            current = points[-1]
            path.append(["c"] + [_r(v) for p in points for v in p])
        elif op == "h":
            current = start
            path.append(["h"])
        elif op == "re":
            x, y, w, h = (float(v) for v in operands)
            current = start = point(x, y)
            path.append(["re"] + _corners(gs, x, y, w, h))
        elif op in ("W", "W*"):
            clip = op
        elif op in PAINTS:
            paint("f" if op == "F" else op)
        elif op == "BT":
            tm = tlm = IDENTITY
        elif op == "Tf":
            gs.font, gs.size = font(operands[0]), float(operands[1])
        elif op == "Tc":
            gs.char_space = float(operands[0])
        elif op == "Tw":
            gs.word_space = float(operands[0])
        elif op == "Tz":
            gs.hscale = float(operands[0]) / 100
        elif op == "TL":
            gs.leading = float(operands[0])
        elif op == "Ts":
            gs.rise = float(operands[0])
        elif op == "Tm":
            tm = tlm = tuple(float(v) for v in operands)
        elif op in ("Td", "TD"):
            if op == "TD":
                gs.leading = -float(operands[1])
            tm = tlm = _mul(_translate(float(operands[0]), float(operands[1])), tlm)
        elif op in ("T*", "'", '"'):
            tm = tlm = _mul(_translate(0.0, -gs.leading), tlm)
            if op == "'":
                show(_bytes(operands[0]))
            elif op == '"':
                gs.word_space, gs.char_space = float(operands[0]), float(operands[1])
                show(_bytes(operands[2]))
        elif op == "Tj":
            show(_bytes(operands[0]))
        elif op == "TJ":
            for element in operands[0]:
                if isinstance(element, (bytes, str)):
                    show(_bytes(element))
                elif tm is not None:
                    tm = _mul(_translate(-float(element) / 1000 * gs.size * gs.hscale, 0.0), tm)
        elif op == "Do":
            xobject = resources["/XObject"][operands[0]].get_object()
            if xobject.get("/Subtype") == "/Form":
                inner = gs.copy()
                inner.ctm = _mul(tuple(float(v) for v in xobject.get("/Matrix", IDENTITY)), gs.ctm)
                _walk(xobject, xobject.get("/Resources", resources), reader, inner, items, fonts)
            else:
                items.append({"image": [int(xobject.get("/Width", 0)), int(xobject.get("/Height", 0))],
                              "corners": _corners(gs, 0, 0, 1, 1)})
        elif op == "INLINE IMAGE":
            items.append({"image": "inline", "corners": _corners(gs, 0, 0, 1, 1)})
        elif op == "sh":
            items.append({"shading": str(operands[0]), "ctm": [_r(v, 4) for v in gs.ctm]})
        # the rest (ET, marked content, BX/EX, M, ri, i, d0/d1) changes nothing recorded


def dumps_description(description: dict) -> str:
    """JSON with sorted keys, one text run or path per line, so a diff shows what moved."""

    def one(value) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def block(mapping: dict, key: str, lines_of) -> list[str]:
        out = ["{"]
        keys = sorted(mapping)
        for n, k in enumerate(keys):
            comma = "," if n < len(keys) - 1 else ""
            if k == key:
                out.append(f"{one(k)}:[")
                values = mapping[k]
                for i, value in enumerate(values):
                    sub = lines_of(value)
                    sub[-1] += "," if i < len(values) - 1 else ""
                    out.extend(sub)
                out.append("]" + comma)
            else:
                out.append(f"{one(k)}:{one(mapping[k])}{comma}")
        return out + ["}"]

    lines = block(description, "pages", lambda page: block(page, "items", lambda item: [one(item)]))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The captures
# ---------------------------------------------------------------------------------------------

def _kind(path: Path) -> tuple[str, str | None]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data.get("game"), data.get("kind")


BUNDLED = sorted(SPECS.rglob("*.yaml"))
RALLYTAIRE_RACES = [p for p in BUNDLED if _kind(p) in {("rallytaire", None), ("rallytaire", "race")}]
RALLY_RISK_RACES = [p for p in BUNDLED if _kind(p) == ("rally_risk", "race")]
RALLY_RUN_SETS = [p for p in BUNDLED if _kind(p)[0] == "rally_run"]
# build prints championship.yaml as `calendar --seed 1 -o` does (the same bytes: tests/
# test_render_rally_risk.py): its pages are pdf/calendar-championship-seed1.json
NOT_PRINTED_BY_BUILD = {"championship"}
BUILDS = {"a4": ("--paper", "a4"), "letter": ("--paper", "letter"), "a4-low-ink": ("--paper", "a4", "--ink", "low")}
#: the Letter and low-ink builds of every bundled spec are checked in slow runs (`-m slow`):
#: each build solves every GT track's par again; the default suite checks the A4 build, and
#: Letter and low ink page by page elsewhere (margins, ink, sizes)
SLOW_BUILDS = tuple(label for label in BUILDS if label != "a4")
#: the bundled GT tracks whose exact par takes some 40 s each to solve (docs/benchmarks.md):
#: the default suite builds every other bundled spec (build-report/a4-quick.txt); their A4
#: pages and the whole build's report are checked in slow runs
SLOW_TO_SOLVE = {"gt_hexagon_ring", "gt_wide_boulevard"}
OUT = "{out}"  # in arguments: the capture's own empty output folder


def _printed(path: Path) -> bool:
    """Whether the spec's game prints its kind of file (a game or kind without printables is
    built as "valid; no printable sheets")."""
    from sheetgen.registry import load_spec
    from sheetgen.render import can_render

    return can_render(load_spec(path))


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Golden:
    name: str  # path under tests/golden/
    args: tuple[str, ...]  # the CLI arguments, run from the repository root
    pick: str = "stdout"  # stdout | build (stdout, stderr and the files) | a file under {out}: text or .pdf
    slow: bool = False  # checked in slow runs only (`-m slow`)


def goldens() -> list[Golden]:
    out: list[Golden] = []
    # the advanced rules' solve takes 2-5 s a race: the default suite checks thousand_lakes's
    # analysis and one simulation; the other races' are checked in slow runs (`-m slow`)
    for spec in RALLYTAIRE_RACES:
        for rules in ("basic", "advanced"):
            out.append(Golden(f"analyze/{spec.stem}-{rules}.json", ("analyze", rel(spec), "--rules", rules, "--format", "json"),
                              slow=rules == "advanced" and spec.stem != "thousand_lakes"))
    for spec in RALLY_RISK_RACES:
        out.append(Golden(f"analyze/{spec.stem}-best.json", ("analyze", rel(spec), "--format", "json")))
        for assistance in ("permanent", "rapid", "normal"):
            out.append(Golden(f"analyze/{spec.stem}-{assistance}.json",
                              ("analyze", rel(spec), "--assistance", assistance, "--format", "json")))
    for spec in RALLYTAIRE_RACES:
        for seed in ("1", "2"):
            for label, extra in (("basic", ()), ("cautious", ("--policy", "cautious")), ("advanced", ("--rules", "advanced"))):
                out.append(Golden(f"simulate/{spec.stem}-seed{seed}-{label}.txt", ("simulate", rel(spec), "--seed", seed) + extra,
                                  slow=label == "advanced" and (seed, spec.stem) != ("1", "thousand_lakes")))
    for spec in RALLY_RISK_RACES:
        out.append(Golden(f"simulate/{spec.stem}-seed1.txt", ("simulate", rel(spec), "--seed", "1")))
        out.append(Golden(f"simulate/{spec.stem}-seed3-players3.txt", ("simulate", rel(spec), "--seed", "3", "--players", "3")))
    for spec in RALLY_RUN_SETS:
        out.append(Golden(f"analyze/{spec.stem}-games5.json", ("analyze", rel(spec), "--games", "5", "--format", "json")))
        out.append(Golden(f"simulate/{spec.stem}-seed1.txt", ("simulate", rel(spec), "--seed", "1")))
        out.append(Golden(f"simulate/{spec.stem}-seed3-players4.txt", ("simulate", rel(spec), "--seed", "3", "--players", "4")))
    out.append(Golden("generate/rally_run-seed1.yaml", ("generate", "rally_run", "--seed", "1")))
    for difficulty in ("easy", "medium", "hard"):
        for seed in ("1", "2", "3"):
            out.append(Golden(f"generate/rallytaire-{difficulty}-seed{seed}.yaml",
                              ("generate", "rallytaire", "--seed", seed, "--difficulty", difficulty)))
    out.append(Golden("generate/rallytaire-medium-seed1-stages2.yaml", ("generate", "rallytaire", "--seed", "1", "--stages", "2")))
    championship = "track_specs/rally_risk/championship.yaml"
    out.append(Golden("calendar/championship-seed1.json", ("calendar", championship, "--seed", "1", "--format", "json", "--jobs", "1")))
    written = ("calendar", championship, "--seed", "1", "--jobs", "1", "-o", OUT)
    out.append(Golden("calendar/championship-seed1-o.txt", written))
    out.append(Golden("calendar/championship-seed1-o.yaml", written, "championship-seed1.yaml"))
    out.append(Golden("pdf/calendar-championship-seed1.json", written, "championship-seed1.pdf"))
    out.append(Golden("standings/results.json", ("standings", "track_specs/rally_risk/results.yaml", "--format", "json")))
    out.append(Golden("season/winter_season.json", ("season", "track_specs/seasons/winter_season.yaml", "--format", "json")))
    for spec in BUNDLED:
        out.append(Golden(f"validate/{spec.parent.name}-{spec.stem}.json", ("validate", rel(spec), "--format", "json")))
    out.append(Golden("timetable/timetable.json", ("timetable", "--format", "json")))
    out.append(Golden("timetable/timetable-max-speed-17.csv", ("timetable", "--max-speed", "17", "--format", "csv")))
    out.append(Golden("tables/rally-risk.json", ("tables", "rally-risk", "--format", "json")))
    out.append(Golden("schema/rallytaire.json", ("schema", "rallytaire")))
    out.append(Golden("schema/rally_risk.json", ("schema", "rally_risk")))
    out.append(Golden("schema/rally_run.json", ("schema", "rally_run")))
    out.append(Golden("schema/rallyman.json", ("schema", "rallyman")))
    for label, options in BUILDS.items():
        args = ("build", *options, "-o", OUT)
        slow = label in SLOW_BUILDS
        out.append(Golden(f"build-report/{label}.txt", args, "build", slow=True))
        if label == "a4":  # the default suite's build: every bundled spec but the slowest to solve
            quick = ("build", *options, *(rel(p) for p in BUNDLED if p.stem not in SLOW_TO_SOLVE), "-o", OUT)
            out.append(Golden("build-report/a4-quick.txt", quick, "build"))
        for spec in BUNDLED:
            if spec.stem not in NOT_PRINTED_BY_BUILD and _printed(spec):
                one_slow = slow or spec.stem in SLOW_TO_SOLVE
                out.append(Golden(f"pdf/build-{label}/{spec.stem}.json", args if one_slow else quick, f"{spec.stem}.pdf", slow=one_slow))
    rendered = ("generate", "rallytaire", "--seed", "5", "--render", f"{OUT}/race.pdf")
    out.append(Golden("generate/rallytaire-medium-seed5-render.yaml", rendered))
    out.append(Golden("pdf/generate-rallytaire-seed5.json", rendered, "race.pdf"))
    return out


GOLDENS = goldens()


class Runs:
    """Each command run once per attempt (a build feeds ten goldens), in its own output folder."""

    def __init__(self, factory):
        self.factory = factory
        self.done: dict[tuple, tuple] = {}

    def __call__(self, args: tuple[str, ...], attempt: int):
        key = (args, attempt)
        if key not in self.done:
            folder = self.factory.mktemp("golden")
            argv = [a.replace(OUT, str(folder)) for a in args]
            here = os.getcwd()
            os.chdir(ROOT)
            try:
                result = CliRunner().invoke(main, argv, catch_exceptions=False)
            finally:
                os.chdir(here)
            assert result.exit_code == 0, f"sheetgen {shlex.join(argv)} exited {result.exit_code}:\n{result.output}"
            self.done[key] = (result, folder)
        return self.done[key]


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    return Runs(tmp_path_factory)


def capture(golden: Golden, runs: Runs, attempt: int) -> str:
    result, folder = runs(golden.args, attempt)

    def plain(text: str) -> str:  # no machine-specific paths: the output folder, the checkout
        return text.replace(str(folder), "<out>").replace(str(ROOT), "<repo>")

    if golden.pick == "stdout":
        return plain(result.stdout)
    if golden.pick == "build":
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        command = "sheetgen " + shlex.join(golden.args).replace(OUT, "<out>")
        return plain(f"$ {command}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}--- files\n"
                     + "".join(f"{f}\n" for f in files))
    target = folder / golden.pick
    if target.suffix == ".pdf":
        return plain(dumps_description(describe_pdf(target)))
    text = target.read_text(encoding="utf-8")
    if target.suffix == ".yaml":
        # a built calendar names its library relative to the output folder when the two share a
        # parent folder, else absolutely: both spelled from the checkout, wherever the folder is
        text = re.sub(r"(?m)^library: (.+)$",
                      lambda m: f"library: {os.path.normpath(os.path.join(folder, m.group(1)))}", text)
    return plain(text)


def first_differences(expected: str, actual: str, limit: int = 40) -> str:
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now", n=2, lineterm=""))
    shown = [line if len(line) <= 300 else line[:300] + " ..." for line in diff[:limit]]
    more = f"\n... {len(diff) - limit} more diff lines" if len(diff) > limit else ""
    return "\n".join(shown) + more


@pytest.mark.parametrize("golden", [pytest.param(g, id=g.name, marks=[pytest.mark.slow] if g.slow else []) for g in GOLDENS])
def test_golden(golden, runs):
    path = GOLDEN / golden.name
    actual = capture(golden, runs, 0)
    if REGEN:
        again = capture(golden, runs, 1)
        assert again == actual, f"{golden.name} is not deterministic:\n{first_differences(actual, again)}"
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"no golden file tests/golden/{golden.name}; {HOW_TO_REGENERATE}", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        command = "sheetgen " + shlex.join(golden.args).replace(OUT, "<out>")
        what = "" if golden.pick == "stdout" else f" ({golden.pick})"
        pytest.fail(f"{command}{what} differs from tests/golden/{golden.name}:\n"
                    f"{first_differences(expected, actual)}\n{HOW_TO_REGENERATE}", pytrace=False)


def test_every_golden_file_is_checked():
    known = {g.name for g in GOLDENS} | {"README.md"}
    stored = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    if REGEN:
        for name in stored - known:
            (GOLDEN / name).unlink()
        return
    if stored - known:
        pytest.fail(f"golden files that no test recomputes: {sorted(stored - known)}; "
                    f"delete them, or regenerate (regeneration deletes them)", pytrace=False)


# ---------------------------------------------------------------------------------------------
# The extractor itself, on a PDF whose geometry is known by construction
# ---------------------------------------------------------------------------------------------

def test_describe_pdf_reads_back_known_geometry(tmp_path):
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas

    font = "GoldenTestSans"
    if font not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(font, str(ROOT / "sheetgen" / "data" / "fonts" / "DejaVuSans.ttf")))
    target = tmp_path / "known.pdf"
    c = Canvas(str(target), pagesize=A4, invariant=1)
    c.setTitle("known")
    c.setStrokeColorRGB(1, 0, 0)
    c.setLineWidth(0.5)
    c.line(10 * mm, 20 * mm, 50 * mm, 20 * mm)  # 28.35, 56.69 -> 141.73, 56.69
    c.setFillColorRGB(0, 0, 1)
    c.setDash(2, 1)
    c.rect(20 * mm, 30 * mm, 40 * mm, 10 * mm, stroke=1, fill=1)
    c.saveState()
    c.translate(100 * mm, 100 * mm)
    c.scale(2, 2)
    c.setDash()
    c.line(0, 0, 5 * mm, 0)  # scaled: 10 mm long from (100 mm, 100 mm), line width 1 pt
    c.restoreState()
    c.setFillColorRGB(0, 0, 0)
    c.setFont(font, 12)
    c.drawString(15 * mm, 200 * mm, "Hällo")
    t = c.beginText(15 * mm, 190 * mm)
    t.textOut("ab ")
    t.setFont("Helvetica", 10)
    t.textOut("c")
    c.drawText(t)
    c.showPage()
    c.setPageSize((100 * mm, 50 * mm))
    c.setLineWidth(1)
    c.setStrokeColorRGB(0, 0, 0)
    c.rect(1 * mm, 2 * mm, 3 * mm, 4 * mm, stroke=1, fill=0)
    c.showPage()
    c.save()

    got = describe_pdf(target)
    assert got["info"]["title"] == "known"
    first, second = got["pages"]
    assert first["mediabox"] == [0.0, 0.0, 595.28, 841.89]
    assert second["mediabox"] == [0.0, 0.0, 283.46, 141.73]
    paths = [item for item in first["items"] if "paint" in item]
    assert paths == [
        {"paint": "S", "path": [["m", 28.35, 56.69], ["l", 141.73, 56.69]], "lw": 0.5, "cap": 0, "join": 0,
         "stroke": [1.0, 0.0, 0.0], "dash": [[], 0.0]},
        {"paint": "B*", "path": [["re", 56.69, 85.04, 170.08, 85.04, 170.08, 113.39, 56.69, 113.39]], "lw": 0.5,
         "cap": 0, "join": 0, "stroke": [1.0, 0.0, 0.0], "dash": [[2.0, 1.0], 0.0], "fill": [0.0, 0.0, 1.0]},
        {"paint": "S", "path": [["m", 283.46, 283.46], ["l", 311.81, 283.46]], "lw": 1.0, "cap": 0, "join": 0,
         "stroke": [1.0, 0.0, 0.0], "dash": [[], 0.0]},
    ]
    texts = [item for item in first["items"] if "text" in item]
    ab = pdfmetrics.stringWidth("ab ", font, 12)  # where the second run of the text object starts
    assert texts == [
        {"text": "Hällo", "font": "DejaVuSans", "size": 12.0, "x": 42.52, "y": 566.93, "fill": [0.0, 0.0, 0.0]},
        {"text": "ab ", "font": "DejaVuSans", "size": 12.0, "x": 42.52, "y": 538.58, "fill": [0.0, 0.0, 0.0]},
        {"text": "c", "font": "Helvetica", "size": 10.0, "x": _r(15 * mm + ab), "y": 538.58, "fill": [0.0, 0.0, 0.0]},
    ]
    assert second["items"] == [
        {"paint": "S", "path": [["re", 2.83, 5.67, 11.34, 5.67, 11.34, 17.01, 2.83, 17.01]], "lw": 1.0, "cap": 0,
         "join": 0, "stroke": [0.0, 0.0, 0.0], "dash": [[], 0.0]},
    ]
    text = dumps_description(got)
    assert json.loads(text) == got
    item_lines = [line for line in text.splitlines() if line.startswith('{"')]  # one line per item
    assert [json.loads(line.rstrip(",")) for line in item_lines] == first["items"] + second["items"]
