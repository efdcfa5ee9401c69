"""Rallyman DIRT rules engine and analysis (rules_dirt.py, solve_dirt.py; rulings RD-5 on).

The small tracks are two-lane strips heading east: lane 1 on row r = 0, lane 2 on row r = 1
(from (q, 0) the diagonal is (q, 1); from (q, 1) it is (q + 1, 0))."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from sheetgen import registry
from sheetgen.engine import playout
from sheetgen.games.rallyman import rules_dirt as rd
from sheetgen.games.rallyman import solve_dirt as sd
from sheetgen.games.rallyman.hexgrid import Hex
from sheetgen.games.rallyman.model import Cell, Track, Variant
from sheetgen.games.rallyman.ruleset import default, ruleset_of
from sheetgen.games.rallyman.simulate_dirt import DirtDriver, Lookahead


def strip(n: int, extra: tuple[Cell, ...] = (), **marks: dict) -> Track:
    """A DIRT strip of `n` columns; `marks["q_lane"]` sets a cell's attributes."""
    cells = []
    for q in range(n):
        for lane, r in ((1, 0), (2, 1)):
            kw = dict(marks.get(f"c{q}_{lane}", {}))
            kw.setdefault("start", q == 0 and lane == 1)
            kw.setdefault("finish", q == n - 1)
            cells.append(Cell(Hex(q, r), 0, lane, **kw))
    return Track("strip", Variant.DIRT, tuple(cells) + extra)


def stage(track: Track) -> rd.DirtStage:
    return rd.DirtStage(track, default("dirt"), damage=False)


def steps_by(st, car, die):
    return {(s.to, s.air, s.stopped, s.gear) for s in rd.dirt_steps(st, car, ()) if s.die == die}


# --------------------------------------------------------------------------- jumps (RD-9)


def test_jump_landing_per_gear():
    st = stage(strip(8, c3_1={"jump": 3}))
    jump = Hex(3, 0)
    # a lower gear than the jump's: a normal space
    assert steps_by(st, rd.DirtCar(Hex(2, 0), gear=1), "2") == {(jump, 0, False, 2), (Hex(2, 1), 0, False, 2)}
    # the jump's gear: one space on, straight or diagonal
    land = {s for s in steps_by(st, rd.DirtCar(Hex(2, 0), gear=2), "3") if s[1]}
    assert land == {(Hex(4, 0), 1, False, 3), (Hex(3, 1), 1, False, 3)}
    # one higher: two spaces on, and a caution there loses control
    two = [s for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=3), ()) if s.die == "4" and s.via == jump]
    assert {s.to for s in two} == {Hex(5, 0), Hex(4, 1)} and all(s.lose_on_caution and not s.lose_always for s in two)
    # two or more higher: two spaces on and control is lost
    over = [s for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=4), ()) if s.die == "5" and s.via == jump]
    assert over and all(s.lose_always and s.last for s in over)


def test_a_jump_never_lands_on_a_car():
    st = stage(strip(8, c3_1={"jump": 3}))
    traffic = rd.Traffic(((Hex(4, 0), 0, True),))
    land = {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=2), (), traffic=traffic) if s.air}
    assert land == {Hex(3, 1)}


def test_a_jump_two_over_loses_control_where_it_lands():
    st = stage(strip(8, c3_1={"jump": 3}))
    race = rd.DirtRace.start(st, 1)
    race = rd.replace(race, cars=(rd.DirtCar(Hex(2, 0), gear=4, entered=True),))
    race = race.apply(rd.Place("5", Hex(5, 0), Hex(3, 0))).apply(rd.Roll())
    race = race.apply((False,))  # no caution rolled: control is lost all the same
    assert race.phase == rd.ICON and race.loss == (Hex(5, 0), 5)
    assert dict(race.chance_outcomes()) == {"sisu": Fraction(2, 10), "spin": Fraction(3, 10), "crash": Fraction(5, 10)}


# --------------------------------------------------------------------------- water (RD-10)


def test_water_with_and_without_a_coast_die():
    st = stage(strip(8, c3_1={"water": True}, c3_2={"water": True}))
    car = rd.DirtCar(Hex(2, 0), gear=2)
    water = Hex(3, 0)
    assert (water, 0, False, 2) in steps_by(st, car, "coast")  # a coast die goes through
    assert (water, 0, False, 1) in steps_by(st, car, "1")  # so does the gear-1 die
    assert (water, 0, True, 2) in steps_by(st, car, "3")  # another die: the move ends there, in gear 2
    assert (water, 0, True, 2) in steps_by(st, car, "brake")  # gear 1 by a brake is not the gear-1 die
    stopped = next(s for s in rd.dirt_steps(st, car, ()) if s.die == "3" and s.to == water)
    assert rd.dirt_steps(st, car, (stopped,)) == ()
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(2, 0), gear=2, entered=True),))
    race = race.apply(rd.Place("3", water)).apply(rd.Roll()).apply((False,))
    assert race.cars[0].cell == water and race.cars[0].gear == 2
    assert race.cars[0].cards[-1] == (2, None) and race.cars[0].time == 40  # the gear-2 card


def test_the_gear_1_die_after_a_brake_die_stops_on_the_water():
    """RD-20 (issue 34): "You cannot use a Gear 1 die in collaboration with a Brake die." A
    brake counts one gear lower for every die after it (RG-14): the gear-1 die after a brake
    die of the turn reached gear 1 with its help, and stops on the water in gear 2. It went
    through (RD-10 read the sentence as the brake die itself, which the first sentence
    already leaves out)."""
    st = stage(strip(8, c3_1={"water": True}, c3_2={"water": True}))
    car = rd.DirtCar(Hex(1, 0), gear=3)
    water = Hex(3, 0)

    def after(first: str) -> set:
        step = next(s for s in rd.dirt_steps(st, car, ()) if (s.die, s.to) == (first, Hex(2, 0)))
        assert step.gear == 2
        return {(s.to, s.stopped, s.gear) for s in rd.dirt_steps(st, car, (step,)) if s.die == "1"}

    assert (water, False, 1) in after("2")  # down through the gear dice: through the water
    assert (water, True, 2) in after("brake")  # after a brake die: the move ends there, in gear 2
    assert (water, False, 2) in {(s.to, s.stopped, s.gear) for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=2), ()) if s.die == "coast"}


WATER_STAGE = """\
game: rallyman
variant: dirt
name: Water
surface: gravel
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments: straight 3, corner left limit 3/4, straight 2 slide, corner right limit 3/4, straight 1 water, corner right limit 2/3, straight 3 water
"""


def test_the_par_plans_know_the_gear_1_die_after_a_brake_stops_on_the_water():
    """RD-20 in the par's programme: its dice of a partial plan are the engine's after the
    dice placed so far, a brake among them or not. No solved plan takes a gear-1 die through
    water after a brake die of its turn (before, the programme asked the engine for a turn's
    dice without them, and two plans of this stage did): every plan is one the engine allows."""
    from sheetgen.games.rallyman.spec import load
    from sheetgen.yamlsrc import load_text

    solved = sd.par(stage(load(load_text(WATER_STAGE, "water.yaml"))))
    water = {c.hex for c in solved.stage.track.cells if c.water}
    assert water
    through = []
    for key, plan in solved.choice.items():
        for i, s in enumerate(plan):
            if s.die == "1" and s.to in water and not s.stopped and any(p.die == "brake" for p in plan[:i]):
                through.append((key, sd.describe_plan(plan)))
    assert through == []
    # every plan of the policy is one the engine allows, die after die
    for key, plan in solved.choice.items():
        car = rd.DirtCar(key[0], gear=key[1], lost=(("coast", key[2]),) if key[2] else (), slide=key[3])
        assert all(s in rd.dirt_steps(solved.stage, car, plan[:i]) for i, s in enumerate(plan)), key


# --------------------------------------------------------------------------- shortcuts and mud (RD-8)


def _shortcut_track() -> Track:
    extra = (Cell(Hex(3, -1), 0, 0, shortcut=2), Cell(Hex(4, -1), 0, 0, shortcut=2))
    return strip(8, extra, c3_1={"limit": 4}, c4_1={"limit": 4})


def test_shortcut_entry_from_a_corner_is_refused():
    track = _shortcut_track()
    assert Hex(4, -1) not in {m.to for m in track.moves(Hex(3, 0))}  # from a corner space: no
    st = stage(track)
    entry = [s for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=1), ()) if s.to == Hex(3, -1)]
    assert entry and all(s.entry for s in entry) and {s.gear for s in entry} == {1, 2}  # its limit 2
    assert not [s for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=2), ()) if s.to == Hex(3, -1) and s.gear == 3]


def test_a_car_on_a_shortcut_is_not_beside_a_corner_space():
    """RD-23 (issue 34): "Shortcuts count as adjacent to any space connected to them except
    Corner spaces." The corner space (3, 0) touches the shortcut space (3, -1) on the grid; a
    car on the shortcut in gear 2 asked a gear-2 die of a car entering the corner beside it.
    It does not: the gear-1 die goes there. A space that is not a corner still does (RG-18)."""
    st = stage(_shortcut_track())
    on_shortcut = rd.Traffic(((Hex(3, -1), 2, False),))
    assert st.track.steps()[Hex(3, 0)] >= st.track.steps()[Hex(3, -1)]
    to = {(s.die, s.to) for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=2), (), traffic=on_shortcut)}
    assert ("1", Hex(3, 0)) in to
    plain = stage(strip(8, _shortcut_track().cells[-2:]))  # the same cells, column 3 no corner
    to = {(s.die, s.to) for s in rd.dirt_steps(plain, rd.DirtCar(Hex(2, 0), gear=2), (), traffic=on_shortcut)}
    assert ("1", Hex(3, 0)) not in to and ("3", Hex(3, 0)) in to


def test_mud_lowers_every_corner_limit_of_its_tile_for_the_others_and_stacks():
    cells = tuple(Cell(c.hex, c.heading, c.lane, limit=c.limit, start=c.start, finish=c.finish, tile=0 if c.limit else None) for c in _shortcut_track().cells)
    track = Track("mud", Variant.DIRT, cells)
    corner = track.cell(Hex(3, 0))
    assert rd.effective_limit(track, corner) == 4
    assert rd.effective_limit(track, corner, ((0, 1),), car=0) == 3
    assert rd.effective_limit(track, corner, ((0, 1),), car=1) == 4  # its maker is not slowed
    assert rd.effective_limit(track, corner, ((0, 1), (0, 2)), car=0) == 2  # tokens stack
    st = stage(track)
    gears = {s.gear for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=3), (), traffic=rd.Traffic(mud=((0, 1),), me=0)) if s.to == Hex(3, 0)}
    assert gears == {2, 3}  # gear 4 no longer fits the corner


def test_a_shortcut_entry_draws_its_side_and_mud_lands_on_the_tile():
    track = _shortcut_track()
    cells = tuple(rd.replace(c, tile=0) if c.hex in (Hex(3, -1), Hex(4, -1), Hex(3, 0), Hex(4, 0)) else c for c in track.cells)
    st = rd.DirtStage(Track("s", Variant.DIRT, cells), default("dirt"))
    race = rd.replace(rd.DirtRace.start(st, 2), cars=(rd.DirtCar(Hex(2, 0), gear=1, entered=True), rd.DirtCar(Hex(0, 0))))
    race = race.apply(rd.Place("2", Hex(3, -1))).apply(rd.Roll()).apply((False,))
    assert race.phase == rd.SHORTCUT
    assert dict(race.chance_outcomes()) == {(("coast_die", 1),): Fraction(1, 4), (("mud", 1),): Fraction(1, 4), (("ok", 1),): Fraction(1, 2)}
    after = race.apply((("mud", 1),))
    assert after.mud == ((0, 0),)
    coast = race.apply((("coast_die", 1),))
    assert coast.cars[0].lost_count("coast") == 1


# --------------------------------------------------------------------------- lanes (RD-7)


def test_inside_versus_outside_lane():
    st = stage(strip(8, c3_1={"limit": 2}, c4_1={"limit": 2}, c3_2={"limit": 4}, c4_2={"limit": 4}))
    car = rd.DirtCar(Hex(2, 1), gear=3)
    to = {s.to for s in rd.dirt_steps(st, car, ()) if s.die == "4"}
    assert to == {Hex(3, 1)}  # the outside lane (limit 4) takes gear 4, the inside (limit 2) does not
    assert {m.to for m in st.track.moves(Hex(3, 1))} == {Hex(4, 1)}  # the lane is kept through the corner
    assert {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 1), gear=1), ()) if s.die == "2"} == {Hex(3, 1), Hex(3, 0)}


def test_a_car_in_a_corner_is_followed_by_its_lane_never_passed():
    st = stage(strip(8, c3_1={"limit": 3}, c4_1={"limit": 3}, c5_1={"limit": 3}, c3_2={"limit": 5}, c4_2={"limit": 5}, c5_2={"limit": 5}))
    traffic = rd.Traffic(((Hex(4, 0), 2, False),))
    to = {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 0), gear=2), (), traffic=traffic)}
    assert Hex(3, 0) in to  # behind it in its lane
    to2 = {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(2, 1), gear=2), (), traffic=traffic)}
    assert Hex(3, 1) not in to2  # the other lane of that corner is shut


def test_once_beside_a_car_the_rest_of_the_move_is_at_any_speed():
    """RG-33 (issue 34), DIRT's "Overtaking" as GT's: only the die that brings the car beside
    another needs that car's gear; the dice after it, any gear."""
    st = stage(strip(8))
    traffic = rd.Traffic(((Hex(1, 1), 4, False),))  # lane 2, in gear 4: (2, 0) and (2, 1) are beside it
    me = rd.DirtCar(Hex(1, 0), gear=3)
    first = {(s.die, s.to) for s in rd.dirt_steps(st, me, (), traffic=traffic)}
    assert ("4", Hex(2, 0)) in first and ("2", Hex(2, 0)) not in first and ("coast", Hex(2, 0)) not in first
    four = next(s for s in rd.dirt_steps(st, me, (), traffic=traffic) if (s.die, s.to) == ("4", Hex(2, 0)))
    then = {(s.die, s.to) for s in rd.dirt_steps(st, me, (four,), traffic=traffic)}
    assert {("3", Hex(2, 1)), ("coast", Hex(2, 1)), ("brake", Hex(2, 1))} <= then
    beside = rd.DirtCar(Hex(2, 0), gear=2)  # starts its turn beside it
    assert ("1", Hex(2, 1)) in {(s.die, s.to) for s in rd.dirt_steps(st, beside, (), traffic=traffic)}


# --------------------------------------------------------------------------- slides (RD-14)

SLIDE = {"slide": True}
TIGHT = {"limit": 2}


def _slide_track(n: int = 10) -> Track:
    """A slide zone of two spaces, (3, 1) in lane 2 and (4, 0) in lane 1 (neighbours: the zone's
    rear and front), before a corner of limit 2 in both lanes on (4, 1), (5, 0), (5, 1), (6, 0)."""
    return strip(n, c3_2=SLIDE, c4_1=SLIDE, c4_2=TIGHT, c5_1=TIGHT, c5_2=TIGHT, c6_1=TIGHT)


def _plans(st, car, depth: int = 4, traffic: rd.Traffic | None = None) -> set:
    """Every plan of up to `depth` dice from `car`, as ((cell, slide space), ...)."""
    traffic = traffic or rd.Traffic()
    out, stack = set(), [()]
    while stack:
        plan = stack.pop()
        for s in rd.dirt_steps(st, car, plan, traffic=traffic):
            nxt = plan + (s,)
            out.add(tuple((x.to, x.slide) for x in nxt))
            if len(nxt) < depth:
                stack.append(nxt)
    return out


def test_a_slide_zone_counts_as_two_spaces_across_the_track():
    track = _slide_track()
    zone = rd.slide_zones(track)[Hex(4, 0)]
    assert zone.halves == ((Hex(3, 1),), (Hex(4, 0),))  # behind the dotted line, beyond it
    st = stage(track)
    # entering: from either lane a car may slide into the zone's first space, or enter normally
    for frm in (Hex(3, 0), Hex(2, 1)):
        firsts = {(s.to, s.slide) for s in rd.dirt_steps(st, rd.DirtCar(frm, gear=1), ())}
        assert (Hex(3, 1), 1) in firsts
    # sliding, the first space leads only to the second, the second out of the zone to either lane
    assert {(s.to, s.slide) for s in rd.dirt_steps(st, rd.DirtCar(Hex(3, 1), gear=2, slide=1), ())} == {(Hex(4, 0), 2)}
    assert {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(4, 0), gear=2, slide=2), ())} == {Hex(5, 0), Hex(4, 1)}
    # entered normally, the lane is kept through the zone: no step from (3, 1) to (4, 0)
    assert {s.to for s in rd.dirt_steps(st, rd.DirtCar(Hex(3, 1), gear=2), ())} == {Hex(4, 1)}


def test_a_zone_of_four_spaces_slides_as_its_rear_and_front_pairs():
    track = strip(10, c3_1=SLIDE, c3_2=SLIDE, c4_1=SLIDE, c4_2=SLIDE)
    zone = rd.slide_zones(track)[Hex(3, 0)]
    assert zone.halves == ((Hex(3, 0), Hex(3, 1)), (Hex(4, 0), Hex(4, 1)))
    # a sliding car fills its half: the other space of the rear pair is taken too
    traffic = rd.Traffic(((Hex(3, 0), 3, False),), slides=((Hex(3, 0), 1),))
    assert Hex(3, 1) not in {s.to for s in rd.dirt_steps(stage(track), rd.DirtCar(Hex(2, 1), gear=3), (), traffic=traffic)}


def test_sliding_gives_a_space_more_to_brake_before_the_corner():
    st = stage(_slide_track())
    reach = _plans(st, rd.DirtCar(Hex(3, 0), gear=5), depth=3)
    into_corner = {p for p in reach if p[-1][0] in (Hex(5, 0), Hex(4, 1))}
    # from gear 5 the corner (limit 2) takes three dice down: only the slide has room for them
    assert into_corner == {((Hex(3, 1), 1), (Hex(4, 0), 2), (Hex(5, 0), 0)), ((Hex(3, 1), 1), (Hex(4, 0), 2), (Hex(4, 1), 0))}
    solved = sd.par(st)
    (slide,) = [f for f in sd.features(solved) if f["kind"] == "slide"]
    banned = sd.par(st, frozenset({Hex(3, 1), Hex(4, 0)}))
    assert slide["taken"] > 0.5 and banned.time > solved.time and slide["pays_off"]
    assert slide["saves_seconds"] == round(banned.time - solved.time, 3)


def test_a_sliding_car_is_followed_by_a_slide_never_passed():
    st = stage(_slide_track())
    ahead = rd.Traffic(((Hex(4, 0), 2, False),), slides=((Hex(4, 0), 2),))  # sliding, in the second space
    plans = _plans(st, rd.DirtCar(Hex(2, 0), gear=2), depth=3, traffic=ahead)
    zone = {Hex(3, 1), Hex(4, 0)}
    assert ((Hex(3, 0), 0), (Hex(3, 1), 1)) in plans  # it may slide in behind it
    assert not [p for p in plans if any(h in zone and sl == 0 for h, sl in p)]  # not enter normally
    assert not [p for p in plans if (Hex(4, 0), 2) in p]  # nor pass it in the slide
    normal = rd.Traffic(((Hex(4, 0), 2, False),))  # entered normally, in lane 1
    assert (Hex(3, 1), 1) not in {(s.to, s.slide) for s in rd.dirt_steps(st, rd.DirtCar(Hex(3, 0), gear=1), (), traffic=normal)}


def test_a_slide_in_the_race_keeps_the_car_across_the_track_to_its_next_turn():
    st = stage(_slide_track())
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(2, 0), gear=3, entered=True),))
    race = race.apply(rd.Place("coast", Hex(3, 0))).apply(rd.Place("2", Hex(3, 1), slide=True)).apply(rd.Roll()).apply((False, False))
    car = race.cars[0]
    assert (car.cell, car.gear, car.slide, car.time) == (Hex(3, 1), 2, 1, 40)
    assert set(race.legal_actions()) == {rd.Place(d, Hex(4, 0), slide=True) for d in ("1", "3", "coast", "leader", "brake")}
    race = race.apply(rd.Place("1", Hex(4, 0), slide=True)).apply(rd.Place("2", Hex(5, 0))).apply(rd.Roll()).apply((False, False))
    assert (race.cars[0].cell, race.cars[0].slide) == (Hex(5, 0), 0)


@pytest.mark.slow  # a long cross-check (python -m pytest -m slow)
def test_par_agrees_with_monte_carlo_on_a_track_with_a_slide():
    st = stage(_slide_track(9))
    solved = sd.par(st)
    assert solved.slid
    mean, half = _monte_carlo(st, solved, 600)
    assert abs(mean - solved.time) <= half, (mean, half, solved.time)


# --------------------------------------------------------------------------- start and order (RD-5, RD-6)


def test_staggered_start_order_for_four_players():
    st = stage(strip(30))
    race = rd.DirtRace.start(st, 4)
    orders = []
    while race.round <= 4:
        if race.slot == 0 and race.phase == rd.PLAN and not race.plan:
            orders.append(race.order)
            entered = [i for i, c in enumerate(race.cars) if c.entered]
            assert [race.cars[i].turns for i in entered] == list(range(race.round - 1, race.round - 1 - len(entered), -1))
        if race.phase == rd.PLAN and not race.plan:
            g = race.car.gear
            race = race.apply(rd.Place(str(g + 1), race.car.cell + Hex(1, 0)))
        elif race.phase == rd.PLAN:
            race = race.apply(rd.Roll())
        else:
            race = race.apply((False,))
    assert orders == [(0,), (0, 1), (0, 1, 2), (0, 1, 2, 3)]
    assert race.cars[3].turns == 1 and race.cars[0].turns == 4  # the rulebook's round 4


def test_order_of_play_distance_then_speed_then_inside_lane():
    st = stage(strip(10))
    cars = (rd.DirtCar(Hex(3, 0), gear=2, entered=True), rd.DirtCar(Hex(3, 1), gear=3, entered=True), rd.DirtCar(Hex(5, 0), gear=1, entered=True))
    assert rd.turn_order(st, cars) == (2, 1, 0)


# --------------------------------------------------------------------------- time cards (RD-12)


def test_time_cards_sisu_spin_crash():
    st = rd.DirtStage(strip(8), default("dirt"))
    base = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(2, 0), gear=5, entered=True),))
    lost = rd.replace(base, phase=rd.ICON, loss=(Hex(2, 0), 5), done=0)
    sisu = lost.apply("sisu").cars[0]
    assert (sisu.time, sisu.gear, sisu.cards[-1]) == (15, 0, (5, "sisu"))  # RD-21: its seconds, gear 0
    spin = lost.apply("spin").cars[0]
    assert (spin.time, spin.gear, spin.crashed) == (60, 0, False)
    crash = lost.apply("crash")
    assert crash.phase == rd.DAMAGE  # gear 5 on a yellow tile draws a damage token


def _expected_time(race: rd.DirtRace, act, memo: dict) -> float:
    """The exact expected stage time of the first car under the policy `act`: a walk of the
    engine's tree (every chance outcome with its probability, `act` at each decision)."""
    if race not in memo:
        if race.phase == rd.OVER:
            memo[race] = float(race.cars[0].time)
        elif outcomes := race.chance_outcomes():
            memo[race] = sum(float(q) * _expected_time(race.apply(o), act, memo) for o, q in outcomes)
        else:
            memo[race] = _expected_time(race.apply(act(race)), act, memo)
    return memo[race]


def test_a_sisu_restarts_in_gear_0_in_the_engine_and_in_the_par():
    """RD-21 (issue 34): "You start your next turn in the Gear shown on the card. (Normal
    Time, but Gear 0)", the card turned "to the side showing 'Gear 0'": a SISU counts the
    card's seconds and the car starts its next turn in gear 0 (it restarted in the gear of the
    loss). The par's programme continues a SISU from gear 0 as the engine does: its par time
    is the exact expected time of its policy played through the engine (an engine walk),
    on a strip with a corner where SISU, Spin and Crash all happen in gears 3 to 5."""
    st = stage(strip(6, c3_1={"limit": 3}, c3_2={"limit": 4}))
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(0, 0), gear=3, entered=True),))
    for die, to in (("4", Hex(1, 0)), ("5", Hex(2, 0)), ("coast", Hex(2, 1))):
        race = race.apply(rd.Place(die, to))
    race = race.apply(rd.Roll()).apply((True, True, True)).apply("sisu")  # three cautions: lost in gear 5
    car = race.cars[0]
    assert (car.cell, car.gear, car.time, car.cards) == (Hex(2, 1), 0, 15, ((5, "sisu"),))
    solved = sd.par(st)
    assert any(icon == rd.SISU for _g, icon in solved.cards)
    walked = _expected_time(rd.DirtRace.start(st, 1), sd.policy_for(solved), {})
    assert math.isclose(walked, solved.time, rel_tol=1e-12)
    assert math.isclose(solved.time, 21.048353909465, abs_tol=1e-9)


def test_a_turn_under_control_takes_the_card_of_its_gear():
    st = stage(strip(8))
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(1, 0), gear=3, entered=True),))
    race = race.apply(rd.Place("coast", Hex(2, 0))).apply(rd.Roll()).apply((False,))
    assert race.cars[0].time == 30 and race.cars[0].cards == ((3, None),)


def _limit_2_corner() -> rd.DirtStage:
    """Column 3 is a limit-2 corner; from (2, 1) both moves lead into it."""
    return rd.DirtStage(strip(8, c3_1={"limit": 2}, c3_2={"limit": 2}), default("dirt"))


def test_a_car_with_no_die_within_the_limits_goes_over_one_and_loses_control():
    """RD-17 (issue 34): in gear 6 before a limit-2 corner every die goes over the limit. The
    car must move forward ("You must always be moving forward"), so it places one die over the
    limit and loses control there ("Exceed this number and you will lose control!"). It was
    treated as blocked: the gear-6 card, gear 6 kept, the same again every turn."""
    st = _limit_2_corner()
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(2, 1), gear=6, entered=True),))
    corner = (Hex(3, 0), Hex(3, 1))
    steps = race.next_dice()
    assert {(s.die, s.to, s.gear) for s in steps} == {
        (die, h, gear) for die, gear in (("5", 5), ("brake", 5), ("coast", 6), ("leader", 6)) for h in corner
    }
    assert all(s.lose_always and s.last for s in steps) and rd.Roll() not in race.legal_actions()
    lost = race.apply(rd.Place("5", Hex(3, 1))).apply(rd.Roll()).apply((False,))
    assert lost.phase == rd.ICON and lost.loss == (Hex(3, 1), 5)  # no caution rolled: lost all the same
    spun = lost.apply("spin").cars[0]
    assert (spun.cell, spun.gear, spun.time, spun.cards) == (Hex(3, 1), 0, 60, ((5, "spin"),))
    # only a turn's first die goes over a limit: a plan never does
    car = rd.DirtCar(Hex(1, 1), gear=5, entered=True)
    six = next(s for s in rd.dirt_steps(st, car, ()) if (s.die, s.to) == ("6", Hex(2, 1)))
    assert rd.dirt_steps(st, car, (six,)) == ()
    # the simulation's driver, with no plan for this state, goes over in the lowest gear
    chosen = DirtDriver(sd.par(stage(st.track)), "careful")(race)
    assert next(s.gear for s in steps if rd.place_of(s) == chosen) == 5


def test_a_car_that_can_place_no_die_is_blocked_and_keeps_its_gear():
    """RD-17: cars on both spaces ahead: blocked ("They are blocked"), the card of its gear
    ("a Time card corresponding to their current Gear"), the gear kept."""
    st = _limit_2_corner()
    cars = (
        rd.DirtCar(Hex(2, 1), gear=6, entered=True),
        rd.DirtCar(Hex(3, 0), gear=1, entered=True),
        rd.DirtCar(Hex(3, 1), gear=1, entered=True),
    )
    race = rd.replace(rd.DirtRace.start(st, 3), cars=cars)
    assert race.turn == 0 and race.legal_actions() == (rd.Roll(),)
    car = race.apply(rd.Roll()).cars[0]
    assert (car.cell, car.gear, car.time, car.cards) == (Hex(2, 1), 6, 10, ((6, None),))


# --------------------------------------------------------------------------- the driver (RD-22)


def _pool(ruleset, **counts):
    """`ruleset` with its dashboards' dice counts replaced (a damaged pool as a box's own)."""
    boards = tuple(replace(b, dice=tuple((n, counts.get(n, c)) for n, c in b.dice)) for b in ruleset.dashboards)
    return replace(ruleset, dashboards=boards)


def test_a_damaged_cars_expected_time_stays_at_the_best_for_its_dice():
    """RD-22 (issue 34): after damage the driver found no solved plan for the car's state
    and played the lowest die each turn (single-car Lakeside races of 770-1370 s against a
    par of 126 s). Now it looks a turn ahead over the plans its own dice allow. The exact
    expected time of the driver (an engine walk) of a car that has lost every coast and
    leader die is the exact par of a box whose dashboard has none (the solve on that
    dashboard: no better policy exists); before, 230 s on this 6-column strip, par 21.05 s.
    With two gear dice lost it is at most the par of a dashboard without gear dice 5 and 6
    (one of the pools it may use) and at least the undamaged par."""
    st = stage(strip(6, c3_1={"limit": 3}, c3_2={"limit": 4}))
    solved = sd.par(st)
    start = rd.DirtRace.start(st, 1)

    def driven(*lost) -> float:
        race = replace(start, cars=(replace(start.cars[0], lost=lost),))
        return _expected_time(race, DirtDriver(solved), {})

    no_coast = sd.par(rd.DirtStage(st.track, _pool(st.ruleset, coast=0, leader=0), damage=False)).time
    assert math.isclose(driven(("coast", 3)), no_coast, rel_tol=1e-9)
    assert math.isclose(no_coast, 21.048353909465, rel_tol=1e-9)
    four_gears = sd.par(rd.DirtStage(st.track, _pool(st.ruleset, **{"5": 0, "6": 0}), damage=False)).time
    assert solved.time <= driven(("gear", 2)) <= four_gears + 1e-9
    assert math.isclose(four_gears, 23.693415637860, rel_tol=1e-9)


def test_a_state_the_par_never_reaches_is_solved_once_and_valued_exactly():
    """RD-24: a state the par's table lacks (a car alone never stands on (1, 1) in gear 6
    before this limit-3/4 corner) is valued by the par's programme solved from there once,
    every state it reaches kept: the driver's exact expected time from there (an engine
    walk) equals that value, and asking again solves nothing more."""
    st = stage(strip(6, c3_1={"limit": 3}, c3_2={"limit": 4}))
    solved = sd.par(st)
    state = (Hex(1, 1), 6, 0, 0)
    assert state not in solved.value
    look = Lookahead(solved)
    value = look.value(*state)
    race = replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(1, 1), gear=6, entered=True),))
    assert math.isclose(_expected_time(race, DirtDriver(solved, "par", look), {}), value, rel_tol=1e-12)
    assert math.isclose(value, 431 / 27, rel_tol=1e-12)
    assert look.solves == 1 and look.solved_states == len(look.known) - len(solved.value) > 0
    assert all(k not in solved.value for k in set(look.known) - set(solved.value))
    for k in set(look.known) - set(solved.value):
        look.value(*k)
    assert look.solves == 1


def test_the_drivers_work_in_a_race_is_one_turn_a_plan_and_each_state_once():
    """RD-24 (issue 34: a damaged car's lookahead solved the states the table lacks again and
    again, recursively, in Python; this 2-car Lakeside race took 19.8 s of CPU, Forest Stage's
    6-car races over 20 s). Counted, not timed: every plan the driver looks for is one turn of
    the par's programme alone (no recursion), solved twice more only where the cars about
    refuse its plan: as if they asked no gear of a die beside them (a bound) and as if they
    asked it of every such die (plans the engine allows: played, here once above the bound);
    every plan is one the engine allows; every state the table lacks is solved once, at most
    the track's states (cells x gears x coast dice lost x slide spaces)."""
    track = registry.load_spec("track_specs/rallyman/dirt_lakeside.yaml").model
    ruleset = ruleset_of(track)
    solved = sd.par(rd.DirtStage(track, ruleset, damage=False))
    look = Lookahead(solved)
    driver = DirtDriver(solved, "par", look)
    stage_ = rd.DirtStage(track, ruleset)

    def checked(state: rd.DirtRace):
        if state.phase == rd.PLAN and not state.plan and state.next_dice():
            plan, car, traffic = driver.plan_for(state), state.car, state.traffic(state.turn)
            assert plan and all(
                s in rd.dirt_steps(stage_, car, plan[:i], state.slot == 0, traffic) for i, s in enumerate(plan)
            )
        return driver(state)

    final = playout(rd.DirtRace.start(stage_, 2), checked, random.Random(4))
    assert all(c.finished for c in final.cars)
    looked = sum(1 for how, _plan in driver._plans.values() if how == "lookahead")
    assert look.turns == looked == 8 and look.programmes == 1 * 8 + 2 * 1 <= 3 * look.turns
    assert (look.strict, look.enumerated) == (1, 0)
    assert look.solves == 1 and look.solved_states == len(look.known) - len(solved.value) == 270
    st = solved.stage
    assert look.solved_states <= len(track.cells) * (st.top_gear + 1) * (sd._coast_dice(st) + 1) * 3


@pytest.mark.slow  # 6 s: a 13-column solve and six 4-car races (the damaged car's exact time stays in the default suite)
def test_every_state_a_race_reaches_gives_the_driver_a_plan_it_may_play():
    """RD-22: four cars with damage, mud and a shortcut, both ways of driving: at every turn
    the engine lets a car place a die, the driver's plan is not empty and the engine allows
    every die of it; its plans come from the solve or the lookahead (or go over a limit,
    RD-17), and the lookahead is needed (dice lost, traffic)."""
    extra = (Cell(Hex(3, -1), 0, 0, shortcut=2), Cell(Hex(4, -1), 0, 0, shortcut=2))
    track = strip(13, extra, c3_1={"limit": 3, "tile": 0}, c4_1={"limit": 3, "tile": 0}, c7_1={"limit": 2}, c7_2={"limit": 2}, c10_1={"limit": 2}, c10_2={"limit": 3})
    st = rd.DirtStage(track, default("dirt"))
    solved = sd.par(rd.DirtStage(track, default("dirt"), damage=False))
    found: dict[str, int] = {}
    for seed, mode in ((1, "par"), (2, "careful"), (3, "par"), (3, "careful"), (5, "par"), (5, "careful")):
        driver = DirtDriver(solved, mode)

        def checked(state: rd.DirtRace, driver=driver):
            if state.phase == rd.PLAN and not state.plan and state.next_dice():
                plan = driver.plan_for(state)
                car, traffic = state.car, state.traffic(state.turn)
                assert plan and all(
                    s in rd.dirt_steps(st, car, plan[:i], state.slot == 0, traffic) for i, s in enumerate(plan)
                )
            return driver(state)

        final = playout(rd.DirtRace.start(st, 4), checked, random.Random(seed))
        assert all(c.finished for c in final.cars)
        for how, n in driver.found.items():
            found[how] = found.get(how, 0) + n
    assert set(found) <= {"solved", "lookahead", "over", "blocked"} and found["lookahead"] > 0


# --------------------------------------------------------------------------- par against Monte Carlo


def _monte_carlo(st: rd.DirtStage, solved: sd.DirtPar, runs: int, seed: int = 7) -> tuple[float, float]:
    rng = random.Random(seed)
    act = sd.policy_for(solved)
    times = []
    for _ in range(runs):
        s = rd.DirtRace.start(st, 1)
        while not s.is_terminal():
            oc = s.chance_outcomes()
            if oc:
                r, acc = rng.random(), 0.0
                chosen = oc[-1][0]  # the last outcome when rounding leaves r above the sum
                for o, p in oc:
                    acc += float(p)
                    if r < acc:
                        chosen = o
                        break
                s = s.apply(chosen)
            else:
                s = s.apply(act(s))
        times.append(s.cars[0].time)
    mean = sum(times) / runs
    sd_ = math.sqrt(sum((t - mean) ** 2 for t in times) / (runs - 1))
    return mean, 2.576 * sd_ / math.sqrt(runs)


@pytest.mark.slow  # 4 s: the exact DIRT par against 600 seeded plays (the bundled tracks' too, in slow runs)
def test_par_agrees_with_monte_carlo_on_a_small_track():
    track = strip(9, _shortcut_track().cells[-2:], c3_1={"limit": 4}, c4_1={"limit": 4}, c5_2={"jump": 3}, c6_1={"water": True})
    st = stage(track)
    solved = sd.par(st)
    mean, half = _monte_carlo(st, solved, 600)
    assert abs(mean - solved.time) <= half, (mean, half, solved.time)


BUNDLED_DIRT = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "track_specs" / "rallyman").glob("*.yaml") if "variant: dirt" in p.read_text())


def test_every_bundled_dirt_track_is_checked_against_monte_carlo():
    assert BUNDLED_DIRT == ["dirt_forest_stage", "dirt_lakeside"]  # a new one joins the slow check below


@pytest.mark.slow
@pytest.mark.parametrize("name", BUNDLED_DIRT)
def test_par_agrees_with_monte_carlo_on_the_bundled_dirt_tracks(name):
    track = registry.load_spec(f"track_specs/rallyman/{name}.yaml").model
    st = stage(track)
    solved = sd.par(st)
    mean, half = _monte_carlo(st, solved, 1500)
    assert abs(mean - solved.time) <= half, (mean, half, solved.time)


@pytest.mark.slow  # a solve of each bundled DIRT track (the par's Monte Carlo check above solves them too)
@pytest.mark.parametrize("name", BUNDLED_DIRT)
def test_the_bundled_par_policies_never_take_the_water_with_a_gear_1_die_after_a_brake(name):
    """RD-20: the par's programme reads a die's moves apart from the dice before it, so it
    does not see the brake rule at the water. Over every state the par policy reaches on the
    bundled tracks (after a turn under control, or a loss of control in gear 0), no plan
    takes a water space with the gear-1 die after a brake die: their pars are the engine's."""
    track = registry.load_spec(f"track_specs/rallyman/{name}.yaml").model
    st = stage(track)
    solved = sd.par(st)
    seen, todo = set(), [solved.start]
    while todo:
        key = todo.pop()
        if key in seen or key not in solved.choice:
            continue
        seen.add(key)
        plan = solved.choice[key]
        for i, s in enumerate(plan):
            braked = any(st.ruleset.die(b.die).effect.value == "brake" for b in plan[:i])
            assert not (track.at(s.to).water and s.die == "1" and not s.stopped and braked), (key, plan)
        losses, ok = sd.plan_outcomes(st, plan)
        for s, q in zip(plan, losses):
            if q and not s.finishes:
                todo += [(s.to, 0, lost, s.slide) for lost in range(key[2], 4)]
        if ok and not plan[-1].finishes:
            todo += [(plan[-1].to, plan[-1].gear, lost, plan[-1].slide) for lost in range(key[2], 4)]
    assert len(seen) > 50


# --------------------------------------------------------------------------- the CLI

DIRT_SPEC = """\
game: rallyman
variant: dirt
name: Dirt Strip
surface: gravel
path:
  lanes: 2
  from: {q: 0, r: 0, heading: 0}
  segments:
    - straight 3
    - corner left limit 2/4
    - straight 4
"""


def test_analyze_and_simulate_a_dirt_track_through_the_cli(run, write):
    import json

    path = write(DIRT_SPEC)
    result = run("analyze", path, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["variant"] == "dirt" and "house values" in data["house_values"]
    (corner,) = data["corners"]
    assert corner["taken"] in ("inside", "outside") and corner["limits"] == {"1": 2, "2": 4}
    cards = data["par"]["time_cards"]
    assert math.isclose(sum(c["expected_seconds"] for c in cards), data["par"]["expected_seconds"], abs_tol=0.01 * len(cards))
    text = run("analyze", path)
    assert "Corners (the lane of the par policy):" in text.stdout
    assert "time cards expected per stage (their seconds sum to the par time):" in text.stdout
    one = run("simulate", path, "--seed", "3", "--cars", "4")
    assert one.exit_code == 0, one.output
    assert one.stdout == run("simulate", path, "--seed", "3", "--cars", "4").stdout
    assert "Round 1: order 1\n" in one.stdout and "Round 4: order" in one.stdout
    careful = run("simulate", path, "--seed", "3", "--driving", "careful", "--cars", "2")
    assert careful.exit_code == 0 and "one at a time" in careful.stdout and "LOST CONTROL" not in careful.stdout


def test_a_jump_that_the_par_policy_takes_pays_off():
    st = stage(strip(12, c4_1={"jump": 3}, c4_2={"jump": 3}))
    solved = sd.par(st)
    (jump,) = sd.features(solved)
    assert jump["kind"] == "jump" and jump["taken"] > 0.5
    banned = sd.par(st, frozenset({Hex(4, 0), Hex(4, 1)}))
    assert banned.time > solved.time and jump["pays_off"]
    assert jump["saves_seconds"] == round(banned.time - solved.time, 3)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: strip(12, c4_1={"jump": 3}, c4_2={"jump": 3}), id="jump"),
        # (4-8 s of CPU each: in slow runs)
        pytest.param(_shortcut_track, id="shortcut", marks=pytest.mark.slow),
        pytest.param(_slide_track, id="slide", marks=pytest.mark.slow),
    ],
)
def test_a_ban_is_priced_again_only_where_it_reaches_and_gives_the_full_solves_time_bit_for_bit(make):
    """`banned_time` keeps the values of the states that cannot reach a banned space (issue
    27's "keep what a ban leaves unchanged"): the time a whole solve with the ban gives, to the
    bit, for a jump, a shortcut and a slide zone, each banned alone, and all of a track's at once."""
    priced = 0
    for track in [make()]:
        st = stage(track)
        solved = sd.par(st)
        groups = [frozenset(c.hex for c in n.cells) for n in track.notes() if n.kind in ("shortcut", "jump", "slide")]
        assert groups, track.name
        for cells in [*groups, frozenset().union(*groups)]:
            assert sd.banned_time(solved, cells).hex() == sd.par(st, cells).time.hex(), (track.name, sorted(cells))
            priced += 1
    assert priced >= 2


OWN_CARDS = """\
ruleset:
  time_cards:
    loss_seconds: 90
    gears:
      "1": {seconds: 60, sisu: 1, spin: 1, crash: 1}
      "2": {seconds: 50, sisu: 1, spin: 1, crash: 1}
      "3": {seconds: 40, sisu: 1, spin: 1, crash: 1}
      "4": {seconds: 30, sisu: 1, spin: 1, crash: 1}
      "5": {seconds: 20, sisu: 1, spin: 1, crash: 1}
      "6": {seconds: 10, sisu: 1, spin: 1, crash: 1}
"""


def test_a_spec_gives_its_own_time_cards(run, write):
    import json

    path = write(DIRT_SPEC + OWN_CARDS)
    data = json.loads(run("analyze", path, "--format", "json").stdout)
    assert "time cards" not in (data["house_values"] or "")  # given whole: the user's own
    house = json.loads(run("analyze", write(DIRT_SPEC, "house.yaml"), "--format", "json").stdout)
    assert "time cards" in house["house_values"] and data["par"]["expected_seconds"] > house["par"]["expected_seconds"]
    bad = run("validate", write(DIRT_SPEC + "ruleset:\n  time_cards:\n    loss_seconds: 0\n", "bad.yaml"))
    assert bad.exit_code == 1 and "bad.yaml:14:19: error: the seconds of a spin or crash must be between 1 and 999, got 0" in bad.output


def test_order_of_play_ties_go_to_the_inside_lane_of_the_next_corner():
    from sheetgen.games.rallyman.spec import load
    from sheetgen.yamlsrc import load_text

    track = load(load_text(DIRT_SPEC, "strip.yaml"))
    (corner,) = track.corners()
    assert corner.turn == "left"
    steps = track.steps()
    level = [c for c in track.cells if steps[c.hex] == 1]
    assert sorted(c.lane for c in level) == [1, 2]
    outside, inside = sorted(level, key=lambda c: -c.lane)
    cars = (rd.DirtCar(outside.hex, gear=2, entered=True), rd.DirtCar(inside.hex, gear=2, entered=True))
    assert rd.turn_order(stage(track), cars) == (1, 0)  # lane 1 is the inside of a left corner


def test_one_at_a_time_second_tokens_secure_a_die_and_a_stop_ends_the_move():
    st = stage(strip(10))
    car = rd.DirtCar(Hex(2, 0), gear=2, entered=True, seconds_tokens=1)
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(car,))
    race = race.apply(rd.Place("3", Hex(3, 0))).apply(rd.Place("4", Hex(4, 0))).apply(rd.Roll("one"))
    assert set(race.legal_actions()) == {rd.Roll("one"), rd.Secure()}  # no stop before the first die
    race = race.apply(rd.Secure())  # costs the one token: the die shows no caution
    assert race.car.seconds_tokens == 0 and race.done == 1 and race.cautions == 0
    assert set(race.legal_actions()) == {rd.Roll("one"), rd.Stop()}  # the second would cost 2 more
    race = race.apply(rd.Stop())
    assert race.cars[0].cell == Hex(3, 0) and race.cars[0].gear == 3 and race.cars[0].time == 30


def test_flat_out_earns_second_tokens_by_gear_coast_and_leader_dice():
    st = stage(strip(10))
    race = rd.replace(rd.DirtRace.start(st, 1), cars=(rd.DirtCar(Hex(1, 0), gear=2, entered=True),))
    for die, to in (("3", Hex(2, 0)), ("coast", Hex(3, 0)), ("leader", Hex(4, 0)), ("brake", Hex(5, 0))):
        race = race.apply(rd.Place(die, to))
    race = race.apply(rd.Roll()).apply((False, False, False, False))
    assert race.cars[0].seconds_tokens == 3 and race.cars[0].gear == 2  # the brake earns none


# --------------------------------------------------------------------------- one engine, two variants


def test_one_engine_reads_the_variant_object_of_the_tracks_variant():
    from sheetgen.games.rallyman import rules

    dirt = strip(8)
    gt = Track("gt", Variant.GT, dirt.cells)
    assert rules.rules_for(dirt) is rd.DIRT_RULES and stage(dirt).rules is rd.DIRT_RULES
    assert rules.rules_for(gt) is rules.GT_RULES and rules.Stage(gt, default("gt")).rules is rules.GT_RULES
    with pytest.raises(rules.RulesError, match="plays Rallyman DIRT tracks"):
        rd.DirtStage(gt, default("dirt"))
    # the shared order of play with each variant's key: GT speed first, DIRT distance first
    ahead, behind = Hex(5, 0), Hex(3, 0)
    gt_cars = (rules.CarState(ahead, gear=1), rules.CarState(behind, gear=3))
    assert rules.turn_order(rules.Stage(gt, default("gt")), gt_cars) == (1, 0)
    dirt_cars = (rd.DirtCar(ahead, gear=1, entered=True), rd.DirtCar(behind, gear=3, entered=True))
    assert rules.turn_order(stage(dirt), dirt_cars) == (0, 1)
    # the shared limit rule: mud lowers a DIRT corner, never a GT one
    corner = Cell(Hex(0, 0), 0, 1, limit=4, tile=0)
    assert rd.DIRT_RULES.limit(dirt, corner, ((0, 1),), 0) == 3 and rules.GT_RULES.limit(gt, corner, ((0, 1),), 0) == 4


def test_the_par_time_is_the_expected_time_of_its_time_cards():
    track = strip(9, _shortcut_track().cells[-2:], c3_1={"limit": 4}, c4_1={"limit": 4}, c5_2={"jump": 3}, c6_1={"water": True})
    st = stage(track)
    solved = sd.par(st)
    assert math.isclose(sum(n * sd.card_seconds(st, card) for card, n in solved.cards.items()), solved.time, abs_tol=1e-6)
    assert math.isclose(sum(solved.cards.values()), solved.expected_turns, abs_tol=1e-9)  # one card a turn
    losses = sum(n for (_g, icon), n in solved.cards.items() if icon)
    assert math.isclose(losses, sum(solved.danger.values()), abs_tol=1e-9)
    shares = {icon: sum(n for (_g, i), n in solved.cards.items() if i == icon) / losses for icon in (rd.SISU, rd.SPIN, rd.CRASH)}
    assert [round(shares[i], 9) for i in (rd.SISU, rd.SPIN, rd.CRASH)] == [0.2, 0.3, 0.5]  # the deck's house shares
    rows = sd.time_cards(solved)
    assert rows[0]["icon"] is None and rows[-1]["icon"] == rd.CRASH and rows[-1]["seconds_each"] == 60


def _dirt_path(cells: int) -> str:
    """A two-lane DIRT stage of straights: `cells` cells (an even number)."""
    columns = cells // 2
    segments = ", ".join(f"straight {n}" for n in [40] * (columns // 40) + ([columns % 40] if columns % 40 else []))
    return f"game: rallyman\nvariant: dirt\nname: Long\nsurface: gravel\npath:\n  lanes: 2\n  from: {{q: 0, r: 0, heading: 0}}\n  segments: {segments}\n"


def test_a_dirt_track_too_large_for_the_exact_solve_is_refused_at_once(run, write):
    """Over solve_dirt.MAX_DIRT_SIZE cells, analyze and simulate say so (at the spec's `game:`)
    before solving anything; at the limit the track is solved; its printout works at any size."""
    assert sd.MAX_DIRT_SIZE == 180
    at_limit = registry.load_spec(write(_dirt_path(180), "limit.yaml"))
    assert len(at_limit.model.cells) == 180 and sd.too_large(at_limit.model) is None
    long = write(_dirt_path(182), "long.yaml")
    line = (
        f"{long}:1:7: error: a DIRT track of 182 cells is too large for the exact par solve (at most 180 cells: "
        "its analysis would take over 10 s of CPU); its printouts and `sheetgen odds` work at any size\n"
    )
    for args in (["analyze", long], ["simulate", long, "--seed", "1"]):
        result = run(*args)
        assert (result.exit_code, result.stderr, result.stdout) == (1, line, ""), args
    pdf = long.replace(".yaml", ".pdf")
    assert run("render", long, "-o", pdf).exit_code == 0 and open(pdf, "rb").read(5) == b"%PDF-"
