"""Rallytaire spec model: pure data, no I/O, no third-party imports.

Words follow the rulebook: a race is a sheet of stages; a stage is a track of spaces
numbered 1..length; a corner is the line after space `after`, crossed safely in gear
`gear` or lower (one higher when planned D); its planning zone runs from space `zone`
to space `after`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Surface(str, Enum):
    ASPHALT = "asphalt"
    GRAVEL = "gravel"
    SNOW = "snow"


class Turn(str, Enum):
    LEFT = "left"
    RIGHT = "right"


#: Base speed of gears 1..5 (rulebook, "Move").
BASE_SPEED = {1: 1, 2: 2, 3: 4, 4: 7, 5: 11}
MIN_GEAR = 1
MAX_GEAR = 5


@dataclass(frozen=True)
class Corner:
    after: int
    gear: int
    zone: int
    turn: Turn


@dataclass(frozen=True)
class Stage:
    name: str
    surface: Surface
    length: int
    corners: tuple[Corner, ...] = ()
    service_park: bool = False

    def __hash__(self) -> int:
        # the rules engine looks a stage's tables up thousands of times a solve: the hash of
        # every corner is worked out once per stage, as str caches its own
        try:
            return self.__dict__["_hash"]
        except KeyError:
            value = hash((self.name, self.surface, self.length, self.corners, self.service_park))
            object.__setattr__(self, "_hash", value)
            return value

    @property
    def finish(self) -> int:
        """The invisible space just after the finish line; reaching it ends the stage."""
        return self.length + 1


@dataclass(frozen=True)
class Boxes:
    """Advanced-game damage boxes printed on the race sheet."""

    engine: int = 3
    brakes: int = 3
    gearbox: int = 3
    car: int = 3


@dataclass(frozen=True)
class Race:
    name: str
    stages: tuple[Stage, ...]
    boxes: Boxes = field(default_factory=Boxes)
    tyres: tuple[Surface, ...] = (Surface.ASPHALT, Surface.GRAVEL, Surface.SNOW)
