"""sheetgen's house tables for Rally Risk, as data.

The rulebook's figures (gear chart, Table of Risks, Damages Table, weather chart) are not
in its text and the printed ones are not known. These are sheetgen's own, written in the
same form a spec uses to replace them (`tables:` in a race file), and checked by the same
validator. They reproduce every worked example of the rulebook (RULINGS.md):

- Table of Risks: 4th gear, die 3 -> factor 3; 4th gear, die 5 with rapid assistance
  (5 + 1 = 6) -> factor 2.
- Gear chart: 4th gear with rapid assistance has a minimum of 3 + 1 = 4 spaces; 5th gear
  with normal assistance a minimum of 4 + 2 = 6 (the braking example's "minimum of 6").
- Damages Table: difference 1, die 2 -> no damage; difference 2, die 6 -> 2nd degree.

and they are monotone: a higher gear or a higher roll never gives a safer (higher) factor;
a bigger difference or a higher roll never gives lighter damage.
"""

from __future__ import annotations

LABEL = "sheetgen house tables (the printed tables of the box are not known)"

HOUSE_TABLES: dict = {
    # Gears 1st..5th: [minimum, maximum] spaces with permanent assistance. Rapid assistance
    # adds 1 to both, normal 2, except in 1st gear, which always moves 1 space.
    "gear_chart": [[1, 1], [1, 3], [2, 5], [3, 7], [4, 9]],
    # Gears 1st..5th, modified die 1..6: the highest factor the car takes safely this round.
    "risk": [
        [5, 5, 5, 4, 4, 4],
        [5, 4, 4, 4, 3, 3],
        [4, 4, 3, 3, 3, 2],
        [4, 3, 3, 2, 2, 2],
        [3, 2, 2, 1, 1, 0],
    ],
    # Factor difference 1, 2, ... (the last row also for larger ones), die 1..6.
    "damage": [
        ["-", "-", "-", "-", "tc", "1"],
        ["-", "-", "tc", "1", "1", "2"],
        ["tc", "tc", "1", "2", "3", "e"],
        ["tc", "1", "2", "3", "e", "e"],
        ["1", "2", "3", "e", "e", "e"],
        ["2", "3", "e", "e", "e", "e"],
    ],
    # One chart per weather zone; the marker starts on sector `start` (1-based).
    "weather": {
        "EC": {"start": 3, "sectors": ["clear", "clear", "cloudy", "cloudy", "rain+1", "rain+1", "storm+2", "storm+3"]},
        "EN": {
            "start": 2,
            "sectors": ["cloudy", "cloudy", "rain+1", "snow+2", "snow+2", "storm+2", "snow+3", "snow+3"],
        },
        "A": {"start": 2, "sectors": ["clear", "clear", "clear", "cloudy", "cloudy", "rain+1", "storm+2", "storm+3"]},
    },
    # Special tyres: `factor` is added to every space's factor, `move` to the minimum and
    # maximum movement (never below 1). Rain tyres help in rain and storms, snow tyres in snow.
    "tyres": {
        "rain": {
            "clear": {"move": -1},
            "cloudy": {"move": -2},
            "rain": {"factor": -1},
            "storm": {"factor": -1},
        },
        "snow": {
            "clear": {"move": -1},
            "cloudy": {"move": -2},
            "snow": {"factor": -1},
        },
    },
    # Special races: movement points added to the maximum of gears 1st..5th.
    "special_extra": [0, 0, 2, 4, 6],
}

#: Fixed by the rulebook's text, not printed tables: the spec cannot replace these.
ASSISTANCE_BONUS = {"permanent": 0, "rapid": 1, "normal": 2}
FORD_FACTORS = {"rain": 5, "storm": 5, "snow": 3}
