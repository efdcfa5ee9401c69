"""Rallytaire race generator: proposal and check.

A stage is proposed the way the original race sheets are drawn: straights of 5-10 spaces
between corners, a planning zone of 4-8 spaces before each corner, chicanes and groups of
corners that share one zone, a bend straight into a hairpin, hairpins at the end of long
straights, fast kinks on the open road; and only where a car can arrive too fast for them.
Each proposal is then checked, and only kept when

- it is valid (`spec.validate_stage`);
- the exact solver (`solve.analyze_stage`) puts it in the requested difficulty band;
- it prints on the race sheet, A4 and Letter alike, two stages a page (`RaceSheetFit`: the
  renderer's own page plan, `sheet.plan_race`; the whole race goes through it once more at the
  end, so that a race of four stages prints on one sheet, front and back), every planning
  zone in a lane of its own and no zone line through a gear label, N or D box or zone mark
  (a serpentine that can only place a mark on a line is proposed again).

Every random choice comes from ``random.Random(seed)`` (each stage from its own generator
seeded from it), never from the global generator or ``hash()``, so the same seed and options
give the same race. A stage gets a bounded number of proposals, each leaning harder or easier
the way the previous one missed; when none passes, a `GenerateError` says what failed.

Difficulty bands (`BANDS`) are defined on three exact figures of the solver:

- delay: (par time - par time of a straight stage as long) / length, seconds per space: what
  the corners cost the best player (par time per space alone would rate every short stage
  hard, because the standing start weighs more on it);
- daring: (cautious time - par time) / par time, what daring is worth (the careful player
  never picks a gear that any dice roll could crash with);
- crash: the chance of at least one crash under optimal play.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from sheetgen import solvers
from sheetgen.errors import SheetgenError
from sheetgen.games.rallytaire import SPACE_MM
from sheetgen.games.rallytaire.model import BASE_SPEED, MAX_GEAR, Corner, Race, Stage, Surface, Turn
from sheetgen.games.rallytaire.solve import StageAnalysis, analyze_stage
from sheetgen.games.rallytaire.spec import MAX_LENGTH, MAX_STAGES, MIN_LENGTH, validate_stage

DIFFICULTIES = ("easy", "medium", "hard")
DEFAULT_STAGES = 4
DEFAULT_LENGTH = (40, 70)
#: Proposals tried per stage before giving up.
ATTEMPTS_PER_STAGE = 60
#: How far a missed proposal leans the next ones (see `propose_corners`).
TILT_STEP = 0.5
#: Stages in the band that may fail to fit on the sheet before a stage is given up.
SHEET_GIVE_UP = 10
#: Times the race-level page check may send a stage back to be proposed again.
RACE_RETRIES = 6
#: the longest stage the generator makes (a spec may hold up to MAX_LENGTH): longer stages
#: seldom fit on the race sheet and laying one out takes seconds a try, so that a request for
#: them took up to a minute to be refused
GENERATE_MAX_LENGTH = 160
#: the most spaces a generated race may ask for in all (stages x MAX of --length): generating
#: costs about 9 ms of CPU a space (laying each try out on the race sheet), and `--render` adds
#: the sheet, so that 8 stages of 150 spaces took 45 s with the sheet's advanced figures and
#: would still take over 10 s without them (issue 33); at 640 about 6 s with the sheet
GENERATE_MAX_SPACES = 640


class GenerateError(SheetgenError):
    """The requested race cannot be generated (the constraints cannot all be met)."""


# --------------------------------------------------------------------------- difficulty bands


@dataclass(frozen=True)
class Figures:
    """The solver's figures a band is defined on (see the module docstring)."""

    delay: float  # (par time - par time of a straight stage as long) / length, s per space
    daring: float  # (cautious time - par time) / par time
    crash: float  # P(at least one crash) under optimal play


@dataclass(frozen=True)
class Band:
    """A difficulty band: each figure in [low, high), high None for no upper bound."""

    name: str
    delay: tuple[float, float | None]
    daring: tuple[float, float | None]
    crash: tuple[float, float | None]

    def contains(self, f: Figures) -> bool:
        return all(
            lo <= value and (hi is None or value < hi)
            for value, (lo, hi) in ((f.delay, self.delay), (f.daring, self.daring), (f.crash, self.crash))
        )


BANDS: dict[str, Band] = {
    # flowing roads: corners cost a little (but some), careful driving loses little, crashes
    # are rare
    "easy": Band("easy", delay=(0.15, 0.45), daring=(0.0, 0.03), crash=(0.0, 0.06)),
    # the bundled races' everyday stages
    "medium": Band("medium", delay=(0.45, 0.85), daring=(0.0, 0.06), crash=(0.0, 0.25)),
    # slow, twisty and biting: even the best player crashes now and then, and daring pays
    "hard": Band("hard", delay=(0.85, None), daring=(0.008, None), crash=(0.04, 0.35)),
}


@functools.cache
def straight_par(length: int) -> float:
    """Par time of a stage of `length` spaces without corners (the surface does not matter in
    the basic game)."""
    return analyze_stage(Stage("straight", Surface.ASPHALT, length)).par_time


def figures(analysis: StageAnalysis) -> Figures:
    return Figures(
        delay=(analysis.par_time - straight_par(analysis.length)) / analysis.length,
        daring=(analysis.cautious_time - analysis.par_time) / analysis.par_time,
        crash=analysis.crash_probability,
    )


def stage_difficulty(analysis: StageAnalysis) -> str | None:
    """The band a solved stage falls in: 'easy', 'medium', 'hard', or None when in none."""
    f = figures(analysis)
    for name in DIFFICULTIES:
        if BANDS[name].contains(f):
            return name
    return None


# --------------------------------------------------------------------------- proposals


@dataclass(frozen=True)
class _Profile:
    """How a difficulty draws its stages (the band check has the last word)."""

    features: tuple[tuple[str, float], ...]  # feature -> weight
    gears: tuple[tuple[int, float], ...]  # gear of a single corner -> weight
    gap: tuple[int, int]  # straight before an ordinary feature, spaces
    zone: tuple[int, int]  # planning zone length of a single corner, spaces
    hairpin: tuple[tuple[int, float], ...] = ((1, 1.0),)  # gear of a hairpin -> weight
    tilt: float = 0.0  # where the adaptive tilt starts (see `propose_corners`)


PROFILES: dict[str, _Profile] = {
    "easy": _Profile(
        features=(
            ("corner", 5.0),
            ("kink", 1.5),
            ("chicane", 1.0),
            ("esses", 1.0),
            ("hairpin", 0.6),
            ("switchback", 0.0),
        ),
        gears=((1, 0.2), (2, 1.0), (3, 3.0), (4, 3.0), (5, 1.5)),
        gap=(6, 10),
        zone=(5, 8),
        hairpin=((1, 0.4), (2, 0.6)),
        tilt=-1.0,
    ),
    "medium": _Profile(
        features=(
            ("corner", 5.0),
            ("kink", 1.5),
            ("chicane", 1.5),
            ("esses", 1.0),
            ("hairpin", 1.2),
            ("switchback", 0.8),
        ),
        gears=((1, 0.6), (2, 2.0), (3, 3.0), (4, 2.5), (5, 1.0)),
        gap=(5, 10),
        zone=(4, 8),
        tilt=-0.8,
    ),
    "hard": _Profile(
        features=(
            ("corner", 4.0),
            ("kink", 1.0),
            ("chicane", 2.0),
            ("esses", 1.0),
            ("hairpin", 2.0),
            ("switchback", 1.5),
        ),
        gears=((1, 1.2), (2, 3.0), (3, 3.0), (4, 1.5), (5, 0.6)),
        gap=(5, 9),
        zone=(4, 7),
        tilt=1.0,
    ),
}


#: How each surface leans: fast open gravel, mountain asphalt with hairpins, slow twisty snow.
_SURFACE_FEATURES = {
    Surface.ASPHALT: {"hairpin": 1.3, "switchback": 1.5, "kink": 0.8},
    Surface.GRAVEL: {"kink": 1.6, "esses": 1.3, "hairpin": 0.8, "switchback": 0.6},
    Surface.SNOW: {"chicane": 1.3, "kink": 0.7},
}


#: Features that make a stage harder (positive) or easier (negative) when the tilt leans.
_FEATURE_TILT = {"hairpin": 1.0, "switchback": 1.0, "chicane": 0.5, "kink": -1.0}


def _flavour(profile: _Profile, surface: Surface, tilt: float = 0.0) -> _Profile:
    """The profile as the surface leans it, tilted harder (tilt > 0) or easier (tilt < 0):
    lower gears and tighter features weigh more as the tilt grows."""
    lean = _SURFACE_FEATURES[surface]
    return replace(
        profile,
        features=tuple(
            (k, w * lean.get(k, 1.0) * math.exp(0.4 * tilt * _FEATURE_TILT.get(k, 0.0))) for k, w in profile.features
        ),
        gears=tuple((g, w * math.exp(-0.4 * tilt * (g - 3))) for g, w in profile.gears),
    )


_T = TypeVar("_T")


def _pick(rng: random.Random, weighted: Sequence[tuple[_T, float]]) -> _T:
    items = [item for item, w in weighted if w > 0]
    weights = [w for _, w in weighted if w > 0]
    return rng.choices(items, weights=weights)[0]


def _other(turn: Turn) -> Turn:
    return Turn.RIGHT if turn is Turn.LEFT else Turn.LEFT


@dataclass(frozen=True)
class _Feature:
    gap: int  # spaces from the previous corner line (or the start) to the first corner line
    offsets: tuple[int, ...]  # of each corner line from the first
    gears: tuple[int, ...]
    alternate: bool  # turns alternate within the feature (chicane, esses)
    zone: int  # spaces of the planning zone before the first corner (shared by all)
    shared: bool  # one zone for every corner of the feature


def _feature(rng: random.Random, kind: str, profile: _Profile) -> _Feature:
    lo, hi = profile.gap
    zlo, zhi = profile.zone
    if kind == "corner":
        gear = _pick(rng, profile.gears)
        return _Feature(rng.randint(lo, hi), (0,), (gear,), False, rng.randint(zlo, zhi), False)
    if kind == "kink":  # a fast bend on the open road, seen from afar
        gear = rng.choice((4, 4, 5))
        return _Feature(rng.randint(max(lo, 8), hi + 6), (0,), (gear,), False, rng.randint(zlo, zhi), False)
    if kind == "chicane":  # left-right (or right-left) a few spaces apart, planned together
        gear = rng.choice((2, 3, 3, 4))
        second = max(1, min(5, gear + rng.choice((-1, 0, 0, 0, 1))))
        return _Feature(rng.randint(lo, hi), (0, rng.randint(2, 4)), (gear, second), True, rng.randint(zlo, zhi), True)
    if kind == "esses":  # three linked bends under one zone
        gears = tuple(rng.choice((3, 3, 4, 4, 2)) for _ in range(3))
        a = rng.randint(3, 4)
        b = a + rng.randint(3, 4)
        return _Feature(rng.randint(lo, hi), (0, a, b), gears, True, rng.randint(zlo, zhi), True)
    if kind == "hairpin":  # the end of a long straight
        gear = _pick(rng, profile.hairpin)
        return _Feature(rng.randint(12, 20), (0,), (gear,), False, rng.randint(max(zlo, 6), max(zhi, 8)), False)
    if kind == "switchback":  # a bend straight into a hairpin: one zone for both
        first = rng.choice((2, 2, 3))
        return _Feature(
            rng.randint(lo, hi), (0, rng.randint(3, 5)), (first, 1), True, rng.randint(max(zlo, 5), zhi), True
        )
    raise ValueError(f"unknown feature {kind!r}")


def _reachable_gear(previous: int, distance: int) -> int:
    """The highest gear a car can be in before a corner line `distance` spaces after the
    previous corner of gear `previous` (0: the start line), shifting up every turn and
    moving the least the dice allow: a corner bites only if its gear is below this."""
    gear = previous + 1
    while gear < MAX_GEAR and distance >= BASE_SPEED[gear]:
        distance -= BASE_SPEED[gear]
        gear += 1
    return gear


def propose_corners(
    rng: random.Random, length: int, difficulty: str, surface: Surface = Surface.ASPHALT, tilt: float = 0.0
) -> tuple[Corner, ...]:
    """Corners for a stage of `length` spaces, drawn as features along the road; `tilt` leans
    the draw harder (> 0) or easier (< 0). At least one corner per 10 spaces (the original
    sheets have one every 5-10): a sparser draw is drawn again."""
    profile = _flavour(PROFILES[difficulty], surface, tilt)
    need = length // 10
    for _ in range(20):
        corners = _draw(rng, length, profile)
        if len(corners) >= need:
            break
    return corners


def _draw(rng: random.Random, length: int, profile: _Profile) -> tuple[Corner, ...]:
    corners: list[Corner] = []
    last = 0  # the previous corner line (0: the start line)
    finish_run = min(rng.randint(3, 9), 2 + length // 8)  # short stages keep room for corners
    turn = rng.choice((Turn.LEFT, Turn.RIGHT))
    previous_kind = None
    while True:
        room = length - finish_run - last
        kind = _pick(rng, profile.features)
        if kind == previous_kind == "hairpin":  # one long straight at a time
            kind = "corner"
        previous_kind = kind
        f = _feature(rng, kind, profile)
        if f.gap + f.offsets[-1] > room:
            # the feature does not fit before the finish: one more plain corner, if any fits
            if room < profile.gap[0]:
                break
            f = _feature(rng, "corner", profile)
            f = replace(f, gap=min(f.gap, room))
        first = last + f.gap
        zone_len = min(f.zone, f.gap)  # a zone starts after the previous corner line
        zone = first - zone_len + 1
        if rng.random() < 0.65:
            turn = _other(turn)
        t = turn
        previous_after = last
        for k, (offset, gear) in enumerate(zip(f.offsets, f.gears)):
            after = first + offset
            if k > 0 and f.alternate:
                t = _other(t)
            if f.shared:
                z = zone
            else:
                z = max(previous_after + 1, after - zone_len + 1)
            reachable = _reachable_gear(corners[-1].gear if corners else 0, after - previous_after)
            if reachable < MAX_GEAR:  # a corner nobody can reach too fast is no corner at all
                gear = min(gear, reachable - 1)  # (a 5th-gear kink at full speed is scenery)
            corners.append(Corner(after=after, gear=gear, zone=z, turn=t))
            previous_after = after
        turn = t
        last = first + f.offsets[-1]
    return tuple(corners)


# --------------------------------------------------------------------------- names and surfaces

#: Invented place names in the style of each surface's classic rallies: (prefixes, first
#: syllables, endings). Stage names are "SS<n> <place>", race names "<place> Rally".
_PLACES: dict[Surface, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    Surface.ASPHALT: (
        ("Col de ", "Col de ", "Route de ", "Pont de ", "Mont ", "Val ", "", ""),
        ("Sa", "Ve", "Lo", "Ri", "Be", "Ta", "Mo", "Ga", "Ca", "Ti", "Pe", "Vi", "Bra", "Tu", "Esca"),
        ("renne", "lette", "gnac", "rolles", "zzano", "ssel", "brac", "lin", "tour", "mont", "rini", "nosc"),
    ),
    Surface.GRAVEL: (
        ("", "", "", "", "Ano ", "Kato "),
        ("Jy", "Ou", "Pa", "Ha", "Ruu", "Ki", "Mä", "La", "Lo", "Ko", "Pe", "Vaa", "Ta", "Sa", "Hi"),
        (
            "vaskylä",
            "ninpohja",
            "ijala",
            "himaki",
            "kkola",
            "ntaus",
            "holahti",
            "rvela",
            "ssini",
            "litsa",
            "ssala",
            "ikkala",
        ),
    ),
    Surface.SNOW: (
        ("", "", "", "Norra ", "Södra ", "Övre "),
        ("Vä", "Ha", "Sa", "To", "Bi", "Mo", "Fa", "Ry", "Kö", "Lju", "Ni", "Sve", "Öst", "Tra"),
        (
            "rmland",
            "gfors",
            "lsjön",
            "rsby",
            "rkeberg",
            "lnas",
            "ttjärn",
            "dalen",
            "hammar",
            "vallen",
            "berget",
            "rsta",
        ),
    ),
}
_RACE_WORDS = ("Rally", "Rally", "Rallye", "Classic", "Stages", "Trophy")


def place_name(rng: random.Random, surface: Surface) -> str:
    prefixes, firsts, endings = _PLACES[surface]
    return rng.choice(prefixes) + rng.choice(firsts) + rng.choice(endings)


def plan_surfaces(rng: random.Random, count: int, allowed: Sequence[Surface]) -> list[Surface]:
    """One main surface with others mixed in; at least two kinds when two are allowed."""
    main = rng.choice(list(allowed))
    chosen = [main if rng.random() < 0.6 else rng.choice(list(allowed)) for _ in range(count)]
    if count >= 2 and len(allowed) >= 2 and len(set(chosen)) == 1:
        others = [s for s in allowed if s is not chosen[0]]
        chosen[rng.randrange(1, count)] = rng.choice(others)
    return chosen


def service_parks(count: int) -> tuple[bool, ...]:
    """After which stages a service park stands: none on races of one or two stages, one in
    the middle of three to five, two splitting six to eight into thirds; never after the last."""
    if count <= 2:
        at: set[int] = set()
    elif count <= 5:
        at = {(count + 1) // 2}
    else:
        at = {round(count / 3), round(2 * count / 3)}
    return tuple(i + 1 in at and i + 1 < count for i in range(count))


# --------------------------------------------------------------------------- the sheet check


class RaceSheetFit:
    """Does a stage print well where the race sheet will print it?

    The check is the race sheet's own page plan (`sheet.plan_race` with the built-in
    race_sheet template), which the renderer draws: its pages and tracks are the same on A4 and
    on Letter, so what is checked is what is printed on either paper. `stage` is a quick first
    check: a stage of up to `sheet.PAIR_LENGTH` spaces must fit the track height that two stages
    sharing a page with the time table each get (`sheet.pair_track_height`), so that any four
    such stages print on one sheet; a longer one must fit alone on a page. `race` is the real
    one: the plan of the whole race on `sheet.pages_wanted` pages.
    """

    def __init__(self, template: str = "race_sheet"):
        from sheetgen.games.rallytaire import sheet
        from sheetgen.template import MM

        self._sheet = sheet
        self._template = _race_template(template)
        self._page_h = self._template.page_size()[1] / MM
        self._pair_h = sheet.pair_track_height(self._template)

    def box(self, first_page: bool) -> tuple[float, float]:
        """(width, height) of the track of a stage alone on a page, mm, on every paper."""
        return self._sheet.track_box(self._template, first_page)

    def stage(self, stage: Stage, index: int) -> bool:
        """Does stage `index` of a race print well: two a page when it is no longer than
        `sheet.PAIR_LENGTH` spaces, else alone on its page (page 1 for the first stage)?"""
        from sheetgen.games.rallytaire.layout import LayoutError, layout_stage, needed_height

        width, height = self.box(index == 0)
        least = min(self._sheet.MIN_SPACE_MM, self._template.size(SPACE_MM))
        if stage.length <= self._sheet.PAIR_LENGTH:
            need = needed_height(stage, width, least)
            if need is None or need > self._pair_h + 1e-9:
                return False
            height = self._pair_h
        try:
            lay = layout_stage(stage, width, height, space_mm=self._template.size(SPACE_MM), min_space_mm=least)
        except LayoutError:
            return False
        # every planning zone in a lane of its own, and no zone line through a mark
        return not lay.shared_lanes and not lay.marks_on_lines

    def race(self, race: Race) -> int | None:
        """Index of a stage to propose again because the race does not print on the pages it
        should (`sheet.pages_wanted`, when every stage is no longer than `sheet.PAIR_LENGTH`), a
        stage's planning zones share a lane or a zone line runs through a mark, None when it
        prints well."""
        from sheetgen.games.rallytaire.layout import LayoutError, needed_height

        try:
            plan = self._sheet.plan_race(race, self._template, self._page_h)
        except LayoutError as exc:
            assert exc.stage_index is not None, "plan_race names the stage that did not fit"
            return exc.stage_index
        for page in plan.pages:
            for placed in page:
                if placed.layout.shared_lanes or placed.layout.marks_on_lines:
                    return placed.index
        if all(s.length <= self._sheet.PAIR_LENGTH for s in race.stages) and plan.page_count > self._sheet.pages_wanted(
            len(race.stages)
        ):
            width = self.box(False)[0]
            return max(
                range(len(race.stages)),
                key=lambda i: needed_height(race.stages[i], width, self._sheet.MIN_SPACE_MM) or 0.0,
            )
        return None


@functools.lru_cache(maxsize=8)
def _race_template(name: str):
    """A built-in template, read once per process (a generated race checks it many times)."""
    from sheetgen.template import load_template

    return load_template(name)


# --------------------------------------------------------------------------- generation


def _parse_surfaces(surfaces: Sequence[Surface | str] | None) -> tuple[Surface, ...]:
    if not surfaces:
        return tuple(Surface)
    chosen: list[Surface] = []
    for s in surfaces:
        try:
            surface = Surface(s)
        except ValueError:
            raise GenerateError(
                f"unknown surface {s!r} (expected one of: {', '.join(x.value for x in Surface)})"
            ) from None
        if surface not in chosen:
            chosen.append(surface)
    return tuple(s for s in Surface if s in chosen)  # one order: the same set, the same race


def _check_options(stages: int, length: tuple[int, int], difficulty: str) -> None:
    if difficulty not in DIFFICULTIES:
        raise GenerateError(f"unknown difficulty {difficulty!r} (expected one of: {', '.join(DIFFICULTIES)})")
    if not 1 <= stages <= MAX_STAGES:
        raise GenerateError(f"a race has 1 to {MAX_STAGES} stages, got {stages}")
    lo, hi = length
    if not MIN_LENGTH <= lo <= hi <= GENERATE_MAX_LENGTH:
        raise GenerateError(
            f"stage length must be MIN..MAX with {MIN_LENGTH} <= MIN <= MAX <= {GENERATE_MAX_LENGTH}, got {lo}..{hi}"
            + (
                f" (a spec may hold stages of up to {MAX_LENGTH} spaces, but a generated stage longer than "
                f"{GENERATE_MAX_LENGTH} seldom fits on the race sheet, and each try to lay one out takes seconds)"
                if GENERATE_MAX_LENGTH < hi <= MAX_LENGTH
                else ""
            )
        )
    if stages * hi > GENERATE_MAX_SPACES:
        raise GenerateError(
            f"a generated race has at most {GENERATE_MAX_SPACES} spaces in all (stages x the longest stage asked), "
            f"got {stages} x {hi} = {stages * hi}; ask for fewer stages or a lower MAX"
        )


@dataclass
class _Tally:
    """Why proposals were turned down, for the error message."""

    proposals: int = 0
    band: int = 0
    sheet: int = 0
    sparse: int = 0
    closest: Figures | None = None
    distance: float = math.inf


def _direction(band: Band, f: Figures) -> int:
    """+1 when figures are too easy for the band, -1 when too hard."""
    if f.delay < band.delay[0]:
        return 1
    if band.delay[1] is not None and f.delay >= band.delay[1]:
        return -1
    if band.crash[1] is not None and f.crash >= band.crash[1]:
        return -1
    if band.daring[1] is not None and f.daring >= band.daring[1]:
        return -1
    return 1


def _distance(band: Band, f: Figures) -> float:
    """How far figures are outside a band (0 inside), each figure scaled by a typical size."""
    total = 0.0
    for value, (lo, hi), scale in (
        (f.delay, band.delay, 0.2),
        (f.daring, band.daring, 0.01),
        (f.crash, band.crash, 0.03),
    ):
        if value < lo:
            total += (lo - value) / scale
        elif hi is not None and value >= hi:
            total += (value - hi) / scale
    return total


def generate_stage(
    rng: random.Random,
    name: str,
    surface: Surface,
    length: tuple[int, int],
    difficulty: str,
    fits: Callable[[Stage], bool] | None = None,
    *,
    attempts: int = ATTEMPTS_PER_STAGE,
) -> tuple[Stage, StageAnalysis]:
    """Propose stages until one is valid, in the band and fits the sheet (`fits`)."""
    band = BANDS[difficulty]
    tally = _Tally()
    tilt = PROFILES[difficulty].tilt
    for _ in range(attempts):
        tally.proposals += 1
        spaces = rng.randint(*length)
        stage = Stage(
            name=name, surface=surface, length=spaces, corners=propose_corners(rng, spaces, difficulty, surface, tilt)
        )
        if validate_stage(stage):  # a bug in the proposals, never the user's doing
            raise AssertionError(f"invalid proposal {stage!r}: {validate_stage(stage)}")
        if len(stage.corners) < spaces // 10:  # see propose_corners
            tally.sparse += 1
            continue
        analysis = analyze_stage(stage)
        f = figures(analysis)
        if not band.contains(f):
            tally.band += 1
            # lean the next proposals the way this one missed
            tilt = max(-3.0, min(3.0, tilt + TILT_STEP * _direction(band, f)))
            d = _distance(band, f)
            if d < tally.distance:
                tally.distance, tally.closest = d, f
            continue
        if fits is not None and not fits(stage):
            tally.sheet += 1
            if tally.sheet >= SHEET_GIVE_UP:  # the length is too long for the page: stop early
                break
            continue
        return stage, analysis
    raise GenerateError(_failure(difficulty, length, tally))


#: how a failure to generate ends, in the command line's words (a season's `generate:` entry
#: says it in its own keys' words)
TRY_ANOTHER = "try another --length or --difficulty"


def _failure(difficulty: str, length: tuple[int, int], tally: _Tally) -> str:
    lo, hi = length
    where = f"{lo}..{hi} spaces" if lo != hi else f"{lo} spaces"
    article = "an" if difficulty[0] in "aeiou" else "a"
    reasons = []
    if tally.band:
        reason = f"{tally.band} fell outside the {difficulty} band ({describe_band(BANDS[difficulty])})"
        if tally.closest is not None:
            c = tally.closest
            reason += (
                f"; the closest had delay {c.delay:.2f} s/space, daring {100 * c.daring:.1f}%, crash "
                f"{100 * c.crash:.1f}%"
            )
        reasons.append(reason)
    if tally.sparse:
        reasons.append(f"{tally.sparse} had fewer than one corner per 10 spaces")
    if tally.sheet:
        reasons.append(f"{tally.sheet} in the band did not fit on the race sheet (A4 and Letter)")
    return (
        f"cannot generate {article} {difficulty} stage of {where} in {tally.proposals} tries: "
        + "; ".join(reasons)
        + "; "
        + TRY_ANOTHER
    )


def describe_band(band: Band) -> str:
    def part(label: str, rng_: tuple[float, float | None], scale: float, unit: str) -> str | None:
        lo, hi = rng_

        def fmt(v: float) -> str:
            return f"{v * scale:g}{unit}"

        if lo > 0 and hi is not None:
            return f"{label} {fmt(lo)} to under {fmt(hi)}"
        if lo > 0:
            return f"{label} at least {fmt(lo)}"
        if hi is not None:
            return f"{label} under {fmt(hi)}"
        return None

    parts = [
        part("delay", band.delay, 1, " s/space"),
        part("daring", band.daring, 100, "%"),
        part("crash", band.crash, 100, "%"),
    ]
    return ", ".join(p for p in parts if p)



def generate_race(
    seed: int,
    *,
    stages: int = DEFAULT_STAGES,
    length: tuple[int, int] = DEFAULT_LENGTH,
    surfaces: Sequence[Surface | str] | None = None,
    difficulty: str = "medium",
    sheet: RaceSheetFit | None | bool = True,
) -> Race:
    """A race of `stages` stages, each `length` (min, max) spaces long, on `surfaces` (default
    all three), every stage in the `difficulty` band and winding on the race sheet.

    `sheet`: True (default) checks the printed race sheet on A4 and Letter; a `RaceSheetFit`
    checks that one; False skips the check (the stages are then only valid and in the band).
    The same arguments always give the same race.
    """
    with solvers.collector_paused():
        return _generate_race(seed, stages, length, surfaces, difficulty, sheet)


def _generate_race(
    seed: int,
    stages: int,
    length: tuple[int, int],
    surfaces: Sequence[Surface | str] | None,
    difficulty: str,
    sheet: RaceSheetFit | None | bool,
) -> Race:
    lo, hi = length
    _check_options(stages, (lo, hi), difficulty)
    allowed = _parse_surfaces(surfaces)
    if sheet is True:
        sheet = RaceSheetFit()
    fit = sheet or None
    rng = random.Random(seed)
    kinds = plan_surfaces(rng, stages, allowed)
    main = max(allowed, key=lambda s: (kinds.count(s), -list(allowed).index(s)))
    race_name = f"{place_name(rng, main)} {rng.choice(_RACE_WORDS)}"
    names: list[str] = []
    for i, surface in enumerate(kinds):
        place = place_name(rng, surface)
        while any(n.endswith(" " + place) for n in names):
            place = place_name(rng, surface)
        names.append(f"SS{i + 1} {place}")
    parks = service_parks(stages)

    def make(i: int) -> Stage:
        # each stage draws from its own generator, so that one stage's retries never change
        # the others
        check = None if fit is None else (lambda s, i=i: fit.stage(s, i))
        stage, _ = generate_stage(random.Random(rng.getrandbits(64)), names[i], kinds[i], (lo, hi), difficulty, check)
        return replace(stage, service_park=parks[i])

    built = [make(i) for i in range(stages)]
    race = Race(name=race_name, stages=tuple(built))
    if fit is None:
        return race
    for _ in range(RACE_RETRIES):
        bad = fit.race(race)
        if bad is None:
            return race
        built[bad] = make(bad)
        race = Race(name=race_name, stages=tuple(built))
    raise GenerateError(
        f"cannot lay out race {race_name!r} on the race sheet after {RACE_RETRIES} new tries of its stages; try "
        "shorter stages"
    )


# --------------------------------------------------------------------------- the spec file


def spec_text(race: Race, command: str) -> str:
    """The race as a spec file: a comment naming `command` (which rebuilds it) and each
    stage's band figures, then the spec, with corners one per line as people write them."""
    from sheetgen import __version__
    from sheetgen.games.rallytaire.spec import to_data
    from sheetgen.yamlsrc import dump, load_bytes

    lines = [
        f"# Generated by sheetgen {__version__}: {command}",
        "# The same command rebuilds this file byte for byte; edit it like any other spec.",
    ]
    for stage in race.stages:
        a = analyze_stage(stage)
        f = figures(a)
        lines.append(
            f"# {stage.name}: {stage_difficulty(a) or 'unrated'}, par {a.par_time:.1f} s, delay {f.delay:.3f} s/space, "
            f"daring {100 * f.daring:.2f}%, crash {100 * f.crash:.2f}%"
        )
    data = to_data(race)
    head = {k: v for k, v in data.items() if k != "stages"}
    out = "\n".join(lines) + "\n" + dump(head) + "stages:\n"
    for stage in data["stages"]:
        fields = dump({k: stage[k] for k in ("name", "surface", "length")}).splitlines()
        out += "".join(("  - " if i == 0 else "    ") + line + "\n" for i, line in enumerate(fields))
        if stage["corners"]:
            out += "    corners:\n"
            for c in stage["corners"]:  # integers and left/right only: no quoting needed
                out += f"      - {{after: {c['after']}, gear: {c['gear']}, zone: {c['zone']}, turn: {c['turn']}}}\n"
        else:
            out += "    corners: []\n"
        out += f"    service_park: {'true' if stage['service_park'] else 'false'}\n"
    if load_bytes(out.encode("utf-8"), "<generated>").data != data:  # the loader must read back the race
        raise AssertionError(f"generated spec text does not read back as race {race.name!r}")
    return out
