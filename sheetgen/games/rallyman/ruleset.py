"""Rallyman's rules as data: the dice and their caution faces, the caution limit, the
dashboards, time per turn, the loss-of-control table, the damage-token bag, focus costs and
DIRT's time cards, for both variants (GT and DIRT).

Every value has a source (rulings RG-* and RD-* in docs/rulings.md):

- **rulebook**: the rulebooks' text (`rallyman_gt.txt`, `rallyman_dirt.txt`): the die kinds,
  one caution face on the coast, gear-1 and gear-2 dice and two on the others, the caution
  limit of 3, focus costs 1, then 2 more, then 3 more, Spin and Crash at 60 s;
- **hobby**: figures found in public hobby implementations, not in the rulebooks (RULINGS.md):
  GT time per turn by gear, the GT loss-of-control table, the GT damage bag;
- **house**: sheetgen's own where neither gives a value: the dashboards' dice pools, DIRT's
  time cards, DIRT's loss-of-control table and damage bag. `Ruleset.house` names these
  sections, and everything that prints one says "house values".

A spec replaces any value with the one printed in a user's own box: `ruleset_from_mapping`
puts a plain mapping (the shape `to_mapping` writes) over a variant's defaults, and reports
every problem at once as a `RulesetProblem` with its path in that mapping, so that a spec
loader can point at FILE:LINE:COL (`doc.problem(base + p.path, p.message, key=p.key)`).
A section given is merged key by key (a die's `cautions`, one dashboard's coast dice, one
cell of a table); a section a spec gives whole is no longer a house or hobby value (one
given in part still is, and says so: `Ruleset.replaced` names both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from math import comb
from typing import Any

GT = "gt"
DIRT = "dirt"
VARIANTS = (GT, DIRT)
TITLES = {GT: "Rallyman GT", DIRT: "Rallyman DIRT"}

#: what each source is called where printed
SOURCES = {
    "rulebook": "rulebook",
    "hobby": "figures from public hobby implementations (not in the rulebook)",
    "house": "house values (not in the rulebook or any public source)",
}

GEARS = (1, 2, 3, 4, 5, 6)
TILE_COLOURS = ("yellow", "orange", "red")
MAX_FACES = 20
MAX_LIMIT = 10
MAX_POOL = 9
MAX_SECONDS = 999
MAX_TOKENS = 9
MAX_BAG = 999


class Effect(Enum):
    """What a die does to the gear (rulebook "The Dice")."""

    GEAR = "gear"  # a gear die: the car is in that gear (one up or one down)
    STAY = "stay"  # coast (white) and leader (orange): the same gear
    BRAKE = "brake"  # red: skip a gear down
    BOOST = "boost"  # green: skip a gear up


@dataclass(frozen=True)
class DieKind:
    """One kind of die: its name in a plan ("1".."6", "coast", "brake", "boost", "leader"),
    colour and effect, its faces and how many of them show a caution, and whether rolling it
    flat out earns a focus (GT) or second (DIRT) token."""

    name: str
    colour: str
    effect: Effect
    cautions: int
    faces: int = 6
    earns_token: bool = True

    @property
    def gear(self) -> int | None:
        return int(self.name) if self.effect is Effect.GEAR else None

    @property
    def caution_chance(self) -> Fraction:
        return Fraction(self.cautions, self.faces)

    @property
    def label(self) -> str:
        """The die as a player names it: "gear 4", "coast (white)"."""
        return f"gear {self.name}" if self.effect is Effect.GEAR else f"{self.name} ({self.colour})"


@dataclass(frozen=True)
class Dashboard:
    """The dice a car may use each turn and its caution limit, for one car class, tyres and
    weather (the dashboard card's side)."""

    car_class: str
    tyres: str
    weather: str
    dice: tuple[tuple[str, int], ...]  # die name -> how many
    caution_limit: int

    def count(self, die: str) -> int:
        return dict(self.dice).get(die, 0)


@dataclass(frozen=True)
class LossOfControl:
    """What a loss of control costs: damage tokens drawn by (gear at that moment, tile
    colour), and the gear the car ends in (GT: 00 from `gear_00_from` up, else 0; DIRT: the
    time card decides, `gear_00_from` is None)."""

    damage: tuple[tuple[int, tuple[tuple[str, int], ...]], ...]  # gear -> colour -> tokens
    gear_00_from: int | None = 3

    def tokens(self, gear: int, colour: str) -> int:
        return dict(dict(self.damage).get(gear, ())).get(colour, 0)

    def end_gear(self, gear: int) -> str:
        return "00" if self.gear_00_from is not None and gear >= self.gear_00_from else "0"


@dataclass(frozen=True)
class DamageToken:
    """A kind of damage token and how many the bag holds; DIRT's tokens also have a shortcut
    side (ok, coast_die, mud), drawn when a car enters a shortcut."""

    kind: str
    count: int
    shortcut: str | None = None


@dataclass(frozen=True)
class DamageBag:
    """The damage tokens, drawn without replacement."""

    tokens: tuple[DamageToken, ...]

    @property
    def total(self) -> int:
        return sum(t.count for t in self.tokens)

    def kinds(self) -> tuple[tuple[str, int], ...]:
        """Tokens per kind (DIRT's shortcut sides added up)."""
        out: dict[str, int] = {}
        for token in self.tokens:
            out[token.kind] = out.get(token.kind, 0) + token.count
        return tuple(out.items())

    def draw(self, n: int) -> tuple[tuple[tuple[tuple[str, int], ...], Fraction], ...]:
        """Every outcome of drawing `n` tokens from the full bag (kinds and how many of
        each, kinds with none left out) with its exact probability (multivariate
        hypergeometric)."""
        kinds = self.kinds()
        if not 0 <= n <= self.total:
            raise ValueError(f"cannot draw {n} tokens from a bag of {self.total}")
        out = []

        def walk(i: int, left: int, taken: tuple[int, ...]) -> None:
            if i == len(kinds) - 1:
                if left <= kinds[i][1]:
                    counts = (*taken, left)
                    ways = 1
                    for (_k, have), c in zip(kinds, counts):
                        ways *= comb(have, c)
                    drawn = tuple((k, c) for (k, _h), c in zip(kinds, counts) if c)
                    out.append((drawn, Fraction(ways, comb(self.total, n))))
                return
            for c in range(min(left, kinds[i][1]) + 1):
                walk(i + 1, left - c, (*taken, c))

        walk(0, n, ())
        return tuple(out)


@dataclass(frozen=True)
class FocusCosts:
    """Securing the k-th die of a turn costs `first + (k - 1) * step` tokens (rulebook: the
    first costs one, the second another two, the third another three...)."""

    first: int = 1
    step: int = 1

    def cost(self, k: int) -> int:
        """What the k-th secured die of a turn costs (k from 1)."""
        return self.first + (k - 1) * self.step

    def total(self, k: int) -> int:
        """What securing k dice in one turn costs in all."""
        return sum(self.cost(j) for j in range(1, k + 1))


@dataclass(frozen=True)
class TimeCard:
    """DIRT's time cards of one gear: the seconds on the gear side, and how many cards of the
    gear's deck show each loss-of-control icon on the gear-0 side."""

    gear: int
    seconds: int
    sisu: int
    spin: int
    crash: int

    @property
    def cards(self) -> int:
        return self.sisu + self.spin + self.crash


@dataclass(frozen=True)
class TimeCards:
    cards: tuple[TimeCard, ...]
    #: Spin and Crash add this many seconds (rulebook: 60 s); SISU the card's own seconds
    loss_seconds: int = 60

    def card(self, gear: int) -> TimeCard:
        return next(c for c in self.cards if c.gear == gear)

    def expected_loss_seconds(self, gear: int) -> Fraction:
        """The expected seconds of a loss of control in `gear`: a SISU card counts its own
        seconds, a Spin or a Crash `loss_seconds`."""
        card = self.card(gear)
        return Fraction(card.sisu * card.seconds + (card.spin + card.crash) * self.loss_seconds, card.cards)

    def loss_outcomes(self, gear: int) -> tuple[tuple[str, Fraction], ...]:
        """The icon a loss of control in `gear` turns up, with its exact chance."""
        card = self.card(gear)
        return tuple(
            (icon, Fraction(n, card.cards))
            for icon, n in (("sisu", card.sisu), ("spin", card.spin), ("crash", card.crash))
            if n
        )


@dataclass(frozen=True)
class FlyingStart:
    """GT's flying start: from gear 0 the car may start in gear 2; a caution on that gear-2
    die ends the turn at once, one space on, in gear 2, and a flat-out loss of control that
    would also happen is ignored."""

    from_gear: int = 0
    to_gear: int = 2
    caution_moves: int = 1
    ignores_loss_of_control: bool = True


@dataclass(frozen=True)
class Ruleset:
    variant: str
    dice: tuple[DieKind, ...]
    caution_limit: int
    dashboards: tuple[Dashboard, ...]
    loss_of_control: LossOfControl
    damage_bag: DamageBag
    focus: FocusCosts
    #: GT: seconds per turn ending in gear "6".."1", "0", "00"
    time_per_turn: tuple[tuple[str, int], ...] = ()
    #: DIRT: the time cards
    time_cards: TimeCards | None = None
    #: DIRT: only the first player of a round may use the orange leader dice
    leader_first_player_only: bool = False
    flying_start: FlyingStart | None = None
    #: the source of each section ("rulebook", "hobby", "house"), as `to_mapping`'s keys
    sources: tuple[tuple[str, str], ...] = field(default=())
    #: the sections a spec replaced (in part or whole)
    replaced: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return TITLES[self.variant]

    @property
    def token(self) -> str:
        """What the tokens securing a die are called: focus (GT), second (DIRT)."""
        return "focus" if self.variant == GT else "second"

    def die(self, name: str) -> DieKind:
        for die in self.dice:
            if die.name == name:
                return die
        raise KeyError(name)

    @property
    def die_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dice)

    def source(self, section: str) -> str:
        return dict(self.sources).get(section, "rulebook")

    @property
    def house(self) -> tuple[str, ...]:
        """The sections holding house values: every printout that uses one says so."""
        return tuple(s for s, src in self.sources if src == "house")

    @property
    def hobby(self) -> tuple[str, ...]:
        return tuple(s for s, src in self.sources if src == "hobby")

    def dashboard(self, car_class: str, tyres: str, weather: str) -> Dashboard:
        for board in self.dashboards:
            if (board.car_class, board.tyres, board.weather) == (car_class, tyres, weather):
                return board
        raise KeyError((car_class, tyres, weather))

    def seconds(self, gear: str) -> int:
        """GT: the seconds a turn ending in `gear` ("6".."1", "0", "00") counts."""
        return dict(self.time_per_turn)[gear]


# --------------------------------------------------------------------------- defaults


def _gear_dice(cautions_1_2: int = 1, cautions_3_6: int = 2) -> tuple[DieKind, ...]:
    return tuple(DieKind(str(g), "black", Effect.GEAR, cautions_1_2 if g <= 2 else cautions_3_6) for g in GEARS)


def _dashboards(
    classes: Mapping[str, Mapping[str, int]], boards: Mapping[tuple[str, str], tuple[Mapping[str, int], int]]
) -> tuple[Dashboard, ...]:
    out = []
    for car_class, base in classes.items():
        for (tyres, weather), (extra, limit) in boards.items():
            dice = dict(base)
            dice.update(extra)
            out.append(Dashboard(car_class, tyres, weather, tuple(dice.items()), limit))
    return tuple(out)


def _gear_pool(top: int) -> dict[str, int]:
    return {str(g): 1 if g <= top else 0 for g in GEARS}


#: RULINGS.md "Rallyman GT and DIRT": damage tokens by (gear, tile colour); all others 0
_HOBBY_GT_DAMAGE = {
    (3, "red"): 1,
    (4, "orange"): 1,
    (4, "red"): 2,
    (5, "yellow"): 1,
    (5, "orange"): 2,
    (5, "red"): 3,
    (6, "yellow"): 2,
    (6, "orange"): 3,
    (6, "red"): 4,
}


def _damage_grid(cells: Mapping[tuple[int, str], int]) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    return tuple((g, tuple((c, cells.get((g, c), 0)) for c in TILE_COLOURS)) for g in GEARS)


def _gt() -> Ruleset:
    dice = (
        *_gear_dice(),
        DieKind("coast", "white", Effect.STAY, 1),
        DieKind("brake", "red", Effect.BRAKE, 2, earns_token=False),
        DieKind("boost", "green", Effect.BOOST, 2, earns_token=False),
    )
    # house (RG-5): GT6 has gears 1-6; GT5 gears 1-5 and a boost die (the rulebook's "boost
    # die (available in GT5 races)"); GT4 gears 1-4 and two boosts. The right tyres for the
    # weather keep the limit of 3; the wrong ones lose dice and one caution of limit (the
    # rulebook: "your dice pool and caution limit will be reduced").
    classes = {
        "GT6": {**_gear_pool(6), "boost": 0},
        "GT5": {**_gear_pool(5), "boost": 1},
        "GT4": {**_gear_pool(4), "boost": 2},
    }
    boards = {
        ("asphalt", "dry"): ({"coast": 3, "brake": 2}, 3),
        ("asphalt", "wet"): ({"coast": 1, "brake": 1}, 2),
        ("rain", "wet"): ({"coast": 2, "brake": 2}, 3),
        ("rain", "dry"): ({"coast": 2, "brake": 1}, 2),
    }
    bag = DamageBag(
        (
            DamageToken("lose_gear_die", 6),
            DamageToken("lose_brake_die", 6),
            DamageToken("lose_coast_die", 6),
            DamageToken("weather", 6),
            DamageToken("yellow_flag", 6),
            DamageToken("green_flag", 12),
        )
    )
    times = (("6", 10), ("5", 15), ("4", 20), ("3", 30), ("2", 40), ("1", 50), ("0", 60), ("00", 120))
    return Ruleset(
        variant=GT,
        dice=dice,
        caution_limit=3,
        dashboards=_dashboards(classes, boards),
        loss_of_control=LossOfControl(_damage_grid(_HOBBY_GT_DAMAGE), gear_00_from=3),
        damage_bag=bag,
        focus=FocusCosts(1, 1),
        time_per_turn=times,
        flying_start=FlyingStart(),
        sources=(
            ("dashboards", "house"),
            ("time_per_turn", "hobby"),
            ("loss_of_control", "hobby"),
            ("damage_bag", "hobby"),
        ),
    )


def _dirt() -> Ruleset:
    dice = (
        *_gear_dice(),
        DieKind("coast", "white", Effect.STAY, 1),
        DieKind("leader", "orange", Effect.STAY, 2),
        DieKind("brake", "red", Effect.BRAKE, 2, earns_token=False),
        DieKind("boost", "green", Effect.BOOST, 2, earns_token=False),
    )
    # house (RD-3): 11 dice in the box: six gear dice, two coast, one leader, two brake;
    # an R5 car adds the boost die ("available in R5 races").
    classes = {
        "R2": {**_gear_pool(6), "coast": 2, "leader": 1, "brake": 2, "boost": 0},
        "R5": {**_gear_pool(6), "coast": 2, "leader": 1, "brake": 2, "boost": 1},
    }
    boards: dict[tuple[str, str], tuple[dict[str, int], int]] = {("gravel", "dry"): ({}, 3)}
    # house (RD-4): 48 tokens, 12 of each kind; on the shortcut side half are OK, a quarter
    # coast-die damage and a quarter mud
    bag = DamageBag(
        tuple(
            DamageToken(kind, n, side)
            for kind in ("gear", "brake", "coast_leader", "green_flag")
            for side, n in (("ok", 6), ("coast_die", 3), ("mud", 3))
        )
    )
    # house (RD-2): a higher gear is faster; a loss of control (60 s) is slower than any
    # gear; crashes are the most common icon (the rulebook: "happens most often")
    cards = TimeCards(
        tuple(TimeCard(g, s, 2, 3, 5) for g, s in ((1, 50), (2, 40), (3, 30), (4, 20), (5, 15), (6, 10))),
        loss_seconds=60,
    )
    return Ruleset(
        variant=DIRT,
        dice=dice,
        caution_limit=3,
        dashboards=_dashboards(classes, boards),
        loss_of_control=LossOfControl(_damage_grid(_HOBBY_GT_DAMAGE), gear_00_from=None),
        damage_bag=bag,
        focus=FocusCosts(1, 1),
        time_cards=cards,
        leader_first_player_only=True,
        sources=(
            ("dashboards", "house"),
            ("loss_of_control", "house"),
            ("damage_bag", "house"),
            ("time_cards", "house"),
        ),
    )


def ruleset_of(track: Any) -> Ruleset:
    """The ruleset `track` is played with: its spec's own values over the variant's
    defaults, or the defaults."""
    return track.ruleset if track.ruleset is not None else default(track.variant.value)


def default(variant: str) -> Ruleset:
    """The variant's ruleset as shipped: rulebook, hobby and house values (see the module)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (one of: {', '.join(VARIANTS)})")
    return _gt() if variant == GT else _dirt()


# --------------------------------------------------------------------------- mapping form


def to_mapping(ruleset: Ruleset) -> dict:
    """The ruleset as plain data: the shape a spec gives to replace values, and its JSON."""
    out: dict[str, Any] = {
        "dice": {d.name: {"faces": d.faces, "cautions": d.cautions} for d in ruleset.dice},
        "caution_limit": ruleset.caution_limit,
        "focus": {"first": ruleset.focus.first, "step": ruleset.focus.step},
        "dashboards": {},
        "loss_of_control": {
            "gear_00_from": ruleset.loss_of_control.gear_00_from,
            "damage": {str(g): dict(row) for g, row in ruleset.loss_of_control.damage},
        },
    }
    if ruleset.variant == DIRT:
        del out["loss_of_control"]["gear_00_from"]
    for board in ruleset.dashboards:
        by_tyres = out["dashboards"].setdefault(board.car_class, {}).setdefault(board.tyres, {})
        by_tyres[board.weather] = {"dice": dict(board.dice), "caution_limit": board.caution_limit}
    bag: dict[str, Any] = {}
    for token in ruleset.damage_bag.tokens:
        if token.shortcut is None:
            bag[token.kind] = token.count
        else:
            bag.setdefault(token.kind, {})[token.shortcut] = token.count
    out["damage_bag"] = bag
    if ruleset.time_per_turn:
        out["time_per_turn"] = dict(ruleset.time_per_turn)
    if ruleset.time_cards is not None:
        out["time_cards"] = {
            "loss_seconds": ruleset.time_cards.loss_seconds,
            "gears": {
                str(c.gear): {"seconds": c.seconds, "sisu": c.sisu, "spin": c.spin, "crash": c.crash}
                for c in ruleset.time_cards.cards
            },
        }
    if ruleset.variant == DIRT:
        out["leader_first_player_only"] = ruleset.leader_first_player_only
    if ruleset.flying_start is not None:
        fs = ruleset.flying_start
        out["flying_start"] = {
            "to_gear": fs.to_gear,
            "caution_moves": fs.caution_moves,
            "ignores_loss_of_control": fs.ignores_loss_of_control,
        }
    return out


@dataclass(frozen=True)
class RulesetProblem:
    """A problem of a ruleset mapping: its path in the mapping (keys and list indexes), the
    message, and whether it is the key that is wrong (an unknown key) rather than its value."""

    path: tuple
    message: str
    key: bool = False


class RulesetError(ValueError):
    """Every problem of a ruleset mapping at once."""

    def __init__(self, problems: list[RulesetProblem]):
        self.problems = problems
        super().__init__("; ".join(f"{'.'.join(map(str, p.path)) or '(ruleset)'}: {p.message}" for p in problems))


#: sections whose keys a spec may add to (new dashboard classes, tyres, weathers)
_OPEN = {("dashboards",), ("dashboards", "*"), ("dashboards", "*", "*")}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _key(key: Any) -> Any:
    """A gear key as written in YAML (`3:` is an integer) as the mapping's string."""
    return str(key) if _is_int(key) else key


def _merge(base: Any, given: Any, path: tuple, problems: list[RulesetProblem]) -> Any:
    """`given` put over `base` key by key; unknown keys and mappings where a mapping belongs
    are problems. Leaves are taken as given (checked afterwards)."""
    if not isinstance(base, dict):
        return given
    if not isinstance(given, dict):
        problems.append(RulesetProblem(path, f"expected a mapping, got {given!r}"))
        return base
    merged = dict(base)
    pattern = tuple("*" if i else p for i, p in enumerate(path)) if path[:1] == ("dashboards",) else path
    for raw, value in given.items():
        key = _key(raw)
        if key in base:
            merged[key] = _merge(base[key], value, path + (raw,), problems)
        elif pattern in _OPEN and isinstance(key, str) and key:
            merged[key] = value
        else:
            known = ", ".join(map(str, base))
            what = "die" if path == ("dice",) else "key"
            problems.append(RulesetProblem(path + (raw,), f"unknown {what} {raw!r} (known: {known})", key=True))
    return merged


def _raw_path(path: tuple, given: Any) -> tuple:
    """`path` (in the merged mapping, string gear keys) as written in the given mapping,
    cut to the part the mapping holds: a problem of a default value that a spec's other
    value makes wrong points at the nearest thing the spec wrote."""
    out: tuple = ()
    node = given
    for step in path:
        if not isinstance(node, dict):
            break
        match = next((k for k in node if _key(k) == step), None)
        if match is None:
            break
        out += (match,)
        node = node[match]
    return out


def _int_problem(value: Any, low: int, high: int, what: str) -> str | None:
    if not _is_int(value):
        return f"{what} must be a whole number, got {value!r}"
    if not low <= value <= high:
        return f"{what} must be between {low} and {high}, got {value}"
    return None


def ruleset_from_mapping(data: Mapping | None, variant: str = GT) -> Ruleset:
    """The ruleset of `variant` with the values of `data` (the shape of `to_mapping`, any
    part of it) put over the defaults; RulesetError lists every problem with its path in
    `data`."""
    base = default(variant)
    if data is None or data == {}:
        return base
    problems: list[RulesetProblem] = []
    if not isinstance(data, Mapping):
        raise RulesetError([RulesetProblem((), f"a ruleset must be a mapping, got {data!r}")])
    merged = _merge(to_mapping(base), dict(data), (), problems)
    found: list[tuple[tuple, str]] = []
    _check(merged, variant, found)
    problems.extend(RulesetProblem(_raw_path(path, data), message) for path, message in found)
    if problems:
        raise RulesetError(problems)
    defaults = to_mapping(base)
    given = {_key(k): v for k, v in data.items()}
    replaced = tuple(k for k in defaults if k in given)
    whole = tuple(k for k in replaced if _covers(defaults[k], given[k]))
    return _build(merged, base, replaced, whole)


def _covers(base: Any, given: Any) -> bool:
    """Whether `given` gives every value of `base` (a section given whole is the user's own,
    no longer a house or hobby value; one given in part still holds some)."""
    if not isinstance(base, dict):
        return True
    if not isinstance(given, dict):
        return False
    keyed = {_key(k): v for k, v in given.items()}
    return all(k in keyed and _covers(v, keyed[k]) for k, v in base.items())


def _check(m: dict, variant: str, out: list[tuple[tuple, str]]) -> None:
    def need(path: tuple, value: Any, low: int, high: int, what: str) -> bool:
        problem = _int_problem(value, low, high, what)
        if problem:
            out.append((path, problem))
        return problem is None

    for name, die in m["dice"].items():
        if not isinstance(die, dict):
            continue
        faces_ok = need(("dice", name, "faces"), die["faces"], 1, MAX_FACES, f"the faces of die {name!r}")
        high = die["faces"] if faces_ok else MAX_FACES
        need(("dice", name, "cautions"), die["cautions"], 0, high, f"the caution faces of die {name!r}")
    need(("caution_limit",), m["caution_limit"], 1, MAX_LIMIT, "the caution limit")
    need(("focus", "first"), m["focus"]["first"], 1, 99, "the first secured die's cost")
    need(("focus", "step"), m["focus"]["step"], 0, 99, "the cost's step")
    die_names = list(m["dice"])
    for car_class, by_tyres in m["dashboards"].items():
        if not isinstance(by_tyres, dict):
            out.append((("dashboards", car_class), f"a dashboard class must map tyres to weathers, got {by_tyres!r}"))
            continue
        for tyres, by_weather in by_tyres.items():
            if not isinstance(by_weather, dict):
                out.append(
                    (("dashboards", car_class, tyres), f"tyres must map weathers to dashboards, got {by_weather!r}")
                )
                continue
            for weather, board in by_weather.items():
                where = ("dashboards", car_class, tyres, weather)
                if (
                    not isinstance(board, dict)
                    or set(board) - {"dice", "caution_limit"}
                    or not {"dice", "caution_limit"} <= set(board)
                ):
                    out.append((where, f"a dashboard needs 'dice' and 'caution_limit' and nothing else, got {board!r}"))
                    continue
                need(where + ("caution_limit",), board["caution_limit"], 1, MAX_LIMIT, "a dashboard's caution limit")
                dice = board["dice"]
                if not isinstance(dice, dict):
                    out.append((where + ("dice",), f"a dashboard's dice must map die names to counts, got {dice!r}"))
                    continue
                for die, count in dice.items():
                    if _key(die) not in die_names:
                        out.append((where + ("dice", die), f"unknown die {die!r} (known: {', '.join(die_names)})"))
                    else:
                        need(where + ("dice", die), count, 0, MAX_POOL, f"the number of {_key(die)!r} dice")
    loc = m["loss_of_control"]
    if "gear_00_from" in loc and loc["gear_00_from"] is not None:
        need(
            ("loss_of_control", "gear_00_from"), loc["gear_00_from"], 1, 7, "the lowest gear that ends in 00 (7: none)"
        )
    for gear, row in loc["damage"].items():
        for colour, tokens in row.items():
            need(
                ("loss_of_control", "damage", gear, colour),
                tokens,
                0,
                MAX_TOKENS,
                f"damage tokens in gear {gear} on {colour}",
            )
    total = 0
    for kind, count in m["damage_bag"].items():
        if isinstance(count, dict):
            for side, n in count.items():
                if need(
                    ("damage_bag", kind, side),
                    n,
                    0,
                    MAX_BAG,
                    f"the number of {kind!r} tokens with a {side!r} shortcut side",
                ):
                    total += n
        elif need(("damage_bag", kind), count, 0, MAX_BAG, f"the number of {kind!r} tokens"):
            total += count
    most = max((t for row in loc["damage"].values() for t in row.values() if _is_int(t)), default=0)
    if total < max(most, 1):
        out.append(
            (
                ("damage_bag",),
                f"the damage bag must hold at least {max(most, 1)} tokens (the most a loss of control draws), got "
                f"{total}",
            )
        )
    if "time_per_turn" in m:
        times = m["time_per_turn"]
        ok = [
            need(("time_per_turn", g), s, 1, MAX_SECONDS, f"the seconds of a turn in gear {g}")
            for g, s in times.items()
        ]
        if all(ok):
            for g in GEARS[:-1]:
                if times[str(g + 1)] > times[str(g)]:
                    out.append(
                        (
                            ("time_per_turn", str(g + 1)),
                            f"a higher gear must not be slower: gear {g + 1} counts {times[str(g + 1)]} s, gear {g} "
                            f"{times[str(g)]} s",
                        )
                    )
    if "time_cards" in m:
        cards = m["time_cards"]
        need(("time_cards", "loss_seconds"), cards["loss_seconds"], 1, MAX_SECONDS, "the seconds of a spin or crash")
        for gear, card in cards["gears"].items():
            deck = ("time_cards", "gears", gear)
            seconds_ok = need(
                deck + ("seconds",), card["seconds"], 1, MAX_SECONDS, f"the seconds of a gear-{gear} card"
            )
            counts = [
                need(deck + (icon,), card[icon], 0, MAX_BAG, f"the gear-{gear} cards showing {icon}")
                for icon in ("sisu", "spin", "crash")
            ]
            if all(counts) and card["sisu"] + card["spin"] + card["crash"] < 1:
                out.append((deck, f"gear {gear}'s deck needs at least one card"))
            if seconds_ok and _is_int(cards["loss_seconds"]) and card["seconds"] > cards["loss_seconds"]:
                out.append(
                    (
                        deck + ("seconds",),
                        f"a loss of control must cost more than any gear: gear {gear} counts {card['seconds']} s, a "
                        f"spin {cards['loss_seconds']} s",
                    )
                )
    for flag in ("leader_first_player_only",):
        if flag in m and not isinstance(m[flag], bool):
            out.append(((flag,), f"{flag!r} must be true or false, got {m[flag]!r}"))
    if "flying_start" in m:
        fs = m["flying_start"]
        need(("flying_start", "to_gear"), fs["to_gear"], 1, 6, "the flying start's gear")
        need(("flying_start", "caution_moves"), fs["caution_moves"], 0, 6, "the spaces a flying start's caution moves")
        if not isinstance(fs["ignores_loss_of_control"], bool):
            out.append(
                (
                    ("flying_start", "ignores_loss_of_control"),
                    f"'ignores_loss_of_control' must be true or false, got {fs['ignores_loss_of_control']!r}",
                )
            )


def _build(m: dict, base: Ruleset, replaced: tuple[str, ...], whole: tuple[str, ...]) -> Ruleset:
    dice = tuple(
        replace(d, faces=m["dice"][d.name]["faces"], cautions=m["dice"][d.name]["cautions"]) for d in base.dice
    )
    boards = tuple(
        Dashboard(c, t, w, tuple((_key(k), v) for k, v in b["dice"].items()), b["caution_limit"])
        for c, by_t in m["dashboards"].items()
        for t, by_w in by_t.items()
        for w, b in by_w.items()
    )
    loc = m["loss_of_control"]
    damage = tuple((int(g), tuple(row.items())) for g, row in sorted(loc["damage"].items(), key=lambda kv: int(kv[0])))
    tokens: list[DamageToken] = []
    for kind, count in m["damage_bag"].items():
        if isinstance(count, dict):
            tokens.extend(DamageToken(kind, n, side) for side, n in count.items())
        else:
            tokens.append(DamageToken(kind, count))
    changes: dict[str, Any] = {
        "dice": dice,
        "caution_limit": m["caution_limit"],
        "dashboards": boards,
        "loss_of_control": LossOfControl(damage, loc.get("gear_00_from")),
        "damage_bag": DamageBag(tuple(tokens)),
        "focus": FocusCosts(m["focus"]["first"], m["focus"]["step"]),
        "sources": tuple((s, src) for s, src in base.sources if s not in whole),
        "replaced": replaced,
    }
    if "time_per_turn" in m:
        changes["time_per_turn"] = tuple(m["time_per_turn"].items())
    if "time_cards" in m:
        tc = m["time_cards"]
        changes["time_cards"] = TimeCards(
            tuple(TimeCard(int(g), c["seconds"], c["sisu"], c["spin"], c["crash"]) for g, c in tc["gears"].items()),
            tc["loss_seconds"],
        )
    if "leader_first_player_only" in m:
        changes["leader_first_player_only"] = m["leader_first_player_only"]
    if "flying_start" in m:
        fs = m["flying_start"]
        changes["flying_start"] = FlyingStart(0, fs["to_gear"], fs["caution_moves"], fs["ignores_loss_of_control"])
    return replace(base, **changes)


def located(doc: Any, base: tuple, error: RulesetError) -> list:
    """The problems of a ruleset mapping found at `base` in a loaded spec `doc` (a
    `sheetgen.yamlsrc.Document`), as `Problem`s at their FILE:LINE:COL."""
    return [doc.problem(base + p.path, p.message, key=p.key) for p in error.problems]


def house_note(ruleset: Ruleset, sections: tuple[str, ...] | None = None) -> str | None:
    """The line a printout using `sections` (all by default) must carry when any of them
    holds house values: "house values: dashboards, time cards (...)"; None when none does."""
    house = [s for s in ruleset.house if sections is None or s in sections]
    if not house:
        return None
    return (
        f"house values: {', '.join(s.replace('_', ' ') for s in house)} (not in the rulebook or any public source; "
        "replace them with your own box's)"
    )
