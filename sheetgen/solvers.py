"""What the games' exact solvers share: their optional compiled kernels (whether they may be
used, loading one) and pausing Python's cycle collector while they make and free millions of
small objects.

A game's kernel is a C extension built by `pip install` where a compiler and Python's headers
are at hand (setup.py; optional), driven by the game's own wrapper module, which names the
SHA-256 of the C source it drives. A build of another source (a stale build after an edit of
the C file) is not used, nor any kernel when `SHEETGEN_ACCEL=off` (or 0, no, false) is set:
the pure-Python solvers, the reference, run instead and give the same figures.
"""

from __future__ import annotations

import gc
import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: the environment variable that switches every kernel off
SWITCH = "SHEETGEN_ACCEL"


def enabled() -> bool:
    """Whether compiled kernels may be used: `SHEETGEN_ACCEL=off` (or 0, no, false) says not."""
    return os.environ.get(SWITCH, "").strip().lower() not in ("off", "0", "no", "false")


def load(module: str, source_sha256: str, loaded: list) -> Any:
    """The compiled module `module`, or None where kernels are switched off, it is not built,
    or it was built from another source than `source_sha256`. `loaded` is the wrapper's own
    list that keeps the answer (empty: not looked for yet)."""
    if not enabled():
        return None
    if not loaded:
        try:
            # (imported by name: the source walkers of the tests and the cache read only Python modules)
            found = importlib.import_module(module)
        except ImportError:
            found = None
        if found is not None and getattr(found, "SOURCE_SHA256", None) != source_sha256:
            found = None
        loaded.append(found)
    return loaded[0]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a solver runs, on again after it as it was. The
    solvers make millions of short-lived tuples, and trees kept for the whole solve, and almost
    no reference cycles: the collector's passes over them cost a fifth to a quarter of a solve
    and find next to nothing. Reference counting still frees everything as it goes."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
