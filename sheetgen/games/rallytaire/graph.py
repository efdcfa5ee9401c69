"""A Rallytaire stage as a networkx graph, and the structural checks asked of it.

Nodes are positions: 0 is behind the start line, 1..L are the spaces, L+1 is the
invisible space after the finish line. Edges go from each position to the next; the edge
that a corner's line lies across carries the corner, and each node lists the planning
zones it lies in.

The structural checks ask the questions of that graph without building it (networkx is
imported only by `stage_graph`, so that validating a spec does not load it): the graph is a
path from START to the finish, so it has no cycle, the finish is reached, and a position
leads to another exactly when it is not after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sheetgen.games.rallytaire.model import Stage

if TYPE_CHECKING:
    import networkx as nx

START = 0


def stage_graph(stage: Stage) -> nx.DiGraph:
    import networkx as nx

    graph = nx.DiGraph(name=stage.name, surface=stage.surface.value, length=stage.length)
    finish = stage.finish
    for position in range(START, finish + 1):
        kind = "start" if position == START else "finish" if position == finish else "space"
        graph.add_node(position, kind=kind, zones=())
    for position in range(START, finish):
        graph.add_edge(position, position + 1, corner=None)
    for index, corner in enumerate(stage.corners):
        if graph.has_edge(corner.after, corner.after + 1):
            graph.edges[corner.after, corner.after + 1]["corner"] = index
        for position in range(max(corner.zone, 1), min(corner.after, stage.length) + 1):
            graph.nodes[position]["zones"] += (index,)
    return graph


def structural_problems(stage: Stage) -> list[tuple[tuple, str]]:
    """Graph questions about a stage whose values are in range: (path within the stage, message).

    The answers are those of `stage_graph(stage)`: the edge after space `a` exists for
    START <= a < finish and carries the last corner across it; position z leads to position a
    when START <= z <= a <= finish (tests/test_graph.py asks both)."""
    finish = stage.finish
    problems: list[tuple[tuple, str]] = []
    # a path graph START..finish: acyclic, and the finish is reached (finish >= START + 1)
    if finish < START + 1:
        problems.append(((), "the finish cannot be reached from the start"))
    across: dict[int, int] = {}  # edge (a, a + 1) -> the corner it carries (the last one given)
    for index, corner in enumerate(stage.corners):
        if START <= corner.after < finish:
            across[corner.after] = index
    for index, corner in enumerate(stage.corners):
        if across.get(corner.after) != index:
            problems.append(
                (("corners", index, "after"), f"corner after space {corner.after} does not lie across the track")
            )
            continue
        if not START <= corner.zone <= finish:  # no such node: networkx's own error, as ever
            import networkx as nx

            nx.has_path(stage_graph(stage), corner.zone, corner.after)
        if not corner.zone <= corner.after:
            problems.append(
                (
                    ("corners", index, "zone"),
                    f"planning zone from space {corner.zone} does not lead to its corner after space {corner.after}",
                )
            )
    return problems
