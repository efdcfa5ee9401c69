"""Batch work goes through one parallel interface (sheetgen.parallel, joblib): results in
order, the same for any number of processes, and safe from a process that may not start
processes of its own."""

from __future__ import annotations

import multiprocessing
import shutil

from conftest import SPECS
from sheetgen import parallel


def square(x: int) -> int:
    return x * x


def test_results_in_order_for_any_number_of_processes():
    items = list(range(23))
    expected = [x * x for x in items]
    assert parallel.run(square, items, jobs=1) == expected
    assert parallel.run(square, items, jobs=2) == expected
    assert list(parallel.imap(square, items, jobs=2)) == expected


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
