"""The architecture, checked by reading the source: dependencies point one way and the core
names no game.

- No module under sheetgen/games/ imports sheetgen.render (renderers import the games,
  never the reverse).
- The import graph of sheetgen's modules (every import, at module level or inside a
  function) has no cycle.
- The CLI, the renderers' core and the template code name no game: they reach games through
  the registry only; nor does the plane geometry that games' layouts build on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from conftest import ROOT

PACKAGE = ROOT / "sheetgen"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """Every sheetgen module `name` imports, resolved to the modules that exist."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from a import b` imports a.b when it is a module, else a
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = nx.DiGraph([(name, target) for name in MODULES for target in imports_of(name)])
GRAPH.add_nodes_from(MODULES)


def test_the_walk_sees_the_imports_it_should():
    """The walker itself: known edges are found (a walker that finds nothing passes nothing)."""
    assert "sheetgen.registry" in imports_of("sheetgen.cli")
    assert "sheetgen.games.rallytaire.model" in imports_of("sheetgen.render.rallytaire.race_sheet")
    assert "sheetgen.yamlsrc" in imports_of("sheetgen.registry")


#: a game's own commands (`Game.commands`) print as `build` does, through the renderers' core
GAME_COMMANDS = sorted(n for n in MODULES if n.startswith("sheetgen.games.") and n.endswith(".commands"))


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("sheetgen.games.")))
def test_no_game_module_imports_the_renderers(name):
    """A game's commands module may call `sheetgen.render.build_outputs` (the printables'
    core, which names no game); no game module imports a renderer of its own or another's."""
    allowed = {"sheetgen.render"} if name in GAME_COMMANDS else set()
    assert sorted(t for t in imports_of(name) if (t == "sheetgen.render" or t.startswith("sheetgen.render.")) and t not in allowed) == []


def test_games_bring_their_own_commands():
    assert GAME_COMMANDS == [
        "sheetgen.games.rally_risk.commands",
        "sheetgen.games.rallyman.commands",
        "sheetgen.games.rallytaire.commands",
    ]
    assert "sheetgen.render" in imports_of("sheetgen.games.rally_risk.commands")


#: the modules that solve (or keep solved figures): a renderer draws the figures it is given
SOLVERS = sorted(n for n in MODULES if n.startswith("sheetgen.games.") and n.rpartition(".")[2] in (
    "solve", "solve_advanced", "forward", "forward_advanced", "analysis", "analysis_advanced", "solve_dirt", "kept", "figures"))


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n == "sheetgen.render" or n.startswith("sheetgen.render.")))
def test_no_renderer_imports_a_solver(name):
    """Figures reach a printable from the command (`Game.figures`), never from a renderer's
    own call into a solver (six renderers did)."""
    assert len(SOLVERS) >= 6
    assert sorted(t for t in imports_of(name) if t in SOLVERS) == []


def test_no_import_cycle():
    """A package's __init__ is not counted as imported by its own submodules (Python runs it
    first anyway); every other edge is."""
    graph = GRAPH.copy()
    graph.remove_edges_from([(a, b) for a, b in GRAPH.edges if a.startswith(b + ".")])
    cycles = sorted(sorted(c) for c in nx.simple_cycles(graph))
    assert cycles == []


CORE = sorted(
    ["sheetgen/cli.py", "sheetgen/cliutil.py", "sheetgen/render/__init__.py", "sheetgen/render/pdf.py", "sheetgen/template.py",
     "sheetgen/output.py", "sheetgen/geometry.py", "sheetgen/cache.py", "sheetgen/parallel.py", "sheetgen/render/common.py",
     "sheetgen/render/patterns.py", "sheetgen/render/tables.py", "sheetgen/render/raster.py"]
    + [p.relative_to(ROOT).as_posix() for p in (PACKAGE / "commands").glob("*.py")]
    + [p.relative_to(ROOT).as_posix() for p in (PACKAGE / "preview").glob("*.py")]
)


def test_the_core_is_what_it_says():
    assert {"sheetgen/commands/__init__.py", "sheetgen/commands/convert.py", "sheetgen/commands/standings.py"} <= set(CORE)
    assert {"sheetgen/preview/server.py", "sheetgen/preview/worker.py", "sheetgen/preview/page.py"} <= set(CORE)
    assert all((ROOT / path).is_file() for path in CORE)


@pytest.mark.parametrize("core", CORE)
def test_the_core_names_no_game(core):
    """Neither a string nor a name nor an import of the core names a game; docstrings and the
    help's examples (which name bundled spec files) may."""
    from sheetgen import registry

    games = set(registry.names())
    tree = ast.parse((ROOT / core).read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body and isinstance(node.body[0], ast.Expr)
    }
    named = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = set(node.value.replace("/", " ").replace(".", " ").replace("-", "_").split())
            named += sorted(games & words)
        elif isinstance(node, ast.Name) and node.id in games:
            named.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            named += [m for m in modules if any(f"games.{g}" in m for g in games)]
    assert named == []
