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


def analyze_set(
    tiles: TileSet,
    *,
    seed: int = 1,
    games: int = 30,
    players: int | None = None,
    policy: str = "greedy",
    rounds: int = 100,
) -> dict:
    counts = [players] if players else [2, 3, 4]
    blocks = []
    all_rounds: list[int] = []
    finished_all = 0
    for n in counts:
        played = [play(tiles, game_seed(seed, n, k), n, policy, rounds, keep=False) for k in range(games)]
        done = [g for g in played if g.finished]
        lengths = [g.rounds for g in done]
        all_rounds += lengths
        finished_all += len(done)
        wins = [sum(g.end.winner == s for g in done) for s in range(n)]
        blocks.append({
            "players": n,
            "games": games,
            "finished_share": round(len(done) / games, 4),
            "turns": _turns(lengths),
            "seat_win_share": [round(w / len(done), 4) if done else None for w in wins],
        })
    total = games * len(counts)
    data = {
        "set": tiles.name,
        "house_set": tiles.house_set,
        "policy": policy,
        "seed": seed,
        "turn_cap": rounds,
        "games": total,
        "finished_share": round(finished_all / total, 4),
        "turns": _turns(all_rounds),
        "sealed_start_share": sealed_share(tiles, 4 * games, seed),
        # each seat's share of the finished games, per number of players ("2": [seat 1, seat 2])
        "seat_win_share": {str(block["players"]): block["seat_win_share"] for block in blocks},
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
    lines.append(f"  a start sealed off on the dealt board: {_share(data['sealed_start_share'])} of starts")
    for block in data["by_players"]:
        t = block["turns"]
        seats = ", ".join(f"seat {k + 1} {_share(s)}" for k, s in enumerate(block["seat_win_share"]))
        lines.append(
            f"  {block['players']} players: finished {_share(block['finished_share'])}, median {_n(t['p50'])} rounds; "
            f"wins: {seats}"
        )
    if data["starts"] is not None:
        lines.append("Fixed board, with the rotations the players choose (no switching):")
        for s in data["starts"]:
            pit = "reaches the pit stop" if s["reaches_pit"] else "cannot reach the pit stop"
            fin = "reachable from the pit stop" if s["reaches_finish"] else "not reachable from the pit stop"
            lines.append(f"  {s['corner']} {s['name']} ({s['colour']}): a car starting here {pit}; as a finish, {fin}")
    return "\n".join(lines)
