"""Exact dice distributions shared by every game's rules engine.

Chance is data here: a distribution is a tuple of ``(outcome, probability)`` pairs with
``fractions.Fraction`` probabilities, sorted by outcome, so that solvers can compute exact
values instead of sampling. Engines convert to float once, where speed matters.

Two levels:

- :func:`successes` is the fast path for "count the dice showing one of these faces"
  (Rallytaire's basic game: 4, 5 or 6 on d6; "5-6 needed" is the same call with other faces).
- :func:`outcome_distribution` is the general one: any outcome that is a function of how many
  dice show each face (e.g. "every 1 cancels a success", "three of a kind") is computed exactly
  by walking the face-count multisets. Advanced rules grow there, not in the engines.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import cache
from math import comb, factorial
from typing import TypeVar

#: Sides of an ordinary die.
D6 = 6
#: Faces that add 1 to the speed in Rallytaire's basic game ("every 4, 5 or 6").
HIGH_FACES: frozenset[int] = frozenset({4, 5, 6})

T = TypeVar("T", bound=Hashable)
Distribution = tuple[tuple[int, Fraction], ...]


def _check_pool(n: int, sides: int) -> None:
    if n < 0:
        raise ValueError(f"number of dice must be >= 0, got {n!r}")
    if sides < 1:
        raise ValueError(f"a die needs at least one side, got {sides!r}")


def _check_faces(faces: frozenset[int], sides: int) -> None:
    bad = sorted(f for f in faces if not 1 <= f <= sides)
    if bad:
        raise ValueError(f"faces must be in 1..{sides}, got {bad!r}")


def binomial(n: int, p: Fraction) -> Distribution:
    """Exact distribution of the number of successes among `n` independent trials."""
    if n < 0:
        raise ValueError(f"number of trials must be >= 0, got {n!r}")
    p = Fraction(p)
    if not 0 <= p <= 1:
        raise ValueError(f"probability must be in [0, 1], got {p!r}")
    q = 1 - p
    pairs = ((k, comb(n, k) * p**k * q ** (n - k)) for k in range(n + 1))
    # Drop impossible counts (p = 0 or 1) so that every listed outcome can happen.
    return tuple((k, prob) for k, prob in pairs if prob)


@cache
def successes(n: int, faces: frozenset[int] = HIGH_FACES, sides: int = D6) -> Distribution:
    """Exact distribution of how many of `n` dice show one of `faces`."""
    _check_pool(n, sides)
    _check_faces(faces, sides)
    return binomial(n, Fraction(len(faces), sides))


def face_counts(n: int, sides: int = D6) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every multiset of `n` dice as (count of face 1, ..., count of face `sides`) with its
    multinomial probability. Order-free outcomes only need multisets: C(n+5, 5) of them
    (462 for six d6) instead of 6**n sequences."""
    _check_pool(n, sides)
    total = Fraction(1, sides**n)
    out: list[tuple[tuple[int, ...], Fraction]] = []

    def walk(face: int, left: int, counts: list[int]) -> None:
        if face == sides:
            full = (*counts, left)
            ways = factorial(n)
            for c in full:
                ways //= factorial(c)
            out.append((full, ways * total))
            return
        for c in range(left, -1, -1):
            counts.append(c)
            walk(face + 1, left - c, counts)
            counts.pop()

    walk(1, n, [])
    return tuple(out)


def outcome_distribution(
    n: int, outcome: Callable[[tuple[int, ...]], T], sides: int = D6
) -> tuple[tuple[T, Fraction], ...]:
    """Exact distribution of ``outcome(counts)`` where ``counts[f - 1]`` is how many of the
    `n` dice show face f. Outcomes must be sortable; the result is sorted by outcome."""
    merged: dict[T, Fraction] = {}
    for counts, prob in face_counts(n, sides):
        key = outcome(counts)
        merged[key] = merged.get(key, Fraction(0)) + prob
    return tuple(sorted(merged.items()))


def count_faces(faces: frozenset[int]) -> Callable[[tuple[int, ...]], int]:
    """Outcome function for :func:`outcome_distribution`: dice showing one of `faces`."""
    wanted = tuple(sorted(faces))
    return lambda counts: sum(counts[f - 1] for f in wanted)


def to_float(dist: Sequence[tuple[T, Fraction | float]]) -> tuple[tuple[T, float], ...]:
    """Float probabilities for solvers (exact whenever the Fraction is dyadic, e.g. p = 1/2)."""
    return tuple((k, float(p)) for k, p in dist)


def sample(dist: tuple[tuple[T, float], ...], rng: random.Random) -> T:
    """Draw one outcome from `dist` with one ``rng.random()`` call (deterministic per seed)."""
    if not dist:
        raise ValueError("cannot sample from an empty distribution")
    u = rng.random()
    acc = 0.0
    for value, prob in dist:
        acc += prob
        if u < acc:
            return value
    return dist[-1][0]  # float rounding left u beyond the last cumulative sum


def faces_with_successes(
    rng: random.Random, n: int, k: int, faces: frozenset[int] = HIGH_FACES, sides: int = D6
) -> tuple[int, ...]:
    """Concrete dice faces for a roll already known to have `k` of `n` dice in `faces`:
    each success face uniform among `faces`, each other die uniform among the rest, shuffled.
    The exact distribution decides the count; this only makes a sheet readable."""
    _check_pool(n, sides)
    _check_faces(faces, sides)
    if not 0 <= k <= n:
        raise ValueError(f"successes must be in 0..{n}, got {k!r}")
    hits = sorted(faces)
    misses = [f for f in range(1, sides + 1) if f not in faces]
    if (k and not hits) or (n - k and not misses):
        raise ValueError(f"no faces to show {k!r} successes among {n!r} dice")
    roll = [rng.choice(hits) for _ in range(k)] + [rng.choice(misses) for _ in range(n - k)]
    rng.shuffle(roll)
    return tuple(roll)


# --------------------------------------------------------------------------- advanced outcomes
# Outcome functions for :func:`outcome_distribution`; each takes the face counts of a roll.


def cancelled_successes(
    faces: frozenset[int] = HIGH_FACES, cancel: frozenset[int] = frozenset({1})
) -> Callable[[tuple[int, ...]], int]:
    """Dice showing one of `faces`, less one for every die showing one of `cancel`, never
    below 0 (Rallytaire's "every 1 rolled cancels out one 4, 5 or 6")."""
    wanted = tuple(sorted(faces))
    against = tuple(sorted(cancel))
    both = sorted(set(wanted) & set(against))
    if both:
        raise ValueError(f"a face cannot both count and cancel: {both!r}")
    return lambda counts: max(
        0, sum(counts[f - 1] for f in wanted) - sum(counts[f - 1] for f in against)
    )


def of_a_kind(k: int) -> Callable[[tuple[int, ...]], bool]:
    """True when at least `k` dice show the same face ("three of a kind" is ``of_a_kind(3)``)."""
    if k < 1:
        raise ValueError(f"of a kind needs k >= 1, got {k!r}")
    return lambda counts: max(counts, default=0) >= k


def conditional_face_counts(
    n: int, outcome: Callable[[tuple[int, ...]], T], value: T, sides: int = D6
) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The multisets of :func:`face_counts` whose outcome is `value`, with their probability
    given that outcome (they sum to 1). Raises ValueError when the outcome is impossible."""
    hits = [(c, p) for c, p in face_counts(n, sides) if outcome(c) == value]
    total = sum((p for _, p in hits), Fraction(0))
    if not total:
        raise ValueError(f"outcome {value!r} is impossible with {n!r} dice")
    return tuple((c, p / total) for c, p in hits)


def faces_from_counts(
    rng: random.Random, table: tuple[tuple[tuple[int, ...], Fraction | float], ...]
) -> tuple[int, ...]:
    """Concrete dice faces drawn from a :func:`conditional_face_counts` table: one multiset
    by its probability (one ``rng.random()`` call), then its faces in shuffled order."""
    counts = sample(tuple((c, float(p)) for c, p in table), rng)
    roll = [face for face, c in enumerate(counts, 1) for _ in range(c)]
    rng.shuffle(roll)
    return tuple(roll)
