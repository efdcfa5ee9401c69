"""A Rallytaire stage as a networkx graph, and the structural checks asked of it.

Nodes are positions: 0 is behind the start line, 1..L are the spaces, L+1 is the
invisible space after the finish line. Edges go from each position to the next; the edge
that a corner's line lies across carries the corner, and each node lists the planning
zones it lies in.
"""

from __future__ import annotations

import networkx as nx

from sheetgen.games.rallytaire.model import Stage

START = 0


def stage_graph(stage: Stage) -> nx.DiGraph:
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
    """Graph questions about a stage whose values are in range: (path within the stage, message)."""
    graph = stage_graph(stage)
    problems: list[tuple[tuple, str]] = []
    if not nx.is_directed_acyclic_graph(graph) or not nx.has_path(graph, START, stage.finish):
        problems.append(((), "the finish cannot be reached from the start"))
    for index, corner in enumerate(stage.corners):
        edge = graph.edges.get((corner.after, corner.after + 1))
        if edge is None or edge["corner"] != index:
            problems.append((("corners", index, "after"), f"corner after space {corner.after} does not lie across the track"))
            continue
        if not nx.has_path(graph, corner.zone, corner.after):
            problems.append(
                (("corners", index, "zone"), f"planning zone from space {corner.zone} does not lead to its corner after space {corner.after}")
            )
    return problems
