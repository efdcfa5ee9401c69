"""The analysis of a Rally Risk race: mechanics placed where a repair saves most (from the
forward figures, :mod:`forward`, of the policy solved without them, :mod:`solve`), every
assistance type solved again with them, the most dangerous spaces, and the finishability
problems `validate --strict` reports (kept in the figures cache between runs, :mod:`kept`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from sheetgen.errors import Problem
from sheetgen.games.rally_risk.forward import Evaluation, evaluate, finishing_rounds, round_percentile
from sheetgen.games.rally_risk.model import MAX_MECHANICS, MECHANIC_RANGE, Assistance, Race, Tyres
from sheetgen.games.rally_risk.rules import Car, Course
from sheetgen.games.rally_risk.solve import DEFAULT_PENALTY, DEFAULT_THRESHOLD, TIE, TYRES, Figures, Solution, solve
from sheetgen.textfmt import pct as _pct
from sheetgen.yamlsrc import Document

# --------------------------------------------------------------------------- mechanics


def place_mechanics(
    gain: tuple[tuple[float, ...], ...], length: int, count: int = MAX_MECHANICS
) -> tuple[tuple[int, ...], float]:
    """The placement of `count` mechanics (spaces, ascending, on 1..length) with the most
    estimated gain, over every placement: gain[k][x] summed over the spaces x that k >= 1 of
    the mechanics reach. Among placements within :data:`TIE` of the most, the tightest group
    (mechanics together repair worse damage, so the smallest span from the first mechanic to
    the last), then the earliest. Returns (spaces, their gain summed over x in order).

    Exact by dynamic programming over the span d: a mechanic reaches MECHANIC_RANGE spaces
    either way, so two mechanics more than 2 * MECHANIC_RANGE apart add up independently.
    For every span d the best placement starting at each space a is worked out for all a at
    once (numpy): a group whose mechanics all share spaces is summed window by window; a
    wider one splits into a close pair and a lone mechanic, or three lone ones, whose best
    middle is a running maximum as d grows. Cost O(length^2) array additions instead of the
    O(length^3) placements (the 430-space course: 0.05 s instead of 25 s)."""
    import numpy as np

    n, r = length, MECHANIC_RANGE
    if count <= 0 or n <= 0:
        return (), 0.0
    reach, solo = 2 * r + 1, 2 * r  # a mechanic reaches `reach` spaces; farther apart than `solo`: independent
    pad = 2 * solo + reach
    padded = np.zeros((count + 1, n + 2 * pad + 1))
    for k in range(1, count + 1):
        padded[k, pad + 1 : pad + n + 1] = gain[k][1 : n + 1]

    def group(offsets: tuple[int, ...]) -> np.ndarray:
        """Total of the mechanics at a + offsets, for every first space a = 1..n - span."""
        span = offsets[-1]
        total = np.zeros(n - span)
        for t in range(-r, span + r + 1):
            k = sum(abs(o - t) <= r for o in offsets)
            if k:
                lo = pad + 1 + t
                total += padded[k, lo : lo + n - span]
        return total

    single = group((0,))  # single[a - 1]: one mechanic on a
    best_of: list[np.ndarray] = []  # per span d: per first space a, the best total
    if count == 1:
        best_of.append(single)
    elif count == 2:
        for d in range(n):
            best_of.append(group((0, d)) if d <= solo else single[: n - d] + single[d:])
    else:
        pairs = [group((0, i)) for i in range(min(solo, n - 1) + 1)]  # pairs[i][u - 1]: u and u + i
        left = np.full(n, -np.inf)  # left[a - 1]: best pair (a, a + i), i <= solo
        right = np.full(n, -np.inf)  # right[c - 1]: best pair (c - i, c), i <= solo
        for i, p in enumerate(pairs):
            left[: n - i] = np.maximum(left[: n - i], p)
            right[i:] = np.maximum(right[i:], p)
        middle = np.full(n, -np.inf)  # middle[a - 1]: best lone mechanic in a + solo + 1 .. c - solo - 1
        for d in range(n):
            if d <= 2 * solo:
                best = group((0, 0, d)) if d else group((0, 0, 0))
                for i in range(1, d + 1):
                    best = np.maximum(best, group((0, i, d)))
            else:
                m = n - d
                if d >= 2 * solo + 2:
                    middle[:m] = np.maximum(middle[:m], single[d - solo - 1 : d - solo - 1 + m])
                a_, c_ = single[:m], single[d:]
                best = np.maximum(np.maximum(left[:m] + c_, a_ + right[d:]), a_ + c_ + middle[:m])
            best_of.append(best)
    top = max(float(b.max()) for b in best_of)
    d = next(d for d, b in enumerate(best_of) if b.max() >= top - TIE)
    a = int(np.flatnonzero(best_of[d] >= top - TIE)[0]) + 1
    if count == 1:
        chosen: tuple[int, ...] = (a,)
    elif count == 2:
        chosen = (a, a + d)
    else:
        chosen = next(
            (a, b, a + d) for b in range(a, a + d + 1) if _placement_gain(gain, n, (a, b, a + d)) >= top - TIE
        )
    return chosen, _placement_gain(gain, n, chosen)


#: What the exact placement search (:func:`place_mechanics_exactly`) may spend per assistance
#: type, in solved states: each solve costs (spaces + 1) x contexts (3 tyres x 2 R.P.M. card
#: states x weather sectors), about 0.1 ms of CPU each on a busy 2-core machine, so the budget
#: is about 0.5 s of CPU whatever the course. A count, not a clock: the same race gives the
#: same placement on every machine.
PLACEMENT_BUDGET = 5_000


@dataclass(frozen=True)
class Placement:
    """Where :func:`place_mechanics_exactly` put the mechanics.

    mechanics: the spaces; solution: the exact solve with them there; gap: how many rounds
    of expected cost a placement the search did not solve could still save at most (its
    lower bound), 0.0 when the search proved no placement costs less (to 1e-12); solves:
    the exact and bounding solves it made."""

    mechanics: tuple[int, ...]
    solution: Solution
    gap: float
    solves: int

    @property
    def proven(self) -> bool:
        return self.gap == 0.0


def _ordered(node: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...] | None:
    """The intervals of a set of placements m1 <= m2 <= ... (mi in node[i]) narrowed to the
    spaces such a placement can use; None when there is none."""
    lows, highs = [lo for lo, _ in node], [hi for _, hi in node]
    for i in range(1, len(node)):
        lows[i] = max(lows[i], lows[i - 1])
    for i in range(len(node) - 2, -1, -1):
        highs[i] = min(highs[i], highs[i + 1])
    if any(lo > hi for lo, hi in zip(lows, highs)):
        return None
    return tuple(zip(lows, highs))


def _upto(node: tuple[tuple[int, int], ...], length: int) -> tuple[int, ...]:
    """Per space 0..length: how many of the node's intervals put a mechanic within reach of
    it (the most mechanics any placement of the node has in reach there)."""
    upto = [0] * (length + 1)
    for lo, hi in node:
        for q in range(max(1, lo - MECHANIC_RANGE), min(length, hi + MECHANIC_RANGE) + 1):
            upto[q] += 1
    return tuple(upto)


def place_mechanics_exactly(
    course: Course,
    assistance: Assistance,
    penalty: float,
    estimate: tuple[int, ...],
    budget: int = PLACEMENT_BUDGET,
) -> Placement:
    """The placement of len(estimate) mechanics with the least exact expected cost, by a
    best-first branch and bound over every placement, seeded with the first-order estimate's
    placement (:func:`place_mechanics`), solved exactly.

    A node is a set of placements m1 <= m2 <= m3 with each mi in an interval of spaces. Its
    bound is an exact solve of a relaxation: on every space, the driver who goes off may
    have any 0..k mechanics repair the damage and may stop there for tyres when k > 0, k
    the number of the node's intervals within reach of the space. Every placement of the
    node gives the driver some of those choices only, so no placement of it costs less than
    the bound. The node of least bound is split first (its widest interval halved, the
    first of ties); a node of one placement is solved exactly; nodes whose bound is not
    below the best placement solved (less 1e-12) are dropped. The search ends when no node
    is left (the placement is proven the best) or when the next solve would go over
    `budget` solved states (:data:`PLACEMENT_BUDGET`): then the placement is the best one
    solved, and `gap` says how much the nodes left could still save at most. A placement
    replaces the estimate's only when it costs less by more than 1e-12."""
    import heapq

    a = Assistance(assistance)
    n = course.length
    best_m = tuple(sorted(estimate))
    best = Solution(course, Car(a, best_m), penalty)
    cost = (n + 1) * len(TYRES) * 2 * best.nsectors
    spent, solves = cost, 1
    if not best_m:
        return Placement(best_m, best, 0.0, solves)
    root = ((1, n),) * len(best_m)  # every placement; its bound is always solved
    heap = [(Solution(course, Car(a), penalty, upto=_upto(root, n)).start_cost, 0, root)]
    spent, solves, pushed = spent + cost, solves + 1, 1
    while heap:
        bound, _i, node = heap[0]
        if bound >= best.start_cost - TIE:
            heap = []
            break
        if spent + cost > budget:
            break
        heapq.heappop(heap)
        i = max(range(len(node)), key=lambda j: (node[j][1] - node[j][0], -j))
        lo, hi = node[i]
        mid = (lo + hi) // 2
        children = []
        for part in ((lo, mid), (mid + 1, hi)):
            child = _ordered(node[:i] + (part,) + node[i + 1 :])
            if child is not None:
                children.append(child)
        for child in children:
            if spent + cost > budget:  # no room to price it: left with its parent's bound
                heapq.heappush(heap, (bound, pushed, child))
                pushed += 1
                continue
            spent, solves = spent + cost, solves + 1
            if all(lo == hi for lo, hi in child):
                m = tuple(lo for lo, _hi in child)
                sol = Solution(course, Car(a, m), penalty)
                if sol.start_cost < best.start_cost - TIE:
                    best_m, best = m, sol
                continue
            v = Solution(course, Car(a), penalty, upto=_upto(child, n)).start_cost
            if v < best.start_cost - TIE:
                heapq.heappush(heap, (v, pushed, child))
                pushed += 1
    low = min((b for b, _i, _node in heap), default=best.start_cost)
    gap = 0.0 if not heap else max(0.0, best.start_cost - low)
    return Placement(best_m, best, gap, solves)


def _placement_gain(gain: tuple[tuple[float, ...], ...], length: int, mechanics: tuple[int, ...]) -> float:
    """gain[k][x] summed in order over the spaces x from the first mechanic's reach to the
    last one's, k the mechanics reaching x (when any)."""
    r = MECHANIC_RANGE
    total = 0.0
    for x in range(max(1, mechanics[0] - r), min(length, mechanics[-1] + r) + 1):
        k = sum(1 for m in mechanics if -r <= m - x <= r)
        if k:
            total += gain[k][x]
    return total


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

    mechanics: the spaces the analysis put the mechanics on (or the ones it was given):
        the best placement found by an exact search (:func:`place_mechanics_exactly`),
        proven the best when placement_gap is 0.0 (None: given).
    figures: with those mechanics; without_mechanics: the same car with none.
    dangerous: the spaces where the car most often goes off (with the mechanics), worst first.
    mechanic_help: (space, rounds saved) for one mechanic on that space, first-order
        estimate from the policy without mechanics, best first.
    finish_rounds: ((round, probability), ...): the exact distribution of the round the car
        finishes in (with the mechanics), adding up to 1 - P(elimination); p10/p50/p90 its
        percentiles, an eliminated car counted as never finishing (None: the car is
        eliminated too often to reach that share).
    """

    assistance: Assistance
    mechanics: tuple[int, ...]
    tyres: Tyres
    figures: Figures
    without_mechanics: Figures
    dangerous: tuple[SpaceRisk, ...]
    mechanic_help: tuple[tuple[int, float], ...]
    #: None in an analysis read back from the figures cache (kept.py): it prints, it cannot play
    solution: Solution | None = field(repr=False, compare=False)
    finish_rounds: tuple[tuple[int, float], ...] = ()
    #: rounds of expected cost a placement the search left unsolved could still save at
    #: most (:class:`Placement`); 0.0: proven the best placement; None: the mechanics were
    #: given, not placed
    placement_gap: float | None = None

    @property
    def placement_proven(self) -> bool | None:
        """Whether no placement of the mechanics costs less (None: they were given)."""
        return None if self.placement_gap is None else self.placement_gap == 0.0

    @property
    def p10(self) -> int | None:
        return round_percentile(self.finish_rounds, 0.10)

    @property
    def p50(self) -> int | None:
        return round_percentile(self.finish_rounds, 0.50)

    @property
    def p90(self) -> int | None:
        return round_percentile(self.finish_rounds, 0.90)

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
    gap: float | None = None
    if mechanics is None:
        estimate, _gain = place_mechanics(base_ev.repair_gain, n)
        placed = place_mechanics_exactly(course, a, penalty, estimate)
        mechanics, sol, gap = placed.mechanics, placed.solution, placed.gap
        ev = evaluate(sol)
    elif mechanics:
        mechanics = tuple(sorted(mechanics))
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
        finish_rounds=finishing_rounds(sol),
        placement_gap=gap,
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


def finishability_problems(doc: Document, analysis: RaceAnalysis) -> list[Problem]:
    """Nothing when the race is finishable; else one problem at the `course` key of the race's
    loaded document `doc`, for `validate --strict` and `build` to refuse the race with."""
    if analysis.finishable:
        return []
    best = analysis.best
    where = doc.where(("course",), key=True)
    mech = ", ".join(str(m) for m in best.mechanics) or "none"
    return [
        Problem(
            where,
            f"the race is not finishable: the best policy ({best.assistance.value} assistance, mechanics on {mech}) "
            f"is eliminated with probability {_pct(best.elimination_probability)}; the limit is "
            f"{_pct(analysis.threshold)}",
        )
    ]
