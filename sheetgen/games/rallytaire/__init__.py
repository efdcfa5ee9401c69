"""Rallytaire: solo rally with a pencil and five dice."""

from sheetgen.games.rallytaire import spec
from sheetgen.games.rallytaire.model import Race
from sheetgen.registry import Game


def _summary(race: Race) -> str:
    stages = len(race.stages)
    spaces = sum(s.length for s in race.stages)
    corners = sum(len(s.corners) for s in race.stages)
    return f"{stages} stage{'s' if stages != 1 else ''}, {spaces} spaces, {corners} corners"


GAME = Game(name="rallytaire", title="Rallytaire", schema=spec.SCHEMA, load=spec.load, summary=_summary)
