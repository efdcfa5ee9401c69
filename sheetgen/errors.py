"""sheetgen's own error types: the only exceptions that leave the library.

A problem in a spec is a `Problem` with a `Location` (file, 1-based line and column);
`SpecError` carries every problem found in one file at once, and the CLI prints them as
`FILE:LINE:COL: error: MESSAGE`.
"""

from __future__ import annotations

from dataclasses import dataclass


class SheetgenError(Exception):
    """Base of every error sheetgen raises on purpose."""


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Problem:
    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


class SpecError(SheetgenError):
    """One or more problems in a spec file, all reported together."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(sorted(set(problems), key=lambda p: (p.location, p.message)))
        super().__init__("\n".join(str(p) for p in self.problems))


class UsageError(SheetgenError):
    """A command was asked for something it cannot do (bad option combination, unknown game)."""


class OutputError(SheetgenError):
    """An output could not be written."""


class OptionError(UsageError):
    """An option the command's game does not take, or a combination it refuses: a usage
    mistake, which the CLI reports as click does (exit status 2)."""
