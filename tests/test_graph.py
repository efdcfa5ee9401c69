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
