"""A build keeps what it made (sheetgen/buildcache.py): a spec whose files and sheetgen are
unchanged is taken from the last build, byte for byte what building it again gives; a spec
any of whose files changed, or built with other options, is built again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sheetgen import buildcache, cli, registry

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "track_specs"


@pytest.fixture
def kept(monkeypatch, tmp_path):
    """The build cache on, in a folder of the test's own; counts the specs built."""
    monkeypatch.setenv(buildcache.SWITCH, str(tmp_path / "builds"))  # (the figures cache: the tests')
    built: list[str] = []
    real = cli._load_and_build

    def counted(path, **options):
        built.append(Path(path).name)
        return real(path, **options)

    monkeypatch.setattr(cli, "_load_and_build", counted)
    return built


@pytest.fixture
def specs(tmp_path):
    """A Rallyman track, a Rally Risk race with its library (whose reference card the job
    prints once), copied where the test may change them."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("rallyman/tiny.yaml", "rally_risk/sweden_1.yaml", "rally_risk/sections.yaml"):
        shutil.copy(SPECS / name, folder / Path(name).name)
    race = folder / "sweden_1.yaml"  # a race of its own, not of the championship
    race.write_text("".join(line for line in race.read_text().splitlines(True) if not line.startswith(("calendar:", "rally:"))))
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _build(run, specs: Path, out: Path, *options: str) -> dict[str, bytes]:
    names = [str(specs / n) for n in ("tiny.yaml", "sweden_1.yaml", "sections.yaml")]
    result = run("build", *names, "-o", str(out), "-q", "--jobs", "1", *options)
    assert result.exit_code == 0, result.output
    return _files(out)


def test_a_second_build_takes_every_spec_from_the_first_and_writes_the_same_bytes(run, kept, specs, tmp_path):
    first = _build(run, specs, tmp_path / "first")
    # three specs, each drawn once: the race without the reference card its library prints
    assert sorted(kept) == ["sections.yaml", "sweden_1.yaml", "tiny.yaml"]
    kept.clear()
    second = _build(run, specs, tmp_path / "second")
    assert kept == []
    assert second == first and set(first) == {"tiny.pdf", "sweden_1.pdf", "sections.pdf"}


def test_kept_builds_are_what_a_build_without_them_writes(run, kept, specs, tmp_path, monkeypatch):
    _build(run, specs, tmp_path / "first")
    taken = _build(run, specs, tmp_path / "second")
    monkeypatch.setenv(buildcache.SWITCH, "off")
    kept.clear()
    fresh = _build(run, specs, tmp_path / "fresh")
    assert len(kept) == 3 and taken == fresh


def test_a_changed_spec_or_a_file_it_reads_is_built_again_and_only_it(run, kept, specs, tmp_path, monkeypatch):
    _build(run, specs, tmp_path / "first")
    kept.clear()
    tiny = specs / "tiny.yaml"
    tiny.write_text(tiny.read_text().replace("name: Tiny", "name: Tiny Two"))
    _build(run, specs, tmp_path / "second")
    assert kept == ["tiny.yaml"]
    kept.clear()
    library = specs / "sections.yaml"  # the race reads it: both are built again
    library.write_text(library.read_text() + "\n# a comment\n")
    changed = _build(run, specs, tmp_path / "third")
    assert sorted(kept) == ["sections.yaml", "sweden_1.yaml"]
    monkeypatch.setenv(buildcache.SWITCH, "off")
    assert _build(run, specs, tmp_path / "fresh") == changed


def test_other_options_are_another_build(run, kept, specs, tmp_path):
    a4 = _build(run, specs, tmp_path / "a4")
    kept.clear()
    letter = _build(run, specs, tmp_path / "letter", "--paper", "letter")
    assert len(kept) == 3 and letter["tiny.pdf"] != a4["tiny.pdf"]
    kept.clear()
    assert _build(run, specs, tmp_path / "letter2", "--paper", "letter") == letter and kept == []


def test_a_damaged_entry_is_built_again(run, kept, specs, tmp_path):
    first = _build(run, specs, tmp_path / "first")
    folder = tmp_path / "builds"
    pdfs = sorted(folder.glob("*.pdf"))
    assert len(pdfs) == 3  # the three specs' (the race's without the card)
    for pdf in pdfs:
        pdf.write_bytes(pdf.read_bytes().replace(b"%%EOF", b"%%EOX"))
    kept.clear()
    assert _build(run, specs, tmp_path / "second") == first
    assert len(kept) == 3


def test_a_refused_spec_is_never_kept(run, kept, specs, tmp_path):
    tiny = specs / "tiny.yaml"
    tiny.write_text(tiny.read_text().replace("limit: 4", "limit: 9"))
    for attempt in range(2):
        result = run("build", str(tiny), "-o", str(tmp_path / f"out{attempt}"), "-q", "--jobs", "1")
        assert result.exit_code == 1 and "limit" in result.stderr
    assert kept == ["tiny.yaml", "tiny.yaml"]
    assert not list(tmp_path.glob("builds/*.json"))


def test_nothing_is_kept_with_a_cache_off_or_a_plug_in_game(run, kept, specs, tmp_path, monkeypatch):
    assert buildcache.Builds.open({}) is not None
    monkeypatch.setenv(buildcache.SWITCH, "off")
    _build(run, specs, tmp_path / "out")
    assert not (tmp_path / "builds").exists() and buildcache.Builds.open({}) is None
    monkeypatch.setenv(buildcache.SWITCH, "")
    monkeypatch.setenv("SHEETGEN_CACHE", "off")  # the figures cache off: this one too
    assert buildcache.Builds.open({}) is None
    monkeypatch.setenv("SHEETGEN_CACHE", str(tmp_path / "cache"))
    assert buildcache.Builds.open({}).folder == str(tmp_path / "cache" / "builds")
    monkeypatch.setattr(registry, "registered", lambda: ("a plug-in",))
    assert buildcache.Builds.open({}) is None


def test_the_digest_of_sheetgen_covers_its_code_fonts_and_data_not_its_bytecode(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(ROOT / "sheetgen" / "data", package / "data")
    (package / "a.py").write_text("x = 1\n")
    before = buildcache.tree_digest([("sheetgen", package)])
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (package / "_kernel.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\0")
    assert buildcache.tree_digest([("sheetgen", package)]) == before
    (package / "a.py").write_text("x = 2\n")
    code = buildcache.tree_digest([("sheetgen", package)])
    assert code != before
    font = next((package / "data" / "fonts").glob("*.ttf"))
    font.write_bytes(font.read_bytes() + b"\0")
    assert buildcache.tree_digest([("sheetgen", package)]) not in (before, code)


def test_a_wrong_backend_setting_is_refused_when_every_spec_is_kept(run, kept, specs, tmp_path, monkeypatch):
    _build(run, specs, tmp_path / "first")
    monkeypatch.setenv("SHEETGEN_PARALLEL_BACKEND", "dsak")
    result = run("build", str(specs / "tiny.yaml"), "-o", str(tmp_path / "second"), "--jobs", "2")
    assert result.exit_code == 2 and "SHEETGEN_PARALLEL_BACKEND='dsak' is not a backend" in result.stderr
    assert not (tmp_path / "second").exists()
