"""`sheetgen standings`: any game's results file scored by the game (`Game.standings`);
with -o, the printable of the results file (what `build` prints for it)."""

from __future__ import annotations

import json

import click

from sheetgen.cliutil import CONTEXT, FORCE, INK, PAPER, output, reports_errors, write_pdf
from sheetgen.forum import FORMATS

FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", *FORMATS]),
    default="text",
    show_default=True,
    help="markdown or bbcode: the tables to paste into a forum post (the standings, then each driver's time log)",
)


@click.command(context_settings=CONTEXT)
@click.argument("results", type=click.Path(path_type=str))
@FORMAT
@output("also write the standings sheet PDF here")
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
    race's starting order; Rallyman sums every driver's stage times. A `league:` block adds
    house options: drop rounds (best X of Y) and bonus points (docs/leagues.md). With -o,
    the printable standings sheet (the one `sheetgen build` prints for the file).

    \b
    Example:
      sheetgen standings results.yaml -o standings.pdf
      sheetgen standings league.yaml --format bbcode
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
        if fmt in FORMATS:
            from sheetgen.forum import render

            click.echo(render(report.tables, fmt), nl=False)
        else:
            click.echo(json.dumps(report.data, indent=2) if fmt == "json" else report.text.rstrip("\n"))

    if fmt in FORMATS and not report.tables:
        raise loaded.wrong(f"{loaded.game.title}'s standings have no tables for --format {fmt}")

    if target is not None:  # the report is printed before the file is put in place
        from sheetgen.render import build_outputs

        pdf, _pages = build_outputs(loaded, paper=paper, ink=ink)
        write_pdf(target, pdf, inputs=loaded.sources, force=force, announce=say)
    else:
        say()


COMMANDS = [standings]
