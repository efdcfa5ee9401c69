"""The fuzz harness: hostile variants of every bundled spec, run through the CLI in process
(or, for a share of the cases, as a real process).

A case is made from (seed, index) alone, so any case can be run again. It copies the bundled
specs (every ``track_specs/**/*.yaml``, whatever the game: the game of each is read from its
``game:`` key) into a fresh folder, damages one file or one option, runs one command with
click's CliRunner in that folder, and checks what every command owes its user:

- the exit status is 0, 1 or 2 (2: click's usage errors);
- nothing says "Traceback" or "internal error", and no exception escapes the command;
- on exit 1 every line of standard error is ``FILE:LINE:COL: error: ...`` or
  ``sheetgen: error: ...``;
- on a non-zero exit nothing in the folder is new, changed or gone (names, kinds, sizes,
  hashes);
- on any exit no file that existed before changes, unless it is a file the command was asked
  to write (its -o) and not one of its inputs; no temporary file is left behind;
- a named pipe (FIFO) is still a named pipe afterwards.

A case still running after `HANG` seconds on the clock is stopped (``hangs``). Expensive
commands (analyses, PDFs, calendars) run on damaged specs, which should fail fast, and only on
a small share of the specs that load (`Settings.expensive_share`); numeric mutations of a
valid spec never get an expensive command: their spec is damaged, not large.

Three families ask for work instead of damage. ``valid``: every command of the CLI, for every
game that has it, with options the game accepts (`fuzz.commands`: Rally Risk courses drawn
from a library, Rally Run! boards, Rekee files imported and exported, odds, tables, schemas).
``large``: a bundled spec made valid but large, its numbers at the schema's limits (`fuzz.large`),
or a command's options at their far end, run through the expensive commands. ``shell``: the
command run as a real process (`fuzz.process`) with standard output closed, on /dev/full or
appended to by ``-o /dev/stdout``, killed by SIGTERM, SIGINT or SIGHUP while it works, writing
into a named pipe a reader reads or a device, or onto a write-protected (mode 444) file; a
share of the other cases runs as a process too. (``foreign``: a damaged Rekee file imported.)
On top of the rules above:

- a case's CPU time (the process's, its workers included) over `SLOW` seconds is a finding
  (``slow``): every input under 10 KB answers within it or is refused by a located line; a
  case is stopped at `Settings.stop` seconds of CPU;
- a process a signal was sent to ends with 128+N, says so in one line at most (``sheetgen:
  terminated by SIGTERM; nothing written``), writes nothing, and leaves no process of its group
  behind (``signals``, ``workers left``);
- a write-protected file is replaced only with --force, and keeps its mode (``protected files
  replaced``); a file standard output is appended to keeps what it held (``special files
  replaced``); a command whose output file is standard output fails when that is closed or
  full (``lost output``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "track_specs"
TEMPLATES = ROOT / "templates"  # the built-in page templates: copied too, as --template files

SLOW = 10.0  # seconds of CPU: a costlier case is a finding
STOP = 45.0  # seconds of CPU after which a case is stopped (reported as slow)
HANG = 90.0  # seconds: a case still running is stopped and reported

LOCATED = re.compile(r"^.+:\d+:\d+: error: ")
GENERAL = re.compile(r"^sheetgen: error: ")
WARNING = re.compile(r"^.+:\d+:\d+: warning: ")  # render --draft's warnings, before its refusal

CATEGORIES = (
    "internal errors",
    "tracebacks",
    "bad exit codes",
    "unlocated error lines",
    "partial outputs",
    "replaced inputs",
    "other files changed",
    "special files replaced",
    "hangs",
    "crashes",
    "slow",
    "signals",
    "workers left",
    "protected files replaced",
    "lost output",
)
#: the categories that belong to the output side (-o onto inputs, FIFOs, missing folders)
OUTPUT_SIDE = ("partial outputs", "replaced inputs", "other files changed", "special files replaced")

EXPENSIVE = {"analyze", "simulate", "render", "build", "calendar", "season", "generate", "validate --strict"}


# --------------------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class SpecFile:
    path: str  # relative to the case folder, e.g. "track_specs/rally_risk/sections.yaml"
    game: str
    kind: str | None
    data: Any
    refs: tuple  # ((path in data, the referenced file's relative path), ...)


@dataclass(frozen=True)
class Corpus:
    files: dict  # relative path -> bytes (every file of the tree, spec or not)
    specs: tuple  # SpecFile, one per YAML file with a `game:` key
    games: tuple  # the games named by the specs
    kinds: dict  # game -> kinds its files give
    templates: tuple = ()  # (relative path, data) of the copied page templates

    def spec(self, path: str) -> SpecFile:
        return next(s for s in self.specs if s.path == path)

    def referrers(self, path: str) -> list[SpecFile]:
        return [s for s in self.specs if any(ref == path for _where, ref in s.refs)]


def load_corpus(specs: Path = SPECS, templates: Path = TEMPLATES, foreign: bool = True) -> Corpus:
    from sheetgen.yamlsrc import load_bytes

    files = {}
    for file in sorted(specs.rglob("*")):
        if file.is_file():
            files[file.relative_to(specs.parent).as_posix()] = file.read_bytes()
    pages = []
    for file in sorted(templates.glob("*.yaml")) if templates.is_dir() else ():
        rel = "templates/" + file.name
        files[rel] = file.read_bytes()
        pages.append((rel, load_bytes(files[rel], rel).data))
    found = []
    for rel, raw in files.items():
        if not rel.endswith(".yaml"):
            continue
        data = load_bytes(raw, rel).data
        if not isinstance(data, dict) or not isinstance(data.get("game"), str):
            continue
        folder = os.path.dirname(rel)
        refs = tuple(
            (where, os.path.normpath(os.path.join(folder, value)).replace(os.sep, "/"))
            for where, value in _strings(data, ())
            if value.endswith(".yaml") and os.path.normpath(os.path.join(folder, value)).replace(os.sep, "/") in files
        )
        kind = data.get("kind") if isinstance(data.get("kind"), str) else None
        found.append(SpecFile(rel, data["game"], kind, data, refs))
    games = tuple(sorted({s.game for s in found}))
    kinds = {g: tuple(sorted({s.kind for s in found if s.game == g and s.kind})) for g in games}
    if foreign:  # Rekee files of the bundled tracks, for `import` (not specs: no `game:` key)
        from fuzz.commands import rekee_files

        files.update(rekee_files(files, specs.parent))
    return Corpus(files, tuple(found), games, kinds, tuple(pages))


def _strings(data: Any, path: tuple):
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(value, path + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _strings(value, path + (i,))


def inputs_of(corpus: Corpus, path: str) -> set[str]:
    """`path` and every file it refers to, transitively."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        here = todo.pop()
        if here in seen:
            continue
        seen.add(here)
        spec = next((s for s in corpus.specs if s.path == here), None)
        if spec is not None:
            todo.extend(ref for _where, ref in spec.refs)
    return seen


# --------------------------------------------------------------------------- data paths


def _nodes(data: Any, path: tuple = ()):
    """(path, value) of every value below the root."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield path + (key,), value
            yield from _nodes(value, path + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield path + (i,), value
            yield from _nodes(value, path + (i,))


def _get(data: Any, path: tuple) -> Any:
    for step in path:
        data = data[step]
    return data


def _set(data: Any, path: tuple, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


class Raw:
    """A piece of YAML text put into the dumped spec as it is (a number in hexadecimal, a
    tag, an alias, a flow list of 60,000 items)."""

    def __init__(self, text: str):
        self.text = text


def render_data(data: Any) -> str:
    """YAML text of `data`, each `Raw` written out as its own text."""
    from sheetgen.yamlsrc import dump

    raws: dict[str, str] = {}

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            token = f"FUZZRAW{len(raws):06d}X"
            raws[token] = value.text
            return token
        if isinstance(value, dict):
            return {(swap(k) if isinstance(k, Raw) else k): swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = dump(swap(data))
    # longest tokens first is not needed: every token has the same length
    for token, raw in raws.items():
        text = text.replace(token, raw)
    return text


# --------------------------------------------------------------------------- mutations

EXTREME_NUMBERS = [
    "0", "-1", "-0", "+5", "007", "2147483648", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "1" + "0" * 100, "9" * 4300, "9" * 4301, "9" * 20000,
    "0o7", "0o777777777777777777777", "0o" + "7" * 4766, "0o" + "7" * 6000,
    "0x10", "0xffffffffffffffff", "0x" + "f" * 3571, "0x" + "f" * 3600, "0x" + "F" * 100000,
    "1e308", "1e309", "-1e309", "1e-400", "0.1", "3.0", "-0.0", ".inf", "-.inf", ".nan", ".NaN",
    "1_000", "0b101", "0o8", "0xg", "1:20", "1.2.3", "0x", "0o",
]

ODD_STRINGS = [
    '""', '" "', '"é" ', '"' + "é" * 5000 + '"', '"' + "x" * 100_000 + '"', '"\\u202Eevil\\u202C"',
    '"e\\u0301\\u0301\\u0301"', '"\\U0001F600\\U0001F3CE"', '"\\u200B\\u200D\\uFEFF"', '"\\u00A0"',
    '"line\\u2028break"', '"nel\\x85x"', '"\\x1b[2J\\x1b[31mred"', '"bell\\x07"', '"nul\\0x"', '"tab\\tx"',
    '"new\\nline"', '"\\ud800"', '"\\udfff"', '"\\ud83d\\ude00"', '"\\U0000D800"', '"\\U00110000"',
    '"\\uFFFE\\uFFFF"', '"\\U0010FFFF"', "'it''s'", '"\\\\"', '"C:\\\\x"', '"a: b"', '"- x"', '"#x"',
    "!!binary aGVsbG8=", '"../../x.yaml"', '"/abs/path.yaml"', '"' + "a/" * 3000 + 'x.yaml"',
]

TAGS = [
    "!!python/object:os.system 1", "!!python/name:os.system", "!!binary aGVsbG8=", "!custom x",
    "!!str 5", "!!int '5'", "!!int 'x'", "!!float 1", "!!float x", "!!bool yes", "!!null ''",
    "!!set {a: null}", "!!omap [{a: 1}]", "!!timestamp 2001-12-14", "! 5", "!<tag:yaml.org,2002:int> 5",
    "!!map {a: 1}", "!!seq [1]", "!!str [1]", "!!map [1]",
]


@dataclass
class Case:
    seed: int
    index: int
    description: str = ""
    files: dict = field(default_factory=dict)  # relative path -> bytes
    fifos: list = field(default_factory=list)  # relative paths made as named pipes
    folders: list = field(default_factory=list)  # relative paths made as empty folders
    args: list = field(default_factory=list)
    subject: str | None = None  # the spec the command reads
    targets: list = field(default_factory=list)  # outputs the command was asked to write
    output_folder: str | None = None  # build/calendar -o DIR
    numeric: bool = False  # a number was changed (a valid spec of huge numbers is slow by design)
    renamed_from: str | None = None  # the bundled spec the subject is a copy of (under an odd name)
    content: bool = False  # a text was changed (odd Unicode): a valid spec must survive every command
    hostile_output: bool = False  # -o onto an input, a FIFO, a folder, a missing folder...
    family: str = ""  # the kind of damage (structure, bytes, outputs...)
    command: str = ""
    game: str = ""  # the game the case is about: its spec's, or the command's GAME
    extra_inputs: list = field(default_factory=list)  # other files the command reads (a second spec, a library)
    valid: bool = False  # a valid command (`fuzz.commands`): always run, whatever it costs
    large: bool = False  # a valid spec or option made large: always run, with the figures cache off
    mode: str = "in process"  # or "process": a real `python -m sheetgen` (`fuzz.process`)
    stdout: str = "pipe"  # a process's standard output: pipe, closed, full, append (>> log.txt)
    signal: tuple | None = None  # (signal name, seconds after the start) sent to a process
    readers: list = field(default_factory=list)  # named pipes the harness reads while it runs
    devices: list = field(default_factory=list)  # character devices made in the folder (as /dev/null)
    protected: list = field(default_factory=list)  # files made write-protected (mode 444) first
    logs: dict = field(default_factory=dict)  # file -> what it holds first (standard output appended to it)
    env: dict = field(default_factory=dict)  # environment of the command

    def reproducer(self) -> str:
        if self.mode == "process":
            from fuzz.process import shell_line

            name, delay = self.signal or (None, 0.0)
            line = shell_line(self.args, self.stdout, name, delay)[len("sheetgen "):]
        else:
            line = " ".join(shlex.quote(a) if a.isprintable() else repr(a) for a in self.args)
        return f"python benchmarks/fuzz.py --seed {self.seed} --case {self.index} --keep  # sheetgen {line}  [{self.description}]"


class Mutator:
    """Builds the damage of one case from its random generator."""

    def __init__(self, corpus: Corpus, rng: random.Random):
        self.corpus = corpus
        self.rng = rng
        self.content = False

    # -- helpers
    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def paths(self, data, want: Callable[[Any], bool] = lambda v: True) -> list[tuple]:
        return [p for p, v in _nodes(data) if want(v)]

    def key_paths(self, data) -> list[tuple]:
        return [p for p, _v in _nodes(data) if isinstance(p[-1], str)]

    # -- structure-aware (data level)
    def delete_key(self, data) -> str:
        paths = self.key_paths(data)
        path = self.pick(paths)
        del _get(data, path[:-1])[path[-1]]
        return f"delete key {path!r}"

    def rename_key(self, data) -> str:
        path = self.pick(self.key_paths(data))
        key = path[-1]
        variants = [key[:-1], key + "s", key.upper(), key.capitalize(), key.replace("_", "-"), key + "_", " " + key, key[1:],
                    (key[1] + key[0] + key[2:]) if len(key) > 1 else key + key, key + "\u200b", key.replace("e", "é")]
        new = self.pick([v for v in variants if v] or [key + "x"])
        parent = _get(data, path[:-1])
        items = [(new if k == key else k, v) for k, v in parent.items()]
        if new in parent and new != key:
            return self.delete_key(data)
        parent.clear()
        parent.update(items)
        return f"rename key {path!r} to {new!r}"

    def swap_type(self, data) -> str:
        path = self.pick(self.paths(data))
        value = _get(data, path)
        choices = ["text", 7, 3.5, True, None, [], {}, [1, "a"], {"a": 1}, "", [value], {"x": value}, 0, -1]
        new = self.pick([c for c in choices if type(c) is not type(value)])
        _set(data, path, new)
        return f"swap type at {path!r} to {new!r}"[:200]

    def extreme_number(self, data) -> str:
        numeric = self.paths(data, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
        path = self.pick(numeric or self.paths(data))
        literal = self.pick(EXTREME_NUMBERS)
        _set(data, path, Raw(literal))
        return f"number at {path!r} = {literal[:30]}{'...' if len(literal) > 30 else ''} ({len(literal)} chars)"

    def odd_string(self, data) -> str:
        strings = self.paths(data, lambda v: isinstance(v, str))
        path = self.pick(strings or self.paths(data))
        literal = self.pick(ODD_STRINGS)
        if self.rng.random() < 0.2 and isinstance(path[-1], str):  # an odd key instead
            parent = _get(data, path[:-1])
            parent[Raw(literal)] = parent.pop(path[-1])
            return f"odd key for {path!r}: {literal[:40]}"
        _set(data, path, Raw(literal))
        return f"odd string at {path!r}: {literal[:40]}"

    def deep_nesting(self, data) -> str:
        path = self.pick(self.paths(data))
        depth = self.pick([5, 30, 62, 63, 64, 65, 200, 5000, 100_000])
        text = "[" * depth + "]" * depth if self.rng.random() < 0.5 else "{a: " * depth + "1" + "}" * depth
        _set(data, path, Raw(text))
        return f"nesting {depth} deep at {path!r}"

    def huge_list(self, data) -> str:
        lists = self.paths(data, lambda v: isinstance(v, list) and v)
        path = self.pick(lists or self.paths(data))
        value = _get(data, path)
        item = value[0] if isinstance(value, list) and value else 1
        count = self.pick([100, 1000, 10_000, 60_000])
        one = json.dumps(item, ensure_ascii=True)
        if (len(one) + 2) * count > 1_100_000:  # over the size limit anyway: keep the case small
            one = "1"
        text = "[" + ", ".join([one] * count) + "]"
        _set(data, path, Raw(text))
        return f"list of {count} at {path!r}"

    def empty_container(self, data) -> str:
        path = self.pick(self.paths(data, lambda v: isinstance(v, (list, dict))) or self.paths(data))
        new = self.pick([[], {}, None, ""])
        _set(data, path, new)
        return f"empty {path!r} = {new!r}"

    def game_or_kind(self, data) -> str:
        key = self.pick(["game", "kind"])
        options = list(self.corpus.games) + [k for ks in self.corpus.kinds.values() for k in ks] + ["rally-risk", "Rallytaire", "", "season", "race"]
        new = self.pick(options)
        data[key] = new
        return f"{key} = {new!r}"

    def unknown_keys(self, data) -> str:
        count = self.pick([1, 3, 150, 5000, 60_000])
        mappings = [()] + self.paths(data, lambda v: isinstance(v, dict))
        where = self.pick(mappings)
        target = _get(data, where)
        for i in range(count):
            target[f"unknown_{i}"] = i
        return f"{count} unknown keys at {where!r}"

    def anchors(self, data) -> str:
        paths = self.paths(data)
        first, second = self.pick(paths), self.pick(paths)
        value = _get(data, first)
        _set(data, first, Raw("&a " + json.dumps(value if not isinstance(value, Raw) else 1)))
        if first != second:
            _set(data, second, Raw("*a"))
        return f"anchor at {first!r}, alias at {second!r}"

    def tag(self, data) -> str:
        path = self.pick(self.paths(data))
        literal = self.pick(TAGS)
        _set(data, path, Raw(literal))
        return f"tag at {path!r}: {literal}"

    def merge_key(self, data) -> str:
        mappings = [()] + self.paths(data, lambda v: isinstance(v, dict))
        where = self.pick(mappings)
        _get(data, where)["<<"] = Raw(self.pick(["{game: rallytaire}", "*x", "[{a: 1}]", "1"]))
        return f"merge key at {where!r}"

    STRUCTURE = ("delete_key", "rename_key", "swap_type", "extreme_number", "odd_string", "deep_nesting", "huge_list",
                 "empty_container", "game_or_kind", "unknown_keys", "anchors", "tag", "merge_key")

    def structure(self, text: bytes, spec: SpecFile) -> tuple[bytes, str, bool]:
        data = copy.deepcopy(spec.data)
        names = list(self.STRUCTURE)
        done = []
        numeric = False
        for _ in range(self.pick([1, 1, 1, 2, 3])):
            name = self.pick(names)
            try:
                done.append(getattr(self, name)(data))
            except (IndexError, KeyError, TypeError, AttributeError):
                continue
            numeric |= name == "extreme_number"
            self.content |= name == "odd_string"
        return render_data(data).encode("utf-8"), "; ".join(done) or "no change", numeric

    # -- text level
    def text_hostility(self, raw: bytes, spec: SpecFile) -> tuple[bytes, str]:
        text = raw.decode("utf-8")
        lines = text.splitlines(keepends=True)
        choice = self.pick(["duplicate", "documents", "oversized", "nearly_oversized", "flow", "complex_keys", "directives", "billion"])
        if choice == "duplicate":
            keyed = [i for i, line in enumerate(lines) if re.match(r"^\s*(- )?[A-Za-z_][\w-]*:", line)]
            i = self.pick(keyed)
            line = lines[i]
            copy_line = re.sub(r"^(\s*)- ", lambda m: m.group(1) + "  ", line)
            lines.insert(i + 1, copy_line if copy_line.endswith("\n") else copy_line + "\n")
            return "".join(lines).encode(), f"duplicate key line {i + 1}"
        if choice == "documents":
            variant = self.pick(["twice", "explicit", "end", "empty_second"])
            out = {"twice": text + "---\n" + text, "explicit": "---\n" + text, "end": text + "...\n" + "garbage: [\n",
                   "empty_second": text + "---\n"}[variant]
            return out.encode(), f"documents: {variant}"
        if choice == "oversized":
            return (text + "#" * (1024 * 1024) + "\n").encode(), "oversized (over 1 MiB)"
        if choice == "nearly_oversized":
            pad = 1024 * 1024 - len(raw) - 64
            return (text + ("# " + "x" * 60 + "\n") * (pad // 63)).encode(), "just under 1 MiB of comments"
        if choice == "flow":
            import yaml

            from sheetgen.yamlsrc import _CoreDumper

            return yaml.dump(spec.data, Dumper=_CoreDumper, default_flow_style=True, allow_unicode=True, width=10_000).encode(), "flow style"
        if choice == "complex_keys":
            key = self.pick(["? [a, b]\n: 1\n", "? {a: 1}\n: 2\n", "~: 1\n", "true: 1\n", "1: x\n", "3.5: y\n", '"\\x1b[2J": 1\n', "? |\n  block\n: 3\n", "x" * 10_000 + ": 1\n"])
            return (text + key).encode(), f"complex key {key[:20]!r}"
        if choice == "directives":
            head = self.pick(["%YAML 1.2\n---\n", "%YAML 1.1\n---\n", "%YAML 2.0\n---\n", "%TAG ! tag:example.com,2000:\n---\n", "%FOO bar\n---\n"])
            return (head + text).encode(), f"directive {head.splitlines()[0]}"
        laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n'
        return (text + laughs).encode(), "billion laughs"

    # -- byte damage
    def byte_damage(self, raw: bytes, spec: SpecFile) -> tuple[bytes, str]:
        choice = self.pick(["truncate", "bitflip", "bom", "bom_middle", "utf16", "crlf", "cr", "latin1", "overlong", "cesu", "nul", "control", "tabs", "drop_line", "swap_lines", "empty"])
        data = bytearray(raw)
        if choice == "truncate":
            at = self.rng.randrange(len(raw) + 1)
            return raw[:at], f"truncated at byte {at}"
        if choice == "bitflip":
            flips = []
            for _ in range(self.pick([1, 1, 2, 4, 8])):
                i = self.rng.randrange(len(data))
                bit = 1 << self.rng.randrange(8)
                data[i] ^= bit
                flips.append(f"{i}^{bit}")
            return bytes(data), "bit flips " + ",".join(flips)
        if choice == "bom":
            return b"\xef\xbb\xbf" + raw, "BOM at the start"
        if choice == "bom_middle":
            i = raw.index(b"\n") + 1 if b"\n" in raw else 0
            return raw[:i] + b"\xef\xbb\xbf" + raw[i:], "BOM in the middle"
        if choice == "utf16":
            return raw.decode("utf-8").encode("utf-16"), "UTF-16"
        if choice == "crlf":
            return raw.replace(b"\n", b"\r\n"), "CRLF"
        if choice == "cr":
            return raw.replace(b"\n", b"\r"), "CR line ends"
        garbage = {"latin1": b"\xe9", "overlong": b"\xc0\xaf", "cesu": b"\xed\xa0\x80", "nul": b"\x00", "control": self.pick([b"\x07", b"\x1b", b"\x7f", b"\x0c", b"\x85"])}
        if choice in garbage:
            i = self.rng.randrange(len(raw) + 1)
            return raw[:i] + garbage[choice] + raw[i:], f"{choice} byte at {i}"
        lines = raw.split(b"\n")
        if choice == "tabs":
            return b"\n".join(re.sub(rb"^  ", b"\t", line) for line in lines), "tab indentation"
        if choice == "drop_line":
            i = self.rng.randrange(len(lines))
            del lines[i]
            return b"\n".join(lines), f"line {i + 1} dropped"
        if choice == "swap_lines":
            i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            return b"\n".join(lines), f"lines {i + 1} and {j + 1} swapped"
        return self.pick([b"", b"   \n", b"# only a comment\n", b"---\n", b"~\n", b"[]\n", b"42\n"]), "empty or not a mapping"

    # -- another tool's JSON (a Rekee track)
    def json_damage(self, raw: bytes) -> tuple[bytes, str]:
        """One structure-aware change to a JSON file (values JSON can hold)."""
        data = json.loads(raw)
        choice = self.pick(["delete_key", "rename_key", "swap_type", "empty_container", "number", "many"])
        if choice == "number":
            numeric = self.paths(data, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
            path = self.pick(numeric or self.paths(data))
            literal = self.pick(["1e309", "-1e309", "-0", "0.5", "1e-400", "10" + "0" * 400, "-" + "9" * 5000, "2147483648", "true", "null", '"3"', "3.0"])
            _set(data, path, Raw(literal))
            description = f"number at {path!r} = {literal[:20]}"
        elif choice == "many":
            lists = self.paths(data, lambda v: isinstance(v, list) and v)
            path = self.pick(lists or self.paths(data))
            value = _get(data, path)
            count = self.pick([201, 301, 5000, 60_000])
            _set(data, path, (value * (count // max(1, len(value)) + 1))[:count] if isinstance(value, list) else [value] * count)
            description = f"list of {count} at {path!r}"
        else:
            try:
                description = getattr(self, choice)(data)
            except (IndexError, KeyError, TypeError, AttributeError):
                description = "no change"
        raws: dict[str, str] = {}

        def swap(value: Any) -> Any:
            if isinstance(value, Raw):
                token = f"FUZZRAW{len(raws):06d}X"
                raws[token] = value.text
                return token
            if isinstance(value, dict):
                return {str(k.text if isinstance(k, Raw) else k): swap(v) for k, v in value.items()}
            if isinstance(value, list):
                return [swap(v) for v in value]
            return value

        text = json.dumps(swap(data), indent=self.pick([None, 1, 3]))
        for token, literal in raws.items():
            text = text.replace(f'"{token}"', literal)
        return text.encode("utf-8"), description

    def json_text(self, raw: bytes) -> tuple[bytes, str]:
        """Text that is not JSON, or JSON at its edges (duplicate keys, NaN, deep nesting)."""
        text = raw.decode("utf-8")
        choice = self.pick(["duplicate", "trailing_comma", "comment", "nan", "deep", "yaml", "two", "empty", "not_object"])
        if choice == "duplicate":
            return text.replace("{", '{"title": "twice", ', 1).encode(), "duplicate key"
        if choice == "trailing_comma":
            return re.sub(r"(\S)(\s*)\]", r"\1,\2]", text, count=1).encode(), "trailing comma"
        if choice == "comment":
            return ("// a comment\n" + text).encode(), "comment"
        if choice == "nan":
            return re.sub(r": (-?\d+)", lambda m: ": " + self.pick(["NaN", "Infinity", "-Infinity"]), text, count=1).encode(), "NaN"
        if choice == "deep":
            depth = self.pick([100, 1000, 100_000])
            return text.replace("[", "[" + "[" * depth + "]" * depth + ",", 1).encode(), f"nesting {depth} deep"
        if choice == "yaml":
            return b"title: Col\ntiles: []\n", "YAML, not JSON"
        if choice == "two":
            return (text + text).encode(), "two documents"
        if choice == "empty":
            return self.pick([b"", b" ", b"null", b"{}"]), "empty"
        return self.pick([b"[]", b"42", b'"text"', b"[{}]"]), "not an object"

    # -- references
    def reference(self, case: Case, spec: SpecFile) -> tuple[bytes, str] | None:
        if not spec.refs:
            return None
        where, ref = self.pick(list(spec.refs))
        folder = os.path.dirname(spec.path)
        here = os.path.basename(spec.path)
        others = [os.path.relpath(s.path, folder) for s in self.corpus.specs]
        choice = self.pick(["other", "self", "missing", "folder", "fifo", "empty", "long", "nul", "newline", "surrogate", "absolute", "outside"])
        value: Any
        if choice == "other":
            value = self.pick(others)
        elif choice == "self":
            value = here
        elif choice == "missing":
            value = "no_such_file.yaml"
        elif choice == "folder":
            value = self.pick([".", "..", "sub"])
            case.folders.append(os.path.normpath(os.path.join(folder, "sub")))
        elif choice == "fifo":
            value = "pipe.yaml"
            case.fifos.append(os.path.normpath(os.path.join(folder, "pipe.yaml")))
        elif choice == "empty":
            value = ""
        elif choice == "long":
            value = "x" * 5000 + ".yaml"
        elif choice == "nul":
            value = Raw('"a\\0b.yaml"')
        elif choice == "newline":
            value = Raw('"a\\nb.yaml"')
        elif choice == "surrogate":
            value = Raw('"a\\udc80.yaml"')
        elif choice == "absolute":
            value = str(Path("/nonexistent-fuzz") / "x.yaml")
        else:
            value = "../../../../../../../../nonexistent-fuzz.yaml"
        data = copy.deepcopy(spec.data)
        _set(data, where, value)
        return render_data(data).encode("utf-8"), f"reference {where!r} -> {choice}"


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class Settings:
    #: share of the specs that load which still get an expensive command
    expensive_share: float = 0.05
    #: the same for specs that load with odd text in them (a name that renders badly)
    content_share: float = 0.5
    #: the same for a valid spec and a hostile output (-o onto an input, a FIFO, ...); the cases
    #: made for hostile outputs (family "outputs") always run their command
    output_share: float = 0.3
    slow: float = SLOW  # seconds of CPU
    stop: float = STOP  # seconds of CPU
    hang: float = HANG  # seconds on the clock


def _generate_games() -> list[str]:
    """The games `sheetgen generate` offers: those the registry knows with a generator."""
    from sheetgen import registry

    return [g.name for g in registry.games() if g.generator is not None]


def make_case(corpus: Corpus, seed: int, index: int, settings: Settings = Settings()) -> Case:
    """The case (seed, index): the same every time."""
    rng = random.Random(f"sheetgen-fuzz:{seed}:{index}")
    mut = Mutator(corpus, rng)
    case = Case(seed, index, files=dict(corpus.files))
    family = mut.pick([name for name, weight in FAMILIES for _ in range(weight)])
    case.family = family
    if family == "template" and corpus.templates:
        _template_case(case, mut, corpus)
        return _as_process(case, mut)
    if family in ("valid", "large", "shell", "foreign"):
        from fuzz import commands, large, process

        if family == "valid":
            commands.valid_command(case, mut, corpus)
            case.description = "valid command"
        elif family == "large":
            large.large_case(case, mut, corpus)
        elif family == "shell":
            process.shell_case(case, mut, corpus)
        else:
            _foreign_case(case, mut, corpus)
        return case if family == "shell" else _as_process(case, mut)
    spec = mut.pick(list(corpus.specs))
    subject = spec
    if family == "referenced":  # damage a file that another one refers to, run the referrer
        targets = [s for s in corpus.specs if corpus.referrers(s.path)]
        if targets:
            spec = mut.pick(targets)
            subject = mut.pick(corpus.referrers(spec.path))
        family_inner = mut.pick(["structure", "bytes", "text"])
    else:
        family_inner = family
    raw = corpus.files[spec.path]
    description = ""
    if family_inner == "structure":
        new, description, case.numeric = mut.structure(raw, spec)
        case.files[spec.path] = new
    elif family_inner == "text":
        new, description = mut.text_hostility(raw, spec)
        case.files[spec.path] = new
    elif family_inner == "bytes":
        new, description = mut.byte_damage(raw, spec)
        case.files[spec.path] = new
    elif family_inner == "reference":
        made = mut.reference(case, spec)
        if made is None:
            new, description, case.numeric = mut.structure(raw, spec)
        else:
            new, description = made
        case.files[spec.path] = new
    elif family_inner == "pristine":
        description = "unchanged"
    if family == "referenced":
        description = f"{spec.path} damaged ({description}), run on {subject.path}"
    case.subject = subject.path
    case.family = family
    if family != "generate" and rng.random() < 0.04:
        # the spec under a name with control characters: every message names it on one line
        odd = os.path.join(os.path.dirname(subject.path), mut.pick(["bad\nname.yaml", "esc\x1b[31m.yaml", "tab\tname.yaml", "cr\rname.yaml"]))
        case.files[odd] = case.files[subject.path]
        case.subject, case.renamed_from = odd, subject.path
        description += f"; copied to {odd!r}"
    case.content = mut.content
    case.description = description or family
    case.game = subject.game
    if family == "generate":
        _generate_command(case, mut)
    else:
        _command(case, mut, corpus, subject, outputs=family in ("outputs", "pristine") or rng.random() < 0.15)
    return _as_process(case, mut)


def _as_process(case: Case, mut: Mutator) -> Case:
    """A share of the cases runs as a real process, standard output a plain file: what a
    process meets that CliRunner hides (its imports, its exit) is judged on every family."""
    if mut.rng.random() < PROCESS_SHARE:
        case.mode = "process"
    return case


def _foreign_case(case: Case, mut: Mutator, corpus: Corpus) -> None:
    """A damaged Rekee file, imported: `import` reads another tool's JSON."""
    from fuzz import commands

    commands.valid_command(case, mut, corpus, command="import")
    case.valid = False
    source = case.args[2]
    raw = corpus.files[source]
    how = mut.pick(["bytes", "bytes", "json", "json", "text"])
    if how == "bytes":
        new, description = mut.byte_damage(raw, SpecFile(source, "", None, None, ()))
    elif how == "json":
        new, description = mut.json_damage(raw)
    else:
        new, description = mut.json_text(raw)
    case.files[source] = new
    case.description = f"{source} damaged ({description})"


#: the families of cases and their weights (see the module's docstring)
FAMILIES = (
    ("structure", 30), ("text", 10), ("bytes", 12), ("reference", 8), ("referenced", 5), ("outputs", 12),
    ("generate", 2), ("pristine", 3), ("template", 1), ("valid", 22), ("large", 8), ("shell", 10), ("foreign", 3),
)
#: the share of the cases of the other families run as a real process
PROCESS_SHARE = 0.05


def _command(case: Case, mut: Mutator, corpus: Corpus, subject: SpecFile, outputs: bool) -> None:
    rng = mut.rng
    spec = case.subject or subject.path
    command = mut.pick(["validate"] * 30 + ["validate --strict"] * 8 + ["analyze"] * 8 + ["simulate"] * 6 + ["render"] * 8 + ["build"] * 6
                       + ["standings"] * 5 + ["season"] * 5 + ["calendar"] * 5 + ["tables"] * 2)
    case.command = command
    extra: list[str] = []
    if rng.random() < 0.1:
        extra += mut.pick([["--format", "json"], ["--paper", "letter"], ["--paper", "a5"], ["--ink", "low"], ["--template", "nope"],
                           ["--template", spec], ["--rules", "advanced"], ["--assistance", "rapid"], ["--seed", "-1"], ["--seed", str(2**64)],
                           ["--jobs", "0"], ["--no-par"], ["--players", "7"], ["--policy", "cautious"], ["--bogus"]])
    target = None
    if command in ("render", "standings", "season") and (outputs or command == "render"):
        target = _output_target(case, mut, corpus, spec, folder=False)
    if command in ("build", "calendar") and (outputs or command == "build"):
        target = _output_target(case, mut, corpus, spec, folder=True)
    if command == "validate":
        args = ["validate", spec]
        if rng.random() < 0.1:
            args.append(mut.pick([s.path for s in corpus.specs]))
    elif command == "validate --strict":
        args = ["validate", "--strict", spec]
    elif command == "analyze":
        args = ["analyze", spec] + mut.pick([[], [], ["--rules", "advanced"], ["--format", "json"], ["--assistance", "permanent"]])
    elif command == "simulate":
        args = ["simulate", spec, "--seed", str(rng.randrange(10**6))] + mut.pick([[], [], ["--rules", "advanced"], ["--players", "3"], ["--policy", "cautious"]])
    elif command == "render":
        args = ["render", spec, "-o", target]
    elif command == "build":
        args = ["build", "-q", spec, "-o", target]
    elif command == "standings":
        args = ["standings", spec] + (["-o", target] if target else [])
    elif command == "season":
        args = ["season", spec] + (["-o", target] if target else []) + (["--no-par"] if rng.random() < 0.3 else [])
    elif command == "calendar":
        args = ["calendar", spec, "--seed", str(rng.randrange(1000)), "--jobs", "1"] + (["-o", target] if target else [])
    else:
        args = ["tables", "rally-risk", "--spec", spec]
    case.args = args + extra


def _output_target(case: Case, mut: Mutator, corpus: Corpus, spec: str, folder: bool) -> str:
    folder_of = os.path.dirname(spec)
    choice = mut.pick(["fresh"] * 6 + ["input", "referenced", "fifo", "missing_folder", "existing_folder", "empty", "dash", "other_spec", "nested_new", "odd_name"])
    refs = sorted(inputs_of(corpus, case.renamed_from or spec) - {spec, case.renamed_from})
    if choice == "input":
        target = spec
    elif choice == "referenced" and refs:
        target = mut.pick(refs)
    elif choice == "fifo":
        target = os.path.join(folder_of, "out.fifo")
        case.fifos.append(target)
    elif choice == "missing_folder":
        target = os.path.join("no", "such", "folder", "out.pdf")
    elif choice == "existing_folder":
        target = folder_of
    elif choice == "empty":
        target = ""
    elif choice == "dash":
        target = "-"
    elif choice == "other_spec":
        target = mut.pick([s.path for s in corpus.specs])
    elif choice == "nested_new" and folder:
        target = os.path.join("out", "deeper", "still")
    elif choice == "odd_name":  # control characters in the name: no message may be split by them
        target = mut.pick(["no\nsuch/out.pdf", "out\n.pdf", "out\x1b[2J.pdf", "new\rfolder/x/out.pdf", "tab\tout.pdf"])
    else:
        choice = "fresh"
        target = "out" if folder else "out.pdf"
    case.hostile_output |= choice != "fresh"
    if folder:
        case.output_folder = target
    case.targets.append(target)
    return target


def _template_case(case: Case, mut: Mutator, corpus: Corpus) -> None:
    """A damaged copy of a built-in page template, given to `render` with a spec of the game
    it is for (by the game's default template when the renderers say which, else any)."""
    rel, data = mut.pick(list(corpus.templates))
    name = Path(rel).stem
    try:
        from sheetgen.render.template import default_template
    except ImportError:
        default_template = None
    matching = [s for s in corpus.specs if default_template is not None and default_template(s.game) == name]
    subject = mut.pick(matching or list(corpus.specs))
    spec = SpecFile(rel, "", None, data, ())
    raw = corpus.files[rel]
    how = mut.pick(["structure", "structure", "bytes", "text"])
    if how == "structure":
        new, description, case.numeric = mut.structure(raw, spec)
    elif how == "bytes":
        new, description = mut.byte_damage(raw, spec)
    else:
        new, description = mut.text_hostility(raw, spec)
    case.files[rel] = new
    case.numeric = False  # a template's numbers are cheap to draw with, whatever they are
    case.content = True  # the spec is valid: the template is the damage
    case.subject, case.game = subject.path, subject.game
    case.description = f"{rel} damaged ({description}), rendering {subject.path}"
    case.command = "render"
    case.targets.append("out.pdf")
    case.args = ["render", subject.path, "-o", "out.pdf", "--template", rel] + (["--ink", "low"] if mut.rng.random() < 0.3 else [])


def _generate_command(case: Case, mut: Mutator) -> None:
    rng = mut.rng
    games = _generate_games() or ["rallytaire"]
    named = mut.pick(games + ["rally_risk", "nope"])
    case.game = named.replace("-", "_") if named != "nope" else "-"
    args = ["generate", named, "--seed", str(mut.pick([0, 1, 7, 2**63 - 1, 2**63, -5, rng.randrange(10**6)]))]
    # a generated race is searched for until it fits its band: few short stages keep it quick
    args += ["--stages", mut.pick(["1", "1", "2", "3", "0", "9", "x"] if rng.random() < 0.9 else ["8"])]
    if rng.random() < 0.5:
        args += ["--length", mut.pick(["2..2", "2..10", "20..30", "40..70", "300..300", "5..3", "abc", "1..5", "10", " 20 .. 30 ", "0..0", "2..301"])]
    if rng.random() < 0.4:
        args += ["--surface", mut.pick(["", ",", "snow", "mud", "snow,snow", "asphalt,gravel,snow", " snow , gravel "])]
    if rng.random() < 0.4:
        args += ["--difficulty", mut.pick(["easy", "medium", "hard", "insane"])]
    choice = mut.pick(["none", "fresh", "spec", "same", "fifo", "missing_folder", "folder", "dash_render"])
    case.hostile_output = choice not in ("none", "fresh")
    if choice == "fresh":
        args += ["-o", "gen.yaml", "--render", "gen.pdf"]
        case.targets += ["gen.yaml", "gen.pdf"]
    elif choice == "spec":  # over a bundled spec: not an input of generate, so allowed
        target = mut.pick([p for p in case.files if p.endswith(".yaml")])
        args += ["-o", target]
        case.targets.append(target)
    elif choice == "same":
        args += ["-o", "g.yaml", "--render", "g.yaml"]
        case.targets.append("g.yaml")
    elif choice == "fifo":
        args += ["-o", "gen.fifo"]
        case.fifos.append("gen.fifo")
        case.targets.append("gen.fifo")
    elif choice == "missing_folder":
        args += ["-o", "nope/gen.yaml"]
        case.targets.append("nope/gen.yaml")
    elif choice == "folder":
        args += ["-o", "track_specs"]
        case.targets.append("track_specs")
    elif choice == "dash_render":
        args += ["--render", "-"]
    case.command = "generate"
    case.subject = None
    case.args = args


# --------------------------------------------------------------------------- running


@dataclass
class Outcome:
    case: Case
    exit_code: int | None = None
    seconds: float = 0.0  # on the clock
    cpu: float = 0.0  # seconds of CPU: the command's (in process) or the child's and its workers'
    findings: list = field(default_factory=list)  # (category, detail)
    stdout: str = ""
    stderr: str = ""
    ran: str = ""  # the command as run (it may have been made cheaper)
    input_bytes: int = 0  # the size of the files the command reads

    @property
    def ok(self) -> bool:
        return not self.findings


class CaseTimeout(BaseException):
    """Raised by the alarm in a case that runs longer than `Settings.hang` on the clock, or
    `Settings.stop` of CPU (a BaseException, so that no `except Exception` in sheetgen
    swallows it)."""


def _snapshot(root: Path) -> dict[str, tuple]:
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
                found[rel] = ("file", info.st_size, digest, stat.S_IMODE(info.st_mode))
            elif stat.S_ISFIFO(info.st_mode):
                found[rel] = ("fifo",)
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir",)
            elif stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.readlink(path))
            else:
                found[rel] = ("other", stat.S_IFMT(info.st_mode))
    return found


def _loads(path: str) -> bool:
    """Whether the spec at `path` (in the current folder) loads: a valid spec."""
    from sheetgen import registry
    from sheetgen.errors import SheetgenError

    try:
        registry.load_spec(path)
    except SheetgenError:
        return False
    except Exception:  # the CLI run reports it
        return False
    return True


def prepare(case: Case, root: Path) -> None:
    for rel, raw in case.files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)
    for rel in case.folders:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for rel in case.fifos:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() and hasattr(os, "mkfifo"):
            os.mkfifo(path)
    for rel, text in case.logs.items():
        (root / rel).write_bytes(text)
    for rel in case.devices:
        from fuzz.process import make_device

        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        make_device(root / rel)
    for rel in case.protected:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(b"keep me\n")
        path.chmod(0o444)


def _quoted(args: list[str]) -> str:
    return " ".join(shlex.quote(a) if a.isprintable() else repr(a) for a in args)


def _cpu() -> float:
    """CPU seconds of this process and of its children waited for (a build's workers)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _size(root: Path, paths) -> int:
    total = 0
    for rel in paths:
        try:
            info = os.stat(root / rel)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return total


def run_case(case: Case, settings: Settings = Settings(), keep: Path | None = None) -> Outcome:
    """Run `case` in a fresh folder (under `keep` when given, which is then left in place)."""
    rng = random.Random(f"sheetgen-fuzz-run:{case.seed}:{case.index}")
    outcome = Outcome(case)
    base = Path(tempfile.mkdtemp(prefix=f"sheetgen-fuzz-{case.seed}-{case.index}-", dir=keep))
    here = os.getcwd()
    alarm = hasattr(signal, "SIGALRM")
    why: list[str] = []

    def expired(signum, _frame):
        why.append("hang" if signum == getattr(signal, "SIGALRM", None) else "cpu")
        raise CaseTimeout()

    previous = signal.signal(signal.SIGALRM, expired) if alarm else None
    profiling = hasattr(signal, "setitimer") and case.mode != "process"
    previous_prof = signal.signal(signal.SIGPROF, expired) if profiling else None
    if alarm:  # the whole case, the check of whether its spec loads included
        signal.alarm(int(settings.hang))
    saved_env = {key: os.environ.get(key) for key in case.env}
    start = time.perf_counter()
    cpu_start = _cpu()
    try:
        prepare(case, base)
        os.chdir(base)
        args = list(case.args)
        command = case.command
        if command in EXPENSIVE and case.subject is not None and not (case.valid or case.large):
            # expensive work only on damaged specs (they should fail fast) and on a share of
            # the valid ones; never on valid ones with huge numbers (their numbers are
            # damage, not size: `large` cases measure the cost of size)
            if case.content:
                share = settings.content_share
            elif case.hostile_output:
                share = 1.0 if case.family == "outputs" else settings.output_share
            else:
                share = settings.expensive_share
            if _loads(case.subject) and (case.numeric or rng.random() >= share):
                args = ["validate", case.subject]
                command = "validate"
        outcome.ran = _quoted(args)
        inputs = inputs_of(load_corpus_cached(), case.renamed_from or case.subject) | {case.subject} if case.subject else set()
        for extra in case.extra_inputs:
            inputs |= inputs_of(load_corpus_cached(), extra) | {extra}
        outcome.input_bytes = _size(base, inputs)
        before = _snapshot(base)
        if case.mode == "process":
            if alarm:
                signal.alarm(0)  # the process has its own limits
            _run_process(outcome, args, base, settings, before, inputs, command)
        else:
            from click.testing import CliRunner

            from sheetgen.cli import main

            for key, value in case.env.items():
                os.environ[key] = value
            start = time.perf_counter()
            cpu_start = _cpu()
            if profiling:
                signal.setitimer(signal.ITIMER_PROF, settings.stop)
            result = CliRunner().invoke(main, args, catch_exceptions=True)
            if profiling:
                signal.setitimer(signal.ITIMER_PROF, 0)
            outcome.seconds = time.perf_counter() - start
            outcome.cpu = _cpu() - cpu_start
            if alarm:
                signal.alarm(0)
            _judge(outcome, result, before, _snapshot(base), inputs, command)
            _judge_files(outcome, base, before)
    except CaseTimeout:
        outcome.seconds = time.perf_counter() - start
        outcome.cpu = _cpu() - cpu_start
        if why and why[0] == "cpu":
            outcome.findings.append(("slow", f"stopped after {settings.stop:.0f} s of CPU ({outcome.input_bytes} bytes of input)"))
        else:
            outcome.findings.append(("hangs", f"still running after {settings.hang:.0f} s"))
    finally:
        if profiling:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous_prof)
        if alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        for key, old in saved_env.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        os.chdir(here)
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
    if outcome.cpu > settings.slow and not any(c == "slow" for c, _d in outcome.findings):
        outcome.findings.append(("slow", f"{outcome.cpu:.1f} s of CPU ({outcome.input_bytes} bytes of input)"))
    return outcome


def _run_process(outcome: Outcome, args: list[str], base: Path, settings: Settings, before: dict, inputs: set, command: str) -> None:
    """Run a process case and judge it: the harness's rules, and what a process owes on top
    (its signal's status and line, no process of its group left behind, its output file
    when that is standard output)."""
    from types import SimpleNamespace

    from fuzz import process

    case = outcome.case
    name, delay = case.signal or (None, 0.0)
    ran = process.run(args, base, stdout=case.stdout, signal_name=name, delay=delay, readers=tuple(case.readers),
                      env=case.env, cpu=settings.stop, hang=settings.hang)
    outcome.seconds, outcome.cpu = ran.seconds, ran.cpu
    add = outcome.findings.append
    if ran.stopped:
        add(("hangs", ran.stopped))
        return
    if ran.signalled == getattr(signal, "SIGXCPU", None):
        add(("slow", f"stopped after {settings.stop:.0f} s of CPU ({outcome.input_bytes} bytes of input)"))
        return
    stdout = ran.stdout.decode("utf-8", "replace")
    stderr = ran.stderr.decode("utf-8", "replace")
    result = SimpleNamespace(exit_code=ran.exit_code, stdout=stdout, stderr=stderr, exception=None, exc_info=None)
    code = ran.exit_code
    actual = (code, stderr)
    if name and ran.delivered and code is not None:
        number = int(getattr(signal, name))
        said = {"SIGINT": "sheetgen: interrupted; nothing written"}.get(name, f"sheetgen: terminated by {name}; nothing written")
        if _interpreter_start(stderr):  # Python's own start: no line of sheetgen ran (nothing written)
            code = 128 + number
            stderr = ""
        # ended by the signal's own action, not by sheetgen's line: before the command's work
        # or after it, when the command had said all it says (its report, or nothing; a
        # traceback is the signal's finding)
        after = code == 128 + number and ran.signalled == number and said not in stderr and "Traceback" not in stderr
        if code != 128 + number:
            add(("signals", f"{name} after {delay:.2f} s: exit {code}, not {128 + number}" + (f" ({stderr.strip().splitlines()[-1][:200]!r})" if stderr.strip() else "")))
        elif stderr and stderr != said + "\n" and not after:
            add(("signals", f"{name} after {delay:.2f} s: standard error {stderr[-300:]!r}"))
        if after:
            # what it said is the command's own report, judged as any: with a line that is no
            # warning, as a command that failed (every line located, nothing written); else
            # (nothing, or warnings) as one that succeeded (what it wrote, it wrote whole)
            failed = any(line.strip() and not WARNING.match(line) for line in stderr.splitlines())
            result.exit_code, result.stderr = 1 if failed else 0, stderr
        else:
            # with its line, nothing may be written
            result.exit_code = 1 if code == 128 + number else code
            # its one line is judged above; no other line may come with the status it should have
            result.stderr = "" if code == 128 + number else stderr.replace(said + "\n", "")
    elif code is not None and code > 128 and ran.signalled:
        add(("crashes", f"ended by signal {ran.signalled}"))
        result.exit_code = 1
    _judge(outcome, result, before, _snapshot(base), inputs, command)
    outcome.exit_code, outcome.stderr = actual
    if ran.left:
        add(("workers left", f"{len(ran.left)} process(es) of its group still running after it ended"))
    to_stdout = _writes_to_stdout(case.args)
    if case.stdout in ("closed", "full") and to_stdout and code == 0:
        add(("lost output", f"exit 0 with standard output {case.stdout}, which its {to_stdout} went to"))
    for rel, got in ran.fifo.items():
        if code == 0 and not got and rel in case.targets:
            add(("lost output", f"exit 0 but the reader of {rel} got nothing"))
    _judge_files(outcome, base, before)


def _interpreter_start(stderr: str) -> bool:
    """Whether standard error is Python's KeyboardInterrupt from before sheetgen's first line
    ran (the interpreter's start: its standard streams made, runpy finding the package): no
    frame of the traceback is in sheetgen but its package's empty __init__."""
    frames = re.findall(r'File "([^"]+)"', stderr)
    interrupted = stderr.rstrip().endswith("KeyboardInterrupt") or "Fatal Python error: init_" in stderr
    return interrupted and not [
        f for f in frames if "sheetgen" in f.replace("\\", "/").split("/") and not f.endswith("__init__.py")
    ]


def _writes_to_stdout(args: list[str]) -> str:
    """What of the command's output goes to standard output as its file: '' when none."""
    if not args:
        return ""
    given = {a: args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output", "--render")}
    if args[0] == "render" and given.get("-o", given.get("--output")) == "-":
        return "PDF"
    if args[0] in ("generate", "import", "export") and given.get("-o", given.get("--output", "-")) in ("-",):
        return "output"
    if args[0] == "generate" and given.get("--render") == "-":
        return "PDF"
    return ""


def _judge_files(outcome: Outcome, base: Path, before: dict) -> None:
    """What the harness made before the command and what must become of it: write-protected
    files (replaced only with --force, keeping mode 444), files standard output was appended
    to (they keep what they held), devices (never replaced)."""
    case = outcome.case
    add = outcome.findings.append
    after = _snapshot(base)
    forced = "--force" in case.args
    for rel in case.protected:
        was, now = before.get(rel), after.get(rel)
        if was is None or was == now:
            continue
        if not forced:
            add(("protected files replaced", f"{rel} (mode 444) {'is gone' if now is None else 'changed'} without --force (exit {outcome.exit_code})"))
        elif now is not None and now[0] == "file" and now[3] != 0o444:
            add(("protected files replaced", f"{rel} replaced with --force lost its mode 444 (now {now[3]:o})"))
    for rel, text in case.logs.items():
        path = base / rel
        held = path.read_bytes() if path.is_file() else b""
        if not held.startswith(text):
            add(("special files replaced", f"{rel} appended to (>>) lost what it held: it starts {held[:40]!r}"))
        elif outcome.exit_code not in (0, None) and held != text:
            add(("partial outputs", f"exit {outcome.exit_code} but {len(held) - len(text)} bytes were appended to {rel}"))
    for rel in case.devices:
        if before.get(rel) != after.get(rel):
            add(("special files replaced", f"{rel}: a device before, {after.get(rel, ('gone',))[0]} after"))
    if "/dev/null" in case.args and not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        add(("special files replaced", "/dev/null is no device any more"))


_CORPUS: list = []


def load_corpus_cached() -> Corpus:
    if not _CORPUS:
        _CORPUS.append(load_corpus())
    return _CORPUS[0]


def _judge(outcome: Outcome, result, before: dict, after: dict, inputs: set, command: str) -> None:
    case = outcome.case
    code = result.exit_code
    outcome.exit_code = code
    try:
        outcome.stdout = result.stdout
    except (UnicodeDecodeError, ValueError):
        outcome.stdout = repr(result.stdout_bytes[:2000])
    try:
        outcome.stderr = result.stderr
    except (UnicodeDecodeError, ValueError):
        outcome.stderr = repr(result.stderr_bytes[:2000])
    output = outcome.stdout + outcome.stderr if not _writes_to_stdout(case.args) else outcome.stderr
    add = outcome.findings.append
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        where = "".join(traceback.format_exception(*result.exc_info)[-3:]).strip().replace("\n", " | ") if result.exc_info else ""
        add(("tracebacks", f"{type(result.exception).__name__}: {result.exception} [{where}]"[:600]))
    if code not in (0, 1, 2):
        add(("bad exit codes", f"exit {code}"))
    if "Traceback" in output:
        add(("tracebacks", "'Traceback' in the output: " + output[output.index("Traceback"):][-300:].replace("\n", " | ")))
    if "internal error" in output:
        line = next((text for text in output.splitlines() if "internal error" in text), "")
        add(("internal errors", line[:400]))
    if code == 1:
        bad = [line for line in outcome.stderr.splitlines() if not (LOCATED.match(line) or GENERAL.match(line) or WARNING.match(line))]
        if bad:
            add(("unlocated error lines", repr(bad[0])[:300]))
    allowed = ({t for t in case.targets if t and t != "-"} | set(case.logs)) - inputs
    new = sorted(set(after) - set(before))
    gone = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    temps = [p for p in new if os.path.basename(p).startswith(".sheetgen-") or p.endswith(".tmp")]
    if temps:
        add(("partial outputs", f"temporary files left: {temps[:3]}"))
    for path in changed + gone:
        if before[path][0] == "fifo":
            add(("special files replaced", f"{path}: a named pipe before, {after.get(path, ('gone',))[0]} after"))
    if code != 0:
        if new:
            add(("partial outputs", f"exit {code} but new: {new[:3]}"))
        damaged = [p for p in changed + gone if (before[p][0] != "dir" or p in gone) and p not in case.logs]
        for path in damaged:
            category = "replaced inputs" if path in inputs else "other files changed"
            add((category, f"exit {code} but {path} {'is gone' if path in gone else 'changed'}"))
    else:
        for path in changed + gone:
            if before[path][0] == "dir" and path not in gone:
                continue
            if path in inputs:
                add(("replaced inputs", f"{path} {'is gone' if path in gone else 'changed'} (an input of the command)"))
            elif path not in allowed and not _inside(path, case.output_folder):
                add(("other files changed", f"{path} {'is gone' if path in gone else 'changed'}"))


def _inside(path: str, folder: str | None) -> bool:
    if not folder:
        return False
    folder = os.path.normpath(folder)
    return os.path.normpath(path).startswith(folder + os.sep) or os.path.normpath(path) == folder


# --------------------------------------------------------------------------- batches


def record(outcome: Outcome) -> dict:
    """One line of a batch log (JSON): what `Tally` counts, and how to run the case again."""
    case = outcome.case
    name = outcome.ran.split(" ")[0] if outcome.ran else case.command
    if name == "validate" and "--strict" in outcome.ran.split(" "):
        name = "validate --strict"
    return {
        "seed": case.seed,
        "index": case.index,
        "command": name,
        "game": case.game or "-",
        "family": case.family,
        "mode": case.mode,
        "ran": outcome.ran,
        "exit": outcome.exit_code,
        "seconds": round(outcome.seconds, 3),
        "cpu": round(outcome.cpu, 3),
        "input_bytes": outcome.input_bytes,
        "findings": [list(f) for f in outcome.findings],
        "description": case.description[:300],
        "reproducer": case.reproducer(),
    }


def _count(table: dict, key: str) -> None:
    table[key] = table.get(key, 0) + 1


@dataclass
class Tally:
    cases: int = 0
    per_command: dict = field(default_factory=dict)
    per_game: dict = field(default_factory=dict)
    per_family: dict = field(default_factory=dict)
    per_mode: dict = field(default_factory=dict)
    completed: dict = field(default_factory=dict)  # command -> cases that ran to exit 0
    cpu_per_command: dict = field(default_factory=dict)
    exits: dict = field(default_factory=dict)
    findings: dict = field(default_factory=lambda: {c: [] for c in CATEGORIES})
    seconds: float = 0.0
    cpu: float = 0.0
    slowest: list = field(default_factory=list)  # (CPU seconds, reproducer), the 5 costliest cases

    def add(self, rec: dict | Outcome) -> None:
        if isinstance(rec, Outcome):
            rec = record(rec)
        self.cases += 1
        command = rec["command"]
        _count(self.per_command, command)
        _count(self.per_game, rec.get("game", "-"))
        _count(self.per_family, rec.get("family", "?"))
        _count(self.per_mode, rec.get("mode", "in process"))
        _count(self.exits, str(rec["exit"]))
        if rec["exit"] == 0:
            _count(self.completed, command)
        cpu = rec.get("cpu", rec["seconds"])
        self.cpu_per_command[command] = self.cpu_per_command.get(command, 0.0) + cpu
        self.seconds += rec["seconds"]
        self.cpu += cpu
        self.slowest = sorted(self.slowest + [(cpu, rec["reproducer"])], reverse=True)[:5]
        for category, detail in rec["findings"]:
            self.findings.setdefault(category, []).append((rec["seed"], rec["index"], detail, rec["reproducer"], cpu))

    def count(self, category: str) -> int:
        return len({(s, i) for s, i, *_ in self.findings.get(category, [])})

    def problems(self, categories=CATEGORIES) -> list:
        return [(c, f) for c in categories for f in self.findings.get(c, [])]

    def report(self, limit: int = 20) -> str:
        lines = [f"cases run: {self.cases} ({self.seconds:.0f} s on the clock, {self.cpu:.0f} s of CPU in the commands)"]
        lines.append("per command (ran to exit 0 / CPU s): " + ", ".join(
            f"{k} {v} ({self.completed.get(k, 0)} / {self.cpu_per_command.get(k, 0.0):.0f})" for k, v in sorted(self.per_command.items())))
        lines.append("per game: " + ", ".join(f"{k} {v}" for k, v in sorted(self.per_game.items())))
        lines.append("per family: " + ", ".join(f"{k} {v}" for k, v in sorted(self.per_family.items())))
        lines.append("per mode: " + ", ".join(f"{k} {v}" for k, v in sorted(self.per_mode.items())))
        lines.append("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.exits.items())))
        for category in CATEGORIES:
            found = self.findings.get(category, [])
            lines.append(f"{category}: {self.count(category)}")
            shown: set = set()
            for seed, index, detail, reproducer, seconds in found:
                if len(shown) >= limit:
                    break
                if (seed, index) in shown:
                    continue
                shown.add((seed, index))
                lines.append(f"  - {detail}  ({seconds:.1f} s of CPU)")
                lines.append(f"    {reproducer}")
        lines.append("costliest cases: " + "; ".join(f"{sec:.1f} s: {rep.split('  #')[0]}" for sec, rep in self.slowest))
        return "\n".join(lines)


def run_batch(seed: int, indices, settings: Settings = Settings(), progress: Callable[[Outcome], None] | None = None) -> Tally:
    corpus = load_corpus_cached()
    tally = Tally()
    for index in indices:
        case = make_case(corpus, seed, index, settings)
        outcome = run_case(case, settings)
        tally.add(outcome)
        if progress is not None:
            progress(outcome)
    return tally
