"""The printable of a Rallyman track: one PDF with everything a race on it needs.

In order: the assembly page, the map pages at true scale (`track_map`), the roadbook
(`roadbook`), the dashboard reference card (`dashboard`) and the time sheet (`time_sheet`),
GT's or DIRT's by the track's variant. The pages are drawn with the functions of those
modules on one canvas.
"""

from __future__ import annotations

from sheetgen.games.rallyman.model import Track, Variant
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rallyman import dashboard, time_sheet
from sheetgen.render.rallyman.roadbook import draw_roadbook_page, roadbook_pages
from sheetgen.render.rallyman.track_map import (
    _turn_page,
    draw_assembly_page,
    draw_map_page,
    map_plan,
)
from sheetgen.template import Template


def print_track(
    spec, template: Template, *, paper: str | None, ink: str, keywords: tuple[str, ...], figures: dict | None = None
) -> tuple[bytes, int]:
    """The printable of a track: assembly page, map pages, roadbook, dashboard card, time
    sheet; `figures`: a GT track's par time and safe route, solved by the game."""
    return render_track(spec.model, template, paper=paper, ink=ink, keywords=keywords, figures=figures)


def render_track(
    track: Track,
    template: Template,
    *,
    paper: str | None = None,
    ink: str = "normal",
    keywords: tuple[str, ...] = (),
    figures: dict | None = None,
) -> tuple[bytes, int]:
    plan = map_plan(track, template, paper)
    printed = plan.printed()
    variant = "Rallyman GT" if track.variant is Variant.GT else "Rallyman DIRT"
    meta = Meta(
        title=f"{track.name}: {variant} map, roadbook, dashboard card and time sheet",
        subject=f"{variant} track map at true scale, assembly page, roadbook, dashboard reference card and time sheet",
        keywords=("rallyman", track.variant.value) + keywords,
    )

    def draw(sheet: Sheet) -> None:
        draw_assembly_page(sheet, track, plan, template, figures)
        sheet.end_page("assembly page")
        upright = (sheet.width, sheet.height)
        for number, page in enumerate(printed, 1):
            _turn_page(sheet, plan.page_size)
            draw_map_page(sheet, track, plan, page, number, len(printed))
            sheet.end_page("map")
        _turn_page(sheet, upright)
        book = roadbook_pages(track, sheet)
        for number, rows in enumerate(book, 1):
            draw_roadbook_page(sheet, track, rows, number, len(book))
            sheet.end_page("roadbook")
        dashboard.draw_dashboard_card(sheet, track)
        if track.variant is Variant.GT:
            ranges = time_sheet.gt_time_sheet_pages(track, sheet)
            for number, (first, last) in enumerate(ranges, 1):
                time_sheet.draw_gt_time_sheet(sheet, track, first, last, number, len(ranges), figures)
        else:
            ranges = time_sheet.dirt_time_sheet_pages(track, sheet)
            for number, (first, last) in enumerate(ranges, 1):
                time_sheet.draw_dirt_time_sheet(sheet, track, first, last, number, len(ranges))

    return render_pdf(template, ink, paper, meta, draw)
