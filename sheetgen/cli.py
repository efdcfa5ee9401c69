"""The sheetgen command line: parses options, calls the library, turns its errors into
`FILE:LINE:COL: error: MESSAGE` lines and exit status 1. It holds no game rules and names no
game: every command dispatches through the registry (`sheetgen.registry`), and the options of
analyze, simulate, generate, tables and timetable are the ones the games declare."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sheetgen import __version__, registry
from sheetgen.cliutil import (
    CONTEXT,
    FORCE,
    FORMAT,
    INK,
    PAPER,
    TEMPLATE,
    GameCommand,
    GameName,
    echo_report,
    jobs,
    option_values,
    output,
    refuse_pdf_on_terminal,
    refuse_stdout_folder,
    reports_errors,
    said_when_done,
    spec_files,
    stdout_bytes,
    write_pdf,
)
from sheetgen.errors import OptionError, Problem, SheetgenError, SpecError
from sheetgen.output import same_target, write_files, written_at
from sheetgen.render.raster import DEFAULT_DPI, MAX_DPI, MIN_DPI

if TYPE_CHECKING:
    from sheetgen import buildcache

DEFAULT_SPECS = "track_specs"
DEFAULT_OUTPUT = "output"


class Commands(click.Group):
    """sheetgen's commands: its own, then every registered game's (`Game.commands`), found
    when the command line lists or looks one up, so that a game (a plug-in, a test's stub)
    brings a command of its own without a change here. A game's command never replaces
    sheetgen's or another game's: that is a mistake in the game, said as such."""

    def game_commands(self) -> dict[str, click.Command]:
        found: dict[str, click.Command] = {}
        for game in registry.games():
            if game.commands is None:
                continue
            for command in game.commands():
                name = command.name or ""
                if name in self.commands or name in found:
                    raise SheetgenError(
                        f"{game.title}'s command {name!r} has the name of another command of sheetgen's"
                    )
                _examples_last(command)
                found[name] = command
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*self.commands, *self.game_commands()])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.commands.get(cmd_name) or self.game_commands().get(cmd_name)


@click.group(context_settings=CONTEXT, cls=Commands)
@click.version_option(__version__, "--version", prog_name="sheetgen")
def main() -> None:
    """Print-and-play rally sheets from YAML track specs, checked for playability.

    \b
    Example:
      sheetgen build                 # every spec under track_specs/ into output/
    """


# -- validate ----------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--strict", is_flag=True, help="also refuse what cannot be played: a race that cannot be finished (as build does)"
)
@reports_errors
def validate(specs: tuple[str, ...], fmt: str, strict: bool) -> None:
    """Check spec files; exit 1 with FILE:LINE:COL lines when any is invalid.

    \b
    Example:
      sheetgen validate track_specs/rallytaire/*.yaml
    """
    results = []
    failed = False
    for path in specs:
        try:
            spec = registry.load_spec(path)
            if strict:
                _refuse_unplayable(spec)
        except SpecError as exc:
            failed = True
            results.append({"file": path, "valid": False, "errors": [_problem_json(p) for p in exc.problems]})
            if fmt == "text":
                for problem in exc.problems:
                    click.echo(str(problem), err=True)
            continue
        warnings = spec.game.warnings(spec) if spec.game.warnings is not None else []
        result = {"file": path, "valid": True, "game": spec.game.name, "errors": []}
        if warnings:  # (a key only a spec with warnings has)
            result["warnings"] = [_problem_json(p) for p in warnings]
        results.append(result)
        if fmt == "text":
            click.echo(f"{path}: ok ({spec.game.title}: {spec.game.summary(spec.model)})")
            for problem in warnings:
                click.echo(f"{problem.location}: warning: {problem.message}", err=True)
    if fmt == "json":
        click.echo(json.dumps({"specs": results}, indent=2))
    if failed:
        sys.exit(1)


def _unplayable(spec, figures: registry.Figures | None = None) -> list:
    """The problems that make a valid spec unplayable (`Game.strict`), for validate --strict
    and build; `figures`: the spec's figures as the command has them (solved on first use)."""
    return spec.game.strict(spec, figures or registry.Figures(spec)) if spec.game.strict else []


def _refuse_unplayable(spec) -> None:
    problems = _unplayable(spec)
    if problems:
        raise SpecError(problems)


def _problem_json(problem) -> dict:
    loc = problem.location
    return {"file": loc.file, "line": loc.line, "col": loc.col, "message": problem.message}


# -- timetable ---------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="timetable", before="fmt")
@click.argument("game", required=False, type=GameName("timetable"))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True)
@reports_errors
def timetable(game: str | None, fmt: str, **given) -> None:
    """Print a game's time table, cell by cell as its rulebook prints it. GAME may be left out
    while only one game has a time table.

    \b
    Example:
      sheetgen timetable rallytaire --max-speed 17 --format csv
    """
    having = [g for g in registry.games() if g.timetable is not None]
    if game is None:
        if len(having) != 1:
            raise OptionError(f"name the game: {', '.join(g.name for g in having)} have time tables")
        chosen = having[0]
    else:
        chosen = registry.game(game)
    options = option_values("timetable", chosen, given)
    if chosen.timetable is None:  # (GameName offers the games that have time tables)
        raise SheetgenError(f"{chosen.title} has no time tables")
    echo_report(chosen.timetable(options), fmt, indent=None)


# -- odds --------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="odds", before="fmt")
@click.argument("game", type=GameName("odds"))
@FORMAT
@reports_errors
def odds(game: str, fmt: str, **given) -> None:
    """Print the exact odds of a plan of dice (as fractions and decimals), from the options the
    game takes for it.

    \b
    Example:
      sheetgen odds rallyman --variant gt --dice 3,4,coast,brake --focus 2
    """
    chosen = registry.game(game)
    options = option_values("odds", chosen, given)
    if chosen.odds is None:  # (GameName offers the games that have odds)
        raise SheetgenError(f"{chosen.title} has no odds")
    echo_report(chosen.odds(options), fmt)


# -- build -------------------------------------------------------------------------------


def _spec_files(specs: tuple[str, ...]) -> list[str]:
    """The spec files `build` is given (folders searched), each once: a file named twice,
    or given and also found in a folder given, is built once."""
    if not specs:
        if not os.path.isdir(DEFAULT_SPECS):
            raise SheetgenError(
                f"no SPEC given and no {DEFAULT_SPECS}/ folder here; run in the project folder or name the specs"
            )
        specs = (DEFAULT_SPECS,)
    return spec_files(specs)


def _template_inputs(template: str | None) -> list[str]:
    """A template file given with --template is an input too."""
    from sheetgen.template import is_template_file

    return [template] if template and is_template_file(template) else []


def _build_one(
    spec: registry.Spec, *, paper: str | None, ink: str, template: str | None, elsewhere: frozenset[str] = frozenset()
) -> tuple[list, bytes | None, int]:
    """What `build` makes of one loaded spec, in a worker process: the problems that make it
    unplayable (as `validate --strict`), else its PDF and page count (None when its game prints
    nothing of this kind), without the shared pages keyed in `elsewhere`."""
    from sheetgen.render import build_outputs, can_render

    figures = registry.Figures(spec)  # solved once, for the check and the printout
    problems = _unplayable(spec, figures)
    if problems or not can_render(spec):
        return problems, None, 0
    data, pages = build_outputs(spec, paper=paper, ink=ink, template=template, figures=figures, elsewhere=elsewhere)
    return [], data, pages


@dataclass(frozen=True)
class _Built:
    """What a worker of `build` sends back for one spec file: the load's refusal (a SpecError's
    problems, or another SheetgenError), or what the spec is (for the checks and messages made
    once every spec is back) and `_build_one`'s answer."""

    path: str
    refused: tuple | None = None  # the problems of the SpecError the load raised
    failed: SheetgenError | None = None  # another error the load raised (one message: it pickles)
    title: str = ""
    printable: bool = False
    sources: tuple[str, ...] = ()
    problems: tuple = ()
    data: bytes | None = None
    pages: int = 0
    seconds: float = 0.0  # how long the worker took (a progress line says so when it is long)
    shared: tuple[str, ...] = ()  # the keys of the shared pages its PDF holds (`Printable.shared`)
    home: bool = False  # a job prints those pages in this file first (`Printable.shared_home`)


def _load_and_build(
    path: str,
    *,
    paper: str | None,
    ink: str,
    template: str | None,
    games: tuple = (),
    elsewhere: frozenset[str] = frozenset(),
) -> _Built:
    """Load and build one spec in the worker itself: the spec is not loaded twice (once to
    check it, once more in the worker), nor sent to the worker, and the loads run in parallel.
    `games`: the games registered in the calling process (plug-ins), registered here too.
    `elsewhere`: the shared pages another file of the job prints, left out of this one."""
    import time

    from sheetgen.render import can_render, shared_home, shared_pages

    started = time.perf_counter()
    for game in games:
        registry.register(game)
    try:
        spec = registry.load_spec(path)
    except SpecError as exc:
        return _Built(path, refused=exc.problems)
    except SheetgenError as exc:
        return _Built(path, failed=exc)
    try:
        problems, data, pages = _build_one(spec, paper=paper, ink=ink, template=template, elsewhere=elsewhere)
    except SpecError as exc:  # found after the load (a bad --template file): its problems
        problems, data, pages = list(exc.problems), None, 0
    return _Built(
        spec.path,
        None,
        None,
        spec.game.title,
        can_render(spec),
        spec.sources,
        tuple(problems),
        data,
        pages,
        time.perf_counter() - started,
        shared_pages(spec) if data is not None else (),
        data is not None and shared_home(spec),
    )


def _load_and_build_without(item: tuple[str, frozenset[str]], **options) -> _Built:
    """`_load_and_build` of a (path, shared pages another file prints) pair."""
    path, elsewhere = item
    return _load_and_build(path, elsewhere=elsewhere, **options)


def _from_kept(kept: buildcache.Kept) -> _Built:
    """A spec's result taken from an earlier build (`sheetgen.buildcache`)."""
    return _Built(
        kept.path,
        title=kept.title,
        printable=kept.printable,
        sources=kept.sources,
        data=kept.data,
        pages=kept.pages,
        shared=kept.shared,
        home=kept.home,
    )


def _keep(
    builds: buildcache.Builds,
    path: str,
    result: _Built,
    reads: list[str],
    elsewhere: frozenset[str] = frozenset(),
) -> None:
    """Keep a spec's result for the next build, when it built (never a refusal)."""
    from sheetgen import buildcache

    if result.refused is None and result.failed is None and not result.problems:
        r = result
        kept = buildcache.Kept(r.path, r.title, r.printable, r.sources, r.data, r.pages, r.shared, r.home)
        builds.keep(path, kept, [*r.sources, *reads], elsewhere)


def _shared_elsewhere(facts: list[tuple[tuple[str, ...], bool]]) -> dict[int, frozenset[str]]:
    """For each file of a job (by its place in `facts`: the keys of the shared pages its PDF
    holds, and whether it is their home) that holds a shared page printed in another file,
    those pages' keys: each shared page is printed once a job, in the first file (in the
    job's order) that is its home and holds it (`Printable.shared_home`: a Rally Risk library,
    whose reference card a reader looks for beside its section cards), else in the first file
    that holds it."""
    owner: dict[str, int] = {}
    for k, (shared, _home) in sorted(enumerate(facts), key=lambda item: (not item[1][1], item[0])):
        for key in shared:
            owner.setdefault(key, k)
    elsewhere: dict[int, frozenset[str]] = {}
    for k, (shared, _home) in enumerate(facts):
        away = frozenset(key for key in shared if owner[key] != k)
        if away:
            elsewhere[k] = away
    return elsewhere


def _shared_of(path: str, games: tuple = ()) -> tuple[tuple[str, ...], bool]:
    """The keys of the shared pages a spec file's PDF holds and whether it is their home, in
    a worker (nothing for a spec that does not load: its build says why)."""
    from sheetgen.render import can_render, shared_home, shared_pages

    for game in games:
        registry.register(game)
    try:
        spec = registry.load_spec(path)
    except SheetgenError:
        return (), False
    return (shared_pages(spec), shared_home(spec)) if can_render(spec) else ((), False)


def _elsewhere_in_job(files: list[str], builds, games: tuple, jobs: int | None) -> list[frozenset[str]]:
    """For each file of a job, the shared pages another file prints (`_shared_elsewhere`),
    from what the kept builds say of each file, else from loading it (in the workers: a spec
    loads in a fraction of the time it takes to draw, and drawing a file twice, with its
    shared pages and without, is what this saves). A job of one file, or one of games that
    print no shared page, needs none of it."""
    none = [frozenset[str]()] * len(files)
    if len(files) < 2 or not any(p.shared is not None for g in registry.games() for p in g.printables):
        return none
    import functools

    from sheetgen import parallel

    facts = [builds.facts(path) if builds is not None else None for path in files]
    unknown = [path for path, f in zip(files, facts) if f is None]
    loaded = iter(parallel.imap(functools.partial(_shared_of, games=games), unknown, jobs))
    chosen = _shared_elsewhere([f if f is not None else next(loaded) for f in facts])
    return [chosen.get(k, frozenset()) for k in range(len(files))]


def _output_name(spec_path: str) -> str:
    return Path(spec_path).stem + ".pdf"


@main.command(context_settings=CONTEXT)
@click.argument("specs", nargs=-1, type=click.Path(path_type=str))
@output("folder for the PDFs", "out_dir", default=DEFAULT_OUTPUT, show_default=True)
@PAPER
@INK
@TEMPLATE
@click.option("-q", "--quiet", is_flag=True, help="no progress on standard error")
@jobs("processes checking and rendering the specs (default: every CPU); the files are the same whatever it is")
@FORCE
@reports_errors
def build(
    specs: tuple[str, ...],
    out_dir: str,
    paper: str | None,
    ink: str,
    template: str | None,
    quiet: bool,
    jobs: int | None,
    force: bool,
) -> None:
    """Validate, analyse and render every spec (default: track_specs/ into output/).

    Nothing is written unless every spec is valid and every PDF rendered.

    \b
    Example:
      sheetgen build -o output --paper letter
    """
    import functools

    from sheetgen import buildcache, parallel

    refuse_stdout_folder(out_dir)
    parallel.check_backend()
    files = _spec_files(specs)
    if not files:
        raise SheetgenError("no spec files found")
    progress = not quiet and sys.stderr.isatty()
    games = registry.registered()
    without = functools.partial(_load_and_build_without, paper=paper, ink=ink, template=template, games=games)
    # a spec whose files and sheetgen are as they were at an earlier build is taken from it
    builds = buildcache.Builds.open({"paper": paper, "ink": ink, "template": template})
    reads = _template_inputs(template)
    # a page several files hold (a reference card of the same tables) is printed once a job:
    # where, is chosen before any file is drawn, from the shared pages each file holds
    elsewhere = _elsewhere_in_job(files, builds, games, jobs)
    kept = [builds.find(path, elsewhere[k]) if builds is not None else None for k, path in enumerate(files)]
    fresh = parallel.imap(without, [(path, elsewhere[k]) for k, path in enumerate(files) if kept[k] is None], jobs)
    built: list[_Built] = []
    for number, (path, got) in enumerate(zip(files, kept), start=1):
        result = _from_kept(got) if got is not None else next(fresh)
        if got is None and builds is not None:
            _keep(builds, path, result, reads, elsewhere[number - 1])
        if progress:  # a spec whose figures took long to solve says so (kept for the next build)
            took = f" ({result.seconds:.0f} s)" if result.seconds >= 2 else ""
            click.echo(f"[{number}/{len(files)}] {result.path}{took}", err=True)
        built.append(result)
    # every problem at once, in the specs' order: those of the specs that do not load and
    # those that make a loaded one unplayable
    problems: list[Problem] = []
    for result in built:
        if result.failed is not None:
            raise result.failed
        problems.extend(result.refused or ())
        problems.extend(result.problems)
    if problems:
        raise SpecError(problems)
    # the files built print the shared pages as chosen above (a file that changed between
    # the choice and its build is printed again as the built files say)
    wanted = _shared_elsewhere([(result.shared, result.home) for result in built])
    again = {k: pages for k, pages in wanted.items() if pages != elsewhere[k]}
    again.update({k: frozenset() for k in range(len(built)) if elsewhere[k] and k not in wanted})
    if again:
        for k, result in zip(again, parallel.imap(without, [(files[k], again[k]) for k in again], jobs)):
            built[k] = result
            if builds is not None:
                _keep(builds, files[k], result, reads, again[k])
    names: dict[str, str] = {}
    for result in built:
        if not result.printable:
            continue
        name = _output_name(result.path)
        if name in names:
            raise SheetgenError(f"{result.path} and {names[name]} would both write {name}; rename one")
        names[name] = result.path
    for result in built:
        if not result.printable and not quiet:
            click.echo(f"{result.path}: valid; no printable sheets for {result.title} yet", err=True)
    rendered = [
        (os.path.join(out_dir, _output_name(result.path)), result.data, result.pages)
        for result in built
        if result.data is not None
    ]
    inputs = [source for result in built for source in result.sources] + _template_inputs(template)
    pages = sum(p for _t, _d, p in rendered)
    count = len(rendered)
    said = (
        f"built {count} spec{'s' if count != 1 else ''}: {pages} page{'s' if pages != 1 else ''}, {count} "
        f"file{'s' if count != 1 else ''} written to {out_dir}/"
    )
    # said before the files are put in place: when standard output fails, nothing is written
    write_files(
        [(target, data) for target, data, _pages in rendered],
        folder=out_dir,
        inputs=inputs,
        force=force,
        announce=lambda: click.echo(said),
    )


# -- analyze / simulate / tables ---------------------------------------------------------


def _capable(loaded: registry.Spec, command: str):
    """The game's function for `command` (its Game field of that name), or the located refusal."""
    function = getattr(loaded.game, command)
    if function is None:
        raise loaded.wrong(f"a {loaded.game.title} spec: sheetgen cannot {command} {loaded.game.title} specs yet")
    return function


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="analyze", before="fmt")
@click.argument("spec", type=click.Path(path_type=str))
@FORMAT
@reports_errors
def analyze(spec: str, fmt: str, **given) -> None:
    """Analyse a spec with the options its game takes: a race or track solved exactly (par and
    best times, the odds of finishing, crash or elimination risk, where it bites), a tile set
    over seeded games, a results file's standings.

    \b
    Example:
      sheetgen analyze track_specs/rallytaire/monte_carlo.yaml --format json
    """
    loaded = registry.load_spec(spec)
    options = option_values("analyze", loaded.game, given, loaded.path)
    echo_report(_capable(loaded, "analyze")(loaded, options), fmt)


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="simulate")
@click.argument("spec", type=click.Path(path_type=str))
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="dice seed (default: pick one and print it)"
)
@reports_errors
def simulate(spec: str, seed: int | None, **given) -> None:
    """Play the race with seeded dice and print it turn by turn, the way a player fills the sheet.

    \b
    Example:
      sheetgen simulate track_specs/rallytaire/acropolis.yaml --seed 7 --policy cautious
    """
    import secrets

    loaded = registry.load_spec(spec)
    options = option_values("simulate", loaded.game, given, loaded.path)
    # a file that cannot be played, or options that do not go together, are refused before
    # any dice are picked
    play = _capable(loaded, "simulate")(loaded, options)
    if seed is None:
        seed = secrets.randbelow(10**9)
        click.echo(f"seed {seed} (rerun with --seed {seed} to see this race again)", err=True)
    for line in play(seed):
        click.echo(line)


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="tables", before="fmt")
@click.argument("game", type=GameName("tables"))
@click.option(
    "--spec",
    "spec_path",
    type=click.Path(path_type=str),
    default=None,
    help="a race spec whose own tables replace the house tables",
)
@FORMAT
@reports_errors
def tables(game: str, spec_path: str | None, fmt: str, **given) -> None:
    """Print a game's reference tables in effect: sheetgen's house tables, or the ones a race
    spec supplies (charts, risks, damages, weather, time tables: whatever the game plays with).

    \b
    Example:
      sheetgen tables rally-risk --format json
    """
    chosen = registry.game(game)
    loaded = registry.load_spec(spec_path) if spec_path else None
    if loaded is not None and loaded.game.name != chosen.name:
        raise loaded.wrong(
            f"a {loaded.game.title} spec, not a {chosen.title} one: --spec takes a {chosen.title} race whose own "
            "tables replace the house tables"
        )
    options = option_values("tables", chosen, given)
    if chosen.tables is None:  # (GameName offers the games that have tables)
        raise SheetgenError(f"{chosen.title} has no tables")
    echo_report(chosen.tables(loaded, options), fmt)


# -- render ------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option(
    "-o",
    "--output",
    "target",
    required=True,
    help="file to write: a PDF, or pictures of the pages (FILE.png, FILE.svg); - for standard output",
)
@PAPER
@INK
@TEMPLATE
@click.option(
    "--draft",
    is_flag=True,
    help="render a spec that cannot be played (validate --strict's problems) all the same, saying them as warnings",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["pdf", "png", "svg"]),
    default=None,
    help="what to write (default: png for -o FILE.png, svg for -o FILE.svg, else pdf)",
)
@click.option(
    "--dpi",
    type=click.IntRange(MIN_DPI, MAX_DPI),
    default=None,
    help=f"png: pixels per inch (default {DEFAULT_DPI}, the resolution preview shows); svg: its size in pixels at"
    " this resolution (default: the page's size in mm)",
)
@click.option(
    "--page",
    type=click.IntRange(1, None),
    default=None,
    help="png, svg: only page K (1 is the first); without it, every page: FILE-1.png, FILE-2.png... when there are"
    " several",
)
@FORCE
@reports_errors
def render(
    spec: str,
    target: str,
    paper: str | None,
    ink: str,
    template: str | None,
    draft: bool,
    fmt: str | None,
    dpi: int | None,
    page: int | None,
    force: bool,
) -> None:
    """Render one spec to a printable PDF (written atomically, or streamed with -o -), or
    its pages to pictures for sharing: PNG (the pixels preview shows) or SVG (the PDF's
    shapes and text as vector drawing, at the page's size).

    A spec that validates but cannot be played (a track that cannot be finished: the problems
    of validate --strict) is refused, as build refuses it; --draft prints it anyway. PNG and
    SVG: a spec of one page (or --page K) is written to FILE.png itself; several pages are
    written together to FILE-1.png, FILE-2.png... (numbers padded to one width: FILE-01.png
    from the tenth page on), all or none.

    \b
    Example:
      sheetgen render track_specs/rallytaire/monte_carlo.yaml -o monte.pdf --paper letter
      sheetgen render track_specs/rallytaire/monte_carlo.yaml -o monte.png --page 1 --dpi 150
      sheetgen render track_specs/rallytaire/monte_carlo.yaml -o monte.svg --page 2
    """
    from sheetgen.output import check_targets
    from sheetgen.render import build_outputs

    kind = _image_format(target, fmt, dpi, page)
    if kind != "svg":  # (an SVG is text: a terminal shows it)
        refuse_pdf_on_terminal(target, what="a PDF" if kind == "pdf" else "a PNG")  # before the analysis, not after
    loaded = registry.load_spec(spec)
    inputs = (*loaded.sources, *_template_inputs(template))
    if target != "-" and (kind == "pdf" or page is not None):
        # before the work: an input, a write-protected file, a pipe nobody reads (several
        # pictures' names are known once the pages are counted: write_files checks them)
        check_targets([target], inputs=inputs, force=force)
    figures = registry.Figures(loaded)  # solved once, for the check and the printout
    problems = _unplayable(loaded, figures)
    if problems and not draft:
        raise SpecError(problems)
    for problem in problems:
        click.echo(f"{problem.location}: warning: {problem.message} (--draft: rendered all the same)", err=True)
    data, pages = build_outputs(loaded, paper=paper, ink=ink, template=template, figures=figures)
    if kind == "pdf":
        write_pdf(target, data, inputs=inputs, force=force)
        return
    _write_pictures(target, kind, data, pages, dpi, page, inputs=inputs, force=force)


def _image_format(target: str, fmt: str | None, dpi: int | None, page: int | None) -> str:
    """What `render` writes: --format, else -o's extension (.png: PNG, .svg: SVG, anything
    else a PDF); a picture's options with a PDF are usage errors."""
    suffix = os.path.splitext(target)[1].lower() if target != "-" else ""
    kind = fmt or {".png": "png", ".svg": "svg"}.get(suffix, "pdf")
    if suffix in (".pdf", ".png", ".svg") and suffix[1:] != kind:
        article = "an" if suffix == ".svg" else "a"
        raise OptionError(
            f"-o {target} names {article} {suffix[1:].upper()} file but --format is {kind}; make them agree"
        )
    if kind == "pdf":
        for name, value in (("--dpi", dpi), ("--page", page)):
            if value is not None:
                raise OptionError(
                    f"{name} is for pictures (-o FILE.png, -o FILE.svg); a PDF holds every page at full size"
                )
    return kind


def _picture_names(target: str, count: int) -> list[str]:
    """FILE.png for one picture, else FILE-1.png, FILE-2.png... padded to one width."""
    if count == 1:
        return [target]
    stem, suffix = os.path.splitext(target)
    width = len(str(count))
    return [f"{stem}-{number:0{width}d}{suffix}" for number in range(1, count + 1)]


def _write_pictures(
    target: str,
    kind: str,
    pdf: bytes,
    pages: int,
    dpi: int | None,
    page: int | None,
    *,
    inputs: tuple[str, ...],
    force: bool,
) -> None:
    """The PNG or SVG pictures (`kind`) of a PDF's pages (or of page `page`), written
    together, all or none."""
    if page is not None and page > pages:
        raise OptionError(f"--page {page}: this spec prints {pages} page{'s' if pages != 1 else ''}")
    if target == "-" and page is None and pages > 1:
        raise OptionError(
            f"this spec prints {pages} pages and standard output holds one picture; give --page K or -o FILE.{kind}"
        )
    chosen = [page - 1] if page is not None else None
    made: list[bytes]
    if kind == "svg":
        from sheetgen.render.vector import vectors

        made = [v.svg for v in vectors(pdf, dpi, pages=chosen)]
    else:
        from sheetgen.render.raster import pictures

        made = [p.png for p in pictures(pdf, dpi or DEFAULT_DPI, pages=chosen)]
    if target == "-":
        out = stdout_bytes()
        out.write(made[0])
        out.flush()
        return
    write_files(list(zip(_picture_names(target, len(made)), made)), inputs=inputs, force=force)


# -- generate ----------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, cls=GameCommand, game_command="generate", before="target")
@click.argument("game", type=GameName("generator"))
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="random seed (default: pick one and print it on standard error)",
)
@output("spec file to write (default, or -: standard output)")
@click.option("--render", "pdf", type=click.Path(path_type=str), default=None, help="also write its printable PDF here")
@FORCE
@reports_errors
def generate(game: str, seed: int | None, target: str | None, pdf: str | None, force: bool, **given) -> None:
    """Generate a new spec of a game from a seed: checked as any spec is, and printable.

    The spec starts with a comment naming the seed and options that rebuild it; the same seed
    and options give the same file, byte for byte. Nothing is written if anything fails.

    \b
    Example:
      sheetgen generate rallytaire --seed 7 --stages 3 --difficulty hard -o race.yaml --render race.pdf
    """
    import secrets

    chosen = registry.game(game)
    options = option_values("generate", chosen, given)
    if target == "-":
        target = None
    if pdf is not None and target is not None and pdf != "-" and same_target(pdf, target):
        raise OptionError("-o and --render name the same file; give the PDF another name")
    if pdf == "-" and target is None:
        raise OptionError("--render - and the spec would both go to standard output; give the spec a file with -o")
    refuse_pdf_on_terminal(pdf, "--render FILE")
    from sheetgen.output import check_targets

    # at once, not after the work
    check_targets([path for path in (target, pdf) if path not in (None, "-")], force=force)
    if seed is None:
        seed = secrets.randbelow(10**9)
        click.echo(f"seed {seed} (rerun with --seed {seed} to get this {chosen.kinds[0].name} again)", err=True)
    at = written_at(target)
    folder = (os.path.dirname(at) or ".") if at is not None else "."  # where the spec goes
    if chosen.generator is None:  # (GameName offers the games that have a generator)
        raise SheetgenError(f"{chosen.title} has no generator")
    said_when_done(keep=False)  # (nothing left from an earlier command in this process)
    try:
        _generated(chosen, seed, options, folder, at, target, pdf, force)
    except BaseException:
        said_when_done(keep=False)  # a failed command never speaks of the file it did not write
        raise
    said_when_done()


def _generated(chosen, seed: int, options, folder: str, at, target, pdf, force: bool) -> None:
    """generate's work once its options are checked: make the spec, load it back, render it
    when asked, and write everything (see generate)."""
    from sheetgen.yamlsrc import load_bytes

    text = chosen.generator.make(seed, options, folder)
    data = text.encode("utf-8")
    named = [path for path in (target, pdf) if path not in (None, "-")]
    # the new spec loaded back from its bytes, as any spec file is: the files it refers to (a
    # library the generator drew from) are inputs, which no output may replace
    spec = registry.spec_of(load_bytes(data, at or "<stdout>")) if named or pdf else None
    inputs = tuple(spec.document.reads) if spec is not None and spec.document is not None else ()
    pdf_bytes = _render_generated(spec) if pdf and spec is not None else None
    out = stdout_bytes() if target is None or pdf == "-" else None
    streamed = data if target is None else pdf_bytes

    def announce() -> None:  # standard output first: when it fails, no file is written
        if out is not None and streamed is not None:
            out.write(streamed)
            out.flush()

    # everything is made before anything is written, and the files are written together:
    # both or neither (sheetgen.output)
    files = [
        (path, content)
        for path, content in ((target, data), (pdf, pdf_bytes))
        if path is not None and path != "-" and content is not None
    ]
    write_files(files, inputs=inputs, force=force, announce=announce)


def _render_generated(spec: registry.Spec) -> bytes:
    """The printable of a generated spec (loaded back from its bytes)."""
    from sheetgen.render import build_outputs

    pdf, _pages = build_outputs(spec)  # the game's own template: the one its generator checked
    return pdf


# -- schema ------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("game", type=GameName())
@reports_errors
def schema(game: str) -> None:
    """Print the JSON Schema of a game's specs, for editors that complete and check YAML.

    \b
    Example:
      sheetgen schema rallytaire > rallytaire.schema.json
    """
    click.echo(json.dumps(registry.game(game).schema(), indent=2))


def _register_feature_commands() -> None:
    from sheetgen.commands import all_commands

    for command in all_commands():
        main.add_command(command)


_register_feature_commands()


def _examples_last(command: click.Command) -> None:
    """A command's help ends with its example: the docstring's "Example:" part is moved
    behind the options (click's epilog), where a reader of a long help looks last."""
    import inspect
    import re

    text = command.help or ""
    found = re.search(r"\n[ \t]*\x08\n[ \t]*Example:", text)  # "\b" then "Example:"
    if found:
        command.help = inspect.cleandoc(text[: found.start()])
        command.epilog = inspect.cleandoc(text[found.start() :])


for _command in [main, *main.commands.values()]:
    _examples_last(_command)


def run() -> None:
    """The `sheetgen` command: `main`, with standard output that fails (a full disk, a closed
    pipe, none at all) reported in one line even where click itself writes (--help,
    --version); SIGTERM and SIGHUP end it (and its worker processes) as Ctrl-C does."""
    from sheetgen.cliutil import attach_closed_streams, on_terminate

    attach_closed_streams()
    on_terminate()
    try:
        main()
    except OSError as exc:
        try:
            failed = sys.stdout.fileno()
        except (OSError, ValueError):  # (a closed standard output: nothing is kept to flush)
            failed = None
        if failed is not None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, failed)  # nothing more to flush into the failed output
        if not isinstance(exc, BrokenPipeError):
            click.echo(f"sheetgen: error: {exc.strerror or exc}", err=True)
        sys.exit(1)
