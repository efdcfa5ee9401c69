"""sheetgen's own error types: the only exceptions that leave the library.

A problem in a spec is a `Problem` with a `Location` (file, 1-based line and column);
`SpecError` carries every problem found in one file at once, and the CLI prints them as
`FILE:LINE:COL: error: MESSAGE`, one line each: a control character in a file name (a
newline, an escape) is shown escaped, so it cannot split or forge a line. A file with more
than `MAX_SHOWN` problems lists its first ones and then one line that counts the rest.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: problems listed per file; the rest are counted in one closing line (an `Omitted`)
MAX_SHOWN = 100

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


class SheetgenError(Exception):
    """Base of every error sheetgen raises on purpose."""


def _escaped(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable_name(name: str) -> str:
    """`name` with control characters, line separators and surrogates escaped the way
    Python's repr writes them (a newline as ``\\n``); other characters, backslashes included,
    are kept, so an ordinary path prints as itself."""
    if name.isprintable():
        return name
    return "".join(_escaped(c) if unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs") else c for c in name)


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{printable_name(self.file)}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Problem:
    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


@dataclass(frozen=True, order=True)
class Omitted(Problem):
    """The closing line of a file with more than `MAX_SHOWN` problems: `count` are not listed.
    `note` says why there may be more than counted (a check that stopped looking); a SpecError
    merges every Omitted of a file into one line."""

    count: int = 0
    note: str = ""


def omitted(file: str, count: int, note: str = "") -> Omitted:
    """The closing line of `file`: `count` problems not listed, and why there may be more."""
    plural = "s" if count != 1 else ""
    if not count:
        message = note
    else:
        message = (
            f"and {count} more problem{plural} (only the first {MAX_SHOWN} of this file are "
            f"listed{'; ' + note if note else ''})"
        )
    return Omitted(Location(file, 1, 1), message, count, note)


def _capped(problems) -> list[Problem]:
    """Problems in file, line, column order, at most `MAX_SHOWN` a file, each file's left-out
    ones counted in an `Omitted` after its last listed problem (a count already made by an
    inner SpecError is carried on)."""
    unique = sorted(set(problems), key=lambda p: (p.location.file, p.location.line, p.location.col, p.message))
    result: list[Problem] = []
    start = 0
    while start < len(unique):
        file = unique[start].location.file
        end = start
        while end < len(unique) and unique[end].location.file == file:
            end += 1
        group = unique[start:end]
        listed = [p for p in group if not isinstance(p, Omitted)]
        closing = [p for p in group if isinstance(p, Omitted)]
        hidden = sum(p.count for p in closing) + max(0, len(listed) - MAX_SHOWN)
        note = "; ".join(dict.fromkeys(p.note for p in closing if p.note))
        result.extend(listed[:MAX_SHOWN])
        if hidden or note:
            result.append(omitted(file, hidden, note))
        start = end
    return result


class SpecError(SheetgenError):
    """One or more problems in a spec file, all reported together (at most `MAX_SHOWN` a
    file, then one line counting the others)."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(_capped(problems))
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self):
        # rebuilt from its problems, not from its message (`args`), so that it crosses from a
        # worker process to the parent (build --jobs) as itself
        return (type(self), (self.problems,))


class UsageError(SheetgenError):
    """A command was asked for something it cannot do (bad option combination, unknown game)."""


class OptionError(UsageError):
    """A mistake in the command line's options: one the spec's game does not take, a value
    outside the game's choices, an unknown --template name, options that do not go together
    (-o and --render naming one file, `-o -` for a folder). The CLI reports it the way click
    reports its own usage errors (exit status 2)."""


class OutputError(SheetgenError):
    """An output could not be written."""
