"""`sheetgen calendar`, `sheetgen standings` and `sheetgen season`: championships.

calendar: a Rally Risk calendar spec (the rulebook's is track_specs/rally_risk/
championship.yaml) and a seed give every race its sections; written as an explicit calendar
spec (`validate` checks it) and a PDF. standings: any game's results file (`Game.standings`):
Rally Risk's score A, points and table; Rallyman's summed stage times. season: a Rallytaire season's sheet.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from sheetgen.cliutil import CONTEXT, FORCE, FORMAT, INK, PAPER, refuse_stdout_folder, reports_errors, write_pdf


def _template(game: str):
    """The game's own built-in template."""
    from sheetgen import registry
    from sheetgen.template import load_template

    return load_template(registry.game(game).template)


def _spec_problems(loaded, problems):
    """A SpecError for problems found after loading ((path in the spec, message)), each at
    its FILE:LINE:COL in the loaded document."""
    from sheetgen.errors import SpecError

    return SpecError([loaded.document.problem(where, message) for where, message in problems])


# --------------------------------------------------------------------------- calendar


@click.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="random seed (default: pick one and print it on standard error; "
    "build and render print a calendar with seed 1)",
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(path_type=str),
    default=None,
    help="folder for the built calendar (SPEC-seedN.yaml) and its PDF (SPEC-seedN.pdf); default: print only",
)
@FORMAT
@PAPER
@INK
@click.option(
    "--jobs",
    type=click.IntRange(1, 64),
    default=None,
    help="processes for the finishability analyses (default: the CPUs available)",
)
@FORCE
@reports_errors
def calendar(
    spec: str,
    seed: int | None,
    out_dir: str | None,
    fmt: str,
    paper: str | None,
    ink: str,
    jobs: int | None,
    force: bool,
) -> None:
    """Choose the road sections of every race of a Rally Risk calendar.

    Every race meets its rally's limits, starts on a factor-0 section, connects, lies on the
    table without overlap, uses no section more often than the box has it, and can be
    finished (exact analysis: permanent assistance, no mechanics, P(elimination) under 5%).
    With -o the calendar is written as an explicit calendar spec (every race as a course;
    `sheetgen validate` checks it) and as a PDF: overview, section lists, a course sheet per
    race and the championship score sheet. An impossible calendar is explained with the
    spec's FILE:LINE:COL and nothing is written. The same spec and seed give the same
    files, byte for byte. `sheetgen build` and `sheetgen render` print a calendar spec with
    seed 1: the PDF `sheetgen calendar SPEC --seed 1 -o DIR` writes.

    \b
    Example:
      sheetgen calendar track_specs/rally_risk/championship.yaml --seed 7 -o output
    """
    import secrets

    from sheetgen import registry
    from sheetgen.games.rally_risk.championship import (
        CalendarError,
        build_calendar,
        calendar_to_json,
        default_jobs,
        format_calendar_text,
    )
    from sheetgen.games.rally_risk.model import Calendar

    if out_dir is not None:
        refuse_stdout_folder(out_dir)
    loaded = registry.load_spec(spec)
    if loaded.game.name != "rally_risk" or not isinstance(loaded.model, Calendar):
        raise loaded.wrong(
            f"{loaded.described('rally_risk')}; sheetgen calendar needs a Rally Risk calendar (kind: calendar)"
        )
    cal = loaded.model
    if cal.sections is None:
        raise _spec_problems(
            loaded,
            [
                (
                    (),
                    "the calendar names no 'library': add the file of the road sections to choose from "
                    "(library: sections.yaml)",
                )
            ],
        )
    if seed is None:
        seed = secrets.randbelow(10**9)
        click.echo(f"seed {seed} (rerun with --seed {seed} to get this calendar again)", err=True)
    if out_dir is not None and os.path.isdir(out_dir):  # (a missing folder is made when the files are written)
        from sheetgen.output import check_targets

        check_targets(calendar_files(loaded.path, seed, out_dir), inputs=loaded.sources, force=force)
    try:
        built = build_calendar(cal, seed, jobs=jobs or default_jobs())
    except CalendarError as exc:
        raise _spec_problems(loaded, exc.problems) from None

    def report(written: list[tuple[str, int]]) -> None:
        if fmt == "json":
            data = calendar_to_json(built)
            data["files"] = [{"path": p, "pages": n} if n else {"path": p} for p, n in written]
            click.echo(json.dumps(data, indent=2))
        else:
            click.echo(format_calendar_text(built).rstrip("\n"))
            for path, pages in written:
                click.echo(f"wrote {path}" + (f" ({pages} pages)" if pages else ""))

    if out_dir is not None:  # the report is printed before the files are put in place
        _write_calendar(loaded, built, out_dir, paper, ink, force, report)
    else:
        report([])


def calendar_files(spec_path: str, seed: int, out_dir: str) -> tuple[str, str]:
    """The built calendar's spec and PDF paths."""
    stem = f"{Path(spec_path).stem}-seed{seed}"
    return os.path.join(out_dir, stem + ".yaml"), os.path.join(out_dir, stem + ".pdf")


def calendar_text(loaded, built, target: str) -> str:
    """The built calendar as a spec file at `target`, its library path relative to
    `target`'s folder (absolute when they share no folder but the root); loaded back, and
    so checked, before anything is written."""
    from dataclasses import replace

    from sheetgen.errors import SheetgenError, SpecError
    from sheetgen.games.rally_risk.championship import calendar_yaml
    from sheetgen.games.rally_risk.spec import load_calendar
    from sheetgen.yamlsrc import load_text

    library = os.path.abspath(os.path.join(os.path.dirname(loaded.path), built.calendar.library))
    folder = os.path.dirname(os.path.abspath(target))
    try:
        shared = os.path.commonpath([library, folder])
        rel = os.path.relpath(library, folder) if os.path.dirname(shared) != shared else library
    except ValueError:  # another drive (Windows)
        rel = library
    head = (
        f"# {built.calendar.name}, every race laid out: built by\n"
        f"#   sheetgen calendar {Path(loaded.path).as_posix()} --seed {built.seed}\n"
        "# Check it with `sheetgen validate`; the same spec and seed give this file again.\n"
    )
    text = calendar_yaml(replace(built.calendar, library=Path(rel).as_posix()), head)
    # loaded back with the library's absolute path: the folder may not exist yet
    check = calendar_yaml(replace(built.calendar, library=library))
    try:
        load_calendar(load_text(check, target))
    except SpecError as exc:  # never expected: the builder keeps every rule the loader checks
        raise SheetgenError(f"the built calendar does not load back: {exc}") from None
    return text


def _write_calendar(loaded, built, out_dir: str, paper: str | None, ink: str, force: bool, report) -> None:
    """Write the built calendar's spec and PDF into `out_dir`, `report(written)` printed
    once they are ready and before they are put in place."""
    from sheetgen.output import write_files
    from sheetgen.render.rally_risk.calendar import calendar_pdf

    spec_file, pdf_file = calendar_files(loaded.path, built.seed, out_dir)
    text = calendar_text(loaded, built, spec_file)
    pdf, pages = calendar_pdf(loaded, built, _template("rally_risk"), paper=paper, ink=ink)
    written = [(spec_file, 0), (pdf_file, pages)]
    write_files(
        [(spec_file, text.encode("utf-8")), (pdf_file, pdf)],
        folder=out_dir,
        inputs=loaded.sources,
        force=force,
        announce=lambda: report(written),
    )


# --------------------------------------------------------------------------- standings


@click.command(context_settings=CONTEXT)
@click.argument("results", type=click.Path(path_type=str))
@FORMAT
@click.option(
    "-o",
    "--output",
    "target",
    type=click.Path(path_type=str),
    default=None,
    help="also write the standings sheet PDF here",
)
@PAPER
@INK
@FORCE
@reports_errors
def standings(results: str, fmt: str, target: str | None, paper: str | None, ink: str, force: bool) -> None:
    """Score a championship or rally from its results file (kind: results).

    Every game that keeps standings scores its own way: Rally Risk gives score A per race
    (rounds behind the first car home minus the place in the starting order; a destroyed
    car: the last arrival's score + 2), each rally's places and points (9, 6, 4, 3, 2, 1;
    ties share the better place and skip the next), the championship table and the next
    race's starting order; Rallyman sums every driver's stage times. With -o, the printable
    standings sheet (the one `sheetgen build` prints for the file).

    \b
    Example:
      sheetgen standings track_specs/rally_risk/results.yaml -o standings.pdf
      sheetgen standings track_specs/rallyman/results/winter_rally.yaml
    """
    from sheetgen import registry

    loaded = registry.load_spec(results)
    if loaded.game.standings is None or loaded.kind_name != "results":
        titles = [registry.game(name).title for name in registry.names() if registry.game(name).standings is not None]
        keeping = " or ".join([", ".join(titles[:-1]), titles[-1]] if len(titles) > 1 else titles)
        raise loaded.wrong(
            f"{loaded.described(loaded.game.name)}; "
            f"sheetgen standings needs a results file (kind: results) of {keeping}"
        )
    report = loaded.game.standings(loaded, {})

    def say() -> None:
        click.echo(json.dumps(report.data, indent=2) if fmt == "json" else report.text.rstrip("\n"))

    if target is not None:  # the report is printed before the file is put in place
        from sheetgen.render import build_outputs

        pdf, _pages = build_outputs(loaded, paper=paper, ink=ink)
        write_pdf(target, pdf, inputs=loaded.sources, force=force, announce=say)
    else:
        say()


# --------------------------------------------------------------------------- season


@click.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option(
    "-o", "--output", "target", type=click.Path(path_type=str), default=None, help="write the season sheet PDF here"
)
@FORMAT
@PAPER
@INK
@click.option("--no-par", "no_par", is_flag=True, help="leave out the par times (no analysis)")
@FORCE
@reports_errors
def season(spec: str, target: str | None, fmt: str, paper: str | None, ink: str, no_par: bool, force: bool) -> None:
    """A Rallytaire season: its races (files or generated by seed) and a sheet to record times.

    Prints the races and stages with the basic game's par times; with -o, writes what
    `sheetgen build` prints for the season: the season sheet (a time box per stage for each
    driver, or, solo, three attempts and a best; race totals and the season total), then the
    race sheets of its generated races (a race file's own sheet: `sheetgen render RACE`).
    With --no-par, the season sheet alone, without par times.

    \b
    Example:
      sheetgen season track_specs/seasons/winter_season.yaml -o season.pdf
    """
    from sheetgen import registry
    from sheetgen.games.rallytaire.season import expand_season, format_season_text, season_to_json

    loaded = registry.load_spec(spec)  # any spec, fully checked, so that a typo is located
    if loaded.game.name != "rallytaire" or loaded.kind != "season":
        raise loaded.wrong(
            f"{loaded.described('rallytaire')}; sheetgen season needs a Rallytaire season (kind: season)"
        )
    figures = registry.Figures(loaded)  # the game's: the expanded season and its races' analyses
    chosen = expand_season(loaded.model) if no_par else figures.get()["season"]
    analyses = None if no_par else figures.get()["analyses"]

    def say() -> None:
        click.echo(
            json.dumps(season_to_json(chosen, analyses), indent=2)
            if fmt == "json"
            else format_season_text(chosen, analyses).rstrip("\n")
        )

    # the report is printed before the file is put in place
    if target is not None and no_par:
        from sheetgen.render.rallytaire.season_sheet import render_season

        pdf, _pages = render_season(
            chosen, None, _template("rallytaire"), paper=paper, ink=ink, keywords=(f"spec-sha256:{loaded.sha256}",)
        )
        write_pdf(target, pdf, inputs=loaded.sources, force=force, announce=say)
    elif target is not None:  # what build prints: the season sheet, then the generated races' sheets
        from sheetgen.render import build_outputs

        pdf, _pages = build_outputs(loaded, paper=paper, ink=ink, figures=figures)
        write_pdf(target, pdf, inputs=loaded.sources, force=force, announce=say)
    else:
        say()


COMMANDS = [calendar, standings, season]
