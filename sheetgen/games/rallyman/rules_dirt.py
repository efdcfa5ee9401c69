"""Rallyman DIRT rules engine (rulebook rallyman_dirt.txt; rulings RD-5 onward in
docs/rulings.md; docs/rallyman_dirt.md).

One engine with GT (:mod:`sheetgen.games.rallyman.rules`, the protocol of
:mod:`sheetgen.engine`): a :class:`DirtRace` is GT's race machinery (:class:`rules.RaceCore`:
applying an action, the dice's chances, one at a time's choices, the damage drawn, the next
car to play) with DIRT's phases, and the shared rules (the dice that may follow,
:func:`rules.dice_left`; a move's cautions and limits, :func:`rules.move_marks`; the start
grid; the order of play, :func:`rules.turn_order`; the alongside test) read what differs
from the variant object :data:`DIRT_RULES` (:class:`rules.VariantRules`: the order of play,
the inside-lane rule, the start grid's tie-break, the limit rule with mud, the dice pool
with the leader die, the time card at the end of a turn), chosen by the track's variant
(:func:`rules.rules_for`). Every rule below is DIRT's own and lives here, not in shared code.

- **Staggered start** (RD-5): car k (from 1) enters on round k, on the space behind the start
  line, in gear 0; a car still on that space keeps the next one waiting.
- **Order of play** (RD-6, :func:`turn_order`): distance, then speed (gear), then the inside
  lane of the current or next corner, then the car's number.
- **Dice**: gear dice one up or down, coast (white) and leader (orange) keep the gear, brake
  and boost skip one; the leader die only for the first player of a round.
- **Corners by lane** (RD-7): the lane is chosen on entry and kept (`Track.moves` of a DIRT
  track has no move between two lanes of one corner); each lane has its own limits.
- **Shortcuts** (RD-8): never from or to a corner space (`Track.moves`), the shortcut's own
  limit; each entry draws a damage token on its shortcut side when the move is over: OK,
  coast-die damage (one coast die fewer from the next turn), or mud: every corner limit of
  that tile one lower for the other cars, stacking.
- **Jumps** (RD-9): a die on a jump space in a lower gear than the jump's is a normal move;
  the same gear lands one space on (straight or diagonal); one higher two spaces on, a
  caution on that die losing control where it lands; two or more higher two spaces on and
  control is lost there. Never onto a car; landing in a corner, in either lane.
- **Water** (RD-10, RD-20): a die onto a water space must be a coast (or leader) die or the
  gear-1 die, not gear 1 by a brake, nor the gear-1 die after a brake die of the turn ("in
  collaboration with a Brake die"); any other die ends the move there, in the gear before it.
- **Other cars** (RD-11): never onto a car; the die that brings the car beside another car at
  least that car's gear, the dice after it any gear (RG-33); into a corner or slide holding a
  car only by that car's lane, never past it there.
- **Time cards** (RD-12): a turn under control takes the card of the car's gear (the last
  gear die; coast only: the card on top, the same gear); a loss of control takes the card of
  the gear at that moment, turned to gear 0: SISU (the card's seconds, no damage, the next
  turn in gear 0, RD-21), Spin (60 s, gear 0) or Crash (60 s, damage by that gear and the tile's
  danger, off the track until its next turn, gear 0), the icon a chance node with the deck's
  shares (house values, RD-1).
- **Rolling** (RD-13): flat out, the dice are rolled all at once; control is lost on the die
  where the plan's own order reaches the caution limit (no re-allocation); gear, coast and
  leader dice earn second tokens. One at a time (`Roll("one")`), before each die the driver
  rolls it, secures it with second tokens (the k-th secured die of a turn costs as GT's
  focus, `ruleset.focus`) or stops (after the first); one at a time earns no tokens.
- **No die within the limits** (RD-17): a car whose first die cannot go anywhere without
  going over a limit must still move forward: it places one die over the limit (any die that
  can go there) and loses control on that space in that die's gear; a car that can place no
  die at all (cars in the way) is blocked: the card of its gear, its gear kept.
- **Slides** (RD-14, :func:`slide_zones`): a car moving into a slide zone chooses on entry:
  normally (ordinary spaces, the lane kept through the zone) or sliding (`Place(slide=True)`:
  the zone counts as two spaces spanning the width of the track, its rear half then its front
  half, then out into either lane); a sliding car fills its half and is followed only by a
  slide, never passed there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from sheetgen.games.rallyman import rules
from sheetgen.games.rallyman.hexgrid import Hex, centre, distance
from sheetgen.games.rallyman.model import Cell, Track, Variant
from sheetgen.games.rallyman.rules import (
    Others,
    RaceCore,
    Roll,
    RulesError,
    Secure,
    Stop,
    VariantRules,
    dice_left,
    move_marks,
    on_inside,
)
from sheetgen.games.rallyman.rules import _draws as _crash_draws
from sheetgen.games.rallyman.ruleset import (
    DamageBag,
    DamageToken,
    Effect,
    Ruleset,
    TimeCards,
    default,
)

PLAN, FLAT, ONE, ICON, DAMAGE, SHORTCUT, OVER = "plan", "flat", "one", "icon", "damage", "shortcut", "over"
MAX_ROUNDS = 400
SISU, SPIN, CRASH = "sisu", "spin", "crash"


class DirtRulesError(RulesError):
    """An illegal action for a DIRT race, or a track the DIRT rules cannot play."""


@dataclass(frozen=True)
class Place(rules.Place):
    """Place the next die: `die` onto `to` (for a jump: where the die lands, `via` the jump
    space it took off from). Rolling, securing and stopping are GT's actions (`Roll`,
    `Secure`, `Stop`)."""

    via: Hex | None = None
    slide: bool = False  # the die slides into a slide space (RD-14)


def place_of(step: DStep) -> Place:
    """The action that places `step`."""
    return Place(step.die, step.to, step.via, step.slide > 0)


# --------------------------------------------------------------------------- the stage


@dataclass(frozen=True, eq=False)
class DirtStage:
    """A DIRT stage: the track, the ruleset, the car class. `damage=False` (the solver's
    model): a crash draws no damage and every shortcut draw comes from a full bag."""

    track: Track
    ruleset: Ruleset
    car_class: str = "R2"
    damage: bool = True

    @property
    def rules(self) -> VariantRules:
        return DIRT_RULES

    def __post_init__(self) -> None:
        rules.check_stage(self)

    @property
    def board(self):
        return self.ruleset.dashboard(self.car_class, "gravel", "dry")

    @property
    def limit(self) -> int:
        return self.board.caution_limit

    @property
    def top_gear(self) -> int:
        return max(int(n) for n, c in self.board.dice if c and n.isdigit())

    @property
    def start_cell(self) -> Hex:
        """The space behind the start line (RD-5): the start space furthest along, then the
        inside lane of the first corner."""
        return start_spaces(self.track)[0]

    @property
    def time_cards(self) -> TimeCards:
        """The ruleset's time cards (every DIRT ruleset has them)."""
        cards = self.ruleset.time_cards
        if cards is None:
            raise DirtRulesError("a DIRT stage needs a ruleset with time cards")
        return cards

    def seconds(self, gear: int) -> int:
        """The seconds of the time card of `gear` (gear 0: a card can only be a loss)."""
        if gear < 1:
            return self.time_cards.loss_seconds
        return self.time_cards.card(gear).seconds

    def icons(self, gear: int) -> tuple[tuple[str, Fraction], ...]:
        return self.time_cards.loss_outcomes(max(gear, 1))

    def shortcut_sides(self) -> tuple[tuple[str, Fraction], ...]:
        """The chance of each shortcut side drawn from a full bag."""
        return _sides(self.ruleset.damage_bag.tokens)


def _sides(tokens: tuple[DamageToken, ...]) -> tuple[tuple[str, Fraction], ...]:
    total = sum(t.count for t in tokens)
    out: dict[str, int] = {}
    for t in tokens:
        out[t.shortcut or "ok"] = out.get(t.shortcut or "ok", 0) + t.count
    return tuple((k, Fraction(n, total)) for k, n in sorted(out.items()) if n)


def start_spaces(track: Track) -> tuple[Hex, ...]:
    return rules.start_grid(track, DIRT_RULES)


def inside_lane(track: Track, cell: Cell) -> int | None:
    """The inside lane of the corner `cell` is in, or of the next corner along the track."""
    steps = track.steps()
    at = steps.get(cell.hex, 0)
    for corner in track.corners():
        last = max(steps.get(c.hex, 0) for c in corner.cells)
        if last >= at and corner.turn in ("left", "right"):
            lanes = sorted({c.lane for c in corner.cells})
            return lanes[0] if corner.turn == "left" else lanes[-1]
    return None


# --------------------------------------------------------------------------- a car


@dataclass(frozen=True)
class DirtCar:
    cell: Hex
    gear: int = 0
    entered: bool = False  # on the stage (RD-5: car k enters on round k)
    crashed: bool = False  # off the track until its next turn (a crash)
    finished: bool = False
    time: int = 0
    turns: int = 0
    seconds_tokens: int = 0  # second tokens earned flat out
    lost: tuple[tuple[str, int], ...] = ()  # dice lost: "gear", "brake", "coast"
    cards: tuple[tuple[int, str | None], ...] = ()  # time cards taken: (gear, None or the loss icon)
    slide: int = 0  # sliding (RD-14): in the first (1) or second (2) space of a slide zone

    def lost_count(self, kind: str) -> int:
        return dict(self.lost).get(kind, 0)


def dice_pool(stage: DirtStage, car: DirtCar, first: bool) -> tuple[dict[str, int], int]:
    """The car's dice this turn (name -> count, damage taken off; no leader die unless it
    plays first in the round) and its usable gear dice."""
    dice = dict(stage.board.dice)
    dice["brake"] = max(0, dice.get("brake", 0) - car.lost_count("brake"))
    coast_lost = car.lost_count("coast")
    take = min(coast_lost, dice.get("coast", 0))
    dice["coast"] = dice.get("coast", 0) - take
    dice["leader"] = max(0, dice.get("leader", 0) - (coast_lost - take))
    if not first and stage.ruleset.leader_first_player_only:
        dice["leader"] = 0
    return dice, rules.gear_dice_free(stage.board, car)


@dataclass(frozen=True)
class DStep:
    """A die of a DIRT plan: the die, where it ends (`to`), the gear the car is in after it,
    the track's cautions, and DIRT's extras: the jump space it took off from (`via`) and how
    (`air` 0 none, 1 the jump's gear, 2 one higher, 3 two or more higher), whether it enters
    a shortcut, whether water ended the move (`stopped`), whether it finishes."""

    die: str
    to: Hex
    gear: int
    marks: int
    finishes: bool = False
    via: Hex | None = None
    air: int = 0
    entry: bool = False
    stopped: bool = False
    slide: int = 0  # a slide: the die ends in the zone's first (1) or second (2) space (RD-14)
    over: bool = False  # over a limit, the only way on (RD-17): control is lost there

    @property
    def lose_on_caution(self) -> bool:
        return self.air == 2

    @property
    def lose_always(self) -> bool:
        return self.air >= 3 or self.over

    @property
    def last(self) -> bool:
        """No die may follow it."""
        return self.finishes or self.stopped or self.lose_always


Mud = tuple[tuple[int, int], ...]  # (tile index, the car that dropped it) per mud token


def effective_limit(track: Track, cell: Cell, mud: Mud = (), car: int | None = None) -> int | None:
    """A corner space's limit with the mud of other cars on its tile (RD-8)."""
    if cell.limit is None:
        return None
    if cell.tile is None:
        return cell.limit
    return cell.limit - sum(1 for tile, maker in mud if tile == cell.tile and maker != car)


def dirt_marks(track: Track, frm: Hex, to: Hex, gear: int, mud: Mud = (), car: int | None = None) -> int | None:
    """The track's cautions for a move onto `to` in `gear`, or None over a limit: a corner
    space's (lowered by mud: DIRT's limit rule), a shortcut's, an inside line's."""
    return move_marks(track, frm, to, gear, mud, car, effective_limit)


@dataclass(frozen=True)
class SlideZone:
    """A slide zone (RD-14): neighbouring slide spaces on one tile (`Track.notes`). Slid, it
    counts as two spaces spanning the width of the track, one behind the other: `halves`
    holds the zone's cells behind the dotted line and those beyond it, each in track order;
    a sliding car stands on the first cell of its half (`anchor`) and fills the half."""

    cells: frozenset[Hex]
    halves: tuple[tuple[Hex, ...], tuple[Hex, ...]]
    #: where a slide out of the second space may go: every space outside the zone that one of
    #: its cells moves to, with the cell it moves from (the car spans the width)
    exits: tuple[tuple[Hex, Hex], ...]
    playable: bool  # no corner, jump, water, start or finish space in it

    def anchor(self, space: int) -> Hex:
        return self.halves[space - 1][0]


def slide_zones(track: Track) -> dict[Hex, SlideZone]:
    """Every slide space's zone (kept with the track, which never changes)."""
    zones = track._cache.get("dirt_slides")
    if zones is None:
        zones = {}
        for note in track.notes():
            if note.kind != "slide":
                continue
            cells = frozenset(c.hex for c in note.cells)
            dx, dy = centre(Hex(0, 0).neighbour(note.cells[0].heading))

            def along(c: Cell, dx: float = dx, dy: float = dy) -> tuple:
                x, y = centre(c.hex)
                return (round(x * dx + y * dy, 6), c.lane)

            ordered = [c.hex for c in sorted(note.cells, key=along)]
            half = max(1, len(ordered) // 2)
            halves = (tuple(ordered[:half]), tuple(ordered[half:] or ordered))
            exits = tuple(dict.fromkeys((m.to, h) for h in ordered for m in track.moves(h) if m.to not in cells))
            playable = not any(c.corner or c.jump is not None or c.water or c.start or c.finish for c in note.cells)
            zone = SlideZone(cells, halves, exits, playable)
            for h in cells:
                zones[h] = zone
        track._cache["dirt_slides"] = zones
    return zones


@dataclass(frozen=True)
class DirtOthers(Others):
    """GT's view of the other cars, with DIRT's adjacency: "Shortcuts count as adjacent to any
    space connected to them except Corner spaces" (RD-23): a shortcut space and a corner space
    are never next to each other, neighbours on the grid or not."""

    def next_to(self, track: Track, to: Hex, h: Hex) -> bool:
        if not super().next_to(track, to, h):
            return False
        a, b = track.at(to), track.at(h)
        return not ((a.shortcut is not None and b.corner) or (b.shortcut is not None and a.corner))


@dataclass(frozen=True)
class Traffic:
    """The other cars as a moving DIRT car sees them: (cell, gear, stopped) of those on the
    track (a crashed car is off it), the sliding ones among them ((cell, slide space)), and the
    mud on the tiles."""

    cars: tuple[tuple[Hex, int, bool], ...] = ()
    mud: Mud = ()
    me: int | None = None
    slides: tuple[tuple[Hex, int], ...] = ()

    def others(self) -> Others:
        return DirtOthers(self.cars)

    def blocked(self, track: Track, h: Hex) -> bool:
        """A car stands there: on that cell, or sliding across the half of its zone."""
        if any(c == h for c, _g, _s in self.cars):
            return True
        zones = slide_zones(track) if self.slides else {}
        return any(h in zones[c].halves[k - 1] for c, k in self.slides if c in zones)


def _group_of(track: Track, h: Hex) -> frozenset[Hex] | None:
    """The cells of the corner or slide zone `h` is in (None: neither)."""
    cell = track.at(h)
    if cell.corner:
        corner = next((c for c in track.corners() if any(x.hex == h for x in c.cells)), None)
        return None if corner is None else frozenset(x.hex for x in corner.cells)
    zone = slide_zones(track).get(h) if cell.slide else None
    return None if zone is None else zone.cells


def _follow_refused(track: Track, to: Hex, traffic: Traffic, space: int = 0) -> bool:
    """RD-11, RD-14: into a corner or slide zone holding another car only by the same way
    (the same lane, or sliding too), never level with or past it there. `space`: the slide
    space entered (0: entered normally)."""
    if not traffic.cars:
        return False
    group = slide_zones(track)[to].cells if space else _group_of(track, to)
    if group is None:
        return False
    steps = track.steps()
    sliding = dict(traffic.slides)
    for h, _g, _s in traffic.cars:
        if h not in group:
            continue
        if space or h in sliding:
            if not (space and h in sliding and space < sliding[h]):
                return True
            continue
        if track.at(to).lane != track.at(h).lane or steps.get(to, 0) >= steps.get(h, 0):
            return True
    return False


def _targets(track: Track, here: Hex, slide: int) -> tuple[tuple[Hex, Hex, int], ...]:
    """Where the next die may go from `here`: (the cell it leaves, the cell it enters, the
    slide space it enters or 0). RD-14: sliding, the first space leads to the second and the
    second out of the zone from any of its cells; not sliding, a car keeps its lane between
    two spaces of one zone and may slide into a zone it moves into."""
    zones = slide_zones(track)
    if slide == 1:
        return ((here, zones[here].anchor(2), 2),)
    if slide == 2:
        return tuple((frm, to, 0) for to, frm in zones[here].exits)
    out, entered = [], []
    for move in track.moves(here):
        zone = zones.get(move.to)
        if zone is not None and here in zone.cells and track.at(here).lane != track.at(move.to).lane:
            continue  # entered normally: the lane is kept through the zone
        out.append((here, move.to, 0))
        if zone is not None and zone.playable and here not in zone.cells and zone not in entered:
            entered.append(zone)
    out += [(here, zone.anchor(1), 1) for zone in entered]
    return tuple(out)


def dirt_steps(
    stage: DirtStage,
    car: DirtCar,
    plan: tuple[DStep, ...],
    first: bool = True,
    traffic: Traffic = Traffic(),
    braked: bool | None = None,
) -> tuple[DStep, ...]:
    """Every die that may be placed next after `plan` (RD-7 to RD-11, RD-14). A turn's first
    die with none within the limits: every die over a limit, each losing control where it
    goes (RD-17: the car must move forward); none at all: the car is blocked. `braked`:
    whether a brake die was placed before in the turn (RD-20), for a caller that keeps the
    dice used apart from `plan` (the par solver); None: whether `plan` holds one."""
    if plan and plan[-1].last:
        return ()
    track = stage.track
    here = plan[-1].to if plan else car.cell
    gear = plan[-1].gear if plan else car.gear
    slide = plan[-1].slide if plan else car.slide
    crossed = any(track.at(s.to).finish for s in plan)
    others = traffic.others()
    been = _been(track, car, plan) if traffic.cars else ()
    if braked is None:
        braked = any(stage.ruleset.die(s.die).effect is Effect.BRAKE for s in plan)
    targets = _targets(track, here, slide)
    out, over = [], []
    for name, g in dice_left(stage, car, first, plan, gear):
        kind = stage.ruleset.die(name)
        seen: set = set()
        for frm, dest, space in targets:
            if space:
                step = _slide_step(stage, name, frm, dest, g, space, traffic, been)
                if step is not None:
                    out.append(step)
                continue
            to = track.at(dest)
            if dest in seen or traffic.blocked(track, dest) or _follow_refused(track, dest, traffic):
                continue
            # RG-33: the die that brings the car beside another needs its gear, no die after it
            if any(g < b for b in others.alongside(track, dest, been)):
                continue
            marks = dirt_marks(track, frm, dest, g, traffic.mud, traffic.me)
            entry = to.shortcut is not None and track.at(frm).shortcut is None
            if marks is None:
                over.append(DStep(name, dest, g, 0, to.finish and not crossed, entry=entry, over=True))
                continue
            seen.add(dest)
            through = kind.effect is Effect.STAY or (kind.effect is Effect.GEAR and kind.gear == 1 and not braked)
            if to.water and not through:
                # RD-10: the move ends on the water, in the gear before this die; RD-20: the
                # gear-1 die after a brake die of the turn too
                m2 = dirt_marks(track, frm, dest, gear, traffic.mud, traffic.me) if gear >= 1 else marks
                if m2 is not None:
                    out.append(DStep(name, dest, gear, m2, to.finish and not crossed, entry=entry, stopped=True))
                continue
            if to.jump is not None and g >= to.jump:
                air = min(3, 1 + g - to.jump)
                for land in _landings(track, dest, 1 if air == 1 else 2, traffic):
                    lm = dirt_marks(track, dest, land, g, traffic.mud, traffic.me)
                    if lm is None:
                        continue
                    fin = (to.finish or track.at(land).finish) and not crossed
                    out.append(
                        DStep(
                            name,
                            land,
                            g,
                            marks + lm,
                            fin,
                            via=dest,
                            air=air,
                            entry=entry or (track.at(land).shortcut is not None and to.shortcut is None),
                        )
                    )
                continue
            out.append(DStep(name, dest, g, marks, to.finish and not crossed, entry=entry))
    if not plan and not out:
        # RD-17: "You must always be moving forward"; "Exceed this number and you will lose control!"
        return tuple(dict.fromkeys(over))
    return tuple(out)


def _been(track: Track, car: DirtCar, plan: tuple[DStep, ...]) -> tuple[Hex, ...]:
    """The cells the car has stood on this turn (RG-33): where it started (the half of its
    slide zone, sliding) and where each die so far took it (a jump's take-off space too, a
    slide's half)."""
    zones = slide_zones(track)
    out = list(zones[car.cell].halves[car.slide - 1]) if car.slide else [car.cell]
    for s in plan:
        if s.via is not None:
            out.append(s.via)
        out += zones[s.to].halves[s.slide - 1] if s.slide else [s.to]
    return tuple(out)


def _slide_step(
    stage: DirtStage, name: str, frm: Hex, anchor: Hex, g: int, space: int, traffic: Traffic, been: tuple = ()
) -> DStep | None:
    """A die sliding into slide space `space` (RD-14): never onto a car (a sliding car fills
    its half), into a zone holding a car only sliding behind it, beside a car only with a
    gear at least its gear unless the car is beside it already (RG-33)."""
    track = stage.track
    half = slide_zones(track)[anchor].halves[space - 1]
    if any(traffic.blocked(track, h) for h in half) or _follow_refused(track, anchor, traffic, space):
        return None
    others = traffic.others()
    if any(g < b for h in half for b in others.alongside(track, h, been)):
        return None
    marks = dirt_marks(track, frm, anchor, g, traffic.mud, traffic.me)
    return None if marks is None else DStep(name, anchor, g, marks, slide=space)


def _landings(track: Track, jump: Hex, spaces: int, traffic: Traffic) -> tuple[Hex, ...]:
    """Where a jump from `jump` lands `spaces` spaces on (RD-9): a space that many forward
    moves on and that far from the jump (a zig-zag back beside it is not two spaces on), cars
    on the way ignored, never onto a car; into a corner in either lane."""
    frontier = {jump}
    for _ in range(spaces):
        nxt = set()
        for h in frontier:
            for move in track.moves(h):
                nxt.add(move.to)
            # the lane of a corner is picked on landing: a lane-changing diagonal is allowed
            here = track.at(h)
            for turn in (-1, 1):
                there = track.cell(h.neighbour(here.heading + turn))
                if (
                    there is not None
                    and there.corner
                    and here.corner
                    and there.heading in {(here.heading + d) % 6 for d in (-1, 0, 1)}
                ):
                    nxt.add(there.hex)
        frontier = nxt
    return tuple(
        sorted(
            (h for h in frontier if distance(h, jump) == spaces and not traffic.blocked(track, h)),
            key=lambda h: (h.q, h.r),
        )
    )


# --------------------------------------------------------------------------- order of play


def order_key(stage: DirtStage, i: int, car: DirtCar) -> tuple:
    """RD-6: distance, speed (gear), the inside lane of the current or next corner, number."""
    track = stage.track
    return (-track.steps().get(car.cell, 0), -car.gear, on_inside(track, track.at(car.cell), DIRT_RULES), i)


def turn_order(stage: DirtStage, cars: tuple[DirtCar, ...]) -> tuple[int, ...]:
    """RD-6: the cars on the stage in the order of play (the shared :func:`rules.turn_order`
    with DIRT's key)."""
    return rules.turn_order(stage, cars)


# --------------------------------------------------------------------------- the race


@dataclass(frozen=True)
class DirtRace(RaceCore):
    """A DIRT stage being raced (see the module). Phases: PLAN (decision: Place, Roll),
    FLAT (chance: which dice show a caution), ONE (decision: Roll, Secure, Stop; chance when
    `rolling`: the next die's caution), ICON (chance: SISU, Spin or Crash), DAMAGE
    (chance: a crash's tokens), SHORTCUT (chance: the shortcut sides drawn), OVER."""

    stage: DirtStage
    cars: tuple[DirtCar, ...]
    round: int = 0
    order: tuple[int, ...] = ()
    slot: int = 0
    phase: str = PLAN
    plan: tuple[DStep, ...] = ()
    done: int = 0  # dice of the plan carried out (the loss die included)
    cautions: int = 0  # one at a time: cautions so far (dice and track)
    secured: int = 0  # one at a time: dice secured this turn
    rolling: bool = False  # one at a time: the next die is being rolled (a chance node)
    loss: tuple[Hex, int] | None = None
    icon: str | None = None
    bag: tuple[tuple[tuple[str, str | None], int], ...] = ()  # (kind, shortcut side) -> count
    mud: Mud = ()
    log: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @staticmethod
    def start(stage: DirtStage, n: int = 1) -> DirtRace:
        if not 1 <= n <= 6:
            raise DirtRulesError(f"1 to 6 cars, got {n}")
        cars = tuple(DirtCar(cell=stage.start_cell) for _ in range(n))
        bag = tuple(((t.kind, t.shortcut), t.count) for t in stage.ruleset.damage_bag.tokens)
        s = DirtRace(stage, cars, bag=bag)
        return s._advance(0)

    # -- queries

    def traffic(self, i: int) -> Traffic:
        on = [c for j, c in enumerate(self.cars) if j != i and c.entered and not c.finished and not c.crashed]
        return Traffic(
            tuple((c.cell, c.gear, c.gear == 0) for c in on),
            self.mud,
            i,
            tuple((c.cell, c.slide) for c in on if c.slide),
        )

    def next_dice(self) -> tuple[DStep, ...]:
        return dirt_steps(self.stage, self.car, self.plan, self.slot == 0, self.traffic(self.turn))

    def chance_outcomes(self) -> tuple[tuple[Any, Fraction], ...]:
        if self.phase in (FLAT, ONE):
            return self._dice_outcomes(self.done)
        if self.phase == ICON:
            if self.loss is None:
                raise DirtRulesError("no loss of control to draw an icon for")
            return self.stage.icons(self.loss[1])
        if self.phase == DAMAGE:
            return _crash_draws(self._kinds(), self._tokens_due())
        if self.phase == SHORTCUT:
            return self._shortcut_draws()
        return ()

    def legal_actions(self) -> tuple[Any, ...]:
        if self.phase == ONE and not self.rolling:
            return self._one_actions(self.car.seconds_tokens, self.secured, self.done)
        if self.phase != PLAN:
            return ()
        out: list[Any] = [place_of(s) for s in self.next_dice()]
        if self.plan:
            out += [Roll("flat"), Roll("one")]
        elif not out:
            out.append(Roll())  # blocked: the turn ends where it is
        return tuple(out)

    def _apply(self, action: Any) -> DirtRace:
        if self.phase == PLAN:
            if isinstance(action, Place):
                step = next(s for s in self.next_dice() if place_of(s) == action)
                return replace(self, plan=self.plan + (step,), log=self.log + (("place", self.turn, step),))
            if not self.plan:
                return self._end_turn(self.car.gear, None)
            if action.mode == "one":
                return replace(
                    self, phase=ONE, done=0, cautions=0, secured=0, rolling=False, log=self.log + (("one", self.turn),)
                )
            return replace(self, phase=FLAT)
        if self.phase == ONE:
            return self._one(action)
        if self.phase == FLAT:
            return self._flat_result(action)
        if self.phase == ICON:
            return self._icon(action)
        if self.phase == DAMAGE:
            return self._damage(action)
        return self._shortcut(action)

    # -- transitions

    def _flat_result(self, rolled: tuple[bool, ...]) -> DirtRace:
        ruleset = self.stage.ruleset
        car = self.car
        earned = sum(1 for s in self.plan if ruleset.die(s.die).earns_token)
        car = replace(car, seconds_tokens=car.seconds_tokens + earned)
        cautions = 0
        for i, (s, hit) in enumerate(zip(self.plan, rolled)):
            cautions += s.marks + (1 if hit else 0)
            if cautions >= self.stage.limit or s.lose_always or (hit and s.lose_on_caution):
                car = replace(car, cell=s.to, slide=s.slide, finished=car.finished or s.finishes)
                return self._set(
                    car,
                    phase=ICON,
                    done=i + 1,
                    loss=(s.to, s.gear),
                    log=self.log + (("rolled", self.turn, rolled), ("lose", self.turn, s.to, s.gear)),
                )
        last = self.plan[-1]
        car = replace(car, cell=last.to, gear=last.gear, slide=last.slide, finished=any(s.finishes for s in self.plan))
        s = self._set(
            car,
            done=len(self.plan),
            log=self.log + (("rolled", self.turn, rolled), ("move", self.turn, last.to, last.gear)),
        )
        return s._after_move()

    def _one(self, action: Any) -> DirtRace:
        """One at a time (RD-13): a die rolled (its result) or secured, or a stop."""
        if isinstance(action, Roll):
            return replace(self, rolling=True)
        if isinstance(action, Stop):
            return self._moved(self.done)
        secured = isinstance(action, Secure)
        hit = False if secured else bool(action)
        s = self
        if secured:
            cost = self.stage.ruleset.focus.cost(self.secured + 1)
            s = self._set(replace(self.car, seconds_tokens=self.car.seconds_tokens - cost), secured=self.secured + 1)
        step = self.plan[self.done]
        done = self.done + 1
        cautions = self.cautions + step.marks + (1 if hit else 0)
        s = replace(
            s, done=done, cautions=cautions, rolling=False, log=s.log + (("die", self.turn, step, hit, secured),)
        )
        if cautions >= self.stage.limit or step.lose_always or (hit and step.lose_on_caution):
            car = replace(
                s.car,
                cell=step.to,
                slide=step.slide,
                finished=s.car.finished or any(x.finishes for x in self.plan[:done]),
            )
            return s._set(
                car, phase=ICON, loss=(step.to, step.gear), log=s.log + (("lose", self.turn, step.to, step.gear),)
            )
        if done == len(self.plan) or step.last:
            return s._moved(done)
        return s

    def _moved(self, done: int) -> DirtRace:
        """One at a time: the move ends under control after `done` dice."""
        last = self.plan[done - 1]
        car = replace(
            self.car, cell=last.to, gear=last.gear, slide=last.slide, finished=any(x.finishes for x in self.plan[:done])
        )
        return self._set(
            car, done=done, rolling=False, log=self.log + (("move", self.turn, last.to, last.gear),)
        )._after_move()

    def _icon(self, icon: str) -> DirtRace:
        s = replace(self, icon=icon, log=self.log + (("icon", self.turn, icon),))
        if icon == CRASH and self.stage.damage and s._tokens_due():
            return replace(s, phase=DAMAGE)
        return s._after_move()

    def _kinds(self) -> tuple[tuple[str, int], ...]:
        out: dict[str, int] = {}
        for (kind, _side), n in self.bag:
            out[kind] = out.get(kind, 0) + n
        return tuple(out.items())

    def _tokens_due(self) -> int:
        return self._damage_due(sum(n for _k, n in self._kinds()))

    def _damage(self, drawn: tuple[tuple[str, int], ...]) -> DirtRace:
        car = self.car
        lost = dict(car.lost)
        bag = dict(self.bag)
        for kind, n in drawn:
            for _ in range(n):  # a crash's token: which shortcut side it had does not matter
                side = next(k for k in sorted(bag, key=str) if k[0] == kind and bag[k])
                bag[side] -= 1
            what = {"gear": "gear", "brake": "brake", "coast_leader": "coast"}.get(kind)
            if what:
                lost[what] = lost.get(what, 0) + n
        s = self._set(
            replace(car, lost=tuple(sorted(lost.items()))),
            bag=tuple(bag.items()),
            log=self.log + (("damage", self.turn, drawn),),
        )
        return s._after_move()

    def _entries(self) -> int:
        return sum(1 for s in self.plan[: self.done] if s.entry)

    def _after_move(self) -> DirtRace:
        if self._entries():
            return replace(self, phase=SHORTCUT)
        return self._finish_turn()

    def _shortcut_draws(self) -> tuple[tuple[Any, Fraction], ...]:
        n = self._entries()
        if self.stage.damage:
            return _side_draws(tuple((side or "ok", c) for (_k, side), c in self.bag), n)
        return _side_draws(
            tuple((t.shortcut or "ok", t.count) for t in self.stage.ruleset.damage_bag.tokens), n, replace_=True
        )

    def _shortcut(self, drawn: tuple[tuple[str, int], ...]) -> DirtRace:
        car = self.car
        lost = dict(car.lost)
        bag = dict(self.bag)
        mud = list(self.mud)
        tiles = [
            self.stage.track.at(
                s.to if s.via is None or self.stage.track.at(s.to).shortcut is not None else s.via
            ).tile
            for s in self.plan[: self.done]
            if s.entry
        ]
        for side, n in drawn:
            if self.stage.damage:
                for _ in range(n):
                    key = next(k for k in sorted(bag, key=str) if (k[1] or "ok") == side and bag[k])
                    bag[key] -= 1
            if side == "coast_die":
                lost["coast"] = lost.get("coast", 0) + n
            elif side == "mud":
                for j in range(n):
                    tile = tiles[min(j, len(tiles) - 1)]
                    if tile is not None:
                        mud.append((tile, self.turn))
        s = self._set(
            replace(car, lost=tuple(sorted(lost.items()))),
            bag=tuple(bag.items()),
            mud=tuple(mud),
            log=self.log + (("shortcut", self.turn, drawn),),
        )
        return s._finish_turn()

    def _finish_turn(self) -> DirtRace:
        car = self.car
        if self.loss is not None:
            _at, gear = self.loss
            card: tuple[int, str | None]
            if self.icon == SISU:  # RD-21: the card's own seconds, the next turn in gear 0
                seconds, end, card = self.stage.seconds(gear), 0, (gear, SISU)
            else:
                seconds, end, card = self.stage.time_cards.loss_seconds, 0, (gear, self.icon)
            car = replace(car, gear=end, crashed=self.icon == CRASH and not car.finished)
            return self._set(car)._end_turn(end, card, seconds)
        return self._end_turn(car.gear, None)

    def _end_turn(self, gear: int, card: tuple | None, seconds: int | None = None) -> DirtRace:
        car = self.car
        if card is None:
            # RD-12: the card of the car's gear (coast only: the card on top, the same gear)
            card = (gear, None)
            seconds = self.stage.rules.seconds(self.stage, gear)
        car = replace(car, time=car.time + seconds, turns=car.turns + 1, cards=car.cards + (card,))
        s = self._set(
            car,
            plan=(),
            done=0,
            cautions=0,
            secured=0,
            rolling=False,
            loss=None,
            icon=None,
            phase=PLAN,
            log=self.log + (("turn", self.turn, card, seconds, car.time),),
        )
        return s._advance(s.slot + 1)

    def _advance(self, slot: int) -> DirtRace:
        s, slot = self._seat(slot, MAX_ROUNDS)
        if slot < 0:
            return s
        i = s.order[slot]
        car = s.cars[i]
        if car.crashed:  # back on the track for its own turn
            s = s._set_i(i, replace(car, crashed=False))
        return replace(s, slot=slot, phase=PLAN)

    def _new_round(self, r: int) -> DirtRace:
        """RD-5: car k enters on round k (later if the space behind the line is taken)."""
        cars = list(self.cars)
        start = self.stage.start_cell
        for i, c in enumerate(cars):
            if not c.entered and i < r:
                taken = any(o.entered and not o.finished and not o.crashed and o.cell == start for o in cars)
                if not taken:
                    cars[i] = replace(c, entered=True, cell=start, gear=0, slide=0)
                break  # one car enters per round
        cars_t = tuple(cars)
        order = turn_order(self.stage, cars_t)
        return replace(
            self, cars=cars_t, round=r, order=order, slot=0, phase=PLAN, log=self.log + (("round", r, order),)
        )


@lru_cache(maxsize=4096)
def _side_draws(sides: tuple[tuple[str, int], ...], n: int, replace_: bool = False):
    """The shortcut sides of `n` tokens: without replacement from the race's bag, or (the
    solver's model) each from a full bag."""
    merged: dict[str, int] = {}
    for side, c in sides:
        merged[side] = merged.get(side, 0) + c
    if not replace_:
        return DamageBag(tuple(DamageToken(k, c) for k, c in merged.items() if c)).draw(n)
    total = sum(merged.values())
    out: dict[tuple, Fraction] = {}
    for combo in product(sorted(merged), repeat=n):
        q = Fraction(1)
        for side in combo:
            q *= Fraction(merged[side], total)
        key = tuple((k, combo.count(k)) for k in sorted(merged) if combo.count(k))
        out[key] = out.get(key, Fraction(0)) + q
    return tuple(out.items())


def stage_of(track: Track, ruleset: Ruleset | None = None, **options: Any) -> DirtStage:
    return DirtStage(track, ruleset or default("dirt"), **options)


DIRT_RULES = rules.VariantRules(
    Variant.DIRT,
    DirtRulesError,
    "the stage is over",
    "the DIRT rules engine plays Rallyman DIRT tracks (this is a GT track)",
    "the track needs a starting space and finish spaces",
    order_key=order_key,
    racing=lambda car: car.entered and not car.finished,
    inside_lane=inside_lane,
    grid_tie=lambda cell: (cell.hex.q, cell.hex.r),
    limit=effective_limit,
    pool=dice_pool,
    seconds=lambda stage, gear: stage.seconds(gear),
)
rules.VARIANTS[Variant.DIRT] = DIRT_RULES
