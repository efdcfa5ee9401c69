"""Building a championship calendar: the sections of every race, chosen by seed.

For every race of every rally the builder picks road sections from the calendar's library
so that

- the first section has factor 0 on every space (rulebook, "The Road Sections");
- each section is entered heading the way the one before leaves, and the course lays out
  on the table without two sections on one square (the same checks as a race file);
- no section is used more often than the library has copies of it (per race: each race
  is laid out on the table from the whole box);
- the rally's limits hold (at most / at least so many sharp curves, fords, fast roads);
- the race is finishable: sheetgen's exact analysis (:mod:`solve`) of a car with permanent
  assistance and no mechanics is eliminated with probability under 5%. Permanent is the
  safest assistance and mechanics only help, so every player can finish such a race; one
  assistance type and no mechanics keep the analysis to one solve per race.

The search is a depth-first search over the sections of each race, in an order drawn from
the seed (a section with more copies in the box is drawn more often), pruned by the limits
still reachable; it is complete, so a race it cannot fill is impossible. Before searching,
the limits are checked against the library by counting (a rally asking for 3 fords per race
from a library with 2 ford sections is refused with that reason), and every problem names
the calendar's value it comes from (a path for `Document.problem`).

Races of the calendar get different courses where the library allows it. A course the
finishability check refuses is replaced by the first course of a fresh search in a new order
(so it differs anywhere, not just in its last sections); a race refused
:data:`MAX_UNFINISHABLE` times is reported with the best figures seen. The analyses of one
round of proposals run in parallel processes (`jobs`, through `sheetgen.parallel`) and are
kept for the build (a course is never analysed twice); the calendar depends on the seed
only, never on `jobs`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field

from sheetgen.errors import SheetgenError
from sheetgen.games.rally_risk import tables as tables_mod
from sheetgen.games.rally_risk.graph import exit_heading
from sheetgen.games.rally_risk.model import Assistance, Calendar, Leg, Library, Limits, Race, Rally, Section, Side, Tag
from sheetgen.games.rally_risk.spec import LIMIT_KEYS, MAX_RACE_SPACES, limit_marks, race_name

#: A race counts as finishable when the check's P(elimination) is under this.
THRESHOLD = 0.05
#: The assistance type of the finishability check.
CHECK_ASSISTANCE = Assistance.PERMANENT
#: Courses of one race that may fail the finishability check before the race is refused.
MAX_UNFINISHABLE = 12
#: Search nodes per race before the search gives up (far above what any real box needs).
MAX_NODES = 400_000
#: The seed `sheetgen build` and `render` print a calendar spec with (`sheetgen calendar
#: SPEC --seed 1 -o DIR` writes the same PDF).
BUILD_SEED = 1
#: Solutions looked at to find a course no other race of the calendar uses.
DISTINCT_TRIES = 40


class CalendarError(SheetgenError):
    """The calendar cannot be built. `problems` are (path in the calendar spec, message)."""

    def __init__(self, problems: Sequence[tuple[tuple, str]]):
        self.problems = tuple(problems)
        super().__init__("; ".join(m for _p, m in self.problems))


@dataclass(frozen=True)
class RaceCheck:
    """The finishability check's figures for one race (permanent assistance, no mechanics)."""

    expected_rounds: float
    elimination_probability: float

    @property
    def finishable(self) -> bool:
        return self.elimination_probability < THRESHOLD


@dataclass(frozen=True)
class BuiltCalendar:
    """A calendar whose rallies all have their courses; `checks` parallels each rally's
    courses (None when built without the finishability check). `seed` is None for a
    calendar whose courses were read from a spec (see :func:`laid_out`)."""

    calendar: Calendar
    seed: int | None
    checks: tuple[tuple[RaceCheck | None, ...], ...]

    def races(self) -> Iterator[tuple[Rally, Race, RaceCheck | None]]:
        for rally, checks in zip(self.calendar.rallies, self.checks):
            for race, check in zip(rally.courses, checks):
                yield rally, race, check


def laid_out(calendar: Calendar, checks: bool = False, jobs: int = 1) -> BuiltCalendar:
    """A calendar spec that gives every race as a course (a written calendar), ready to
    print; with `checks`, each race's finishability figures too."""
    if not calendar.built:
        raise SheetgenError(f"calendar {calendar.name!r} does not give every race as a course")
    figures = (
        iter(_run_checks([race for r in calendar.rallies for race in r.courses], check_race, jobs)) if checks else None
    )
    return BuiltCalendar(
        calendar,
        None,
        tuple(tuple(next(figures) if figures else None for _race in r.courses) for r in calendar.rallies),
    )


def check_race(race: Race) -> RaceCheck:
    """Exact analysis of `race` for the finishability check (one solve), kept on disk between
    runs (`sheetgen.cache.figures`: keyed by the race without its name, the check's
    assistance and threshold, numpy's version and this module's import graph; JSON gives the
    floats back exactly), so that a second `sheetgen build` of a calendar reads its checks
    instead of solving them again."""
    from dataclasses import replace

    import numpy as np

    from sheetgen import cache

    subject = repr((replace(race, name=""), CHECK_ASSISTANCE, THRESHOLD, np.__version__))
    rounds, eliminated = cache.figures("rally-risk-check", subject, __name__, lambda: _solve_check(race))
    return RaceCheck(rounds, eliminated)


def _solve_check(race: Race) -> list[float]:
    """The expected rounds and the chance of elimination of the check's car: the figures
    `analyze_rally_risk_race(race, CHECK_ASSISTANCE, mechanics=())` gives, from the same solve
    and forward pass, without the rest of the analysis (the finishing round's distribution,
    the dangerous spaces) that the check does not print."""
    from sheetgen.games.rally_risk.forward import evaluate
    from sheetgen.games.rally_risk.rules import Course
    from sheetgen.games.rally_risk.solve import DEFAULT_PENALTY, solve

    figures = evaluate(solve(Course.of(race), CHECK_ASSISTANCE, (), DEFAULT_PENALTY)).figures
    return [figures.expected_rounds, figures.elimination_probability]


# --------------------------------------------------------------------------- counting


def _bounds(limits: Limits) -> tuple[tuple[int, ...], tuple[float, ...]]:
    lo = tuple(getattr(limits, f"min_{key}") or 0 for key, _t, _w in LIMIT_KEYS)
    hi = tuple(
        float("inf") if getattr(limits, f"max_{key}") is None else getattr(limits, f"max_{key}")
        for key, _t, _w in LIMIT_KEYS
    )
    return lo, hi


def _marks(section: Section) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(towards a minimum, towards a maximum) per limit key: see spec.limit_marks."""
    return limit_marks(section)


def is_start(section: Section) -> bool:
    """A section a race may start on: factor 0 on every space."""
    return all(f == 0 for f in section.factors)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _holdings(sections: list[Section]) -> str:
    return ", ".join(f"{s.id!r}" + (f" ({s.copies} copies)" if s.copies > 1 else "") for s in sections)


def limits_text(limits: Limits) -> str:
    parts = []
    for key, _tag, word in LIMIT_KEYS:
        lo, hi = getattr(limits, f"min_{key}"), getattr(limits, f"max_{key}")
        if lo is not None:
            parts.append(f"at least {_plural(lo, word)}")
        if hi == 0:
            parts.append(f"no {word}s")
        elif hi is not None:
            parts.append(f"at most {_plural(hi, word)}")
    return ", ".join(parts) if parts else "free choice of sections"


def _countable(library: Library, n: int, lo: tuple[int, ...], hi: tuple[float, ...]) -> bool:
    """Whether some n sections (copies respected, one of them a start section) meet the
    limits, ignoring the layout: a reachability sweep over (count, tag counts, has start)."""
    states = {(0, (0,) * len(lo), (0,) * len(hi), False)}
    for s in library.sections:
        lo_marks, hi_marks = _marks(s)
        start = is_start(s)
        grown = set(states)
        for count, tags, held, has in states:
            for m in range(1, s.copies + 1):
                c = count + m
                t = tuple(a + m * b for a, b in zip(tags, lo_marks))
                u = tuple(a + m * b for a, b in zip(held, hi_marks))
                if c > n or any(x > h for x, h in zip(u, hi)):
                    break
                grown.add((c, t, u, has or start))
        states = grown
    return any(c == n and has and all(x >= low for x, low in zip(t, lo)) for c, t, _u, has in states)


def count_problems(calendar: Calendar, library: Library) -> list[tuple[tuple, str]]:
    """Why some race of the calendar cannot be filled from the library, found by counting
    (before any search): (path in the calendar spec, message)."""
    problems: list[tuple[tuple, str]] = []
    starts = [s for s in library.sections if is_start(s)]
    if not starts:
        return [
            (
                ("library",),
                f"no section of library {calendar.library!r} has factor 0 on every space, and every race must start "
                "on one",
            )
        ]
    total = sum(s.copies for s in library.sections)
    shortest = min(len(s.factors) for s in library.sections)
    for i, rally in enumerate(calendar.rallies):
        for field, sizes in (("races", rally.races), ("specials", rally.specials)):
            if sizes and max(sizes) * shortest > MAX_RACE_SPACES:
                problems.append(
                    (
                        ("rallies", i, field),
                        f"rally {rally.id!r} has races of {max(sizes)} sections: even the library's shortest sections "
                        f"({shortest} spaces) "
                        f"make {max(sizes) * shortest} spaces, and sheetgen analyses races of at most "
                        f"{MAX_RACE_SPACES}",
                    )
                )
        lo, hi = _bounds(rally.limits)
        found: list[tuple[tuple, str]] = []
        for t, (key, tag, word) in enumerate(LIMIT_KEYS):
            tagged = [s for s in library.sections if tag in s.tags]
            held = sum(s.copies for s in tagged)
            if lo[t] > held:
                what = f": {_holdings(tagged)}" if tagged else ""
                found.append(
                    (
                        ("rallies", i, "limits", f"min_{key}"),
                        f"rally {rally.id!r} asks for at least {_plural(lo[t], word)} per race, but the library holds "
                        f"{_plural(held, word + ' section')}{what}",
                    )
                )
            if hi[t] == 0 and all(tag in s.tags for s in starts):
                found.append(
                    (
                        ("rallies", i, "limits", f"max_{key}"),
                        f"rally {rally.id!r} allows no {word}, but every factor-0 section of the library is one "
                        f"({_holdings(starts)}), and a race must start on one",
                    )
                )
        for field, sizes in (("races", rally.races), ("specials", rally.specials)):
            for j, n in enumerate(sizes):
                what = ("race" if field == "races" else "special") + f" {j + 1}"
                if n > total:
                    found.append(
                        (
                            (("rallies", i, field, j)),
                            f"rally {rally.id!r}: {what} has {n} sections, but the library holds {total} in all",
                        )
                    )
                    continue
                for t, (key, tag, word) in enumerate(LIMIT_KEYS):
                    room = n if any(tag in s.tags for s in starts) else n - 1
                    if lo[t] > room:
                        why = "" if room == n else f", and the first must be a factor-0 section, which no {word} is"
                        found.append(
                            (
                                ("rallies", i, "limits", f"min_{key}"),
                                f"rally {rally.id!r} asks for at least {_plural(lo[t], word)} per race, but its {what} "
                                "has "
                                f"{_plural(n, 'section')}{why}",
                            )
                        )
                if not found and not _countable(library, n, lo, hi):
                    found.append(
                        (
                            ("rallies", i, "limits") if rally.limits != Limits() else ("rallies", i, field, j),
                            f"rally {rally.id!r}: no {n} sections of the library (copies counted, the first a factor-0 "
                            "section) "
                            f"meet its limits ({limits_text(rally.limits)})",
                        )
                    )
        # one message per cause: the same limit may be broken by several races
        seen = set()
        for path, message in found:
            if (path, message) not in seen:
                seen.add((path, message))
                problems.append((path, message))
    return problems


# --------------------------------------------------------------------------- search


class _GaveUp(Exception):
    pass


def _draw_order(rng: random.Random, candidates: list[Section], left: Counter) -> list[Section]:
    """The candidates in a random order where more copies left come first more often
    (weighted sampling without replacement: key u ** (1 / weight))."""
    keyed = [(rng.random() ** (1.0 / left[s.id]), k, s) for k, s in enumerate(candidates)]
    keyed.sort(key=lambda x: (-x[0], x[1]))
    return [s for _w, _k, s in keyed]


def search_courses(
    library: Library, n: int, limits: Limits, rng: random.Random, max_nodes: int = MAX_NODES
) -> Iterator[tuple[Leg, ...]]:
    """Every course of n sections that meets the rules above (finishability aside), in an
    order drawn from `rng`; raises _GaveUp after `max_nodes` search steps."""
    lo, hi = _bounds(limits)
    sections = list(library.sections)
    starts = [s for s in sections if is_start(s)]
    shortest = min(len(s.factors) for s in sections)
    spaces = 0  # of the legs placed so far: a course stays within MAX_RACE_SPACES
    marks = {s.id: _marks(s) for s in sections}
    left = Counter({s.id: s.copies for s in sections})
    tagged_left = [sum(s.copies for s in sections if marks[s.id][0][t]) for t in range(len(lo))]
    counts = [0] * len(lo)  # towards the minimums
    held = [0] * len(hi)  # towards the maximums
    occupied = {(0, 0)}
    legs: list[Leg] = []
    nodes = 0

    def place(k: int, cell: tuple[int, int], heading: Side) -> Iterator[tuple[Leg, ...]]:
        nonlocal nodes, spaces
        if k == n:
            yield tuple(legs)
            return
        pool = starts if k == 0 else sections
        for s in _draw_order(rng, [s for s in pool if left[s.id] > 0], left):
            nodes += 1
            if nodes > max_nodes:
                raise _GaveUp
            m, mh = marks[s.id]
            new = [c + x for c, x in zip(counts, m)]
            new_held = [c + x for c, x in zip(held, mh)]
            if any(x > h for x, h in zip(new_held, hi)):
                continue
            rest = n - k - 1
            # every minimum must stay reachable with the slots and tagged copies left
            if any(low - x > rest or low - x > tl - mm for low, x, tl, mm in zip(lo, new, tagged_left, m)):
                continue
            if spaces + len(s.factors) + rest * shortest > MAX_RACE_SPACES:
                continue
            leg = Leg(s, heading)
            out = exit_heading(leg)
            nxt = (cell[0] + out.step[0], cell[1] + out.step[1])
            if rest and nxt in occupied:
                continue
            left[s.id] -= 1
            for t, x in enumerate(m):
                tagged_left[t] -= x
            counts[:] = new
            held[:] = new_held
            legs.append(leg)
            spaces += len(s.factors)
            if rest:
                occupied.add(nxt)
            yield from place(k + 1, nxt, out)
            if rest:
                occupied.discard(nxt)
            legs.pop()
            spaces -= len(s.factors)
            counts[:] = [c - x for c, x in zip(counts, m)]
            held[:] = [c - x for c, x in zip(held, mh)]
            for t, x in enumerate(m):
                tagged_left[t] += x
            left[s.id] += 1

    yield from place(0, (0, 0), Side.N)


def _key(course: tuple[Leg, ...]) -> tuple[str, ...]:
    return tuple(leg.section.id for leg in course)


@dataclass
class _Slot:
    rally: int
    special: bool
    number: int  # 1-based among the rally's races or specials
    size: int
    path: tuple  # the calendar value that asks for this race
    rng: random.Random
    solutions: Iterator[tuple[Leg, ...]]
    spare: list  # solutions skipped because another race had them
    failed: int = 0
    best_failed: RaceCheck | None = None
    rejected: set = dataclass_field(default_factory=set)  # courses the check refused

    def restart(self, library: Library, limits: Limits) -> None:
        """After a refused course, search afresh in a new order: the next course differs
        from the refused one anywhere, not only in its last sections."""
        self.solutions = search_courses(library, self.size, limits, random.Random(self.rng.getrandbits(64)))
        self.spare = []


def _next_course(slot: _Slot, taken: set) -> tuple[Leg, ...] | None:
    """The slot's next solution that no other race has, else one that another race has."""
    for _ in range(DISTINCT_TRIES):
        course = next(slot.solutions, None)
        if course is None:
            break
        if _key(course) in slot.rejected:
            continue
        if _key(course) not in taken:
            return course
        slot.spare.append(course)
    return slot.spare.pop(0) if slot.spare else None


def _check_key(race: Race) -> tuple:
    return (
        race.zone,
        race.special,
        race.tables,
        tuple((leg.section.factors, leg.section.fords) for leg in race.course),
    )


def _run_checks(
    races: list[Race], check: Callable[[Race], RaceCheck], jobs: int, memo: dict | None = None
) -> list[RaceCheck]:
    """`check` of every race, the longest first on up to `jobs` processes (see
    `sheetgen.parallel`). `memo` holds the results of `check_race` by what the analysis
    depends on, so that a race met again in one build (a retried or repeated course) is not
    analysed twice."""
    if check is not check_race:
        return _compute_checks(races, check, jobs)
    memo = {} if memo is None else memo
    keys = [_check_key(r) for r in races]
    todo: dict[tuple, Race] = {}
    for key, race in zip(keys, races):
        if key not in memo:
            todo.setdefault(key, race)
    for key, result in zip(todo, _compute_checks(list(todo.values()), check, jobs)):
        memo[key] = result
    return [memo[key] for key in keys]


def _compute_checks(races: list[Race], check: Callable[[Race], RaceCheck], jobs: int) -> list[RaceCheck]:
    from sheetgen import parallel

    # longest races first, so that no worker is left with a long one at the end
    order = sorted(range(len(races)), key=lambda k: (-races[k].length, k))
    done = parallel.run(check, [races[k] for k in order], jobs)
    by_race = dict(zip(order, done))
    return [by_race[k] for k in range(len(races))]


def default_jobs() -> int:
    from sheetgen import parallel

    return parallel.default_jobs()


def build_calendar(
    calendar: Calendar,
    seed: int,
    *,
    library: Library | None = None,
    check: Callable[[Race], RaceCheck] | None = check_race,
    jobs: int = 1,
) -> BuiltCalendar:
    """Choose the sections of every race of `calendar` (its own library unless `library`
    is given). `check` decides finishability (None: no check). Raises CalendarError with
    every reason found when some race cannot be built."""
    library = library or calendar.sections
    if library is None:
        raise CalendarError([((), "the calendar names no 'library': the road sections to choose from")])
    problems = count_problems(calendar, library)
    if problems:
        raise CalendarError(problems)
    master = random.Random(seed)
    slots: list[_Slot] = []
    for i, rally in enumerate(calendar.rallies):
        for special, field, sizes in ((False, "races", rally.races), (True, "specials", rally.specials)):
            for j, n in enumerate(sizes):
                rng = random.Random(master.getrandbits(64))
                solutions = search_courses(library, n, rally.limits, rng)
                slots.append(_Slot(i, special, j + 1, n, ("rallies", i, field, j), rng, solutions, [], rejected=set()))
    chosen: dict[int, tuple[tuple[Leg, ...], RaceCheck | None]] = {}
    checked: dict = {}  # check results of this build, by what the analysis depends on
    pending = list(range(len(slots)))
    while pending:
        taken = {_key(course) for course, _c in chosen.values()}
        proposals: dict[int, Race] = {}
        for index in pending:
            slot = slots[index]
            rally = calendar.rallies[slot.rally]
            try:
                course = _next_course(slot, taken)
            except _GaveUp:
                problems.append(
                    (
                        slot.path,
                        f"rally {rally.id!r}: gave up after {MAX_NODES} search steps without a course for "
                        f"{_what(slot)}",
                    )
                )
                continue
            if course is None:
                if slot.failed:
                    problems.append((slot.path, _unfinishable(rally, slot)))
                else:
                    problems.append(
                        (
                            slot.path,
                            f"rally {rally.id!r}: no {slot.size} sections of the library meeting its limits "
                            f"({limits_text(rally.limits)}) "
                            f"lay out on the table without overlapping (every arrangement tried) for {_what(slot)}",
                        )
                    )
                continue
            taken.add(_key(course))
            proposals[index] = Race(
                name=race_name(rally, slot.special, slot.number),
                zone=rally.zone,
                course=course,
                tables=tables_mod.build(None),
                special=slot.special,
                library=calendar.library,
                rally=rally.id,
            )
        if problems:
            raise CalendarError(problems)
        order = list(proposals)
        results = (
            _run_checks([proposals[k] for k in order], check, jobs, checked)
            if check is not None
            else [None] * len(order)
        )
        pending = []
        for index, result in zip(order, results):
            slot = slots[index]
            if result is None or result.finishable:
                chosen[index] = (proposals[index].course, result)
                continue
            slot.failed += 1
            slot.rejected.add(_key(proposals[index].course))
            slot.restart(library, calendar.rallies[slot.rally].limits)
            if slot.best_failed is None or result.elimination_probability < slot.best_failed.elimination_probability:
                slot.best_failed = result
            if slot.failed >= MAX_UNFINISHABLE:
                problems.append((slot.path, _unfinishable(calendar.rallies[slot.rally], slot)))
            pending.append(index)
        if problems:
            raise CalendarError(problems)
    rallies = []
    checks = []
    for i, rally in enumerate(calendar.rallies):
        mine = [k for k, slot in enumerate(slots) if slot.rally == i]  # normal races, then specials
        courses = []
        for k in mine:
            slot = slots[k]
            courses.append(
                Race(
                    name=race_name(rally, slot.special, slot.number),
                    zone=rally.zone,
                    course=chosen[k][0],
                    tables=tables_mod.build(None),
                    special=slot.special,
                    library=calendar.library,
                    rally=rally.id,
                )
            )
        rallies.append(replace(rally, courses=tuple(courses)))
        checks.append(tuple(chosen[k][1] for k in mine))
    return BuiltCalendar(replace(calendar, rallies=tuple(rallies), sections=library), seed, tuple(checks))


def _what(slot: _Slot) -> str:
    return f"{'special' if slot.special else 'race'} {slot.number} ({slot.size} sections)"


def _unfinishable(rally: Rally, slot: _Slot) -> str:
    best = slot.best_failed
    figure = f"; the safest was eliminated with probability {best.elimination_probability:.1%}" if best else ""
    return (
        f"rally {rally.id!r}: {_what(slot)}: none of the {slot.failed} courses tried can be finished "
        f"({CHECK_ASSISTANCE.value} assistance, no mechanics, P(elimination) under {THRESHOLD:.0%}){figure}"
    )


def calendar_finishability_problems(doc, calendar: Calendar, jobs: int | None = None) -> list:
    """Problems (at each course's `course` key of the calendar's loaded document `doc`) for
    the laid-out races of `calendar` that fail the finishability check, for `validate
    --strict` and `build`."""
    from sheetgen.errors import Problem

    places = [(i, j, race) for i, rally in enumerate(calendar.rallies) for j, race in enumerate(rally.courses)]
    results = _run_checks([race for _i, _j, race in places], check_race, default_jobs() if jobs is None else jobs)
    problems = []
    for (i, j, race), result in zip(places, results):
        if result.finishable:
            continue
        problems.append(
            Problem(
                doc.where(("rallies", i, "courses", j, "course"), key=True),
                f"{race.name} is not finishable: with {CHECK_ASSISTANCE.value} assistance and no mechanics the best "
                "play is eliminated "
                f"with probability {result.elimination_probability:.1%}; the limit is {THRESHOLD:.0%}",
            )
        )
    return problems


# --------------------------------------------------------------------------- output


def calendar_yaml(calendar: Calendar, header: str = "") -> str:
    """The calendar as spec text, `header` (comment lines) first: what `sheetgen calendar`
    writes. Short lists and each section of a course take one line; the loader reads the
    text back as :func:`spec.calendar_to_data` gives it."""
    import yaml

    from sheetgen.games.rally_risk.spec import calendar_to_data
    from sheetgen.yamlsrc import _CoreDumper

    class Flow(list):
        pass

    class FlowMap(dict):
        pass

    class Dumper(_CoreDumper):
        pass

    Dumper.add_representer(Flow, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))
    Dumper.add_representer(
        FlowMap, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=True)
    )
    data = calendar_to_data(calendar)
    for rally in data["rallies"]:
        for key in ("races", "specials"):
            if key in rally:
                rally[key] = Flow(rally[key])
        if "limits" in rally:
            rally["limits"] = FlowMap(rally["limits"])
        for race in rally.get("courses", ()):
            race["course"] = [FlowMap(leg) for leg in race["course"]]
    return header + yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)


def tag_counts(race: Race) -> dict[str, int]:
    """What a race holds towards its rally's limits, as the limits count it (RR-18): sharp
    curves and fast roads by section; `fords` the fords on the table (every ford space, what
    a maximum of fords counts), `ford_sections` the sections holding a ford (what a minimum
    counts). The house library's ford sections hold one ford each, so there the two agree."""
    out: dict[str, int] = {}
    for i, (key, tag, _w) in enumerate(LIMIT_KEYS):
        marks = [limit_marks(leg.section) for leg in race.course]
        out[key] = sum(hi[i] for _lo, hi in marks)
        if tag is Tag.FORD:
            out["ford_sections"] = sum(lo[i] for lo, _hi in marks)
    return out


def calendar_to_json(built: BuiltCalendar) -> dict:
    cal = built.calendar
    return {
        "name": cal.name,
        "seed": built.seed,
        "library": cal.library,
        "check": {"assistance": CHECK_ASSISTANCE.value, "mechanics": 0, "threshold": THRESHOLD},
        "rallies": [
            {
                "id": rally.id,
                "name": rally.name,
                "zone": rally.zone.value,
                "limits": {k: v for k, v in vars(rally.limits).items() if v is not None},
                "races": [
                    {
                        "name": race.name,
                        "special": race.special,
                        "spaces": race.length,
                        "counts": tag_counts(race),
                        "expected_rounds": None if check is None else round(check.expected_rounds, 4),
                        "elimination_probability": None if check is None else round(check.elimination_probability, 6),
                        "sections": [
                            {
                                "id": leg.section.id,
                                "name": leg.section.name,
                                "heading": leg.heading.value,
                                "tags": [t.value for t in leg.section.tags],
                                "factors": list(leg.section.factors),
                                "fords": list(leg.section.fords),
                            }
                            for leg in race.course
                        ],
                    }
                    for race, check in zip(rally.courses, checks)
                ],
            }
            for rally, checks in zip(cal.rallies, built.checks)
        ],
    }


def format_calendar_text(built: BuiltCalendar) -> str:
    cal = built.calendar
    races = sum(len(r.courses) for r in cal.rallies)
    seed = "as given in the spec" if built.seed is None else f"seed {built.seed}"
    lines = [
        f"{cal.name}: {_plural(len(cal.rallies), 'rally').replace('rallys', 'rallies')}, {_plural(races, 'race')} "
        f"({seed})"
    ]
    for rally, checks in zip(cal.rallies, built.checks):
        lines.append("")
        lines.append(f"{rally.name} ({rally.zone.value}): {limits_text(rally.limits)}")
        for race, check in zip(rally.courses, checks):
            figure = f", {check.expected_rounds:.1f} rounds" if check is not None else ""
            label = race.name.split(", ", 1)[-1]
            lines.append(
                f"  {label:<10} {len(race.course)} sections, {race.length} spaces{figure}: "
                + " ".join(leg.section.id for leg in race.course)
            )
    if any(c is not None for checks in built.checks for c in checks):
        lines += [
            "",
            f"rounds: expected rounds of the best driving with {CHECK_ASSISTANCE.value} assistance and no mechanics; "
            f"every race is finished with probability over {1 - THRESHOLD:.0%}",
        ]
    return "\n".join(lines) + "\n"
