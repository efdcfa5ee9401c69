"""Rally Risk scores (rulebook, "Scores").

A) Per race: each car's finishing round relative to the round the first car (or cars)
finished in, minus its place in the order of departure; the least wins. The order of arrival
is this ranking (the rulebook: "At the same time we have this order of arrival", over the
scores A), so "the last to arrive" is the car that arrived with the worst score A (several:
tied, they draw lots), not the car that crossed the finish in the latest round (a car that
left late may finish last in rounds with a better score). A car eliminated (its car "totally
destroyed") did not arrive: it scores the last arrival's score plus two (ruling: 2 when no
car finished), behind every car that arrived. The last to arrive also chooses the next race
(:func:`last_to_arrive`; no car arrived: all draw lots). RR-19, RR-21.

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
    arrived = _arrived(finish_rounds)
    scores = [s for s in arrived if s is not None]
    base = max(scores) if scores else 0  # the last to arrive's score
    return tuple(base + ELIMINATION_HANDICAP if s is None else s for s in arrived)


def last_to_arrive(finish_rounds: Sequence[int | None]) -> tuple[int, ...]:
    """Indices (departure order) of the last to arrive: the last of the order of arrival,
    the cars that finished with the worst score A (several: tied, they draw lots). No car
    finished: every car (none arrived, so all draw lots)."""
    arrived = _arrived(finish_rounds)
    scores = [s for s in arrived if s is not None]
    if not scores:
        return tuple(range(len(finish_rounds)))
    worst = max(scores)
    return tuple(i for i, s in enumerate(arrived) if s == worst)


def _arrived(finish_rounds: Sequence[int | None]) -> list[int | None]:
    """Score A of each car that finished (None: eliminated)."""
    finished = [r for r in finish_rounds if r is not None]
    first = min(finished) if finished else 0
    return [None if r is None else (r - first) - order for order, r in enumerate(finish_rounds, start=1)]


def championship_points(totals: Mapping[K, float]) -> dict[K, int]:
    """Points per driver from race totals (fewest wins); ties share the better place."""
    out = {}
    for who, total in totals.items():
        place = 1 + sum(other < total for other in totals.values())
        out[who] = CHAMPIONSHIP_POINTS[place - 1] if place <= len(CHAMPIONSHIP_POINTS) else 0
    return out
