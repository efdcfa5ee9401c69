"""Seeded Monte Carlo play of Rallytaire stages, written down the way a player fills the sheet.

The simulator samples the engine's exact chance outcomes with ``random.Random(seed)`` and
asks a solver policy for gears and plans; every rule is the engine's. Concrete dice faces are
drawn after the speed, consistent with it, only so that the log reads like a real sheet.
Same race, seed and policy give the same log.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sheetgen import dice
from sheetgen.games.rallytaire import rules
from sheetgen.games.rallytaire.model import Race, Stage
from sheetgen.games.rallytaire.solve import PolicyName, RaceAnalysis, StagePolicy, analyze_race


@dataclass(frozen=True)
class TurnRecord:
    """One move on the sheet (a crash move covers the crash turn and the lost turn).

    plans: corners planned at the end of the turn, as (corner's after space, "N" or "D").
    drifted: corners driven through this move on a D plan (after spaces).
    """

    turn: int
    gear: int
    dice: tuple[int, ...]
    speed: int
    start: int
    end: int
    moved: int
    plans: tuple[tuple[int, str], ...]
    drifted: tuple[int, ...]
    crash: int | None  # after space of the corner crashed at
    crash_limit: int | None  # that corner's gear limit, +1 if it was planned D
    finished: bool
    tenths: int


@dataclass(frozen=True)
class StageRun:
    name: str
    length: int
    turns: tuple[TurnRecord, ...]
    tenths: int
    crashes: int


@dataclass(frozen=True)
class RaceRun:
    race: str
    seed: int
    policy: PolicyName
    stages: tuple[StageRun, ...]

    @property
    def tenths(self) -> int:
        return sum(s.tenths for s in self.stages)


def corner_marks(stage: Stage, res: rules.MoveResult, pending_drift: int | None) -> tuple[int | None, int | None, tuple[int, ...]]:
    """What a move writes beside the track: the corner crashed at (its after space) and the
    limit that was broken (+1 when planned D), and the corners drifted through."""
    crash_after = crash_limit = None
    if res.crash is not None:
        corner = stage.corners[res.crash]
        crash_after = corner.after
        crash_limit = corner.gear + (1 if res.crash == pending_drift else 0)
    drifted = tuple(stage.corners[i].after for i in res.crossed if i == pending_drift)
    return crash_after, crash_limit, drifted


def play_stage(stage: Stage, policy: StagePolicy, rng: random.Random) -> StageRun:
    """Play one stage to the finish with `policy`, drawing every random number from `rng`."""
    if policy.stage != stage:
        raise ValueError(f"policy was solved for stage {policy.stage.name!r}, not {stage.name!r}")
    state = rules.initial_state(stage)
    turn = 1
    tenths = 0
    crashes = 0
    records: list[TurnRecord] = []
    while not rules.finished(stage, state):
        gear = policy.gear(state)
        speed = dice.sample(rules.chance_outcomes(stage, state, gear), rng)
        faces = dice.faces_with_successes(
            rng,
            rules.dice_count(stage, gear),
            rules.successes_for_speed(stage, gear, speed),
            rules.success_faces(stage),
        )
        res = rules.apply_move(stage, state, gear, speed)
        plans: tuple[tuple[int, str], ...] = ()
        nxt = state
        if not res.finished:
            opts = rules.plan_options(stage, state, res)
            drift = policy.plan(state, gear, speed)
            nxt = rules.next_state(stage, state, res, drift)
            plans = tuple(
                (stage.corners[i].after, "D" if i == drift else "N") for i in opts.entered
            )
        crash_after, crash_limit, drifted = corner_marks(stage, res, state.pending_drift)
        crashes += crash_after is not None
        records.append(
            TurnRecord(
                turn=turn,
                gear=gear,
                dice=faces,
                speed=speed,
                start=res.start,
                end=res.position,
                moved=res.moved,
                plans=plans,
                drifted=drifted,
                crash=crash_after,
                crash_limit=crash_limit,
                finished=res.finished,
                tenths=res.tenths,
            )
        )
        turn += res.turns
        tenths += res.tenths
        state = nxt if not res.finished else rules.next_state(stage, state, res)
    return StageRun(stage.name, stage.length, tuple(records), tenths, crashes)


def simulate_race(
    race: Race,
    seed: int,
    policy: PolicyName = "optimal",
    analysis: RaceAnalysis | None = None,
) -> RaceRun:
    """Play every stage of `race` in order with one ``random.Random(seed)``.

    Pass `analysis` (from :func:`analyze_race`) to reuse solved policies."""
    if policy not in ("optimal", "cautious"):
        raise ValueError(f"unknown policy: {policy!r} (expected 'optimal' or 'cautious')")
    if analysis is None:
        analysis = analyze_race(race)
    if len(analysis.stages) != len(race.stages):
        raise ValueError(
            f"analysis has {len(analysis.stages)} stages, race {race.name!r} has {len(race.stages)}"
        )
    rng = random.Random(seed)
    runs = tuple(
        play_stage(stage, sa.policy_named(policy), rng)
        for stage, sa in zip(race.stages, analysis.stages, strict=True)
    )
    return RaceRun(race.name, seed, policy, runs)


def format_seconds(tenths: int) -> str:
    """Integer tenths as seconds with one decimal, no float in between."""
    return f"{tenths // 10}.{tenths % 10} s"


def format_turn(t: TurnRecord, length: int) -> list[str]:
    faces = " ".join(str(f) for f in t.dice)
    end = "finish" if t.finished else str(t.end)
    line = f"turn {t.turn:>3}: gear {t.gear}, dice [{faces}], speed {t.speed}, {t.start} -> {end}"
    notes = [f"drift through corner after {a}" for a in t.drifted]
    if t.crash is not None:
        notes.append(
            f"CRASH at corner after {t.crash} (limit {t.crash_limit}), stopped on {t.crash}"
        )
    if t.finished:
        notes.append(f"moved {t.moved} to space {length + 1}: +{format_seconds(t.tenths)}")
    if t.plans:
        notes.append("plan " + ", ".join(f"corner after {a}: {p}" for a, p in t.plans))
    lines = [line + ("; " + "; ".join(notes) if notes else "")]
    if t.crash is not None:
        lines.append(
            f"turn {t.turn + 1:>3}: lost turn (beside the road at space {t.crash}), 1st gear next"
        )
    return lines


def format_race_run(run: RaceRun) -> list[str]:
    """The run as sheet lines: every turn, each stage's time, then the race time."""
    out = [f"race {run.race!r}, seed {run.seed}, {run.policy} policy"]
    for n, s in enumerate(run.stages, 1):
        out.append(f"stage {n}: {s.name} ({s.length} spaces)")
        for t in s.turns:
            out += ["  " + line for line in format_turn(t, s.length)]
        crashes = f", {s.crashes} crash{'es' if s.crashes != 1 else ''}" if s.crashes else ""
        out.append(f"  stage time: {format_seconds(s.tenths)}{crashes}")
    out.append(f"race time: {format_seconds(run.tenths)}")
    return out
