"""League standings (issue 32): drop rounds, bonus points and tie-breaks (`sheetgen.league`),
a Rallyman solo league of several events (RD-18) and time logs from filled-in time sheets,
and the forum formats (`sheetgen.forum`: Markdown and BBCode). Every expected table here is
worked out by hand in the comments beside it."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheetgen.forum import Table, bbcode, markdown
from sheetgen.league import Entry, kept_rounds, table

LEAGUE = "track_specs/rallyman/results/gt_solo_league.yaml"


# --------------------------------------------------------------------------- the core


def test_best_rounds_keep_the_highest_scores_and_drop_the_earliest_of_equals():
    assert kept_rounds([12, 4, 13], 2) == (True, False, True)
    assert kept_rounds([6, 6, 6], 2) == (False, True, True)  # equal: the earliest dropped
    assert kept_rounds([0, 3, 7], 5) == (True, True, True)  # fewer rounds than best: all count
    assert kept_rounds([1, 2], None) == (True, True)


def test_ties_are_broken_by_countback_then_the_latest_round_then_shared():
    # rounds of places and points (no bonus): X and Y both 16, X won a round, Y none;
    # Z and W both 12 with one second place each: W was 2nd in the latest round, Z 3rd;
    # U and V both 0 with the same places: they share 5th
    rounds = [
        {"X": Entry(1, 10), "Y": Entry(2, 8), "Z": Entry(2, 8), "W": Entry(3, 6), "U": Entry(None, 0)},
        {"X": Entry(4, 6), "Y": Entry(2, 8), "Z": Entry(3, 4), "W": Entry(2, 6), "V": Entry(None, 0)},
    ]
    rows = table(["U", "V", "W", "X", "Y", "Z"], rounds, None)
    assert [(r.place, r.driver, r.total, r.tie) for r in rows] == [
        (1, "X", 16, ""),
        (2, "Y", 16, "countback"),
        (3, "W", 12, ""),
        (4, "Z", 12, "latest round"),
        (5, "U", 0, ""),
        (5, "V", 0, "tied"),
    ]


def test_bonus_points_count_and_a_dropped_round_takes_its_bonus_with_it():
    rounds = [{"A": Entry(1, 10, (("stage_win", 1), ("clean_run", 2)))}, {"A": Entry(2, 6, (("stage_win", 1),))}]
    (row,) = table(["A"], rounds, 1)
    assert (row.total, row.kept) == (13, (True, False))


# --------------------------------------------------------------------------- forum formats


def test_markdown_and_bbcode_of_a_table_exactly():
    t = Table("Cup | final", ("Pos", "Driver", "Pts"), (("1", "A*b_c", "10"), ("2", "[D]", "(8)")), "rlr", ("Note ~x~",))
    assert markdown([t]) == (
        "**Cup \\| final**\n"
        "\n"
        "| Pos | Driver | Pts |\n"
        "| ---: | :--- | ---: |\n"
        "| 1 | A\\*b\\_c | 10 |\n"
        "| 2 | \\[D\\] | (8) |\n"
        "\n"
        "- Note \\~x\\~\n"
    )
    assert bbcode([t]) == (
        "[b]Cup | final[/b]\n"
        "[table]\n"
        "[tr][th]Pos[/th][th]Driver[/th][th]Pts[/th][/tr]\n"
        "[tr][td]1[/td][td]A*b_c[/td][td]10[/td][/tr]\n"
        "[tr][td]2[/td][td]\uff3bD\uff3d[/td][td](8)[/td][/tr]\n"
        "[/table]\n"
        "Note ~x~\n"
    )


# --------------------------------------------------------------------------- a Rallyman solo league


def test_the_bundled_gt_league_against_the_hand_computed_table(run):
    """Points 10, 6, 4, 3, 2, 1; best 2 events; stage win +1, fastest stage (the last) +2,
    clean run +1.

    January: Ana 100+120 = 220 (1st, 10; fastest on Col Sprint +1; clean: 0 losses on both,
    the second from her log +1: 12), Chloe 105+118 = 223 (2nd, 6; fastest on the last stage
    +1 +2: 9), Ben 101+130 = 231 (3rd, 4), Dev dnf (unplaced, 0).
    February: Ben 289 (1st, 10; both stage wins +2 (tied on the last with Chloe), fastest stage
    +2, clean +1: 15), Chloe 294 (2nd, 6; stage win +1, fastest stage +2, clean +1: 10), Ana 301
    (3rd, 4), Dev 305 (4th, 3). March: Ana 316 (1st, 10; last stage +1 +2: 13), Dev 318 (2nd, 6;
    stage 1 +1: 7), Ben dnf (0), Chloe not in it. April not run.
    Best 2: Ana 13 + 12 = 25 (drops February's 4), Ben 15 + 4 = 19 (drops March's 0), Chloe
    10 + 9 = 19, Dev 7 + 3 = 10 (drops January's 0). Ben and Chloe tie on 19: countback, Ben
    has a win (February), Chloe none."""
    data = json.loads(run("standings", LEAGUE, "--format", "json").stdout)
    got = [(r["place"], r["driver"], [(x["score"], x["kept"]) for x in r["rounds"]], r["total"], r["tie_break"]) for r in data["table"]]
    assert got == [
        (1, "Ana", [(12, True), (4, False), (13, True)], 25, None),
        (2, "Ben", [(4, True), (15, True), (0, False)], 19, None),
        (3, "Chloe", [(9, True), (10, True), (None, False)], 19, "countback"),
        (4, "Dev", [(0, False), (3, True), (7, True)], 10, None),
    ]
    january = data["events"][0]["points"]
    assert january["Ana"] == {"place": 1, "points": 10, "bonus": {"stage_win": 1, "clean_run": 1}, "score": 12}
    assert january["Chloe"]["bonus"] == {"stage_win": 1, "fastest_stage": 2}
    assert data["events"][1]["points"]["Ben"]["bonus"] == {"stage_win": 2, "fastest_stage": 2, "clean_run": 1}
    assert [e["run"] for e in data["events"]] == [True, True, True, False]
    assert data["league"] == {"points": [10, 6, 4, 3, 2, 1], "best": 2, "bonus": {"stage_win": 1, "fastest_stage": 2, "clean_run": 1}}


MINI = """\
game: rallyman
kind: results
variant: gt
name: Mini League
league: {points: [5, 3, 1], best: 1, bonus: {stage_win: 1, clean_run: 2}}
events:
  - name: Rd 1
    stages: [Col]
    drivers:
      - {name: A|x, times: [{log: ["6 10", "5 15 lost", "0 60"]}]}
      - {name: B, times: [{time: 90, lost_control: 0}]}
  - name: Rd 2
    stages: [Ring]
    drivers:
      - {name: A|x, times: [80]}
      - {name: "[C]", times: [{time: 80, lost_control: 0}]}
"""

# Rd 1: A|x 10+15+60 = 85 s (1st, 5; stage win +1; a loss of control: no clean run), B 90
# (2nd, 3; clean +2). Rd 2: A|x and [C] tie on 80 (both 1st, 5, both a stage win +1; [C] clean
# +2, A|x's losses unknown). Best 1: [C] 8; A|x 6 (the two 6s: the earlier dropped); B 5.
MINI_MARKDOWN = """\
**Mini League (Rallyman GT league): 2 of 2 events run**

| Pos | Driver | Rd 1 | Rd 2 | Total |
| ---: | :--- | ---: | ---: | ---: |
| 1 | \\[C\\] | - | 5+3 | 8 |
| 2 | A\\|x | (5+1) | 5+1 | 6 |
| 3 | B | 3+2 | - | 5 |

- House rules: points per place 5, 3, 1; best 1 round counts; stage win +1; clean run +2.
- (N): a round dropped; N+B: place points N and bonus points B.
- Ties: more points counted, then countback (more round wins, then more second places...), then the better place in the latest round; still tied, the drivers share the place.

**Rd 1 (Rallyman GT): standings**

| Pos | Driver | S1 Col | Total | Gap | Points |
| ---: | :--- | ---: | ---: | ---: | ---: |
| 1 | A\\|x | 1:25 | 1:25 |  | 5+1 |
| 2 | B | 1:30 | 1:30 | +0:05 | 3+2 |

- 1 of 1 stage run. Fastest: S1 A\\|x.

**Rd 2 (Rallyman GT): standings**

| Pos | Driver | S1 Ring | Total | Gap | Points |
| ---: | :--- | ---: | ---: | ---: | ---: |
| 1 | A\\|x | 1:20 | 1:20 |  | 5+1 |
| 1 | \\[C\\] | 1:20 | 1:20 |  | 5+3 |

- 1 of 1 stage run. Fastest: S1 A\\|x, \\[C\\].

**A\\|x: Rd 1, stage 1 Col time log**

| Turn | Gear | Seconds | Total | Lost control | Damage |
| ---: | ---: | ---: | ---: | :--- | ---: |
| 1 | 6 | 10 | 0:10 |  |  |
| 2 | 5 | 15 | 0:25 | lost |  |
| 3 | 0 | 60 | 1:25 |  |  |

- Stage time 1:25; 1 loss of control.
"""

MINI_BBCODE = """\
[b]Mini League (Rallyman GT league): 2 of 2 events run[/b]
[table]
[tr][th]Pos[/th][th]Driver[/th][th]Rd 1[/th][th]Rd 2[/th][th]Total[/th][/tr]
[tr][td]1[/td][td]\uff3bC\uff3d[/td][td]-[/td][td]5+3[/td][td]8[/td][/tr]
[tr][td]2[/td][td]A|x[/td][td](5+1)[/td][td]5+1[/td][td]6[/td][/tr]
[tr][td]3[/td][td]B[/td][td]3+2[/td][td]-[/td][td]5[/td][/tr]
[/table]
House rules: points per place 5, 3, 1; best 1 round counts; stage win +1; clean run +2.
(N): a round dropped; N+B: place points N and bonus points B.
Ties: more points counted, then countback (more round wins, then more second places...), then the better place in the latest round; still tied, the drivers share the place.

[b]Rd 1 (Rallyman GT): standings[/b]
[table]
[tr][th]Pos[/th][th]Driver[/th][th]S1 Col[/th][th]Total[/th][th]Gap[/th][th]Points[/th][/tr]
[tr][td]1[/td][td]A|x[/td][td]1:25[/td][td]1:25[/td][td][/td][td]5+1[/td][/tr]
[tr][td]2[/td][td]B[/td][td]1:30[/td][td]1:30[/td][td]+0:05[/td][td]3+2[/td][/tr]
[/table]
1 of 1 stage run. Fastest: S1 A|x.

[b]Rd 2 (Rallyman GT): standings[/b]
[table]
[tr][th]Pos[/th][th]Driver[/th][th]S1 Ring[/th][th]Total[/th][th]Gap[/th][th]Points[/th][/tr]
[tr][td]1[/td][td]A|x[/td][td]1:20[/td][td]1:20[/td][td][/td][td]5+1[/td][/tr]
[tr][td]1[/td][td]\uff3bC\uff3d[/td][td]1:20[/td][td]1:20[/td][td][/td][td]5+3[/td][/tr]
[/table]
1 of 1 stage run. Fastest: S1 A|x, \uff3bC\uff3d.

[b]A|x: Rd 1, stage 1 Col time log[/b]
[table]
[tr][th]Turn[/th][th]Gear[/th][th]Seconds[/th][th]Total[/th][th]Lost control[/th][th]Damage[/th][/tr]
[tr][td]1[/td][td]6[/td][td]10[/td][td]0:10[/td][td][/td][td][/td][/tr]
[tr][td]2[/td][td]5[/td][td]15[/td][td]0:25[/td][td]lost[/td][td][/td][/tr]
[tr][td]3[/td][td]0[/td][td]60[/td][td]1:25[/td][td][/td][td][/td][/tr]
[/table]
Stage time 1:25; 1 loss of control.
"""


def test_standings_as_markdown_exactly(run, write):
    result = run("standings", write(MINI), "--format", "markdown")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == MINI_MARKDOWN


def test_standings_as_bbcode_exactly(run, write):
    result = run("standings", write(MINI), "--format", "bbcode")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == MINI_BBCODE


def test_a_rallys_time_logs_in_the_forum_formats(run, write):
    """A single rally (no league) gives its standings table and each driver's time log; a
    DIRT log rings the icon of a loss of control."""
    path = write(
        "game: rallyman\nkind: results\nvariant: dirt\nname: Solo\nstages: [Lake]\ndrivers:\n"
        '  - {name: Ana, times: [{log: ["3 30", "4 24 spin", "6 12"], time: "1:06"}]}\n'
    )
    # 30 + 24 + 12 = 66 s = 1:06
    assert run("standings", path, "--format", "markdown").stdout == (
        "**Solo (Rallyman DIRT): standings**\n\n"
        "| Pos | Driver | S1 Lake | Total | Gap |\n"
        "| ---: | :--- | ---: | ---: | ---: |\n"
        "| 1 | Ana | 1:06 | 1:06 |  |\n\n"
        "- 1 of 1 stage run. Fastest: S1 Ana.\n\n"
        "**Ana: stage 1 Lake time log**\n\n"
        "| Turn | Card | Seconds | Total | Lost control |\n"
        "| ---: | ---: | ---: | ---: | :--- |\n"
        "| 1 | 3 | 30 | 0:30 |  |\n"
        "| 2 | 4 | 24 | 0:54 | Spin |\n"
        "| 3 | 6 | 12 | 1:06 |  |\n\n"
        "- Stage time 1:06; 1 loss of control.\n"
    )


def test_text_and_json_of_a_league_name_the_dropped_rounds_and_the_tie_break(run):
    text = run("standings", LEAGUE).stdout
    assert "    2  Ben           4      10+5    (0)     19" in text
    assert "Ben ahead of Chloe on 19 points: countback." in text
    assert "Still to run: April." in text


@pytest.mark.parametrize(
    ("body", "where", "message"),
    [
        # a league option out of range, a points scale that rises, an unknown bonus
        ("league: {best: 0}\n", "5:16", "'best' must be at least 1, got 0"),
        ("league: {points: [10, 12]}\n", "5:23", "place 2 scores 12, more than place 1's 10: a league's points never rise down the places"),
        ("league: {bonus: {pole: 1}}\n", "5:18", None),
    ],
)
def test_league_options_are_refused_at_their_values(run, write, body, where, message):
    path = write(
        "game: rallyman\nkind: results\nvariant: gt\nname: L\n" + body
        + "events:\n  - name: E\n    stages: [S]\n    drivers:\n      - {name: A, times: [60]}\n"
    )
    result = run("validate", path)
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{where}: error: ")
    if message is not None:
        assert lines[0] == f"{path}:{where}: error: {message}"


@pytest.mark.parametrize(
    ("entry", "where", "message"),
    [
        ('{log: ["6 10", "5 15"], time: 30}', "7:53", "the log's 2 turns add up to 0:25 (25 s), not 0:30"),
        ('{log: ["6 10", "5 15 lost"], lost_control: 0}', "7:66", "the log records 1 loss of control, not 0"),
        ('{log: ["7 10"]}', "7:30", 'a turn must be "GEAR SECONDS" (gear 00 or 0 to 6, seconds 0 to 999), then marks, got \'7 10\''),
        ('{log: ["6 10 spin"]}', "7:30", "'spin' in turn '6 10 spin': a GT turn may say lost, dN (damage tokens drawn), once each"),
        ("{lost_control: 1}", "7:23", "a stage given as a mapping needs its time or its log"),
    ],
)
def test_a_time_sheets_values_are_checked_where_they_are_written(run, write, entry, where, message):
    path = write(f"game: rallyman\nkind: results\nvariant: gt\nname: R\nstages: [S]\ndrivers:\n  - {{name: A, times: [{entry}]}}\n")
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (1, f"{path}:{where}: error: {message}\n")


def test_league_options_need_events_and_events_take_no_stages_of_their_own(run, write):
    rally = write("game: rallyman\nkind: results\nname: R\nleague: {best: 1}\nstages: [S]\ndrivers:\n  - {name: A, times: [1]}\n")
    result = run("validate", rally)
    assert (result.exit_code, result.stderr) == (1, f"{rally}:4:1: error: league options need events: (a league of several events)\n")
    both = write(
        "game: rallyman\nkind: results\nname: R\nstages: [S]\nevents:\n  - name: E\n    stages: [S]\n    drivers:\n"
        "      - {name: A, times: [1]}\n",
        "both.yaml",
    )
    result = run("validate", both)
    assert (result.exit_code, result.stderr) == (1, f"{both}:4:1: error: a league gives each event's stages under events: not stages of its own\n")


# --------------------------------------------------------------------------- a Rally Risk championship

RALLY_RISK = """\
game: rally_risk
kind: results
name: League Cup
league: {best: 2, bonus: {stage_win: 1, fastest_stage: 2, clean_run: 1}}
players: [A, B, C]
rallies:
  - rally: R1
    races:
      - finish: {A: 12, B: 10, C: 10}
      - finish: {C: 11, B: 9, A: destroyed}
  - rally: R2
    races:
      - finish: {B: 10, C: 10, A: 10}
  - rally: R3
    races:
      - finish: {A: 14, C: 12, B: 11}
"""

# Score A = rounds behind the first car home - place in the starting order (RR-19).
# R1 race 1 (A, B, C leave): A 2-1 = +1, B 0-2 = -2, C 0-3 = -3 (stage win C). Race 2 (C, B,
# A leave): C 2-1 = +1, B 0-2 = -2 (stage win; first home, the last race: fastest stage), A
# destroyed = the last arrival's +1 + 2 = +3. Totals A +4, B -4, C -2: B 9 +1 +2 +1 (clean)
# = 13, C 6 +1 +1 = 8, A 4 (destroyed: no clean run).
# R2 (B, C, A leave, all home in round 10): B -1, C -2, A -3: A 9 +1 (stage win), and all
# three first home (+2) and clean (+1): A 13, C 9, B 7.
# R3 (A, C, B leave): A 3-1 = +2, C 1-2 = -1, B 0-3 = -3: B 9 +1 +2 +1 = 13, C 6 +1 = 7, A 4 +1 = 5.
# Best 2: B 13 + 13 = 26 (drops R2's 7), A 13 + 5 = 18 (drops R1's 4), C 9 + 8 = 17 (drops
# R3's 7). The rulebook's table without the league: B 22, C 18, A 17.
RALLY_RISK_MARKDOWN = """\
**League Cup: championship**

| Pos | Player | R1 | R2 | R3 | Points |
| ---: | :--- | ---: | ---: | ---: | ---: |
| 1 | B | 9+4 | (4+3) | 9+4 | 26 |
| 2 | A | (4) | 9+4 | 4+1 | 18 |
| 3 | C | 6+2 | 6+3 | (6+1) | 17 |

- 9, 6, 4, 3, 2, 1 points per rally (the rulebook); house rules: best 2 rounds count; stage win +1; fastest stage +2; clean run +1.
- (N): a rally dropped; N+B: place points N and bonus points B.
- Ties: more points counted, then countback (more round wins, then more second places...), then the better place in the latest round; still tied, the drivers share the place.
- Next race leaves in this order: B, C, A.
- It is chosen by the last to arrive: A.

**R1**

| Player | race 1 | race 2 | Total | Place | Points |
| :--- | ---: | ---: | ---: | ---: | ---: |
| A | +1 | +3 destroyed | +4 | 3 | 4 |
| B | -2 | -2 | -4 | 1 | 9 |
| C | -3 | +1 | -2 | 2 | 6 |

- Score A per race: rounds behind the first car home minus the place in the starting order; the least wins.
"""


def test_a_rally_risk_league_against_the_hand_computed_table(run, write):
    path = write(RALLY_RISK)
    result = run("standings", path, "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(RALLY_RISK_MARKDOWN)
    data = json.loads(run("standings", path, "--format", "json").stdout)
    table = [(r["place"], r["player"], [(x["score"], x["kept"]) for x in r["rallies"]], r["total"]) for r in data["league"]["table"]]
    assert table == [
        (1, "B", [(13, True), (7, False), (13, True)], 26),
        (2, "A", [(4, False), (13, True), (5, True)], 18),
        (3, "C", [(8, True), (9, True), (7, False)], 17),
    ]
    assert data["league"]["table"][0]["rallies"][0]["bonus"] == ["stage_win", "fastest_stage", "clean_run"]
    assert [(r["place"], r["player"], r["points"]) for r in data["championship"]] == [(1, "B", 26), (2, "A", 18), (3, "C", 17)]
    # without the league: the rulebook's table, ties shared
    plain = json.loads(run("standings", write(RALLY_RISK.replace("league: {best: 2, bonus: {stage_win: 1, fastest_stage: 2, clean_run: 1}}\n", ""), "plain.yaml"), "--format", "json").stdout)
    assert [(r["place"], r["player"], r["points"]) for r in plain["championship"]] == [(1, "B", 22), (2, "C", 18), (3, "A", 17)]
    assert "league" not in plain


def test_a_rally_risk_league_in_bbcode(run, write):
    out = run("standings", write(RALLY_RISK), "--format", "bbcode").stdout
    assert out.startswith(
        "[b]League Cup: championship[/b]\n[table]\n"
        "[tr][th]Pos[/th][th]Player[/th][th]R1[/th][th]R2[/th][th]R3[/th][th]Points[/th][/tr]\n"
        "[tr][td]1[/td][td]B[/td][td]9+4[/td][td](4+3)[/td][td]9+4[/td][td]26[/td][/tr]\n"
        "[tr][td]2[/td][td]A[/td][td](4)[/td][td]9+4[/td][td]4+1[/td][td]18[/td][/tr]\n"
        "[tr][td]3[/td][td]C[/td][td]6+2[/td][td]6+3[/td][td](6+1)[/td][td]17[/td][/tr]\n[/table]\n"
    )


def test_a_rally_risk_league_keeps_the_rulebooks_points(run, write):
    """Rally Risk's points per place are the rulebook's ("Scores"): a league may not replace them."""
    path = write(RALLY_RISK.replace("league: {best: 2,", "league: {points: [3], best: 2,"))
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (1, f"{path}:4:10: error: unknown key 'points' (expected one of: best, bonus)\n")


def test_the_rally_risk_standings_sheet_shows_the_drops_and_bonus(tmp_path, run, write):
    from pypdf import PdfReader

    target = tmp_path / "cup.pdf"
    assert run("standings", write(RALLY_RISK), "-o", str(target)).exit_code == 0
    text = PdfReader(str(target)).pages[0].extract_text()
    for needle in ("(4+3)", "(6+1)", "9+4", "best 2 rounds count", "(N): a rally dropped"):
        assert needle in text, needle


def outline_kinds(reader) -> list[tuple[str, int]]:
    return [(entry.title, reader.get_destination_page_number(entry) + 1) for entry in reader.outline]


def test_the_rallyman_league_sheet_on_a4_and_letter():
    """The league table first (drops in brackets, bonus as +N, the house rules and the tie-break
    in its notes), then a page per event run with each driver's points."""
    from io import BytesIO

    from pypdf import PdfReader

    from sheetgen import registry
    from sheetgen.render.rallyman.standings import print_standings
    from sheetgen.template import load_template

    spec = registry.load_spec(LEAGUE)
    for paper, size in (("a4", (595.28, 841.89)), ("letter", (612.0, 792.0))):
        pdf, pages = print_standings(spec, load_template("rallyman"), paper=paper, ink="low", keywords=())
        reader = PdfReader(BytesIO(pdf))
        assert pages == len(reader.pages) == 5  # the league table, January, February, March, the time logs
        box = reader.pages[0].mediabox
        assert (round(float(box.width), 2), round(float(box.height), 2)) == size
        first = reader.pages[0].extract_text()
        for needle in ("Forum GT League: league standings", "10+2", "(4)", "10+5", "(0)", "best 2 rounds count", "Ben ahead of Chloe on 19 points: countback.", "Still to run: April."):
            assert needle in first, needle
        february = reader.pages[2].extract_text()
        assert "Forum GT League: February" in february and "10+5" in february and "6+4" in february
        # the time logs the drivers posted, as the forum formats give them: Ana's January
        # stage 2, seven turns "3 30" ... "6 10" adding up to 2:00; Chloe's stage 1 with a loss
        # of control in gear 0 (60 s) drawing one damage token: 1:45
        logs = [line.strip() for line in reader.pages[4].extract_text().splitlines()]
        assert logs[0] == "Forum GT League: time logs"
        ana = logs.index("Ana: January, stage 2 Wide Boulevard: Stage time 2:00; 0 losses of control.")
        chloe = logs.index("Chloe: January, stage 1 Col Sprint: Stage time 1:45; 1 loss of control.")
        end = next(k for k, line in enumerate(logs) if line.startswith("Each driver's turns"))
        assert " ".join(logs[ana + 1 : chloe]) == "1 3 30 0:30 2 4 20 0:50 3 5 15 1:05 4 6 10 1:15 5 5 15 1:30 6 4 20 1:50 7 6 10 2:00"
        assert " ".join(logs[chloe + 1 : end]) == "1 4 20 0:20 2 0 60 1:20 lost 1 3 5 15 1:35 4 6 10 1:45"
        assert [kind for kind, _page in outline_kinds(reader)][-1:] == ["time logs"]


def test_an_event_given_twice_is_refused_at_its_name(run, write):
    path = write(
        "game: rallyman\nkind: results\nname: L\nevents:\n"
        "  - name: May\n    stages: [S]\n    drivers:\n      - {name: A, times: [60]}\n"
        "  - name: May\n    stages: [S]\n    drivers:\n      - {name: A, times: [61]}\n"
    )
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (1, f"{path}:9:11: error: event 'May' is given twice (first as event 1)\n")


def test_the_forum_formats_are_the_same_bytes_every_time(run, write):
    path = write(MINI)
    for fmt in ("markdown", "bbcode"):
        first = run("standings", path, "--format", fmt).stdout_bytes
        assert first == run("standings", path, "--format", fmt).stdout_bytes
        assert first.decode() == (MINI_MARKDOWN if fmt == "markdown" else MINI_BBCODE)


def _darkness(data: bytes):
    pypdfium2 = pytest.importorskip("pypdfium2")
    numpy = pytest.importorskip("numpy")
    document = pypdfium2.PdfDocument(data)
    for page in document:
        yield 255 - numpy.asarray(page.render(scale=100 / 72, grayscale=True).to_numpy(), dtype=numpy.int64)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game", ["rallyman", "rally_risk"])
def test_league_sheets_keep_the_margins_and_low_ink_saves_ink(paper, game, write):
    """Every page of a league sheet: nothing within 10 mm of an edge (less 0.4 mm: half a
    thick line and a pixel of antialiasing), and low ink takes at most 3/4 of the ink."""
    from sheetgen import registry
    from sheetgen.render import build_outputs

    spec = registry.load_spec(LEAGUE if game == "rallyman" else write(RALLY_RISK))
    normal = list(_darkness(build_outputs(spec, paper=paper)[0]))
    low = list(_darkness(build_outputs(spec, paper=paper, ink="low")[0]))
    assert len(normal) == len(low) == (5 if game == "rallyman" else 1)  # (rallyman: and the time logs)
    edge = int((10 - 0.4) * 100 / 25.4)
    for dark in normal + low:
        assert dark.any()
        for band in (dark[:edge, :], dark[-edge:, :], dark[:, :edge], dark[:, -edge:]):
            assert band.max() == 0
    for n, lo in zip(normal, low):
        assert lo.sum() <= 0.75 * n.sum()


# --------------------------------------------------------------------------- properties

@st.composite
def _leagues(draw):
    drivers = draw(st.integers(1, 5))
    rounds = draw(st.integers(0, 5))
    made = []
    for _ in range(rounds):
        entries = {}
        for d in range(drivers):
            if draw(st.booleans()) or d == 0:
                place = draw(st.one_of(st.none(), st.integers(1, drivers)))
                bonus = tuple(("stage_win", 1) for _ in range(draw(st.integers(0, 2))))
                entries[f"D{d}"] = Entry(place, draw(st.integers(0, 10)), bonus)
        made.append(entries)
    best = draw(st.one_of(st.none(), st.integers(1, 6)))
    return [f"D{d}" for d in range(drivers)], made, best


@settings(max_examples=60, deadline=None)
@given(_leagues())
def test_a_league_total_is_the_best_subset_of_rounds_and_the_table_is_in_order(league):
    """Oracle: the total is the largest sum of any `best` of the driver's round scores (every
    subset tried); the table runs from most points down, places never fall behind the row
    number, and a shared place only ever joins drivers on equal points and equal countback."""
    drivers, rounds, best = league
    rows = table(drivers, rounds, best)
    assert sorted(r.driver for r in rows) == sorted(drivers)
    for row in rows:
        scores = [r[row.driver].score if row.driver in r else 0 for r in rounds]
        k = len(scores) if best is None else min(best, len(scores))
        assert row.total == max((sum(c) for c in combinations(scores, k)), default=0)
        assert sum(row.kept) == k
    for i, (above, row) in enumerate(zip(rows, rows[1:]), 2):
        assert above.total >= row.total
        assert row.place == i or (row.tie == "tied" and row.place == above.place)
        if row.tie == "tied":
            assert (above.total, above.places) == (row.total, row.places)


def test_a_bad_league_file_writes_nothing_and_an_events_track_is_checked_where_it_is_named(run, write, tmp_path):
    path = write(
        "game: rallyman\nkind: results\nvariant: gt\nname: L\nevents:\n  - name: E\n"
        "    stages: [{name: S, track: nope.yaml}]\n    drivers:\n      - {name: A, times: [60]}\n"
    )
    target = tmp_path / "out.pdf"
    result = run("standings", path, "-o", str(target), "--format", "markdown")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"{path}:7:31: error: stage 'S': no track file 'nope.yaml' (a path from this file's folder)\n"
    assert not target.exists()
