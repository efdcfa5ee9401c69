"""League standings shared by every game that keeps results: drop rounds (best X of Y),
bonus points, and the tie-breaks, over rounds that each game scores its own way.

A results file may carry a `league:` block (house rules: no rulebook of the five games has
drop rounds or bonus points)::

    league:
      points: [10, 8, 6, 5, 4, 3, 2, 1]   # a round's place -> points (where the game lets
                                          # the file say it; Rally Risk's are its rulebook's)
      best: 3                             # count each driver's best 3 rounds, drop the rest
      bonus: {stage_win: 1, fastest_stage: 2, clean_run: 1}

A game reads the block with `load_league` (every problem located at its value), works out per
round each driver's place, place points and bonuses (`Entry`), and `table` adds them up:

- **drop rounds**: a driver's rounds are scored (place points plus bonuses; a round the
  driver was not in scores 0 and may be dropped), and only the `best` highest count; of
  equal scores, the earliest rounds are the ones dropped;
- **tie-breaks**, in order: more points counted; then countback (more round wins, then more
  second places, and so on, over every round, dropped ones included); then the better place
  in the latest round where the two differ (a round not placed in ranks behind any place);
  still tied: the drivers share the better place, listed by name.

Pure data and arithmetic (a game's model may hold a `League`): no I/O, no game named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sheetgen.errors import Problem

if TYPE_CHECKING:  # a game's model holds a League: this module imports no YAML
    from sheetgen.yamlsrc import Document

#: the bonuses a league may give, in the order they are shown
BONUSES = ("stage_win", "fastest_stage", "clean_run")
BONUS_NAMES = {"stage_win": "stage win", "fastest_stage": "fastest stage", "clean_run": "clean run"}
MAX_PLACES = 40
MAX_POINTS = 1000
MAX_BONUS = 100
MAX_BEST = 100


def league_schema(*, points: bool, bonus_help: Mapping[str, str]) -> dict[str, Any]:
    """The `league:` block of a game's results file: `points` when the game lets the file give
    a round's points (a game whose rulebook fixes them leaves it out), and the bonuses with what
    each means in that game."""
    properties: dict[str, Any] = {
        "best": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_BEST,
            "description": "count each driver's best N rounds; the others are dropped (house rule)",
        },
        "bonus": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                key: {"type": "integer", "minimum": 0, "maximum": MAX_BONUS, "description": text + " (house rule)"}
                for key, text in bonus_help.items()
            },
        },
    }
    if points:
        properties["points"] = {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_PLACES,
            "items": {"type": "integer", "minimum": 0, "maximum": MAX_POINTS},
            "description": "the points of a round's 1st, 2nd, ... place; places beyond the list score 0 (house rule)",
        }
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
        "description": "league options: drop rounds and bonus points (house rules)",
    }


@dataclass(frozen=True)
class League:
    """A league's house options: `points` per place (None: the game's own), `best` rounds
    counted (None: every round), and the bonus points."""

    points: tuple[int, ...] | None = None
    best: int | None = None
    stage_win: int = 0
    fastest_stage: int = 0
    clean_run: int = 0

    def bonus(self, key: str) -> int:
        value: int = getattr(self, key)
        return value

    def place_points(self, place: int | None, default: Sequence[int] = ()) -> int:
        """The points of a round's place (None: not placed, 0), from `points` or `default`."""
        scale = self.points if self.points is not None else tuple(default)
        return scale[place - 1] if place is not None and place <= len(scale) else 0

    def house_rules(self) -> list[str]:
        """The house options in force, in words (for a report's notes)."""
        said = []
        if self.points is not None:
            said.append("points per place " + ", ".join(str(p) for p in self.points))
        if self.best is not None:
            said.append(f"best {self.best} round{'s count' if self.best != 1 else ' counts'}")
        for key in BONUSES:
            if self.bonus(key):
                said.append(f"{BONUS_NAMES[key]} +{self.bonus(key)}")
        return said


def load_league(
    doc: Document, schema: dict[str, Any], base: tuple = ("league",)
) -> tuple[League | None, list[Problem]]:
    """The league block at `base` in `doc` (None when there is none), and its problems, each at
    its value: the schema's, and a points scale that rises (a place scoring more than the one
    before it)."""
    from sheetgen.schemacheck import check

    raw = doc.data.get(base[-1]) if isinstance(doc.data, dict) and len(base) == 1 else None
    if raw is None:
        return None, []
    problems = check(doc, schema, raw, base)
    if problems:
        return None, problems
    points = raw.get("points")
    if points is not None:
        for k in range(1, len(points)):
            if points[k] > points[k - 1]:
                problems.append(
                    doc.problem(
                        base + ("points", k),
                        f"place {k + 1} scores {points[k]}, more than place {k}'s {points[k - 1]}: "
                        "a league's points never rise down the places",
                    )
                )
    bonus = raw.get("bonus", {})
    league = League(
        tuple(points) if points is not None else None,
        raw.get("best"),
        **{key: bonus.get(key, 0) for key in BONUSES},
    )
    return (None if problems else league), problems


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class Entry:
    """One driver's round: the place (None: in the round but not placed), the place's points,
    and each bonus earned (the bonus key, once per time earned: two stage wins, twice)."""

    place: int | None
    points: int
    bonus: tuple[tuple[str, int], ...] = ()

    @property
    def score(self) -> int:
        return self.points + sum(v for _k, v in self.bonus)

    def bonus_points(self) -> int:
        return sum(v for _k, v in self.bonus)


@dataclass(frozen=True)
class Row:
    place: int
    driver: str
    entries: tuple[Entry | None, ...]  # per round (None: not in that round)
    kept: tuple[bool, ...]  # per round: counted (False: dropped)
    total: int  # points counted
    tie: str = ""  # how this row was told from the one above it on equal points ("" none)
    places: tuple[int, ...] = field(default=(), repr=False)  # countback: rounds won, 2nds, ...


def kept_rounds(scores: Sequence[int], best: int | None) -> tuple[bool, ...]:
    """Which rounds count: the `best` highest scores (all when `best` is None or not fewer than
    the rounds); of equal scores, the earliest rounds are dropped first."""
    n = len(scores)
    if best is None or best >= n:
        return (True,) * n
    # keep the highest scores, the latest first among equals
    order = sorted(range(n), key=lambda i: (-scores[i], -i))
    keep = set(order[:best])
    return tuple(i in keep for i in range(n))


def _countback(entries: Sequence[Entry | None], width: int) -> tuple[int, ...]:
    counts = [0] * width
    for e in entries:
        if e is not None and e.place is not None and e.place <= width:
            counts[e.place - 1] += 1
    return tuple(counts)


def _latest_key(entries: Sequence[Entry | None]) -> tuple[int, ...]:
    """Places from the latest round back (a round not placed in: after any place)."""
    big = 10**6
    return tuple(e.place if e is not None and e.place is not None else big for e in reversed(entries))


def table(drivers: Sequence[str], rounds: Sequence[Mapping[str, Entry]], best: int | None) -> tuple[Row, ...]:
    """The league table: each driver's rounds (their `Entry` in each round's mapping, missing:
    not in it), the `best` counted, ordered and placed with the tie-breaks of the module."""
    width = max((e.place for r in rounds for e in r.values() if e.place is not None), default=0)
    made = []
    for name in drivers:
        entries = tuple(r.get(name) for r in rounds)
        scores = [e.score if e is not None else 0 for e in entries]
        kept = kept_rounds(scores, best)
        total = sum(s for s, k in zip(scores, kept) if k)
        made.append((name, entries, kept, total, _countback(entries, width)))

    def key(item: tuple) -> tuple:
        name, entries, _kept, total, counts = item
        return (-total, tuple(-c for c in counts), _latest_key(entries), name)

    made.sort(key=key)
    rows: list[Row] = []
    for i, (name, entries, kept, total, counts) in enumerate(made):
        tie, place = "", i + 1
        if rows and rows[-1].total == total:
            above = made[i - 1]
            if above[4] != counts:
                tie = "countback"
            elif _latest_key(above[1]) != _latest_key(entries):
                tie = "latest round"
            else:
                tie, place = "tied", rows[-1].place
        rows.append(Row(place, name, entries, kept, total, tie, counts))
    return tuple(rows)


def shown_score(entry: Entry | None, kept: bool) -> str:
    """A round's score as a league table shows it: the points, with the bonus as `+N`, in
    brackets when dropped; `-` when not in the round."""
    if entry is None:
        text = "-"
    elif entry.bonus:
        text = f"{entry.points}+{entry.bonus_points()}"
    else:
        text = str(entry.points)
    return text if kept or entry is None else f"({text})"


def table_json(
    rows: Sequence[Row],
    rounds: Sequence[int],
    round_json: Callable[[int, Entry | None, bool], dict[str, Any]],
    *,
    who: str = "driver",
    per_round: str = "rounds",
) -> list[dict[str, Any]]:
    """A league table as JSON, a row a driver: its place, the driver (under `who`), its
    rounds (under `per_round`: `round_json(round index, entry, kept)` for each round run, by
    index), the points counted and how a tie with the row above was broken (null: none).
    Each game names its rounds and says what a round holds."""
    return [
        {
            "place": row.place,
            who: row.driver,
            per_round: [round_json(i, e, kept) for i, e, kept in zip(rounds, row.entries, row.kept)],
            "total": row.total,
            "tie_break": row.tie or None,
        }
        for row in rows
    ]


TIE_NOTE = (
    "Ties: more points counted, then countback (more round wins, then more second places...), then the better "
    "place in the latest round; still tied, the drivers share the place."
)
