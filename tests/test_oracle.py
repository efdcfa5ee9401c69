"""Every exact solver against the engine walk (`sheetgen.engine.expectimax`).

Each game declares its small cases (`Game.oracle_cases`, in its `oracle` module): a solver's
figure, the engine state it is the value of, and the solver's model as the walk's arguments
(what a step costs, what a state's value depends on, which actions the model allows). The
walk knows none of the solvers' tables, Pareto sets or fast paths: it plays the engine's
legal actions and chance outcomes, memoised per state. Cases whose walk takes seconds are
`slow`, each with a cheap twin in the default suite.
"""

from __future__ import annotations

import pytest

from sheetgen import registry

#: the walks' memos of the cases that name their model (other starts of one race and model)
MEMOS: dict[str, dict] = {}  # ("game model" -> the walk's memo)
CASES = [(game.name, case) for game in registry.games() if game.oracle_cases for case in game.oracle_cases()]


def test_every_game_with_an_exact_solver_declares_its_cases():
    """Rallytaire (basic and advanced), Rally Risk and Rallyman (GT and DIRT) solve exactly;
    Rally Run! has no exact figure (its analysis plays seeded games), so no case."""
    games = {g.name for g in registry.games() if g.oracle_cases is not None}
    assert games == {"rallytaire", "rally_risk", "rallyman"}
    names = [f"{game} {case.name}" for game, case in CASES]
    assert len(set(names)) == len(names)
    for wanted in ("rallytaire basic", "rallytaire advanced", "rally_risk", "rallyman GT", "rallyman DIRT"):
        assert any(n.startswith(wanted) for n in names), wanted
        assert any(n.startswith(wanted) for (game, case), n in zip(CASES, names) if not case.slow), wanted


@pytest.mark.parametrize(
    "game,case",
    [pytest.param(game, case, id=f"{game} {case.name}", marks=[pytest.mark.slow] if case.slow else [])
     for game, case in CASES],
)
def test_the_exact_solver_equals_the_engine_walk(game, case):
    walked = case.walk(MEMOS.setdefault(f"{game} {case.model}", {}) if case.model else None)
    assert case.figure() == pytest.approx(walked, rel=case.rel, abs=case.abs)
