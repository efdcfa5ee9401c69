"""The board as a graph (networkx): can a car get from a start to the pit stop, and from the
pit stop to a finish, with the rotations its player may choose?

A road tile is turned face up again (and turned as its player likes) every time a car drives
onto it, so the graph's nodes are (place, side the car came in by): a car on a tile entered by
side `e` can leave by any side `d` of some rotation of the tile that opens both on `e` and on
`d` (a dead end only back where it came from). A face-up tile of a fixed board keeps its
rotation (it is a road already laid). The other nodes are each corner's start, each corner's
finish and the pit stop, whose openings are fixed. Switching tiles is not in the graph: it is a
board as it lies (see RN-14 in docs/rulings.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from sheetgen.games.rally_run.model import (
    CORNERS,
    TileSet,
    opposite,
    outer_sides,
    turned,
)

STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (row, column) step of sides N, E, S, W


@dataclass(frozen=True)
class Laid:
    """One road tile as it lies: its openings as printed, and its quarter turns when face up
    (None: face down, any rotation when a car turns it over)."""

    openings: frozenset[int]
    turn: int | None = None

    def roads(self) -> list[frozenset[int]]:
        if self.turn is not None:
            return [turned(self.openings, self.turn)]
        return list(dict.fromkeys(turned(self.openings, r) for r in range(4)))


def board_of(tiles: TileSet) -> dict[tuple[int, int], Laid]:
    """The fixed board of a tile set as laid tiles."""
    assert tiles.board is not None
    return {(p.row, p.column): Laid(tiles.kinds[p.kind].openings, p.turn if p.face_up else None) for p in tiles.board}


def road_graph(tiles: TileSet, board: dict[tuple[int, int], Laid], first_round: bool = True) -> nx.DiGraph:
    """The graph of where a car can drive on `board` (every grid place but the pit stop).
    `first_round`: a start may use the first-round dead-end exception (RN-5)."""
    size = tiles.size
    pit = tiles.pit
    graph = nx.DiGraph()

    def inside(cell):
        return 0 <= cell[0] < size and 0 <= cell[1] < size

    def beyond(cell, side):
        return (cell[0] + STEP[side][0], cell[1] + STEP[side][1])

    def enterable(cell, side) -> bool:
        if cell == pit:
            return side in tiles.pit_openings
        return any(side in road for road in board[cell].roads())

    def node(cell, side):
        return "pit" if cell == pit else (cell, side)

    corner_of = {tiles.corner_cell(k): k for k in range(4)}
    for cell, laid in board.items():
        for road in laid.roads():
            for e in road:
                if not enterable(cell, e):
                    continue
                for d in road:
                    there = beyond(cell, d)
                    if inside(there):
                        if enterable(there, opposite(d)):
                            graph.add_edge((cell, e), node(there, opposite(d)))
                    elif cell in corner_of and d in outer_sides(corner_of[cell]):
                        graph.add_edge((cell, e), ("finish", corner_of[cell]))
    for d in tiles.pit_openings:
        there = beyond(pit, d)
        if inside(there) and enterable(there, opposite(d)):
            graph.add_edge("pit", (there, opposite(d)))
    graph.add_node("pit")
    for k in range(4):
        cell = tiles.corner_cell(k)
        start = ("start", k)
        graph.add_node(start)
        graph.add_node(("finish", k))
        for e in outer_sides(k):
            if enterable(cell, e):
                graph.add_edge(start, (cell, e))
        laid = board[cell]
        if first_round and laid.turn is None and len(laid.openings) == 1:
            # a dead end turned over in the first round may face a bordering tile instead
            for d in range(4):
                there = beyond(cell, d)
                if d not in outer_sides(k) and inside(there) and there != pit and enterable(there, opposite(d)):
                    graph.add_edge(start, (there, opposite(d)))
    return graph


@dataclass(frozen=True)
class StartReach:
    corner: str
    colour: str
    name: str
    reaches_pit: bool
    reaches_finish: bool  # from the pit stop, a car can reach this start-finish tile


def reachability(tiles: TileSet, board: dict[tuple[int, int], Laid]) -> tuple[StartReach, ...]:
    """For each start-finish tile: can a car starting there reach the pit stop, and can a car
    at the pit stop reach it as its finish."""
    graph = road_graph(tiles, board)
    from_pit = nx.descendants(graph, "pit")
    out = []
    for k, sf in enumerate(tiles.start_finish):
        out.append(
            StartReach(
                CORNERS[k], sf.colour, sf.name, nx.has_path(graph, ("start", k), "pit"), ("finish", k) in from_pit
            )
        )
    return tuple(out)


def sealed_starts(tiles: TileSet, board: dict[tuple[int, int], Laid]) -> int:
    """How many starts of `board` cannot reach the pit stop."""
    return sum(not r.reaches_pit for r in reachability(tiles, board))
