"""Rally Run!: a 5x5 grid of face-down road tiles around a pit stop, a start-finish tile at
each corner, a trophy per player; turn a tile over and drive onto it, or switch two tiles.

Modules: `model` (pure data), `spec` (YAML tile sets; the format is documented there), `graph`
(reachability over rotation choices, networkx), `rules` (the engine), `simulate` (seeded play
and its two policies), `report` (the analysis, text and JSON) and `generate` (new tile sets).
"""

from typing import Any

from sheetgen.registry import Game, Generator, Kind, Option, Options, Printable, Report


def _load(doc: Any):
    from sheetgen.games.rally_run.spec import load_set

    return load_set(doc)


def _schema() -> dict:
    from sheetgen.games.rally_run.spec import SCHEMA

    return SCHEMA


def _summary(tiles) -> str:
    board = ", fixed board" if tiles.board is not None else ""
    house = ", house set" if tiles.house_set else ""
    return (
        f"tile set, {tiles.road_tiles} road tiles in {len(tiles.kinds)} kinds, {tiles.size}x{tiles.size} "
        f"grid{board}{house}"
    )


def _analyze(loaded: Any, options: Options) -> Report:
    from sheetgen.games.rally_run.report import analyze_set, format_analysis_text

    data = analyze_set(
        loaded.model,
        seed=options["seed"],
        games=options["games"],
        players=options["players"],
        policy=options["policy"],
        rounds=options["rounds"],
    )
    return Report(data, format_analysis_text(data))


def _simulate(loaded: Any, options: Options):
    from sheetgen.games.rally_run.simulate import play, transcript

    tiles = loaded.model
    players = options["players"] or 2
    return lambda seed: transcript(play(tiles, seed, players, options["policy"], options["rounds"]))


def _engine_start(loaded: Any, options: Options) -> Any:
    """The game `simulate` plays, as the engine's first state: `--players` cars (else 2) and
    `--rounds` rounds at most."""
    from sheetgen.games.rally_run.rules import RunState

    return RunState.start(loaded.model, options["players"] or 2, options["rounds"])


def _duplex(model: Any) -> str:
    """A tile set is printed double-sided (the road tiles' backs), flipped on its own edge."""
    return str(model.duplex)


def _strict(spec: Any, figures: Any = None) -> list:
    """A set that cannot make a road (no road tile joins two sides, so no car ever leaves its
    start-finish tile) cannot be finished, whatever the shuffle: refused at its tiles."""
    tiles = spec.model
    if any(len(kind.openings) >= 2 and kind.count > 0 for kind in tiles.kinds):
        return []
    return [
        spec.document.problem(
            ("tiles",),
            "no game on this set can be finished: no road tile joins two sides (give some straights or curves, e.g. "
            "openings: NS)",
        )
    ]


def _generate(seed: int, options: Options, folder: str = ".") -> str:  # (no path in the spec: `folder` unused)
    from sheetgen.cliutil import say_when_done
    from sheetgen.games.rally_run.generate import generate_set

    made = generate_set(seed, players=options["players"] or 3, target=options["target_turns"])
    if made.warning is not None:  # the set is written all the same: the nearest drawn (said once it is)
        say_when_done(f"warning: {made.warning}")
    return made.text


GAME = Game(
    name="rally_run",
    title="Rally Run!",
    schema=_schema,
    load=_load,
    summary=_summary,
    kinds=(Kind("set", "a set of road tiles, the pit stop, start-finish and trophy tiles", "tile set"),),
    template="rally_risk",  # the built-in template of tiles and cards (any template draws any game)
    options=(
        Option(
            "players",
            "cars in the game, 2 to 4 (default: analyze plays 2, 3 and 4; simulate 2; generate 3)",
            ("analyze", "simulate", "generate"),
            between=(2, 4),
        ),
        Option(
            "policy",
            "how the players play: greedy drivers or random legal players (default: greedy)",
            ("analyze", "simulate"),
            choices=("greedy", "random"),
            default="greedy",
        ),
        Option(
            "games",
            "games played first per number of players, at most 100 (default: 30); then batches of 10 more "
            "until the seats' win shares are ranked or 5,000 turns are played",
            ("analyze",),
            between=(1, 100),
            default=30,
        ),
        Option("seed", "the seed of the games analysed (default: 1)", ("analyze",), between=(0, 2**31 - 1), default=1),
        Option(
            "rounds",
            "rounds before a game ends unfinished (default: 100)",
            ("analyze", "simulate"),
            between=(5, 1000),
            default=100,
        ),
        Option(
            "target-turns",
            "the median rounds a game should last (default: 14)",
            ("generate",),
            between=(6, 60),
            default=14,
        ),
    ),
    strict=_strict,
    analyze=_analyze,
    simulate=_simulate,
    engine_start=_engine_start,
    printables=(
        Printable(
            "road, pit stop, start-finish and trophy tiles and cars, the road tiles' backs and a rules summary",
            ("set",),
            "sheetgen.render.rally_run.tiles:print_set",
            duplex=_duplex,
        ),
    ),
    generator=Generator(_generate, "a new tile set whose simulated median game length is near --target-turns"),
)
