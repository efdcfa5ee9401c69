"""Renderers: the only part of sheetgen that imports reportlab."""

from __future__ import annotations

from sheetgen.registry import Spec


def build_outputs(spec: Spec, *, paper: str | None = None, ink: str = "normal", template: str = "race_sheet") -> tuple[bytes, int]:
    """The PDF bytes and page count `build` writes for one spec."""
    from sheetgen.games.rallytaire.solve import analyze_race
    from sheetgen.render.rallytaire import render_race
    from sheetgen.render.template import load_template

    chosen = load_template(template)
    analysis = analyze_race(spec.model)
    return render_race(spec.model, chosen, analysis=analysis, paper=paper, ink=ink, keywords=(f"spec-sha256:{spec.sha256}",))
