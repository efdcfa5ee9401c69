"""`python -m sheetgen`, and the installed `sheetgen` command (`main`)."""

import signal


def main() -> None:
    """Run the command line. Until the command's own handling of signals is in place
    (`sheetgen.cliutil.on_terminate`), Ctrl-C ends the process at once, as SIGTERM does:
    nothing is done yet to undo, and a KeyboardInterrupt while the command line's modules were
    imported printed a traceback."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    from sheetgen.cli import run

    run()


if __name__ == "__main__":
    main()
