"""Seeded play of Rally Run! through `sheetgen.engine.playout`, with two documented policies.

- **greedy**: a driver heading for its goal (the pit stop, then the finish its trophy names)
  by graph distance over the roads as the players know them (`distances`: nodes are (tile,
  side the car came in by); a tile never seen counts as a crossing, a face-down tile seen
  before as its kind in any rotation, a face-up tile as it lies). It turns over or drives
  onto the place next door nearest its goal (on a tie, the legal actions' order: tiles to
  turn over, then drives, each in place order) and turns the tile so that its road leads on
  to the place nearest the goal (the first such turn on a tie). With no known way to its goal
  it switches a known dead end out of the way when that opens one (`_unblocking_swap`), else
  drives anyway (exploring), else switches the first two tiles it may (or passes). The game
  stops when a position comes back at a player's decision: with no tile drawn since, the
  greedy drivers would repeat the same turns for ever (a loop, RN-21).
- **random**: a random legal player: drives (turns a tile over or drives onto one) or switches
  two tiles with equal chance when it may do both, then picks one such action at random, and
  turns a tile at random; it draws from the game's seeded generator.

The same set, players, policy and seed give the same game.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sheetgen.engine import playout
from sheetgen.games.rally_run.model import TileSet, opposite
from sheetgen.games.rally_run.rules import (
    ACT,
    DEFAULT_ROUNDS,
    DOWN,
    ROTATE,
    UNSEEN,
    Flip,
    Move,
    RunState,
    Show,
    Swap,
    Turn,
)

POLICIES = ("greedy", "random")
FAR = 10**6


def distances(state: RunState, goal: int) -> dict:
    """Turns from every (cell, side the car came in by), the pit stop ("pit") and `goal` to
    `goal` (the pit stop's cell or a start-finish place) over the road graph as the players
    know it: a tile never seen counts as a crossing, a face-down tile seen before as its kind
    in any rotation, a face-up tile as it lies."""
    t = state.table
    n = t.cells
    pit_open = t.tiles.pit_openings
    roads = [None if cell == t.pit else _roads(state, cell) for cell in range(n)]
    enter = [pit_open if road is None else frozenset().union(*road) for road in roads]
    out: list[list] = []  # per cell and side: the node a car leaving by that side comes to
    for cell in range(n):
        ahead: list[int | str | tuple[int, int] | None] = []
        for d in range(4):
            there = t.beyond[cell][d]
            if there is None or (there >= n and there != goal):
                ahead.append(None)
            elif there >= n:
                ahead.append(there)
            elif (d + 2) % 4 not in enter[there]:
                ahead.append(None)
            else:
                ahead.append("pit" if there == t.pit else (there, (d + 2) % 4))
        out.append(ahead)
    back: dict = {}
    for cell in range(n):
        road = roads[cell]
        if road is None:  # the pit stop's cell
            for d in pit_open:
                if out[cell][d] is not None:
                    back.setdefault(out[cell][d], []).append("pit")
            continue
        for e, d in _pairs(t, road):
            nxt = out[cell][d]
            if nxt is not None:
                back.setdefault(nxt, []).append((cell, e))
    start = "pit" if goal == t.pit else goal
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for prev in back.get(here, ()):
            if prev not in dist:
                dist[prev] = dist[here] + 1
                queue.append(prev)
    return dist


def _roads(state: RunState, cell: int) -> tuple[frozenset[int], ...]:
    kind = state.kinds[cell]
    if state.up[cell] != DOWN:
        return (state.road(cell),)
    if kind == UNSEEN:
        return (EVERY_SIDE,)
    return state.table.roads[kind]


def _pairs(table, roads: tuple[frozenset[int], ...]) -> frozenset[tuple[int, int]]:
    """(side in, side out) of some road among `roads`, kept with the game's table."""
    known = table.turn_pairs
    found = known.get(roads)
    if found is None:
        found = known[roads] = frozenset((e, d) for road in roads for e in road for d in road)
    return found


EVERY_SIDE = frozenset(range(4))


def _unblocking_swap(state: RunState, goal: int, drives, links) -> Swap | None:
    """With no known way to the goal: the switch of a known dead end (or blank) with another
    face-down tile that opens the shortest way, trying the four dead ends nearest the car or
    the goal and the four other tiles farthest from both (unseen tiles first); None when no
    such switch opens a way."""
    t = state.table
    here, there = _where(t, state.cars[state.player]), _where(t, goal)
    cells = state.swappable()

    def near(cell: int) -> int:
        r, c = divmod(cell, t.size)
        return min(abs(r - a) + abs(c - b) for a, b in (here, there))

    def known_dead(cell: int) -> bool:
        return state.kinds[cell] != UNSEEN and len(t.tiles.kinds[state.kinds[cell]].openings) <= 1

    blockers = sorted((c for c in cells if known_dead(c)), key=lambda c: (near(c), c))[:4]
    others = sorted((c for c in cells if not known_dead(c)), key=lambda c: (state.kinds[c] != UNSEEN, -near(c), c))[:4]
    best, found = FAR, None
    for a in blockers:
        for b in others:
            kinds = list(state.kinds)
            kinds[a], kinds[b] = kinds[b], kinds[a]
            dist = distances(replace(state, kinds=tuple(kinds)), goal)
            value = min(
                (
                    dist.get(_node(state, p, side, goal), FAR)
                    for p, side in links
                    if any(_target(d) == p for d in drives)
                ),
                default=FAR,
            )
            if value < best:
                best, found = value, Swap(min(a, b), max(a, b))
    return found


def _target(action) -> int:
    return action.cell if isinstance(action, Flip) else action.place


def _where(table, place: int) -> tuple[int, int]:
    if place >= table.cells:
        return table.tiles.corner_cell(place - table.cells)
    return divmod(place, table.size)


def goal_of(state: RunState, player: int) -> int:
    goal = state.goals[player]
    return state.table.pit if goal == -1 else state.table.cells + goal


def _node(state: RunState, place: int, side: int | None, goal: int):
    if place == goal or (place == state.table.pit and goal == state.table.pit):
        return "pit" if place == state.table.pit else goal
    if place == state.table.pit:
        return "pit"
    return (place, side)


def greedy(state: RunState):
    """The greedy driver's choice (see the module's docstring)."""
    goal = goal_of(state, state.player)
    dist = distances(state, goal)
    if state.phase == ACT:
        drives = state.drives
        links = state.links(state.cars[state.player])

        def value(action) -> int:
            place = action.cell if isinstance(action, Flip) else action.place
            return min(dist.get(_node(state, place, side, goal), FAR) for there, side in links if there == place)

        best = min(drives, key=value) if drives else None
        if best is not None and value(best) < FAR:
            return best
        swap = _unblocking_swap(state, goal, drives, links)
        if swap is not None:
            return swap
        return best or state.legal_actions()[0]
    if state.phase == ROTATE:
        choices = state.rotations
        if isinstance(choices[0], Show):
            return choices[0]
        cell = state.pending
        roads = state.table.roads[state.kinds[cell]]

        def onward(turn: Turn) -> int:
            best = FAR
            for d in roads[turn.quarter_turns]:
                there = state.table.beyond[cell][d]
                if there is None or (there >= state.table.cells and there != goal):
                    continue
                if there == state.table.pit and opposite(d) not in state.table.tiles.pit_openings:
                    continue
                best = min(best, dist.get(_node(state, there, opposite(d), goal), FAR))
            return best

        return min(choices, key=onward)
    raise ValueError("the greedy driver is asked only at a decision")


def random_player(rng: random.Random):
    """The random legal player, drawing from `rng`."""

    def choose(state: RunState):
        if state.phase == ACT:
            # a drive or a switch, then one of them (the switches picked by their index: the
            # pairs of face-down tiles are not all listed)
            kinds: list[tuple[int, Callable[[int], Any]]] = []
            if state.drives:
                kinds.append((len(state.drives), state.drives.__getitem__))
            if state.swap_count():
                kinds.append((state.swap_count(), state.swap))
            if not kinds:
                return state.legal_actions()[0]
            count, pick = kinds[0] if len(kinds) == 1 else kinds[rng.randrange(2)]
            return pick(rng.randrange(count))
        actions = state.legal_actions()
        return actions[rng.randrange(len(actions))]

    return choose


@dataclass(frozen=True)
class Step:
    state: RunState
    choice: Any  # the engine's: a chance outcome or an action (sheetgen.engine)
    after: RunState


@dataclass(frozen=True)
class Game:
    """One played game: its end, every step, and the turns (rounds) the winner took.

    looped: the turn (counted from 0) whose position came back at `end` (RN-21): the game
    stopped there, a greedy game that would have gone round for ever; None otherwise."""

    end: RunState
    steps: tuple[Step, ...]
    looped: int | None = None

    @property
    def finished(self) -> bool:
        return self.end.winner >= 0

    @property
    def rounds(self) -> int:
        """The winner's own turns (the rounds played), or the cap's rounds unfinished (a
        loop too: it would have run to the cap)."""
        turns = self.end.table.cap if self.looped is not None else self.end.turns
        return (turns - 1) // self.end.table.players + 1


class _Looped(Exception):
    def __init__(self, state: RunState, since: int):
        super().__init__("a position came back")
        self.state, self.since = state, since


def position(state: RunState) -> tuple:
    """What a player's decision depends on, all but the turn count: every tile (kind, face,
    turn), the unseen pile, the cars, their goals, the trophies taken, who plays, the switch
    he may not undo and whether it is round 1 (RN-5)."""
    first = state.turns < state.table.players
    s = state
    return (s.kinds, s.up, s.pool, s.cars, s.goals, s.taken, s.player, s.last_swap, first)


def _loop_guard(chooser: Callable[[RunState], Any]) -> Callable[[RunState], Any]:
    """The greedy driver, stopping the game when a position comes back (RN-21): the unseen
    pile is the same, so no tile was drawn in between (the pile only shrinks), and the
    greedy choice is a function of the position: the same turns would follow for ever."""
    seen: dict[tuple, int] = {}

    def choose(state: RunState):
        if state.phase == ACT:
            key = position(state)
            if key in seen:
                raise _Looped(state, seen[key])
            seen[key] = state.turns
        return chooser(state)

    return choose


def play(
    tiles: TileSet, seed: int, players: int, policy: str = "greedy", rounds: int = DEFAULT_ROUNDS, keep: bool = True
) -> Game:
    """One seeded game of `players` under `policy`."""
    rng = random.Random(seed)
    chooser = _loop_guard(greedy) if policy == "greedy" else random_player(rng)
    steps: list[Step] = []
    record = (lambda s, x, after: steps.append(Step(s, x, after))) if keep else None
    try:
        end = playout(RunState.start(tiles, players, rounds), chooser, rng, record)
    except _Looped as loop:
        return Game(loop.state, tuple(steps), loop.since)
    return Game(end, tuple(steps))


def transcript(game: Game) -> list[str]:
    """The game turn by turn, as a player would tell it."""
    t = game.end.table
    kinds = t.tiles.kinds
    lines: list[str] = []
    words: list[str] = []
    for step in game.steps:
        s, x, after = step.state, step.choice, step.after
        who = f"Round {s.round}, player {s.player + 1}"
        if isinstance(x, Flip):
            seen = "" if s.kinds[x.cell] == UNSEEN else " (seen before)"
            words = [f"{who}: turns over {t.name(x.cell)}{seen}"]
            if s.kinds[x.cell] != UNSEEN:
                words.append(f"a {kinds[s.kinds[x.cell]].name}")
            continue
        if s.phase == "reveal":
            words.append(f"a {kinds[x].name}")
            continue
        if isinstance(x, Turn):
            words.append(f"turned {x.quarter_turns * 90} degrees, and drives onto it")
        elif isinstance(x, Show):
            words.append("no road joins: face down again, the car stays")
        elif isinstance(x, Move):
            words = [f"{who}: drives onto {t.name(x.place)}"]
        elif isinstance(x, Swap):
            words = [f"{who}: switches {t.name(x.a)} and {t.name(x.b)}"]
        elif s.phase == "trophy":
            trophy = t.tiles.trophies[x]
            words.append(f"takes the {trophy.name}: finish at the {trophy.colour} start-finish tile")
        elif s.phase == ACT:
            words = [f"{who}: cannot drive or switch, passes"]
        if after.phase in (ACT, "over"):
            lines.append(", ".join(words))
            words = []
    end = game.end
    if game.looped is not None:
        since = game.looped // t.players + 1
        lines.append(
            f"Round {end.round}, player {end.player + 1}: the position of round {since} again (every tile, car and "
            "trophy alike); the greedy drivers would play the same turns for ever. No winner: a loop."
        )
    elif end.winner >= 0:
        lines.append(f"Player {end.winner + 1} wins in round {game.rounds}.")
    else:
        lines.append(f"No winner after {end.table.cap // end.table.players} rounds.")
    return lines
