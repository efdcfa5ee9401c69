"""YAML loading that keeps every value's file, line and column.

PyYAML's composer gives nodes with marks; this module turns them into plain Python data
plus a table from each value's path (a tuple of keys and indices) to its `Location`.
Nothing after this module sees YAML.

Refused, each with a `FILE:LINE:COL: error:` problem: files over 1 MiB, text that is not
UTF-8, syntax errors, several documents in one file, duplicate keys, anchors and aliases
(an alias can blow a few bytes up into gigabytes when walked), custom tags, non-string
keys and absurd nesting. Scalars follow the YAML 1.2 core schema: only true/false are
booleans (so `no` or `on` stay strings) and `1:20` is not a base-60 number.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import AliasEvent, NodeEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sheetgen.errors import Location, Problem, SpecError

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64

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


def load_file(path: str | os.PathLike) -> Document:
    """Read and load one spec file; raises SpecError with every problem found."""
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_BYTES:
            raise SpecError(
                [Problem(Location(name, 1, 1), f"file is too large: {size} bytes (the limit is 1 MiB)")]
            )
        with open(name, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise SpecError([Problem(Location(name, 1, 1), "is a directory, not a spec file")]) from None
    except OSError as exc:
        raise SpecError([Problem(Location(name, 1, 1), f"cannot read file: {exc.strerror or exc}")]) from None
    return load_bytes(raw, name)


def load_beside(doc: Document, rel: str) -> Document:
    """Load the file `rel` names relative to `doc`'s folder (a race's library, a season's
    race), recording it in `doc.reads`; files it loads in turn are recorded there too."""
    other = load_file(os.path.join(os.path.dirname(doc.file), rel))
    doc.reads.append(other.file)
    return dataclasses.replace(other, reads=doc.reads)


def load_bytes(raw: bytes, name: str) -> Document:
    if len(raw) > MAX_BYTES:
        raise SpecError([Problem(Location(name, 1, 1), f"file is too large: over {MAX_BYTES} bytes (the limit is 1 MiB)")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SpecError([Problem(Location(name, line, col), "file is not valid UTF-8 text")]) from None
    return dataclasses.replace(load_text(text, name), sha256=hashlib.sha256(raw).hexdigest())


def load_text(text: str, name: str = "<string>") -> Document:
    """Load YAML text; raises SpecError listing every problem found."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        index = text.index("\x00")
        line = text.count("\n", 0, index) + 1
        col = index - (text.rfind("\n", 0, index) + 1) + 1
        raise SpecError([Problem(Location(name, line, col), "file contains a NUL byte; it is not a text file")])
    problems = _scan_events(text, name)
    if problems:
        raise SpecError(problems)
    try:
        loader = _CoreLoader(text)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise SpecError([_syntax_problem(exc, name, text)]) from None
    except RecursionError:
        raise SpecError([Problem(Location(name, 1, 1), f"nesting is too deep (the limit is {MAX_DEPTH} levels)")]) from None
    if root is None:
        raise SpecError([Problem(Location(name, 1, 1), "file is empty; expected a spec mapping")])
    builder = _Builder(name)
    data = builder.build(root, (), 0)
    if builder.problems:
        raise SpecError(builder.problems)
    return Document(name, data, builder.values, builder.keys)


def _syntax_problem(exc: yaml.YAMLError, name: str, text: str) -> Problem:
    if isinstance(exc, yaml.reader.ReaderError):
        index = min(exc.position, len(text))
        line = text.count("\n", 0, index) + 1
        col = index - (text.rfind("\n", 0, index) + 1) + 1
        return Problem(Location(name, line, col), f"invalid YAML: character {exc.character!r} is not allowed in a spec")
    if not isinstance(exc, yaml.MarkedYAMLError):
        return Problem(Location(name, 1, 1), f"invalid YAML: {exc}")
    mark = exc.problem_mark or exc.context_mark
    what = exc.problem or exc.context or "syntax error"
    if "expected a single document" in str(exc.context):
        what = "several YAML documents in one file; a spec is one document"
    location = _loc(name, mark) if mark is not None else Location(name, 1, 1)
    return Problem(location, f"invalid YAML: {what}")


def _scan_events(text: str, name: str) -> list[Problem]:
    """Refuse anchors and aliases before anything is composed (and so expanded)."""
    problems = []
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_CoreLoader):
            if isinstance(event, AliasEvent):
                problems.append(
                    Problem(_loc(name, event.start_mark), f"YAML aliases are not allowed (*{event.anchor}); write the value out")
                )
            elif isinstance(event, NodeEvent) and event.anchor is not None:
                problems.append(
                    Problem(_loc(name, event.start_mark), f"YAML anchors are not allowed (&{event.anchor}); write the value out")
                )
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    problems.append(
                        Problem(_loc(name, event.start_mark), f"nesting is too deep (the limit is {MAX_DEPTH} levels)")
                    )
                    break
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError as exc:
        problems.append(_syntax_problem(exc, name, text))
    return problems


class _Builder:
    def __init__(self, name: str):
        self.name = name
        self.values: dict = {}
        self.keys: dict = {}
        self.problems: list[Problem] = []

    def build(self, node: Node, path: Path, depth: int) -> Any:
        self.values[path] = _loc(self.name, node.start_mark)
        if isinstance(node, MappingNode):
            return self._mapping(node, path, depth)
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self._bad_tag(node)
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        return self._scalar(node)

    def _mapping(self, node: MappingNode, path: Path, depth: int) -> dict:
        if node.tag != _MAP:
            self._bad_tag(node)
        result: dict = {}
        first: dict = {}
        for key_node, value_node in node.value:
            key_loc = _loc(self.name, key_node.start_mark)
            if not isinstance(key_node, ScalarNode) or key_node.tag != _STR:
                shown = key_node.value if isinstance(key_node, ScalarNode) else "a collection"
                self.problems.append(Problem(key_loc, f"mapping keys must be plain names, got {shown!r}"))
                continue
            key = key_node.value
            if key in first:
                line = first[key].line
                self.problems.append(Problem(key_loc, f"duplicate key {key!r} (first given on line {line})"))
                continue
            first[key] = key_loc
            self.keys[path + (key,)] = key_loc
            result[key] = self.build(value_node, path + (key,), depth + 1)
        return result

    def _scalar(self, node: ScalarNode) -> Any:
        tag, text = node.tag, node.value
        try:
            if tag == _STR:
                return text
            if tag == _NULL:
                return None
            if tag == _BOOL:
                return text.lower() == "true"
            if tag == _INT:
                if text.startswith("0o"):
                    return int(text[2:], 8)
                return int(text, 16) if text.startswith("0x") else int(text, 10)
            if tag == _FLOAT:
                if text.lstrip("+-").startswith("."):
                    if text.lstrip("+-").lower() in (".inf", ".nan"):
                        self.problems.append(Problem(_loc(self.name, node.start_mark), f"number must be finite, got {text!r}"))
                        return None
                value = float(text)
                if not math.isfinite(value):
                    self.problems.append(Problem(_loc(self.name, node.start_mark), f"number must be finite, got {text!r}"))
                    return None
                return value
        except ValueError:
            shown = repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters; at most 4300 digits)"
            self.problems.append(Problem(_loc(self.name, node.start_mark), f"not a valid {tag.rsplit(':', 1)[-1]}: {shown}"))
            return None
        self._bad_tag(node)
        return None

    def _bad_tag(self, node: Node) -> None:
        self.problems.append(Problem(_loc(self.name, node.start_mark), f"unsupported YAML tag {node.tag!r}"))
