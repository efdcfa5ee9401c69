"""What a layout gives: the spaces of a stage, its corners' marks and the whole stage in its
box, as frozen values (the renderer draws them, the tests check them); and ``LayoutError``
when a stage fits nowhere in the box.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from sheetgen.errors import SheetgenError
from sheetgen.geometry import Point, Rect, Segment


class LayoutError(SheetgenError):
    """The stage cannot be laid out in the box given; the message says how much room it needs.

    ``stage_name`` names the stage that does not fit. ``need_mm`` is the lowest box height at
    this width that holds it, None when no height does (the box is too narrow for rows with
    U-turns). ``stage_index`` is the stage's index in its race when the error comes from
    laying out a whole race (``games.rallytaire.sheet.plan_pages`` sets it), else None.
    """

    def __init__(
        self, message: str, *, stage_name: str, need_mm: float | None = None, stage_index: int | None = None
    ) -> None:
        super().__init__(message)
        self.stage_name = stage_name
        self.need_mm = need_mm
        self.stage_index = stage_index

    def in_race(self, index: int) -> LayoutError:
        """The same error, for stage ``index`` of a race."""
        return LayoutError(str(self), stage_name=self.stage_name, need_mm=self.need_mm, stage_index=index)

    def __reduce__(self) -> tuple[Any, ...]:
        # keyword fields survive pickling (a process pool sends errors back to its parent)
        make = functools.partial(
            LayoutError, stage_name=self.stage_name, need_mm=self.need_mm, stage_index=self.stage_index
        )
        return (make, (str(self),))



@dataclass(frozen=True)
class Space:
    """One square space. ``corners`` run counter-clockwise: back-right, front-right, front-left,
    back-left (front = driving direction); ``heading`` is degrees counter-clockwise from +x."""

    number: int
    centre: Point
    heading: float
    side: float
    corners: tuple[Point, Point, Point, Point]

    @property
    def back_edge(self) -> Segment:
        """From the right end to the left end, looking in the driving direction."""
        return (self.corners[0], self.corners[3])

    @property
    def front_edge(self) -> Segment:
        return (self.corners[1], self.corners[2])


@dataclass(frozen=True)
class CornerLayout:
    """Where a corner's marks go.

    ``line`` is the shared edge of spaces ``after`` and ``after + 1`` from the inside of the bend
    to the outside. ``angle`` is how far the road turns around this corner, degrees, positive to
    the left: the heading of space ``after + 3`` less that of space ``after - 2``. ``label`` is
    the box for the gear number, on the outside of the bend. ``zone`` is the
    planning zone line from the corner line back to the start of space ``zone``, ``zone_side``
    "left" or "right" of the road in driving direction, ``zone_offset`` its distance from the
    road. ``zone_pieces`` is the zone line as drawn: broken where it runs past another
    corner's line or the start of another zone, and short of its own corner line.
    ``zone_mark`` is the box of the gear number that marks the zone's first space (None in
    the rare layout that has no room for it). ``zone_tick`` is the tick across the zone line
    at its first space (None for a zone line of one point). ``n_box`` and ``d_box`` are the
    N and D boxes.
    """

    after: int
    gear: int
    turn: str
    angle: float
    line: Segment
    label: Rect
    zone: tuple[Point, ...]
    zone_side: str
    zone_offset: float
    n_box: Rect
    d_box: Rect
    zone_pieces: tuple[tuple[Point, ...], ...] = ()
    zone_mark: Rect | None = None
    zone_tick: Segment | None = None


@dataclass(frozen=True)
class StageLayout:
    """A stage laid out in the box [0, width] x [0, height].

    ``spaces[i]`` is space i + 1; ``invisible`` is the space just past the finish line (drawn
    dashed). ``start_line`` is the back edge of space 1, ``finish_line`` the shared edge of the
    last space and the invisible one, both from right to left in driving direction. ``style`` is
    "winding" or "serpentine" (the fallback). ``bbox`` holds everything laid out.
    ``shared_lanes`` is True when some planning zone found no lane of its own (2 mm from every
    other zone line) and shares one: the stage prints, but its zones may be misread.
    ``marks_on_lines`` is True when a planning-zone line runs through a gear label, an N or D
    box or a zone mark (only a serpentine does that, and only when nothing else fits): the
    stage prints, but a tick may be misread; the generator proposes such a stage again.
    """

    width: float
    height: float
    space_mm: float
    style: str
    spaces: tuple[Space, ...]
    invisible: Space
    start_line: Segment
    finish_line: Segment
    corners: tuple[CornerLayout, ...]
    bbox: Rect
    shared_lanes: bool = False
    marks_on_lines: bool = False


# --------------------------------------------------------------------------- kept on disk

_KINDS: dict[str, type] = {}


def _encode(value: Any) -> Any:
    """A layout value as JSON: a dataclass as its class name and fields, a tuple as a list."""
    if isinstance(value, (Space, CornerLayout, StageLayout, Rect)):
        return {"kind": type(value).__name__, **{f: _encode(getattr(value, f)) for f in value.__dataclass_fields__}}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a layout holds no {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if not _KINDS:
            _KINDS.update({k.__name__: k for k in (Space, CornerLayout, StageLayout, Rect)})
        fields = {k: _decode(v) for k, v in value.items() if k != "kind"}
        return _KINDS[value["kind"]](**fields)
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    return value


def layout_to_json(layout: StageLayout | None) -> Any:
    """A layout (or None) as a JSON value, for the figures cache: JSON gives every float back
    exactly, so :func:`layout_from_json` gives an equal layout, drawn to the same bytes."""
    return None if layout is None else _encode(layout)


def layout_from_json(value: Any) -> StageLayout | None:
    """The layout :func:`layout_to_json` wrote (TypeError, KeyError or ValueError when the
    value is of another shape: the cache then lays it out again)."""
    if value is None:
        return None
    layout = _decode(value)
    if not isinstance(layout, StageLayout):
        raise TypeError("not a stage layout")
    return layout
