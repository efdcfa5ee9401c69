"""A Rally Risk course as networkx graphs, and the structural checks asked of it.

Layout model: each road section occupies one square of a grid on the table. A section is
printed with an entry side and an exit side (north up); laid in a course it is turned so
that the car enters it travelling `heading`, i.e. through the side opposite `heading`.
A straight goes through the square, a curve turns. The next section lies on the square
beyond the exit side, and must be entered travelling the way the previous one leaves.
A course is a path of squares that never comes back to a square (sections would overlap).

Two graphs:
- the *layout graph*: one node per section of the course (its square, entry and exit sides
  on the table), an edge from each section to the next;
- the *course graph*: the spaces, numbered progressively 1..N along the course (the numbers
  mechanics are placed by), with 0 the departure outside the first section and N+1 the
  finish; each space carries its factor, whether it is a ford, and its section.

The structural checks ask their questions without building the graphs (networkx is imported
only by the functions that build them, so that validating a spec does not load it): the
squares are those `layout_graph` gives its nodes (`cells`), and the course graph is a path
from the departure to the finish, acyclic and always leading to the finish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sheetgen.games.rally_risk.model import Leg, Side, course_spaces

if TYPE_CHECKING:
    import networkx as nx

START = 0


def quarter_turns(leg: Leg) -> int:
    """Clockwise quarter turns that put the section's entry side opposite `heading`."""
    wanted = leg.heading.opposite
    return next(r for r in range(4) if leg.section.entry.turned(r) == wanted)


def exit_heading(leg: Leg) -> Side:
    """The direction of travel when the car leaves the section (its exit side on the table)."""
    return leg.section.exit.turned(quarter_turns(leg))


def cells(course: tuple[Leg, ...]) -> list[tuple[tuple[int, int], Side]]:
    """Per section of the course: its square (x, y) on the table and its exit side."""
    out_cells = []
    cell = (0, 0)
    for leg in course:
        out = exit_heading(leg)
        out_cells.append((cell, out))
        dx, dy = out.step
        cell = (cell[0] + dx, cell[1] + dy)
    return out_cells


def layout_graph(course: tuple[Leg, ...]) -> nx.DiGraph:
    """Sections on the table: node i holds the square (x, y) of the course's section i."""
    import networkx as nx

    graph = nx.DiGraph()
    for i, (leg, (cell, out)) in enumerate(zip(course, cells(course), strict=True)):
        graph.add_node(i, section=leg.section.id, cell=cell, entry=leg.heading.opposite.value, exit=out.value)
        if i:
            graph.add_edge(i - 1, i)
    return graph


def course_graph(course: tuple[Leg, ...]) -> nx.DiGraph:
    """Spaces in driving order, numbered from 1; 0 is the departure, N+1 the finish."""
    import networkx as nx

    spaces = course_spaces(course)
    finish = len(spaces) + 1
    graph = nx.DiGraph(length=len(spaces))
    graph.add_node(START, kind="start")
    for s in spaces:
        graph.add_node(
            s.number, kind="space", factor=s.factor, ford=s.ford, leg=s.leg, section=s.section, index=s.index
        )
    graph.add_node(finish, kind="finish")
    nx.add_path(graph, range(START, finish + 1))
    return graph


def structural_problems(course: tuple[Leg, ...]) -> list[tuple[tuple, str]]:
    """Graph questions about a course: (path within the race spec, message)."""
    problems: list[tuple[tuple, str]] = []
    if not course:
        return problems
    first = course[0].section
    bad = [(i, f) for i, f in enumerate(first.factors, start=1) if f != 0]
    if bad:
        i, f = bad[0]
        problems.append(
            (
                ("course", 0, "section"),
                f"the first road section must have factor 0 on every space; {first.id!r} has factor {f} on space {i}",
            )
        )
    connected = True
    for i in range(1, len(course)):
        leaves = exit_heading(course[i - 1])
        if course[i].heading != leaves:
            connected = False
            problems.append(
                (
                    ("course", i, "heading"),
                    f"section {i + 1} {course[i].section.id!r} is entered heading {course[i].heading.value}, but "
                    f"section {i} "
                    f"{course[i - 1].section.id!r} leaves heading {leaves.value}: the sections do not connect",
                )
            )
    if connected:
        seen: dict[tuple[int, int], int] = {}
        for i, (cell, _out) in enumerate(cells(course)):
            if cell in seen:
                j = seen[cell]
                problems.append(
                    (
                        ("course", i, "section"),
                        f"section {i + 1} {course[i].section.id!r} would lie on the square of section {j + 1} "
                        f"{course[j].section.id!r}: the layout overlaps itself",
                    )
                )
            else:
                seen[cell] = i
    # the course graph is the path START, 1..N, N+1: acyclic, and it reaches the finish
    return problems
