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
- One forward pass (:mod:`forward_advanced`) pushes probability mass (again arrays over
  resources) through the chosen policy: expected time per stage, P(DNF), option use, crashes
  per corner, fix-point use, the race time's distribution; :mod:`analysis_advanced` puts
  them together as the figures `analyze` reports and a race sheet prints.

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

#: Values (in tenths of a second) closer than this are ties.
TIE = 1e-9

#: The exact solve works on every (space or corner, box state, tyre) of the race, so its memory
#: and the part of its time spent on box states grow with their product: the bundled races are
#: under 200,000; 8 stages of 300 spaces with a corner after every space and the default boxes
#: (2.8 million) took 14 s on a busy 2-core machine, and 9 boxes of each kind (65 million)
#: 20-70 s and 800 MB. A race over this many is refused with its figures.
MAX_SOLVE_SIZE = 1_000_000

#: Building the solve's graph of a stage (the dice tables of every space, gear and tyre) costs
#: about 1.4 ms of CPU a (space or corner) x tyres whatever the boxes, and the race time's
#: distribution up to as much again on long races: 8 stages of 150 spaces and 3 tyres (4,251)
#: took 6.1 s to solve with one box of each kind and 8.3 s with the default boxes, 13.8 s with
#: the distribution (issue 33: answered within 10 s of CPU). A race over this many is refused
#: with its figures; at the limit, with the default boxes, the analysis takes about 5 s.
MAX_SOLVE_POINTS = 2_000

#: The race sheet prints the advanced figures of a race up to this many (spaces + corners) x
#: tyres (the bundled races: 550 to 850): laying the sheet out costs seconds of its own on a
#: long race, and `render` must answer within 10 s of CPU. A longer race's sheet prints without
#: them (`analyze --rules advanced` still gives them, up to MAX_SOLVE_POINTS).
SHEET_MAX_POINTS = 1_200

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
    """The exact advanced solve of a race would take too long (see MAX_SOLVE_POINTS, MAX_SOLVE_SIZE)."""


def _box_states(race: Race) -> int:
    b = race.boxes
    return (b.engine + 1) * (b.brakes + 1) * (b.gearbox + 1) * max(b.car, 1)


def solve_size(race: Race) -> int:
    """(spaces and corners of the race) x (box states) x (tyres): what the exact solve's memory
    grows with."""
    return solve_points(race) * _box_states(race)


def solve_points(race: Race) -> int:
    """(spaces and corners of the race) x (tyres): what building the solve's graphs grows with."""
    return sum(s.length + len(s.corners) for s in race.stages) * len(race.tyres)


def too_large_to_solve(race: Race) -> str | None:
    """Why the exact advanced solve of `race` is refused (over MAX_SOLVE_POINTS or
    MAX_SOLVE_SIZE), with the race's figures; None when it is not."""
    spaces = sum(s.length for s in race.stages)
    corners = sum(len(s.corners) for s in race.stages)
    points = solve_points(race)
    size = solve_size(race)
    if points > MAX_SOLVE_POINTS:
        return (
            f"the advanced game's exact analysis of this race is too long: ({spaces} spaces + {corners} corners) x "
            f"{len(race.tyres)} tyres = {points:,} (the limit is {MAX_SOLVE_POINTS:,}: about 10 s of CPU); "
            "fewer or shorter stages, fewer corners or tyres make it solvable"
        )
    if size > MAX_SOLVE_SIZE:
        return (
            f"the advanced game's exact analysis of this race is too large: ({spaces} spaces + {corners} corners) x "
            f"{_box_states(race)} box states x {len(race.tyres)} tyres = {size:,} (the limit is {MAX_SOLVE_SIZE:,}); "
            "fewer boxes, tyres, spaces or corners make it solvable"
        )
    return None


def check_solvable(race: Race) -> None:
    """Raise TooLargeToSolve, with the race's figures, when `race` is over MAX_SOLVE_POINTS or
    MAX_SOLVE_SIZE."""
    why = too_large_to_solve(race)
    if why is not None:
        raise TooLargeToSolve(why)


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
