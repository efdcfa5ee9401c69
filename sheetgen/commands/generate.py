"""`sheetgen generate`: new races from a seed, written as ordinary spec files."""

from __future__ import annotations

import os
import re
import sys

import click

from sheetgen.cliutil import CONTEXT, refuse_pdf_on_terminal, reports_errors
from sheetgen.errors import UsageError

_LENGTH = re.compile(r"^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$")


class LengthRange(click.ParamType):
    """MIN..MAX spaces (or one number for both)."""

    name = "MIN..MAX"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        m = _LENGTH.match(str(value))
        if not m:
            self.fail(f"expected MIN..MAX such as 40..70, got {value!r}", param, ctx)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if not 2 <= lo <= hi <= 300:
            self.fail(f"expected 2 <= MIN <= MAX <= 300, got {lo}..{hi}", param, ctx)
        return (lo, hi)


SURFACES = ("asphalt", "gravel", "snow")


def _surfaces(ctx, param, values: tuple[str, ...]) -> tuple[str, ...]:
    """--surface may be given several times, or once with commas; kept in a fixed order so
    that the same set always gives the same race."""
    if values and not any(part.strip() for value in values for part in value.split(",")):
        raise click.BadParameter("no surface named (expected asphalt, gravel or snow, comma separated)", ctx, param)
    given = {part.strip() for value in values for part in value.split(",") if part.strip()}
    unknown = sorted(given - set(SURFACES))
    if unknown:
        raise click.BadParameter(f"unknown surface {unknown[0]!r} (expected asphalt, gravel or snow)", ctx, param)
    return tuple(s for s in SURFACES if s in given)


@click.command(context_settings=CONTEXT)
@click.argument("game", type=click.Choice(["rallytaire"]))
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="random seed (default: pick one and print it on standard error)")
@click.option("--stages", type=click.IntRange(1, 8), default=4, show_default=True, help="stages in the race")
@click.option("--length", type=LengthRange(), default="40..70", show_default=True, help="spaces per stage, MIN..MAX (2..300)")
@click.option(
    "--surface",
    "surface",
    multiple=True,
    callback=_surfaces,
    metavar="SURFACE[,SURFACE...]",
    help="surfaces the stages may have: asphalt, gravel, snow (default: all three, mixed)",
)
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard"]), default="medium", show_default=True, help="the band every stage must fall in (see README)")
@click.option("-o", "--output", "target", type=click.Path(path_type=str), default=None, help="spec file to write (default, or -: standard output)")
@click.option("--render", "pdf", type=click.Path(path_type=str), default=None, help="also write the race sheet PDF here")
@reports_errors
def generate(game: str, seed: int | None, stages: int, length: tuple[int, int], surface: tuple[str, ...], difficulty: str, target: str | None, pdf: str | None) -> None:
    """Generate a race: every stage valid, in the difficulty band and laid out on A4 and Letter.

    The spec starts with a comment naming the seed and options that rebuild it; the same seed
    and options give the same file, byte for byte. Nothing is written if anything fails.

    \b
    Example:
      sheetgen generate rallytaire --seed 7 --stages 3 --difficulty hard -o race.yaml --render race.pdf
    """
    import secrets

    from sheetgen.games.rallytaire.generate import generate_race, spec_text
    from sheetgen.output import write_files

    surfaces = surface
    if target == "-":
        target = None
    if pdf is not None and target is not None and os.path.abspath(pdf) == os.path.abspath(target):
        raise UsageError("-o and --render name the same file; give the PDF another name")
    if pdf == "-" and target is None:
        raise UsageError("--render - and the spec would both go to standard output; give the spec a file with -o")
    refuse_pdf_on_terminal(pdf, "--render FILE")
    if seed is None:
        seed = secrets.randbelow(10**9)
        click.echo(f"seed {seed} (rerun with --seed {seed} to get this race again)", err=True)
    race = generate_race(seed, stages=stages, length=length, surfaces=surfaces or None, difficulty=difficulty)
    options = [f"--seed {seed}", f"--stages {stages}", f"--length {length[0]}..{length[1]}"]
    if surfaces:
        options.append(f"--surface {','.join(surfaces)}")
    options.append(f"--difficulty {difficulty}")
    text = spec_text(race, f"sheetgen generate {game} " + " ".join(options))
    data = text.encode("utf-8")
    pdf_bytes = _render(data, target or "<stdout>") if pdf else None
    # everything is made before anything is written, and the files are written together:
    # both or neither (sheetgen.output); standard output comes last
    files = [(path, content) for path, content in ((target, data), (pdf, pdf_bytes)) if path not in (None, "-")]
    write_files(files)  # type: ignore[arg-type]
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    elif pdf == "-":
        sys.stdout.buffer.write(pdf_bytes)  # type: ignore[arg-type]
        sys.stdout.buffer.flush()


def _render(data: bytes, name: str) -> bytes:
    """The race sheet of the generated spec, loaded back from its bytes as any spec file is."""
    from sheetgen import registry
    from sheetgen.render import build_outputs
    from sheetgen.yamlsrc import load_bytes

    game = registry.game("rallytaire")
    doc = load_bytes(data, name)
    spec = registry.Spec(path=name, game=game, model=game.load(doc), sha256=doc.sha256)
    pdf, _pages = build_outputs(spec, template="race_sheet")  # the template the generator checked
    return pdf


COMMANDS = [generate]
