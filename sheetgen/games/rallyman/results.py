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
the better place), then the others by stages finished and time, unplaced.

A stage's entry may also be what a filled-in time sheet holds (docs/leagues.md)::

      - {name: Ana, times: [{log: ["3 10", "4 9", "5 8 lost d1", "2 12"]}, {time: "2:50", lost_control: 1}]}

A log is the sheet's turns, each "GEAR SECONDS" and what happened: `lost` (GT: the loss of
control box ticked) and `dN` (GT: N damage tokens drawn), or `sisu`, `spin`, `crash` (DIRT:
the icon ringed). The stage time is the log's sum (a `time` given as well must agree), and
its losses of control are counted (a `lost_control` given as well must agree).

A solo league (RD-18) is several events, each a rally as above, with `league:` options (house
rules, `sheetgen.league`: points per place, best X events counted, bonus points)::

    league: {points: [10, 8, 6, 5, 4, 3, 2, 1], best: 2, bonus: {stage_win: 1, fastest_stage: 2, clean_run: 1}}
    events:
      - name: January
        stages: [Col, Ring]
        drivers:
          - {name: Ana, times: [126, "2:50"]}

An event's places (its standings, as a rally's) earn the points; a stage win is the fastest
time on a stage (ties: all), the fastest stage the fastest time on the event's last stage
(a rally's power stage), a clean run every stage of the event finished with no loss of
control, every stage's losses known (a log or `lost_control`). Pure data.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from sheetgen import league as leagues
from sheetgen.errors import Problem, SpecError
from sheetgen.forum import Table
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document

DNF = "dnf"
MAX_STAGES = 40
MAX_DRIVERS = 99
MAX_TIME = 99 * 3600
MAX_EVENTS = 24
MAX_TURNS = 200
MAX_LOST = 200
#: a league's points per event place when its `league:` gives none (house rule: the
#: rulebooks have no league; these are the WRC's)
DEFAULT_POINTS = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)
#: what a turn of a time log may say happened, per variant
GT_MARKS = ("lost",)
DIRT_MARKS = ("sisu", "spin", "crash")

#: seconds, "m:ss" or dnf, or null; the schema says so for editors, and `load_results`
#: words a time it refuses (the schema's "not valid under any of the given schemas" says
#: nothing to a person)
_TIME = {"type": ["integer", "string", "null"], "description": "seconds (0 to 356400), m:ss, dnf, or null: not run yet"}

_STAGE_ENTRY = {
    "type": "object",
    "additionalProperties": False,
    "description": "a stage as the driver's time sheet has it: the time, the losses of control, the turns",
    "properties": {
        "time": _TIME,
        "lost_control": {"type": "integer", "minimum": 0, "maximum": MAX_LOST, "description": "losses of control"},
        "log": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_TURNS,
            "items": {"type": "string", "minLength": 1, "maxLength": 40},
            "description": 'the time sheet\'s turns: "GEAR SECONDS", then lost and dN (GT) or sisu, spin, crash (DIRT)',
        },
    },
}

_ENTRY = {
    "type": ["integer", "string", "object", "null"],
    "description": "seconds (0 to 356400), m:ss, dnf, null: not run yet, or {time, lost_control, log}",
}

LEAGUE_SCHEMA = leagues.league_schema(
    points=True,
    bonus_help={
        "stage_win": "points for the fastest time on a stage (ties: each fastest driver)",
        "fastest_stage": "points for the fastest time on an event's last stage (its power stage)",
        "clean_run": "points for finishing every stage of an event with no loss of control recorded",
    },
)

_STAGES = {
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
}

_DRIVERS = {
    "type": "array",
    "minItems": 1,
    "maxItems": MAX_DRIVERS,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "times"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 40, **TEXT},
            "times": {"type": "array", "maxItems": MAX_STAGES, "items": _ENTRY},
        },
    },
}

RESULTS_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rallyman results",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name"],
    # a rally (stages and drivers) or a league (events)
    "anyOf": [{"required": ["events"]}, {"required": ["stages", "drivers"]}],
    "properties": {
        "game": {"const": "rallyman"},
        "kind": {"const": "results"},
        "variant": {"enum": ["gt", "dirt"], "description": "the game the stages were driven in (default dirt)"},
        "name": {"type": "string", "minLength": 1, "maxLength": 80, **TEXT},
        "league": LEAGUE_SCHEMA,
        "events": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_EVENTS,
            "description": "a solo league's events, in order: each a rally of stages with the drivers' times",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "stages", "drivers"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 80, **TEXT},
                    "stages": _STAGES,
                    "drivers": _DRIVERS,
                },
            },
        },
        "stages": _STAGES,
        "drivers": _DRIVERS,
    },
}


@dataclass(frozen=True)
class Stage:
    name: str
    track: str | None = None
    #: the turns a time sheet leaves rows for on this stage (`cards.turns_needed` of its
    #: track), or None when the stage names no track
    turns: int | None = None
    #: the ruleset its track is played with (`ruleset.ruleset_of`: the track's own
    #: `ruleset:` over the variant's defaults), or None when the stage names no track; the
    #: rally sheet prints its time cards
    ruleset: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Turn:
    """A turn of a time sheet: the gear it ended in (GT) or the card taken (DIRT), its
    seconds, the loss of control (GT `lost`; DIRT the icon: `sisu`, `spin`, `crash`; None:
    none) and the damage tokens drawn (GT)."""

    gear: str
    seconds: int
    lost: str | None = None
    damage: int = 0


@dataclass(frozen=True)
class Driver:
    name: str
    times: tuple[int | str | None, ...]  # seconds, DNF, or None (not run yet), one per stage
    #: per stage: the losses of control recorded (None: not known)
    lost: tuple[int | None, ...] = ()
    #: per stage: the time sheet's turns (None: no log given)
    logs: tuple[tuple[Turn, ...] | None, ...] = ()

    def lost_on(self, stage: int) -> int | None:
        return self.lost[stage] if stage < len(self.lost) else None

    def log_of(self, stage: int) -> tuple[Turn, ...] | None:
        return self.logs[stage] if stage < len(self.logs) else None


@dataclass(frozen=True)
class Event:
    """One event of a league: a rally of stages and the drivers' times."""

    name: str
    stages: tuple[Stage, ...]
    drivers: tuple[Driver, ...]


@dataclass(frozen=True)
class Results:
    name: str
    variant: str
    stages: tuple[Stage, ...]  # a rally's (empty for a league)
    drivers: tuple[Driver, ...]
    events: tuple[Event, ...] = ()  # a league's (empty for a rally)
    league: leagues.League | None = None

    @property
    def is_league(self) -> bool:
        return bool(self.events)

    def event_results(self, event: Event) -> Results:
        """One event as a rally of its own (its standings)."""
        return Results(event.name, self.variant, event.stages, event.drivers)


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


def _track_problems(
    doc: Document, index: int, stage: Stage, variant: str, base: tuple = ()
) -> tuple[list, int | None, Any]:
    """A stage's track file, loaded and checked as any track is (its problems at their own
    places): it and the files it reads (its tile library) are inputs of the results file,
    which no output may replace. Wrong when missing, not a Rallyman track, or of the other
    game (GT results naming a DIRT track). With the problems, the turns a time sheet leaves
    for the stage (`cards.turns_needed`) and the ruleset it is played with
    (`ruleset.ruleset_of`), when the track loads."""
    from sheetgen import registry
    from sheetgen.games.rallyman.cards import turns_needed
    from sheetgen.games.rallyman.ruleset import ruleset_of
    from sheetgen.yamlsrc import load_beside

    where = base + ("stages", index, "track")
    rel = stage.track
    if rel is None:  # a stage run without naming its track: nothing to check
        return [], None, None
    if not os.path.isfile(os.path.join(os.path.dirname(doc.file), rel)):
        missing = f"stage {stage.name!r}: no track file {rel!r} (a path from this file's folder)"
        return [doc.problem(where, missing)], None, None
    try:
        track = registry.spec_of(load_beside(doc, rel, where))
    except SpecError as exc:
        return list(exc.problems), None, None
    if track.game.name != "rallyman" or track.kind_name != "track":
        return [
            doc.problem(
                where, f"stage {stage.name!r}: {stage.track!r} is {track.described('rallyman')}, not a Rallyman track"
            )
        ], None, None
    if track.model.variant.value != variant:
        return [
            doc.problem(
                where,
                f"stage {stage.name!r}: {stage.track!r} is a {track.model.variant.value.upper()} track; these are "
                f"{variant.upper()} results",
            )
        ], None, None
    return [], turns_needed(track.model), ruleset_of(track.model)


_TURN = re.compile(r"^(00|[0-6])\s+(\d{1,3})((?:\s+\S+)*)$")


def parse_turn(text: str, variant: str) -> Turn:
    """A time sheet's turn as written, "GEAR SECONDS" then what happened (`lost`, `dN` in GT;
    `sisu`, `spin`, `crash` in DIRT); ValueError saying what is wrong otherwise."""
    m = _TURN.match(text.strip().lower())
    if m is None:
        raise ValueError(
            f'a turn must be "GEAR SECONDS" (gear 00 or 0 to 6, seconds 0 to 999), then marks, got {text!r}'
        )
    marks = DIRT_MARKS if variant == "dirt" else GT_MARKS
    lost: str | None = None
    damage = 0
    for word in m.group(3).split():
        if word in marks and lost is None:
            lost = word
        elif variant == "gt" and re.fullmatch(r"d[1-9]", word) and not damage:
            damage = int(word[1:])
        else:
            said = "lost, dN (damage tokens drawn)" if variant == "gt" else "sisu, spin or crash"
            raise ValueError(f"{word!r} in turn {text!r}: a {variant.upper()} turn may say {said}, once each")
    return Turn(m.group(1), int(m.group(2)), lost, damage)


def _entry(
    doc: Document, where: tuple, value: Any, variant: str
) -> tuple[int | str | None, int | None, tuple | None, list]:
    """A driver's stage: (time, losses of control or None, log or None, problems)."""
    if not isinstance(value, dict):
        try:
            return parse_time(value), None, None, []
        except ValueError as exc:
            return None, None, None, [doc.problem(where, str(exc))]
    problems = check(doc, _STAGE_ENTRY, value, where)
    if problems:
        return None, None, None, problems
    time: int | str | None = None
    if "time" in value:
        try:
            time = parse_time(value["time"])
        except ValueError as exc:
            problems.append(doc.problem(where + ("time",), str(exc)))
    log: tuple[Turn, ...] | None = None
    lost = value.get("lost_control")
    if "log" in value:
        turns = []
        for k, text in enumerate(value["log"]):
            try:
                turns.append(parse_turn(text, variant))
            except ValueError as exc:
                problems.append(doc.problem(where + ("log", k), str(exc)))
        if problems:
            return None, None, None, problems
        log = tuple(turns)
        summed = sum(t.seconds for t in log)
        counted = sum(t.lost is not None for t in log)
        if "time" not in value:
            time = summed
        elif isinstance(time, int) and time != summed:
            problems.append(
                doc.problem(
                    where + ("time",),
                    f"the log's {len(log)} turns add up to {clock(summed)} ({summed} s), not {clock(time)}",
                )
            )
        if lost is not None and lost != counted:
            problems.append(
                doc.problem(
                    where + ("lost_control",),
                    f"the log records {counted} loss{'es' if counted != 1 else ''} of control, not {lost}",
                )
            )
        lost = counted
    elif "time" not in value:
        problems.append(doc.problem(where, "a stage given as a mapping needs its time or its log"))
    if time is None and not problems:
        problems.append(doc.problem(where, "a stage not run yet is null, not a mapping"))
    return time, lost, log, problems


def _rally(doc: Document, data: dict, base: tuple, variant: str) -> tuple[tuple[Stage, ...], tuple[Driver, ...], list]:
    """The stages and drivers of a rally (the file's, or one event's at `base`)."""
    problems: list[Problem] = []
    stages = tuple(Stage(s) if isinstance(s, str) else Stage(s["name"], s.get("track")) for s in data["stages"])
    names: dict[str, int] = {}
    sized = []
    for i, s in enumerate(stages):
        if s.name in names:
            problems.append(
                doc.problem(
                    base + ("stages", i), f"stage {s.name!r} is given twice (first as stage {names[s.name] + 1})"
                )
            )
        names.setdefault(s.name, i)
        turns, ruleset = None, None
        if s.track is not None:
            found, turns, ruleset = _track_problems(doc, i, s, variant, base)
            problems += found
        sized.append(Stage(s.name, s.track, turns, ruleset))
    stages = tuple(sized)
    drivers = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data["drivers"]):
        at = base + ("drivers", i)
        if raw["name"] in seen:
            problems.append(doc.problem(at + ("name",), f"driver {raw['name']!r} is given twice"))
        seen.setdefault(raw["name"], i)
        if len(raw["times"]) > len(stages):
            problems.append(doc.problem(at + ("times",), f"{len(raw['times'])} times for {len(stages)} stages"))
        times, lost, logs = [], [], []
        for j, value in enumerate(raw["times"]):
            time, lost_here, log, found = _entry(doc, at + ("times", j), value, variant)
            problems += found
            times.append(time)
            lost.append(lost_here)
            logs.append(log)
        pad = [None] * (len(stages) - len(times))
        n = len(stages)
        drivers.append(Driver(raw["name"], tuple((times + pad)[:n]), tuple((lost + pad)[:n]), tuple((logs + pad)[:n])))
    return stages, tuple(drivers), problems


def load_results(doc: Document) -> Results:
    data = doc.data
    league_form = isinstance(data, dict) and "events" in data
    outline = {k: v for k, v in RESULTS_SCHEMA.items() if k != "anyOf"}
    outline["required"] = ["game", "kind", "name"] + (["events"] if league_form else ["stages", "drivers"])
    problems = check(doc, outline)
    if problems:
        raise SpecError(problems)
    variant = data.get("variant", "dirt")
    if league_form:
        for key in ("stages", "drivers"):
            if key in data:
                problems.append(
                    doc.problem(
                        (key,), f"a league gives each event's {key} under events: not {key} of its own", key=True
                    )
                )
    elif "league" in data:
        problems.append(doc.problem(("league",), "league options need events: (a league of several events)", key=True))
    league, found = leagues.load_league(doc, LEAGUE_SCHEMA)
    problems += found
    if not league_form:
        stages, drivers, found = _rally(doc, data, (), variant)
        problems += found
        if problems:
            raise SpecError(problems)
        return Results(data["name"], variant, stages, drivers)
    events = []
    named: dict[str, int] = {}
    for e, raw in enumerate(data["events"]):
        if raw["name"] in named:
            problems.append(
                doc.problem(
                    ("events", e, "name"),
                    f"event {raw['name']!r} is given twice (first as event {named[raw['name']] + 1})",
                )
            )
        named.setdefault(raw["name"], e)
        stages, drivers, found = _rally(doc, raw, ("events", e), variant)
        problems += found
        events.append(Event(raw["name"], stages, drivers))
    if problems:
        raise SpecError(problems)
    return Results(data["name"], variant, (), (), tuple(events), league or leagues.League())


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


# --------------------------------------------------------------------------- time logs


def _turn_json(t: Turn) -> dict:
    return {"gear": t.gear, "seconds": t.seconds, "lost_control": t.lost, "damage": t.damage}


def _logs_json(drivers: tuple[Driver, ...], stages: tuple[Stage, ...]) -> list[dict]:
    return [
        {"driver": d.name, "stage": stages[j].name, "turns": [_turn_json(t) for t in log]}
        for d in drivers
        for j in range(len(stages))
        if (log := d.log_of(j)) is not None
    ]


_LOST_WORDS = {"lost": "lost", "sisu": "SISU", "spin": "Spin", "crash": "Crash"}


def log_table(driver: str, where: str, log: tuple[Turn, ...], variant: str) -> Table:
    """One driver's time log of one stage, as the time sheet holds it: turn, gear (the DIRT
    card), seconds, running total, the loss of control (and GT's damage tokens drawn)."""
    rows = []
    total = 0
    for k, t in enumerate(log, 1):
        total += t.seconds
        lost = _LOST_WORDS[t.lost] if t.lost is not None else ""
        cells = [str(k), t.gear, str(t.seconds), clock(total), lost]
        if variant == "gt":
            cells.append(str(t.damage) if t.damage else "")
        rows.append(tuple(cells))
    header = ["Turn", "Gear" if variant == "gt" else "Card", "Seconds", "Total", "Lost control"]
    if variant == "gt":
        header.append("Damage")
    losses = sum(t.lost is not None for t in log)
    note = f"Stage time {clock(total)}; {losses} loss{'es' if losses != 1 else ''} of control."
    return Table(f"{driver}: {where} time log", tuple(header), tuple(rows), "rrrrlr", (note,))


def log_tables(res: Results, prefix: str = "") -> list[Table]:
    """Every driver's time logs of a rally, driver by driver, stage by stage."""
    return [
        log_table(d.name, f"{prefix}stage {j + 1} {res.stages[j].name}", log, res.variant)
        for d in res.drivers
        for j in range(len(res.stages))
        if (log := d.log_of(j)) is not None
    ]


def _log_text(tables: list[Table]) -> list[str]:
    from sheetgen.textfmt import table as text_table

    lines: list[str] = []
    for t in tables:
        lines += ["", t.title]
        lines += ["  " + line for line in text_table(list(t.header), [list(r) for r in t.rows])]
        lines += ["  " + n for n in t.notes]
    return lines


def standings_table(st: Standings, points: dict[str, leagues.Entry] | None = None) -> Table:
    """A rally's (or event's) standings as a table: place, driver, stage times, total, gap,
    and with `points` each driver's league points (with bonus as +N)."""
    res = st.results
    header = ["Pos", "Driver", *(f"S{j + 1} {s.name}" for j, s in enumerate(res.stages[: st.run])), "Total", "Gap"]
    if points is not None:
        header.append("Points")
    rows = []
    for r in st.rows:
        place = str(r.place) if r.place is not None else "-"
        gap = f"+{clock(r.gap)}" if r.gap else ("" if r.place is not None else "not classified")
        total = clock(r.total) if r.place is not None else "-"
        cells = [place, r.driver, *(clock(t) for t in r.times[: st.run]), total, gap]
        if points is not None:
            cells.append(leagues.shown_score(points.get(r.driver), True))
        rows.append(tuple(cells))
    fastest = "; ".join(f"S{j + 1} {', '.join(w) or '-'}" for j, w in enumerate(st.stage_winners))
    notes = [
        f"{st.run} of {len(res.stages)} stage{'s' if len(res.stages) != 1 else ''} run. Fastest: {fastest or '-'}."
    ]
    title = "Rallyman DIRT" if res.variant == "dirt" else "Rallyman GT"
    return Table(
        f"{res.name} ({title}): standings",
        tuple(header),
        tuple(rows),
        "rl" + "r" * (len(header) - 2),
        tuple(notes),
    )


# --------------------------------------------------------------------------- a league


@dataclass(frozen=True)
class EventScore:
    event: Event
    standings: Standings
    entries: dict[str, leagues.Entry]  # per driver in the event (a driver with no time: none)

    @property
    def run(self) -> bool:
        return self.standings.run > 0


@dataclass(frozen=True)
class LeagueStandings:
    results: Results
    league: leagues.League
    events: tuple[EventScore, ...]
    rounds: tuple[int, ...]  # the events run (a round each), by index
    table: tuple[leagues.Row, ...]


def event_entries(res: Results, st: Standings, league: leagues.League) -> dict[str, leagues.Entry]:
    """Each driver's league points in one event: the place's points and the bonuses (module
    docstring; RD-18)."""
    complete = st.run == len(res.stages)
    drivers = {d.name: d for d in res.drivers}
    out = {}
    for r in st.rows:
        d = drivers[r.driver]
        if all(t is None for t in d.times[: st.run]):
            continue  # posted nothing: not in this round
        bonus: list[tuple[str, int]] = []
        if league.stage_win:
            bonus += [("stage_win", league.stage_win) for w in st.stage_winners if r.driver in w]
        if league.fastest_stage and complete and r.driver in st.stage_winners[-1]:
            bonus.append(("fastest_stage", league.fastest_stage))
        if league.clean_run and complete and r.place is not None and all(d.lost_on(j) == 0 for j in range(st.run)):
            bonus.append(("clean_run", league.clean_run))
        out[r.driver] = leagues.Entry(r.place, league.place_points(r.place, DEFAULT_POINTS), tuple(bonus))
    return out


def league_standings(res: Results) -> LeagueStandings:
    league = res.league or leagues.League()
    events = []
    for event in res.events:
        st = standings(res.event_results(event))
        events.append(EventScore(event, st, event_entries(res.event_results(event), st, league) if st.run else {}))
    rounds = tuple(i for i, e in enumerate(events) if e.run)
    names: dict[str, None] = {}
    for e in events:
        for d in e.event.drivers:
            names.setdefault(d.name, None)
    table = leagues.table(list(names), [events[i].entries for i in rounds], league.best)
    return LeagueStandings(res, league, tuple(events), rounds, table)


def _bonus_json(entry: leagues.Entry) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, value in entry.bonus:
        out[key] = out.get(key, 0) + value
    return out


def league_to_json(ls: LeagueStandings) -> dict:
    lg = ls.league
    return {
        "name": ls.results.name,
        "variant": ls.results.variant,
        "league": {
            "points": list(lg.points if lg.points is not None else DEFAULT_POINTS),
            "best": lg.best,
            "bonus": {key: lg.bonus(key) for key in leagues.BONUSES},
        },
        "events": [
            {
                **standings_to_json(e.standings),
                "run": e.run,
                "points": {
                    name: {"place": en.place, "points": en.points, "bonus": _bonus_json(en), "score": en.score}
                    for name, en in e.entries.items()
                },
                "logs": _logs_json(e.event.drivers, e.event.stages),
            }
            for e in ls.events
        ],
        "table": leagues.table_json(
            ls.table,
            ls.rounds,
            lambda i, en, kept: {
                "event": ls.events[i].event.name,
                "score": en.score if en is not None else None,
                "kept": kept,
            },
        ),
    }


def _house_line(ls: LeagueStandings) -> str:
    said = ls.league.house_rules()
    if ls.league.points is None:
        said.insert(0, "points per place " + ", ".join(str(p) for p in DEFAULT_POINTS))
    return "House rules: " + "; ".join(said) + "."


def _tie_notes(table: tuple[leagues.Row, ...]) -> list[str]:
    notes = []
    for above, row in zip(table, table[1:]):
        if row.tie == "countback":
            notes.append(f"{above.driver} ahead of {row.driver} on {above.total} points: countback.")
        elif row.tie == "latest round":
            notes.append(f"{above.driver} ahead of {row.driver} on {above.total} points: the latest round.")
        elif row.tie == "tied":
            notes.append(f"{above.driver} and {row.driver} share place {row.place}.")
    return notes


def league_table(ls: LeagueStandings) -> Table:
    """The league table: per event run, the points (bonus as +N; dropped in brackets)."""
    heads = [ls.events[i].event.name for i in ls.rounds]
    rows = tuple(
        (
            str(row.place),
            row.driver,
            *(leagues.shown_score(e, k) for e, k in zip(row.entries, row.kept)),
            str(row.total),
        )
        for row in ls.table
    )
    left = [e.event.name for e in ls.events if not e.run]
    notes = [_house_line(ls)]
    if ls.league.best is not None:
        notes.append("(N): a round dropped; N+B: place points N and bonus points B.")
    elif any(e is not None and e.bonus for row in ls.table for e in row.entries):
        notes.append("N+B: place points N and bonus points B.")
    notes += _tie_notes(ls.table)
    notes.append(leagues.TIE_NOTE)
    if left:
        notes.append(f"Still to run: {', '.join(left)}.")
    title = "Rallyman DIRT" if ls.results.variant == "dirt" else "Rallyman GT"
    return Table(
        f"{ls.results.name} ({title} league): {len(ls.rounds)} of {len(ls.events)} events run",
        ("Pos", "Driver", *heads, "Total"),
        rows,
        "rl" + "r" * (len(heads) + 1),
        tuple(notes),
    )


def league_tables(ls: LeagueStandings) -> list[Table]:
    tables = [league_table(ls)]
    for e in ls.events:
        if e.run:
            tables.append(standings_table(e.standings, e.entries))
    for e in ls.events:
        tables += log_tables(ls.results.event_results(e.event), f"{e.event.name}, ")
    return tables


def format_league_text(ls: LeagueStandings) -> str:
    from sheetgen.textfmt import table as text_table

    main = league_table(ls)
    lines = [main.title]
    lines += ["  " + line for line in text_table(list(main.header), [list(r) for r in main.rows], frozenset({1}))]
    lines += ["  " + n for n in main.notes]
    for e in ls.events:
        if e.run:
            lines += ["", format_standings_text(e.standings)]
            lines.append(
                "  points: " + ", ".join(f"{name} {leagues.shown_score(en, True)}" for name, en in e.entries.items())
            )
    logs: list[Table] = []
    for e in ls.events:
        logs += log_tables(ls.results.event_results(e.event), f"{e.event.name}, ")
    return "\n".join(lines + _log_text(logs))


def report(res: Results) -> tuple[dict, str, tuple[Table, ...]]:
    """The standings of a results file, a rally's or a league's: JSON, text and tables."""
    if res.is_league:
        ls = league_standings(res)
        return league_to_json(ls), format_league_text(ls), tuple(league_tables(ls))
    st = standings(res)
    data = standings_to_json(st)
    logs = log_tables(res)
    if logs:
        data["logs"] = _logs_json(res.drivers, res.stages)
    return data, format_standings_text(st) + "\n".join(_log_text(logs)), (standings_table(st), *logs)
