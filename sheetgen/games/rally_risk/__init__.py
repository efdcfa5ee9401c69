"""Rally: Risk and Evaluation on All Roads in the World (Rally Risk): road sections laid on
the table, a gear chart, a Table of Risks and a Damages Table, weather and mechanics.

Modules: `model` (pure data), `house_tables` and `tables` (the tables and their checks),
`spec` (YAML libraries, races and calendars; the spec format is documented there), `graph`
(layout and course graphs), `rules` (the rules engine), `scoring`, `solve` (exact analysis),
`simulate` (seeded play of several cars) and `report` (the analysis and the play, as text and
JSON).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sheetgen.registry import Game, Generator, Kind, Option, Options, Printable, Report

if TYPE_CHECKING:  # the model loads with the first spec, not with the command line
    from sheetgen.games.rally_risk.model import Calendar, Library, Race, Results


def _house_card(model: Any) -> tuple[str, ...]:
    """A library's PDF and a calendar's end with the reference card of the house tables (a
    calendar's races are played with them): one a job (`Printable.shared`)."""
    from sheetgen.games.rally_risk.tables import card_key, house_tables

    return (card_key(house_tables()),)


def _race_card(model: Any) -> tuple[str, ...]:
    """A race's PDF ends with the reference card of its tables: one a job."""
    from sheetgen.games.rally_risk.tables import card_key

    return (card_key(model.tables),)


def _summary(model: Library | Race | Calendar) -> str:
    from sheetgen.games.rally_risk.model import Calendar, Library, Results

    if isinstance(model, Library):
        n = len(model.sections)
        copies = sum(s.copies for s in model.sections)
        return f"section library, {n} section{'s' if n != 1 else ''}, {copies} in the box"
    if isinstance(model, Calendar):
        n = len(model.rallies)
        races = sum(len(r.races) + len(r.specials) for r in model.rallies)
        laid = ", every race laid out" if model.rallies and model.built else ""
        return f"calendar, {n} rall{'ies' if n != 1 else 'y'}, {races} race{'s' if races != 1 else ''}{laid}"
    if isinstance(model, Results):
        races = sum(len(r.races) for r in model.rallies)
        return (
            f"results, {len(model.players)} drivers, {len(model.rallies)} "
            f"rall{'ies' if len(model.rallies) != 1 else 'y'}, {races} race{'s' if races != 1 else ''}"
        )
    kind = "special race" if model.special else "race"
    n = len(model.course)
    return f"{kind}, zone {model.zone.value}, {n} section{'s' if n != 1 else ''}, {model.length} spaces"


def _figures(spec: Any):
    """`Game.figures`: a race's default analysis (every assistance type, mechanics placed),
    its figures only, without the solved policies, kept in the figures cache between runs
    (`kept.race_figures`): a second `sheetgen build` reads them; nothing for other files."""
    from sheetgen.games.rally_risk.kept import race_figures
    from sheetgen.games.rally_risk.model import Race

    return race_figures(spec.model) if isinstance(spec.model, Race) else None


def _strict(loaded, figures) -> list:
    """A race that the best policy cannot finish (P(elimination) over the threshold); in a
    calendar that lays its races out, every race (the check `sheetgen calendar` makes); in a
    calendar whose races are drawn from its library, a race the library cannot fill, found by
    counting (as `build` and `sheetgen calendar` refuse it before their search)."""
    from sheetgen.games.rally_risk.model import Calendar, Race

    if isinstance(loaded.model, Calendar) and any(r.courses for r in loaded.model.rallies):
        from sheetgen.games.rally_risk.championship import calendar_finishability_problems

        return calendar_finishability_problems(loaded.document, loaded.model)
    if isinstance(loaded.model, Calendar) and loaded.model.sections is not None:
        from sheetgen.games.rally_risk.championship import count_problems

        return [
            loaded.document.problem(path, message)
            for path, message in count_problems(loaded.model, loaded.model.sections)
        ]
    if not isinstance(loaded.model, Race):
        return []
    from sheetgen.games.rally_risk.analysis import finishability_problems

    return finishability_problems(loaded.document, figures.get())


def _load(doc: Any) -> Library | Race | Calendar | Results:
    """The library, race, calendar or results in `doc`, or SpecError listing every problem."""
    import difflib

    from sheetgen.errors import SpecError
    from sheetgen.games.rally_risk.spec import KINDS, load_calendar, load_library, load_race

    data = doc.data
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in KINDS:
        if isinstance(data, dict) and "kind" not in data:
            raise SpecError([doc.problem((), f"missing required key 'kind' (one of: {', '.join(KINDS)})")])
        near = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f", did you mean {near[0]!r}?" if near else f" (one of: {', '.join(KINDS)})"
        raise SpecError([doc.problem(("kind",), f"unknown kind {kind!r}{hint}")])
    if kind == "results":
        from sheetgen.games.rally_risk.results import load_results

        return load_results(doc)
    if kind == "library":
        return load_library(doc)
    if kind == "race":
        return load_race(doc)
    return load_calendar(doc)


def _schema() -> dict:
    from sheetgen.games.rally_risk import spec

    return spec.SCHEMA


def _analyze(loaded: Any, options: Options) -> Report:
    from sheetgen.games.rally_risk.analysis import analyze_rally_risk_race
    from sheetgen.games.rally_risk.report import analysis_to_json, format_analysis_text
    from sheetgen.games.rally_risk.spec import require_race

    result = analyze_rally_risk_race(require_race(loaded), options["assistance"])
    return Report(analysis_to_json(result), format_analysis_text(result))


def _engine_start(loaded: Any, options: Options) -> Any:
    """The race `simulate` plays, as the engine's first state: `--players` cars of the
    `--assistance` given (else normal), with no mechanics and the first tyres (what the
    solver would choose is left out: the state is the engine's, not a policy's)."""
    from sheetgen.games.rally_risk.model import Assistance, Tyres
    from sheetgen.games.rally_risk.rules import Car, Course, RaceState
    from sheetgen.games.rally_risk.spec import require_race

    n = options["players"]
    car = Car(Assistance(options["assistance"] or Assistance.NORMAL))
    return RaceState.start(Course.of(require_race(loaded)), (car,) * n, (next(iter(Tyres)),) * n)


def _oracle_cases() -> Any:
    from sheetgen.games.rally_risk.oracle import cases

    return cases()


def _simulate(loaded: Any, options: Options):
    from sheetgen.games.rally_risk.report import format_race_run
    from sheetgen.games.rally_risk.simulate import simulate
    from sheetgen.games.rally_risk.spec import require_race

    race = require_race(loaded)
    return lambda seed: format_race_run(simulate(race, seed, options["players"], assistance=options["assistance"]))


def _tables(loaded: Any, options: Options) -> Report:
    from sheetgen.games.rally_risk.tables import format_tables_text, tables_in_effect

    data = tables_in_effect(loaded)
    return Report(data, format_tables_text(data))


def _generate(seed: int, options: Options, folder: str = ".") -> str:
    from sheetgen import registry
    from sheetgen.errors import OptionError
    from sheetgen.games.rally_risk import generate
    from sheetgen.games.rally_risk.model import Library, Zone

    if options["library"] is None:
        raise OptionError("--library is needed for Rally Risk: the file of the road sections to draw the course from")
    loaded = registry.load_spec(options["library"])
    if not isinstance(loaded.model, Library):
        raise loaded.wrong(f"{loaded.described('rally_risk')}; --library takes a Rally Risk library (kind: library)")
    path = generate.library_path(options["library"], folder)
    race = generate.generate_race(loaded.model, path, seed, sections=options["sections"], zone=Zone(options["zone"]))
    command = (
        f"sheetgen generate rally_risk --library {options['library']} --seed {seed} --sections {options['sections']} "
        f"--zone {options['zone']}"
    )
    return generate.spec_text(race, command)


def _standings(spec: Any, options: Options) -> Report:
    from sheetgen.games.rally_risk.standings import (
        format_standings_text,
        standings,
        standings_tables,
        standings_to_json,
    )

    st = standings(spec.model)
    return Report(standings_to_json(st), format_standings_text(st), tables=standings_tables(st))


def _commands() -> list:
    """`Game.commands`: `sheetgen calendar`."""
    from sheetgen.games.rally_risk.commands import COMMANDS

    return COMMANDS


GAME = Game(
    name="rally_risk",
    title="Rally Risk",
    schema=_schema,
    load=_load,
    summary=_summary,
    kinds=(
        Kind("race", "a course of road sections laid out on the table"),
        Kind("library", "the road sections of a box, with their copies"),
        Kind("calendar", "a championship's rallies, their races and limits"),
        Kind("results", "a championship as it is played: who finished when", "results file"),
    ),
    template="rally_risk",
    strict=_strict,
    figures=_figures,
    options=(
        Option(
            "assistance",
            "the assistance type (default: all three, the best one used)",
            ("analyze", "simulate"),
            choices=("permanent", "rapid", "normal"),
        ),
        Option(
            "players", "cars, with staggered starts and passing (default: 1)", ("simulate",), between=(1, 6), default=1
        ),
        Option(
            "library",
            "the library of road sections the course is drawn from (needed)",
            ("generate",),
            parse=str,
            metavar="LIBRARY",
        ),
        Option("sections", "road sections in the race (default: 6)", ("generate",), between=(2, 8), default=6),
        Option("zone", "the weather zone (default: EC)", ("generate",), choices=("EC", "EN", "A"), default="EC"),
    ),
    analyze=_analyze,
    simulate=_simulate,
    engine_start=_engine_start,
    oracle_cases=_oracle_cases,
    commands=_commands,
    printables=(
        Printable(
            "section cards and reference card",
            ("library",),
            "sheetgen.render.rally_risk.section_cards:print_library",
            shared=_house_card,
            shared_home=True,
        ),
        Printable(
            "course sheet and reference card",
            ("race",),
            "sheetgen.render.rally_risk.course_sheet:print_race",
            shared=_race_card,
        ),
        Printable("calendar", ("calendar",), "sheetgen.render.rally_risk.calendar:print_calendar", shared=_house_card),
        Printable("standings sheet", ("results",), "sheetgen.render.rally_risk.standings:print_standings"),
    ),
    tables=_tables,
    standings=_standings,
    generator=Generator(_generate, "a new race drawn from a library: laid out on the table and finishable"),
)
