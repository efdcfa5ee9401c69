"""Rallyman's time sheets and dashboard reference cards, read back from the PDF: the values
printed are the ruleset's (a spec's `ruleset:` shows), the odds table's figures are the exact
odds (hand-computed where they can be), house values are marked when the spec gives none and
not when it gives its own, the par is printed when it is worked out and left as a field when
not, and the rows leave room for a pencil. Margins and low ink of these page kinds are in
tests/test_render_rallyman.py and tests/test_ink.py; their pages in the build goldens."""

from __future__ import annotations

import pytest

from conftest import SPECS
from pdfgeom import MM, read_pages
from sheetgen.games.rallyman import cards
from sheetgen.games.rallyman.figures import track_figures
from sheetgen.games.rallyman.odds import CARD_PLANS, odds
from sheetgen.registry import load_spec
from sheetgen.render import build_outputs
from sheetgen.render.rallyman.dashboard import DIRT_PLANS

# Three cells straight ahead, one lane (test_rallyman_rules.py's tiny track): par = safe =
# 40 s in one turn (gear 1 then gear 2, two dice cannot show three cautions).
GT_STRAIGHT = """\
game: rallyman
variant: gt
name: Three Cells
cells:
  - {q: 0, r: 0, heading: 0, lane: 1, start: true}
  - {q: 1, r: 0, heading: 0, lane: 1}
  - {q: 2, r: 0, heading: 0, lane: 1, finish: true}
"""

# the same with values of a user's own: gear 3 with one caution face, a turn in gear 2 35 s,
# no damage token in gear 5 on a yellow tile
GT_OWN = GT_STRAIGHT.replace("Three Cells", "Own Values") + """\
ruleset:
  dice:
    "3": {cautions: 1}
  time_per_turn: {"2": 35}
  loss_of_control:
    damage:
      "5": {yellow: 0}
"""

DIRT_STRIP = """\
game: rallyman
variant: dirt
name: Dirt Strip
surface: gravel
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments:
    - straight 3
    - corner left limit 2/4
    - straight 4
"""

OWN_CARDS = """\
ruleset:
  time_cards:
    loss_seconds: 90
    gears:
      "1": {seconds: 65, sisu: 1, spin: 1, crash: 1}
      "2": {seconds: 55, sisu: 1, spin: 1, crash: 1}
      "3": {seconds: 45, sisu: 1, spin: 1, crash: 1}
      "4": {seconds: 35, sisu: 1, spin: 1, crash: 1}
      "5": {seconds: 25, sisu: 1, spin: 1, crash: 1}
      "6": {seconds: 12, sisu: 1, spin: 1, crash: 1}
"""


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sheets")
    texts = {"gt": GT_STRAIGHT, "gt_own": GT_OWN, "dirt": DIRT_STRIP, "dirt_own": DIRT_STRIP.replace("Dirt Strip", "Own Cards") + OWN_CARDS}
    for name, text in texts.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return {name: load_spec(folder / f"{name}.yaml") for name in texts}


_pdfs: dict = {}


def pages_of(specs, name: str, paper: str = "a4"):
    key = (name, paper)
    if key not in _pdfs:
        _pdfs[key] = read_pages(build_outputs(specs[name], paper=paper)[0])
    return _pdfs[key]


def page_with(pages, words: str):
    found = [p for p in pages if any(words in t.value for t in p.texts)]
    assert found, words
    return found[0]


def text_of(page) -> str:
    return "\n".join(t.value for t in page.texts)


def rows(page, x0: float = 0.0, x1: float = 1e9) -> list[list[str]]:
    """The page's text runs between x0 and x1 (points) in lines (the middle of their capitals
    within 0.6 pt: a table row's cells, whatever their size), top to bottom, each line left to
    right."""
    found: dict[float, list] = {}
    for t in page.texts:
        if x0 <= t.x < x1:
            middle = t.y + 0.729 * t.size / 2
            key = next((y for y in found if abs(y - middle) < 0.6), middle)
            found.setdefault(key, []).append(t)
    return [[t.value for t in sorted(found[y], key=lambda t: t.x)] for y in sorted(found, reverse=True)]


# --------------------------------------------------------------------------- GT time sheet


def test_gt_time_sheet_prints_the_time_key_and_the_par_worked_out_by_hand(specs):
    page = page_with(pages_of(specs, "gt"), "Rallyman GT time sheet")
    text = text_of(page)
    assert "Three Cells: time sheet" in text
    # the par and the safe route of three cells: 40 s, one turn (by hand, above)
    assert "40 s expected (1.0 turns, best plans, dice in plan order)" in text and "40 s in 1 turn" in text
    # the key: every gear a turn ends in and its seconds (RULINGS.md's hobby figures)
    key = next(r for r in rows(page) if r[0] == "gear at the end")
    secs = next(r for r in rows(page) if r[0] == "seconds")
    assert key[1:] == ["6", "5", "4", "3", "2", "1", "0", "00"]
    assert secs[1:] == ["10 s", "15 s", "20 s", "30 s", "40 s", "50 s", "60 s", "120 s"]
    assert "hobby figures (not in the rulebook)" in text
    assert "gear 3 or more ends the turn in gear 00 (120 s" in text


def test_gt_time_sheet_shows_the_specs_own_seconds(specs):
    page = page_with(pages_of(specs, "gt_own"), "Rallyman GT time sheet")
    secs = next(r for r in rows(page) if r[0] == "seconds")
    assert secs[1:] == ["10 s", "15 s", "20 s", "30 s", "35 s", "50 s", "60 s", "120 s"]
    text = text_of(page)
    assert "hobby figures (not in the rulebook), some replaced by the track spec" in text
    assert "35 s expected (1.0 turns" in text  # the par with the spec's gear-2 seconds


def test_gt_analyze_and_simulate_read_the_tracks_own_ruleset(run, write):
    """docs/rallyman_dirt.md said GT's analyze and simulate did not read a track's `ruleset:`
    (issue 34): they do. The three cells take gear 1 then gear 2, one turn: 40 s by the house
    values, 35 s by the spec's own time per turn in gear 2."""
    import json

    for text, seconds in ((GT_STRAIGHT, 40), (GT_OWN, 35)):
        path = write(text)
        data = json.loads(run("analyze", path, "--format", "json").stdout)
        assert (data["par"]["expected_seconds"], data["safe_route"]["seconds"]) == (seconds, seconds)
        assert f"car 1: dice 1,2; flat out; gear 2, {seconds} s, total 0:{seconds}" in run("simulate", path, "--seed", "1").stdout


def test_a_track_too_large_for_the_par_solve_leaves_a_par_field(monkeypatch):
    ring = load_spec(SPECS / "rallyman" / "gt_hexagon_ring.yaml")
    from sheetgen.games.rallyman import solve
    from sheetgen.games.rallyman.solve import too_large

    monkeypatch.setattr(solve, "MAX_PAR_SIZE", 200)  # the ring (90 cells x 3 laps) is too large then

    assert too_large(ring.model) is not None and track_figures(ring.model) is None
    pages = read_pages(build_outputs(ring)[0])
    sheets = [p for p in pages if any(t.value == "Rallyman GT time sheet" for t in p.texts)]
    text = text_of(sheets[0])
    assert "par:" in text and "expected" not in text and "your target:" in text
    # three laps: a lap column, and room for every turn at two spaces a turn: 43 x 3 / 2 = 65
    assert cards.distance(ring.model) == 129 and cards.turns_needed(ring.model) == 65
    heads = [t.value for t in sheets[0].texts]
    assert heads.count("lap") == 2  # one per block of rows
    # the turn numbers: bold numbers below the column heads
    numbers = {int(t.value) for p in sheets for t in p.texts if t.value.isdigit() and t.font.endswith("Bold") and t.y < next(h.y for h in p.texts if h.value == "turn")}
    assert set(range(1, 66)) <= numbers
    assert "turns 1-" in text_of(sheets[0]) and "carry on on the next page" in text_of(sheets[0])


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_time_sheet_rows_are_tall_enough_to_write_in(specs, paper):
    """Turn numbers are one row apart: 7 mm on GT's sheet, 6.5 mm on DIRT's."""
    for name, kind, row in (("gt", "Rallyman GT time sheet", 7.0), ("dirt", "Rallyman DIRT time sheet", 6.5)):
        page = page_with(pages_of(specs, name, paper), kind)
        ys: dict[int, float] = {}
        for t in page.texts:
            if t.value.isdigit() and t.font.endswith("Bold") and t.x < 20 * MM:  # the first column: 10 mm margin, 9 mm wide
                ys.setdefault(int(t.value), t.y)
        assert 1 in ys and 12 in ys
        assert (ys[1] - ys[2]) / MM == pytest.approx(row, abs=0.01)
        assert (ys[1] - ys[12]) / MM == pytest.approx(11 * row, abs=0.01)


def test_a_dirt_stage_of_25_turns_keeps_to_one_letter_sheet_with_rows_still_to_write_in():
    """The bundled Forest Stage needs 25 turns (49 spaces at two a turn): A4's page held 25
    rows of 6.5 mm, Letter's only 22, so its sheet ran onto a second page for three rows (both
    with the stage and rally totals). On Letter the rows close up to keep one sheet, never
    below 5.5 mm; on A4 too since the sheet tallies the damage kept (a line of tick boxes),
    less than Letter's."""
    track = load_spec(SPECS / "rallyman" / "dirt_forest_stage.yaml")
    assert cards.turns_needed(track.model) == 25
    gaps = {}
    for paper in ("a4", "letter"):
        sheets = [p for p in read_pages(build_outputs(track, paper=paper)[0]) if any("Rallyman DIRT time sheet" in t.value for t in p.texts)]
        assert len(sheets) == 1, paper
        ys: dict[int, float] = {}
        for t in sheets[0].texts:
            if t.value.isdigit() and t.font.endswith("Bold") and t.x < 20 * MM:
                ys.setdefault(int(t.value), t.y)
        assert sorted(ys) == list(range(1, 26)), paper
        gaps[paper] = (ys[1] - ys[25]) / 24 / MM
        assert 5.5 <= gaps[paper] <= 6.5, (paper, gaps[paper])
    assert gaps["a4"] > gaps["letter"] + 0.5  # Letter's page is 17.6 mm shorter


# --------------------------------------------------------------------------- DIRT time sheet


def test_dirt_time_sheet_house_values_are_marked_when_the_spec_gives_none(specs):
    page = page_with(pages_of(specs, "dirt"), "Rallyman DIRT time sheet")
    text = text_of(page)
    assert "HOUSE VALUES: the seconds of each gear's time card" in text
    card = next(r for r in rows(page) if r[0] == "time card of gear")
    secs = next(r for r in rows(page) if r[0] == "seconds")
    assert card[1:] == ["1", "2", "3", "4", "5", "6"]
    assert secs[1:] == ["50 s", "40 s", "30 s", "20 s", "15 s", "10 s"]  # RD-1's house values
    # three stages side by side, each with its total, and the rally total over them
    assert "stage 1: Dirt Strip" in text and "stage 2:" in text and "stage 3:" in text
    assert [v for v in text.split("\n") if v.startswith("stage ") and v.endswith(" time") or v == "stage 1 time (at the finish)"] == ["stage 1 time (at the finish)", "stage 2 time", "stage 3 time"]
    assert "Rally total:" in text and "rally total" in text
    assert text.count("SISU") >= 3 * cards.turns_needed(specs["dirt"].model)  # an icon to ring per turn and stage
    assert "time cards: house values" in text


def test_dirt_time_sheet_of_a_spec_with_its_own_cards_has_no_house_marker(specs):
    pages = pages_of(specs, "dirt_own")
    page = page_with(pages, "Rallyman DIRT time sheet")
    text = text_of(page)
    assert "HOUSE VALUES" not in text and "house values" not in text
    assert "Time cards: your own values (given in the track spec)." in text
    secs = next(r for r in rows(page) if r[0] == "seconds")
    assert secs[1:] == ["65 s", "55 s", "45 s", "35 s", "25 s", "12 s"]
    assert "Spin: 90 s" in text and "Crash: 90 s" in text
    # the dashboard card still marks the sections that are house values, not the time cards
    card = text_of(page_with(pages, "Rallyman DIRT dashboard reference card"))
    assert "HOUSE VALUES: dashboards, loss of control, damage bag (not in the rulebook" in card
    own = page_with(pages, "Rallyman DIRT dashboard reference card")
    table = rows(own, x0=own.width / 2)
    assert ["1", "65 s", "1", "1", "1", "3"] in table and ["6", "12 s", "1", "1", "1", "3"] in table


# --------------------------------------------------------------------------- dashboard card


def test_gt_dashboard_card_tables(specs):
    page = page_with(pages_of(specs, "gt"), "Rallyman GT dashboard reference card")
    left, right = rows(page, x1=page.width / 2), rows(page, x0=page.width / 2)
    # dice pools: the house dashboards (RG-6): GT6 on asphalt in the dry 3 coast, 2 brake
    assert ["GT6", "asphalt", "dry", "1-6", "3", "2", "0", "3"] in left
    assert ["GT5", "asphalt", "dry", "1-5", "3", "2", "1", "3"] in left
    assert ["GT4", "asphalt", "wet", "1-4", "1", "1", "2", "2"] in left
    assert ["gear 3-6 (black)", "one gear up or down", "2 of 6", "yes"] in left
    assert ["coast (white)", "keeps the gear", "1 of 6", "yes"] in left
    # focus: 1, then 2 more, then 3 more (RG-3)
    assert ["costs", "1", "2", "3", "4", "5"] in left and ["in all", "1", "3", "6", "10", "15"] in left
    # loss of control, RULINGS.md: (3,R)1 (4,O)1 (4,R)2 (5,Y)1 (5,O)2 (5,R)3 (6,Y)2 (6,O)3 (6,R)4
    assert ["gear", "yellow (low)", "orange (medium)", "red (high)", "ends in"] in right
    for row in (["1", "0", "0", "0", "gear 0"], ["3", "0", "0", "1", "gear 00"], ["5", "1", "2", "3", "gear 00"], ["6", "2", "3", "4", "gear 00"]):
        assert row in right
    # the bag: 42 tokens, 12 green flags
    assert ["12", "green flag: no damage"] in right and ["42", "in all, drawn without replacement"] in right
    text = text_of(page)
    assert "HOUSE VALUES: dashboards (not in the rulebook" in text


def test_gt_dashboard_card_shows_the_specs_own_values(specs):
    pages = pages_of(specs, "gt_own")
    page = page_with(pages, "Rallyman GT dashboard reference card")
    right = rows(page, x0=page.width / 2)
    assert ["5", "0", "2", "3", "gear 00"] in right  # the spec's gear 5 on yellow: no token
    assert ["s", "10", "15", "20", "30", "35", "50", "60", "120"] in right
    left = rows(page, x1=page.width / 2)
    assert ["gear 1-3 (black)", "one gear up or down", "1 of 6", "yes"] in left  # gear 3 joins 1 and 2
    assert ["gear 4-6 (black)", "one gear up or down", "2 of 6", "yes"] in left
    assert "rulebook values changed by the track spec" in text_of(page)
    # the odds follow the spec's dice: 3, 4, 5 flat out loses control with 1/6 x 1/3 x 1/3 = 1/54
    odds_page = page_with(pages, "Own Values: Rallyman GT odds")
    line = next(r for r in rows(odds_page) if r and r[0] == "3, 4, 5")
    assert line[1] == "1/54  (1.85%)"


def test_the_odds_table_prints_the_exact_odds(specs):
    """Every figure of the odds page is `sheetgen odds`'s; some by hand: three dice with two
    caution faces lose control flat out with (1/3)^3 = 1/27; gear 1, 2, 3 with 1/6 x 1/6 x
    1/3 = 1/108; one or two dice never (the limit is 3)."""
    from sheetgen.games.rallyman.ruleset import default

    for name, variant, plans in (("gt", "gt", CARD_PLANS), ("dirt", "dirt", DIRT_PLANS)):
        page = page_with(pages_of(specs, name), f"Rallyman {variant.upper()} odds")
        table = {r[0]: r[1:] for r in rows(page) if len(r) == 6 and ", " in r[0]}
        assert len(table) == len(plans)
        ruleset = default(variant)
        for plan in plans:
            printed = table[plan.replace(",", ", ")]
            got = [odds(ruleset, plan, 0, f) for f in (0, 1, 2, 3)]
            flat = got[0]["flat_out"]["lose_control"].removesuffix("/1")
            assert printed[0].startswith(flat + "  ("), (plan, printed)
            for f, data in enumerate(got):
                assert printed[1 + f].startswith(data["one_at_a_time"]["complete"].removesuffix("/1") + "  ("), (plan, f)
        assert table["4, 5, 6"][0] == "1/27  (3.70%)"
        assert table["1, 2, 3"][0] == "1/108  (0.93%)"
        text = [t.value for t in page.texts]
        # the grid by dice: 3 dice, all with two caution faces: 1/27, 3.70%
        at = text.index("3 dice")
        assert text[at + 1 : at + 9] == ["1/216", "0.46%", "1/108", "0.93%", "1/54", "1.85%", "1/27", "3.70%"]
        assert text[text.index("1 die") + 1 : text.index("1 die") + 5] == ["0", "0.00%", "0", "0.00%"]


def test_dirt_card_time_cards_dice_and_tokens(specs):
    page = page_with(pages_of(specs, "dirt"), "Rallyman DIRT dashboard reference card")
    left, right = rows(page, x1=page.width / 2), rows(page, x0=page.width / 2)
    assert ["leader (orange)", "keeps the gear", "2 of 6", "yes"] in left
    assert ["brake (red)", "skips a gear down", "2 of 6", "no"] in left
    assert ["R5", "gravel", "dry", "1-6", "2", "1", "2", "1", "3"] in left
    # time cards (RD-1): seconds and each deck's 2 SISU, 3 Spin, 5 Crash of 10
    assert ["gear", "seconds", "SISU", "Spin", "Crash", "cards"] in right
    assert ["1", "50 s", "2", "3", "5", "10"] in right and ["6", "10 s", "2", "3", "5", "10"] in right
    # the bag (RD-4): 12 of each kind, shortcut sides 6 OK, 3 coast die, 3 mud
    assert ["12", "green flag", "6", "3", "3"] in right and ["48", "in all", "24", "12", "12"] in right
    text = text_of(page)
    assert "Only the first player of a round uses the orange leader die." in text
    assert "HOUSE VALUES (not in the rulebook or any public source)" in text


def test_the_par_is_kept_per_track_and_ruleset(specs):
    """Tracks compare equal whatever their ruleset: the par kept for one is not another's."""
    from dataclasses import replace

    from sheetgen.games.rallyman.ruleset import ruleset_from_mapping

    track = specs["gt"].model
    own = replace(track, ruleset=ruleset_from_mapping({"time_per_turn": {"2": 35}}, "gt"))
    assert own == track
    mine, theirs = track_figures(track), track_figures(own)
    assert mine is not None and theirs is not None
    assert mine["par_seconds"] == pytest.approx(40.0) and mine["safe_seconds"] == 40
    assert theirs["par_seconds"] == pytest.approx(35.0) and theirs["safe_seconds"] == 35


@pytest.mark.parametrize("paper", [pytest.param("a4"), pytest.param("letter", marks=pytest.mark.slow)])  # (Letter under -m slow)
def test_the_overviews_page_labels_never_cover_a_start_or_finish_letter_nor_each_other(paper):
    """The assembly page tells where the start and the finish are: a page's big label ("A3")
    was drawn over an S or an F (Forest Stage's A3 and B3, Col Sprint's D2, D1 and A4); now it
    moves along its page's top, then its bottom, to a free place."""
    import re

    for name in ("dirt_forest_stage", "gt_col_sprint", "compact_hillclimb"):
        page = read_pages(build_outputs(load_spec(SPECS / "rallyman" / f"{name}.yaml"), paper=paper)[0])[0]
        labels = [t.ink_box() for t in page.texts if re.fullmatch(r"[A-Z][0-9]+", t.value) and t.font.endswith("Bold") and t.size > 8]
        letters = [t.ink_box() for t in page.texts if t.value in ("S", "F") and t.font.endswith("Bold")]
        assert labels and letters, name

        def meet(a, b):
            return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

        assert not [(a, b) for a in labels for b in letters if meet(a, b)], name
        assert not [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :] if meet(a, b)], name


def test_a_track_laid_far_apart_prints_only_its_pages(write, monkeypatch):
    """One space at (1000, 500) put the map on a grid of 229 x 54 pages: the planner tested
    every page against every space, fifty times (1 GB, minutes), and the overview outlined
    every blank page. Each space now finds its own pages (a space wholly inside one page's
    share of the plane is tested against no page at all, one across a cut line against the
    few pages round it); the overview outlines the blank pages of a small grid only."""
    from sheetgen.render.rallyman import track_map
    from sheetgen.template import load_template

    tiny = (SPECS / "rallyman" / "tiny.yaml").read_text(encoding="utf-8")
    spec = load_spec(write(tiny + "  - {q: 1000, r: 500, heading: 0, lane: 1}\n"))
    plan = track_map.map_plan(spec.model, load_template("rallyman"))
    assert plan.cols * plan.rows > 10_000 and len(plan.printed()) == 2
    tested = []
    overlaps = track_map._overlaps

    def counted(*args):
        tested.append(args)
        return overlaps(*args)

    monkeypatch.setattr(track_map, "_overlaps", counted)
    track_map.map_plan(spec.model, load_template("rallyman"))
    # at most the four pages round a corner of the cut lines, per space and plan (50 plans)
    assert len(tested) <= 4 * 50 * len(spec.model.cells)
    pages = read_pages(build_outputs(spec)[0])
    assert not any(t.value.startswith("blank") for p in pages for t in p.texts)
