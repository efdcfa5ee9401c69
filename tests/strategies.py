"""Hypothesis strategies for valid Rallytaire models."""

from __future__ import annotations

from hypothesis import strategies as st

from sheetgen.games.rallytaire.model import Boxes, Corner, Race, Stage, Surface, Turn


def _printable() -> list[str]:
    """Every character a name may hold: the ones the sheets print (sheetgen/glyphs.py)."""
    from sheetgen import glyphs

    firsts, lasts = glyphs._coverage()
    return [chr(c) for lo, hi in zip(firsts, lasts) for c in range(lo, hi + 1) if glyphs.problem(chr(c)) is None]


names = st.text(alphabet=st.sampled_from(_printable()), min_size=1, max_size=30)


@st.composite
def stages(draw, name=None, max_length: int = 120):
    length = draw(st.integers(2, max_length))
    afters = sorted(draw(st.sets(st.integers(1, length - 1), max_size=min(12, length - 1))))
    corners = tuple(
        Corner(after=a, gear=draw(st.integers(1, 5)), zone=draw(st.integers(1, a)), turn=draw(st.sampled_from(Turn))) for a in afters
    )
    return Stage(
        name=name if name is not None else draw(names),
        surface=draw(st.sampled_from(Surface)),
        length=length,
        corners=corners,
        service_park=draw(st.booleans()),
    )


@st.composite
def races(draw, max_stages: int = 4, max_length: int = 120):
    stage_names = draw(st.lists(names, min_size=1, max_size=max_stages, unique=True))
    return Race(
        name=draw(names),
        stages=tuple(draw(stages(name=n, max_length=max_length)) for n in stage_names),
        boxes=Boxes(
            engine=draw(st.integers(0, 9)), brakes=draw(st.integers(0, 9)), gearbox=draw(st.integers(0, 9)), car=draw(st.integers(1, 9))
        ),
        tyres=tuple(draw(st.lists(st.sampled_from(Surface), min_size=1, max_size=3, unique=True))),
    )
