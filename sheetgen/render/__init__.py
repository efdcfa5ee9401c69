"""Renderers: the only part of sheetgen that imports reportlab.

`RENDERERS` maps a game's name to the function that turns one of its loaded specs into PDF
bytes; a game without one is validated by `build` but has nothing to print yet.
"""

from __future__ import annotations

from typing import Callable

from sheetgen.errors import UsageError
from sheetgen.registry import Spec


def _rallytaire(spec: Spec, paper: str | None, ink: str, template: str) -> tuple[bytes, int]:
    from sheetgen.games.rallytaire.solve import analyze_race
    from sheetgen.games.rallytaire.solve_advanced import analyze_race_advanced
    from sheetgen.render.rallytaire import render_race
    from sheetgen.render.template import load_template

    chosen = load_template(template)
    return render_race(
        spec.model,
        chosen,
        analysis=analyze_race(spec.model),
        advanced=analyze_race_advanced(spec.model),
        paper=paper,
        ink=ink,
        keywords=(f"spec-sha256:{spec.sha256}",),
    )


RENDERERS: dict[str, Callable[[Spec, str | None, str, str], tuple[bytes, int]]] = {
    "rallytaire": _rallytaire,
}


def can_render(spec: Spec) -> bool:
    return spec.game.name in RENDERERS


def build_outputs(spec: Spec, *, paper: str | None = None, ink: str = "normal", template: str = "race_sheet") -> tuple[bytes, int]:
    """The PDF bytes and page count `build` and `render` write for one spec."""
    if not can_render(spec):
        raise UsageError(f"{spec.path}: sheetgen cannot print {spec.game.title} specs yet")
    return RENDERERS[spec.game.name](spec, paper, ink, template)
