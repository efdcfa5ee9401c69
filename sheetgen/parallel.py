"""One parallel interface for batch work: building many specs, a calendar's finishability
checks, generator sweeps.

`run(function, items, jobs)` is `[function(item) for item in items]`, in order, spread over
up to `jobs` worker processes with joblib. Results never depend on `jobs`, only the time does.
The backend is joblib's: processes (loky) by default; a Dask or Ray cluster is a configuration,
not a code change: wrap the call in ``joblib.parallel_config(backend="dask")`` (after
``dask.distributed.Client(...)``, or ``ray.util.joblib.register_ray()`` for "ray"), or, for the
command line, set ``SHEETGEN_PARALLEL_BACKEND`` (and for "dask" ``SHEETGEN_DASK_SCHEDULER``,
the scheduler's address: the command connects a client to it; "ray" connects where
``RAY_ADDRESS`` says, as Ray does). A backend name or address that does not work is a usage
error naming the setting (exit 2). Neither Dask nor Ray is a dependency of sheetgen.

Safe from any process: a daemonic worker (a library user's `multiprocessing.Pool`, a batch
job) may not start processes of its own, so there the work runs in the calling process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: the environment variable naming a joblib backend for the command line ("loky",
#: "multiprocessing", "threading", or one a cluster registered: "dask", "ray")
BACKEND_VARIABLE = "SHEETGEN_PARALLEL_BACKEND"
#: the worker processes of a command not given --jobs (default: every CPU this process may use)
JOBS_VARIABLE = "SHEETGEN_JOBS"
#: the address of the Dask scheduler the command line connects to (tcp://host:8786)
SCHEDULER_VARIABLE = "SHEETGEN_DASK_SCHEDULER"
#: the backends the command line may name
BACKENDS = ("loky", "multiprocessing", "threading", "dask", "ray")


def _setting_error(message: str):
    from sheetgen.errors import OptionError

    return OptionError(message)


@contextlib.contextmanager
def _backend(name: str | None):
    """joblib's configuration for the backend the command line names (None: the default)."""
    from joblib import parallel_config

    if name is None:
        yield
        return
    check_backend()
    if name == "dask":
        address = os.environ[SCHEDULER_VARIABLE]
        try:
            from dask.distributed import Client
        except ImportError:
            raise _setting_error(
                f"{BACKEND_VARIABLE}=dask needs Dask's distributed scheduler installed "
                "(pip install 'dask[distributed]')"
            ) from None
        try:
            client = Client(address, timeout="10s", set_as_default=True)
        except (OSError, TimeoutError, ValueError) as exc:
            raise _setting_error(f"{SCHEDULER_VARIABLE}={address!r}: no Dask scheduler answers there ({exc})") from None
        try:
            with parallel_config(backend="dask"):
                yield
        finally:
            client.close()
        return
    if name == "ray":
        try:
            from ray.util.joblib import register_ray
        except ImportError:
            raise _setting_error(f"{BACKEND_VARIABLE}=ray needs Ray installed (pip install ray)") from None
        register_ray()
    with parallel_config(backend=name):
        yield


def check_backend() -> None:
    """Refuse a backend setting that names no backend (or Dask without its scheduler) before
    any work, even work that needs no worker (a build whose specs are all kept)."""
    name = os.environ.get(BACKEND_VARIABLE) or None
    if name is not None and name not in BACKENDS:
        raise _setting_error(
            f"{BACKEND_VARIABLE}={name!r} is not a backend sheetgen knows; use one of: {', '.join(BACKENDS)}"
        )
    if name == "dask" and not os.environ.get(SCHEDULER_VARIABLE):
        raise _setting_error(
            f"{BACKEND_VARIABLE}=dask needs {SCHEDULER_VARIABLE}, the address of a running Dask scheduler (tcp://host:8786)"
        )


def default_jobs() -> int:
    """SHEETGEN_JOBS when set (1 to 64: a shared machine's or a CI's share), else the CPUs this
    process may use (its affinity where the system tells it)."""
    given = os.environ.get(JOBS_VARIABLE, "").strip()
    if given:
        if not given.isdigit() or not 1 <= int(given) <= 64:
            raise _setting_error(f"{JOBS_VARIABLE}={given!r} is not a number of processes from 1 to 64")
        return int(given)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _Held:
    """Signals that came while worker processes were started, handled once they have been."""

    starting = 0
    signals: list[int] = []


def hold(signum: int) -> bool:
    """Whether signal `signum` waits, worker processes being started (the command line's
    handler asks, `sheetgen.cliutil.on_terminate`): it is handled once they are."""
    if not _Held.starting:
        return False
    _Held.signals.append(signum)
    return True


_QUIET_TRACKER = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


@contextlib.contextmanager
def _starting_workers():
    """While the worker processes start: Ctrl-C, SIGTERM and SIGHUP wait (`hold`: raised half
    way, one cut a worker's launch data short, and one in a thread's start left a thread that
    the clean-up could not join, an internal error), and the workers get no standard output
    of the command's (loky's worker prints its traceback there when the command ends while
    it starts: into a PDF streamed with -o -, a report, a terminal; the command's output is
    its own). (A signal mask would not do: Python runs its handlers in the main thread
    whichever thread the signal came to, a library's native thread included.)"""
    _Held.starting += 1
    # loky's resource tracker, a process started with the first workers, writes to the
    # command's standard error at its end: "leaked semlock objects" when the command was
    # interrupted; it starts with its warnings off (it takes this process's -W options)
    sys.warnoptions.append(_QUIET_TRACKER)
    kept = None
    try:
        try:
            kept = os.dup(1)
        except OSError:  # (no standard output: the workers have none either)
            kept = None
        if kept is not None:
            if sys.stdout is not None:
                with contextlib.suppress(OSError, ValueError):
                    sys.stdout.flush()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
        yield
    finally:
        if kept is not None:
            os.dup2(kept, 1)
            os.close(kept)
        sys.warnoptions.remove(_QUIET_TRACKER)
        _Held.starting -= 1
        if not _Held.starting and _Held.signals:
            signum = _Held.signals[0]
            _Held.signals.clear()
            os.kill(os.getpid(), signum)  # handled now, as it would have been


def can_start_processes() -> bool:
    return not multiprocessing.current_process().daemon


def run(function: Callable[[T], R], items: Sequence[T], jobs: int | None = None) -> list[R]:
    """`function` of every item, in the items' order, on up to `jobs` processes (default: every
    CPU). `function` must be importable by the workers (a module-level function, or a
    functools.partial of one)."""
    return list(imap(function, items, jobs))


def imap(function: Callable[[T], R], items: Sequence[T], jobs: int | None = None) -> Iterator[R]:
    """As `run`, yielding each result as soon as it and the ones before it are done."""
    items = list(items)
    jobs = default_jobs() if jobs is None else jobs
    if jobs <= 1 or len(items) <= 1 or not can_start_processes():
        yield from (function(item) for item in items)
        return
    from joblib import Parallel, delayed

    with _backend(os.environ.get(BACKEND_VARIABLE) or None):
        try:
            runner = Parallel(n_jobs=min(jobs, len(items)), return_as="generator")
        except ValueError:  # a backend that gives no results as they come (joblib's "multiprocessing")
            runner = Parallel(n_jobs=min(jobs, len(items)), return_as="list")
            yield from runner(delayed(function)(item) for item in items)
        else:
            results = None
            try:
                with _starting_workers():  # (the call starts the workers and hands them the first items)
                    results = runner(delayed(function)(item) for item in items)
                for result in results:  # noqa: UP028 (not `yield from`: closing this must not close it unwarned)
                    yield result
            finally:
                if results is not None:
                    with warnings.catch_warnings():
                        # stopped before the end (interrupted, or a result the caller could not
                        # take): the tasks left are cancelled, as they should be; joblib's
                        # warning takes it for a generator dropped by mistake
                        warnings.simplefilter("ignore")
                        results.close()
    if (os.environ.get(BACKEND_VARIABLE) or "loky") == "loky":
        # joblib keeps its worker processes for reuse, idle for minutes after the command has
        # ended, holding its pipes (a `| tee` waits for them): they end with the work
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
