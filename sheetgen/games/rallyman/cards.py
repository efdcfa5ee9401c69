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


