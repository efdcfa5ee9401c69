"""The compiled kernel of the Rally Risk solver (sheetgen/games/rally_risk/_kernel.c) against
the pure-Python check trees it replaces, with `==` and no tolerance: every tree a solve asks
for, built both ways, on the bundled races, on the races of calendars drawn from the bundled
library and on random courses (every weather, fords, specials, factors past the Damages
Table's last row); and every table of the solution the same to the bit.

tests/test_rally_risk_solve_equivalence.py compares the solver, with the kernel where it is
built, with straightforward references that use neither; .ci/run runs a sample of the Rally
Risk tests with `SHEETGEN_ACCEL=off`, so that the pure-Python trees keep working where the
kernel is not built.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from conftest import ROOT
from sheetgen.games.rally_risk import accel, championship
from sheetgen.games.rally_risk.model import Assistance, Weather, WeatherSector
from sheetgen.games.rally_risk.rules import Car, Course
from sheetgen.games.rally_risk.solve import Solution
from sheetgen.registry import load_spec
from test_rally_risk_spec import RR
from test_rally_risk_tables import CLEAR, course

needs_kernel = pytest.mark.skipif(
    not accel.available(), reason="the compiled kernel is not built here (or SHEETGEN_ACCEL=off)"
)

TABLES = ("V", "gear_choice", "move_choice", "END", "end_choice", "OFF", "off_choice")
SECTORS = (
    CLEAR,
    WeatherSector(Weather.CLOUDY),
    WeatherSector(Weather.RAIN, 1),
    WeatherSector(Weather.STORM, 2),
    WeatherSector(Weather.SNOW, 2),
)


def bits(table) -> dict:
    """Floats as their exact hex, so that == means bit for bit (0.0 is not -0.0)."""
    return {k: v.hex() if isinstance(v, float) else v for k, v in dict(table).items()}


def both_ways(monkeypatch, c: Course, car: Car, penalty: float = 50.0) -> tuple[Solution, int]:
    """The solution with the kernel's trees, every one of them checked against the tree the
    pure-Python code builds for the same call; and how many trees were compared."""
    built = Solution._build_tree
    compared = [0]

    def checked(self, p, t, w, risk, gears):
        assert self._kernel is not None
        tree = built(self, p, t, w, risk, gears)
        ref = self._reference_tree(p, t, w, risk, [self.moves(p, g2, t, w) for g2 in gears])
        assert tree == ref, (p, t, w, risk, gears)
        assert [[type(x) for x in step] for step in tree[0]] == [[type(x) for x in step] for step in ref[0]]
        compared[0] += 1
        return tree

    with monkeypatch.context() as m:
        m.setattr(Solution, "_build_tree", checked)
        sol = Solution(c, car, penalty)
    return sol, compared[0]


def reference_solution(monkeypatch, c: Course, car: Car, penalty: float = 50.0) -> Solution:
    """The solution of the pure-Python trees and pricing (the kernel switched off)."""
    with monkeypatch.context() as m:
        m.setenv("SHEETGEN_ACCEL", "off")
        sol = Solution(c, car, penalty)
    assert sol._kernel is None
    return sol


def fresh(c: Course) -> Course:
    """The same course with nothing memoised (the trees of one solve are not the next one's)."""
    return Course(c.name, c.factors, c.fords, c.tables, c.chart, c.special)


def test_the_kernel_named_is_the_source_shipped():
    """accel.py names the SHA-256 of the C source (so the figures cache's key, which reads
    accel.py's source, changes with the kernel); a build of another source is not used."""
    source = ROOT / "sheetgen" / "games" / "rally_risk" / "_kernel.c"
    assert accel.SOURCE_SHA256 == hashlib.sha256(source.read_bytes()).hexdigest()
    from sheetgen import cache

    assert "sheetgen.games.rally_risk.accel" in cache.solver_modules(championship.__name__)
    if accel.available():
        assert accel.kernel().SOURCE_SHA256 == accel.SOURCE_SHA256


def test_the_switch_turns_the_kernel_off(monkeypatch):
    monkeypatch.setenv("SHEETGEN_ACCEL", "off")
    monkeypatch.setattr(accel, "_LOADED", [])
    assert accel.kernel() is None and not accel.available()
    sol = Solution(course([0, 0, 1, 3, 4, 0, 2, 0]), Car(Assistance.PERMANENT), 50.0)
    assert sol._kernel is None  # the pure-Python trees and pricing


def assert_same(monkeypatch, c: Course, car: Car, penalty: float = 50.0) -> int:
    sol, compared = both_ways(monkeypatch, fresh(c), car, penalty)
    ref = reference_solution(monkeypatch, fresh(c), car, penalty)
    for table in TABLES:
        assert bits(getattr(sol, table)) == bits(getattr(ref, table)), table
    assert (sol.start_tyres, sol.start_cost.hex()) == (ref.start_tyres, ref.start_cost.hex())
    return compared


@needs_kernel
@pytest.mark.parametrize(
    "name",
    # (slow: 2 s each; the default suite compares the special and the calendar's and random races)
    [
        pytest.param("montecarlo_1", marks=pytest.mark.slow),
        "montecarlo_special",
        pytest.param("safari_1", marks=pytest.mark.slow),
    ],
)
def test_the_kernel_builds_the_references_trees_on_the_bundled_races(name, monkeypatch):
    c = Course.of(load_spec(RR / f"{name}.yaml").model)
    assert assert_same(monkeypatch, c, Car(Assistance.PERMANENT)) > 500


@needs_kernel
@pytest.mark.parametrize(
    "seed, every",
    [(62, 11), pytest.param(1, 3, marks=pytest.mark.slow)],  # (slow: 8 races, 25 s of CPU)
)
def test_the_kernel_builds_the_references_trees_on_calendar_races(seed, every, monkeypatch):
    """Races of the bundled championship drawn by two seeds (every zone's weather, specials):
    the finishability check's solve, as `sheetgen calendar` runs it."""
    built = championship.build_calendar(load_spec(RR / "championship.yaml").model, seed, check=None)
    races = [race for _rally, race, _check in built.races()]
    for race in races[::every]:
        assert assert_same(monkeypatch, Course.of(race), Car(championship.CHECK_ASSISTANCE)) > 100


@needs_kernel
@pytest.mark.parametrize("seed", range(4))
def test_the_kernel_builds_the_references_trees_on_random_courses(seed, monkeypatch):
    """Factors up to 9 (past the Damages Table's last row, which reads the last row), fords
    in every weather, specials, mechanics, every assistance and penalties down to 0."""
    rng = random.Random(seed)
    n = rng.randint(6, 16)
    factors = [0, 0] + [rng.choice([0, 0, 1, 2, 3, 4, 5, 7, 9]) for _ in range(n)]
    fords = tuple(i for i in range(3, n + 3) if rng.random() < 0.25)
    sectors = tuple(rng.sample(SECTORS, rng.randint(1, len(SECTORS))))
    c = course(factors, fords=fords, special=rng.random() < 0.3, sectors=sectors)
    car = Car(rng.choice(list(Assistance)), tuple(sorted(rng.sample(range(1, n + 3), rng.randint(0, 3)))))
    assert assert_same(monkeypatch, c, car, rng.choice([0.0, 10.0, 50.0])) > 50
