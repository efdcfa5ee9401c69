"""Larger commands, one module each; every module lists its click commands in `COMMANDS`.

`sheetgen.cli` registers all of them, so a feature adds its command without touching cli.py.
Modules keep heavy imports inside the command functions: they are all imported at start-up.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import click


def all_commands() -> list[click.Command]:
    found: list[click.Command] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "COMMANDS", ()))
    return found
