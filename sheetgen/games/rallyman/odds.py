"""The exact odds of a plan of dice: `sheetgen odds rallyman --variant gt --dice 3,4,coast,brake
[--extra-cautions N] [--focus F]`, and the odds table of the dashboard reference card.

A plan is the dice of one turn in the order they are placed (`3,4,coast,brake`). Two kinds of
caution come from the track rather than the dice (rulings RG-8, RG-9):

- a die written with `!` (`4!`, `4!!` for two) is placed on a space that gives that many
  cautions (a caution mark of the outside line, an inside-line caution symbol): they count
  when that die is placed, rolled or secured (focus secures the die, not the track);
- `extra` (`--extra-cautions N`) counts N cautions before the first die: where the plan does
  not say where they fall, the odds take the cautious view (stopping early never avoids them).

Two ways of rolling (rulebook "Rolling Your Dice and Moving"):

- **flat out**: every die at once; the car loses control when the cautions rolled and the
  track's reach the caution limit. Every gear, coast (and DIRT leader) die earns a token,
  lost control or not.
- **one at a time**: before each die the player sees every result so far and either rolls
  it or secures it with tokens (the k-th die secured in a turn costs `FocusCosts.cost(k)`:
  1, then 2 more, then 3 more). `complete` is the best chance of placing every die of the
  plan without losing control, the tokens used adaptively (dynamic programming over die,
  cautions so far and dice secured this turn; the tokens left follow from these). Stopping
  early counts as not completing: for this figure a player never stops. Among choices with
  the same chance the policy spends fewer tokens on average, then places more dice; the
  expected number of dice placed before a loss of control (the losing die not counted) and
  of tokens spent are those of that policy. `by_dice[j]` is the best chance of placing the
  first j dice (a player who means to stop there), each with its own best policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from sheetgen.errors import OptionError
from sheetgen.games.rallyman.ruleset import (
    GT,
    VARIANTS,
    DieKind,
    Effect,
    Ruleset,
    default,
    house_note,
)
from sheetgen.registry import Report

MAX_PLAN = 24
MAX_MARKS = 9
ALIASES = {"white": "coast", "red": "brake", "green": "boost", "orange": "leader", "black": None}


@dataclass(frozen=True)
class PlannedDie:
    """A die of a plan and the cautions its space gives (`4!`)."""

    die: DieKind
    marks: int = 0

    @property
    def text(self) -> str:
        return self.die.name + "!" * self.marks


@dataclass(frozen=True)
class Plan:
    dice: tuple[PlannedDie, ...]
    extra: int = 0  # cautions counted before the first die

    @property
    def text(self) -> str:
        return ",".join(d.text for d in self.dice)

    @property
    def marks(self) -> int:
        return sum(d.marks for d in self.dice)


def _known() -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for v in VARIANTS for n in default(v).die_names))


def _dice_words() -> str:
    """The dice every variant has, then each variant's own ("1, ..., boost, and DIRT's
    leader"): the leader die is DIRT's only."""
    rulesets = [default(v) for v in VARIANTS]
    common = [n for n in _known() if all(n in r.die_names for r in rulesets)]
    own = [
        f"{r.title.removeprefix('Rallyman ')}'s {n}" for r in rulesets for n in r.die_names if n not in common
    ]
    return ", ".join(common) + "".join(f", and {w}" if i == len(own) - 1 else f", {w}" for i, w in enumerate(own))


def parse_dice(text: str) -> tuple[tuple[str, int], ...]:
    """`--dice` as written: a comma list of dice (1-6, coast, brake, boost, leader, or the
    colours white, red, green, orange), each followed by one `!` per caution its space gives;
    a ValueError names the die kinds."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("give the dice of the plan, e.g. 3,4,coast,brake")
    out = []
    known = _known()
    for raw in text.split(","):
        word = raw.strip().lower()
        name = word.rstrip("!")
        marks = len(word) - len(name)
        name = ALIASES.get(name, name) or ""
        if name not in known:
            raise ValueError(
                f"unknown die {raw.strip()!r}: the dice are {_dice_words()} (white, red, green, orange for the "
                "colours; '!' after a die for a caution on its space)"
            )
        if marks > MAX_MARKS:
            raise ValueError(f"at most {MAX_MARKS} cautions on one space, got {raw.strip()!r}")
        out.append((name, marks))
    if len(out) > MAX_PLAN:
        raise ValueError(f"a plan has at most {MAX_PLAN} dice, got {len(out)}")
    return tuple(out)


def plan_of(ruleset: Ruleset, dice: str | tuple[tuple[str, int], ...], extra: int = 0) -> Plan:
    """The plan of `dice` (text or `parse_dice`'s value) with the ruleset's dice; a die the
    variant does not have is a ValueError."""
    parsed = parse_dice(dice) if isinstance(dice, str) else dice
    out = []
    for name, marks in parsed:
        if name not in ruleset.die_names:
            raise ValueError(f"{ruleset.title} has no {name!r} die (its dice: {', '.join(ruleset.die_names)})")
        out.append(PlannedDie(ruleset.die(name), marks))
    if extra < 0:
        raise ValueError(f"extra cautions must be 0 or more, got {extra}")
    return Plan(tuple(out), extra)


# --------------------------------------------------------------------------- flat out


def caution_distribution(plan: Plan) -> tuple[Fraction, ...]:
    """P(k cautions rolled), k = 0..len(plan): the dice alone, without the track's."""
    dist = [Fraction(1)]
    for planned in plan.dice:
        p = planned.die.caution_chance
        nxt = [Fraction(0)] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return tuple(dist)


@dataclass(frozen=True)
class FlatOut:
    lose_control: Fraction
    cautions: tuple[Fraction, ...]  # P(k cautions rolled)
    tokens_earned: int


@lru_cache(maxsize=4096)  # exact fractions: the dashboards and odds pages ask for the same plans again
def flat_out(plan: Plan, ruleset: Ruleset) -> FlatOut:
    """All the dice at once: the chance that the cautions rolled and the track's reach the
    caution limit, and the tokens earned (every gear, coast and leader die, lost control or
    not)."""
    track = plan.extra + plan.marks
    dist = caution_distribution(plan)
    lose = sum((q for k, q in enumerate(dist) if k + track >= ruleset.caution_limit), Fraction(0))
    earned = sum(1 for d in plan.dice if d.die.earns_token)
    return FlatOut(lose, dist, earned)


# --------------------------------------------------------------------------- one at a time


@dataclass(frozen=True)
class Value:
    """What a policy gives from a state on: the chance of completing the plan, and the
    expected tokens spent and dice placed from there."""

    complete: Fraction
    spent: Fraction
    dice: Fraction

    def better_than(self, other: Value) -> bool:
        return (self.complete, -self.spent, self.dice) > (other.complete, -other.spent, other.dice)


@dataclass(frozen=True)
class Decision:
    """Where the best policy secures a die: before die `die` (from 1), with `cautions` so
    far and `secured` dice secured before it this turn."""

    die: int
    name: str
    cautions: int
    secured: int
    cost: int


@dataclass(frozen=True)
class OneAtATime:
    complete: Fraction
    expected_dice: Fraction
    expected_spent: Fraction
    secures: tuple[Decision, ...]  # reachable states where the policy secures
    by_dice: tuple[Fraction, ...]  # best chance of placing the first j dice, j = 1..n


def _solve(plan: Plan, limit: int, focus: int, costs) -> tuple[Value, dict]:
    """The best policy's value from the start, and its choice per state (i, cautions,
    secured) as True (secure) / False (roll)."""
    dice = plan.dice
    n = len(dice)
    choice: dict[tuple[int, int, int], bool] = {}

    @cache
    def value(i: int, c: int, k: int) -> Value:
        if i == n:
            return Value(Fraction(1), Fraction(0), Fraction(0))
        planned = dice[i]
        p = planned.die.caution_chance

        def after(cautions: int, secured: int) -> Value:
            if cautions >= limit:
                return Value(Fraction(0), Fraction(0), Fraction(0))
            v = value(i + 1, cautions, secured)
            return Value(v.complete, v.spent, v.dice + 1)

        hit, miss = after(c + 1 + planned.marks, k), after(c + planned.marks, k)
        roll = Value(
            p * hit.complete + (1 - p) * miss.complete,
            p * hit.spent + (1 - p) * miss.spent,
            p * hit.dice + (1 - p) * miss.dice,
        )
        best, secure = roll, False
        cost = costs.cost(k + 1)
        if costs.total(k) + cost <= focus:
            v = after(c + planned.marks, k + 1)
            held = Value(v.complete, v.spent + cost, v.dice)
            if held.better_than(roll):
                best, secure = held, True
        choice[(i, c, k)] = secure
        return best

    if plan.extra >= limit:
        return Value(Fraction(0), Fraction(0), Fraction(0)), choice
    return value(0, plan.extra, 0), choice


@lru_cache(maxsize=4096)  # (as flat_out: its value is immutable)
def one_at_a_time(plan: Plan, ruleset: Ruleset, focus: int = 0) -> OneAtATime:
    """The best chance of completing `plan` one die at a time with `focus` tokens (see the
    module), with the policy's expectations and where it secures."""
    limit = ruleset.caution_limit
    start, choice = _solve(plan, limit, focus, ruleset.focus)
    secures = []
    # the states the policy reaches, in play order
    frontier = {(plan.extra, 0)} if plan.extra < limit else set()
    for i, planned in enumerate(plan.dice):
        nxt: set[tuple[int, int]] = set()
        for c, k in sorted(frontier):
            if choice.get((i, c, k)):
                secures.append(Decision(i + 1, planned.die.name, c, k, ruleset.focus.cost(k + 1)))
                outcomes = [(c + planned.marks, k + 1)]
            else:
                outcomes = []
                if planned.die.cautions < planned.die.faces:
                    outcomes.append((c + planned.marks, k))
                if planned.die.cautions:
                    outcomes.append((c + planned.marks + 1, k))
            nxt.update((cc, kk) for cc, kk in outcomes if cc < limit)
        frontier = nxt
    by_dice = tuple(
        _solve(Plan(plan.dice[:j], plan.extra), limit, focus, ruleset.focus)[0].complete
        for j in range(1, len(plan.dice) + 1)
    )
    return OneAtATime(start.complete, start.dice, start.spent, tuple(secures), by_dice)


# --------------------------------------------------------------------------- reports


def decimal(value: Fraction, places: int = 4) -> float:
    """`value` rounded half up to `places` decimals (exactly, from the fraction)."""
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return float(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _frac(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _die_word(name: str) -> str:
    return f"gear {name}" if name.isdigit() else name


def _short(text: str) -> str:
    """A fraction for reading: "1" and "0" rather than "1/1" and "0/1"."""
    return text.removesuffix("/1")


def _pct(value: Fraction) -> str:
    return f"{decimal(value * 100, 2):.2f}%"


def odds(ruleset: Ruleset, dice: str | tuple, extra: int = 0, focus: int = 0) -> dict:
    """The odds of a plan as data (the JSON of `sheetgen odds rallyman`)."""
    plan = plan_of(ruleset, dice, extra)
    fo = flat_out(plan, ruleset)
    one = one_at_a_time(plan, ruleset, focus)
    names = list(dict.fromkeys(d.die.name for d in plan.dice))
    notes = []
    doubled = [
        name
        for name in names
        if ruleset.die(name).effect is Effect.GEAR and sum(d.die.name == name for d in plan.dice) > 1
    ]
    if doubled:
        notes.append(f"a dashboard has one die of each gear; the plan uses gear {', '.join(doubled)} more than once")
    if any(d.die.name == "leader" for d in plan.dice) and ruleset.leader_first_player_only:
        notes.append("only the first player of a round uses the orange leader die")
    return {
        "game": "rallyman",
        "variant": ruleset.variant,
        "plan": {
            "dice": [d.die.name for d in plan.dice],
            "marks": [d.marks for d in plan.dice],
            "extra_cautions": plan.extra,
            "focus": focus,
        },
        "ruleset": {
            "caution_limit": ruleset.caution_limit,
            "caution_faces": {
                name: {"cautions": ruleset.die(name).cautions, "faces": ruleset.die(name).faces} for name in names
            },
            "token": ruleset.token,
            "focus_costs": [ruleset.focus.total(k) for k in range(1, 5)],
        },
        "flat_out": {
            "lose_control": _frac(fo.lose_control),
            "lose_control_p": decimal(fo.lose_control),
            "cautions_rolled": [_frac(q) for q in fo.cautions],
            "tokens_earned": fo.tokens_earned,
        },
        "one_at_a_time": {
            "complete": _frac(one.complete),
            "complete_p": decimal(one.complete),
            "lose_control": _frac(1 - one.complete),
            "expected_dice": _frac(one.expected_dice),
            "expected_dice_p": decimal(one.expected_dice),
            "expected_tokens_spent": _frac(one.expected_spent),
            "expected_tokens_spent_p": decimal(one.expected_spent),
            "secure": [
                {"die": s.die, "name": s.name, "cautions": s.cautions, "secured_before": s.secured, "cost": s.cost}
                for s in one.secures
            ],
            "by_dice": [
                {"dice": j, "complete": _frac(v), "complete_p": decimal(v)} for j, v in enumerate(one.by_dice, start=1)
            ],
        },
        "notes": notes,
        "house": house_note(ruleset, ("dice", "caution_limit", "focus")),
    }


def format_odds(data: dict) -> str:
    """The odds as a player reads them at the table."""
    plan, rules, fo, one = data["plan"], data["ruleset"], data["flat_out"], data["one_at_a_time"]
    title = "Rallyman GT" if data["variant"] == GT else "Rallyman DIRT"
    shown = ", ".join(n + "!" * m for n, m in zip(plan["dice"], plan["marks"]))
    faces = ", ".join(
        f"{_die_word(n)} {f['cautions']}" + (f" of {f['faces']}" if f["faces"] != 6 else "")
        for n, f in rules["caution_faces"].items()
    )
    token = rules["token"]
    lines = [
        f"{title} odds for {shown}",
        f"  caution limit {rules['caution_limit']}; caution faces (of six): {faces}",
        f"  extra cautions from the track: {plan['extra_cautions']} before the first die"
        + (f", {sum(plan['marks'])} on marked spaces (!)" if sum(plan["marks"]) else ""),
        "",
        (
            f"Flat out: lose control {_short(fo['lose_control'])} ({_pct(Fraction(fo['lose_control']))}); "
            f"earns {fo['tokens_earned']} {token} token{'s' if fo['tokens_earned'] != 1 else ''} either way"
        ),
        (
            f"One at a time with {plan['focus']} {token} token{'s' if plan['focus'] != 1 else ''} "
            f"(securing costs {', '.join(map(str, rules['focus_costs']))}... in all):"
        ),
        f"  complete the plan {_short(one['complete'])} ({_pct(Fraction(one['complete']))})",
        (
            f"  dice placed on average {one['expected_dice_p']:.2f} of {len(plan['dice'])}; "
            f"{token} tokens spent on average {one['expected_tokens_spent_p']:.2f}"
        ),
    ]
    if one["secure"]:
        for s in one["secure"]:
            before = f", {s['secured_before']} already secured" if s["secured_before"] else ""
            lines.append(
                f"  secure die {s['die']} ({_die_word(s['name'])}) when you have {s['cautions']} "
                f"caution{'s' if s['cautions'] != 1 else ''} so far{before}: {s['cost']} "
                f"token{'s' if s['cost'] != 1 else ''}"
            )
    else:
        lines.append("  roll every die: securing never helps here")
    lines.append(
        "  chance to place the first 1, 2, ... dice (to stop there): "
        + ", ".join(_short(b["complete"]) for b in one["by_dice"])
    )
    for note in data["notes"]:
        lines.append(f"Note: {note}")
    if data.get("house"):
        lines.append(f"Note: {data['house']}")
    return "\n".join(lines) + "\n"


def _dice_option(text: str) -> tuple[tuple[str, int], ...]:
    return parse_dice(text)


def odds_report(options: Mapping[str, Any]) -> Report:
    """`sheetgen odds rallyman`: the plan's odds, from the options (the variant's ruleset)."""
    if options.get("dice") is None:
        raise OptionError("give the plan with --dice, e.g. --dice 3,4,coast,brake")
    ruleset = default(options.get("variant") or GT)
    try:
        data = odds(ruleset, options["dice"], options.get("extra_cautions") or 0, options.get("focus") or 0)
    except ValueError as exc:
        raise OptionError(f"--dice: {exc}") from None
    return Report(data, format_odds(data))


# --------------------------------------------------------------------------- reference card

#: the plans of the dashboard card's odds table: climbing runs, then the same with coasts
CARD_PLANS = (
    "1,2,3",
    "2,3,4",
    "3,4,5",
    "4,5,6",
    "1,2,3,4",
    "2,3,4,5",
    "3,4,5,6",
    "1,2,3,4,5",
    "2,3,4,5,6",
    "1,2,3,4,5,6",
    "3,coast,4,coast",
    "4,coast,5,coast,6",
    "brake,3,4",
    "6,brake,4,coast",
)


def odds_table(
    ruleset: Ruleset | None = None,
    plans: tuple[str, ...] = CARD_PLANS,
    max_dice: int = 6,
    focus: tuple[int, ...] = (0, 1, 2, 3),
) -> dict:
    """The dashboard reference card's odds table, as data.

    `by_count`: for n dice with two caution faces (gear 3-6, brake, boost) and m with one
    (coast, gear 1-2), n + m from 1 to `max_dice`, the flat-out chance of losing control (it
    does not depend on the order). `plans`: for each plan, the flat-out chance of losing
    control and the one-at-a-time chance of completing it with each number of `focus`
    tokens. Fractions as "a/b" with the decimal beside.

    Kept in the figures cache (`sheetgen.cache.figures`, keyed by the ruleset and this
    module's sources): the exact fractions take a second to solve, for every printout."""
    from sheetgen import cache

    ruleset = ruleset or default(GT)
    subject = repr((ruleset, tuple(plans), max_dice, tuple(focus)))
    return cache.figures(
        "rallyman-odds",
        subject,
        __name__,
        lambda: _odds_table(ruleset, tuple(plans), max_dice, tuple(focus)),
        lambda value: isinstance(value["plans"], list) and isinstance(value["by_count"], list),
    )


def _odds_table(ruleset: Ruleset, plans: tuple[str, ...], max_dice: int, focus: tuple[int, ...]) -> dict:
    two = next(d for d in ruleset.dice if d.cautions == 2 and d.faces == 6)
    one = next(d for d in ruleset.dice if d.cautions == 1 and d.faces == 6)
    by_count = []
    for total in range(1, max_dice + 1):
        for n_two in range(total, -1, -1):
            plan = Plan(tuple([PlannedDie(two)] * n_two + [PlannedDie(one)] * (total - n_two)))
            lose = flat_out(plan, ruleset).lose_control
            by_count.append(
                {
                    "dice": total,
                    "two_caution_dice": n_two,
                    "one_caution_dice": total - n_two,
                    "lose_control": _frac(lose),
                    "lose_control_p": decimal(lose),
                }
            )
    rows = []
    for text in plans:
        plan = plan_of(ruleset, text)
        lose = flat_out(plan, ruleset).lose_control
        rows.append(
            {
                "plan": text,
                "dice": len(plan.dice),
                "flat_out": {"lose_control": _frac(lose), "lose_control_p": decimal(lose)},
                "one_at_a_time": {
                    str(f): {"complete": _frac(c), "complete_p": decimal(c)}
                    for f in focus
                    for c in (one_at_a_time(plan, ruleset, f).complete,)
                },
            }
        )
    return {
        "variant": ruleset.variant,
        "caution_limit": ruleset.caution_limit,
        "token": ruleset.token,
        "focus": list(focus),
        "by_count": by_count,
        "plans": rows,
        "house": house_note(ruleset, ("dice", "caution_limit", "focus")),
    }

