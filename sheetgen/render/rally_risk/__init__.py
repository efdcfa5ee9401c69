"""Rally Risk's printables (`GAME.printables` in :mod:`sheetgen.games.rally_risk`), and the
championship pages `sheetgen calendar` and `sheetgen standings` print.

- `section_cards`: a library's road-section cards with their cut marks, then the reference
  card of the house tables; ``print_library`` prints a library file.
- `course_sheet`: a race's course sheet (map, side panel, space strip, driver rows, round
  tracker), then the reference card of its tables; ``print_race`` prints a race file.
- `reference_card`: the tables a race is played with, on one page; a job prints each card
  once (`registry.Printable.shared`: the others leave it out, `pdf.printed_elsewhere`).
- `calendar`: a built calendar (`sheetgen calendar`): overview, each race's course sheet,
  the championship score sheet and the reference card.
- `standings`: a results file's standings sheet (the championship table, the next race's
  starting order, the score sheet filled in); ``print_standings`` prints a results file,
  ``sheetgen standings -o`` the same sheet.
- `common`: what those sheets share (the words for the game's things, a road section drawn in
  its square).
"""
