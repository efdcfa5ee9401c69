"""Rallytaire's printables (`GAME.printables` in :mod:`sheetgen.games.rallytaire`).

- `race_sheet`: a race's race sheets (header, advanced-game boxes, every stage as a winding
  track of square spaces) and the finishing-turn time table; ``print_race`` prints a race file.
"""
