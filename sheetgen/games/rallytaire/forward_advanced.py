"""The forward figures of Rallytaire's advanced game: the chosen policy's probability mass
pushed through the race once (expected time per stage, chance of going out, option use,
crashes and drifts per corner, fix-point use) and the race time's distribution and
percentiles.

The backward solve that chooses the policy is :mod:`solve_advanced`; the analysis that puts
both together for `analyze` and the race sheet, :mod:`analysis_advanced`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.model import Race, Surface
from sheetgen.games.rallytaire.rules_advanced import Fix
from sheetgen.games.rallytaire.solve_advanced import (
    _BRAKE,
    _CRASH,
    _FINISH,
    _NONE,
    _PUSH,
    AdvancedPolicy,
    _FixPolicy,
    _Grid,
    _StageGraph,
    _StagePolicy,
)

# --------------------------------------------------------------------------- forward figures


@dataclass
class _StageTally:
    """Forward-pass sums for one stage (probability mass per race started)."""

    reach: float = 0.0
    tenths: float = 0.0
    out: float = 0.0
    crashes: float = 0.0
    push: float = 0.0
    brake: float = 0.0
    skip: float = 0.0
    locks: float = 0.0
    tyres: dict[Surface, float] = field(default_factory=dict)
    corner_crash: list[float] = field(default_factory=list)
    corner_drift: list[float] = field(default_factory=list)


def _forward_stage(
    sp: _StagePolicy, grid: _Grid, start_mass: np.ndarray, tally: _StageTally
) -> np.ndarray:
    """Push `start_mass` (per resources) through the stage under the policy; returns the mass
    that finishes, per resources after the stage."""
    graph = sp.graph
    R = grid.size
    mass = np.zeros((len(graph.cores), R))
    mass[sp.start] = start_mass
    finish = np.zeros(R)
    zero = np.zeros(1)
    order = sorted(range(len(graph.cores)), key=lambda c: _forward_key(graph.cores[c].key))
    spent = np.zeros(len(graph.cores), dtype=bool)
    for cid in order:
        spent[cid] = True
        m = mass[cid]
        if not m.any():
            continue
        core = graph.cores[cid]
        p, _, d, _ = core.key
        acts = sp.actions[cid]
        used = np.unique(acts[m > 0])
        for a in used:
            ma = m if len(used) == 1 else np.where(acts == a, m, 0.0)
            _, gear, variant, skip = core.actions[int(a)]
            total = float(ma.sum())
            if variant == _PUSH:
                tally.push += total
            elif variant == _BRAKE:
                tally.brake += total
            if skip:
                tally.skip += total
            shifted = np.append(ma, zero)[grid.up[(variant, skip)]]
            table = graph.tables[(p, d, gear)]
            probs = table.prob_lists[variant]
            for i, row in enumerate(table.rows):
                prob = probs[i]
                if prob == 0.0:
                    continue
                mo = shifted * prob
                tot = total * prob
                if row.kind == _FINISH:
                    finish += mo
                    tally.tenths += tot * row.tenths
                    continue
                if row.kind == _CRASH:
                    out = float(mo[grid.last_car].sum())
                    tally.crashes += tot
                    tally.corner_crash[row.crash] += tot
                    tally.out += out
                    tally.tenths += out * (row.out_tenths + sp.dnf_tenths[row.crash_at])
                    tally.tenths += (tot - out) * row.tenths
                    mo = np.append(mo, zero)[grid.up_crash]
                else:
                    tally.tenths += tot * row.tenths
                    if row.locks:
                        tally.locks += tot
                if spent[list(row.succ)].any():
                    raise AssertionError("stage graph is not in forward order")
                if len(row.succ) == 1:
                    mass[row.succ[0]] += mo
                    continue
                choice = sp.plans[(p, d, gear, i)]
                for j, (drift, sid) in enumerate(zip(row.drifts, row.succ, strict=True)):
                    part = np.where(choice == j, mo, 0.0)
                    mass[sid] += part
                    if drift is not None:
                        tally.corner_drift[drift] += float(part.sum())
        mass[cid] = 0.0
    return finish


def _forward_key(key: tuple) -> tuple[int, bool]:
    """Forward order: by position, the forced-1st core after the others at the same place."""
    return (key[0], key[1] == 0)


@dataclass(frozen=True)
class _FixTally:
    reach: float
    expected: tuple[float, float, float, float, float]  # engine, brakes, gearbox, car, tyres
    most_likely: Fix
    most_likely_probability: float
    tyres_after: tuple[tuple[Surface, float], ...]


def _forward_fix(
    race: Race, grid: _Grid, fp: _FixPolicy, end_mass: dict[Surface, np.ndarray]
) -> tuple[dict[Surface, np.ndarray], _FixTally]:
    start = {t: np.zeros(grid.size) for t in race.tyres}
    by_fix: dict[Fix, float] = defaultdict(float)
    sums = [0.0] * 5
    reach = 0.0
    tyres_after: dict[Surface, float] = defaultdict(float)
    for t in race.tyres:
        m = end_mass[t]
        for r in np.flatnonzero(m):
            w = float(m[r])
            k = int(fp.choice[t][r])
            fix = fp.fixes[t][k]
            tgt, new_t = fp.targets[t][k]
            start[new_t][tgt[r]] += w
            reach += w
            by_fix[fix] += w
            tyres_after[new_t] += w
            for j, kind in enumerate(adv.BOX_KINDS):
                sums[j] += w * getattr(fix, kind)
            sums[4] += w * (fix.tyres is not None)
    if reach > 0:
        best = min(by_fix.items(), key=lambda kv: (-kv[1], -kv[0].points, repr(kv[0])))
        engine, brakes, gearbox, car, tyres = (s / reach for s in sums)
        tally = _FixTally(
            reach,
            (engine, brakes, gearbox, car, tyres),
            best[0],
            best[1] / reach,
            tuple((t, tyres_after[t] / reach) for t in race.tyres if tyres_after[t] > 0),
        )
    else:
        tally = _FixTally(0.0, (0.0,) * 5, Fix(), 0.0, ())
    return start, tally


# --------------------------------------------------------------------------- the race time distribution

#: Entries of the race-time distribution below this probability are dropped as they go (their
#: total is reported as `dropped`: about 3e-9 on the bundled races).
TIME_TAIL = 1e-14


@dataclass(frozen=True)
class TimeDistribution:
    """The race time under the race-optimal policy: ((tenths, probability), ...) for the cars
    that finish every stage, by time; `dnf` the probability of going out; `dropped` the
    probability dropped with entries below TIME_TAIL (so sum + dnf + dropped = 1)."""

    times: tuple[tuple[int, float], ...]
    dnf: float
    dropped: float

    def percentile(self, q: float) -> float | None:
        """Smallest time t (s) with P(finished within t) >= q; a car that goes out never
        finishes, so None when it goes out too often to reach q."""
        acc = 0.0
        for t, p in self.times:
            acc += p
            if acc >= q - 1e-9:
                return t / 10
        return None


class _Chunks:
    """Mass waiting at a core (or a stage end): pairs of arrays (keys, p), a key being
    tenths so far * R + resources (R the grid size), so that driving a turn, or checking a
    box, adds one constant to every key."""

    __slots__ = ("keys", "probs")

    def __init__(self) -> None:
        self.keys: list[np.ndarray] = []
        self.probs: list[np.ndarray] = []

    def __bool__(self) -> bool:
        return bool(self.keys)

    def add(self, k: np.ndarray, p: np.ndarray) -> None:
        if len(p):
            self.keys.append(k)
            self.probs.append(p)

    def merged(self, tail: float) -> tuple[np.ndarray, np.ndarray, float]:
        """(keys, p) with each key once, in order, entries below `tail` dropped; and the
        mass dropped."""
        if len(self.keys) == 1:
            # one push of merged keys: each key once already, in order
            keys, total = self.keys[0], self.probs[0]
        else:
            k = np.concatenate(self.keys)
            low = int(k.min())
            # summed by bincount over the dense key range: no sort
            dense = np.bincount(k - low, weights=np.concatenate(self.probs))
            keys = np.flatnonzero(dense)
            total = dense[keys]
            keys += low
        self.keys, self.probs = [], []
        keep = total >= tail
        if keep.all():
            return keys, total, 0.0
        return keys[keep], total[keep], float(total[~keep].sum())


@dataclass
class _Push:
    """Rows of one gear table that move the mass alike (same kind, time, successors, crash
    space), their chances summed per dice variant: one array push instead of several."""

    kind: int
    tenths: int
    succ: tuple[int, ...]
    plan: tuple[int, int, int, int] | None  # the plans key of the first such row
    probs: tuple[float, float, float]  # per variant (none, push, brake)


def _pushes(
    graph: _StageGraph, cache: dict[tuple[int, int, int], list[_Push]], p: int, d: int, gear: int
) -> list[_Push]:
    tkey = (p, d, gear)
    got = cache.get(tkey)
    if got is None:
        table = graph.tables[tkey]
        by: dict[tuple, list] = {}
        for i, row in enumerate(table.rows):
            k = (row.kind, row.tenths, row.succ, row.crash_at if row.kind == _CRASH else -1)
            if k not in by:
                by[k] = [row, i, [0.0, 0.0, 0.0]]
            for v in range(3):
                by[k][2][v] += table.prob_lists[v][i]
        got = cache[tkey] = [
            _Push(row.kind, row.tenths, row.succ, (p, d, gear, i) if len(row.succ) > 1 else None, tuple(pr))
            for row, i, pr in by.values()
        ]
    return got


def race_time_percentiles(
    policy: AdvancedPolicy, qs: tuple[float, ...] = (0.10, 0.50, 0.90), full: TimeDistribution | None = None
) -> tuple[float | None, ...]:
    """The percentiles `qs` of the race time under `policy`: those of
    :func:`race_time_distribution` (or of `full`, when given)."""
    if full is None:
        full = race_time_distribution(policy)
    return tuple(full.percentile(q) for q in qs)


class _Tagged:
    """Mass waiting at a core in the stage kernels' pass: pairs of arrays (keys, p), a key
    being (tenths of the stage so far * starts + start) * R + resources, so that driving a
    turn, or checking a box, still adds one constant to every key."""

    __slots__ = ("keys", "probs")

    def __init__(self) -> None:
        self.keys: list[np.ndarray] = []
        self.probs: list[np.ndarray] = []

    def __bool__(self) -> bool:
        return bool(self.keys)

    def add(self, k: np.ndarray, p: np.ndarray) -> None:
        if len(p):
            self.keys.append(k)
            self.probs.append(p)

    def merged(self) -> tuple[np.ndarray, np.ndarray]:
        """(keys, p) with each key once, in order. Every piece is in order already (a push
        adds a constant, a choice takes a subset), so a stable sort merges runs."""
        if not self.keys:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(self.keys) == 1:
            keys, probs = self.keys[0], self.probs[0]
            self.keys, self.probs = [], []
            return keys, probs
        k = np.concatenate(self.keys)
        p = np.concatenate(self.probs)
        self.keys, self.probs = [], []
        order = np.argsort(k, kind="stable")
        k, p = k[order], p[order]
        first = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
        if len(first) == len(k):
            return k, p
        return k[first], np.add.reduceat(p, first)


def _stage_kernels(
    policy: AdvancedPolicy, k: int, tyres: Surface, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stage `k` driven on `tyres` from each resource vector of `starts` with the time at 0,
    all in one pass over the stage's cores (each start's mass kept apart by a tag in the
    key): (start, tenths, resources at the finish, p) of every way to finish, and per start
    the chance of going out on the stage."""
    grid = policy.grid
    R = grid.size
    n = len(starts)
    turn = n * R  # a tenth of stage time in the key
    car_stride = grid.strides[3]
    shift = {
        (v, s): int(v == _PUSH) * grid.strides[0] + int(v == _BRAKE) * grid.strides[1] + int(s) * grid.strides[2]
        for v in (_NONE, _PUSH, _BRAKE)
        for s in (False, True)
    }
    sp = policy.stages[k][tyres]
    graph = sp.graph
    cache: dict[tuple[int, int, int], list[_Push]] = {}
    waiting = [_Tagged() for _ in graph.cores]
    ends = _Tagged()
    dnf = np.zeros(n)
    waiting[sp.start].add(np.arange(n, dtype=np.int64) * R + starts, np.ones(n))
    for cid in sorted(range(len(graph.cores)), key=lambda c: _forward_key(graph.cores[c].key)):
        if not waiting[cid]:
            continue
        kk, pp = waiting[cid].merged()
        core = graph.cores[cid]
        p_, _, d, _ = core.key
        r = kk % R
        acts = sp.actions[cid][r]
        first = int(acts[0])
        split = not (acts == first).all()
        for a in np.unique(acts) if split else (first,):
            if split:
                sel = acts == a
                ka, pa, ra = kk[sel], pp[sel], r[sel]
            else:
                ka, pa, ra = kk, pp, r
            _, gear, variant, skip = core.actions[int(a)]
            off = shift[(variant, skip)]  # the box the option checks
            if off:
                ka, ra = ka - off, ra - off
            for push in _pushes(graph, cache, p_, d, gear):
                prob = push.probs[variant]
                if prob == 0.0:
                    continue
                mo = pa * prob
                if push.kind == _FINISH:
                    ends.add(ka + push.tenths * turn, mo)
                    continue
                k2, r2 = ka, ra
                if push.kind == _CRASH:
                    out = grid.last_car[r2]
                    if out.any():
                        dnf += np.bincount((k2[out] // R) % n, weights=mo[out], minlength=n)
                        stay = ~out
                        k2, r2, mo = k2[stay], r2[stay], mo[stay]
                    k2 = k2 + (push.tenths * turn - car_stride)
                    r2 = r2 - car_stride
                else:
                    k2 = k2 + push.tenths * turn
                if push.plan is None:
                    waiting[push.succ[0]].add(k2, mo)
                    continue
                choice = sp.plans[push.plan][r2]
                for j, sid in enumerate(push.succ):
                    go = choice == j
                    waiting[sid].add(k2[go], mo[go])
    kk, pp = ends.merged()
    return (kk // R) % n, kk // turn, kk % R, pp, dnf


def _fft_size(n: int) -> int:
    """The smallest 2^a * 3^b * 5^c at least n (sizes the FFT is quick at)."""
    best = 1 << max(0, (n - 1).bit_length())
    p3 = 1
    while p3 < best:
        p35 = p3
        while p35 < best:
            m = p35
            while m < n:
                m *= 2
            best = min(best, m)
            p35 *= 5
        p3 *= 3
    return best


#: Pairs (start state, next start state) numbered through a dense array up to this many
#: possible pairs (bytes of memory), through a sort beyond.
_DENSE_CODES = 1 << 24

#: Kernels transformed at once when the stage's time distributions are put together (memory:
#: this many rows of the transform's length).
_BATCH = 256


def race_time_distribution(policy: AdvancedPolicy, tail: float = TIME_TAIL) -> TimeDistribution:
    """The distribution of the race time under `policy` (the solve's own choices), stage by
    stage.

    Between stages all that matters for the rest of the race is the state a car starts the
    next stage in (tyres and boxes left) and the time so far. So the mass is kept per start
    state as one array over the time so far; each stage is driven once from every start state
    it is reached in, with the time at 0 (:func:`_stage_kernels`: the starts tagged apart in
    one pass, each core visited once), which gives for each start the chances of (stage time,
    next start state after the fix-points) and of going out; the next stage's arrays are the
    sums of the convolutions of each start's array with its kernels, worked out by FFT. The
    cost grows with the race, not with the race times the width of the time so far as when the
    time so far is pushed through every core (:func:`race_time_distribution_by_cores`, the
    reference it is tested against). Entries below `tail` (and the FFT's rounding, about 1e-17)
    are dropped and counted as they go."""
    race, grid = policy.race, policy.grid
    R = grid.size
    tyres_list = list(race.tyres)
    # per start state (tyres, resources): (tenths of its first entry, probabilities)
    mass: dict[tuple[int, int], tuple[int, np.ndarray]] = {
        (tyres_list.index(policy.start_tyres), grid.full): (0, np.ones(1))
    }
    dnf = dropped = 0.0
    for k in range(len(race.stages)):
        if not mass:  # every car out before this stage
            break
        last = k == len(race.stages) - 1
        rows: list[tuple[int, np.ndarray]] = []  # the start states' arrays, in order
        groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # row, target, tenths, p
        for ti, t in enumerate(tyres_list):
            starts = sorted(r for (u, r) in mass if u == ti)
            if not starts:
                continue
            tag, tenths, r_end, p, out = _stage_kernels(policy, k, t, np.array(starts, dtype=np.int64))
            first_row = len(rows)
            for i, b in enumerate(starts):
                rows.append(mass[(ti, b)])
                if out[i]:
                    dnf += float(out[i]) * math.fsum(mass[(ti, b)][1])
            if last:
                target = np.zeros(len(p), dtype=np.int64)
            else:
                fp = policy.fixes[k]
                target = np.empty(len(p), dtype=np.int64)
                pick = fp.choice[t][r_end]
                for c in np.unique(pick):
                    go = pick == c
                    tgt, new_t = fp.targets[t][int(c)]
                    target[go] = tyres_list.index(new_t) * R + tgt[r_end[go]]
            groups.append((tag + first_row, target, tenths, p))
        mass, lost = _combine(rows, groups, R, tail)
        dropped += lost
    if not mass:
        return TimeDistribution((), dnf, dropped)
    ((low, total),) = mass.values()
    keys = np.flatnonzero(total)
    return TimeDistribution(tuple((int(a) + low, float(total[a])) for a in keys), dnf, dropped)


def _combine(
    rows: list[tuple[int, np.ndarray]],
    groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    R: int,
    tail: float,
) -> tuple[dict[tuple[int, int], tuple[int, np.ndarray]], float]:
    """The next start states' time arrays: for each way (row, target, tenths, p) a start's
    array shifted by the tenths, times p, summed per target (the convolution of each row with
    its kernel to each target), by FFT; entries below `tail` dropped and their mass returned.
    A target is tyres index * R + resources."""
    if not groups:
        return {}, 0.0
    row = np.concatenate([g[0] for g in groups])
    target = np.concatenate([g[1] for g in groups])
    tenths = np.concatenate([g[2] for g in groups])
    p = np.concatenate([g[3] for g in groups])
    if not len(p):
        return {}, 0.0
    lo = min(o for o, _ in rows)
    width = max(o + len(a) for o, a in rows) - lo
    s_lo = int(tenths.min())
    span = int(tenths.max()) - s_lo + 1
    n = _fft_size(width + span - 1)
    frame = np.zeros((len(rows), width))
    for i, (o, a) in enumerate(rows):
        frame[i, o - lo : o - lo + len(a)] = a
    spectra = np.fft.rfft(frame, n=n, axis=1)
    # one kernel per (row, target), its chances by stage time; kernels in order of target, so
    # that the products to one target are neighbours and summed by one reduceat
    code = target * len(rows) + row
    if int(code.max()) < _DENSE_CODES:  # (a mark per possible pair: no sort)
        seen = np.zeros(int(code.max()) + 1, dtype=bool)
        seen[code] = True
        codes = np.flatnonzero(seen)
        slot = (np.cumsum(seen) - 1)[code]
    else:  # many box states and start states: sorted instead
        codes, slot = np.unique(code, return_inverse=True)
    order = np.argsort(slot, kind="stable")
    slot, tenths, p = slot[order], tenths[order], p[order]
    bounds = np.searchsorted(slot, np.arange(0, len(codes) + _BATCH, _BATCH).clip(max=len(codes)))
    pair_row = codes % len(rows)
    pair_target = codes // len(rows)
    targets = np.unique(pair_target)
    out = np.zeros((len(targets), n // 2 + 1), dtype=complex)
    for b, b0 in enumerate(range(0, len(codes), _BATCH)):
        b1 = min(b0 + _BATCH, len(codes))
        i0, i1 = bounds[b], bounds[b + 1]
        kern = np.bincount(
            (slot[i0:i1] - b0) * span + (tenths[i0:i1] - s_lo), weights=p[i0:i1], minlength=(b1 - b0) * span
        ).reshape(b1 - b0, span)
        prod = np.fft.rfft(kern, n=n, axis=1) * spectra[pair_row[b0:b1]]
        tg = pair_target[b0:b1]
        first = np.flatnonzero(np.r_[True, tg[1:] != tg[:-1]])
        out[np.searchsorted(targets, tg[first])] += np.add.reduceat(prod, first, axis=0)
    times = np.fft.irfft(out, n=n, axis=1)[:, : width + span - 1]
    result: dict[tuple[int, int], tuple[int, np.ndarray]] = {}
    lost = 0.0
    for j, tg in enumerate(targets):
        a = times[j]
        keep = a >= tail
        lost += float(a[~keep & (a > 0)].sum())
        nz = np.flatnonzero(keep)
        if not len(nz):
            continue
        a = np.where(keep[nz[0] : nz[-1] + 1], a[nz[0] : nz[-1] + 1], 0.0)
        result[divmod(int(tg), R)] = (lo + s_lo + int(nz[0]), a)
    return result, lost


def race_time_distribution_by_cores(policy: AdvancedPolicy, tail: float = TIME_TAIL) -> TimeDistribution:
    """The reference for :func:`race_time_distribution` (and what it was until it went by
    stages): the exact distribution of the race time under `policy` (the solve's own choices,
    the same forward order as the analysis), each state's mass kept apart by the resources
    left and the tenths driven so far through every core of the race; entries below `tail`
    are dropped and counted. Its cost grows with the cores times the width of the time so
    far, i.e. about the square of the race: tests hold the new way to it on small races.

    The mass at a core is one sorted array of keys (tenths * R + resources) and one of
    probabilities: a turn adds its tenths * R to every key and an option or a crash one
    stride of the grid (the policy only takes an option where its box is left), so a push is
    one addition and one multiplication over the arrays."""
    race, grid = policy.race, policy.grid
    R = grid.size
    car_stride = grid.strides[3]
    shift = {
        (v, s): int(v == _PUSH) * grid.strides[0] + int(v == _BRAKE) * grid.strides[1] + int(s) * grid.strides[2]
        for v in (_NONE, _PUSH, _BRAKE)
        for s in (False, True)
    }
    start = {t: _Chunks() for t in race.tyres}
    start[policy.start_tyres].add(np.array([grid.full], dtype=np.int64), np.array([1.0]))
    dnf = dropped = 0.0
    for k, _stage in enumerate(race.stages):
        ends = {t: _Chunks() for t in race.tyres}
        for t in race.tyres:
            if not start[t]:
                continue
            sp = policy.stages[k][t]
            graph = sp.graph
            cache: dict[tuple[int, int, int], list[_Push]] = {}
            waiting = [_Chunks() for _ in graph.cores]
            k0, p0, lost = start[t].merged(tail)
            dropped += lost
            waiting[sp.start].add(k0, p0)
            order = sorted(range(len(graph.cores)), key=lambda c: _forward_key(graph.cores[c].key))
            for cid in order:
                if not waiting[cid]:
                    continue
                kk, pp, lost = waiting[cid].merged(tail)
                dropped += lost
                if not len(pp):
                    continue
                core = graph.cores[cid]
                p_, _, d, _ = core.key
                r = kk % R
                acts = sp.actions[cid][r]
                first = int(acts[0])
                split = not (acts == first).all()
                for a in np.unique(acts) if split else (first,):
                    if split:
                        sel = acts == a
                        ka, pa, ra = kk[sel], pp[sel], r[sel]
                    else:
                        ka, pa, ra = kk, pp, r
                    _, gear, variant, skip = core.actions[int(a)]
                    off = shift[(variant, skip)]  # the box the option checks
                    if off:
                        ka, ra = ka - off, ra - off
                    for push in _pushes(graph, cache, p_, d, gear):
                        prob = push.probs[variant]
                        if prob == 0.0:
                            continue
                        mo = pa * prob
                        if push.kind == _FINISH:
                            ends[t].add(ka + push.tenths * R, mo)
                            continue
                        k2, r2 = ka, ra
                        if push.kind == _CRASH:
                            out = grid.last_car[r2]
                            if out.any():
                                dnf += float(mo[out].sum())
                                stay = ~out
                                k2, r2, mo = k2[stay], r2[stay], mo[stay]
                            k2 = k2 + (push.tenths * R - car_stride)
                            r2 = r2 - car_stride
                        else:
                            k2 = k2 + push.tenths * R
                        if push.plan is None:
                            waiting[push.succ[0]].add(k2, mo)
                            continue
                        choice = sp.plans[push.plan][r2]
                        for j, sid in enumerate(push.succ):
                            go = choice == j
                            waiting[sid].add(k2[go], mo[go])
        if k == len(race.stages) - 1:
            finished = [ends[t].merged(0.0)[:2] for t in race.tyres if ends[t]]
            break
        fp = policy.fixes[k]
        start = {t: _Chunks() for t in race.tyres}
        flat = np.arange(R)
        for t in race.tyres:
            if not ends[t]:
                continue
            kk, pp, lost = ends[t].merged(tail)
            dropped += lost
            r = kk % R
            pick = fp.choice[t][r]
            for c in np.unique(pick):
                go = pick == c
                tgt, new_t = fp.targets[t][int(c)]
                start[new_t].add(kk[go] + (tgt - flat)[r[go]], pp[go])
    if not finished:
        return TimeDistribution((), dnf, dropped)
    tt = np.concatenate([k for k, _ in finished]) // R  # the resources left no longer matter
    pp = np.concatenate([p for _, p in finished])
    low = int(tt.min())
    total = np.bincount(tt - low, weights=pp)
    keys = np.flatnonzero(total)
    return TimeDistribution(tuple((int(a) + low, float(total[a])) for a in keys), dnf, dropped)
