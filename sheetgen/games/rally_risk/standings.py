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
from typing import Any

from sheetgen import league as leagues
from sheetgen.forum import Table
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
    #: the league's house options (`sheetgen.league.League`), or None: the rulebook's table
    league: Any = None
    rounds: tuple[int, ...] = ()  # with a league: the rallies that count as rounds (complete), by index
    league_rows: tuple[leagues.Row, ...] = ()  # with a league: its table (drops, bonus, tie-breaks)

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
    league = results.league
    rounds: tuple[int, ...] = ()
    league_rows: tuple[leagues.Row, ...] = ()
    if league is not None:
        rounds = tuple(i for i, r in enumerate(rallies) if r.points is not None)
        league_rows = leagues.table(players, [rally_entries(rallies[i], players, league) for i in rounds], league.best)
        rows = []
        for lr in league_rows:
            scores = dict(zip(rounds, lr.entries))
            k = players.index(lr.driver)
            per_rally = tuple(
                entry.score if (entry := scores.get(i)) is not None else None for i in range(len(rallies))
            )
            rows.append(TableRow(lr.place, lr.driver, lr.total, per_rally, score_totals[k]))
    else:
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
        league,
        rounds,
        league_rows,
    )


def rally_entries(rally: RallyStanding, players: tuple[str, ...], league: Any) -> dict[str, leagues.Entry]:
    """Each player's league points in a complete rally: the rulebook's points for the place,
    and the house bonuses (RR-27): a stage win per race with the best score A (a car that
    arrived; ties: each), the fastest stage to the first car home in the rally's last normal
    race, a clean run to a player who finished every race of the rally."""
    assert rally.points is not None
    normal = [rs for rs in rally.races if not rs.race.special]
    last = normal[-1].race if normal else None
    out = {}
    for k, p in enumerate(players):
        bonus: list[tuple[str, int]] = []
        if league.stage_win:
            for rs in rally.races:
                if rs.race.round_of(p) is not None and p in rs.arrival[0]:
                    bonus.append(("stage_win", league.stage_win))
        if league.fastest_stage and last is not None:
            home = [r for r in last.finish if r is not None]
            if home and last.round_of(p) == min(home):
                bonus.append(("fastest_stage", league.fastest_stage))
        if league.clean_run and all(rs.race.round_of(p) is not None for rs in rally.races):
            bonus.append(("clean_run", league.clean_run))
        out[p] = leagues.Entry(rally.places[k], rally.points[k], tuple(bonus))
    return out


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
        **({"league": _league_json(s)} if s.league is not None else {}),
        "next_departure": [list(g) for g in s.next_departure],
        "draw_lots": s.draw_lots,
        "chooses_next": list(s.chooses_next),
        "remaining": list(s.remaining),
    }


def _league_json(s: Standings) -> dict:
    lg = s.league
    return {
        "best": lg.best,
        "bonus": {key: lg.bonus(key) for key in leagues.BONUSES},
        "table": leagues.table_json(
            s.league_rows,
            s.rounds,
            lambda i, e, kept: {
                "rally": s.rallies[i].result.name,
                "place": e.place if e is not None else None,
                "points": e.points if e is not None else None,
                "bonus": [key for key, _v in e.bonus] if e is not None else [],
                "score": e.score if e is not None else None,
                "kept": kept,
            },
            who="player",
            per_round="rallies",
        ),
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
    if s.league is not None:
        lines += ["", f"Championship (9, 6, 4, 3, 2, 1 points per rally; {'; '.join(_house(s))})"]
        for lr in s.league_rows:
            rallies = ", ".join(
                f"{s.rallies[i].result.name} {leagues.shown_score(e, k)}"
                for i, e, k in zip(s.rounds, lr.entries, lr.kept)
            )
            lines.append(f"  {lr.place:>2}. {lr.driver:<{width}}  {lr.total:>3} points   ({rallies or 'no rally yet'})")
        lines += ["  " + note for note in league_notes(s)]
    else:
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


# --------------------------------------------------------------------------- forum tables


def _house(s: Standings) -> list[str]:
    said = s.league.house_rules()
    return ["house rules: " + "; ".join(said)] if said else ["no house rules"]


def league_notes(s: Standings) -> list[str]:
    """What the league table's marks mean and how its ties were broken."""
    notes = []
    if s.league.best is not None:
        notes.append("(N): a rally dropped; N+B: place points N and bonus points B.")
    elif any(e is not None and e.bonus for row in s.league_rows for e in row.entries):
        notes.append("N+B: place points N and bonus points B.")
    for above, row in zip(s.league_rows, s.league_rows[1:]):
        if row.tie == "countback":
            notes.append(f"{above.driver} ahead of {row.driver} on {above.total} points: countback.")
        elif row.tie == "latest round":
            notes.append(f"{above.driver} ahead of {row.driver} on {above.total} points: the latest rally.")
        elif row.tie == "tied":
            notes.append(f"{above.driver} and {row.driver} share place {row.place}.")
    notes.append(leagues.TIE_NOTE)
    return notes


def championship_table(s: Standings) -> Table:
    """The championship as a table: each complete rally's points (with a league: bonus as +N,
    dropped rallies in brackets), the total."""
    done = [i for i, r in enumerate(s.rallies) if r.points is not None]
    heads = [s.rallies[i].result.name for i in done]
    if s.league is not None:
        rows = tuple(
            (str(lr.place), lr.driver, *(leagues.shown_score(e, k) for e, k in zip(lr.entries, lr.kept)), str(lr.total))
            for lr in s.league_rows
        )
        notes = ["9, 6, 4, 3, 2, 1 points per rally (the rulebook); " + "; ".join(_house(s)) + "."]
        notes += league_notes(s)
    else:
        rows = tuple(
            (str(row.place), row.player, *(str(row.rally_points[i]) for i in done), str(row.points)) for row in s.table
        )
        notes = ["9, 6, 4, 3, 2, 1 points per rally (the rulebook); ties share the better place."]
    going = [r.result.name for r in s.rallies if r.points is None]
    if going:
        notes.append(f"In progress (no points yet): {', '.join(going)}.")
    notes.append(f"Next race leaves in this order: {departure_text(s.next_departure)}.")
    if s.chooses_next:
        notes.append(f"It is chosen by the last to arrive: {' or '.join(s.chooses_next)}.")
    return Table(
        f"{s.name}: championship",
        ("Pos", "Player", *heads, "Points"),
        rows,
        "rl" + "r" * (len(heads) + 1),
        tuple(notes),
    )


def rally_table(s: Standings, r: RallyStanding) -> Table:
    """A rally: each player's score A per race (a destroyed car said), the total, the place
    and, once the rally is complete, the points."""
    labels = []
    for rs in r.races:
        name = rs.race.name
        labels.append(name.split(", ", 1)[-1] if name.startswith(r.result.name + ", ") else name)
    rows = []
    for k, p in enumerate(s.players):
        scores = [_signed(rs.score(p)) + (" destroyed" if rs.race.round_of(p) is None else "") for rs in r.races]
        points = (str(r.points[k]),) if r.points is not None else ()
        rows.append((p, *scores, _signed(r.totals[k]), str(r.places[k]), *points))
    header = ("Player", *labels, "Total", "Place", *(("Points",) if r.points is not None else ()))
    state = "" if r.result.complete else " (in progress: no points yet)"
    return Table(
        f"{r.result.name}{state}",
        header,
        tuple(rows),
        "l" + "r" * (len(header) - 1),
        ("Score A per race: rounds behind the first car home minus the place in the starting order; the least wins.",),
    )


def standings_tables(s: Standings) -> tuple[Table, ...]:
    return (championship_table(s), *(rally_table(s, r) for r in s.rallies))
