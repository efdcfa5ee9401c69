"""Exact analysis of a Rally Risk race for one car: dynamic programming over engine states.

State (between two rounds): position, last gear (0: next move in 1st), turns at a halt,
tyres, whether the R.P.M. card is still held, and the weather sector. Each round costs 1;
finishing costs nothing more; elimination costs `penalty` rounds (default
:data:`DEFAULT_PENALTY`) instead of the rounds still to go. The policy minimises the
expected cost: expected rounds + penalty * P(elimination). The penalty is the price of a
destroyed car in rounds: the higher it is, the more careful the policy.

Why one backward sweep is exact: a move always advances at least one space, and a car that
does not move (a halt) counts its halt down, so states are ordered by (position, halt).
Every transition comes from the rules engine (:mod:`sheetgen.games.rally_risk.rules`); the
solver only caches what the engine returned. Within a turn the driver decides with what he
knows: the gear before the die, the move (spaces and brakings) after the risk die, a tyre
change after the move. Ties within :data:`TIE` go to the first option in the engine's order
(lower gear; longer move; no tyre change), so results never depend on dict order. The sweep
prices all the moves of a position together, through the engine's check trees
(:func:`rules.check_tree`), adding the same terms in the same order as pricing each move
alone would: the figures are the same to the last bit (see :class:`Solution`).

This module is the backward solve; the policy's forward figures (expected rounds, the chance
of elimination, the finishing round's distribution) are :mod:`forward`'s, and the analysis
below (mechanics, every assistance, finishability) is :mod:`analysis`'s.

Mechanics: their placement is a choice before the race. The analysis first solves without
mechanics, then estimates for every space what a repair there would save under that
policy (probability of each damage times the rounds the repair saves) and takes the 3
spaces that save most together by that estimate (:func:`place_mechanics`, RR-11a); that
placement, solved exactly, seeds an exact branch and bound over every placement
(:func:`place_mechanics_exactly`, RR-30), which proves its placement the best or, its budget
spent, says how much another could still save. A race is
*finishable* when the best assistance's policy (with those mechanics) is eliminated with
probability below `threshold` (default 5%).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeGuard

from sheetgen import solvers
from sheetgen.games.rally_risk import accel, rules
from sheetgen.games.rally_risk.model import DIE, GEARS, MAX_GEAR, Assistance, Outcome, Race, Tyres
from sheetgen.games.rally_risk.rules import Car, CarState, Course, Move

#: Rounds an elimination costs (instead of the rounds still to go).
DEFAULT_PENALTY = 50.0
#: A race is finishable when P(elimination) under the best policy is below this.
DEFAULT_THRESHOLD = 0.05
#: Values closer than this are ties.
TIE = 1e-12
#: The finishing-round distribution stops once less than this probability is still on the
#: road (it cannot move a percentile, which needs 1e-9).
ROUNDS_TAIL = 1e-15

TYRES = tuple(Tyres)
_HALT0 = MAX_GEAR + 1  # state index of "halted 1 turn"; halted h turns is _HALT0 + h - 1
_SLOTS = _HALT0 + 3  # state indices per position: gears 0..5, halted 1..3 turns
_OUTCOME_ORDER = tuple(Outcome)  # a damage's index in the sweep's damage slots
_OUTCOMES = len(_OUTCOME_ORDER)


def _gs(halt: int) -> int:
    """State gear slot of a car that stopped with `halt` turns to sit out (0: none)."""
    return 0 if halt == 0 else _HALT0 + halt - 1


@dataclass(frozen=True)
class Figures:
    expected_rounds: float
    elimination_probability: float
    expected_cost: float


def _sums(steps: tuple, damage: list[float]) -> list[float]:
    """The expected cost gathered along every step of a move tree (see :meth:`Solution.tree`):
    sums[i] for step i, 0.0 at the start. A step adds its terms, in the engine's order, to
    the running total of the step it goes on from: bit for bit the total that a loop over
    one move's outcomes has reached after them, for every move that makes those checks."""
    sums = [0.0]
    append = sums.append
    for parent, probs, slots in steps:
        s = sums[parent]
        for prob, slot in zip(probs, slots):
            s += prob * damage[slot]
        append(s)
    return sums


def _pick(sums: list[float], leaves: tuple, end: list[float]) -> tuple[float, int]:
    """(value, move index) of the best leaf, first of ties: each leaf adds its normal end,
    last, to its step's total, as the loop over the move's outcomes does. A finish (and a
    move no car gets through) reads end[finish] = 0.0: adding 0.0 to a total >= 0 changes
    nothing, as skipping it does."""
    best_v = bar = math.inf  # bar: best_v - TIE, what a move must beat
    best_i = -1
    for step, prob, q, i in leaves:
        v = sums[step] + prob * end[q]
        if v < bar:
            best_v, best_i, bar = v, i, v - TIE
    return best_v, best_i


def _whole(x: object, lo: int, hi: int) -> TypeGuard[int]:
    return isinstance(x, int) and lo <= x <= hi


class _Table(Mapping):
    """A read-only dict over the flat lists of a :class:`Solution`: `locate(key)` gives
    (list, index) or raises KeyError, `keys()` yields every key. The sweep fills lists, not
    dicts: a key tuple per state costs more than the arithmetic, and hundreds of thousands
    of long-lived tuples holding a Tyres each are as many objects for every full garbage
    collection to walk through."""

    __slots__ = ("_locate", "_keys")

    def __init__(self, locate: Callable[[tuple], tuple[list, int]], keys: Callable[[], Iterator[tuple]]):
        self._locate = locate
        self._keys = keys

    def __getitem__(self, key: tuple):
        store, i = self._locate(key)
        return store[i]

    def __iter__(self) -> Iterator[tuple]:
        return self._keys()

    def __len__(self) -> int:
        return sum(1 for _ in self._keys())


class Solution:
    """Values and choices of the optimal policy for one car set-up. Queried by the
    simulator (through :class:`Policy`) and by the forward evaluation.

    V[(p, gear slot, tyres, card, sector)], gear_choice[(p, gear, tyres, card, sector)],
    move_choice[(p, gear, tyres, card, sector, risk)], END and end_choice[(q, gear, tyres,
    card, sector)], OFF and off_choice[(q, halt, repaired, tyres, card, sector)] read like
    dicts (see :class:`_Table`).

    The sweep prices the moves of a position through move trees (:meth:`tree`), so that a
    check several moves make is priced once, and reads and writes flat lists per context
    (tyres, card, sector). It adds exactly the same products in exactly the same order as
    a loop over each move's :func:`rules.move_outcomes` does, so every value and every
    choice is the same to the last bit."""

    def __init__(self, course: Course, car: Car, penalty: float, upto: tuple[int, ...] | None = None):
        car.check(course)
        self.course = course
        self.car = car
        self.penalty = penalty
        #: the relaxation of :func:`place_mechanics_exactly` (None: the car's own mechanics):
        #: upto[q] mechanics stand within reach of space q, and after damage there the driver
        #: may have any 0..upto[q] of them repair it; it prices, it does not play
        self.upto = upto
        chart = course.chart
        self.nsectors = nw = len(chart.sectors)
        self.wnext = tuple(tuple((w2, float(p)) for w2, p in rules.weather_outcomes(chart, w)) for w in range(nw))
        self.sector = tuple(rules.sector_of(course, w) for w in range(nw))
        # risk factor per (gear, sector): ((R, probability), ...) merged over the die
        self.risks: dict[tuple[int, int], tuple[tuple[int, float], ...]] = {}
        for g in GEARS:
            for w, sec in enumerate(self.sector):
                merged: dict[int, int] = {}
                for d in DIE:
                    r = rules.risk_factor(course.tables, g, d, car.assistance, sec)
                    merged[r] = merged.get(r, 0) + 1
                self.risks[(g, w)] = tuple(sorted((r, n / 6) for r, n in merged.items()))
        if upto is None:
            self.reach = tuple(car.in_reach(s) > 0 for s in range(course.finish + 1))
        else:
            self.reach = tuple(s <= course.length and upto[s] > 0 for s in range(course.finish + 1))
        self.ranges = {
            (g, t, w): rules.movement_range(course, car, CarState(tyres=t), g, sec)
            for g in GEARS
            for t in Tyres
            for w, sec in enumerate(self.sector)
        }
        self._gear_options = {(g, c): self._engine_gear_options(g, c) for g in range(0, MAX_GEAR + 1) for c in (0, 1)}
        # legal moves depend on the position and the movement range only: every car of
        # the course shares them
        self._moves: dict[tuple[int, int, int], tuple[Move, ...]] = course.shared("solver moves")
        self._outcomes: dict[tuple, tuple] = {}
        #: the compiled kernel, where it is built: the same trees and prices to the bit (accel)
        self._kernel = accel.kernel()
        self._setup_tables()
        self.V = _Table(self._locate_v, self._keys_v)
        self.gear_choice = _Table(self._locate_gear, self._keys_gear)
        self.move_choice = _Table(self._locate_move, self._keys_move)
        self.END = _Table(lambda key: self._locate_end(key, self._end), self._keys_end)
        self.end_choice = _Table(lambda key: self._locate_end(key, self._end_tyres), self._keys_end)
        self.OFF = _Table(lambda key: self._locate_off(key, self._off), self._keys_off)
        self.off_choice = _Table(lambda key: self._locate_off(key, self._off_tyres), self._keys_off)
        # (the trees and tables are many small objects in no cycle: collections cost a third)
        with solvers.collector_paused():
            self._solve()
        self.start_tyres, self.start_cost = self._start()

    def _setup_tables(self) -> None:
        """The flat lists of the sweep, per context ci = (tyres index * 2 + card) * sectors
        + sector: _v[ci][p * _SLOTS + gear slot] = V; _gear[ci][p * 6 + gear] = gear choice;
        _move[ci][(p * 6 + gear) * risks + risk index] = move choice; _end[g2][ci][q] = END
        (q = finish reads 0.0: nothing more to pay) and _end_tyres its tyre choice;
        _off[ci][q * 8 + halt * 2 + repaired] = OFF (its last entry the penalty) and
        _off_tyres its tyre choice; _damage[ci][space * _OUTCOMES + rolled] = the value
        after rolling that damage there (OFF or the penalty, as the engine's check_result
        for this car says).

        And the plans: per (tyres, sector), the risk factors the gears can roll there, each
        with the gears (and their probability of rolling it) whose moves share one tree."""
        course, car, nw = self.course, self.car, self.nsectors
        n, contexts = course.length, len(TYRES) * 2 * nw
        self._risk_index = {r: i for i, r in enumerate(sorted({r for rs in self.risks.values() for r, _p in rs}))}
        nr = len(self._risk_index)
        self._v = [[0.0] * ((n + 1) * _SLOTS) for _ in range(contexts)]
        self._gear: list[list[int | None]] = [[None] * ((n + 1) * (MAX_GEAR + 1)) for _ in range(contexts)]
        self._move: list[list[Move | None]] = [[None] * ((n + 1) * (MAX_GEAR + 1) * nr) for _ in range(contexts)]
        self._end: list[list[list[float]]] = [[]] + [[[0.0] * (n + 2) for _ in range(contexts)] for _g in GEARS]
        self._end_tyres: list[list[list[Tyres | None]]] = [[]] + [
            [[None] * (n + 2) for _ in range(contexts)] for _g in GEARS
        ]
        self._off = [[0.0] * ((n + 1) * 8) + [self.penalty] for _ in range(contexts)]
        self._off_tyres: list[list[Tyres | None]] = [[None] * ((n + 1) * 8) for _ in range(contexts)]
        self._damage = [[0.0] * ((n + 1) * _OUTCOMES) for _ in range(contexts)]
        eliminated = (n + 1) * 8
        self._damages: list[tuple[tuple[int, int], ...]] = [()]
        #: per space, under the relaxation (upto): (damage slot, the OFF slots to choose from)
        self._choices: list[tuple[tuple[int, tuple[int, ...]], ...]] = [()]
        upto = self.upto
        for q in range(1, n + 1):
            pairs = []
            choices = []
            for k, rolled in enumerate(_OUTCOME_ORDER):
                r = rules.check_result(course, car, q, rolled)
                if r is None:
                    continue
                if r.kind == "eliminated":
                    pairs.append((q * _OUTCOMES + k, eliminated))
                elif upto is None or upto[q] == 0:
                    pairs.append((q * _OUTCOMES + k, q * 8 + r.halt * 2 + r.repaired))
                else:
                    slots = []
                    for m in range(upto[q] + 1):
                        fixed = rules.repair(rolled, m)
                        slot = q * 8 + fixed.halt * 2 + (fixed is not rolled)
                        if slot not in slots:
                            slots.append(slot)
                    choices.append((q * _OUTCOMES + k, tuple(slots)))
            self._damages.append(tuple(pairs))
            self._choices.append(tuple(choices))
        # V = 1 + the weather's mix of the values after it: sum() of one or two terms, that
        # is (pa * x[wa] + pb * x[wb]); a marker that cannot move has pb = 0.0, and adding
        # 0.0 * x = 0.0 to a value >= 0 changes nothing
        assert all(1 <= len(ws) <= 2 for ws in self.wnext)
        self._mix = tuple((ws[0][0], ws[0][1], ws[-1][0], ws[1][1] if len(ws) > 1 else 0.0) for ws in self.wnext)
        # every car of the course shares the trees: they do not depend on the car (see
        # rules.check_tree) once the risk factor and the movement range are known, and
        # weathers and tyres that leave every factor alike give the same ones
        trees = course.shared("solver trees")
        plans = []
        for t in TYRES:
            for w, sec in enumerate(self.sector):
                row = course.row_key(sec.weather, t)
                plan = []
                for risk in sorted({r for g2 in GEARS for r, _p in self.risks[(g2, w)]}):
                    gears = tuple((g2, pr) for g2 in GEARS for r, pr in self.risks[(g2, w)] if r == risk)
                    key = (row, risk, tuple(self.ranges[(g2, t, w)] for g2, _pr in gears))
                    plan.append((risk, self._risk_index[risk], gears, trees.setdefault(key, {})))
                plans.append(tuple(plan))
        self._plans = tuple(plans)

    # -- the tables as dicts

    def _context(self, key: tuple, t: object, c: object, w: object) -> int:
        ti = TYRES.index(t) if isinstance(t, Tyres) else -1
        if ti < 0 or not _whole(c, 0, 1) or not _whole(w, 0, self.nsectors - 1):
            raise KeyError(key)
        return (ti * 2 + c) * self.nsectors + w

    @staticmethod
    def _unpack(key: object, size: int) -> tuple:
        if type(key) is not tuple or len(key) != size:
            raise KeyError(key)
        return key

    def _locate_v(self, key: tuple) -> tuple[list, int]:
        p, gs, t, c, w = self._unpack(key, 5)
        ci = self._context(key, t, c, w)
        if not (_whole(p, 0, self.course.length) and _whole(gs, 0, _SLOTS - 1)):
            raise KeyError(key)
        return self._v[ci], p * _SLOTS + gs

    def _locate_gear(self, key: tuple) -> tuple[list, int]:
        p, g, t, c, w = self._unpack(key, 5)
        ci = self._context(key, t, c, w)
        if not (_whole(p, 0, self.course.length) and _whole(g, 0, MAX_GEAR)):
            raise KeyError(key)
        return self._gear[ci], p * (MAX_GEAR + 1) + g

    def _locate_move(self, key: tuple) -> tuple[list, int]:
        p, g2, t, c, w, risk = self._unpack(key, 6)
        ci = self._context(key, t, c, w)
        if not (
            _whole(p, 0, self.course.length)
            and _whole(g2, 1, MAX_GEAR)
            and any(r == risk for r, _p in self.risks[(g2, w)])
        ):
            raise KeyError(key)
        return self._move[ci], (p * (MAX_GEAR + 1) + g2) * len(self._risk_index) + self._risk_index[risk]

    def _locate_end(self, key: tuple, table: list) -> tuple[list, int]:
        q, g2, t, c, w = self._unpack(key, 5)
        ci = self._context(key, t, c, w)
        if not (_whole(q, 0, self.course.length) and _whole(g2, 1, MAX_GEAR)):
            raise KeyError(key)
        return table[g2][ci], q

    def _locate_off(self, key: tuple, table: list) -> tuple[list, int]:
        q, halt, repaired, t, c, w = self._unpack(key, 6)
        ci = self._context(key, t, c, w)
        if not (_whole(q, 0, self.course.length) and _whole(halt, 0, 3) and _whole(repaired, 0, 1)):
            raise KeyError(key)
        return table[ci], q * 8 + halt * 2 + repaired

    def _keys_v(self) -> Iterator[tuple]:
        for p in range(self.course.length, -1, -1):
            for t in TYRES:
                for c in (0, 1):
                    for gs in range(_SLOTS):
                        for w in range(self.nsectors):
                            yield (p, gs, t, c, w)

    def _keys_gear(self) -> Iterator[tuple]:
        for p in range(self.course.length, -1, -1):
            for t in TYRES:
                for c in (0, 1):
                    for g in range(0, MAX_GEAR + 1):
                        for w in range(self.nsectors):
                            yield (p, g, t, c, w)

    def _keys_move(self) -> Iterator[tuple]:
        for p in range(self.course.length, -1, -1):
            for t in TYRES:
                for w in range(self.nsectors):
                    for c in (0, 1):
                        for g2 in GEARS:
                            for risk, _pr in self.risks[(g2, w)]:
                                yield (p, g2, t, c, w, risk)

    def _keys_end(self) -> Iterator[tuple]:
        for q in range(self.course.length, -1, -1):
            for t in TYRES:
                for c in (0, 1):
                    for w in range(self.nsectors):
                        for g2 in GEARS:
                            yield (q, g2, t, c, w)

    def _keys_off(self) -> Iterator[tuple]:
        for q in range(self.course.length, -1, -1):
            for t in TYRES:
                for c in (0, 1):
                    for w in range(self.nsectors):
                        for halt in (0, 1, 2, 3):
                            for repaired in (False, True):
                                yield (q, halt, repaired, t, c, w)

    # -- engine access, cached

    def state(self, p: int, gs: int, t: Tyres, card: int) -> CarState:
        if gs >= _HALT0:
            return CarState(p, 0, gs - _HALT0 + 1, t, bool(card))
        return CarState(p, gs, 0, t, bool(card))

    def moves(self, p: int, g2: int, t: Tyres, w: int) -> tuple[Move, ...]:
        lo, hi = self.ranges[(g2, t, w)]
        key = (p, lo, hi)
        got = self._moves.get(key)
        if got is None:
            got = self._moves[key] = rules.legal_moves(
                self.course, self.car, self.state(p, g2, t, 1), g2, self.sector[w]
            )
        return got

    def outcomes(self, p: int, t: Tyres, w: int, risk: int, move: Move, passing: dict | None = None) -> tuple:
        """((kind, position, halt, repaired, probability), ...) of a move, from the engine
        (kept when nobody is passed)."""
        key = (p, t, w, risk, move)
        got = None if passing else self._outcomes.get(key)
        if got is None:
            got = tuple(
                (r.kind, r.position, r.halt, r.repaired, prob)
                for r, prob in rules.move_outcomes(
                    self.course,
                    self.car,
                    CarState(p, 1, 0, t),
                    risk,
                    move,
                    self.sector[w].weather,
                    passing,
                    exact=False,
                )
            )
            if not passing:
                self._outcomes[key] = got
        return got

    def tree(
        self, p: int, t: Tyres, w: int, risk: int, gears: tuple[int, ...]
    ) -> tuple[tuple, tuple[tuple, ...], tuple[tuple[Move, ...], ...]]:
        """The moves from p in each of `gears` after rolling `risk` (tyres t, sector w),
        from the engine's :func:`rules.check_tree` of all of them, ready to price: (steps,
        leaves per gear, moves per gear). steps[i - 1] = (parent, (probability, ...),
        (damage slot, ...)) for step i. A leaf (step, probability, q, move index) is a
        move's last step and its normal end on q (the finish, with probability 0.0, when no
        car gets through). Moves with the same leaf have the same value: only the first of
        them is kept, the one the first-of-ties rule picks."""
        course = self.course
        key = (course.row_key(self.sector[w].weather, t), risk, tuple(self.ranges[(g2, t, w)] for g2 in gears))
        by_p = course.shared("solver trees").setdefault(key, {})
        got = by_p.get(p)
        if got is None:
            got = by_p[p] = self._build_tree(p, t, w, risk, gears)
        return got

    def _build_tree(
        self, p: int, t: Tyres, w: int, risk: int, gears: tuple[int, ...]
    ) -> tuple[tuple, tuple[tuple, ...], tuple[tuple[Move, ...], ...]]:
        # Trees live as long as the course, so they are kept shallow: tuples of numbers
        # (a step's probabilities, its slots; a leaf) that the garbage collector stops
        # tracking as soon as it sees them, instead of walking them in every full collection.
        per_gear = [self.moves(p, g2, t, w) for g2 in gears]
        if self._kernel is not None:
            course = self.course
            steps, leaves = accel.check_tree(
                self._kernel, course, course.row(self.sector[w].weather, t), p, risk, per_gear, _OUTCOME_ORDER
            )
            return steps, leaves, tuple(per_gear)
        return self._reference_tree(p, t, w, risk, per_gear)

    def _reference_tree(
        self, p: int, t: Tyres, w: int, risk: int, per_gear: list[tuple[Move, ...]]
    ) -> tuple[tuple, tuple[tuple, ...], tuple[tuple[Move, ...], ...]]:
        """:meth:`_build_tree` in Python: the reference of the compiled kernel's tree."""
        course = self.course
        weather = self.sector[w].weather
        every = tuple([m for moves in per_gear for m in moves])  # check_tree walks each move once
        steps, ends = rules.check_tree(course, CarState(p, 1, 0, t), risk, every, weather, exact=False)
        coded = tuple(
            [
                (
                    parent,
                    tuple([prob for _rolled, prob in damages]),
                    tuple([space * _OUTCOMES + _OUTCOME_ORDER.index(rolled) for rolled, _prob in damages]),
                )
                for parent, space, damages in steps[1:]
            ]
        )
        leaves = []
        first = 0  # where the gear's moves start in `every`
        for moves in per_gear:
            index: dict[tuple, int] = {}  # leaf -> its first move, in the moves' order
            for i, (step, end) in enumerate(ends[first : first + len(moves)]):
                index.setdefault((step, 0.0, course.finish) if end is None else (step, end[1], end[0].position), i)
            leaves.append(tuple([leaf + (i,) for leaf, i in index.items()]))
            first += len(moves)
        return coded, tuple(leaves), tuple(per_gear)

    # -- values after a move (final once every state at q is solved)

    def _post_values(self, q: int) -> None:
        """END and OFF values of position q: stop for tyres or not, and the choice."""
        vf, offf, damagef, nw = self._v, self._off, self._damage, self.nsectors
        reach = self.reach[q]
        at = q * _SLOTS
        ends = [(at + g2, g2 <= 2 and reach, self._end[g2], self._end_tyres[g2]) for g2 in GEARS]
        # per (halt, repaired): own slot, and the slot after a tyre change (None: no change)
        offs = [
            (at + _gs(halt), at + _gs(halt + repaired) if reach and halt + repaired <= 3 else None)
            for halt in (0, 1, 2, 3)
            for repaired in (False, True)
        ]
        damages, choices = self._damages[q], self._choices[q]
        for ti, t in enumerate(TYRES):
            others = [(t2, i2) for i2, t2 in enumerate(TYRES) if t2 is not t]
            for c in (0, 1):
                for w in range(nw):
                    ci = (ti * 2 + c) * nw + w
                    mine = vf[ci]
                    alts = [(t2, vf[(i2 * 2 + c) * nw + w]) for t2, i2 in others]
                    for slot, stop, endf, end_tyres in ends:
                        best, choice = mine[slot], None
                        if stop:
                            for t2, vs in alts:
                                v = vs[at]
                                if v < best - TIE:
                                    best, choice = v, t2
                        endf[ci][q] = best
                        end_tyres[ci][q] = choice
                    off, off_tyres = offf[ci], self._off_tyres[ci]
                    k = q * 8
                    for slot, stop_slot in offs:
                        best, choice = mine[slot], None
                        if stop_slot is not None:
                            for t2, vs in alts:
                                v = vs[stop_slot]
                                if v < best - TIE:
                                    best, choice = v, t2
                        off[k] = best
                        off_tyres[k] = choice
                        k += 1
                    damage = damagef[ci]
                    for d, o in damages:
                        damage[d] = off[o]
                    for d, os in choices:
                        damage[d] = min(off[o] for o in os)

    def end_value(self, q: int, g2: int, t: Tyres, c: int, w: int) -> tuple[float, Tyres | None]:
        """A car that ended its move normally on q in gear g2: stop for tyres or not."""
        key = (q, g2, t, c, w)
        return self.END[key], self.end_choice[key]

    def off_value(self, q: int, halt: int, repaired: bool, t: Tyres, c: int, w: int) -> tuple[float, Tyres | None]:
        """A car that went off the road on q with `halt` turns to sit out."""
        key = (q, halt, repaired, t, c, w)
        return self.OFF[key], self.off_choice[key]

    def best_move(
        self, p: int, g2: int, t: Tyres, c: int, w: int, risk: int, passing: dict | None = None
    ) -> tuple[float, Move]:
        """The move with the least expected cost after rolling `risk` (first of ties).
        `passing` (cars on the road per space) makes the engine price passing them."""
        if not passing:
            ci = self._context((p, g2, t, c, w, risk), t, c, w)
            steps, (leaves,), (moves,) = self.tree(p, t, w, risk, (g2,))
            v, i = _pick(_sums(steps, self._damage[ci]), leaves, self._end[g2][ci])
            return v, moves[i]
        moves = self.moves(p, g2, t, w)
        lists = tuple(self.outcomes(p, t, w, risk, m, passing) for m in moves)
        END, OFF, penalty = self.END, self.OFF, self.penalty
        best_v, best_m = math.inf, None
        for move, outs in zip(moves, lists):
            v = 0.0
            for kind, q, halt, repaired, prob in outs:
                if kind == "moved":
                    v += prob * END[(q, g2, t, c, w)]
                elif kind == "off":
                    v += prob * OFF[(q, halt, repaired, t, c, w)]
                elif kind == "eliminated":
                    v += prob * penalty
            if v < best_v - TIE:
                best_v, best_m = v, move
        if best_m is None:  # (every gear has a move)
            raise rules.RulesError(f"no move in gear {g2} from space {p}")
        return best_v, best_m

    def _engine_gear_options(self, g: int, c: int) -> tuple[tuple[int, int], ...]:
        state = CarState(1, g, 0, Tyres.NORMAL, bool(c))
        return tuple((g2, 0 if rules.uses_rpm_card(state, g2) else c) for g2 in rules.legal_gears(state))

    def gear_options(self, g: int, c: int) -> tuple[tuple[int, int], ...]:
        """(gear, card after) the engine allows after gear g (0: forced 1st)."""
        return self._gear_options[(g, c)]

    # -- the sweep

    def _solve(self) -> None:
        if self._kernel is not None:
            self._compiled_sweep()
            return
        course = self.course
        nw = self.nsectors
        W = range(nw)
        vf, endf, damagef = self._v, self._end, self._damage
        plans, mix = self._plans, self._mix
        nr = len(self._risk_index)
        contexts = len(vf)
        inf = math.inf
        for p in range(course.length, -1, -1):
            # q_bar[g2][ci]: expected cost of a turn in gear g2, before the risk die
            q_bar: list[list[float]] = [[]] + [[0.0] * contexts for _g in GEARS]
            for ti, t in enumerate(TYRES):
                for w in W:
                    # both card states play the same moves: one pass prices the two
                    c0, c1 = ti * 2 * nw + w, (ti * 2 + 1) * nw + w
                    d0, d1 = damagef[c0], damagef[c1]
                    m0, m1 = self._move[c0], self._move[c1]
                    total0, total1 = [0.0] * (MAX_GEAR + 1), [0.0] * (MAX_GEAR + 1)
                    for risk, ri, gears, by_p in plans[ti * nw + w]:
                        tree = by_p.get(p)
                        if tree is None:
                            tree = by_p[p] = self._build_tree(p, t, w, risk, tuple(g2 for g2, _pr in gears))
                        steps, leaves, gear_moves = tree
                        # _sums, for both
                        sums0, sums1 = [0.0], [0.0]
                        for parent, probs, slots in steps:
                            s0, s1 = sums0[parent], sums1[parent]
                            for prob, slot in zip(probs, slots):
                                s0 += prob * d0[slot]
                                s1 += prob * d1[slot]
                            sums0.append(s0)
                            sums1.append(s1)
                        for (g2, pr), mine, moves in zip(gears, leaves, gear_moves):
                            # _pick, for both
                            e0, e1 = endf[g2][c0], endf[g2][c1]
                            best0 = bar0 = best1 = bar1 = inf
                            i0 = i1 = -1
                            for step, prob, q, i in mine:
                                v = sums0[step] + prob * e0[q]
                                if v < bar0:
                                    best0, i0, bar0 = v, i, v - TIE
                                v = sums1[step] + prob * e1[q]
                                if v < bar1:
                                    best1, i1, bar1 = v, i, v - TIE
                            k = (p * (MAX_GEAR + 1) + g2) * nr + ri
                            m0[k], m1[k] = moves[i0], moves[i1]
                            # risks come in increasing order, as risks[(g2, w)] lists them
                            total0[g2] += pr * best0
                            total1[g2] += pr * best1
                    for g2 in GEARS:
                        q_bar[g2][c0] = total0[g2]
                        q_bar[g2][c1] = total1[g2]
            at = p * _SLOTS
            for ti in range(len(TYRES)):
                for c in (0, 1):
                    base = (ti * 2 + c) * nw
                    for g in range(0, MAX_GEAR + 1):
                        options = [(g2, q_bar[g2], (ti * 2 + c2) * nw) for g2, c2 in self._gear_options[(g, c)]]
                        u = []
                        k = p * (MAX_GEAR + 1) + g
                        for w in W:
                            best_v = bar = inf
                            best_g = None
                            for g2, qb, base2 in options:
                                v = qb[base2 + w]
                                if v < bar:
                                    best_v, best_g, bar = v, g2, v - TIE
                            u.append(best_v)
                            self._gear[base + w][k] = best_g
                        for w, (wa, pa, wb, pb) in enumerate(mix):
                            vf[base + w][at + g] = 1.0 + (pa * u[wa] + pb * u[wb])
                    for h in (1, 2, 3):
                        below, slot = at + _gs(h - 1), at + _gs(h)
                        for w, (wa, pa, wb, pb) in enumerate(mix):
                            vf[base + w][slot] = 1.0 + (pa * vf[base + wa][below] + pb * vf[base + wb][below])
            self._post_values(p)

    def _compiled_sweep(self) -> None:
        """:meth:`_solve` by the compiled kernel (accel): the same sweep over the same lists,
        the same float operations in the same order; the trees come from the same
        :meth:`_build_tree`, asked by the kernel where a plan has none for the position yet."""
        nw, endf = self.nsectors, self._end
        plans = self._plans
        # each plan with the END lists of its gears for the two card states
        priced = [
            tuple(
                (
                    risk,
                    ri,
                    gears,
                    by_p,
                    tuple((endf[g2][ti * 2 * nw + w], endf[g2][(ti * 2 + 1) * nw + w]) for g2, _pr in gears),
                )
                for risk, ri, gears, by_p in plans[ti * nw + w]
            )
            for ti in range(len(TYRES))
            for w in range(nw)
        ]

        def tree_at(p: int, ti: int, w: int, j: int) -> tuple:
            risk, _ri, gears, by_p = plans[ti * nw + w][j]
            by_p[p] = tree = self._build_tree(p, TYRES[ti], w, risk, tuple(g2 for g2, _pr in gears))
            return tree

        self._kernel.sweep(
            self.course.length,
            nw,
            MAX_GEAR,
            len(self._risk_index),
            self._v,
            endf,
            self._end_tyres,
            self._off,
            self._off_tyres,
            self._damage,
            self._gear,
            self._move,
            priced,
            tree_at,
            tuple(self._gear_options[(g, c)] for g in range(0, MAX_GEAR + 1) for c in (0, 1)),
            self._mix,
            self.reach,
            self._damages,
            self._choices,
            TYRES,
        )

    def _start(self) -> tuple[Tyres, float]:
        w0 = self.course.chart.start
        best_t, best_v = None, math.inf
        for t in TYRES:
            v = self.V[(0, 0, t, 1, w0)]
            if v < best_v - TIE:
                best_t, best_v = t, v
        if best_t is None:  # (a start value is finite)
            raise rules.RulesError("no tyres to start with")
        return best_t, best_v


def solve(
    race: Race | Course,
    assistance: Assistance | str = Assistance.PERMANENT,
    mechanics: tuple[int, ...] = (),
    penalty: float = DEFAULT_PENALTY,
) -> Solution:
    course = race if isinstance(race, Course) else Course.of(race)
    return Solution(course, Car(Assistance(assistance), tuple(sorted(mechanics))), penalty)
