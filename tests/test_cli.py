"""The command line as a user meets it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import ROOT, SPECS, VALID, files_under
from sheetgen import __version__
from sheetgen.cli import main

COMMANDS = main.list_commands(click.Context(main))  # sheetgen's own and the games' (Game.commands)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_ending_with_an_example(run, name):
    result = run(name, "-h")
    assert result.exit_code == 0
    text = result.stdout
    assert "Example:" in text
    assert text.index("Example:") > text.index("-h, --help")  # after the options: the last thing
    example = text.split("Example:")[1].strip().splitlines()[0].strip()
    assert example.startswith(f"sheetgen {name}")


def test_the_main_help_ends_with_an_example(run):
    text = run("--help").stdout
    assert text.index("Example:") > text.index("validate") and text.rstrip().endswith("into output/")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_in_the_readme(name):
    assert f"sheetgen {name}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_version(run):
    assert run("--version").stdout == f"sheetgen, version {__version__}\n"


def test_python_dash_m():
    result = subprocess.run([sys.executable, "-m", "sheetgen", "--version"], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"sheetgen, version {__version__}"


KEPT = {
    "rallytaire/thousand_lakes.yaml",
    "rally_risk/sections.yaml",
    "rally_run/house_set.yaml",
    "rallyman/tiny.yaml",
    "rallyman/tiles.yaml",
}


def test_build_default_writes_one_pdf_per_spec_found(run, in_tmp):
    import shutil

    from sheetgen.registry import load_spec
    from sheetgen.render import can_render

    shutil.copytree(ROOT / "track_specs", in_tmp / "track_specs")
    # a spec or two of every game and folder (the golden build report, tests/golden/build-report,
    # builds every bundled spec): what `build` finds by itself, in folders and subfolders
    for path in (in_tmp / "track_specs").rglob("*.yaml"):
        if path.relative_to(in_tmp / "track_specs").as_posix() not in KEPT:
            path.unlink()
    result = run("build")
    assert result.exit_code == 0, result.output
    paths = sorted(p.relative_to(in_tmp).as_posix() for p in (in_tmp / "track_specs").rglob("*.yaml"))
    loaded = {path: load_spec(path) for path in paths}
    specs = sorted(Path(path).stem for path, spec in loaded.items() if can_render(spec))
    assert files_under(in_tmp / "output") == [f"{s}.pdf" for s in specs]
    assert specs == ["house_set", "sections", "thousand_lakes", "tiles", "tiny"]  # every game's files print
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"built {len(specs)} specs: ") and last.endswith(f"{len(specs)} files written to output/")
    # not a terminal: no progress lines; specs that have no printables yet are named
    unprinted = [(path, spec) for path, spec in loaded.items() if not can_render(spec)]
    assert result.stderr.splitlines() == [f"{path}: valid; no printable sheets for {spec.game.title} yet" for path, spec in unprinted]


def test_build_without_specs_folder_explains(run, in_tmp):
    result = run("build")
    assert result.exit_code == 1
    assert result.stderr == "sheetgen: error: no SPEC given and no track_specs/ folder here; run in the project folder or name the specs\n"


def test_build_refuses_two_specs_writing_one_file(run, write, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write(VALID, "a/race.yaml")
    two = write(VALID, "b/race.yaml")
    result = run("build", "-o", str(tmp_path / "out"), one, two)
    assert result.exit_code == 1
    assert "would both write race.pdf" in result.stderr
    assert files_under(tmp_path / "out") == []


def test_build_is_byte_identical(run, write, tmp_path):
    spec = write(VALID)
    run("build", "-q", "-o", str(tmp_path / "one"), spec)
    run("build", "-q", "-o", str(tmp_path / "two"), spec)
    assert (tmp_path / "one" / "spec.pdf").read_bytes() == (tmp_path / "two" / "spec.pdf").read_bytes()


def test_schema_is_json_schema(run):
    import json

    import jsonschema

    from sheetgen.yamlsrc import load_file, load_text

    schema = json.loads(run("schema", "rallytaire").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    # a race and a season are both Rallytaire specs; a race with a season's key is neither
    for path in sorted((SPECS / "rallytaire").glob("*.yaml")):
        assert validator.is_valid(load_file(path).data), path
    season = "game: rallytaire\nkind: season\nname: S\nraces:\n  - race: a.yaml\n  - generate: {seed: 1}\n"
    assert validator.is_valid(load_text(season).data)
    assert not validator.is_valid(load_text(season.replace("kind: season\n", "")).data)


def test_usage_error_is_not_a_traceback():
    result = CliRunner().invoke(main, ["validate"])
    assert result.exit_code == 2
    assert "Missing argument 'SPECS...'" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def _run_on_terminal(args: list[str], cwd, stdout_tty: bool, stderr_tty: bool):
    """Run sheetgen with stdout and/or stderr on a pseudo-terminal; returns (code, out, err)."""
    import os
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "sheetgen", *args],
            cwd=cwd,
            stdout=slave if stdout_tty else subprocess.PIPE,
            stderr=slave if stderr_tty else subprocess.PIPE,
            timeout=120,
        )
        os.close(slave)
        slave = None
        chunks = []
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        terminal = b"".join(chunks).decode()
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    out = terminal if stdout_tty else proc.stdout.decode()
    err = terminal if stderr_tty else proc.stderr.decode()
    return proc.returncode, out, err


def test_render_refuses_to_write_a_pdf_to_a_terminal(write, tmp_path):
    spec = write(VALID)
    code, out, _err = _run_on_terminal(["render", spec, "-o", "-"], tmp_path, stdout_tty=True, stderr_tty=False)
    assert code == 1
    assert "%PDF" not in out
    assert _err.strip() == "sheetgen: error: refusing to write a PDF to a terminal; redirect it (> file.pdf) or give -o FILE"


DEAD_END = """\
game: rallyman
variant: gt
name: Dead End
cells:
  - {q: 0, r: 0, heading: 0, lane: 1, start: true}
  - {q: 1, r: 0, heading: 0, lane: 1}
  - {q: 3, r: 0, heading: 0, lane: 1, finish: true}
"""


def test_render_refuses_a_spec_that_cannot_be_played_unless_it_is_a_draft(run, write, tmp_path):
    """A track that validates but cannot be finished is refused as build refuses it (the
    problems of validate --strict, located, exit 1, nothing written); --draft renders it,
    saying the same problems as warnings."""
    spec = write(DEAD_END)
    assert run("validate", spec).exit_code == 0
    target = tmp_path / "dead.pdf"
    lines = [f"{spec}:6:5: {{}}: the track cannot be finished: no finish space is reached from the start; the road stops at cell (1, 0)",
             f"{spec}:7:5: {{}}: cell (3, 0) cannot be reached from the start"]
    refused = run("render", spec, "-o", str(target))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [line.format("error") for line in lines]
    assert not target.exists() and list(tmp_path.iterdir()) == [Path(spec)]
    drafted = run("render", "--draft", spec, "-o", str(target))
    assert drafted.exit_code == 0
    assert drafted.stderr.splitlines() == [line.format("warning") + " (--draft: rendered all the same)" for line in lines]
    assert target.read_bytes().startswith(b"%PDF-")
    # a playable spec renders with no warning, with or without --draft
    assert run("render", "--draft", write(VALID, "ok.yaml"), "-o", str(tmp_path / "ok.pdf")).stderr == ""


def test_render_refuses_a_file_that_is_a_terminal_as_it_refuses_dash(write, tmp_path):
    """-o /dev/stdout on a terminal dumped the PDF onto it (only -o - was refused); -o
    /dev/stdout into a pipe or a file still writes it."""
    spec = write(VALID)
    code, out, err = _run_on_terminal(["render", spec, "-o", "/dev/stdout"], tmp_path, stdout_tty=True, stderr_tty=False)
    assert code == 1 and "%PDF" not in out
    assert err.strip() == "sheetgen: error: refusing to write a PDF to a terminal; redirect it (> file.pdf) or give -o FILE"
    piped = subprocess.run([sys.executable, "-m", "sheetgen", "render", spec, "-o", "/dev/stdout"], capture_output=True, cwd=tmp_path, check=False)
    assert piped.returncode == 0 and piped.stdout.startswith(b"%PDF-")


def test_build_says_every_problem_at_once_of_specs_that_do_not_load_and_of_those_that_cannot_be_played(run, tmp_path):
    """A spec that does not load no longer hides another's problems of playability (they
    came in a second run, once the first was mended): both, in the specs' order."""
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "a.yaml").write_text(DEAD_END, encoding="utf-8")
    (folder / "b.yaml").write_text("game: rallytaire\nname: x\nstages: 5\n", encoding="utf-8")
    result = run("build", "-q", "-o", str(tmp_path / "out"), str(folder))
    assert result.exit_code == 1
    a, b = folder / "a.yaml", folder / "b.yaml"
    assert result.stderr.splitlines() == [
        f"{a}:6:5: error: the track cannot be finished: no finish space is reached from the start; the road stops at cell (1, 0)",
        f"{a}:7:5: error: cell (3, 0) cannot be reached from the start",
        f"{b}:3:9: error: 'stages' must be a list, got 5",
    ]
    assert not (tmp_path / "out").exists()


def test_build_takes_yml_specs_and_a_spec_given_twice_once(run, tmp_path):
    """A folder's .yml and .YAML specs are built as its .yaml ones are (they were skipped with
    no word); a spec named twice, or given and also in a folder given, is built once."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("a.yaml", "b.yml", "C.YAML"):
        (folder / name).write_text(VALID, encoding="utf-8")
    (folder / "notes.txt").write_text("not a spec", encoding="utf-8")
    out = tmp_path / "out"
    result = run("build", "-q", "-o", str(out), str(folder), str(folder / "a.yaml"), str(folder / "a.yaml"))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"built 3 specs: 3 pages, 3 files written to {out}/\n"
    assert sorted(p.name for p in out.iterdir()) == ["C.pdf", "a.pdf", "b.pdf"]


def test_build_shows_progress_on_a_terminal_and_q_silences_it(write, tmp_path):
    spec = write(VALID)
    code, _out, err = _run_on_terminal(["build", "-o", str(tmp_path / "out"), spec], tmp_path, stdout_tty=False, stderr_tty=True)
    assert code == 0
    assert f"[1/1] {spec}" in err
    code, _out, err = _run_on_terminal(["build", "-q", "-o", str(tmp_path / "out"), spec], tmp_path, stdout_tty=False, stderr_tty=True)
    assert code == 0 and err == ""


@pytest.mark.parametrize("command", [("validate",), ("analyze",), ("simulate", "--seed", "1"), ("render", "-o", "x.pdf"), ("season",), ("standings",), ("calendar",), ("tables", "rally-risk", "--spec")])
def test_a_folder_given_as_a_spec_is_one_located_line(run, tmp_path, command):
    folder = tmp_path / "race.yaml"
    folder.mkdir()
    args = [*command, str(folder)] if command[-1] == "--spec" else [command[0], str(folder), *command[1:]]
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr == f"{folder}:1:1: error: is a directory, not a spec file\n"


def test_a_full_disk_under_standard_output_is_one_line():
    """Standard output that fails (here /dev/full) is reported in one line with exit 1, also
    where click itself writes (--help)."""
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    for args in (["timetable"], ["--help"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "sheetgen", *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        assert done.returncode == 1
        assert done.stderr == "sheetgen: error: No space left on device\n"


@pytest.mark.parametrize(
    "args,spec,key,message",
    [
        (("calendar",), "rallytaire/acropolis.yaml", "game", "a Rallytaire spec; sheetgen calendar needs a Rally Risk calendar (kind: calendar)"),
        (("standings",), "rally_risk/safari_1.yaml", "kind", "a Rally Risk race; sheetgen standings needs a results file (kind: results) of Rally Risk or Rallyman"),
        (("standings",), "rallytaire/acropolis.yaml", "game", "a Rallytaire race; sheetgen standings needs a results file (kind: results) of Rally Risk or Rallyman"),
        (("season",), "rally_risk/sections.yaml", "kind", "a Rally Risk spec; sheetgen season needs a Rallytaire season (kind: season)"),
        (("season",), "rallytaire/acropolis.yaml", "game", "a Rallytaire race; sheetgen season needs a Rallytaire season (kind: season)"),
        (("analyze",), "rally_risk/sections.yaml", "kind", "a Rally Risk library, not a race: analysis and simulation need a race (kind: race)"),
    ],
)
def test_a_spec_of_another_kind_is_located_at_its_kind(run, args, spec, key, message):
    """At the value of `kind:`, or of `game:` when the file has no kind."""
    path = SPECS / spec
    lines = path.read_text(encoding="utf-8").splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    line_col = f"{row + 1}:{len(key) + 3}"
    result = run(*args, str(path))
    assert result.exit_code == 1
    assert result.stderr == f"{path}:{line_col}: error: {message}\n"


def test_game_names_with_a_dash_or_an_underscore(run):
    """`tables rally-risk` and `schema rally_risk` both as a user would guess them."""
    assert run("schema", "rally-risk").stdout == run("schema", "rally_risk").stdout != ""
    assert run("tables", "rally_risk").stdout == run("tables", "rally-risk").stdout != ""


@pytest.mark.parametrize(
    "args, message",
    [
        (["render", str(SPECS / "rallytaire" / "acropolis.yaml"), "--template", "nosuch", "-o", "x.pdf"], "unknown template 'nosuch' (built in: race_sheet, rally_risk, rallyman; or give a path)"),
        (["build", "-o", "-"], "-o names a folder here (several files are written); standard output (-) cannot hold them"),
        (["calendar", str(SPECS / "rally_risk" / "championship.yaml"), "--seed", "1", "-o", "-"], "-o names a folder here (several files are written); standard output (-) cannot hold them"),
        (["generate", "rally_run", "--seed", "1", "-o", "a.pdf", "--render", "a.pdf"], "-o and --render name the same file; give the PDF another name"),
        (["generate", "rally_run", "--seed", "1", "--render", "-"], "--render - and the spec would both go to standard output; give the spec a file with -o"),
    ],
)
def test_option_mistakes_are_click_usage_errors(run, in_tmp, args, message):
    """Options that cannot go together, or an unknown template name: click's usage error form,
    exit 2, nothing written."""
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Usage: main {args[0]} [OPTIONS]")  # (click names the group main in-process)
    assert result.stderr.endswith(f"\nError: {message}\n")
    assert result.stdout == "" and sorted(p.name for p in in_tmp.iterdir()) == []
