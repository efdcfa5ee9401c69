"""Rallytaire's race-sheet track layout: where the square spaces of a stage go in the box a
race sheet gives its track, and where each corner's marks go.

Pure geometry, standard library only: millimetres, y axis up, origin at the lower-left of the
box the renderer hands over. The renderer only draws what is computed here, and the generator
checks a new stage against the very same layout.

A stage is laid out as a winding road when one is found (``winding``), else as rows with
U-turns (``serpentine``); either way its corners' marks are then placed (``marks``) along the
road of squares (``road``). The results are the frozen values of ``result``; the geometry
primitives are the core's ``sheetgen.geometry``. ``LayoutError`` says how much room the stage
needs when even the serpentine with ``min_space_mm`` spaces does not fit.

The same stage and box always give the same layout, in any process: the search is seeded from
the stage's content and bounded by a count of placements, not by the clock. Layouts are pure
functions of the stage's name, length and corners and of the box, memoised because the
generator and the renderer ask for the same ones again and again; ``clear_caches`` empties the
memos (benchmarks time a cold start with it) and never changes a result.
"""

from __future__ import annotations

import functools
from typing import Any

from sheetgen.games.rallytaire.layout.marks import end_label
from sheetgen.games.rallytaire.layout.result import CornerLayout, LayoutError, Space, StageLayout
from sheetgen.games.rallytaire.layout.road import RoadCorner, normalise
from sheetgen.games.rallytaire.layout.serpentine import _serpentine_rows, lowest_serpentine, min_height, try_serpentine
from sheetgen.games.rallytaire.layout.winding import too_dense, try_winding

__all__ = [
    "CornerLayout",
    "LayoutError",
    "Space",
    "StageLayout",
    "can_wind",
    "check_fits",
    "clear_caches",
    "end_label",
    "layout_stage",
    "needed_height",
    "winding_layout",
]


def _space_sizes(space_mm: float, min_space_mm: float) -> list[float]:
    """Space sizes from ``space_mm`` down to ``min_space_mm`` in steps of 0.5 mm: the serpentine
    takes the largest that fits; the winding road tries the first and the last."""
    sizes = [space_mm]
    s = space_mm
    while s - 0.5 > min_space_mm + 1e-9:
        s -= 0.5
        sizes.append(round(s, 3))
    if min_space_mm < space_mm:
        sizes.append(min_space_mm)
    return sizes


# The memos' bounds: a layout of 80 spaces takes about 90 KB, so even full the three memos
# (1280 layouts, many of them shared) hold no more than about 100 MB, and a race's layouts (a
# few per stage: alone on a page, half a page) stay in them from the generator's checks to
# the renderer.
@functools.lru_cache(maxsize=512)
def _winding(
    name: str,
    length: int,
    corners: tuple[RoadCorner, ...],
    width: float,
    height: float,
    space_mm: float,
    min_space_mm: float,
) -> StageLayout | None:
    return try_winding(name, length, corners, width, height, _space_sizes(space_mm, min_space_mm))


@functools.lru_cache(maxsize=256)
def _layout(
    name: str,
    length: int,
    corners: tuple[RoadCorner, ...],
    width: float,
    height: float,
    space_mm: float,
    min_space_mm: float,
) -> StageLayout:
    result = _winding(name, length, corners, width, height, space_mm, min_space_mm)
    if result is not None:
        return result
    sizes = _space_sizes(space_mm, min_space_mm)
    for s in sizes:
        result = try_serpentine(length, corners, width, height, s)
        if result is not None:
            return result
    raise _does_not_fit(name, length, corners, width, height, sizes, min_space_mm)


def _does_not_fit(
    name: str,
    length: int,
    corners: tuple[RoadCorner, ...],
    width: float,
    height: float,
    sizes: list[float],
    min_space_mm: float,
) -> LayoutError:
    """The error of a stage that neither winds nor fits as a serpentine of any of ``sizes``."""
    need = min_height(length, corners, width, sizes)
    where = f"stage {name!r}" if name else "stage"
    if need is None:
        return LayoutError(
            f"{where} ({length} spaces) does not fit in {width:.1f} x {height:.1f} mm: "
            f"a box {width:.1f} mm wide is too narrow for rows of {min_space_mm:g} mm spaces with U-turns",
            stage_name=name,
        )
    return LayoutError(
        f"{where} ({length} spaces) does not fit in {width:.1f} x {height:.1f} mm: "
        f"it needs a box at least {need:.1f} mm high at this width",
        stage_name=name,
        need_mm=need,
    )


def check_fits(
    stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0
) -> None:
    """Raise what ``layout_stage`` raises for this stage and box, the same ``LayoutError``, or
    return when it gives a layout, without always working that layout out: ``layout_stage``
    fails only when the stage neither winds nor fits as a serpentine of any allowed size, so a
    serpentine that fits proves it prints, and the winding search (the costly part: tenths of
    a second on a long stage) is only run when none does. For a check such as `validate`'s,
    which needs the answer, not the layout."""
    name, length, corners, width, height, space, least = _request(stage, width_mm, height_mm, space_mm, min_space_mm)
    sizes = _space_sizes(space, least)
    if any(try_serpentine(length, corners, width, height, s) is not None for s in sizes):
        return
    if _winding(name, length, corners, width, height, space, least) is not None:
        return
    raise _does_not_fit(name, length, corners, width, height, sizes, least)


def layout_stage(
    stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0
) -> StageLayout:
    """Lay out ``stage`` in the box [0, width_mm] x [0, height_mm].

    ``stage`` has ``name``, ``length`` and ``corners`` (each ``after``, ``gear``, ``zone``,
    ``turn``), such as ``sheetgen.games.rallytaire.model.Stage``. The same stage and box always
    give the same layout. Raises ``LayoutError`` when it does not fit even as a serpentine with
    ``min_space_mm`` spaces.
    """
    return _layout(*_request(stage, width_mm, height_mm, space_mm, min_space_mm))


def _request(stage: Any, width_mm: float, height_mm: float, space_mm: float, min_space_mm: float) -> tuple:
    """The arguments of the cached layout functions for a stage and box, checked."""
    if not 0 < min_space_mm <= space_mm:
        raise ValueError(f"need 0 < min_space_mm <= space_mm, got {min_space_mm!r} and {space_mm!r}")
    name, length, corners = normalise(stage)
    return (name, length, corners, float(width_mm), float(height_mm), float(space_mm), float(min_space_mm))


def needed_height(stage: Any, width_mm: float, space_mm: float) -> float | None:
    """Height of the lowest box ``width_mm`` wide that holds ``stage`` as rows with U-turns of
    ``space_mm`` spaces (``layout_stage`` in a box at least this high always fits, with spaces
    at least this large), or None when no row of such spaces fits the width."""
    _name, length, corners = normalise(stage)
    return min_height(length, corners, float(width_mm), [float(space_mm)])


def winding_layout(
    stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0
) -> StageLayout | None:
    """``layout_stage``'s result when it is a winding road, else None (without working out the
    serpentine: for callers that only want a winding road, such as a page shared by two
    stages). Both share one cache."""
    return _winding(*_request(stage, width_mm, height_mm, space_mm, min_space_mm))


def can_wind(
    stage: Any, width_mm: float, height_mm: float, *, space_mm: float = 8.0, min_space_mm: float = 7.0
) -> bool:
    """Does ``layout_stage`` try a winding road for ``stage`` in this box at all? Not when its
    spaces would cover too much of the box even at ``min_space_mm``: such a stage is always
    laid out as a serpentine (a long stage on a page, or most stages in a small box)."""
    _name, length, _corners = normalise(stage)
    return not too_dense(length, float(width_mm), float(height_mm), float(min_space_mm))


def clear_caches() -> None:
    """Forget every layout worked out so far (for a benchmark's cold start): the memos are pure,
    so the next call gives the very same layouts, only slower."""
    _layout.cache_clear()
    _winding.cache_clear()
    lowest_serpentine.cache_clear()
    _serpentine_rows.cache_clear()
