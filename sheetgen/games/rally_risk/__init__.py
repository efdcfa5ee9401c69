"""Rally: Risk and Evaluation on All Roads in the World (Rally Risk): road sections laid on
the table, a gear chart, a Table of Risks and a Damages Table, weather and mechanics.

Modules: `model` (pure data), `house_tables` and `tables` (the tables and their checks),
`spec` (YAML libraries, races and calendars; the spec format is documented there), `graph`
(layout and course graphs), `rules` (the rules engine), `scoring`, `solve` (exact analysis)
and `simulate` (seeded play of several cars).
"""

from functools import lru_cache

from sheetgen.games.rally_risk import spec
from sheetgen.games.rally_risk.model import Calendar, Library, Race, Results
from sheetgen.registry import Game


def _summary(model: Library | Race | Calendar) -> str:
    if isinstance(model, Library):
        n = len(model.sections)
        copies = sum(s.copies for s in model.sections)
        return f"section library, {n} section{'s' if n != 1 else ''}, {copies} in the box"
    if isinstance(model, Calendar):
        n = len(model.rallies)
        races = sum(len(r.races) + len(r.specials) for r in model.rallies)
        laid = ", every race laid out" if model.rallies and model.built else ""
        return f"calendar, {n} rall{'ies' if n != 1 else 'y'}, {races} races{laid}"
    if isinstance(model, Results):
        races = sum(len(r.races) for r in model.rallies)
        return f"results, {len(model.players)} drivers, {len(model.rallies)} rall{'ies' if len(model.rallies) != 1 else 'y'}, {races} race{'s' if races != 1 else ''}"
    kind = "special race" if model.special else "race"
    n = len(model.course)
    return f"{kind}, zone {model.zone.value}, {n} section{'s' if n != 1 else ''}, {model.length} spaces"


@lru_cache(maxsize=8)
def race_analysis(race: Race):
    """The default analysis of `race` (every assistance type, mechanics placed), kept for
    the few races a command handles: `build` checks and then prints each race with it."""
    from sheetgen.games.rally_risk.solve import analyze_rally_risk_race

    return analyze_rally_risk_race(race)


def _strict(loaded) -> list:
    """A race that the best policy cannot finish (P(elimination) over the threshold); in a
    calendar that lays its races out, every race (the check `sheetgen calendar` makes)."""
    if isinstance(loaded.model, Calendar) and any(r.courses for r in loaded.model.rallies):
        from sheetgen.games.rally_risk.championship import calendar_finishability_problems

        return calendar_finishability_problems(loaded.path, loaded.model)
    if not isinstance(loaded.model, Race):
        return []
    from sheetgen.games.rally_risk.solve import finishability_problems

    return finishability_problems(loaded.path, race_analysis(loaded.model))


GAME = Game(name="rally_risk", title="Rally Risk", schema=spec.SCHEMA, load=spec.load, summary=_summary, strict=_strict)
