"""The Rally Risk print-and-play kit, on two pages after a library's section cards: a token
per car (its number on its own pattern), each car's mechanic markers (its number and
pattern again), the weather markers and an R.P.M.'s too high card per driver; then the gear
simulators, a strip per car standing in for the box's six: a cell per gear with the spaces
it moves by assistance, a cell per turn the car still stands at a halt and one for a car
out of the race, each with a spot for the car's gear or halt marker (cut from the strip's
end).

Where the pieces go comes from :func:`sheetgen.games.rally_risk.layout.kit_layout` and
:func:`~sheetgen.games.rally_risk.layout.tracker_layout`; this module only draws them. A car
is told by its number and by its pattern, never by colour.
"""

from __future__ import annotations

from sheetgen.games.rally_risk.layout import TRACK_SPOT_MM, kit_layout, tracker_layout
from sheetgen.games.rally_risk.model import MAX_MECHANICS, MECHANIC_RANGE, Assistance, Tables
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


def _kit_header(sheet: Sheet, title: str, page: int, pages: int) -> float:
    """A kit page's title and what it is on its top line (its number: the PDF's footer); the
    page's top."""
    top = sheet.top
    kind = "Rally Risk print-and-play kit"
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
    return top


def draw_kit(sheet: Sheet, title: str, page: int, pages: int) -> None:
    """The kit page; then ``sheet.end_page()``."""
    top = _kit_header(sheet, title, page, pages)
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


#: The assistance letters of a gear cell, as the course sheet's driver rows have them.
ASSISTANCE_LETTERS = {Assistance.PERMANENT: "P", Assistance.RAPID: "R", Assistance.NORMAL: "N"}


def tracker_notes(tables: Tables) -> tuple[str, ...]:
    """The gear simulators' instructions (docs/rally_risk.md, "Gear simulators")."""
    source = "from your box (spec)" if "gear_chart" in tables.overridden else "house table"
    extra = ", ".join(f"{g} +{e}" for g, e in zip(("1st", "2nd", "3rd", "4th", "5th"), tables.special_extra) if e)
    return (
        "Gear: the car's gear marker stands on the gear it drives this turn. Shift one gear at a time "
        "(the R.P.M. card: once a race, two down). Start, and drive on after going off the road or a "
        "mechanic's stop, in 1st.",
        f"Spaces moved, minimum-maximum, by assistance: P permanent, R rapid, N normal ({source}); "
        f"special races add to the maximum: {extra}.",
        "Halt: damage of the 1st, 2nd or 3rd degree puts the halt marker on 1, 2 or 3 (a tyre change "
        "with a repair: one more). At each of its turns a halted car moves the marker one cell right "
        "instead of driving; "
        "moved off the 1, the car drives on in 1st. Tail spin (tc): no turn lost. Eliminated (e): out.",
    )


def draw_trackers(sheet: Sheet, title: str, tables: Tables, page: int, pages: int) -> None:
    """The gear simulators' page; then ``sheet.end_page()``."""
    top = _kit_header(sheet, title, page, pages)
    heading = "Gear simulators: a strip per car, for its gear and the turns it stands at a halt"
    width = sheet.right - sheet.left
    heading_size = fit_size(sheet, heading, width, sheet.t.sizes["body"], True)
    sheet.text(sheet.left, top - 10 * MM, heading, size=heading_size, bold=True)
    size = sheet.t.sizes["small"]
    y = top - 14 * MM
    for paragraph in tracker_notes(tables):
        for line in wrap(sheet, paragraph, width, size):
            sheet.text(sheet.left, y, line, size=size)
            y -= size * 1.25
    header = (top - y) / MM + 1.0  # the strips start below the notes
    strips = tracker_layout(sheet.width / MM, sheet.height / MM, sheet.margin / MM, header=header)
    thin = sheet.ink.thin_width
    for strip in strips:
        bx, by, bw, bh = (v * MM for v in strip.band)
        r = 5 * MM
        draw_car_pattern(sheet, strip.car, bx, by, bw, bh, hole=(bx + bw / 2, by + bh / 2, r + 0.6 * MM))
        _number(sheet, bx + bw / 2, by + bh / 2, r, str(strip.car), 13.0)
        sheet.box(bx, by, bw, bh, width=sheet.ink.line_width)
        for cell in strip.gears:
            x, y, w, h = cell.x * MM, cell.y * MM, cell.w * MM, cell.h * MM
            sheet.box(x, y, w, h, width=sheet.ink.line_width)
            sheet.text(x + w / 2, y + h - 3.9 * MM, cell.label, bold=True, size=9.0, align="center")
            _spot(sheet, cell.spot)
            gear = int(cell.label[0])
            ly = y + (cell.spot[1] - cell.y) * MM - 3.2 * MM
            for assistance, letter in ASSISTANCE_LETTERS.items():
                lo, hi = tables.gear_range(gear, assistance)
                moves = f"{lo}" if lo == hi else f"{lo}\u2013{hi}"
                sheet.text(x + w / 2, ly, f"{letter} {moves}", size=6.5, align="center")
                ly -= 2.9 * MM
        for cell in strip.halts:
            x, y, w, h = cell.x * MM, cell.y * MM, cell.w * MM, cell.h * MM
            sheet.box(x, y, w, h, width=sheet.ink.line_width)
            sheet.text(x + w / 2, y + h - 3.9 * MM, cell.label, bold=True, size=9.0, align="center")
            _spot(sheet, cell.spot)
            words = {"1": ("halt", "1 turn"), "out": ("eliminated", "")}.get(
                cell.label, ("halt", f"{cell.label} turns")
            )
            ly = y + (cell.spot[1] - cell.y) * MM - 3.2 * MM
            for word in words:
                sheet.text(x + w / 2, ly, word, size=6.0, align="center")
                ly -= 2.7 * MM
        for piece in strip.markers:
            x, y, w, h = piece.x * MM, piece.y * MM, piece.w * MM, piece.h * MM
            band = h * 0.36
            draw_car_pattern(sheet, piece.car, x, y + h - band, w, band)
            sheet.stroke(width=thin)
            sheet.c.line(x, y + h - band, x + w, y + h - band)
            centred(sheet, x + w / 2, y + (h - band) * 0.64, str(piece.car), 8.5, bold=True)
            word = "gear" if piece.kind == "gear marker" else "halt"
            centred(sheet, x + w / 2, y + (h - band) * 0.22, word, 6.0)
            sheet.box(x, y, w, h, width=thin)
    sheet.scale_bar(sheet.left, sheet.bottom + 1.5 * MM)
    sheet.end_page("kit")


def _spot(sheet: Sheet, at: tuple[float, float]) -> None:
    """The dashed square a marker goes on."""
    sheet.stroke(width=sheet.ink.thin_width, dash=(1.5, 1.5))
    side = TRACK_SPOT_MM * MM
    sheet.c.rect(at[0] * MM, at[1] * MM, side, side, stroke=1, fill=0)
    sheet.stroke(width=sheet.ink.thin_width)
