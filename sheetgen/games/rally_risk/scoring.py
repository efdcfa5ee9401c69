"""Rally Risk scores (rulebook, "Scores").

A) Per race: each car's finishing round relative to the round the first car (or cars)
finished in, minus its place in the order of departure; the least wins. A car eliminated
(its car "totally destroyed") scores the last arrival's score plus two (ruling: 2 when no
car finished). "The last to arrive" is the car that crossed the finish last, in rounds (not
the worst score A: a car that left late may finish last with a better score); when several
finished in that last round, the worst of their scores A (the destroyed car then ranks
behind every car that arrived). The last to arrive also chooses the next race
(:func:`last_to_arrive`; several in that round draw lots).

B) Championship: the fewest total points over a rally's races places first; places earn
9, 6, 4, 3, 2 and 1 points. Tied drivers share the better place and the next place is
skipped (two second places: the next driver is fourth).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

CHAMPIONSHIP_POINTS = (9, 6, 4, 3, 2, 1)
#: Added to the last arrival's score for a car eliminated in the race.
ELIMINATION_HANDICAP = 2


def score_a(finish_rounds: Sequence[int | None]) -> tuple[int, ...]:
    """Scores of cars in departure order (index 0 left first) from the round each
    finished in (None: eliminated)."""
    finished = [r for r in finish_rounds if r is not None]
    first = min(finished) if finished else 0
    scores: list[int | None] = [
        None if r is None else (r - first) - order for order, r in enumerate(finish_rounds, start=1)
    ]
    last = last_to_arrive(finish_rounds)
    # (the last to arrive finished, so each has a score)
    base = max(s for i in last if (s := scores[i]) is not None) if finished else 0
    return tuple(base + ELIMINATION_HANDICAP if s is None else s for s in scores)


def last_to_arrive(finish_rounds: Sequence[int | None]) -> tuple[int, ...]:
    """Indices (departure order) of the cars that crossed the finish last, in rounds: the
    cars that finished in the latest round (several: they finished in the same round). No
    car finished: every car (none arrived, so all draw lots)."""
    finished = [r for r in finish_rounds if r is not None]
    if not finished:
        return tuple(range(len(finish_rounds)))
    latest = max(finished)
    return tuple(i for i, r in enumerate(finish_rounds) if r == latest)


def championship_points(totals: Mapping[K, float]) -> dict[K, int]:
    """Points per driver from race totals (fewest wins); ties share the better place."""
    out = {}
    for who, total in totals.items():
        place = 1 + sum(other < total for other in totals.values())
        out[who] = CHAMPIONSHIP_POINTS[place - 1] if place <= len(CHAMPIONSHIP_POINTS) else 0
    return out
