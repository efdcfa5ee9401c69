"""YAML loading that keeps every value's file, line and column.

The parser's events become plain Python data plus a table from each value's path (a tuple
of keys and indices) to its `Location`. Nothing after this module sees YAML.

Refused, each with a `FILE:LINE:COL: error:` problem: files over 1 MiB, devices, sockets
and named pipes that no process writes into (reading one could wait forever or never
end), text that is not UTF-8, syntax errors, several documents in one file, duplicate
keys, anchors and aliases (an alias can blow a few bytes up into gigabytes when walked),
custom tags, non-string keys, absurd nesting, more than `MAX_VALUES` values, integers too
long to print (over 4300 decimal digits, in any base), and strings holding a lone surrogate
(a `"\\ud800"` escape: half a UTF-16 pair, which no file, terminal or PDF can hold) or a
control character other than tab and newline (a `"\\x1b[2J"` escape would act on the
terminal that shows a report).
Scalars follow the YAML 1.2 core schema: only true/false are booleans (so `no` or `on`
stay strings) and `1:20` is not a base-60 number.

Speed: libyaml's parser (PyYAML's C extension) reads the events and the data is built
straight from them in one pass, so any file under the size limit loads in well under a
second. When libyaml refuses a file of at most `WORDING_LIMIT` bytes, the pure-Python
parser reads it again: its messages are the ones users know (they name the offending
character), and it accepts what libyaml refuses only for surrogate escapes, which the
builder then refuses in its own words (a larger file gets libyaml's words, surrogates
worded the same way).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
import select
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    StreamEndEvent,
)

from sheetgen.errors import Location, Problem, SpecError
from sheetgen.glyphs import CONTROL

_CParser: Callable[[str], Any] | None
try:
    from yaml._yaml import CParser  # what yaml.cyaml holds: libyaml's parser
except ImportError:  # PyYAML built without libyaml: the pure-Python parser alone
    _CParser = None
else:
    _CParser = CParser

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_INT_DIGITS = 4300  # Python's own limit for turning an int into text (sys.get_int_max_str_digits)
#: values (scalars, lists and mappings, at any depth) a file may hold: the largest spec the
#: schemas allow (a results file of 30 rallies of 60 races) holds about 30,000; a cap keeps
#: every later step (schema checks, game rules) bounded whatever the file
MAX_VALUES = 100_000
#: a file libyaml refuses is read again by the pure-Python parser for its wording when it is
#: no larger than this (the Python parser reads about 200 KiB a second)
WORDING_LIMIT = 64 * 1024

_INT_TOO_LARGE = 10**MAX_INT_DIGITS  # the smallest integer with more digits than MAX_INT_DIGITS
_SURROGATE = re.compile("[\ud800-\udfff]")
#: control characters (and the Unicode line separators) but tab and newline: an escape such as
#: "\x1b[2J" would act on the terminal that shows the text, "\r" overwrite a line of it; the
#: one definition the names' check (`glyphs`) shares
_CONTROL = CONTROL

Path = tuple  # of str keys and int indices

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


class _CoreLoader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit scalars instead of YAML 1.1's."""


_CoreLoader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in (
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
    (_NULL, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
):
    _CoreLoader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))


class _CoreDumper(yaml.SafeDumper):
    """SafeDumper that quotes every string the core loader would read as something else."""


_CoreDumper.yaml_implicit_resolvers = _CoreLoader.yaml_implicit_resolvers


def dump(data: Any) -> str:
    """YAML text for plain data that `load_text` reads back as the same data."""
    return yaml.dump(data, Dumper=_CoreDumper, sort_keys=False, allow_unicode=True, width=100)


class Tally:
    """What `schemacheck.check` learns while a (frozen) Document is checked: how many problems
    it has worded, and the lists far longer than their schema allows (path -> (the first
    index not checked, the problem that says the list is too long))."""

    __slots__ = ("problems", "oversized")

    def __init__(self) -> None:
        self.problems = 0
        self.oversized: dict = {}


@dataclass(frozen=True)
class Document:
    """A loaded YAML file: its data and where each value (and each mapping key) stands."""

    file: str
    data: Any
    values: dict = field(repr=False)  # Path -> Location of the value
    keys: dict = field(repr=False)  # Path -> Location of the mapping key naming it
    sha256: str = ""  # of the bytes read (load_file, load_bytes): what an output names as its source
    #: every other file read on behalf of this document (`load_beside`), shared by the documents
    #: loaded beside it: the inputs that no output may replace
    reads: list = field(default_factory=list, repr=False, compare=False)
    #: problems worded for this document so far by `schemacheck.check` (which stops past a limit)
    tally: Tally = field(default_factory=lambda: Tally(), repr=False, compare=False)
    #: problems of single values found while loading a file `lenient`ly (each value is None):
    #: reported with the spec's own problems (`registry.spec_of`), never accepted
    pending: tuple = field(default=(), repr=False, compare=False)
    #: the files read from disk whose references led to this one, this one last when it was
    #: read from disk (`load_file`; text a generator made is no file): a file that names one
    #: of them again is refused (`load_beside`), not loaded round and round
    chain: tuple = field(default=(), repr=False, compare=False)

    def where(self, path: Path, *, key: bool = False) -> Location:
        """The location of `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        if key and path in self.keys:
            return self.keys[path]
        while path not in self.values and path:
            path = path[:-1]
        return self.values.get(path, Location(self.file, 1, 1))

    def problem(self, path: Path, message: str, *, key: bool = False) -> Problem:
        return Problem(self.where(path, key=key), message)


def _loc(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


_SPECIAL_FILES = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
#: how long a named pipe that no process writes into is given for a writer to come
PIPE_GRACE = 0.25


def _not_regular(mode: int) -> str | None:
    """What a file of `mode` is when it is a device or a socket (which are never read)."""
    return next((what for test, what in _SPECIAL_FILES if test(mode)), None)


def load_file(path: str | os.PathLike, *, lenient: bool = False) -> Document:
    """Read and load one spec file; raises SpecError with every problem found.

    A device or a socket is refused before it is opened (reading one could wait forever or
    never end). A named pipe is read when a process writes into it (`sheetgen validate
    <(...)`), and refused at once when none does; the file's kind is checked once more on
    the opened file, in case the name was swapped in between."""
    name = os.fspath(path)

    def refuse(message: str) -> SpecError:
        return SpecError([Problem(Location(name, 1, 1), message)])

    def check_kind(mode: int) -> None:
        if stat.S_ISDIR(mode):
            raise refuse("is a directory, not a spec file")
        what = _not_regular(mode)
        if what:
            raise refuse(f"cannot read file: it is {what}, not a regular file")

    try:
        check_kind(os.stat(name).st_mode)
        # O_NONBLOCK: a named pipe is opened without waiting for a writer
        fd = os.open(
            name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
        )
        try:
            info = os.fstat(fd)
            check_kind(info.st_mode)
            if stat.S_ISFIFO(info.st_mode):
                raw = _read_pipe(fd)
                if raw is None:
                    raise refuse("cannot read file: it is a named pipe and no process is writing to it")
            elif info.st_size > MAX_BYTES:
                raise refuse(f"file is too large: {info.st_size} bytes (the limit is 1 MiB)")
            else:
                with os.fdopen(os.dup(fd), "rb") as handle:
                    raw = handle.read(MAX_BYTES + 1)
        finally:
            os.close(fd)
    except IsADirectoryError:
        raise refuse("is a directory, not a spec file") from None
    except OSError as exc:
        raise refuse(f"cannot read file: {exc.strerror or exc}") from None
    except ValueError:  # a NUL or a lone surrogate in the name: no file can have it
        raise refuse("cannot read file: the name is not a possible file name") from None
    return dataclasses.replace(load_bytes(raw, name, lenient=lenient), chain=(os.path.realpath(name),))


def _read_pipe(fd: int) -> bytes | None:
    """What is written into the named pipe `fd` (opened without blocking) until its writer
    closes it, at most MAX_BYTES + 1 bytes; None when no process opens it for writing within
    PIPE_GRACE seconds."""
    chunks: list[bytes] = []
    size = 0
    writer = False  # a process has held the pipe open for writing
    deadline = time.monotonic() + PIPE_GRACE
    while size <= MAX_BYTES:
        try:
            chunk = os.read(fd, 64 * 1024)
        except BlockingIOError:  # a writer holds the pipe open: wait for what it writes
            writer = True
            select.select([fd], [], [])
            continue
        if chunk:
            chunks.append(chunk)
            size += len(chunk)
        elif chunks or writer:  # the writer closed the pipe
            break
        elif time.monotonic() >= deadline:
            return None
        else:  # no writer yet: one may be opening the pipe this very moment
            time.sleep(0.01)
    return b"".join(chunks)


def path_from(folder: str, path: str) -> str:
    """`path` as a spec written into `folder` names it (`load_beside` reads it back): relative
    to the folder, with forward slashes, or absolute where there is no relative path (on
    Windows, another drive)."""
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(folder)).replace(os.sep, "/")
    except ValueError:
        return os.path.abspath(path)


#: files in one chain of references, the first included (a results file, its track, the
#: track's tile library: 3)
MAX_REFERENCE_DEPTH = 8


def load_beside(doc: Document, rel: str, where: Path = ()) -> Document:
    """Load the file `rel` names relative to `doc`'s folder (a race's library, a season's
    race), recording it in `doc.reads`; files it loads in turn are recorded there too.

    References between files are a graph checked before anything recurses: a file that
    leads back to one whose references led here (itself, or a cycle of two or more), or
    references nested deeper than `MAX_REFERENCE_DEPTH`, is refused at `where` (the value
    that names it in `doc`)."""
    path = os.path.join(os.path.dirname(doc.file), rel)
    real = os.path.realpath(path)
    if real in doc.chain:
        start = doc.chain.index(real)
        circle = " -> ".join(os.path.basename(f) for f in (*doc.chain[start:], real))
        raise SpecError(
            [
                doc.problem(
                    where,
                    f"{rel!r} leads back to a file that refers to it ({circle}): files cannot refer to each other in "
                    "a cycle",
                )
            ]
        )
    if len(doc.chain) >= MAX_REFERENCE_DEPTH:
        raise SpecError(
            [
                doc.problem(
                    where,
                    f"{rel!r}: references nested too deep (a file naming a file naming a file ... over "
                    f"{MAX_REFERENCE_DEPTH} levels)",
                )
            ]
        )
    other = load_file(path)
    doc.reads.append(other.file)
    return dataclasses.replace(other, reads=doc.reads, chain=(*doc.chain, real))


def load_bytes(raw: bytes, name: str, *, lenient: bool = False) -> Document:
    if len(raw) > MAX_BYTES:
        raise SpecError(
            [Problem(Location(name, 1, 1), f"file is too large: over {MAX_BYTES} bytes (the limit is 1 MiB)")]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SpecError([Problem(Location(name, line, col), "file is not valid UTF-8 text")]) from None
    return dataclasses.replace(load_text(text, name, lenient=lenient), sha256=hashlib.sha256(raw).hexdigest())


def load_text(text: str, name: str = "<string>", *, lenient: bool = False) -> Document:
    """Load YAML text; raises SpecError listing every problem found. `lenient`: when the
    only problems are of single values (a `.nan`, a bad number, a control character), the
    document is returned with them in `pending` (those values None), so that the spec's own
    checks report their problems too (`registry.spec_of` raises them all)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        index = text.index("\x00")
        line, col = _line_col(text, index)
        raise SpecError([Problem(Location(name, line, col), "file contains a NUL byte; it is not a text file")])
    try:
        builder = _Builder(name, _c_events(text))
        builder.run()
    except (yaml.YAMLError, UnicodeEncodeError, _BadEscape) as exc:
        if len(text) > WORDING_LIMIT:
            raise SpecError(_refused_by_libyaml(exc, name, text)) from None
        builder = _Builder(name, _python_events(text))
        try:
            builder.run()
        except yaml.YAMLError as again:
            builder.problems.append(_syntax_problem(again, name, text))
        except _BadEscape as bad:
            builder.problems.append(Problem(_loc(name, bad.mark), _BEYOND))
    soft = lenient and builder.documents and len(builder.problems) == len(builder.soft)
    if builder.problems and not soft:
        raise SpecError(builder.problems)
    if not builder.documents:
        what = "holds only comments" if text.strip() else "is empty"
        raise SpecError([Problem(Location(name, 1, 1), f"file {what}; expected a spec mapping")])
    return Document(name, builder.data, builder.values, builder.keys, pending=tuple(builder.problems))


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _c_events(text: str):
    """libyaml's events for `text` (raises YAMLError, or UnicodeEncodeError for a text
    holding a lone surrogate, which UTF-8 cannot carry to libyaml)."""
    if _CParser is None:
        yield from _python_events(text)
        return
    parser = _CParser(text)
    try:
        while True:
            event = parser.get_event()
            yield event
            if isinstance(event, StreamEndEvent):
                return
    finally:
        parser.dispose()


class _BadEscape(Exception):
    """The Python scanner's ValueError for a `\\U` escape beyond U+10FFFF, with its mark."""

    def __init__(self, mark: Any):
        super().__init__(mark)
        self.mark = mark


def _python_events(text: str):
    """The pure-Python parser's events for `text`."""
    loader = _CoreLoader(text)
    try:
        while True:
            try:
                event = loader.get_event()
            except ValueError:  # chr() of a \U escape beyond U+10FFFF, inside the scanner
                raise _BadEscape(loader.get_mark()) from None
            yield event
            if isinstance(event, StreamEndEvent):
                return
    finally:
        loader.dispose()


def _char_problem(name: str, text: str, index: int, code: int) -> Problem:
    line, col = _line_col(text, min(index, len(text)))
    return Problem(
        Location(name, line, col), f"invalid YAML: character {chr(code)!r} (U+{code:04X}) is not allowed in a spec"
    )


def _refused_by_libyaml(exc: yaml.YAMLError | UnicodeEncodeError | _BadEscape, name: str, text: str) -> list[Problem]:
    """libyaml's own wording, for a file too large to read again with the Python parser."""
    if isinstance(exc, UnicodeEncodeError):
        return [_char_problem(name, text, exc.start, ord(text[exc.start]))]
    if isinstance(exc, _BadEscape):
        return [Problem(_loc(name, exc.mark), _BEYOND)]
    if isinstance(exc, yaml.reader.ReaderError):
        # libyaml counts the position in bytes of UTF-8
        index = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
        return [
            _char_problem(name, text, index, exc.character if isinstance(exc.character, int) else ord(exc.character))
        ]
    mark = getattr(exc, "problem_mark", None)
    if mark is not None and "invalid Unicode character escape" in str(getattr(exc, "problem", "")):
        # libyaml refuses a surrogate escape itself: say so as the Python path does (its mark
        # is at the escape's hex digits, just after its backslash and u or U)
        start = text.rfind("\\", 0, mark.index)
        escape = re.match(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))", text[start : start + 10])
        code = int(escape.group(1) or escape.group(2), 16) if escape and start >= 0 else None
        if code is not None and 0xD800 <= code <= 0xDFFF:
            return [Problem(_loc(name, mark), _surrogate_message(chr(code)))]
        if code is not None and code > 0x10FFFF:
            return [Problem(_loc(name, mark), _BEYOND)]
    return [_syntax_problem(exc, name, text)]


def _syntax_problem(exc: yaml.YAMLError, name: str, text: str) -> Problem:
    if isinstance(exc, yaml.reader.ReaderError):
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return _char_problem(name, text, exc.position, code)
    if not isinstance(exc, yaml.MarkedYAMLError):
        return Problem(Location(name, 1, 1), f"invalid YAML: {exc}")
    mark = exc.problem_mark or exc.context_mark
    what = exc.problem or exc.context or "syntax error"
    location = _loc(name, mark) if mark is not None else Location(name, 1, 1)
    return Problem(location, f"invalid YAML: {what}")


_BEYOND = "invalid YAML: an escape names a code point beyond \\U0010FFFF; it is not a character"


def _surrogate_message(shown: str) -> str:
    return (
        f"a lone surrogate {shown!r} is not a character (it is half of a UTF-16 pair); write the character itself or "
        "its 8-digit \\U escape"
    )


class _Stop(Exception):
    """Nothing more is read (nesting too deep, a second document)."""


class _Builder:
    """Plain data and the location of every value, built straight from the parser's events.

    Aliases are never expanded (an alias is a problem and stands for nothing), so the work is
    linear in the size of the file."""

    def __init__(self, name: str, events):
        self.name = name
        self.events = iter(events)
        self.values: dict = {}
        self.keys: dict = {}
        self.problems: list[Problem] = []
        #: the problems of single values (a `.nan`, a bad number, a control character): the
        #: value stands for nothing (None) and the rest of the file is whole
        self.soft: list[Problem] = []
        self.data: Any = None
        self.documents = 0
        self.depth = 0
        self.count = 0  # values built

    def run(self) -> None:
        try:
            for event in self.events:
                if isinstance(event, DocumentStartEvent):
                    self.documents += 1
                    if self.documents > 1:
                        self.problems.append(
                            Problem(
                                self._loc(event),
                                "invalid YAML: several YAML documents in one file; a spec is one document",
                            )
                        )
                        return
                    self.data = self.build(next(self.events), ())
        except _Stop:
            pass

    def _loc(self, event) -> Location:
        mark = event.start_mark
        return Location(self.name, mark.line + 1, mark.column + 1)

    def build(self, event, path: Path) -> Any:
        where = self._loc(event)
        self.count += 1
        if self.count > MAX_VALUES:
            self.problems.append(
                Problem(
                    where,
                    f"too many values: a spec holds at most {MAX_VALUES} (list items, mapping entries, at any depth)",
                )
            )
            raise _Stop
        self.values[path] = where
        if isinstance(event, AliasEvent):
            self.problems.append(Problem(where, f"YAML aliases are not allowed (*{event.anchor}); write the value out"))
            return None
        if event.anchor is not None:
            self.problems.append(Problem(where, f"YAML anchors are not allowed (&{event.anchor}); write the value out"))
        if isinstance(event, ScalarEvent):
            before = len(self.problems)
            value = self._scalar(event, where)
            self.soft.extend(self.problems[before:])
            return value
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.problems.append(Problem(where, f"nesting is too deep (the limit is {MAX_DEPTH} levels)"))
            raise _Stop
        result: dict | list
        if isinstance(event, MappingStartEvent):
            if event.tag not in (None, "!", _MAP):
                self._bad_tag(event.tag, where)
            result = self._mapping(path)
        else:
            if event.tag not in (None, "!", _SEQ):
                self._bad_tag(event.tag, where)
            items: list = []
            for event in self.events:
                if isinstance(event, SequenceEndEvent):
                    break
                items.append(self.build(event, path + (len(items),)))
            result = items
        self.depth -= 1
        return result

    def _mapping(self, path: Path) -> dict:
        result: dict = {}
        first: dict = {}
        for key_event in self.events:
            if isinstance(key_event, MappingEndEvent):
                return result
            key_loc = self._loc(key_event)
            key = None
            if isinstance(key_event, ScalarEvent):
                if key_event.anchor is not None:
                    self.problems.append(
                        Problem(key_loc, f"YAML anchors are not allowed (&{key_event.anchor}); write the value out")
                    )
                key = key_event.value
                if _tag_of(key_event) != _STR:
                    self.problems.append(Problem(key_loc, f"mapping keys must be plain names, got {key!r}"))
                    key = None
                elif not self._text_ok(key, key_loc):
                    key = None
            elif isinstance(key_event, AliasEvent):
                self.problems.append(
                    Problem(key_loc, f"YAML aliases are not allowed (*{key_event.anchor}); write the value out")
                )
            else:
                self.problems.append(Problem(key_loc, "mapping keys must be plain names, got 'a collection'"))
                self._skip(key_event)
            value_event = next(self.events)
            if key is None:
                self._skip(value_event)
                continue
            if key in first:
                self.problems.append(Problem(key_loc, f"duplicate key {key!r} (first given on line {first[key].line})"))
                self._skip(value_event)
                continue
            first[key] = key_loc
            self.keys[path + (key,)] = key_loc
            result[key] = self.build(value_event, path + (key,))
        return result

    def _skip(self, event) -> None:
        """Read past the value that starts with `event` (its problems still count)."""
        saved_values, saved_keys = self.values, self.keys
        self.values, self.keys = {}, {}
        try:
            self.build(event, ())
        finally:
            self.values, self.keys = saved_values, saved_keys

    def _text_ok(self, text: str, where: Location) -> bool:
        if text.isprintable():  # (the usual case: no control character, no surrogate)
            return True
        found = _SURROGATE.search(text)
        if found is not None:
            self.problems.append(Problem(where, _surrogate_message(found.group())))
            return False
        found = _CONTROL.search(text)
        if found is not None:
            char = found.group()
            self.problems.append(
                Problem(
                    where,
                    f"control character {char!r} (U+{ord(char):04X}) in a text; a spec's text holds no control "
                    "characters but tab and newline",
                )
            )
            return False
        return True

    def _scalar(self, event: ScalarEvent, where: Location) -> Any:
        tag, text = _tag_of(event), event.value
        if not self._text_ok(text, where):
            return None
        try:
            if tag == _STR:
                return text
            if tag == _NULL:
                return None
            if tag == _BOOL:
                return text.lower() == "true"
            if tag == _INT:
                return self._int(text, where)
            if tag == _FLOAT:
                if text.lstrip("+-").startswith("."):
                    if text.lstrip("+-").lower() in (".inf", ".nan"):
                        self.problems.append(Problem(where, f"number must be finite, got {text!r}"))
                        return None
                value = float(text)
                if not math.isfinite(value):
                    self.problems.append(Problem(where, f"number must be finite, got {text!r}"))
                    return None
                return value
        except ValueError:
            shown = (
                repr(text)
                if len(text) <= 40
                else f"{text[:20]!r}... ({len(text)} characters; at most {MAX_INT_DIGITS} digits)"
            )
            self.problems.append(Problem(where, f"not a valid {tag.rsplit(':', 1)[-1]}: {shown}"))
            return None
        self._bad_tag(tag, where)
        return None

    def _int(self, text: str, where: Location) -> int | None:
        if text.startswith(("0o", "0x")):
            # int() reads any number of octal or hexadecimal digits, but nothing can print
            # the result once it has more than MAX_INT_DIGITS decimal digits
            value = int(text[2:], 8 if text[1] == "o" else 16)
            if value >= _INT_TOO_LARGE:
                self.problems.append(
                    Problem(
                        where,
                        f"not a valid int: {text[:20]!r}... ({len(text)} characters; over {MAX_INT_DIGITS} decimal "
                        "digits)",
                    )
                )
                return None
            return value
        return int(text, 10)  # (over MAX_INT_DIGITS digits: ValueError, worded by the caller)

    def _bad_tag(self, tag: str, where: Location) -> None:
        self.problems.append(Problem(where, f"unsupported YAML tag {tag!r}"))


def _tag_of(event: ScalarEvent) -> str:
    """The tag of a scalar as PyYAML's resolver gives it, in the core schema; `!` (the
    non-specific tag) makes a string."""
    tag = event.tag
    if tag == "!":
        return _STR
    if tag is not None:
        return tag
    if event.implicit[0]:
        value = event.value
        for candidate, regexp in _CoreLoader.yaml_implicit_resolvers.get(value[:1], ()):
            if regexp.match(value):
                return candidate
    return _STR
