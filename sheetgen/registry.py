"""Games by the name a spec gives in its `game:` key, so that no command needs to know them.

Each game package exposes `GAME`, a `Game`: everything a command needs, as data and
functions. The CLI and the renderers' core loop over the registry and never name a game, so a
new game is one package (`sheetgen/games/<name>/`, its renderers in `sheetgen/render/<name>/`)
plus one line in `_MODULES`. `register` adds a game from elsewhere (a plug-in, a test's stub).

Game packages are imported on first use, and a game's `__init__` imports only what it needs to
build its `Game` (the heavy modules load inside its functions), so that the CLI, which reads
every game's declared options to build its commands, starts quickly.
"""

from __future__ import annotations

import difflib
import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sheetgen.errors import Location, OptionError, Problem, SpecError, UsageError
from sheetgen.yamlsrc import Document, load_file

_MODULES = {
    "rallytaire": "sheetgen.games.rallytaire",
    "rally_risk": "sheetgen.games.rally_risk",
    "rally_run": "sheetgen.games.rally_run",
    "rallyman": "sheetgen.games.rallyman",
}
_REGISTERED: dict[str, Game] = {}

Options = Mapping[str, Any]


@dataclass(frozen=True)
class Option:
    """An option a game's command takes (`--rules`, `--assistance`, `--max-speed`), declared as
    data. The CLI offers, per command, every option some game declares for it, and refuses one
    that the spec's game does not take as a usage error (exit 2). `choices` makes it a choice;
    `between` an integer range; `parse` a text the game turns into a value (a ValueError is a
    usage error). The value a game gets when the option is not given is `default`."""

    name: str  # as on the command line without dashes, e.g. "max-speed"
    help: str
    commands: tuple[str, ...]  # analyze, simulate, generate, timetable, tables
    choices: tuple[str, ...] = ()
    between: tuple[int, int] | None = None
    parse: Callable[[Any], Any] | None = None  # gets the str given (a tuple of them when `multiple`)
    metavar: str | None = None
    multiple: bool = False  # may be given several times: `parse` gets them all
    default: Any = None
    flag: bool = False  # a switch that takes no value (given: True)

    @property
    def key(self) -> str:
        """The option's key in the options mapping a game's function receives."""
        return self.name.replace("-", "_")


@dataclass(frozen=True)
class Kind:
    """A kind of file of a game: the spec's `kind:` value (a game's first kind may be the one
    a file without `kind:` has)."""

    name: str
    description: str
    noun: str = ""  # what one file of the kind is called in a message ("tile library"; default: name)


@dataclass(frozen=True)
class Printable:
    """What sheetgen prints for some kinds of a game's files. `render` names the function by
    `"module:function"`: a game package never imports the renderers (they import it), so only
    the renderers' core resolves the name. The function takes (spec, template, paper, ink,
    keywords, figures: the spec's solved figures, `Game.figures`, or None) and returns the
    PDF bytes and the page count. A renderer draws the figures it is given; it never calls a
    solver."""

    name: str  # what a reader calls it: "race sheets", "section cards"
    kinds: tuple[str, ...]
    render: str
    #: how its PDF is meant to be printed, which the PDF asks the viewer for (its /Duplex
    #: viewer preference): "simplex" (one-sided), "long_edge" or "short_edge" (double-sided,
    #: the sheet turned over about that edge); or a function of the spec's model that says
    #: which (a tile set that names its own flip edge)
    duplex: str | Callable[[Any], str] = "simplex"
    #: the pages a PDF of a model holds that are the same in every file that holds them (a
    #: reference card of a set of tables), by key: a job that prints several files (`build`)
    #: prints each such page once, in the first of its files that holds it, and asks the
    #: others to leave it out (`sheetgen.render.pdf.printed_elsewhere(key)`)
    shared: Callable[[Any], tuple[str, ...]] | None = None
    #: whether its file is where a job prints the shared pages it holds, before the first
    #: file that holds them: where a reader looks for them (a Rally Risk library's file: the
    #: house tables' reference card beside the section cards and the kit they are played with)
    shared_home: bool = False

    def duplex_of(self, model: Any) -> str:
        """How a PDF of `model` is meant to be printed: "simplex", "long_edge" or "short_edge"."""
        return self.duplex(model) if callable(self.duplex) else self.duplex

    def shared_of(self, model: Any) -> tuple[str, ...]:
        """The keys of the pages a PDF of `model` holds that other files may hold too."""
        return self.shared(model) if self.shared is not None else ()


@dataclass(frozen=True)
class Report:
    """A command's answer in every format it offers: plain data for JSON, and text; `tables`
    (`sheetgen.forum.Table`s) for a forum post in Markdown or BBCode (`standings`)."""

    data: Any
    text: str
    csv: str | None = None
    tables: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Generator:
    """`sheetgen generate GAME`: `make(seed, options, folder)` returns the new spec's text (an
    ordinary spec, the command that rebuilds it in its first comment); `folder` is the one the
    spec is written into (the working folder for standard output), which a path in the spec
    (a library it draws from) starts from."""

    make: Callable[[int, Options, str], str]
    help: str  # one line for `generate -h`


@dataclass(frozen=True)
class Converter:
    """A foreign file format a game reads and writes (`sheetgen import FORMAT`, `sheetgen
    export FORMAT`), such as a track editor's own files.

    `read(path, target, options)` turns the file at `path` into the text of a spec that will be
    written at `target` (so that the spec can name other files relative to itself), and returns
    it with every file it read (the inputs no output may replace) and, if it likes, third, what
    the file holds that the spec keeps without giving it a meaning, as located problems that
    `import` says as warnings; a problem of the file is a SpecError at its FILE:LINE:COL.
    `write(spec, options)` returns the bytes of the foreign file made from a loaded spec, or
    raises `spec.wrong(...)`. `lost(spec, options)` gives, as
    located problems, what the written file holds no place for but can go without (`export`
    says them as warnings and writes the file all the same); what it cannot go without,
    `write` refuses."""

    format: str  # the command line's FORMAT: "rekee"
    help: str  # one line: what the format is
    suffix: str  # the foreign file's usual ending: ".json"
    read: Callable[[str, str, Options], tuple] | None = None
    write: Callable[[Spec, Options], bytes] | None = None
    lost: Callable[[Spec, Options], list[Problem]] | None = None


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    schema: Callable[[], dict]  # the JSON Schema of the game's files (built on demand)
    load: Callable[[Document], Any]
    summary: Callable[[Any], str]
    kinds: tuple[Kind, ...]
    #: the built-in template the game's sheets are drawn with unless the user picks one
    template: str
    #: problems beyond validity (e.g. a race that cannot be finished), for `validate --strict`
    #: and `build`: called with the loaded Spec and its `Figures` (solved on first use),
    #: returns a list of Problems
    strict: Callable[[Spec, Figures], list] | None = None
    #: the solved figures of a spec (a race's par times and risks, a track's par), or None
    #: when the game solves nothing for it: computed once by a command (`Figures`), kept in
    #: the one figures cache (`sheetgen.cache.figures`), handed to `strict` and to the printable
    figures: Callable[[Spec], Any] | None = None
    #: every option the game's commands take
    options: tuple[Option, ...] = ()
    #: the model `analyze` and `simulate` work on (a race), or the located error of a file
    #: they cannot use (`spec.wrong(...)`)
    subject: Callable[[Spec], Any] | None = None
    analyze: Callable[[Spec, Options], Report] | None = None
    #: checks the options before anything runs (say, before a seed is picked), then plays:
    #: `simulate(spec, options)` returns `play(seed) -> lines`
    simulate: Callable[[Spec, Options], Callable[[int], list[str]]] | None = None
    printables: tuple[Printable, ...] = ()
    generator: Generator | None = None
    #: the reference tables in effect (house tables, or those a spec gives): (spec or None, options)
    tables: Callable[[Spec | None, Options], Report] | None = None
    #: time tables: (options) -> Report with text, data and csv
    timetable: Callable[[Options], Report] | None = None
    #: exact odds of a plan of dice, from the options alone (no spec): (options) -> Report
    odds: Callable[[Options], Report] | None = None
    #: foreign formats the game reads (`import`) and writes (`export`)
    converters: tuple[Converter, ...] = ()
    #: scores a results file (kind `results`): its standings as data and text, for
    #: `sheetgen standings` (whose -o prints the kind's printable)
    standings: Callable[[Spec, Options], Report] | None = None
    #: what a valid spec holds that the game keeps but gives no meaning to (a Rekee token no
    #: rulebook has a rule for), as located problems: `validate` says them as warnings
    warnings: Callable[[Spec], list[Problem]] | None = None
    #: the game's own commands (`sheetgen calendar` of Rally Risk): a function that makes its
    #: click commands, called when the command line lists its commands (a game package keeps
    #: them in its `commands` module, which prints through `sheetgen.render.build_outputs`)
    commands: Callable[[], Sequence[Any]] | None = None
    #: the engine's first state (`sheetgen.engine.EngineState`) of a spec for `simulate`'s
    #: options (`option_values("simulate", ...)`): the race `simulate` plays, which the
    #: protocol tests play at random to the end for every game
    engine_start: Callable[[Spec, Options], Any] | None = None
    #: the small cases on which each exact solver of the game is checked against the engine
    #: walk (`sheetgen.engine.OracleCase`, `sheetgen.engine.expectimax`): a function that
    #: makes them, kept in the game's `oracle` module (none: the game has no exact solver)
    oracle_cases: Callable[[], Sequence[Any]] | None = None
    #: the sizes its sheets read from a template (`sheetgen.template.TemplateSize`: a key
    #: ending in `_mm`, its range and default); a template a user gives with a size no game
    #: declares, or one out of its range, is refused where it says so
    template_sizes: tuple = ()

    def takes(self, command: str) -> tuple[Option, ...]:
        return tuple(o for o in self.options if command in o.commands)

    def printable_for(self, kind: str | None, name: str | None = None) -> Printable | None:
        """The printable of a kind of file: the first the game lists for it, or the one
        called `name` (a kind may have more than one: a season sheet with or without pars)."""
        return next((p for p in self.printables if kind in p.kinds and name in (None, p.name)), None)

    def option_values(self, command: str, given: Options) -> dict:
        """The options of `command` for this game: the ones given, each checked against the
        game's declaration, and the game's defaults for the rest. An option given that the
        game does not take, or a value outside the game's choices, is an OptionError."""
        mine = {o.key: o for o in self.takes(command)}
        values = {}
        for key, value in given.items():
            if value is None:
                continue
            if key not in mine:
                raise OptionError(f"--{key.replace('_', '-')} is not an option of {self.title} for {command}")
            option = mine[key]
            if option.choices and value not in option.choices:
                raise OptionError(f"--{option.name} {value} is not one of {self.title}'s: {', '.join(option.choices)}")
            if option.between is not None and not option.between[0] <= value <= option.between[1]:
                low, high = option.between
                raise OptionError(f"--{option.name} {value} is out of {self.title}'s range {low} to {high}")
            values[key] = value
        for key, option in mine.items():
            values.setdefault(key, option.default)
        return values


@dataclass(frozen=True)
class Spec:
    """A loaded, validated spec."""

    path: str
    game: Game
    model: Any
    sha256: str
    kind: str | None = None  # the file's `kind:` (None: the game's main kind, e.g. a Rallytaire race)
    where: Location | None = None  # of the `kind:` value, else of `game:`: what a command points at
    #: every file the load read: the spec, then the files it refers to (a race's library, a
    #: season's races, results' calendar...): the inputs no output may replace
    sources: tuple[str, ...] = ()
    #: the loaded YAML document (values and their positions): what locates a problem found
    #: after loading, without reading the file again
    document: Document | None = None

    @property
    def kind_name(self) -> str:
        """The kind of file, with the game's main kind for a file that gives none."""
        return self.kind or self.game.kinds[0].name

    def described(self, wanted_game: str) -> str:
        """What the file is, for a command that wants a file of `wanted_game`: "a Rallytaire
        spec" from another game, else its kind ("a Rally Risk library", "a Rallytaire race")."""
        if self.game.name != wanted_game:
            return f"a {self.game.title} spec"
        kind = next((k for k in self.game.kinds if k.name == self.kind_name), None)
        return f"a {self.game.title} {kind.noun if kind is not None and kind.noun else self.kind_name}"

    def wrong(self, message: str) -> SpecError:
        """The error of a command given a spec it cannot use, located at its `kind:` (or
        `game:`), e.g. ``wrong("a Rally Risk library, not a race: ...")``."""
        return SpecError([Problem(self.where or Location(self.path, 1, 1), message)])


class Figures:
    """A spec's solved figures (`Game.figures`), solved when first asked for, then kept: a
    command makes one for a spec and hands it to `Game.strict` and to the printable, so that
    the figures are solved once a command and meet there, not in a module-global cache."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self._solved = False
        self._value: Any = None

    @classmethod
    def given(cls, spec: Spec, value: Any) -> Figures:
        """Figures a command has already: a game's own command that solved or built them
        itself (a calendar laid out with its seed) hands them to the printable this way."""
        made = cls(spec)
        made._value, made._solved = value, True
        return made

    def get(self) -> Any:
        if not self._solved:
            solve = self.spec.game.figures
            self._value = solve(self.spec) if solve is not None else None
            self._solved = True
        return self._value


def names() -> list[str]:
    return sorted(set(_MODULES) | set(_REGISTERED))


def games() -> list[Game]:
    return [game(name) for name in names()]


def register(chosen: Game) -> None:
    """Add a game that does not live in sheetgen's own packages (a plug-in, a test's stub)."""
    _REGISTERED[chosen.name] = chosen


def registered() -> tuple[Game, ...]:
    """The games added with `register`: a worker process that loads specs itself adds them too."""
    return tuple(_REGISTERED.values())


def converter(fmt: str, direction: str) -> tuple[Game, Converter]:
    """The game and converter that handle the foreign format `fmt`, in `direction` ("read" or
    "write"); a UsageError names the formats there are."""
    found = [(g, c) for g in games() for c in g.converters if getattr(c, direction) is not None]
    for pair in found:
        if pair[1].format == fmt:
            return pair
    known = ", ".join(sorted(c.format for _g, c in found)) or "none"
    raise UsageError(f"unknown format {fmt!r} (known: {known})")


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def _unknown(name: object) -> str:
    near = difflib.get_close_matches(str(name), names(), n=1)
    return f", did you mean {near[0]!r}?" if near else f" (known games: {', '.join(names())})"


def game(name: str) -> Game:
    """The game called `name` (a dash stands for an underscore: `rally-risk`)."""
    key = name.replace("-", "_") if isinstance(name, str) else name
    if key in _REGISTERED:
        return _REGISTERED[key]
    if key not in _MODULES:
        raise UsageError(f"unsupported game: {name!r}{_unknown(name)}")
    return importlib.import_module(_MODULES[key]).GAME


def spellings() -> list[str]:
    """Every name a command line may give a game by: its name, and with dashes for underscores."""
    return names() + [n.replace("_", "-") for n in names() if "_" in n]


def load_spec(path: str | os.PathLike) -> Spec:
    """Load and validate one spec file; SpecError lists every problem found in it."""
    return spec_of(load_file(path, lenient=True))


def spec_of(doc: Document) -> Spec:
    """The spec a loaded YAML document holds (a file, or text a generator made), validated by
    its game; SpecError lists every problem found in it, those of single values the load
    found (`doc.pending`: a `.nan`, a bad number) among them."""
    if not doc.pending:
        return _spec_of(doc)
    hidden = {p.location for p in doc.pending}  # (each such value is None: not said twice)
    try:
        _spec_of(doc)
    except SpecError as exc:
        raise SpecError([*doc.pending, *(p for p in exc.problems if p.location not in hidden)]) from None
    raise SpecError(list(doc.pending))


def _spec_of(doc: Document) -> Spec:
    data = doc.data
    if not isinstance(data, dict):
        raise SpecError([Problem(doc.where(()), "a spec must be a mapping with a 'game' key")])
    if "game" not in data:
        raise SpecError([doc.problem((), f"missing required key 'game' (one of: {', '.join(names())})")])
    name = data["game"]
    if not isinstance(name, str) or name not in names():
        raise SpecError([doc.problem(("game",), f"unknown game {name!r}{_unknown(name)}")])
    chosen = game(name)
    model = chosen.load(doc)
    kind = data.get("kind") if isinstance(data.get("kind"), str) else None
    where = doc.where(("kind",) if "kind" in data else ("game",))
    # the hash of the very bytes loaded (a second read could see another file: a pipe, an edit)
    sources = tuple(dict.fromkeys((doc.file, *doc.reads)))
    return Spec(
        path=doc.file,
        game=chosen,
        model=model,
        sha256=doc.sha256,
        kind=kind,
        where=where,
        sources=sources,
        document=doc,
    )
