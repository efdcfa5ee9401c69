"""The engine protocol (sheetgen.engine) and its one seeded playout.

- A coin game made by hand, whose playout distribution is known analytically: the playout
  maps uniform draws to outcomes with exactly the engine's probabilities, one draw per chance
  node, and asks the policy at every decision.
- Random playouts for every registered game (OpenSpiel's test): from each game's engine
  start (`Game.engine_start`) of its bundled specs under `simulate`'s options, random legal
  actions and random chance outcomes reach a terminal state, and at every chance node the
  exact probabilities sum to 1.
- The exact walk (`sheetgen.engine.expectimax`) on the coin game against its values by hand
  (the oracle of every game's exact solver: tests/test_oracle.py).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import pytest

from conftest import SPECS
from sheetgen import registry
from sheetgen.engine import EngineState, expectimax, playout
from sheetgen.registry import load_spec

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


# --------------------------------------------------------------------------- the exact walk


def _toss_costs_1(state, choice, after) -> float:
    return 1.0 if not state.deciding else 0.0


def _miss(cost: float):
    return lambda end: 0.0 if end.heads else cost


@pytest.mark.parametrize(
    "miss,expected",
    [
        # a miss costs 8: tossing on always pays (after 2 tails 1 + 3/4 * 8 = 7 < 8; after
        # 1 tails 1 + 3/4 * 7 = 6.25), so the start is 1 + 3/4 * 6.25
        (8.0, 1 + 0.75 * 6.25),
        # a miss costs 2: after any tails stopping (2) beats a toss (1 + 3/4 * 2 = 2.5)
        (2.0, 1 + 0.75 * 2),
    ],
)
def test_expectimax_of_the_coin_game_by_hand(miss, expected):
    assert expectimax(Coin(), cost=_toss_costs_1, final=_miss(miss)) == pytest.approx(expected, abs=1e-15)


def test_expectimax_walks_only_the_actions_it_is_given_and_fills_the_memo():
    memo: dict = {}
    toss_on = expectimax(Coin(), cost=_toss_costs_1, final=_miss(2.0), actions=lambda s: ("toss",), memo=memo)
    assert toss_on == pytest.approx(1 + 0.75 * (1 + 0.75 * (1 + 0.75 * 2)), abs=1e-15)
    assert memo[Coin()] == toss_on and memo[Coin(3, False, False, True)] == 2.0  # three tails: a miss
    # the stopped ends are never reached: only "toss" is walked
    assert not any(s.stopped for s in memo)
    # a key that forgets the tosses names a state and the one after its toss alike: a loop
    with pytest.raises(ValueError, match="^the walk loops"):
        expectimax(Coin(), cost=_toss_costs_1, final=_miss(2.0), key=lambda s: (s.heads, s.stopped, s.deciding))


@dataclass(frozen=True)
class Loop:
    """A decision that may come back to itself: no finite walk."""

    n: int = 0

    def is_terminal(self) -> bool:
        return self.n == 2

    def chance_outcomes(self):
        return ()

    def legal_actions(self):
        return ("on", "back") if self.n < 2 else ()

    def apply(self, x) -> Loop:
        return Loop(self.n + 1 if x == "on" else 0)


def test_expectimax_refuses_a_loop_and_a_node_left_without_actions_is_a_dead_end():
    with pytest.raises(ValueError, match="^the walk loops"):
        expectimax(Loop())
    assert expectimax(Loop(), cost=lambda *_: 1.0, actions=lambda s: ("on",)) == 2.0
    assert expectimax(Loop(), actions=lambda s: ()) == math.inf
    # a dead end is never chosen while another action is left
    assert expectimax(Loop(), cost=lambda *_: 1.0, actions=lambda s: ("on",) if s.n == 0 else ()) == math.inf
    # nothing allowed after two tails: after one tails a toss may lead there (infinity), so
    # the walk stops (a miss, 8) rather than toss on
    assert expectimax(Coin(), cost=_toss_costs_1, final=_miss(8.0),
                      actions=lambda s: () if s.tosses == 2 else s.legal_actions()) == 1 + 0.75 * 8


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


def _option_sets(game) -> list[dict]:
    """`simulate`'s options of a game: its defaults with every integer option at its lowest
    (the fewest cars, the fewest rounds), then each other choice of a choice option, and each
    integer option two above its lowest (more cars, more rounds), one change at a time."""
    base = {}
    for o in game.takes("simulate"):
        base[o.key] = o.between[0] if o.between is not None else o.default
    out = [base]
    for o in game.takes("simulate"):
        if o.choices:
            out += [{**base, o.key: c} for c in o.choices if c != base[o.key]]
        elif o.between is not None:
            out.append({**base, o.key: min(o.between[1], o.between[0] + 2)})
    return out


def _starts() -> dict:
    """Every registered game's engine start (`Game.engine_start`) of every bundled spec of
    its main kind, under each set of `simulate`'s options (the same state once)."""
    starts: dict = {}
    for game in registry.games():
        for path in sorted((SPECS / game.name).glob("*.yaml")):
            spec = load_spec(path)
            if spec.kind_name != game.kinds[0].name:
                continue
            made: set = set()
            for options in _option_sets(game):
                state = repr(game.engine_start(spec, options))  # (a Rallyman stage is equal only to itself)
                if state not in made:
                    made.add(state)
                    shown = ", ".join(f"{k}={v}" for k, v in options.items() if v is not None)
                    starts[f"{game.name} {path.stem} ({shown})"] = (lambda spec=spec, options=options, game=game:
                                                                    game.engine_start(spec, options))
    return starts


def _one_car_box():
    from dataclasses import replace

    from sheetgen.games.rallytaire.engine import RaceState
    from sheetgen.games.rallytaire.model import Boxes

    race = load_spec(SPECS / "rallytaire" / "acropolis.yaml").model
    return RaceState.start(replace(race, boxes=Boxes(engine=1, brakes=1, gearbox=1, car=1)), "advanced")


STARTS = {
    **_starts(),
    # the first crash puts the car out: random play ends early, out of the race
    "rallytaire acropolis advanced, one car box": _one_car_box,
}


def test_every_game_that_simulates_gives_its_engine_start():
    """The random playouts cover every registered game that plays a race: each gives its
    engine's first state, for at least one bundled spec."""
    playing = {g.name for g in registry.games() if g.simulate is not None}
    assert playing == {g.name for g in registry.games() if g.engine_start is not None}
    assert playing == {name.split()[0] for name in STARTS}
    assert playing >= {"rallytaire", "rally_risk", "rally_run", "rallyman"}


#: random play on Rallyman's larger tracks wanders for hundreds of turns (1 to 10 s a start
#: for five seeds): the default suite plays every game, GT and DIRT, on its smaller tracks
#: (tiny with 1 and 3 cars, the hill climb and the lakeside with 1), `-m slow` all of them
SLOW_PLAYOUTS = ("rallyman gt_", "rallyman dirt_forest_stage")


def _slow(name: str) -> bool:
    return name.startswith(SLOW_PLAYOUTS) or (name.startswith("rallyman") and "cars=3" in name and "tiny" not in name)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if _slow(n) else n for n in sorted(STARTS)]
)
def test_random_playouts_reach_the_end(name):
    ends = []
    for seed in range(5):
        end, steps = random_playout(STARTS[name](), random.Random(seed))
        assert end.is_terminal() and steps > 0
        ends.append(end)
    if name.endswith("one car box"):
        assert any(end.car.out for end in ends)


# --------------------------------------------------------------------------- Rallytaire's rule sets


def test_rallytaire_rule_sets_are_variants_of_one_engine():
    from sheetgen.games.rallytaire.engine import ADVANCED, BASIC, rules_named

    assert rules_named("basic") is BASIC and rules_named("advanced") is ADVANCED
    assert repr(BASIC) == "rules_named('basic')"
    with pytest.raises(ValueError, match=r"^unsupported variant: 'expert' \(expected 'basic' or 'advanced'\)$"):
        rules_named("expert")


def test_rallytaire_exact_outcomes_are_the_engines_floats():
    """The race state's exact outcomes, as floats, are the ones both rule modules give (so
    a playout draws as a loop over them did)."""
    from sheetgen import dice
    from sheetgen.games.rallytaire import rules
    from sheetgen.games.rallytaire import rules_advanced as adv
    from sheetgen.games.rallytaire.engine import ADVANCED, BASIC
    from sheetgen.games.rallytaire.model import Boxes, Surface
    from sheetgen.games.rallytaire.rules import State
    from sheetgen.games.rallytaire.rules_advanced import AdvancedState

    stage = load_spec(SPECS / "rallytaire" / "acropolis.yaml").model.stages[0]
    for last in (None, 1, 3, 5):
        car = State(4, last)
        for action in BASIC.actions(stage, car):
            assert dice.to_float(BASIC.outcomes(stage, car, action)) == rules.chance_outcomes(stage, car, action.gear)
        for tyres in Surface:
            fancy = AdvancedState(car, tyres, Boxes())
            for action in ADVANCED.actions(stage, fancy):
                exact = ADVANCED.outcomes(stage, fancy, action)
                assert dice.to_float(exact) == adv.chance_outcomes(stage, fancy, action)
                assert sum(p for _, p in exact) == 1


def test_rallytaire_turn_phases_and_refusals():
    from sheetgen.games.rallytaire.engine import FIX, GEAR, OVER, PLAN, ROLL, TYRES, RaceState
    from sheetgen.games.rallytaire.model import Corner, Race, Stage, Surface, Turn
    from sheetgen.games.rallytaire.rules import RulesError
    from sheetgen.games.rallytaire.rules_advanced import Action, Fix, Option

    race = Race("r", (Stage("a", Surface.GRAVEL, 4, (Corner(2, 1, 1, Turn.LEFT),)), Stage("b", Surface.SNOW, 2)))
    s = RaceState.start(race, "basic")
    assert (s.phase, s.legal_actions(), s.chance_outcomes()) == (GEAR, (Action(1),), ())
    with pytest.raises(RulesError):
        s.apply(Action(2))
    s = s.apply(Action(1))
    assert s.phase == ROLL and s.legal_actions() == () and s.chance_outcomes() == ((1, Fraction(1, 2)), (2, Fraction(1, 2)))
    with pytest.raises(RulesError):
        s.apply(3)
    assert RaceState(race, s.rules, ROLL, 0, s.car, Action(1)).chance_outcomes() == s.chance_outcomes()
    s = s.apply(1)  # onto space 1, in the corner's zone: plan it
    assert s.phase == PLAN and s.legal_actions() == (None, 0)
    with pytest.raises(RulesError):
        s.apply(1)
    s = s.apply(0).apply(Action(2)).apply(3)  # planned D: 2nd gear through a 1st-gear corner
    assert (s.phase, s.legal_actions(), s.car.position, s.car.pending_drift) == (PLAN, (None,), 1, 0)
    s = s.apply(None)
    assert (s.phase, s.car.position, s.car.pending_drift) == (GEAR, 4, None)
    s = s.apply(Action(3)).apply(4)  # beyond the finish: the next stage, no plan, no fix-points
    assert (s.phase, s.stage_index, s.car.position) == (GEAR, 1, 0)
    s = s.apply(Action(1)).apply(1).apply(None).apply(Action(2)).apply(2)
    assert s.is_terminal() and s.phase == OVER and s.legal_actions() == ()
    with pytest.raises(RulesError, match="the race is over"):
        s.apply(None)

    s = RaceState.start(race, "advanced")
    assert s.phase == TYRES and s.legal_actions() == race.tyres
    with pytest.raises(RulesError):
        s.apply("slicks")
    s = s.apply(Surface.GRAVEL)
    assert s.phase == GEAR and Action(1, Option.PUSH) in s.legal_actions()
    s = s.apply(Action(1, Option.PUSH))
    assert sum(p for _, p in s.chance_outcomes()) == 1
    s = s.apply(next(o for o, _ in s.chance_outcomes() if o.speed == 2)).apply(0)
    s = s.apply(Action(2))
    s = s.apply(next(o for o, _ in s.chance_outcomes() if o.speed == 4))
    assert s.phase == FIX and Fix(engine=1) in s.legal_actions() and s.car.left.engine == 2
    with pytest.raises(RulesError):
        s.apply(Fix(engine=3))
    s = s.apply(Fix(engine=1))
    assert (s.phase, s.stage_index, s.car.left.engine) == (GEAR, 1, 3)
