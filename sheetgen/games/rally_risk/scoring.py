"""Rally Risk scores (rulebook, "Scores").

A) Per race: each car's finishing round relative to the round the first car (or cars)
finished in, minus its place in the order of departure; the least wins. A car eliminated
(its car "totally destroyed") scores the last arrival's score plus two (ruling: 2 when no
car finished).

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
    known = [s for s in scores if s is not None]
    worst = max(known) if known else 0
    return tuple(worst + ELIMINATION_HANDICAP if s is None else s for s in scores)


def championship_points(totals: Mapping[K, float]) -> dict[K, int]:
    """Points per driver from race totals (fewest wins); ties share the better place."""
    out = {}
    for who, total in totals.items():
        place = 1 + sum(other < total for other in totals.values())
        out[who] = CHAMPIONSHIP_POINTS[place - 1] if place <= len(CHAMPIONSHIP_POINTS) else 0
    return out
