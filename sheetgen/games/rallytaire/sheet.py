"""The race sheet's page plan: which stages share a page, and the box each stage's track is
laid out in. Pure geometry in millimetres: the renderer draws this plan, and the generator
checks a new race against the very same plan, so what it accepts is what prints.

The sizes below are the panels of the printed sheet (measured on the drawn pages).
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetgen.games.rallytaire.model import Race
from sheetgen.games.rallytaire.layout import LayoutError, StageLayout, layout_stage, winding_layout
from sheetgen.template import MM, PAPERS, Template

HEADER_MM = 40.0  # first page: title, driver/date/time, advanced-game boxes, gear table
RUNNING_HEADER_MM = 9.0  # later pages: race name and page number
FOOTER_MM = 7.0  # scale bar
PANEL_HEAD_MM = 12.5  # stage name, surface, figures, stage time box
PANEL_GAP_MM = 5.0


@dataclass(frozen=True)
class Placed:
    index: int
    layout: StageLayout
    top_mm: float  # panel top, measured down from the page's printable top
    height_mm: float  # the panel on this paper (head and track); the layout is centred in its track


def track_box(template: Template, first_page: bool, half: bool = False) -> tuple[float, float]:
    """(width, height) in mm of the box a stage's track is laid out in: alone on its page, or
    in one half of a shared page.

    It is the room that every paper size (A4 and Letter) has, so a race's pages hold the same
    stages and every stage the same track on any paper: players of one league who print on
    different papers race on identical sheets. A paper with more room centres the track in it.
    """
    width = min(w / MM for w, _h in PAPERS.values()) - 2 * template.margin_mm
    room = _room(template, min(h / MM for _w, h in PAPERS.values()), first_page)
    return (width, _slot(room) if half else room - PANEL_HEAD_MM)


def _room(template: Template, page_h_mm: float, first_page: bool) -> float:
    """Height of the panels' part of a page: below the header, above the footer."""
    return page_h_mm - 2 * template.margin_mm - FOOTER_MM - (HEADER_MM if first_page else RUNNING_HEADER_MM)


def _slot(room: float) -> float:
    """Track height of each of two panels sharing a page of panel room `room`."""
    return (room - PANEL_GAP_MM) / 2 - PANEL_HEAD_MM


def plan_pages(race: Race, template: Template, page_h_mm: float) -> list[list[Placed]]:
    """Stages per page: two share a page when both wind in half the room, else one a page.

    Layouts and the choice of pages come from `track_box`, the same on every paper; only the
    panels' heights are those of a page `page_h_mm` high (the tracks are centred in them).
    A stage that fits nowhere raises `LayoutError` with its `stage_index` in the race."""
    pages: list[list[Placed]] = []
    i = 0
    stages = race.stages
    space = template.space_mm
    while i < len(stages):
        first = not pages
        top = HEADER_MM if first else RUNNING_HEADER_MM
        room = _room(template, page_h_mm, first)
        placed = None
        if i + 1 < len(stages):
            width, slot = track_box(template, first, half=True)
            pair = []
            for m in range(2):  # the second stage is only laid out when the first winds
                lay = winding_layout(stages[i + m], width, slot, space_mm=space)
                if lay is None:
                    break
                pair.append(lay)
            if len(pair) == 2:
                here = _slot(room) + PANEL_HEAD_MM
                placed = [Placed(i + m, pair[m], top + m * (here + PANEL_GAP_MM), here) for m in range(2)]
        if placed is None:
            try:
                single = layout_stage(stages[i], *track_box(template, first), space_mm=space)
            except LayoutError as exc:
                raise exc.in_race(i) from None
            placed = [Placed(i, single, top, room)]
        pages.append(placed)
        i += len(placed)
    return pages


def unprintable(race: Race, template: Template) -> list[tuple[int, str]]:
    """(index, reason) of every stage that fits on no race sheet page, even alone and as rows
    with U-turns: the first stage on page 1 (below the header), any other on a later page.
    The layouts are the page plan's own (and kept: rendering the race reuses them)."""
    found = []
    for i, stage in enumerate(race.stages):
        try:
            layout_stage(stage, *track_box(template, i == 0), space_mm=template.space_mm)
        except LayoutError as exc:
            found.append((i, str(exc)))
    return found
