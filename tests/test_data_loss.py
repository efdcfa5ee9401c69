"""No output ever replaces a user's file: not an input, not a file an input refers to (a
race's library or calendar, a season's races, a results file's calendar, a template), and not
a special file (a FIFO or device is written in place, a socket is refused)."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
import stat
import threading

import pytest

from conftest import SPECS


@pytest.fixture
def specs(tmp_path):
    """A copy of the bundled specs: the files a command may be tempted to overwrite."""
    copy = tmp_path / "track_specs"
    shutil.copytree(SPECS, copy)
    return copy


def digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def refused(result, target, source) -> None:
    assert result.exit_code == 1, result.output
    assert result.stderr == f"sheetgen: error: refusing to write {target}: it is an input of this command ({source}); choose another output file\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    "command, spec, referenced",
    [
        ("render", "rally_risk/montecarlo_1.yaml", "rally_risk/sections.yaml"),  # the race's library
        ("render", "rally_risk/montecarlo_1.yaml", "rally_risk/championship.yaml"),  # the race's calendar
        ("render", "seasons/winter_season.yaml", "rallytaire/acropolis.yaml"),  # a race of the season
        ("render", "rally_risk/results.yaml", "rally_risk/championship.yaml"),  # the results' calendar
        ("render", "rally_risk/results.yaml", "rally_risk/sections.yaml"),  # ... and that calendar's library
        ("standings", "rally_risk/results.yaml", "rally_risk/championship.yaml"),
        ("season", "seasons/winter_season.yaml", "rallytaire/monte_carlo.yaml"),
        ("render", "rallyman/dirt_lakeside.yaml", "rallyman/tiles.yaml"),  # a track's tile library
        ("standings", "rallyman/results/winter_rally.yaml", "rallyman/dirt_lakeside.yaml"),  # a stage's track
        ("render", "rallyman/results/winter_rally.yaml", "rallyman/dirt_forest_stage.yaml"),
        ("standings", "rallyman/results/winter_rally.yaml", "rallyman/tiles.yaml"),  # ... and that track's tile library
        ("render", "rallyman/results/winter_rally.yaml", "rallyman/tiles.yaml"),
    ],
)
def test_an_output_never_replaces_a_file_the_spec_refers_to(run, specs, command, spec, referenced):
    target = str(specs / referenced)
    before = digest(target)
    result = run(command, str(specs / spec), "-o", target)
    refused(result, target, os.path.join(os.path.dirname(str(specs / spec)), os.path.relpath(target, os.path.dirname(str(specs / spec)))))
    assert digest(target) == before
    assert sorted(p.name for p in (specs / referenced).parent.iterdir() if p.name.startswith(".sheetgen-")) == []


def test_the_template_file_is_an_input_too(run, specs, tmp_path):
    template = tmp_path / "t.yaml"
    shutil.copy(SPECS.parent / "templates" / "race_sheet.yaml", template)
    before = digest(template)
    result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(template), "--template", str(template))
    refused(result, str(template), str(template))
    assert digest(template) == before


def test_build_never_replaces_a_referenced_file(run, specs, tmp_path):
    """build names its PDFs after the specs: a template file named like one of them is refused."""
    template = tmp_path / "out" / "acropolis.pdf"
    template.parent.mkdir()
    shutil.copy(SPECS.parent / "templates" / "race_sheet.yaml", template)
    before = digest(template)
    result = run("build", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(tmp_path / "out"), "--template", str(template), "-q")
    refused(result, str(template), str(template))
    assert digest(template) == before


def test_a_fifo_is_written_in_place_and_stays_a_fifo(run, specs, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    keep_open = os.open(fifo, os.O_WRONLY)  # so that the reader sees no end before the command writes
    os.set_blocking(reader, True)
    chunks: list[bytes] = []

    def drain():
        while chunk := os.read(reader, 65536):
            chunks.append(chunk)

    thread = threading.Thread(target=drain)
    thread.start()
    try:
        result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(fifo))
    finally:
        os.close(keep_open)
        thread.join(10)
        os.close(reader)
    assert result.exit_code == 0, result.output
    data = b"".join(chunks)
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "track_specs"]  # no temporary left


def test_a_fifo_nobody_reads_is_an_error_at_once(run, specs, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(fifo))
    assert result.exit_code == 1
    assert result.stderr == f"sheetgen: error: cannot write {fifo}: it is a named pipe and no process is reading it\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_generate_writes_into_a_character_device_without_replacing_it(run, tmp_path):
    """A device node made in the test's own folder (the same device as /dev/null): written
    through, still a device afterwards, for -o and --render alike."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    result = run("generate", "rallytaire", "--seed", "3", "--stages", "1", "-o", str(node), "--render", str(tmp_path / "race.pdf"))
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(node).st_mode)
    result = run("generate", "rallytaire", "--seed", "3", "--stages", "1", "-o", str(tmp_path / "race.yaml"), "--render", str(node))
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(node).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "race.pdf", "race.yaml"]


def test_a_socket_is_refused(run, specs, tmp_path):
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(path))
    finally:
        server.close()
    assert result.exit_code == 1
    assert result.stderr == f"sheetgen: error: refusing to write {path}: it is a socket, not a file; choose a regular file\n"
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_a_symbolic_link_is_followed_not_replaced(run, specs, tmp_path):
    real = tmp_path / "real.pdf"
    real.write_bytes(b"old")
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and real.read_bytes().startswith(b"%PDF-")


def test_a_link_to_an_input_is_refused(run, specs, tmp_path):
    link = tmp_path / "lib.pdf"
    link.symlink_to(specs / "rally_risk" / "sections.yaml")
    before = digest(specs / "rally_risk" / "sections.yaml")
    result = run("render", str(specs / "rally_risk" / "montecarlo_1.yaml"), "-o", str(link))
    assert result.exit_code == 1 and "it is an input of this command" in result.stderr
    assert digest(specs / "rally_risk" / "sections.yaml") == before and link.is_symlink()


def test_a_newline_in_an_output_path_stays_on_one_error_line(run, specs, tmp_path):
    target = str(tmp_path / "no\nsuch" / "out.pdf")
    result = run("render", str(specs / "rallytaire" / "acropolis.yaml"), "-o", target)
    assert result.exit_code == 1
    folder = str(tmp_path).replace("\n", "\\n") + "/no\\nsuch"
    assert result.stderr == f"sheetgen: error: cannot write {str(tmp_path)}/no\\nsuch/out.pdf: the folder {folder} does not exist\n"


def test_a_bad_output_is_refused_before_the_work(run, specs, tmp_path, monkeypatch):
    """render says what is wrong with -o before it analyses or draws anything."""
    import sheetgen.render

    def never(*args, **kwargs):
        raise AssertionError("rendered although the output could not be written")

    monkeypatch.setattr(sheetgen.render, "build_outputs", never)
    spec = str(specs / "rallytaire" / "thousand_lakes.yaml")
    for target, message in (
        ("", "cannot write an output file with an empty name"),
        (str(tmp_path / "no" / "x.pdf"), f"cannot write {tmp_path / 'no' / 'x.pdf'}: the folder {tmp_path / 'no'} does not exist"),
        (str(specs), f"cannot write {specs}: it is a folder"),
    ):
        result = run("render", spec, "-o", target)
        assert (result.exit_code, result.stderr) == (1, f"sheetgen: error: {message}\n")


@pytest.mark.parametrize("command", [("render", "rallytaire/acropolis.yaml"), ("standings", "rally_risk/results.yaml")])
def test_a_file_name_ending_in_a_slash_is_no_file(run, specs, tmp_path, command):
    """`-o newdir/` for a folder that does not exist: refused, no file called newdir made."""
    name, spec = command
    target = str(tmp_path / "newdir") + "/"
    result = run(name, str(specs / spec), "-o", target)
    assert (result.exit_code, result.stderr) == (1, f"sheetgen: error: cannot write {target}: a name ending in '/' is a folder, and there is no such folder; give a file name\n")
    assert not os.path.exists(target.rstrip("/"))


def test_build_into_an_empty_folder_name_is_refused(run, specs, tmp_path, monkeypatch):
    """`build -o ""` is no folder (it wrote into the current folder and said '/')."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = run("build", str(specs / "rallytaire" / "acropolis.yaml"), "-o", "")
    assert (result.exit_code, result.stderr) == (1, "sheetgen: error: cannot write into a folder with an empty name; give the folder (-o output)\n")
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("option", ["-o", "--render"])
def test_generate_never_replaces_the_library_it_draws_from(run, specs, tmp_path, option):
    library = str(specs / "rally_risk" / "sections.yaml")
    before = digest(library)
    other = ["--render", str(tmp_path / "race.pdf")] if option == "-o" else ["-o", str(tmp_path / "race.yaml")]
    result = run("generate", "rally_risk", "--library", library, "--seed", "1", option, library, *other)
    refused(result, library, library)
    assert digest(library) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["track_specs"]


def test_two_outputs_that_are_one_file_through_a_link_are_refused(run, specs, tmp_path):
    """generate -o new.yaml --render lnk.pdf, lnk.pdf a link to new.yaml (not there yet):
    the PDF would have replaced the spec; and a calendar folder where the PDF's name is a link
    to the spec's. Both refused, nothing written."""
    link = tmp_path / "lnk.pdf"
    link.symlink_to(tmp_path / "new.yaml")
    result = run("generate", "rallytaire", "--seed", "3", "-o", str(tmp_path / "new.yaml"), "--render", str(link))
    assert result.exit_code == 2 and result.stderr.endswith("Error: -o and --render name the same file; give the PDF another name\n")
    assert not (tmp_path / "new.yaml").exists() and link.is_symlink()
    cal = tmp_path / "cal"
    cal.mkdir()
    (cal / "championship-seed1.pdf").symlink_to(cal / "championship-seed1.yaml")
    result = run("calendar", str(specs / "rally_risk" / "championship.yaml"), "--seed", "1", "-o", str(cal))
    assert result.exit_code == 1
    assert result.stderr == f"sheetgen: error: two outputs of this command would be the same file: {cal / 'championship-seed1.yaml'} and {cal / 'championship-seed1.pdf'}\n"
    assert sorted(p.name for p in cal.iterdir()) == ["championship-seed1.pdf"]


def test_a_written_file_keeps_the_mode_of_the_file_it_replaces_and_a_new_one_follows_the_umask(run, specs, tmp_path):
    spec = str(specs / "rallytaire" / "acropolis.yaml")
    old = os.umask(0o077)
    try:
        assert run("render", spec, "-o", str(tmp_path / "new.pdf")).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.pdf").stat().st_mode) == 0o600
    os.umask(0o022)
    try:
        mine = tmp_path / "mine.pdf"
        mine.write_bytes(b"old")
        mine.chmod(0o640)
        assert run("render", spec, "-o", str(mine)).exit_code == 0
        assert stat.S_IMODE(mine.stat().st_mode) == 0o640 and mine.read_bytes().startswith(b"%PDF-")
        assert run("render", spec, "-o", str(tmp_path / "plain.pdf")).exit_code == 0
        assert stat.S_IMODE((tmp_path / "plain.pdf").stat().st_mode) == 0o644
    finally:
        os.umask(old)


# -- what a shell's redirection holds, write-protected files, output that fails (issue 33) ----

import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from conftest import ROOT, VALID  # noqa: E402

DATA = ROOT / "tests" / "data" / "rallyman"


def sheetgen_sh(line: str, cwd) -> subprocess.CompletedProcess:
    """Run `sheetgen ...` as a real process under a shell, with its redirections."""
    quoted = f"{sys.executable!s} -m sheetgen"
    return subprocess.run(["bash", "-c", line.replace("sheetgen ", quoted + " ", 1)], cwd=cwd, capture_output=True, timeout=300)


@pytest.fixture
def race(tmp_path):
    path = tmp_path / "race.yaml"
    path.write_text(VALID, encoding="utf-8")
    return path


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="no /proc/self/fd here")
@pytest.mark.parametrize(
    "target, redirect",
    [("/dev/stdout", ">> log.txt"), ("/dev/stderr", "2>> log.txt"), ("/proc/self/fd/1", ">> log.txt"), ("/dev/fd/3", "3>> log.txt")],
)
def test_an_output_naming_a_descriptor_appends_where_the_shell_appends(race, tmp_path, target, redirect):
    """`render SPEC -o /dev/stdout >> log.txt` replaced log.txt with the PDF (renamed onto the
    file behind the descriptor); it is written through the descriptor, as -o - is."""
    (tmp_path / "log.txt").write_bytes(b"the log so far\n")
    done = sheetgen_sh(f"sheetgen render race.yaml -o {target} {redirect}", tmp_path)
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "log.txt").read_bytes()
    assert log.startswith(b"the log so far\n%PDF-1.4") and log.rstrip().endswith(b"%%EOF")
    # the same bytes as a file written by name
    assert sheetgen_sh("sheetgen render race.yaml -o plain.pdf", tmp_path).returncode == 0
    assert log == b"the log so far\n" + (tmp_path / "plain.pdf").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt", "plain.pdf", "race.yaml"]


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="no /proc/self/fd here")
@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_a_generated_spec_written_through_a_descriptor_names_its_library_from_the_file_behind_it(specs, tmp_path, target):
    """`generate rally-risk --library LIB -o /dev/fd/1 >> log` was refused (the library named
    from /dev/fd, whose `..` is /proc/self) and `-o /dev/stdout` wrote it as ../tmp/...: the
    path starts from the file the descriptor writes, as for that file named (fuzz harness)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "log.txt").write_bytes(b"# the log so far\n")
    line = "sheetgen generate rally-risk --seed 1 --library track_specs/rally_risk/sections.yaml -o"
    done = sheetgen_sh(f"{line} {target} >> sub/log.txt", tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert sheetgen_sh(f"{line} sub/named.yaml", tmp_path).returncode == 0
    named = (tmp_path / "sub" / "named.yaml").read_bytes()
    assert b"\nlibrary: ../track_specs/rally_risk/sections.yaml\n" in named
    assert (tmp_path / "sub" / "log.txt").read_bytes() == b"# the log so far\n" + named


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="no /proc/self/fd here")
def test_a_descriptor_this_command_has_not_or_another_process_has_is_refused(race, tmp_path):
    done = sheetgen_sh("sheetgen render race.yaml -o /dev/fd/7", tmp_path)
    assert (done.returncode, done.stderr) == (1, b"sheetgen: error: cannot write /dev/fd/7: this command has no open descriptor 7\n")
    done = sheetgen_sh("sheetgen render race.yaml -o /proc/1/fd/1", tmp_path)
    assert (done.returncode, done.stderr) == (1, b"sheetgen: error: refusing to write /proc/1/fd/1: it is an open file of another process; name the file itself\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race.yaml"]


@pytest.mark.parametrize(
    "args",
    [
        ("render", "{race}", "-o", "{target}"),
        ("build", "{race}", "-o", "{folder}"),
        ("generate", "rallytaire", "--seed", "3", "-o", "{target}"),
        ("generate", "rallytaire", "--seed", "3", "-o", "{other}", "--render", "{target}"),
        ("standings", "{results}", "-o", "{target}"),
        ("season", "{season}", "--no-par", "-o", "{target}"),
        ("import", "rekee", "{rekee}", "--tiles", "{tiles}", "-o", "{target}"),
        ("export", "rekee", "{track}", "-o", "{target}"),
    ],
)
def test_a_write_protected_file_is_refused_unless_forced(run, specs, race, tmp_path, args):
    """A file with no write bit was replaced by the atomic rename, where a shell's `>` refuses
    it; refused before any work, replaced with --force."""
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / ("race.pdf" if args[0] == "build" else "kept")
    target.write_bytes(b"keep me")
    target.chmod(0o444)
    names = {
        "race": race, "target": target, "folder": folder, "other": tmp_path / "new.yaml",
        "results": specs / "rally_risk" / "results.yaml", "season": specs / "seasons" / "winter_season.yaml",
        "rekee": DATA / "track.json", "tiles": DATA / "box.yaml", "track": tmp_path / "track.yaml",
    }
    # a track of tiles Rekee knows (the box's ids have Rekee's shape; sheetgen's own tiles have none)
    (tmp_path / "track.yaml").write_text(
        f'game: rallyman\nvariant: gt\nname: T\nlibrary: "{DATA / "box.yaml"}"\ntiles:\n  - {{id: "901a", q: 0, r: 0}}\n',
        encoding="utf-8",
    )
    given = [a.format(**names) for a in args]
    result = run(*given)
    assert (result.exit_code, result.stderr) == (1, f"sheetgen: error: refusing to write {target}: it is write-protected (mode 0444); give --force to replace it\n")
    assert target.read_bytes() == b"keep me" and not (tmp_path / "new.yaml").exists()
    result = run(*given, "--force")
    assert result.exit_code == 0, result.output
    assert target.read_bytes() != b"keep me"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444  # (it keeps its mode, as any replaced file)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize(
    "line, written",
    [
        ("sheetgen build race.yaml -o out > /dev/full", "out"),
        ("sheetgen standings track_specs/rally_risk/results.yaml -o out.pdf > /dev/full", "out.pdf"),
        ("sheetgen season track_specs/seasons/winter_season.yaml --no-par -o out.pdf > /dev/full", "out.pdf"),
        pytest.param(  # a championship's analysis (2.5 s): the other commands' cases check the order
            "sheetgen calendar track_specs/rally_risk/championship.yaml --seed 1 --jobs 1 -o out > /dev/full", "out", marks=pytest.mark.slow
        ),
        ("sheetgen generate rallytaire --seed 3 -o out.yaml --render - > /dev/full", "out.yaml"),
        # a rally makes its folder (and the missing ones above it) before its stages are laid:
        # each is taken back (found by the fuzz harness: exit 1, but the folder made)
        pytest.param(
            "sheetgen rally --library track_specs/rallyman/tiles.yaml --seed 4 --stages 1 --length 12..30 "
            "--difficulty hard -o rallies/winter > /dev/full",
            "rallies",
            id="sheetgen rally -o rallies/winter > /dev/full",
        ),
        # a generator's warning about the set it wrote is said once the set is written, so a
        # failed command says only its error (found by the fuzz harness: "the set written"
        # said, then the error, nothing written)
        pytest.param(
            "sheetgen generate rally_run --seed 148360 --players 3 --target-turns 6 -o out.yaml --render - > /dev/full",
            "out.yaml",
            id="sheetgen generate rally_run --target-turns 6 (a warning) > /dev/full",
        ),
    ],
)
def test_nothing_is_written_when_what_the_command_prints_fails(specs, race, tmp_path, line, written):
    """The report went to standard output after the files were in place: exit 1, files
    written. It goes first now: when it fails, no file is written."""
    done = sheetgen_sh(line, tmp_path)
    assert (done.returncode, done.stderr) == (1, b"sheetgen: error: No space left on device\n")
    assert not (tmp_path / written).exists()


def test_standard_output_closed_is_one_line(race, tmp_path):
    done = sheetgen_sh("sheetgen render race.yaml -o - >&-", tmp_path)
    assert (done.returncode, done.stderr) == (1, b"sheetgen: error: cannot write to standard output: it is closed\n")


@pytest.mark.parametrize(
    "line, written",
    [
        pytest.param(  # a championship's analysis (4 s): worker processes with no standard output are the next case's too
            "sheetgen calendar track_specs/rally_risk/championship.yaml --seed 1 --jobs 2 -o out >&-", "out", marks=pytest.mark.slow
        ),
        ("sheetgen build race.yaml -o out --jobs 2 >&-", "out"),
        ("sheetgen generate rallytaire --seed 3 --stages 1 -o out.yaml --render - >&-", "out.yaml"),
        pytest.param(  # a one-stage rally (1.5 s of CPU): its case > /dev/full runs in the default suite
            "sheetgen rally --library track_specs/rallyman/tiles.yaml --seed 4 --stages 1 --length 12..30 "
            "--difficulty hard -o rally >&-",
            "rally",
            marks=pytest.mark.slow,
            id="sheetgen rally -o rally >&-",
        ),
        ("sheetgen validate race.yaml >&-", None),
        ("sheetgen --version >&-", None),
    ],
)
def test_a_closed_standard_output_fails_the_command_before_anything_is_written(specs, race, tmp_path, line, written):
    """With standard output closed (found by the fuzz harness), a command that starts worker
    processes failed with an internal error (loky flushes sys.stdout, None then), and one that
    prints a report lost it and said nothing (exit 0); either fails in one line now, before
    any file is written, as on a full disk."""
    done = sheetgen_sh(line, tmp_path)
    assert (done.returncode, done.stderr) == (1, b"sheetgen: error: cannot write to standard output: it is closed\n")
    assert written is None or not (tmp_path / written).exists()


def test_a_closed_standard_error_takes_nothing_from_the_command(race, tmp_path):
    """`2>&-`: worker processes start (loky flushes sys.stderr too), the files are written."""
    done = sheetgen_sh("sheetgen build race.yaml -o out --jobs 2 2>&-", tmp_path)
    assert (done.returncode, done.stdout) == (0, b"built 1 spec: 1 page, 1 file written to out/\n")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["race.pdf"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_nobody_reads_is_refused_before_the_work_and_one_read_gets_the_pdf(run, tmp_path, monkeypatch):
    """An unread FIFO as -o was found only after the whole render; it is refused before the
    spec's figures are solved, and a FIFO a process reads stays open for it from the check
    to the write (closing it in between would end the reader's input)."""
    from sheetgen import registry

    fifo = tmp_path / "out.pdf"
    os.mkfifo(fifo)
    spec = str(SPECS / "rallyman" / "tiny.yaml")
    solved = []
    monkeypatch.setattr(registry.Figures, "get", lambda self: solved.append(1) or None)
    result = run("render", spec, "-o", str(fifo))
    assert (result.exit_code, result.stderr) == (1, f"sheetgen: error: cannot write {fifo}: it is a named pipe and no process is reading it\n")
    assert solved == []
    monkeypatch.undo()
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    try:
        for _ in range(600):  # until the reader has the pipe open (it is refused before)
            result = run("render", spec, "-o", str(fifo))
            if result.exit_code == 0 or "no process is reading it" not in result.stderr:
                break
            time.sleep(0.1)
        assert result.exit_code == 0, result.output
    finally:
        reader.join(timeout=60)
    assert got and got[0].startswith(b"%PDF-1.4") and got[0].rstrip().endswith(b"%%EOF")


def test_closed_standard_streams_are_held_so_no_pipe_takes_their_place(tmp_path):
    """A command started with its standard streams closed holds descriptors 0, 1 and 2 at once
    (/dev/null; 1 opened for reading, so that a write to it still fails as to a closed one):
    the first pipe it makes no longer lands on 1, where worker processes started later took it
    as their standard output (a fuzz finding: `build --jobs 2 >&-` hung one time in six, the
    worker pool's pipe sitting on descriptor 1; 0 in 20 since)."""
    script = (
        "import errno, os\n"
        "from sheetgen.cliutil import attach_closed_streams\n"
        "attach_closed_streams()\n"
        "r, w = os.pipe()\n"
        "try:\n"
        "    os.write(1, b'x')\n"
        "except OSError as exc:\n"
        "    failed = exc.errno\n"
        "else:\n"
        "    failed = 0\n"
        "os.write(w, b'%d %d %d' % (r, w, failed))\n"
        "os.close(w)\n"
        "open(os.environ['REPORT'], 'wb').write(os.read(r, 100))\n"
    )
    report = tmp_path / "report.txt"
    done = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -c "$SCRIPT" <&- >&- 2>&-'],
        env={**os.environ, "PYTHONPATH": str(ROOT), "SCRIPT": script, "REPORT": str(report)},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0
    r, w, failed = (int(v) for v in report.read_text().split())
    assert r > 2 and w > 2 and failed == errno.EBADF
