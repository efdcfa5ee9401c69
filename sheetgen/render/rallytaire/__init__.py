"""Rallytaire's printables (`GAME.printables` in :mod:`sheetgen.games.rallytaire`).

- `race_sheet`: a race's race sheets (header, advanced-game boxes, every stage as a winding
  track of square spaces) and the finishing-turn time table; ``print_race`` prints a race file.
- `season_sheet`: a season's races and stages with their par times and a time box per driver
  (or attempt); ``print_season`` prints a season file (then its generated races' race sheets),
  ``sheetgen season -o`` the season sheet alone.
"""
