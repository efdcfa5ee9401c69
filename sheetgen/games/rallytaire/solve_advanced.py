"""Exact whole-race solver for Rallytaire's advanced game.

The policy chooses the tyres before the race, the gear and option (push, brake, skip) of
every turn, the N/D plans, and how to spend the fix-points between stages, so as to
minimise the expected race time; a car that goes out (DNF) is charged a penalty (below).

How it is solved (backward over stages, then forward once for the figures):

- A stage is solved for every *resource vector* at once: the boxes still unchecked
  (engine 0..E, brakes 0..B, gearbox 0..G, car 1..C) are an array axis, so each value is a
  numpy array over all (E+1)(B+1)(G+1)C vectors (192 for the default 3 each). What a move
  does depends on the gear and the dice, never on how many boxes are left: an option just
  reads the successor's values one box lower (an index map), and a crash one Car box lower,
  with the DNF charge where the last Car box goes. So the moves are computed once per
  (position, pending D, gear) and shared by every resource vector, every previous gear and
  the lock, and the dice options only re-weight the same outcome rows (a small matrix
  product).
- Between stages the fix-points are a min over the few ways to spend 2 or 4 points, again
  as index maps over the resource arrays, giving the value-to-go of the previous stage's end.
- Tyres are fixed within a stage, so each stage is solved once per allowed tyre; the tyres
  chosen before the race minimise the value of the first stage's start with every box free.
- One forward pass pushes probability mass (again arrays over resources) through the chosen
  policy: expected time per stage, P(DNF), option use, crashes per corner, fix-point use.

Every transition comes from the engine's advanced rule set
(:data:`sheetgen.games.rallytaire.engine.ADVANCED`: legal actions, exact outcomes, moves, plans,
next states and fix-points); the solver only caches what it returned.
Ties within :data:`TIE` tenths go to the action the engine lists first (plain gears, lower
gear first, then brake, push, skip), to N (then the earlier D), and for fix-points to the
engine's order (more boxes, Car first, tyres kept), so results never depend on float noise.

DNF charge (:class:`DnfRule`): a car that goes out is charged the time it drove (the crash
turn included, 10 s) plus ``dnf_penalty`` seconds (default 600) plus ``dnf_space_seconds``
(default 10) for every space of the race it did not reach: the rest of the stage from the
crashed corner to the invisible finish space, and every later stage whole (length + 1). The
per-space part keeps going out early from ever being cheaper than driving on (no finish is
slower than 10 s a space), and the fixed part prices the risk of going out late. The charge
is counted in the stage where the car goes out; stage par times add up to the race par.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sheetgen import dice
from sheetgen.errors import SheetgenError
from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.engine import ADVANCED
from sheetgen.games.rallytaire.model import Boxes, Race, Stage, Surface
from sheetgen.games.rallytaire.rules import RulesError, State
from sheetgen.games.rallytaire.rules_advanced import (
    Action,
    AdvancedMove,
    AdvancedState,
    Fix,
    Option,
    Roll,
)
from sheetgen.games.rallytaire.solve import CornerAnalysis, corner_figures

#: Values (in tenths of a second) closer than this are ties.
TIE = 1e-9

#: The exact solve works on every (space or corner, box state, tyre) of the race, so its time
#: and memory grow with their product: the bundled races are under 200,000; 8 stages of 300
#: spaces with a corner after every space and the default boxes (2.8 million) took 14 s on a
#: busy 2-core machine, and 9 boxes of each kind (65 million) 20-70 s and 800 MB. A race over
#: this many is refused with its figures.
MAX_SOLVE_SIZE = 2_000_000

DEFAULT_DNF_PENALTY = 600.0
DEFAULT_DNF_SPACE_SECONDS = 10.0

_MOVE, _FINISH, _CRASH = 0, 1, 2
_NONE, _PUSH, _BRAKE = 0, 1, 2
_VARIANT = {None: _NONE, Option.PUSH: _PUSH, Option.BRAKE: _BRAKE}


@dataclass(frozen=True)
class DnfRule:
    """What going out costs (seconds): ``penalty`` plus ``space_seconds`` per space not reached."""

    penalty: float = DEFAULT_DNF_PENALTY
    space_seconds: float = DEFAULT_DNF_SPACE_SECONDS

    def __post_init__(self) -> None:
        for name in ("penalty", "space_seconds"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise RulesError(f"dnf {name} must be a finite number >= 0, got {v!r}")

    def spaces_not_reached(self, race: Race, stage_index: int, at: int) -> int:
        """Spaces of the race a car out on space `at` of stage `stage_index` did not reach:
        the rest of that stage up to its invisible finish space, and every later stage."""
        stage = race.stages[stage_index]
        return stage.finish - at + sum(s.finish for s in race.stages[stage_index + 1 :])

    def charge_tenths(self, race: Race, stage_index: int, at: int) -> float:
        """The DNF charge, on top of the time driven, in tenths of a second."""
        spaces = self.spaces_not_reached(race, stage_index, at)
        return 10 * (self.penalty + self.space_seconds * spaces)


# --------------------------------------------------------------------------- resource grid


class _Grid:
    """Resource vectors (engine, brakes, gearbox, car boxes left) as flat indices 0..R-1.

    Index maps have length R and point one box lower (``back_*``: where a value looks up its
    successor) or one box higher (``up_*``: where forward mass comes from); an impossible
    lookup points at R, a pad slot (inf for values, 0 for mass)."""

    def __init__(self, boxes: Boxes) -> None:
        self.boxes = boxes
        self.shape = (boxes.engine + 1, boxes.brakes + 1, boxes.gearbox + 1, boxes.car)
        self.size = int(np.prod(self.shape))
        e, b, g, c = np.indices(self.shape).reshape(4, -1)
        self.coords = (e, b, g, c)  # c is car boxes left - 1
        self.strides = tuple(
            int(np.prod(self.shape[i + 1 :])) for i in range(4)
        )  # C-order strides in elements
        flat = np.arange(self.size)
        pad = self.size

        def shift(units: tuple[int, int, int, int], sign: int) -> np.ndarray:
            ok = np.ones(self.size, dtype=bool)
            off = 0
            for axis, u in enumerate(units):
                if not u:
                    continue
                coord = self.coords[axis]
                ok &= (coord - u >= 0) if sign < 0 else (coord + u <= self.shape[axis] - 1)
                off += sign * u * self.strides[axis]
            return np.where(ok, flat + off, pad)

        self.back = {
            (v, s): shift((int(v == _PUSH), int(v == _BRAKE), int(s), 0), -1)
            for v in (_NONE, _PUSH, _BRAKE)
            for s in (False, True)
        }
        self.up = {
            (v, s): shift((int(v == _PUSH), int(v == _BRAKE), int(s), 0), +1)
            for v in (_NONE, _PUSH, _BRAKE)
            for s in (False, True)
        }
        self.back_crash = shift((0, 0, 0, 1), -1)
        self.up_crash = shift((0, 0, 0, 1), +1)
        self.last_car = c == 0  # a crash here checks the last Car box

    def index(self, left: Boxes) -> int:
        vals = (left.engine, left.brakes, left.gearbox, left.car - 1)
        for v, n, kind in zip(vals, self.shape, adv.BOX_KINDS, strict=True):
            if not 0 <= v < n:
                raise RulesError(f"{kind} boxes left out of range for this race: {left!r}")
        return int(sum(v * s for v, s in zip(vals, self.strides, strict=True)))

    def left(self, r: int) -> Boxes:
        e, b, g, c = (int(x[r]) for x in self.coords)
        return Boxes(engine=e, brakes=b, gearbox=g, car=c + 1)

    @property
    def full(self) -> int:
        return self.size - 1


def _argmin(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: the value and index of the first row within TIE of the column minimum."""
    if stack.shape[0] == 1:
        return stack[0], np.zeros(stack.shape[1], dtype=np.intp)
    low = stack.min(axis=0)
    idx = (stack <= low + TIE).argmax(axis=0)
    return stack[idx, np.arange(stack.shape[1])], idx


# --------------------------------------------------------------------------- stage graph


@dataclass
class _Row:
    """One dice outcome of one gear from one (position, pending D): what the engine did."""

    roll: Roll
    kind: int  # _MOVE, _FINISH or _CRASH
    tenths: int
    drifts: tuple[int | None, ...]  # plan choices, N first
    succ_keys: tuple[tuple, ...]
    crash: int  # corner index, -1 when no crash
    crash_at: int  # the space the car stops on after a crash
    out_tenths: int  # time of the turn that puts the car out (crash rows)
    locks: bool
    succ: tuple[int, ...] = ()  # core ids, filled once every core is known


@dataclass
class _GearTable:
    gear: int
    rows: list[_Row]
    probs: np.ndarray  # (3, rows): P(row) under none / push / brake (zeros if not offered)
    prob_lists: list[list[float]]  # the same as Python floats, for the forward pass


@dataclass
class _Core:
    key: tuple  # (position, last gear or 0, pending D or -1, locked)
    actions: tuple[tuple[Action, int, int, bool], ...]  # (action, gear, variant, skip)


@dataclass
class _StageGraph:
    stage: Stage
    tyres: Surface
    cores: list[_Core]
    index: dict[tuple, int]
    tables: dict[tuple[int, int, int], _GearTable]  # (position, pending or -1, gear)
    groups: list[tuple[int, int]]  # (position, pending or -1), descending position
    group_cores: dict[tuple[int, int], list[int]]


def _core_key(state: AdvancedState) -> tuple:
    last = state.last_gear or 0
    pending = -1 if state.pending_drift is None else state.pending_drift
    return (state.position, last, pending, state.locked)


def _rep_state(key: tuple, tyres: Surface, left: Boxes) -> AdvancedState:
    p, last, d, locked = key
    base = State(p, last or None, None if d < 0 else d)
    return AdvancedState(base=base, tyres=tyres, left=left, locked=locked)


def _build_stage_graph(
    stage: Stage, tyres: Surface, boxes: Boxes, moves: dict[tuple, tuple]
) -> _StageGraph:
    """Every core state (position, last gear, pending D, lock) reachable under any play with
    some boxes left, and the gear tables of every (position, pending D, gear) they drive.

    `moves` caches the engine's move results across tyres: a move depends on the gear and the
    speed, not on the dice that produced the speed."""
    # Representative boxes: every option the race offers is available; car 2 so that a crash
    # is an ordinary crash (car 1 gives the out version of the same move).
    rep_left = Boxes(engine=boxes.engine, brakes=boxes.brakes, gearbox=boxes.gearbox, car=2)
    out_left = Boxes(engine=boxes.engine, brakes=boxes.brakes, gearbox=boxes.gearbox, car=1)
    start = ADVANCED.stage_start(stage, AdvancedState(State(0), tyres, rep_left))
    keys: list[tuple] = [_core_key(start)]
    seen = {keys[0]: 0}
    dice_of: dict[int, tuple] = {}  # per gear: the dice tables of these tyres on this stage
    actions: list[tuple] = []
    tables: dict[tuple[int, int, int], _GearTable] = {}
    i = 0
    while i < len(keys):
        key = keys[i]
        i += 1
        rep = _rep_state(key, tyres, rep_left)
        acts = []
        for a in ADVANCED.actions(stage, rep):
            acts.append((a, a.gear, _VARIANT[a.option], a.skip))
            tkey = (key[0], key[2], a.gear)
            if tkey in tables:
                continue
            table = _gear_table(stage, tyres, key, a.gear, rep_left, out_left, moves, dice_of)
            tables[tkey] = table
            for row in table.rows:
                for sk in row.succ_keys:
                    if sk not in seen:
                        seen[sk] = len(keys)
                        keys.append(sk)
        actions.append(tuple(acts))
    cores = [_Core(k, a) for k, a in zip(keys, actions, strict=True)]
    for table in tables.values():
        for row in table.rows:
            row.succ = tuple(seen[k] for k in row.succ_keys)
    group_cores: dict[tuple[int, int], list[int]] = defaultdict(list)
    for cid, k in enumerate(keys):
        group_cores[(k[0], k[2])].append(cid)
    groups = sorted(group_cores, key=lambda g: (-g[0], g[1]))
    return _StageGraph(stage, tyres, cores, seen, tables, groups, dict(group_cores))


def _gear_dice(stage: Stage, rep: AdvancedState, gear: int, dice_of: dict[int, tuple]) -> tuple:
    """(rolls, probs, prob_lists, rolled_by) of `gear` for the tyres of `rep`: every roll of
    its plain, pushed and braked variants, their chances per variant, and the first variant
    that rolls each. They depend on the gear, the tyres and the stage's surface, not on where
    the car stands (`rep` is any state from which the gear is driven): worked out once per
    stage and tyres (`dice_of`), shared by every position."""
    got = dice_of.get(gear)
    if got is None:
        variants: dict[int, tuple[Action, tuple[tuple[Roll, float], ...]]] = {}
        for a in ADVANCED.actions(stage, rep):
            if a.gear == gear and not a.skip:
                variants[_VARIANT[a.option]] = (a, dice.to_float(ADVANCED.outcomes(stage, rep, a)))
        rolls = sorted({roll for _, dist in variants.values() for roll, _ in dist})
        col = {roll: j for j, roll in enumerate(rolls)}
        probs = np.zeros((3, len(rolls)))
        for v, (_, dist) in variants.items():
            for roll, prob in dist:
                probs[v, col[roll]] += prob
        rolled_by = {
            roll: next(a for a, dist in variants.values() if any(r == roll for r, _ in dist)) for roll in rolls
        }
        got = dice_of[gear] = (rolls, probs, probs.tolist(), rolled_by)
    return got


def _reweighted_graph(stage: Stage, tyres: Surface, boxes: Boxes, graph: _StageGraph) -> _StageGraph | None:
    """The graph `_build_stage_graph` would build for `tyres`, made from `graph` (the same
    stage's graph for other tyres) when it is the same graph with other chances, else None.

    What the build reads from the tyres is the start, the legal actions of every core and the
    dice of every gear (its rolls and the variant that rolls each); the moves from a roll do not
    depend on them (the build's own premise). So when the engine answers the same for these
    tyres at every core of `graph` and rolls the same for every gear, the build would find the
    same cores in the same order with the same rows: only the chances of the rows differ, and
    they are worked out exactly as the build does. Otherwise (say gravel tyres on asphalt: a
    die less, so no brake in 1st gear) the caller builds the graph anew."""
    rep_left = Boxes(engine=boxes.engine, brakes=boxes.brakes, gearbox=boxes.gearbox, car=2)
    start = ADVANCED.stage_start(stage, AdvancedState(State(0), tyres, rep_left))
    if _core_key(start) != graph.cores[0].key:
        return None
    for core in graph.cores:
        acts = ADVANCED.actions(stage, _rep_state(core.key, tyres, rep_left))
        if len(acts) != len(core.actions) or any(a != c[0] for a, c in zip(acts, core.actions)):
            return None
    dice_of: dict[int, tuple] = {}
    tables: dict[tuple[int, int, int], _GearTable] = {}
    for (p, d, gear), table in graph.tables.items():  # in the build's order
        rolls, probs, prob_lists, _ = _gear_dice(stage, _rep_state((p, gear, d, False), tyres, rep_left), gear, dice_of)
        if len(rolls) != len(table.rows) or any(roll != row.roll for roll, row in zip(rolls, table.rows)):
            return None
        tables[(p, d, gear)] = _GearTable(gear, table.rows, probs, prob_lists)
    return _StageGraph(stage, tyres, graph.cores, graph.index, tables, graph.groups, graph.group_cores)


def _gear_table(
    stage: Stage,
    tyres: Surface,
    key: tuple,
    gear: int,
    rep_left: Boxes,
    out_left: Boxes,
    moves: dict[tuple, tuple],
    dice_of: dict[int, tuple],
) -> _GearTable:
    p, _, d, _ = key
    rep = _rep_state((p, gear, d, False), tyres, rep_left)
    rolls, probs, prob_lists, rolled_by = _gear_dice(stage, rep, gear, dice_of)
    rows = []
    for roll in rolls:
        mkey = (p, d, gear, roll)
        cached = moves.get(mkey)
        if cached is None:
            action = rolled_by[roll]
            mv = ADVANCED.move(stage, rep, action, roll)
            kind = _FINISH if mv.finished else (_CRASH if mv.move.crash is not None else _MOVE)
            drifts: tuple[int | None, ...] = ()
            succ: tuple[tuple, ...] = ()
            out_tenths = 0
            if kind != _FINISH:
                drifts = ADVANCED.plan_options(stage, rep, mv).drift_choices
                succ = tuple(_core_key(ADVANCED.next_state(stage, rep, mv, dr)) for dr in drifts)
            if kind == _CRASH:
                last_box = AdvancedState(rep.base, tyres, out_left)
                out_mv = ADVANCED.move(stage, last_box, action, roll)
                if not ADVANCED.out(out_mv):
                    raise AssertionError("a crash with one Car box left must put the car out")
                out_tenths = out_mv.tenths
            crash = -1 if mv.move.crash is None else mv.move.crash
            cached = (kind, mv.tenths, drifts, succ, crash, mv.move.position, out_tenths, mv.locks)
            moves[mkey] = cached
        kind, tenths, drifts, succ, crash, at, out_tenths, locks = cached
        rows.append(_Row(roll, kind, tenths, drifts, succ, crash, at, out_tenths, locks))
    return _GearTable(gear, rows, probs, prob_lists)


# --------------------------------------------------------------------------- stage solve


@dataclass
class _StagePolicy:
    graph: _StageGraph
    start: int  # core id of the stage start
    start_value: np.ndarray  # expected tenths to go (race) from the start, per resources
    actions: np.ndarray  # (cores, R) int8: index into the core's actions
    plans: dict[tuple[int, int, int, int], np.ndarray]  # (pos, pending, gear, row) -> choice
    dnf_tenths: dict[int, float]  # space the car goes out on -> DNF charge (tenths)


def _solve_stage(
    graph: _StageGraph, grid: _Grid, end_value: np.ndarray, dnf_tenths: dict[int, float]
) -> _StagePolicy:
    """Backward induction over the stage's cores for every resource vector at once.

    end_value: value-to-go (tenths) after finishing the stage, per resources.
    dnf_tenths: per crash space, the DNF charge of going out there (without the out turn)."""
    R = grid.size
    ncores = len(graph.cores)
    value = np.full((ncores, R), np.nan)
    done = np.zeros(ncores, dtype=bool)
    chosen = np.zeros((ncores, R), dtype=np.int8)  # at most 12 actions per core
    plans: dict[tuple[int, int, int, int], np.ndarray] = {}

    def gear_values(p: int, d: int, gear: int) -> np.ndarray:
        table = graph.tables[(p, d, gear)]
        q = np.zeros((len(table.rows), R + 1))
        for i, row in enumerate(table.rows):
            if row.kind == _FINISH:
                q[i, :R] = row.tenths + end_value
                continue
            if not all(done[s] for s in row.succ):
                raise AssertionError("stage graph is not in topological order")
            if len(row.succ) == 1:
                v = value[row.succ[0]]
            else:
                v, choice = _argmin(value[list(row.succ)])
                plans[(p, d, gear, i)] = choice.astype(np.int8)
            if row.kind == _CRASH:
                out = row.out_tenths + dnf_tenths[row.crash_at] - row.tenths
                q[i, :R] = row.tenths + np.append(v, out)[grid.back_crash]
            else:
                q[i, :R] = row.tenths + v
        ev = table.probs @ q
        ev[:, R] = np.inf  # an option with no box left is not available
        return ev

    for p, d in graph.groups:
        cids = graph.group_cores[(p, d)]
        # The forced-1st core (after a crash) only drives 1st gear, which never crashes;
        # the other gears may crash back onto it, so it is solved first.
        cids = sorted(cids, key=lambda c: graph.cores[c].key[1] != 0)
        evs: dict[int, np.ndarray] = {}
        cands: dict[tuple[int, int, bool], np.ndarray] = {}
        for cid in cids:
            core = graph.cores[cid]
            stack = []
            for _, gear, variant, skip in core.actions:
                ck = (gear, variant, skip)
                arr = cands.get(ck)
                if arr is None:
                    ev = evs.get(gear)
                    if ev is None:
                        ev = evs[gear] = gear_values(p, d, gear)
                    if variant == _NONE and not skip:
                        arr = ev[_NONE, :R]
                    else:
                        arr = ev[variant][grid.back[(variant, skip)]]
                    cands[ck] = arr
                stack.append(arr)
            v, idx = _argmin(np.stack(stack))
            value[cid] = v
            chosen[cid] = idx
            done[cid] = True
    start = graph.index[(0, 0, -1, False)]
    return _StagePolicy(graph, start, value[start].copy(), chosen, plans, dnf_tenths)


# --------------------------------------------------------------------------- fix-points


@dataclass
class _FixPolicy:
    """Fix-point choices after one stage, per end tyres: index into `fixes` per resources."""

    points: int
    fixes: dict[Surface, tuple[Fix, ...]]  # per end tyres: every shape, in the engine's order
    targets: dict[Surface, list[tuple[np.ndarray, Surface]]]  # per fix: resources map, tyres
    choice: dict[Surface, np.ndarray]


def _fix_shapes(race: Race, stage_index: int, tyres: Surface) -> tuple[Fix, ...]:
    """All ways to spend the points after stage `stage_index` with every box checked: the
    engine's list for the worst case, which holds every fix that is legal for some resource
    vector, in its tie order."""
    none_left = Boxes(engine=0, brakes=0, gearbox=0, car=0)
    return ADVANCED.fix_options(race, stage_index, AdvancedState(State(0), tyres, none_left))


def _solve_fix(
    race: Race, grid: _Grid, stage_index: int, next_start: dict[Surface, np.ndarray]
) -> tuple[_FixPolicy, dict[Surface, np.ndarray]]:
    """Value-to-go at the end of stage `stage_index` (before fix-points) from the next
    stage's start."""
    points = ADVANCED.fix_points(race, stage_index)
    R = grid.size
    flat = np.arange(R)
    targets: dict[Surface, list[tuple[np.ndarray, Surface]]] = {}
    choice: dict[Surface, np.ndarray] = {}
    end_value: dict[Surface, np.ndarray] = {}
    fixes_by_tyres = {t: _fix_shapes(race, stage_index, t) for t in race.tyres}
    for t in race.tyres:
        rows = []
        maps = []
        for fix in fixes_by_tyres[t]:
            # Legal where no kind is unchecked past its printed count (adv.fix_options).
            ok = np.ones(R, dtype=bool)
            off = 0
            for axis, kind in enumerate(adv.BOX_KINDS):
                k = getattr(fix, kind)
                ok &= grid.coords[axis] + k <= grid.shape[axis] - 1
                off += k * grid.strides[axis]
            tgt = np.where(ok, flat + off, R)
            new_t = fix.tyres if fix.tyres is not None else t
            maps.append((tgt, new_t))
            rows.append(np.append(next_start[new_t], np.inf)[tgt])
        v, idx = _argmin(np.stack(rows))
        targets[t] = maps
        choice[t] = idx.astype(np.int16)
        end_value[t] = v
    return _FixPolicy(points, fixes_by_tyres, targets, choice), end_value


# --------------------------------------------------------------------------- the policy


@dataclass(eq=False)
class AdvancedPolicy:
    """The solved race policy, as the simulator queries it."""

    race: Race = field(repr=False)
    dnf: DnfRule
    grid: _Grid = field(repr=False)
    start_tyres: Surface
    stages: tuple[dict[Surface, _StagePolicy], ...] = field(repr=False)
    fixes: tuple[_FixPolicy, ...] = field(repr=False)  # after stage i, for i < last

    def tyres(self) -> Surface:
        """Tyres to choose before the race."""
        return self.start_tyres

    def _stage(self, stage_index: int, state: AdvancedState) -> tuple[_StagePolicy, int]:
        sp = self.stages[stage_index].get(state.tyres)
        if sp is None:
            raise RulesError(f"tyres {state.tyres.value!r} are not allowed in this race")
        cid = sp.graph.index.get(_core_key(state))
        if cid is None:
            raise RulesError(f"state {state!r} is not reachable on stage {stage_index + 1}")
        return sp, cid

    def action(self, stage_index: int, state: AdvancedState) -> Action:
        """The action this policy takes from `state` on stage `stage_index` (0-based)."""
        sp, cid = self._stage(stage_index, state)
        r = self.grid.index(state.left)
        return sp.graph.cores[cid].actions[int(sp.actions[cid, r])][0]

    def plan(self, stage_index: int, state: AdvancedState, move: AdvancedMove) -> int | None:
        """The corner planned D after `move` from `state` (None: every entered corner N)."""
        if move.out or move.finished:
            return None
        sp, _ = self._stage(stage_index, state)
        pending = -1 if state.pending_drift is None else state.pending_drift
        table = sp.graph.tables[(state.position, pending, move.action.gear)]
        i = next(j for j, row in enumerate(table.rows) if row.roll == move.roll)
        row = table.rows[i]
        if len(row.drifts) == 1:
            return row.drifts[0]
        left = Boxes(
            **{k: getattr(state.left, k) - getattr(move.checked, k) for k in adv.BOX_KINDS}
        )
        choice = sp.plans[(state.position, pending, move.action.gear, i)]
        return row.drifts[int(choice[self.grid.index(left)])]

    def fix(self, stage_index: int, left: Boxes, tyres: Surface) -> Fix:
        """How to spend the fix-points after stage `stage_index` (0-based, not the last)."""
        fp = self.fixes[stage_index]
        return fp.fixes[tyres][int(fp.choice[tyres][self.grid.index(left)])]

    def expected_seconds(self, stage_index: int, left: Boxes, tyres: Surface) -> float:
        """Expected seconds to the end of the race from the start of stage `stage_index`."""
        sp = self.stages[stage_index][tyres]
        return float(sp.start_value[self.grid.index(left)]) / 10


def _dnf_charges(race: Race, dnf: DnfRule) -> list[dict[int, float]]:
    """Per stage, per space: the DNF charge in tenths for going out there."""
    return [
        {at: dnf.charge_tenths(race, k, at) for at in range(stage.finish + 1)}
        for k, stage in enumerate(race.stages)
    ]


class TooLargeToSolve(SheetgenError):
    """The exact advanced solve of a race would take too long (see MAX_SOLVE_SIZE)."""


def _box_states(race: Race) -> int:
    b = race.boxes
    return (b.engine + 1) * (b.brakes + 1) * (b.gearbox + 1) * max(b.car, 1)


def solve_size(race: Race) -> int:
    """(spaces and corners of the race) x (box states) x (tyres): what the exact solve grows with."""
    points = sum(s.length + len(s.corners) for s in race.stages)
    return points * _box_states(race) * len(race.tyres)


def check_solvable(race: Race) -> None:
    """Raise TooLargeToSolve, with the race's figures, when `race` is over MAX_SOLVE_SIZE."""
    size = solve_size(race)
    if size > MAX_SOLVE_SIZE:
        spaces = sum(s.length for s in race.stages)
        corners = sum(len(s.corners) for s in race.stages)
        raise TooLargeToSolve(
            f"the advanced game's exact analysis of this race is too large: ({spaces} spaces + {corners} corners) x "
            f"{_box_states(race)} box states x {len(race.tyres)} tyres = {size:,} (the limit is {MAX_SOLVE_SIZE:,}); "
            "fewer boxes, tyres, spaces or corners make it solvable"
        )


def solve_race(race: Race, dnf: DnfRule | None = None) -> AdvancedPolicy:
    """The optimal policy of `race` (backward over stages)."""
    check_solvable(race)
    dnf = dnf or DnfRule()
    if not race.stages:
        raise RulesError(f"race {race.name!r} has no stages")
    if not race.tyres:
        raise RulesError(f"race {race.name!r} allows no tyres")
    if race.boxes.car < 1:
        raise RulesError(f"a race needs at least one Car box, got {race.boxes.car!r}")
    grid = _Grid(race.boxes)
    charges = _dnf_charges(race, dnf)
    n = len(race.stages)
    stages: list[dict[Surface, _StagePolicy]] = [{} for _ in range(n)]
    fixes: list[_FixPolicy | None] = [None] * (n - 1)
    end_value = {t: np.zeros(grid.size) for t in race.tyres}
    for k in range(n - 1, -1, -1):
        stage = race.stages[k]
        moves: dict[tuple, tuple] = {}  # the stage's moves, shared by its tyres
        built: list[_StageGraph] = []  # the stage's graphs built so far, for other tyres
        for t in race.tyres:
            graph = next(
                (g for g in (_reweighted_graph(stage, t, race.boxes, b) for b in built) if g is not None), None
            )
            if graph is None:
                graph = _build_stage_graph(stage, t, race.boxes, moves)
                built.append(graph)
            stages[k][t] = _solve_stage(graph, grid, end_value[t], charges[k])
        if k > 0:
            fp, end_value = _solve_fix(race, grid, k - 1, {t: stages[k][t].start_value for t in race.tyres})
            fixes[k - 1] = fp
    full = grid.full
    start_values = np.array([stages[0][t].start_value[full] for t in race.tyres])
    _, best = _argmin(start_values[:, None])
    start_tyres = race.tyres[int(best[0])]
    return AdvancedPolicy(race, dnf, grid, start_tyres, tuple(stages), tuple(f for f in fixes if f is not None))


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

    def certain_percentile(self, q: float) -> tuple[bool, float | None]:
        """(certain, percentile): `certain` when the mass dropped cannot move the percentile.

        Dropping entries only ever lowers the cumulative chances, by at most `dropped` in all:
        the exact P(finished within t) lies between the sum up to t and that plus `dropped`.
        So the percentile found is exact when the sum up to the time before it, plus
        `dropped`, stays below q (and None is exact when the whole sum plus `dropped` does)."""
        acc = 0.0
        for t, p in self.times:
            before = acc
            acc += p
            if acc >= q - 1e-9:
                return before + self.dropped < q - 1e-9, t / 10
        return acc + self.dropped < q - 1e-9, None


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


#: The tails of the quick passes `race_time_percentiles` tries before the full distribution:
#: about half the cost, and the percentiles they give are certain on the bundled races.
QUICK_TAILS = (1e-10,)


def race_time_percentiles(
    policy: AdvancedPolicy, qs: tuple[float, ...] = (0.10, 0.50, 0.90), full: TimeDistribution | None = None
) -> tuple[float | None, ...]:
    """The percentiles `qs` of the race time under `policy`, exactly those of the full
    distribution (:func:`race_time_distribution` with :data:`TIME_TAIL`), at less cost: a pass
    that drops more (:data:`QUICK_TAILS`) is used when the mass it dropped cannot move any of
    them (:meth:`TimeDistribution.certain_percentile`); otherwise the full distribution is
    worked out (or `full` used, when given)."""
    if full is None:
        for tail in QUICK_TAILS:
            quick = race_time_distribution(policy, tail)
            got = [quick.certain_percentile(q) for q in qs]
            if all(certain for certain, _ in got):
                return tuple(v for _, v in got)
        full = race_time_distribution(policy)
    return tuple(full.percentile(q) for q in qs)


def race_time_distribution(policy: AdvancedPolicy, tail: float = TIME_TAIL) -> TimeDistribution:
    """The exact distribution of the race time under `policy` (the solve's own choices, the
    same forward order as the analysis), each state's mass kept apart by the resources left
    and the tenths driven so far; entries below `tail` are dropped and counted.

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


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class OptionUse:
    """Expected number of turns per race started that use each option."""

    push: float
    brake: float
    skip: float


@dataclass(frozen=True)
class FixAdvice:
    """Fix-points between a stage and the next, under the optimal policy.

    points: fix-points available. reach_probability: P(the car gets there, not out).
    expected_*: boxes unchecked per kind, and P(tyres changed), given the car got there.
    most_likely: the most frequent way the points are spent, with its probability.
    tyres_after: tyres on the car for the next stage, with probabilities."""

    points: int
    service_park: bool
    reach_probability: float
    expected_engine: float
    expected_brakes: float
    expected_gearbox: float
    expected_car: float
    tyre_change_probability: float
    most_likely: Fix
    most_likely_probability: float
    tyres_after: tuple[tuple[Surface, float], ...]


@dataclass(frozen=True)
class AdvancedStageAnalysis:
    """Figures of one stage under the race-optimal policy, per race started (times in s).

    par_time: expected time the stage adds to the race, DNF charge included when the car goes
    out on this stage (0 for a car already out): the stage par times add up to the race par.
    reach_probability: P(the car starts this stage). dnf_probability: P(it goes out here).
    expected_crashes: crashes on this stage (the one that puts the car out included).
    options: expected turns with push / brake / skip. locks: expected three-of-a-kind locks.
    tyres: tyres on the car for this stage, with probabilities given it starts the stage.
    fix: the fix-points after this stage (None after the last)."""

    name: str
    surface: Surface
    length: int
    par_time: float
    reach_probability: float
    dnf_probability: float
    expected_crashes: float
    options: OptionUse
    locks: float
    tyres: tuple[tuple[Surface, float], ...]
    corners: tuple[CornerAnalysis, ...]  # crash and drift per race started
    fix: FixAdvice | None


@dataclass(frozen=True)
class AdvancedRaceAnalysis:
    """The advanced-game analysis of a race.

    race_par_time: optimal expected race time with the DNF charge (seconds).
    tyres: tyres to choose before the race. tyre_par_times: race par with each allowed start
    tyre. dnf_probability: P(the car goes out on some stage). p10/p50/p90 (properties): the
    percentiles of the race time under the same policy, from `time_distribution`."""

    name: str
    stages: tuple[AdvancedStageAnalysis, ...]
    race_par_time: float
    dnf_probability: float
    tyres: Surface
    tyre_par_times: tuple[tuple[Surface, float], ...]
    boxes: Boxes
    dnf: DnfRule
    policy: AdvancedPolicy = field(repr=False, compare=False)

    @cached_property
    def time_distribution(self) -> TimeDistribution:
        """The race time under the optimal policy (computed on first use: it costs about as
        much as the solve, or more)."""
        return race_time_distribution(self.policy)

    @cached_property
    def percentiles(self) -> tuple[float | None, float | None, float | None]:
        """(p10, p50, p90), exactly those of `time_distribution`, computed on first use by
        :func:`race_time_percentiles` (about half the distribution's cost)."""
        full = self.__dict__.get("time_distribution")  # already worked out: no second pass
        p10, p50, p90 = race_time_percentiles(self.policy, (0.10, 0.50, 0.90), full)
        return p10, p50, p90

    @property
    def p10(self) -> float | None:
        """Race time (s) the optimal policy beats or equals in 10% of races (None: it goes out
        more often than 90% of the time); p50, p90 alike. A car that goes out never finishes."""
        return self.percentiles[0]

    @property
    def p50(self) -> float | None:
        return self.percentiles[1]

    @property
    def p90(self) -> float | None:
        return self.percentiles[2]


def analyze_race_advanced(
    race: Race,
    dnf_penalty: float = DEFAULT_DNF_PENALTY,
    dnf_space_seconds: float = DEFAULT_DNF_SPACE_SECONDS,
) -> AdvancedRaceAnalysis:
    """Solve `race` under the advanced rules exactly and compute its figures.

    A car that goes out is charged the time it drove, plus `dnf_penalty` seconds, plus
    `dnf_space_seconds` for every space of the race it did not reach (module docstring)."""
    dnf = DnfRule(float(dnf_penalty), float(dnf_space_seconds))
    policy = solve_race(race, dnf)
    grid = policy.grid
    start_mass = {t: np.zeros(grid.size) for t in race.tyres}
    start_mass[policy.start_tyres][grid.full] = 1.0
    stages = []
    total_out = 0.0
    for k, stage in enumerate(race.stages):
        tally = _StageTally(
            corner_crash=[0.0] * len(stage.corners), corner_drift=[0.0] * len(stage.corners)
        )
        end_mass = {}
        for t in race.tyres:
            m = start_mass[t]
            w = float(m.sum())
            if w <= 0:
                end_mass[t] = np.zeros(grid.size)
                continue
            tally.reach += w
            tally.tyres[t] = tally.tyres.get(t, 0.0) + w
            end_mass[t] = _forward_stage(policy.stages[k][t], grid, m, tally)
        total_out += tally.out
        fix = None
        if k < len(race.stages) - 1:
            start_mass, ft = _forward_fix(race, grid, policy.fixes[k], end_mass)
            e, b, g, c, tc = ft.expected
            fix = FixAdvice(
                points=policy.fixes[k].points,
                service_park=stage.service_park,
                reach_probability=ft.reach,
                expected_engine=e,
                expected_brakes=b,
                expected_gearbox=g,
                expected_car=c,
                tyre_change_probability=tc,
                most_likely=ft.most_likely,
                most_likely_probability=ft.most_likely_probability,
                tyres_after=ft.tyres_after,
            )
        corners = corner_figures(stage, tally.corner_crash, tally.corner_drift)
        reach = tally.reach
        stages.append(
            AdvancedStageAnalysis(
                name=stage.name,
                surface=stage.surface,
                length=stage.length,
                par_time=tally.tenths / 10,
                reach_probability=reach,
                dnf_probability=tally.out,
                expected_crashes=tally.crashes,
                options=OptionUse(tally.push, tally.brake, tally.skip),
                locks=tally.locks,
                tyres=tuple(
                    (t, tally.tyres[t] / reach) for t in race.tyres if tally.tyres.get(t, 0) > 0
                ),
                corners=corners,
                fix=fix,
            )
        )
    par = float(policy.stages[0][policy.start_tyres].start_value[grid.full]) / 10
    tyre_pars = tuple(
        (t, float(policy.stages[0][t].start_value[grid.full]) / 10) for t in race.tyres
    )
    return AdvancedRaceAnalysis(
        name=race.name,
        stages=tuple(stages),
        race_par_time=par,
        dnf_probability=total_out,
        tyres=policy.start_tyres,
        tyre_par_times=tyre_pars,
        boxes=race.boxes,
        dnf=dnf,
        policy=policy,
    )


# --------------------------------------------------------------------------- what a race sheet prints


@dataclass(frozen=True)
class StageSheetFigures:
    """What a race sheet prints of a stage's advanced analysis."""

    par_time: float


@dataclass(frozen=True)
class SheetFigures:
    """What a race sheet prints of the advanced analysis (the fields of
    :class:`AdvancedRaceAnalysis` of the same names, with the default DNF charge)."""

    race_par_time: float
    tyres: Surface
    dnf_probability: float
    p10: float | None
    p50: float | None
    p90: float | None
    stages: tuple[StageSheetFigures, ...]


def solver_subject(race: Race) -> str:
    """The canonical text of what the advanced solve reads of a race: its stages without
    their names, boxes and tyres, and numpy's version (a renamed race is not solved again)."""
    from dataclasses import replace

    return repr((tuple(replace(stage, name="") for stage in race.stages), race.boxes, race.tyres, np.__version__))


def sheet_figures(race: Race) -> SheetFigures | None:
    """The advanced figures a race sheet prints, or None for a race too large for the exact
    solve (over MAX_SOLVE_SIZE: the sheet prints without them).

    Solved by :func:`analyze_race_advanced`, and kept in the figures cache between runs
    (`sheetgen.cache.figures`: keyed by :func:`solver_subject` and the solver's import graph,
    so the figures are those it solves now; JSON gives the floats back exactly): a second
    `sheetgen build` reads them."""
    if solve_size(race) > MAX_SOLVE_SIZE:
        return None
    from sheetgen import cache

    got = cache.figures("rallytaire-sheet", solver_subject(race), __name__, lambda: _solve_sheet_figures(race))
    return SheetFigures(
        race_par_time=got["race_par_time"],
        tyres=Surface(got["tyres"]),
        dnf_probability=got["dnf_probability"],
        p10=got["p10"],
        p50=got["p50"],
        p90=got["p90"],
        stages=tuple(StageSheetFigures(par) for par in got["stage_par_times"]),
    )


def _solve_sheet_figures(race: Race) -> dict:
    a = analyze_race_advanced(race)
    return {
        "race_par_time": a.race_par_time,
        "tyres": a.tyres.value,
        "dnf_probability": a.dnf_probability,
        "p10": a.p10,
        "p50": a.p50,
        "p90": a.p90,
        "stage_par_times": [s.par_time for s in a.stages],
    }
