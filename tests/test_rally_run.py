"""Rally Run!: the spec and its exact error lines, the board graph on hand-built boards, every
ruling of the engine (RN-* in docs/rulings.md), seeded simulation, the analysis's keys, the
printed tiles' size and duplex positions read back from the PDF, and the generator."""

from __future__ import annotations

import io
import itertools
import json
import math
import re
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SPECS
from sheetgen.games.rally_run.graph import board_of, reachability
from sheetgen.games.rally_run.report import (
    FIRST_GAMES_TURN_LIMIT,
    SEAT_BATCH,
    SEAT_TURN_BUDGET,
    analyze_set,
    format_analysis_text,
    ranked,
    wilson,
)
from sheetgen.games.rally_run.rules import (
    DOWN,
    REVEAL,
    ROTATE,
    TROPHY,
    Flip,
    Move,
    Pass,
    RulesError,
    RunState,
    Show,
    Swap,
    Turn,
)
from sheetgen.games.rally_run.simulate import play, position
from sheetgen.registry import spec_of
from sheetgen.yamlsrc import load_text

HOUSE = SPECS / "rally_run" / "house_set.yaml"
N, E, S, W = range(4)

CORNERS = """\
start_finish:
  - {corner: NW, colour: red}
  - {corner: NE, colour: blue}
  - {corner: SE, colour: green}
  - {corner: SW, colour: yellow}
trophies:
  - {colour: red}
  - {colour: blue}
  - {colour: green}
  - {colour: yellow}
"""


def small_set(tiles: str, board: str = "") -> str:
    """A 3x3 set (8 road tiles around the pit stop)."""
    return f"game: rally_run\nname: Small\nsize: 3\ntiles:\n{tiles}{CORNERS}{board}"


def load(text: str):
    return spec_of(load_text(text, "set.yaml")).model


def cell(r: int, c: int, size: int = 3) -> int:
    return r * size + c


# 3x3, every road tile a crossing but for the NW corner (a curve) and its two neighbours
# (dead ends): the NW start is sealed off, and no car reaches it as a finish
SEALED_TILES = "  - {name: cross, openings: NESW, count: 5}\n  - {name: dead, openings: N, count: 2}\n  - {name: bend, openings: NE, count: 1}\n"
SEALED_BOARD = """\
board:
  - {row: 1, column: 1, tile: bend}
  - {row: 1, column: 2, tile: dead}
  - {row: 1, column: 3, tile: cross}
  - {row: 2, column: 1, tile: dead}
  - {row: 2, column: 3, tile: cross}
  - {row: 3, column: 1, tile: cross}
  - {row: 3, column: 2, tile: cross}
  - {row: 3, column: 3, tile: cross}
"""
OPEN_TILES = "  - {name: cross, openings: NESW, count: 4}\n  - {name: bend, openings: NE, count: 4}\n"
OPEN_BOARD = """\
board:
  - {row: 1, column: 1, tile: bend}
  - {row: 1, column: 2, tile: cross}
  - {row: 1, column: 3, tile: bend}
  - {row: 2, column: 1, tile: cross}
  - {row: 2, column: 3, tile: cross}
  - {row: 3, column: 1, tile: bend}
  - {row: 3, column: 2, tile: cross}
  - {row: 3, column: 3, tile: bend}
"""


# --------------------------------------------------------------------------- the spec

GOOD = HOUSE.read_text(encoding="utf-8")

CASES = [
    ("counts do not fill the grid", GOOD.replace("openings: NS, count: 6", "openings: NS, count: 5"),
     [(10, 1, "the tile counts add up to 23; a 5x5 grid around the pit stop needs 24 road tiles")]),
    ("a trophy without its start-finish", GOOD.replace("  - {colour: yellow, name: Yellow trophy}", "  - {colour: purple, name: Purple trophy}"),
     [(21, 26, "no trophy is 'yellow': add one to 'trophies' (each start-finish colour has its trophy)"),
      (26, 14, "no start-finish tile is 'purple': a trophy's colour names the finish to reach")]),
    ("an unknown key", GOOD.replace("tile_mm: 60", "tile_size: 60"), [(8, 1, "unknown key 'tile_size', did you mean 'tiles'?")]),
    ("a bad side", GOOD.replace("openings: NEW", "openings: NEX"), [(13, 25, "openings 'NEX': 'X' is not a side (sides are N, E, S and W)")]),
    ("a side twice", GOOD.replace("openings: NEW", "openings: NEN"), [(13, 25, "openings 'NEN' give side 'N' twice")]),
    ("an even size", GOOD.replace("tile_mm: 60", "size: 4"), [(8, 7, "'size' must be odd (the pit stop is the centre tile), got 4")]),
    ("a tile too large", GOOD.replace("tile_mm: 60", "tile_mm: 120"), [(8, 10, "'tile_mm' must be at most 90, got 120")]),
    ("a bad flip edge", GOOD.replace("duplex: long_edge", "duplex: sideways"), [(9, 9, "'duplex' must be one of long_edge, short_edge; got 'sideways'")]),
    ("two tiles one name", GOOD.replace("name: T,", "name: curve,"), [(13, 12, "duplicate tile name 'curve' (also tile 2)")]),
    ("a colour twice", GOOD.replace("colour: blue, name: Blue flag", "colour: red, name: Blue flag"),
     [(19, 26, "colour 'red' is already start-finish tile 1's"), (24, 14, "no start-finish tile is 'blue': a trophy's colour names the finish to reach")]),
    ("a pattern twice", GOOD.replace("pattern: dots", "pattern: stripes"),
     [(19, 58, "pattern 'stripes' is already start-finish tile 1's (each colour needs its own pattern)")]),
    ("a pit stop without a road", GOOD.replace("openings: NESW}\nstart_finish", "openings: ''}\nstart_finish"),
     [(16, 38, "the pit stop needs at least one opening: no car could reach it")]),
    ("three start-finish tiles", GOOD.replace("  - {corner: SW, colour: yellow, name: Yellow flag, pattern: crosses}\n", ""),
     [(18, 3, "'start_finish' must have at least 4 items")]),
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=[c[0] for c in CASES])
def test_every_problem_at_its_line(run, write, name, text, expected):
    path = write(text)
    result = run("validate", path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [f"{path}:{line}:{col}: error: {message}" for line, col, message in expected]


def test_a_board_that_does_not_fit(run, write):
    off = write(small_set(SEALED_TILES, SEALED_BOARD.replace("{row: 3, column: 3, tile: cross}", "{row: 3, column: 4, tile: cross}")))
    assert run("validate", off).stderr == f"{off}:26:22: error: column 4 is off the 3x3 grid\n"
    pit = write(small_set(SEALED_TILES, SEALED_BOARD.replace("{row: 3, column: 3, tile: cross}", "{row: 2, column: 2, tile: cross}")))
    assert run("validate", pit).stderr == f"{pit}:26:5: error: row 2, column 2 is the pit stop's place\n"
    twice = write(small_set(SEALED_TILES, SEALED_BOARD.replace("{row: 3, column: 3, tile: cross}", "{row: 3, column: 2, tile: cross}")))
    assert run("validate", twice).stderr == f"{twice}:26:5: error: row 3, column 2 is already board entry 7's\n"
    unknown = write(small_set(SEALED_TILES, SEALED_BOARD.replace("{row: 3, column: 3, tile: cross}", "{row: 3, column: 3, tile: crossing}")))
    assert run("validate", unknown).stderr == f"{unknown}:26:31: error: unknown tile 'crossing', did you mean 'cross'?\n"
    counts = write(small_set(SEALED_TILES, SEALED_BOARD.replace("{row: 3, column: 3, tile: cross}", "{row: 3, column: 3, tile: dead}")))
    assert run("validate", counts).stderr.splitlines() == [
        f"{counts}:18:1: error: the board lays 3 'dead' tiles; the set has 2",
        f"{counts}:18:1: error: the board lays 4 'cross' tiles; the set has 5",
    ]


def test_the_house_set_validates_and_says_it_is_a_house_set(run):
    result = run("validate", str(HOUSE))
    assert result.stdout == f"{HOUSE}: ok (Rally Run!: tile set, 24 road tiles in 5 kinds, 5x5 grid, house set)\n"
    assert "The counts of each kind of road tile in the published game are not in its rulebook" in GOOD


def test_schema(run):
    schema = json.loads(run("schema", "rally_run").stdout)
    assert schema["required"] == ["game", "name", "tiles", "start_finish", "trophies"]
    assert schema["properties"]["duplex"] == {"enum": ["long_edge", "short_edge"], "description": "the edge the printer flips the sheet on for the backs (default long_edge)"}


# --------------------------------------------------------------------------- the graph


def test_a_sealed_start_on_a_hand_built_board():
    tiles = load(small_set(SEALED_TILES, SEALED_BOARD))
    reach = {r.corner: (r.reaches_pit, r.reaches_finish) for r in reachability(tiles, board_of(tiles))}
    assert reach == {"NW": (False, False), "NE": (True, True), "SE": (True, True), "SW": (True, True)}


def test_an_open_board_reaches_everywhere():
    tiles = load(small_set(OPEN_TILES, OPEN_BOARD))
    assert all(r.reaches_pit and r.reaches_finish for r in reachability(tiles, board_of(tiles)))


def test_a_face_up_tile_keeps_its_rotation_in_the_graph():
    """The open board with the N-E bend at the NE corner face up as printed: its road leaves
    by N (to the start-finish) and E (off the grid side, also the start-finish): no road into
    the grid, so that start is sealed and that finish out of reach."""
    board = OPEN_BOARD.replace("{row: 1, column: 3, tile: bend}", "{row: 1, column: 3, tile: bend, face: up}")
    tiles = load(small_set(OPEN_TILES, board))
    reach = {r.corner: (r.reaches_pit, r.reaches_finish) for r in reachability(tiles, board_of(tiles))}
    assert reach["NE"] == (False, False) and reach["NW"] == (True, True)


def test_the_first_round_dead_end_opens_a_dead_end_corner():
    """RN-5 in the graph: a dead end in the NW corner turned over in the first round faces a
    bordering tile, so that start reaches the pit stop; as a finish the corner is out of reach
    (a dead end entered from the grid leads only back)."""
    tiles_text = "  - {name: cross, openings: NESW, count: 7}\n  - {name: dead, openings: N, count: 1}\n"
    board = OPEN_BOARD.replace("tile: bend", "tile: cross").replace("{row: 1, column: 1, tile: cross}", "{row: 1, column: 1, tile: dead}")
    tiles = load(small_set(tiles_text, board))
    reach = {r.corner: (r.reaches_pit, r.reaches_finish) for r in reachability(tiles, board_of(tiles))}
    assert reach["NW"] == (True, False)


# --------------------------------------------------------------------------- the rules


def house():
    return load(GOOD)


def test_turning_a_tile_over_draws_from_the_unseen_tiles():
    s = RunState.start(house(), 2)
    assert s.legal_actions()[0] == Flip(0)  # the NW corner tile, the only tile next to the start
    s = s.apply(Flip(0))
    assert s.phase == REVEAL
    assert s.chance_outcomes() == ((0, Fraction(6, 24)), (1, Fraction(8, 24)), (2, Fraction(4, 24)), (3, Fraction(2, 24)), (4, Fraction(4, 24)))
    s = s.apply(1).apply(Turn(0))  # a curve, turned to open N (the start-finish) and E
    assert s.cars[0] == 0 and s.up[0] == 0
    t = s.apply(Flip(24)).apply(0)  # player 2 turns over the SE corner tile: a straight
    assert t.chance_outcomes() == () and t.phase == ROTATE
    # the pool now lacks one curve and one straight
    assert t.pool == (5, 7, 4, 2, 4)


def test_a_tile_seen_before_shows_what_was_seen():
    s = RunState.start(house(), 2).apply(Flip(0)).apply(1).apply(Turn(0))  # the curve N-E
    s = s.apply(Flip(24)).apply(0).apply(Turn(0))  # player 2 on the SE straight, N-S
    s = s.apply(Flip(1))  # player 1 turns over the tile E of the NW curve: unseen
    assert s.phase == REVEAL
    s = s.apply(4)  # a dead end: its one opening must face back W
    assert s.legal_actions() == (Turn(3),)
    s = s.apply(Turn(3))
    assert s.up[0] == DOWN and s.kinds[0] == 1  # the curve left face down, still known
    p2 = s.apply(Swap(2, 3))  # player 2 switches; player 1 turns the curve over again
    again = p2.apply(Flip(0))
    assert again.phase == ROTATE and again.chance_outcomes() == ()


def test_only_a_tile_the_cars_road_leads_to_may_be_turned_over():
    """RN-4: the car on a N-S straight in the grid's middle column may turn over the tiles N
    and S of it, not those E and W, though they border its tile too."""
    s = RunState.start(house(), 2)
    at = cell(1, 2, 5)
    s = replace(s, cars=(at, s.cars[1]), kinds=s.kinds[:at] + (0,) + s.kinds[at + 1 :], up=s.up[:at] + (0,) + s.up[at + 1 :])
    flips = [a.cell for a in s.drives if isinstance(a, Flip)]
    moves = [a.place for a in s.drives if isinstance(a, Move)]
    assert flips == [cell(0, 2, 5)] and moves == [cell(2, 2, 5)]  # south is the pit stop: a drive
    with pytest.raises(RulesError):
        s.apply(Flip(cell(1, 1, 5)))


def test_a_tile_no_rotation_joins_is_shown_and_laid_down_again():
    """RN-6: a blank tile (no road) turned over joins no road: it goes back face down, seen,
    the car stays, the turn passes."""
    tiles = load(small_set("  - {name: blank, openings: '', count: 1}\n  - {name: cross, openings: NESW, count: 7}\n"))
    s = RunState.start(tiles, 2).apply(Flip(0)).apply(0)
    assert s.legal_actions() == (Show(),)
    s = s.apply(Show())
    assert (s.cars[0], s.up[0], s.kinds[0], s.player) == (9, DOWN, 0, 1)


def test_the_first_round_dead_end_faces_a_face_down_tile():
    """RN-5: in a player's first turn a dead end at the corner faces a bordering face-down
    tile (E or S of the NW corner), never the start-finish tile; later it faces the road it
    was entered by as usual."""
    s = RunState.start(house(), 2).apply(Flip(0)).apply(4)
    assert s.legal_actions() == (Turn(1), Turn(2))  # the opening to E, or to S
    later = replace(RunState.start(house(), 2), turns=2).apply(Flip(0)).apply(4)
    assert later.legal_actions() == (Turn(0), Turn(3))  # to N or W: the start-finish tile


def test_the_start_finish_tile_touches_the_corner_tile_by_both_outer_sides():
    """RN-3: from the NW start, a curve at the corner may be turned to open N or W (not both:
    RN-16)."""
    s = RunState.start(house(), 2).apply(Flip(0)).apply(1)
    assert s.legal_actions() == (Turn(0), Turn(2))  # NE, SW; ES has neither side, WN leads nowhere


def test_a_tile_turned_from_the_start_leads_on():
    """RN-16 (issue 34): the book turns the tile "so that it creates a road for your car to
    continue on". A curve at the NW corner turned W-N faced both its ends at the car's own
    start-finish tile (place 25): the car could never drive again. Only the turns that lead on
    are offered, N-E (to the start-finish and cell 1) and S-W (cell 5 and the start-finish).
    A dead end leads nowhere whichever way it faces: its turns are RN-5's."""
    s = RunState.start(house(), 2).apply(Flip(0)).apply(1)
    ends = {t.quarter_turns: {s.table.beyond[0][d] for d in s.apply(t).road(0)} for t in s.legal_actions()}
    assert ends == {0: {25, 1}, 2: {5, 25}}
    dead_end = RunState.start(house(), 2).apply(Flip(0)).apply(4)
    assert dead_end.legal_actions() == (Turn(1), Turn(2))  # RN-5: E or S, a face-down tile


def test_driving_onto_a_tile_with_another_car_is_a_whole_turn():
    """RN-7: no tile is turned over; the tile left is turned face down (no car remains)."""
    s = RunState.start(house(), 2)
    a, b = cell(1, 1, 5), cell(1, 2, 5)
    kinds = list(s.kinds)
    up = list(s.up)
    kinds[a], up[a] = 1, 0  # a curve N-E where car 1 stands
    kinds[b], up[b] = 3, 0  # a crossing where car 2 stands
    s = replace(s, kinds=tuple(kinds), up=tuple(up), cars=(a, b))
    assert Move(b) in s.drives
    after = s.apply(Move(b))
    assert after.cars == (b, b) and after.up[a] == DOWN and after.player == 1 and after.chance_outcomes() == ()
    # car 2 leaves: the crossing stays face up, car 1 still stands on it
    gone = after.apply(Flip(cell(0, 2, 5))).apply(0).apply(Turn(0))
    assert gone.up[b] == 0 and gone.cars == (b, cell(0, 2, 5))


def test_a_switch_and_the_no_re_swap_rule():
    """RN-9: the next player may not switch either tile just switched; the one after may."""
    s = RunState.start(house(), 3)
    s = s.apply(Swap(5, 6))
    assert s.player == 1 and s.last_swap == (5, 6)
    assert all(5 not in (x.a, x.b) and 6 not in (x.a, x.b) for x in s.swaps)
    with pytest.raises(RulesError):
        s.apply(Swap(6, 7))
    s = s.apply(Swap(7, 8))
    assert Swap(5, 6) in s.swaps and Swap(7, 9) not in s.swaps


def test_the_pit_stop_trophy_names_the_finish():
    """RN-10: the first car at the pit stop takes a trophy, each not yet taken with equal
    chance; the blue trophy sends it to the NE start-finish tile, and driving onto it wins."""
    tiles = house()
    s = RunState.start(tiles, 2)
    near = cell(1, 2, 5)
    kinds, up = list(s.kinds), list(s.up)
    kinds[near], up[near] = 0, 0
    s = replace(s, kinds=tuple(kinds), up=tuple(up), cars=(near, s.cars[1]))
    s = s.apply(Move(s.table.pit))
    assert s.phase == TROPHY and s.chance_outcomes() == tuple((j, Fraction(1, 4)) for j in range(4))
    s = s.apply(1)
    assert s.goals == (1, -1)
    # back at the pit stop later: no second trophy
    corner = cell(0, 4, 5)
    kinds, up = list(s.kinds), list(s.up)
    kinds[corner], up[corner] = 1, 0  # a curve opening N (to the NE start-finish) and E
    won = replace(s, kinds=tuple(kinds), up=tuple(up), cars=(corner, s.cars[1]), player=0)
    assert Move(25 + 1) in won.drives
    end = won.apply(Move(25 + 1))
    assert end.is_terminal() and end.winner == 0


def test_another_start_finish_tile_is_not_driven_onto():
    s = RunState.start(house(), 2)
    corner = cell(0, 4, 5)
    kinds, up = list(s.kinds), list(s.up)
    kinds[corner], up[corner] = 1, 0
    s = replace(s, kinds=tuple(kinds), up=tuple(up), cars=(corner, s.cars[1]), goals=(0, -1))
    assert Move(26) not in s.drives


def test_a_player_with_no_legal_move_switches_or_passes():
    """RN-11: a car whose road leads nowhere it may go must switch; with no switch left, it
    passes."""
    s = RunState.start(house(), 2)
    corner = 0
    kinds, up = list(s.kinds), list(s.up)
    kinds[corner], up[corner] = 4, 0  # a dead end facing N: to its own start-finish only
    s = replace(s, kinds=tuple(kinds), up=tuple(up), cars=(corner, s.cars[1]))
    assert s.drives == () and s.legal_actions() == s.swaps and len(s.swaps) == 23 * 22 // 2
    tiny = replace(s, up=tuple(u if c in (0, s.table.pit) else 0 for c, u in enumerate(s.up)), kinds=tuple(k if k != -1 else 3 for k in s.kinds))
    assert tiny.legal_actions() == (Pass(),)
    assert tiny.apply(Pass()).player == 1


# --------------------------------------------------------------------------- simulate and analyze


def test_simulate_is_seeded(run):
    one = run("simulate", str(HOUSE), "--seed", "5", "--players", "3")
    assert one.exit_code == 0, one.output
    assert one.stdout == run("simulate", str(HOUSE), "--seed", "5", "--players", "3").stdout
    assert one.stdout != run("simulate", str(HOUSE), "--seed", "6", "--players", "3").stdout
    assert one.stdout.splitlines()[0].startswith("Round 1, player 1: turns over row 1 column 1, a ")
    randomly = run("simulate", str(HOUSE), "--seed", "5", "--policy", "random", "--rounds", "20")
    assert randomly.exit_code == 0
    assert re.fullmatch(r"No winner after 20 rounds\.|Player [1-2] wins in round \d+\.", randomly.stdout.splitlines()[-1])


def test_a_random_player_picks_a_switch_by_its_index_without_listing_them_all(run):
    """The random player listed every pair of face-down tiles on each turn (over a thousand on
    the house board) and the switch it picked was looked up in that list once more: analyze
    --policy random --games 100 --rounds 1000 took two minutes (the fuzz harness). It picks
    the switch by its index (`RunState.swap`); the games it plays are the ones it played."""
    start = RunState.start(house(), 3)
    kinds, up = list(start.kinds), list(start.up)
    kinds[0], up[0] = 4, 0  # a dead end at the first corner: only switches are left to its car
    stuck = replace(start, kinds=tuple(kinds), up=tuple(up), cars=(0, *start.cars[1:]))
    for state in (start, stuck):
        assert [state.swap(i) for i in range(state.swap_count())] == list(state.swaps)
        assert all(state.is_swap(x) for x in state.swaps)
    assert stuck.swap_count() == 23 * 22 // 2 and stuck.swap(0) == Swap(1, 2) and stuck.swap(252) == Swap(23, 24)
    assert not stuck.is_swap(Swap(2, 1)) and not stuck.is_swap(Swap(0, 1))  # (in order; face down)
    with pytest.raises(IndexError):
        stuck.swap(253)
    # the game of seed 5 was the one the listing player played when the index came in; since
    # RN-16 (a round-1 curve whose ends both face the car's start-finish tile is not offered)
    # the turns offered differ, and so does the game: its last lines, pinned again then
    game = run("simulate", str(HOUSE), "--seed", "5", "--players", "3", "--policy", "random").stdout.splitlines()
    assert len(game) == 301 and game[-3:] == [
        "Round 100, player 2: switches row 1 column 1 and row 3 column 1",
        "Round 100, player 3: turns over row 3 column 1 (seen before), a straight, turned 0 degrees, and drives onto it",
        "No winner after 100 rounds.",
    ]


def test_simulate_options_are_checked(run):
    assert run("simulate", str(HOUSE), "--seed", "1", "--players", "5").exit_code == 2
    assert run("simulate", str(HOUSE), "--seed", "1", "--policy", "bold").exit_code == 2


def test_analyze_keys_and_figures():
    """The analysis' keys on the house set, 2 games a player count and a budget of 400 turns
    (the command's is SEAT_TURN_BUDGET: seconds of play, test_seat_shares_play_until_ranked_or_the_budget
    checks the rule on a board that ranks the seats)."""
    data = analyze_set(house(), games=2, budget=400)
    json.dumps(data)
    assert set(data["turns"]) == {"p10", "p50", "p90"}
    assert [b["players"] for b in data["by_players"]] == [2, 3, 4]
    assert data["games"] == sum(b["games"] for b in data["by_players"])
    assert data["turn_budget"] == 400 and data["turns_played"] >= 400
    for block in data["by_players"]:
        assert len(block["seat_win_share"]) == block["players"] == len(block["seat_win_interval"])
        assert abs(sum(block["seat_win_share"]) - 1) < 1e-3 or block["finished_share"] == 0
        # RN-22: 2 games, then up to 10 more a batch until ranked or the turn budget is spent
        assert block["games"] >= 2 and not block["seats_ranked"]
        for share, (lo, hi) in zip(block["seat_win_share"], block["seat_win_interval"]):
            assert lo <= share <= hi
    assert data["seat_win_share"] == {str(b["players"]): b["seat_win_share"] for b in data["by_players"]}
    assert 0 <= data["sealed_start_share"] <= 1 and data["starts"] is None
    assert analyze_set(house(), games=2, budget=400) == data
    assert SEAT_TURN_BUDGET == 5_000 and SEAT_BATCH == 10


def test_the_first_games_stop_at_the_turn_limit_with_as_many_games_for_each_count():
    """The first `--games` games of each count are played in turn (the k-th of 2, 3 and 4
    players, then the next) until the analysis has played the limit's turns: every count then
    has as many games as the others, the games played are those of a run without the limit
    (the same seeds), and the report says it stopped. The command's limit, 6,000 turns, holds
    `--games 100` (about 12,600 turns on the house set, 10.8 s of CPU) within 10 s."""
    cut = analyze_set(house(), games=5, budget=0, limit=200)
    played = [b["games"] for b in cut["by_players"]]
    assert cut["stopped_at_turn_limit"] and cut["turn_limit"] == 200 and cut["games_asked"] == 5
    assert len(set(played)) == 1 and 1 <= played[0] < 5
    assert cut["turns_played"] >= 200
    # the same games as the run without the limit: its first `played[0]` of each count
    head = analyze_set(house(), games=played[0], budget=0)
    assert [b["seat_win_share"] for b in cut["by_players"]] == [b["seat_win_share"] for b in head["by_players"]]
    assert cut["turns_played"] == head["turns_played"] and not head["stopped_at_turn_limit"]
    assert FIRST_GAMES_TURN_LIMIT == 6_000
    text = format_analysis_text(cut)
    assert "the first games stopped at 200 turns in all: fewer than the 5 asked for each number of players" in text
    assert "the first games stopped" not in format_analysis_text(head)


def test_analyze_a_fixed_board(run, write):
    path = write(small_set(SEALED_TILES, SEALED_BOARD))
    data = json.loads(run("analyze", path, "--format", "json", "--games", "2", "--players", "2").stdout)
    assert [(s["corner"], s["reaches_pit"], s["reaches_finish"]) for s in data["starts"]] == [
        ("NW", False, False), ("NE", True, True), ("SE", True, True), ("SW", True, True)]
    assert data["sealed_start_share"] == 0.25
    text = run("analyze", path, "--games", "2", "--players", "2").stdout
    assert "NW Red start-finish (red): a car starting here cannot reach the pit stop" in text


def test_wilson_intervals_by_hand():
    """RN-22: the Wilson score interval, 95 %: for w wins of n, centre (p + z^2/2n) / (1 +
    z^2/n), half-width z / (1 + z^2/n) * sqrt(p(1 - p)/n + z^2/4n^2), z = 1.95996. By hand:
    5 of 10: centre 0.5, half-width 1.41601 * sqrt(0.025 + 0.0096037) = 0.26341; 0 of 10:
    centre 0.16116 = half-width, so (0, 0.27753); 10 of 10 its mirror; 45 of 100: centre
    (0.45 + 0.019207) / 1.038415 = 0.45184, half-width 1.88745 * sqrt(0.002475 + 0.0000960)
    = 0.09570."""
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert wilson(45, 100) == pytest.approx((0.35615, 0.54755), abs=1e-5)
    with pytest.raises(ValueError):
        wilson(0, 0)
    # ranked: each seat's interval wholly above the next one's
    assert ranked([10, 0], 10) and ranked([0, 10], 10)
    assert not ranked([3, 0], 3)  # (0.4385, 1) and (0, 0.5615) overlap
    assert not ranked([6, 4], 10) and not ranked([5, 5], 100) and not ranked([1, 1], 0)
    assert ranked([60, 30, 10], 100) and not ranked([45, 24, 14, 17], 100)


def test_seat_shares_play_until_ranked_or_the_budget():
    """RN-22 on the sealed fixed board, 2 players (the NW car, seat 1, starts sealed off and
    wins only after switches open its way). 2 games, then batches of 10: after 12 the seats
    are not ranked, after 22 they are (seat 1 6 of 22: Wilson (0.1315, 0.4815) below seat 2's
    (0.5185, 0.8685), by hand: centre 0.30652, half-width 0.17500), and the analysis stops
    there; with no turns to spend it stops at the 2 asked for."""
    tiles = load(small_set(SEALED_TILES, SEALED_BOARD))
    block = analyze_set(tiles, games=2, players=2)["by_players"][0]
    assert block["games"] == 22 and block["seats_ranked"] and block["seat_win_share"] == [0.2727, 0.7273]
    assert block["seat_win_interval"] == [[0.1315, 0.4815], [0.5185, 0.8685]]
    assert not analyze_set(tiles, games=12, players=2, budget=0)["by_players"][0]["seats_ranked"]
    short = analyze_set(tiles, games=2, players=2, budget=0)
    assert short["by_players"][0]["games"] == 2 and not short["by_players"][0]["seats_ranked"]
    text = format_analysis_text(analyze_set(tiles, games=2, players=2))
    assert "2 players, 22 games: finished 100%, median" in text
    assert "wins (95% interval): seat 1 27% (13-48%), seat 2 73% (52-87%); ranked" in text


def test_greedy_loops_stop_and_are_counted_apart(run):
    """RN-21: house set, 2 players, seed 1002029 (game 29 of analyze's 2-player games, seed
    1): the greedy drivers come back in round 19 to the position of round 17 (every tile, car
    and trophy alike, nothing drawn between) and played it out to the 100-round cap before;
    the game stops there, a loop, and analyze counts it apart from the finished games."""
    game = play(house(), 1002029, 2)
    assert game.looped == 33 and game.end.turns == 37 and not game.finished
    assert game.rounds == 100  # counted as the cap, where it would have ended (generate's medians)
    again = next(step.state for step in game.steps if step.state.turns == game.looped and step.state.phase == "act")
    assert position(again) == position(game.end) and again.cars == game.end.cars == (8, 2)
    lines = run("simulate", str(HOUSE), "--seed", "1002029", "--players", "2").stdout.splitlines()
    assert lines[-1] == (
        "Round 19, player 2: the position of round 17 again (every tile, car and trophy alike); the greedy "
        "drivers would play the same turns for ever. No winner: a loop."
    )
    assert play(house(), 1002029, 2, policy="random").looped is None  # a random player may leave
    # analyze's 30 two-player games of seed 1 hold that game: 1 loop, counted apart, 29 finished
    data = analyze_set(house(), games=30, players=2, budget=0)
    assert (data["finished_share"], data["looping_share"]) == (0.9667, 0.0333)
    assert data["by_players"][0]["looping_share"] == 0.0333
    assert "2 players, 30 games: finished 97%, looping 3%, median 12 rounds" in format_analysis_text(data)


# --------------------------------------------------------------------------- printing


def _tile_squares(page, side: float) -> list[tuple[float, float]]:
    """The bottom-left corners of the squares of side `side` points drawn on a page."""
    found = []
    for item in page["items"]:
        for op in item.get("path", []):
            if op[0] == "re":
                xs, ys = op[1::2], op[2::2]
                if abs(max(xs) - min(xs) - side) < 0.3 and abs(max(ys) - min(ys) - side) < 0.3 and item.get("paint") == "S":
                    found.append((round(min(xs), 1), round(min(ys), 1)))
    return sorted(set(found))


def _render(run, tmp_path, text_or_path, *options: str) -> bytes:
    """The PDF `render` writes for a set (its text, or the path of a file)."""
    source = text_or_path
    if "\n" in str(text_or_path):
        source = tmp_path / "set.yaml"
        source.write_text(text_or_path, encoding="utf-8")
    target = tmp_path / "tiles.pdf"
    result = run("render", str(source), "-o", str(target), *options)
    assert result.exit_code == 0, result.output
    return target.read_bytes()


def _squares(page, side: float) -> list[tuple[float, float]]:
    """The bottom-left corners of the stroked squares of side `side` points on a page (read
    with tests/pdfgeom.py), rounded to 0.1 pt."""
    found = {
        (round(x, 1), round(y, 1))
        for path in page.paths
        if path.stroked
        for x, y, w, h in path.rects
        if abs(w - side) < 0.3 and abs(h - side) < 0.3
    }
    return sorted(found)


def _centres(page, value: str) -> list[tuple[float, float]]:
    """Where the texts reading `value` are centred across, and their baselines."""
    return sorted((round(t.x + t.advance / 2, 1), round(t.y, 1)) for t in page.texts if t.value == value)


@pytest.mark.parametrize("flip", ["long_edge", "short_edge"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_tile_size_and_duplex_backs(run, tmp_path, flip, paper):
    """55 mm tiles, 12 a page: the 24 road tiles fill sheets 1 and 2, each front followed by
    the road tiles' backs, each back label centred behind its front (mirrored left to right
    for the long edge, top to bottom for the short); sheet 3 (pit stop, start-finish and
    trophy tiles, cars) has no tile backs, only the cars again."""
    from pdfgeom import read_pages
    from sheetgen.template import MM, PAPERS

    pages = read_pages(_render(run, tmp_path, GOOD.replace("duplex: long_edge", f"duplex: {flip}").replace("tile_mm: 60", "tile_mm: 55"), "--paper", paper))
    width, height = PAPERS[paper]
    side = 55 * MM
    assert len(pages) == 2 * 3 + 1  # three sheets, front and back, and the rules
    for number, (front, back) in enumerate(zip(pages[0:6:2], pages[1:6:2]), start=1):
        fronts = _squares(front, side)
        for x, y in fronts:  # within 0.1 mm of the size asked, inside the 10 mm margins
            assert 10 * MM - 0.01 <= x and x + side <= width - 10 * MM + 0.01
            assert 10 * MM - 0.01 <= y and y + side <= height - 10 * MM + 0.01
        roads = fronts if number < 3 else []
        assert len(fronts) == (12 if number < 3 else 9)  # sheet 3: pit stop, 4 start-finish, 4 trophies
        if flip == "long_edge":
            behind = sorted((round(width - x - side / 2, 1), y) for x, y in roads)
        else:
            behind = sorted((round(x + side / 2, 1), height - y - side) for x, y in roads)
        labels = _centres(back, "RALLY RUN!")
        assert len(labels) == len(roads)
        # each back's label is centred across its place, and the places are the mirrored fronts
        assert [a[0] for a in sorted(labels)] == pytest.approx([b[0] for b in behind], abs=0.2)
        label_rows = sorted({round(y) for _x, y in labels})
        assert len(label_rows) == len({y for _x, y in behind})
        texts = " ".join(t.value for t in back.texts)
        assert "START-FINISH" not in texts and "TROPHY" not in texts and "PIT STOP" not in texts
    # the cars: four tokens of half a tile, numbered 1 to 4, and behind each the same number
    cars = _squares(pages[4], side / 2)
    assert len(cars) == 4
    numbers = {t.value: (t.x + t.advance / 2, t.y) for t in pages[4].texts if t.value in "1234" and t.size > 10}
    backs = {t.value: (t.x + t.advance / 2, t.y) for t in pages[5].texts if t.value in "1234" and t.size > 10}
    assert sorted(numbers) == sorted(backs) == ["1", "2", "3", "4"]
    for car, (x, y) in numbers.items():
        bx, by = backs[car]
        if flip == "long_edge":
            assert (bx, by) == pytest.approx((width - x, y), abs=0.2)
        else:  # the text is upright on both sides: the token's place mirrored, its text not
            token = next((cx, cy) for cx, cy in cars if cx <= x <= cx + side / 2 and cy <= y <= cy + side / 2)
            mirrored_bottom = height - token[1] - side / 2
            assert bx == pytest.approx(x, abs=0.2) and mirrored_bottom <= by <= mirrored_bottom + side / 2


def test_the_backs_bleed_3_mm_past_the_outer_cut_lines(run, tmp_path):
    """A4, 60 mm tiles, long edge: the backs' tint and lattice reach exactly 3 mm past the
    outer cut lines of the 3 x 4 grid behind the road tiles (and no further), inside the
    10 mm margins; on the front, the tinted tiles and the roads' ends at an outer cut line
    run on 3 mm too, and a tinted tile stops at a cut line it shares with another tile."""
    from pdfgeom import read_pages
    from sheetgen.template import MM, PAPERS

    pages = read_pages(_render(run, tmp_path, HOUSE))
    width, height = PAPERS["a4"]
    side = 60 * MM
    fronts = _squares(pages[0], side)
    left, bottom = min(x for x, _ in fronts), min(y for _, y in fronts)
    right, top = max(x for x, _ in fronts) + side, max(y for _, y in fronts) + side
    # behind, mirrored left to right: the same rows, the columns' span mirrored
    back_left, back_right = width - right, width - left
    clipped = [p for p in pages[1].paths if not p.stroked and p.clip is not None]
    assert clipped
    x0, y0, x1, y1 = clipped[0].clip
    # (the squares are read to 0.1 pt: within 0.04 mm)
    assert (x0, y0, x1, y1) == pytest.approx((back_left - 3 * MM, bottom - 3 * MM, back_right + 3 * MM, top + 3 * MM), abs=0.1)
    assert x0 >= 10 * MM and y0 >= 10 * MM and x1 <= width - 10 * MM and y1 <= height - 10 * MM
    # the lattice: lines cut to that box (41 each way, the house set's grid and bleed)
    assert len([p for p in pages[1].paths if p.stroked and p.clip == clipped[0].clip]) > 40
    # the fronts of sheet 3: the blue start-finish tile (top right) runs on past the top and
    # the right, not past its left (the red tile) nor its bottom (the red trophy)
    third = _squares(pages[4], side)
    tx, ty = max(third, key=lambda p: (p[1], p[0]))
    tints = [p for p in pages[4].paths if not p.stroked and p.rects and p.clip is None and abs(p.rects[0][0] - tx) < 0.1 and abs(p.rects[0][1] - ty) < 0.1]
    assert [p.rects[0][2:] for p in tints] == [pytest.approx((side + 3 * MM, side + 3 * MM), abs=0.1)]
    # the straights of sheet 1's top row: their road runs on 3 mm past the top cut line
    road_tops = [max(y + h for _x, y, _w, h in p.rects) for p in pages[0].paths if not p.stroked and p.rects]
    assert max(road_tops) == pytest.approx(top + 3 * MM, abs=0.1)


def test_the_fronts_name_no_openings(run, tmp_path):
    """A turned tile's openings differ from what "NE" says north up: no front prints them (the
    rules page lists the kinds, north up, saying so)."""
    from pdfgeom import read_pages

    pages = read_pages(_render(run, tmp_path, HOUSE))
    for page in pages[0:6]:
        assert not [t.value for t in page.texts if t.value and set(t.value) <= set("NESW")]
    assert any("road openings NE (north up)" in t.value for t in pages[6].texts)


def test_the_rules_page_is_numbered_and_names_no_file(run, tmp_path):
    from pdfgeom import read_pages
    from sheetgen.template import MM

    pages = read_pages(_render(run, tmp_path, HOUSE))
    rules = pages[6]
    text = " ".join(t.value for t in rules.texts)
    assert "Rally Run!: the rules on one page" in text
    assert ".md" not in text and "docs/" not in text and "rulings" not in text
    number = [t for t in rules.texts if t.value == "page 7 of 7"]
    assert len(number) == 1 and number[0].bbox()[1] >= 10 * MM - 0.01 and number[0].bbox()[2] <= rules.width - 10 * MM + 0.01
    assert any(t.value == "4 cars, numbered 1 to 4: cut the four tokens apart" for t in rules.texts)


def test_a_sheet_of_face_up_tiles_alone_gets_a_blank_other_side(run, tmp_path):
    """90 mm tiles, 4 a page (A4): the 24 road tiles take 6 sheets with their backs; the pit
    stop, start-finish and trophy tiles take sheets 7 and 8, which have nothing on their
    other sides (a page left blank each, so that the next sheet starts a new sheet of paper);
    sheet 9 holds the last trophy and the cars, with the cars behind."""
    from pypdf import PdfReader

    data = _render(run, tmp_path, GOOD.replace("tile_mm: 60", "tile_mm: 90"))
    reader = PdfReader(io.BytesIO(data))
    kinds = {reader.get_destination_page_number(o) + 1: o.title for o in reader.outline}
    assert kinds == {1: "tile fronts", 2: "tile backs", 3: "tile fronts", 4: "tile backs", 5: "tile fronts", 6: "tile backs",
                     7: "tile fronts", 8: "tile backs", 9: "tile fronts", 10: "tile backs", 11: "tile fronts", 12: "tile backs",
                     13: "tile fronts", 14: "blank page", 15: "tile fronts", 16: "blank page", 17: "tile fronts",
                     18: "tile backs", 19: "rules summary"}
    assert "This side is left blank" in reader.pages[13].extract_text()


def test_the_printed_tile_is_60_mm_by_default(run, tmp_path):
    from sheetgen.template import MM
    from test_golden import describe_pdf

    target = tmp_path / "tiles.pdf"
    assert run("render", str(HOUSE), "-o", str(target)).exit_code == 0
    first = describe_pdf(target)["pages"][0]
    squares = _tile_squares(first, 60 * MM)
    assert len(squares) == 12
    xs = sorted({x for x, _ in squares})
    assert all(abs((b - a) - 60 * MM) < 0.28 for a, b in itertools.pairwise(xs))  # 0.1 mm


def test_coloured_tiles_carry_names_and_the_house_note(run, tmp_path):
    from pypdf import PdfReader

    target = tmp_path / "tiles.pdf"
    assert run("render", str(HOUSE), "-o", str(target), "--ink", "low").exit_code == 0
    reader = PdfReader(str(target))
    third = reader.pages[4].extract_text()
    for words in ("START-FINISH", "Red flag", "red, stripes", "TROPHY", "Blue trophy", "blue, dots", "finish at the blue start-finish", "PIT STOP"):
        assert words in third
    assert "House set (the published counts are unknown)." in reader.pages[0].extract_text()
    assert "flip on the long edge" in reader.pages[1].extract_text()
    assert "Rally Run!: the rules on one page" in reader.pages[6].extract_text()


# --------------------------------------------------------------------------- generate


def test_generate_writes_a_spec_that_rebuilds(run):
    first = run("generate", "rally_run", "--seed", "2", "--players", "2", "--target-turns", "12")
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith("# Generated by sheetgen 0.1.0: sheetgen generate rally_run --seed 2 --players 2 --target-turns 12\n")
    # the same options give the same file: tests/golden/generate/rally_run-seed1.yaml
    tiles = load(first.stdout)
    assert tiles.road_tiles == 24


def test_generate_warns_when_the_target_is_out_of_reach(run):
    """Issue 34: --target-turns 40 gave a set of median 14 rounds and said nothing. The five
    mixes of seed 1 last a median 10, 14, 12, 13 and 10 rounds (3 greedy players): a target
    of 40 is out of reach, said on standard error, and the nearest set is written all the same;
    the default target of 14 is met, and nothing is said."""
    far = run("generate", "rally_run", "--seed", "1", "--target-turns", "40")
    assert far.exit_code == 0, far.output
    assert far.stderr == (
        "warning: --target-turns 40 is out of reach: the 5 sets drawn last a median 10 to 14 rounds "
        "(8 greedy games of 3 players each); the set written, the nearest, lasts 14\n"
    )
    assert "# 8 greedy games of 3 players: median 14 rounds to win.\n" in far.stdout
    near = run("generate", "rally_run", "--seed", "1", "--target-turns", "14")
    assert near.exit_code == 0 and near.stderr == ""


# --------------------------------------------------------------------------- the rulings document


def test_every_ruling_names_tests_that_exist():
    """docs/rulings.md's Rally Run! section: RN-1 to RN-23, each pinned by tests of this file
    that exist."""
    from conftest import ROOT

    text = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    section = text[text.index("## Rally Run!\n") :]
    section = section[: section.index("\n## ", 1)]
    rulings = re.findall(r"\*\*(RN-\d+)\.", section)
    assert rulings == [f"RN-{k}" for k in range(1, 24)]
    for block in section.split("**RN-")[1:]:
        pinned = block[block.index("- Pinned by:") :]
        names = re.findall(r"test_rally_run\.py::(\w+)", pinned)
        assert names, block[:40]
        assert all(callable(globals().get(name)) for name in names), names


def test_cut_marks_stay_outside_the_tiles_and_inside_the_margins(run, write, tmp_path):
    """30 mm tiles: all 33 and the cars' place on one page of 36 places, its last row short.
    Every cut mark (1.8 mm long, from 3 mm past the tiles: the backs' bleed) is outside every
    tile and inside the 10 mm margins, and each tile corner has a mark on its cut lines."""
    from sheetgen.template import MM, PAPERS
    from test_golden import describe_pdf

    path = write(GOOD.replace("tile_mm: 60", "tile_mm: 30"))
    target = tmp_path / "tiles.pdf"
    assert run("render", path, "-o", str(target)).exit_code == 0
    page = describe_pdf(target)["pages"][0]
    side = 30 * MM
    tiles = _tile_squares(page, side)
    assert len(tiles) == 33
    tokens = _tile_squares(page, side / 2)  # the four cars in the 34th place
    assert len(tokens) == 4
    cars = (min(x for x, _ in tokens), min(y for _, y in tokens))
    tiles.append(cars)
    marks = []
    for item in page["items"]:
        path_ops = item.get("path", [])
        if len(path_ops) == 2 and path_ops[0][0] == "m" and path_ops[1][0] == "l":
            (_m, x1, y1), (_l, x2, y2) = path_ops
            if abs(abs(x2 - x1) + abs(y2 - y1) - 1.8 * MM) < 0.05:
                marks.append((x1, y1, x2, y2))
    width, height = PAPERS["a4"]
    assert marks
    for x1, y1, x2, y2 in marks:
        assert min(x1, x2) >= 10 * MM and max(x1, x2) <= width - 10 * MM
        assert min(y1, y2) >= 10 * MM and max(y1, y2) <= height - 10 * MM
        for x, y in tiles:
            inside = x + 0.01 < max(x1, x2) and min(x1, x2) < x + side - 0.01 and y + 0.01 < max(y1, y2) and min(y1, y2) < y + side - 0.01
            assert not inside
    corners = [(x + dx, y + dy) for x, y in tiles for dx in (0, side) for dy in (0, side)]
    for x1, y1, x2, y2 in marks:  # a mark starts 3 mm past a tile's corner, on its edge's line
        assert min(min(math.dist(end, c) for c in corners) for end in ((x1, y1), (x2, y2))) == pytest.approx(3 * MM, abs=0.05)
    lines = {round(x1, 1) for x1, _y1, x2, _y2 in marks if abs(x1 - x2) < 0.01}
    assert {round(x, 1) for x, _ in tiles} <= lines


# --------------------------------------------------------------------------- hostile sets

ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 100), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
                st.lists(st.integers(0, 3), max_size=3), st.dictionaries(st.sampled_from(["row", "name", "x"]), st.integers(0, 9), max_size=2))
PLACES = [("size",), ("tile_mm",), ("duplex",), ("house_set",), ("tiles", 0, "openings"), ("tiles", 1, "count"), ("tiles", 2), ("tiles",),
          ("pit_stop",), ("pit_stop", "openings"), ("start_finish", 0, "corner"), ("start_finish", 1, "colour"), ("start_finish", 2, "pattern"),
          ("trophies", 3, "colour"), ("trophies",), ("board",), ("name",)]


@settings(max_examples=60, deadline=None)
@given(changes=st.lists(st.tuples(st.sampled_from(PLACES), ODD), min_size=1, max_size=3))
def test_a_spoilt_set_is_refused_with_located_errors_only(changes):
    """Odd values anywhere in the house set: the set loads, or every problem is a SpecError at a
    line of the file; never another exception."""
    import yaml

    from sheetgen.errors import SpecError

    data = yaml.safe_load(GOOD)
    for path, value in changes:
        target = data
        for key in path[:-1]:
            target = target[key] if isinstance(target, dict) and key in target or isinstance(target, list) and isinstance(key, int) and key < len(target) else None
            if target is None:
                break
        if isinstance(target, dict) or (isinstance(target, list) and isinstance(path[-1], int) and path[-1] < len(target)):
            target[path[-1]] = value
    text = yaml.safe_dump(data, sort_keys=False)
    try:
        load(text)
    except SpecError as exc:
        assert exc.problems and all(p.location.line >= 1 for p in exc.problems)


def test_low_ink_fills_nothing_but_paper_white(run, tmp_path):
    """Low ink: no tint, road fill, chequer or back pattern; only white label boxes are filled.
    Normal ink tints the coloured tiles in their colours."""
    from test_golden import describe_pdf

    def fills(ink: str) -> set:
        target = tmp_path / f"{ink}.pdf"
        assert run("render", str(HOUSE), "-o", str(target), "--ink", ink).exit_code == 0
        return {tuple(item["fill"]) for page in describe_pdf(target)["pages"] for item in page["items"] if item.get("paint", "S") not in ("S", "n") and "fill" in item}

    assert fills("low") == {(1.0, 1.0, 1.0)}
    normal = fills("normal")
    assert len(normal) > 5 and (0.102, 0.102, 0.102) in normal  # the tints, the road, the chequer


def test_strict_refuses_a_set_that_makes_no_road(run, write):
    """No road tile joins two sides: every game is sealed at its starts, so validate --strict
    (and build) refuse the set at its tiles; plain validate takes it (it is well formed)."""
    import re

    text = re.sub(r"openings: [A-Z]+, count", "openings: '', count", GOOD)
    path = write(text)
    assert run("validate", path).exit_code == 0
    result = run("validate", "--strict", path)
    row = next(i for i, line in enumerate(text.splitlines()) if line.startswith("  - {name:")) + 1
    assert (result.exit_code, result.stderr) == (1, f"{path}:{row}:3: error: no game on this set can be finished: no road tile joins two sides (give some straights or curves, e.g. openings: NS)\n")
    assert run("validate", "--strict", str(HOUSE)).exit_code == 0
