"""The analysis of a Rally Run! tile set (`sheetgen analyze`), as JSON data and as text.

Games are played under the chosen policy with 2, 3 and 4 players (or the `--players` given),
game k of each player count with seed `seed * 1_000_003 + 1000 * players + k`, so that every
figure depends on the set, the options and the seed only. A start is sealed off when, on the
board as dealt (a shuffle of the road tiles, deal k with its own seed), a car starting there
cannot reach the pit stop whatever rotations its player chooses (sheetgen.games.rally_run.graph;
switching tiles left out). A fixed board is checked as it lies.
"""

from __future__ import annotations

import math
import random

from sheetgen.games.rally_run.graph import Laid, board_of, reachability, sealed_starts
from sheetgen.games.rally_run.model import TileSet
from sheetgen.games.rally_run.simulate import play

HOUSE_NOTE = "house set: the published game's tile counts are unknown; these are sheetgen's own"


def game_seed(seed: int, players: int, k: int) -> int:
    return seed * 1_000_003 + 1000 * players + k


def percentile(values: list[int], share: float) -> float | None:
    """The nearest-rank percentile (the smallest value with at least `share` of them at or below)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]


def dealt(tiles: TileSet, rng: random.Random) -> dict[tuple[int, int], Laid]:
    """A shuffle of the set's road tiles laid face down around the pit stop, row by row."""
    pile = [k.openings for k in tiles.kinds for _ in range(k.count)]
    rng.shuffle(pile)
    cells = [(r, c) for r in range(tiles.size) for c in range(tiles.size) if (r, c) != tiles.pit]
    return {cell: Laid(openings) for cell, openings in zip(cells, pile)}


def sealed_share(tiles: TileSet, deals: int, seed: int) -> float:
    if tiles.board is not None:
        return sealed_starts(tiles, board_of(tiles)) / 4
    sealed = sum(sealed_starts(tiles, dealt(tiles, random.Random(seed * 1_000_003 + k))) for k in range(deals))
    return round(sealed / (4 * deals), 4)


#: The first `--games` games of each player count stop once the analysis has played this many
#: turns in all (a round of every count is played first): a greedy player's turn costs up to
#: about 0.8 ms of CPU, so 100 games of 2, 3 and 4 players (about 12,600 turns on the house
#: set) took 10.8 s and games that never finish up to a minute; `analyze` answers within 10 s of
#: CPU (issue 33). A count, not a clock: the same set, options and seed give the same games.
FIRST_GAMES_TURN_LIMIT = 6_000

#: z of a two-sided 95 % interval
Z95 = 1.959963984540054
#: Seat shares are played on until ranked (RN-22): extra games go in batches of this many
#: per player count still unranked ...
SEAT_BATCH = 10
#: ... while the analysis has played fewer turns than this in all (every player's turn of
#: every game, the first `games` of each player count included): about 1 ms of CPU a turn on
#: a busy 2-core machine, so `analyze` of a set stays within about 6 s of CPU (10 s is the
#: limit). A count, not a clock: the same set, options and seed give the same games.
SEAT_TURN_BUDGET = 5_000


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share of wins out of games (95 % by default)."""
    if games <= 0:
        raise ValueError("an interval needs at least one game")
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def ranked(wins: list[int], games: int) -> bool:
    """Whether the seats' win shares are ranked: in order of wins, each seat's 95 % interval
    lies wholly above the next one's (no two alike)."""
    if games <= 0:
        return False
    order = sorted(wins, reverse=True)
    return all(wilson(a, games)[0] > wilson(b, games)[1] for a, b in zip(order, order[1:]))


def analyze_set(
    tiles: TileSet,
    *,
    seed: int = 1,
    games: int = 30,
    players: int | None = None,
    policy: str = "greedy",
    rounds: int = 100,
    budget: int = SEAT_TURN_BUDGET,
    limit: int = FIRST_GAMES_TURN_LIMIT,
) -> dict:
    counts = [players] if players else [2, 3, 4]
    played: dict[int, list] = {n: [] for n in counts}
    turns = 0
    # the first `games` of each player count, in turn (the k-th of each, then the next), so
    # that the turn limit, when it stops them, leaves each count as many games as the others
    for k in range(games):
        if k and turns >= limit:
            break
        for n in counts:
            g = play(tiles, game_seed(seed, n, k), n, policy, rounds, keep=False)
            played[n].append(g)
            turns += g.end.turns

    def wins(n: int) -> list[int]:
        return [sum(g.end.winner == s for g in played[n]) for s in range(n)]

    def finished(n: int) -> int:
        return sum(g.finished for g in played[n])

    open_ = [n for n in counts if not ranked(wins(n), finished(n))]
    while open_ and turns < budget:
        for n in open_:
            for _ in range(SEAT_BATCH):
                if turns >= budget:
                    break
                g = play(tiles, game_seed(seed, n, len(played[n])), n, policy, rounds, keep=False)
                played[n].append(g)
                turns += g.end.turns
        open_ = [n for n in open_ if not ranked(wins(n), finished(n))]
    blocks = []
    all_rounds: list[int] = []
    finished_all = looped_all = 0
    for n in counts:
        done = [g for g in played[n] if g.finished]
        lengths = [g.rounds for g in done]
        all_rounds += lengths
        finished_all += len(done)
        looped = sum(g.looped is not None for g in played[n])
        looped_all += looped
        won = wins(n)
        blocks.append({
            "players": n,
            "games": len(played[n]),
            "finished_share": round(len(done) / len(played[n]), 4),
            "looping_share": round(looped / len(played[n]), 4),
            "turns": _turns(lengths),
            "seat_win_share": [round(w / len(done), 4) if done else None for w in won],
            "seat_win_interval": [[round(x, 4) for x in wilson(w, len(done))] if done else None for w in won],
            "seats_ranked": ranked(won, len(done)),
        })
    total = sum(len(p) for p in played.values())
    data = {
        "set": tiles.name,
        "house_set": tiles.house_set,
        "policy": policy,
        "seed": seed,
        "turn_cap": rounds,
        "games": total,
        "turns_played": turns,
        "turn_budget": budget,
        # the first games stop at this many turns in all (every count has the same number of
        # games, give or take its last round): `games_asked` per count, `games` what was played
        "games_asked": games,
        "turn_limit": limit,
        "stopped_at_turn_limit": any(len(played[n]) < games for n in counts),
        "finished_share": round(finished_all / total, 4),
        # greedy games stopped at a position come back (RN-21): never finished, but not sealed
        "looping_share": round(looped_all / total, 4),
        "turns": _turns(all_rounds),
        "sealed_start_share": sealed_share(tiles, 4 * games, seed),
        # each seat's share of the finished games, per number of players ("2": [seat 1, seat 2]),
        # and its Wilson 95 % interval
        "seat_win_share": {str(block["players"]): block["seat_win_share"] for block in blocks},
        "seat_win_interval": {str(block["players"]): block["seat_win_interval"] for block in blocks},
        "by_players": blocks,
        "starts": None,  # a fixed board: per start, whether it reaches the pit stop and its finish
    }
    if tiles.board is not None:
        data["starts"] = [
            {
                "corner": r.corner,
                "colour": r.colour,
                "name": r.name,
                "reaches_pit": r.reaches_pit,
                "reaches_finish": r.reaches_finish,
            }
            for r in reachability(tiles, board_of(tiles))
        ]
    return data


def _turns(lengths: list[int]) -> dict:
    return {"p10": percentile(lengths, 0.1), "p50": percentile(lengths, 0.5), "p90": percentile(lengths, 0.9)}


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _n(value) -> str:
    return "-" if value is None else f"{value:g}"


def format_analysis_text(data: dict) -> str:
    lines = [f"{data['set']}: Rally Run! tile set"]
    if data["house_set"]:
        lines.append(f"  ({HOUSE_NOTE})")
    t = data["turns"]
    lines.append(
        f"{data['games']} games, {data['policy']} drivers, seed {data['seed']}, at most {data['turn_cap']} rounds:"
    )
    lines.append(
        f"  finished {_share(data['finished_share'])}; rounds to win p10 {_n(t['p10'])}, median {_n(t['p50'])}, p90 "
        f"{_n(t['p90'])}"
    )
    if data["looping_share"]:
        lines.append(
            f"  looping {_share(data['looping_share'])}: the greedy drivers came back to a position and would repeat "
            "it for ever (stopped, no winner)"
        )
    lines.append(f"  a start sealed off on the dealt board: {_share(data['sealed_start_share'])} of starts")
    for block in data["by_players"]:
        t = block["turns"]
        seats = ", ".join(
            f"seat {k + 1} {_share(s)}" + ("" if i is None else f" ({100 * i[0]:.0f}-{100 * i[1]:.0f}%)")
            for k, (s, i) in enumerate(zip(block["seat_win_share"], block["seat_win_interval"]))
        )
        loops = f", looping {_share(block['looping_share'])}" if block["looping_share"] else ""
        order = "ranked" if block["seats_ranked"] else "not ranked: the intervals overlap"
        lines.append(
            f"  {block['players']} players, {block['games']} games: finished {_share(block['finished_share'])}{loops}, "
            f"median {_n(t['p50'])} rounds; wins (95% interval): {seats}; {order}"
        )
    if data["stopped_at_turn_limit"]:
        lines.append(
            f"  the first games stopped at {data['turn_limit']:,} turns in all: fewer than the {data['games_asked']} "
            "asked for each number of players (the games column gives them)"
        )
    lines.append(
        f"  seat shares played until ranked or {data['turn_budget']:,} turns in all ({data['turns_played']:,} played)"
    )
    if data["starts"] is not None:
        lines.append("Fixed board, with the rotations the players choose (no switching):")
        for s in data["starts"]:
            pit = "reaches the pit stop" if s["reaches_pit"] else "cannot reach the pit stop"
            fin = "reachable from the pit stop" if s["reaches_finish"] else "not reachable from the pit stop"
            lines.append(f"  {s['corner']} {s['name']} ({s['colour']}): a car starting here {pit}; as a finish, {fin}")
    return "\n".join(lines)
