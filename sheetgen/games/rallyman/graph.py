"""A Rallyman track as a networkx graph, and the checks that make a track unplayable.

The graph (`track_graph`, networkx): one node per cell (its `Hex`), with the cell's attributes; one edge per legal
forward move (`Track.moves`, rulings RM-3 to RM-6) with its attributes: `kind` (straight or
diagonal), `lane_change` (the move leaves its lane), `line_limit` and `line_caution` (the
inside line it crosses, if any), `off_road` (into or out of a shortcut space).

The checks (`track_problems`, for `validate --strict` and `build`), each located at what lays
the cell it names (its tile, the path or its explicit cell) and naming the cell:

- a track has starting spaces and finish spaces, and no cell is both;
- some finish space is reached from the start along legal moves (else the track cannot be
  finished: the message says where the road stops);
- no dead end: every cell but the finish spaces has a forward move (RM-7);
- every cell is reached from the start;
- placed tiles meet: across every side shared by two placed tiles, both have the same number
  of lanes (RM-8);
- every jump lands on a cell one and two moves ahead;
- every inside line is crossed by some move;
- a circuit of several laps leads from its finish back to its start (in one move or more);
- a stage (a track whose finish does not lead back to its start) has most of its cells
  before its finish: cells reached from the start only through a finish space are never
  driven (a car finishes there), and a track made mostly of them is refused.

The checks walk the same edges as a plain map of each cell to the cells its forward moves
reach (`Successors`, in `Track.moves`' order, as the graph's): they need nothing else of the
graph, and a command that only checks and solves a track (`analyze` from a cold process)
does not import networkx for them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from sheetgen.errors import Problem
from sheetgen.games.rallyman.hexgrid import DIRECTION_NAMES, DIRECTIONS, Hex, place, tile_of
from sheetgen.games.rallyman.model import Cell, TileDef, Track
from sheetgen.yamlsrc import Document

if TYPE_CHECKING:
    import networkx as nx

#: each cell's forward moves, as the cells they reach (each once, in `Track.moves`' order)
Successors = dict[Hex, tuple[Hex, ...]]


def successors(track: Track) -> Successors:
    """The edges of `track_graph`, without its attributes: cell -> cells reached in one move."""
    return {c.hex: tuple(dict.fromkeys(move.to for move in track.moves(c.hex))) for c in track.cells}


def track_graph(track: Track) -> nx.DiGraph:
    """Cells as nodes, legal forward moves as edges (see the module's docstring)."""
    import networkx as nx

    graph = nx.DiGraph(name=track.name, variant=track.variant.value)
    for c in track.cells:
        graph.add_node(
            c.hex,
            heading=c.heading,
            lane=c.lane,
            surface=c.surface.value,
            danger=c.danger.value,
            limit=c.limit,
            caution=c.caution,
            start=c.start,
            finish=c.finish,
            pit=c.pit,
            slide=c.slide,
            shortcut=c.shortcut,
            jump=c.jump,
            water=c.water,
            tile=c.tile,
        )
    for c in track.cells:
        for move in track.moves(c.hex):
            there = track.at(move.to)
            graph.add_edge(
                move.frm,
                move.to,
                kind=move.kind.value,
                lane_change=there.lane != c.lane,
                line_limit=move.line.limit if move.line else None,
                line_caution=bool(move.line and move.line.caution),
                off_road=(c.shortcut is not None) != (there.shortcut is not None),
            )
    return graph


def reached(graph: Successors, sources) -> set:
    seen = set(sources)
    queue = deque(seen)
    while queue:
        h = queue.popleft()
        for n in graph[h]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return seen


def where(doc: Document | None, track: Track, h: Hex, explicit: dict | None = None) -> tuple:
    """The path in the spec of what lays cell `h`: its explicit cell, else its tile, else
    the path (`explicit`: `explicit_cells(doc)`, when it is at hand)."""
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    explicit = explicit_cells(doc) if explicit is None else explicit
    if tuple(h) in explicit:
        return ("cells", explicit[tuple(h)])
    cell = track.cell(h)
    if cell is not None and cell.tile is not None:
        return ("tiles", cell.tile)
    if "path" in data:
        return ("path", "segments")
    return ()


def explicit_cells(doc: Document | None) -> dict:
    """(q, r) -> index in the spec's `cells` of its explicit cells."""
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    given = data.get("cells")
    cells = given if isinstance(given, list) else []
    return {(raw.get("q"), raw.get("r")): j for j, raw in reversed(list(enumerate(cells))) if isinstance(raw, dict)}


def _described(track: Track, h: Hex) -> str:
    cell = track.cell(h)
    text = f"cell {h}"
    if cell is not None and cell.tile is not None:
        p = track.placements[cell.tile]
        text += f" (tile {p.tile!r} at ({p.q}, {p.r}))"
    return text


def track_problems(doc: Document | None, track: Track) -> list[Problem]:
    """Every check of the module's docstring, as located problems."""
    problems: list[Problem] = []
    explicit = explicit_cells(doc)

    def problem(h: Hex | None, message: str) -> None:
        path = where(doc, track, h, explicit) if h is not None else _forms(doc)
        if doc is None:
            from sheetgen.errors import Location

            problems.append(Problem(Location("<track>", 1, 1), message))
        else:
            problems.append(doc.problem(path, message))

    graph = successors(track)
    starts = [c.hex for c in track.cells if c.start]
    finishes = {c.hex for c in track.cells if c.finish}
    if not starts:
        problem(None, "the track has no starting space: mark the cells behind the start line 'start: true'")
    if not finishes:
        problem(None, "the track has no finish space: mark the cells beyond the finish line 'finish: true'")
    problems.extend(tile_edge_problems(doc, track))
    for c in track.in_order():
        if c.start and c.finish:
            problem(
                c.hex,
                f"{_described(track, c.hex)} is both a starting space and a finish space: a car would finish before it "
                "moves "
                "(a stage needs at least one move from the start to the finish, a circuit a loop back to its start)",
            )
    if not starts or not finishes:
        return problems
    seen = reached(graph, starts)
    far = None
    if not seen & finishes:
        far = _farthest(graph, starts)
        problem(
            far,
            "the track cannot be finished: no finish space is reached from the start; the road stops at "
            f"{_described(track, far)}",
        )
    for c in track.cells:
        if not c.finish and not graph[c.hex] and c.hex in seen and c.hex != far:
            problem(
                c.hex,
                f"dead end: {_described(track, c.hex)} (heading {DIRECTION_NAMES[c.heading]}) has no forward move and "
                "is not a finish space",
            )
    for c in track.in_order():
        if c.hex not in seen:
            problem(c.hex, f"{_described(track, c.hex)} cannot be reached from the start")
    for c in track.cells:
        if c.jump is None:
            continue
        one = set(graph[c.hex])
        two = {n for h in one for n in graph[h]}
        if not one or not two:
            ahead = "one move" if not one else "two moves"
            problem(
                c.hex, f"the jump at {_described(track, c.hex)} (gear {c.jump}) lands nowhere: no cell {ahead} ahead"
            )
    for line in track.lines:
        if line.b not in graph.get(line.a, ()) and line.a not in graph.get(line.b, ()):
            problem(line.a, f"the inside line between {line.a} and {line.b} is crossed by no forward move")
    closing = circuit_finish(track, graph)
    if track.laps > 1 and closing is None:
        first = min(finishes)
        problem(
            first,
            f"a track of {track.laps} laps is a circuit, but no move leads from its finish (e.g. {first}) back to "
            "its start",
        )
    if closing is None and seen & finishes:
        beyond = beyond_finish(track, graph)
        if 2 * len(beyond) > len(track.cells):
            first_finish = next(c.hex for c in track.in_order() if c.finish and c.hex in seen)
            problem(
                first_finish,
                f"most of the track lies beyond its finish: {len(beyond)} of its {len(track.cells)} cells are reached "
                f"only through the finish at {_described(track, first_finish)}, where a car finishes; lay the finish "
                "where the road ends (a circuit's finish leads back to its start)",
            )
    return problems


def circuit_finish(track: Track, graph: Successors | None = None) -> Hex | None:
    """A finish space from which forward moves (one or more) lead back to a starting space, the
    first in track order: the road closes through the finish and start lines, and the track
    is a circuit (driven for its laps); None for a stage, driven from its start to its
    finish once."""
    graph = successors(track) if graph is None else graph
    starts = {c.hex for c in track.cells if c.start}
    for c in track.in_order():
        if c.finish and reached(graph, set(graph[c.hex])) & starts:
            return c.hex
    return None


def beyond_finish(track: Track, graph: Successors | None = None) -> set[Hex]:
    """The cells of a stage reached from its start only through a finish space: a car finishes
    on reaching the finish, so it never drives them."""
    graph = successors(track) if graph is None else graph
    finishes = {c.hex for c in track.cells if c.finish}
    before = {c.hex for c in track.cells if c.start}
    queue = deque(before)
    while queue:
        h = queue.popleft()
        if h in finishes:
            continue
        for n in graph[h]:
            if n not in before:
                before.add(n)
                queue.append(n)
    return reached(graph, {c.hex for c in track.cells if c.start}) - before


def _forms(doc: Document | None) -> tuple:
    data = doc.data if doc is not None and isinstance(doc.data, dict) else {}
    return next(((key,) for key in ("cells", "path", "tiles") if key in data), ())


def _farthest(graph: Successors, starts: list[Hex]) -> Hex:
    """The cell reached last going forward from the start (where the road stops)."""
    depth = {h: 0 for h in starts}
    queue = deque(starts)
    while queue:
        h = queue.popleft()
        for n in graph[h]:
            if n not in depth:
                depth[n] = depth[h] + 1
                queue.append(n)
    return max(depth, key=lambda h: (depth[h], -h.r, -h.q))


def crossing_cells(track: Track, index: int, toward: tuple[int, int]) -> set[Hex]:
    """The cells of placement `index` that carry a lane across its side toward the tile
    position `toward` (ruling RM-8): the half cell of that side, and every whole cell whose
    cell ahead or behind (along its heading) lies wholly on the tile over there."""
    p = track.placements[index]
    return {c.hex for c in _crossing(p.cells, p.frame, toward)}


def _crossing(cells: Iterable[Cell], frame: str, toward: tuple[int, int]) -> list[Cell]:
    """`crossing_cells` of a tile's cells on the grid (`frame`: its library's)."""
    out = []
    for c in cells:
        if c.shortcut is not None:  # off the road: no lane
            continue
        owners = tile_of(c.hex, frame)
        if len(owners) == 2 and toward in owners:
            out.append(c)
            continue
        if any(tile_of(c.hex + DIRECTIONS[c.heading].scaled(sign), frame) == (toward,) for sign in (1, -1)):
            out.append(c)
    return out


def choose_reversals(tiles: list[tuple[TileDef, int, int, int]], frame: str) -> frozenset[int]:
    """Which of `tiles` (each a library tile, its tile coordinates and rotation, in the order
    of a Rekee file) are driven the other way (`reverse: true`, ruling RM-18) for the track to
    connect: across every side two of them share, the road leaves one and enters the other.

    Each tile's road crosses a shared side leaving it (its crossing cells, `crossing_cells`,
    head across that side: within 60 degrees of the side's direction) or entering it (all of
    them the other way; a side it crosses both ways says nothing). Two neighbours whose roads
    both leave, or both enter, across their side need exactly one of them reversed; two that
    meet need both or neither. Each group of tiles so joined has two ways to be driven, one
    the other turned round; the chosen one reverses no tile when the track connects as laid,
    else keeps forward the most tiles holding a start or finish space, then reverses the fewest
    tiles, then keeps its first tile in the file forward. A group whose sides cannot all be
    met (a road leaving a tile across two sides that each need it entering) keeps every tile
    forward, and the track's checks say where it does not connect."""
    cells: list[list[Cell]] = []
    for tile, q, r, rotation in tiles:
        cells.append(
            [
                replace(c, hex=place(c.hex, q, r, rotation, frame), heading=(c.heading + rotation) % 6)
                for c in tile.cells
            ]
        )
    at = {(q, r): i for i, (_t, q, r, _k) in enumerate(tiles)}

    def flow(i: int, d: int) -> int:
        """+1: the road of tile i leaves it across its side d; -1: enters; 0: neither or both."""
        q, r = tiles[i][1], tiles[i][2]
        across = _crossing(cells[i], frame, (q + DIRECTIONS[d].q, r + DIRECTIONS[d].r))
        signs = {1 if (c.heading - d) % 6 in (0, 1, 5) else -1 for c in across}
        return signs.pop() if len(signs) == 1 else 0

    # the sides two tiles share, and whether one of them must be turned round (1) or not (0)
    joined: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(tiles))}
    for i, (_t, q, r, _k) in enumerate(tiles):
        for d in range(6):
            j = at.get((q + DIRECTIONS[d].q, r + DIRECTIONS[d].r))
            if j is None or j <= i:
                continue
            mine, theirs = flow(i, d), flow(j, (d + 3) % 6)
            if mine and theirs:
                need = 1 if mine == theirs else 0
                joined[i].append((j, need))
                joined[j].append((i, need))
    marked = {i for i, (tile, *_rest) in enumerate(tiles) if any(c.start or c.finish for c in tile.cells)}
    chosen: set[int] = set()
    seen: set[int] = set()
    for first in range(len(tiles)):
        if first in seen:
            continue
        turned = {first: 0}
        queue = deque([first])
        consistent = True
        while queue:
            i = queue.popleft()
            for j, need in joined[i]:
                if j not in turned:
                    turned[j] = turned[i] ^ need
                    queue.append(j)
                elif turned[j] != turned[i] ^ need:
                    consistent = False
        seen.update(turned)
        if not consistent:
            continue
        one = {i for i, t in turned.items() if t}
        other = set(turned) - one
        if not one:
            continue

        costs = [(len(rev & marked), len(rev), first in rev) for rev in (one, other)]
        chosen |= one if costs[0] <= costs[1] else other
    return frozenset(chosen)


def tile_edge_problems(doc: Document | None, track: Track) -> list[Problem]:
    """Two placed tiles side by side with different lane counts across their shared side."""
    at = {(p.q, p.r): i for i, p in enumerate(track.placements)}
    problems = []
    for i, p in enumerate(track.placements):
        for d in range(6):
            other = (p.q + DIRECTIONS[d].q, p.r + DIRECTIONS[d].r)
            j = at.get(other)
            if j is None or j < i:
                continue
            mine, theirs = len(crossing_cells(track, i, other)), len(crossing_cells(track, j, (p.q, p.r)))
            if mine != theirs:
                o = track.placements[j]
                message = (
                    f"tiles do not meet: tile {p.tile!r} at ({p.q}, {p.r}) has {mine} lane{'s' if mine != 1 else ''} "
                    "across its "
                    f"{DIRECTION_NAMES[d]} side, tile {o.tile!r} at ({o.q}, {o.r}) has {theirs} across it"
                )
                if doc is None:
                    from sheetgen.errors import Location

                    problems.append(Problem(Location("<track>", 1, 1), message))
                else:
                    problems.append(doc.problem(("tiles", j), message))
    return problems
