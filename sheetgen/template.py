"""Page templates as data: paper, margins, fonts, sizes, colours, line weights, ink modes.

A template is a YAML file (see templates/race_sheet.yaml and templates/rally_risk.yaml). It
is loaded like a spec, so a user's edited copy gets the same `file:line:col: error:` lines
when something is off. Every kind has the same keys (`space_mm`, the side of a Rallytaire
track space, and `hex_mm`, a Rallyman space across flats, are optional), so any template can drive any game's sheets; `kind` says which
sheets it was made for (a built-in template's name), and each game picks its own by default
(`Game.template`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from sheetgen.errors import OptionError, SpecError
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import load_bytes, load_file

MM = 72.0 / 25.4  # points per millimetre

PAPERS = {"a4": (595.2755905511812, 841.8897637795277), "letter": (612.0, 792.0)}
INKS = ("normal", "low")
DEFAULT_SPACE_MM = 8.0
DEFAULT_HEX_MM = 30.0  # a Rallyman space across flats (docs/rallyman_printing.md)

_COLOUR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
_WIDTH = {"type": "number", "minimum": 0.05, "maximum": 5}
_INK = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text", "line", "track_fill", "corner", "box_fill", "shade", "line_width", "thin_width", "corner_width", "fill"],
    "properties": {
        "text": _COLOUR,
        "line": _COLOUR,
        "track_fill": _COLOUR,
        "corner": _COLOUR,
        "box_fill": _COLOUR,
        "shade": _COLOUR,
        "line_width": _WIDTH,
        "thin_width": _WIDTH,
        "corner_width": _WIDTH,
        "fill": {"type": "boolean"},
    },
}
_SIZE = {"type": "number", "minimum": 4, "maximum": 40}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen page template",
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "paper", "margin_mm", "fonts", "font_size", "ink"],
    "properties": {
        # the sheets a template was made for: a built-in template's name (any template
        # draws any game's sheets)
        "kind": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "paper": {"enum": sorted(PAPERS)},
        "margin_mm": {"type": "number", "minimum": 5, "maximum": 40},
        "space_mm": {"type": "number", "minimum": 7, "maximum": 14},
        "hex_mm": {"type": "number", "minimum": 15, "maximum": 60},
        "fonts": {
            "type": "object",
            "additionalProperties": False,
            "required": ["regular", "bold"],
            "properties": {"regular": {"enum": ["DejaVuSans"]}, "bold": {"enum": ["DejaVuSans-Bold"]}},
        },
        "font_size": {
            "type": "object",
            "additionalProperties": False,
            "required": ["title", "heading", "body", "small", "space"],
            "properties": {k: _SIZE for k in ("title", "heading", "body", "small")} | {"space": {"type": "number", "minimum": 3, "maximum": 12}},
        },
        "ink": {
            "type": "object",
            "additionalProperties": False,
            "required": list(INKS),
            "properties": {name: _INK for name in INKS},
        },
    },
}


@dataclass(frozen=True)
class Ink:
    text: str
    line: str
    track_fill: str
    corner: str
    box_fill: str
    shade: str
    line_width: float
    thin_width: float
    corner_width: float
    fill: bool


@dataclass(frozen=True)
class Template:
    name: str
    kind: str
    paper: str
    margin_mm: float
    space_mm: float
    font_regular: str
    font_bold: str
    sizes: dict
    inks: dict
    hex_mm: float = DEFAULT_HEX_MM

    def ink(self, mode: str) -> Ink:
        return self.inks[mode]

    def page_size(self, paper: str | None = None) -> tuple[float, float]:
        return PAPERS[paper or self.paper]


def _templates():
    """The built-in templates: the checkout's templates/ when sheetgen is imported straight
    from a source tree (pytest run in a checkout, or a worktree on PYTHONPATH beside an
    editable install of another checkout), else the installed sheetgen.templates."""
    tree = resources.files("sheetgen").joinpath("..")
    if tree.joinpath("pyproject.toml").is_file() and tree.joinpath("templates", "race_sheet.yaml").is_file():
        return tree.joinpath("templates")
    try:
        return resources.files("sheetgen.templates")
    except ModuleNotFoundError:
        return resources.files("sheetgen").joinpath("..", "templates")


def builtin_names() -> list[str]:
    folder = _templates()
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def is_template_file(name_or_path: str) -> bool:
    """True when `name_or_path` names a template file rather than a built-in template: then
    the file is an input of the command that no output may replace."""
    return os.sep in name_or_path or "/" in name_or_path or name_or_path.endswith((".yaml", ".yml"))


def load_template(name_or_path: str = "race_sheet") -> Template:
    """A built-in template by name, or a template file by path."""
    if is_template_file(name_or_path):
        doc = load_file(name_or_path)
    else:
        if name_or_path not in builtin_names():
            raise OptionError(f"unknown template {name_or_path!r} (built in: {', '.join(builtin_names())}; or give a path)")
        raw = _templates().joinpath(f"{name_or_path}.yaml").read_bytes()
        doc = load_bytes(raw, f"templates/{name_or_path}.yaml")
    problems = check(doc, SCHEMA)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if not problems and kind not in builtin_names():
        problems = [doc.problem(("kind",), f"unknown template kind {kind!r} (the sheets it is made for: one of {', '.join(builtin_names())})")]
    if problems:
        raise SpecError(problems)
    data = doc.data
    return Template(
        name=os.path.basename(doc.file),
        kind=data["kind"],
        paper=data["paper"],
        margin_mm=float(data["margin_mm"]),
        space_mm=float(data.get("space_mm", DEFAULT_SPACE_MM)),
        font_regular=data["fonts"]["regular"],
        font_bold=data["fonts"]["bold"],
        sizes={k: float(v) for k, v in data["font_size"].items()},
        inks={mode: Ink(**data["ink"][mode]) for mode in INKS},
        hex_mm=float(data.get("hex_mm", DEFAULT_HEX_MM)),
    )
