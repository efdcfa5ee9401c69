"""The Rallytaire season sheet: every race and stage of a season with its par time, a time
box per driver (or, solo, per attempt), race totals and the season total. `print_season` is
a season file's printable: the season sheet, then the race sheets of the season's generated
races (a race file prints its own), each starting on a new sheet of paper; `sheetgen season
-o` prints the season sheet alone.
"""

from __future__ import annotations

from sheetgen.games.rallytaire.timetable import TURN_SECONDS
from sheetgen.render.common import plural
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rallytaire.race_sheet import draw_race, race_pages
from sheetgen.render.tables import Column, Row, Table, count_pages, draw_table_pages, fit_heads, page_header
from sheetgen.template import MM, Template

SEASON_NOTES = (
    f"Stage time: {TURN_SECONDS} s for every turn before the finishing turn, plus the time table's seconds for the "
    "finishing turn (on every race "
    "sheet). Race time: its stages added up. Season: the race times added up; the least wins.",
    "par: the expected time of the best possible play in the basic game (sheetgen's exact solver): a time to beat.",
)


def render_season(
    season,
    analyses: dict | None,
    template: Template,
    *,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
    race_sheets: dict | None = None,
) -> tuple[bytes, int]:
    """The season sheet: every race and stage with its par, a time box per driver (or per
    attempt), race totals and the season total; then the race sheets `race_sheets` gives
    ({race index: (basic analysis, advanced analysis or None)}), each from an odd page so that
    it prints on sheets of its own, front and back."""
    width, _h = template.page_size(paper)
    room = width - 2 * template.margin_mm * MM
    fixed = [Column("race / stage", 62 * MM, "left", lines=2), Column("spaces", 13 * MM), Column("par s", 15 * MM)]
    names = season.columns
    each = (room - sum(c.width for c in fixed)) / len(names)
    # the drivers' names head their columns, wrapped in up to three lines
    table = Table(tuple(fixed + [Column(n, each) for n in names]), row_h=6.5 * MM, head_h=5.5 * MM, head_lines=3)
    analyses = analyses or {}
    race_sheets = race_sheets or {}
    pages = count_pages(
        template, paper, lambda sheet: _draw_table(sheet, season, table, _rows(season, analyses, {}, len(names)), 1)
    )
    # where each race sheet starts: on an odd page, after the season sheet
    starts: dict[int, int] = {}
    at = pages + 1
    for k in sorted(race_sheets):
        at += (at + 1) % 2
        starts[k] = at
        at += race_pages(season.races[k].race, template, paper)
    rows = _rows(season, analyses, starts, len(names))
    meta = Meta(
        title=f"{season.name}: Rallytaire season sheet",
        subject="Rallytaire season sheet",
        keywords=("rallytaire", "season") + keywords,
    )

    def draw(sheet: Sheet) -> None:
        _draw_table(sheet, season, table, rows, pages)
        for k in sorted(race_sheets):
            while sheet.pages + 1 < starts[k]:
                sheet.text(
                    sheet.left,
                    sheet.top - 5 * MM,
                    "This page is left blank: the next race sheet starts on a sheet of its own.",
                    "small",
                )
                sheet.end_page("blank page")
            basic, advanced = race_sheets[k]
            draw_race(sheet, season.races[k].race, basic, advanced)

    return render_pdf(template, ink, paper, meta, draw)


def _rows(season, analyses: dict, starts: dict[int, int], drivers: int) -> list[Row]:
    """The table's rows: each race (named, with the page of its race sheet when the file holds
    it) and its stages, race totals and the season total."""
    blank = ("",) * drivers
    rows: list[Row] = []
    for k, entry in enumerate(season.races):
        a = analyses.get(k)
        where = f"  (generated: its race sheet is page {starts[k]} of this file)" if k in starts else ""
        rows.append(Row("title", label=f"{k + 1}. {entry.race.name}{where}"))
        for j, stage in enumerate(entry.race.stages):
            par = "" if a is None else f"{a.stages[j].par_time:.1f}"
            rows.append(Row("row", (f"{stage.name} ({stage.surface.value})", str(stage.length), par) + blank))
        rows.append(
            Row(
                "total",
                ("race time", str(sum(s.length for s in entry.race.stages)), "" if a is None else f"{a.par_time:.1f}")
                + blank,
            )
        )
    total = "" if len(analyses) != len(season.races) else f"{sum(a.par_time for a in analyses.values()):.1f}"
    rows.append(Row("total", ("season total", "", total) + blank))
    return rows


def _draw_table(sheet: Sheet, season, table: Table, rows: list[Row], pages: int) -> int:
    """The season sheet's pages (`pages` of them, for the page numbers); returns how many."""
    subtitle = f"{plural(len(season.races), 'race')}; write each stage time in seconds, then add them up"

    def header(s: Sheet, page: int, continued: bool) -> float:
        return page_header(
            s, (season.name, " (continued)" if continued else ""), subtitle, "Rallytaire season sheet", page, pages
        )

    return draw_table_pages(
        sheet, fit_heads(sheet, table), rows, header, first_page=1, notes=SEASON_NOTES, kind="season sheet"
    )


def print_season(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: dict
) -> tuple[bytes, int]:
    """The printable of a Rallytaire season: its season sheet with the par times, then the race
    sheets of its generated races (a race file's own sheets come from that file), with the
    same figures as `sheetgen render` gives a race (`figures`, the game's: the expanded
    season, each race's analysis, and the generated races' advanced figures)."""
    season, analyses = figures["season"], figures["analyses"]
    sheets = {k: (analyses[k], figures["advanced"][k]) for k, entry in enumerate(season.races) if entry.generate}
    return render_season(season, analyses, template, paper=paper, ink=ink, keywords=keywords, race_sheets=sheets)


def print_season_sheet(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: dict
) -> tuple[bytes, int]:
    """The season sheet alone, without par times (`sheetgen season --no-par -o`): `figures`
    holds the expanded season (the command's, solving nothing)."""
    return render_season(figures["season"], None, template, paper=paper, ink=ink, keywords=keywords)
