"""A Rallytaire season: several races driven one after another, times added up.

The rulebook's Rallytaire has no championship ("beat your own records, compare times with
friends"), so a season is simply a list of races and the people (or attempts) whose times
are compared; `sheetgen season` prints the sheet to record them. A season file::

    game: rallytaire
    kind: season
    name: Winter season
    players: [Anna, Ben]            # optional, up to 6: one column each (default: three
                                    #   attempts and a best column, for a solo player)
    races:                          # in the order they are driven
      - race: monte_carlo.yaml      # a race spec, relative to this file
      - generate: {seed: 7}         # a race made as `sheetgen generate rallytaire --seed 7`
      - generate: {seed: 8, stages: 3, difficulty: hard, length: [40, 60], surfaces: [snow]}

Each race is loaded and checked like any race file (its problems are reported in its own
file); a generated race is the one `sheetgen generate` gives for the same options, made by
`expand_season` when a command needs it (loading checks its options only).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from sheetgen.errors import Location, Problem, SheetgenError, SpecError
from sheetgen.games.rallytaire import spec as race_spec
from sheetgen.games.rallytaire.model import Race
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document, load_beside

MAX_PLAYERS = 6
DEFAULT_STAGES = 4  # as `sheetgen generate rallytaire` without --stages
DEFAULT_LENGTH = (40, 70)  # as `sheetgen generate rallytaire` without --length
#: Generating a race checks every stage with the exact solver and lays it out on the sheet
#: (a stage that misses its band is proposed up to 60 times), and the season then analyses
#: and prints it: 10 to 15 ms of CPU a space counted here, more for hard stages, on the
#: 2-core machine loaded by other work, after about 2 s for the season itself. A season's
#: generated races may reach this many spaces in all (stages x longest length): one race of
#: the default 4 stages of 40-70 spaces (280) takes 4 to 6 s, 4 hard stages of 50-75 (300)
#: 9 s (the stages a hard race proposes vary most); 8 hard stages of 40-50 (400) took 9 s,
#: two default races (560) 9.5 s, four (1,120) 19 s under the 3,000 once allowed.
MAX_GENERATED_SPACES = 300
MAX_RACES = 20
SOLO_COLUMNS = ("try 1", "try 2", "try 3", "best")

_GENERATE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["seed"],
    "properties": {
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "stages": {"type": "integer", "minimum": 1, "maximum": 8},
        "length": {
            "type": "array",
            "items": {"type": "integer", "minimum": 2, "maximum": 300},
            "minItems": 2,
            "maxItems": 2,
            "description": "[min, max] spaces per stage",
        },
        "surfaces": {
            "type": "array",
            "items": {"enum": ["asphalt", "gravel", "snow"]},
            "minItems": 1,
            "uniqueItems": True,
        },
        "difficulty": {"enum": ["easy", "medium", "hard"]},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen Rallytaire season",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "races"],
    "properties": {
        "game": {"const": "rallytaire"},
        "kind": {"const": "season"},
        "name": {"type": "string", "minLength": 1, "maxLength": 60, **TEXT},
        "players": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_PLAYERS,
            "uniqueItems": True,
            "items": {"type": "string", "minLength": 1, "maxLength": 30, **TEXT},
        },
        "races": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_RACES,
            "items": {
                "oneOf": [
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["race"],
                        "properties": {
                            "race": {
                                "type": "string",
                                "minLength": 1,
                                "description": "race spec file, relative to this file",
                            }
                        },
                    },
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["generate"],
                        "properties": {"generate": _GENERATE},
                    },
                ]
            },
        },
    },
}


@dataclass(frozen=True)
class SeasonRace:
    """One race of a season: from a race file (loaded with the season), or generated by seed.
    A generated race is not made while the season loads (loading runs no generator):
    `expand_season` makes it, when a command needs its stages."""

    race: Race | None  # None: a generated race not made yet
    source: str  # the race file as written, or "generated: seed N ..."
    generate: tuple[tuple[str, Any], ...] = ()  # the generator's options, for a generated race
    where: Location | None = None  # of its `generate:` entry, for the generator's errors

    @property
    def stage_count(self) -> int:
        return len(self.race.stages) if self.race is not None else dict(self.generate).get("stages", DEFAULT_STAGES)

    @property
    def made(self) -> Race:
        """The race, once made: every race of a season `expand_season` gave."""
        if self.race is None:
            raise SheetgenError(f"{self.source}: the race is not generated yet (expand the season first)")
        return self.race


@dataclass(frozen=True)
class Season:
    name: str
    races: tuple[SeasonRace, ...]
    players: tuple[str, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The time columns of the season sheet."""
        return self.players or SOLO_COLUMNS


def _entry_problems(doc: Document, i: int, raw: Any) -> list[Problem]:
    """Schema problems of one race entry, worded for its shape (not the oneOf as a whole)."""
    base = ("races", i)
    if isinstance(raw, dict) and "generate" in raw and "race" not in raw:
        return check(doc, SCHEMA["properties"]["races"]["items"]["oneOf"][1], raw, base)
    if isinstance(raw, dict) and "race" in raw and "generate" not in raw:
        return check(doc, SCHEMA["properties"]["races"]["items"]["oneOf"][0], raw, base)
    return [
        doc.problem(
            base,
            f"races[{i + 1}] must be a mapping with one key: 'race' (a race file) or 'generate' (options of a "
            "generated race)",
        )
    ]


def load_season(doc: Document) -> Season:
    data = doc.data
    if isinstance(data, dict) and data.get("kind") != "season":
        raise SpecError(
            [doc.problem(("kind",) if "kind" in data else (), "not a Rallytaire season: expected 'kind: season'")]
        )
    outline = dict(
        SCHEMA, properties=dict(SCHEMA["properties"], races={"type": "array", "minItems": 1, "maxItems": MAX_RACES})
    )
    problems = check(doc, outline)
    given = data.get("races") if isinstance(data, dict) else None
    races = given if isinstance(given, list) else []
    for i, raw in enumerate(races):
        problems.extend(_entry_problems(doc, i, raw))
    if problems:
        raise SpecError(problems)
    loaded: list[SeasonRace] = []
    budget = 0  # spaces of the generated races, at their longest
    for i, raw in enumerate(races):
        if "generate" in raw:
            options = raw["generate"]
            budget += options.get("stages", DEFAULT_STAGES) * options.get("length", DEFAULT_LENGTH)[1]
            if budget > MAX_GENERATED_SPACES:
                problems.append(
                    doc.problem(
                        ("races", i, "generate"),
                        f"the season's generated races reach {budget} spaces here (stages x longest length); at most "
                        f"{MAX_GENERATED_SPACES} "
                        "are generated for a season: give fewer or shorter generated races, or race files",
                    )
                )
                break
    for i, raw in enumerate(races):  # every race file is read: all their problems at once
        if "race" in raw:
            race, found = _race_file(doc, i, raw["race"])
            problems.extend(found)
            if race is not None:
                loaded.append(SeasonRace(race, raw["race"]))
        else:
            options = raw["generate"]
            source = "generated: " + ", ".join(f"{k} {_opt(v)}" for k, v in options.items())
            loaded.append(SeasonRace(None, source, tuple(options.items()), doc.where(("races", i, "generate"))))
    if problems:
        raise SpecError(problems)
    return Season(data["name"], tuple(loaded), tuple(data.get("players", ())))


def _opt(value: Any) -> str:
    if isinstance(value, list):
        return (
            "..".join(str(v) for v in value)
            if all(isinstance(v, int) for v in value)
            else "/".join(str(v) for v in value)
        )
    return str(value)


def _race_file(doc: Document, i: int, rel: str) -> tuple[Race | None, list[Problem]]:
    where = ("races", i, "race")
    if "\x00" in rel:
        return None, [doc.problem(where, f"race {rel!r}: a file name cannot contain a NUL character")]
    try:
        other = load_beside(doc, rel, where)
    except SpecError as exc:
        if len(exc.problems) == 1 and exc.problems[0].message.startswith(("cannot read file", "is a directory")):
            return None, [doc.problem(where, f"race {rel!r}: {exc.problems[0].message}")]
        return None, list(exc.problems) + [doc.problem(where, f"race {rel!r} has errors (listed with its name)")]
    data = other.data
    if not isinstance(data, dict) or data.get("game") != "rallytaire" or "kind" in data:
        what = (
            f"game {data.get('game')!r}" + (f", kind {data.get('kind')!r}" if "kind" in data else "")
            if isinstance(data, dict)
            else "not a spec mapping"
        )
        return None, [doc.problem(where, f"{rel!r} is not a Rallytaire race ({what})")]
    try:
        return race_spec.load(other), []
    except SpecError as exc:
        return None, list(exc.problems) + [doc.problem(where, f"race {rel!r} has errors (listed with its name)")]


def _generated(seed: int, options: tuple[tuple[str, Any], ...]) -> Race:
    """`generate.generate_race(seed, **options)`, made once a process: the same arguments
    always give the same race, and `build` expands a season twice (its strict check, then its
    printout)."""
    from sheetgen.games.rallytaire import generate

    return _made(generate.generate_race, seed, options)


@functools.lru_cache(maxsize=32)
def _made(make: Any, seed: int, options: tuple[tuple[str, Any], ...]) -> Race:
    # keyed by the generator function too, so that a replaced one (a test's) is called
    return make(seed, **dict(options))


def expand_season(season: Season) -> Season:
    """The season with every generated race made, as `sheetgen generate rallytaire` makes it
    for the same options; a race that cannot be made is a problem at its `generate:` entry."""
    from sheetgen.games.rallytaire import generate

    entries, problems = [], []
    for entry in season.races:
        if entry.race is None:
            options = dict(entry.generate)
            kwargs: dict[str, Any] = {key: options[key] for key in ("stages", "difficulty") if key in options}
            if "length" in options:
                kwargs["length"] = tuple(options["length"])
            if "surfaces" in options:
                kwargs["surfaces"] = tuple(options["surfaces"])
            try:
                entry = replace(entry, race=_generated(options["seed"], tuple(sorted(kwargs.items()))))
            except SheetgenError as exc:
                if entry.where is None:  # (a generated entry always has its place)
                    raise
                # the entry's own keys, not the command line's options
                message = str(exc).replace(generate.TRY_ANOTHER, "try another 'length' or 'difficulty'")
                problems.append(Problem(entry.where, f"cannot generate this race: {message}"))
        entries.append(entry)
    if problems:
        raise SpecError(problems)
    return replace(season, races=tuple(entries))


def season_to_json(season: Season, analyses: dict[int, Any] | None = None) -> dict:
    """The season: its races and stages, with the basic game's par times when analysed."""
    out = []
    for k, entry in enumerate(season.races):
        race = entry.made
        analysis = (analyses or {}).get(k)
        out.append(
            {
                "name": race.name,
                "source": entry.source,
                "par_time": None if analysis is None else round(analysis.par_time, 4),
                "stages": [
                    {
                        "name": stage.name,
                        "surface": stage.surface.value,
                        "length": stage.length,
                        "corners": len(stage.corners),
                        "par_time": None if analysis is None else round(analysis.stages[j].par_time, 4),
                    }
                    for j, stage in enumerate(race.stages)
                ],
            }
        )
    total = None if not analyses else round(sum(a.par_time for a in analyses.values()), 4)
    return {"name": season.name, "columns": list(season.columns), "par_time": total, "races": out}


def format_season_text(season: Season, analyses: dict[int, Any] | None = None) -> str:
    lines = [
        f"{season.name}: {len(season.races)} race{'s' if len(season.races) != 1 else ''}; times for: "
        f"{', '.join(season.columns)}"
    ]
    total = 0.0
    for k, entry in enumerate(season.races):
        analysis = (analyses or {}).get(k)
        par = f", par {analysis.par_time:.1f} s" if analysis else ""
        race = entry.made
        lines.append(f"  {k + 1}. {race.name} ({entry.source}): {len(race.stages)} stages{par}")
        for j, stage in enumerate(race.stages):
            spar = f"  par {analysis.stages[j].par_time:.1f} s" if analysis else ""
            lines.append(
                f"       {stage.name}: {stage.surface.value}, {stage.length} spaces, {len(stage.corners)} corners{spar}"
            )
        total += analysis.par_time if analysis else 0.0
    if analyses:
        lines.append(f"  season par (basic game, optimal play): {total:.1f} s")
    return "\n".join(lines) + "\n"
