"""`python -m sheetgen`, and the installed `sheetgen` command (`main`)."""

# Ctrl-C ends the process at once until the command's own handling of signals is in place
# (`sheetgen.cliutil.on_terminate`): nothing is done yet to undo, and a KeyboardInterrupt while
# the command line's modules were imported printed a traceback. Set first, through the C
# module `_signal` (the `signal` module builds its enums on import, several milliseconds in
# which a Ctrl-C still printed a traceback: a fuzz finding, SIGINT 0.05 s after the start).
import _signal  # type: ignore[import-not-found]  # (no stub: the C module behind `signal`)

if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)


def main() -> None:
    """Run the command line (Ctrl-C's default action is set above, when this module is
    imported, before the command line's modules are)."""
    from sheetgen.cli import run

    run()


if __name__ == "__main__":
    main()
