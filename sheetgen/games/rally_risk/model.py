"""Rally Risk spec model: pure data, no I/O, no third-party imports.

Words follow the rulebook: a *road section* is a printed tile with spaces; each space bears
a *speed and safety factor* (0 fastest and safest .. 4 slowest and most dangerous), and some
spaces are *fords*. A *library* is the box's set of sections (with how many copies of each);
a *race* lays sections one after another (the *course*); a *calendar* lists the rallies of
the championship with their weather zone, races and limits. Spaces are numbered
progressively along a course (1..N) so that mechanics can be placed by number.

Tables (gear chart, Table of Risks, Damages Table, weather charts, tyre effects) are data
too: :class:`Tables`, filled from sheetgen's house tables or from a spec's own values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

MIN_GEAR = 1
MAX_GEAR = 5
GEARS = tuple(range(MIN_GEAR, MAX_GEAR + 1))
DIE = tuple(range(1, 7))
#: Range of each mechanic, in spaces either way (rulebook, "Mechanics").
MECHANIC_RANGE = 4
#: Side of a printed section card (mm) unless the library gives `card_mm`.
DEFAULT_CARD_MM = 80.0
#: Mechanics per car (rulebook: 1, 2 or 3; sheetgen also allows none, for comparisons).
MAX_MECHANICS = 3


class Side(str, Enum):
    """A side of a table square, and the compass heading that leaves through it."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @property
    def opposite(self) -> Side:
        return _SIDES[(_SIDES.index(self) + 2) % 4]

    def turned(self, quarter_turns: int) -> Side:
        """This side after turning the square clockwise by `quarter_turns` * 90 degrees."""
        return _SIDES[(_SIDES.index(self) + quarter_turns) % 4]

    @property
    def step(self) -> tuple[int, int]:
        """Grid step (x east, y north) of a heading."""
        return _STEPS[self]


_SIDES = (Side.N, Side.E, Side.S, Side.W)
_STEPS = {Side.N: (0, 1), Side.E: (1, 0), Side.S: (0, -1), Side.W: (-1, 0)}


class Zone(str, Enum):
    """Weather zones of the Calendar: Central Europe, Northern Europe, Africa."""

    EC = "EC"
    EN = "EN"
    A = "A"


class Tag(str, Enum):
    STRAIGHT = "straight"
    FAST_ROAD = "fast_road"
    CURVE = "curve"
    SHARP_CURVE = "sharp_curve"
    FORD = "ford"


class Weather(str, Enum):
    CLEAR = "clear"
    CLOUDY = "cloudy"
    RAIN = "rain"
    STORM = "storm"
    SNOW = "snow"

    @property
    def negative(self) -> bool:
        """Rain, storms and snow: the weather that adds to the risk roll."""
        return self not in (Weather.CLEAR, Weather.CLOUDY)


class Tyres(str, Enum):
    NORMAL = "normal"
    RAIN = "rain"
    SNOW = "snow"


class Assistance(str, Enum):
    PERMANENT = "permanent"
    RAPID = "rapid"
    NORMAL = "normal"


class Outcome(str, Enum):
    """Damages Table results, lightest first (the order monotonicity is checked in)."""

    NONE = "-"
    TAIL_SPIN = "tc"
    FIRST = "1"
    SECOND = "2"
    THIRD = "3"
    ELIMINATED = "e"

    @property
    def severity(self) -> int:
        return _SEVERITY[self]

    @property
    def halt(self) -> int:
        """Turns at a halt after this damage (tc stops the car but costs no turn)."""
        return _HALT[self]


_SEVERITY = {o: i for i, o in enumerate(Outcome)}
_HALT = {o: {"1": 1, "2": 2, "3": 3}.get(o.value, 0) for o in Outcome}


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class WeatherSector:
    weather: Weather
    modifier: int = 0  # added to the risk roll

    def __str__(self) -> str:
        return f"{self.weather.value}+{self.modifier}" if self.modifier else self.weather.value


@dataclass(frozen=True)
class WeatherChart:
    """A row of sectors; the marker starts on `start` (0-based) and moves one sector forward
    on an even roll, back on an odd one, staying put at either end."""

    sectors: tuple[WeatherSector, ...]
    start: int = 0

    def step(self, sector: int, forward: bool) -> int:
        return min(sector + 1, len(self.sectors) - 1) if forward else max(sector - 1, 0)


@dataclass(frozen=True)
class TyreEffect:
    move: int = 0  # added to minimum and maximum movement (never below 1)
    factor: int = 0  # added to every space's factor (never below 0)


@dataclass(frozen=True)
class Tables:
    """The tables a race is played with.

    gear_chart: (min, max) spaces per gear 1..5 with permanent assistance.
    assistance: added to movement (gears 2-5) and to the risk roll, per assistance type.
    risk: the Table of Risks, [gear - 1][modified die - 1] -> factor the car can take.
    damage: the Damages Table, [difference - 1][die - 1] -> Outcome; the last row also
        serves larger differences.
    weather: chart per zone. fords: a ford's factor in rain, storm and snow.
    tyres: effect of special tyres per weather (normal tyres have none).
    special_extra: movement points added to the maximum of gears 1..5 in special races.
    overridden: names of the tables a spec replaced (empty: all house tables).
    """

    gear_chart: tuple[tuple[int, int], ...]
    assistance: tuple[tuple[Assistance, int], ...]
    risk: tuple[tuple[int, ...], ...]
    damage: tuple[tuple[Outcome, ...], ...]
    weather: tuple[tuple[Zone, WeatherChart], ...]
    fords: tuple[tuple[Weather, int], ...]
    tyres: tuple[tuple[Tyres, tuple[tuple[Weather, TyreEffect], ...]], ...]
    special_extra: tuple[int, ...]
    overridden: tuple[str, ...] = ()

    def chart(self, zone: Zone) -> WeatherChart:
        return dict(self.weather)[zone]

    def bonus(self, assistance: Assistance) -> int:
        return dict(self.assistance)[assistance]

    def gear_range(self, gear: int, assistance: Assistance) -> tuple[int, int]:
        """(minimum, maximum) spaces the gear chart gives `gear` with `assistance`: the
        assistance adds to both in gears 2-5, never in 1st (docs/rulings.md RR-4); before a
        special race's extra and special tyres (`rules.movement_range` adds those)."""
        lo, hi = self.gear_chart[gear - 1]
        bonus = self.bonus(assistance) if gear > MIN_GEAR else 0
        return lo + bonus, hi + bonus

    def ford_factor(self, weather: Weather) -> int | None:
        """A ford's factor in this weather, or None when the printed factor holds."""
        return dict(self.fords).get(weather)

    def tyre_effect(self, tyres: Tyres, weather: Weather) -> TyreEffect:
        return dict(dict(self.tyres).get(tyres, ())).get(weather, TyreEffect())


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Section:
    """A road section as printed: entry and exit sides in its own orientation (north up),
    the factor of each space in driving order, and which spaces (1-based) are fords."""

    id: str
    name: str
    entry: Side
    exit: Side
    factors: tuple[int, ...]
    fords: tuple[int, ...] = ()
    tags: tuple[Tag, ...] = ()
    copies: int = 1

    @property
    def turns(self) -> bool:
        return self.exit != self.entry.opposite


@dataclass(frozen=True)
class Library:
    """The box's road sections; `card_mm` is the side of a printed section card."""

    name: str
    sections: tuple[Section, ...]
    card_mm: float = DEFAULT_CARD_MM

    def get(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)


@dataclass(frozen=True)
class Leg:
    """One section of a course, entered heading `heading` (the direction of travel)."""

    section: Section
    heading: Side


@dataclass(frozen=True)
class Limits:
    """Calendar limits on a race's choice of sections (None: no limit)."""

    min_sharp_curves: int | None = None
    max_sharp_curves: int | None = None
    min_fords: int | None = None
    max_fords: int | None = None
    min_fast_roads: int | None = None
    max_fast_roads: int | None = None


@dataclass(frozen=True)
class Space:
    """A space of a course, numbered progressively from 1."""

    number: int
    factor: int
    ford: bool
    leg: int  # 0-based index of the course's section
    section: str  # its id
    index: int  # 1-based space within the section


@dataclass(frozen=True)
class Race:
    name: str
    zone: Zone
    course: tuple[Leg, ...]
    tables: Tables
    special: bool = False
    library: str = ""  # as written in the spec (relative to the race file)
    rally: str | None = None
    limits: Limits = field(default_factory=Limits)

    @property
    def spaces(self) -> tuple[Space, ...]:
        return course_spaces(self.course)

    @property
    def length(self) -> int:
        return sum(len(leg.section.factors) for leg in self.course)


def course_spaces(course: tuple[Leg, ...]) -> tuple[Space, ...]:
    out: list[Space] = []
    for leg_index, leg in enumerate(course):
        fords = set(leg.section.fords)
        for i, factor in enumerate(leg.section.factors, start=1):
            out.append(Space(len(out) + 1, factor, i in fords, leg_index, leg.section.id, i))
    return tuple(out)


@dataclass(frozen=True)
class Rally:
    id: str
    name: str
    zone: Zone
    races: tuple[int, ...]  # sections per normal race
    specials: tuple[int, ...] = ()  # sections per special race
    limits: Limits = field(default_factory=Limits)
    #: the races laid out (a built calendar): the normal races in order, then the specials
    courses: tuple[Race, ...] = ()


@dataclass(frozen=True)
class Calendar:
    name: str
    rallies: tuple[Rally, ...]
    library: str = ""  # as written in the spec (relative to the calendar file)
    sections: Library | None = None  # that library, loaded

    def get(self, rally_id: str) -> Rally | None:
        return next((r for r in self.rallies if r.id == rally_id), None)

    @property
    def built(self) -> bool:
        """Every race of every rally is given as a course."""
        return all(len(r.courses) == len(r.races) + len(r.specials) for r in self.rallies)


# --------------------------------------------------------------------------- results


#: What a results file writes for a car that did not finish (rulebook: "totally destroys a
#: car"; the Damages Table's "e": eliminated). Both score alike.
DESTROYED = ("destroyed", "eliminated")


@dataclass(frozen=True)
class RaceResult:
    """One race as played: the departure order and the round each car finished in
    (None: destroyed or eliminated)."""

    name: str
    special: bool
    departure: tuple[str, ...]  # players, first to leave first
    finish: tuple[int | None, ...]  # in departure order
    assistance: tuple[Assistance | None, ...] = ()  # in departure order, when recorded (None: not said)

    def round_of(self, player: str) -> int | None:
        return self.finish[self.departure.index(player)]


@dataclass(frozen=True)
class RallyResult:
    name: str
    races: tuple[RaceResult, ...]
    id: str | None = None  # the calendar's rally id, when the results name a calendar
    #: all its normal races are recorded (always true without a calendar): its points count
    complete: bool = True


@dataclass(frozen=True)
class Results:
    """A championship as played so far (rulebook, "Scores")."""

    name: str
    players: tuple[str, ...]
    rallies: tuple[RallyResult, ...]
    calendar: str | None = None  # as written in the spec
    championship: Calendar | None = None  # that calendar, loaded
    #: the league's house options (`sheetgen.league.League`: rallies counted, bonus points), or None
    league: Any = None
