"""The Rally Risk standings sheet of a results file: the championship table, the next
race's starting order, and the championship score sheet filled in (the races still to run
left empty, so that it can be carried on by hand). `print_standings` is a results file's
printable; `sheetgen standings -o` prints the same sheet.
"""

from __future__ import annotations

import functools

from sheetgen import league as leagues
from sheetgen.games.rally_risk.scoring import CHAMPIONSHIP_POINTS
from sheetgen.games.rally_risk.spec import MAX_PLAYERS
from sheetgen.games.rally_risk.standings import departure_text, league_notes, standings
from sheetgen.render.common import fitted_text, plural
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rally_risk.calendar import SCORING_NOTES, race_names, score_table
from sheetgen.render.rally_risk.common import race_label
from sheetgen.render.tables import (
    Column,
    Row,
    Table,
    count_pages,
    draw_table_pages,
    fit_heads,
    page_header,
    paragraphs,
    table_head,
    table_rows,
)
from sheetgen.template import MM, Template


def _signed(v: int) -> str:
    return f"{v:+d}" if v else "0"


def standings_rows(st) -> list[Row]:
    """The score sheet filled in from the standings; with a calendar, the races still to
    run follow as empty rows, so the sheet can be carried on by hand."""
    players = st.players
    blank = ("",) * (3 * MAX_PLAYERS)

    def per_player(values) -> tuple[str, ...]:
        cells: list[str] = []
        for k in range(MAX_PLAYERS):
            cells += values(players[k]) if k < len(players) else ["", "", ""]
        return tuple(cells)

    rows: list[Row] = []
    calendar = st.calendar
    recorded = set()
    for r in st.rallies:
        recorded.add(r.result.id)
        rally = calendar.get(r.result.id) if calendar is not None and r.result.id else None
        name = r.result.name
        for rs in r.races:
            label = race_label(rs.race) if rs.race.name.startswith(name + ", ") else rs.race.name
            cells = per_player(
                lambda p, rs=rs: [
                    str(rs.race.departure.index(p) + 1),
                    "out" if rs.race.round_of(p) is None else str(rs.race.round_of(p)),
                    _signed(rs.score(p)),
                ]
            )
            rows.append(Row("row", ((name, f" {label}"),) + cells))
        if rally is not None:
            rows += [Row("row", ((name, f" {n}"),) + blank) for n in race_names(rally)[len(r.races) :]]
        totals = per_player(
            lambda p, r=r: [
                _signed(r.totals[players.index(p)]),
                str(r.places[players.index(p)]),
                "-" if r.points is None else str(r.points[players.index(p)]),
            ]
        )
        rows.append(Row("total", ((name, " total" + ("" if r.result.complete else " (running)")),) + totals))
    if calendar is not None:
        for rally in calendar.rallies:
            if rally.id not in recorded:
                rows += [Row("row", ((rally.name, f" {n}"),) + blank) for n in race_names(rally)]
                rows.append(Row("total", ((rally.name, " total"),) + blank))
    by_player = {row.player: row for row in st.table}
    rows.append(
        Row(
            "total",
            ("championship: place, points",)
            + per_player(lambda p: ["", str(by_player[p].place), str(by_player[p].points)]),
        )
    )
    return rows


NEXT_RACE_BESIDE_MM = 55.0  # the next race goes beside the championship table when this much is left


def _grouped(names) -> str:
    """Race names grouped by rally: "Sweden, race 2", "Sweden, special" -> "Sweden: race 2,
    special"."""
    groups: dict[str, list[str]] = {}
    for name in names:
        rally, _, race = name.partition(", ")
        groups.setdefault(rally if race else name, []).append(race)
    return "; ".join(f"{rally}: {', '.join(races)}" if any(races) else rally for rally, races in groups.items())


def _draw_championship(sheet: Sheet, st, y: float) -> float:
    """The championship table and the next race's departure; returns the y below."""
    x, width = sheet.left, sheet.right - sheet.left
    y -= 5 * MM
    sheet.text(x, y, "Championship", "heading", bold=True)
    points = ", ".join(str(p) for p in CHAMPIONSHIP_POINTS)
    nx = x + max(
        30 * MM, sheet.text_width("Championship", "heading", bold=True) + 1.5 * MM
    )  # (a larger heading pushes it on)
    said = (
        f"{points} points per rally; {'; '.join(st.league.house_rules()) or 'no house rules'} (house rules); ties: "
        "countback, then the latest rally"
        if st.league is not None
        else f"{points} points per rally; tied drivers share the better place"
    )
    fitted_text(sheet, nx, y, said, sheet.right - nx, "small")
    y -= 2.5 * MM
    rallies = st.rallies
    fixed = [Column("place", 12 * MM), Column("driver", 38 * MM, "left", lines=2), Column("points", 15 * MM)]
    tail = Column("score A", 16 * MM)
    room = width - sum(c.width for c in fixed) - tail.width
    each = min(room / max(len(rallies), 1), 26 * MM)
    columns = fixed + [Column(r.result.name, each) for r in rallies] + [tail]
    table = fit_heads(sheet, Table(tuple(columns), row_h=5.6 * MM, head_h=5.2 * MM, head_lines=2))
    rows = []
    league = {lr.driver: lr for lr in st.league_rows}  # with a league: drops and bonus shown
    for row in st.table:
        cells = [str(row.place), row.player, str(row.points)]
        if row.player in league:
            lr = league[row.player]
            shown = {i: leagues.shown_score(e, k) for i, e, k in zip(st.rounds, lr.entries, lr.kept)}
            cells += [shown.get(i, "-") for i in range(len(rallies))]
        else:
            cells += ["-" if v is None else str(v) for v in row.rally_points]
        cells.append(_signed(row.score_total))
        rows.append(Row("row", tuple(cells)))
    top = y
    y, _n = table_rows(sheet, table, table_head(sheet, table, y), rows, sheet.bottom)
    lines = [
        f"Starting order: {departure_text(st.next_departure)}"
        + (" (tied drivers draw lots, rulebook)" if st.draw_lots else "")
    ]
    if st.chooses_next:
        lines.append(f"Chosen by the last to arrive in the last race: {' or '.join(st.chooses_next)}.")
    if st.remaining:
        lines.append(f"Still to run: {_grouped(st.remaining)}.")
    if st.league is not None:
        lines += league_notes(st)[:-1]  # (the tie-break order is said above the table)
    used = sum(c.width for c in columns)
    if width - used >= NEXT_RACE_BESIDE_MM * MM:  # beside the table, where it leaves room
        nx = x + used + 5 * MM
        sheet.text(nx, top - 1 * MM, "Next race", "heading", bold=True)
        below = paragraphs(sheet, nx, top - 5.5 * MM, sheet.right - nx, lines, "small", 3.3)
        return min(y, below) - 1 * MM
    y -= 5 * MM
    sheet.text(x, y, "Next race", "heading", bold=True)
    y -= 4.5 * MM
    return paragraphs(sheet, x, y, width, lines, "body", 4.0) - 1 * MM


def render_standings(
    st, template: Template, *, paper: str | None = None, ink: str = "normal", keywords: tuple[str, ...] = ()
) -> tuple[bytes, int]:
    """The standings sheet: the championship table, the next race's departure, and the
    score sheet filled in (the races still to run left empty)."""
    width, _h = template.page_size(paper)
    rows = standings_rows(st)
    races = sum(len(r.races) for r in st.rallies)
    subtitle = f"{len(st.players)} drivers, {plural(races, 'race')} run; score A per race, points per rally (score B)"

    def pages_of(sheet: Sheet, pages: int, table: Table) -> int:
        def header(s: Sheet, page: int, continued: bool) -> float:
            return page_header(
                s,
                (st.name, ": standings" + (" (continued)" if continued else "")),
                subtitle,
                "Rally Risk championship standings",
            )

        return draw_table_pages(
            sheet,
            table,
            rows,
            header,
            first_page=1,
            notes=SCORING_NOTES,
            before=lambda s, y: _draw_championship(s, st, y),
            kind="standings",
        )

    # rows as tall as still let the sheet fit one page (down to 4.4 mm), else 6 mm rows
    for row_mm in (6.0, 5.6, 5.2, 4.8, 4.4, 6.0):
        table = score_table(width - 2 * template.margin_mm * MM, st.players, row_mm * MM)
        pages = count_pages(template, paper, functools.partial(pages_of, pages=1, table=table))
        if pages == 1:
            break
    meta = Meta(
        title=f"{st.name}: Rally Risk standings",
        subject="Rally Risk championship standings and score sheet",
        keywords=("rally risk", "standings") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        pages_of(sheet, pages, table)

    return render_pdf(template, ink, paper, meta, draw)


def print_standings(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: object = None
) -> tuple[bytes, int]:
    """The printable of a Rally Risk results file: the standings sheet `sheetgen standings -o`
    prints."""
    return render_standings(standings(spec.model), template, paper=paper, ink=ink, keywords=keywords)
