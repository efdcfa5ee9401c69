"""The sheetgen command line: parses options, calls the library, turns its errors into
`FILE:LINE:COL: error: MESSAGE` lines and exit status 1. It holds no game rules."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from sheetgen import __version__, registry
from sheetgen.errors import SheetgenError, SpecError, UsageError
from sheetgen.games.rallytaire.timetable import BASIC_MAX_SPEED, PUSH_MAX_SPEED, table
from sheetgen.cliutil import CONTEXT, refuse_pdf_on_terminal, refuse_stdout_folder, reports_errors, write_pdf
from sheetgen.output import write_files

DEFAULT_SPECS = "track_specs"
DEFAULT_OUTPUT = "output"


@click.group(context_settings=CONTEXT)
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
@click.option("--strict", is_flag=True, help="also refuse races that cannot be finished (Rally Risk: the best policy's P(elimination) over 5%)")
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
        results.append({"file": path, "valid": True, "game": spec.game.name, "errors": []})
        if fmt == "text":
            click.echo(f"{path}: ok ({spec.game.title}: {spec.game.summary(spec.model)})")
    if fmt == "json":
        click.echo(json.dumps({"specs": results}, indent=2))
    if failed:
        sys.exit(1)


def _refuse_unplayable(spec) -> None:
    problems = spec.game.strict(spec) if spec.game.strict else []
    if problems:
        raise SpecError(problems)


def _problem_json(problem) -> dict:
    loc = problem.location
    return {"file": loc.file, "line": loc.line, "col": loc.col, "message": problem.message}


# -- timetable ---------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.option(
    "--max-speed",
    type=click.IntRange(1, PUSH_MAX_SPEED),
    default=BASIC_MAX_SPEED,
    show_default=True,
    help=f"highest speed row ({BASIC_MAX_SPEED} in the basic game, {PUSH_MAX_SPEED} when pushing the engine)",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True)
@reports_errors
def timetable(max_speed: int, fmt: str) -> None:
    """Print Rallytaire's finishing-turn time table (seconds = 10 x moved / speed, half up).

    \b
    Example:
      sheetgen timetable --max-speed 17 --format csv
    """
    rows = table(max_speed)
    if fmt == "json":
        data = {"rows": [{"speed": s, "seconds": [t / 10 for t in cells]} for s, cells in enumerate(rows, start=1)]}
        click.echo(json.dumps(data))
    elif fmt == "csv":
        click.echo("speed," + ",".join(str(m) for m in range(1, max_speed + 1)))
        for speed, cells in enumerate(rows, start=1):
            click.echo(f"{speed}," + ",".join(f"{t / 10:.1f}" for t in cells))
    else:
        width = 5
        click.echo("speed" + "".join(f"{m:>{width}}" for m in range(1, max_speed + 1)) + "   (spaces moved)")
        for speed, cells in enumerate(rows, start=1):
            click.echo(f"{speed:>5}" + "".join(f"{t / 10:>{width}.1f}" for t in cells))


# -- build -------------------------------------------------------------------------------


def _spec_files(specs: tuple[str, ...]) -> list[str]:
    if specs:
        files: list[str] = []
        for spec in specs:
            if os.path.isdir(spec):
                files.extend(sorted(str(p) for p in Path(spec).rglob("*.yaml")))
            else:
                files.append(spec)
        return files
    if not os.path.isdir(DEFAULT_SPECS):
        raise SheetgenError(f"no SPEC given and no {DEFAULT_SPECS}/ folder here; run in the project folder or name the specs")
    return sorted(str(p) for p in Path(DEFAULT_SPECS).rglob("*.yaml"))


def _template_inputs(template: str | None) -> list[str]:
    """A template file given with --template is an input too."""
    from sheetgen.render.template import is_template_file

    return [template] if template and is_template_file(template) else []


def _output_name(spec_path: str) -> str:
    return Path(spec_path).stem + ".pdf"


@main.command(context_settings=CONTEXT)
@click.argument("specs", nargs=-1, type=click.Path(path_type=str))
@click.option("-o", "--output", "out_dir", default=DEFAULT_OUTPUT, show_default=True, type=click.Path(path_type=str), help="folder for the PDFs")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default=None, help="paper size (default: the template's, A4)")
@click.option("--ink", type=click.Choice(["normal", "low"]), default="normal", show_default=True, help="low: no filled areas, thin lines")
@click.option("--template", "template", default=None, help="built-in template name or a template file path (default: the game's own, e.g. race_sheet, rally_risk)")
@click.option("-q", "--quiet", is_flag=True, help="no progress on standard error")
@reports_errors
def build(specs: tuple[str, ...], out_dir: str, paper: str | None, ink: str, template: str | None, quiet: bool) -> None:
    """Validate, analyse and render every spec (default: track_specs/ into output/).

    Nothing is written unless every spec is valid and every PDF rendered.

    \b
    Example:
      sheetgen build -o output --paper letter
    """
    from sheetgen.render import build_outputs, can_render

    refuse_stdout_folder(out_dir)
    files = _spec_files(specs)
    if not files:
        raise SheetgenError("no spec files found")
    problems = []
    loaded = []
    for path in files:
        try:
            spec = registry.load_spec(path)
            _refuse_unplayable(spec)
            loaded.append(spec)
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    progress = not quiet and sys.stderr.isatty()
    names: dict[str, str] = {}
    rendered = []
    printable = [spec for spec in loaded if can_render(spec)]
    for spec in loaded:
        if not can_render(spec) and not quiet:
            click.echo(f"{spec.path}: valid; no printable sheets for {spec.game.title} yet", err=True)
    loaded = printable
    for number, spec in enumerate(loaded, start=1):
        if progress:
            click.echo(f"[{number}/{len(loaded)}] {spec.path}", err=True)
        name = _output_name(spec.path)
        if name in names:
            raise SheetgenError(f"{spec.path} and {names[name]} would both write {name}; rename one")
        names[name] = spec.path
        data, pages = build_outputs(spec, paper=paper, ink=ink, template=template)
        rendered.append((os.path.join(out_dir, name), data, pages))
    inputs = [source for spec in loaded for source in spec.sources] + _template_inputs(template)
    write_files([(target, data) for target, data, _pages in rendered], folder=out_dir, inputs=inputs)
    pages = sum(p for _t, _d, p in rendered)
    count = len(rendered)
    click.echo(f"built {count} spec{'s' if count != 1 else ''}: {pages} page{'s' if pages != 1 else ''}, {count} file{'s' if count != 1 else ''} written to {out_dir}/")


# -- analyze / simulate ----------------------------------------------------------------


def _check_options(loaded, rules: str, assistance: str | None) -> None:
    if loaded.game.name != "rallytaire" and rules != "basic":
        raise UsageError(f"--rules is for Rallytaire; {loaded.path} is a {loaded.game.title} spec")
    if loaded.game.name != "rally_risk" and assistance is not None:
        raise UsageError(f"--assistance is for Rally Risk; {loaded.path} is a {loaded.game.title} spec")


def _rallytaire_race(spec):
    from sheetgen.games.rallytaire import require_race

    return require_race(spec)


def _rally_risk_race(spec):
    from sheetgen.games.rally_risk.spec import require_race

    return require_race(spec)


RULES = click.option(
    "--rules",
    type=click.Choice(["basic", "advanced"]),
    default="basic",
    show_default=True,
    help="advanced: boxes, tyres, push/brake/skip and fix-points, solved for the whole race",
)


ASSISTANCE = click.option(
    "--assistance",
    type=click.Choice(["permanent", "rapid", "normal"]),
    default=None,
    help="Rally Risk: the assistance type (default: all three, the best one used)",
)


@main.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@RULES
@ASSISTANCE
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@reports_errors
def analyze(spec: str, rules: str, assistance: str | None, fmt: str) -> None:
    """Solve a race exactly: Rallytaire par times, crash risk per corner; Rally Risk expected
    rounds, P(elimination), the most dangerous spaces and where mechanics help.

    With --rules advanced a Rallytaire race is solved whole: tyres, options and fix-points.

    \b
    Example:
      sheetgen analyze track_specs/rallytaire/monte_carlo.yaml --format json
    """
    loaded = registry.load_spec(spec)
    _check_options(loaded, rules, assistance)
    if loaded.game.name == "rally_risk":
        from sheetgen.games.rally_risk.solve import analysis_to_json as risk_json
        from sheetgen.games.rally_risk.solve import analyze_rally_risk_race
        from sheetgen.games.rally_risk.solve import format_analysis_text as risk_text

        result = analyze_rally_risk_race(_rally_risk_race(loaded), assistance)
        data, text = (risk_json(result), None) if fmt == "json" else (None, risk_text(result))
        click.echo(json.dumps(data, indent=2) if fmt == "json" else text.rstrip("\n"))
        return
    race = _rallytaire_race(loaded)
    if rules == "advanced":
        from sheetgen.games.rallytaire.solve_advanced import advanced_analysis_to_json, analyze_race_advanced, format_advanced_text

        advanced = analyze_race_advanced(race)
        data, text = (advanced_analysis_to_json(advanced), None) if fmt == "json" else (None, format_advanced_text(advanced))
    else:
        from sheetgen.games.rallytaire.solve import analysis_to_json, analyze_race, format_analysis_text

        basic = analyze_race(race)
        data, text = (analysis_to_json(basic), None) if fmt == "json" else (None, format_analysis_text(basic))
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(text.rstrip("\n"))


@main.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="dice seed (default: pick one and print it)")
@RULES
@click.option("--policy", type=click.Choice(["optimal", "cautious"]), default="optimal", show_default=True, help="cautious: never risk a crash (Rallytaire basic rules only)")
@click.option("--players", type=click.IntRange(1, 6), default=1, show_default=True, help="Rally Risk: cars, with staggered starts and passing")
@ASSISTANCE
@reports_errors
def simulate(spec: str, seed: int | None, rules: str, policy: str, players: int, assistance: str | None) -> None:
    """Play the race with seeded dice and print it turn by turn, the way a player fills the sheet.

    \b
    Example:
      sheetgen simulate track_specs/rallytaire/acropolis.yaml --seed 7 --policy cautious
    """
    import secrets

    loaded = registry.load_spec(spec)
    _check_options(loaded, rules, assistance)
    if loaded.game.name == "rally_risk" and policy != "optimal":
        raise UsageError("--policy is for Rallytaire; Rally Risk cars play the optimal policy")
    if loaded.game.name == "rallytaire" and players != 1:
        raise UsageError("--players is for Rally Risk; Rallytaire is a solo game")
    if loaded.game.name == "rallytaire" and rules == "advanced" and policy != "optimal":
        raise UsageError("--policy cautious is for the basic rules; the advanced game is played by its optimal policy")
    # a file that is not a race is refused before any dice are picked
    _rally_risk_race(loaded) if loaded.game.name == "rally_risk" else _rallytaire_race(loaded)
    if seed is None:
        seed = secrets.randbelow(10**9)
        click.echo(f"seed {seed} (rerun with --seed {seed} to see this race again)", err=True)
    if loaded.game.name == "rally_risk":
        from sheetgen.games.rally_risk.simulate import format_race_run as risk_lines
        from sheetgen.games.rally_risk.simulate import simulate as risk_simulate

        lines = risk_lines(risk_simulate(_rally_risk_race(loaded), seed, players, assistance=assistance))
    elif rules == "advanced":
        from sheetgen.games.rallytaire.simulate_advanced import format_advanced_run, simulate_race_advanced

        lines = format_advanced_run(simulate_race_advanced(_rallytaire_race(loaded), seed))
    else:
        from sheetgen.games.rallytaire.simulate import format_race_run, simulate_race

        lines = format_race_run(simulate_race(_rallytaire_race(loaded), seed, policy))
    for line in lines:
        click.echo(line)


@main.command(context_settings=CONTEXT)
@click.argument("game", type=click.Choice(["rally-risk", "rally_risk"]))  # as in the spec's game: too
@click.option("--spec", "spec_path", type=click.Path(path_type=str), default=None, help="a race spec whose own tables replace the house tables")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@reports_errors
def tables(game: str, spec_path: str | None, fmt: str) -> None:
    """Print the Rally Risk tables in effect: gear chart, Table of Risks, Damages Table, weather.

    \b
    Example:
      sheetgen tables rally-risk --format json
    """
    from sheetgen.games.rally_risk.tables import format_tables_text, tables_in_effect

    loaded = registry.load_spec(spec_path) if spec_path else None
    if loaded is not None and loaded.game.name != "rally_risk":
        raise loaded.wrong(f"a {loaded.game.title} spec, not a Rally Risk one: --spec takes a Rally Risk race whose own tables replace the house tables")
    data = tables_in_effect(loaded)
    click.echo(json.dumps(data, indent=2) if fmt == "json" else format_tables_text(data).rstrip("\n"))


# -- render ------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option("-o", "--output", "target", required=True, help="PDF file to write, or - for standard output")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default=None, help="paper size (default: the template's, A4)")
@click.option("--ink", type=click.Choice(["normal", "low"]), default="normal", show_default=True, help="low: no filled areas, thin lines")
@click.option("--template", "template", default=None, help="built-in template name or a template file path (default: the game's own, e.g. race_sheet, rally_risk)")
@reports_errors
def render(spec: str, target: str, paper: str | None, ink: str, template: str | None) -> None:
    """Render one spec to a printable PDF (written atomically, or streamed with -o -).

    \b
    Example:
      sheetgen render track_specs/rallytaire/monte_carlo.yaml -o monte.pdf --paper letter
    """
    from sheetgen.render import build_outputs

    refuse_pdf_on_terminal(target)  # say so before the analysis, not after
    loaded = registry.load_spec(spec)
    data, _pages = build_outputs(loaded, paper=paper, ink=ink, template=template)
    write_pdf(target, data, inputs=(*loaded.sources, *_template_inputs(template)))


# -- schema ------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("game", type=click.Choice(registry.names() + [n.replace("_", "-") for n in registry.names() if "_" in n]))
@reports_errors
def schema(game: str) -> None:
    """Print the JSON Schema of a game's specs, for editors that complete and check YAML.

    \b
    Example:
      sheetgen schema rallytaire > rallytaire.schema.json
    """
    click.echo(json.dumps(registry.game(game.replace("-", "_")).schema, indent=2))


def _register_feature_commands() -> None:
    from sheetgen.commands import all_commands

    for command in all_commands():
        main.add_command(command)


_register_feature_commands()


def _examples_last(group: click.Group) -> None:
    """Each command's help ends with its example: the docstring's "Example:" part is moved
    behind the options (click's epilog), where a reader of a long help looks last."""
    import inspect
    import re

    for command in [group, *group.commands.values()]:
        text = command.help or ""
        found = re.search(r"\n[ \t]*\x08\n[ \t]*Example:", text)  # "\b" then "Example:"
        if found:
            command.help = inspect.cleandoc(text[: found.start()])
            command.epilog = inspect.cleandoc(text[found.start() :])


_examples_last(main)


def run() -> None:
    """The `sheetgen` command: `main`, with standard output that fails (a full disk, a closed
    pipe) reported in one line even where click itself writes (--help, --version)."""
    try:
        main()
    except OSError as exc:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush into the failed output
        if not isinstance(exc, BrokenPipeError):
            click.echo(f"sheetgen: error: {exc.strerror or exc}", err=True)
        sys.exit(1)
