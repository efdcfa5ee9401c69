"""The Rally Risk championship calendar's PDF: the overview (every rally and race with its
sections counted by kind), the section lists (the sections of each race in driving order,
with a small map; rallies share pages), each race's course sheet (drawn by
:func:`sheetgen.render.rally_risk.course_sheet.draw_course_sheet`), and the championship
score sheet, which the standings sheet prints filled in.
"""

from __future__ import annotations

from collections.abc import Sequence

from sheetgen.games.rally_risk.championship import CHECK_ASSISTANCE, THRESHOLD, BuiltCalendar, limits_text, tag_counts
from sheetgen.games.rally_risk.graph import layout_graph
from sheetgen.games.rally_risk.model import Calendar, Race, Rally, Side
from sheetgen.games.rally_risk.scoring import CHAMPIONSHIP_POINTS, ELIMINATION_HANDICAP
from sheetgen.games.rally_risk.spec import MAX_PLAYERS, race_name
from sheetgen.render.common import CAP, fit_size, fitted_text, plural, text_box
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rally_risk.common import ARROW, ZONE_NAMES, race_label
from sheetgen.render.rally_risk.course_sheet import draw_course_sheet
from sheetgen.render.tables import (
    FOOTER_MM,
    HEADER_MM,
    Column,
    Row,
    Table,
    count_pages,
    draw_table_pages,
    page_footer,
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
        "The last to arrive in a race chooses the next one (rulebook). The section lists of every race follow, then "
        "each race's course sheet.",
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
            page,
            pages,
        )

    table = Table(tuple(columns), row_h=5.6 * MM, head_h=5.6 * MM)
    return draw_table_pages(sheet, table, rows, header, first_page=1, notes=notes, kind="calendar")


def _mini_map(sheet: Sheet, race: Race, x: float, top: float, width: float, height: float) -> None:
    """The course on its grid squares, numbered in driving order, with the road's way
    through each square: to see the shape at a glance (the course sheet has it in full)."""
    graph = layout_graph(race.course)
    cells = [graph.nodes[i]["cell"] for i in graph]
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    cols, rows = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    side = min(width / cols, height / rows, 9 * MM)
    ox = x + (width - cols * side) / 2
    oy = top - (height + rows * side) / 2
    centre = {}
    for i in graph:
        cx, cy = graph.nodes[i]["cell"]
        px = ox + (cx - min(xs)) * side
        py = oy + (cy - min(ys)) * side
        centre[i] = (px + side / 2, py + side / 2)
        sheet.box(px, py, side, side, width=sheet.ink.thin_width)
    # the road: from the entry side's middle through the centre to the exit side's middle
    half = side / 2
    sheet.stroke(width=sheet.ink.line_width * 1.4)
    for i in graph:
        (mx, my) = centre[i]
        entry = Side(graph.nodes[i]["entry"])
        exit_ = Side(graph.nodes[i]["exit"])
        ex, ey = entry.step
        xx, xy = exit_.step
        path = sheet.c.beginPath()
        path.moveTo(mx + ex * half, my + ey * half)
        path.lineTo(mx, my)
        path.lineTo(mx + xx * half, my + xy * half)
        sheet.c.drawPath(path, stroke=1, fill=0)
    # numbers sit in a quarter of their square: the road only runs on the square's axes
    size = min(sheet.t.sizes["small"], side / MM * 1.6)
    for i in graph:
        mx, my = centre[i]
        sheet.text(
            mx + side * 0.25, my + side * 0.25 - CAP * size / 2, str(i + 1), bold=True, size=size, align="center"
        )
    # start: a bar across the first square's entry; finish: two bars across the last exit
    ends = ((0, "entry", (0.0,)), (len(centre) - 1, "exit", (0.0, -0.09)))
    sheet.stroke(width=sheet.ink.line_width * 2.0)
    for i, which, offsets in ends:
        mx, my = centre[i]
        dx, dy = Side(graph.nodes[i][which]).step
        for off in offsets:
            bx, by = mx + dx * half * (1 + off), my + dy * half * (1 + off)
            sheet.c.line(bx - dy * half * 0.5, by - dx * half * 0.5, bx + dy * half * 0.5, by + dx * half * 0.5)


def _factor_text(race_leg) -> str:
    fords = set(race_leg.section.fords)
    return " ".join(f"{f}*" if i in fords else str(f) for i, f in enumerate(race_leg.section.factors, start=1))


def _race_block_height(race: Race) -> float:
    return (7.5 + 5.0 + 4.6 * len(race.course) + 4.0) * MM


RALLY_HEAD_MM = 10.0


def draw_section_list_page(
    sheet: Sheet, built: BuiltCalendar, blocks: Sequence[tuple[int, int]], page: int, pages: int, first: bool
) -> None:
    """A page of section lists, shared by the rallies: for each block (rally, race) the
    race's sections in driving order (take them from the box and lay each entered heading
    as shown) and a small map of the course; each rally's name, zone and limits above its
    first race on the page."""
    cal = built.calendar
    title = (cal.name, ": section lists" + ("" if first else " (continued)"))
    subtitle = (
        "each race's road sections in driving order: take them from the box and lay each one entered heading as shown"
    )
    y = page_header(sheet, title, subtitle, (cal.name, ": Rally Risk calendar"), page, pages)
    x, right = sheet.left, sheet.right
    width = right - x
    map_w = 44 * MM
    table_w = width - map_w - 4 * MM
    cols = [("#", 6), ("section", 0.0), ("enter heading", 16), ("spaces", 13), ("factors (* ford)", 30), ("kind", 27)]
    fixed = sum(w for _h, w in cols)
    cols[1] = ("section", table_w / MM - fixed)
    shown = None
    for ri, k in blocks:
        rally = cal.rallies[ri]
        race, check = rally.courses[k], built.checks[ri][k]
        if ri != shown:
            shown = ri
            y -= 6.5 * MM
            fitted_text(
                sheet,
                x,
                y,
                rally.name,
                70 * MM,
                bold=True,
                size=sheet.t.sizes["title"] - 3,
                after="" if k == 0 else " (continued)",
            )
            words = (
                f"zone {rally.zone.value} ({ZONE_NAMES[rally.zone]}); {_rally_words(rally)}; "
                f"{limits_text(rally.limits)}"
            )
            sheet.text(x + 72 * MM, y, words, size=fit_size(sheet, words, width - 72 * MM, sheet.t.sizes["body"]))
            sheet.stroke(width=sheet.ink.line_width)
            sheet.c.line(x, y - 1.6 * MM, right, y - 1.6 * MM)
            y -= RALLY_HEAD_MM * MM - 6.5 * MM
        y -= 6 * MM
        fitted_text(
            sheet,
            x,
            y,
            race.name,
            width,
            "heading",
            bold=True,
            after="  (SPECIAL RACE: no speed limits)" if race.special else "",
        )
        counts = tag_counts(race)
        facts = (
            f"{plural(len(race.course), 'section')}, {plural(race.length, 'space')}; sharp curves "
            f"{counts['sharp_curves']}, fords {counts['fords']}, fast roads {counts['fast_roads']}"
        )
        if check is not None:
            facts += (
                f"; {check.expected_rounds:.1f} rounds expected, P(elimination) "
                f"{100 * check.elimination_probability:.1f}% ({CHECK_ASSISTANCE.value} assistance, no mechanics)"
            )
        sheet.text(x, y - 4 * MM, facts, "small", size=fit_size(sheet, facts, width, sheet.t.sizes["small"]))
        y -= 5.5 * MM
        row = 4.6 * MM
        top = y
        cx = x
        for h, w in cols:
            text_box(sheet, cx, y - row, w * MM, row, h, bold=True, shaded=True)
            cx += w * MM
        spaces = race.spaces
        for n, leg in enumerate(race.course, start=1):
            y -= row
            numbers = [s.number for s in spaces if s.leg == n - 1]
            tags = ", ".join(t.value.replace("_", " ") for t in leg.section.tags)
            values = [
                str(n),
                leg.section.name,
                f"{ARROW[leg.heading]} {leg.heading.value}",
                f"{numbers[0]}-{numbers[-1]}",
                _factor_text(leg),
                tags,
            ]
            cx = x
            for (h, w), value in zip(cols, values):
                text_box(
                    sheet,
                    cx,
                    y - row,
                    w * MM,
                    row,
                    value,
                    align="left" if h in ("section", "kind", "factors (* ford)") else "center",
                    bold=h == "#",
                )
                cx += w * MM
        y -= row
        _mini_map(sheet, race, right - map_w, top, map_w, top - y)
        y -= 2 * MM
    page_footer(sheet, "maps: one square per section, numbered in driving order; a bar marks the start, two the finish")
    sheet.end_page("section lists")


def section_list_pages(room: float, cal: Calendar) -> list[list[tuple[int, int]]]:
    """The races (rally index, race index) on each page of section lists: in calendar order,
    rallies sharing pages, a new page when the next race (and its rally's heading, when it
    is the first of its rally on the page) would not fit in `room` points."""
    pages: list[list[tuple[int, int]]] = [[]]
    used = 0.0
    for ri, rally in enumerate(cal.rallies):
        for k, race in enumerate(rally.courses):
            h = _race_block_height(race)
            head = RALLY_HEAD_MM * MM if not pages[-1] or pages[-1][-1][0] != ri else 0.0
            if pages[-1] and used + head + h > room:
                pages.append([])
                used = 0.0
                head = RALLY_HEAD_MM * MM
            pages[-1].append((ri, k))
            used += head + h
    return pages


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
    """The calendar's PDF: overview, the section lists, each race's course sheet, then the
    championship score sheet."""
    cal = built.calendar
    width, height = template.page_size(paper)
    margin = template.margin_mm * MM
    room = height - 2 * margin - (HEADER_MM + FOOTER_MM + 4) * MM
    lists = section_list_pages(room, cal)
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
                page,
                pages,
            )

        return draw_table_pages(sheet, table, rows, header, first_page=first, notes=SCORING_NOTES, kind="score sheet")

    scores = count_pages(template, paper, lambda sheet: score_pages(sheet, 1, 1))
    overview = count_pages(template, paper, lambda sheet: draw_overview(sheet, built, 1, library_name or cal.library))
    pages = overview + len(lists) + sum(len(r.courses) for r in cal.rallies) + scores
    meta = Meta(
        title=f"{cal.name}: Rally Risk calendar",
        subject="Rally Risk championship calendar: section lists, course sheets and score sheet",
        keywords=("rally risk", "calendar") + ((f"seed:{built.seed}",) if built.seed is not None else ()) + keywords,
    )

    def draw(sheet: Sheet) -> None:
        page = 1 + draw_overview(sheet, built, pages, library_name or cal.library)
        for n, blocks in enumerate(lists):
            draw_section_list_page(sheet, built, blocks, page, pages, n == 0)
            page += 1
        for rally in cal.rallies:
            for race in rally.courses:
                draw_course_sheet(sheet, race, None, page_label=(cal.name, f": page {page} of {pages}"))
                page += 1
        score_pages(sheet, page, pages)

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
