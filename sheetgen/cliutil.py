"""What every sheetgen command shares: help settings and turning errors into exit status 1.

Commands live in `sheetgen.cli` and, for larger features, in `sheetgen.commands.*` modules
that `sheetgen.cli` registers; all of them use these two pieces.
"""

from __future__ import annotations

import functools
import os
import sys

import click

from sheetgen.errors import OptionError, SheetgenError, SpecError, printable_name

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: Options several commands share.
PAPER = click.option("--paper", type=click.Choice(["a4", "letter"]), default=None, help="paper size (default: the template's, A4)")
INK = click.option("--ink", type=click.Choice(["normal", "low"]), default="normal", show_default=True, help="low: no filled areas, thin lines")
FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
TEMPLATE = click.option(
    "--template", "template", default=None, help="built-in template name or a template file path (default: the game's own)"
)


def _fail(lines: list[str]) -> None:
    for line in lines:
        click.echo(line, err=True)
    sys.exit(1)


def reports_errors(command):
    """Turn sheetgen's own errors into one stderr line each and exit 1, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except OptionError as exc:  # a usage mistake: click's own report and exit status 2
            raise click.UsageError(str(exc), click.get_current_context(silent=True)) from None
        except SpecError as exc:
            _fail([str(p) for p in exc.problems])
        except SheetgenError as exc:
            # a file name in the message (an output path) may hold a newline: escaped, one line
            _fail([f"sheetgen: error: {printable_name(str(exc))}"])
        except BrokenPipeError:
            # the reader went away (e.g. `| head`); stop quietly like other Unix tools
            sys.stderr.close()
            os._exit(1)
        except KeyboardInterrupt:
            _fail(["sheetgen: interrupted; nothing written"])
        except OSError as exc:  # the machine's doing (a full disk under standard output, ...)
            where = f" ({exc.filename})" if exc.filename else ""
            _fail([f"sheetgen: error: {printable_name(str(exc.strerror or exc) + where)}"])
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # a bug in sheetgen: still no traceback for the user
            if os.environ.get("SHEETGEN_DEBUG"):
                raise
            _fail([f"sheetgen: internal error: {type(exc).__name__}: {exc} (set SHEETGEN_DEBUG=1 for details)"])

    return wrapper




def refuse_pdf_on_terminal(target: str | None, option: str = "-o FILE") -> None:
    """A PDF on a terminal is only noise: refuse `-` there (a command calls this early, before
    its work, and `write_pdf` once more)."""
    if target == "-" and sys.stdout.buffer.isatty():
        raise SheetgenError(f"refusing to write a PDF to a terminal; redirect it (> file.pdf) or give {option}")


def write_pdf(target: str, data: bytes, *, inputs: tuple[str, ...] = ()) -> None:
    """Write a PDF to `target` atomically, or to standard output for ``-`` (refused on a
    terminal). `inputs` are never overwritten."""
    from sheetgen.output import write_atomic

    refuse_pdf_on_terminal(target)
    if target == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(target, data, inputs=inputs)


def refuse_stdout_folder(out_dir: str) -> None:
    """`-o -` means standard output elsewhere; a command that writes a folder of files says so."""
    if out_dir == "-":
        from sheetgen.errors import UsageError

        raise UsageError("-o names a folder here (several files are written); standard output (-) cannot hold them")
