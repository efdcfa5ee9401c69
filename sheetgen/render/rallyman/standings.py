"""The Rallyman standings sheet of a results file (kind `results`): every driver's stage
times, the total and the gap, with the stages still to run left as empty boxes so that the
sheet can be carried on by hand (docs/rallyman_dirt.md "A rally of several stages").

A DIRT rally's file also prints the drivers' rally time sheet: its stages side by side, three
a sheet, each with rows for its own track's turns (`Stage.turns`; a stage that names no track
gets the longest named stage's).
"""

from __future__ import annotations

from typing import Any

from sheetgen import league as leagues
from sheetgen.games.rallyman.results import (
    LeagueStandings,
    Standings,
    clock,
    league_standings,
    league_table,
    log_tables,
    standings,
)
from sheetgen.games.rallyman.ruleset import default
from sheetgen.render.common import plural
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rallyman import time_sheet
from sheetgen.render.rallyman.time_sheet import SheetStage
from sheetgen.render.tables import (
    Column,
    Row,
    Table,
    count_pages,
    draw_table_pages,
    fit_heads,
    page_header,
)
from sheetgen.template import MM, Template

NOTES = (
    "Stage times are summed. A driver with a time on every stage run is classified by total time; tied drivers share "
    "the better place.",
    "DNF: did not finish the stage (not classified). An empty box: a stage not run yet.",
)


def standings_table(st: Standings, width: float, points: bool = False) -> Table:
    fixed = [Column("place", 12 * MM), Column("driver", 40 * MM, "left", lines=2)]
    tail = [Column("total", 18 * MM), Column("gap", 24 * MM)] + ([Column("points", 16 * MM)] if points else [])
    room = width - sum(c.width for c in fixed + tail)
    each = min(room / max(len(st.results.stages), 1), 30 * MM)
    stages = [Column(f"{i + 1}. {s.name}", each) for i, s in enumerate(st.results.stages)]
    return Table(tuple(fixed + stages + tail), row_h=7 * MM, head_h=9 * MM, head_lines=3)


def standings_rows(st: Standings, entries: dict[str, leagues.Entry] | None = None) -> list[Row]:
    """A rally's rows; with `entries` (a league's event), each driver's points last (bonus as
    +N: a driver with no time in the event has none)."""
    more = entries is not None
    rows = []
    for r in st.rows:
        times = [clock(t) if t is not None else "" for t in r.times]
        place = str(r.place) if r.place is not None else "-"
        gap = ("+" + clock(r.gap) if r.gap else "") if r.place is not None else "not classified"
        # an unclassified driver's sum of the stages they finished is no total to compare
        total = clock(r.total) if r.place is not None else "-"
        score = (leagues.shown_score(entries.get(r.driver), True),) if entries is not None else ()
        rows.append(Row("row", (place, r.driver, *times, total, gap, *score)))
    fastest = tuple(", ".join(w) for w in st.stage_winners) + ("",) * (len(st.results.stages) - st.run)
    rows.append(Row("total", ("", "fastest", *fastest, "", "", *(("",) if more else ()))))
    return rows


def render_standings(
    st: Standings, template: Template, *, paper: str | None = None, ink: str = "normal", keywords: tuple[str, ...] = ()
) -> tuple[bytes, int]:
    width, _h = template.page_size(paper)
    table = standings_table(st, width - 2 * template.margin_mm * MM)
    rows = standings_rows(st)
    game = "Rallyman DIRT" if st.results.variant == "dirt" else "Rallyman GT"
    subtitle = (
        f"{plural(len(st.results.drivers), 'driver')}, {st.run} of {plural(len(st.results.stages), 'stage')} run; "
        "times summed"
    )

    def pages_of(sheet: Sheet, pages: int) -> int:
        def header(s: Sheet, page: int, continued: bool) -> float:
            return page_header(
                s,
                (st.results.name, ": standings" + (" (continued)" if continued else "")),
                subtitle,
                f"{game} rally standings",
            )

        drawn = draw_table_pages(
            sheet, fit_heads(sheet, table), rows, header, first_page=1, notes=NOTES, kind="standings"
        )

        def log_header(s: Sheet, page: int, continued: bool) -> float:
            end = ": time logs" + (" (continued)" if continued else "")
            return page_header(
                s, (st.results.name, end), "the turns of each driver's filled-in time sheet", f"{game} rally standings"
            )

        return drawn + draw_log_pages(sheet, log_tables(st.results), st.results.variant, log_header, drawn + 1)

    pages = count_pages(template, paper, lambda sheet: pages_of(sheet, 1))
    meta = Meta(
        title=f"{st.results.name}: {game} standings",
        subject=f"{game} rally standings",
        keywords=("rallyman", "standings") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        pages_of(sheet, pages)
        if st.results.variant == "dirt":
            draw_rally_sheets(sheet, st)

    return render_pdf(template, ink, paper, meta, draw)


def league_pages_table(ls: LeagueStandings, width: float) -> Table:
    fixed = [Column("place", 12 * MM), Column("driver", 40 * MM, "left", lines=2)]
    tail = [Column("total", 18 * MM)]
    room = width - sum(c.width for c in fixed + tail)
    each = min(room / max(len(ls.rounds), 1), 30 * MM)
    events = [Column(ls.events[i].event.name, each, lines=2) for i in ls.rounds]
    return Table(tuple(fixed + events + tail), row_h=7 * MM, head_h=9 * MM, head_lines=3)


def league_rows(ls: LeagueStandings) -> list[Row]:
    """A row per driver: place, driver, each event's points (bonus as +N, a dropped event in
    brackets, `-`: not in it) and the points counted."""
    return [
        Row(
            "row",
            (
                str(row.place),
                row.driver,
                *(leagues.shown_score(e, k) for e, k in zip(row.entries, row.kept)),
                str(row.total),
            ),
        )
        for row in ls.table
    ]


LOG_NOTES = (
    "Each driver's turns as the time sheet holds them: the gear the turn ended in (DIRT: the time card taken), its "
    "seconds, the running total, a loss of control (GT: lost; DIRT: the icon ringed) and the damage tokens drawn (GT).",
)


def log_pages_table(variant: str, width: float) -> Table:
    """The columns of the time logs' pages (those of `results.log_table`)."""
    columns = [
        Column("turn", 16 * MM),
        Column("gear" if variant == "gt" else "card", 18 * MM),
        Column("seconds", 22 * MM),
        Column("total", 24 * MM),
        Column("lost control", 30 * MM),
    ]
    if variant == "gt":
        columns.append(Column("damage", 22 * MM))
    return Table(tuple(columns), row_h=5.6 * MM, head_h=5.6 * MM)


def log_rows(logs) -> list[Row]:
    """Every time log (`results.log_tables`'s tables) as rows: a title row per driver's stage
    (its stage time and losses of control), then its turns."""
    rows: list[Row] = []
    for log in logs:
        label = log.title.removesuffix(" time log") + ": " + " ".join(log.notes)
        rows.append(Row("title", label=label))
        rows += [Row("row", tuple(cells)) for cells in log.rows]
    return rows


def draw_log_pages(sheet: Sheet, logs, variant: str, header, first_page: int) -> int:
    """The drivers' time logs over as many pages as they need (none without a log); returns
    the pages drawn."""
    if not logs:
        return 0
    width = sheet.right - sheet.left
    return draw_table_pages(
        sheet,
        fit_heads(sheet, log_pages_table(variant, width)),
        log_rows(logs),
        header,
        first_page=first_page,
        notes=LOG_NOTES,
        kind="time logs",
    )


def render_league(
    ls: LeagueStandings,
    template: Template,
    *,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
) -> tuple[bytes, int]:
    """A league's standings sheets: the league table (drop rounds and bonus points said in its
    notes), then each event run, as a rally's standings with each driver's points."""
    width, _h = template.page_size(paper)
    inner = width - 2 * template.margin_mm * MM
    res = ls.results
    game = "Rallyman DIRT" if res.variant == "dirt" else "Rallyman GT"
    main = league_table(ls)
    subtitle = f"{plural(len(ls.table), 'driver')}, {len(ls.rounds)} of {plural(len(ls.events), 'event')} run"

    def pages_of(sheet: Sheet, pages: int) -> int:
        page = 1

        def header_for(title: tuple[str, str], sub: str) -> object:
            def header(s: Sheet, at: int, continued: bool) -> float:
                shown = (title[0], title[1] + (" (continued)" if continued else ""))
                return page_header(s, shown, sub, f"{game} league standings")

            return header

        page += draw_table_pages(
            sheet,
            fit_heads(sheet, league_pages_table(ls, inner)),
            league_rows(ls),
            header_for((res.name, ": league standings"), subtitle),  # type: ignore[arg-type]
            first_page=page,
            notes=main.notes,
            kind="standings",
        )
        for e in ls.events:
            if not e.run:
                continue
            st = e.standings
            stages = plural(len(st.results.stages), "stage")
            sub = f"{plural(len(st.results.drivers), 'driver')}, {st.run} of {stages} run"
            page += draw_table_pages(
                sheet,
                fit_heads(sheet, standings_table(st, inner, points=True)),
                standings_rows(st, e.entries),
                header_for((res.name, f": {e.event.name}"), sub),  # type: ignore[arg-type]
                first_page=page,
                notes=NOTES + ("Points: the event place's points, then +N bonus points (the league's house rules).",),
                kind="standings",
            )
        logs = []
        for e in ls.events:
            logs += log_tables(res.event_results(e.event), f"{e.event.name}, ")
        page += draw_log_pages(
            sheet,
            logs,
            res.variant,
            header_for((res.name, ": time logs"), "the turns of each driver's filled-in time sheet"),
            page,
        )
        return page - 1

    pages = count_pages(template, paper, lambda sheet: pages_of(sheet, 1))
    meta = Meta(
        title=f"{res.name}: {game} league standings",
        subject=f"{game} league standings",
        keywords=("rallyman", "standings", "league") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        pages_of(sheet, pages)

    return render_pdf(template, ink, paper, meta, draw)


def rally_sheet_chunks(results) -> list[tuple[Any, list[tuple[int, Any]]]]:
    """The sheets of a DIRT rally: (the ruleset, its stages as (index, stage)), in order, at
    most STAGES a sheet and one ruleset a sheet (its time cards and tallies are printed at
    the top), a stage whose track is not known on the sheet of the stages before it (the
    variant's defaults when it comes first)."""
    chunks: list[tuple[Any, list[tuple[int, Any]]]] = []
    for i, stage in enumerate(results.stages):
        ruleset = stage.ruleset
        if chunks:
            current, held = chunks[-1]
            if (ruleset is None or ruleset == current) and len(held) < time_sheet.STAGES:
                held.append((i, stage))
                continue
        chunks.append((ruleset if ruleset is not None else default("dirt"), [(i, stage)]))
    return chunks


def draw_rally_sheets(sheet: Sheet, st: Standings) -> None:
    """A DIRT rally's time sheet: its stages, at most STAGES a sheet, each with its own rows,
    each sheet with the time cards of its stages' tracks' ruleset (`rally_sheet_chunks`)."""
    named: list[SheetStage] = [(f"stage {i + 1}: {s.name}", s.turns) for i, s in enumerate(st.results.stages)]
    known = [t for _n, t in named if t is not None]
    longest = max(known) if known else None
    plan = []
    for ruleset, chunk in rally_sheet_chunks(st.results):
        stages = [(named[i][0], named[i][1] if named[i][1] is not None else longest) for i, _s in chunk]
        plan.append((ruleset, stages, time_sheet.dirt_time_sheet_pages(None, sheet, stages, ruleset)))
    pages = sum(len(ranges) for _r, _s, ranges in plan)
    number = 0
    for k, (ruleset, stages, ranges) in enumerate(plan):
        for first, last in ranges:
            number += 1
            title = (st.results.name, ": rally time sheet" + (" (continued)" if number > 1 else ""))
            sub = (
                f"Rallyman DIRT rally of {plural(len(named), 'stage')}, rows for each stage's own turns (two moves a "
                "turn). ",
                "One sheet per driver: print these pages once for each.",
            )
            time_sheet.draw_dirt_rally_sheet(sheet, ruleset, title, sub, stages, first, last, number, pages, k > 0)


def print_standings(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rallyman results file: the standings sheet (a league's: the league
    table, then each event's standings)."""
    if spec.model.is_league:
        return render_league(league_standings(spec.model), template, paper=paper, ink=ink, keywords=keywords)
    return render_standings(standings(spec.model), template, paper=paper, ink=ink, keywords=keywords)
