"""Seeded play of a whole Rallytaire race under the advanced rules, written like the sheet.

The simulator samples the advanced engine's exact chance outcomes with
``random.Random(seed)`` and asks the solved race policy
(:mod:`sheetgen.games.rallytaire.solve_advanced`) for tyres, gears, options, plans and
fix-points; every rule is the engine's. Concrete dice faces are drawn after the outcome,
with their exact conditional probability given it, only so that the log reads like a real
sheet. Same race, seed and DNF charge give the same log.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from sheetgen import dice
from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.model import BASE_SPEED, Boxes, Race, Surface
from sheetgen.games.rallytaire.rules_advanced import Action, Fix, Option, TyreRule
from sheetgen.games.rallytaire.simulate import corner_marks
from sheetgen.games.rallytaire.solve_advanced import (
    DEFAULT_DNF_PENALTY,
    DEFAULT_DNF_SPACE_SECONDS,
    AdvancedPolicy,
    AdvancedRaceAnalysis,
    DnfRule,
    describe_fix,
    solve_race,
)


@dataclass(frozen=True)
class AdvancedTurnRecord:
    """One move on the sheet (a crash move covers the crash turn and the lost turn, unless the
    crash puts the car out).

    locked: this turn was under a three-of-a-kind lock. locks: this roll locks the next turn.
    checked: boxes checked this turn; left: boxes left unchecked after it.
    plans: corners planned at the end of the turn, as (after space, "N" or "D").
    drifted: corners driven through on a D plan (after spaces)."""

    turn: int
    last_gear: int | None
    action: Action
    locked: bool
    dice: tuple[int, ...]
    speed: int
    start: int
    end: int
    moved: int
    plans: tuple[tuple[int, str], ...]
    drifted: tuple[int, ...]
    checked: Boxes
    left: Boxes
    locks: bool
    crash: int | None
    crash_limit: int | None
    out: bool
    finished: bool
    tenths: int


@dataclass(frozen=True)
class AdvancedStageRun:
    """One stage: its turns, time (the DNF charge not included), and what followed it.

    fix / fix_points / left_after / tyres_after: the fix-points spent after the stage (None
    after the last stage or when the car went out)."""

    name: str
    surface: Surface
    length: int
    tyres: Surface
    left_at_start: Boxes
    turns: tuple[AdvancedTurnRecord, ...]
    tenths: int
    crashes: int
    out: bool
    service_park: bool
    fix_points: int | None
    fix: Fix | None
    left_after: Boxes | None
    tyres_after: Surface | None


@dataclass(frozen=True)
class AdvancedRaceRun:
    """A whole race. tenths: time driven. dnf_tenths: the DNF charge (0 when the car
    finished). race_tenths: what the race counts: both (the solver's objective)."""

    race: str
    seed: int | None
    tyres: Surface
    stages: tuple[AdvancedStageRun, ...]
    out: bool
    dnf: DnfRule
    dnf_tenths: float
    dnf_spaces: int

    @property
    def tenths(self) -> int:
        return sum(s.tenths for s in self.stages)

    @property
    def race_tenths(self) -> float:
        return self.tenths + self.dnf_tenths


@cache
def _face_table(n: int, rule: TyreRule, key: tuple[int, bool]) -> tuple:
    table = dice.conditional_face_counts(n, adv.roll_outcome(rule), key)
    return tuple((c, float(p)) for c, p in table)


def play_race_advanced(
    race: Race, policy: AdvancedPolicy, rng: random.Random, seed: int | None = None
) -> AdvancedRaceRun:
    """Play `race` once with `policy`, drawing every random number from `rng`."""
    if policy.race != race:
        raise ValueError(f"policy was solved for race {policy.race.name!r}, not {race.name!r}")
    tyres = policy.tyres()
    state = adv.race_start(race, tyres)
    runs: list[AdvancedStageRun] = []
    out = False
    dnf_tenths = 0.0
    dnf_spaces = 0
    for k, stage in enumerate(race.stages):
        if k > 0:
            state = adv.next_stage_state(race, k, state.left, state.tyres)
        left_at_start = state.left
        stage_tyres = state.tyres
        rule = adv.tyre_rule(state.tyres, stage.surface)
        turn = 1
        tenths = 0
        crashes = 0
        records: list[AdvancedTurnRecord] = []
        while True:
            action = policy.action(k, state)
            roll = dice.sample(adv.chance_outcomes(stage, state, action), rng)
            n = adv.dice_count(stage, state.tyres, action)
            faces = dice.faces_from_counts(
                rng, _face_table(n, rule, (roll.speed - BASE_SPEED[action.gear], roll.locks))
            )
            mv = adv.apply_move(stage, state, action, roll)
            res = mv.move
            plans: tuple[tuple[int, str], ...] = ()
            if mv.out or mv.finished:
                nxt = adv.next_state(stage, state, mv)
            else:
                opts = adv.plan_options(stage, state, mv)
                drift = policy.plan(k, state, mv)
                nxt = adv.next_state(stage, state, mv, drift)
                plans = tuple(
                    (stage.corners[i].after, "D" if i == drift else "N") for i in opts.entered
                )
            crash_after, crash_limit, drifted = corner_marks(stage, res, state.pending_drift)
            crashes += crash_after is not None
            records.append(
                AdvancedTurnRecord(
                    turn=turn,
                    last_gear=state.last_gear,
                    action=action,
                    locked=state.locked,
                    dice=faces,
                    speed=roll.speed,
                    start=res.start,
                    end=res.position,
                    moved=res.moved,
                    plans=plans,
                    drifted=drifted,
                    checked=mv.checked,
                    left=nxt.left,
                    locks=mv.locks,
                    crash=crash_after,
                    crash_limit=crash_limit,
                    out=mv.out,
                    finished=mv.finished,
                    tenths=mv.tenths,
                )
            )
            turn += mv.turns
            tenths += mv.tenths
            state = nxt
            if mv.out or mv.finished:
                break
        fix = points = left_after = tyres_after = None
        if state.out:
            out = True
            dnf_tenths = policy.dnf.charge_tenths(race, k, state.position)
            dnf_spaces = policy.dnf.spaces_not_reached(race, k, state.position)
        elif k < len(race.stages) - 1:
            points = adv.fix_points(stage)
            fix = policy.fix(k, state.left, state.tyres)
            left_after, tyres_after = adv.apply_fix(race, state.left, state.tyres, fix, points)
            state = adv.AdvancedState(state.base, tyres_after, left_after)
        runs.append(
            AdvancedStageRun(
                name=stage.name,
                surface=stage.surface,
                length=stage.length,
                tyres=stage_tyres,
                left_at_start=left_at_start,
                turns=tuple(records),
                tenths=tenths,
                crashes=crashes,
                out=state.out,
                service_park=stage.service_park,
                fix_points=points,
                fix=fix,
                left_after=left_after,
                tyres_after=tyres_after,
            )
        )
        if out:
            break
    return AdvancedRaceRun(
        race=race.name,
        seed=seed,
        tyres=tyres,
        stages=tuple(runs),
        out=out,
        dnf=policy.dnf,
        dnf_tenths=dnf_tenths,
        dnf_spaces=dnf_spaces,
    )


def simulate_race_advanced(
    race: Race,
    seed: int,
    analysis: AdvancedRaceAnalysis | AdvancedPolicy | None = None,
    dnf_penalty: float = DEFAULT_DNF_PENALTY,
    dnf_space_seconds: float = DEFAULT_DNF_SPACE_SECONDS,
) -> AdvancedRaceRun:
    """Play `race` once under the advanced rules with ``random.Random(seed)``.

    Pass `analysis` (from :func:`analyze_race_advanced`) or a policy to reuse a solve; then
    its DNF charge is used and `dnf_penalty` / `dnf_space_seconds` are ignored."""
    if analysis is None:
        policy = solve_race(race, DnfRule(float(dnf_penalty), float(dnf_space_seconds)))
    elif isinstance(analysis, AdvancedRaceAnalysis):
        policy = analysis.policy
    else:
        policy = analysis
    return play_race_advanced(race, policy, random.Random(seed), seed)


def format_seconds(tenths: float) -> str:
    """Tenths as seconds with one decimal (integers exactly, no float in between)."""
    if float(tenths).is_integer():
        t = int(tenths)
        return f"{t // 10}.{t % 10} s"
    return f"{tenths / 10:.1f} s"


def format_boxes(left: Boxes) -> str:
    return ", ".join(f"{k} {getattr(left, k)}" for k in adv.BOX_KINDS)


def _gear_text(t: AdvancedTurnRecord) -> str:
    a = t.action
    text = f"gear {a.gear}"
    if a.skip:
        text += f" (skip from {t.last_gear}: gearbox box checked, {t.left.gearbox} left)"
    elif t.locked:
        text += " (locked)"
    if a.option is Option.PUSH:
        text += f" + push (engine box checked, {t.left.engine} left)"
    elif a.option is Option.BRAKE:
        text += f" + brake (brakes box checked, {t.left.brakes} left)"
    return text


def format_advanced_turn(t: AdvancedTurnRecord, length: int) -> list[str]:
    faces = " ".join(str(f) for f in t.dice)
    end = "finish" if t.finished else str(t.end)
    line = (
        f"turn {t.turn:>3}: {_gear_text(t)}, dice [{faces}], speed {t.speed}, {t.start} -> {end}"
    )
    notes = [f"drift through corner after {a}" for a in t.drifted]
    if t.crash is not None:
        notes.append(
            f"CRASH at corner after {t.crash} (limit {t.crash_limit}), stopped on {t.crash}"
        )
        if t.out:
            notes.append("last car box checked: OUT of the race (DNF)")
        else:
            notes.append(f"car box checked, {t.left.car} left")
    if t.locks:
        notes.append("three of a kind: gear locked next turn")
    if t.finished:
        notes.append(f"moved {t.moved} to space {length + 1}: +{format_seconds(t.tenths)}")
    if t.plans:
        notes.append("plan " + ", ".join(f"corner after {a}: {p}" for a, p in t.plans))
    lines = [line + ("; " + "; ".join(notes) if notes else "")]
    if t.crash is not None and not t.out:
        lines.append(
            f"turn {t.turn + 1:>3}: lost turn (beside the road at space {t.crash}), 1st gear next"
        )
    return lines


def format_advanced_run(run: AdvancedRaceRun) -> list[str]:
    """The run as sheet lines: tyres, every turn, each stage's time and fix-points, then the
    race time (with the DNF charge when the car went out)."""
    seed = "" if run.seed is None else f", seed {run.seed}"
    out = [f"race {run.race!r}{seed}, advanced rules, tyres: {run.tyres.value}"]
    for n, s in enumerate(run.stages, 1):
        out.append(
            f"stage {n}: {s.name} ({s.surface.value}, {s.length} spaces), tyres {s.tyres.value}, "
            f"boxes left: {format_boxes(s.left_at_start)}"
        )
        for t in s.turns:
            out += ["  " + line for line in format_advanced_turn(t, s.length)]
        crashes = f", {s.crashes} crash{'es' if s.crashes != 1 else ''}" if s.crashes else ""
        if s.out:
            out.append(f"  out after {format_seconds(s.tenths)} on this stage{crashes}")
        else:
            out.append(f"  stage time: {format_seconds(s.tenths)}{crashes}")
        if s.fix is not None:
            assert s.left_after is not None and s.tyres_after is not None
            where = "service park" if s.service_park else "no service park"
            out.append(
                f"fix-points after stage {n}: {s.fix_points} ({where}): {describe_fix(s.fix)}; "
                f"boxes left: {format_boxes(s.left_after)}, tyres {s.tyres_after.value}"
            )
    if run.out:
        out.append(
            f"race: OUT (DNF) on stage {len(run.stages)}: driven {format_seconds(run.tenths)}"
            f" + DNF charge {run.dnf.penalty:g} s + {run.dnf.space_seconds:g} s x "
            f"{run.dnf_spaces} spaces not reached = {format_seconds(run.race_tenths)}"
        )
    else:
        out.append(f"race time: {format_seconds(run.tenths)}")
    return out
