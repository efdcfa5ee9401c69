"""The Rally Risk championship calendar's PDF: the overview (every rally and race with its
sections counted by kind), each race's course sheet (drawn by
:func:`sheetgen.render.rally_risk.course_sheet.draw_course_sheet`: its sections in driving
order, on the map and in the strip of spaces, so that the calendar prints no list of them
besides), the championship score sheet, which the standings sheet prints filled in, and the
reference card of the tables the races are played with (unless another file of the job
prints it: `printed_elsewhere`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sheetgen.games.rally_risk.championship import CHECK_ASSISTANCE, THRESHOLD, BuiltCalendar, limits_text, tag_counts
from sheetgen.games.rally_risk.model import Calendar, Rally, Tables
from sheetgen.games.rally_risk.scoring import CHAMPIONSHIP_POINTS, ELIMINATION_HANDICAP
from sheetgen.games.rally_risk.spec import MAX_PLAYERS, race_name
from sheetgen.games.rally_risk.tables import card_key
from sheetgen.render.common import plural
from sheetgen.render.pdf import Meta, Sheet, printed_elsewhere, render_pdf
from sheetgen.render.rally_risk.common import ZONE_NAMES, race_label
from sheetgen.render.rally_risk.course_sheet import draw_course_sheet
from sheetgen.render.rally_risk.reference_card import draw_reference_card
from sheetgen.render.tables import (
    Column,
    Row,
    Table,
    count_pages,
    draw_table_pages,
    page_header,
)
from sheetgen.template import MM, Template


def _rally_words(rally: Rally) -> str:
    parts = [plural(len(rally.races), "race")]
    if rally.specials:
        parts.append(plural(len(rally.specials), "special"))
    return " and ".join(parts)


def draw_overview(sheet: Sheet, built: BuiltCalendar, pages: int, library_name: str) -> int:
    """The calendar's overview (over as many pages as it needs); returns its pages."""
    cal = built.calendar
    races = sum(len(r.courses) for r in cal.rallies)
    subtitle = f"{len(cal.rallies)} rallies, {races} races; " + (
        f"sections chosen by sheetgen calendar, seed {built.seed}, from {library_name}"
        if built.seed is not None
        else f"sections from {library_name}"
    )
    width = sheet.right - sheet.left
    checked = any(c is not None for cs in built.checks for c in cs)
    heads = [("zone", 11), ("sections", 15), ("spaces", 13), ("sharp", 12), ("fords", 12), ("fast", 12)]
    heads += [("rounds*", 15)] if checked else []
    heads += [("date", 24), ("done", 11)]
    columns = [Column("rally / race", width - sum(w for _h, w in heads) * MM, "left")] + [
        Column(h, w * MM) for h, w in heads
    ]
    rows: list[Row] = []
    for rally, checks in zip(cal.rallies, built.checks):
        rows.append(
            Row(
                "title",
                label=(
                    f"{rally.name} ({rally.zone.value}, {ZONE_NAMES[rally.zone]}): {_rally_words(rally)}; "
                    f"{limits_text(rally.limits)}"
                ),
            )
        )
        for race, check in zip(rally.courses, checks):
            counts = tag_counts(race)
            values = [
                race_label(race) + (" (no speed limits)" if race.special else ""),
                race.zone.value,
                str(len(race.course)),
                str(race.length),
                str(counts["sharp_curves"]),
                str(counts["fords"]),
                str(counts["fast_roads"]),
            ]
            values += ["" if check is None else f"{check.expected_rounds:.1f}"] if checked else []
            rows.append(Row("row", tuple(values + ["", ""])))
    notes = [
        "Limits hold for every race of the rally, specials included; sections are counted by kind (a sharp curve, a "
        "ford, a fast road). "
        "Every race starts on a section with factor 0 on every space; its sections connect and lie on the table "
        "without overlapping, "
        "and no race uses a section more often than the box has it (each race is laid out from the whole box).",
        "Special races come after the normal races of their rally: no speed limits in 3rd, 4th and 5th gear (optional "
        "rule; the drivers "
        "decide before the championship whether to run them). Weather zones: EC Central Europe, EN Northern Europe, A "
        "Africa.",
        "The last to arrive in a race chooses the next one (rulebook). Each race's course sheet follows (its sections "
        "in driving order), then the score sheet.",
    ]
    if checked:
        notes.insert(
            1,
            f"* rounds: expected rounds of one car driven as well as possible with {CHECK_ASSISTANCE.value} assistance "
            "and no mechanics "
            "(sheetgen's exact solver, house tables); every race was checked to be finished with probability over "
            f"{1 - THRESHOLD:.0%}.",
        )

    def header(s: Sheet, page: int, continued: bool) -> float:
        return page_header(
            s,
            (cal.name, ": calendar" + (" (continued)" if continued else "")),
            subtitle,
            "Rally Risk championship calendar",
        )

    table = Table(tuple(columns), row_h=5.6 * MM, head_h=5.6 * MM)
    return draw_table_pages(sheet, table, rows, header, first_page=1, notes=notes, kind="calendar")


SCORING_NOTES = (
    "Per race (score A): score = rounds behind the first car home - your place in the starting order (1st to start: "
    "1). "
    "Fewest is best. Rulebook example: players 2 and 3 finish together, player 1 two rounds later, player 4 four "
    "rounds later: "
    "player 3 scores 0 - 3 = -3, player 2 0 - 2 = -2, player 4 4 - 4 = 0, player 1 2 - 1 = +1.",
    f"A destroyed or eliminated car scores the last arrival's score + {ELIMINATION_HANDICAP}. The next race starts in "
    "the order of arrival "
    "(best score first); ties draw lots. The last to arrive chooses the next race.",
    "Per rally (score B): the fewest total of score A wins; places earn "
    f"{', '.join(str(p) for p in CHAMPIONSHIP_POINTS)} championship "
    "points. Tied drivers share the better place and the next place is skipped (two seconds: the next driver is "
    "fourth).",
)


def score_table(sheet_width: float, players: Sequence[str], row_h: float = 6.0 * MM) -> Table:
    """Race label, then per driver: start position, finishing round, score; the heads say
    what a rally's total row holds in those columns too (total, place, points)."""
    label = 46 * MM
    sub = (sheet_width - label) / MAX_PLAYERS / 3
    columns = [Column("race\nrally: total row", label, "left")]
    groups = [("driver", 0, 1)]
    for k in range(MAX_PLAYERS):
        columns += [Column("start\ntotal", sub), Column("round\nplace", sub), Column("score\npoints", sub)]
        groups.append((players[k] if k < len(players) else "", 1 + 3 * k, 3))
    return Table(tuple(columns), tuple(groups), row_h=row_h, head_h=6.4 * MM)


def race_names(rally: Rally) -> list[str]:
    """The names the calendar gives a rally's races, after the rally's own: "race 1", ...,
    "special"."""
    counts = ((False, len(rally.races)), (True, len(rally.specials)))
    return [
        race_name(rally, special, k + 1).removeprefix(f"{rally.name}, ")
        for special, count in counts
        for k in range(count)
    ]


def blank_score_rows(cal: Calendar) -> list[Row]:
    """One row per race, named by its rally, then the rally's total row; the championship
    points last (one page holds the rulebook's 22 races)."""
    rows: list[Row] = []
    empty = ("",) * (3 * MAX_PLAYERS)
    for rally in cal.rallies:
        rows += [Row("row", ((rally.name, f" {name}"),) + empty) for name in race_names(rally)]
        rows.append(Row("total", ((rally.name, " total"),) + empty))
    rows.append(Row("total", ("championship points",) + empty))
    return rows


def render_calendar(
    built: BuiltCalendar,
    template: Template,
    *,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
    library_name: str = "",
) -> tuple[bytes, int]:
    """The calendar's PDF: overview, each race's course sheet, the championship score sheet,
    then the reference card of the races' tables (once each: the calendar's races are
    played with the house tables), unless another file of the job prints it."""
    cal = built.calendar
    width, _height = template.page_size(paper)
    margin = template.margin_mm * MM
    cards: dict[str, Tables] = {}
    for rally in cal.rallies:
        for race in rally.courses:
            cards.setdefault(card_key(race.tables), race.tables)
    cards = {key: tables for key, tables in cards.items() if not printed_elsewhere(key)}
    rows = blank_score_rows(cal)
    table = score_table(width - 2 * margin, ())
    title = cal.name, ": score sheet"
    subtitle = "per race and driver: start position, finishing round and score A; per rally: total, place and points"

    def score_pages(sheet: Sheet, first: int, pages: int) -> int:
        def header(s: Sheet, page: int, continued: bool) -> float:
            return page_header(
                s,
                (title[0], title[1] + (" (continued)" if continued else "")),
                subtitle,
                "Rally Risk championship score sheet",
            )

        return draw_table_pages(sheet, table, rows, header, first_page=first, notes=SCORING_NOTES, kind="score sheet")

    scores = count_pages(template, paper, lambda sheet: score_pages(sheet, 1, 1))
    overview = count_pages(template, paper, lambda sheet: draw_overview(sheet, built, 1, library_name or cal.library))
    pages = overview + sum(len(r.courses) for r in cal.rallies) + scores + len(cards)
    meta = Meta(
        title=f"{cal.name}: Rally Risk calendar",
        subject="Rally Risk championship calendar: course sheets, score sheet and reference card",
        keywords=("rally risk", "calendar") + ((f"seed:{built.seed}",) if built.seed is not None else ()) + keywords,
    )

    def draw(sheet: Sheet) -> None:
        page = 1 + draw_overview(sheet, built, pages, library_name or cal.library)
        for rally in cal.rallies:
            for race in rally.courses:
                draw_course_sheet(sheet, race, None, page_label=(cal.name, ""))
                page += 1
        page += score_pages(sheet, page, pages)
        for tables in cards.values():
            draw_reference_card(sheet, tables, subtitle=cal.name)
            page += 1

    return render_pdf(template, ink, paper, meta, draw)


def calendar_pdf(
    loaded, built: BuiltCalendar, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...] = ()
) -> tuple[bytes, int]:
    """The calendar's PDF as `sheetgen calendar -o` writes it: keyed by the calendar spec's
    and its library's SHA-256 (`keywords` add to them), the library named by its name."""
    import hashlib
    import os

    cal = built.calendar
    own: tuple[str, ...] = (f"spec-sha256:{loaded.sha256}",)
    if cal.library:
        with open(os.path.join(os.path.dirname(loaded.path), cal.library), "rb") as handle:
            own += (f"library-sha256:{hashlib.sha256(handle.read()).hexdigest()}",)
    extra = tuple(k for k in keywords if k not in own)
    name = cal.sections.name if cal.sections else cal.library
    return render_calendar(built, template, paper=paper, ink=ink, keywords=own + extra, library_name=name or "")


def print_calendar(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rally Risk calendar file (`build`, `render`): a calendar that gives
    every race as a course is printed as it is; one that gives the races' sizes is built
    first with seed :data:`~sheetgen.games.rally_risk.championship.BUILD_SEED`, so that the
    PDF is the one ``sheetgen calendar SPEC --seed 1 -o DIR`` writes, byte for byte. That
    command gives the calendar it built (any seed) as `figures` ``{"built": ...}``."""
    from sheetgen.errors import SpecError
    from sheetgen.games.rally_risk.championship import BUILD_SEED, CalendarError, build_calendar, laid_out

    cal = spec.model
    given = figures.get("built") if isinstance(figures, dict) else None
    if given is not None:  # built by `sheetgen calendar` with its seed
        built = given
    elif cal.built:
        built = laid_out(cal)
    else:
        try:
            built = build_calendar(cal, BUILD_SEED, jobs=1)
        except CalendarError as exc:
            raise SpecError([spec.document.problem(where, message) for where, message in exc.problems]) from None
    return calendar_pdf(spec, built, template, paper=paper, ink=ink, keywords=keywords)
