"""`sheetgen preview`: a local web page showing what specs print, kept up to date as they are
saved (the server is `sheetgen.preview`, imported when the command runs)."""

from __future__ import annotations

import sys

import click

from sheetgen.cliutil import CONTEXT, INK, PAPER, TEMPLATE, Terminated, reports_errors, spec_files

DEFAULT_PORT = 8765


@click.command(context_settings=CONTEXT)
@click.argument("specs", nargs=-1, required=True, metavar="SPEC|FOLDER...", type=click.Path(path_type=str))
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="the port to serve on (0: any free one, said when it starts)",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="the address to serve on: this machine alone unless told (0.0.0.0: every interface)",
)
@PAPER
@INK
@TEMPLATE
@reports_errors
def preview(specs: tuple[str, ...], port: int, host: str, paper: str | None, ink: str, template: str | None) -> None:
    """Show specs in a web page while you write them: every page they print (as render draws
    it), every problem at its FILE:LINE:COL with the line quoted, and the figures analyze
    gives, redrawn within about a second of a save of a spec or of any file it reads.

    A folder stands for every spec under it, those added later too (a spec deleted from it
    leaves the page). A spec that cannot be played is drawn as a draft
    (as render --draft draws it); one that does not load shows why, and the server goes on.
    Ctrl-C stops it.

    \b
    Example:
      sheetgen preview track_specs/ --port 8765
    """
    import os

    from sheetgen import registry
    from sheetgen.errors import SheetgenError
    from sheetgen.preview.server import Settings, serve
    from sheetgen.render.raster import DEFAULT_DPI
    from sheetgen.template import is_template_file

    paths = spec_files(specs)
    if not paths:
        raise SheetgenError("no spec files found")
    if template is not None and not is_template_file(template):
        from sheetgen.template import load_template

        load_template(template)  # an unknown built-in name: said now, not on the page
    settings = Settings(
        paper=paper,
        ink=ink,
        template=template,
        template_file=template is not None and is_template_file(template),
        dpi=DEFAULT_DPI,
        jobs=max(1, min(2, os.cpu_count() or 1)),
    )

    def ready(url: str) -> None:
        count = len(paths)
        click.echo(f"sheetgen preview: {url} ({count} spec{'s' if count != 1 else ''}; Ctrl-C stops it)")
        sys.stdout.flush()

    try:
        serve(paths, settings, host, port, games=registry.registered(), given=specs, ready=ready)
    except Terminated as exc:  # Ctrl-C (SIGINT), SIGTERM, SIGHUP: what stopped it said but for Ctrl-C
        import signal

        said = "" if exc.signum == signal.SIGINT else f" ({exc.name})"
        click.echo(f"sheetgen: preview stopped{said}", err=True)
        sys.exit(128 + exc.signum)
    except KeyboardInterrupt:
        click.echo("sheetgen: preview stopped", err=True)
        sys.exit(130)


COMMANDS = [preview]
