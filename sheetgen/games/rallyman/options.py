"""The options of `sheetgen odds rallyman`, declared without loading the ruleset or the odds
code: the game's registry entry reads them at start-up (`sheetgen validate` imports no more
than it needs); the plan's parser loads `odds` when a plan is given."""

from __future__ import annotations

from sheetgen.registry import Option

VARIANTS = ("gt", "dirt")  # as ruleset.VARIANTS (tests/test_rallyman_odds.py checks)


def _dice(text: str):
    from sheetgen.games.rallyman.odds import _dice_option

    return _dice_option(text)


ODDS_OPTIONS = (
    Option("variant", "gt or dirt (default: gt)", ("odds",), choices=VARIANTS, default="gt"),
    Option(
        "dice",
        "the plan: dice in order, e.g. 3,4,coast,brake; '4!' when that die's space gives a caution",
        ("odds",),
        parse=_dice,
        metavar="DICE",
    ),
    Option(
        "extra-cautions",
        "cautions from the track counted before the first die (default: 0)",
        ("odds",),
        between=(0, 9),
        default=0,
    ),
    Option(
        "focus",
        "focus (GT) or second (DIRT) tokens to secure dice one at a time (default: 0)",
        ("odds",),
        between=(0, 99),
        default=0,
    ),
)
