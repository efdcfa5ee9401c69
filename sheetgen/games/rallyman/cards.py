"""What Rallyman's printed sheets show, as plain data: the ruleset a track is played with,
where each of its sections comes from (rulebook, hobby figures, house values, the spec's own),
the time key of a GT time sheet and the time cards of a DIRT one, how many turns a time sheet
leaves room for, and a GT track's par and safe figures when they are quick to get.

The renderers (sheetgen/render/rallyman/time_sheet.py, dashboard.py) print these; nothing
here draws or computes anything slow.
"""

from __future__ import annotations

import math
from typing import Any

from sheetgen.games.rallyman.ruleset import Ruleset, default

#: the words a printout puts beside a section, by its source
SOURCE_WORDS = {
    "rulebook": "rulebook",
    "hobby": "hobby figures (not in the rulebook)",
    "house": "HOUSE VALUES (not in the rulebook or any public source)",
    "spec": "your own values (given in the track spec)",
}


def source_of(ruleset: Ruleset, section: str) -> str:
    """Where `section` (a `to_mapping` key) comes from now: "rulebook", "hobby", "house", or
    "spec" when the spec gave a house or hobby section whole (given in part, it keeps its
    source)."""
    known = dict(ruleset.sources)
    if section in known:
        return known[section]
    if section in ruleset.replaced and section in dict(default(ruleset.variant).sources):
        return "spec"
    return "rulebook"


def source_words(ruleset: Ruleset, section: str) -> str:
    """The label printed beside a section: "HOUSE VALUES (...)", "hobby figures (...)", ...;
    a section the spec changed says so."""
    source = source_of(ruleset, section)
    words = SOURCE_WORDS[source]
    if section in ruleset.replaced and source != "spec":
        words += ", some replaced by the track spec" if source != "rulebook" else " values changed by the track spec"
    return words


def is_house(ruleset: Ruleset, section: str) -> bool:
    return source_of(ruleset, section) == "house"


def time_key(ruleset: Ruleset) -> tuple[tuple[str, int], ...]:
    """GT: (gear, seconds) for every gear a turn can end in, fastest first ("6" .. "1", "0",
    "00")."""
    return tuple(ruleset.time_per_turn)


def loss_words(ruleset: Ruleset) -> str:
    """GT: what a loss of control does to the gear, in words."""
    first = ruleset.loss_of_control.gear_00_from
    if first is None or first > 6:
        return f"a loss of control ends the turn in gear 0 ({ruleset.seconds('0')} s)"
    below = f", below gear {first} in gear 0 ({ruleset.seconds('0')} s)" if first > 1 else ""
    return (
        f"a loss of control in gear {first} or more ends the turn in gear 00 ({ruleset.seconds('00')} s; the next turn "
        f"is sat out, back in gear 0){below}"
    )


def time_cards(ruleset: Ruleset) -> tuple[dict, ...]:
    """DIRT: each gear's time card: its seconds, the cards of its deck showing SISU, Spin and
    Crash, and the seconds of a loss of control with each icon."""
    cards = ruleset.time_cards
    if cards is None:
        return ()
    out = []
    for card in sorted(cards.cards, key=lambda c: c.gear):
        out.append(
            {
                "gear": card.gear,
                "seconds": card.seconds,
                "deck": card.cards,
                "sisu": card.sisu,
                "spin": card.spin,
                "crash": card.crash,
                "loss_seconds": {"sisu": card.seconds, "spin": cards.loss_seconds, "crash": cards.loss_seconds},
            }
        )
    return tuple(out)


def distance(track: Any) -> int:
    """Moves from the start to the finish, every lap counted (a circuit's lap: its longest
    run of moves plus the one back over the line)."""
    steps = track.steps()
    if not steps:
        return 0
    if track.laps > 1:
        return (max(steps.values()) + 1) * track.laps
    return min((steps[c.hex] for c in track.finishes if c.hex in steps), default=max(steps.values()))


#: the pessimistic average a time sheet is sized for: 2 spaces a turn
SPACES_PER_TURN = 2.0


def turns_needed(track: Any) -> int:
    """The turns a time sheet leaves room for at least: the distance at two spaces a turn
    (a slow drive, losses of control included), and never fewer than 12."""
    return max(12, math.ceil(distance(track) / SPACES_PER_TURN))




# --------------------------------------------------------------------------- without the box


def plain_die_cautions(faces: int, cautions: int) -> tuple[int, ...]:
    """The faces of a plain die of `faces` sides (numbered 1 to `faces`) that read as a
    caution for a die kind with `cautions` caution faces: the highest ones (a 6 for one, a 5
    or a 6 for two), so that the chance of a caution is the box's die's, cautions / faces."""
    return tuple(range(faces - cautions + 1, faces + 1))


def faces_words(faces: tuple[int, ...]) -> str:
    """`(5, 6)` as "5 or 6", `(6,)` as "6", `()` as "never"."""
    if not faces:
        return "never"
    if len(faces) == 1:
        return str(faces[0])
    return ", ".join(str(f) for f in faces[:-1]) + f" or {faces[-1]}"


def plain_dice_key(ruleset: Ruleset) -> tuple[dict, ...]:
    """For every die kind of the ruleset, how a plain die stands in for it: the plain die to
    roll (a d6 for the box's six-sided dice), the faces that are a caution, and the chance,
    the same as the box's die's."""
    return tuple(
        {
            "die": die,
            "plain": f"d{die.faces}",
            "cautions": plain_die_cautions(die.faces, die.cautions),
            "chance": die.caution_chance,
        }
        for die in ruleset.dice
    )


def bag_tokens(ruleset: Ruleset) -> tuple[tuple[str, str | None], ...]:
    """The damage bag as tokens to cut out, one per token of the bag: (kind, shortcut side or
    None), kind by kind as the ruleset lists them."""
    return tuple((t.kind, t.shortcut) for t in ruleset.damage_bag.tokens for _ in range(t.count))


#: car counters printed to cut out (a race of up to six drivers: print the page again for more)
CARS = 6


#: damage a car keeps until it is repaired, as a time sheet tallies it: (bag kind, shortcut
#: side or None, words); GT's lost dice, DIRT's damage tokens and the coast-die damage of a
#: shortcut token's side (rulebooks "Damage", "Shortcut")
KEPT_DAMAGE = (
    ("lose_gear_die", None, "gear die lost"),
    ("lose_brake_die", None, "brake die lost"),
    ("lose_coast_die", None, "coast die lost"),
    ("gear", None, "gear"),
    ("brake", None, "brake"),
    ("coast_leader", None, "coast/leader"),
    (None, "coast_die", "shortcut: coast die"),
)


def damage_tally(ruleset: Ruleset) -> tuple[tuple[str, int], ...]:
    """The damage a time sheet tallies for the ruleset's bag: (words, how many tokens of it
    the bag holds), for the kinds in `KEPT_DAMAGE` the bag has."""
    out = []
    for kind, side, words in KEPT_DAMAGE:
        n = sum(
            t.count
            for t in ruleset.damage_bag.tokens
            if (kind is None or t.kind == kind) and (side is None or t.shortcut == side)
        )
        if n:
            out.append((words, n))
    return tuple(out)


#: the dice a table is likely to have, by their sides
PLAIN_DICE = (4, 6, 8, 10, 12, 20)


def time_card_rolls(ruleset: Ruleset) -> tuple[tuple[tuple[int, ...], str, tuple[tuple[str, int, int], ...]], ...]:
    """DIRT without the box: what a loss of control turns up, read from a roll instead of the
    card of the gear's deck. Per group of gears whose decks read alike: the gears, the die
    ("d10", or "a slip of 7" where no common die has as many sides as the deck has cards),
    and each icon with the first and last number that gives it (SISU, then Spin, then
    Crash): every icon keeps its share of the deck, the chances `TimeCards.loss_outcomes`
    gives. Empty for a ruleset without time cards."""
    if ruleset.time_cards is None:
        return ()
    groups: dict[tuple, list[int]] = {}
    for card in sorted(ruleset.time_cards.cards, key=lambda c: c.gear):
        groups.setdefault((card.sisu, card.spin, card.crash), []).append(card.gear)
    out = []
    for (sisu, spin, crash), gears in groups.items():
        n = sisu + spin + crash
        die = f"d{n}" if n in PLAIN_DICE else f"a numbered slip of {n}"
        spans, first = [], 1
        for icon, count in (("SISU", sisu), ("Spin", spin), ("Crash", crash)):
            if count:
                spans.append((icon, first, first + count - 1))
                first += count
        out.append((tuple(gears), die, tuple(spans)))
    return tuple(out)
