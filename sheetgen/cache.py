"""A cache on disk for figures that take seconds to solve and are printed again and again (a
Rallyman GT track's par time on its map and time sheet, a Rallytaire race sheet's advanced par
and percentiles, every `sheetgen build`).

An entry is a small JSON file named by the SHA-256 of everything its figures depend on: what
is solved (a canonical text of the track and its ruleset) and the source code of the modules
that solve it, so that a changed track, ruleset or solver never meets an old entry. JSON gives
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

import hashlib
import importlib.util
import json
import os
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
        with open(origin, "rb") as handle:  # (a module without a file has no place in a key)
            _SOURCES[module] = hashlib.sha256(handle.read()).hexdigest()
    return _SOURCES[module]


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
