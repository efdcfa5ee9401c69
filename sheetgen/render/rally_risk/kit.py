"""The Rally Risk print-and-play kit, on one page after a library's section cards: a token
per car (its number on its own pattern), each car's mechanic markers (its number and
pattern again), the weather markers and an R.P.M.'s too high card per driver.

Where the pieces go comes from :func:`sheetgen.games.rally_risk.layout.kit_layout`; this
module only draws them. A car is told by its number and by its pattern, never by colour.
"""

from __future__ import annotations

from sheetgen.games.rally_risk.layout import kit_layout
from sheetgen.games.rally_risk.model import MAX_MECHANICS, MECHANIC_RANGE
from sheetgen.games.rally_risk.spec import MAX_PLAYERS
from sheetgen.render.common import CAP, centred, fit_size, fitted_text, wrap
from sheetgen.render.patterns import CAR_PATTERNS, draw_car_pattern
from sheetgen.render.pdf import Sheet
from sheetgen.template import MM

KIT_HEADER_MM = 12.0
TITLES = {
    "cars": "Cars: a token per car, its number on its own pattern",
    "weather": "Weather",
    "mechanics": (
        f"Mechanics: up to {MAX_MECHANICS} per car, each on a numbered space (reach {MECHANIC_RANGE} spaces either way)"
    ),
    "rpm": "R.P.M.'s too high: a card per driver at the start of every race",
}
RPM_TEXT = (  # the rulebook's "R.P.M.'s Too High", as docs/rulings.md RR-5 reads it
    "Once per race you may shift down two gears at once: 5th to 3rd, 4th to 2nd or 3rd to 1st.",
    "Give up this card when you do; every driver is given it again at the start of each race.",
)


def _number(sheet: Sheet, x: float, y: float, r: float, value: str, size: float) -> None:
    """`value` in a circle of radius r centred on (x, y)."""
    sheet.stroke(width=sheet.ink.line_width)
    sheet.c.circle(x, y, r, stroke=1, fill=0)
    centred(sheet, x, y, value, size, bold=True)


def draw_kit(sheet: Sheet, title: str, page: int, pages: int) -> None:
    """The kit page; then ``sheet.end_page()``."""
    top = sheet.top
    kind = f"Rally Risk print-and-play kit, page {page} of {pages}"
    fitted_text(
        sheet,
        sheet.left,
        top - 4 * MM,
        title,
        sheet.right - sheet.left - sheet.text_width(kind, "small") - 4 * MM,
        "heading",
        bold=True,
    )
    sheet.text(sheet.right, top - 4 * MM, kind, "small", align="right")
    note = "Cut along the lines. " + ", ".join(f"car {k + 1} {CAR_PATTERNS[k]}" for k in range(MAX_PLAYERS)) + "."
    sheet.text(
        sheet.left, top - 8.6 * MM, note, size=fit_size(sheet, note, sheet.right - sheet.left, sheet.t.sizes["small"])
    )
    kit = kit_layout(
        sheet.width / MM,
        sheet.height / MM,
        sheet.margin / MM,
        header=KIT_HEADER_MM,
        cars=MAX_PLAYERS,
        mechanics=MAX_MECHANICS,
    )
    for group, x, y in kit.titles:
        text = TITLES[group]
        room = (sheet.right - x * MM) if group != "cars" else (kit.of("weather")[0].x - x - 2) * MM
        sheet.text(x * MM, y * MM, text, size=fit_size(sheet, text, room, sheet.t.sizes["body"], True), bold=True)
    thin = sheet.ink.thin_width
    for piece in kit.pieces:
        x, y, w, h = piece.x * MM, piece.y * MM, piece.w * MM, piece.h * MM
        if piece.kind == "car":
            r = w * 0.3
            draw_car_pattern(sheet, piece.car, x, y, w, h, hole=(x + w / 2, y + h / 2, r + 0.6 * MM))
            _number(sheet, x + w / 2, y + h / 2, r, str(piece.car), 11.0)
        elif piece.kind == "mechanic":
            band = h * 0.36
            draw_car_pattern(sheet, piece.car, x, y + h - band, w, band)
            sheet.stroke(width=thin)
            sheet.c.line(x, y + h - band, x + w, y + h - band)
            centred(sheet, x + w / 2, y + (h - band) / 2, f"M{piece.car}", 7.5, bold=True)
        elif piece.kind == "weather":
            centred(sheet, x + w / 2, y + h * 0.58, "W", 13.0, bold=True)
            centred(sheet, x + w / 2, y + h * 0.2, "weather" if piece is kit.of("weather")[0] else "spare", 5.5)
        else:
            _rpm_card(sheet, piece.car, x, y, w, h)
        sheet.box(x, y, w, h, width=thin)
    sheet.scale_bar(sheet.left, sheet.bottom + 1.5 * MM)
    sheet.end_page("kit")


def _rpm_card(sheet: Sheet, car: int, x: float, y: float, w: float, h: float) -> None:
    band = 14 * MM
    r = 5 * MM
    draw_car_pattern(sheet, car, x, y + h - band, w, band, hole=(x + w / 2, y + h - band / 2, r + 0.6 * MM))
    _number(sheet, x + w / 2, y + h - band / 2, r, str(car), 13.0)
    sheet.stroke(width=sheet.ink.thin_width)
    sheet.c.line(x, y + h - band, x + w, y + h - band)
    ty = y + h - band - 9 * MM
    for line in ("R.P.M.'s", "TOO HIGH"):
        sheet.text(x + w / 2, ty, line, bold=True, size=fit_size(sheet, line, w - 4 * MM, 15.0, True), align="center")
        ty -= 6.5 * MM
    size = sheet.t.sizes["body"]
    ty -= 1.5 * MM
    for paragraph in RPM_TEXT:
        for line in wrap(sheet, paragraph, w - 6 * MM, size):
            sheet.text(x + 3 * MM, ty, line, size=size)
            ty -= size * 1.3
        ty -= 1.2 * MM
    sheet.text(x + w / 2, y + 3 * MM + CAP * 0, f"car {car} ({CAR_PATTERNS[car - 1]})", "small", align="center")
