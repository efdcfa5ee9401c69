"""The lane form of a library tile (ruling RM-24): a tile written as a player reads it off the
printed tile, lane by lane, instead of as hex cells.

    - id: my-kink
      leave: south-east              # the side its lanes leave by (they enter by the west side)
      lanes:                         # left to right as the road enters
        - name: outside
          spaces: [., ., 4 right, 4, .]
        - name: inside
          spaces: [., 3 right, 3]
      beside: [[outside 2, inside 2], [outside 4, inside 3]]

Every lane enters by the tile's west side, on the rows every sheetgen tile crosses a side
by (one lane: the side's middle row; two: the middle row and the row to its right; three:
the rows either side of the middle one too; four, in the large frame: one more to the right).
A lane begins at the first space of its row (or, `begins: N`, its Nth: a start tile's lane
begins on the tile). A lane's spaces follow each other straight ahead; a space marked `left`
or `right` is where the lane bends 60 degrees that way, and the spaces after it run on in the
new direction. A lane that says `into: LANE N` runs into space N of another lane (a merge:
its last space leads straight or diagonally ahead into that space); a lane whose last space
is a finish space may end on the tile (the track ends there); every other lane leaves by the
side `leave` names, on the row the next tile's lane enters by. Each lane keeps its number
(its place in the list) along the tile, through a merge. `beside` pairs say
which spaces of neighbouring lanes touch across the lane line; without a pair for two
neighbouring lanes, their spaces at the same count touch (as far as the shorter lane goes).
The pairs, the merges and the exits are checked against the cells so laid: a lane counted or
bent wrongly does not pass.

The result is hex cells of the tile's own frame, the same `Cell`s the hex form gives, so that
the move graph, checks, solvers and printouts are the hex form's. This module is pure: it
returns raw cells (the hex form's mappings, for `spec.py` to check and build) and problems
as (path within the tile, message).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sheetgen.games.rallyman.hexgrid import (
    DIRECTION_NAMES,
    Hex,
    distance,
    frame_of,
    place,
    tile_neighbour,
    tile_of,
)

#: the side every lane enters by (the hex form's tiles enter there too), and its heading
ENTRY_SIDE = 3
ENTRY_HEADING = 0
MAX_LANES = 4
MAX_SPACES = 12
LANE_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,19}$"
SPACE_REF = r"^[A-Za-z][A-Za-z0-9_-]{0,19} [1-9][0-9]?$"
_REF = re.compile(r"\A([A-Za-z][A-Za-z0-9_-]{0,19}) ([1-9][0-9]?)\Z")
_FLAGS = ("start", "finish", "pit", "slide", "water")
_SURFACES = ("asphalt", "gravel", "snow")
_DANGERS = ("yellow", "orange", "red")
SPACE_WORDS = (
    "N (a corner limit, 1-6), N! (a limit in a caution triangle), left or right (the lane bends here), "
    "start, finish, pit, slide, water, jump N, a surface (asphalt, gravel, snow), a danger colour "
    "(yellow, orange, red), or . (a plain space)"
)

Problems = list[tuple[tuple, str]]


@dataclass(frozen=True)
class Laid:
    """A lane-form tile laid on its frame: the raw cells (the hex form's mappings) with the
    path of the space each comes from, its inside lines as the hex form writes them, and the
    lane names, left to right as the road enters (lane n is `names[n - 1]`)."""

    cells: tuple[tuple[dict, tuple], ...]
    lines: tuple[dict, ...]
    names: tuple[str, ...]


def rows(lanes: int) -> tuple[int, ...]:
    """The rows (of the frame, 0 the middle one) `lanes` lanes cross a side by, left to right:
    the rows every sheetgen tile uses (RM-11, RM-16)."""
    first = -((lanes - 1) // 2)
    return tuple(range(first, first + lanes))


def entry_cell(row: int, frame: str) -> Hex | None:
    """The first space of the lane entering by the west side on `row`: the westmost cell of
    that row on the tile."""
    found = [h for h in frame_of(frame).cells if h.r == row]
    return min(found, key=lambda h: h.q) if found else None


def parse_space(text: Any) -> tuple[dict, int, str | None]:
    """A space's words: its marks as a hex-form cell says them, its bend (-1 left, +1 right,
    0 none) and the first word not understood (None: all are)."""
    if isinstance(text, bool):
        return {}, 0, repr(text)
    if isinstance(text, int):
        text = str(text)
    words = str(text).split()
    marks: dict[str, Any] = {}
    turn = 0
    i = 0
    while i < len(words):
        word = words[i]
        if word == ".":
            pass
        elif re.fullmatch(r"[1-9]!?", word):
            if "limit" in marks:
                return marks, turn, word
            marks["limit"] = int(word[0])
            if word.endswith("!"):
                marks["caution"] = True
        elif word in ("left", "right"):
            if turn:
                return marks, turn, word
            turn = -1 if word == "left" else 1
        elif word in _FLAGS:
            marks[word] = True
        elif word == "jump" and i + 1 < len(words) and re.fullmatch(r"[1-9]", words[i + 1]):
            marks["jump"] = int(words[i + 1])
            i += 1
        elif word in _SURFACES:
            marks["surface"] = word
        elif word in _DANGERS:
            marks["danger"] = word
        else:
            return marks, turn, word
        i += 1
    return marks, turn, None


def lay(raw: dict, base: tuple, frame: str) -> tuple[Laid | None, Problems]:
    """Lay the lane-form tile `raw` (schema-checked: `lanes`, `leave`, `beside`, `lines`)
    on its frame (RM-24). `base` is the tile's path in the file; problems are (path, message)
    with paths from there."""
    problems: Problems = []
    lanes = raw["lanes"]
    names: list[str] = []
    index: dict[str, int] = {}
    for k, lane in enumerate(lanes):
        name = lane["name"]
        if name in index:
            problems.append(
                (base + ("lanes", k, "name"), f"lane {name!r} is named twice (also lane {index[name] + 1})")
            )
        index.setdefault(name, k)
        names.append(name)
    shape = frame_of(frame)
    if len(lanes) > 3 and shape.span < 7:
        problems.append(
            (
                base + ("lanes",),
                f"{len(lanes)} lanes do not cross a standard tile's side (three rows at most, ruling RM-11): "
                "write the tile in a library of frame: large",
            )
        )
    leave = raw.get("leave")
    if leave is None and any(_leaves(lane) for lane in lanes):
        problems.append(
            (
                base + ("lanes",),
                "say which side the lanes leave by: 'leave: east' (or another side); a lane that does not leave "
                "runs into another ('into: LANE N') or ends at a finish space",
            )
        )
    if leave == DIRECTION_NAMES[ENTRY_SIDE]:
        problems.append((base + ("leave",), "the lanes enter by the west side; they leave by another one"))
    if problems:
        return None, problems

    # lay every lane from its entry cell, straight on but where a space bends it
    spaces: list[list[tuple[Hex, int]]] = []  # per lane: (cell, heading) of each space
    owner: dict[Hex, tuple[int, int]] = {}
    for k, (lane, row) in enumerate(zip(lanes, rows(len(lanes)))):
        here = entry_cell(row, frame)
        heading = ENTRY_HEADING
        for _ in range(lane.get("begins", 1) - 1):  # a lane that begins on the tile (a start)
            here = here.neighbour(heading) if here is not None else None
        laid: list[tuple[Hex, int]] = []
        for j, text in enumerate(lane["spaces"]):
            where = base + ("lanes", k, "spaces", j)
            _marks, turn, bad = parse_space(text)
            if bad is not None:
                problems.append(
                    (where, f"space {j + 1} of lane {names[k]!r}: unknown word {bad!r} (words: {SPACE_WORDS})")
                )
                break
            if here is None or not shape.contains(here):
                problems.append(
                    (
                        where,
                        f"space {j + 1} of lane {names[k]!r} falls off the tile at cell {here}: the lane has more "
                        "spaces, or bends later, than the tile holds (count its spaces and bends again)",
                    )
                )
                break
            if here in owner:
                ok, oj = owner[here]
                problems.append(
                    (
                        where,
                        f"space {j + 1} of lane {names[k]!r} lies on cell {here}, where space {oj + 1} of lane "
                        f"{names[ok]!r} lies already (count the spaces and bends of both lanes again)",
                    )
                )
                break
            heading = (heading + turn) % 6
            owner[here] = (k, j)
            laid.append((here, heading))
            here = here.neighbour(heading)
        spaces.append(laid)
    if problems:
        return None, problems

    def ref(text: str, where: tuple, what: str = "") -> tuple[int, int] | None:
        match = _REF.match(text)
        if match is None:
            problems.append(
                (where, f"{text!r} is not a space: write a lane's name and a space's number, as 'outside 3'")
            )
            return None
        name, number = match.group(1), int(match.group(2))
        if name not in index:
            near = f" (lanes: {', '.join(names)})"
            problems.append((where, f"{what}{text!r}: the tile has no lane {name!r}{near}"))
            return None
        k = index[name]
        if number > len(spaces[k]):
            missing = f"{what}{text!r}, a space that is not there"
            problems.append((where, f"{missing}: lane {name!r} has {len(spaces[k])} spaces"))
            return None
        return k, number - 1

    cells_raw: list[tuple[dict, tuple]] = []
    for k, lane in enumerate(lanes):
        for j, text in enumerate(lane["spaces"]):
            marks, _turn, _bad = parse_space(text)
            h, heading = spaces[k][j]
            cells_raw.append(
                ({"q": h.q, "r": h.r, "heading": heading, "lane": k + 1, **marks}, base + ("lanes", k, "spaces", j))
            )

    # merges and exits
    leaving: list[int] = []
    exit_tile = tile_neighbour(0, 0, DIRECTION_NAMES.index(leave)) if leave is not None else None
    for k, lane in enumerate(lanes):
        h, heading = spaces[k][-1]
        if "into" in lane:
            where = base + ("lanes", k, "into")
            target = ref(lane["into"], where, f"lane {names[k]!r} runs into ")
            if target is None:
                continue
            tk, tj = target
            if tk == k:
                problems.append((where, f"lane {names[k]!r} runs into itself: a merge joins two lanes"))
                continue
            th, theading = spaces[tk][tj]
            ahead = [h.neighbour(heading + t) for t in (0, -1, 1)]
            gap = min((theading - heading) % 6, (heading - theading) % 6)
            if th not in ahead or gap > 1:
                problems.append(
                    (
                        where,
                        f"lane {names[k]!r} runs into {lane['into']!r}, which is not ahead of its last space "
                        f"(space {len(spaces[k])}, cell {h}, heading {DIRECTION_NAMES[heading]}): space "
                        f"{tj + 1} of {names[tk]!r} lies at cell {th}, heading {DIRECTION_NAMES[theading]} "
                        "(a merge leads straight or diagonally ahead into the other lane)",
                    )
                )
            continue
        beyond = tile_of(h.neighbour(heading), frame)
        if beyond == (exit_tile,):
            leaving.append(k)
        elif _leaves(lane):  # (a lane ending at a finish space that stays on the tile: the track ends there)
            problems.append(
                (
                    base + ("lanes", k, "spaces", len(spaces[k]) - 1),
                    f"lane {names[k]!r} does not reach the {leave} side: its last space (space {len(spaces[k])}, "
                    f"cell {h}) heads {DIRECTION_NAMES[heading]}, onto "
                    + (
                        f"the tile across its {_side(beyond, frame)} side"
                        if _side(beyond, frame)
                        else "no neighbouring tile"
                    )
                    + " (count its spaces and bends again, say 'into: LANE N' where it merges, or mark its last "
                    "space 'finish')",
                )
            )

    # the lanes leave on the rows the next tile's lanes enter by (any two tiles meet, RM-8)
    if leave is not None and leaving and not problems:
        side = DIRECTION_NAMES.index(leave)
        nq, nr = tile_neighbour(0, 0, side)
        for i, (k, row) in enumerate(zip(leaving, rows(len(leaving)))):
            h, heading = spaces[k][-1]
            start = entry_cell(row, frame)
            want = place(start, nq, nr, side, frame) if start is not None else None
            if want not in (h, h.neighbour(heading)):
                problems.append(
                    (
                        base + ("lanes", k, "spaces", len(spaces[k]) - 1),
                        f"lane {names[k]!r} leaves the {leave} side on cell {h}, not on the row lane {i + 1} of "
                        f"{len(leaving)} crosses a side by (its last space on cell {want} or just before it): the "
                        "next tile's lanes would not continue it (count its spaces and bends again)",
                    )
                )

    # spaces side by side: the pairs given, else the same count in neighbouring lanes
    given: set[frozenset[int]] = set()
    for j, pair in enumerate(raw.get("beside", ())):
        where = base + ("beside", j)
        a, b = ref(pair[0], where + (0,)), ref(pair[1], where + (1,))
        if a is None or b is None:
            continue
        if a == b:
            problems.append((where, f"{pair[0]!r} is given beside itself: a pair is two spaces of neighbouring lanes"))
            continue
        if abs(a[0] - b[0]) != 1:
            why = (
                f"both are spaces of lane {names[a[0]]!r}"
                if a[0] == b[0]
                else f"lanes {names[a[0]]!r} and {names[b[0]]!r} are not next to each other"
            )
            problems.append((where, f"{pair[0]!r} and {pair[1]!r} cannot lie side by side: {why}"))

            continue
        given.add(frozenset((a[0], b[0])))
        ha, hb = spaces[a[0]][a[1]][0], spaces[b[0]][b[1]][0]
        if distance(ha, hb) != 1:
            problems.append(
                (
                    where,
                    f"{pair[0]!r} and {pair[1]!r} do not lie side by side as the lanes are laid: cells {ha} and {hb} "
                    f"are {distance(ha, hb)} apart (count the spaces and bends of both lanes again)",
                )
            )
    for k in range(len(lanes) - 1):
        if frozenset((k, k + 1)) in given:
            continue
        for j in range(min(len(spaces[k]), len(spaces[k + 1]))):
            ha, hb = spaces[k][j][0], spaces[k + 1][j][0]
            if distance(ha, hb) != 1:
                problems.append(
                    (
                        base + ("lanes", k + 1, "spaces", j),
                        f"space {j + 1} of lane {names[k]!r} and space {j + 1} of lane {names[k + 1]!r} do not lie "
                        f"side by side as the lanes are laid (cells {ha} and {hb}); spaces at the same count lie "
                        "side by side unless 'beside' says which do: give the pairs of "
                        f"{names[k]!r} and {names[k + 1]!r}",
                    )
                )
                break

    # inside lines between two spaces
    lines = []
    for j, line in enumerate(raw.get("lines", ())):
        where = base + ("lines", j, "between")
        a, b = ref(line["between"][0], where + (0,)), ref(line["between"][1], where + (1,))
        if a is None or b is None:
            continue
        ha, hb = spaces[a[0]][a[1]][0], spaces[b[0]][b[1]][0]
        lines.append({**line, "between": [[ha.q, ha.r], [hb.q, hb.r]]})
    if problems:
        return None, problems
    return Laid(tuple(cells_raw), tuple(lines), tuple(names)), []


def _leaves(lane: dict) -> bool:
    """Whether `lane` leaves its tile: it neither runs into another lane nor ends at a finish
    space (its last space says `finish`: the track ends there)."""
    if "into" in lane:
        return False
    marks, _turn, _bad = parse_space(lane["spaces"][-1])
    return not marks.get("finish", False)


def _side(beyond: tuple[tuple[int, int], ...], frame: str) -> str | None:
    """The side of tile (0, 0) across which the tile `beyond` lies, in words (None: none)."""
    if len(beyond) != 1:
        return None
    for d in range(6):
        if tile_neighbour(0, 0, d) == beyond[0]:
            return DIRECTION_NAMES[d]
    return None
