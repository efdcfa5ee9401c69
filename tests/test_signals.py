"""A signal ends a command with 128+N, as a shell reports it: while the command works, it
unwinds (its worker processes end, nothing is written, one line says so: see
tests/test_parallel.py); before its work, at once and silently. Found by the fuzz harness's
signal cases (tests/fuzz/process.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import ROOT, VALID

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc") or not hasattr(signal, "SIGHUP"), reason="POSIX signals and /proc")


def _catches(pid: int, signum: int) -> bool | None:
    """Whether process `pid` has a handler for `signum` (its SigCgt mask), None when gone."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            text = handle.read()
    except OSError:
        return None
    found = re.search(r"^SigCgt:\s*([0-9a-f]+)", text, re.M)
    return bool(found and int(found.group(1), 16) >> (signum - 1) & 1)


def _started(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"sheetgen" in handle.read()
    except OSError:
        return False


def test_ctrl_c_while_the_command_line_is_imported_ends_it_without_a_traceback(tmp_path):
    """Ctrl-C in the first half second (the command line's modules being imported, Python's
    own KeyboardInterrupt in place) printed a traceback; sheetgen's entry lets SIGINT end the
    process at once until the command's own handling is in place."""
    (tmp_path / "race.yaml").write_text(VALID, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sheetgen", "validate", "race.yaml"], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (as a shell starts it)
    )
    # Python catches SIGINT from its start; the entry lets it go while the command line is
    # imported (then `on_terminate` catches it again)
    phases = []
    for _ in range(20_000):
        if _started(proc.pid):
            caught = _catches(proc.pid, signal.SIGINT)
            if caught is None or (caught is False and True in phases):
                break
            phases.append(caught)
        time.sleep(0.0005)
    assert True in phases and _catches(proc.pid, signal.SIGINT) is False
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (-signal.SIGINT, b"", b"")


def test_a_signal_python_ignores_where_it_is_raised_still_ends_the_command(tmp_path):
    """SIGTERM handled inside a weakref callback (the import machinery runs them) raised
    `Terminated` where Python ignores exceptions: "Exception ignored", and the command ran on
    to exit 0. The signal comes back a moment later, where the command unwinds."""
    script = textwrap.dedent(
        """
        import os, signal, time, weakref
        from sheetgen import cliutil

        cliutil.on_terminate()

        class Held:
            pass

        def dropped(_ref):  # what a weakref callback raises, Python ignores
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # (the handler runs in here)
                pass

        @cliutil.reports_errors
        def command():
            global held
            ref = weakref.ref(held, dropped)
            del held
            until = time.monotonic() + 5  # (work that goes on longer than the signal takes to come back)
            while time.monotonic() < until:
                pass
            print("finished", ref() is None)

        held = Held()
        command()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (143, b"", b"sheetgen: terminated by SIGTERM; nothing written\n")


def test_a_signal_after_the_work_ends_the_process_at_once(tmp_path):
    """Outside a command's work there is nothing to unwind: the signal's own action, no line
    (click printed "Aborted!" and exited 1)."""
    script = textwrap.dedent(
        """
        import os, signal
        from sheetgen import cliutil

        cliutil.on_terminate()

        @cliutil.reports_errors
        def command():
            print("done", flush=True)

        command()
        os.kill(os.getpid(), signal.SIGHUP)
        print("not reached")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (-signal.SIGHUP, b"done\n", b"")


def test_a_thread_that_fails_as_the_interrupted_command_unwinds_prints_nothing(tmp_path):
    """Ctrl-C just as a build's workers started ended with loky's manager thread's traceback
    (KeyError: a work item the command had just cancelled) before the command's one line (the
    fuzz harness): once a signal ends the command, the threads torn down with it say nothing."""
    script = textwrap.dedent(
        """
        import os, signal, threading
        from sheetgen import cliutil

        cliutil.on_terminate()
        torn_down = threading.Event()

        def pool_thread():
            torn_down.wait()
            raise KeyError(1)

        thread = threading.Thread(target=pool_thread)
        thread.start()

        @cliutil.reports_errors
        def command():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(10**6):
                    pass
            finally:
                torn_down.set()
                thread.join()

        command()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (143, b"sheetgen: terminated by SIGTERM; nothing written\n")


def test_a_signal_while_the_worker_module_is_being_imported_ends_the_command(tmp_path):
    """A fuzz finding: SIGTERM 0.42 s into `calendar --jobs 2` came while sheetgen.parallel
    was being imported, and the handler's look at its `hold` (workers being started) raised
    "internal error: AttributeError: partially initialized module 'sheetgen.parallel' has no
    attribute 'hold'". A module without its `hold` yet starts no workers: the command ends as
    any other does (exit 143, one line)."""
    script = textwrap.dedent(
        """
        import os, signal, sys, types
        from sheetgen import cliutil

        cliutil.on_terminate()
        sys.modules["sheetgen.parallel"] = types.ModuleType("sheetgen.parallel")  # half imported

        @cliutil.reports_errors
        def command():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10**6):
                pass

        command()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (143, b"sheetgen: terminated by SIGTERM; nothing written\n")


def test_the_entry_lets_ctrl_c_go_before_it_imports_anything():
    """A fuzz finding: SIGINT 0.05 s after the start printed a KeyboardInterrupt traceback from
    the `signal` module's import (it builds its enums). The entry module sets Ctrl-C's default
    action through the C module `_signal` first, before `signal` or anything of sheetgen's
    command line is imported; what is left is Python's own start-up, before any of sheetgen's
    code runs."""
    code = (
        "import sys, _signal\n"
        "assert _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler\n"
        "before = set(sys.modules)\n"
        "import sheetgen.__main__\n"
        "print(_signal.getsignal(_signal.SIGINT) == _signal.SIG_DFL, sorted(set(sys.modules) - before))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "True ['sheetgen', 'sheetgen.__main__']"
