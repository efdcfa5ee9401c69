"""The race sheet's page plan: which stages share a page, the box each stage's track is laid
out in, and where the time table goes. Pure geometry in millimetres: the renderer draws this
plan, and the generator and `validate` check a race against the very same plan, so what they
accept is what prints.

A race prints on as few pages as its stages pack into: the first page has the header, the last
one the time table, and in between every page is a column of stage panels, each as high as its
track needs (the rows with U-turns of `layout.needed_height`, 8 mm spaces where they fit, 7 mm
otherwise) plus a share of the page's spare room, in which the track may wind. Four stages of up
to about 85 spaces print on one sheet, front and back.

The sizes below are the panels of the printed sheet (measured on the drawn pages).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sheetgen.games.rallytaire import SPACE_MM
from sheetgen.games.rallytaire.layout import LayoutError, StageLayout, check_fits, layout_stage, needed_height
from sheetgen.games.rallytaire.model import Race
from sheetgen.games.rallytaire.timetable import BASIC_MAX_SPEED, PUSH_MAX_SPEED
from sheetgen.template import MM, PAPERS, Template

HEADER_MM = 28.0  # first page: title, driver/date/total, advanced-game boxes, tyres, gear table
RUNNING_HEADER_MM = 7.0  # later pages: race name and page number
FOOTER_MM = 5.0  # scale bar
PANEL_HEAD_MM = 11.5  # stage name, surface, figures, the stage time's sum
PANEL_GAP_MM = 2.5  # between two panels, and above the time table
#: The time table: its title line, then a row of column heads and a row per speed.
TABLE_TITLE_MM = 6.0
TABLE_ROW_MM = 3.4
#: Least side of a space, mm (the template's `space_mm`, `SPACE_MM`, is the largest).
MIN_SPACE_MM = 7.0
#: Stages up to this long print two a page, whatever they share their page with, when their
#: rows with U-turns fit `pair_track_height` (the generator holds its stages to it).
PAIR_LENGTH = 85


@dataclass(frozen=True)
class Placed:
    index: int
    layout: StageLayout
    top_mm: float  # panel top, measured down from the page's printable top
    height_mm: float  # the panel on this paper (head and track); the layout is centred in its track


@dataclass(frozen=True)
class Plan:
    """The pages of a race sheet on one paper: the stage panels of each page, and the page
    (an index into `pages`, or len(pages) for a page of its own) and top of the time table."""

    pages: tuple[tuple[Placed, ...], ...]
    table_page: int
    table_top_mm: float

    @property
    def page_count(self) -> int:
        return max(len(self.pages), self.table_page + 1)


def max_speed(race: Race) -> int:
    """The highest speed the race's time table runs to: 17 when the engine can be pushed."""
    return PUSH_MAX_SPEED if race.boxes.engine > 0 else BASIC_MAX_SPEED


def table_height(speed: int) -> float:
    """Height of the time table up to `speed`, mm."""
    return TABLE_TITLE_MM + (speed + 1) * TABLE_ROW_MM


def pages_wanted(stages: int) -> int:
    """The most pages a race of `stages` stages of up to about 85 spaces prints on: one sheet,
    front and back, for up to four stages (one page for a single stage), two stages a page
    for more; the time table on the last page."""
    return 1 if stages <= 1 else max(2, math.ceil(stages / 2))


def track_box(template: Template, first_page: bool) -> tuple[float, float]:
    """(width, height) in mm of the box a stage's track is laid out in alone on its page.

    It is the room that every paper size (A4 and Letter) has, so a race's pages hold the same
    stages and every stage the same track on any paper: players of one league who print on
    different papers race on identical sheets. A paper with more room centres the track in it.
    """
    return (_width(template), _room(template, _common_height(), first_page) - PANEL_HEAD_MM)


def pair_track_height(template: Template, speed: int = PUSH_MAX_SPEED) -> float:
    """Track height each of two stages has when they share a later page with the time table:
    the least room of any pair of stages on the sheet. A stage that needs no more prints two a
    page whatever it shares its pages with."""
    room = _room(template, _common_height(), False) - PANEL_GAP_MM - table_height(speed)
    return (room - PANEL_GAP_MM) / 2 - PANEL_HEAD_MM


def _width(template: Template) -> float:
    return min(w / MM for w, _h in PAPERS.values()) - 2 * template.margin_mm


def _common_height() -> float:
    return min(h / MM for _w, h in PAPERS.values())


def _room(template: Template, page_h_mm: float, first_page: bool) -> float:
    """Height of the panels' part of a page: below the header, above the footer."""
    return page_h_mm - 2 * template.margin_mm - FOOTER_MM - (HEADER_MM if first_page else RUNNING_HEADER_MM)


def _need(stage, width: float, space: float) -> float:
    h = needed_height(stage, width, space)
    return math.inf if h is None else h


def plan_race(race: Race, template: Template, page_h_mm: float) -> Plan:
    """The race sheet on a paper `page_h_mm` high.

    Stages go in order, as many a page as their tracks' least heights allow; the last page takes
    the time table when it fits below its stages, else the table has a page of its own. Layouts
    and the choice of pages come from the room every paper has (`track_box`), so they are the
    same on every paper; only the panels' heights are this page's (the tracks are centred in
    them). A stage that fits nowhere raises `LayoutError` with its `stage_index` in the race."""
    width = _width(template)
    common = _common_height()
    space = template.size(SPACE_MM)
    stages = race.stages
    table_h = PANEL_GAP_MM + table_height(max_speed(race))
    low = [_need(s, width, min(MIN_SPACE_MM, space)) for s in stages]
    high = [_need(s, width, space) for s in stages]

    def used(first: int, last: int, table: bool) -> float:
        count = last - first + 1
        return (
            sum(low[first : last + 1])
            + count * PANEL_HEAD_MM
            + (count - 1) * PANEL_GAP_MM
            + (table_h if table else 0.0)
        )

    groups = _group(len(stages), low, high, used, lambda first_page: _room(template, common, first_page), table_h)
    table_page = next((k for k, g in enumerate(groups) if g[2]), len(groups))

    pages: list[tuple[Placed, ...]] = []
    table_top = RUNNING_HEADER_MM if table_page == len(groups) else 0.0
    for number, (first, last, table) in enumerate(groups):
        top = HEADER_MM if number == 0 else RUNNING_HEADER_MM
        count = last - first + 1
        tracks = (
            _room(template, common, number == 0)
            - count * PANEL_HEAD_MM
            - (count - 1) * PANEL_GAP_MM
            - (table_h if table else 0.0)
        )
        heights = _heights(low[first : last + 1], high[first : last + 1], tracks)
        # this paper's spare room, shared out between the panels (the tracks stay the same)
        extra = (_room(template, page_h_mm, number == 0) - _room(template, common, number == 0)) / count
        placed = []
        y = top
        for k, h in zip(range(first, last + 1), heights):
            try:
                lay = layout_stage(stages[k], width, h, space_mm=space, min_space_mm=min(MIN_SPACE_MM, space))
            except LayoutError as exc:
                raise exc.in_race(k) from None
            here = PANEL_HEAD_MM + h + extra
            placed.append(Placed(k, lay, y, here))
            y += here + PANEL_GAP_MM
        if table:
            table_top = y
        pages.append(tuple(placed))
    return Plan(tuple(pages), table_page, table_top)


def _group(n: int, low: list[float], high: list[float], used, room, table_h: float) -> list[tuple[int, int, bool]]:
    """(first stage, last stage, holds the table?) of each page: the split of the stages, in
    order, into pages that takes the fewest pages (the table's own page counted), then gives
    the most stages 8 mm spaces, then leaves the most room on its fullest page. A stage that
    fits on no page with another is alone on its page."""
    best = None
    for cuts in range(1 << max(0, n - 1)):
        groups, first = [], 0
        for k in range(n):
            if k == n - 1 or cuts >> k & 1:
                groups.append((first, k))
                first = k + 1
        pages, large, tightest, ok = 0, 0, math.inf, True
        table = False
        for number, (i, j) in enumerate(groups):
            last = number == len(groups) - 1
            with_table = last and used(i, j, True) <= room(number == 0) + 1e-9
            spare = room(number == 0) - used(i, j, with_table)
            if spare < -1e-9 and j > i:
                ok = False
                break
            table = table or with_table
            tracks = sum(low[i : j + 1]) + spare
            heights = _heights(low[i : j + 1], high[i : j + 1], tracks) if j > i else [tracks]
            large += sum(h >= hi - 1e-9 for h, hi in zip(heights, high[i : j + 1]))
            tightest = min(tightest, spare)
        if not ok:
            continue
        pages = len(groups) + (0 if table else 1)
        key = (pages, -large, -tightest)
        if best is None or key < best[0]:
            best = (key, [(i, j, table and k == len(groups) - 1) for k, (i, j) in enumerate(groups)])
    assert best is not None, "every stage alone on its page is always a split"
    return best[1]


def _heights(low: list[float], high: list[float], tracks: float) -> list[float]:
    """Track heights of one page's stages: each its least height with 8 mm spaces where that
    fits (first stages first), else with 7 mm ones, and an equal share of what is left. A
    stage alone on its page that fits in no height gets the whole room (and fails there)."""
    if len(low) == 1:
        return [tracks]
    heights = list(low)
    for k in range(len(heights)):
        if sum(heights) - heights[k] + high[k] <= tracks + 1e-9:
            heights[k] = high[k]
    spare = (tracks - sum(heights)) / len(heights)
    return [h + spare for h in heights]


def plan_pages(race: Race, template: Template, page_h_mm: float) -> list[list[Placed]]:
    """The stage panels of each page of `plan_race`."""
    return [list(page) for page in plan_race(race, template, page_h_mm).pages]


def unprintable(race: Race, template: Template) -> list[tuple[int, str]]:
    """(index, reason) of every stage that fits on no race sheet page, even alone and as rows
    with U-turns: the first stage on page 1 (below the header), any other on a later page.
    A race without such a stage prints (`plan_race` gives every other stage a page of its own
    at worst). The stages are only checked (`check_fits`), not laid out."""
    found = []
    for i, stage in enumerate(race.stages):
        try:
            check_fits(
                stage,
                *track_box(template, i == 0),
                space_mm=template.size(SPACE_MM),
                min_space_mm=min(MIN_SPACE_MM, template.size(SPACE_MM)),
            )
        except LayoutError as exc:
            found.append((i, str(exc)))
    return found
