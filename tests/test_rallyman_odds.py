"""Rallyman's exact odds: flat out and one at a time, against hand-computed values and a
brute-force enumeration of every roll and every securing strategy; the `odds` command through
the CLI (a test game carrying the options, until the real rallyman game is registered); the
dashboard card's odds table."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheetgen import registry
from sheetgen.games.rallyman.odds import (
    CARD_PLANS,
    Plan,
    PlannedDie,
    flat_out,
    odds,
    odds_report,
    odds_table,
    one_at_a_time,
    parse_dice,
    plan_of,
)
from sheetgen.games.rallyman.options import ODDS_OPTIONS
from sheetgen.games.rallyman.ruleset import DIRT, GT, default, ruleset_from_mapping
from sheetgen.registry import Game, Kind

F = Fraction
RULES = default(GT)


def _plan(text: str, extra: int = 0, ruleset=RULES) -> Plan:
    return plan_of(ruleset, text, extra)


# --------------------------------------------------------------------------- flat out


def test_three_gear_4_dice_flat_out_lose_control_with_1_in_27():
    # each has 2 caution faces of 6: one minus the chance of at most two cautions
    at_most_two = 1 - F(1, 3) ** 3
    assert flat_out(_plan("4,4,4"), RULES).lose_control == 1 - at_most_two == F(1, 27)


def test_gear_1_gear_2_and_coast_flat_out_lose_control_with_1_in_216():
    assert flat_out(_plan("1,2,coast"), RULES).lose_control == F(1, 216)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (0, F(1, 27)),
        (1, 3 * F(1, 3) ** 2 * F(2, 3) + F(1, 27)),  # two or three cautions of three: 7/27
        (2, 1 - F(2, 3) ** 3),  # any caution: 19/27
        (3, F(1)),
    ],
)
def test_extra_cautions_count_towards_the_limit(extra, expected):
    assert flat_out(_plan("4,4,4", extra), RULES).lose_control == expected


def test_a_caution_mark_on_a_space_counts_like_an_extra_caution_flat_out():
    assert flat_out(_plan("4,4!,4"), RULES).lose_control == F(7, 27)
    assert flat_out(_plan("4!!,4,4"), RULES).lose_control == F(19, 27)


def test_the_issue_plan_flat_out():
    # 3, 4, brake have 2 caution faces, coast 1: three or four cautions of four
    p = [F(1, 3), F(1, 3), F(1, 6), F(1, 3)]
    all_four = p[0] * p[1] * p[2] * p[3]
    three = sum(p[0] * p[1] * p[2] * p[3] / p[i] * (1 - p[i]) for i in range(4))
    assert flat_out(_plan("3,4,coast,brake"), RULES).lose_control == all_four + three == F(2, 27)


def test_flat_out_earns_a_token_per_gear_and_coast_die_not_brake_or_boost():
    assert flat_out(_plan("3,4,coast,brake,boost"), RULES).tokens_earned == 3
    assert flat_out(_plan("4,leader,coast,brake", ruleset=default(DIRT)), default(DIRT)).tokens_earned == 3


def test_dirt_leader_die_has_two_caution_faces():
    assert flat_out(_plan("leader,leader,leader", ruleset=default(DIRT)), default(DIRT)).lose_control == F(1, 27)


def test_a_ruleset_giving_gear_3_one_caution_face_changes_the_odds():
    hobby = ruleset_from_mapping({"dice": {3: {"cautions": 1}}})
    assert flat_out(_plan("3,3,3", ruleset=hobby), hobby).lose_control == F(1, 216)


# --------------------------------------------------------------------------- focus and one at a time


def test_focus_cost_series_is_1_3_6_10():
    costs = RULES.focus
    assert [costs.cost(k) for k in range(1, 5)] == [1, 2, 3, 4]
    assert [costs.total(k) for k in range(1, 5)] == [1, 3, 6, 10]


@pytest.mark.parametrize("text", ["4,4,4", "1,2,coast", "3,4,coast,brake", "4!,5,6", "6,brake,4,coast,coast", "2"])
@pytest.mark.parametrize("extra", [0, 1, 2])
def test_one_at_a_time_with_no_tokens_completes_exactly_when_flat_out_does_not_lose_control(text, extra):
    plan = _plan(text, extra)
    assert one_at_a_time(plan, RULES, 0).complete == 1 - flat_out(plan, RULES).lose_control


@pytest.mark.parametrize("text", ["4,4,4", "3,4,5,6", "1,2,3,4,5,6", "6,brake,brake,3,4,5"])
def test_with_enough_tokens_to_secure_every_die_the_plan_always_completes(text):
    plan = _plan(text)
    enough = RULES.focus.total(len(plan.dice))
    result = one_at_a_time(plan, RULES, enough)
    assert (result.complete, result.expected_dice) == (1, len(plan.dice))
    assert result.expected_spent < enough  # a die is secured only when it could lose control


def test_three_gear_4_dice_with_one_token_secure_the_third_after_two_cautions():
    result = one_at_a_time(_plan("4,4,4"), RULES, 1)
    # always complete; the token is spent only after two cautions (1/9), never earlier
    assert (result.complete, result.expected_spent, result.expected_dice) == (1, F(1, 9), 3)
    assert [(s.die, s.cautions, s.secured, s.cost) for s in result.secures] == [(3, 2, 0, 1)]


def test_four_gear_4_dice_with_one_token_by_hand():
    # complete unless three cautions are rolled; the token secures the die after the second
    # caution: at most one caution in four (48/81); two after die 2, then die 4 safe (1/9 * 2/3);
    # two after die 3 (4/27), die 4 secured; two after die 4 (4/27): 78/81
    assert one_at_a_time(_plan("4,4,4,4"), RULES, 1).complete == F(48, 81) + F(1, 9) * F(2, 3) + F(4, 27) + F(4, 27) == F(26, 27)
    assert one_at_a_time(_plan("4,4,4,4"), RULES, 0).complete == 1 - F(1, 9)


def test_a_marked_space_counts_even_when_its_die_is_secured():
    # die 2's space gives two cautions: one more rolled on either die loses control. Securing
    # die 2 saves its roll, not its space: one token holds one die (2/3), three hold both
    plan = _plan("4,4!!")
    assert [one_at_a_time(plan, RULES, f).complete for f in (0, 1, 3)] == [F(4, 9), F(2, 3), 1]
    assert one_at_a_time(_plan("4,4!!!"), RULES, 10).complete == 0
    assert one_at_a_time(_plan("4", 3), RULES, 10).complete == 0  # the limit is reached before the first die


def test_by_dice_is_the_chance_of_placing_the_first_dice():
    result = one_at_a_time(_plan("4,4,4,4"), RULES, 0)
    assert result.by_dice == (1, 1, 1 - F(1, 27), 1 - F(1, 9))


# --------------------------------------------------------------------------- brute force


def _trees(plan, i, cautions, secured, spent, tokens):
    """Every deterministic securing strategy from die i on (the player sees each result), as
    a tree: None at the end or after a loss of control; ("roll", tree if safe, tree if a
    caution) or ("secure", tree)."""
    if i == len(plan.dice) or cautions >= 3:
        return [None]
    marks = plan.dice[i].marks
    out = [("roll", safe, hit) for safe in _trees(plan, i + 1, cautions + marks, secured, spent, tokens) for hit in _trees(plan, i + 1, cautions + marks + 1, secured, spent, tokens)]
    cost = secured + 1  # the rulebook: the first costs one, the second another two...
    if spent + cost <= tokens:
        out += [("secure", rest) for rest in _trees(plan, i + 1, cautions + marks, secured + 1, spent + cost, tokens)]
    return out


def _play(plan, tree, faces):
    """Follow a strategy on one roll of every die (face f < cautions shows a caution): (placed
    every die?, tokens spent, dice placed)."""
    cautions, secured, spent = plan.extra, 0, 0
    for i, (planned, face) in enumerate(zip(plan.dice, faces)):
        if cautions >= 3:
            return False, spent, i
        if tree[0] == "secure":
            secured += 1
            spent += secured
            cautions += planned.marks
            tree = tree[1]
        else:
            hit = face < planned.die.cautions
            cautions += planned.marks + hit
            tree = tree[2] if hit else tree[1]
        if cautions >= 3:
            return False, spent, i
    return True, spent, len(plan.dice)


def _brute_force(plan, tokens):
    """The best (chance of completing, then fewest tokens, then most dice) over every
    strategy, each valued over every roll of every die."""
    rolls = list(itertools.product(*(range(d.die.faces) for d in plan.dice)))
    best = None
    for tree in _trees(plan, 0, plan.extra, 0, 0, tokens):
        done = spent = placed = 0
        for faces in rolls:
            ok, s, n = _play(plan, tree, faces)
            done += ok
            spent += s
            placed += n
        value = (F(done, len(rolls)), -F(spent, len(rolls)), F(placed, len(rolls)))
        best = value if best is None or value > best else best
    return best


@pytest.mark.parametrize(
    ("text", "extra", "tokens"),
    [
        ("4,4,4", 0, 1),
        ("4,4,4", 1, 1),
        ("4,4,4", 0, 3),
        ("1,coast,5", 1, 2),
        ("3,4!,brake", 0, 1),
        ("coast,6,brake", 1, 3),
        ("2,3", 2, 1),
    ],
)
def test_the_dynamic_programme_agrees_with_brute_force_on_small_plans(text, extra, tokens):
    plan = _plan(text, extra)
    result = one_at_a_time(plan, RULES, tokens)
    assert _brute_force(plan, tokens) == (result.complete, -result.expected_spent, result.expected_dice)


@pytest.mark.parametrize(
    ("text", "extra", "tokens"),
    [("4,4,4,4", 0, 1), pytest.param("3,4,coast,brake", 0, 3, marks=pytest.mark.slow), ("4,5!,6,coast", 0, 4), ("1,2,3,4", 1, 2)],
)
def test_the_dynamic_programme_agrees_with_brute_force_on_four_dice(text, extra, tokens):
    plan = _plan(text, extra)
    result = one_at_a_time(plan, RULES, tokens)
    assert _brute_force(plan, tokens) == (result.complete, -result.expected_spent, result.expected_dice)


def test_more_tokens_never_lower_the_chance_of_completing():
    for text in CARD_PLANS:
        plan = _plan(text)
        chances = [one_at_a_time(plan, RULES, f).complete for f in range(11)]
        assert chances == sorted(chances), text


# --------------------------------------------------------------------------- the plan as written


def test_parse_dice_reads_names_colours_and_marks():
    assert parse_dice("3, 4!,White,red,coast!!") == (("3", 0), ("4", 1), ("coast", 0), ("brake", 0), ("coast", 2))


@pytest.mark.parametrize("bad", ["3,7,coast", "3,,4", "fast"])
def test_a_bad_die_names_the_die_kinds(bad):
    # the leader die is DIRT's only: GT's dice are not said to include it (issue 34)
    with pytest.raises(ValueError, match=r"unknown die .*: the dice are 1, 2, 3, 4, 5, 6, coast, brake, boost, and DIRT's leader \("):
        parse_dice(bad)


def test_gt_has_no_leader_die():
    with pytest.raises(ValueError, match=r"^Rallyman GT has no 'leader' die \(its dice: 1, 2, 3, 4, 5, 6, coast, brake, boost\)$"):
        plan_of(RULES, "4,leader")


# --------------------------------------------------------------------------- the command


ODDS_GAME = Game(
    name="rallyman_odds_test",
    title="Rallyman",
    schema=lambda: {"type": "object"},
    load=lambda doc: None,
    summary=lambda model: "",
    kinds=(Kind("track", "a hex track"),),
    template="race_sheet",
    options=ODDS_OPTIONS,
    odds=odds_report,
)


@pytest.fixture
def odds_game():
    registry.register(ODDS_GAME)
    yield "rallyman_odds_test"
    registry.unregister("rallyman_odds_test")


def test_odds_json_through_the_cli(run, odds_game):
    result = run("odds", odds_game, "--variant", "gt", "--dice", "4,4,4", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["flat_out"]["lose_control"] == "1/27" and data["flat_out"]["lose_control_p"] == 0.037
    assert data["one_at_a_time"]["complete"] == "26/27" and data["one_at_a_time"]["complete_p"] == 0.963
    assert data["plan"] == {"dice": ["4", "4", "4"], "marks": [0, 0, 0], "extra_cautions": 0, "focus": 0}
    assert data["ruleset"]["caution_limit"] == 3 and data["ruleset"]["caution_faces"] == {"4": {"cautions": 2, "faces": 6}}
    assert data["ruleset"]["focus_costs"] == [1, 3, 6, 10]
    assert data["house"] is None  # dice, limit and focus costs are the rulebook's


def test_odds_options_through_the_cli(run, odds_game):
    data = json.loads(run("odds", odds_game, "--dice", "4,4,4", "--extra-cautions", "1", "--focus", "1", "--format", "json").stdout)
    assert data["flat_out"]["lose_control"] == "7/27"
    assert data["one_at_a_time"]["complete"] == "8/9"  # one caution in hand: the token holds one die of three
    assert data["plan"]["extra_cautions"] == 1 and data["plan"]["focus"] == 1


def test_odds_text_through_the_cli(run, odds_game):
    result = run("odds", odds_game, "--dice", "4,4,4", "--focus", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Rallyman GT odds for 4, 4, 4\n"
        "  caution limit 3; caution faces (of six): gear 4 2\n"
        "  extra cautions from the track: 0 before the first die\n"
        "\n"
        "Flat out: lose control 1/27 (3.70%); earns 3 focus tokens either way\n"
        "One at a time with 1 focus token (securing costs 1, 3, 6, 10... in all):\n"
        "  complete the plan 1 (100.00%)\n"
        "  dice placed on average 3.00 of 3; focus tokens spent on average 0.11\n"
        "  secure die 3 (gear 4) when you have 2 cautions so far: 1 token\n"
        "  chance to place the first 1, 2, ... dice (to stop there): 1, 1, 1\n"
        "Note: a dashboard has one die of each gear; the plan uses gear 4 more than once\n"
    )


def test_odds_bad_die_is_a_usage_error_naming_the_die_kinds(run, odds_game):
    result = run("odds", odds_game, "--dice", "3,7")
    assert result.exit_code == 2
    assert "Invalid value for '--dice': unknown die '7': the dice are 1, 2, 3, 4, 5, 6, coast, brake, boost, and DIRT's leader (" in result.stderr


def test_odds_leader_in_gt_and_a_missing_plan_are_usage_errors(run, odds_game):
    result = run("odds", odds_game, "--dice", "4,leader")
    assert result.exit_code == 2 and "Rallyman GT has no 'leader' die" in result.stderr
    assert run("odds", odds_game).exit_code == 2
    assert run("odds", odds_game, "--dice", "4", "--variant", "rally").exit_code == 2
    assert run("odds", odds_game, "--dice", "4", "--focus", "-1").exit_code == 2


def test_odds_dirt_says_who_uses_the_leader_die(run, odds_game):
    data = json.loads(run("odds", odds_game, "--variant", "dirt", "--dice", "4,leader,5", "--format", "json").stdout)
    assert data["flat_out"]["lose_control"] == "1/27" and data["ruleset"]["token"] == "second"
    assert data["notes"] == ["only the first player of a round uses the orange leader die"]


def test_odds_report_is_plain_data():
    report = odds_report({"variant": "gt", "dice": parse_dice("3,4,coast,brake"), "extra_cautions": 0, "focus": 2})
    assert json.loads(json.dumps(report.data)) == report.data
    assert report.data == odds(RULES, "3,4,coast,brake", 0, 2)
    assert report.data["flat_out"]["lose_control"] == "2/27"


# --------------------------------------------------------------------------- the card's table


def test_odds_table_by_count_of_caution_faces():
    table = odds_table()
    cells = {(r["two_caution_dice"], r["one_caution_dice"]): r["lose_control"] for r in table["by_count"]}
    assert cells[(3, 0)] == "1/27" and cells[(0, 3)] == "1/216"
    assert cells[(2, 1)] == "1/54"  # 1/3 * 1/3 * 1/6
    assert cells[(1, 0)] == cells[(2, 0)] == cells[(0, 2)] == "0/1"  # fewer than three dice never lose control
    assert cells[(4, 0)] == "1/9"  # three or four of four: 4 * 2/81 + 1/81
    assert len(table["by_count"]) == sum(n + 1 for n in range(1, 7))


def test_odds_table_rows_per_plan_and_focus():
    table = odds_table()
    rows = {r["plan"]: r for r in table["plans"]}
    assert set(rows) == set(CARD_PLANS) and table["focus"] == [0, 1, 2, 3]
    first = rows["1,2,3"]
    assert first["flat_out"]["lose_control"] == "1/108"  # 1/6 * 1/6 * 1/3
    assert first["one_at_a_time"]["0"]["complete"] == "107/108"
    assert first["one_at_a_time"]["1"]["complete"] == "1/1"  # secure the 3 after two cautions
    for row in table["plans"]:
        completes = [Fraction(row["one_at_a_time"][str(f)]["complete"]) for f in range(4)]
        assert completes[0] == 1 - Fraction(row["flat_out"]["lose_control"])
        assert completes == sorted(completes)
    assert table["house"] is None


def test_odds_table_of_a_plan_with_four_dice_by_hand():
    table = odds_table(plans=("4,4,4,4",), max_dice=1)
    row = table["plans"][0]
    assert row["flat_out"]["lose_control"] == "1/9"
    assert [row["one_at_a_time"][f]["complete"] for f in "0123"] == ["8/9", "26/27", "26/27", "1/1"]


def test_plans_built_directly_match_parsed_ones():
    four = RULES.die("4")
    assert Plan((PlannedDie(four), PlannedDie(four, 1))) == _plan("4,4!")


# --------------------------------------------------------------------------- properties

_DIE = st.tuples(st.sampled_from(["1", "2", "3", "4", "5", "6", "coast", "brake", "boost"]), st.integers(0, 1))


@settings(max_examples=60, deadline=None)
@given(dice=st.lists(_DIE, min_size=1, max_size=6), extra=st.integers(0, 3), tokens=st.integers(0, 7))
def test_properties_of_the_odds_of_any_plan(dice, extra, tokens):
    plan = plan_of(RULES, tuple(dice), extra)
    lose = flat_out(plan, RULES).lose_control
    none, some, more = (one_at_a_time(plan, RULES, f) for f in (0, tokens, tokens + 1))
    assert none.complete == 1 - lose
    assert none.complete <= some.complete <= more.complete
    assert list(some.by_dice) == sorted(some.by_dice, reverse=True) and some.by_dice[-1] == some.complete
    assert some.complete <= some.expected_dice / len(dice) <= 1
    assert 0 <= some.expected_spent <= tokens
    assert all(RULES.focus.total(s.secured + 1) <= tokens for s in some.secures)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=20))
def test_any_dice_text_is_a_plan_or_a_value_error(text):
    try:
        parsed = parse_dice(text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert 1 <= len(parsed) <= 24


def test_the_odds_options_are_declared_for_both_variants_without_the_ruleset():
    """The registry reads the options at start-up from a module that loads no ruleset; its
    variants are the ruleset's."""
    import subprocess
    import sys

    from sheetgen.games.rallyman import options, ruleset

    assert options.VARIANTS == ruleset.VARIANTS
    code = "import sys, sheetgen.games.rallyman; print(sorted(m for m in sys.modules if m.startswith('sheetgen.games.rallyman.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['sheetgen.games.rallyman.options']"
