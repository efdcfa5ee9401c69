"""Rekee's tokens as the rulebooks read them: which spaces a token lies on, and what it does
there (ruling RM-17; docs/rulings.md gives each kind's rulebook sentence).

Rekee (the track editor, `rekee.py`) lays tokens on its tiles: chicanes, jumps and water of
the DIRT Copilot Pack, the core box's mud spray, the Climb expansion's slopes, cloud and
oxygen, the RX expansion's arches. A token is kept as Rekee writes it (`model.Token`: its id,
its place `q`, `r` within its tile and its turn `dir`); the kinds a rulebook gives a rule
become that feature of the track when it is loaded:

- **chicane with limit** (`chicane-limit`, any terrain): Rekee notes it as a chicane with the
  limit 2: the spaces it lies on are corner spaces of limit 2 (a lower limit they have
  already stays), in GT and DIRT ("Corner spaces have numbers in the middle which indicate
  the top gear");
- **jump** (DIRT): Rekee notes it as a jump of gear 4: its spaces are jumps of gear 4;
- **water** (DIRT): its spaces are water hazards;
- **mud spray** (DIRT): "The maximum speed limit for all Corner spaces on this tile is reduced
  by 1", stacking: every corner space of its tile one lower (after the tile's road tokens).

Any other token (a chicane without a limit, the Climb and RX tokens, a DIRT token on a GT
track, an id Rekee does not know) has no rule in the variant's rulebook: it is kept, drawn
as a marker and said once as a warning (`warnings`); it changes nothing.

**Which spaces a road token lies on.** Rekee's facts: a token's `q`, `r` are fractional
axial coordinates of the tile grid, relative to its tile's centre and in the tile's own
frame (Rekee turns them with the tile); the tile grid is the cell grid scaled by the frame's
span (`hexgrid`: 4, or 7 for the large frame), so the token's centre is the frame point
(span q, span r). Rekee draws a chicane, jump or water token as a picture 0.5 by 0.35 of the
tile's circumradius (span cell radii), its long side across the token's direction: turned
60 dir + 90 degrees clockwise from east (Rekee's pointy layout starts its angles at 90). A
road token lies across the road: it marks, in each lane of its tile (lane 1 and up: a
shortcut space is off the road), the space whose centre is nearest the token's centre, if
that centre lies within one cell radius of the picture (so that a lane the picture misses,
or reaches by a sliver, is left out); of two spaces of a lane equally near, the one further
back along its direction of travel. A road token that marks no space of its tile is refused.
A mud spray acts on its whole tile, wherever it lies on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sheetgen.games.rallyman.hexgrid import SQRT3, centre
from sheetgen.games.rallyman.model import Cell, Token, Track, Variant

#: Rekee's token names (TokenId without its terrain or number), and the expansion each is part of
NAMES = {
    "chicane": "the DIRT Copilot Pack's chicane without a limit",
    "chicane-limit": "the DIRT Copilot Pack's chicane with a limit",
    "jump": "the DIRT Copilot Pack's jump",
    "water": "the DIRT Copilot Pack's water",
    "climb-ascent": "the DIRT Climb expansion's ascent",
    "climb-descent": "the DIRT Climb expansion's descent",
    "cloud": "the DIRT Climb expansion's cloud",
    "oxygen": "the DIRT Climb expansion's oxygen",
    "joker-entrance": "the DIRT RX expansion's joker entrance arch",
    "joker-exit": "the DIRT RX expansion's joker exit arch",
    "finish": "the DIRT RX expansion's finishing line arch",
    "mud-spray": "the DIRT core box's shortcut mud spray",
}
TERRAINS = ("none", "asphalt", "gravel", "snow")

#: the picture Rekee draws of a chicane, jump or water token: across its direction, along it,
#: in tile circumradii (Rekee's token_image_size)
PICTURE = (0.5, 0.35)
#: how far from the picture a space's centre may lie and the token still mark it: one cell
#: radius (the space's hexagon may reach the picture)
REACH = 1.0


@dataclass(frozen=True)
class TokenName:
    """A token id as Rekee reads it (TokenId): its name, terrain and number."""

    name: str
    terrain: str = "none"
    number: int = 0


def parse(token_id: str) -> TokenName | None:
    """The token `token_id` as Rekee reads it (any case, blanks as dashes, a terrain or a
    number after the last dash); None for one Rekee does not know."""
    text = re.sub(r"\s", "-", token_id).lower()
    name, terrain, number = text, "none", 0
    if "-" in text:
        prefix, suffix = text.rsplit("-", 1)
        if suffix in TERRAINS:
            name, terrain = prefix, suffix
        elif suffix.isdigit() and suffix.isascii() and int(suffix) <= 255:
            name, number = prefix, int(suffix)
    if name not in NAMES:
        return None
    return TokenName(name, terrain, number)


@dataclass(frozen=True)
class Rule:
    """What a token kind does on a track of the variants it has a rule in."""

    feature: str  # "limit", "jump", "water" (the spaces it lies on) or "mud" (its tile)
    value: int | None
    variants: frozenset[Variant]
    effect: str  # in words, for the map and messages

    @property
    def road(self) -> bool:
        """A road token: it marks the spaces it lies on (`road_cells`)."""
        return self.feature != "mud"


_BOTH = frozenset(Variant)
_DIRT = frozenset({Variant.DIRT})
#: the token kinds a rulebook gives a rule, by Rekee's name
RULES = {
    "chicane-limit": Rule("limit", 2, _BOTH, "corner limit 2"),
    "jump": Rule("jump", 4, _DIRT, "jump of gear 4"),
    "water": Rule("water", None, _DIRT, "water hazard"),
    "mud-spray": Rule("mud", -1, _DIRT, "every corner limit of its tile 1 lower"),
}


def rule(token_id: str, variant: Variant) -> Rule | None:
    """The rule of token `token_id` on a track of `variant`, or None (no rule: a marker)."""
    name = parse(token_id)
    found = RULES.get(name.name) if name is not None else None
    return found if found is not None and variant in found.variants else None


def centre_in_frame(token: Token, span: int) -> tuple[float, float]:
    """The token's centre in its tile's own frame, in the unit layout of the cells (x right,
    y down): the tile grid is the cells' scaled by `span`."""
    q, r = span * token.q, span * token.r
    return (SQRT3 * (q + r / 2.0), 1.5 * r)


def angle(token: Token, rotation: int = 0) -> float:
    """The direction of the long side of the token's picture, in degrees clockwise from east
    (y down), on a tile turned by `rotation`: Rekee's 60 (rotation + dir) + 90."""
    return (60.0 * (rotation + token.dir) + 90.0) % 360.0


def picture(token: Token, span: int) -> tuple[tuple[float, float], ...]:
    """The four corners of the token's picture in its tile's own frame (unit layout)."""
    x, y = centre_in_frame(token, span)
    a = math.radians(angle(token))
    ux, uy = math.cos(a), math.sin(a)
    half_long, half_short = PICTURE[0] * span / 2.0, PICTURE[1] * span / 2.0
    return tuple(
        (x + s * half_long * ux - t * half_short * uy, y + s * half_long * uy + t * half_short * ux)
        for s, t in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    )


def _from_picture(token: Token, span: int, point: tuple[float, float]) -> float:
    """How far `point` (frame, unit layout) lies from the token's picture (0 inside it)."""
    x, y = centre_in_frame(token, span)
    a = math.radians(angle(token))
    ux, uy = math.cos(a), math.sin(a)
    dx, dy = point[0] - x, point[1] - y
    along, across = dx * ux + dy * uy, -dx * uy + dy * ux
    out_long = max(abs(along) - PICTURE[0] * span / 2.0, 0.0)
    out_short = max(abs(across) - PICTURE[1] * span / 2.0, 0.0)
    return math.hypot(out_long, out_short)


def road_cells(token: Token, cells: Iterable[Cell], span: int) -> tuple[Cell, ...]:
    """The spaces of a tile (`cells`: in its own frame, with the headings it is driven by) a
    road token lies on: in each lane, the space nearest the token's centre, if it lies within
    REACH of its picture (ties: the one further back along its direction of travel). In lane
    order."""
    x, y = centre_in_frame(token, span)
    lanes: dict[int, list[Cell]] = {}
    for c in cells:
        if c.lane >= 1:
            lanes.setdefault(c.lane, []).append(c)
    out = []
    for lane in sorted(lanes):

        def key(c: Cell) -> tuple[float, float, int, int]:
            cx, cy = centre(c.hex)
            h = math.radians(60 * c.heading)
            return (
                round(math.hypot(cx - x, cy - y), 9),
                round(cx * math.cos(h) + cy * math.sin(h), 9),
                c.hex.r,
                c.hex.q,
            )

        nearest = min(lanes[lane], key=key)
        if _from_picture(token, span, centre(nearest.hex)) <= REACH + 1e-9:
            out.append(nearest)
    return tuple(out)


def described(token_id: str) -> str:
    """What the token is, in words: "the DIRT Copilot Pack's jump", or that Rekee does not
    know it."""
    name = parse(token_id)
    return NAMES[name.name] if name is not None else "not a token Rekee knows"


def unruled(track: Track, written: Callable[[int, int], str] | None = None) -> list[tuple[tuple, str]]:
    """The tokens of `track` that no rule of its variant's rulebook reads, one warning per
    kind (at its first token, with how many there are): (its path in the spec, message).
    `written(i, j)`: the id of token j of tile i as the file read writes it, when it is not
    Rekee's (RGT's)."""
    book = "Rallyman GT" if track.variant is Variant.GT else "Rallyman DIRT"
    seen: dict[str, list[tuple[int, int, Token]]] = {}
    for i, p in enumerate(track.placements):
        for j, t in enumerate(p.tokens):
            if t.effect is None:
                name = parse(t.id)
                seen.setdefault(name.name if name is not None else t.id, []).append((i, j, t))
    out = []
    for found in seen.values():
        i, j, t = found[0]
        more = f" (and {len(found) - 1} more of its kind)" if len(found) > 1 else ""
        name = parse(t.id)
        other = name is not None and name.name in RULES and track.variant not in RULES[name.name].variants
        why = (
            f"the {book} rulebook has no {name.name.replace('-', ' ')} (a Rallyman DIRT rule)"
            if other and name is not None
            else f"no rule of the {book} rulebook reads it"
        )
        shown = f"{written(i, j)!r} (Rekee's {t.id!r})" if written is not None else repr(t.id)
        out.append(
            (
                ("tiles", i, "tokens", j, "id"),
                f"token {shown}{more}, {described(t.id)}: {why}; kept for export and drawn as a marker, it changes "
                "nothing on the track",
            )
        )
    return out
