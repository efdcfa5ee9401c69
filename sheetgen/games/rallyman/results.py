"""Rallyman results (kind `results`): drivers' stage times over the stages of a rally, and
the standings (docs/rallyman_dirt.md "A rally of several stages"; ruling RD-16).

A DIRT rally is several stages with the times summed; the same file serves a GT solo league
(several drivers posting their own stage times)::

    game: rallyman
    kind: results
    variant: dirt
    name: Winter Rally
    stages: [Lakeside, Forest Stage]     # in order; a stage may be {name: ..., track: FILE}
    drivers:
      - {name: Ana, times: [126, "2:50"]}   # seconds or m:ss; dnf; null: not run yet
      - {name: Ben, times: [140, dnf]}

Standings: a driver is classified when they have a time on every stage run so far (a stage
is run once any driver has a time or a dnf on it); the classified by total time (ties share
the better place), then the others by stages finished and time, unplaced. Pure data.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from sheetgen.errors import SpecError
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document

DNF = "dnf"
MAX_STAGES = 40
MAX_DRIVERS = 99
MAX_TIME = 99 * 3600

#: seconds, "m:ss" or dnf, or null; the schema says so for editors, and `load_results`
#: words a time it refuses (the schema's "not valid under any of the given schemas" says
#: nothing to a person)
_TIME = {"type": ["integer", "string", "null"], "description": "seconds (0 to 356400), m:ss, dnf, or null: not run yet"}

RESULTS_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rallyman results",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "stages", "drivers"],
    "properties": {
        "game": {"const": "rallyman"},
        "kind": {"const": "results"},
        "variant": {"enum": ["gt", "dirt"], "description": "the game the stages were driven in (default dirt)"},
        "name": {"type": "string", "minLength": 1, "maxLength": 80, **TEXT},
        "stages": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_STAGES,
            "items": {
                "oneOf": [
                    {"type": "string", "minLength": 1, "maxLength": 80, **TEXT},
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": 80, **TEXT},
                            "track": {"type": "string", "minLength": 1},
                        },
                    },
                ]
            },
        },
        "drivers": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_DRIVERS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "times"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 40, **TEXT},
                    "times": {"type": "array", "maxItems": MAX_STAGES, "items": _TIME},
                },
            },
        },
    },
}


@dataclass(frozen=True)
class Stage:
    name: str
    track: str | None = None
    #: the turns a time sheet leaves rows for on this stage (`cards.turns_needed` of its
    #: track), or None when the stage names no track
    turns: int | None = None


@dataclass(frozen=True)
class Driver:
    name: str
    times: tuple[int | str | None, ...]  # seconds, DNF, or None (not run yet), one per stage


@dataclass(frozen=True)
class Results:
    name: str
    variant: str
    stages: tuple[Stage, ...]
    drivers: tuple[Driver, ...]


_CLOCK = re.compile(r"^(\d{1,4}):([0-5]\d)$")


def parse_time(value: Any) -> int | str | None:
    """A stage time as written: whole seconds, "m:ss", "dnf", or null; ValueError otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= MAX_TIME:
        raise ValueError(f"a stage time in seconds must be from 0 to {MAX_TIME} (99 hours), got {value}")
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == DNF:
        return DNF
    m = _CLOCK.match(text)
    if m and int(m.group(1)) * 60 + int(m.group(2)) > MAX_TIME:
        raise ValueError(f"a stage time must be at most {MAX_TIME // 60}:00 (99 hours), got {value!r}")
    if m:
        return int(m.group(1)) * 60 + int(m.group(2))
    raise ValueError(f"a stage time must be seconds, m:ss, dnf or null, got {value!r}")


def _track_problems(doc: Document, index: int, stage: Stage, variant: str) -> tuple[list, int | None]:
    """A stage's track file, loaded and checked as any track is (its problems at their own
    places): it and the files it reads (its tile library) are inputs of the results file,
    which no output may replace. Wrong when missing, not a Rallyman track, or of the other
    game (GT results naming a DIRT track). With the problems, the turns a time sheet leaves
    for the stage (`cards.turns_needed`), when the track loads."""
    from sheetgen import registry
    from sheetgen.games.rallyman.cards import turns_needed
    from sheetgen.yamlsrc import load_beside

    where = ("stages", index, "track")
    rel = stage.track
    if rel is None:  # a stage run without naming its track: nothing to check
        return [], None
    if not os.path.isfile(os.path.join(os.path.dirname(doc.file), rel)):
        missing = f"stage {stage.name!r}: no track file {rel!r} (a path from this file's folder)"
        return [doc.problem(where, missing)], None
    try:
        track = registry.spec_of(load_beside(doc, rel, where))
    except SpecError as exc:
        return list(exc.problems), None
    if track.game.name != "rallyman" or track.kind_name != "track":
        return [
            doc.problem(
                where, f"stage {stage.name!r}: {stage.track!r} is {track.described('rallyman')}, not a Rallyman track"
            )
        ], None
    if track.model.variant.value != variant:
        return [
            doc.problem(
                where,
                f"stage {stage.name!r}: {stage.track!r} is a {track.model.variant.value.upper()} track; these are "
                f"{variant.upper()} results",
            )
        ], None
    return [], turns_needed(track.model)


def load_results(doc: Document) -> Results:
    problems = check(doc, RESULTS_SCHEMA)
    if problems:
        raise SpecError(problems)
    data = doc.data
    stages = tuple(Stage(s) if isinstance(s, str) else Stage(s["name"], s.get("track")) for s in data["stages"])
    names: dict[str, int] = {}
    sized = []
    for i, s in enumerate(stages):
        if s.name in names:
            problems.append(
                doc.problem(("stages", i), f"stage {s.name!r} is given twice (first as stage {names[s.name] + 1})")
            )
        names.setdefault(s.name, i)
        turns = None
        if s.track is not None:
            found, turns = _track_problems(doc, i, s, data.get("variant", "dirt"))
            problems += found
        sized.append(Stage(s.name, s.track, turns))
    stages = tuple(sized)
    drivers = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data["drivers"]):
        if raw["name"] in seen:
            problems.append(doc.problem(("drivers", i, "name"), f"driver {raw['name']!r} is given twice"))
        seen.setdefault(raw["name"], i)
        if len(raw["times"]) > len(stages):
            problems.append(doc.problem(("drivers", i, "times"), f"{len(raw['times'])} times for {len(stages)} stages"))
        times = []
        for j, value in enumerate(raw["times"]):
            try:
                times.append(parse_time(value))
            except ValueError as exc:
                problems.append(doc.problem(("drivers", i, "times", j), str(exc)))
        times += [None] * (len(stages) - len(times))
        drivers.append(Driver(raw["name"], tuple(times[: len(stages)])))
    if problems:
        raise SpecError(problems)
    return Results(data["name"], data.get("variant", "dirt"), stages, tuple(drivers))


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class Row:
    place: int | None  # None: not classified
    driver: str
    total: int  # seconds over the stages finished
    finished: int  # stages finished
    times: tuple[int | str | None, ...]
    gap: int | None  # seconds behind the leader (classified only)


@dataclass(frozen=True)
class Standings:
    results: Results
    run: int  # stages run so far
    rows: tuple[Row, ...]
    stage_winners: tuple[tuple[str, ...], ...]  # per stage run: the fastest (ties: all)


def standings(results: Results) -> Standings:
    """The rally's standings (see the module)."""
    n = len(results.stages)
    run = max((j + 1 for d in results.drivers for j in range(n) if d.times[j] is not None), default=0)
    rows = []
    for d in results.drivers:
        done = [t for t in d.times[:run] if isinstance(t, int)]
        rows.append((d, sum(done), len(done), len(done) == run and run > 0))
    classified = sorted((r for r in rows if r[3]), key=lambda r: (r[1], r[0].name))
    others = sorted((r for r in rows if not r[3]), key=lambda r: (-r[2], r[1], r[0].name))
    out = []
    prev_total, prev_place = None, 0
    for i, (d, total, fin, _ok) in enumerate(classified, 1):
        place = prev_place if total == prev_total else i
        prev_total, prev_place = total, place
        out.append(Row(place, d.name, total, fin, d.times, total - classified[0][1]))
    out += [Row(None, d.name, total, fin, d.times, None) for d, total, fin, _ok in others]
    winners = []
    for j in range(run):
        times = [d.times[j] for d in results.drivers]
        best = min((t for t in times if isinstance(t, int)), default=None)
        winners.append(tuple(d.name for d in results.drivers if best is not None and d.times[j] == best))
    return Standings(results, run, tuple(out), tuple(winners))


def clock(seconds: int | str | None) -> str:
    if seconds is None:
        return "-"
    if seconds == DNF:
        return "DNF"
    if isinstance(seconds, str):
        raise ValueError(f"not a stage time: {seconds!r}")
    return f"{seconds // 60}:{seconds % 60:02d}"


def standings_to_json(st: Standings) -> dict:
    return {
        "name": st.results.name,
        "variant": st.results.variant,
        "stages": [s.name for s in st.results.stages],
        "stages_run": st.run,
        "stage_winners": [list(w) for w in st.stage_winners],
        "standings": [
            {
                "place": r.place,
                "driver": r.driver,
                "total_seconds": r.total,
                "total": clock(r.total),
                "gap_seconds": r.gap,
                "stages_finished": r.finished,
                "times": list(r.times),
            }
            for r in st.rows
        ],
    }


def format_standings_text(st: Standings) -> str:
    res = st.results
    title = "Rallyman DIRT" if res.variant == "dirt" else "Rallyman GT"
    lines = [f"{res.name} ({title}): {st.run} of {len(res.stages)} stage{'s' if len(res.stages) != 1 else ''} run"]
    for j, stage in enumerate(res.stages[: st.run]):
        lines.append(f"  stage {j + 1} {stage.name}: fastest {', '.join(st.stage_winners[j]) or '-'}")
    width = max(len(r.driver) for r in st.rows)
    header = "  ".join(f"S{j + 1:<5}" for j in range(st.run))
    lines.append(f"{'Pos':>4}  {'Driver':<{width}}  {header}  {'Total':>7}  Gap")
    for r in st.rows:
        place = f"{r.place}." if r.place is not None else "-"
        times = "  ".join(f"{clock(t):<6}" for t in r.times[: st.run])
        gap = f"+{clock(r.gap)}" if r.gap else ("" if r.place is not None else "not classified")
        lines.append(f"{place:>4}  {r.driver:<{width}}  {times}  {clock(r.total):>7}  {gap}".rstrip())
    return "\n".join(lines)
