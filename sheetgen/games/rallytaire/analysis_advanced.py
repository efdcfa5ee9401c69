"""The analysis of a Rallytaire race under the advanced rules: the solved policy
(:mod:`solve_advanced`) and its forward figures (:mod:`forward_advanced`) as the figures
`analyze` reports and a race sheet prints (kept in the figures cache between runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from sheetgen.games.rallytaire.forward_advanced import (
    TimeDistribution,
    _forward_fix,
    _forward_stage,
    _StageTally,
    race_time_distribution,
    race_time_percentiles,
)
from sheetgen.games.rallytaire.model import Boxes, Race, Surface
from sheetgen.games.rallytaire.rules_advanced import Fix
from sheetgen.games.rallytaire.solve import CornerAnalysis, corner_figures
from sheetgen.games.rallytaire.solve_advanced import (
    DEFAULT_DNF_PENALTY,
    DEFAULT_DNF_SPACE_SECONDS,
    SHEET_MAX_POINTS,
    AdvancedPolicy,
    DnfRule,
    solve_points,
    solve_race,
    too_large_to_solve,
)

# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class OptionUse:
    """Expected number of turns per race started that use each option."""

    push: float
    brake: float
    skip: float


@dataclass(frozen=True)
class FixAdvice:
    """Fix-points between a stage and the next, under the optimal policy.

    points: fix-points available. reach_probability: P(the car gets there, not out).
    expected_*: boxes unchecked per kind, and P(tyres changed), given the car got there.
    most_likely: the most frequent way the points are spent, with its probability.
    tyres_after: tyres on the car for the next stage, with probabilities."""

    points: int
    service_park: bool
    reach_probability: float
    expected_engine: float
    expected_brakes: float
    expected_gearbox: float
    expected_car: float
    tyre_change_probability: float
    most_likely: Fix
    most_likely_probability: float
    tyres_after: tuple[tuple[Surface, float], ...]


@dataclass(frozen=True)
class AdvancedStageAnalysis:
    """Figures of one stage under the race-optimal policy, per race started (times in s).

    par_time: expected time the stage adds to the race, DNF charge included when the car goes
    out on this stage (0 for a car already out): the stage par times add up to the race par.
    reach_probability: P(the car starts this stage). dnf_probability: P(it goes out here).
    expected_crashes: crashes on this stage (the one that puts the car out included).
    options: expected turns with push / brake / skip. locks: expected three-of-a-kind locks.
    tyres: tyres on the car for this stage, with probabilities given it starts the stage.
    fix: the fix-points after this stage (None after the last)."""

    name: str
    surface: Surface
    length: int
    par_time: float
    reach_probability: float
    dnf_probability: float
    expected_crashes: float
    options: OptionUse
    locks: float
    tyres: tuple[tuple[Surface, float], ...]
    corners: tuple[CornerAnalysis, ...]  # crash and drift per race started
    fix: FixAdvice | None


@dataclass(frozen=True)
class AdvancedRaceAnalysis:
    """The advanced-game analysis of a race.

    race_par_time: optimal expected race time with the DNF charge (seconds).
    tyres: tyres to choose before the race. tyre_par_times: race par with each allowed start
    tyre. dnf_probability: P(the car goes out on some stage). p10/p50/p90 (properties): the
    percentiles of the race time under the same policy, from `time_distribution`."""

    name: str
    stages: tuple[AdvancedStageAnalysis, ...]
    race_par_time: float
    dnf_probability: float
    tyres: Surface
    tyre_par_times: tuple[tuple[Surface, float], ...]
    boxes: Boxes
    dnf: DnfRule
    policy: AdvancedPolicy = field(repr=False, compare=False)

    @cached_property
    def time_distribution(self) -> TimeDistribution:
        """The race time under the optimal policy (computed on first use: a fraction of the
        solve's cost, :func:`race_time_distribution`)."""
        return race_time_distribution(self.policy)

    @cached_property
    def percentiles(self) -> tuple[float | None, float | None, float | None]:
        """(p10, p50, p90) of `time_distribution`, on first use."""
        p10, p50, p90 = race_time_percentiles(self.policy, (0.10, 0.50, 0.90), self.time_distribution)
        return p10, p50, p90

    @property
    def p10(self) -> float | None:
        """Race time (s) the optimal policy beats or equals in 10% of races (None: it goes out
        more often than 90% of the time); p50, p90 alike. A car that goes out never finishes."""
        return self.percentiles[0]

    @property
    def p50(self) -> float | None:
        return self.percentiles[1]

    @property
    def p90(self) -> float | None:
        return self.percentiles[2]


def analyze_race_advanced(
    race: Race,
    dnf_penalty: float = DEFAULT_DNF_PENALTY,
    dnf_space_seconds: float = DEFAULT_DNF_SPACE_SECONDS,
) -> AdvancedRaceAnalysis:
    """Solve `race` under the advanced rules exactly and compute its figures.

    A car that goes out is charged the time it drove, plus `dnf_penalty` seconds, plus
    `dnf_space_seconds` for every space of the race it did not reach (module docstring)."""
    dnf = DnfRule(float(dnf_penalty), float(dnf_space_seconds))
    policy = solve_race(race, dnf)
    grid = policy.grid
    start_mass = {t: np.zeros(grid.size) for t in race.tyres}
    start_mass[policy.start_tyres][grid.full] = 1.0
    stages = []
    total_out = 0.0
    for k, stage in enumerate(race.stages):
        tally = _StageTally(
            corner_crash=[0.0] * len(stage.corners), corner_drift=[0.0] * len(stage.corners)
        )
        end_mass = {}
        for t in race.tyres:
            m = start_mass[t]
            w = float(m.sum())
            if w <= 0:
                end_mass[t] = np.zeros(grid.size)
                continue
            tally.reach += w
            tally.tyres[t] = tally.tyres.get(t, 0.0) + w
            end_mass[t] = _forward_stage(policy.stages[k][t], grid, m, tally)
        total_out += tally.out
        fix = None
        if k < len(race.stages) - 1:
            start_mass, ft = _forward_fix(race, grid, policy.fixes[k], end_mass)
            e, b, g, c, tc = ft.expected
            fix = FixAdvice(
                points=policy.fixes[k].points,
                service_park=stage.service_park,
                reach_probability=ft.reach,
                expected_engine=e,
                expected_brakes=b,
                expected_gearbox=g,
                expected_car=c,
                tyre_change_probability=tc,
                most_likely=ft.most_likely,
                most_likely_probability=ft.most_likely_probability,
                tyres_after=ft.tyres_after,
            )
        corners = corner_figures(stage, tally.corner_crash, tally.corner_drift)
        reach = tally.reach
        stages.append(
            AdvancedStageAnalysis(
                name=stage.name,
                surface=stage.surface,
                length=stage.length,
                par_time=tally.tenths / 10,
                reach_probability=reach,
                dnf_probability=tally.out,
                expected_crashes=tally.crashes,
                options=OptionUse(tally.push, tally.brake, tally.skip),
                locks=tally.locks,
                tyres=tuple(
                    (t, tally.tyres[t] / reach) for t in race.tyres if tally.tyres.get(t, 0) > 0
                ),
                corners=corners,
                fix=fix,
            )
        )
    par = float(policy.stages[0][policy.start_tyres].start_value[grid.full]) / 10
    tyre_pars = tuple(
        (t, float(policy.stages[0][t].start_value[grid.full]) / 10) for t in race.tyres
    )
    return AdvancedRaceAnalysis(
        name=race.name,
        stages=tuple(stages),
        race_par_time=par,
        dnf_probability=total_out,
        tyres=policy.start_tyres,
        tyre_par_times=tyre_pars,
        boxes=race.boxes,
        dnf=dnf,
        policy=policy,
    )


# --------------------------------------------------------------------------- what a race sheet prints


@dataclass(frozen=True)
class StageSheetFigures:
    """What a race sheet prints of a stage's advanced analysis."""

    par_time: float


@dataclass(frozen=True)
class SheetFigures:
    """What a race sheet prints of the advanced analysis (the fields of
    :class:`AdvancedRaceAnalysis` of the same names, with the default DNF charge)."""

    race_par_time: float
    tyres: Surface
    dnf_probability: float
    p10: float | None
    p50: float | None
    p90: float | None
    stages: tuple[StageSheetFigures, ...]


def solver_subject(race: Race) -> str:
    """The canonical text of what the advanced solve reads of a race: its stages without
    their names, boxes and tyres, and numpy's version (a renamed race is not solved again)."""
    from dataclasses import replace

    return repr((tuple(replace(stage, name="") for stage in race.stages), race.boxes, race.tyres, np.__version__))


def sheet_figures(race: Race) -> SheetFigures | None:
    """The advanced figures a race sheet prints, or None for a race too large for the exact
    solve or too long for the sheet (over SHEET_MAX_POINTS: the sheet prints without them).

    Solved by :func:`analyze_race_advanced`, and kept in the figures cache between runs
    (`sheetgen.cache.figures`: keyed by :func:`solver_subject` and the solver's import graph,
    so the figures are those it solves now; JSON gives the floats back exactly): a second
    `sheetgen build` reads them."""
    if too_large_to_solve(race) is not None or solve_points(race) > SHEET_MAX_POINTS:
        return None
    from sheetgen import cache

    got = cache.figures("rallytaire-sheet", solver_subject(race), __name__, lambda: _solve_sheet_figures(race))
    return SheetFigures(
        race_par_time=got["race_par_time"],
        tyres=Surface(got["tyres"]),
        dnf_probability=got["dnf_probability"],
        p10=got["p10"],
        p50=got["p50"],
        p90=got["p90"],
        stages=tuple(StageSheetFigures(par) for par in got["stage_par_times"]),
    )


def sheet_left_out(race: Race) -> tuple[str, str] | None:
    """Two short lines for the race sheet's header saying why it has no advanced figures when
    the race's size is the reason (too large for the exact solve, or over SHEET_MAX_POINTS),
    else None."""
    if too_large_to_solve(race) is not None:
        return "advanced figures left out:", "too large for the exact solve"
    if solve_points(race) > SHEET_MAX_POINTS:
        return "advanced figures left out:", "see analyze --rules advanced"
    return None


def _solve_sheet_figures(race: Race) -> dict:
    a = analyze_race_advanced(race)
    return {
        "race_par_time": a.race_par_time,
        "tyres": a.tyres.value,
        "dnf_probability": a.dnf_probability,
        "p10": a.p10,
        "p50": a.p50,
        "p90": a.p90,
        "stage_par_times": [s.par_time for s in a.stages],
    }
