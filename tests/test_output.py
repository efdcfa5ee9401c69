"""Outputs are all-or-nothing: a failing command leaves every file and folder as it was."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import SPECS
from sheetgen.errors import OutputError
from sheetgen.output import folder_for_the_work, write_atomic, write_files

RACE = SPECS / "rallytaire" / "acropolis.yaml"
OTHER = SPECS / "rallytaire" / "thousand_lakes.yaml"


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*"))


def test_every_file_or_none(tmp_path):
    (tmp_path / "b.pdf").mkdir()  # the second target cannot be written
    with pytest.raises(OutputError, match=r"b\.pdf: it is a folder"):
        write_files([(tmp_path / "a.pdf", b"a"), (tmp_path / "b.pdf", b"b")])
    assert leftovers(tmp_path) == ["b.pdf"]  # no a.pdf, no temporary file
    write_files([(tmp_path / "a.pdf", b"a"), (tmp_path / "c.pdf", b"c")])
    assert (tmp_path / "a.pdf").read_bytes() == b"a" and (tmp_path / "c.pdf").read_bytes() == b"c"


def test_a_folder_is_made_only_when_allowed_and_taken_back_on_failure(tmp_path):
    with pytest.raises(OutputError, match="the folder .*missing does not exist"):
        write_atomic(tmp_path / "missing" / "x.pdf", b"x")
    assert leftovers(tmp_path) == []
    out = tmp_path / "out" / "deeper"
    with pytest.raises(OutputError):
        write_files([(out / "x.pdf", b"x"), (out / "x.pdf", b"y")], folder=out)  # the same file twice
    assert leftovers(tmp_path) == []  # out/ and out/deeper/ were made, then removed
    write_files([(out / "x.pdf", b"x")], folder=out)
    assert (out / "x.pdf").read_bytes() == b"x"


def test_a_folder_made_for_the_work_is_taken_back_when_the_work_or_its_report_fails(tmp_path):
    """`rally` makes its folder before the work (its stages read through it); a report that
    cannot be printed failed the command but left the folder it made (found by the fuzz
    harness). The folders made are taken back, those that were there are kept."""
    out = tmp_path / "rallies" / "winter"

    def report_fails() -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        with folder_for_the_work(out):
            assert out.is_dir()
            write_files([(out / "rally.yaml", b"r")], folder=out, announce=report_fails)
    assert leftovers(tmp_path) == []  # winter/ and rallies/ both taken back
    (tmp_path / "rallies").mkdir()
    with pytest.raises(KeyboardInterrupt):
        with folder_for_the_work(out):
            raise KeyboardInterrupt
    assert leftovers(tmp_path) == ["rallies"]  # there before: kept
    with folder_for_the_work(out):
        write_files([(out / "rally.yaml", b"r")], folder=out)
    assert (out / "rally.yaml").read_bytes() == b"r"
    with pytest.raises(OutputError):
        with folder_for_the_work(out):
            write_files([(out / "rally.yaml", b"s"), (out / "rally.yaml", b"t")], folder=out)  # one file twice
    assert leftovers(tmp_path) == ["rallies", "rally.yaml", "winter"]  # not empty: kept, as it was
    assert (out / "rally.yaml").read_bytes() == b"r"
    (tmp_path / "file").write_bytes(b"f")
    with pytest.raises(OutputError, match="file is not a folder"):
        with folder_for_the_work(tmp_path / "file" / "out"):
            pass


def test_an_input_is_never_overwritten(tmp_path):
    spec = tmp_path / "race.yaml"
    spec.write_text("game: rallytaire\n", encoding="utf-8")
    with pytest.raises(OutputError, match="it is an input of this command"):
        write_atomic(str(tmp_path / "." / "race.yaml"), b"%PDF", inputs=[spec])
    assert spec.read_text(encoding="utf-8") == "game: rallytaire\n"


def test_build_writes_nothing_when_one_pdf_cannot_be_written(run, tmp_path):
    out = tmp_path / "out"
    (out / "thousand_lakes.pdf").mkdir(parents=True)
    result = run("build", str(RACE), str(OTHER), "-o", str(out), "-q")
    assert result.exit_code == 1
    assert result.stderr == f"sheetgen: error: cannot write {out / 'thousand_lakes.pdf'}: it is a folder\n"
    assert leftovers(out) == ["thousand_lakes.pdf"]  # no acropolis.pdf
    result = run("build", str(RACE), "-o", "-")
    assert result.exit_code == 2 and result.stderr.endswith("\nError: -o names a folder here (several files are written); standard output (-) cannot hold them\n")
    assert not os.path.exists("-")


def test_render_refuses_its_own_spec_and_a_missing_folder(run, tmp_path):
    spec = tmp_path / "race.yaml"
    shutil.copy(RACE, spec)
    result = run("render", str(spec), "-o", str(spec))
    assert result.exit_code == 1 and "it is an input of this command" in result.stderr
    assert spec.read_bytes() == RACE.read_bytes()
    result = run("render", str(spec), "-o", str(tmp_path / "nodir" / "r.pdf"))
    assert result.exit_code == 1 and result.stderr.endswith("nodir does not exist\n")
    assert leftovers(tmp_path) == ["race.yaml"]


def test_generate_keeps_an_old_pdf_when_the_spec_cannot_be_written(run, tmp_path):
    old = tmp_path / "old.pdf"
    old.write_bytes(b"OLD")
    (tmp_path / "afile").write_text("", encoding="utf-8")
    result = run("generate", "rallytaire", "--seed", "1", "--stages", "1", "-o", str(tmp_path / "afile" / "g.yaml"), "--render", str(old))
    assert result.exit_code == 1
    assert result.stderr.endswith("afile is not a folder\n")
    assert old.read_bytes() == b"OLD" and leftovers(tmp_path) == ["afile", "old.pdf"]


def test_pdf_to_standard_output_with_dash(run, tmp_path):
    spec = tmp_path / "g.yaml"
    result = run("generate", "rallytaire", "--seed", "1", "--stages", "1", "-o", str(spec), "--render", "-")
    assert result.exit_code == 0 and result.stdout_bytes.startswith(b"%PDF-")
    assert spec.exists() and not os.path.exists("-")
    result = run("generate", "rallytaire", "--seed", "1", "--stages", "1", "--render", "-")
    assert result.exit_code == 2 and result.stderr.endswith("\nError: --render - and the spec would both go to standard output; give the spec a file with -o\n")


def test_the_spec_hash_is_of_the_bytes_loaded(run, tmp_path):
    """A spec read through a pipe names the same source (and gives the same PDF) as the file."""
    import hashlib

    from sheetgen.registry import load_spec

    fifo = tmp_path / "race.yaml"
    os.mkfifo(fifo)
    import threading

    feeder = threading.Thread(target=lambda: fifo.write_bytes(RACE.read_bytes()))
    feeder.start()
    spec = load_spec(fifo)
    feeder.join()
    assert spec.sha256 == hashlib.sha256(RACE.read_bytes()).hexdigest() == load_spec(RACE).sha256
