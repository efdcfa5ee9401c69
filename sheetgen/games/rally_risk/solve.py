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
(lower gear; longer move; no tyre change), so results never depend on dict order.

Mechanics: their placement is a choice before the race. The analysis first solves without
mechanics, then estimates for every space what a repair there would save under that
policy (probability of each damage times the rounds the repair saves), picks the 1-3
spaces that save most together, and solves again exactly with mechanics there. A race is
*finishable* when the best assistance's policy (with those mechanics) is eliminated with
probability below `threshold` (default 5%).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Iterable

from sheetgen.errors import Problem
from sheetgen.games.rally_risk import rules
from sheetgen.games.rally_risk.model import (
    DIE,
    GEARS,
    MAX_GEAR,
    MAX_MECHANICS,
    MECHANIC_RANGE,
    Assistance,
    Outcome,
    Race,
    Tyres,
)
from sheetgen.games.rally_risk.rules import Car, CarState, Course, Move
from sheetgen.textfmt import pct as _pct
from sheetgen.textfmt import table as _table
from sheetgen.yamlsrc import load_file

#: Rounds an elimination costs (instead of the rounds still to go).
DEFAULT_PENALTY = 50.0
#: A race is finishable when P(elimination) under the best policy is below this.
DEFAULT_THRESHOLD = 0.05
#: Values closer than this are ties.
TIE = 1e-12

TYRES = tuple(Tyres)
_HALT0 = MAX_GEAR + 1  # state index of "halted 1 turn"; halted h turns is _HALT0 + h - 1


def _gs(halt: int) -> int:
    """State gear slot of a car that stopped with `halt` turns to sit out (0: none)."""
    return 0 if halt == 0 else _HALT0 + halt - 1


@dataclass(frozen=True)
class Figures:
    expected_rounds: float
    elimination_probability: float
    expected_cost: float


class Solution:
    """Values and choices of the optimal policy for one car set-up. Queried by the
    simulator (through :class:`Policy`) and by the forward evaluation."""

    def __init__(self, course: Course, car: Car, penalty: float):
        car.check(course)
        self.course = course
        self.car = car
        self.penalty = penalty
        chart = course.chart
        self.nsectors = len(chart.sectors)
        self.wnext = tuple(tuple((w2, float(p)) for w2, p in rules.weather_outcomes(chart, w)) for w in range(self.nsectors))
        self.sector = tuple(rules.sector_of(course, w) for w in range(self.nsectors))
        # risk factor per (gear, sector): ((R, probability), ...) merged over the die
        self.risks: dict[tuple[int, int], tuple[tuple[int, float], ...]] = {}
        for g in GEARS:
            for w, sec in enumerate(self.sector):
                merged: dict[int, int] = {}
                for d in DIE:
                    r = rules.risk_factor(course.tables, g, d, car.assistance, sec)
                    merged[r] = merged.get(r, 0) + 1
                self.risks[(g, w)] = tuple(sorted((r, n / 6) for r, n in merged.items()))
        self.reach = tuple(car.in_reach(s) > 0 for s in range(course.finish + 1))
        self.ranges = {
            (g, t, w): rules.movement_range(course, car, CarState(tyres=t), g, sec)
            for g in GEARS
            for t in Tyres
            for w, sec in enumerate(self.sector)
        }
        self.V: dict[tuple, float] = {}
        self.gear_choice: dict[tuple, int] = {}
        self.move_choice: dict[tuple, Move] = {}
        self.end_choice: dict[tuple, Tyres | None] = {}
        self.off_choice: dict[tuple, Tyres | None] = {}
        self.END: dict[tuple, float] = {}
        self.OFF: dict[tuple, float] = {}
        self._moves: dict[tuple, tuple[Move, ...]] = {}
        memo = course._memo.setdefault(("solver outcomes", car.mechanics), {}) if not car.mechanics else None
        self._outs: dict[tuple, tuple] = memo if memo is not None else {}
        self._solve()
        self.start_tyres, self.start_cost = self._start()

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
            got = self._moves[key] = rules.legal_moves(self.course, self.car, self.state(p, g2, t, 1), g2, self.sector[w])
        return got

    def outcomes(self, p: int, t: Tyres, w: int, risk: int, move: Move, passing: dict | None = None) -> tuple:
        """((kind, position, halt, repaired, probability), ...) of a move, from the engine."""
        return tuple(
            (r.kind, r.position, r.halt, r.repaired, prob)
            for r, prob in rules.move_outcomes(
                self.course, self.car, CarState(p, 1, 0, t), risk, move, self.sector[w].weather, passing, exact=False
            )
        )

    def outcome_lists(self, p: int, g2: int, t: Tyres, w: int, risk: int) -> tuple[tuple, ...]:
        """The outcomes of every legal move (in :meth:`moves` order). Cars without mechanics
        share one cache per course: once the risk factor is known the assistance does not
        matter, and weathers and tyres that leave every factor alike give the same lists."""
        lo, hi = self.ranges[(g2, t, w)]
        key = (p, self.course.row_key(self.sector[w].weather, t), risk, lo, hi)
        got = self._outs.get(key)
        if got is None:
            got = self._outs[key] = tuple(self.outcomes(p, t, w, risk, m) for m in self.moves(p, g2, t, w))
        return got

    # -- values after a move (final once every state at q is solved)

    def _post_values(self, q: int) -> None:
        """END and OFF values of position q: stop for tyres or not, and the choice."""
        V, W = self.V, range(self.nsectors)
        for t in TYRES:
            for c in (0, 1):
                for w in W:
                    for g2 in GEARS:
                        best, choice = V[(q, g2, t, c, w)], None
                        if g2 <= 2 and self.reach[q]:
                            for t2 in TYRES:
                                if t2 is not t:
                                    v = V[(q, 0, t2, c, w)]
                                    if v < best - TIE:
                                        best, choice = v, t2
                        self.END[(q, g2, t, c, w)] = best
                        self.end_choice[(q, g2, t, c, w)] = choice
                    for halt in (0, 1, 2, 3):
                        for repaired in (False, True):
                            best, choice = V[(q, _gs(halt), t, c, w)], None
                            if self.reach[q] and halt + repaired <= 3:
                                h2 = _gs(halt + repaired)
                                for t2 in TYRES:
                                    if t2 is not t:
                                        v = V[(q, h2, t2, c, w)]
                                        if v < best - TIE:
                                            best, choice = v, t2
                            self.OFF[(q, halt, repaired, t, c, w)] = best
                            self.off_choice[(q, halt, repaired, t, c, w)] = choice

    def end_value(self, q: int, g2: int, t: Tyres, c: int, w: int) -> tuple[float, Tyres | None]:
        """A car that ended its move normally on q in gear g2: stop for tyres or not."""
        key = (q, g2, t, c, w)
        return self.END[key], self.end_choice[key]

    def off_value(self, q: int, halt: int, repaired: bool, t: Tyres, c: int, w: int) -> tuple[float, Tyres | None]:
        """A car that went off the road on q with `halt` turns to sit out."""
        key = (q, halt, repaired, t, c, w)
        return self.OFF[key], self.off_choice[key]

    def best_move(self, p: int, g2: int, t: Tyres, c: int, w: int, risk: int, passing: dict | None = None) -> tuple[float, Move]:
        """The move with the least expected cost after rolling `risk` (first of ties).
        `passing` (cars on the road per space) makes the engine price passing them."""
        moves = self.moves(p, g2, t, w)
        if passing:
            lists = tuple(self.outcomes(p, t, w, risk, m, passing) for m in moves)
        else:
            lists = self.outcome_lists(p, g2, t, w, risk)
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
        return best_v, best_m

    def gear_options(self, g: int, c: int) -> tuple[tuple[int, int], ...]:
        """(gear, card after) the engine allows after gear g (0: forced 1st)."""
        state = CarState(1, g, 0, Tyres.NORMAL, bool(c))
        return tuple((g2, 0 if rules.uses_rpm_card(state, g2) else c) for g2 in rules.legal_gears(state))

    # -- the sweep

    def _solve(self) -> None:
        course, V = self.course, self.V
        W = range(self.nsectors)
        for p in range(course.length, -1, -1):
            q_bar: dict[tuple, float] = {}
            for t in TYRES:
                for w in W:
                    for c in (0, 1):
                        for g2 in GEARS:
                            total = 0.0
                            for risk, pr in self.risks[(g2, w)]:
                                v, move = self.best_move(p, g2, t, c, w, risk)
                                self.move_choice[(p, g2, t, c, w, risk)] = move
                                total += pr * v
                            q_bar[(g2, t, c, w)] = total
            for t in TYRES:
                for c in (0, 1):
                    u: dict[tuple[int, int], float] = {}
                    for g in range(0, MAX_GEAR + 1):
                        options = self.gear_options(g, c)
                        for w in W:
                            best_v, best_g = math.inf, None
                            for g2, c2 in options:
                                v = q_bar[(g2, t, c2, w)]
                                if v < best_v - TIE:
                                    best_v, best_g = v, g2
                            u[(g, w)] = best_v
                            self.gear_choice[(p, g, t, c, w)] = best_g
                    for g in range(0, MAX_GEAR + 1):
                        for w in W:
                            V[(p, g, t, c, w)] = 1.0 + sum(pw * u[(g, w2)] for w2, pw in self.wnext[w])
                    for h in (1, 2, 3):
                        below = _gs(h - 1)
                        for w in W:
                            V[(p, _gs(h), t, c, w)] = 1.0 + sum(pw * V[(p, below, t, c, w2)] for w2, pw in self.wnext[w])
            self._post_values(p)

    def _start(self) -> tuple[Tyres, float]:
        w0 = self.course.chart.start
        best_t, best_v = None, math.inf
        for t in TYRES:
            v = self.V[(0, 0, t, 1, w0)]
            if v < best_v - TIE:
                best_t, best_v = t, v
        return best_t, best_v


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Evaluation:
    """Exact figures of the optimal policy from the departure, by forward propagation.

    damage[s] / elimination[s]: P(the car goes off / is eliminated on space s); a car goes
    off on a space at most once (it then moves on from it), so these are probabilities.
    repair_gain[k][s]: rounds of expected cost k mechanics in reach of s would save,
    first order (the policy and tyres held fixed)."""

    figures: Figures
    damage: tuple[float, ...]
    elimination: tuple[float, ...]
    repair_gain: tuple[tuple[float, ...], ...]


def _gain(gain: list[list[float]], sol: Solution, q: int, halt: int, t: Tyres, c: int, w: int, mass: float) -> None:
    """What k = 1..3 mechanics in reach of q would have saved on this halt (first order)."""
    V = sol.V
    base = V[(q, _gs(halt), t, c, w)]
    rolled = {1: Outcome.FIRST, 2: Outcome.SECOND, 3: Outcome.THIRD}[halt]
    for k in range(1, MAX_MECHANICS + 1):
        fixed = rules.repair(rolled, k)
        gain[k][q] += mass * (base - V[(q, _gs(fixed.halt), t, c, w)])


def evaluate(sol: Solution) -> Evaluation:
    course = sol.course
    n = course.length
    # mass[p][(gs, tyres, card, sector)]: probability of standing in that state before a round
    mass: list[dict[tuple, float]] = [{} for _ in range(n + 2)]
    mass[0][(0, sol.start_tyres, 1, course.chart.start)] = 1.0
    rounds = elim = 0.0
    damage = [0.0] * (n + 2)
    eliminated = [0.0] * (n + 2)
    gain = [[0.0] * (n + 2) for _ in range(MAX_MECHANICS + 1)]
    # a halt feeds the next lower halt at the same position, so halts go first, longest first
    order = (_gs(3), _gs(2), _gs(1)) + tuple(range(0, MAX_GEAR + 1))
    for p in range(0, n + 1):
        bucket = mass[p]
        for slot in order:
            keys = sorted((k for k in bucket if k[0] == slot), key=lambda k: (TYRES.index(k[1]), k[2], k[3]))
            for key in keys:
                m = bucket.pop(key)
                gs, t, c, w = key
                rounds += m
                for w2, pw in sol.wnext[w]:
                    mw = m * pw
                    if gs >= _HALT0:
                        nk = (_gs(gs - _HALT0), t, c, w2)
                        bucket[nk] = bucket.get(nk, 0.0) + mw
                        continue
                    g2 = sol.gear_choice[(p, gs, t, c, w2)]
                    c2 = next(cc for gg, cc in sol.gear_options(gs, c) if gg == g2)
                    for risk, pr in sol.risks[(g2, w2)]:
                        move = sol.move_choice[(p, g2, t, c2, w2, risk)]
                        for kind, q, halt, repaired, prob in sol.outcomes(p, t, w2, risk, move):
                            mq = mw * pr * prob
                            if kind == "finished":
                                continue
                            if kind == "eliminated":
                                elim += mq
                                eliminated[q] += mq
                                damage[q] += mq
                                continue
                            if kind == "moved":
                                _v, t2 = sol.end_value(q, g2, t, c2, w2)
                                nk = (g2, t, c2, w2) if t2 is None else (0, t2, c2, w2)
                            else:
                                damage[q] += mq
                                _v, t2 = sol.off_value(q, halt, repaired, t, c2, w2)
                                nk = (_gs(halt), t, c2, w2) if t2 is None else (_gs(halt + repaired), t2, c2, w2)
                                if halt and not repaired:
                                    _gain(gain, sol, q, halt, t, c2, w2, mq)
                            mass[q][nk] = mass[q].get(nk, 0.0) + mq
    figures = Figures(rounds, elim, rounds + sol.penalty * elim)
    return Evaluation(figures, tuple(damage), tuple(eliminated), tuple(tuple(g) for g in gain))


# --------------------------------------------------------------------------- mechanics


def place_mechanics(gain: tuple[tuple[float, ...], ...], length: int, count: int = MAX_MECHANICS) -> tuple[tuple[int, ...], float]:
    """The placement of `count` mechanics (spaces, ascending) with the most estimated gain;
    among equal ones the tightest group (mechanics together repair worse damage), then the
    earliest. Only spaces that reach a space with some gain are tried."""
    r = MECHANIC_RANGE
    useful = [s for s in range(1, length + 1) if any(gain[1][x] > TIE for x in range(max(1, s - r), min(length, s + r) + 1))]
    best: tuple[int, ...] = ()
    best_key = (0.0, 0)
    for combo in combinations_with_replacement(useful, count):
        a, c = combo[0], combo[-1]
        total = 0.0
        for x in range(max(1, a - r), min(length, c + r) + 1):
            k = 0
            for m in combo:
                if -r <= m - x <= r:
                    k += 1
            if k:
                total += gain[k][x]
        if total > best_key[0] + TIE or (best and abs(total - best_key[0]) <= TIE and c - a < best_key[1]):
            best, best_key = combo, (total, c - a)
    return best, best_key[0]


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class SpaceRisk:
    space: int
    section: str
    section_space: int
    factor: int
    ford: bool
    damage_probability: float
    elimination_probability: float


@dataclass(frozen=True)
class AssistanceAnalysis:
    """Figures of the optimal policy for one assistance type.

    mechanics: the spaces the analysis put the mechanics on (or the ones it was given).
    figures: with those mechanics; without_mechanics: the same car with none.
    dangerous: the spaces where the car most often goes off (with the mechanics), worst first.
    mechanic_help: (space, rounds saved) for one mechanic on that space, first-order
        estimate from the policy without mechanics, best first.
    """

    assistance: Assistance
    mechanics: tuple[int, ...]
    tyres: Tyres
    figures: Figures
    without_mechanics: Figures
    dangerous: tuple[SpaceRisk, ...]
    mechanic_help: tuple[tuple[int, float], ...]
    solution: Solution = field(repr=False, compare=False)

    @property
    def expected_rounds(self) -> float:
        return self.figures.expected_rounds

    @property
    def elimination_probability(self) -> float:
        return self.figures.elimination_probability


@dataclass(frozen=True)
class RaceAnalysis:
    name: str
    zone: str
    special: bool
    sections: int
    spaces: int
    penalty: float
    threshold: float
    results: tuple[AssistanceAnalysis, ...]

    @property
    def best(self) -> AssistanceAnalysis:
        """The assistance with the least expected cost (first of ties, in rulebook order)."""
        best = self.results[0]
        for r in self.results[1:]:
            if r.figures.expected_cost < best.figures.expected_cost - TIE:
                best = r
        return best

    @property
    def finishable(self) -> bool:
        return self.best.elimination_probability < self.threshold

    def for_assistance(self, assistance: Assistance | str) -> AssistanceAnalysis:
        a = Assistance(assistance)
        return next(r for r in self.results if r.assistance is a)


def solve(race: Race | Course, assistance: Assistance | str = Assistance.PERMANENT, mechanics: tuple[int, ...] = (), penalty: float = DEFAULT_PENALTY) -> Solution:
    course = race if isinstance(race, Course) else Course.of(race)
    return Solution(course, Car(Assistance(assistance), tuple(sorted(mechanics))), penalty)


def _space_risks(course: Course, race: Race, ev: Evaluation, top: int = 5) -> tuple[SpaceRisk, ...]:
    spaces = race.spaces
    risks = [
        SpaceRisk(s.number, s.section, s.index, s.factor, s.ford, ev.damage[s.number], ev.elimination[s.number])
        for s in spaces
        if ev.damage[s.number] > TIE
    ]
    risks.sort(key=lambda r: (-r.damage_probability, r.space))
    return tuple(risks[:top])


def analyze_assistance(
    race: Race,
    assistance: Assistance | str,
    *,
    penalty: float = DEFAULT_PENALTY,
    mechanics: tuple[int, ...] | None = None,
) -> AssistanceAnalysis:
    course = Course.of(race)
    a = Assistance(assistance)
    base = solve(course, a, (), penalty)
    base_ev = evaluate(base)
    n = course.length
    help_ = []
    for s in range(1, n + 1):
        g = sum(base_ev.repair_gain[1][x] for x in range(max(1, s - MECHANIC_RANGE), min(n, s + MECHANIC_RANGE) + 1))
        if g > TIE:
            help_.append((s, g))
    help_.sort(key=lambda x: (-x[1], x[0]))
    if mechanics is None:
        mechanics, _gain = place_mechanics(base_ev.repair_gain, n)
    mechanics = tuple(sorted(mechanics))
    if mechanics:
        sol = solve(course, a, mechanics, penalty)
        ev = evaluate(sol)
    else:
        sol, ev = base, base_ev
    return AssistanceAnalysis(
        assistance=a,
        mechanics=mechanics,
        tyres=sol.start_tyres,
        figures=ev.figures,
        without_mechanics=base_ev.figures,
        dangerous=_space_risks(course, race, ev),
        mechanic_help=tuple(help_[:5]),
        solution=sol,
    )


def analyze_rally_risk_race(
    race: Race,
    assistance: Assistance | str | Iterable[Assistance | str] | None = None,
    *,
    penalty: float = DEFAULT_PENALTY,
    threshold: float = DEFAULT_THRESHOLD,
    mechanics: tuple[int, ...] | None = None,
) -> RaceAnalysis:
    """Solve `race` for each assistance type (default: all three).

    penalty: rounds an elimination costs. threshold: P(elimination) below which the race is
    finishable. mechanics: spaces to put the mechanics on (None: let the analysis place 3)."""
    if penalty < 0 or not math.isfinite(penalty):
        raise ValueError(f"penalty must be a finite number >= 0, got {penalty!r}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if assistance is None:
        kinds = tuple(Assistance)
    elif isinstance(assistance, (str, Assistance)):
        kinds = (Assistance(assistance),)
    else:
        kinds = tuple(Assistance(a) for a in assistance)
    results = tuple(analyze_assistance(race, a, penalty=penalty, mechanics=mechanics) for a in kinds)
    return RaceAnalysis(
        name=race.name,
        zone=race.zone.value,
        special=race.special,
        sections=len(race.course),
        spaces=race.length,
        penalty=penalty,
        threshold=threshold,
        results=results,
    )


def finishability_problems(path: str, analysis: RaceAnalysis) -> list[Problem]:
    """Nothing when the race is finishable; else one problem at the race file's `course`
    key, for `validate --strict` and `build` to refuse the race with."""
    if analysis.finishable:
        return []
    best = analysis.best
    where = load_file(path).where(("course",), key=True)
    mech = ", ".join(str(m) for m in best.mechanics) or "none"
    return [
        Problem(
            where,
            f"the race is not finishable: the best policy ({best.assistance.value} assistance, mechanics on {mech}) "
            f"is eliminated with probability {_pct(best.elimination_probability)}; the limit is {_pct(analysis.threshold)}",
        )
    ]


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


def format_analysis_text(analysis: RaceAnalysis) -> str:
    kind = "special race" if analysis.special else "race"
    verdict = "finishable" if analysis.finishable else "NOT finishable"
    out = [
        f"Race: {analysis.name} ({kind}, zone {analysis.zone}, {analysis.sections} sections, {analysis.spaces} spaces)",
        f"Elimination priced at {analysis.penalty:g} rounds; {verdict} "
        f"(P(elimination) {_pct(analysis.best.elimination_probability)} with {analysis.best.assistance.value} assistance, "
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
                ", ".join(str(m) for m in r.mechanics) or "-",
                r.tyres.value,
            ]
        )
    header = ["Assistance", "Rounds", "Elim", "Rounds (no mech.)", "Elim (no mech.)", "Mechanics on", "Tyres"]
    out += _table(header, rows, left=frozenset({0, 5, 6}))
    for r in analysis.results:
        out += ["", f"{r.assistance.value} assistance: most dangerous spaces"]
        if not r.dangerous:
            out.append("  none: the policy never goes off the road")
        else:
            drows = [
                [str(d.space), f"{d.section} {d.section_space}", str(d.factor) + (" ford" if d.ford else ""), _pct(d.damage_probability), _pct(d.elimination_probability)]
                for d in r.dangerous
            ]
            out += ["  " + x for x in _table(["Space", "Section", "Factor", "Off road", "Eliminated"], drows, left=frozenset({1, 2}))]
        if r.mechanic_help:
            spots = ", ".join(f"space {s} ({g:.2f})" for s, g in r.mechanic_help)
            out.append(f"  one mechanic helps most on: {spots} rounds saved")
    return "\n".join(out) + "\n"
