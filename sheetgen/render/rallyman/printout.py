"""The printable of a Rallyman track: one PDF with everything a race on it needs.

In order: the assembly page (not for a map of one page: its key then follows the
roadbook), the map pages at true scale (`track_map`), the roadbook
(`roadbook`), the dashboard reference card (`dashboard`), the time sheet (`time_sheet`),
GT's or DIRT's by the track's variant, and the pieces to play without the box (`kit`: a dice
key for plain dice, car counters, the damage bag's tokens). The pages are drawn with the functions of those
modules on one canvas.
"""

from __future__ import annotations

from sheetgen.games.rallyman.model import Track, Variant
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.rallyman import dashboard, kit, time_sheet
from sheetgen.render.rallyman.common import legend_items
from sheetgen.render.rallyman.roadbook import draw_roadbook_page, roadbook_pages
from sheetgen.render.rallyman.track_map import (
    LEGEND_ROW_MM,
    _turn_page,
    draw_assembly_page,
    draw_legend,
    draw_map_page,
    figures_lines,
    map_plan,
)
from sheetgen.template import MM, Template


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
        # a map of one page needs no assembly: its key goes under the roadbook instead
        single = len(printed) == 1
        if not single:
            draw_assembly_page(sheet, track, plan, template, figures)
            sheet.end_page("assembly page")
        upright = (sheet.width, sheet.height)
        first = 0 if single else 1  # the PDF pages (from 0) before the first map page
        for number, page in enumerate(printed, 1):
            _turn_page(sheet, plan.page_size)
            draw_map_page(sheet, track, plan, page, number, len(printed), first + number)
            sheet.end_page("map")
        _turn_page(sheet, upright)
        book = roadbook_pages(track, sheet)
        for number, rows in enumerate(book, 1):
            below = draw_roadbook_page(sheet, track, rows, number, len(book))
            if single and number == len(book):
                # what the assembly page would say: the par and safe route, and the key
                par = figures_lines(sheet, figures, sheet.right - sheet.left)
                markers = any(t.effect is None for p in track.placements for t in p.tokens)
                lanes = any(p.lane_names for p in track.placements)
                need = (4 * len(par) + 6 + 5 + LEGEND_ROW_MM * len(legend_items(track.cells, markers, lanes))) * MM
                if below - need < sheet.bottom + 8 * MM:
                    sheet.end_page("roadbook")
                    below = sheet.top
                below -= 6 * MM
                for line in par:
                    sheet.text(sheet.left, below, line, "body")
                    below -= 4 * MM
                draw_legend(
                    sheet, track.cells, sheet.left, below - 2 * MM, markers, title="Key to the map", lanes=lanes
                )
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
        kit.draw_dice_key_page(sheet, track, template)
        kit.draw_damage_bag_page(sheet, track)

    return render_pdf(template, ink, paper, meta, draw)
