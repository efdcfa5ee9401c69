"""Rally Risk championship results: a `kind: results` file, loaded with locations.

The file records what happened at the table, race by race::

    game: rally_risk
    kind: results
    name: Club championship
    calendar: championship.yaml     # optional: rally ids, race counts and names are checked
    players: [Anna, Ben, Carla, Dario]   # the drivers, in the first race's departure order
    rallies:
      - rally: montecarlo           # the calendar's rally id (any name without a calendar)
        races:
          - finish: {Anna: 14, Ben: 12, Carla: 12, Dario: 16}   # the round each car finished in
          - finish: {Anna: 11, Ben: destroyed, Carla: 12, Dario: 12}
          - departure: [Anna, Carla, Dario, Ben]   # only needed after a tie (lots were drawn)
            finish: {...}

A finish is the round (counted from the race's first round) the car crossed the finish in,
or `destroyed` / `eliminated` for a car that did not finish. Every player has a result in
every race. A race may also record each car's assistance (`assistance: {Anna: rapid, ...}`,
optional, for any of the players): it may change between races, but never from permanent
to normal (rulebook, "Mechanical Assistance"), so a player whose last recorded assistance is
permanent and who is recorded with normal assistance is refused at that value. Only that
change is refused: permanent, then rapid, then normal in a later race is allowed, one
change at a time, as the rulebook words it.

A `league:` block adds house options (`sheetgen.league`; the rulebook has none): `best: N`
counts each driver's best N rallies, and bonus points (`stage_win`: the best score A of a
race; `fastest_stage`: the first car home in a rally's last normal race; `clean_run`: every
race of a rally finished). The points per place stay the rulebook's (RR-27).

Departure order (rulebook, "Scores"): the first race's is drawn by lot (the order of
`players`, or the race's own `departure`); every later race leaves in the order of arrival
of the race before, that is by score A, best first. Where that race had a tie, lots are
drawn, so the file must say the order (`departure`); a `departure` given anyway must agree
with the order of arrival. With a calendar, a rally's entries are its normal races in
order, then its specials; its championship points count once all its normal races are in
(specials are optional, rulebook "Special races").
"""

from __future__ import annotations

import difflib

from sheetgen.errors import Problem, SpecError
from sheetgen.games.rally_risk.model import DESTROYED, Assistance, Calendar, RaceResult, Rally, RallyResult, Results
from sheetgen.games.rally_risk.scoring import score_a
from sheetgen.games.rally_risk.spec import LEAGUE_SCHEMA, RESULTS_SCHEMA, _load_other, race_name
from sheetgen.league import load_league
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document


def arrival_groups(race: RaceResult) -> tuple[tuple[str, ...], ...]:
    """The race's order of arrival by score A, best first; tied players share a group
    (in departure order)."""
    scores = score_a(race.finish)
    order = sorted(set(scores))
    return tuple(tuple(p for p, s in zip(race.departure, scores) if s == value) for value in order)


def _near(name: str, names: tuple[str, ...] | list[str], what: str) -> str:
    near = difflib.get_close_matches(name, list(names), n=1)
    return f", did you mean {near[0]!r}?" if near else f" (the {what} are: {', '.join(names)})"


def _outline() -> dict:
    """RESULTS_SCHEMA with every finish value allowed: those are checked here, to say
    what a finish may be in plain words."""
    import copy

    outline = copy.deepcopy(RESULTS_SCHEMA)
    race = outline["properties"]["rallies"]["items"]["properties"]["races"]["items"]
    race["properties"]["finish"]["additionalProperties"] = {}
    return outline


#: the latest round a results file may say a car finished in (the schema's maximum too)
MAX_FINISH_ROUND = 10000


def _finish_problems(doc: Document, data: dict) -> list[Problem]:
    found = []
    for i, rally in enumerate(data.get("rallies", ()) if isinstance(data.get("rallies"), list) else ()):
        races = rally.get("races") if isinstance(rally, dict) else None
        for j, race in enumerate(races if isinstance(races, list) else ()):
            finish = race.get("finish") if isinstance(race, dict) else None
            for player, value in finish.items() if isinstance(finish, dict) else ():
                ok = (
                    value in DESTROYED
                    if isinstance(value, str)
                    else isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_FINISH_ROUND
                )
                if not ok:
                    shown = (
                        repr(value)
                        if not isinstance(value, (dict, list))
                        else "a " + ("mapping" if isinstance(value, dict) else "list")
                    )
                    found.append(
                        doc.problem(
                            ("rallies", i, "races", j, "finish", player),
                            f"{player!r} must have the round the car finished in (1 to {MAX_FINISH_ROUND}) or "
                            f"destroyed / eliminated, got {shown}",
                        )
                    )
    return found


def load_results(doc: Document) -> Results:
    data = doc.data
    problems = check(doc, _outline()) + _finish_problems(doc, data)
    if problems:
        raise SpecError(problems)
    league, problems = load_league(doc, LEAGUE_SCHEMA)
    players = tuple(data["players"])
    calendar: Calendar | None = None
    if "calendar" in data:
        calendar, refused = _load_other(doc, "calendar", "calendar")
        problems += refused
        if calendar is None:
            raise SpecError(problems)
    rallies: list[RallyResult] = []
    seen: dict[str, int] = {}
    previous: RaceResult | None = None
    broken = False  # an earlier race has errors: later departures cannot be derived
    assisted: dict[str, tuple[Assistance, str]] = {}  # player: last recorded assistance, in which race
    for i, raw_rally in enumerate(data["rallies"]):
        base = ("rallies", i)
        key = raw_rally["rally"]
        if key in seen:
            problems.append(
                doc.problem(
                    base + ("rally",),
                    f"rally {key!r} is listed twice (also rally entry {seen[key] + 1}): give all its races in one "
                    "entry",
                )
            )
        seen.setdefault(key, i)
        rally: Rally | None = None
        if calendar is not None:
            rally = calendar.get(key)
            if rally is None:
                problems.append(
                    doc.problem(
                        base + ("rally",),
                        "unknown rally "
                        f"{key!r}{_near(key, [r.id for r in calendar.rallies], 'rallies of the calendar')}",
                    )
                )
        name = raw_rally.get("name") or (rally.name if rally else key)
        races: list[RaceResult] = []
        numbers = {False: 0, True: 0}
        for j, raw in enumerate(raw_rally["races"]):
            where = base + ("races", j)
            found: list[Problem] = []
            if rally is not None:
                special = j >= len(rally.races)
                if j >= len(rally.races) + len(rally.specials):
                    found.append(
                        doc.problem(
                            where,
                            f"rally {rally.id!r} has {len(rally.races)} races and {len(rally.specials)} specials; "
                            f"this is its entry {j + 1}",
                        )
                    )
                if "special" in raw and raw["special"] != special:
                    what = (
                        "a special (it follows the rally's normal races)"
                        if special
                        else f"normal race {j + 1} of the rally"
                    )
                    found.append(doc.problem(where + ("special",), f"with the calendar, this entry is {what}"))
            else:
                special = raw.get("special", False)
            numbers[special] += 1
            if rally is not None:
                race_title = race_name(rally, special, numbers[special])
            else:
                race_title = f"{name}, special {numbers[True]}" if special else f"{name}, race {numbers[False]}"
            race_title = raw.get("name", race_title)
            finish = raw["finish"]
            for player in finish:
                if player not in players:
                    found.append(
                        doc.problem(
                            where + ("finish", player),
                            f"unknown player {player!r}{_near(player, players, 'players')}",
                            key=True,
                        )
                    )
            for player in players:
                if player not in finish:
                    found.append(
                        doc.problem(
                            where + ("finish",),
                            f"no result for {player!r}: give the round {player} finished in, or destroyed",
                        )
                    )
            chosen = raw.get("assistance", {})
            for player, value in chosen.items():
                if player not in players:
                    found.append(
                        doc.problem(
                            where + ("assistance", player),
                            f"unknown player {player!r}{_near(player, players, 'players')}",
                            key=True,
                        )
                    )
                    continue
                before = assisted.get(player)
                if before is not None and before[0] is Assistance.PERMANENT and value == Assistance.NORMAL.value:
                    found.append(
                        doc.problem(
                            where + ("assistance", player),
                            f"{player} had permanent assistance in {before[1]}: it may change between races, but not "
                            "from permanent to normal",
                        )
                    )
                assisted[player] = (Assistance(value), race_title)
            departure, why = _departure(doc, where, raw, players, previous, broken)
            found.extend(why)
            problems.extend(found)
            if found or departure is None:
                broken = True
                continue
            rounds = tuple(None if finish[p] in DESTROYED else finish[p] for p in departure)
            assistance = tuple(Assistance(chosen[p]) if p in chosen else None for p in departure) if chosen else ()
            race = RaceResult(race_title, special, departure, rounds, assistance)
            races.append(race)
            previous = race
        complete = rally is None or numbers[False] >= len(rally.races)
        rallies.append(RallyResult(name, tuple(races), rally.id if rally else None, complete))
    if problems:
        raise SpecError(problems)
    return Results(data["name"], players, tuple(rallies), data.get("calendar"), calendar, league)


def _departure(
    doc: Document, where: tuple, raw: dict, players: tuple[str, ...], previous: RaceResult | None, broken: bool
) -> tuple[tuple[str, ...] | None, list[Problem]]:
    """This race's departure order, given or derived from the previous race's arrival."""
    groups = arrival_groups(previous) if previous is not None and not broken else None
    if "departure" not in raw:
        if previous is None and not broken:
            return players, []
        if groups is None or previous is None:  # (groups come from the race before)
            return None, []
        tied = [g for g in groups if len(g) > 1]
        if tied:
            scores = dict(zip(previous.departure, score_a(previous.finish)))
            words = "; ".join(f"{' and '.join(g)} (score {scores[g[0]]:+d})" for g in tied)
            return None, [
                doc.problem(
                    where, f"tied in {previous.name}: {words}; give this race's 'departure' (the rulebook draws lots)"
                )
            ]
        return tuple(p for g in groups for p in g), []
    departure = tuple(raw["departure"])
    found = []
    for k, player in enumerate(departure):
        if player not in players:
            found.append(
                doc.problem(where + ("departure", k), f"unknown player {player!r}{_near(player, players, 'players')}")
            )
    missing = [p for p in players if p not in departure]
    if missing:
        found.append(
            doc.problem(where + ("departure",), f"the departure order leaves out {', '.join(repr(p) for p in missing)}")
        )
    if found:
        return None, found
    if groups is not None and previous is not None:
        rank = {p: r for r, g in enumerate(groups) for p in g}
        scores = dict(zip(previous.departure, score_a(previous.finish)))
        for k in range(1, len(departure)):
            a, b = departure[k - 1], departure[k]
            if rank[a] > rank[b]:
                return None, [
                    doc.problem(
                        where + ("departure", k - 1),
                        f"{a!r} leaves before {b!r} but arrived after them in {previous.name} (score {scores[a]:+d} "
                        "against "
                        f"{scores[b]:+d}): a race leaves in the order of arrival of the race before",
                    )
                ]
    return departure, []
