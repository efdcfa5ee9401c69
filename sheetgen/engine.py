"""The engine every game's rules offer, and one seeded playout over it.

OpenSpiel's shape (STYLE.md): a game state is an immutable value that says what can happen
next. At a chance node :meth:`EngineState.chance_outcomes` lists the outcomes as exact
``(outcome, probability)`` pairs (Fractions where they are not dyadic), summing to 1; at a
decision node it is empty and :meth:`EngineState.legal_actions` lists the choices;
:meth:`EngineState.apply` gives the next state for an outcome or an action; a terminal state
has neither. Solvers walk these exactly; simulators sample them through :func:`playout`.

Rally Risk's :class:`sheetgen.games.rally_risk.rules.RaceState` and Rallytaire's
:class:`sheetgen.games.rallytaire.engine.RaceState` (both rule sets) are such states.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from sheetgen import dice

if TYPE_CHECKING:
    from typing_extensions import Self  # (typing.Self from Python 3.11)


@runtime_checkable
class EngineState(Protocol):
    """What every game's engine state offers (a state never changes: `apply` makes a new one)."""

    def is_terminal(self) -> bool:
        """The game is over: no outcome and no action is left."""
        ...

    def chance_outcomes(self) -> Sequence[tuple[Any, Fraction | float]]:
        """At a chance node the exact ``(outcome, probability)`` pairs, summing to 1; empty
        at a decision node and at the end."""
        ...

    def legal_actions(self) -> Sequence[Any]:
        """At a decision node every legal action, in the engine's order; empty otherwise."""
        ...

    def apply(self, action: Any) -> Self:
        """The state after a chance outcome or a legal action (refused otherwise)."""
        ...


S = TypeVar("S", bound=EngineState)

#: Chooses a decision node's action: one of ``state.legal_actions()``.
Policy = Callable[[S], Any]
#: Writes the transcript: called once per step with (state, outcome or action, next state).
Record = Callable[[S, Any, S], None]


def playout(state: S, policy: Policy, rng: random.Random, record: Record | None = None) -> S:
    """Play `state` to the end and return the terminal state.

    A chance node's outcome is drawn from its exact probabilities (as floats, in the
    engine's order) with one ``rng.random()`` call (:func:`sheetgen.dice.sample`); a decision
    node asks `policy`. Nothing else draws from `rng`, so a `record` that wants more
    randomness (dice faces for a sheet, drawn after the outcome they show) may take it from
    the same `rng`, between the playout's own draws: same state, policy and seed give the
    same steps."""
    floats: dict[int, tuple] = {}  # (outcomes, as floats) by identity: engines reuse their tuples
    while not state.is_terminal():
        outcomes = state.chance_outcomes()
        if outcomes:
            seen = floats.get(id(outcomes))
            if seen is None or seen[0] is not outcomes:  # held here, so an id is never reused
                seen = floats[id(outcomes)] = (outcomes, dice.to_float(outcomes))
            choice = dice.sample(seen[1], rng)
        else:
            choice = policy(state)
        after = state.apply(choice)
        if record is not None:
            record(state, choice, after)
        state = after
    return state
