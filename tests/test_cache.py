"""The disk cache of solved figures (sheetgen/cache.py): a shortcut that never changes a
printout and never fails a command."""

from __future__ import annotations

import json
import os
import shutil
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
    assert json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")) == {"value": 7, "sha256": cache._digest(7)}
    assert cache._digest(7) == "7902699be42c8a8e46fbbb4501726517e86b22c56a189f7625a6da49081b2451"  # sha256 of "7"
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
    spec = str(SPECS / "rallyman" / "compact_hillclimb.yaml")
    pdfs = []
    for setting in ("off", str(tmp_path / "c"), str(tmp_path / "c")):
        monkeypatch.setenv("SHEETGEN_CACHE", setting)
        target = tmp_path / f"{len(pdfs)}.pdf"
        assert run("render", spec, "-o", str(target)).exit_code == 0
        pdfs.append(target.read_bytes())
    assert pdfs[0] == pdfs[1] == pdfs[2]
    # the track's figures and the dashboard card's odds table (exact fractions of the ruleset)
    assert sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "c").iterdir()) == ["rallyman-gt", "rallyman-odds"]


@pytest.mark.slow  # the advanced solve of a race, uncached (6 s); the GT and Rally Risk entries are checked so in the default suite
def test_a_race_sheet_is_the_same_with_the_cache_or_without_it(run, tmp_path, monkeypatch):
    """A Rallytaire race sheet's advanced figures (par, p10/p50/p90, out of the race): solved
    and kept, then read from the entry: the same PDF, and the figures read back are the
    analysis's own."""
    from sheetgen import registry
    from sheetgen.games.rallytaire.analysis_advanced import analyze_race_advanced, sheet_figures

    spec = str(SPECS / "rallytaire" / "thousand_lakes.yaml")
    pdfs = []
    for setting in (str(tmp_path / "c"), str(tmp_path / "c")):
        monkeypatch.setenv("SHEETGEN_CACHE", setting)
        target = tmp_path / f"{len(pdfs)}.pdf"
        assert run("render", spec, "-o", str(target)).exit_code == 0
        pdfs.append(target.read_bytes())
    assert pdfs[0] == pdfs[1]
    assert len(list((tmp_path / "c").iterdir())) == 1
    race = registry.load_spec(spec).model
    kept, solved = sheet_figures(race), analyze_race_advanced(race)
    assert (kept.race_par_time, kept.tyres, kept.dnf_probability) == (solved.race_par_time, solved.tyres, solved.dnf_probability)
    assert (kept.p10, kept.p50, kept.p90) == solved.percentiles
    assert [s.par_time for s in kept.stages] == [s.par_time for s in solved.stages]


def _imported_modules(module: str) -> set[str]:
    """Every sheetgen module `module` imports, directly or through another, at the top or
    inside a function (not counting packages' __init__: a game's registry entry)."""
    import ast
    import importlib.util

    def is_package(name: str) -> bool:
        return importlib.util.find_spec(name).submodule_search_locations is not None

    def imports(name: str) -> set[str]:
        with open(importlib.util.find_spec(name).origin, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                if node.module.startswith("sheetgen") and is_package(node.module):
                    found |= {f"{node.module}.{a.name}" for a in node.names if importlib.util.find_spec(f"{node.module}.{a.name}")}
        return {m for m in found if m.startswith("sheetgen.")}

    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m not in seen and not is_package(m):
            seen.add(m)
            todo.extend(imports(m))
    return seen


def test_the_keys_name_every_module_the_solvers_import():
    """An entry is keyed by the sources of the modules its figures come from, found from the
    solver's import graph (no hand-kept list): every sheetgen module the solver imports,
    directly or through another, at the top or inside a function, is among them (an
    independent walk of the syntax trees here), for every game's figures."""
    from sheetgen import cache

    for root in ("sheetgen.games.rallytaire.analysis_advanced", "sheetgen.games.rally_risk.analysis", "sheetgen.games.rally_risk.championship", "sheetgen.games.rallyman.solve"):
        keyed = set(cache.solver_modules(root))
        assert _imported_modules(root) <= keyed, (root, _imported_modules(root) - keyed)
        assert root in keyed
    assert "sheetgen.games.rallytaire.timetable" in cache.solver_modules("sheetgen.games.rallytaire.analysis_advanced")  # (imported inside a function)
    assert {"sheetgen.glyphs", "sheetgen.yamlsrc"} <= set(cache.solver_modules("sheetgen.games.rally_risk.analysis"))  # (through another module)
    assert not any(".render" in m for root in ("sheetgen.games.rallyman.solve", "sheetgen.games.rally_risk.analysis") for m in cache.solver_modules(root))


def test_a_renamed_spec_is_not_solved_again(run, tmp_path, monkeypatch):
    """Entries are keyed by what the solvers read, never by names: a GT track, a Rallytaire
    race and a Rally Risk race renamed (and their stages) read the entries their first
    render kept, and print their new names."""
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "c"))
    for spec, old, new in (
        ("rallyman/tiny.yaml", "name: Tiny", "name: Tiny Renamed"),
        ("rallytaire/thousand_lakes.yaml", "name: ", "name: Renamed "),
        ("rally_risk/sweden_1.yaml", "name: ", "name: Renamed "),
    ):
        text = (SPECS / spec).read_text(encoding="utf-8")
        assert old in text, spec
        first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
        first.write_text(text, encoding="utf-8")
        second.write_text(text.replace(old, new), encoding="utf-8")
        for name in ("sections.yaml", "championship.yaml", "tiles.yaml"):  # what the specs refer to
            if (SPECS / spec).with_name(name).exists() and not (tmp_path / name).exists():
                (tmp_path / name).write_bytes((SPECS / spec).with_name(name).read_bytes())
        assert run("render", str(first), "-o", str(tmp_path / "first.pdf")).exit_code == 0
        entries = sorted(p.name for p in (tmp_path / "c").iterdir())
        assert entries, spec
        result = run("render", str(second), "-o", str(tmp_path / "second.pdf"))
        assert result.exit_code == 0, result.output
        assert sorted(p.name for p in (tmp_path / "c").iterdir()) == entries, spec  # no new entry: nothing solved again
        shutil.rmtree(tmp_path / "c")


def test_a_finishability_check_is_the_same_with_the_cache_or_without_it(tmp_path, monkeypatch):
    """Rally Risk's finishability check of a race (a calendar's build makes one per race):
    solved (cache off), solved and kept, then read from the entry: the same figures."""
    from sheetgen import registry
    from sheetgen.games.rally_risk.championship import check_race

    race = registry.load_spec(str(SPECS / "rally_risk" / "sweden_1.yaml")).model
    got = []
    for setting in ("off", str(tmp_path / "c"), str(tmp_path / "c")):
        monkeypatch.setenv("SHEETGEN_CACHE", setting)
        got.append(check_race(race))
    assert got[0] == got[1] == got[2]
    assert got[0].expected_rounds > 0 and 0.0 <= got[0].elimination_probability <= 1.0
    assert len(list((tmp_path / "c").iterdir())) == 1


def test_a_course_sheet_is_the_same_with_the_cache_or_without_it(run, tmp_path, monkeypatch):
    """A Rally Risk race's analysis as build checks and prints it: solved (cache off), solved
    and kept, then read from the entry: the same course sheet each time, and the figures read
    back are the solver's own (all but the solved policies, which only the simulator plays)."""
    from sheetgen import registry
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race
    from sheetgen.games.rally_risk.kept import race_figures

    spec = str(SPECS / "rally_risk" / "montecarlo_special.yaml")
    pdfs = []
    for setting in ("off", str(tmp_path / "c"), str(tmp_path / "c")):
        monkeypatch.setenv("SHEETGEN_CACHE", setting)
        target = tmp_path / f"{len(pdfs)}.pdf"
        assert run("render", spec, "-o", str(target)).exit_code == 0
        pdfs.append(target.read_bytes())
    assert pdfs[0] == pdfs[1] == pdfs[2]
    assert len(list((tmp_path / "c").iterdir())) == 1
    race = registry.load_spec(spec).model
    kept, solved = race_figures(race), analyze_rally_risk_race(race)
    assert kept == solved and repr(kept) == repr(solved)  # (the policies are left out of both)
    assert [r.p50 for r in kept.results] == [r.p50 for r in solved.results]


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
    assert json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")) == {"value": right, "sha256": cache._digest(right)}
    # the entry written over is read back, not solved again
    assert cache.cached(name, lambda: pytest.fail("solved again"), valid=_figures_shape) == right


def test_an_entry_edited_since_it_was_written_is_solved_again(tmp_path, monkeypatch):
    """The audit's case: Rally Risk's calendar checks (kept without a shape check) with their
    entries edited to `{"value": 5}` gave an internal error. An entry keeps the SHA-256 of its
    value's JSON: one edited since, or written without it, is solved again, with or without
    the caller's check; an entry as written is given back."""
    from sheetgen import cache

    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path))
    name = cache.key("test", "unchecked", [])
    entry = tmp_path / f"{name}.json"
    right = [12.5, 0.25]
    assert cache.cached(name, lambda: right) == right
    assert cache.cached(name, lambda: pytest.fail("solved again")) == right
    kept = json.loads(entry.read_text(encoding="utf-8"))
    for edited in ({"value": 5}, {"value": 5, "sha256": kept["sha256"]}, {"value": [12.5, 0.5], "sha256": kept["sha256"]}, {"value": right, "sha256": "0" * 64}):
        entry.write_text(json.dumps(edited), encoding="utf-8")
        assert cache.cached(name, lambda: right) == right, edited
        assert json.loads(entry.read_text(encoding="utf-8")) == kept


def test_a_race_with_its_entries_edited_prints_as_without_the_cache(run, tmp_path, monkeypatch):
    """A Rally Risk race's kept analysis (kept without a shape check, as the calendar's checks
    are) edited to `{"value": 5}`: the sheet is the one printed without the cache."""

    race = str(SPECS / "rally_risk" / "montecarlo_1.yaml")
    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    assert run("render", race, "-o", str(tmp_path / "plain.pdf")).exit_code == 0
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "c"))
    assert run("render", race, "-o", str(tmp_path / "first.pdf")).exit_code == 0
    (entry,) = (tmp_path / "c").iterdir()
    entry.write_text('{"value": 5}', encoding="utf-8")
    out = run("render", race, "-o", str(tmp_path / "again.pdf"))
    assert out.exit_code == 0, out.output
    assert (tmp_path / "again.pdf").read_bytes() == (tmp_path / "plain.pdf").read_bytes() == (tmp_path / "first.pdf").read_bytes()


def _reprinted_over_a_damaged_entry(run, tmp_path, monkeypatch, kind: str, entry: str):
    """Tiny printed without the cache, then with it; its `kind` entry overwritten with `entry`
    and printed again: the three PDFs the same. The entry, solved and kept again."""
    spec = str(SPECS / "rallyman" / "tiny.yaml")
    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    assert run("render", spec, "-o", str(tmp_path / "plain.pdf")).exit_code == 0
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "c"))
    assert run("render", spec, "-o", str(tmp_path / "first.pdf")).exit_code == 0
    (kept,) = (tmp_path / "c").glob(f"{kind}-*")
    kept.write_text(entry, encoding="utf-8")
    out = run("render", spec, "-o", str(tmp_path / "again.pdf"))
    assert out.exit_code == 0, out.output
    assert (tmp_path / "again.pdf").read_bytes() == (tmp_path / "plain.pdf").read_bytes() == (tmp_path / "first.pdf").read_bytes()
    return kept


@pytest.mark.parametrize("entry", ['{"value": 5}', '{"value": null}', '{"value": "x"}', '{"value": []}', '{"value": {"figures": {"par_seconds": "bad"}}}',
                                   '{"value": {"figures": 5}}', '{"value": {"par_seconds": 1.0}}', '{"value": {"figures": null}}',
                                   '{"value": {"figures": null, "analysis": 5}}'])
def test_a_damaged_figures_entry_gives_the_same_printout_as_no_cache(run, tmp_path, monkeypatch, entry):
    """A GT track's figures entry that reads back with the wrong shape (the audit's cases) is
    solved again: the PDF is the one printed without the cache."""
    kept = _reprinted_over_a_damaged_entry(run, tmp_path, monkeypatch, "rallyman-gt", entry)
    assert json.loads(kept.read_text(encoding="utf-8"))["value"]["figures"]["par_seconds"] == pytest.approx(215 / 9)


@pytest.mark.parametrize("entry", ['{"value": 5}', '{"value": {"plans": 5, "by_count": []}}', '{"value": {"plans": []}}'])
def test_a_damaged_odds_entry_gives_the_same_printout_as_no_cache(run, tmp_path, monkeypatch, entry):
    """The dashboard card's odds table, kept as figures, read back damaged: solved again."""
    kept = _reprinted_over_a_damaged_entry(run, tmp_path, monkeypatch, "rallyman-odds", entry)
    assert json.loads(kept.read_text(encoding="utf-8"))["value"]["plans"][0]["plan"] == "1,2,3"


def test_analyze_of_a_gt_track_reads_the_figures_a_build_kept(run, tmp_path, monkeypatch):
    """`analyze` of a GT track solved again after any number of builds; it reads the entry
    the printout kept (its analysis is in the same entry, without the track's name) and
    gives what a solve gives."""
    from sheetgen.games.rallyman import solve

    spec = str(SPECS / "rallyman" / "tiny.yaml")
    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    solved = {fmt: run("analyze", spec, "--format", fmt).stdout for fmt in ("json", "text")}
    assert json.loads(solved["json"])["track"] == "Tiny"
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "c"))
    assert run("render", spec, "-o", str(tmp_path / "t.pdf")).exit_code == 0

    def no_solve(*_args, **_kwargs):
        raise AssertionError("solved again")

    monkeypatch.setattr(solve, "par", no_solve)
    monkeypatch.setattr(solve, "safe_route", no_solve)
    for fmt in ("json", "text"):
        kept = run("analyze", spec, "--format", fmt)
        assert (kept.exit_code, kept.stdout) == (0, solved[fmt]), kept.output


def test_simulate_of_a_gt_track_plays_the_policy_kept_and_a_rename_solves_nothing(run, tmp_path, monkeypatch):
    """`simulate` of a GT track solved its par again every time; the policy is kept in the
    figures cache (issue 27): the race is the same as without the cache, and a second
    simulate, of the track renamed too, solves nothing (the tables read back are the
    solve's own, `==`)."""
    from sheetgen import registry
    from sheetgen.games.rallyman import figures, solve
    from sheetgen.games.rallyman.rules import Stage
    from sheetgen.games.rallyman.ruleset import ruleset_of

    spec = SPECS / "rallyman" / "tiny.yaml"
    args = ["--seed", "4", "--cars", "2"]
    monkeypatch.setenv("SHEETGEN_CACHE", "off")
    fresh = run("simulate", str(spec), *args)
    assert fresh.exit_code == 0 and "Tiny" in fresh.stdout
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "c"))
    assert run("simulate", str(spec), *args).stdout == fresh.stdout
    track = registry.load_spec(str(spec)).model
    kept, solved = figures.policy(track, ruleset_of(track)), solve.par(Stage(track, ruleset_of(track), damage=False))
    assert (kept.value, kept.choice, kept.start, kept.danger) == (solved.value, solved.choice, solved.start, solved.danger)
    assert (kept.expected_turns, kept.turns_by_mode) == (solved.expected_turns, solved.turns_by_mode)
    renamed = tmp_path / "renamed.yaml"
    renamed.write_text(spec.read_text(encoding="utf-8").replace("name: Tiny", "name: Tiny Renamed"), encoding="utf-8")

    def no_solve(*_args, **_kwargs):
        raise AssertionError("solved again")

    monkeypatch.setattr(solve, "par", no_solve)
    again = run("simulate", str(renamed), *args)
    assert again.exit_code == 0, again.output
    assert again.stdout == fresh.stdout.replace("Tiny", "Tiny Renamed")
