"""The rules engine of Rally Run! (sheetgen.engine's protocol): one immutable `RunState`.

A turn (RN-4 to RN-12 in docs/rulings.md):

- **act** (a decision): turn over a face-down road tile that borders the car's place and that
  its road leads to (`Flip`), drive onto a face-up tile its road leads to and whose road leads
  back (`Move`: a tile with another car, the pit stop, the car's finish), switch two face-down
  tiles (`Swap`, never one of the two the previous player just switched), or, with none of
  these, pass (`Pass`);
- **reveal** (chance): a tile never seen shows a kind drawn from the face-down tiles still
  unseen, each kind with probability (its unseen tiles) / (all unseen tiles); a tile seen
  before shows what everyone saw (no chance);
- **rotate** (a decision): turn the tile so that its road joins the car's (`Turn`) and leads
  on (from the start-finish tile, not only back to it: RN-16); in a player's first turn a dead
  end may instead face a bordering face-down road tile, never a start-finish tile; with no
  such rotation the tile is shown and laid face down again (`Show`);
- **trophy** (chance): a car first reaching the pit stop takes the top trophy, any of those
  not yet taken with equal probability; its colour names the finish to reach.

The car then stands on the tile; the tile it left is turned face down unless another car
stands on it. The first car to drive onto its finish wins; after `cap` turns in all the game
ends unfinished.

Places: grid cells are numbered `row * size + column`; the start-finish tiles come after them
(`size * size + corner`, corners NW, NE, SE, SW).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

from sheetgen.games.rally_run.model import (
    CORNERS,
    TileSet,
    opposite,
    outer_sides,
    turned,
)

UNSEEN = -1
PIT = -2
DOWN = -1

ACT, REVEAL, ROTATE, TROPHY, OVER = "act", "reveal", "rotate", "trophy", "over"

#: rounds a game may last before it ends unfinished
DEFAULT_ROUNDS = 100


class RulesError(ValueError):
    """An action that is not legal in the state it is applied to."""


@dataclass(frozen=True)
class Flip:
    cell: int


@dataclass(frozen=True)
class Move:
    place: int


@dataclass(frozen=True)
class Swap:
    a: int
    b: int


@dataclass(frozen=True)
class Pass:
    pass


@dataclass(frozen=True)
class Turn:
    quarter_turns: int


@dataclass(frozen=True)
class Show:
    pass


#: where each player count's cars start (corner indices): two cars on opposite corners
SEATS = {1: (0,), 2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}


@dataclass(frozen=True, eq=False)
class Table:
    """What does not change in a game: the set, the grid's neighbours, the rules' limits."""

    tiles: TileSet
    players: int
    cap: int  # turns in all (rounds x players)

    @cached_property
    def size(self) -> int:
        return self.tiles.size

    @cached_property
    def cells(self) -> int:
        return self.size * self.size

    @cached_property
    def pit(self) -> int:
        return (self.size // 2) * self.size + self.size // 2

    @cached_property
    def corner_cells(self) -> tuple[int, ...]:
        return tuple(r * self.size + c for r, c in (self.tiles.corner_cell(k) for k in range(4)))

    @cached_property
    def beyond(self) -> tuple[tuple[int | None, ...], ...]:
        """For each cell and side: the place over that side (a cell, a start-finish tile past a
        corner tile's outer sides, or None off the grid)."""
        n = self.size
        out = []
        for cell in range(self.cells):
            r, c = divmod(cell, n)
            sides: list[int | None] = []
            for side, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n:
                    sides.append(rr * n + cc)
                elif cell in self.corner_cells and side in outer_sides(self.corner_cells.index(cell)):
                    sides.append(self.cells + self.corner_cells.index(cell))
                else:
                    sides.append(None)
            out.append(tuple(sides))
        return tuple(out)

    @cached_property
    def roads(self) -> tuple[tuple[frozenset[int], ...], ...]:
        """Each kind's openings after 0..3 quarter turns."""
        return tuple(tuple(turned(k.openings, r) for r in range(4)) for k in self.tiles.kinds)

    @cached_property
    def turn_pairs(self) -> dict:
        """The policies' memo of (side in, side out) pairs by roads (filled as they go)."""
        return {}

    def name(self, place: int) -> str:
        if place >= self.cells:
            sf = self.tiles.start_finish[place - self.cells]
            return f"the {sf.name} ({sf.colour}, {sf.corner})"
        if place == self.pit:
            return f"the {self.tiles.pit_name}"
        r, c = divmod(place, self.size)
        return f"row {r + 1} column {c + 1}"


@dataclass(frozen=True)
class RunState:
    table: Table = field(repr=False)
    kinds: tuple[int, ...]  # per cell: kind index, UNSEEN, or PIT
    up: tuple[int, ...]  # per cell: quarter turns when face up, DOWN when face down
    pool: tuple[int, ...]  # unseen tiles of each kind
    cars: tuple[int, ...]  # per player: the place the car stands on
    goals: tuple[int, ...]  # per player: the corner of its finish, -1 before the pit stop
    taken: frozenset[int] = frozenset()  # trophies taken (indices into the set's trophies)
    player: int = 0
    turns: int = 0  # turns played in all
    last_swap: tuple[int, ...] = ()  # the two tiles the previous player switched
    phase: str = ACT
    pending: int = -1  # the tile being turned over
    winner: int = -1

    # -- the start --------------------------------------------------------------------
    @classmethod
    def start(cls, tiles: TileSet, players: int, rounds: int = DEFAULT_ROUNDS) -> RunState:
        """Every car on its start-finish tile (RN-3); a fixed board as the set lays it, else
        every road tile face down and unseen."""
        if players not in SEATS:
            raise RulesError(f"Rally Run! is for 1 to 4 players, got {players}")
        table = Table(tiles, players, rounds * players)
        n = table.cells
        kinds = [UNSEEN] * n
        up = [DOWN] * n
        kinds[table.pit] = PIT
        up[table.pit] = 0
        pool = [k.count for k in tiles.kinds]
        if tiles.board is not None:
            pool = [0] * len(pool)
            for p in tiles.board:
                cell = p.row * tiles.size + p.column
                kinds[cell] = p.kind
                up[cell] = p.turn if p.face_up else DOWN
        cars = tuple(n + corner for corner in SEATS[players])
        return cls(table, tuple(kinds), tuple(up), tuple(pool), cars, (-1,) * players)

    # -- what a car's road leads to ------------------------------------------------------
    def road(self, place: int) -> frozenset[int]:
        """The sides the road of a face-up place leaves by."""
        kind = self.kinds[place]
        if kind == PIT:
            return self.table.tiles.pit_openings
        return self.table.roads[kind][self.up[place]]

    def links(self, place: int) -> list[tuple[int, int | None]]:
        """(place next door, the side of it the car would come in by) for each way the road
        of the car's place leads; from a start-finish tile, both outer sides of its corner
        tile."""
        t = self.table
        if place >= t.cells:
            corner = place - t.cells
            return [(t.corner_cells[corner], e) for e in sorted(outer_sides(corner))]
        out = []
        for d in sorted(self.road(place)):
            there = t.beyond[place][d]
            if there is not None:
                out.append((there, None if there >= t.cells else opposite(d)))
        return out

    def face_down(self, cell: int) -> bool:
        return cell < self.table.cells and self.kinds[cell] != PIT and self.up[cell] == DOWN

    @cached_property
    def drives(self) -> tuple:
        """The flips and moves of the player to act, in place order."""
        if self.phase != ACT:
            return ()
        me = self.player
        flips, moves = {}, {}
        for there, side in self.links(self.cars[me]):
            if there >= self.table.cells:
                if self.goals[me] == there - self.table.cells:
                    moves[there] = Move(there)
            elif self.face_down(there):
                flips[there] = Flip(there)
            elif side in self.road(there):
                moves[there] = Move(there)
        return tuple(flips[c] for c in sorted(flips)) + tuple(moves[c] for c in sorted(moves))

    def swappable(self) -> list[int]:
        return [c for c in range(self.table.cells) if self.face_down(c) and c not in self.last_swap]

    @cached_property
    def swaps(self) -> tuple[Swap, ...]:
        if self.phase != ACT:
            return ()
        cells = self.swappable()
        return tuple(Swap(a, b) for i, a in enumerate(cells) for b in cells[i + 1 :])

    # `swaps` lists every pair of face-down tiles (thousands on a large board); a player who
    # picks one, and the check of the one picked, need not list them all
    @cached_property
    def _swappable(self) -> tuple[int, ...]:
        return tuple(self.swappable()) if self.phase == ACT else ()

    def swap_count(self) -> int:
        """len(self.swaps)."""
        k = len(self._swappable)
        return k * (k - 1) // 2

    def swap(self, index: int) -> Swap:
        """self.swaps[index]."""
        cells = self._swappable
        if not 0 <= index < self.swap_count():
            raise IndexError(index)
        for i, a in enumerate(cells):
            row = len(cells) - 1 - i  # the pairs (a, b) with b after a
            if index < row:
                return Swap(a, cells[i + 1 + index])
            index -= row
        raise IndexError(index)  # (not reached)

    def is_swap(self, x: Swap) -> bool:
        """x in self.swaps."""
        cells = set(self._swappable)
        return x.a < x.b and x.a in cells and x.b in cells

    def entries(self) -> set[int]:
        """The sides of the pending tile a road from the car's place comes in by."""
        # (the pending tile is on the board: a road into it has a side, never None)
        links = self.links(self.cars[self.player])
        return {side for there, side in links if there == self.pending and side is not None}

    @cached_property
    def rotations(self) -> tuple:
        """The pending tile's legal turns (each distinct road once), or Show."""
        kind = self.kinds[self.pending]
        roads = self.table.roads[kind]
        distinct = self.table.tiles.kinds[kind].turns()
        entries = self.entries()
        legal = [r for r in distinct if roads[r] & entries]
        if self.cars[self.player] >= self.table.cells:
            # RN-16: "a road for your car to continue on": from its start-finish tile a road
            # that leaves only back towards it (a curve facing both outer sides) leads nowhere;
            # a dead end leads nowhere whichever way it faces (RN-5 turns it in round 1)
            legal = [r for r in legal if roads[r] - entries] or legal
        first = self.turns < self.table.players
        if first and len(self.table.tiles.kinds[kind].openings) == 1 and self.cars[self.player] >= self.table.cells:
            # RN-5: the first-round dead end faces a bordering face-down road tile, never the
            # start-finish tile (there only when no such tile borders it)
            facing = [r for r in distinct if self._faces_face_down(self.pending, next(iter(roads[r])))]
            legal = facing or legal
        return tuple(Turn(r) for r in legal) or (Show(),)

    def _faces_face_down(self, cell: int, side: int) -> bool:
        there = self.table.beyond[cell][side]
        return there is not None and self.face_down(there)

    # -- the protocol --------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == OVER

    def chance_outcomes(self):
        if self.phase == REVEAL:
            total = sum(self.pool)
            return tuple((k, Fraction(n, total)) for k, n in enumerate(self.pool) if n)
        if self.phase == TROPHY:
            left = [j for j in range(len(self.table.tiles.trophies)) if j not in self.taken]
            return tuple((j, Fraction(1, len(left))) for j in left)
        return ()

    def legal_actions(self):
        if self.phase == ACT:
            return self.drives + self.swaps or (Pass(),)
        if self.phase == ROTATE:
            return self.rotations
        return ()

    def apply(self, x) -> RunState:
        if self.phase == REVEAL:
            if not (isinstance(x, int) and 0 <= x < len(self.pool) and self.pool[x] > 0):
                raise RulesError(f"no unseen tile of kind {x!r} is left")
            pool = list(self.pool)
            pool[x] -= 1
            return replace(self, kinds=_set(self.kinds, self.pending, x), pool=tuple(pool), phase=ROTATE)
        if self.phase == TROPHY:
            if x not in [o for o, _ in self.chance_outcomes()]:
                raise RulesError(f"trophy {x!r} is not on the pit stop")
            corner = self.table.tiles.finish_of(self.table.tiles.trophies[x].colour)
            return replace(self, goals=_set(self.goals, self.player, corner), taken=self.taken | {x})._next()
        if self.phase == ROTATE:
            if x not in self.rotations:
                raise RulesError(f"{x!r} is not a legal turn of the tile")
            if isinstance(x, Show):
                return replace(self, pending=-1)._next()
            up = _set(self.up, self.pending, x.quarter_turns)
            return replace(self, up=up, pending=-1)._drive(self.pending)
        if self.phase != ACT:
            raise RulesError("the game is over")
        if isinstance(x, Swap):
            if not self.is_swap(x):
                raise RulesError(f"{x!r} is not a legal switch")
            kinds = _set(_set(self.kinds, x.a, self.kinds[x.b]), x.b, self.kinds[x.a])
            return replace(self, kinds=kinds)._next(last_swap=(x.a, x.b))
        if x not in self.drives and not (isinstance(x, Pass) and self.legal_actions() == (Pass(),)):
            raise RulesError(f"{x!r} is not a legal action")
        if isinstance(x, Flip):
            return replace(self, pending=x.cell, phase=REVEAL if self.kinds[x.cell] == UNSEEN else ROTATE)
        if isinstance(x, Move):
            return self._drive(x.place)
        return self._next()

    # -- the car moves, the turn ends -----------------------------------------------------
    def _drive(self, place: int) -> RunState:
        me = self.player
        left = self.cars[me]
        cars = _set(self.cars, me, place)
        up = self.up
        if left < self.table.cells and self.kinds[left] != PIT and left not in cars:
            up = _set(up, left, DOWN)  # RN-8: face down again unless another car stands on it
        moved = replace(self, cars=cars, up=up)
        if place >= self.table.cells:
            return replace(moved, winner=me, phase=OVER, turns=self.turns + 1, last_swap=())
        if place == self.table.pit and self.goals[me] == -1 and len(self.taken) < len(self.table.tiles.trophies):
            return replace(moved, phase=TROPHY)
        return moved._next()

    def _next(self, last_swap: tuple[int, ...] = ()) -> RunState:
        turns = self.turns + 1
        phase = OVER if turns >= self.table.cap else ACT
        return replace(
            self, turns=turns, player=(self.player + 1) % self.table.players, last_swap=last_swap, phase=phase
        )

    @property
    def round(self) -> int:
        """The round the turn being played belongs to, from 1."""
        return self.turns // self.table.players + 1

    def corner_name(self, corner: int) -> str:
        return CORNERS[corner]


def _set(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]
