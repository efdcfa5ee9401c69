"""Rallyman's ruleset as data: the rulebook's and RULINGS.md's values, the house values and
their flag, and a mapping put over the defaults with every problem at its path."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheetgen.games.rallyman.ruleset import (
    DIRT,
    GT,
    Effect,
    RulesetError,
    default,
    house_note,
    located,
    ruleset_from_mapping,
    to_mapping,
)
from sheetgen.yamlsrc import load_text

F = Fraction


def _cautions(ruleset):
    return {d.name: d.cautions for d in ruleset.dice}


def test_gt_caution_faces_follow_the_rulebook():
    # coast, gear 1 and gear 2 one caution face of six; "the other dice all have two"
    assert _cautions(default(GT)) == {"1": 1, "2": 1, "3": 2, "4": 2, "5": 2, "6": 2, "coast": 1, "brake": 2, "boost": 2}
    assert {d.faces for d in default(GT).dice} == {6}
    assert default(GT).caution_limit == default(DIRT).caution_limit == 3


def test_dirt_has_the_orange_leader_die_with_two_caution_faces():
    dirt = default(DIRT)
    assert _cautions(dirt) == {"1": 1, "2": 1, "3": 2, "4": 2, "5": 2, "6": 2, "coast": 1, "leader": 2, "brake": 2, "boost": 2}
    assert (dirt.die("leader").colour, dirt.die("leader").effect, dirt.die("coast").colour) == ("orange", Effect.STAY, "white")
    assert dirt.leader_first_player_only and not default(GT).leader_first_player_only
    assert (dirt.token, default(GT).token) == ("second", "focus")


def test_tokens_are_earned_by_gear_coast_and_leader_dice_not_brake_or_boost():
    assert [d.name for d in default(DIRT).dice if not d.earns_token] == ["brake", "boost"]
    assert [d.name for d in default(GT).dice if not d.earns_token] == ["brake", "boost"]


def test_focus_costs_1_then_2_more_then_3_more():
    focus = default(GT).focus
    assert [focus.total(k) for k in range(6)] == [0, 1, 3, 6, 10, 15]
    assert default(DIRT).focus == focus


def test_gt_time_per_turn_is_the_hobby_figures():
    gt = default(GT)
    assert dict(gt.time_per_turn) == {"6": 10, "5": 15, "4": 20, "3": 30, "2": 40, "1": 50, "0": 60, "00": 120}
    assert gt.seconds("00") == 120 and gt.source("time_per_turn") == "hobby"


def test_gt_loss_of_control_table_from_rulings():
    loc = default(GT).loss_of_control
    expected = {(3, "red"): 1, (4, "orange"): 1, (4, "red"): 2, (5, "yellow"): 1, (5, "orange"): 2, (5, "red"): 3, (6, "yellow"): 2, (6, "orange"): 3, (6, "red"): 4}
    assert {(g, c): loc.tokens(g, c) for g in range(1, 7) for c in ("yellow", "orange", "red")} == {
        (g, c): expected.get((g, c), 0) for g in range(1, 7) for c in ("yellow", "orange", "red")
    }
    assert [loc.end_gear(g) for g in range(1, 7)] == ["0", "0", "00", "00", "00", "00"]
    assert default(DIRT).loss_of_control.end_gear(6) == "0"  # DIRT: the time card decides


def test_gt_damage_bag_holds_42_tokens_drawn_without_replacement():
    bag = default(GT).damage_bag
    assert dict(bag.kinds()) == {"lose_gear_die": 6, "lose_brake_die": 6, "lose_coast_die": 6, "weather": 6, "yellow_flag": 6, "green_flag": 12}
    assert bag.total == 42
    one = dict(bag.draw(1))
    assert one[(("green_flag", 1),)] == F(12, 42)
    two = dict(bag.draw(2))
    assert two[(("green_flag", 2),)] == F(comb(12, 2), comb(42, 2))  # not (12/42) ** 2
    assert two[(("weather", 1), ("green_flag", 1))] == F(6 * 12, comb(42, 2))
    assert sum(two.values()) == 1 and sum(dict(bag.draw(4)).values()) == 1


def test_dirt_bag_has_a_shortcut_side_on_every_token():
    bag = default(DIRT).damage_bag
    assert bag.total == 48 and {t.shortcut for t in bag.tokens} == {"ok", "coast_die", "mud"}
    assert dict(bag.kinds()) == {"gear": 12, "brake": 12, "coast_leader": 12, "green_flag": 12}


def test_dirt_time_cards_are_house_values_and_say_so():
    dirt = default(DIRT)
    cards = dirt.time_cards
    assert [cards.card(g).seconds for g in range(1, 7)] == [50, 40, 30, 20, 15, 10]
    assert cards.loss_seconds == 60  # the rulebook: a spin or a crash is 60 seconds
    assert dict(cards.loss_outcomes(4)) == {"sisu": F(2, 10), "spin": F(3, 10), "crash": F(5, 10)}
    assert cards.expected_loss_seconds(4) == F(2, 10) * 20 + F(8, 10) * 60 == 52  # SISU: the card's own 20 s
    assert dirt.house == ("dashboards", "loss_of_control", "damage_bag", "time_cards")
    assert house_note(dirt, ("time_cards",)).startswith("house values: time cards")
    assert house_note(dirt, ("dice", "caution_limit")) is None


def test_dashboards_are_house_values_per_class_tyres_and_weather():
    gt = default(GT)
    assert {(b.car_class, b.tyres, b.weather) for b in gt.dashboards} == {
        (c, t, w) for c in ("GT4", "GT5", "GT6") for t, w in (("asphalt", "dry"), ("asphalt", "wet"), ("rain", "wet"), ("rain", "dry"))
    }
    gt6 = gt.dashboard("GT6", "asphalt", "dry")
    assert [gt6.count(str(g)) for g in range(1, 7)] == [1] * 6 and gt6.count("boost") == 0 and gt6.caution_limit == 3
    assert gt.dashboard("GT5", "asphalt", "dry").count("6") == 0 and gt.dashboard("GT5", "asphalt", "dry").count("boost") == 1
    # the wrong tyres for the weather reduce the dice pool and the caution limit (rulebook)
    wrong = gt.dashboard("GT6", "asphalt", "wet")
    assert wrong.caution_limit < gt6.caution_limit and wrong.count("coast") < gt6.count("coast")
    assert "dashboards" in gt.house and house_note(gt).startswith("house values: dashboards")


def test_flying_start_goes_to_gear_2():
    fs = default(GT).flying_start
    assert (fs.from_gear, fs.to_gear, fs.caution_moves, fs.ignores_loss_of_control) == (0, 2, 1, True)
    assert default(DIRT).flying_start is None


# --------------------------------------------------------------------------- a mapping over the defaults


@pytest.mark.parametrize("variant", [GT, DIRT])
def test_the_mapping_form_rebuilds_the_ruleset(variant):
    rebuilt = ruleset_from_mapping(to_mapping(default(variant)), variant)
    # given whole, every section is the user's own: no house or hobby value is left
    assert rebuilt.sources == () and replace(rebuilt, sources=default(variant).sources, replaced=()) == default(variant)
    assert ruleset_from_mapping({}, variant) == default(variant)


def test_a_mapping_replaces_single_values():
    rules = ruleset_from_mapping({"dice": {3: {"cautions": 1}}, "caution_limit": 4, "time_per_turn": {"00": 30}, "focus": {"step": 2}})
    assert rules.die("3").cautions == 1 and rules.die("4").cautions == 2
    assert rules.caution_limit == 4 and rules.seconds("00") == 30 and rules.seconds("0") == 60
    assert [rules.focus.total(k) for k in (1, 2, 3)] == [1, 4, 9]
    assert rules.replaced == ("dice", "caution_limit", "focus", "time_per_turn")
    assert rules.source("time_per_turn") == "hobby"  # given in part: the other gears are still the hobby figures


def test_own_time_cards_given_whole_are_no_longer_house_values():
    own = {"time_cards": {"loss_seconds": 60, "gears": {g: {"seconds": 70 - 10 * g, "sisu": 1, "spin": 1, "crash": 2} for g in range(1, 7)}}}
    rules = ruleset_from_mapping(own, DIRT)
    assert "time_cards" not in rules.house and rules.time_cards.card(1).seconds == 60
    assert house_note(rules, ("time_cards",)) is None
    assert "time_cards" in ruleset_from_mapping({"time_cards": {"gears": {1: {"seconds": 55}}}}, DIRT).house


def test_a_dashboard_may_be_added_for_a_class_of_ones_own():
    rules = ruleset_from_mapping({"dashboards": {"GT3": {"asphalt": {"dry": {"dice": {1: 1, 2: 1, 3: 1, "coast": 4}, "caution_limit": 3}}}}})
    board = rules.dashboard("GT3", "asphalt", "dry")
    assert (board.count("3"), board.count("4"), board.count("coast")) == (1, 0, 4)


def _problems(data, variant=GT):
    with pytest.raises(RulesetError) as caught:
        ruleset_from_mapping(data, variant)
    return [(p.path, p.message, p.key) for p in caught.value.problems]


def test_every_problem_of_a_mapping_is_reported_at_its_path():
    bad = {
        "dice": {7: {"cautions": 1}, "3": {"cautions": 9}, "coast": 2},
        "caution_limit": "three",
        "time_per_turn": {5: 40},
        "loss_of_control": {"damage": {4: {"red": -1}}},
        "bogus": 1,
    }
    assert _problems(bad) == [
        (("dice", 7), "unknown die 7 (known: 1, 2, 3, 4, 5, 6, coast, brake, boost)", True),
        (("dice", "coast"), "expected a mapping, got 2", False),
        (("bogus",), "unknown key 'bogus' (known: dice, caution_limit, focus, dashboards, loss_of_control, damage_bag, time_per_turn, flying_start)", True),
        (("dice", "3", "cautions"), "the caution faces of die '3' must be between 0 and 6, got 9", False),
        (("caution_limit",), "the caution limit must be a whole number, got 'three'", False),
        (("loss_of_control", "damage", 4, "red"), "damage tokens in gear 4 on red must be between 0 and 9, got -1", False),
        (("time_per_turn", 5), "a higher gear must not be slower: gear 5 counts 40 s, gear 4 20 s", False),
    ]


def test_dirt_mapping_problems():
    assert _problems({"leader_first_player_only": "yes", "time_cards": {"gears": {2: {"seconds": 90, "sisu": 0, "spin": 0, "crash": 0}}}}, DIRT) == [
        (("time_cards", "gears", 2), "gear 2's deck needs at least one card", False),
        (("time_cards", "gears", 2, "seconds"), "a loss of control must cost more than any gear: gear 2 counts 90 s, a spin 60 s", False),
        (("leader_first_player_only",), "'leader_first_player_only' must be true or false, got 'yes'", False),
    ]
    assert _problems({"time_per_turn": {"1": 50}}, DIRT)[0][0] == ("time_per_turn",)  # a GT section


def test_a_spec_loader_locates_the_problems_at_file_line_col():
    doc = load_text("game: rallyman\nruleset:\n  dice:\n    \"3\": {cautions: 7}\n  caution_limt: 3\n", "track.yaml")
    with pytest.raises(RulesetError) as caught:
        ruleset_from_mapping(doc.data["ruleset"], GT)
    assert [str(p) for p in located(doc, ("ruleset",), caught.value)] == [
        "track.yaml:5:3: error: unknown key 'caution_limt' (known: dice, caution_limit, focus, dashboards, loss_of_control, damage_bag, time_per_turn, flying_start)",
        "track.yaml:4:21: error: the caution faces of die '3' must be between 0 and 6, got 7",
    ]


# --------------------------------------------------------------------------- any mapping


def _leaves(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, path + (key,))
    yield path


_JUNK = st.one_of(
    st.integers(-3, 200),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.floats(allow_nan=False, width=16),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["dice", "x", "3", "coast", "caution_limit"]), st.integers(-1, 9), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(variant=st.sampled_from([GT, DIRT]), data=st.data())
def test_any_mapping_gives_a_ruleset_or_only_ruleset_errors(variant, data):
    """A spec may write anything anywhere: the answer is a ruleset or RulesetError, never
    another exception, and every problem's path is one the mapping holds."""
    given_ = to_mapping(default(variant))
    paths = [p for p in _leaves(given_) if p]
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=4)):
        node = given_
        for step in path[:-1]:
            if not isinstance(node, dict):
                break
            node = node.get(step)
        if isinstance(node, dict):
            node[path[-1]] = data.draw(_JUNK)
    try:
        rules = ruleset_from_mapping(given_, variant)
    except RulesetError as exc:
        assert exc.problems
        for problem in exc.problems:
            node = given_
            for step in problem.path[:-1] if problem.key else problem.path:
                assert isinstance(node, dict) and step in node
                node = node[step]
    else:
        assert rules.variant == variant and 1 <= rules.caution_limit <= 10
