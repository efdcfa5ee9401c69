"""Valid commands of every kind: each command of the CLI, for every game that has it, with
options the game declares and values it accepts.

The fuzz harness's other families damage a file or an option and expect a clean refusal; this
one asks for work sheetgen should do (a Rally Risk course drawn from its library, the odds of a
plan of Rallyman dice, a Rekee file imported) so that a crash, a lost file or a slow answer
on the way there is found too. The options come from the registry (`Game.options`: a choice
is picked among its choices, a range within its range) and, for an option a game parses
itself (`--length`, `--dice`, `--tiles`...), from `PARSED`, which a self-check keeps complete.

`size` says which values: ``"small"`` keeps the work short (a range's low end, the default,
one or two stages); ``"large"`` takes every range at its far end (a hundred games, eight
stages of 300 spaces, six cars) for the cases that measure what an input costs.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fuzz.harness import Case, Corpus, Mutator, SpecFile

#: where the harness keeps the foreign files it imports (Rekee tracks exported from the
#: bundled Rallyman tracks when the corpus loads)
REKEE = "rekee"


def _dice(rng: random.Random, size: str, variant: str) -> str:
    from sheetgen.games.rallyman.odds import MAX_MARKS, MAX_PLAN
    from sheetgen.games.rallyman.ruleset import default

    names = list(default(variant).die_names)
    count = MAX_PLAN if size == "large" else rng.randint(1, 6)
    marks = MAX_MARKS if size == "large" else 1
    return ",".join(rng.choice(names) + "!" * (rng.randint(0, marks) if rng.random() < 0.3 else 0) for _ in range(count))


def _length(rng: random.Random, size: str, variant: str, game: str = "") -> str:
    if game == "rallyman":  # cells of a generated track (12..400)
        return rng.choice(["300..400", "200..400"]) if size == "large" else rng.choice(["12..30", "20..40", "30..50"])
    if size == "large":  # (Rallytaire: at most 160 spaces a generated stage, 640 in all)
        return rng.choice(["150..150", "140..160", "2..160"])
    return rng.choice(["8..12", "10..20", "20..30", "2..6", "15..15"])


def _surface(rng: random.Random, size: str, variant: str, game: str = "") -> str:
    surfaces = ["asphalt", "gravel", "snow"]
    return ",".join(rng.sample(surfaces, rng.randint(1, 3)))


def _library(rng: random.Random, size: str, variant: str, game: str = "") -> str:
    return "track_specs/rallyman/tiles.yaml" if game == "rallyman" else "track_specs/rally_risk/sections.yaml"


def _table(rng: random.Random, size: str, variant: str, game: str = "") -> str:
    return rng.choice(["300x200", "400x400"]) if size == "large" else rng.choice(["150x90", "120x80", "200x100"])


#: values of the options a game parses itself: name -> (rng, size, variant, game) -> text; a
#: file an option names is a path in the case folder
PARSED: dict[str, Callable[..., str]] = {
    "dice": lambda rng, size, variant, game="": _dice(rng, size, variant),
    "length": _length,
    "surface": _surface,
    "library": _library,
    "tiles": lambda rng, size, variant, game="": "track_specs/rallyman/tiles.yaml",
    "table": _table,
}

#: options a game parses that the harness gives no value (left out of its cases), and why
UNFUZZED = {"box": "a box file of tile counts: tests/test_rallyman_generate.py writes and checks them"}

#: options whose value a case sets itself (never chosen at random)
FIXED = {("simulate", "seed")}


def option_args(command: str, game, rng: random.Random, size: str, share: float = 0.6, variant: str = "gt") -> list[str]:
    """Some of the options `game` declares for `command`, each with a value it accepts."""
    args: list[str] = []
    for option in game.takes(command):
        if (command, option.name) in FIXED or rng.random() >= (1.0 if size == "large" else share):
            continue
        if option.choices:
            values = [rng.choice(option.choices)]
        elif option.between is not None:
            low, high = option.between
            if size == "large":
                values = [str(high)]
            else:  # the low end, the default or a step above: short work
                near = [low, low + 1, option.default if isinstance(option.default, int) else low]
                values = [str(min(high, rng.choice(near)))]
        elif option.name in PARSED:
            values = [PARSED[option.name](rng, size, variant, game.name)]
        else:  # an option the harness has no value for: left out (a self-check finds it)
            continue
        for value in values:
            args += [f"--{option.name}", value]
    return args


# --------------------------------------------------------------------------- subjects


def games_with(attribute: str) -> list:
    from sheetgen import registry

    return [g for g in registry.games() if getattr(g, attribute) is not None]


def spellings(game: str) -> list[str]:
    from sheetgen import registry

    return [s for s in registry.spellings() if s.replace("-", "_") == game]


def specs_of(corpus: Corpus, game: str | None = None, kinds: tuple = (), want: Callable[[SpecFile], bool] | None = None) -> list:
    """The bundled specs of `game` (any), of one of `kinds` (any; None is a file without
    `kind:`), that `want` accepts."""
    found = []
    for spec in corpus.specs:
        if game is not None and spec.game != game:
            continue
        if kinds and spec.kind not in kinds:
            continue
        if want is not None and not want(spec):
            continue
        found.append(spec)
    return found


def _tiled(spec: SpecFile) -> bool:
    return spec.game == "rallyman" and isinstance(spec.data, dict) and isinstance(spec.data.get("tiles"), list) and spec.kind in (None, "track")


#: the kinds each game plays, analyses and prints (a race, a track, a tile set), and those it
#: scores: the subjects of analyze/simulate/render and of standings
PLAYED = {"rallytaire": ("race", None), "rally_risk": ("race",), "rally_run": ("set", None), "rallyman": ("track", None)}
RESULTS = ("results",)


def subject(corpus: Corpus, mut: Mutator, game: str, kinds: tuple) -> SpecFile | None:
    found = specs_of(corpus, game, kinds)
    return mut.pick(found) if found else None


# --------------------------------------------------------------------------- commands


def _format(rng: random.Random, formats: tuple = ("text", "json")) -> list[str]:
    return ["--format", rng.choice(formats)] if rng.random() < 0.4 else []


def _print(rng: random.Random) -> list[str]:
    extra = []
    if rng.random() < 0.3:
        extra += ["--paper", rng.choice(["a4", "letter"])]
    if rng.random() < 0.3:
        extra += ["--ink", rng.choice(["normal", "low"])]
    return extra


def _game_and_spec(case: Case, mut: Mutator, corpus: Corpus, attribute: str, kinds_of: Callable[[str], tuple]) -> SpecFile | None:
    games = [g.name for g in games_with(attribute)]
    mut.rng.shuffle(games)
    for game in games:
        found = subject(corpus, mut, game, kinds_of(game))
        if found is not None:
            case.game = game
            return found
    return None


def valid_command(case: Case, mut: Mutator, corpus: Corpus, size: str = "small", command: str | None = None) -> None:
    """Make `case` a valid command (`command`, or one picked evenly among the CLI's)."""
    from fuzz.harness import _output_target

    rng = mut.rng
    command = command or mut.pick([name for name in sorted(BUILDERS) for _ in range(WEIGHTS.get(name, 1))])
    case.command = command
    case.valid = True
    BUILDERS[command](case, mut, corpus, size)
    # now and then an output that is not a plain new file: onto an input, a FIFO, a folder...
    if case.targets and rng.random() < 0.1 and command not in ("build", "calendar"):
        fresh = case.targets[-1]
        at = case.args.index(fresh)
        target = _output_target(case, mut, corpus, case.subject or "", folder=False)
        case.targets.remove(fresh)
        case.args[at] = target


def _analyze(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = _game_and_spec(case, mut, corpus, "analyze", lambda g: PLAYED.get(g, ()) + RESULTS)
    assert spec is not None
    from sheetgen import registry

    case.subject = spec.path
    options = option_args("analyze", registry.game(spec.game), mut.rng, size)
    case.args = ["analyze", spec.path, *options, *_format(mut.rng)]


def _simulate(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = _game_and_spec(case, mut, corpus, "simulate", lambda g: PLAYED.get(g, ()))
    assert spec is not None
    from sheetgen import registry

    case.subject = spec.path
    options = option_args("simulate", registry.game(spec.game), mut.rng, size)
    case.args = ["simulate", spec.path, "--seed", str(mut.rng.randrange(10**6)), *options]


def _render(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = mut.pick(specs_of(corpus, want=lambda s: s.kind not in ("calendar",)))
    case.subject, case.game = spec.path, spec.game
    case.targets.append("out.pdf")
    extra = ["--draft"] if mut.rng.random() < 0.2 else []
    case.args = ["render", spec.path, "-o", "out.pdf", *_print(mut.rng), *extra]


def _build(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    specs = mut.rng.sample([s for s in corpus.specs if s.kind != "calendar"], mut.rng.randint(1, 3))
    case.subject, case.game = specs[0].path, specs[0].game
    case.extra_inputs = [s.path for s in specs[1:]]
    case.output_folder = "out"
    case.targets.append("out")
    jobs = ["--jobs", mut.pick(["1", "2"])]
    case.args = ["build", "-q", *[s.path for s in specs], "-o", "out", *jobs, *_print(mut.rng)]


def _standings(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = _game_and_spec(case, mut, corpus, "standings", lambda g: RESULTS)
    assert spec is not None
    case.subject = spec.path
    target = []
    if mut.rng.random() < 0.5:
        target = ["-o", "standings.pdf", *_print(mut.rng)]
        case.targets.append("standings.pdf")
    case.args = ["standings", spec.path, *target, *_format(mut.rng, ("text", "json", "markdown", "bbcode"))]


def _season(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = mut.pick(specs_of(corpus, kinds=("season",)))
    case.subject, case.game = spec.path, spec.game
    target = []
    if mut.rng.random() < 0.5:
        target = ["-o", "season.pdf", *_print(mut.rng)]
        case.targets.append("season.pdf")
    # the par times solve every race: without --no-par most of the time (the costly part)
    nopar = ["--no-par"] if mut.rng.random() < 0.6 else []
    case.args = ["season", spec.path, *target, *nopar, *_format(mut.rng)]


def _calendar(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = mut.pick(specs_of(corpus, kinds=("calendar",)))
    case.subject, case.game = spec.path, spec.game
    target = []
    if mut.rng.random() < 0.4:
        target = ["-o", "cal"]
        case.output_folder = "cal"
        case.targets.append("cal")
    case.args = ["calendar", spec.path, "--seed", str(mut.rng.randrange(100)), "--jobs", mut.pick(["1", "2"]), *target, *_format(mut.rng)]


def _generate(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    game = mut.pick(games_with("generator"))
    case.game = game.name
    options = option_args("generate", game, mut.rng, size)
    if game.name == "rallytaire" and size == "small" and "--stages" not in options:
        options += ["--stages", mut.pick(["1", "2"])]  # a race is searched for until it fits its band
    out: list[str] = []
    choice = mut.pick(["stdout", "file", "both", "pdf_stdout"])
    if choice in ("file", "both", "pdf_stdout"):
        out += ["-o", "gen.yaml"]
        case.targets.append("gen.yaml")
    if choice == "both":
        out += ["--render", "gen.pdf"]
        case.targets.append("gen.pdf")
    if choice == "pdf_stdout":
        out += ["--render", "-"]
    for option in [o for o in game.takes("generate") if o.parse is not None and o.name in PARSED]:
        value = f"--{option.name}"
        if value in options and options[options.index(value) + 1].endswith(".yaml"):
            case.extra_inputs.append(options[options.index(value) + 1])
    # a generator that needs a file (Rally Risk's library) is always given one
    for option in game.takes("generate"):
        if "(needed)" in option.help and f"--{option.name}" not in options and option.name in PARSED:
            path = PARSED[option.name](mut.rng, size, "gt", game.name)
            options += [f"--{option.name}", path]
            case.extra_inputs.append(path)
    case.args = ["generate", mut.pick(spellings(game.name)), "--seed", str(mut.rng.randrange(10**6)), *options, *out]


def _rally(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    """Rallyman's own `rally`: a DIRT rally of generated stages from the bundled library's box."""
    case.game = "rallyman"
    library = "track_specs/rallyman/tiles.yaml"
    case.extra_inputs.append(library)
    stages = "3" if size == "large" else mut.pick(["1", "2"])
    options = ["--stages", stages]
    if mut.rng.random() < 0.5:
        options += ["--difficulty", mut.pick(["easy", "medium", "hard"])]
    case.output_folder = "rally"
    case.targets.append("rally")
    case.args = ["rally", "--library", library, "--seed", str(mut.rng.randrange(10**6)), *options, "-o", "rally"]


def _stand_in_library(track: SpecFile) -> str:
    """The stand-in of a bundled track's tile library under rekee/ (its tiles given Rekee ids:
    `rekee_files`)."""
    return f"{REKEE}/{os.path.basename(str(track.data.get('library', '')))}"


def _import(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    from sheetgen import registry

    source = mut.pick(sorted(p for p in corpus.files if p.startswith(REKEE + "/") and p.endswith(".json")))
    game, _converter = registry.converter("rekee", "read")
    case.game = game.name
    # the library and the game of the track the file was exported from
    track = corpus.spec(f"track_specs/rallyman/{os.path.basename(source)[:-5]}.yaml")
    library = _stand_in_library(track)
    options = ["--tiles", library, "--variant", track.data.get("variant", "gt")]
    case.extra_inputs += [source, library]
    out: list[str] = []
    if mut.rng.random() < 0.6:
        out = ["-o", "imported.yaml"]
        case.targets.append("imported.yaml")
    case.args = ["import", "rekee", source, *options, *out]


def _export(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    spec = mut.pick(specs_of(corpus, want=_tiled))
    case.subject, case.game = spec.path, spec.game
    library = _stand_in_library(spec)
    if library in corpus.files and mut.rng.random() < 0.7:
        # the track laid from a library whose tiles have Rekee ids (the stand-ins `import`
        # reads): exported whole; the bundled tracks' own tiles have none, and are refused
        case.subject = f"{REKEE}/{os.path.basename(spec.path)}"
        case.files[case.subject] = corpus.files[spec.path]
        case.extra_inputs.append(library)
    out: list[str] = []
    formats = ["--format", mut.pick(["json", "rgt"])] if mut.rng.random() < 0.4 else []
    if mut.rng.random() < 0.6:
        out = ["-o", "exported.rgt" if formats[-1:] == ["rgt"] else "exported.json"]
        case.targets.append(out[1])
    case.args = ["export", "rekee", case.subject, *formats, *out]


def _odds(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    game = mut.pick(games_with("odds"))
    case.game = game.name
    variant = mut.pick(["gt", "dirt"])
    options = option_args("odds", game, mut.rng, size, share=0.7, variant=variant)
    if "--dice" not in options:
        options += ["--dice", PARSED["dice"](mut.rng, size, variant)]
    if "--variant" in options:  # the dice were drawn for this variant
        options[options.index("--variant") + 1] = variant
    else:
        options += ["--variant", variant]
    case.args = ["odds", mut.pick(spellings(game.name)), *options, *_format(mut.rng)]


def _schema(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    from sheetgen import registry

    game = mut.pick(list(registry.games()))
    case.game = game.name
    case.args = ["schema", mut.pick(spellings(game.name))]


#: the games whose race specs may bring tables of their own (`tables GAME --spec RACE`)
OWN_TABLES = ("rally_risk",)


def _tables(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    game = mut.pick(games_with("tables"))
    case.game = game.name
    spec: list[str] = []
    races = specs_of(corpus, game.name, ("race",)) if game.name in OWN_TABLES else []
    if races and mut.rng.random() < 0.5:
        chosen = mut.pick(races)
        case.subject = chosen.path
        spec = ["--spec", chosen.path]
    case.args = ["tables", mut.pick(spellings(game.name)), *spec, *option_args("tables", game, mut.rng, size), *_format(mut.rng)]


def _timetable(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    game = mut.pick(games_with("timetable"))
    case.game = game.name
    named = [mut.pick(spellings(game.name))] if mut.rng.random() < 0.7 or len(games_with("timetable")) > 1 else []
    options = option_args("timetable", game, mut.rng, size)
    case.args = ["timetable", *named, *options, *_format(mut.rng, ("text", "json", "csv"))]


def _validate(case: Case, mut: Mutator, corpus: Corpus, size: str) -> None:
    specs = mut.rng.sample(list(corpus.specs), mut.rng.randint(1, 3))
    case.subject, case.game = specs[0].path, specs[0].game
    case.extra_inputs = [s.path for s in specs[1:]]
    strict = ["--strict"] if mut.rng.random() < 0.3 else []
    case.args = ["validate", *strict, *[s.path for s in specs], *_format(mut.rng)]


#: one builder per command of the CLI (a self-check compares it with `sheetgen --help`)
BUILDERS: dict[str, Callable[[Case, Mutator, Corpus, str], None]] = {
    "analyze": _analyze,
    "build": _build,
    "calendar": _calendar,
    "export": _export,
    "generate": _generate,
    "import": _import,
    "odds": _odds,
    "rally": _rally,
    "render": _render,
    "schema": _schema,
    "season": _season,
    "simulate": _simulate,
    "standings": _standings,
    "tables": _tables,
    "timetable": _timetable,
    "validate": _validate,
}


#: how often each command is picked: those that take a game's options or a spec of any game
#: more often, so that each game's share of them is not small
WEIGHTS = {"analyze": 3, "simulate": 3, "generate": 3, "render": 3, "build": 2, "validate": 2, "standings": 2, "tables": 2}


def rekee_files(specs: dict[str, bytes], root) -> dict[str, bytes]:
    """Rekee files of the bundled tile-laid Rallyman tracks (`sheetgen export rekee`), for
    `import` to read, with the tile libraries they were laid from standing in for Rekee ids
    (sheetgen's own tiles have none: tests/rekee_ids.py): relative path -> bytes, the files
    under rekee/ (TRACK.json and the libraries)."""
    import shutil
    import tempfile
    from pathlib import Path

    from rekee_ids import stand_in
    from sheetgen import registry
    from sheetgen.errors import SheetgenError

    _game, converter = registry.converter("rekee", "write")
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "track_specs" / "rallyman"
        folder.mkdir(parents=True)
        for rel in sorted(specs):
            if rel.startswith("track_specs/rallyman/") and rel.count("/") == 2 and rel.endswith(".yaml"):
                shutil.copy(os.path.join(root, rel), folder / os.path.basename(rel))
        for library in ("tiles.yaml", "tiles_large.yaml"):
            if (folder / library).exists():
                stand_in(Path(root) / "track_specs" / "rallyman" / library, folder / library)
                found[f"{REKEE}/{library}"] = (folder / library).read_bytes()
        for path in sorted(folder.glob("*.yaml")):
            try:
                spec = registry.load_spec(path)
                if converter.write is not None and spec.game.name == "rallyman":
                    found[f"{REKEE}/{path.stem}.json"] = converter.write(spec, {})
            except SheetgenError:  # (a track of cells or a path: not Rekee's; a tile library)
                continue
    return found
