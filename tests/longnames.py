"""The bundled specs with every name a sheet prints at the most characters its schema allows.

`lengthen(folder)` rewrites a copy of track_specs/ in place: each name becomes itself followed
by filler up to the schema's limit (so names stay distinct, and references to them, such as a
results file's player names or a Rally Run board's tile names, follow). Two fillers: `words`
(a wordy rally name, which a sheet may wrap) and `wide` (capital Ws without a space, the
widest text of that length, which a sheet can only shrink or cut).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import SPECS
from sheetgen.yamlsrc import dump, load_text

WORDS = " Rallye International des Cevennes et de la Montagne Noire et du Mont Lozere 24 heures"
WIDE = "W" * 100

#: (game, kind) -> [(path pattern, limit)]: `*` any list index, `@` each key of a mapping; a
#: negative limit is an id's (letters, digits, _ . -: Ws whatever the filler)
TEXT = {
    ("rallytaire", "race"): [("name", 60), ("stages.*.name", 60)],
    ("rallytaire", "season"): [("name", 60), ("players.*", 30)],
    ("rally_risk", "library"): [("name", 60), ("sections.*.name", 60)],
    ("rally_risk", "race"): [("name", 60)],
    ("rally_risk", "calendar"): [("name", 60), ("rallies.*.name", 60), ("rallies.*.courses.*.name", 60)],
    ("rally_risk", "results"): [
        ("name", 60),
        ("players.*", 30),
        ("rallies.*.name", 60),
        ("rallies.*.races.*.name", 60),
        ("rallies.*.races.*.departure.*", 30),
        ("rallies.*.races.*.finish.@", 30),
        ("rallies.*.races.*.assistance.@", 30),
    ],
    ("rally_run", "set"): [
        ("name", 60),
        ("tiles.*.name", 40),
        ("pit_stop.name", 40),
        ("start_finish.*.name", 40),
        ("trophies.*.name", 40),
        ("board.*.tile", 40),
    ],
    ("rallyman", "track"): [("name", 80), ("author", 80), ("tiles.*.id", -40)],
    ("rallyman", "tiles"): [("name", 80), ("tiles.*.name", 80), ("tiles.*.id", -40)],
    ("rallyman", "results"): [("name", 80), ("stages.*", 80), ("stages.*.name", 80), ("drivers.*.name", 40)],
}
DEFAULT_KIND = {"rallytaire": "race", "rally_risk": "race", "rally_run": "set", "rallyman": "track"}


def long_name(old: str, limit: int, style: str) -> str:
    """`old` and filler, `limit` characters (a space that would end it becomes a letter)."""
    if limit < 0:
        return (old + WIDE)[:-limit]
    name = (old + (WORDS if style == "words" else WIDE))[:limit]
    return name[:-1] + "x" if name.endswith(" ") else name


def _walk(value, parts: list[str], limit: int, style: str):
    if not parts:
        return long_name(value, limit, style) if isinstance(value, str) else value
    head, rest = parts[0], parts[1:]
    if head == "*" and isinstance(value, list):
        return [_walk(item, rest, limit, style) for item in value]
    if head == "@" and isinstance(value, dict):
        return {long_name(k, limit, style): v for k, v in value.items()}
    if isinstance(value, dict) and head in value:
        return dict(value, **{head: _walk(value[head], rest, limit, style)})
    return value


def lengthen_data(data: dict, style: str = "words") -> dict:
    kind = (data.get("game"), data.get("kind", DEFAULT_KIND.get(data.get("game"))))
    for pattern, limit in TEXT.get(kind, []):
        data = _walk(data, pattern.split("."), limit, style)
    return data


def lengthen(folder: Path, style: str = "words") -> Path:
    """A copy of track_specs/ under `folder` with every printed name at its limit."""
    target = folder / f"specs-{style}"
    shutil.copytree(SPECS, target)
    for path in target.rglob("*.yaml"):
        data = load_text(path.read_text(encoding="utf-8"), str(path)).data
        path.write_text(dump(lengthen_data(data, style)), encoding="utf-8")
    return target
