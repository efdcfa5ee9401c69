"""Rallytaire's reports: simulated races as the sheet lines a player would write.

Both rule sets' runs (:class:`~sheetgen.games.rallytaire.simulate.RaceRun`) are written from
one kind of turn record: :func:`format_race_run` for the basic game, :func:`format_advanced_run`
for the advanced one (boxes, options, locks, fix-points and the DNF charge);
:func:`format_run` picks by the run's rules.
"""

from __future__ import annotations

from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.model import Boxes
from sheetgen.games.rallytaire.rules_advanced import Option
from sheetgen.games.rallytaire.simulate import RaceRun, TurnRecord
from sheetgen.games.rallytaire.solve_advanced import describe_fix


def format_seconds(tenths: float) -> str:
    """Tenths as seconds with one decimal (integers exactly, no float in between)."""
    if float(tenths).is_integer():
        t = int(tenths)
        return f"{t // 10}.{t % 10} s"
    return f"{tenths / 10:.1f} s"


def format_boxes(left: Boxes) -> str:
    return ", ".join(f"{k} {getattr(left, k)}" for k in adv.BOX_KINDS)


def format_run(run: RaceRun) -> list[str]:
    """The run as sheet lines, in its rules' words."""
    return format_advanced_run(run) if run.rules == "advanced" else format_race_run(run)


# --------------------------------------------------------------------------- the basic game


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


# --------------------------------------------------------------------------- the advanced game


def _gear_text(t: TurnRecord) -> str:
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


def format_advanced_turn(t: TurnRecord, length: int) -> list[str]:
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


def format_advanced_run(run: RaceRun) -> list[str]:
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
