"""A Rally Risk race's default analysis as `sheetgen build` prints and checks it, kept in the
disk figures cache (`sheetgen.cache`) between runs.

The entry holds every figure of the :class:`~sheetgen.games.rally_risk.analysis.RaceAnalysis`
(each assistance type's figures, mechanics and their placement's gap, tyres, dangerous spaces,
mechanic help and the finishing-round distribution) as JSON, which gives the floats back exactly; not the solved
policy (`solution`, None here), which only the simulator plays. It is keyed by the race
without its name, numpy's version and the sources of the solver's import graph, so the figures read back are
those the solver gives now.
"""

from __future__ import annotations

from typing import Any

from sheetgen.games.rally_risk.model import Assistance, Race, Tyres


def race_figures(race: Race):
    """`analyze_rally_risk_race(race)` (every assistance type, mechanics placed) without its
    solved policies, read from the figures cache when it holds them (`sheetgen.cache.figures`:
    keyed by the race without its name, numpy's version and the solver's import graph; the
    name is the race's own)."""
    from dataclasses import replace

    import numpy as np

    from sheetgen import cache

    subject = repr((replace(race, name=""), np.__version__))
    kept = cache.figures(
        "rally-risk-race", subject, "sheetgen.games.rally_risk.analysis", lambda: _to_json(_analyse(race))
    )
    return replace(_from_json(kept), name=race.name)


def _analyse(race: Race):
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race

    return analyze_rally_risk_race(race)


def _figures(f) -> list[float]:
    return [f.expected_rounds, f.elimination_probability, f.expected_cost]


def _to_json(a) -> dict[str, Any]:
    return {
        "name": a.name,
        "zone": a.zone,
        "special": a.special,
        "sections": a.sections,
        "spaces": a.spaces,
        "penalty": a.penalty,
        "threshold": a.threshold,
        "results": [
            {
                "assistance": r.assistance.value,
                "mechanics": list(r.mechanics),
                "tyres": r.tyres.value,
                "figures": _figures(r.figures),
                "without_mechanics": _figures(r.without_mechanics),
                "dangerous": [
                    [
                        d.space,
                        d.section,
                        d.section_space,
                        d.factor,
                        d.ford,
                        d.damage_probability,
                        d.elimination_probability,
                    ]
                    for d in r.dangerous
                ],
                "mechanic_help": [list(h) for h in r.mechanic_help],
                "finish_rounds": [list(fr) for fr in r.finish_rounds],
                "placement_gap": r.placement_gap,
            }
            for r in a.results
        ],
    }


def _from_json(data: dict[str, Any]):
    from sheetgen.games.rally_risk.analysis import AssistanceAnalysis, RaceAnalysis, SpaceRisk
    from sheetgen.games.rally_risk.solve import Figures

    return RaceAnalysis(
        name=data["name"],
        zone=data["zone"],
        special=data["special"],
        sections=data["sections"],
        spaces=data["spaces"],
        penalty=data["penalty"],
        threshold=data["threshold"],
        results=tuple(
            AssistanceAnalysis(
                assistance=Assistance(r["assistance"]),
                mechanics=tuple(r["mechanics"]),
                tyres=Tyres(r["tyres"]),
                figures=Figures(*r["figures"]),
                without_mechanics=Figures(*r["without_mechanics"]),
                dangerous=tuple(SpaceRisk(*d) for d in r["dangerous"]),
                mechanic_help=tuple((int(s), g) for s, g in r["mechanic_help"]),
                solution=None,
                finish_rounds=tuple((int(k), p) for k, p in r["finish_rounds"]),
                placement_gap=r["placement_gap"],
            )
            for r in data["results"]
        ),
    )
