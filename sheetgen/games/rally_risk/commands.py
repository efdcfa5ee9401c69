"""Rally Risk's own command: `sheetgen calendar` (`Game.commands`).

A Rally Risk calendar spec (the rulebook's is track_specs/rally_risk/championship.yaml) and
a seed give every race its sections; written as an explicit calendar spec (`validate` checks
it) and a PDF, the calendar's printable (`sheetgen.render.build_outputs`, given the calendar
built here: what `build` prints for the spec with seed 1).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from sheetgen.cliutil import CONTEXT, FORCE, FORMAT, INK, PAPER, jobs, output, refuse_stdout_folder, reports_errors
from sheetgen.errors import SpecError
from sheetgen.games.rally_risk.model import Calendar
from sheetgen.output import check_targets, write_files
from sheetgen.registry import Figures, load_spec
from sheetgen.render import build_outputs


def _spec_problems(loaded, problems):
    """A SpecError for problems found after loading ((path in the spec, message)), each at
    its FILE:LINE:COL in the loaded document."""
    return SpecError([loaded.document.problem(where, message) for where, message in problems])


@click.command(context_settings=CONTEXT)
@click.argument("spec", type=click.Path(path_type=str))
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="random seed (default: pick one and print it on standard error; "
    "build and render print a calendar with seed 1)",
)
@output("folder for the built calendar (SPEC-seedN.yaml) and its PDF (SPEC-seedN.pdf); default: print only", "out_dir")
@FORMAT
@PAPER
@INK
@jobs("processes for the finishability analyses (default: the CPUs available)")
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
    `sheetgen validate` checks it) and as a PDF: overview, a course sheet per race (its
    sections in driving order), the championship score sheet and the reference card. An
    impossible calendar is explained with the spec's FILE:LINE:COL and nothing is written.
    The same spec and seed give the same files, byte for byte. `sheetgen build` and
    `sheetgen render` print a calendar spec with seed 1: the PDF `sheetgen calendar SPEC
    --seed 1 -o DIR` writes.

    \b
    Example:
      sheetgen calendar track_specs/rally_risk/championship.yaml --seed 7 -o output
    """
    import secrets

    from sheetgen.games.rally_risk.championship import (
        CalendarError,
        build_calendar,
        calendar_to_json,
        default_jobs,
        format_calendar_text,
    )

    if out_dir is not None:
        refuse_stdout_folder(out_dir)
    loaded = load_spec(spec)
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

    from sheetgen.errors import SheetgenError
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


def _write_calendar(loaded, built, out_dir: str, paper: str | None, ink: str, force: bool, report) -> list:
    """Write the built calendar's spec and PDF into `out_dir`, `report(written)` printed
    once they are ready and before they are put in place; the files written and their pages.
    The PDF is the calendar's printable (what `build` prints for the spec with seed 1), given
    the calendar built here."""
    spec_file, pdf_file = calendar_files(loaded.path, built.seed, out_dir)
    text = calendar_text(loaded, built, spec_file)
    pdf, pages = build_outputs(loaded, paper=paper, ink=ink, figures=Figures.given(loaded, {"built": built}))
    written = [(spec_file, 0), (pdf_file, pages)]
    write_files(
        [(spec_file, text.encode("utf-8")), (pdf_file, pdf)],
        folder=out_dir,
        inputs=loaded.sources,
        force=force,
        announce=lambda: report(written),
    )
    return written


COMMANDS = [calendar]
