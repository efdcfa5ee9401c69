"""What every sheetgen command shares: help settings and turning errors into exit status 1.

Commands live in `sheetgen.cli` and, for larger features, in `sheetgen.commands.*` modules
that `sheetgen.cli` registers; all of them use these two pieces.
"""

from __future__ import annotations

import errno
import functools
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from sheetgen import registry
from sheetgen.errors import OptionError, SheetgenError, SpecError, printable_name

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: Options several commands share.
PAPER = click.option(
    "--paper", type=click.Choice(["a4", "letter"]), default=None, help="paper size (default: the template's, A4)"
)
INK = click.option(
    "--ink",
    type=click.Choice(["normal", "low"]),
    default="normal",
    show_default=True,
    help="low: no filled areas, thin lines",
)
FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
FORCE = click.option(
    "--force",
    is_flag=True,
    help="replace an output file that is write-protected (refused otherwise, as a shell refuses it)",
)


#: What a command says on standard error once everything it writes has been written (a
#: generator's warning about the file it made): said only when the command succeeds, so that a
#: failed command never speaks of a file it did not write. Emptied by the command that says them.
_WHEN_DONE: list[str] = []


def say_when_done(line: str) -> None:
    """Say `line` on standard error once the command has written everything (see _WHEN_DONE)."""
    _WHEN_DONE.append(line)


def said_when_done(keep: bool = True) -> None:
    """Say the lines kept by `say_when_done` (or, with keep False, drop them: the command failed)."""
    lines, _WHEN_DONE[:] = list(_WHEN_DONE), []
    if keep:
        for line in lines:
            click.echo(line, err=True)


def output(help: str, dest: str = "target", **more: Any) -> Callable:
    """`-o/--output` as every writing command spells it: a path (a file, a folder or -, as
    `help` says), default None unless `more` gives one."""
    more.setdefault("default", None)
    return click.option("-o", "--output", dest, type=click.Path(path_type=str), help=help, **more)


def jobs(help: str) -> Callable:
    """`--jobs N` (1 to 64): the worker processes of a command that runs some; None when not given."""
    return click.option("--jobs", type=click.IntRange(1, 64), default=None, help=help)


TEMPLATE = click.option(
    "--template",
    "template",
    default=None,
    help="built-in template name or a template file path (default: the game's own)",
)


class Terminated(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP, raised where the command is working (`on_terminate`): it
    unwinds as Ctrl-C does, so that worker processes end with the command and nothing is
    written; the command ends with status 128+N, as a shell reports a process the signal
    ended."""

    def __init__(self, signum: int):
        import signal

        super().__init__(signum)
        self.signum = signum
        self.name = "interrupted" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"


class _Working:
    """Whether a command is doing its work (inside `reports_errors`): a signal then unwinds
    it; before (the command line parsed, the modules imported) and after, there is nothing to
    undo, and the signal ends the process at once, as its default action does."""

    now = False


def _on_signal(signum: int, _frame) -> None:
    import signal

    # (worker processes being started; a module still being imported when the signal comes
    # has no `hold` yet, and starts no workers)
    hold = getattr(sys.modules.get("sheetgen.parallel"), "hold", None)
    if hold is not None and hold(signum):
        return
    if _Working.now:
        # the worker pool's threads, torn down half way, may fail as it unwinds (loky's
        # manager thread meets work items the command has just cancelled): the command is
        # ending, and says so in one line, not with their tracebacks
        import threading

        threading.excepthook = lambda _args: None
        raise Terminated(signum)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _raised_again(previous):
    """`sys.unraisablehook` that gives a `Terminated` raised where Python ignores exceptions (a
    weakref callback, a __del__: it printed "Exception ignored" and the command ran on to exit
    0) its signal back a moment later, from another thread, so that it is raised again where
    the command can unwind (sent from here, it would be handled here, and ignored again)."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, Terminated):
            import threading

            again = threading.Timer(0.01, os.kill, (os.getpid(), unraisable.exc_value.signum))
            again.daemon = True
            again.start()
            return
        previous(unraisable)

    return hook


def on_terminate() -> None:
    """Ctrl-C (SIGINT), SIGTERM and SIGHUP end this (the main) process with status 128+N: while
    a command works, as `Terminated`, so that one that runs worker processes (build,
    calendar) ends them and writes nothing, instead of leaving them running for minutes and
    holding its pipes; before and after its work, at once. A signal the process was started
    ignoring (nohup, a background job) stays ignored."""
    import signal

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler, None):
            signal.signal(number, _on_signal)
    sys.unraisablehook = _raised_again(sys.unraisablehook)


def _fail(lines: list[str]) -> None:
    for line in lines:
        click.echo(line, err=True)
    sys.exit(1)


def _released(command, *args, **kwargs):
    """Run a command; the named pipes it opened before its work and did not write are
    closed when it ends (`sheetgen.output.release`)."""
    try:
        return command(*args, **kwargs)
    finally:
        if "sheetgen.output" in sys.modules:
            sys.modules["sheetgen.output"].release()


def reports_errors(command):
    """Turn sheetgen's own errors into one stderr line each and exit 1, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            _Working.now = True
            try:
                return _released(command, *args, **kwargs)
            finally:  # the work is over: a signal from here on ends the process at once
                _Working.now = False
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
        except Terminated as exc:  # SIGINT, SIGTERM, SIGHUP: the workers are gone with the command
            click.echo(f"sheetgen: {exc.name}; nothing written", err=True)
            sys.exit(128 + exc.signum)
        except KeyboardInterrupt:  # (Ctrl-C where `on_terminate` is not in place: a library's caller)
            click.echo("sheetgen: interrupted; nothing written", err=True)
            sys.exit(130)
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


def refuse_pdf_on_terminal(target: str | None, option: str = "-o FILE", what: str = "a PDF") -> None:
    """A PDF (or a PNG: `what`) on a terminal is only noise: refuse `-` there, and a file that
    is a terminal (`-o /dev/stdout`, `-o /dev/tty`); a command calls this early, before its
    work, and `write_pdf` once more."""
    if target == "-" and stdout_bytes().isatty() or target not in (None, "-") and _is_terminal(target):
        suffix = "png" if what == "a PNG" else "pdf"
        raise SheetgenError(f"refusing to write {what} to a terminal; redirect it (> file.{suffix}) or give {option}")


def _is_terminal(path: str) -> bool:
    """Whether `path` names a terminal (a character device that is a tty), without waiting on
    it or taking it as a controlling terminal."""
    import stat

    try:
        if not stat.S_ISCHR(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


CLOSED = "cannot write to standard output: it is closed"


class _ClosedOutput(io.BufferedIOBase):
    """The standard output of a command started without one (`>&-`): a write fails as one to
    a closed descriptor does, with sheetgen's message; a flush of nothing succeeds."""

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise OSError(errno.EBADF, CLOSED)


def attach_closed_streams() -> None:
    """A process started with standard output or error closed (`>&-`, `2>&-`) has None for
    `sys.stdout` or `sys.stderr`: click dropped what a command printed there (its report lost,
    exit status 0), and starting worker processes (loky flushes both) failed with an internal
    error. Standard output becomes a stream that fails when written, as `echo hi >&-` does (a
    report that cannot be printed fails the command before any file is written, as on a full
    disk); standard error one that drops what it is given (there is nowhere to say it).

    The closed descriptors themselves are held too (0 and 1 by /dev/null opened for reading,
    so that a write to 1 fails as to a closed one; 2 by /dev/null for writing): left free, the
    first pipe the process makes takes the lowest, and worker processes started later inherit
    it as their standard output (a fuzz finding: `build --jobs 2 >&-` hung one time in six, the
    worker pool's pipe sitting on descriptor 1)."""
    for fd, flags in ((0, os.O_RDONLY), (1, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, flags)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = io.TextIOWrapper(_ClosedOutput(), encoding="utf-8", write_through=True)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # (the process's own stream)


def stdout_bytes():
    """Standard output's binary stream; a command started with it closed (`>&-`) is told so."""
    if sys.stdout is None or isinstance(getattr(sys.stdout, "buffer", None), _ClosedOutput):
        from sheetgen.errors import OutputError

        raise OutputError(CLOSED)
    return sys.stdout.buffer


def write_pdf(target: str, data: bytes, *, inputs: tuple[str, ...] = (), force: bool = False, announce=None) -> None:
    """Write a PDF to `target` atomically, or to standard output for ``-`` (refused on a
    terminal). `inputs` are never overwritten; `announce`: what the command prints, printed
    before the file is put in place (nothing is written when that fails; see
    `sheetgen.output.write_files`)."""
    from sheetgen.output import write_atomic

    refuse_pdf_on_terminal(target)
    if target == "-":
        out = stdout_bytes()
        out.write(data)
        out.flush()
        if announce is not None:
            announce()
    elif announce is not None:
        from sheetgen.output import write_files

        write_files([(target, data)], inputs=inputs, force=force, announce=announce)
    else:
        write_atomic(target, data, inputs=inputs, force=force)


def spec_files(specs: tuple[str, ...] | list[str]) -> list[str]:
    """The spec files a command is given, a folder standing for every `.yaml` or `.yml` file
    under it (in any case, sorted), each file once: one named twice, or given and also found
    in a folder given, counts once."""
    from pathlib import Path

    files: list[str] = []
    seen: set[str] = set()
    for spec in specs:
        found = (
            sorted(str(p) for p in Path(spec).rglob("*") if p.suffix.lower() in (".yaml", ".yml") and p.is_file())
            if os.path.isdir(spec)
            else [spec]
        )
        for path in found:
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                files.append(path)
    return files


def refuse_stdout_folder(out_dir: str) -> None:
    """`-o -` means standard output elsewhere; a command that writes a folder of files says so
    (and an empty name is no folder: not the current one, nor the root)."""
    if not out_dir:
        from sheetgen.errors import OutputError

        raise OutputError("cannot write into a folder with an empty name; give the folder (-o output)")
    if out_dir == "-":
        raise OptionError("-o names a folder here (several files are written); standard output (-) cannot hold them")


# -- options the games declare ---------------------------------------------------------------


def _declared(command: str) -> dict[str, list[tuple[registry.Game, registry.Option]]]:
    """Per option name, the games that declare it for `command` (in the registry's order)."""
    found: dict[str, list[tuple[registry.Game, registry.Option]]] = {}
    for game in registry.games():
        for option in game.takes(command):
            found.setdefault(option.name, []).append((game, option))
    return found


def _parsed(parse: Callable[[Any], Any]):
    """A click callback giving an option's `parse` value, a ValueError as click's usage error."""

    def callback(ctx, param, value):
        if value is None or value == ():
            return None
        try:
            return parse(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None

    return callback


def _parsed_per_game(pairs: list[tuple[registry.Game, registry.Option]]) -> bool:
    """Whether games declare one option name with parsers of their own (each game's parses
    the text given, in `option_values`, once the spec's game is known)."""
    return len({o.parse for _g, o in pairs}) > 1


def _click_option(name: str, pairs: list[tuple[registry.Game, registry.Option]]) -> click.Option:
    first = pairs[0][1]

    def shape(o: registry.Option) -> tuple[bool, bool, bool, bool, bool]:
        return (bool(o.choices), o.between is not None, o.parse is not None, o.multiple, o.flag)

    if any(shape(o) != shape(first) for _g, o in pairs):
        raise RuntimeError(f"games declare --{name} differently: {', '.join(g.name for g, _o in pairs)}")
    help_text = "; ".join(f"{g.title}: {o.help}" for g, o in pairs)
    kwargs: dict = {"default": None, "help": help_text, "multiple": first.multiple}
    if first.choices:
        kwargs["type"] = click.Choice(list(dict.fromkeys(c for _g, o in pairs for c in o.choices)))
    elif first.between is not None:
        ranges = [o.between for _g, o in pairs if o.between is not None]  # (every one: the shapes agree)
        kwargs["type"] = click.IntRange(min(lo for lo, _hi in ranges), max(hi for _lo, hi in ranges))
    elif first.parse is not None and not _parsed_per_game(pairs):
        kwargs["callback"] = _parsed(first.parse)
    elif first.flag:
        kwargs["is_flag"] = True
    if first.metavar:
        kwargs["metavar"] = first.metavar
    return click.Option([f"--{name}", first.key], **kwargs)


class GameCommand(click.Command):
    """A command that also takes the options the registered games declare for it (`Game.options`),
    read from the registry when the command runs or shows its help, so that a game registered
    after start-up (a plug-in, a test's stub) brings its options along. They stand before the
    option named `before` (or last); each defaults to None, and the spec's game fills in its own."""

    def __init__(self, *args, game_command: str, before: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.game_command = game_command
        self.before = before

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        declared = [_click_option(name, pairs) for name, pairs in _declared(self.game_command).items()]
        at = next((i for i, p in enumerate(params) if p.name == self.before), len(self.params))
        return params[:at] + declared + params[at:]


class GameName(click.ParamType):
    """A registered game's name (or its spelling with dashes), optionally only games that have
    `attribute` (a generator, tables, a time table): read from the registry when used."""

    name = "game"

    def __init__(self, attribute: str | None = None):
        self.attribute = attribute

    def choices(self) -> list[str]:
        having = {g.name for g in registry.games() if self.attribute is None or getattr(g, self.attribute) is not None}
        return [name for name in registry.spellings() if name.replace("-", "_") in having]

    def get_metavar(self, param, ctx=None) -> str:
        return "{" + "|".join(self.choices()) + "}"

    def convert(self, value, param, ctx):
        choices = self.choices()
        if value not in choices:
            self.fail(f"{value!r} is not one of {', '.join(map(repr, choices))}.", param, ctx)
        return value


def option_values(command: str, game: registry.Game, given: dict, spec: str | None = None) -> dict:
    """The options `game` runs `command` with: an option given that it does not take is a usage
    error naming the games that do (exit 2). `spec`: the spec file the command was given."""
    mine = {o.key for o in game.takes(command)}
    for key, value in given.items():
        if value is not None and key not in mine:
            takers = [g.title for g, _o in _declared(command).get(key.replace("_", "-"), [])]
            why = f"{spec} is a {game.title} spec" if spec else f"{game.title} does not take it"
            raise OptionError(f"--{key.replace('_', '-')} is for {' and '.join(takers)}; {why}")
    declared = _declared(command)
    parsed = dict(given)
    for option in game.takes(command):
        value = given.get(option.key)
        if value is None or option.parse is None or not _parsed_per_game(declared.get(option.name, [])):
            continue
        try:
            parsed[option.key] = option.parse(value)
        except ValueError as exc:  # as click words a callback's refusal
            raise OptionError(f"Invalid value for '--{option.name}': {exc}") from None
    return game.option_values(command, parsed)


def echo_report(report: registry.Report, fmt: str, *, indent: int | None = 2) -> None:
    if fmt == "json":
        click.echo(json.dumps(report.data, indent=indent))
    elif fmt == "csv":
        click.echo(report.csv)
    else:
        click.echo(report.text.rstrip("\n"))
