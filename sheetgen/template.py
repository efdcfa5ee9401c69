"""Page templates as data: paper, margins, fonts, sizes, colours, line weights, ink modes.

A template is a YAML file (see templates/race_sheet.yaml and templates/rally_risk.yaml). It
is loaded like a spec, so a user's edited copy gets the same `file:line:col: error:` lines
when something is off. Every kind has the same keys, so any template can drive any game's
sheets; `kind` says which sheets it was made for (a built-in template's name), and each game
picks its own by default (`Game.template`). A game reads sizes of its own from a template,
keys ending in `_mm` that it declares (`Game.template_sizes`, each a `TemplateSize`: its
range and default): this module names none of them, and a template a user gives is
checked against what the games declare (`load_template(..., sizes=)`: an unknown one is an
unknown key, one out of its range refused at its value).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sheetgen.errors import OptionError, SpecError

MM = 72.0 / 25.4  # points per millimetre

PAPERS = {"a4": (595.2755905511812, 841.8897637795277), "letter": (612.0, 792.0)}
INKS = ("normal", "low")
#: a key of a size a game reads (`TemplateSize.key`): lower-case words joined by `_`, then `_mm`
SIZE_KEY = "^[a-z][a-z0-9]*(_[a-z0-9]+)*_mm$"

_COLOUR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
_WIDTH = {"type": "number", "minimum": 0.05, "maximum": 5}
_INK = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "text",
        "line",
        "track_fill",
        "corner",
        "box_fill",
        "shade",
        "line_width",
        "thin_width",
        "corner_width",
        "fill",
    ],
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
#: the font sizes (points) the sheets lay out at, per key: the bundled specs of every game
#: keep their 10 mm margins and print no text over another at either end of each range,
#: each size alone and all at once, on A4 and Letter (measured; docs/printing.md,
#: tests/test_text_fit.py); one step larger runs text into a margin or onto the next item:
#: a 21 pt title crosses the Rallytaire race sheet's top margin, a 12 pt heading a Rallyman
#: dashboard card's figures, a 10 pt body the right margin of a GT time sheet, a 7.5 pt
#: small text the right margin of the Rallytaire time table's legend
FONT_SIZES = {"title": (4, 20), "heading": (4, 11.5), "body": (4, 9.5), "small": (4, 7), "space": (3, 12)}
_SIZE = {key: {"type": "number", "minimum": low, "maximum": high} for key, (low, high) in FONT_SIZES.items()}
SCHEMA: dict[str, Any] = {
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
            "properties": _SIZE,
        },
        "ink": {
            "type": "object",
            "additionalProperties": False,
            "required": list(INKS),
            "properties": {name: _INK for name in INKS},
        },
    },
    # a size a game reads (Game.template_sizes; its range is the game's: load_template's sizes)
    "patternProperties": {SIZE_KEY: {"type": "number", "exclusiveMinimum": 0}},
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
class TemplateSize:
    """A size a game's sheets read from a template, declared by the game
    (`Game.template_sizes`): its key (ending in `_mm`), the least and most it may be, and the
    value when a template does not give it."""

    key: str
    minimum: float
    maximum: float
    default: float


@dataclass(frozen=True)
class Template:
    name: str
    kind: str
    paper: str
    margin_mm: float
    font_regular: str
    font_bold: str
    sizes: dict
    inks: dict
    #: the games' sizes the template gives (`TemplateSize.key` -> mm)
    game_sizes: dict = field(default_factory=dict)

    def ink(self, mode: str) -> Ink:
        return self.inks[mode]

    def size(self, declared: TemplateSize) -> float:
        """The template's value of a game's size, or the game's default when it gives none."""
        return self.game_sizes.get(declared.key, declared.default)

    def page_size(self, paper: str | None = None) -> tuple[float, float]:
        return PAPERS[paper or self.paper]


def _templates():
    """The built-in templates: the checkout's templates/ when sheetgen is imported straight
    from a source tree (pytest run in a checkout, or a worktree on PYTHONPATH beside an
    editable install of another checkout), else the installed sheetgen.templates."""
    from importlib import resources

    tree = resources.files("sheetgen").joinpath("..")
    if tree.joinpath("pyproject.toml").is_file() and tree.joinpath("templates").joinpath("race_sheet.yaml").is_file():
        return tree.joinpath("templates")
    try:
        return resources.files("sheetgen.templates")
    except ModuleNotFoundError:
        return resources.files("sheetgen").joinpath("..").joinpath("templates")


def templates_folder() -> str | None:
    """The folder of the built-in templates, as a path (None where they are not files)."""
    folder = str(_templates())
    return folder if os.path.isdir(folder) else None


def builtin_names() -> list[str]:
    folder = _templates()
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def is_template_file(name_or_path: str) -> bool:
    """True when `name_or_path` names a template file rather than a built-in template: then
    the file is an input of the command that no output may replace."""
    return os.sep in name_or_path or "/" in name_or_path or name_or_path.endswith((".yaml", ".yml"))


@functools.cache
def _schema(sizes: tuple[TemplateSize, ...] | None) -> dict:
    """The template schema: with the games' sizes as keys of their own ranges, or (None)
    with any size key (`SIZE_KEY`)."""
    if sizes is None:
        return SCHEMA
    own = {size.key: {"type": "number", "minimum": size.minimum, "maximum": size.maximum} for size in sizes}
    return {k: v for k, v in SCHEMA.items() if k != "patternProperties"} | {"properties": SCHEMA["properties"] | own}


def load_template(name_or_path: str = "race_sheet", sizes: Iterable[TemplateSize] | None = None) -> Template:
    """A built-in template by name, or a template file by path. `sizes`: the sizes the games
    read (every game's `Game.template_sizes`), each checked against its range and any other
    `_mm` key refused; None takes any size (a built-in template, read by its own game)."""
    # (imported here: a game declaring its sizes imports this module)
    from sheetgen.schemacheck import check
    from sheetgen.yamlsrc import load_bytes, load_file

    if is_template_file(name_or_path):
        doc = load_file(name_or_path)
    else:
        if name_or_path not in builtin_names():
            raise OptionError(
                f"unknown template {name_or_path!r} (built in: {', '.join(builtin_names())}; or give a path)"
            )
        raw = _templates().joinpath(f"{name_or_path}.yaml").read_bytes()
        doc = load_bytes(raw, f"templates/{name_or_path}.yaml")
    problems = check(doc, _schema(tuple(sizes) if sizes is not None else None))
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if not problems and kind not in builtin_names():
        problems = [
            doc.problem(
                ("kind",),
                f"unknown template kind {kind!r} (the sheets it is made for: one of {', '.join(builtin_names())})",
            )
        ]
    if problems:
        raise SpecError(problems)
    data = doc.data
    games = sorted(k for k in data if k not in SCHEMA["properties"])  # the games' sizes
    return Template(
        name=os.path.basename(doc.file),
        kind=data["kind"],
        paper=data["paper"],
        margin_mm=float(data["margin_mm"]),
        font_regular=data["fonts"]["regular"],
        font_bold=data["fonts"]["bold"],
        sizes={k: float(v) for k, v in data["font_size"].items()},
        inks={mode: Ink(**data["ink"][mode]) for mode in INKS},
        game_sizes={k: float(data[k]) for k in games},
    )
