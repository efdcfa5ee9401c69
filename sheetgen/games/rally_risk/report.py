"""Rally Risk's reports: the analysis of a race (text and JSON) and a simulated race (the
log round by round).

:func:`analysis_to_json` and :func:`format_analysis_text` write a
:class:`~sheetgen.games.rally_risk.analysis.RaceAnalysis`; :func:`format_race_run` writes a
:class:`~sheetgen.games.rally_risk.simulate.RaceRun` from the engine's log.
"""

from __future__ import annotations

from sheetgen.games.rally_risk.analysis import AssistanceAnalysis, RaceAnalysis
from sheetgen.games.rally_risk.model import Outcome, Tyres
from sheetgen.games.rally_risk.rules import MoveResult, RulesError
from sheetgen.games.rally_risk.simulate import RaceRun
from sheetgen.games.rally_risk.solve import Figures
from sheetgen.textfmt import pct as _pct
from sheetgen.textfmt import table as _table

# --------------------------------------------------------------------------- the analysis


def _r(x: float) -> float:
    return round(x, 4)


def _figures_json(f: Figures) -> dict:
    return {
        "expected_rounds": _r(f.expected_rounds),
        "elimination_probability": _r(f.elimination_probability),
        "expected_cost": _r(f.expected_cost),
    }


def analysis_to_json(analysis: RaceAnalysis) -> dict:
    """Plain JSON-ready dict; floats rounded to 4 decimals."""
    return {
        "race": analysis.name,
        "zone": analysis.zone,
        "special": analysis.special,
        "sections": analysis.sections,
        "spaces": analysis.spaces,
        "elimination_penalty": analysis.penalty,
        "finishable_threshold": analysis.threshold,
        "finishable": analysis.finishable,
        "best_assistance": analysis.best.assistance.value,
        "assistance": [
            {
                "assistance": r.assistance.value,
                **_figures_json(r.figures),
                "tyres": r.tyres.value,
                "mechanics": list(r.mechanics),
                # the exact placement search (RR-30): proven the best, or the most another
                # placement could save (rounds of expected cost); null: mechanics given
                "mechanics_proven_best": r.placement_proven,
                "mechanics_gap": None if r.placement_gap is None else _r(r.placement_gap),
                # the round the car finishes in: percentiles (None: eliminated too often)
                "finish_round": {"p10": r.p10, "p50": r.p50, "p90": r.p90},
                "without_mechanics": _figures_json(r.without_mechanics),
                "dangerous_spaces": [
                    {
                        "space": d.space,
                        "section": d.section,
                        "section_space": d.section_space,
                        "factor": d.factor,
                        "ford": d.ford,
                        "damage_probability": _r(d.damage_probability),
                        "elimination_probability": _r(d.elimination_probability),
                    }
                    for d in r.dangerous
                ],
                "mechanic_help": [{"space": s, "rounds_saved": _r(g)} for s, g in r.mechanic_help],
            }
            for r in analysis.results
        ],
    }


def placement_words(r: AssistanceAnalysis) -> str:
    """What the analysis knows of its mechanics' placement (RR-30)."""
    spaces = ", ".join(str(m) for m in r.mechanics) or "none"
    if r.placement_gap is None:
        return f"mechanics on {spaces}: as given"
    if r.placement_gap == 0.0:
        return f"mechanics on {spaces}: no placement costs less (exact search, proven)"
    return (
        f"mechanics on {spaces}: the best of the placements solved (exact search, budget spent); "
        f"another could save at most {r.placement_gap:.4f} rounds"
    )


def format_analysis_text(analysis: RaceAnalysis) -> str:
    kind = "special race" if analysis.special else "race"
    verdict = "finishable" if analysis.finishable else "NOT finishable"
    out = [
        f"Race: {analysis.name} ({kind}, zone {analysis.zone}, {analysis.sections} sections, {analysis.spaces} spaces)",
        f"Elimination priced at {analysis.penalty:g} rounds; {verdict} "
        f"(P(elimination) {_pct(analysis.best.elimination_probability)} with {analysis.best.assistance.value} "
        "assistance, "
        f"limit {_pct(analysis.threshold)})",
        "",
    ]
    rows = []
    for r in analysis.results:
        rows.append(
            [
                r.assistance.value,
                f"{r.figures.expected_rounds:.2f}",
                _pct(r.figures.elimination_probability),
                f"{r.without_mechanics.expected_rounds:.2f}",
                _pct(r.without_mechanics.elimination_probability),
                "/".join("-" if x is None else str(x) for x in (r.p10, r.p50, r.p90)),
                ", ".join(str(m) for m in r.mechanics) or "-",
                r.tyres.value,
            ]
        )
    header = [
        "Assistance",
        "Rounds",
        "Elim",
        "Rounds (no mech.)",
        "Elim (no mech.)",
        "Finish p10/50/90",
        "Mechanics on",
        "Tyres",
    ]
    out += _table(header, rows, left=frozenset({0, 6, 7}))
    for r in analysis.results:
        out += ["", f"{r.assistance.value} assistance: most dangerous spaces"]
        if not r.dangerous:
            out.append("  none: the policy never goes off the road")
        else:
            drows = [
                [
                    str(d.space),
                    f"{d.section} {d.section_space}",
                    str(d.factor) + (" ford" if d.ford else ""),
                    _pct(d.damage_probability),
                    _pct(d.elimination_probability),
                ]
                for d in r.dangerous
            ]
            out += [
                "  " + x
                for x in _table(["Space", "Section", "Factor", "Off road", "Eliminated"], drows, left=frozenset({1, 2}))
            ]
        out.append("  " + placement_words(r))
        if r.mechanic_help:
            spots = ", ".join(f"space {s} ({g:.2f})" for s, g in r.mechanic_help)
            out.append(f"  one mechanic helps most on: {spots} rounds saved")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- a simulated race


_DAMAGE_WORDS = {
    Outcome.NONE: "none",
    Outcome.TAIL_SPIN: "tail spin",
    Outcome.FIRST: "1st degree",
    Outcome.SECOND: "2nd degree",
    Outcome.THIRD: "3rd degree",
    Outcome.ELIMINATED: "eliminated",
}


def _result_words(result: MoveResult, tyres: Tyres | None) -> str:
    if result.kind == "finished":
        return "FINISHES"
    if result.kind == "eliminated":
        return f"ELIMINATED on space {result.position}"
    words = []
    if result.kind == "off":
        if result.result is None:  # (damage that stops the car has a result)
            raise RulesError(f"a car off the road on {result.position} without its damage")
        what = _DAMAGE_WORDS[result.result]
        if result.repaired:
            what += " after the mechanics"
        stop = f"off the road on {result.position}: {what}"
        if result.halt:
            stop += f", halted {result.halt} turn{'s' if result.halt != 1 else ''}"
        words.append(stop)
    if tyres is not None:
        words.append(f"mechanics fit {tyres.value} tyres")
    return "; ".join(words)


def format_race_run(run: RaceRun) -> list[str]:
    """The race round by round, then arrivals and scoring A."""
    mech = ", ".join(str(m) for m in run.mechanics) or "none"
    cars = len(run.finish_rounds)
    out = [
        f"race {run.race!r}, seed {run.seed}, {cars} car{'s' if cars != 1 else ''}: {run.assistance.value} assistance, "
        f"mechanics on {mech}, {run.tyres.value} tyres"
    ]
    current: dict = {}

    def flush() -> None:
        if current:
            out.append("  " + "; ".join(current.pop("parts")))
            current.clear()

    for event in run.log:
        kind = event[0]
        if kind == "weather":
            flush()
            _, rnd, sector = event
            out.append(f"round {rnd}: weather {run.sectors[sector]} (sector {sector + 1} of {len(run.sectors)})")
        elif kind == "halt":
            flush()
            _, _rnd, car, left = event
            out.append(
                f"  car {car + 1}: at a halt" + (f" ({left} more turn{'s' if left != 1 else ''})" if left else "")
            )
        elif kind == "risk":
            flush()
            _, _rnd, car, gear, die, risk = event
            current["parts"] = [f"car {car + 1}: gear {gear}, die {die}, risk factor {risk}"]
        elif kind == "move":
            _, _rnd, _car, start, move = event
            current["parts"].append(f"moves {move} from {start}")
        elif kind == "damage":
            _, _rnd, _car, space, diff, die, rolled = event
            current["parts"].append(f"check space {space} (+{diff}): die {die} -> {_DAMAGE_WORDS[rolled]}")
        elif kind == "end":
            _, _rnd, _car, result, tyres = event
            if result.kind == "moved":
                current["parts"].append(f"stops on {result.position}")
            words = _result_words(result, tyres)
            if words:
                current["parts"].append(words)
            flush()
    flush()
    out.append("arrivals:")
    for i in sorted(range(cars), key=lambda i: (run.finish_rounds[i] is None, run.finish_rounds[i] or 0, i)):
        r = run.finish_rounds[i]
        what = f"finished in round {r}" if r is not None else "eliminated"
        out.append(f"  car {i + 1}: {what}, {run.rounds[i]} rounds played, score {run.scores[i]:+d}")
    return out
