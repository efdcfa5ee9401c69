"""The optional compiled kernel of the Rally Risk solver (`_kernel.c`): loading it, and what
:meth:`sheetgen.games.rally_risk.solve.Solution._build_tree` hands it for a tree (the sweep,
`Solution._compiled_sweep`, hands the kernel's `sweep` the solution's own lists).

The kernel builds a position's check tree (the engine's :func:`rules.check_tree` with float
probabilities, coded for the sweep) and runs the whole backward sweep with the same float
operations in the same order, so trees and tables are the reference's, equal with `==`
(tests/test_rally_risk_kernel.py). It is built by
`pip install` where a C compiler and Python's headers are at hand (setup.py, an optional
extension); where it is not built, or `SHEETGEN_ACCEL=off` is set, or the build is of another
source than this module names (:data:`SOURCE_SHA256`), the pure-Python trees and sweep run. The
figures cache keys entries by the solver's modules' source, this one included, so a changed
kernel never meets an old entry.

Python still gives the rules: the factor of every space in the weather and on the tyres
(:meth:`rules.Course.row`), the Damages Table's distributions (:meth:`rules.Course.damage_dist`)
and the legal moves (:func:`rules.legal_moves`, through the solver's cache).
"""

from __future__ import annotations

from typing import Any

from sheetgen import solvers
from sheetgen.games.rally_risk.model import Outcome
from sheetgen.games.rally_risk.rules import Course

#: the SHA-256 of `_kernel.c`, the source this module drives: a build of another is not used
#: (tests/test_rally_risk_kernel.py checks it against the file)
SOURCE_SHA256 = "8d039beffb0293ebd72ae9548755c6d65e02f5a4b8b43b2f48933205d373d2c0"

_LOADED: list = []


def kernel() -> Any:
    """The compiled kernel, or None where it is switched off, not built, or built from
    another source than :data:`SOURCE_SHA256`."""
    return solvers.load("sheetgen.games.rally_risk._kernel", SOURCE_SHA256, _LOADED)


def available() -> bool:
    """Whether a solve started now will use the compiled kernel (its trees and sweep)."""
    return kernel() is not None


def _dists(course: Course, order: tuple[Outcome, ...]) -> tuple:
    """The Damages Table as the kernel takes it: for every difference 1 .. the table's last
    row, ((the damage's index in `order`, or -1 for no damage, probability), ...), lightest
    first (index 0 unused); kept with the course."""
    kept = course.shared("kernel damage table")
    got = kept.get(order)
    if got is None:
        rows = len(course.tables.damage)
        got = kept[order] = ((),) + tuple(
            tuple(
                (-1 if rolled is Outcome.NONE else order.index(rolled), p) for rolled, p in course.damage_dist(d, False)
            )
            for d in range(1, rows + 1)
        )
    return got


def check_tree(
    module: Any,
    course: Course,
    row: tuple[int, ...],
    position: int,
    risk: int,
    per_gear: list,
    order: tuple[Outcome, ...],
) -> tuple[tuple, tuple]:
    """(coded steps, leaves per gear) of the moves of each gear from `position` after rolling
    `risk` (the factors `row`), as Solution._build_tree codes them with the damages' slots
    from `order`, by the kernel `module` (from :func:`kernel`)."""
    return module.check_tree(
        row, risk, position, course.length, course.finish, _dists(course, order), len(order), tuple(per_gear)
    )
