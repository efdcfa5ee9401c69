"""Rallyman's small cases for the engine walk (`Game.oracle_cases`, tests/test_oracle.py).

The par solvers (:func:`solve.par` for GT, :func:`solve_dirt.par` for DIRT) work on Pareto
sets of partial plans over their own state tuples; the walk (:func:`sheetgen.engine.expectimax`)
plays one car alone through the race engine (:class:`rules.RaceState`, :class:`rules_dirt.DirtRace`:
each die placed, the roll, every caution, the time card and every draw) and takes the least
expected stage time over the actions the solver's model allows. A turn costs the seconds the
engine adds to the car's time; a state's value depends on where the car is, not on the
seconds, turns and cards behind it (nor on the round, its number or its colour: one car alone
plays every round, 400 of them at most, which these stages never come near).

The models, read from the solvers' docstrings and the rulebooks, not from their code:

- **GT** (`Stage(damage=False, max_focus=cap)`, RG-30, RG-32): any plan of dice, rolled flat
  out or (`one_at_a_time`) one at a time with the tokens held (at most `cap`) secured die by die
  and a stop; flat out a loss of control falls where the plan's own order reaches the caution
  limit (the re-allocation on that die's cell, in its gear). Flat out only with no token
  counted is the flat-out par of earlier versions.
- **DIRT** (`DirtStage(damage=False)`, RD-13): a plan of dice chosen at the turn's start and
  rolled flat out (never one at a time), a loss of control where the plan's order reaches it
  (the engine's own flat-out rule); a shortcut entry draws its side from a full bag; second
  tokens earned are never spent (so they are no part of the state); the car's own mud does
  not slow it (RD-8: so the mud it leaves is no part of the state either).
"""

from __future__ import annotations

from typing import Any

from sheetgen.engine import OracleCase
from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.model import Cell, Track, Variant


def _seconds(state: Any, _choice: Any, after: Any) -> float:
    """What a step costs: the seconds the engine adds to the car's time."""
    return float(after.cars[0].time - state.cars[0].time)


def _gt_key(state: rules.RaceState) -> tuple:
    car = state.cars[0]
    return (
        car.cell, car.gear, car.out, car.focus, car.crossings, car.tyres, car.lost, car.finished, car.pit,
        state.phase, state.plan, state.placed, state.cautions, state.secured, state.rolled, state.loss,
        state.rolling, state.weather, state.bag, state.yellow,
    )  # fmt: skip


def _dirt_key(state: Any) -> tuple:
    car = state.cars[0]
    return (
        car.cell, car.gear, car.entered, car.crashed, car.finished, car.lost, car.slide, state.round > 0,
        state.phase, state.plan, state.done, state.cautions, state.secured, state.rolling, state.loss, state.icon,
        state.bag,
    )  # fmt: skip


def _plan_order_loss(state: rules.RaceState) -> tuple:
    """Flat out, after a loss of control: the one re-allocation of the model, where the
    plan's own order reaches the caution limit (its cautions printed on the track and rolled
    on the dice, die by die), on that die's cell in its gear, with the finish-line crossings
    on the way there (an entry into a finish cell from a cell that is not one)."""
    track, car = state.stage.track, state.cars[0]
    limit = state.stage.dashboard(car.tyres, state.weather).caution_limit
    cautions, crossed, prev = 0, 0, car.cell
    for step, hit in zip(state.plan, state.rolled):
        crossed += 1 if track.at(step.to).finish and not track.at(prev).finish else 0
        prev = step.to
        cautions += step.marks + (1 if hit else 0)
        if cautions >= limit:
            return tuple(
                a for a in state.legal_actions() if (a.to, a.gear, a.crossed) == (step.to, step.gear, crossed)
            )
    raise AssertionError("a re-allocation with the plan's cautions under the limit")


def _gt_actions(one_at_a_time: bool) -> Any:
    def allowed(state: rules.RaceState) -> tuple:
        if state.phase == rules.REALLOCATE:
            return _plan_order_loss(state)
        actions = state.legal_actions()
        if one_at_a_time:
            return actions
        return tuple(a for a in actions if not (isinstance(a, rules.Roll) and a.mode == "one"))

    return allowed


def _dirt_actions(state: Any) -> tuple:
    return tuple(a for a in state.legal_actions() if not (isinstance(a, rules.Roll) and a.mode == "one"))


# --------------------------------------------------------------------------- small tracks


def road(n: int, lanes: int = 1, limits: dict | None = None, marks: tuple = ()) -> Track:
    """A straight GT road heading east, n cells a lane; `limits` maps (q, lane) to a corner
    limit, `marks` lists the (q, lane) whose limit is printed in a caution triangle."""
    limits = limits or {}
    cells = []
    for lane in range(1, lanes + 1):
        for q in range(n):
            kw: dict[str, Any] = {}
            if (q, lane) in limits:
                kw["limit"] = limits[q, lane]
            if (q, lane) in marks:
                kw["caution"] = True
            cells.append(Cell(Hex(q - (lane - 1) // 2, lane - 1), 0, lane, start=q == 0, finish=q == n - 1, **kw))
    return Track("road", Variant.GT, tuple(cells))


def strip(n: int, extra: tuple[Cell, ...] = (), **marks: dict) -> Track:
    """A two-lane DIRT strip of `n` columns heading east (lane 1 on row 0, lane 2 on row 1);
    `marks["c{q}_{lane}"]` sets a cell's attributes."""
    cells = []
    for q in range(n):
        for lane, r in ((1, 0), (2, 1)):
            kw = dict(marks.get(f"c{q}_{lane}", {}))
            kw.setdefault("start", q == 0 and lane == 1)
            kw.setdefault("finish", q == n - 1)
            cells.append(Cell(Hex(q, r), 0, lane, **kw))
    return Track("strip", Variant.DIRT, tuple(cells) + extra)


#: the walk enumerates every plan of dice and every roll of it (2 to the dice), where the
#: solvers share partial plans: a track of a few cells already takes seconds to walk (on the
#: shared 2-core machine a GT road of 7 cells about a minute, a DIRT strip of 4 10 to 50 s; a
#: GT road of two lanes longer still), so the default suite walks the smallest ones and
#: `-m slow` a few more (about 6 minutes in all)
GT_TRACKS = {
    "straight 4": lambda: road(4),
    "straight 5": lambda: road(5),
    "straight 6": lambda: road(6),
    "corner limit 2 then a caution mark": lambda: road(7, limits={(3, 1): 2, (5, 1): 3}, marks=((5, 1),)),
}
#: (track, focus tokens counted, one at a time allowed) of the GT cases, and whether slow
GT_CASES = (
    ("straight 4", 0, False, False),
    # (one at a time pays from 5 cells on: 23.89 s against 25.09 s flat out)
    ("straight 5", 1, True, False),
    ("straight 6", 0, False, True),
    ("straight 6", 0, True, True),
    ("straight 6", 3, True, True),
    ("corner limit 2 then a caution mark", 0, False, True),
    ("corner limit 2 then a caution mark", 1, True, True),
)

_TIGHT = {"limit": 2}
DIRT_TRACKS = {
    "a limit-2 corner in both lanes of a strip of 3": lambda: strip(3, c1_1=_TIGHT, c1_2=_TIGHT),
    "a strip of 3": lambda: strip(3),
    "a strip of 4": lambda: strip(4),
    "a limit-2 corner in both lanes": lambda: strip(4, c2_1=_TIGHT, c2_2=_TIGHT),
    "a jump": lambda: strip(4, c1_2={"jump": 3}),
    "water": lambda: strip(4, c2_1={"water": True}),
    # a limit-2 corner in both lanes and a shortcut round it (the par takes it: its side drawn)
    "a shortcut past a corner": lambda: strip(
        4, (Cell(Hex(1, -1), 0, 0, shortcut=2), Cell(Hex(2, -1), 0, 0, shortcut=2)), c1_1=_TIGHT, c1_2=_TIGHT
    ),
    "a slide zone before a corner": lambda: strip(4, c1_2={"slide": True}, c2_1={"slide": True}, c2_2=_TIGHT),
}
DIRT_FAST = {"a limit-2 corner in both lanes of a strip of 3"}


def _gt(name: str, cap: int, one: bool, slow: bool) -> OracleCase:
    from sheetgen.games.rallyman.ruleset import default

    gt = default("gt")

    def figure() -> float:
        from sheetgen.games.rallyman.solve import par

        return par(rules.Stage(GT_TRACKS[name](), gt, damage=False), focus_cap=cap, one_at_a_time=one).time

    return OracleCase(
        name=f"GT {name}, {'one at a time' if one else 'flat out'}, {cap} token{'' if cap == 1 else 's'} counted",
        figure=figure,
        start=lambda: rules.RaceState.start(rules.Stage(GT_TRACKS[name](), gt, damage=False, max_focus=cap)),
        cost=_seconds,
        key=_gt_key,
        actions=_gt_actions(one),
        slow=slow,
    )


def _dirt(name: str) -> OracleCase:
    from sheetgen.games.rallyman import rules_dirt
    from sheetgen.games.rallyman.ruleset import default

    dirt = default("dirt")

    def figure() -> float:
        from sheetgen.games.rallyman.solve_dirt import par

        return par(rules_dirt.DirtStage(DIRT_TRACKS[name](), dirt, damage=False)).time

    return OracleCase(
        name=f"DIRT {name}, flat out",
        figure=figure,
        start=lambda: rules_dirt.DirtRace.start(rules_dirt.DirtStage(DIRT_TRACKS[name](), dirt, damage=False)),
        cost=_seconds,
        key=_dirt_key,
        actions=_dirt_actions,
        slow=name not in DIRT_FAST,
    )


def cases() -> list[OracleCase]:
    out = [_gt(*case) for case in GT_CASES]
    out += [_dirt(name) for name in DIRT_TRACKS]
    return out
