"""Championship standings from results (rulebook, "Scores"; :mod:`scoring` holds the rules).

Per race, score A: each car's finishing round relative to the first car home, minus its
place in the departure order (a destroyed car: the last arrival's score plus two, behind
every car that arrived). Per
rally, the totals of score A over its races, fewest first, give the rally's places and
championship points (scoring B: 9, 6, 4, 3, 2, 1; tied drivers share the better place and
the next place is skipped). The championship table adds up the points of every rally
whose normal races are all in. The next race leaves in the last race's order of arrival
(score A, best first); the last to arrive, the last of that order among the cars that
arrived (the worst score A), chooses it (rulebook, "The Road Sections"; RR-21;
:func:`scoring.last_to_arrive`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetgen.games.rally_risk.model import Calendar, RaceResult, RallyResult, Results
from sheetgen.games.rally_risk.results import arrival_groups
from sheetgen.games.rally_risk.scoring import championship_points, last_to_arrive, score_a
from sheetgen.games.rally_risk.spec import race_name


@dataclass(frozen=True)
class RaceScore:
    race: RaceResult
    scores: tuple[int, ...]  # score A, in departure order
    arrival: tuple[tuple[str, ...], ...]  # order of arrival, tied players grouped

    def score(self, player: str) -> int:
        return self.scores[self.race.departure.index(player)]


@dataclass(frozen=True)
class RallyStanding:
    result: RallyResult
    races: tuple[RaceScore, ...]
    totals: tuple[int, ...]  # per player (in the results' player order)
    places: tuple[int, ...]
    points: tuple[int, ...] | None  # None while the rally is not complete


@dataclass(frozen=True)
class TableRow:
    place: int
    player: str
    points: int
    rally_points: tuple[int | None, ...]  # per rally (None: not complete)
    score_total: int  # score A over every race, for information


@dataclass(frozen=True)
class Standings:
    name: str
    players: tuple[str, ...]
    rallies: tuple[RallyStanding, ...]
    table: tuple[TableRow, ...]
    next_departure: tuple[tuple[str, ...], ...]  # groups: tied players draw lots
    chooses_next: tuple[str, ...]  # the last to arrive in the last race: the worst score A (several: lots)
    remaining: tuple[str, ...]  # races of the calendar not yet run, in calendar order
    calendar: Calendar | None = None

    @property
    def draw_lots(self) -> bool:
        return any(len(g) > 1 for g in self.next_departure)


def _places(values: tuple[int, ...], fewest_first: bool = True) -> tuple[int, ...]:
    """Place of each value; ties share the better place and skip the next."""
    if fewest_first:
        return tuple(1 + sum(o < v for o in values) for v in values)
    return tuple(1 + sum(o > v for o in values) for v in values)


def standings(results: Results) -> Standings:
    players = results.players
    rallies = []
    for rally in results.rallies:
        races = tuple(RaceScore(r, score_a(r.finish), arrival_groups(r)) for r in rally.races)
        totals = tuple(sum(rs.score(p) for rs in races) for p in players)
        places = _places(totals)
        points = None
        if rally.complete and races:
            got = championship_points(dict(zip(players, totals)))
            points = tuple(got[p] for p in players)
        rallies.append(RallyStanding(rally, races, totals, places, points))
    points = tuple(sum(r.points[k] for r in rallies if r.points is not None) for k in range(len(players)))
    score_totals = tuple(sum(r.totals[k] for r in rallies) for k in range(len(players)))
    places = _places(points, fewest_first=False)
    rows = [
        TableRow(
            places[k],
            p,
            points[k],
            tuple(r.points[k] if r.points is not None else None for r in rallies),
            score_totals[k],
        )
        for k, p in enumerate(players)
    ]
    rows.sort(key=lambda row: (row.place, row.score_total, players.index(row.player)))
    last = next((rs for r in reversed(rallies) for rs in reversed(r.races)), None)
    if last is None:
        next_departure: tuple[tuple[str, ...], ...] = tuple((p,) for p in players)
        chooses: tuple[str, ...] = ()
    else:
        next_departure = last.arrival
        chooses = tuple(last.race.departure[i] for i in last_to_arrive(last.race.finish))
    return Standings(
        results.name,
        players,
        tuple(rallies),
        tuple(rows),
        next_departure,
        chooses,
        _remaining(results),
        results.championship,
    )


def _remaining(results: Results) -> tuple[str, ...]:
    calendar = results.championship
    if calendar is None:
        return ()
    done = {r.id: len(r.races) for r in results.rallies}
    out = []
    for rally in calendar.rallies:
        run = done.get(rally.id, 0)
        for k in range(run, len(rally.races)):
            out.append(race_name(rally, False, k + 1))
        for k in range(max(0, run - len(rally.races)), len(rally.specials)):
            out.append(race_name(rally, True, k + 1) + " (optional)")
    return tuple(out)


# --------------------------------------------------------------------------- output


def _finish_json(r: int | None) -> int | str:
    return "destroyed" if r is None else r


def standings_to_json(s: Standings) -> dict:
    return {
        "name": s.name,
        "players": list(s.players),
        "rallies": [
            {
                "rally": r.result.id,
                "name": r.result.name,
                "complete": r.result.complete,
                "races": [
                    {
                        "name": rs.race.name,
                        "special": rs.race.special,
                        "departure": list(rs.race.departure),
                        "finish": {p: _finish_json(x) for p, x in zip(rs.race.departure, rs.race.finish)},
                        "score_a": {p: rs.score(p) for p in s.players},
                        "arrival": [list(g) for g in rs.arrival],
                    }
                    for rs in r.races
                ],
                "totals": dict(zip(s.players, r.totals)),
                "places": dict(zip(s.players, r.places)),
                "points": dict(zip(s.players, r.points)) if r.points is not None else None,
            }
            for r in s.rallies
        ],
        "championship": [
            {"place": row.place, "player": row.player, "points": row.points, "score_a_total": row.score_total}
            for row in s.table
        ],
        "next_departure": [list(g) for g in s.next_departure],
        "draw_lots": s.draw_lots,
        "chooses_next": list(s.chooses_next),
        "remaining": list(s.remaining),
    }


def _signed(v: int) -> str:
    return f"{v:+d}" if v else "0"


def departure_text(groups: tuple[tuple[str, ...], ...]) -> str:
    return ", ".join(g[0] if len(g) == 1 else "(" + " = ".join(g) + ": draw lots)" for g in groups)


def format_standings_text(s: Standings) -> str:
    lines = [s.name, ""]
    width = max(len(p) for p in s.players)
    for r in s.rallies:
        state = "" if r.result.complete else " (in progress: no points yet)"
        lines.append(f"{r.result.name}{state}")
        for rs in r.races:
            cells = "  ".join(
                f"{p} {_signed(rs.score(p))}" + (" (destroyed)" if rs.race.round_of(p) is None else "")
                for p in s.players
            )
            label = rs.race.name.split(", ", 1)[-1] if rs.race.name.startswith(r.result.name + ", ") else rs.race.name
            lines.append(f"  {label}: {cells}")
        for k, p in enumerate(s.players):
            pts = f", {r.points[k]} point{'s' if r.points[k] != 1 else ''}" if r.points is not None else ""
            lines.append(f"    {p:<{width}}  total {_signed(r.totals[k]):>4}  place {r.places[k]}{pts}")
    lines += ["", "Championship (9, 6, 4, 3, 2, 1 points per rally; ties share the better place)"]
    for row in s.table:
        lines.append(
            f"  {row.place:>2}. {row.player:<{width}}  {row.points:>3} points   (score A over all races "
            f"{_signed(row.score_total)})"
        )
    lines += ["", f"Next race leaves in this order: {departure_text(s.next_departure)}"]
    if s.chooses_next:
        lines.append(f"It is chosen by the last to arrive: {' or '.join(s.chooses_next)}")
    if s.remaining:
        lines.append(f"Still to run: {', '.join(s.remaining)}")
    return "\n".join(lines) + "\n"
