"""Batch work goes through one parallel interface (sheetgen.parallel, joblib): results in
order, the same for any number of processes, and safe from a process that may not start
processes of its own."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, SPECS
from procs import in_group
from sheetgen import parallel


def square(x: int) -> int:
    return x * x


def slow_square(x: int) -> int:
    time.sleep(0.3)
    return x * x


def test_results_in_order_for_any_number_of_processes():
    items = list(range(23))
    expected = [x * x for x in items]
    assert parallel.run(square, items, jobs=1) == expected
    assert parallel.run(square, items, jobs=2) == expected
    assert list(parallel.imap(square, items, jobs=2)) == expected


@pytest.mark.slow  # three backends started (3 s); loky, the default, is checked in the default suite
def test_every_named_backend_gives_the_results_in_order(monkeypatch):
    """The backends the command line may name (SHEETGEN_PARALLEL_BACKEND): joblib's
    "multiprocessing" gives no results as they come, so its results come at the end."""
    items = list(range(9))
    for backend in ("loky", "multiprocessing", "threading"):
        monkeypatch.setenv(parallel.BACKEND_VARIABLE, backend)
        assert list(parallel.imap(square, items, jobs=2)) == [x * x for x in items], backend


def _in_a_daemon(_ignored: int) -> list[int]:
    # a multiprocessing.Pool worker is daemonic: it may not have children of its own
    return parallel.run(square, [1, 2, 3], jobs=2)


def test_safe_from_a_daemonic_worker():
    assert parallel.can_start_processes()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.map(_in_a_daemon, [0]) == [[1, 4, 9]]


def test_build_is_byte_identical_for_any_jobs(run, tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS / "rallytaire", specs / "rallytaire")
    (specs / "rally_risk").mkdir()
    for name in ("sections.yaml", "montecarlo_1.yaml", "championship.yaml"):
        shutil.copy(SPECS / "rally_risk" / name, specs / "rally_risk" / name)
    # the race's calendar (championship.yaml) is read, not printed: its build takes seconds
    files = [str(specs / "rallytaire"), str(specs / "rally_risk" / "sections.yaml"), str(specs / "rally_risk" / "montecarlo_1.yaml")]
    one = run("build", *files, "-o", str(tmp_path / "one"), "--jobs", "1", "-q")
    two = run("build", *files, "-o", str(tmp_path / "two"), "--jobs", "2", "-q")
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert one.stdout.replace("/one/", "/two/") == two.stdout
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir()) and len(names) == 5
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_spec_error_crosses_from_a_worker_as_itself():
    import pickle

    from sheetgen.errors import MAX_SHOWN, Location, Problem, SpecError

    problems = [Problem(Location("a.yaml", n, 1), f"problem {n}") for n in range(1, MAX_SHOWN + 3)]
    back = pickle.loads(pickle.dumps(SpecError(problems)))
    assert type(back) is SpecError
    assert back.problems == SpecError(problems).problems
    assert str(back.problems[-1]) == f"a.yaml:1:1: error: and 2 more problems (only the first {MAX_SHOWN} of this file are listed)"


def test_build_reports_a_refusal_found_after_the_load_with_any_jobs(run, tmp_path):
    """A calendar that loads but cannot be built, beside a spec that can: its located lines,
    exit 1, nothing written, for one process or two (not a broken process pool)."""
    shutil.copy(SPECS / "rally_risk" / "sections.yaml", tmp_path / "sections.yaml")
    calendar = tmp_path / "wet.yaml"
    calendar.write_text(
        "game: rally_risk\nkind: calendar\nname: Wet\nlibrary: sections.yaml\nrallies:\n"
        "  - {id: wet, name: Wet, zone: EC, races: [6], limits: {min_fords: 6}}\n"
    )
    expected = (
        f"{calendar}:6:68: error: rally 'wet' asks for at least 6 fords per race, but its race 1 has 6 sections, and the first must be a factor-0 section, which no ford is\n"
        f"{calendar}:6:68: error: rally 'wet' asks for at least 6 fords per race, but the library holds 4 ford sections: 'ford' (2 copies), 'ford_bend', 'wadi'\n"
    )
    for jobs in ("1", "2"):
        result = run("build", str(calendar), str(tmp_path / "sections.yaml"), "-o", str(tmp_path / "out"), "--jobs", jobs, "-q")
        assert (result.exit_code, result.stderr, result.stdout) == (1, expected, ""), jobs
        assert not (tmp_path / "out").exists()


def test_build_reports_a_bad_template_file_once_with_any_jobs(run, tmp_path):
    template = tmp_path / "typo.yaml"
    template.write_text("kind: race_sheet\npaper: a4\n")
    files = [str(SPECS / "rallytaire" / "acropolis.yaml"), str(SPECS / "rallytaire" / "monte_carlo.yaml")]
    for jobs in ("1", "2"):
        result = run("build", *files, "--template", str(template), "-o", str(tmp_path / "out"), "--jobs", jobs, "-q")
        assert result.exit_code == 1, result.output
        assert result.stderr.splitlines()[0] == f"{template}:1:1: error: missing required key 'font_size' in the spec"
        assert "internal error" not in result.stderr and len(set(result.stderr.splitlines())) == len(result.stderr.splitlines())
        assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or not os.path.isdir("/proc"), reason="POSIX signals and /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_terminated_build_takes_its_worker_processes_with_it(tmp_path, signum):
    """`kill` of `build --jobs 2` left the loky workers and their resource tracker running for
    minutes, holding the command's pipes (a `| tee` waited for them); they end with it now, as
    on Ctrl-C, and nothing is written. Ctrl-C ends it with 130 (128 + SIGINT), as a shell
    reports it (it was 1)."""
    specs = [str(p) for p in sorted((SPECS / "rallytaire").glob("*.yaml"))]
    env = {**os.environ, "SHEETGEN_CACHE": "off"}  # (solving keeps the workers busy)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sheetgen", "build", *specs, "-o", str(tmp_path / "out"), "--jobs", "2", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (as a shell starts it)
    )

    def group() -> list[int]:
        return in_group(proc.pid)

    for _ in range(600):  # until the workers run (at most a minute)
        if len(group()) >= 3 or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert proc.poll() is None and len(group()) >= 3, "the build ended before its workers were seen"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)  # (the pipes close: no worker holds them)
    assert proc.returncode == 128 + signum
    assert out == b""  # (a worker stopped while it started printed loky's traceback here)
    said = "interrupted" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"
    assert err.decode().endswith(f"sheetgen: {said}; nothing written\n")
    for _ in range(100):
        if not group():
            break
        time.sleep(0.1)
    assert group() == []
    assert not (tmp_path / "out").exists()


def test_workers_start_with_signals_held_and_without_the_command_s_standard_output(tmp_path):
    """A build stopped while its loky workers started printed a worker's traceback on the
    command's standard output (EOFError: its launch data cut short), or ended in an internal
    error (a thread whose start the signal cut short could not be joined) (the fuzz harness's
    signal cases): while workers start, a signal waits, and standard output is not theirs."""
    script = (
        "import os, signal, sys\n"
        "from sheetgen import cliutil, parallel\n"
        "cliutil.on_terminate()\n"
        "@cliutil.reports_errors\n"
        "def command():\n"
        "    with parallel._starting_workers():\n"
        "        os.write(1, b'a worker would print this\\n')\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        for _ in range(1000):  # (the handler runs in here)\n"
        "            pass\n"
        "        print('held', file=sys.stderr, flush=True)\n"
        "    print('not reached', flush=True)\n"
        "command()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout, done.stderr) == (143, b"", b"held\nsheetgen: terminated by SIGTERM; nothing written\n")


def test_the_resource_tracker_started_with_the_workers_writes_nothing(tmp_path):
    """An interrupted build's loky resource tracker (a process of its own, on the command's
    standard error) warned of "leaked semlock objects" after the command's last line (the fuzz
    corpus's interrupted build, 1 run in 40): it starts with its warnings off."""
    script = (
        "from joblib.externals.loky.backend import resource_tracker\n"
        "from sheetgen import parallel\n"
        "with parallel._starting_workers():\n"
        "    resource_tracker.ensure_running()\n"
        "resource_tracker.register('/sheetgen-test-left-behind', 'semlock')  # (as an interrupted pool leaves it)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_a_caller_that_stops_early_cancels_the_rest_without_a_warning(recwarn):
    """A command stopped between two results (Ctrl-C, or a result it could not take) dropped
    joblib's generator, which warned after the command's last line that tasks "have been
    cancelled" as if by mistake; the rest is cancelled quietly."""
    results = parallel.imap(slow_square, list(range(8)), jobs=2)
    assert next(results) == 0
    results.close()
    assert [str(w.message) for w in recwarn] == []


@pytest.mark.slow  # a local Dask cluster's start (two processes importing dask and sheetgen): 7 s of CPU
def test_build_on_a_dask_cluster_gives_the_same_bytes(run, tmp_path, monkeypatch):
    """SHEETGEN_PARALLEL_BACKEND=dask failed with "first create a Dask Client" even with a
    scheduler running; the command connects to the scheduler SHEETGEN_DASK_SCHEDULER names
    (here a local cluster the test starts) and writes the bytes a one-process build writes."""
    distributed = pytest.importorskip("dask.distributed")
    specs = [str(SPECS / "rallytaire" / "acropolis.yaml"), str(SPECS / "rally_run" / "house_set.yaml")]
    assert run("build", *specs, "-o", str(tmp_path / "one"), "--jobs", "1", "-q").exit_code == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        monkeypatch.setenv(parallel.BACKEND_VARIABLE, "dask")
        monkeypatch.setenv(parallel.SCHEDULER_VARIABLE, cluster.scheduler_address)
        result = run("build", *specs, "-o", str(tmp_path / "dask"), "--jobs", "2", "-q")
    assert result.exit_code == 0, result.output
    for name in ("acropolis.pdf", "house_set.pdf"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


@pytest.mark.parametrize(
    "backend, message",
    [
        ("dsak", "SHEETGEN_PARALLEL_BACKEND='dsak' is not a backend sheetgen knows; use one of: loky, multiprocessing, threading, dask, ray"),
        ("dask", "SHEETGEN_PARALLEL_BACKEND=dask needs SHEETGEN_DASK_SCHEDULER, the address of a running Dask scheduler (tcp://host:8786)"),
    ],
)
def test_a_wrong_backend_setting_is_a_usage_error_naming_it(run, tmp_path, monkeypatch, backend, message):
    monkeypatch.setenv(parallel.BACKEND_VARIABLE, backend)
    monkeypatch.delenv(parallel.SCHEDULER_VARIABLE, raising=False)
    specs = [str(SPECS / "rallytaire" / "acropolis.yaml"), str(SPECS / "rallytaire" / "monte_carlo.yaml")]
    result = run("build", *specs, "-o", str(tmp_path / "out"), "--jobs", "2")
    assert result.exit_code == 2 and result.stderr.endswith(f"Error: {message}\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="/proc")
def test_a_build_leaves_no_worker_process_behind(tmp_path):
    """joblib keeps its loky workers for reuse, idle for minutes after the command ended,
    holding its pipes (a `| tee` waited for them); they end with the build."""
    specs = [str(SPECS / "rallytaire" / "acropolis.yaml"), str(SPECS / "rally_run" / "house_set.yaml")]
    proc = subprocess.Popen([sys.executable, "-m", "sheetgen", "build", *specs, "-o", str(tmp_path / "out"), "--jobs", "2", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    out, _err = proc.communicate(timeout=300)  # (returns once every holder of the pipes is gone)
    assert proc.returncode == 0 and out.startswith(b"built 2 specs")

    def left() -> list[int]:
        return in_group(proc.pid)

    for _ in range(100):  # loky's resource tracker sees its pipe close a moment after the build
        if not left():
            break
        time.sleep(0.1)
    assert left() == []  # (an idle worker stayed for minutes)


def test_sheetgen_jobs_sets_the_default_number_of_processes(run, monkeypatch, tmp_path):
    """SHEETGEN_JOBS: the processes of a command not given --jobs; a bad value is a usage
    error naming it."""
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "3")
    assert parallel.default_jobs() == 3
    monkeypatch.delenv(parallel.JOBS_VARIABLE)
    assert parallel.default_jobs() == max(1, len(os.sched_getaffinity(0)))  # (this machine's CPUs)
    for bad in ("0", "x", "65"):
        monkeypatch.setenv(parallel.JOBS_VARIABLE, bad)
        result = run("build", "-o", str(tmp_path / "out"), str(SPECS / "rallytaire" / "acropolis.yaml"))
        assert result.exit_code == 2, bad
        assert f"SHEETGEN_JOBS='{bad}' is not a number of processes from 1 to 64" in result.stderr
        assert not (tmp_path / "out").exists()
