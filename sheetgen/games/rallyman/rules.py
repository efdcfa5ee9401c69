"""Rallyman GT rules engine (rulebook rallyman_gt.txt; RULINGS.md "Rallyman GT and DIRT";
rulings RG-14 onward in docs/rulings.md).

OpenSpiel style, the engine protocol of :mod:`sheetgen.engine`: a :class:`RaceState` is an
immutable value; :meth:`RaceState.chance_outcomes` lists exact ``(outcome, Fraction)`` pairs
at a chance node (empty at a decision), :meth:`RaceState.legal_actions` the choices at a
decision, :meth:`RaceState.apply` gives the next state. The solver (`solve.py`) and the
simulator (`simulate.py`) apply no rule of their own beyond the per-die helpers here.

One engine for GT and DIRT: what the two variants do differently is a variant object
(:class:`VariantRules`: the order of play, the inside-lane rule, the start grid's tie-break,
the limit rule, the dice pool, the time at the end of a turn) that a stage carries
(`stage.rules`), chosen by the track's variant (:func:`rules_for`; GT's is :data:`GT_RULES`,
DIRT's `rules_dirt.DIRT_RULES`). The machinery both races share is here (:class:`RaceCore`,
:func:`dice_left`, :func:`move_marks`, :func:`start_grid`, :func:`turn_order`); GT's own
phases (reallocation, the pit, gear 00, the yellow flag) are :class:`RaceState`'s, DIRT's
(time cards, shortcut draws, the staggered start) `rules_dirt.DirtRace`'s.

A round (white and black in turn): the cars still racing play in the turn order
(:func:`turn_order`: speed, then distance, then the inside lane of the current or next
corner, then the car's number). A turn:

1. A car in gear 00 sits the turn out and comes back in gear 0 (the 120 s of 00 count both
   turns). Otherwise the driver **plans**: `Place(die, cell)` one die at a time
   (:func:`next_dice`: each die one gear up or down from the gear so far, a coast keeps it,
   a brake skips a gear down, a boost a gear up; always forward along `Track.moves`; each die
   of the dashboard once; never over a corner or inside-line limit; the die that brings the
   car beside another car at least that car's gear, the dice after it any gear (RG-33); never
   beside a car under a yellow flag), then
   `Roll("flat")` or `Roll("one")`.
2. **Flat out**: one chance node rolls every die (which dice show a caution). Cautions rolled
   plus the track's (a caution-marked limit met in that very gear, an inside line's caution
   symbol) reaching the caution limit lose control, and the driver then re-allocates the
   dice rolled (`Reallocate(cell, gear)`: any order along the track from the turn's start,
   not all of them, as long as it loses control). Every gear and coast die earns a focus
   token, lost control or not.
3. **One at a time**: before each die `Roll()`, `Secure()` (the k-th die secured this turn
   costs k more tokens, `ruleset.focus`) or `Stop()` (after the first die).
4. **Loss of control** on a die's cell in that die's gear: the table gives damage tokens by
   gear and tile colour (drawn without replacement from the race's one bag: a chance node),
   and the gear 0 (below gear 3) or 00 the car ends in. Tokens: lose a gear/brake/coast die
   (the dashboard's pool shrinks), yellow flag (nobody moves alongside another car until its
   owner moves again), weather (dry and wet change places for everybody), green flag.
5. A turn that ends in 1st gear on a pit-lane edge cell that is not a corner may make a
   **pit stop** (`Pit("repair" | "tyres" | "both" | "none")`): tyres end the turn in gear 0,
   a repair (or both) in 00.
6. The turn counts the seconds of the gear the car ends it in (`ruleset.time_per_turn`).
   Reaching a finish cell (on the last lap of a circuit) finishes: the dice after it are not
   placed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from sheetgen.errors import SheetgenError
from sheetgen.games.rallyman.hexgrid import Hex, neighbours
from sheetgen.games.rallyman.model import Cell, Track, Variant
from sheetgen.games.rallyman.ruleset import (
    DamageBag,
    DamageToken,
    Dashboard,
    Effect,
    Ruleset,
    default,
)

OUT = "00"  # the gear of a car off the track (a lost turn)
WEATHERS = ("dry", "wet")
TYRES = ("asphalt", "rain")
PIT_CHOICES = ("none", "tyres", "repair", "both")
MAX_TURNS = 400  # a guard for a race that cannot end (a car that never finishes)

PLAN, ONE, FLAT, REALLOCATE, DAMAGE, PIT, OVER = "plan", "one", "flat", "reallocate", "damage", "pit", "over"


class RulesError(SheetgenError, ValueError):
    """An illegal action for a state, or a race the rules cannot play."""


# --------------------------------------------------------------------------- the variant


@dataclass(frozen=True)
class VariantRules:
    """What the one Rallyman engine does differently in GT and in DIRT: the variant object a
    stage carries (`stage.rules`), chosen by the track's variant (:func:`rules_for`). The
    machinery of this module (the stage check, the dice that may follow, a move's cautions
    and limits, the start grid, the order of play, the race's apply, dice chances and one at
    a time) is shared; each variant's own rules are the functions named here. GT's are in
    this module (:data:`GT_RULES`), DIRT's in `rules_dirt.py` (`DIRT_RULES`)."""

    variant: Variant
    error: type  # the exception of an illegal action
    over: str  # the message for an action once the race is over
    wrong_track: str
    no_start: str
    #: the order of play: (stage, car number, car) -> sort key (GT: speed, distance, inside
    #: lane; DIRT: distance, speed, inside lane)
    order_key: Callable[[Any, int, Any], tuple]
    racing: Callable[[Any], bool]  # who takes a turn in a round
    #: the inside lane of the current or next corner (the order of play's last tie-break)
    inside_lane: Callable[[Track, Cell], int | None]
    grid_tie: Callable[[Cell], tuple]  # the start spaces' last tie-break (after distance, inside lane, lane)
    #: the limit rule: a corner space's top gear for car number `car` given the mud tokens
    limit: Callable[[Track, Cell, tuple, int | None], int | None]
    #: the dice pool: (stage, car, the turn's context: GT the weather, DIRT first in the round)
    pool: Callable[[Any, Any, Any], tuple[dict[str, int], int]]
    #: the end-of-turn time: (stage, the gear the turn ends in) -> seconds
    seconds: Callable[[Any, Any], int]


#: each variant's object, by the track's variant: GT's registered below, DIRT's by
#: `rules_dirt` (which builds on this module) when it is imported
VARIANTS: dict[Variant, VariantRules] = {}


def rules_for(track: Track) -> VariantRules:
    """The variant object of `track`'s variant (DIRT's once `rules_dirt` is imported)."""
    if track.variant not in VARIANTS:
        raise RulesError(f"no rules engine loaded for Rallyman {track.variant.value.upper()} (import its rules module)")
    return VARIANTS[track.variant]


def check_stage(stage: Any) -> None:
    """A stage's track is of its rules' variant and has starting and finish spaces."""
    rules = stage.rules
    if stage.track.variant is not rules.variant:
        raise rules.error(rules.wrong_track)
    if not stage.track.starts or not stage.track.finishes:
        raise rules.error(rules.no_start)


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Place:
    """Place the next die of the plan: `die` ("1".."6", "coast", "brake", "boost") on `to`."""

    die: str
    to: Hex


@dataclass(frozen=True)
class Roll:
    """Planning over: roll "flat" (all at once) or "one" (one at a time). One at a time,
    `Roll("one")` also rolls the next die."""

    mode: str = "flat"


@dataclass(frozen=True)
class Secure:
    """One at a time: secure the next die with focus tokens (it shows no caution)."""


@dataclass(frozen=True)
class Stop:
    """One at a time: stop here (the dice not rolled are not placed)."""


@dataclass(frozen=True)
class Reallocate:
    """Flat out, after a loss of control: the cell and gear the car loses control in."""

    to: Hex
    gear: int
    dice: int  # dice placed in the re-allocation (the last one loses control)
    crossed: int = 0  # finish-line crossings on the way there, the loss's own move included


@dataclass(frozen=True)
class Pit:
    choice: str  # PIT_CHOICES


# --------------------------------------------------------------------------- the stage


@dataclass(frozen=True, eq=False)
class Stage:
    """What the rules need of a race: the track, the ruleset, the car class, the start's
    weather and tyres, the options. Compared by identity (its look-ups are memoised)."""

    track: Track
    ruleset: Ruleset
    car_class: str = "GT6"
    weather: str = "dry"
    flying_start: bool = False
    #: the most focus tokens a car holds (None: no limit); the solver's model sets one
    max_focus: int | None = None
    #: draw damage tokens on a loss of control (the solver's model does not)
    damage: bool = True

    @property
    def rules(self) -> VariantRules:
        return GT_RULES

    def __post_init__(self) -> None:
        check_stage(self)

    @property
    def laps_needed(self) -> int:
        """Finish-line crossings that finish (RG-23): a circuit whose finish lies just past the
        start line is crossed once more than its laps (the first crossing starts lap 1)."""
        return _crossings(self.track)

    def dashboard(self, tyres: str, weather: str) -> Dashboard:
        return self.ruleset.dashboard(self.car_class, tyres, weather)

    @property
    def top_gear(self) -> int:
        board = self.dashboard("asphalt", "dry")
        return max(int(n) for n, c in board.dice if c and n.isdigit())


def _crossings(track: Track) -> int:
    """Kept in the track's own memo: an lru_cache would hash the whole track on every look-up
    (the engine asks once a move)."""
    hit = track._cache.get("crossings")
    if hit is None:
        # a one-lap circuit too: its first crossing, just past the grid, starts the lap (it
        # ended the race there, a par of 21.7 s for the 90-cell Hexagon Ring)
        steps = track.steps()
        finish = min(steps.get(c.hex, 10**6) for c in track.finishes) if track.finishes else 10**6
        loop = max(steps.values(), default=0) + 1
        hit = track.laps + (1 if finish * 2 < loop else 0)
        track._cache["crossings"] = hit
    return hit


def stage_of(track: Track, ruleset: Ruleset | None = None, **options: Any) -> Stage:
    return Stage(track, ruleset or default("gt"), **options)


# --------------------------------------------------------------------------- a car


@dataclass(frozen=True)
class CarState:
    cell: Hex
    gear: int = 0
    out: bool = False  # gear 00: the next turn is lost
    focus: int = 0
    crossings: int = 0  # finish-line crossings so far
    tyres: str = "asphalt"
    lost: tuple[tuple[str, int], ...] = ()  # dice lost to damage: kind ("gear", "brake", "coast") -> count
    finished: bool = False
    time: int = 0  # seconds so far
    turns: int = 0
    pit: bool = False  # in the pit lane since its pit stop: off the track (RG-21)
    waiting: bool = False  # not started yet: more cars than starting spaces (RG-25)

    @property
    def gear_text(self) -> str:
        return OUT if self.out else str(self.gear)

    def lost_count(self, kind: str) -> int:
        return dict(self.lost).get(kind, 0)


def pool(stage: Stage, car: CarState, weather: str) -> tuple[Dashboard, dict[str, int], int]:
    """The car's dashboard, its dice (name -> count, damage taken off) and its free gear
    dice this turn (a lost gear die: the driver leaves any one number unused)."""
    board = stage.dashboard(car.tyres, weather)
    dice = dict(board.dice)
    for kind in ("brake", "coast"):
        dice[kind] = max(0, dice.get(kind, 0) - car.lost_count(kind))
    return board, dice, gear_dice_free(board, car)


def gear_dice_free(board: Dashboard, car: Any) -> int:
    """The gear dice a car may use this turn: the dashboard's, less one a lost gear die."""
    return max(0, sum(c for n, c in board.dice if n.isdigit()) - car.lost_count("gear"))


def _gt_pool(stage: Stage, car: CarState, weather: str) -> tuple[dict[str, int], int]:
    _board, dice, free = pool(stage, car, weather)
    return dice, free


def die_gear(ruleset: Ruleset, name: str, gear: int) -> int | None:
    """The gear after die `name` from `gear` (RG-14), or None if it may not follow: a gear
    die one up or one down, a coast the same (not from 0), a brake one down (to 1 at the
    lowest), a boost one up."""
    kind = ruleset.die(name)
    die = kind.gear  # a gear die's (Effect.GEAR), None for the others
    if die is not None:
        return die if abs(die - gear) == 1 else None
    if gear < 1:
        return None
    if kind.effect is Effect.STAY:
        return gear
    if kind.effect is Effect.BRAKE:
        return gear - 1 if gear >= 2 else None
    return gear + 1


@dataclass(frozen=True)
class Step:
    """A die of a plan: the die, the cell it moves to, the gear it is in, the cautions its
    move adds from the track (RG-16), whether it finishes."""

    die: str
    to: Hex
    gear: int
    marks: int
    finishes: bool = False


def move_marks(
    track: Track, frm: Hex, to: Hex, gear: int, mud: tuple = (), car: int | None = None, limit: Callable | None = None
) -> int | None:
    """The track's cautions for a move in `gear` from `frm` to `to`, or None when the move
    goes over a limit (a corner space's by the variant's limit rule `limit`, GT's printed one
    by default; a shortcut space's; an inside line's; RG-15, RG-16, RD-8)."""
    cell = track.at(to)
    marks = 0
    top = cell.limit if limit is None else limit(track, cell, mud, car)
    if top is not None:
        if gear > top:
            return None
        if cell.caution and gear == top:
            marks += 1
    if cell.shortcut is not None and gear > cell.shortcut:
        return None
    line = track.line_between(frm, to)
    if line is not None:
        if line.limit is not None and gear > line.limit:
            return None
        if line.caution:
            marks += 1
    return marks


def over_limit(track: Track, frm: Hex, to: Hex, gear: int) -> bool:
    return move_marks(track, frm, to, gear) is None


@dataclass(frozen=True)
class Others:
    """The other cars as a planning car sees them: their cells and gears (cars on the
    track), the cells of those stopped (0, 00) and the yellow flag."""

    cars: tuple[tuple[Hex, int, bool], ...] = ()  # (cell, gear, stopped)
    yellow: bool = False

    def blocked(self, to: Hex) -> bool:
        return any(h == to for h, _g, _s in self.cars)

    def next_to(self, track: Track, to: Hex, h: Hex) -> bool:
        """Whether cell `to` is next to the car on `h` (GT: neighbouring cells; DIRT reads
        its shortcuts apart, `rules_dirt.DirtOthers`)."""
        return to in neighbours(h)

    def alongside(self, track: Track, to: Hex, been: tuple[Hex, ...] = ()) -> tuple[int, ...]:
        """The gears of the moving cars that `to` is alongside (RG-18): a neighbouring cell
        as far along the track or further. `been`: the cells the moving car has stood on this
        turn (where it started and each die so far); a car one of them is already alongside
        is left out (RG-33: "once your car is beside theirs, the rest of their movement can be
        at any speed")."""
        if not self.cars:
            return ()
        steps = track.steps()
        out = []
        for h, g, stopped in self.cars:
            if self._beside(track, steps, to, h) and not any(self._beside(track, steps, b, h) for b in been):
                out.append(-1 if stopped else g)
        return tuple(out)

    def _beside(self, track: Track, steps: dict, to: Hex, h: Hex) -> bool:
        return self.next_to(track, to, h) and steps.get(to, 0) >= steps.get(h, 0)


def next_dice(
    stage: Stage,
    car: CarState,
    plan: tuple[Step, ...],
    weather: str,
    others: Others = Others(),
    first_gear: int | None = None,
) -> tuple[Step, ...]:
    """Every die that may be placed next after `plan` (RG-14 to RG-18, RG-21)."""
    if plan and plan[-1].finishes:
        return ()
    track = stage.track
    here = plan[-1].to if plan else car.cell
    gear = plan[-1].gear if plan else (car.gear if first_gear is None else first_gear)
    fly = (
        str(stage.ruleset.flying_start.to_gear if stage.ruleset.flying_start else 2)
        if not plan and gear == 0 and stage.flying_start
        else None
    )
    out = []
    been = (car.cell,) + tuple(s.to for s in plan)
    for name, g in dice_left(stage, car, weather, plan, gear, fly):
        for move in track.moves(here):
            if others.blocked(move.to):
                continue
            beside = others.alongside(track, move.to)
            if beside and (others.yellow and any(b >= 0 for b in beside)):
                continue
            # RG-33: the die that brings the car beside another needs its gear, no die after it
            if beside and any(g < b for b in others.alongside(track, move.to, been)):
                continue
            marks = move_marks(track, here, move.to, g)
            if marks is None:
                continue
            out.append(Step(name, move.to, g, marks, _finishes(stage, car, plan, move.to)))
    return tuple(out)


def dice_left(
    stage: Any, car: Any, context: Any, plan: tuple, gear: int, fly: str | None = None
) -> Iterator[tuple[str, int]]:
    """The dice of the car's pool (the variant's dice pool rule, given the turn's `context`)
    that may be placed after `plan` (in the ruleset's order), each with the gear it puts the
    car in (RG-14): each die once a turn, at most the pool's free gear dice, within gears 1 to
    the top gear; `fly`, the die of a flying start (RG-22)."""
    dice, gear_free = stage.rules.pool(stage, car, context)
    used: dict[str, int] = {}
    for s in plan:
        used[s.die] = used.get(s.die, 0) + 1
    gears_used = sum(n for d, n in used.items() if d.isdigit())
    for name in stage.ruleset.die_names:
        if dice.get(name, 0) - used.get(name, 0) <= 0:
            continue
        if name.isdigit() and gears_used >= gear_free:
            continue
        g = die_gear(stage.ruleset, name, gear)
        if g is None and name == fly:
            g = int(name)  # flying start (RG-22)
        if g is None or g > stage.top_gear or g < 1:
            continue
        yield name, g


def _finishes(stage: Stage, car: CarState, plan: tuple[Step, ...], to: Hex) -> bool:
    return car.crossings + _crossed(stage.track, car.cell, plan, to) >= stage.laps_needed


def _crossed(track: Track, start: Hex, plan: tuple[Step, ...], to: Hex) -> int:
    """Finish-line crossings along `plan` then `to`: entries into a finish cell from a cell
    that is not one."""
    n, prev = 0, start
    for h in [s.to for s in plan] + [to]:
        if track.at(h).finish and not track.at(prev).finish:
            n += 1
        prev = h
    return n


def loss_end(ruleset: Ruleset, gear: int) -> str:
    return ruleset.loss_of_control.end_gear(gear)


def turn_seconds(ruleset: Ruleset, gear: str) -> int:
    return ruleset.seconds(gear)


# --------------------------------------------------------------------------- turn order


def inside_lane(track: Track, cell: Cell) -> int | None:
    """The inside lane of the corner the car is in, or else the next corner ahead (RG-24):
    lane 1 for a left turn, the highest lane for a right turn; None for a limit without a
    turn, or with no corner ahead."""
    steps = track.steps()
    here = steps.get(cell.hex, 0)
    corners = track.corners()
    current = next((c for c in corners if cell.hex in {x.hex for x in c.cells}), None)
    corner = current or next((c for c in corners if c.step >= here), None)
    if corner is None or corner.turn == "straight":
        return None
    lanes = [lane for lane, _limit in corner.limits]
    return min(lanes) if corner.turn == "left" else max(lanes)


def on_inside(track: Track, cell: Cell, rules: VariantRules) -> int:
    """0 for a cell on the inside lane of its current or next corner (by the variant's rule), 1 otherwise."""
    inside = rules.inside_lane(track, cell)
    return 0 if inside is not None and cell.lane == inside else 1


def order_key(stage: Stage, i: int, car: CarState) -> tuple:
    """GT's order of play (RG-24): speed (00 last), then distance, then the inside lane."""
    track = stage.track
    steps = track.steps()
    loop = max(steps.values()) + 1
    distance = car.crossings * loop + steps.get(car.cell, 0) if stage.track.laps > 1 else steps.get(car.cell, 0)
    speed = -1 if car.out else car.gear
    return (-speed, -distance, on_inside(track, track.at(car.cell), GT_RULES), i)


def turn_order(stage: Any, cars: tuple) -> tuple[int, ...]:
    """The cars taking a turn this round (the variant's `racing`) in its order of play (GT:
    highest gear first, then furthest along; DIRT: furthest along, then highest gear; then the
    car on the inside lane of its current or next corner, then the lower number)."""
    rules = stage.rules
    racing = [i for i, c in enumerate(cars) if rules.racing(c)]
    return tuple(sorted(racing, key=lambda i: rules.order_key(stage, i, cars[i])))


# --------------------------------------------------------------------------- the race


class RaceStage(Protocol):
    """What the shared race machinery reads of a stage (GT's :class:`Stage`, DIRT's
    `DirtStage`)."""

    @property
    def track(self) -> Track: ...
    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def rules(self) -> VariantRules: ...


class RaceCore:
    """The race machinery both variants share (mixed into GT's :class:`RaceState` and DIRT's
    `DirtRace`, frozen dataclasses with `stage`, `cars`, `order`, `slot`, `phase`, `plan` and
    `rolling`): whose turn it is, applying an action (checked against the chance outcomes or
    the legal actions), the dice's chances flat out and one at a time, one at a time's
    choices, the damage tokens a loss of control draws."""

    if TYPE_CHECKING:  # what each variant's dataclass has (its fields) and defines
        __dataclass_fields__: ClassVar[dict[str, Any]]
        stage: RaceStage
        cars: tuple[Any, ...]
        round: int
        order: tuple[int, ...]
        slot: int
        phase: str
        plan: tuple[Any, ...]
        rolling: bool
        loss: tuple[Hex, int] | None
        log: tuple[Any, ...]

        def chance_outcomes(self) -> tuple[tuple[Any, Fraction], ...]: ...
        def legal_actions(self) -> tuple[Any, ...]: ...
        def _apply(self, action: Any) -> Any: ...
        def _new_round(self, r: int) -> Any: ...

    @property
    def turn(self) -> int:
        return self.order[self.slot] if self.phase != OVER else -1

    @property
    def car(self) -> Any:
        return self.cars[self.turn]

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def apply(self, action: Any) -> Any:
        rules = self.stage.rules
        if self.phase == OVER:
            raise rules.error(rules.over)
        outcomes = self.chance_outcomes()
        if outcomes:
            if action not in {o for o, _ in outcomes}:
                raise rules.error(f"{action!r} is not a possible outcome in phase {self.phase}")
        elif action not in self.legal_actions():
            raise rules.error(f"{action!r} is not legal in phase {self.phase} for car {self.turn + 1}")
        return self._apply(action)

    def _set(self, car: Any, **kw: Any) -> Any:
        return self._set_i(self.turn, car, **kw)

    def _set_i(self, i: int, car: Any, **kw: Any) -> Any:
        cars = list(self.cars)
        cars[i] = car
        return replace(self, cars=tuple(cars), **kw)

    def _dice_outcomes(self, placed: int) -> tuple[tuple[Any, Fraction], ...]:
        """Flat out, every roll of the plan's dice; one at a time, the next die's (the
        `placed`-th); else none."""
        if self.phase == FLAT:
            return _flat_outcomes(tuple(self.stage.ruleset.die(s.die).caution_chance for s in self.plan))
        if self.phase == ONE and self.rolling:
            p = self.stage.ruleset.die(self.plan[placed].die).caution_chance
            return tuple((hit, q) for hit, q in ((False, 1 - p), (True, p)) if q)
        return ()

    def _one_actions(self, tokens: int, secured: int, placed: int) -> tuple[Any, ...]:
        """One at a time, before a die: roll it, secure it (the next cost, RG-26) or stop
        (after the first)."""
        out: list[Any] = [Roll("one")]
        if tokens >= self.stage.ruleset.focus.cost(secured + 1):
            out.append(Secure())
        if placed:
            out.append(Stop())
        return tuple(out)

    def _seat(self, slot: int, rounds: int) -> tuple[Any, int]:
        """From `slot` of the round's order, the state and slot of the next car to play (a new
        round after the last car of the order), or slot -1 once the race is over (everybody
        finished, or `rounds` rounds played)."""
        s = self
        while True:
            if all(c.finished for c in s.cars):
                return replace(s, phase=OVER), -1
            if slot < len(s.order):
                return s, slot
            if s.round >= rounds:
                return replace(s, phase=OVER, log=s.log + (("stopped", s.round),)), -1
            s = s._new_round(s.round + 1)
            slot = 0

    def _damage_due(self, left: int) -> int:
        """The damage tokens a loss of control on `self.loss` draws (by its gear and the
        tile's colour), at most the `left` in the bag."""
        if self.loss is None:
            raise self.stage.rules.error(f"no loss of control to draw damage for in phase {self.phase}")
        at, gear = self.loss
        colour = self.stage.track.at(at).danger.value
        return min(self.stage.ruleset.loss_of_control.tokens(gear, colour), left)


@dataclass(frozen=True)
class RaceState(RaceCore):
    """A race of 1 to 6 cars, one decision or chance at a time (see the module).

    phase: PLAN (decision: Place or Roll), ONE (decision: Roll, Secure, Stop), FLAT (chance:
    every die at once), REALLOCATE (decision), DAMAGE (chance: the tokens drawn), PIT
    (decision), OVER. `order` is the round's turn order and `slot` the place in it."""

    stage: Stage
    cars: tuple[CarState, ...]
    weather: str = "dry"
    round: int = 1
    order: tuple[int, ...] = ()
    slot: int = 0
    phase: str = PLAN
    plan: tuple[Step, ...] = ()
    placed: int = 0  # one at a time: dice rolled or secured so far
    cautions: int = 0  # this turn so far
    secured: int = 0
    rolled: tuple[bool, ...] = ()  # flat out: which dice showed a caution
    loss: tuple[Hex, int] | None = None  # where and in which gear control was lost
    rolling: bool = False  # one at a time: the next die is being rolled (a chance node)
    bag: tuple[tuple[str, int], ...] = ()
    yellow: int | None = None  # the car whose yellow flag is out
    log: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @staticmethod
    def start(stage: Stage, n: int = 1) -> RaceState:
        """`n` cars: the first on the starting spaces (the front first, then the inside lane
        of the first corner), all in gear 0; the others wait and start as spaces free up,
        each car's time counting from its own start (RG-25)."""
        if not 1 <= n <= 6:
            raise RulesError(f"1 to 6 cars, got {n}")
        grid = _grid(stage.track)
        tyres = "asphalt" if stage.weather == "dry" else "rain"
        cars = tuple(
            CarState(cell=grid[i] if i < len(grid) else grid[0], tyres=tyres, waiting=i >= len(grid)) for i in range(n)
        )
        s = RaceState(stage, cars, weather=stage.weather, bag=stage.ruleset.damage_bag.kinds(), round=0)
        return s._advance(len(s.order))

    # -- queries

    @property
    def colour(self) -> str:
        """The round marker's side: white for odd rounds, black for even (RG-26)."""
        return "white" if self.round % 2 else "black"

    def others(self, i: int) -> Others:
        cars = tuple(
            (c.cell, c.gear, c.gear == 0 or c.out)
            for j, c in enumerate(self.cars)
            if j != i and not (c.finished or c.pit or c.waiting)
        )
        return Others(cars, self.yellow is not None and self.yellow != i)

    def next_dice(self) -> tuple[Step, ...]:
        return next_dice(self.stage, self.car, self.plan, self.weather, self.others(self.turn))

    def limit(self) -> int:
        return self.stage.dashboard(self.car.tyres, self.weather).caution_limit

    def chance_outcomes(self) -> tuple[tuple[Any, Fraction], ...]:
        if self.phase in (FLAT, ONE):
            return self._dice_outcomes(self.placed)
        if self.phase == DAMAGE:
            return _draws(self.bag, self._tokens_due())
        return ()

    def legal_actions(self) -> tuple[Any, ...]:
        if self.phase == PLAN:
            out: list[Any] = [Place(s.die, s.to) for s in self.next_dice()]
            if self.plan:
                out += [Roll("flat"), Roll("one")]
            elif not out:
                out.append(Stop())  # no die can be placed (RG-28)
            return tuple(out)
        if self.phase == ONE and not self.rolling:
            return self._one_actions(self.car.focus, self.secured, self.placed)
        if self.phase == REALLOCATE:
            return reallocations(
                self.stage, self.car, self.plan, self.rolled, self.limit(), self.weather, self.others(self.turn)
            )
        if self.phase == PIT:
            return tuple(Pit(c) for c in PIT_CHOICES)
        return ()

    # -- transitions

    def _note(self, *event: Any) -> tuple[Any, ...]:
        return self.log + (event,)

    def _apply(self, action: Any) -> RaceState:
        car = self.car
        if self.phase == PLAN:
            if isinstance(action, Place):
                step = next(s for s in self.next_dice() if (s.die, s.to) == (action.die, action.to))
                return replace(self, plan=self.plan + (step,), log=self._note("place", self.turn, step))
            if isinstance(action, Stop):  # stuck: the car stays and stops (RG-28)
                return self._set(replace(car, gear=0, out=False), log=self._note("stuck", self.turn))._end_turn("0")
            if action.mode == "flat":
                return replace(self, phase=FLAT, log=self._note("flat", self.turn))
            return replace(self, phase=ONE, placed=0, cautions=0, secured=0, log=self._note("one", self.turn))
        if self.phase == ONE:
            if self.rolling:  # the die's result
                step = self.plan[self.placed]
                return replace(self, rolling=False)._one_die(step, bool(action), secured=False)
            if isinstance(action, Roll):
                return replace(self, rolling=True)
            if isinstance(action, Secure):
                cost = self.stage.ruleset.focus.cost(self.secured + 1)
                s = self._set(replace(car, focus=car.focus - cost), secured=self.secured + 1)
                return s._one_die(self.plan[self.placed], False, secured=True)
            return self._end_move(self.placed, self.plan[self.placed - 1].to, self.plan[self.placed - 1].gear)
        if self.phase == FLAT:
            return self._flat(action)
        if self.phase == REALLOCATE:
            return replace(self, log=self._note("reallocate", self.turn, action))._lose(
                action.to, action.gear, (), crossed=action.crossed
            )
        if self.phase == DAMAGE:
            return self._damage(action)
        return self._pit(action)

    def _one_die(self, step: Step, hit: bool, secured: bool) -> RaceState:
        placed = self.placed + 1
        cautions = self.cautions + step.marks + (1 if hit else 0)
        s = replace(self, placed=placed, cautions=cautions, log=self._note("die", self.turn, step, hit, secured))
        fly = self.stage.flying_start and placed == 1 and self.car.gear == 0 and step.gear == 2 and step.die == "2"
        if fly and hit:  # flying start (RG-22): the turn ends one space on, in gear 2
            return s._end_move(1, step.to, 2)
        if cautions >= self.limit():
            return s._lose(step.to, step.gear, self.plan[:placed - 1])
        if placed == len(self.plan) or step.finishes:
            return s._end_move(placed, step.to, step.gear)
        return s

    def _flat(self, rolled: tuple[bool, ...]) -> RaceState:
        ruleset = self.stage.ruleset
        car = self.car
        earned = sum(1 for s in self.plan if ruleset.die(s.die).earns_token)
        s = self._set(
            replace(car, focus=self._cap(car.focus + earned)),
            rolled=rolled,
            log=self._note("rolled", self.turn, rolled, earned),
        )
        fly = self.stage.flying_start and car.gear == 0 and self.plan[0].gear == 2 and self.plan[0].die == "2"
        if fly and rolled[0]:
            return s._end_move(1, self.plan[0].to, 2)
        total = sum(rolled) + sum(st.marks for st in self.plan)
        if total < self.limit():
            return s._end_move(len(self.plan), self.plan[-1].to, self.plan[-1].gear)
        return replace(s, phase=REALLOCATE)

    def _cap(self, focus: int) -> int:
        return focus if self.stage.max_focus is None else min(focus, self.stage.max_focus)

    def _lose(self, at: Hex, gear: int, path: tuple[Step, ...], crossed: int | None = None) -> RaceState:
        """Loss of control on `at` in `gear` after the dice of `path` (RG-19), or after a
        re-allocation that crossed the finish line `crossed` times on its way (a crossing
        made before the loss counts: a lap is not driven twice); a car that loses control on
        the finish has finished all the same (RG-27)."""
        ruleset = self.stage.ruleset
        end = loss_end(ruleset, gear)
        crossings = self.car.crossings + (
            _crossed(self.stage.track, self.car.cell, path, at) if crossed is None else crossed
        )
        finished = crossings >= self.stage.laps_needed
        car = replace(
            self.car,
            cell=at,
            gear=0,
            out=end == OUT and not finished,
            crossings=crossings,
            finished=finished,
            pit=False,
        )
        s = self._set(car, loss=(at, gear), log=self._note("lose", self.turn, at, gear, end))
        if self.stage.damage and s._tokens_due():
            return replace(s, phase=DAMAGE)
        return s._end_turn(end)

    def _tokens_due(self) -> int:
        return self._damage_due(sum(n for _k, n in self.bag))

    def _damage(self, drawn: tuple[tuple[str, int], ...]) -> RaceState:
        car = self.car
        bag = dict(self.bag)
        lost = dict(car.lost)
        weather, yellow = self.weather, self.yellow
        for kind, n in drawn:
            bag[kind] -= n
            if kind.startswith("lose_") and kind.endswith("_die"):
                what = kind[len("lose_") : -len("_die")]
                lost[what] = lost.get(what, 0) + n
            elif kind == "yellow_flag":
                yellow = self.turn
            elif kind == "weather":
                for _ in range(n):
                    weather = "wet" if weather == "dry" else "dry"
        s = self._set(
            replace(car, lost=tuple(sorted(lost.items()))),
            bag=tuple(bag.items()),
            weather=weather,
            yellow=yellow,
            log=self._note("damage", self.turn, drawn),
        )
        # the loss's own end (00: 120 s), also for a car that finished on it and so is not
        # out for a next turn (RG-27)
        return s._end_turn(
            loss_end(self.stage.ruleset, self.loss[1]) if self.loss is not None else OUT if car.out else "0"
        )

    def _end_move(self, placed: int, at: Hex, gear: int) -> RaceState:
        """The car ends its move on `at` in `gear` after `placed` dice, under control."""
        car = self.car
        crossings = (
            car.crossings + _crossed(self.stage.track, car.cell, self.plan[: placed - 1], at)
            if placed
            else car.crossings
        )
        finished = crossings >= self.stage.laps_needed
        car = replace(car, cell=at, gear=gear, out=False, crossings=crossings, finished=finished, pit=False)
        s = self._set(car, log=self._note("move", self.turn, placed, at, gear))
        cell = self.stage.track.at(at)
        if not finished and gear == 1 and cell.pit and not cell.corner:
            return replace(s, phase=PIT)
        return s._end_turn(str(gear))

    def _pit(self, action: Pit) -> RaceState:
        car = self.car
        if action.choice == "none":
            return self._end_turn("1")
        if action.choice in ("tyres", "both"):
            car = replace(car, tyres="rain" if car.tyres == "asphalt" else "asphalt")
        if action.choice in ("repair", "both"):
            car = replace(car, lost=())
        out = action.choice != "tyres"
        s = self._set(replace(car, gear=0, out=out, pit=True), log=self._note("pit", self.turn, action.choice))
        return s._end_turn(OUT if out else "0")

    def _end_turn(self, gear: str) -> RaceState:
        car = self.car
        seconds = self.stage.rules.seconds(self.stage, gear)
        car = replace(car, time=car.time + seconds, turns=car.turns + 1)
        s = self._set(
            car,
            plan=(),
            placed=0,
            cautions=0,
            secured=0,
            rolled=(),
            loss=None,
            rolling=False,
            phase=PLAN,
            log=self._note("turn", self.turn, gear, seconds, car.time),
        )
        return s._advance(s.slot + 1)

    def _advance(self, slot: int) -> RaceState:
        """The next car to plan: lost turns (gear 00) are sat out, a new round begins after
        the last car of the order."""
        s = self
        while True:
            s, slot = s._seat(slot, MAX_TURNS)
            if slot < 0:
                return s
            s = replace(s, slot=slot, phase=PLAN)
            i = s.order[slot]
            car = s.cars[i]
            if car.out:  # a lost turn: back in gear 0 (RG-20)
                s = s._set(replace(car, out=False, gear=0, turns=car.turns + 1), log=s._note("lost turn", i))
                slot += 1
                continue
            if s.yellow == i:  # its owner moves again: the yellow flag is taken in
                s = replace(s, yellow=None)
            return s

    def _new_round(self, r: int) -> RaceState:
        """Waiting cars take the starting spaces left free, then the round's order is set."""
        cars = list(self.cars)
        taken = {c.cell for c in cars if not (c.waiting or c.finished or c.pit)}
        free = [h for h in _grid(self.stage.track) if h not in taken]
        for i, c in enumerate(cars):
            if c.waiting and free:
                cars[i] = replace(c, cell=free.pop(0), waiting=False)
        cars_t = tuple(cars)
        order = tuple(i for i in turn_order(self.stage, cars_t) if not cars_t[i].waiting)
        return replace(
            self,
            cars=cars_t,
            round=r,
            order=order,
            slot=0,
            phase=PLAN,
            log=self._note("round", r, "white" if r % 2 else "black", order),
        )


def start_grid(track: Track, rules: VariantRules | None = None) -> tuple[Hex, ...]:
    """The starting spaces, the front first, then the inside lane of the first corner, then
    the lane, then the variant's tie-break."""
    rules = rules or rules_for(track)
    steps = track.steps()
    return tuple(
        c.hex
        for c in sorted(
            track.starts,
            key=lambda c: (
                (-steps.get(c.hex, 0), 0 if c.lane == rules.inside_lane(track, c) else 1, c.lane) + rules.grid_tie(c)
            ),
        )
    )


def _grid(track: Track) -> tuple[Hex, ...]:
    """GT's starting spaces, the front first (then the inside lane of the first corner)."""
    return start_grid(track, GT_RULES)


@lru_cache(maxsize=4096)
def _flat_outcomes(chances: tuple[Fraction, ...]) -> tuple[tuple[tuple[bool, ...], Fraction], ...]:
    """Every roll of the dice at once (which show a caution), with its exact chance."""
    out = []
    for rolled in product((False, True), repeat=len(chances)):
        q = Fraction(1)
        for hit, p in zip(rolled, chances):
            q *= p if hit else 1 - p
        if q:
            out.append((rolled, q))
    return tuple(out)


@lru_cache(maxsize=4096)
def _draws(bag: tuple[tuple[str, int], ...], n: int) -> tuple[tuple[tuple[tuple[str, int], ...], Fraction], ...]:
    return DamageBag(tuple(DamageToken(k, c) for k, c in bag if c)).draw(n)


def reallocations(
    stage: Stage,
    car: CarState,
    plan: tuple[Step, ...],
    rolled: tuple[bool, ...],
    limit: int,
    weather: str,
    others: Others = Others(),
) -> tuple[Reallocate, ...]:
    """After a flat-out loss of control, every (cell, gear) the car can lose control in by
    placing some of the dice rolled, each with its result, in any legal order from the
    turn's start (RG-19): the cautions so far (dice and track) reach the limit on the last
    die placed, or that die goes over a corner or inside-line limit."""
    track = stage.track
    dice = tuple((s.die, hit) for s, hit in zip(plan, rolled))
    found: dict[tuple[Hex, int, int], int] = {}
    seen: set = set()

    def walk(at: Hex, gear: int, used: int, cautions: int, depth: int, crossed: int) -> None:
        key = (at, gear, used, cautions, crossed)
        if key in seen:
            return
        seen.add(key)
        tried: set = set()
        for j, (name, hit) in enumerate(dice):
            if used >> j & 1 or (name, hit) in tried:
                continue
            tried.add((name, hit))
            g = die_gear(stage.ruleset, name, gear)
            if g is None and depth == 0 and gear == 0 and stage.flying_start and name == "2":
                g = 2
            if g is None or g > stage.top_gear:
                continue
            for move in track.moves(at):
                if others.blocked(move.to):
                    continue
                marks = move_marks(track, at, move.to, g)
                c = cautions + (1 if hit else 0) + (marks or 0)
                cross = crossed + (1 if track.at(move.to).finish and not track.at(at).finish else 0)
                if marks is None or c >= limit:
                    k = (move.to, g, cross)
                    found[k] = min(found.get(k, 99), depth + 1)
                    continue
                if car.crossings + cross >= stage.laps_needed:
                    continue  # the finish: no loss of control beyond it
                walk(move.to, g, used | 1 << j, c, depth + 1, cross)

    walk(car.cell, car.gear, 0, 0, 0, 0)
    return tuple(
        Reallocate(h, g, n, x)
        for (h, g, x), n in sorted(found.items(), key=lambda kv: (kv[0][0].q, kv[0][0].r, kv[0][1], kv[0][2]))
    )


GT_RULES = VariantRules(
    Variant.GT,
    RulesError,
    "the race is over",
    "the rules engine plays Rallyman GT tracks (this is a DIRT track)",
    "the track needs starting and finish spaces",
    order_key=order_key,
    racing=lambda car: not car.finished,
    inside_lane=inside_lane,
    grid_tie=lambda cell: (),
    limit=lambda track, cell, mud, car: cell.limit,
    pool=_gt_pool,
    seconds=lambda stage, gear: turn_seconds(stage.ruleset, gear),
)
VARIANTS[Variant.GT] = GT_RULES
