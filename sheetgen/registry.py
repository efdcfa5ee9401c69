"""Games by the name a spec gives in its `game:` key, so the CLI never needs to know them.

Each game module exposes `GAME`, a `Game`. Modules are imported on first use.
"""

from __future__ import annotations

import difflib
import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

from sheetgen.errors import Location, Problem, SpecError, UsageError
from sheetgen.yamlsrc import Document, load_file

_MODULES = {
    "rallytaire": "sheetgen.games.rallytaire",
    "rally_risk": "sheetgen.games.rally_risk",
}


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    schema: dict
    load: Callable[[Document], Any]
    summary: Callable[[Any], str]
    #: problems beyond validity (e.g. a race that cannot be finished), for `validate --strict`
    #: and `build`: called with the loaded Spec, returns a list of Problems
    strict: Callable[["Spec"], list] | None = None


@dataclass(frozen=True)
class Spec:
    """A loaded, validated spec."""

    path: str
    game: Game
    model: Any
    sha256: str
    kind: str | None = None  # the file's `kind:` (None: the game's main kind, e.g. a Rallytaire race)
    where: Location | None = None  # of the `kind:` value, else of `game:`: what a command points at
    #: every file the load read: the spec, then the files it refers to (a race's library, a
    #: season's races, results' calendar...): the inputs no output may replace
    sources: tuple[str, ...] = ()

    def described(self, wanted_game: str) -> str:
        """What the file is, for a command that wants a file of `wanted_game`: "a Rallytaire
        spec" from another game, else its kind ("a Rally Risk library", "a Rallytaire race")."""
        if self.game.name != wanted_game:
            return f"a {self.game.title} spec"
        return f"a {self.game.title} {self.kind or 'race'}"

    def wrong(self, message: str) -> SpecError:
        """The error of a command given a spec it cannot use, located at its `kind:` (or
        `game:`), e.g. ``wrong("a Rally Risk library, not a race: ...")``."""
        return SpecError([Problem(self.where or Location(self.path, 1, 1), message)])


def names() -> list[str]:
    return sorted(_MODULES)


def game(name: str) -> Game:
    if name not in _MODULES:
        near = difflib.get_close_matches(name, names(), n=1)
        hint = f", did you mean {near[0]!r}?" if near else f" (known games: {', '.join(names())})"
        raise UsageError(f"unsupported game: {name!r}{hint}")
    return importlib.import_module(_MODULES[name]).GAME


def load_spec(path: str | os.PathLike) -> Spec:
    """Load and validate one spec file; SpecError lists every problem found in it."""
    doc = load_file(path)
    data = doc.data
    if not isinstance(data, dict):
        raise SpecError([Problem(doc.where(()), "a spec must be a mapping with a 'game' key")])
    if "game" not in data:
        raise SpecError([doc.problem((), f"missing required key 'game' (one of: {', '.join(names())})")])
    name = data["game"]
    if not isinstance(name, str) or name not in _MODULES:
        near = difflib.get_close_matches(str(name), names(), n=1)
        hint = f", did you mean {near[0]!r}?" if near else f" (known games: {', '.join(names())})"
        raise SpecError([doc.problem(("game",), f"unknown game {name!r}{hint}")])
    chosen = game(name)
    model = chosen.load(doc)
    # the hash of the very bytes loaded (a second read could see another file: a pipe, an edit)
    kind = data.get("kind") if isinstance(data.get("kind"), str) else None
    where = doc.where(("kind",) if "kind" in data else ("game",))
    sources = tuple(dict.fromkeys((doc.file, *doc.reads)))
    return Spec(path=doc.file, game=chosen, model=model, sha256=doc.sha256, kind=kind, where=where, sources=sources)

