"""The disk cache of solved figures (sheetgen/cache.py): a shortcut that never changes a
printout and never fails a command."""

from __future__ import annotations

import json
import os
import stat

import pytest

from conftest import SPECS


def test_an_entry_is_kept_and_given_back_exactly(tmp_path, monkeypatch):
    from sheetgen import cache

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    calls = []
    name = cache.key("test", "subject", ["sheetgen.cache"])

    def compute():
        calls.append(1)
        return {"par_seconds": 131.33509417325863, "turns": None}

    assert cache.cached(name, compute) == cache.cached(name, compute) == {"par_seconds": 131.33509417325863, "turns": None}
    assert len(calls) == 1
    assert [p.name for p in tmp_path.iterdir()] == [f"{name}.json"]
    assert name != cache.key("test", "subject changed", ["sheetgen.cache"])  # what is solved is in the key


def test_a_broken_entry_is_solved_again_and_an_unwritable_folder_is_no_error(tmp_path, monkeypatch):
    from sheetgen import cache

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    name = cache.key("test", "x", [])
    (tmp_path / f"{name}.json").write_text("{not json", encoding="utf-8")
    assert cache.cached(name, lambda: 7) == 7
    assert json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")) == {"value": 7}
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setenv("SHEETGEN_CACHE", str(locked))
    try:
        assert cache.cached(name, lambda: 8) == 8
        if os.geteuid() != 0:  # (root writes anywhere)
            assert list(locked.iterdir()) == []
    finally:
        locked.chmod(stat.S_IRWXU)
    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    assert cache.folder() is None and cache.cached(name, lambda: 9) == 9


def test_a_printout_is_the_same_with_the_cache_or_without_it(run, tmp_path, monkeypatch):
    """The hill climb's map and time sheet give its par: solved (cache off), solved and kept,
    then read from the entry: the same PDF each time."""
    from sheetgen.games.rallyman import solve

    spec = str(SPECS / "rallyman" / "compact_hillclimb.yaml")
    pdfs = []
    for setting in ("off", str(tmp_path / "c"), str(tmp_path / "c")):
        monkeypatch.setenv("SHEETGEN_CACHE", setting)
        solve._figures.cache_clear()  # (the process's own memo)
        target = tmp_path / f"{len(pdfs)}.pdf"
        assert run("render", spec, "-o", str(target)).exit_code == 0
        pdfs.append(target.read_bytes())
    assert pdfs[0] == pdfs[1] == pdfs[2]
    assert len(list((tmp_path / "c").iterdir())) == 1


def _figures_shape(value) -> bool:
    """A check as a caller passes it: a dict whose par is a number."""
    return isinstance(value, dict) and isinstance(value["par_seconds"], float)


@pytest.mark.parametrize(
    "entry",
    ['{"value": 5}', '{"value": null}', '{"value": "x"}', "[]", '"value"', '{"value": {"par_seconds": "bad"}}', '{"value": {}}', '{"value": []}', '{"other": 1}'],
)
def test_an_entry_of_the_wrong_shape_is_solved_again_and_written_over(tmp_path, monkeypatch, entry):
    from sheetgen import cache

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    name = cache.key("test", "shape", [])
    (tmp_path / f"{name}.json").write_text(entry, encoding="utf-8")
    right = {"par_seconds": 131.5, "turns": 9}
    assert cache.cached(name, lambda: right, valid=_figures_shape) == right
    assert json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")) == {"value": right}
    # the entry written over is read back, not solved again
    assert cache.cached(name, lambda: pytest.fail("solved again"), valid=_figures_shape) == right


def test_without_a_check_any_json_value_is_given_back(tmp_path, monkeypatch):
    from sheetgen import cache

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    name = cache.key("test", "unchecked", [])
    (tmp_path / f"{name}.json").write_text('{"value": 5}', encoding="utf-8")
    assert cache.cached(name, lambda: {"par_seconds": 1.0}) == 5
    assert cache.cached(name, lambda: {"par_seconds": 1.0}, valid=lambda value: value is None or _figures_shape(value)) == {"par_seconds": 1.0}
