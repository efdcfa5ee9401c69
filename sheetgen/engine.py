"""The engine every game's rules offer, and one seeded playout over it.

OpenSpiel's shape (STYLE.md): a game state is an immutable value that says what can happen
next. At a chance node :meth:`EngineState.chance_outcomes` lists the outcomes as exact
``(outcome, probability)`` pairs (Fractions where they are not dyadic), summing to 1; at a
decision node it is empty and :meth:`EngineState.legal_actions` lists the choices;
:meth:`EngineState.apply` gives the next state for an outcome or an action; a terminal state
has neither. Simulators sample them through :func:`playout`; :func:`expectimax` walks them
exactly, every legal action and every chance outcome, memoised per state: the oracle every
game's exact solver (which works on a fast API of its own) is checked against, through the
small cases each game declares (`Game.oracle_cases`, :class:`OracleCase`).

Rally Risk's :class:`sheetgen.games.rally_risk.rules.RaceState` and Rallytaire's
:class:`sheetgen.games.rallytaire.engine.RaceState` (both rule sets) are such states.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
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


#: The cost of one step: (state, outcome or action, next state) -> a number (seconds, rounds).
Cost = Callable[[Any, Any, Any], float]


def expectimax(
    state: EngineState,
    *,
    cost: Cost | None = None,
    final: Callable[[Any], float] | None = None,
    key: Callable[[Any], Hashable] | None = None,
    actions: Callable[[Any], Sequence[Any]] | None = None,
    memo: dict | None = None,
) -> float:
    """The least expected total cost from `state` to the end, walking the engine exactly: at a
    chance node the probability-weighted sum over every outcome, at a decision node the
    minimum over every action, each step adding ``cost(state, choice, next state)`` and a
    terminal state ``final(state)`` (both 0 when not given).

    `key` names what a state's value depends on (default: the state itself), so that states
    that differ only in what is behind them (the seconds so far, the round number) are
    solved once; `actions` restricts a decision node to some of its legal actions (a
    solver's model: flat out only), in the engine's order; a node where it leaves none is
    worth infinity (the model's dead end: a cautious driver with no safe gear).
    `memo` (key -> value) may be shared between walks of the same model and is filled in.
    The walk is iterative (no recursion limit); a state reached again on its own path (a
    loop the engine allows) is a ValueError, as it has no finite expectimax by this walk.
    Probabilities are taken as floats, summed in the engine's order."""
    step = cost or (lambda _s, _c, _a: 0.0)
    end = final or (lambda _s: 0.0)
    name = key or (lambda s: s)
    choices = actions or (lambda s: s.legal_actions())
    values: dict = {} if memo is None else memo
    path: set = set()
    root = name(state)
    # a frame: [key, state, children ((weight or None, step cost, child key, child state)...), next child]
    stack: list[list[Any]] = [[root, state, None, 0]]
    while stack:
        frame = stack[-1]
        k, s, children = frame[0], frame[1], frame[2]
        if children is None:
            if k in values:
                stack.pop()
                continue
            if s.is_terminal():
                values[k] = float(end(s))
                stack.pop()
                continue
            outcomes = s.chance_outcomes()
            made: list[tuple[float | None, Any]]
            if outcomes:
                made = [(float(p), o) for o, p in outcomes]
            else:
                legal = tuple(choices(s))
                if not legal:  # the model allows nothing here: a dead end, never chosen
                    values[k] = math.inf
                    stack.pop()
                    continue
                made = [(None, a) for a in legal]
            children = []
            for weight, choice in made:
                after = s.apply(choice)
                children.append((weight, float(step(s, choice, after)), name(after), after))
            frame[2] = children
            path.add(k)
        while frame[3] < len(children):
            child_key, child = children[frame[3]][2], children[frame[3]][3]
            if child_key in values:
                frame[3] += 1
                continue
            if child_key in path:
                raise ValueError(f"the walk loops: a state is reached again on its own path: {child!r}")
            stack.append([child_key, child, None, 0])
            break
        else:
            if children[0][0] is None:
                values[k] = min(c + values[ck] for _w, c, ck, _a in children)
            else:
                values[k] = sum(w * (c + values[ck]) for w, c, ck, _a in children)
            path.discard(k)
            stack.pop()
    return values[root]


@dataclass(frozen=True)
class OracleCase:
    """A small case of a game on which one of its exact solvers is checked against the
    engine walk (:func:`expectimax`): `figure()` is the solver's figure (an expected time,
    an expected cost), `start()` the engine state it is the value of, and `cost`, `final`,
    `key` and `actions` the solver's model as the walk's arguments (what a step costs, what
    the end costs, what a state's value depends on, which actions the model allows). The two
    agree within `rel` (relative) and `abs`; `slow` marks a case for `-m slow` only. Cases
    of one model (the same race and walk arguments, other starts) may name it in `model`:
    their walks may share one memo."""

    name: str
    figure: Callable[[], float]
    start: Callable[[], EngineState]
    cost: Cost | None = None
    final: Callable[[Any], float] | None = None
    key: Callable[[Any], Hashable] | None = None
    actions: Callable[[Any], Sequence[Any]] | None = None
    rel: float = 1e-9
    abs: float = 1e-9
    slow: bool = False
    model: str = ""

    def walk(self, memo: dict | None = None) -> float:
        """The engine walk's value of the case (`memo`: one shared by the cases of its model)."""
        return expectimax(
            self.start(), cost=self.cost, final=self.final, key=self.key, actions=self.actions, memo=memo
        )
