"""A cache on disk for figures that take seconds to solve and are printed again and again (a
Rallyman GT track's par time on its map and time sheet, a Rallytaire race sheet's advanced par
and percentiles, every `sheetgen build`).

An entry is a small JSON file named by the SHA-256 of everything its figures depend on: what
the solver reads (a canonical text of the track and its ruleset, never its name, comments or
title: a renamed track is not solved again) and the source code of the modules that solve
it, found from the solver's import graph (:func:`solver_modules`), so that a changed track,
ruleset or solver never meets an old entry. Every game keeps its figures through one
wrapper, :func:`figures`. JSON gives
floats back exactly (their shortest repr), so a printout is byte for byte the same with the
entry or without it. The folder is `$SHEETGEN_CACHE`, else `$XDG_CACHE_HOME/sheetgen`, else
`~/.cache/sheetgen`; `SHEETGEN_CACHE=off` turns the cache off. The cache is only ever a
shortcut: an entry that cannot be read, whose value no longer matches the checksum kept with
it, or that the caller's check finds of the wrong shape (`cached(..., valid=...)`), is solved
again, and one that cannot be written (a
read-only home) is not kept; no command fails because of it. Entries are written atomically
(a temporary file, then a rename), so two processes solving the same track at once are safe.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from sheetgen import __version__


def folder() -> str | None:
    """The cache's folder, or None when the cache is off."""
    chosen = os.environ.get("SHEETGEN_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sheetgen")


_SOURCES: dict[str, str] = {}


def _source_digest(module: str) -> str:
    """The SHA-256 of a module's source file (once a process)."""
    if module not in _SOURCES:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if origin is None:  # a module without a file has no place in a key
            raise TypeError(f"module {module!r} has no source file to key an entry by")
        with open(origin, "rb") as handle:
            _SOURCES[module] = hashlib.sha256(handle.read()).hexdigest()
    return _SOURCES[module]


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):  # (the parent is a module, not a package)
        return False


#: an import statement, at a line's start (inside a function too): `import a.b, c` or
#: `from a.b import c, d` (its names in parentheses over several lines too)
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))", re.M
)


def _imports(module: str) -> set[str]:
    """The sheetgen modules `module`'s source imports, at its top or inside a function (a
    solver imports its helpers lazily): `from sheetgen.x import y` is the module
    sheetgen.x.y when there is one, else sheetgen.x. (Read as text, not parsed: an import
    written in a string would count too, which only keys an entry by one module more.)"""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return set()
    with open(spec.origin, encoding="utf-8") as handle:
        source = handle.read()
    package = module if spec.submodule_search_locations is not None else module.rpartition(".")[0]
    found: set[str] = set()
    for base, names, plain in _IMPORT.findall(source):
        if plain:
            found.update(part.split(" as ")[0].strip() for part in plain.split(","))
            continue
        if base.startswith("."):  # a relative import
            level = len(base) - len(base.lstrip("."))
            parts = package.split(".")
            rest = base.lstrip(".")
            base = ".".join(parts[: len(parts) - level + 1] + ([rest] if rest else []))
        for name in names.strip("()").replace("\n", " ").split(","):
            name = name.split(" as ")[0].strip()
            if name:
                sub = f"{base}.{name}"
                found.add(sub if sub.startswith("sheetgen.") and _is_module(sub) else base)
    return {name for name in found if name == "sheetgen" or name.startswith("sheetgen.")}


@functools.cache
def solver_modules(root: str) -> tuple[str, ...]:
    """`root` and every sheetgen module it imports, directly or through others (its import
    graph, read from the sources): what a solver's figures can depend on, so that an entry
    is keyed by all of their sources without a hand-kept list. Sorted."""
    seen = {root}
    todo = [root]
    while todo:
        for name in _imports(todo.pop()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return tuple(sorted(seen))


def key(kind: str, subject: str, modules: Iterable[str]) -> str:
    """The entry's name: `kind`, the canonical text of what is solved, the solving modules'
    sources and sheetgen's version."""
    h = hashlib.sha256()
    for part in (kind, __version__, subject, *(f"{m}:{_source_digest(m)}" for m in sorted(modules))):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return f"{kind}-{h.hexdigest()}"


def _digest(value: Any) -> str:
    """The SHA-256 of a value's JSON text: an entry keeps it beside the value, so that an
    entry edited or damaged since (valid JSON all the same) is not taken for figures."""
    return hashlib.sha256(json.dumps(value).encode("utf-8")).hexdigest()


def cached(name: str, compute: Callable[[], Any], valid: Callable[[Any], bool] | None = None) -> Any:
    """The JSON value kept under `name` (from :func:`key`), or `compute()`, kept for next time.

    An entry holds the value and the SHA-256 of its JSON text: one whose value no longer
    matches it (edited, damaged, or written without it) is solved again and written over, as
    an entry that cannot be read is. `valid(value)`: whether a value read back has the shape
    `compute` gives (a dict with the right keys and types), a check more: an entry it rejects
    (returns False, or raises TypeError, ValueError, KeyError, AttributeError or IndexError
    on) is solved again too."""
    where = folder()
    if where is None:
        return compute()
    path = os.path.join(where, f"{name}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            entry = json.load(handle)
        value = entry["value"]
        if entry["sha256"] == _digest(value) and (valid is None or valid(value) is True):
            return value
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        pass
    value = compute()
    try:
        os.makedirs(where, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".entry-", suffix=".json", dir=where)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"value": value, "sha256": _digest(value)}, handle)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass  # a cache that cannot be written is no cache, never an error
    return value


def figures(
    kind: str, subject: str, solver: str, compute: Callable[[], Any], valid: Callable[[Any], bool] | None = None
) -> Any:
    """The one way a game keeps solved figures: `compute()`'s JSON value, kept under `kind`,
    `subject` (the canonical text of what the solver reads, without names) and the sources
    of `solver`'s import graph (:func:`solver_modules`); see :func:`cached` for `valid`."""
    return cached(key(kind, subject, solver_modules(solver)), compute, valid)
