"""The optional compiled kernel of the Rallyman exact solvers (`_kernel.c`): what
:func:`sheetgen.games.rallyman.solve.par`, :func:`~sheetgen.games.rallyman.solve.safe_route`
and DIRT's :func:`sheetgen.games.rallyman.solve_dirt.par` hand it and read back.

The kernel is the reference's dynamic programme over flat arrays, the same float operations
in the same order, so its figures are the pure-Python solver's bit for bit
(tests/test_rallyman_kernel.py compares them with `==`). It is built by `pip install` where a
C compiler and Python's headers are at hand (setup.py, an optional extension); where it is
not built, or `SHEETGEN_ACCEL=off` is set, or the build is of another source than this
module names (:data:`SOURCE_SHA256`: a stale build after an edit of the C file), the
pure-Python solver runs. The figures cache keys entries by this module's source, which names
the C source's SHA-256, so a changed kernel never meets an old entry.

Python still gives the rules: the engine's dice from each cell and gear
(:func:`rules.next_dice`, through the solver's `_Moves`), asked by the kernel once each, and
the dice, gears, seconds and token costs of the ruleset as small tables.
"""

from __future__ import annotations

from typing import Any

from sheetgen import solvers
from sheetgen.games.rallyman import rules

#: the SHA-256 of `_kernel.c`, the source this module drives: a build of another is not used
#: (tests/test_rallyman_kernel.py checks it against the file)
SOURCE_SHA256 = "86c16cd7699e2a59e922b4e58f922d2c0040eb697028e23dc283677ff9c58c90"

_LOADED: list = []


def enabled() -> bool:
    """Whether the accelerator may be used: `SHEETGEN_ACCEL=off` (or 0, no, false) says not."""
    return solvers.enabled()


def kernel() -> Any:
    """The compiled kernel, or None where it is switched off, not built, or built from
    another source than :data:`SOURCE_SHA256`."""
    return solvers.load("sheetgen.games.rallyman._kernel", SOURCE_SHA256, _LOADED)


def available() -> bool:
    """Whether :func:`par_tables` will use the compiled kernel now."""
    return kernel() is not None


def _dice_tables(stage, dice, top: int) -> dict | None:
    """The dice as the kernel takes them (solve._Dice's codes, rules.die_gear's table), or
    None when they do not fit its fixed sizes."""
    ruleset = stage.ruleset
    names = list(ruleset.die_names)
    if not names or len(names) > 24 or top < 1 or top > 15:
        return None
    bit, shift, cap = [], [], []
    for n in names:
        b, s, c = dice.codes[n]
        if s > 59 or b >= 1 << 63:
            return None
        bit.append(b)
        shift.append(s)
        cap.append(c)
    die_gear = []
    for n in names:
        for g in range(top + 1):
            g2 = rules.die_gear(ruleset, n, g)
            die_gear.append(-1 if g2 is None or g2 < 1 or g2 > top else g2)
    return {
        "ndice": len(names),
        "bit": bit,
        "shift": shift,
        "die_cap": cap,
        "die_gear": die_gear,
        "gear_free": dice.gear_free,
    }


def par_tables(
    stage,
    *,
    moves,
    dice,
    canonical: bool,
    limit: int,
    cap: int,
    one_at_a_time: bool,
    secs: dict,
    sec: dict,
    earns: dict,
    tot_all: list,
    kmax_of: list,
    window: int,
    order: list,
    start: tuple,
    modes: tuple[str, str],
) -> tuple | None:
    """solve.par's `value` and `choice` tables solved by the kernel, and what its forward pass
    works out from them (`_forward`: the losses of control by cell, the expected turns, the
    turns by mode; None where the kernel leaves that pass to the reference), or None when the
    kernel is not available or does not take this stage (the caller solves in Python then).
    The arguments are those par() has worked out: `moves` its `_Moves`, `dice` its `_Dice`,
    `canonical` whether its `_canonical` marks unreachable gear dice used, `order` its
    `_race_order`, `modes` its names of flat out and one at a time."""
    module = kernel()
    if module is None:
        return None
    track = stage.track
    ruleset = stage.ruleset
    top = stage.top_gear
    tables = _dice_tables(stage, dice, top)
    if tables is None or any(g not in sec for g in range(1, top + 1)):
        return None
    hexes = [c.hex for c in track.cells]
    index = {h: i for i, h in enumerate(hexes)}
    names = list(ruleset.die_names)
    die_index = {n: i for i, n in enumerate(names)}
    chance = [moves.chance[n] for n in names]
    try:
        losssec = [0.0] + [secs[rules.loss_end(ruleset, g)] for g in range(1, top + 1)]
    except KeyError:
        return None
    laps = moves.laps_needed
    # OneTable's seconds (its own table: the ruleset's, as floats) and the losses to gear 00
    ot_secs = {g: float(s) for g, s in ruleset.time_per_turn}
    try:
        ot_sec = [0.0] + [ot_secs[str(g)] for g in range(1, top + 1)]
        ot_losssec = [0.0] + [ot_secs[rules.loss_end(ruleset, g)] for g in range(1, top + 1)]
    except KeyError:
        return None
    loss_out = [0] + [1 if rules.loss_end(ruleset, g) == rules.OUT else 0 for g in range(1, top + 1)]
    if not all(h in index for _pos, h, _c in order) or start[0] not in index:
        return None

    def moves_of(cell: int, gear: int) -> list:
        """The engine's dice from (cell, gear): (to, die, gear after, marks, finish line crossed)."""
        return [
            (index[s.to], die_index[s.die], s.gear, s.marks, c2) for s, c2, _done, _p, _q in moves(hexes[cell], 0, gear)
        ]

    spec = {
        "ncells": len(hexes),
        "laps": laps,
        "top": top,
        "canonical": 1 if canonical else 0,
        **tables,
        "limit": limit,
        "cap": cap,
        "one_at_a_time": 1 if one_at_a_time else 0,
        "window": window,
        "p": chance,
        "q": [1 - p for p in chance],
        "earns": [earns[n] for n in names],
        "sec": [sec.get(g, 0.0) for g in range(top + 1)],
        "losssec": losssec,
        "kmax_of": kmax_of,
        "tot": tot_all[:12],
        "order": [(pos, index[h], cross) for pos, h, cross in order],
        "start": (index[start[0]], start[1], start[2], start[3]),
        "ot_sec": ot_sec,
        "ot_losssec": ot_losssec,
        "loss_out": loss_out,
    }
    if len(spec["tot"]) != 12 or limit < 1 or limit * (max(kmax_of) + 1) > 64 or cap > 64:
        return None
    try:
        solved, forward = module.par(spec, moves_of)
    except ValueError:
        return None  # (a stage beyond the kernel's fixed sizes: the reference solves it)
    value: dict = {}
    choice: dict = {}
    lists: dict = {}  # (cell, crossings, gear) -> the moves' (step, crossings after it), by index
    for cell, cross, gear, f, v, mode, plan in solved:
        key = (hexes[cell], cross, gear, f)
        value[key] = v
        if mode >= 0:
            steps = []
            at, c, g = cell, cross, gear
            for i in plan:
                hit = lists.get((at, c, g))
                if hit is None:
                    hit = lists[at, c, g] = [(s, c2, index[s.to]) for s, c2, _done, _p, _q in moves(hexes[at], c, g)]
                s, c, at = hit[i]
                steps.append(s)
                g = s.gear
            choice[key] = (modes[mode], tuple(steps))
    if forward is not None:
        cells, turns, flat_turns, one_turns = forward
        forward = ({hexes[c]: q for c, q in cells}, turns, {modes[0]: flat_turns, modes[1]: one_turns})
    return value, choice, forward


def safe_route_plans(
    stage,
    *,
    moves,
    dice,
    canonical: bool,
    limit: int,
    kmax: int,
    focus_cap: int,
    secs: dict,
    risky: dict,
    earns: dict,
    total: list,
    share_laps: bool,
    start: Any,
    modes: tuple[str, str],
) -> tuple | None:
    """solve.safe_route's search by the kernel: None when it is not available or does not
    take this stage (the caller searches in Python then), else a 1-tuple of the route: None
    when no safe route reaches the finish, or (seconds, ((mode, plan), ...)). The arguments
    are those safe_route() has worked out, as for :func:`par_tables`."""
    module = kernel()
    if module is None:
        return None
    track = stage.track
    ruleset = stage.ruleset
    top = stage.top_gear
    tables = _dice_tables(stage, dice, top)
    if tables is None or any(
        not isinstance(secs.get(g), int) or isinstance(secs.get(g), bool) for g in range(1, top + 1)
    ):
        return None
    hexes = [c.hex for c in track.cells]
    index = {h: i for i, h in enumerate(hexes)}
    if start not in index:
        return None
    names = list(ruleset.die_names)
    die_index = {n: i for i, n in enumerate(names)}

    def moves_of(cell: int, gear: int) -> list:
        return [
            (index[s.to], die_index[s.die], s.gear, s.marks, c2) for s, c2, _done, _p, _q in moves(hexes[cell], 0, gear)
        ]

    spec = {
        "ncells": len(hexes),
        "laps": moves.laps_needed,
        "top": top,
        "canonical": 1 if canonical else 0,
        **tables,
        "limit": limit,
        "kmax": kmax,
        "focus_cap": focus_cap,
        "share_laps": 1 if share_laps else 0,
        "risky": [risky[n] for n in names],
        "earns": [earns[n] for n in names],
        "secs": [secs.get(g, 0) for g in range(top + 1)],
        "total": total,
        "start": (index[start], 0),
    }
    try:
        found = module.safe_route(spec, moves_of)
    except ValueError:
        return None  # (a stage beyond the kernel's fixed sizes: the reference searches it)
    if found is None:
        return (None,)
    seconds, turns = found
    plans = []
    for mode, cell, cross, gear, plan in turns:
        steps = []
        at, c, g = hexes[cell], cross, gear
        for i in plan:
            s, c2 = moves(at, c, g)[i][:2]
            steps.append(s)
            at, c, g = s.to, c2, s.gear
        plans.append((modes[mode], tuple(steps)))
    return ((seconds, tuple(plans)),)


#: DIRT's dice other than the gear dice, as the kernel numbers them from 1 (solve_dirt._key_used)
KINDS = ("coast", "leader", "brake", "boost")


def dirt_par_tables(
    stage,
    *,
    moves,
    pools: list,
    outcomes: dict,
    chance: dict,
    p_coast: float,
    coast_dice: int,
    known: dict | None,
    reaching: frozenset,
    start: tuple,
    choose: bool,
) -> tuple[dict, dict] | None:
    """solve_dirt._dp's `value` and `choice` tables solved by the kernel (`choice` empty
    without `choose`), or None when the kernel is not available or does not take this stage
    (the caller solves in Python then). The arguments are those _dp has worked out: `moves`
    its engine's dice of a state (cell, gear, coast lost, slide; the bans applied), `pools`
    the dice pool of each count of coast dice lost, `outcomes` solve_dirt.loss_outcomes."""
    module = kernel()
    if module is None:
        return None
    track = stage.track
    top = stage.top_gear
    hexes = [c.hex for c in track.cells]
    index = {h: i for i, h in enumerate(hexes)}
    names = [d.name for d in stage.ruleset.dice]
    die_index = {n: i for i, n in enumerate(names)}
    kind = [0 if n.isdigit() else 1 + KINDS.index(n) if n in KINDS else 4 for n in names]
    if start[0] not in index or any(n.isdigit() and int(n) > 15 for n in names):
        return None
    spec = {
        "ncells": len(hexes),
        "top": top,
        "coast_dice": coast_dice,
        "limit": stage.limit,
        "ndice": len(names),
        "p_coast": float(p_coast),
        "kind": kind,
        "gbit": [int(n) if n.isdigit() else 0 for n in names],
        "chance": [chance[n] for n in names],
        "pool": [x for dice, free in pools for x in (free, *(dice.get(k, 0) for k in KINDS))],
        "sec": [float(stage.seconds(g)) for g in range(top + 1)],
        "icons": [()] + [tuple((q, float(sec), g2) for _icon, q, sec, g2 in outcomes[g]) for g in range(1, top + 1)],
        "known": [] if known is None else [(index[k[0]], *k[1:], v) for k, v in known.items() if k[0] in index],
        "reaching": [index[h] for h in reaching if h in index],
        "start": (index[start[0]], start[1], start[2], start[3]),
    }

    def moves_of(cell: int, gear: int, lost: int, slide: int, braked: int) -> list:
        """The engine's dice from a state (a brake die placed before in the turn or not), as
        the kernel reads them."""
        return [
            (
                index[s.to],
                die_index[s.die],
                s.gear,
                s.marks,
                int(s.finishes),
                int(s.entry),
                s.slide,
                int(s.over),
                int(s.last),
                int(s.lose_always),
                int(s.lose_on_caution),
            )
            for s in moves(hexes[cell], gear, lost, slide, bool(braked))
        ]

    try:
        solved = module.dirt_par(spec, moves_of)
    except ValueError:
        return None  # (a stage beyond the kernel's fixed sizes: the reference solves it)
    value: dict = {}
    choice: dict = {}
    for cell, gear, lost, slide, seconds, plan in solved:
        key = (hexes[cell], gear, lost, slide)
        value[key] = seconds
        if choose and plan is not None:
            steps = []
            at, g, sl, braked = key[0], gear, slide, False
            for i in plan:
                s = moves(at, g, lost, sl, braked)[i]
                steps.append(s)
                at, g, sl, braked = s.to, s.gear, s.slide, braked or s.die == "brake"
            choice[key] = tuple(steps)
    return value, choice
