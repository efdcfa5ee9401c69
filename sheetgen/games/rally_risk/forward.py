"""The forward figures of a Rally Risk race for one car: the solved policy
(:mod:`solve`) evaluated once, forward, as exact figures (expected rounds, the chance of
elimination, where damage happens and what a repair there would save) and the distribution of
the round the car finishes in.

The analysis that puts the solve and these figures together (mechanics placed, every
assistance type, finishability) is :mod:`analysis`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetgen.games.rally_risk import rules
from sheetgen.games.rally_risk.model import MAX_GEAR, MAX_MECHANICS, Outcome
from sheetgen.games.rally_risk.solve import _HALT0, _SLOTS, ROUNDS_TAIL, TYRES, Figures, Solution, _gs

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


def _gain(gain: list[list[float]], values: list[float], q: int, halt: int, mass: float) -> None:
    """What k = 1..3 mechanics in reach of q would have saved on this halt (first order).
    `values`: the V list of the car's context (Solution._v[ci])."""
    base = values[q * _SLOTS + _gs(halt)]
    rolled = {1: Outcome.FIRST, 2: Outcome.SECOND, 3: Outcome.THIRD}[halt]
    for k in range(1, MAX_MECHANICS + 1):
        fixed = rules.repair(rolled, k)
        gain[k][q] += mass * (base - values[q * _SLOTS + _gs(fixed.halt)])


def evaluate(sol: Solution) -> Evaluation:
    """Reads the solution's flat lists (see Solution._setup_tables) rather than its dicts:
    the same numbers, without checking every key."""
    course = sol.course
    n = course.length
    nw, nr, gears = sol.nsectors, len(sol._risk_index), MAX_GEAR + 1
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
                ti = TYRES.index(t)
                for w2, pw in sol.wnext[w]:
                    mw = m * pw
                    if gs >= _HALT0:
                        nk = (_gs(gs - _HALT0), t, c, w2)
                        bucket[nk] = bucket.get(nk, 0.0) + mw
                        continue
                    g2 = sol._gear[(ti * 2 + c) * nw + w2][p * gears + gs]  # gear_choice
                    c2 = next(cc for gg, cc in sol.gear_options(gs, c) if gg == g2)
                    ci = (ti * 2 + c2) * nw + w2
                    values, end_tyres, off_tyres = sol._v[ci], sol._end_tyres[g2][ci], sol._off_tyres[ci]
                    for risk, pr in sol.risks[(g2, w2)]:
                        move = sol._move[ci][(p * gears + g2) * nr + sol._risk_index[risk]]  # move_choice
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
                                t2 = end_tyres[q]  # end_choice
                                nk = (g2, t, c2, w2) if t2 is None else (0, t2, c2, w2)
                            else:
                                damage[q] += mq
                                t2 = off_tyres[q * 8 + halt * 2 + repaired]  # off_choice
                                nk = (_gs(halt), t, c2, w2) if t2 is None else (_gs(halt + repaired), t2, c2, w2)
                                if halt and not repaired:
                                    _gain(gain, values, q, halt, mq)
                            mass[q][nk] = mass[q].get(nk, 0.0) + mq
    figures = Figures(rounds, elim, rounds + sol.penalty * elim)
    return Evaluation(figures, tuple(damage), tuple(eliminated), tuple(tuple(g) for g in gain))


def finishing_rounds(sol: Solution, tail: float = ROUNDS_TAIL) -> tuple[tuple[int, float], ...]:
    """The distribution of the round the car finishes in under the solution's policy:
    ((round, probability), ...) by round; the probabilities add up to 1 - P(elimination),
    less the tail dropped (below). The states the policy reaches and their transitions come
    from the same solve, in the same forward order as :func:`evaluate`; then the mass is
    pushed round by round (every state lasts one round) through those transitions, as
    numpy arrays. Exact but for the tail: once less than `tail` of the probability is still
    on the road the rest is dropped (a percentile needs 1e-9 at least)."""
    import numpy as np

    course = sol.course
    n = course.length
    nw, nr, gears = sol.nsectors, len(sol._risk_index), MAX_GEAR + 1
    ids: dict[tuple, int] = {}  # (p, gs, tyres, card, sector) -> state id, in forward order
    src: list[int] = []
    dst: list[tuple] = []  # (q, gs, tyres, card, sector), or FINISH
    prob: list[float] = []
    FINISH = ()
    pending: list[set[tuple]] = [set() for _ in range(n + 2)]
    pending[0].add((0, sol.start_tyres, 1, course.chart.start))
    order = (_gs(3), _gs(2), _gs(1)) + tuple(range(MAX_GEAR + 1))

    def edge(s: int, q: int, key: tuple, pq: float) -> None:
        pending[q].add(key)
        src.append(s)
        dst.append((q,) + key)
        prob.append(pq)

    for p in range(n + 1):
        bucket = pending[p]
        for slot in order:
            for key in sorted((k for k in bucket if k[0] == slot), key=lambda k: (TYRES.index(k[1]), k[2], k[3])):
                s = ids[(p,) + key] = len(ids)
                gs, t, c, w = key
                ti = TYRES.index(t)
                if gs >= _HALT0:
                    for w2, pw in sol.wnext[w]:
                        nk = (_gs(gs - _HALT0), t, c, w2)
                        bucket.add(nk)
                        src.append(s)
                        dst.append((p,) + nk)
                        prob.append(pw)
                    continue
                for w2, pw in sol.wnext[w]:
                    g2 = sol._gear[(ti * 2 + c) * nw + w2][p * gears + gs]
                    c2 = next(cc for gg, cc in sol.gear_options(gs, c) if gg == g2)
                    ci = (ti * 2 + c2) * nw + w2
                    end_tyres, off_tyres = sol._end_tyres[g2][ci], sol._off_tyres[ci]
                    for risk, pr in sol.risks[(g2, w2)]:
                        move = sol._move[ci][(p * gears + g2) * nr + sol._risk_index[risk]]
                        for kind, q, halt, repaired, pm in sol.outcomes(p, t, w2, risk, move):
                            pq = pw * pr * pm
                            if kind == "finished":
                                src.append(s)
                                dst.append(FINISH)
                                prob.append(pq)
                            elif kind == "moved":
                                t2 = end_tyres[q]
                                edge(s, q, (g2, t, c2, w2) if t2 is None else (0, t2, c2, w2), pq)
                            elif kind == "off":
                                t2 = off_tyres[q * 8 + halt * 2 + repaired]
                                edge(
                                    s,
                                    q,
                                    (_gs(halt), t, c2, w2) if t2 is None else (_gs(halt + repaired), t2, c2, w2),
                                    pq,
                                )
        pending[p] = set()
    size = len(ids)
    to = np.array([size if d == FINISH else ids[d] for d in dst], dtype=np.intp)  # size: the finish
    frm = np.array(src, dtype=np.intp)
    weight = np.array(prob)
    mass: np.ndarray = np.zeros(size + 1)
    mass[0] = 1.0
    out = []
    r = 0
    while True:
        r += 1
        moved = mass[frm] * weight
        mass = np.bincount(to, weights=moved, minlength=size + 1)
        done = float(mass[size])
        mass[size] = 0.0
        if done > 0.0:
            out.append((r, done))
        if mass.sum() <= tail:
            return tuple(out)


def round_percentile(distribution: tuple[tuple[int, float], ...], q: float) -> int | None:
    """Smallest round r with P(finished by round r) >= q (summation error of 1e-9 forgiven);
    None when the car is eliminated too often to reach q (an eliminated car never finishes)."""
    acc = 0.0
    for r, p in distribution:
        acc += p
        if acc >= q - 1e-9:
            return r
    return None
