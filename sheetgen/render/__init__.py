"""Renderers: the only part of sheetgen that imports reportlab.

`RENDERERS` maps a game's name to the function that turns one of its loaded specs into PDF
bytes; a game without one is validated by `build` but has nothing to print yet.
`PRINTABLE` narrows that per spec (e.g. a Rally Risk calendar has no printables yet).
Each game draws with its own built-in template unless the user picks one
(`template.default_template`).
"""

from __future__ import annotations

from typing import Callable

from sheetgen.errors import UsageError
from sheetgen.registry import Spec


def _rallytaire(spec: Spec, paper: str | None, ink: str, template: str) -> tuple[bytes, int]:
    """A race: its race sheets and time table. A season: its season sheet (each race's own
    sheets come from its race file, or `sheetgen generate ... --render`)."""
    from sheetgen.games.rallytaire.model import Race
    from sheetgen.games.rallytaire.solve import analyze_race
    from sheetgen.games.rallytaire.solve_advanced import analyze_race_advanced
    from sheetgen.render.rallytaire import render_race
    from sheetgen.render.template import load_template

    chosen = load_template(template)
    if not isinstance(spec.model, Race):
        from sheetgen.render.championship import render_season

        season = spec.model
        analyses = {k: analyze_race(entry.race) for k, entry in enumerate(season.races)}
        return render_season(season, analyses, chosen, paper=paper, ink=ink, keywords=(f"spec-sha256:{spec.sha256}",))
    return render_race(
        spec.model,
        chosen,
        analysis=analyze_race(spec.model),
        advanced=analyze_race_advanced(spec.model),
        paper=paper,
        ink=ink,
        keywords=(f"spec-sha256:{spec.sha256}",),
    )


def _rally_risk(spec: Spec, paper: str | None, ink: str, template: str) -> tuple[bytes, int]:
    """A library: its section cards and the reference card of the house tables. A race:
    its course sheet (with the analysis) and the reference card of its tables. Results: the
    standings sheet."""
    from sheetgen.games.rally_risk import race_analysis
    from sheetgen.games.rally_risk.model import Library, Results
    from sheetgen.games.rally_risk.tables import house_tables
    from sheetgen.render.rally_risk import render_library, render_race
    from sheetgen.render.template import load_template

    chosen = load_template(template)
    keywords = (f"spec-sha256:{spec.sha256}",)
    model = spec.model
    if isinstance(model, Library):
        return render_library(model, chosen, tables=house_tables(), paper=paper, ink=ink, keywords=keywords)
    if isinstance(model, Results):  # the standings sheet, as `sheetgen standings -o` prints it
        from sheetgen.games.rally_risk.standings import standings
        from sheetgen.render.championship import render_standings

        return render_standings(standings(model), chosen, paper=paper, ink=ink, keywords=keywords)
    return render_race(model, chosen, analysis=race_analysis(model), paper=paper, ink=ink, keywords=keywords)


def _rally_risk_printable(spec: Spec) -> bool:
    from sheetgen.games.rally_risk.model import Library, Race, Results

    return isinstance(spec.model, (Library, Race, Results))


RENDERERS: dict[str, Callable[[Spec, str | None, str, str], tuple[bytes, int]]] = {
    "rallytaire": _rallytaire,
    "rally_risk": _rally_risk,
}

#: Per game, which of its specs the renderer prints (default: all of them).
PRINTABLE: dict[str, Callable[[Spec], bool]] = {
    "rally_risk": _rally_risk_printable,
}


def can_render(spec: Spec) -> bool:
    name = spec.game.name
    return name in RENDERERS and PRINTABLE.get(name, lambda _spec: True)(spec)


def build_outputs(spec: Spec, *, paper: str | None = None, ink: str = "normal", template: str | None = None) -> tuple[bytes, int]:
    """The PDF bytes and page count `build` and `render` write for one spec; `template`
    None draws with the game's own built-in template."""
    from sheetgen.render.template import default_template

    if not can_render(spec):
        raise UsageError(f"{spec.path}: sheetgen cannot print {spec.game.title} {_what(spec)} yet")
    return RENDERERS[spec.game.name](spec, paper, ink, template if template is not None else default_template(spec.game.name))


def _what(spec: Spec) -> str:
    """What cannot be printed: "specs", or the kind of spec ("calendars") when the game
    prints some of its kinds."""
    if spec.game.name not in PRINTABLE:
        return "specs"
    kind = type(spec.model).__name__.lower()
    return kind if kind.endswith("s") else f"{kind}s"
