"""`sheetgen import FORMAT FILE -o SPEC` and `sheetgen export FORMAT SPEC -o FILE`: specs from and
to other tools' files (a track editor's own format), through the games' `Converter`s.

A converter is found by its FORMAT name in the registry (`registry.converter`), so a game that
reads or writes a new format adds it to its `Game.converters`, not here. An imported spec is
loaded back as any spec file is before it is written: what `import` writes, `validate` accepts.
"""

from __future__ import annotations

import click

from sheetgen.cliutil import CONTEXT, FORCE, GameCommand, option_values, output, reports_errors, stdout_bytes
from sheetgen.errors import SheetgenError


class FormatName(click.ParamType):
    """A foreign format some registered game reads (`direction="read"`) or writes ("write")."""

    name = "format"

    def __init__(self, direction: str):
        self.direction = direction

    def choices(self) -> list[str]:
        from sheetgen import registry

        return sorted(
            {c.format for g in registry.games() for c in g.converters if getattr(c, self.direction) is not None}
        )

    def get_metavar(self, param, ctx=None) -> str:
        return "{" + "|".join(self.choices()) + "}"

    def convert(self, value, param, ctx):
        choices = self.choices()
        if value not in choices:
            self.fail(
                f"{value!r} is not one of {', '.join(map(repr, choices)) or 'the formats (none is registered)'}.",
                param,
                ctx,
            )
        return value


@click.command("import", context_settings=CONTEXT, cls=GameCommand, game_command="import", before="target")
@click.argument("fmt", metavar="FORMAT", type=FormatName("read"))
@click.argument("source", metavar="FILE", type=click.Path(path_type=str))
@output("spec file to write (default, or -: standard output)")
@FORCE
@reports_errors
def import_(fmt: str, source: str, target: str | None, force: bool, **given) -> None:
    """Turn another tool's file into a spec (checked as any spec is before it is written).

    \b
    Example:
      sheetgen import rekee track.rgt --tiles my_box.yaml --laps 3 -o track.yaml
    """
    from sheetgen import registry
    from sheetgen.output import check_targets, write_files, written_at
    from sheetgen.yamlsrc import load_bytes

    game, converter = registry.converter(fmt, "read")
    options = option_values("import", game, given)
    if target == "-":
        target = None
    written_as = written_at(target) or "<stdout>"  # (the file behind -o /dev/stdout >> FILE)
    if converter.read is None:  # (registry.converter gives one that reads)
        raise SheetgenError(f"the {fmt} format cannot be read")
    text, inputs, *rest = converter.read(source, written_as, options)
    warnings = rest[0] if rest else []
    inputs = (source, *inputs)
    if target is not None:
        check_targets([target], inputs=inputs, force=force)
    data = text.encode("utf-8")
    registry.spec_of(load_bytes(data, written_as))  # what import writes, validate accepts
    if target is None:
        out = stdout_bytes()
        out.write(data)
        out.flush()
    else:
        write_files([(target, data)], inputs=inputs, force=force)
    for problem in warnings:  # (kept in the spec all the same)
        click.echo(f"{problem.location}: warning: {problem.message}", err=True)


@click.command("export", context_settings=CONTEXT, cls=GameCommand, game_command="export", before="target")
@click.argument("fmt", metavar="FORMAT", type=FormatName("write"))
@click.argument("spec", type=click.Path(path_type=str))
@output("file to write (default, or -: standard output)")
@FORCE
@reports_errors
def export(fmt: str, spec: str, target: str | None, force: bool, **given) -> None:
    """Write a spec in another tool's format (what the format has no place for is refused,
    or said as a warning when the file can go without it).

    \b
    Example:
      sheetgen export rekee my_track.yaml --format rgt -o my_track.rgt
    """
    from sheetgen import registry
    from sheetgen.output import check_targets, write_files

    game, converter = registry.converter(fmt, "write")
    loaded = registry.load_spec(spec)
    if loaded.game.name != game.name:
        raise loaded.wrong(f"{loaded.described(game.name)}: the {fmt} format holds {game.title} specs")
    options = option_values("export", game, given, loaded.path)
    if target == "-":
        target = None
    if target is not None:
        check_targets([target], inputs=loaded.sources, force=force)
    if converter.write is None:  # (registry.converter gives one that writes)
        raise SheetgenError(f"the {fmt} format cannot be written")
    data = converter.write(loaded, options)
    lost = converter.lost(loaded, options) if converter.lost is not None else []
    if target is None:
        out = stdout_bytes()
        out.write(data)
        out.flush()
    else:
        write_files([(target, data)], inputs=loaded.sources, force=force)
    for problem in lost:  # (written all the same: the file goes without them)
        click.echo(f"{problem.location}: warning: {problem.message}", err=True)


COMMANDS = [import_, export]
