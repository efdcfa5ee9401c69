"""Rally Risk specs: three kinds of file, all with `game: rally_risk`.

A **library** lists the road sections of a box (one file, shared by many races)::

    game: rally_risk
    kind: library
    name: sheetgen road sections
    card_mm: 80                   # optional: side of a printed section card, 50-180 mm (default 80)
    sections:
      - id: start                 # what races call it: letters, digits, _ and -
        name: Departure straight  # optional, defaults to the id
        tags: [straight, fast_road]   # straight, fast_road, curve, sharp_curve, ford
        entry: S                  # the sides the road enters and leaves the section by,
        exit: N                   #   as printed (north up); equal sides are refused
        factors: [0, 0, 0, 0, 0]  # speed and safety factor of each space, in driving order (0..4)
        fords: []                 # which spaces (1-based) are fords
        copies: 1                 # how many of this section the box has (default 1)

A section whose entry and exit sides are opposite goes straight through its square;
any other turns and must be tagged `curve` or `sharp_curve`; `straight` is for sections
that do not turn; `ford` is for sections with ford spaces (and only those). Every space
must be at least 5 mm long along the road on a printed card: a section with many spaces
needs a larger `card_mm` (the error says how large).

A **race** lays sections of a library, found by a path relative to the race file::

    game: rally_risk
    kind: race
    name: Montecarlo, race 1
    zone: EC                      # weather chart: EC, EN or A
    special: false                # special race: extra movement in 3rd-5th gear
    library: sections.yaml
    course:                       # in driving order; the first section has factor 0 everywhere
      - {section: start, heading: N}      # heading: direction of travel entering it
      - {section: right_bend, heading: N}
      - {section: straight, heading: E}   # right_bend turned the road east
    limits: {max_sharp_curves: 1, max_fords: 1}   # optional, as on the Calendar
    calendar: calendar.yaml       # optional: check the race against its rally's rules
    rally: montecarlo             #   (zone, number of sections, limits)
    tables: {...}                 # optional: your box's tables (see tables.py)

Each section sits on one square of a grid on the table, turned so that the car enters it
travelling `heading`. Consecutive sections must connect (a section is entered heading the
way the previous one leaves) and no two sections may share a square. A race may use each
section as often as the library has copies of it.

A **calendar** lists the rallies of a championship::

    game: rally_risk
    kind: calendar
    name: World Championship
    rallies:
      - id: montecarlo
        name: Montecarlo
        zone: EC
        races: [6, 6, 6]          # sections of each normal race
        specials: [5]             # sections of each special race
        limits: {max_sharp_curves: 1, max_fords: 1}

Limits count sections by tag: min_/max_sharp_curves, min_/max_fords, min_/max_fast_roads;
they hold for every race of the rally, specials included.

A calendar may name its box's sections (`library: sections.yaml`, needed by `sheetgen
calendar`, which chooses the sections of every race), and may give its races laid out:
a rally's `courses` lists its normal races in order, then its specials, each checked like
a race file (sections that connect, no overlap, copies, a factor-0 first section) and
against the rally's limits and section counts. `sheetgen calendar` writes such a file::

      - id: montecarlo
        ...
        courses:
          - name: Montecarlo, race 1
            special: false
            course:
              - {section: start, heading: N}
              - ...

A **results** file records a championship as played, for `sheetgen standings` (the format
is documented in :mod:`sheetgen.games.rally_risk.results`).
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from dataclasses import replace
from typing import Any

from sheetgen.errors import Problem, SpecError
from sheetgen.games.rally_risk import tables as tables_mod
from sheetgen.games.rally_risk.graph import structural_problems
from sheetgen.games.rally_risk.layout import MAX_CARD_MM, MIN_CARD_MM, MIN_SPACE_MM, min_card_mm, road_kind
from sheetgen.games.rally_risk.model import (
    DEFAULT_CARD_MM,
    Assistance,
    Calendar,
    Leg,
    Library,
    Limits,
    Race,
    Rally,
    Section,
    Side,
    Tag,
    Zone,
)
from sheetgen.glyphs import TEXT
from sheetgen.league import league_schema
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document, load_beside

KINDS = ("library", "race", "calendar", "results")
MAX_SECTIONS = 100
MAX_SPACES = 20
MAX_COURSE = 30
#: The exact analysis of a course grows about linearly with its spaces: 100 spaces take about
#: 1.4 s and 430 spaces about 6 s of CPU for the three assistance types on a busy 2-core machine
#: (benchmarks/bench_rally_risk_course.py). Every race is analysed (its course sheet, `build`,
#: the calendar's check) and printed on one course sheet, so a longer one is refused where its
#: course is given. The rulebook's races have 5 to 8 sections (about 30 to 60 spaces).
MAX_RACE_SPACES = 120
#: Every race of a calendar is analysed when it is built: 100 races of one section each take
#: about 2.5 s; what the analyses cost is bounded by their spaces (MAX_CALENDAR_SPACES).
MAX_CALENDAR_RACES = 100
#: The spaces a calendar's races may run to in all, each race counted at its longest (its
#: sections x the library's longest section, at most MAX_RACE_SPACES): what its analyses
#: cost grows with them, 6 to 9 ms of CPU a counted space on the bundled sections and up to
#: 10 ms on sections of 20 spaces of factor 4 (the calendar's spec and PDF written too, on
#: the 2-core machine loaded by other work). The rulebook's championship (8 rallies, 22
#: races) counts 952 and takes 6 to 9 s; 8 races of 6 such long sections (960) 7 to 9.5 s; a
#: championship grown to 30 rallies (3,556) took 23 s. The limit is the rulebook's size.
MAX_CALENDAR_SPACES = 1000
MAX_FACTOR = 4

_ID = {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,40}$", "description": "letters, digits, _ and -"}
_NAME = {"type": "string", "minLength": 1, "maxLength": 60, **TEXT}
_SIDE = {"enum": [s.value for s in Side]}
_ZONE = {"enum": [z.value for z in Zone], "description": "weather zone: Central Europe, Northern Europe, Africa"}
_COUNT = {"type": "integer", "minimum": 0, "maximum": MAX_COURSE}

LIMIT_KEYS = (
    ("sharp_curves", Tag.SHARP_CURVE, "sharp curve"),
    ("fords", Tag.FORD, "ford"),
    ("fast_roads", Tag.FAST_ROAD, "fast road"),
)


def limit_marks(section: Section) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What a section counts towards the calendar's limits, per LIMIT_KEYS: (towards a
    minimum, towards a maximum). A limit holds under both readings of the Calendar's "1
    ford" (sections of that kind, or the fords a player counts on the table): a section
    counts 1 towards a minimum whatever it holds, and towards a maximum of fords it counts
    every ford space it holds (the house library's ford sections hold one each, so the two
    readings agree on them)."""
    lo = tuple(int(tag in section.tags) for _k, tag, _w in LIMIT_KEYS)
    hi = tuple(max(x, len(section.fords)) if tag is Tag.FORD and x else x for x, (_k, tag, _w) in zip(lo, LIMIT_KEYS))
    return lo, hi


_LIMITS = {
    "type": "object",
    "additionalProperties": False,
    "description": "limits on the sections a race may use, counted by tag",
    "properties": {f"{edge}_{key}": _COUNT for key, _tag, _word in LIMIT_KEYS for edge in ("min", "max")},
}

_SECTION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "entry", "exit", "factors"],
    "properties": {
        "id": _ID,
        "name": _NAME,
        "tags": {"type": "array", "items": {"enum": [t.value for t in Tag]}, "uniqueItems": True},
        "entry": _SIDE,
        "exit": _SIDE,
        "factors": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_SPACES,
            "items": {"type": "integer", "minimum": 0, "maximum": MAX_FACTOR},
            "description": "speed and safety factor of each space in driving order",
        },
        "fords": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1},
            "uniqueItems": True,
            "description": "ford spaces, 1-based",
        },
        "copies": {"type": "integer", "minimum": 1, "maximum": 20},
    },
}

LIBRARY_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rally Risk road-section library",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "sections"],
    "properties": {
        "game": {"const": "rally_risk"},
        "kind": {"const": "library"},
        "name": _NAME,
        "card_mm": {
            "type": "number",
            "minimum": MIN_CARD_MM,
            "maximum": MAX_CARD_MM,
            "description": f"side of a printed section card in mm (default {DEFAULT_CARD_MM:g})",
        },
        "sections": {"type": "array", "minItems": 1, "maxItems": MAX_SECTIONS, "items": _SECTION},
    },
}

_LEG = {
    "type": "object",
    "additionalProperties": False,
    "required": ["section", "heading"],
    "properties": {
        "section": {"type": "string", "description": "a section id of the library"},
        "heading": dict(_SIDE, description="direction of travel when entering the section"),
    },
}

RACE_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rally Risk race",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "zone", "library", "course"],
    "properties": {
        "game": {"const": "rally_risk"},
        "kind": {"const": "race"},
        "name": _NAME,
        "zone": _ZONE,
        "special": {"type": "boolean", "description": "special race: extra movement in 3rd, 4th and 5th gear"},
        "library": {"type": "string", "minLength": 1, "description": "section library file, relative to this file"},
        "calendar": {"type": "string", "minLength": 1, "description": "calendar file, relative to this file"},
        "rally": dict(_ID, description="the calendar's rally this race belongs to"),
        "limits": _LIMITS,
        "course": {"type": "array", "minItems": 1, "maxItems": MAX_COURSE, "items": _LEG},
        "tables": tables_mod.SCHEMA,
    },
}

#: Races and specials of one rally, together (what a laid-out calendar's `courses` may hold).
MAX_RALLY_RACES = 2 * MAX_COURSE

_CALENDAR_RACE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["course"],
    "properties": {
        "name": _NAME,
        "special": {"type": "boolean", "description": "a special race (they follow the normal races)"},
        "course": {"type": "array", "minItems": 1, "maxItems": MAX_COURSE, "items": _LEG},
    },
}

_RALLY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "zone", "races"],
    "properties": {
        "id": _ID,
        "name": _NAME,
        "zone": _ZONE,
        "races": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": MAX_COURSE},
            "description": "sections per normal race",
        },
        "specials": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": MAX_COURSE},
            "description": "sections per special race",
        },
        "limits": _LIMITS,
        "courses": {
            "type": "array",
            "maxItems": MAX_RALLY_RACES,
            "items": _CALENDAR_RACE,
            "description": "the races laid out: the normal races in order, then the specials",
        },
    },
}

CALENDAR_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rally Risk championship calendar",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "rallies"],
    "properties": {
        "game": {"const": "rally_risk"},
        "kind": {"const": "calendar"},
        "name": _NAME,
        "library": {"type": "string", "minLength": 1, "description": "section library file, relative to this file"},
        "rallies": {"type": "array", "minItems": 1, "maxItems": 30, "items": _RALLY},
    },
}

MAX_PLAYERS = 6  # the box has 6 cars
_PLAYER = {"type": "string", "minLength": 1, "maxLength": 30, **TEXT}
_FINISH = {
    "oneOf": [{"type": "integer", "minimum": 1, "maximum": 10000}, {"enum": ["destroyed", "eliminated"]}],
    "description": "the round the car finished in, or destroyed / eliminated",
}

#: a championship's house options (`sheetgen.league`): its points per place are the rulebook's
LEAGUE_SCHEMA = league_schema(
    points=False,
    bonus_help={
        "stage_win": "points for the best score A of a race (ties: each of them), per race",
        "fastest_stage": "points for the first car home (fewest rounds) in a rally's last normal race",
        "clean_run": "points for finishing every race of a rally (never destroyed or eliminated)",
    },
)

RESULTS_SCHEMA: dict[str, Any] = {
    "title": "sheetgen Rally Risk championship results",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "kind", "name", "players", "rallies"],
    "properties": {
        "game": {"const": "rally_risk"},
        "kind": {"const": "results"},
        "name": _NAME,
        "calendar": {"type": "string", "minLength": 1, "description": "calendar file, relative to this file"},
        "league": LEAGUE_SCHEMA,
        "players": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_PLAYERS,
            "uniqueItems": True,
            "items": _PLAYER,
            "description": "the drivers, in the first race's departure order (drawn by lot)",
        },
        "rallies": {
            "type": "array",
            "maxItems": 30,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["rally", "races"],
                "properties": {
                    "rally": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 60,
                        **TEXT,
                        "description": "the calendar's rally id (or any name without a calendar)",
                    },
                    "name": _NAME,
                    "races": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 2 * MAX_COURSE,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["finish"],
                            "properties": {
                                "name": _NAME,
                                "special": {"type": "boolean"},
                                "departure": {
                                    "type": "array",
                                    "uniqueItems": True,
                                    "items": _PLAYER,
                                    "description": "players in departure order",
                                },
                                "finish": {
                                    "type": "object",
                                    "additionalProperties": _FINISH,
                                    "description": "player: finishing round",
                                },
                                "assistance": {
                                    "type": "object",
                                    "additionalProperties": {"enum": [a.value for a in Assistance]},
                                    "description": (
                                        "player: the assistance chosen for this race (it may change between races, "
                                        "never from permanent to normal)"
                                    ),
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen Rally Risk spec (a section library, a race, a calendar or results)",
    "oneOf": [LIBRARY_SCHEMA, RACE_SCHEMA, CALENDAR_SCHEMA, RESULTS_SCHEMA],
}


# --------------------------------------------------------------------------- loading


def load_library(doc: Document) -> Library:
    data = doc.data
    outline = dict(
        LIBRARY_SCHEMA,
        properties=dict(
            LIBRARY_SCHEMA["properties"], sections={"type": "array", "minItems": 1, "maxItems": MAX_SECTIONS}
        ),
    )
    problems = check(doc, outline)
    card_ok = not check(doc, {"properties": {"card_mm": LIBRARY_SCHEMA["properties"]["card_mm"]}})
    card = float(data["card_mm"]) if card_ok and "card_mm" in data else DEFAULT_CARD_MM
    ids: dict[str, int] = {}
    for i, raw in enumerate(data.get("sections") if isinstance(data.get("sections"), list) else []):
        base = ("sections", i)
        found = check(doc, _SECTION, raw, base)
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            if raw["id"] in ids:
                problems.append(
                    doc.problem(
                        base + ("id",), f"duplicate section id {raw['id']!r} (also section {ids[raw['id']] + 1})"
                    )
                )
            else:
                ids[raw["id"]] = i
        if not found:
            found = [doc.problem(base + path, message) for path, message in validate_section(_section(raw))]
        if not found and card_ok:
            message = card_problem(_section(raw), card)
            if message:
                found = [doc.problem(("card_mm",) if "card_mm" in data else base + ("factors",), message)]
        problems.extend(found)
    if problems:
        raise SpecError(problems)
    return Library(data["name"], tuple(_section(s) for s in data["sections"]), card)


def card_problem(section: Section, card_mm: float) -> str | None:
    """Why `section`'s spaces do not fit a card of side `card_mm`, or None."""
    need = min_card_mm(section)
    if card_mm + 1e-9 >= need:
        return None
    shape = {"straight": "straight road", "curve": "curve", "sharp": "sharp curve"}[road_kind(section)]
    return (
        f"section {section.id!r} has {len(section.factors)} spaces on a {shape}: on a card of {card_mm:g} mm each "
        "space would "
        f"be under {MIN_SPACE_MM:g} mm long; give the library card_mm: {math.ceil(need)} or more"
    )


def _section(s: dict) -> Section:
    return Section(
        id=s["id"],
        name=s.get("name", s["id"]),
        entry=Side(s["entry"]),
        exit=Side(s["exit"]),
        factors=tuple(s["factors"]),
        fords=tuple(s.get("fords", ())),
        tags=tuple(Tag(t) for t in s.get("tags", ())),
        copies=s.get("copies", 1),
    )


def validate_section(section: Section) -> list[tuple[tuple, str]]:
    """Sides, fords and tags that agree with each other, as (path, message)."""
    problems: list[tuple[tuple, str]] = []
    if section.entry == section.exit:
        problems.append((("exit",), f"a section cannot be entered and left by the same side ({section.exit.value})"))
    for index, ford in enumerate(section.fords):
        if ford > len(section.factors):
            problems.append(
                (("fords", index), f"ford space {ford} is beyond the section's {len(section.factors)} spaces")
            )
    tags = set(section.tags)
    if section.entry != section.exit:
        curved = bool(tags & {Tag.CURVE, Tag.SHARP_CURVE})
        if section.turns and not curved:
            problems.append(
                (
                    ("tags",),
                    f"the road turns ({section.entry.value} to {section.exit.value}): tag the section 'curve' or "
                    "'sharp_curve'",
                )
            )
        if not section.turns and curved:
            problems.append(
                (
                    ("tags",),
                    f"the road goes straight through ({section.entry.value} to {section.exit.value}): a section "
                    "tagged 'curve' or 'sharp_curve' must turn",
                )
            )
        if section.turns and Tag.STRAIGHT in tags:
            problems.append(
                (
                    ("tags",),
                    f"the road turns ({section.entry.value} to {section.exit.value}): it cannot be tagged 'straight'",
                )
            )
    if Tag.CURVE in tags and Tag.SHARP_CURVE in tags:
        problems.append((("tags",), "a section is a 'curve' or a 'sharp_curve', not both"))
    if section.fords and Tag.FORD not in tags:
        problems.append((("tags",), "the section has ford spaces: tag it 'ford'"))
    if Tag.FORD in tags and not section.fords:
        problems.append((("tags",), "a section tagged 'ford' needs its ford spaces listed in 'fords'"))
    return problems


def load_calendar(doc: Document) -> Calendar:
    data = doc.data
    problems = check(doc, CALENDAR_SCHEMA)
    ids: dict[str, int] = {}
    for i, raw in enumerate(data.get("rallies") if isinstance(data.get("rallies"), list) else []):
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            if raw["id"] in ids:
                problems.append(
                    doc.problem(
                        ("rallies", i, "id"), f"duplicate rally id {raw['id']!r} (also rally {ids[raw['id']] + 1})"
                    )
                )
            else:
                ids[raw["id"]] = i
        if isinstance(raw, dict) and isinstance(raw.get("limits"), dict):
            problems.extend(doc.problem(("rallies", i, "limits") + p, m) for p, m in limit_problems(raw["limits"]))
        if isinstance(raw, dict) and not raw.get("races") and not raw.get("specials"):
            problems.append(doc.problem(("rallies", i), "a rally needs at least one race in 'races' or 'specials'"))
        if (
            isinstance(raw, dict)
            and isinstance(raw.get("races", []), list)
            and isinstance(raw.get("specials", []), list)
        ):
            count = len(raw.get("races", [])) + len(raw.get("specials", []))
            if count > MAX_RALLY_RACES:  # a laid-out calendar lists them all under 'courses'
                where = ("rallies", i, "races" if "races" in raw else "specials")
                problems.append(
                    doc.problem(
                        where, f"a rally has at most {MAX_RALLY_RACES} races and specials together, got {count}"
                    )
                )
    rallies = data.get("rallies") if isinstance(data.get("rallies"), list) else []
    races = sum(
        len(r.get("races", [])) + len(r.get("specials", []))
        for r in rallies
        if isinstance(r, dict) and isinstance(r.get("races", []), list) and isinstance(r.get("specials", []), list)
    )
    if races > MAX_CALENDAR_RACES:
        problems.append(
            doc.problem(
                ("rallies",),
                f"the calendar has {races} races and specials; at most {MAX_CALENDAR_RACES} (each is analysed when "
                "the calendar is built)",
                key=True,
            )
        )
    if problems:
        raise SpecError(problems)
    library = None
    if "library" in data:
        library, problems = _load_other(doc, "library", "library")
    if library is not None and library.sections:
        longest = max(len(s.factors) for s in library.sections)
        spaces = sum(
            min(MAX_RACE_SPACES, n * longest) for r in data["rallies"] for n in (*r["races"], *r.get("specials", ()))
        )
        if spaces > MAX_CALENDAR_SPACES:
            problems.append(
                doc.problem(
                    ("rallies",),
                    f"the calendar's races may run to {spaces:,} spaces in all (each race's sections x the library's "
                    f"longest section, {longest} spaces, at most {MAX_RACE_SPACES} a race); at most "
                    f"{MAX_CALENDAR_SPACES:,} (each race is analysed when the calendar is built)",
                    key=True,
                )
            )
    rallies = []
    for i, r in enumerate(data["rallies"]):
        rally = Rally(
            id=r["id"],
            name=r.get("name", r["id"]),
            zone=Zone(r["zone"]),
            races=tuple(r["races"]),
            specials=tuple(r.get("specials", ())),
            limits=Limits(**r.get("limits", {})),
        )
        if r.get("courses") and "library" not in data:
            problems.append(
                doc.problem(
                    ("rallies", i, "courses"),
                    "'courses' need the calendar's 'library': the file of the road sections they use",
                )
            )
        elif r.get("courses") and library is not None:
            courses, found = _rally_courses(doc, i, rally, r["courses"], library, data["library"])
            problems.extend(found)
            rally = replace(rally, courses=courses)
        rallies.append(rally)
    if problems:
        raise SpecError(problems)
    return Calendar(data["name"], tuple(rallies), library=data.get("library", ""), sections=library)


def race_name(rally: Rally, special: bool, number: int) -> str:
    """The name a calendar gives its rally's `number`-th (1-based) race or special."""
    if not special:
        return f"{rally.name}, race {number}"
    return f"{rally.name}, special" if len(rally.specials) == 1 else f"{rally.name}, special {number}"


def _rally_courses(
    doc: Document, i: int, rally: Rally, raws: list, library: Library, library_path: str
) -> tuple[tuple[Race, ...], list[Problem]]:
    """A rally's races given as courses, checked like race files and against the rally."""
    problems: list[Problem] = []
    base = ("rallies", i, "courses")
    kinds = [bool(raw.get("special", False)) for raw in raws]
    for j in range(1, len(kinds)):
        if kinds[j - 1] and not kinds[j]:
            problems.append(
                doc.problem(
                    base + (j,), "a normal race cannot follow a special: list the normal races first, then the specials"
                )
            )
            break
    given = (kinds.count(False), kinds.count(True))
    wanted = (len(rally.races), len(rally.specials))
    if given != wanted:
        problems.append(
            doc.problem(
                base, f"rally {rally.id!r} has {_races_word(*wanted)}; 'courses' gives {_races_word(*given)}", key=True
            )
        )
    races: list[Race] = []
    numbers = {False: 0, True: 0}
    for j, raw in enumerate(raws):
        special = kinds[j]
        numbers[special] += 1
        k = numbers[special]
        sizes = rally.specials if special else rally.races
        course, found = _course(doc, base + (j,), raw["course"], library)
        problems.extend(found)
        if k <= len(sizes) and len(raw["course"]) != sizes[k - 1]:
            what = "special" if special else "race"
            problems.append(
                doc.problem(
                    base + (j, "course"),
                    f"{what} {k} of rally {rally.id!r} has {sizes[k - 1]} sections; this course has "
                    f"{len(raw['course'])}",
                    key=True,
                )
            )
        if course is None:
            continue
        problems.extend(
            doc.problem(base + (j, "course"), m, key=True)
            for m in course_limit_problems(course, rally.limits, f"rally {rally.id!r}")
        )
        races.append(
            Race(
                name=raw.get("name", race_name(rally, special, k)),
                zone=rally.zone,
                course=course,
                tables=tables_mod.build(None),
                special=special,
                library=library_path,
                rally=rally.id,
            )
        )
    return tuple(races), problems


def _races_word(races: int, specials: int) -> str:
    text = f"{races} race{'s' if races != 1 else ''}"
    return text + (f" and {specials} special{'s' if specials != 1 else ''}" if specials else "")


def limit_problems(limits: dict) -> list[tuple[tuple, str]]:
    out = []
    for key, _tag, word in LIMIT_KEYS:
        lo, hi = limits.get(f"min_{key}"), limits.get(f"max_{key}")
        if lo is not None and hi is not None and lo > hi:
            out.append(((f"min_{key}",), f"at least {lo} {word}s and at most {hi} cannot both hold"))
    return out


def require_race(spec: Any) -> Race:
    """The race of a loaded spec (`registry.Spec`); else the error `analyze` and `simulate`
    give, located at the file's kind."""
    if isinstance(spec.model, Race):
        return spec.model
    hint = f" (`sheetgen standings {spec.path}` gives its standings)" if spec.kind_name == "results" else ""
    raise spec.wrong(
        f"{spec.described('rally_risk')}, not a race: analysis and simulation need a race (kind: race){hint}"
    )


def _load_other(doc: Document, key: str, kind: str) -> tuple[Any, list[Problem]]:
    """The library or calendar a race names, loaded from a path relative to the race."""
    rel = doc.data[key]
    if "\x00" in rel:
        return None, [doc.problem((key,), f"{kind} {rel!r}: a file name cannot contain a NUL character")]
    try:
        other = load_beside(doc, rel, (key,))
    except SpecError as exc:
        if len(exc.problems) == 1 and exc.problems[0].message.startswith(("cannot read file", "is a directory")):
            return None, [doc.problem((key,), f"{kind} {rel!r}: {exc.problems[0].message}")]
        return None, list(exc.problems) + [doc.problem((key,), f"{kind} {rel!r} has errors (listed with its name)")]
    data = other.data
    if not isinstance(data, dict) or data.get("game") != "rally_risk" or data.get("kind") != kind:
        what = (
            f"game {data.get('game')!r}, kind {data.get('kind')!r}" if isinstance(data, dict) else "not a spec mapping"
        )
        return None, [doc.problem((key,), f"{rel!r} is not a Rally Risk {kind} ({what})")]
    try:
        return (load_library if kind == "library" else load_calendar)(other), []
    except SpecError as exc:
        return None, list(exc.problems) + [doc.problem((key,), f"{kind} {rel!r} has errors (listed with its name)")]


def load_race(doc: Document) -> Race:
    data = doc.data
    props = RACE_SCHEMA["properties"]
    outline = dict(
        RACE_SCHEMA,
        properties=dict(props, course=dict(props["course"], items={"type": "object"}), tables={"type": "object"}),
    )
    problems = check(doc, outline)
    for i, raw in enumerate(data.get("course") if isinstance(data.get("course"), list) else []):
        problems.extend(check(doc, _LEG, raw, ("course", i)))
    # the tables do not affect the course checks: their problems never stop those
    found = tables_mod.check_spec_tables(doc, data["tables"]) if isinstance(data.get("tables"), dict) else []
    if problems:
        raise SpecError(problems + found)
    problems = found
    library, found = _load_other(doc, "library", "library")
    problems.extend(found)
    calendar = rally = None
    if "rally" in data and "calendar" not in data:
        problems.append(doc.problem(("rally",), "'rally' needs 'calendar': the calendar file that lists the rally"))
    elif "calendar" in data:
        calendar, found = _load_other(doc, "calendar", "calendar")
        problems.extend(found)
        if calendar is not None and "rally" not in data:
            problems.append(
                doc.problem(("calendar",), "'calendar' needs 'rally': which of its rallies this race belongs to")
            )
        elif calendar is not None:
            rally = calendar.get(data["rally"])
            if rally is None:
                ids = [r.id for r in calendar.rallies]
                near = difflib.get_close_matches(data["rally"], ids, n=1)
                hint = f", did you mean {near[0]!r}?" if near else f" (the calendar has: {', '.join(ids)})"
                problems.append(doc.problem(("rally",), f"unknown rally {data['rally']!r}{hint}"))
    problems.extend(doc.problem(("limits",) + p, m) for p, m in limit_problems(data.get("limits", {})))
    if library is None:
        raise SpecError(problems)
    course, found = _course(doc, (), data["course"], library)
    problems.extend(found)
    if course is None:
        raise SpecError(problems)
    limits = Limits(**data.get("limits", {}))
    problems.extend(doc.problem(("limits",), m) for m in course_limit_problems(course, limits, "the race's limits"))
    special = data.get("special", False)
    if rally is not None:
        if rally.zone.value != data["zone"]:
            problems.append(
                doc.problem(
                    ("zone",), f"rally {rally.id!r} is run in weather zone {rally.zone.value}, not {data['zone']}"
                )
            )
        allowed = rally.specials if special else rally.races
        what = "special races" if special else "races"
        if len(course) not in allowed:
            counts = " or ".join(str(n) for n in sorted(set(allowed))) if allowed else "no"
            problems.append(
                doc.problem(
                    ("course",), f"rally {rally.id!r} has {what} of {counts} sections; this course has {len(course)}"
                )
            )
        problems.extend(
            doc.problem(("rally",), m) for m in course_limit_problems(course, rally.limits, f"rally {rally.id!r}")
        )
    if problems:
        raise SpecError(problems)
    return Race(
        name=data["name"],
        zone=Zone(data["zone"]),
        course=course,
        tables=tables_mod.build(data.get("tables")),
        special=special,
        library=data["library"],
        rally=rally.id if rally is not None else None,
        limits=limits,
    )


def _course(
    doc: Document, base: tuple, raw_course: list, library: Library
) -> tuple[tuple[Leg, ...] | None, list[Problem]]:
    """The legs of a course written at `base` + ("course",) (None when a section is
    unknown), with the problems of its sections: unknown ids, copies, structure."""
    problems: list[Problem] = []
    legs: list[Leg] = []
    used: Counter = Counter()
    ids = [s.id for s in library.sections]
    for i, raw in enumerate(raw_course):
        section = library.get(raw["section"])
        where = base + ("course", i, "section")
        if section is None:
            near = difflib.get_close_matches(raw["section"], ids, n=1)
            hint = f", did you mean {near[0]!r}?" if near else f" (the library has: {', '.join(ids)})"
            problems.append(doc.problem(where, f"unknown section {raw['section']!r}{hint}"))
            continue
        used[section.id] += 1
        if used[section.id] == section.copies + 1:
            copies = f"{section.copies} cop{'y' if section.copies == 1 else 'ies'}"
            problems.append(
                doc.problem(where, f"section {section.id!r} is used more often than the library has copies ({copies})")
            )
        legs.append(Leg(section, Side(raw["heading"])))
    if len(legs) != len(raw_course):
        return None, problems
    course = tuple(legs)
    problems.extend(doc.problem(base + p, m) for p, m in structural_problems(course))
    spaces = sum(len(leg.section.factors) for leg in course)
    if spaces > MAX_RACE_SPACES:
        problems.append(
            doc.problem(
                base + ("course",),
                f"the course has {spaces} spaces; sheetgen analyses and prints races of at most {MAX_RACE_SPACES} "
                "spaces",
                key=True,
            )
        )
    return course, problems


def course_limit_problems(course: tuple[Leg, ...], limits: Limits, whose: str) -> list[str]:
    out = []
    marks = [limit_marks(leg.section) for leg in course]
    for t, (key, _tag, word) in enumerate(LIMIT_KEYS):
        n = sum(lo_m[t] for lo_m, _hi_m in marks)
        held = sum(hi_m[t] for _lo_m, hi_m in marks)
        lo, hi = getattr(limits, f"min_{key}"), getattr(limits, f"max_{key}")
        if lo is not None and n < lo:
            out.append(
                f"the course has {n} {word} section{'s' if n != 1 else ''}; {whose} "
                f"ask{'s' if not whose.startswith('the') else ''} for at least {lo}"
            )
        if hi is not None and n > hi:
            out.append(
                f"the course has {n} {word} section{'s' if n != 1 else ''}; {whose} "
                f"allow{'s' if not whose.startswith('the') else ''} at most {hi}"
            )
        elif hi is not None and held > hi:
            out.append(
                f"the course has {held} {word}s on the table ({n} {word} section{'s' if n != 1 else ''}); "
                f"{whose} allow{'s' if not whose.startswith('the') else ''} at most {hi}"
            )
    return out


# --------------------------------------------------------------------------- dumping


def library_to_data(library: Library) -> dict:
    return {
        "game": "rally_risk",
        "kind": "library",
        "name": library.name,
        "card_mm": library.card_mm,
        "sections": [
            {
                "id": s.id,
                "name": s.name,
                "tags": [t.value for t in s.tags],
                "entry": s.entry.value,
                "exit": s.exit.value,
                "factors": list(s.factors),
                "fords": list(s.fords),
                "copies": s.copies,
            }
            for s in library.sections
        ],
    }


def race_to_data(race: Race) -> dict:
    """The race's spec data (the library stays a path; a calendar reference is not kept:
    its checks passed when the race was loaded)."""
    data: dict[str, Any] = {
        "game": "rally_risk",
        "kind": "race",
        "name": race.name,
        "zone": race.zone.value,
        "special": race.special,
        "library": race.library,
        "course": [{"section": leg.section.id, "heading": leg.heading.value} for leg in race.course],
    }
    limits = {k: v for k, v in vars(race.limits).items() if v is not None}
    if limits:
        data["limits"] = limits
    if race.tables.overridden:
        data["tables"] = tables_to_spec(race.tables)
    return data


def tables_to_spec(t) -> dict:
    """The overridden tables of `t` in the form a spec writes them."""
    full = {
        "gear_chart": [list(pair) for pair in t.gear_chart],
        "risk": [list(row) for row in t.risk],
        "damage": [[o.value for o in row] for row in t.damage],
        "weather": {z.value: {"start": c.start + 1, "sectors": [str(s) for s in c.sectors]} for z, c in t.weather},
        "tyres": {
            k.value: {w.value: {"move": e.move, "factor": e.factor} for w, e in effects} for k, effects in t.tyres
        },
        "special_extra": list(t.special_extra),
    }
    return {name: full[name] for name in t.overridden}


def calendar_to_data(calendar: Calendar) -> dict:
    """The calendar's spec data; its rallies' races as courses when it has them (the
    library stays a path, relative to wherever the data is written)."""
    data: dict[str, Any] = {"game": "rally_risk", "kind": "calendar", "name": calendar.name}
    if calendar.library:
        data["library"] = calendar.library
    rallies = []
    for rally in calendar.rallies:
        r: dict[str, Any] = {"id": rally.id, "name": rally.name, "zone": rally.zone.value, "races": list(rally.races)}
        if rally.specials:
            r["specials"] = list(rally.specials)
        limits = {k: v for k, v in vars(rally.limits).items() if v is not None}
        if limits:
            r["limits"] = limits
        if rally.courses:
            r["courses"] = [
                {
                    "name": race.name,
                    "special": race.special,
                    "course": [{"section": leg.section.id, "heading": leg.heading.value} for leg in race.course],
                }
                for race in rally.courses
            ]
        rallies.append(r)
    data["rallies"] = rallies
    return data
