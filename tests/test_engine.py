"""The engine protocol (sheetgen.engine) and its one seeded playout.

- A coin game made by hand, whose playout distribution is known analytically: the playout
  maps uniform draws to outcomes with exactly the engine's probabilities, one draw per chance
  node, and asks the policy at every decision.
- Random playouts for every game (OpenSpiel's test): from each game's initial state, random
  legal actions and random chance outcomes reach a terminal state, and at every chance node
  the exact probabilities sum to 1.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import pytest

from sheetgen.engine import EngineState, playout
from sheetgen.registry import load_spec
from conftest import SPECS

HEADS = Fraction(1, 4)


@dataclass(frozen=True)
class Coin:
    """Toss a coin showing heads with probability 1/4 until heads, at most three times;
    after a tails the player may toss again or stop."""

    tosses: int = 0
    heads: bool = False
    stopped: bool = False
    deciding: bool = False  # after a tails: a decision; else a toss (a chance node)

    def is_terminal(self) -> bool:
        return self.heads or self.stopped or self.tosses == 3

    def chance_outcomes(self):
        if self.is_terminal() or self.deciding:
            return ()
        return (("heads", HEADS), ("tails", 1 - HEADS))

    def legal_actions(self):
        if self.is_terminal() or not self.deciding:
            return ()
        return ("toss", "stop")

    def apply(self, x) -> Coin:
        if self.chance_outcomes():
            assert x in ("heads", "tails")
            return Coin(self.tosses + 1, x == "heads", False, x == "tails")
        assert x in self.legal_actions()
        return Coin(self.tosses, False, x == "stop", False)


class Draws:
    """A stand-in for random.Random whose random() gives the values listed, counting them."""

    def __init__(self, values):
        self.values = list(values)
        self.used = 0

    def random(self) -> float:
        self.used += 1
        return self.values[self.used - 1]


def always(action):
    return lambda state: action


def test_the_coin_game_is_an_engine_state():
    assert isinstance(Coin(), EngineState)


@pytest.mark.parametrize(
    "policy,expected",
    [
        # toss on: heads on the 1st, 2nd or 3rd toss, or three tails
        (always("toss"), {(1, True): HEADS, (2, True): (1 - HEADS) * HEADS, (3, True): (1 - HEADS) ** 2 * HEADS, (3, False): (1 - HEADS) ** 3}),
        # stop after the first tails
        (always("stop"), {(1, True): HEADS, (1, False): 1 - HEADS}),
    ],
    ids=["toss on", "stop"],
)
def test_playout_samples_the_exact_distribution(policy, expected):
    """Every triple of draws from the midpoints of four equal slices of [0, 1): the playouts'
    end states come out in exactly the analytic proportions, and each toss took one draw."""
    grid = (Fraction(1, 8), Fraction(3, 8), Fraction(5, 8), Fraction(7, 8))
    ends: Counter = Counter()
    for draws in product(grid, repeat=3):
        rng = Draws(float(u) for u in draws)
        end = playout(Coin(), policy, rng)
        assert end.is_terminal() and rng.used == end.tosses
        ends[(end.tosses, end.heads)] += 1
    assert {k: Fraction(n, len(grid) ** 3) for k, n in ends.items()} == expected


def test_playout_records_every_step_and_repeats_per_seed():
    def transcript(seed):
        steps = []
        end = playout(Coin(), always("toss"), random.Random(seed), lambda s, x, after: steps.append((s, x, after)))
        return steps, end

    for seed in range(20):
        steps, end = transcript(seed)
        assert steps == transcript(seed)[0]
        assert steps[-1][2] == end and steps[0][0] == Coin()
        for (state, x, after), nxt in zip(steps, steps[1:] + [(end,)]):
            assert state.apply(x) == after == nxt[0]
            assert x in (state.legal_actions() or [o for o, _ in state.chance_outcomes()])
    assert len({tuple(x for _, x, _ in transcript(seed)[0]) for seed in range(20)}) > 1


def test_a_decision_asks_the_policy_and_draws_nothing():
    asked = []

    def policy(state):
        asked.append(state)
        return "stop"

    rng = Draws([0.9])  # tails: the policy is asked once, with the state after the toss
    end = playout(Coin(), policy, rng)
    assert asked == [Coin(1, False, False, True)] and end == Coin(1, False, True, False) and rng.used == 1


# --------------------------------------------------------------------------- every game


def random_playout(state, rng: random.Random, limit: int = 100_000):
    """Random legal actions and uniformly random chance outcomes to the end; checks the
    protocol at every node. Returns the terminal state and the number of steps."""
    assert isinstance(state, EngineState)
    for steps in range(limit):
        if state.is_terminal():
            assert state.chance_outcomes() == () and tuple(state.legal_actions()) == ()
            return state, steps
        outcomes = state.chance_outcomes()
        if outcomes:
            assert tuple(state.legal_actions()) == ()
            assert all(isinstance(p, (Fraction, int)) and p > 0 for _, p in outcomes)
            assert sum(p for _, p in outcomes) == 1
            assert len({o for o, _ in outcomes}) == len(outcomes)
            state = state.apply(rng.choice([o for o, _ in outcomes]))
        else:
            actions = state.legal_actions()
            assert actions, f"a decision node with no legal action: {state!r}"
            state = state.apply(rng.choice(list(actions)))
    raise AssertionError(f"no terminal state within {limit} steps")


def rally_risk_start(name: str, players: int):
    from sheetgen.games.rally_risk.model import Assistance, Tyres
    from sheetgen.games.rally_risk.rules import Car, Course, RaceState

    race = load_spec(SPECS / "rally_risk" / f"{name}.yaml").model
    course = Course.of(race)
    cars = tuple(Car(a, (5 + 7 * i,)) for i, a in zip(range(players), list(Assistance) * 2))
    return RaceState.start(course, cars, tuple(list(Tyres) * 2)[:players])


STARTS = {
    "rally_risk montecarlo_1, 1 car": lambda: rally_risk_start("montecarlo_1", 1),
    "rally_risk safari_1, 3 cars": lambda: rally_risk_start("safari_1", 3),
    "rally_risk montecarlo_special, 2 cars": lambda: rally_risk_start("montecarlo_special", 2),
}


@pytest.mark.parametrize("name", sorted(STARTS))
def test_random_playouts_reach_the_end(name):
    for seed in range(5):
        end, steps = random_playout(STARTS[name](), random.Random(seed))
        assert end.is_terminal() and steps > 0
