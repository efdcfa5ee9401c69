"""The stage graph: positions, corner edges and planning zones."""

import networkx as nx

from sheetgen.games.rallytaire.graph import stage_graph, structural_problems
from sheetgen.games.rallytaire.model import Corner, Stage, Surface, Turn


def stage():
    return Stage(
        name="S",
        surface=Surface.SNOW,
        length=12,
        corners=(Corner(after=4, gear=2, zone=2, turn=Turn.LEFT), Corner(after=7, gear=3, zone=2, turn=Turn.RIGHT)),
    )


def test_nodes_edges_and_attributes():
    g = stage_graph(stage())
    assert list(g.nodes) == list(range(0, 14))
    assert g.nodes[0]["kind"] == "start" and g.nodes[13]["kind"] == "finish" and g.nodes[5]["kind"] == "space"
    assert g.number_of_edges() == 13
    assert g.edges[4, 5]["corner"] == 0 and g.edges[7, 8]["corner"] == 1 and g.edges[5, 6]["corner"] is None
    assert [g.nodes[p]["zones"] for p in range(1, 9)] == [(), (0, 1), (0, 1), (0, 1), (1,), (1,), (1,), ()]
    assert nx.is_directed_acyclic_graph(g)
    assert g.graph == {"name": "S", "surface": "snow", "length": 12}


def test_structurally_sound_stage_has_no_problems():
    assert structural_problems(stage()) == []


def _networkx_problems(stage: Stage) -> list[tuple[tuple, str]]:
    """The structural checks asked of the networkx graph itself (how they were first written)."""
    graph = stage_graph(stage)
    problems: list[tuple[tuple, str]] = []
    if not nx.is_directed_acyclic_graph(graph) or not nx.has_path(graph, 0, stage.finish):
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


def test_structural_checks_are_the_networkx_graphs_answers():
    """Seeded stages with corners anywhere (off the track, twice on one edge, zones after
    their corner): the plain checks give what the networkx graph answers."""
    import random

    rng = random.Random(19)
    for _ in range(300):
        length = rng.randint(1, 12)
        corners = tuple(
            Corner(after=rng.randint(-1, length + 2), gear=2, zone=rng.randint(0, length + 1), turn=Turn.LEFT)
            for _ in range(rng.randint(0, 4))
        )
        s = Stage(name="S", surface=Surface.SNOW, length=length, corners=corners)
        try:
            want = _networkx_problems(s)
        except nx.NodeNotFound:
            with __import__("pytest").raises(nx.NodeNotFound):
                structural_problems(s)
            continue
        assert structural_problems(s) == want
