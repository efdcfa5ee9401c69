"""Renderers: the only part of sheetgen that imports reportlab.

A game declares what it prints (`registry.Printable`: a name, the kinds of file, and its
render function as `"module:function"`); this core finds the printable for a loaded spec and
calls it with the template, paper and ink mode. It names no game. Each game draws with its
own built-in template (`Game.template`) unless the user picks one.
"""

from __future__ import annotations

import importlib

from sheetgen.errors import UsageError
from sheetgen.registry import Figures, Printable, Spec


def can_render(spec: Spec) -> bool:
    return spec.game.printable_for(spec.kind_name) is not None


def shared_pages(spec: Spec, printable: str | None = None) -> tuple[str, ...]:
    """The keys of the shared pages (`Printable.shared`) the spec's PDF holds."""
    chosen = spec.game.printable_for(spec.kind_name, printable)
    return chosen.shared_of(spec.model) if chosen is not None else ()


def shared_home(spec: Spec, printable: str | None = None) -> bool:
    """Whether the spec's file is where a job prints the shared pages it holds
    (`Printable.shared_home`)."""
    chosen = spec.game.printable_for(spec.kind_name, printable)
    return chosen is not None and chosen.shared_home


def _function(printable: Printable):
    module, _, name = printable.render.partition(":")
    return getattr(importlib.import_module(module), name)


def build_outputs(
    spec: Spec,
    *,
    paper: str | None = None,
    ink: str = "normal",
    template: str | None = None,
    figures: Figures | None = None,
    printable: str | None = None,
    elsewhere: frozenset[str] = frozenset(),
) -> tuple[bytes, int]:
    """The PDF bytes and page count `build` and `render` write for one spec; `template`
    None draws with the game's own built-in template. `figures`: the spec's solved figures
    as the command has them (those `strict` saw), else solved here. `printable`: which of the
    game's printables of the spec's kind, by name (a game's own command may print another
    than the first, which `build` prints). `elsewhere`: the keys of the shared pages
    (`Printable.shared`) another file of the job prints, which this one leaves out."""
    from sheetgen import registry
    from sheetgen.template import load_template

    chosen_printable = spec.game.printable_for(spec.kind_name, printable)
    if chosen_printable is None and printable is not None:
        raise UsageError(f"{spec.game.title} has no printable {printable!r} for {_what(spec)}")
    if chosen_printable is None:
        raise UsageError(f"{spec.path}: sheetgen cannot print {spec.game.title} {_what(spec)} yet")
    chosen = load_template(
        template if template is not None else spec.game.template,
        sizes=[size for game in registry.games() for size in game.template_sizes],
    )
    solved = (figures if figures is not None else Figures(spec)).get()
    from sheetgen.render.pdf import printing  # (reportlab: not for the quick commands that import this module)

    with printing(chosen_printable.duplex_of(spec.model), elsewhere):
        return _function(chosen_printable)(
            spec, chosen, paper=paper, ink=ink, keywords=(f"spec-sha256:{spec.sha256}",), figures=solved
        )


def _what(spec: Spec) -> str:
    """What cannot be printed: "specs", or the kind of spec ("calendars") when the game
    prints some of its kinds."""
    if not spec.game.printables:
        return "specs"
    kind = spec.kind_name
    return kind if kind.endswith("s") else f"{kind}s"
