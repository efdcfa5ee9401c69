"""The optional compiled kernels of the games' exact solvers: whether they may be used, and
loading one.

A game's kernel is a C extension built by `pip install` where a compiler and Python's headers
are at hand (setup.py; optional), driven by the game's own wrapper module, which names the
SHA-256 of the C source it drives. A build of another source (a stale build after an edit of
the C file) is not used, nor any kernel when `SHEETGEN_ACCEL=off` (or 0, no, false) is set:
the pure-Python solvers, the reference, run instead and give the same figures.
"""

from __future__ import annotations

import importlib
import os
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
