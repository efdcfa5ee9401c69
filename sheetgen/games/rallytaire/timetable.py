"""The finishing-turn time table (rulebook "End of the race"; RULINGS.md "Time").

The printed table is exactly 10 * moved / speed seconds rounded half up to 0.1 s; it is
kept as integer tenths so that no binary float ever decides a rounding.
"""

from __future__ import annotations

#: Seconds every turn before the finishing turn counts.
TURN_SECONDS = 10
TURN_TENTHS = 10 * TURN_SECONDS

#: Highest speed in the basic game: 5th gear (11) with 5 successes.
BASIC_MAX_SPEED = 16
#: Highest speed when "push the engine" adds a sixth die.
PUSH_MAX_SPEED = 17


def finish_tenths(moved: int, speed: int) -> int:
    """Tenths of a second the finishing turn adds: round_half_up(100 * moved / speed / 10)."""
    if speed < 1 or not 1 <= moved <= speed:
        raise ValueError(f"moved must be in 1..speed, got moved={moved!r} speed={speed!r}")
    # 10 * moved / speed seconds = 100 * moved / speed tenths; half up in integers.
    return (200 * moved + speed) // (2 * speed)


def table(max_speed: int = BASIC_MAX_SPEED) -> list[list[int]]:
    """Row s (speed 1..max_speed) holds the tenths for moved = 1..s."""
    return [[finish_tenths(m, s) for m in range(1, s + 1)] for s in range(1, max_speed + 1)]
