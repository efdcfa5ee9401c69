"""Rally Risk rules engine (rulebook rally_risk.txt; RULINGS.md "Rally: Risk and Evaluation").

OpenSpiel style. Per car: :func:`legal_gears`, :func:`risk_outcomes` (the die as exact
``(die, probability)`` pairs), :func:`legal_moves`, :func:`move_outcomes` (every damage roll
of a move folded into exact ``(MoveResult, probability)`` pairs; :func:`check_tree` and
:func:`move_outcome_tree` fold many moves at once, sharing the checks they have in common),
:func:`service_options` and :func:`next_state`. For a whole race of several cars,
:class:`RaceState` steps through every decision and every die one at a time
(:meth:`RaceState.legal_actions`, :meth:`RaceState.chance_outcomes`, :meth:`RaceState.apply`,
:meth:`RaceState.is_terminal`: the engine protocol of :mod:`sheetgen.engine`). The solver and
the simulator go through these functions only; nothing else applies a rule.

A round: the weather marker moves (even roll forward, odd back); then every car that has
started, in departure order, takes its turn. A turn: a halted car sits it out. Otherwise the
driver sets a gear, rolls the die for the risk factor (Table of Risks at gear and die +
assistance + weather, never above 6), then moves between the gear's minimum and maximum,
braking to go below the minimum. Every space entered whose factor exceeds the risk factor
is checked on the Damages Table; any damage stops the car there. Mechanics in range turn
damage into a tail spin. A car that finishes, or is eliminated, leaves the race.

Rulings sheetgen adds (where the rulebook is silent or its figures are missing):

1. Tables are sheetgen's house tables unless the spec gives its own (see ``tables.py``).
2. Gears are 1st-5th. Assistance adds to both the minimum and the maximum of gears 2-5;
   1st gear always moves exactly 1 space. Special races add their extra points to the
   maximum only.
3. Departure, going off the road (tail spin or halt) and stopping at the mechanic's force
   the next move into 1st gear; otherwise the gear moves by at most one. The R.P.M. card
   allows one shift down by exactly two gears (5th to 3rd, 4th to 2nd, 3rd to 1st), once
   per race; never upwards, never instead of a forced 1st.
4. Braking: moving k spaces below the minimum m takes exactly m - k brakings, each declared
   on a space entered this move (any number per space), each adding 1 to that space's
   factor. No other braking is allowed (it could only raise factors). A move is always at
   least 1 space.
5. The finish lies just beyond the last space: a move finishes when it reaches it; the
   spaces it would have run beyond the finish are free, so no braking is needed to finish.
6. A space's factor for a move: the printed factor; a ford takes 5 in rain and storms, 3 in
   snow; special tyres then add their effect (never below 0); then brakings; then +1 for
   each car on the road standing on that space when the move goes beyond it (passing: the
   Summary's "passing: +1 for each car passed" under the speed and safety factors; the
   text's "increases the number of spaces by the number of cars to be passed" is read as
   the same +1, not as a longer move: the movement range ignores other cars).
   Ending a move on an occupied space changes nothing. Cars off the road (gone off, halted,
   stopped at the mechanic's: every car that must next move in 1st gear) are not counted.
7. Damage checks happen in driving order, one die each; the Damages Table row is the
   difference (rows past the last use the last). Any result but "-" stops the car on that
   space: "tc" costs no turn, 1st/2nd/3rd degree halt the car 1/2/3 turns, "e" eliminates it.
8. Mechanics: 1, 2 or 3 per car, as the rulebook says; a car with none is sheetgen's house
   option "no mechanics" (the engine's default, the analysis's "without mechanics" figures,
   the calendar's finishability check). They stand on numbered spaces and reach 4 spaces
   either way. Damage of degree d on a space within reach of k of the car's mechanics
   becomes a tail spin when k >= d. "Being damaged to the IIIrd degree within the range of
   one mechanic means a damage to the IInd degree" holds for one or two mechanics: 3rd
   degree with 1 or 2 in reach becomes 2nd degree, and that 2nd degree is not repaired
   again by the two (the reduction is what they do). Elimination cannot be repaired.
   "Stop at the mechanic's" means within reach of one (4 spaces either way), not on its
   space (see 9).
9. Tyre effects are a table (house values; a spec may replace them). The rulebook's "one
   or two points, respectively, are subtracted from the movement" on clear or cloudy days
   is read literally: -1 when clear, -2 when cloudy, from the minimum and the maximum (never
   below 1). Its "these tires, used when it is raining or snowing, lower the factors by one"
   is read as rain tyres in rain and storms, snow tyres in snow (so the two differ).
   Tyres (normal, rain, snow) are chosen before the departure and changed only at the
   mechanic's: after a move in 1st or 2nd gear that ends, undamaged, within reach of one of
   the car's mechanics (the car stops there and next moves in 1st gear), or after going
   off the road within reach (a halt or tail spin leaves time for it; when the mechanics
   also repaired damage that turn, the change costs one more turn at a halt).
10. The weather marker starts on the chart's start sector and moves at the start of every
   round, round 1 included; it stays put when it would move off either end. All cars
   play a round in that weather.
11. Staggered departures: car i (1-based) first plays in round i. A round's turns are in
   departure order. The race ends when every car has finished or been eliminated.
12. Scores: see :mod:`sheetgen.games.rally_risk.scoring` (an eliminated car scores the last
   arrival's score plus two).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations_with_replacement
from typing import Any

from sheetgen.errors import SheetgenError
from sheetgen.games.rally_risk.model import (
    DIE,
    MAX_GEAR,
    MAX_MECHANICS,
    MECHANIC_RANGE,
    MIN_GEAR,
    Assistance,
    Outcome,
    Race,
    Tables,
    TyreEffect,
    Tyres,
    Weather,
    WeatherChart,
    WeatherSector,
)

SIXTH = Fraction(1, 6)
HALF = Fraction(1, 2)


class RulesError(SheetgenError, ValueError):
    """An illegal action for a state, or a car set-up the rules do not allow."""


# --------------------------------------------------------------------------- set-up


@dataclass(frozen=True, eq=False)
class Course:
    """What the rules need of a race: factors and fords of spaces 1..N, tables, weather.

    Compared by identity: one Course per race (see :meth:`of`), so that the lookups it
    memoises are shared by everything that plays the race."""

    name: str
    factors: tuple[int, ...]  # index 0 unused (departure), 1..N the spaces
    fords: tuple[bool, ...]
    tables: Tables
    chart: WeatherChart
    special: bool
    _memo: dict = field(default_factory=dict, repr=False)

    @property
    def length(self) -> int:
        return len(self.factors) - 1

    @property
    def finish(self) -> int:
        return len(self.factors)

    @staticmethod
    def of(race: Race) -> Course:
        return _course(race)

    def shared(self, name: str) -> dict:
        """A table of values derived from this course that every solve of the race may reuse
        (the solver's moves and check trees), kept with the course so that they go with it."""
        return self._memo.setdefault(("shared", name), {})

    def bonus(self, assistance: Assistance) -> int:
        key = ("bonus", assistance)
        if key not in self._memo:
            self._memo[key] = self.tables.bonus(assistance)
        return self._memo[key]

    def tyre_effect(self, tyres: Tyres, weather: Weather) -> TyreEffect:
        key = ("tyre", tyres, weather)
        if key not in self._memo:
            self._memo[key] = self.tables.tyre_effect(tyres, weather)
        return self._memo[key]

    def row(self, weather: Weather, tyres: Tyres) -> tuple[int, ...]:
        """Every space's factor (index 0 unused) in this weather on these tyres."""
        key = ("row", weather, tyres)
        row = self._memo.get(key)
        if row is None:
            row = self._memo[key] = (0,) + tuple(space_factor(self, s, weather, tyres) for s in range(1, self.finish))
        return row

    def row_key(self, weather: Weather, tyres: Tyres) -> int:
        """The same number for weathers and tyres that give every space the same factor."""
        key = ("row key", weather, tyres)
        got = self._memo.get(key)
        if got is None:
            rows = self._memo.setdefault("distinct rows", {})
            got = self._memo[key] = rows.setdefault(self.row(weather, tyres), len(rows))
        return got

    def damage_dist(self, difference: int, exact: bool = True) -> tuple[tuple[Outcome, Any], ...]:
        key = ("damage", min(difference, len(self.tables.damage)), exact)
        dist = self._memo.get(key)
        if dist is None:
            dist = damage_outcomes(self.tables, difference)
            if not exact:
                dist = tuple((o, float(p)) for o, p in dist)
            self._memo[key] = dist
        return dist


@lru_cache(maxsize=64)
def _course(race: Race) -> Course:
    spaces = race.spaces
    return Course(
        name=race.name,
        factors=(0,) + tuple(s.factor for s in spaces),
        fords=(False,) + tuple(s.ford for s in spaces),
        tables=race.tables,
        chart=race.tables.chart(race.zone),
        special=race.special,
    )


@dataclass(frozen=True)
class Car:
    """A driver's choices for the whole race: assistance and where the mechanics stand."""

    assistance: Assistance = Assistance.PERMANENT
    mechanics: tuple[int, ...] = ()

    def check(self, course: Course) -> None:
        if len(self.mechanics) > MAX_MECHANICS:
            raise RulesError(f"a car has at most {MAX_MECHANICS} mechanics, got {len(self.mechanics)}")
        for m in self.mechanics:
            if not 1 <= m <= course.length:
                raise RulesError(f"mechanics stand on spaces 1..{course.length}, got {m}")

    def in_reach(self, space: int) -> int:
        """How many of the car's mechanics reach `space`."""
        return sum(abs(m - space) <= MECHANIC_RANGE for m in self.mechanics)


@dataclass(frozen=True, slots=True)
class CarState:
    """One car between turns.

    position: 0 at the departure, 1..N on a space, N+1 finished.
    gear: the gear of its last move; 0 when the next move must be in 1st gear (departure,
        after going off the road, after a halt, after stopping at the mechanic's). Such a car
        is off the road for passing.
    halt: turns it still sits out.
    """

    position: int = 0
    gear: int = 0
    halt: int = 0
    tyres: Tyres = Tyres.NORMAL
    rpm_card: bool = True
    eliminated: bool = False

    def finished(self, course: Course) -> bool:
        return self.position >= course.finish

    def on_road(self, course: Course) -> bool:
        return 1 <= self.position <= course.length and self.gear > 0 and not self.eliminated


# --------------------------------------------------------------------------- weather


def weather_outcomes(chart: WeatherChart, sector: int) -> tuple[tuple[int, Fraction], ...]:
    """The marker's next sector: even roll (1/2) one forward, odd roll (1/2) one back."""
    ahead, back = chart.step(sector, True), chart.step(sector, False)
    if ahead == back:
        return ((ahead, Fraction(1)),)
    return tuple(sorted(((ahead, HALF), (back, HALF))))


def sector_of(course: Course, sector: int) -> WeatherSector:
    return course.chart.sectors[sector]


# --------------------------------------------------------------------------- gear and risk


def legal_gears(state: CarState) -> tuple[int, ...]:
    """Gradual shifting; 1st after a stop; the R.P.M. card's one double downshift."""
    if state.halt or state.eliminated:
        return ()
    if state.gear == 0:
        return (MIN_GEAR,)
    g = state.gear
    gears = {x for x in (g - 1, g, g + 1) if MIN_GEAR <= x <= MAX_GEAR}
    if state.rpm_card and g - 2 >= MIN_GEAR:
        gears.add(g - 2)
    return tuple(sorted(gears))


def uses_rpm_card(state: CarState, gear: int) -> bool:
    return state.gear > 0 and gear == state.gear - 2


def risk_roll(tables: Tables, die: int, assistance: Assistance, weather: WeatherSector) -> int:
    """The die as read on the Table of Risks: + assistance + weather, never above 6."""
    return min(6, die + tables.bonus(assistance) + weather.modifier)


def risk_factor(tables: Tables, gear: int, die: int, assistance: Assistance, weather: WeatherSector) -> int:
    """Table of Risks: the highest factor the car takes safely this round."""
    return tables.risk[gear - 1][risk_roll(tables, die, assistance, weather) - 1]


def risk_outcomes() -> tuple[tuple[int, Fraction], ...]:
    """The risk die: (die, probability)."""
    return tuple((d, SIXTH) for d in DIE)


# --------------------------------------------------------------------------- movement


def movement_range(course: Course, car: Car, state: CarState, gear: int, weather: WeatherSector) -> tuple[int, int]:
    """(minimum, maximum) spaces of a move in `gear`: gear chart, assistance (not in 1st),
    special-race extra (maximum only), special tyres in dry weather; never below 1."""
    t = course.tables
    lo, hi = t.gear_chart[gear - 1]
    if gear > MIN_GEAR:
        bonus = course.bonus(car.assistance)
        lo, hi = lo + bonus, hi + bonus
    if course.special:
        hi += t.special_extra[gear - 1]
    move = course.tyre_effect(state.tyres, weather.weather).move
    return max(1, lo + move), max(1, hi + move)


@dataclass(frozen=True, slots=True)
class Move:
    """Enter `spaces` spaces (the finish counts as one); `brakes[i]` brakings declared on
    the i-th space entered (empty when the move does not brake)."""

    spaces: int
    brakes: tuple[int, ...] = ()

    @property
    def brakings(self) -> int:
        return sum(self.brakes)

    def __str__(self) -> str:
        if not self.brakings:
            return f"{self.spaces}"
        on = ", ".join(f"{b}x space {i}" for i, b in enumerate(self.brakes, 1) if b)
        return f"{self.spaces} braking {on}"


@lru_cache(maxsize=4096)
def brake_plans(spaces: int, brakings: int) -> tuple[tuple[int, ...], ...]:
    """Every way to declare `brakings` brakings on `spaces` spaces (several per space allowed)."""
    if brakings == 0:
        return ((),)
    plans = []
    for combo in combinations_with_replacement(range(spaces), brakings):
        plan = [0] * spaces
        for i in combo:
            plan[i] += 1
        plans.append(tuple(plan))
    return tuple(sorted(set(plans), reverse=True))


def legal_moves(course: Course, car: Car, state: CarState, gear: int, weather: WeatherSector) -> tuple[Move, ...]:
    """Every move in `gear`: at least 1 space; below the minimum only by braking exactly the
    difference; the finish ends a move however few spaces it takes. Longest first."""
    lo, hi = movement_range(course, car, state, gear, weather)
    # farther than hi from the finish the distance changes nothing: every such position
    # shares one tuple of moves
    return _moves(lo, hi, min(course.finish - state.position, hi + 1))


@lru_cache(maxsize=4096)
def _moves(lo: int, hi: int, left: int) -> tuple[Move, ...]:
    """The moves of a range (lo, hi) with `left` spaces to the finish (the finish counts)."""
    moves: list[Move] = []
    for k in range(min(hi, left), 0, -1):
        needed = 0 if k == left else max(0, lo - k)
        moves.extend(_move(k, plan) for plan in brake_plans(k, needed))
    return tuple(moves)


@cache
def _move(spaces: int, brakes: tuple[int, ...]) -> Move:
    """One object per move, whatever range lists it: solvers can tell moves apart by
    identity, without hashing them."""
    return Move(spaces, brakes)


def space_factor(course: Course, space: int, weather: Weather, tyres: Tyres) -> int:
    """A space's factor in this weather on these tyres, before brakings and passing."""
    f = course.factors[space]
    if course.fords[space]:
        wet = course.tables.ford_factor(weather)
        if wet is not None:
            f = wet
    return max(0, f + course.tyre_effect(tyres, weather).factor)


def entered_factors(
    course: Course,
    state: CarState,
    move: Move,
    weather: Weather,
    passing: dict[int, int] | None = None,
) -> tuple[tuple[int, int], ...]:
    """(space, factor) of every real space the move enters, in driving order, with brakings
    and passing (`passing`: space -> cars on the road there, other than this one)."""
    row = course.row(weather, state.tyres)
    start = state.position
    end = start + move.spaces
    last = min(end, course.length)
    brakes = move.brakes
    out = []
    for space in range(start + 1, last + 1):
        f = row[space]
        if brakes:
            f += brakes[space - start - 1]
        if passing and space < end:
            f += passing.get(space, 0)
        out.append((space, f))
    return tuple(out)


# --------------------------------------------------------------------------- damage


def damage(tables: Tables, difference: int, die: int) -> Outcome:
    """Damages Table at a factor difference (>= 1) and a die."""
    row = tables.damage[min(difference, len(tables.damage)) - 1]
    return row[die - 1]


def damage_outcomes(tables: Tables, difference: int) -> tuple[tuple[Outcome, Fraction], ...]:
    """The damage roll at a difference as exact (outcome, probability), lightest first."""
    counts: dict[Outcome, int] = {}
    for d in DIE:
        o = damage(tables, difference, d)
        counts[o] = counts.get(o, 0) + 1
    return tuple(sorted(((o, Fraction(n, 6)) for o, n in counts.items()), key=lambda x: x[0].severity))


def repair(outcome: Outcome, mechanics: int) -> Outcome:
    """What `mechanics` mechanics in reach make of a damage (ruling 8)."""
    degree = outcome.halt
    if not degree or not mechanics:
        return outcome
    if mechanics >= degree:
        return Outcome.TAIL_SPIN
    if degree == 3:
        return Outcome.SECOND
    return outcome


@dataclass(frozen=True, slots=True)
class MoveResult:
    """How a move ended.

    kind: "moved" (ended normally on `position`), "finished", "off" (damage stopped the car
        on `position`), "eliminated".
    rolled: the Damages Table result that stopped the car; result: after the mechanics.
    halt: turns at a halt that follow (0 for a tail spin).
    """

    kind: str
    position: int
    rolled: Outcome | None = None
    result: Outcome | None = None

    @property
    def halt(self) -> int:
        return self.result.halt if self.result is not None else 0

    @property
    def repaired(self) -> bool:
        return self.rolled is not None and self.result is not self.rolled


def check_result(course: Course, car: Car, space: int, rolled: Outcome) -> MoveResult | None:
    """The result of one damage roll on `space`: None when the car goes on."""
    if rolled is Outcome.NONE:
        return None
    key = ("check", car.mechanics, space, rolled)
    result = course._memo.get(key)
    if result is None:
        if rolled is Outcome.ELIMINATED:
            result = MoveResult("eliminated", space, rolled, rolled)
        else:
            result = MoveResult("off", space, rolled, repair(rolled, car.in_reach(space)))
        course._memo[key] = result
    return result


def end_of_move(course: Course, state: CarState, move: Move) -> MoveResult:
    end = min(state.position + move.spaces, course.finish)
    key = ("end", end)
    result = course._memo.get(key)
    if result is None:
        result = course._memo[key] = MoveResult("finished", end) if end == course.finish else MoveResult("moved", end)
    return result


def move_outcomes(
    course: Course,
    car: Car,
    state: CarState,
    risk: int,
    move: Move,
    weather: Weather,
    passing: dict[int, int] | None = None,
    exact: bool = True,
) -> tuple[tuple[MoveResult, Any], ...]:
    """Every way the move can end, with its probability: the damage rolls of every checked
    space in driving order, the first damage stopping the car. Probabilities are Fractions,
    or floats with `exact=False` (for solvers)."""
    out: dict[MoveResult, Any] = {}
    going = Fraction(1) if exact else 1.0
    for space, factor in entered_factors(course, state, move, weather, passing):
        if factor <= risk:
            continue
        stay = 0
        for rolled, p in course.damage_dist(factor - risk, exact):
            result = check_result(course, car, space, rolled)
            if result is None:
                stay += p
            else:
                out[result] = out.get(result, 0) + going * p
        going *= stay
        if not going:
            break
    if going:
        out[end_of_move(course, state, move)] = going
    return tuple(out.items())


def check_tree(
    course: Course,
    state: CarState,
    risk: int,
    moves: tuple[Move, ...],
    weather: Weather,
    exact: bool = True,
) -> tuple[
    tuple[tuple[int, int, tuple[tuple[Outcome, Any], ...]], ...], tuple[tuple[int, tuple[MoveResult, Any] | None], ...]
]:
    """The damage checks of several moves from one state (no passing), folded as
    :func:`move_outcomes` folds them, for solvers: moves that make the same checks on the
    same spaces share them, so each check is folded once however many moves (lengths,
    brakings) make it. The tree is the same for every car: mechanics only decide what a
    damage becomes (:func:`check_result`), never whether the car goes on, so only the
    results of the damages (:func:`move_outcome_tree`) depend on the car.

    Returns (steps, ends). steps[0] = (-1, 0, ()) is the start of every move; steps[i] =
    (parent, space, damages) goes on from step `parent` < i with the check on `space`:
    damages ((rolled, probability), ...) are the Damages Table results that stop the car
    there, lightest first, the probability of getting there taken in. ends[j] = (step, end)
    for moves[j]: the step of its last check, and its normal end (MoveResult, probability)
    or None when no car gets through; the same move object listed again is not walked
    again (equal moves are one object, see :func:`legal_moves`). See
    :func:`move_outcome_tree` for the outcomes."""
    row = course.row(weather, state.tyres)
    start = state.position
    last = course.length
    rows = len(course.tables.damage)
    one = Fraction(1) if exact else 1.0
    steps: list[tuple[int, int, tuple]] = [(-1, 0, ())]
    going_after = [one]  # the probability of getting through every check up to step i
    index: dict[tuple[int, int, int], int] = {}  # (step, space, difference) -> next step
    walked: dict[int, tuple] = {}  # id(move) -> its end, for a move listed more than once
    ended: dict[int, MoveResult] = {}  # end_of_move by where the move ends: all it depends on
    ends = []
    for move in moves:
        got = walked.get(id(move))
        if got is not None:
            ends.append(got)
            continue
        step, going = 0, one
        brakes = move.brakes
        end = start + move.spaces
        for space in range(start + 1, (end if end < last else last) + 1):
            factor = row[space] + brakes[space - start - 1] if brakes else row[space]
            if factor <= risk:
                continue
            # differences past the table's last row read the last row (see damage_dist)
            difference = factor - risk
            key = (step, space, difference if difference < rows else rows)
            nxt = index.get(key)
            if nxt is None:
                stay = 0
                damages = []
                for rolled, p in course.damage_dist(difference, exact):
                    if rolled is Outcome.NONE:  # check_result: the car goes on
                        stay += p
                    else:
                        damages.append((rolled, going * p))
                nxt = index[key] = len(steps)
                steps.append((step, space, tuple(damages)))
                going_after.append(going * stay)
            step, going = nxt, going_after[nxt]
            if not going:
                break
        if going:
            result = ended.get(end)
            if result is None:
                result = ended[end] = end_of_move(course, state, move)
            got = walked[id(move)] = (step, (result, going))
        else:
            got = walked[id(move)] = (step, None)
        ends.append(got)
    return tuple(steps), tuple(ends)


def move_outcome_tree(
    course: Course,
    car: Car,
    state: CarState,
    risk: int,
    moves: tuple[Move, ...],
    weather: Weather,
    exact: bool = True,
) -> tuple[
    tuple[tuple[int, tuple[tuple[MoveResult | None, Any], ...]], ...],
    tuple[tuple[int, tuple[MoveResult, Any] | None], ...],
]:
    """:func:`check_tree` with the car's results: steps[i] = (parent, ((MoveResult or None
    when the car goes on, probability), ...)). The outcomes of moves[j] (:func:`move_outcomes`, exactly: the
    same numbers in the same order) are the results of the steps from 0 to its step, in
    order, then its end when there is one."""
    steps, ends = check_tree(course, state, risk, moves, weather, exact)
    return (
        tuple(
            (parent, tuple((check_result(course, car, space, rolled), p) for rolled, p in damages))
            for parent, space, damages in steps
        ),
        ends,
    )


# --------------------------------------------------------------------------- after the move


def service_options(
    course: Course, car: Car, state: CarState, gear: int, result: MoveResult
) -> tuple[Tyres | None, ...]:
    """Tyre choices after a move (ruling 9): None keeps the tyres and does not stop."""
    if result.kind == "moved":
        if gear > 2 or not car.in_reach(result.position):
            return (None,)
    elif result.kind != "off" or not car.in_reach(result.position):
        return (None,)
    return (None,) + tuple(t for t in Tyres if t is not state.tyres)


def next_state(state: CarState, gear: int, result: MoveResult, tyres: Tyres | None = None) -> CarState:
    """The car after its move and, when `tyres` is given, a tyre change."""
    card = state.rpm_card and not uses_rpm_card(state, gear)
    if result.kind == "eliminated":
        return replace(state, position=result.position, gear=0, halt=0, rpm_card=card, eliminated=True)
    if result.kind == "finished":
        return replace(state, position=result.position, gear=gear, halt=0, rpm_card=card)
    if result.kind == "moved":
        if tyres is None:
            return replace(state, position=result.position, gear=gear, rpm_card=card)
        return replace(state, position=result.position, gear=0, tyres=tyres, rpm_card=card)
    halt = result.halt + (1 if tyres is not None and result.repaired else 0)
    return replace(state, position=result.position, gear=0, halt=halt, tyres=tyres or state.tyres, rpm_card=card)


def sit_out(state: CarState) -> CarState:
    """A halted car's turn."""
    return replace(state, halt=state.halt - 1)


def apply_turn(
    course: Course,
    car: Car,
    state: CarState,
    gear: int,
    die: int,
    move: Move,
    damage_dice: tuple[int, ...],
    weather: WeatherSector,
    tyres: Tyres | None = None,
    passing: dict[int, int] | None = None,
) -> tuple[MoveResult, CarState, tuple[tuple[int, int, Outcome], ...]]:
    """One whole turn with the dice given: (result, new state, (space, difference, rolled)
    of each damage check made). Checks legality; raises RulesError otherwise."""
    if gear not in legal_gears(state):
        raise RulesError(
            f"gear {gear} is not legal after gear {state.gear} (R.P.M. card {'kept' if state.rpm_card else 'used'})"
        )
    risk = risk_factor(course.tables, gear, die, car.assistance, weather)
    if move not in legal_moves(course, car, state, gear, weather):
        lo, hi = movement_range(course, car, state, gear, weather)
        raise RulesError(f"move {move} is not legal in gear {gear} (minimum {lo}, maximum {hi})")
    checks = []
    dice = iter(damage_dice)
    result = None
    for space, factor in entered_factors(course, state, move, weather.weather, passing):
        if factor <= risk:
            continue
        try:
            d = next(dice)
        except StopIteration:
            raise RulesError("not enough damage dice for the checks of this move") from None
        rolled = damage(course.tables, factor - risk, d)
        checks.append((space, factor - risk, rolled))
        result = check_result(course, car, space, rolled)
        if result is not None:
            break
    if result is None:
        result = end_of_move(course, state, move)
    if tyres not in service_options(course, car, state, gear, result):
        raise RulesError(f"tyres cannot be changed to {tyres.value} here" if tyres else "no such service")
    return result, next_state(state, gear, result, tyres), tuple(checks)


# --------------------------------------------------------------------------- a whole race


@dataclass(frozen=True)
class GearAction:
    gear: int


@dataclass(frozen=True)
class ServiceAction:
    tyres: Tyres | None  # None: no stop


Action = GearAction | Move | ServiceAction

WEATHER, GEAR, RISK, MOVE, DAMAGE, SERVICE, OVER = "weather", "gear", "risk", "move", "damage", "service", "over"


@dataclass(frozen=True)
class RaceState:
    """A race of several cars, one decision or one die at a time.

    phase: WEATHER (chance: the marker's next sector), GEAR (decision of car `turn`), RISK
    (chance: the risk die), MOVE (decision), DAMAGE (chance: the die of the next check),
    SERVICE (decision: tyres), OVER. `finish_rounds[i]` is the round car i finished in.
    """

    course: Course
    cars: tuple[Car, ...]
    states: tuple[CarState, ...]
    round: int = 0
    sector: int = 0
    phase: str = WEATHER
    turn: int = -1
    gear: int = 0
    risk: int = 0
    die: int = 0
    move: Move | None = None
    checks: tuple[tuple[int, int], ...] = ()  # (space, difference) still to roll
    result: MoveResult | None = None
    finish_rounds: tuple[int | None, ...] = ()
    log: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @staticmethod
    def start(course: Course, cars: tuple[Car, ...], tyres: tuple[Tyres, ...] | None = None) -> RaceState:
        for car in cars:
            car.check(course)
        tyres = tyres or tuple(Tyres.NORMAL for _ in cars)
        return RaceState(
            course=course,
            cars=tuple(cars),
            states=tuple(CarState(tyres=t) for t in tyres),
            sector=course.chart.start,
            finish_rounds=tuple(None for _ in cars),
        )

    # -- queries

    def weather(self) -> WeatherSector:
        return sector_of(self.course, self.sector)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance(self) -> bool:
        return self.phase in (WEATHER, RISK, DAMAGE)

    def current_player(self) -> int:
        return self.turn

    def passing(self, car: int) -> dict[int, int]:
        """Cars on the road per space, other than `car`: what passing them costs."""
        out: dict[int, int] = {}
        for i, s in enumerate(self.states):
            if i != car and s.on_road(self.course):
                out[s.position] = out.get(s.position, 0) + 1
        return out

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        """The weather marker's next sector or a die, as exact pairs; () at a decision and at
        the end (the engine protocol, :class:`sheetgen.engine.EngineState`)."""
        if self.phase == WEATHER:
            return weather_outcomes(self.course.chart, self.sector)
        if self.phase in (RISK, DAMAGE):
            return risk_outcomes()
        return ()

    def legal_actions(self) -> tuple[Action, ...]:
        if self.phase not in (GEAR, MOVE, SERVICE):
            return ()
        if self.turn < 0:
            raise RulesError(f"no car's turn in phase {self.phase}")
        state = self.states[self.turn]
        if self.phase == GEAR:
            return tuple(GearAction(g) for g in legal_gears(state))
        if self.phase == MOVE:
            return legal_moves(self.course, self.cars[self.turn], state, self.gear, self.weather())
        return tuple(
            ServiceAction(t)
            for t in service_options(self.course, self.cars[self.turn], state, self.gear, self.move_result())
        )

    def driven_move(self) -> Move:
        """The move being driven (phases DAMAGE and SERVICE)."""
        if self.move is None:
            raise RulesError(f"no move in phase {self.phase}")
        return self.move

    def move_result(self) -> MoveResult:
        """What the move did (phase SERVICE)."""
        if self.result is None:
            raise RulesError(f"no move result in phase {self.phase}")
        return self.result

    # -- transitions

    def apply(self, action: Any) -> RaceState:
        """Apply a chance outcome (an int) or a decision (an Action)."""
        if self.phase == OVER:
            raise RulesError("the race is over")
        if self.is_chance():
            if action not in {o for o, _ in self.chance_outcomes()}:
                raise RulesError(f"{action!r} is not a possible outcome in phase {self.phase}")
            return getattr(self, f"_on_{self.phase}")(action)
        if action not in self.legal_actions():
            raise RulesError(f"{action!r} is not legal in phase {self.phase} for car {self.turn + 1}")
        return getattr(self, f"_on_{self.phase}")(action)

    def _note(self, *event: Any) -> tuple[Any, ...]:
        return self.log + (event,)

    def _on_weather(self, sector: int) -> RaceState:
        r = self.round + 1
        s = replace(self, round=r, sector=sector, turn=-1, log=self._note("weather", r, sector))
        return s._next_car()

    def _next_car(self) -> RaceState:
        """The next car to play this round, skipping (and advancing) halted cars."""
        s = self
        started = min(s.round, len(s.cars))
        i = s.turn + 1
        while i < started:
            st = s.states[i]
            if st.eliminated or st.finished(s.course):
                i += 1
                continue
            if st.halt:
                s = s._set(i, sit_out(st))
                s = replace(s, log=s._note("halt", s.round, i, st.halt - 1))
                i += 1
                continue
            return replace(s, phase=GEAR, turn=i)
        if all(st.eliminated or st.finished(s.course) for st in s.states):
            return replace(s, phase=OVER, turn=-1)
        return replace(s, phase=WEATHER, turn=-1)

    def _set(self, i: int, state: CarState) -> RaceState:
        return replace(self, states=self.states[:i] + (state,) + self.states[i + 1 :])

    def _on_gear(self, action: GearAction) -> RaceState:
        return replace(self, phase=RISK, gear=action.gear)

    def _on_risk(self, die: int) -> RaceState:
        car = self.cars[self.turn]
        risk = risk_factor(self.course.tables, self.gear, die, car.assistance, self.weather())
        return replace(
            self, phase=MOVE, die=die, risk=risk, log=self._note("risk", self.round, self.turn, self.gear, die, risk)
        )

    def _on_move(self, move: Move) -> RaceState:
        state = self.states[self.turn]
        checks = tuple(
            (space, f - self.risk)
            for space, f in entered_factors(self.course, state, move, self.weather().weather, self.passing(self.turn))
            if f > self.risk
        )
        s = replace(self, move=move, checks=checks, log=self._note("move", self.round, self.turn, state.position, move))
        if not checks:
            return s._moved(end_of_move(self.course, state, move))
        return replace(s, phase=DAMAGE)

    def _on_damage(self, die: int) -> RaceState:
        (space, diff), rest = self.checks[0], self.checks[1:]
        rolled = damage(self.course.tables, diff, die)
        s = replace(self, checks=rest, log=self._note("damage", self.round, self.turn, space, diff, die, rolled))
        result = check_result(self.course, self.cars[self.turn], space, rolled)
        if result is not None:
            return s._moved(result)
        if rest:
            return s
        return s._moved(end_of_move(self.course, self.states[self.turn], self.driven_move()))

    def _moved(self, result: MoveResult) -> RaceState:
        s = replace(self, result=result, checks=())
        options = service_options(self.course, self.cars[self.turn], self.states[self.turn], self.gear, result)
        if len(options) > 1:
            return replace(s, phase=SERVICE)
        return s._on_service(ServiceAction(None))

    def _on_service(self, action: ServiceAction) -> RaceState:
        i = self.turn
        result = self.move_result()
        new = next_state(self.states[i], self.gear, result, action.tyres)
        s = self._set(i, new)
        s = replace(s, log=s._note("end", s.round, i, result, action.tyres))
        if result.kind == "finished":
            s = replace(s, finish_rounds=s.finish_rounds[:i] + (s.round,) + s.finish_rounds[i + 1 :])
        s = replace(s, move=None, result=None, gear=0, die=0, risk=0)
        return s._next_car()
