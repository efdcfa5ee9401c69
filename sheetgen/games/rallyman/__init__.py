"""Rallyman GT and Rallyman DIRT: hex tracks laid from tiles, for both games (`variant: gt`
or `variant: dirt`).

Two kinds of file, both `game: rallyman`: a track (kind `track`, the default: tiles placed,
a compact path, explicit cells) and a tile library (kind `tiles`). Modules: `hexgrid` (the
geometry of cells and tiles), `model` (pure data: cells, tiles, tracks, their forward
moves), `compact` (the compact form laid out as cells), `spec` (schemas and loading),
`graph` (the networkx graph of forward moves and the checks that make a track unplayable)
`rekee` (Rekee's track files, read and written), `ruleset` (the dice, dashboards, tables
and house values of both variants, as data) and `odds` (the exact odds of a plan of dice,
flat out and one at a time). docs/rallyman.md and docs/rallyman_rules.md describe them.
"""

from __future__ import annotations

from typing import Any

from sheetgen.games.rallyman.options import ODDS_OPTIONS
from sheetgen.registry import Converter, Game, Generator, Kind, Option, Printable
from sheetgen.template import TemplateSize
from sheetgen.yamlsrc import Document

#: a printed space's size across flats (side to side), read from the template's `hex_mm`:
#: measure one of your box and set it there (docs/rallyman_printing.md)
HEX_MM = TemplateSize("hex_mm", 15, 60, 30.0)


def _load(doc: Document) -> Any:
    from sheetgen.games.rallyman.spec import load

    if isinstance(doc.data, dict) and doc.data.get("kind") == "results":  # results hook (rmdirt)
        from sheetgen.games.rallyman.results import load_results

        return load_results(doc)
    return load(doc)


def _schema() -> dict:
    from sheetgen.games.rallyman.results import RESULTS_SCHEMA  # results hook (rmdirt)
    from sheetgen.games.rallyman.spec import SCHEMA

    return dict(SCHEMA, oneOf=[*SCHEMA["oneOf"], RESULTS_SCHEMA])


def _summary(model: Any) -> str:
    from sheetgen.games.rallyman.model import Library
    from sheetgen.games.rallyman.results import Results

    if isinstance(model, Results) and model.is_league:
        return f"league results over {len(model.events)} event{'s' if len(model.events) != 1 else ''}"
    if isinstance(model, Results):  # results hook (rmdirt)
        return (
            f"results of {len(model.drivers)} driver{'s' if len(model.drivers) != 1 else ''} over {len(model.stages)} "
            f"stage{'s' if len(model.stages) != 1 else ''}"
        )
    if isinstance(model, Library):
        n = len(model.tiles)
        which = f"{model.variant.value.upper()} " if model.variant else ""
        return f"{which}tile library, {n} tile{'s' if n != 1 else ''}"
    tiles = f", {len(model.placements)} tile{'s' if len(model.placements) != 1 else ''}" if model.placements else ""
    corners = len(model.corners())
    laps = f", {model.laps} laps" if model.laps > 1 else ""
    return (
        f"{model.variant.value.upper()} track, {len(model.cells)} cell{'s' if len(model.cells) != 1 else ''}{tiles}, "
        f"{corners} corner{'s' if corners != 1 else ''}{laps}"
    )


def _strict(spec: Any, figures: Any = None) -> list:
    """The graph checks that make a track unplayable (sheetgen.games.rallyman.graph)."""
    from sheetgen.games.rallyman.model import Track

    if not isinstance(spec.model, Track):
        return []
    from sheetgen.games.rallyman.graph import track_problems

    return track_problems(spec.document, spec.model)


def _warnings(spec: Any) -> list:
    """A track's tokens no rule of its variant's rulebook reads (`tokens.unruled`), located
    at their ids in the spec."""
    from sheetgen.games.rallyman.model import Track

    if not isinstance(spec.model, Track) or spec.document is None:
        return []
    from sheetgen.games.rallyman.tokens import unruled

    return [spec.document.problem(path, message) for path, message in unruled(spec.model)]


def _figures(spec: Any) -> Any:
    from sheetgen.games.rallyman.figures import spec_figures

    return spec_figures(spec)


def _odds(options: Any):
    from sheetgen.games.rallyman.odds import odds_report

    return odds_report(options)


def _subject(spec: Any) -> Any:
    """The track `analyze` and `simulate` work on (a library is refused)."""
    from sheetgen.games.rallyman.model import Track
    from sheetgen.games.rallyman.results import Results

    model = spec.model
    if isinstance(model, Results):  # results hook (rmdirt): analyze gives the standings
        return model
    if not isinstance(model, Track):
        raise spec.wrong(
            f"{spec.described('rallyman')}, not a track: analyze and simulate take a Rallyman GT or DIRT track"
        )
    # a track that cannot be finished (a dead end, no start...) is refused with the located
    # problems `validate --strict` gives, before any solver runs on it
    from sheetgen.errors import SpecError
    from sheetgen.games.rallyman.graph import track_problems

    problems = track_problems(spec.document, model)
    if problems:
        raise SpecError(problems)
    # DIRT hook (rmdirt): a DIRT track is analysed by solve_dirt and simulated by simulate_dirt
    return model


def _standings(spec: Any, options: Any):
    from sheetgen.games.rallyman import results
    from sheetgen.registry import Report

    data, text, tables = results.report(spec.model)
    return Report(data, text, tables=tables)


def _is_dirt(track: Any) -> bool:
    """DIRT hook (rmdirt): whether `analyze`/`simulate` take the DIRT engine."""
    from sheetgen.games.rallyman.model import Variant

    return track.variant is Variant.DIRT


def _analyze(spec: Any, options: Any):
    from sheetgen.games.rallyman.report import analyze_track, format_analysis_text
    from sheetgen.registry import Report

    track = _subject(spec)
    from sheetgen.games.rallyman import results

    if isinstance(track, results.Results):  # results hook (rmdirt): the standings
        return _standings(spec, options)
    if _is_dirt(track):  # DIRT hook (rmdirt)
        from sheetgen.games.rallyman.solve_dirt import analyze_dirt, format_dirt_text

        _refuse_unsolved(spec, track)
        data = analyze_dirt(track)
        return Report(data, format_dirt_text(data))
    _refuse_unsolved(spec, track)
    from sheetgen.games.rallyman.figures import solved

    kept = solved(track)  # the figures cache: a build's solve, or a renamed track's
    data = (
        {"track": track.name, **kept["analysis"]}
        if kept is not None and kept["analysis"] is not None
        else analyze_track(track, track.ruleset)
    )
    return Report(data, format_analysis_text(data))


def _refuse_unsolved(spec: Any, track: Any) -> None:
    """A track its variant's exact solve does not take, refused at once: too large (GT:
    solve.MAX_PAR_SIZE cells x laps, DIRT: solve_dirt.MAX_DIRT_SIZE cells), or its moves
    loop (solve.loop_reason)."""
    from sheetgen.games.rallyman import solve, solve_dirt

    why = (solve_dirt.too_large if _is_dirt(track) else solve.too_large)(track) or solve.loop_reason(track)
    if why is not None:
        raise spec.wrong(why)


def _simulate(spec: Any, options: Any):
    from sheetgen.games.rallyman.rules import Stage
    from sheetgen.games.rallyman.ruleset import ruleset_of
    from sheetgen.games.rallyman.simulate import race_lines, simulate

    track = _subject(spec)
    from sheetgen.games.rallyman.results import Results

    if isinstance(track, Results):  # results hook (rmdirt)
        raise spec.wrong("a Rallyman results file: simulate plays a track (analyze gives the standings)")
    if _is_dirt(track):  # DIRT hook (rmdirt)
        from sheetgen.games.rallyman import simulate_dirt
        from sheetgen.games.rallyman.rules_dirt import DirtStage
        from sheetgen.games.rallyman.solve_dirt import par as dirt_par

        _refuse_unsolved(spec, track)
        dirt = ruleset_of(track)
        solved_dirt = dirt_par(DirtStage(track, dirt, damage=False))
        dirt_stage = DirtStage(track, dirt)
        driving = options["driving"] or "par"
        return lambda seed: simulate_dirt.race_lines(
            simulate_dirt.simulate(dirt_stage, seed, options["cars"], solved_dirt, driving)
        )
    _refuse_unsolved(spec, track)
    ruleset = ruleset_of(track)
    from sheetgen.games.rallyman.figures import policy as kept_policy

    solved = kept_policy(track, ruleset)  # the figures cache: solved once, played by every simulate
    stage = Stage(track, ruleset)
    return lambda seed: race_lines(simulate(stage, seed, options["cars"], options["driving"] or "par", solved))


def _engine_start(spec: Any, options: Any) -> Any:
    """The race `simulate` plays, as the engine's first state: `--cars` cars on the track,
    under GT's or DIRT's engine (damage drawn, as in a race)."""
    from sheetgen.games.rallyman.results import Results
    from sheetgen.games.rallyman.ruleset import ruleset_of

    track = _subject(spec)
    if isinstance(track, Results):
        raise spec.wrong("a Rallyman results file: simulate plays a track (analyze gives the standings)")
    if _is_dirt(track):
        from sheetgen.games.rallyman.rules_dirt import DirtRace, DirtStage

        return DirtRace.start(DirtStage(track, ruleset_of(track)), options["cars"])
    from sheetgen.games.rallyman.rules import RaceState, Stage

    return RaceState.start(Stage(track, ruleset_of(track)), options["cars"])


def _oracle_cases() -> Any:
    from sheetgen.games.rallyman.oracle import cases

    return cases()


def _generate(seed: int, options: Any, folder: str = ".") -> str:
    from sheetgen.games.rallyman.generate import make

    return make(seed, options, folder)


def _parse_length(text: str) -> tuple[int, int]:
    from sheetgen.games.rallyman.generate import parse_length

    return parse_length(text)


def _parse_table(text: str) -> tuple[float, float]:
    from sheetgen.games.rallyman.generate import parse_table

    return parse_table(text)


def _commands() -> list:
    """`Game.commands`: `sheetgen rally`."""
    from sheetgen.games.rallyman.commands import COMMANDS

    return COMMANDS


def _read_rekee(path: str, target: str, options: Any):
    from sheetgen.games.rallyman.rekee import read

    return read(path, target, options)


def _write_rekee(spec: Any, options: Any) -> bytes:
    from sheetgen.games.rallyman.rekee import write

    return write(spec, options)


def _lost_in_rekee(spec: Any, options: Any) -> list:
    from sheetgen.games.rallyman.rekee import lost

    return lost(spec, options)


GAME = Game(
    name="rallyman",
    title="Rallyman",
    schema=_schema,
    load=_load,
    summary=_summary,
    kinds=(
        Kind("track", "a Rallyman GT or DIRT track: tiles placed, a compact path or cells"),
        Kind("tiles", "a library of hex tiles, each a pattern of cells in its own frame", "tile library"),
        Kind("results", "drivers' stage times over a rally's stages: analyze gives the standings", "results file"),
    ),
    template="rallyman",
    template_sizes=(HEX_MM,),
    printables=(
        Printable(
            "track map, roadbook, dashboard reference card and time sheet",
            ("track",),
            "sheetgen.render.rallyman.printout:print_track",
        ),
        Printable("cut-out tiles", ("tiles",), "sheetgen.render.rallyman.tiles:print_tiles"),
        Printable("standings sheet", ("results",), "sheetgen.render.rallyman.standings:print_standings"),
    ),
    strict=_strict,
    figures=_figures,
    options=(
        Option(
            "tiles",
            "the tile library that says what each Rekee tile id holds (needed)",
            ("import",),
            parse=str,
            metavar="LIBRARY",
        ),
        Option(
            "variant", "the game of an imported track (default: its library's)", ("import",), choices=("gt", "dirt")
        ),
        Option(
            "laps",
            "the laps of an imported circuit (needed for one: Rekee's files have no place for laps)",
            ("import",),
            between=(1, 10),
            metavar="N",
        ),
        Option(
            "format",
            "the Rekee file to write: json (Rekee's own, the default) or rgt (the Rallyman GT Track Editor's, "
            "which Rekee saves)",
            ("export",),
            choices=("json", "rgt"),
            default="json",
        ),
        Option(
            "library",
            "the tile library of your box the track is laid from (needed)",
            ("generate",),
            parse=str,
            metavar="LIBRARY",
        ),
        Option(
            "variant", "the game: gt or dirt (default: the library's, else gt)", ("generate",), choices=("gt", "dirt")
        ),
        Option(
            "box",
            "a YAML file of tile ids and how many of each your box holds (default: the library's counts)",
            ("generate",),
            parse=str,
            metavar="COUNTS",
        ),
        Option(
            "laps",
            "a GT circuit of N laps, 1 to 10 (default: a point-to-point stage; a DIRT track is a stage)",
            ("generate",),
            between=(1, 10),
            metavar="N",
        ),
        Option("stage", "a point-to-point stage, from a start to a finish (the default)", ("generate",), flag=True),
        Option(
            "length",
            "cells of the track, MIN..MAX (12..400; default: 50..90)",
            ("generate",),
            parse=_parse_length,
            metavar="MIN..MAX",
            default=(50, 90),
        ),
        Option(
            "table",
            "the table the tiles lie on, WIDTHxHEIGHT in cm (default: 150x90)",
            ("generate",),
            parse=_parse_table,
            metavar="WxH",
            default=(150.0, 90.0),
        ),
        Option(
            "difficulty",
            "easy, medium or hard (default: medium)",
            ("generate",),
            choices=("easy", "medium", "hard"),
            default="medium",
        ),
        *ODDS_OPTIONS,
        Option("cars", "cars in the race, 1 to 6 (default: 1)", ("simulate",), between=(1, 6), default=1),
        Option(
            "driving",
            "how the cars drive: par (the par policy: its plan, rolled flat out or one at a time as solved) or "
            "careful (the same plan always one at a time; default: par)",
            ("simulate",),
            choices=("par", "careful"),
            default="par",
        ),
    ),
    odds=_odds,
    generator=Generator(
        _generate,
        "a new track laid from your box's tiles: inside the box and the table, checked, in its difficulty band",
    ),
    standings=_standings,
    commands=_commands,
    subject=_subject,
    analyze=_analyze,
    simulate=_simulate,
    engine_start=_engine_start,
    oracle_cases=_oracle_cases,
    warnings=_warnings,
    converters=(
        Converter(
            "rekee",
            "Rekee's track files: its own JSON (title, tiles with q, r, id, dir, tokens) or RGT (the Rallyman GT Track "
            "Editor's, which Rekee saves), told apart by what they hold",
            ".json",
            _read_rekee,
            _write_rekee,
            _lost_in_rekee,
        ),
    ),
)
