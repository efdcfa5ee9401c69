"""Rallytaire's reports: the analyses (text and JSON) and simulated races (sheet lines).

Analyses: :func:`analysis_to_json` and :func:`format_analysis_text` for the basic game's
:class:`~sheetgen.games.rallytaire.solve.RaceAnalysis`, :func:`advanced_analysis_to_json` and
:func:`format_advanced_text` for the advanced game's
:class:`~sheetgen.games.rallytaire.analysis_advanced.AdvancedRaceAnalysis`; the corners are written
alike for both. Runs: both rule sets' :class:`~sheetgen.games.rallytaire.simulate.RaceRun` are
written from one kind of turn record: :func:`format_race_run` for the basic game,
:func:`format_advanced_run` for the advanced one (boxes, options, locks, fix-points and the DNF
charge); :func:`format_run` picks by the run's rules.
"""

from __future__ import annotations

from typing import TypeVar

from sheetgen.games.rallytaire import rules_advanced as adv
from sheetgen.games.rallytaire.analysis_advanced import AdvancedRaceAnalysis
from sheetgen.games.rallytaire.model import Boxes
from sheetgen.games.rallytaire.rules import RulesError
from sheetgen.games.rallytaire.rules_advanced import Fix, Option
from sheetgen.games.rallytaire.simulate import RaceRun, TurnRecord
from sheetgen.games.rallytaire.solve import CornerAnalysis, RaceAnalysis
from sheetgen.textfmt import pct as _pct
from sheetgen.textfmt import table as _table

# --------------------------------------------------------------------------- analyses


def _r(x: float) -> float:
    return round(x, 4)


def corner_json(c: CornerAnalysis) -> dict:
    """One corner of a stage report as JSON (basic and advanced): its crash and drift chances."""
    return {
        "after": c.after,
        "gear": c.gear,
        "zone": c.zone,
        "turn": c.turn,
        "crash_probability": _r(c.crash_probability),
        "drift_probability": _r(c.drift_probability),
    }


def analysis_to_json(race_analysis: RaceAnalysis) -> dict:
    """Plain JSON-ready dict; floats rounded to 4 decimals, times in seconds."""
    return {
        "race": race_analysis.name,
        "stages": [
            {
                "name": s.name,
                "par_time": _r(s.par_time),
                "best_time": _r(s.best_time),
                "crash_probability": _r(s.crash_probability),
                "percentiles": {"p10": _r(s.p10), "p50": _r(s.p50), "p90": _r(s.p90)},
                "cautious_time": _r(s.cautious_time),
                "corners": [corner_json(c) for c in s.corners],
            }
            for s in race_analysis.stages
        ],
    }


def corner_table(corners) -> list[str]:
    """The per-corner lines of a stage report (basic and advanced): crash and drift chances."""
    if not corners:
        return ["  no corners"]
    rows = [
        [str(c.after), str(c.gear), str(c.zone), c.turn, _pct(c.crash_probability), _pct(c.drift_probability)]
        for c in corners
    ]
    return ["  " + r for r in _table(["After", "Gear", "Zone", "Turn", "Crash", "Drift"], rows, left=frozenset({3}))]


def format_analysis_text(race_analysis: RaceAnalysis) -> str:
    """A summary table (one row per stage), then one small corner table per stage."""
    out = [f"Race: {race_analysis.name}", ""]
    rows = []
    for s in race_analysis.stages:
        k = s.killer_corner
        bites = (
            "-" if k is None else f"after {k.after} (gear {k.gear}, {_pct(k.crash_probability)})"
        )
        rows.append(
            [
                s.name,
                str(s.length),
                str(len(s.corners)),
                f"{s.par_time:.1f}",
                f"{s.best_time:.1f}",
                f"{s.p10:.1f}",
                f"{s.p50:.1f}",
                f"{s.p90:.1f}",
                f"{s.cautious_time:.1f}",
                _pct(s.crash_probability),
                bites,
            ]
        )
    header = ["Stage", "Spaces", "Corners", "Par", "Best", "P10", "P50", "P90", "Cautious"]
    header += ["Crash", "Bites most"]
    out += _table(header, rows, left=frozenset({0, len(header) - 1}))
    out.append(f"Race par: {race_analysis.par_time:.1f} s (times in seconds)")
    for s in race_analysis.stages:
        out += ["", f"{s.name}: par {s.par_time:.1f} s, crash {_pct(s.crash_probability)}"]
        out += corner_table(s.corners)
    return "\n".join(out) + "\n"


def _fix_json(fix: Fix) -> dict:
    return {
        "engine": fix.engine,
        "brakes": fix.brakes,
        "gearbox": fix.gearbox,
        "car": fix.car,
        "tyres": None if fix.tyres is None else fix.tyres.value,
    }


def advanced_analysis_to_json(analysis: AdvancedRaceAnalysis) -> dict:
    """Plain JSON-ready dict with the basic analysis's shape ({"race", "stages"}) plus the
    race figures; floats rounded to 4 decimals, times in seconds, expected counts per race
    started."""
    stages = []
    for s in analysis.stages:
        fix = None
        if s.fix is not None:
            f = s.fix
            fix = {
                "points": f.points,
                "service_park": f.service_park,
                "reach_probability": _r(f.reach_probability),
                "expected": {
                    "engine": _r(f.expected_engine),
                    "brakes": _r(f.expected_brakes),
                    "gearbox": _r(f.expected_gearbox),
                    "car": _r(f.expected_car),
                    "tyre_change": _r(f.tyre_change_probability),
                },
                "most_likely": dict(
                    _fix_json(f.most_likely), probability=_r(f.most_likely_probability)
                ),
                "tyres_after": {t.value: _r(p) for t, p in f.tyres_after},
            }
        stages.append(
            {
                "name": s.name,
                "surface": s.surface.value,
                "length": s.length,
                "par_time": _r(s.par_time),
                "reach_probability": _r(s.reach_probability),
                "dnf_probability": _r(s.dnf_probability),
                "expected_crashes": _r(s.expected_crashes),
                "tyres": {t.value: _r(p) for t, p in s.tyres},
                "options": {
                    "push": _r(s.options.push),
                    "brake": _r(s.options.brake),
                    "skip": _r(s.options.skip),
                },
                "three_of_a_kind_locks": _r(s.locks),
                "corners": [corner_json(c) for c in s.corners],
                "fix_points": fix,
            }
        )
    return {
        "race": analysis.name,
        "rules": "advanced",
        "race_par_time": _r(analysis.race_par_time),
        "dnf_probability": _r(analysis.dnf_probability),
        # race time percentiles under the optimal policy (None: it goes out too often)
        "p10": analysis.p10,
        "p50": analysis.p50,
        "p90": analysis.p90,
        "tyres": analysis.tyres.value,
        "tyre_par_times": {t.value: _r(p) for t, p in analysis.tyre_par_times},
        "boxes": {k: getattr(analysis.boxes, k) for k in adv.BOX_KINDS},
        "dnf_penalty": {
            "seconds": analysis.dnf.penalty,
            "seconds_per_space_not_reached": analysis.dnf.space_seconds,
        },
        "stages": stages,
    }


def describe_fix(fix: Fix) -> str:
    """'uncheck 1 car, 1 engine; change tyres to snow', or 'nothing'."""
    kinds = ("car", "engine", "gearbox", "brakes")
    parts = [f"{getattr(fix, k)} {k}" for k in kinds if getattr(fix, k)]
    text = "uncheck " + ", ".join(parts) if parts else ""
    if fix.tyres is not None:
        text += ("; " if text else "") + f"change tyres to {fix.tyres.value}"
    return text or "nothing"


def format_advanced_text(analysis: AdvancedRaceAnalysis) -> str:
    """Race summary, one row per stage, the fix-points between stages, then each stage's
    corners."""
    b = analysis.boxes
    out = [
        f"Race: {analysis.name} (advanced rules)",
        f"Boxes: engine {b.engine}, brakes {b.brakes}, gearbox {b.gearbox}, car {b.car}; "
        f"DNF charge: {analysis.dnf.penalty:g} s + {analysis.dnf.space_seconds:g} s per space "
        "not reached",
        f"Tyres: {analysis.tyres.value} (race par with "
        + ", ".join(f"{t.value} {p:.1f} s" for t, p in analysis.tyre_par_times)
        + ")",
        "",
    ]
    rows = []
    for s in analysis.stages:
        tyres = ", ".join(
            t.value + ("" if p > 1 - 1e-9 else f" {_pct(p)}") for t, p in s.tyres
        )
        rows.append(
            [
                s.name,
                s.surface.value,
                str(s.length),
                f"{s.par_time:.1f}",
                _pct(s.dnf_probability),
                f"{s.expected_crashes:.2f}",
                f"{s.options.push:.2f}",
                f"{s.options.brake:.2f}",
                f"{s.options.skip:.2f}",
                f"{s.locks:.2f}",
                tyres,
            ]
        )
    header = ["Stage", "Surface", "Spaces", "Par", "DNF", "Crashes", "Push", "Brake", "Skip"]
    header += ["Locks", "Tyres"]
    out += _table(header, rows, left=frozenset({0, 1, len(header) - 1}))
    out.append(
        f"Race par: {analysis.race_par_time:.1f} s, DNF {_pct(analysis.dnf_probability)} "
        "(par includes the DNF charge; option columns are expected turns per race)"
    )
    pcts = ", ".join(
        f"{name} {'-' if v is None else f'{v:.1f} s'}"
        for name, v in (("p10", analysis.p10), ("p50", analysis.p50), ("p90", analysis.p90))
    )
    out.append(f"Race time: {pcts} (a car that goes out never finishes)")
    for s in analysis.stages:
        if s.fix is None:
            continue
        f = s.fix
        where = "service park" if f.service_park else "no service park"
        out += [
            "",
            f"After {s.name}: {f.points} fix-points ({where}); most often "
            f"{describe_fix(f.most_likely)} ({_pct(f.most_likely_probability)}); on average "
            f"car {f.expected_car:.2f}, engine {f.expected_engine:.2f}, gearbox "
            f"{f.expected_gearbox:.2f}, brakes {f.expected_brakes:.2f}, tyre change "
            f"{_pct(f.tyre_change_probability)}",
        ]
    for s in analysis.stages:
        out += ["", f"{s.name}: par {s.par_time:.1f} s, DNF {_pct(s.dnf_probability)}"]
        out += corner_table(s.corners)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- simulated runs


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

_T = TypeVar("_T")


def _advanced(value: _T | None, what: str) -> _T:
    """A field that every record of an advanced game's run has."""
    if value is None:
        raise RulesError(f"not a run of the advanced game: no {what}")
    return value


def _gear_text(t: TurnRecord) -> str:
    a = t.action
    text = f"gear {a.gear}"
    if a.skip:
        text += f" (skip from {t.last_gear}: gearbox box checked, {_advanced(t.left, 'boxes').gearbox} left)"
    elif t.locked:
        text += " (locked)"
    if a.option is Option.PUSH:
        text += f" + push (engine box checked, {_advanced(t.left, 'boxes').engine} left)"
    elif a.option is Option.BRAKE:
        text += f" + brake (brakes box checked, {_advanced(t.left, 'boxes').brakes} left)"
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
            notes.append(f"car box checked, {_advanced(t.left, 'boxes').car} left")
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
    out = [f"race {run.race!r}{seed}, advanced rules, tyres: {_advanced(run.tyres, 'tyres').value}"]
    for n, s in enumerate(run.stages, 1):
        surface, tyres = _advanced(s.surface, "surface"), _advanced(s.tyres, "tyres")
        out.append(
            f"stage {n}: {s.name} ({surface.value}, {s.length} spaces), tyres {tyres.value}, "
            f"boxes left: {format_boxes(_advanced(s.left_at_start, 'boxes'))}"
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
        dnf = _advanced(run.dnf, "DNF rule")
        out.append(
            f"race: OUT (DNF) on stage {len(run.stages)}: driven {format_seconds(run.tenths)}"
            f" + DNF charge {dnf.penalty:g} s + {dnf.space_seconds:g} s x "
            f"{run.dnf_spaces} spaces not reached = {format_seconds(run.race_tenths)}"
        )
    else:
        out.append(f"race time: {format_seconds(run.tenths)}")
    return out
