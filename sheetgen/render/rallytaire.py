"""Rallytaire PDFs: race sheets and the finishing-turn time table."""

from __future__ import annotations

from sheetgen.games.rallytaire.model import Race
from sheetgen.games.rallytaire.timetable import BASIC_MAX_SPEED, TURN_SECONDS, table
from sheetgen.render.pdf import Meta, Sheet, render_pdf
from sheetgen.render.template import MM, Template


def seconds_text(tenths: int) -> str:
    return f"{tenths // 10}.{tenths % 10}"


def draw_time_table(sheet: Sheet, x: float, top: float, width: float, max_speed: int) -> float:
    """The finishing-turn table (rows: speed; columns: spaces moved); returns its height."""
    rows = table(max_speed)
    head_w = 14 * MM
    cell_w = (width - head_w) / max_speed
    row_h = min(6.5 * MM, cell_w)
    y = top - sheet.t.sizes["heading"] - 1 * MM
    sheet.text(x, y, "Time table: the finishing turn", "heading", bold=True)
    y -= 4.5 * MM
    sheet.text(
        x,
        y,
        f"Every turn before the finishing turn counts {TURN_SECONDS} s. On the finishing turn add the seconds below:",
        "small",
    )
    y -= 3.2 * MM
    sheet.text(x, y, "row = your speed, column = spaces moved up to and including the invisible space after the finish line.", "small")
    y -= 2 * MM
    grid_top = y
    # header row
    y -= row_h
    sheet.box(x, y, width, row_h, shaded=True)
    sheet.text(x + head_w / 2, y + row_h / 2 - 1 * MM, "speed \\ moved", "small", bold=True, align="center", size=5.5)
    for moved in range(1, max_speed + 1):
        sheet.text(x + head_w + (moved - 0.5) * cell_w, y + row_h / 2 - 1.1 * MM, str(moved), "body", bold=True, align="center")
    for speed, cells in enumerate(rows, start=1):
        y -= row_h
        sheet.box(x, y, head_w, row_h, shaded=True)
        sheet.text(x + head_w / 2, y + row_h / 2 - 1.1 * MM, str(speed), "body", bold=True, align="center")
        for moved, tenths in enumerate(cells, start=1):
            cx = x + head_w + (moved - 1) * cell_w
            sheet.box(cx, y, cell_w, row_h, shaded=(speed + moved) % 2 == 0 and False)
            sheet.text(cx + cell_w / 2, y + row_h / 2 - 1.1 * MM, seconds_text(tenths), "body", align="center")
    sheet.stroke(width=sheet.ink.line_width * 1.6)
    sheet.c.rect(x, y, width, grid_top - y, stroke=1, fill=0)
    return top - y


def render_race(race: Race, template: Template, *, analysis=None, paper: str | None = None, ink: str = "normal", keywords: tuple[str, ...] = ()) -> tuple[bytes, int]:
    """A race's printable PDF and its page count."""
    meta = Meta(title=f"{race.name}: Rallytaire race sheet", subject="Rallytaire race sheet and time table", keywords=("rallytaire",) + keywords)

    def draw(sheet: Sheet) -> None:
        y = sheet.top - sheet.t.sizes["title"]
        sheet.text(sheet.left, y, race.name, "title", bold=True)
        y -= 8 * MM
        for stage in race.stages:
            sheet.text(sheet.left, y, f"{stage.name}: {stage.surface.value}, {stage.length} spaces", "heading", bold=True)
            y -= 5 * MM
            for corner in stage.corners:
                sheet.text(
                    sheet.left + 5 * MM,
                    y,
                    f"corner after space {corner.after}: gear {corner.gear}, {corner.turn.value}, plan from space {corner.zone}",
                )
                y -= 4 * MM
            y -= 3 * MM
        sheet.end_page()
        draw_time_table(sheet, sheet.left, sheet.top, sheet.right - sheet.left, BASIC_MAX_SPEED)
        sheet.scale_bar(sheet.left, sheet.bottom + 2 * MM)
        sheet.end_page()

    return render_pdf(template, ink, paper, meta, draw)
