"""The contract for a new game: a game is one package plus one registry line.

A tiny stub game, defined here in a few lines (one kind of file, a trivial analysis, a seeded
playout, figures of its own and a strict check on them, a one-page printable), is registered and driven through the real CLI: validate,
analyze, simulate, render and build work on it with no change to sheetgen's core code.
"""

from __future__ import annotations

import random

import pytest
from pypdf import PdfReader

from conftest import VALID
from sheetgen import registry
from sheetgen.errors import SpecError
from sheetgen.registry import Converter, Game, Kind, Option, Printable, Report
from sheetgen.template import TemplateSize

STUB = """\
game: stub
name: Two Bends
bends: 2
"""


def _load(doc):
    data = doc.data
    if data.get("kind") == "results":  # a results file: drivers' times
        return tuple(sorted(data["times"].items(), key=lambda item: (item[1], item[0])))
    problems = [doc.problem((key,), f"unknown key {key!r}") for key in data if key not in ("game", "name", "bends")]
    if not isinstance(data.get("bends"), int) or not 0 <= data["bends"] <= 9:
        problems.append(doc.problem(("bends",), "'bends' must be a whole number from 0 to 9"))
    if problems:
        raise SpecError(problems)
    return (data["name"], data["bends"])


def _analyze(spec, options):
    name, bends = spec.model
    turns = bends * options["care"] + 1
    return Report({"name": name, "turns": turns}, f"{name}: {turns} turns")


def _simulate(spec, options):
    name, bends = spec.model
    return lambda seed: [f"{name}, bend {k + 1}: rolled {random.Random(seed * 10 + k).randint(1, 6)}" for k in range(bends)]


#: a size of the stub's own that a template may give (no core code names it)
BADGE_MM = TemplateSize("badge_mm", 5, 50, 20.0)


#: the specs the stub's figures were solved for, in order (its "solver" says when it runs)
SOLVED: list[str] = []


def _figures(spec):
    """The stub's figures of its own (Game.figures): a par in turns, two a bend and one more."""
    name, bends = spec.model
    SOLVED.append(name)
    return {"par_turns": 2 * bends + 1}


def _strict(spec, figures):
    """A stub track whose par is over 15 turns cannot be finished (the stub's own rule)."""
    par = figures.get()["par_turns"]
    return [spec.document.problem(("bends",), f"a par of {par} turns cannot be finished")] if par > 15 else []


def print_stub(spec, template, *, paper, ink, keywords, figures):
    """The stub's one-page printable, drawn with the shared PDF machinery and its figures."""
    from sheetgen.render.pdf import Meta, render_pdf

    name, bends = spec.model

    def draw(sheet):
        sheet.text(sheet.left, sheet.top - 20, f"{name}: {bends} bends, par {figures['par_turns']} turns", "title", bold=True)
        sheet.text(sheet.left, sheet.top - 40, f"badge {template.size(BADGE_MM):g} mm", "body")
        sheet.end_page()

    return render_pdf(template, ink, paper, Meta(title=name, subject="stub sheet", keywords=keywords), draw)


def _odds(options):
    bends = options["bends"]
    return Report({"all_safe": f"1/{2**bends}"}, f"{bends} bends, all safe: 1/{2**bends}")


def _standings(spec, options):
    return Report([name for name, _time in spec.model], ", ".join(f"{k + 1}. {name}" for k, (name, _time) in enumerate(spec.model)))


def _read_bends(path, target, options):
    """The stub's foreign format: a file whose first line is the number of bends."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline().strip()
    if not first.isdigit():
        raise SpecError([_problem(path, "the first line must be the number of bends")])
    return f"game: stub\nname: {options['name']}\nbends: {int(first)}\n", ()


def _problem(path, message):
    from sheetgen.errors import Location, Problem

    return Problem(Location(path, 1, 1), message)


def _write_bends(spec, options):
    return f"{spec.model[1]}\n".encode()


def _commands():
    """The stub's own command (Game.commands): `sheetgen par SPEC [-o PDF]`, its par from its
    own figures, and with -o its sheet printed as build prints it."""
    import click

    from sheetgen.cliutil import reports_errors, write_pdf
    from sheetgen.render import build_outputs

    @click.command("par")
    @click.argument("spec")
    @click.option("-o", "--output", "target", default=None)
    @reports_errors
    def par(spec, target):
        """Print a stub track's par.

        \b
        Example:
          sheetgen par stub.yaml
        """
        loaded = registry.load_spec(spec)
        figures = registry.Figures(loaded)

        def say():
            click.echo(f"{loaded.model[0]}: par {figures.get()['par_turns']} turns")

        if target is None:
            say()
        else:
            pdf, _pages = build_outputs(loaded, figures=figures)
            write_pdf(target, pdf, inputs=loaded.sources, force=False, announce=say)

    return [par]


STUB_GAME = Game(
    name="stub",
    title="Stub",
    schema=lambda: {"type": "object"},
    load=_load,
    summary=lambda model: f"{model[1]} bends",
    kinds=(Kind("track", "a stub track"), Kind("results", "drivers' times")),
    template="race_sheet",
    template_sizes=(BADGE_MM,),
    options=(
        Option("care", "turns per bend (default: 2)", ("analyze",), between=(1, 3), default=2),
        Option("bends", "bends of the plan", ("odds",), between=(0, 9), default=1),
        Option("name", "the imported track's name", ("import",), default="Imported"),
    ),
    odds=_odds,
    standings=_standings,
    converters=(Converter("bends", "a file of one number: the bends", ".txt", read=_read_bends, write=_write_bends),),
    analyze=_analyze,
    simulate=_simulate,
    printables=(Printable("stub sheet", ("track",), f"{__name__}:print_stub"),),
    figures=_figures,
    strict=_strict,
    commands=_commands,
)


@pytest.fixture
def stub(tmp_path):
    registry.register(STUB_GAME)
    path = tmp_path / "stub.yaml"
    path.write_text(STUB, encoding="utf-8")
    yield str(path)
    registry.unregister("stub")


def test_validate(run, stub):
    result = run("validate", stub)
    assert (result.exit_code, result.stdout) == (0, f"{stub}: ok (Stub: 2 bends)\n")


def test_validate_locates_the_stubs_own_errors(run, stub, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: stub\nname: X\nbends: 12\n", encoding="utf-8")
    result = run("validate", str(bad))
    assert (result.exit_code, result.stderr) == (1, f"{bad}:3:8: error: 'bends' must be a whole number from 0 to 9\n")


def test_analyze_with_the_stubs_declared_option(run, stub):
    assert run("analyze", stub).stdout == "Two Bends: 5 turns\n"
    assert run("analyze", stub, "--format", "json", "--care", "3").stdout == '{\n  "name": "Two Bends",\n  "turns": 7\n}\n'


def test_an_option_of_another_game_is_a_usage_error(run, stub):
    result = run("analyze", stub, "--rules", "advanced")
    assert result.exit_code == 2
    assert result.stderr.endswith(f"\nError: --rules is for Rallytaire; {stub} is a Stub spec\n")


def test_simulate_is_seeded(run, stub):
    one = run("simulate", stub, "--seed", "4")
    assert one.exit_code == 0
    expected = [f"Two Bends, bend {k + 1}: rolled {random.Random(40 + k).randint(1, 6)}" for k in range(2)]
    assert one.stdout.splitlines() == expected


def test_render_and_build(run, stub, tmp_path):
    target = tmp_path / "stub.pdf"
    SOLVED.clear()
    assert run("render", stub, "-o", str(target)).exit_code == 0
    assert SOLVED == ["Two Bends"]  # solved once, for the strict check and the printout both
    reader = PdfReader(str(target))
    assert len(reader.pages) == 1 and "Two Bends: 2 bends, par 5 turns" in reader.pages[0].extract_text()
    out = tmp_path / "out"
    result = run("build", stub, "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"built 1 spec: 1 page, 1 file written to {out}/\n"
    assert (out / "stub.pdf").read_bytes() == target.read_bytes()


def test_the_stubs_own_figures_and_strict_check(run, stub, tmp_path):
    """A game's figures reach its strict check and its printable with no core change: a
    stub track of 8 bends (par 17 turns) is refused by validate --strict, build and render,
    at its bends, and --draft prints it with its figures."""
    long = tmp_path / "long.yaml"
    long.write_text(STUB.replace("bends: 2", "bends: 8"), encoding="utf-8")
    message = f"{long}:3:8: error: a par of 17 turns cannot be finished\n"
    assert run("validate", str(long)).exit_code == 0
    for args in (("validate", "--strict", str(long)), ("build", str(long), "-o", str(tmp_path / "out")), ("render", str(long), "-o", str(tmp_path / "x.pdf"))):
        result = run(*args)
        assert (result.exit_code, result.stderr) == (1, message), args
    assert not (tmp_path / "out").exists() and not (tmp_path / "x.pdf").exists()
    SOLVED.clear()
    assert run("render", str(long), "-o", str(tmp_path / "x.pdf"), "--draft").exit_code == 0
    assert SOLVED == ["Two Bends"]
    assert "Two Bends: 8 bends, par 17 turns" in PdfReader(str(tmp_path / "x.pdf")).pages[0].extract_text()


def test_the_stubs_own_template_size(run, stub, tmp_path):
    """A game declares the sizes it reads from a template (Game.template_sizes): a template
    gives the stub's badge_mm, in its range, with no change to the template code; once the
    stub is gone no game reads that size, and the same template is refused there."""
    from sheetgen.template import _templates

    text = _templates().joinpath("race_sheet.yaml").read_text(encoding="utf-8")
    mine = tmp_path / "mine.yaml"
    mine.write_text(text.replace("\nspace_mm: 8 ", "\nbadge_mm: 32 "), encoding="utf-8")
    for extra, words in (((), "badge 20 mm"), (("--template", str(mine)), "badge 32 mm")):
        target = tmp_path / "stub.pdf"
        assert run("render", stub, "-o", str(target), *extra).exit_code == 0
        assert words in PdfReader(str(target)).pages[0].extract_text()
    mine.write_text(text.replace("\nspace_mm: 8 ", "\nbadge_mm: 51 "), encoding="utf-8")
    result = run("render", stub, "-o", str(tmp_path / "no.pdf"), "--template", str(mine))
    assert (result.exit_code, result.stderr) == (1, f"{mine}:6:11: error: 'badge_mm' must be at most 50, got 51\n")
    mine.write_text(text.replace("\nspace_mm: 8 ", "\nbadge_mm: 32 "), encoding="utf-8")
    registry.unregister("stub")
    try:
        race = tmp_path / "race.yaml"
        race.write_text(VALID, encoding="utf-8")
        result = run("render", str(race), "-o", str(tmp_path / "no.pdf"), "--template", str(mine))
        assert result.exit_code == 1 and result.stderr.startswith(f"{mine}:6:1: error: unknown key 'badge_mm'")
    finally:
        registry.register(STUB_GAME)


def test_schema_lists_the_stub(run, stub):
    assert run("schema", "stub").stdout == '{\n  "type": "object"\n}\n'


def test_a_game_without_a_command_says_so(run, stub):
    result = run("tables", "stub")
    assert result.exit_code == 2  # click's choice of games with tables: the stub has none


def test_standings_of_the_stubs_results_file(run, stub, tmp_path):
    results = tmp_path / "cup.yaml"
    results.write_text("game: stub\nkind: results\ntimes: {Ana: 31, Ben: 29}\n", encoding="utf-8")
    assert run("standings", str(results)).stdout == "1. Ben, 2. Ana\n"
    assert run("standings", str(results), "--format", "json").stdout == '[\n  "Ben",\n  "Ana"\n]\n'
    # the stub's report has no tables (`Report.tables`): no forum post to make of it
    result = run("standings", str(results), "--format", "bbcode")
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"{results}:2:7: error: Stub's standings have no tables for --format bbcode\n")
    result = run("standings", stub)  # a track, not a results file
    assert (result.exit_code, result.stderr) == (1, f"{stub}:1:7: error: a Stub track; sheetgen standings needs a results file (kind: results) of Rally Risk, Rallyman or Stub\n")


def test_odds_with_the_stubs_declared_option(run, stub):
    assert run("odds", "stub", "--bends", "3").stdout == "3 bends, all safe: 1/8\n"
    assert run("odds", "stub", "--format", "json").stdout == '{\n  "all_safe": "1/2"\n}\n'
    assert run("odds", "stub", "--care", "2").exit_code == 2  # an analyze option, not an odds one


def test_import_and_export_through_the_stubs_converter(run, stub, tmp_path):
    foreign = tmp_path / "three.txt"
    foreign.write_text("3\n", encoding="utf-8")
    target = tmp_path / "three.yaml"
    result = run("import", "bends", str(foreign), "--name", "Three", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == "game: stub\nname: Three\nbends: 3\n"
    assert run("validate", str(target)).exit_code == 0
    assert run("export", "bends", str(target)).stdout == "3\n"
    again = tmp_path / "again.txt"
    assert run("export", "bends", str(target), "-o", str(again)).exit_code == 0
    assert again.read_bytes() == foreign.read_bytes()


def test_import_refuses_what_the_spec_cannot_hold_and_writes_nothing(run, stub, tmp_path):
    foreign = tmp_path / "many.txt"
    foreign.write_text("12\n", encoding="utf-8")  # a stub has at most 9 bends
    target = tmp_path / "many.yaml"
    result = run("import", "bends", str(foreign), "-o", str(target))
    assert result.exit_code == 1
    assert result.stderr == f"{target}:3:8: error: 'bends' must be a whole number from 0 to 9\n"
    assert not target.exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("three\n", encoding="utf-8")
    assert run("import", "bends", str(bad), "-o", str(target)).stderr == f"{bad}:1:1: error: the first line must be the number of bends\n"


def test_import_never_replaces_its_input(run, stub, tmp_path):
    foreign = tmp_path / "three.txt"
    foreign.write_text("3\n", encoding="utf-8")
    result = run("import", "bends", str(foreign), "-o", str(foreign))
    assert result.exit_code == 1 and foreign.read_text(encoding="utf-8") == "3\n"


def test_an_unknown_format_is_a_usage_error(run, stub):
    assert run("import", "nope", "x.json").exit_code == 2
    assert run("export", "nope", "x.yaml").exit_code == 2


def test_build_in_worker_processes_knows_the_registered_game(run, stub, tmp_path):
    """`build` loads each spec in a worker process: a game registered here is registered there."""
    second = tmp_path / "more" / "stub2.yaml"
    second.parent.mkdir()
    second.write_text(STUB, encoding="utf-8")
    out = tmp_path / "out"
    result = run("build", stub, str(second), "-o", str(out), "-q", "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"built 2 specs: 2 pages, 2 files written to {out}/\n"
    assert (out / "stub.pdf").read_bytes() == (out / "stub2.pdf").read_bytes()


def test_the_stubs_own_command(run, stub, tmp_path):
    """A game's own command, with no core change: listed in the help, run with its figures
    solved once, printing what render prints; gone with the game."""
    assert "  par " in run("--help").stdout
    SOLVED.clear()
    assert run("par", stub).stdout == "Two Bends: par 5 turns\n"
    target = tmp_path / "par.pdf"
    result = run("par", stub, "-o", str(target))
    assert (result.exit_code, result.stdout) == (0, "Two Bends: par 5 turns\n")
    assert SOLVED == ["Two Bends", "Two Bends"]  # once a command
    assert run("render", stub, "-o", str(tmp_path / "r.pdf")).exit_code == 0
    assert target.read_bytes() == (tmp_path / "r.pdf").read_bytes()
    assert run("par", str(tmp_path / "missing.yaml")).exit_code == 1
    registry.unregister("stub")
    result = run("par", stub)
    assert result.exit_code == 2 and "No such command 'par'" in result.stderr
    registry.register(STUB_GAME)  # (the fixture unregisters it)
