"""The Rallytaire season sheet: every race and stage of a season with its par time, a time
box per driver (or, solo, per attempt), race totals and the season total. `print_season` is
a season file's printable; `sheetgen season -o` prints the same sheet.
"""

from __future__ import annotations

from sheetgen.games.rallytaire.timetable import TURN_SECONDS
from sheetgen.render.common import plural
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.tables import Column, Row, Table, count_pages, draw_table_pages, page_header
from sheetgen.template import MM, Template

SEASON_NOTES = (
    f"Stage time: {TURN_SECONDS} s for every turn before the finishing turn, plus the time table's seconds for the finishing turn (on every race "
    "sheet). Race time: its stages added up. Season: the race times added up; the least wins.",
    "par: the expected time of the best possible play in the basic game (sheetgen's exact solver): a time to beat.",
)


def render_season(season, analyses: dict | None, template: Template, *, paper: str | None = None, ink: str = "normal", keywords: tuple[str, ...] = ()) -> tuple[bytes, int]:
    """The season sheet: every race and stage with its par, a time box per driver (or per
    attempt), race totals and the season total."""
    width, _h = template.page_size(paper)
    room = width - 2 * template.margin_mm * MM
    fixed = [Column("race / stage", 62 * MM, "left"), Column("spaces", 13 * MM), Column("par s", 15 * MM)]
    names = season.columns
    each = (room - sum(c.width for c in fixed)) / len(names)
    table = Table(tuple(fixed + [Column(n, each) for n in names]), row_h=6.5 * MM, head_h=5.5 * MM)
    blank = ("",) * len(names)
    analyses = analyses or {}
    rows: list[Row] = []
    for k, entry in enumerate(season.races):
        a = analyses.get(k)
        rows.append(Row("title", label=f"{k + 1}. {entry.race.name}  ({entry.source})"))
        for j, stage in enumerate(entry.race.stages):
            par = "" if a is None else f"{a.stages[j].par_time:.1f}"
            rows.append(Row("row", (f"{stage.name} ({stage.surface.value})", str(stage.length), par) + blank))
        rows.append(Row("total", ("race time", str(sum(s.length for s in entry.race.stages)), "" if a is None else f"{a.par_time:.1f}") + blank))
    total = "" if len(analyses) != len(season.races) else f"{sum(a.par_time for a in analyses.values()):.1f}"
    rows.append(Row("total", ("season total", "", total) + blank))
    subtitle = f"{plural(len(season.races), 'race')}; write each stage time in seconds, then add them up"

    def pages_of(sheet: Sheet, pages: int) -> int:
        def header(s: Sheet, page: int, continued: bool) -> float:
            return page_header(s, f"{season.name}" + (" (continued)" if continued else ""), subtitle, "Rallytaire season sheet", page, pages)

        return draw_table_pages(sheet, table, rows, header, first_page=1, notes=SEASON_NOTES)

    pages = count_pages(template, paper, lambda sheet: pages_of(sheet, 1))
    meta = Meta(title=f"{season.name}: Rallytaire season sheet", subject="Rallytaire season sheet", keywords=("rallytaire", "season") + keywords)
    return render_pdf(template, ink, paper, meta, lambda sheet: pages_of(sheet, pages) and None)


def print_season(spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...]) -> tuple[bytes, int]:
    """The printable of a Rallytaire season: its season sheet with the par times (each race's
    own sheets come from its race file, or `sheetgen generate ... --render`)."""
    from sheetgen.games.rallytaire.season import expand_season
    from sheetgen.games.rallytaire.solve import analyze_race

    season = expand_season(spec.model)
    analyses = {k: analyze_race(entry.race) for k, entry in enumerate(season.races)}
    return render_season(season, analyses, template, paper=paper, ink=ink, keywords=keywords)
