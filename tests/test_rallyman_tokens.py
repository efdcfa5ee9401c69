"""Rekee's tokens as the rulebooks read them (tokens.py, ruling RM-17): which spaces a token
lies on, what each kind with a rule does to the track and to its par, and the warning and
marker of a token no rulebook has a rule for.

The tracks are three of sheetgen's original tiles in a row heading east (tests use no
official tile): a start tile at tile (0, 0), the tile carrying the token at (1, 0), centred on
cell (4, 0), and a finish tile at (2, 0). The straight sg-s2 has lane 1 on row 0 (frame cells
(-2, 0) to (2, 0)) and lane 2 on row 1 ((-2, 1) to (1, 1))."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from sheetgen.errors import SpecError
from sheetgen.games.rallyman import rules, solve, solve_dirt
from sheetgen.games.rallyman import rules_dirt as rd
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.model import Cell, Token, Variant
from sheetgen.games.rallyman.ruleset import default
from sheetgen.games.rallyman.tokens import parse, road_cells, rule
from sheetgen.registry import load_spec

BUNDLED = Path(__file__).resolve().parent.parent / "track_specs" / "rallyman"


def straight() -> list[Cell]:
    """sg-s2 in its own frame: lane 1 on row 0, lane 2 on row 1, heading east."""
    return [Cell(Hex(q, 0), 0, 1) for q in range(-2, 3)] + [Cell(Hex(q, 1), 0, 2) for q in range(-2, 2)]


def test_a_road_token_lies_on_the_space_nearest_its_centre_in_each_lane():
    """Worked by hand in the unit layout (x = sqrt(3) (q + r/2), y = 3/2 r; the frame point of
    a token is (4q, 4r) in the standard frame, its picture 2 cell radii across its direction
    and 1.4 along it)."""
    cells = straight()
    # at the tile's centre: lane 1's (0, 0) under it; lane 2's (-1, 1) and (0, 1) are equally
    # near (sqrt 3), and the one further back along the road, (-1, 1), is taken; its centre
    # (-0.87, 1.5) lies 0.53 from the picture (|x| <= 0.7, |y| <= 1)
    assert [c.hex for c in road_cells(Token("water", 0.0, 0.0, 0.0), cells, 4)] == [Hex(0, 0), Hex(-1, 1)]
    # q 0.4: the centre (2.77, 0) is nearest (2, 0) (the half cell at x 3.46) and (1, 1) at (2.6, 1.5)
    assert [c.hex for c in road_cells(Token("water", 0.4, 0.0, 3.0), cells, 4)] == [Hex(2, 0), Hex(1, 1)]
    # turned along the road (dir 1.5: the picture 2 long along the road, 1.4 across it), lane 2
    # is 0.8 from it, still within a cell
    assert [c.hex for c in road_cells(Token("water", 0.0, 0.0, 1.5), cells, 4)] == [Hex(0, 0), Hex(-1, 1)]
    # beside the road, above row 0 (its centre 2.7 above it): no lane within a cell of it
    assert road_cells(Token("water", 0.45, -0.45, 0.0), cells, 4) == ()
    # driven the other way (headings west, row 1 now lane 1) the tie goes to the other space,
    # (0, 1): further back along the road heading west
    west = [Cell(c.hex, 3, 3 - c.lane) for c in cells]
    assert [c.hex for c in road_cells(Token("water", 0.0, 0.0, 0.0), west, 4)] == [Hex(0, 1), Hex(0, 0)]
    # the large frame: the tile grid is the cells' scaled by 7; q 0.25 is the frame point
    # (1.75, 0), x 3.03: nearest (2, 0) at 3.46
    assert [c.hex for c in road_cells(Token("jump", 0.25, 0.0, 0.0), cells, 7)] == [Hex(2, 0), Hex(1, 1)]


def test_token_kinds_are_read_as_rekee_reads_them_and_ruled_by_variant():
    assert parse("Chicane Limit Gravel").name == "chicane-limit" and parse("OXYGEN-2").number == 2
    assert parse("mud-spray").name == "mud-spray" and parse("banana") is None
    assert [rule(t, Variant.GT) is not None for t in ("chicane-limit-asphalt", "jump", "water-snow", "mud-spray")] == [True, False, False, False]
    assert [rule(t, Variant.DIRT).effect for t in ("chicane-limit", "jump-gravel", "water", "mud-spray")] == [
        "corner limit 2",
        "jump of gear 4",
        "water hazard",
        "every corner limit of its tile 1 lower",
    ]
    assert [rule(t, Variant.DIRT) for t in ("chicane-gravel", "cloud", "oxygen-1", "climb-ascent", "joker-exit", "finish", "banana")] == [None] * 7


# --------------------------------------------------------------------------- tracks and their par


@pytest.fixture
def lib(tmp_path):
    shutil.copy(BUNDLED / "tiles.yaml", tmp_path / "tiles.yaml")
    return tmp_path


def track(lib: Path, variant: str, middle: str, tokens: str = "", after: str = "", name: str = "t.yaml"):
    prefix = "sg-d-" if variant == "dirt" else "sg-"
    tokens = f", tokens: [{tokens}]" if tokens else ""
    after = after or f"  - {{id: {prefix}finish2, q: 2, r: 0}}\n"
    text = (
        f"game: rallyman\nvariant: {variant}\nname: tokens\nlibrary: tiles.yaml\ntiles:\n"
        f"  - {{id: {prefix}start2, q: 0, r: 0}}\n  - {{id: {middle}, q: 1, r: 0{tokens}}}\n{after}"
    )
    (lib / name).write_text(text, encoding="utf-8")
    return load_spec(lib / name).model


def gt_par(t) -> float:
    return solve.par(rules.stage_of(t, default("gt"), damage=False)).time


_DIRT_PARS: dict = {}


def dirt_par(t) -> float:
    """The DIRT par (a few seconds each: the plain track of several tests solved once a process)."""
    key = (t.cells, t.laps)
    if key not in _DIRT_PARS:
        _DIRT_PARS[key] = solve_dirt.par(rd.DirtStage(t, default("dirt"), damage=False)).time
    return _DIRT_PARS[key]


def changed(before, after) -> dict:
    """{cell: (before, after)} of the cells that differ (but for the placement they lie on)."""
    old = {c.hex: c for c in before.cells}
    return {c.hex: (old[c.hex], c) for c in after.cells if old[c.hex] != c}


def test_a_chicane_with_limit_makes_corner_spaces_of_limit_2_and_slows_the_gt_par(lib):
    plain = track(lib, "gt", "sg-s2")
    chicane = track(lib, "gt", "sg-s2", "{id: chicane-limit-asphalt, q: 0.0, r: 0.0, dir: 0.0}")
    diff = changed(plain, chicane)
    assert sorted(diff) == [Hex(3, 1), Hex(4, 0)]  # the frame's (0, 0) and (-1, 1) on tile (1, 0)
    assert all(new.limit == 2 and old.limit is None for old, new in diff.values())
    # the roadbook names it: a corner across both lanes, limit 2 in each, the road straight
    (note,) = [n for n in chicane.notes() if n.kind == "corner"]
    assert (note.corner.turn, note.corner.limits) == ("straight", ((1, 2), (2, 2)))
    assert not plain.corners()
    # a limit only takes plans away: the par is slower
    assert gt_par(chicane) > gt_par(plain)


def test_a_chicane_with_limit_keeps_a_lower_limit_already_there(lib):
    """On the hairpin, a token centred on the frame's (-1, 0), a corner space of limit 1 in
    lane 1, keeps its 1. In lane 2, (-2, 1), (-1, 1) and (0, 0) are equally near it (sqrt 3);
    (-2, 1), heading east at x -2.6, lies furthest back along its heading, and takes the 2."""
    hairpin = track(lib, "gt", "sg-hairpin-l", "{id: chicane-limit, q: -0.25, r: 0.0, dir: 0.0}", "# (no finish)\n")
    (token,) = hairpin.placements[1].tokens
    assert token.cells == (Hex(3, 0), Hex(2, 1))
    assert (hairpin.cell(Hex(3, 0)).limit, hairpin.cell(Hex(2, 1)).limit) == (1, 2)


def test_a_jump_token_makes_jumps_of_gear_4_and_changes_the_dirt_par(lib):
    plain = track(lib, "dirt", "sg-d-s2")
    jump = track(lib, "dirt", "sg-d-s2", "{id: jump-gravel, q: 0.0, r: 0.0, dir: 0.0}")
    diff = changed(plain, jump)
    assert sorted(diff) == [Hex(3, 1), Hex(4, 0)] and all(new.jump == 4 for _old, new in diff.values())
    assert [(n.kind, n.value) for n in jump.notes()] == [("jump", 4)]
    assert dirt_par(jump) != dirt_par(plain)


def test_a_water_token_makes_water_hazards_and_slows_the_dirt_par(lib):
    plain = track(lib, "dirt", "sg-d-s2")
    water = track(lib, "dirt", "sg-d-s2", "{id: water-gravel, q: 0.0, r: 0.0, dir: 0.0}")
    diff = changed(plain, water)
    assert sorted(diff) == [Hex(3, 1), Hex(4, 0)] and all(new.water for _old, new in diff.values())
    assert [n.kind for n in water.notes()] == ["water"]
    # water only stops moves (RD-10): the par is slower
    assert dirt_par(water) > dirt_par(plain)


def test_a_mud_spray_lowers_every_corner_limit_of_its_tile(lib):
    """sg-d-c60r: lane 1's corner spaces limit 5, lane 2's limit 3; the road leaves by the
    south-east side, on to a straight and the finish turned once."""
    after = "  - {id: sg-d-s2, q: 1, r: 1, rotation: 1}\n  - {id: sg-d-finish2, q: 1, r: 2, rotation: 1}\n"
    plain = track(lib, "dirt", "sg-d-c60r", after=after)
    mud = track(lib, "dirt", "sg-d-c60r", "{id: mud-spray, q: 0.3, r: -0.3, dir: 2.0}", after)
    diff = changed(plain, mud)
    assert {h: (old.limit, new.limit) for h, (old, new) in diff.items()} == {
        Hex(4, 0): (5, 4),
        Hex(4, 1): (5, 4),
        Hex(3, 1): (3, 2),
        Hex(3, 2): (3, 2),
    }


@pytest.mark.slow  # two DIRT pars of a four-tile track (5 s); the jump and water tokens' pars are in the default suite
def test_a_mud_spray_slows_the_dirt_par(lib):
    after = "  - {id: sg-d-s2, q: 1, r: 1, rotation: 1}\n  - {id: sg-d-finish2, q: 1, r: 2, rotation: 1}\n"
    plain = track(lib, "dirt", "sg-d-c60r", after=after)
    mud = track(lib, "dirt", "sg-d-c60r", "{id: mud-spray, q: 0.3, r: -0.3, dir: 2.0}", after)
    assert dirt_par(mud) > dirt_par(plain)


def test_a_token_no_rulebook_reads_changes_nothing_is_warned_once_and_drawn(run, lib):
    """A chicane without a limit (no rulebook has a chicane) and a jump on a GT track (the GT
    rulebook has no jumps): the cells and the par are those without them, and validate says
    each kind once, at its first token."""
    plain = track(lib, "dirt", "sg-d-s2")
    marked = track(
        lib,
        "dirt",
        "sg-d-s2",
        "{id: chicane-gravel, q: 0.0, r: 0.0, dir: 0.0}, {id: chicane-gravel, q: 0.3, r: 0.0, dir: 0.0}, {id: oxygen-2, q: 0.2, r: 0.3, dir: 0.0}",
        name="marked.yaml",
    )
    assert marked.cells == plain.cells and dirt_par(marked) == dirt_par(plain)
    assert [t.effect for t in marked.placements[1].tokens] == [None, None, None]
    result = run("validate", str(lib / "marked.yaml"))
    assert result.exit_code == 0
    spec = lib / "marked.yaml"
    assert result.stderr.splitlines() == [
        f"{spec}:7:45: warning: token 'chicane-gravel' (and 1 more of its kind), the DIRT Copilot Pack's chicane without a "
        "limit: no rule of the Rallyman DIRT rulebook reads it; kept for export and drawn as a marker, it changes nothing on "
        "the track",
        f"{spec}:7:141: warning: token 'oxygen-2', the DIRT Climb expansion's oxygen: no rule of the Rallyman DIRT rulebook "
        "reads it; kept for export and drawn as a marker, it changes nothing on the track",
    ]
    gt = track(lib, "gt", "sg-s2", "{id: jump-asphalt, q: 0.0, r: 0.0, dir: 0.0}", name="gt.yaml")
    assert all(c.jump is None for c in gt.cells)
    result = run("validate", "--format", "json", str(lib / "gt.yaml"))
    assert result.exit_code == 0 and '"line": 7' in result.stdout
    assert "the Rallyman GT rulebook has no jump (a Rallyman DIRT rule)" in result.stdout
    # the map draws its marker: a T in a dashed circle with the token's id, and the key says so
    pdf = lib / "marked.pdf"
    assert run("render", str(lib / "marked.yaml"), "-o", str(pdf)).exit_code == 0
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.read_bytes())).pages)
    assert text.count("T\nchicane-gravel") >= 2 and "T\noxygen-2" in text  # (one in the band two pages share)
    assert "T in a dashed circle: a Rekee token no rulebook has a rule for (it changes nothing)" in text


def test_the_features_of_tokens_are_drawn_on_the_map(run, lib):
    track(lib, "dirt", "sg-d-s2", "{id: jump-gravel, q: 0.0, r: 0.0, dir: 0.0}", name="jump.yaml")
    pdf = lib / "jump.pdf"
    assert run("render", str(lib / "jump.yaml"), "-o", str(pdf)).exit_code == 0
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf.read_bytes())).pages]
    # both spaces, a 4 in a square over JUMP, on the map pages (pages 2 and 3)
    assert [p.count("4\nJUMP") for p in pages[1:3]] == [2, 2]
    assert "JUMP: its gear in a square" in pages[0]
    roadbook = pages[3]
    assert "jump, gear 4\nlanes 1, 2, 1 space long\ngear 3 or lower: a normal space" in roadbook


def test_a_token_that_cannot_have_its_effect_is_refused_at_its_place(run, lib, tmp_path):
    cases = {
        # beside the road: no lane within a cell of its picture
        "{id: water, q: 0.45, r: -0.45, dir: 0.0}": (
            "7:40: error: token 'water' (water hazard) at q 0.45, r -0.45 of tile 'sg-d-s2' lies on no space of its "
            "road: its centre is the point (1.56, -2.70) of the tile's frame, and no lane has a space within a cell of "
            "its picture (ruling RM-17)"
        ),
    }
    for tokens, message in cases.items():
        with pytest.raises(SpecError):
            track(lib, "dirt", "sg-d-s2", tokens)
        result = run("validate", str(lib / "t.yaml"))
        assert (result.exit_code, result.stderr) == (1, f"{lib / 't.yaml'}:{message}\n")
    # a limit on a pit-lane edge space (sg-pit2's lane 2, frame (-1, 1))
    with pytest.raises(SpecError):
        track(lib, "gt", "sg-pit2", "{id: chicane-limit, q: 0.0, r: 0.0, dir: 0.0}")
    result = run("validate", str(lib / "t.yaml"))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{lib / 't.yaml'}:7:40: error: token 'chicane-limit' (corner limit 2) lies on cell (3, 1), a pit-lane edge "
        "space, which is never a corner space\n",
    )
    # mud below limit 1: a library tile of the test with a corner of limit 1
    (tmp_path / "tiles.yaml").write_text(
        (BUNDLED / "tiles.yaml").read_text(encoding="utf-8").replace(
            "{q: 0, r: 0, heading: 1, lane: 1, limit: 5}", "{q: 0, r: 0, heading: 1, lane: 1, limit: 1}"
        ),
        encoding="utf-8",
    )
    with pytest.raises(SpecError):
        track(lib, "dirt", "sg-d-c60r", "{id: mud-spray, q: 0.3, r: -0.3, dir: 2.0}")
    result = run("validate", str(lib / "t.yaml"))
    assert (result.exit_code, result.stderr) == (
        1,
        f"{lib / 't.yaml'}:7:42: error: token 'mud-spray' lowers every corner limit of tile 'sg-d-c60r' by 1, and the "
        "limit 1 of cell (4, 0) would go below 1: a space no gear may enter (lay it on a tile whose corner limits are "
        "all 2 or more)\n",
    )


# --------------------------------------------------------------------------- Rekee's files


def test_a_rekee_file_s_tokens_are_read_and_those_without_a_rule_warned_at_their_place(run, tmp_path):
    """The round-trip track (a GT track of a made-up box): its chicane with limit makes the
    corner tile's spaces nearest the tile's centre limit 2; its water has no GT rule."""
    data = Path(__file__).resolve().parent / "data" / "rallyman"
    shutil.copy(data / "box.yaml", tmp_path / "box.yaml")
    shutil.copy(data / "track.json", tmp_path / "track.json")
    spec = tmp_path / "track.yaml"
    result = run("import", "rekee", str(tmp_path / "track.json"), "--tiles", str(tmp_path / "box.yaml"), "-o", str(spec))
    assert (result.exit_code, result.stderr) == (
        0,
        f"{tmp_path / 'track.json'}:23:22: warning: token 'water-gravel', the DIRT Copilot Pack's water: the Rallyman GT "
        "rulebook has no water (a Rallyman DIRT rule); kept for export and drawn as a marker, it changes nothing on the "
        "track\n",
    )
    corner = load_spec(spec).model.placements[1]
    # 903b-1 at tile (1, 0): the frame's (0, 0) (lane 1, limit 4) and (-1, 1) (lane 2, limit 3)
    assert [(c.hex, c.lane, c.limit) for c in corner.cells if c.limit is not None] == [
        (Hex(4, 0), 1, 2),
        (Hex(4, 1), 1, 4),
        (Hex(3, 1), 2, 2),
        (Hex(3, 2), 2, 3),
    ]
    # RGT names the token by its own id, and the warning says both
    rgt = tmp_path / "track.rgt"
    assert run("export", "rekee", str(spec), "--format", "rgt", "-o", str(rgt)).exit_code == 0
    result = run("import", "rekee", str(rgt), "--tiles", str(tmp_path / "box.yaml"), "-o", str(tmp_path / "again.yaml"))
    assert result.exit_code == 0
    assert ": warning: token 'dirt3' (Rekee's 'water-gravel'), the DIRT Copilot Pack's water:" in result.stderr
