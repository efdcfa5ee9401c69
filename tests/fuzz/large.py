"""Valid but large: bundled specs grown to the limits their schema allows, and commands given
options at the far end of their ranges, for the expensive commands.

A spec under 10 KB must be answered within `harness.SLOW` seconds of CPU, or refused by a
located line that names the limit it passes: a stage of 300 spaces, eight stages, ten laps, a
hundred road sections, a Rally Run! board of 9 by 9 with 80 tiles of a kind, 99 drivers. The
limits are read from each game's JSON Schema (`sheetgen schema GAME`: every `maximum`,
`minimum`, `maxItems`, `maxLength`), so a limit a game adds is reached without a change here;
a few rules keep a grown spec meaningful (a stage's corners move with its length, a copied
item gets a name of its own, a compact path's straights get their longest length).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fuzz.harness import Case, Corpus, Mutator

#: the size a grown spec stays under (the limit's scope: inputs under 10 KB)
BUDGET = 9_500
#: commands run on a grown spec, by what they need of it
ON_SPEC = ("analyze", "simulate", "render", "build", "validate", "standings", "season", "calendar", "tables", "export")
#: commands whose own options are made large (no spec grown)
ON_OPTIONS = ("analyze", "simulate", "generate", "odds", "timetable", "tables", "calendar")


@cache
def schema_of(game: str) -> dict:
    from sheetgen import registry

    return registry.game(game).schema()


def _fits(schema: dict, value: Any) -> bool:
    kind = schema.get("type")
    if kind == "object" and not isinstance(value, dict):
        return False
    if kind == "array" and not isinstance(value, list):
        return False
    if kind == "string" and not isinstance(value, str):
        return False
    if kind == "integer" and not (isinstance(value, int) and not isinstance(value, bool)):
        return False
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key, sub in props.items():
            if "const" in sub and value.get(key, sub["const"]) != sub["const"]:
                return False
        if "kind" not in value and "kind" in schema.get("required", ()):
            return False
    return True


def _resolve(schema: dict, value: Any) -> dict:
    """The branch of a oneOf/anyOf that `value` is (by its type and its `game`/`kind`)."""
    for key in ("oneOf", "anyOf"):
        if key in schema:
            branches = [b for b in schema[key] if _fits(b, value)]
            return _resolve(branches[0], value) if branches else {}
    return schema


#: numbers that place a thing rather than size it (a corner's space, a cell's coordinates):
#: at their limit they only make the spec invalid
POSITIONS = {"after", "zone", "q", "r", "dir", "rotation", "heading", "row", "column", "lane", "seed"}


def knobs(data: Any, schema: dict, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """(path, schema) of every value of `data` that has a limit: a number's maximum or
    minimum (not a position), a list's maxItems, a name's maxLength."""
    schema = _resolve(schema, data)
    found: list[tuple[tuple, dict]] = []
    sized = ("maximum" in schema or "minimum" in schema) and not (path and path[-1] in POSITIONS)
    sized |= "maxItems" in schema or ("maxLength" in schema and schema.get("format") == "printable")
    if sized and path:
        found.append((path, schema))
    if isinstance(data, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, value in data.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                found += knobs(value, sub, path + (key,))
    elif isinstance(data, list) and isinstance(schema.get("items"), dict):
        for i, value in enumerate(data):
            found += knobs(value, schema["items"], path + (i,))
    return found


def _get(data: Any, path: tuple) -> Any:
    for step in path:
        data = data[step]
    return data


def _set(data: Any, path: tuple, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, default=str))


def _renamed(item: Any, n: int) -> Any:
    """A copy of a list's item with names and ids of its own (`name 2`, `id_2`)."""
    item = copy.deepcopy(item)
    if isinstance(item, dict):
        for key in ("name", "id", "rally"):
            if isinstance(item.get(key), str):
                item[key] = f"{item[key]}_{n}" if key != "name" else f"{item[key]} {n}"[:60]
    elif isinstance(item, str) and not item.endswith(".yaml"):
        item = f"{item} {n}"[:30]
    return item


def grow(data: Any, path: tuple, schema: dict, rng, budget: int = BUDGET) -> str:
    """Take the value at `path` to its limit; what was done, in words."""
    value = _get(data, path)
    if isinstance(value, list) and "maxItems" in schema and value:
        room = max(0, budget - _size(data))
        each = max(1, _size(value[0]) + 2)
        target = min(schema["maxItems"], len(value) + room // each)
        if target <= len(value):
            return ""
        grown = list(value) + [_renamed(value[i % len(value)], len(value) + i + 1) for i in range(target - len(value))]
        _set(data, path, grown)
        return f"{'/'.join(map(str, path))}: {len(value)} -> {target} items"
    if isinstance(value, str) and "maxLength" in schema:
        if value.endswith(".yaml") or "enum" in schema or "pattern" in schema:
            return ""
        _set(data, path, (value + " " + "x" * schema["maxLength"])[: schema["maxLength"]])
        return f"{'/'.join(map(str, path))}: {schema['maxLength']} characters"
    if isinstance(value, int) and not isinstance(value, bool):
        high, low = schema.get("maximum"), schema.get("minimum")
        new = high if high is not None and (low is None or rng.random() < 0.8) else low
        if new is None or new == value:
            return ""
        if new > 10**6:  # a seed, an id: no size
            return ""
        _set(data, path, new)
        parent = _get(data, path[:-1])
        if path[-1] == "length" and isinstance(parent, dict) and isinstance(parent.get("corners"), list) and value:
            for corner in parent["corners"]:  # the corners keep their places along the stage
                for key in ("after", "zone"):
                    if isinstance(corner.get(key), int):
                        corner[key] = max(1, min(new - 1, corner[key] * new // value))
        return f"{'/'.join(map(str, path))}: {value} -> {new}"
    return ""


def enlarge(data: Any, game: str, rng, changes: int) -> str:
    """Grow `data` (a spec of `game`) at `changes` of its limits; what was done."""
    done = []
    segments = data.get("path", {}).get("segments") if isinstance(data, dict) and isinstance(data.get("path"), dict) else None
    if isinstance(segments, str) and rng.random() < 0.5:  # a compact Rallyman path: its straights at their longest
        from sheetgen.games.rallyman.compact import MAX_STRAIGHT

        data["path"]["segments"] = re.sub(r"straight \d+", f"straight {MAX_STRAIGHT}", segments)
        done.append(f"path/segments: straights of {MAX_STRAIGHT}")
    found = knobs(data, schema_of(game))
    # sizes first, mostly (a list's length, a count, a length): a long name is one knob of many
    found.sort(key=lambda knob: rng.random() * (1 if "maxLength" in knob[1] else 4), reverse=True)
    for path, schema in found:
        if len(done) >= changes:
            break
        try:
            said = grow(data, path, schema, rng)
        except (KeyError, IndexError, TypeError):
            continue
        if said:
            done.append(said)
    return "; ".join(done) or "no limit to reach"


def large_case(case: Case, mut: Mutator, corpus: Corpus) -> None:
    """A valid command on a grown spec, or with its own options made large."""
    from fuzz import commands
    from fuzz.harness import render_data

    case.large = True
    case.env = {"SHEETGEN_CACHE": "off"}  # what the work costs, not what a cache holds
    if mut.rng.random() < 0.3:
        commands.valid_command(case, mut, corpus, size="large", command=mut.pick(list(ON_OPTIONS)))
        case.description = "options at their far end"
        return
    commands.valid_command(case, mut, corpus, size=mut.pick(["small", "large"]), command=mut.pick(list(ON_SPEC)))
    if case.subject is None:
        case.description = "no spec to grow"
        return
    spec = next((s for s in corpus.specs if s.path == case.subject), None)
    if spec is None:
        return
    if spec.refs and mut.rng.random() < 0.3:  # the library or the races it names, grown instead
        from fuzz.harness import inputs_of

        spec = corpus.spec(mut.pick(sorted(inputs_of(corpus, spec.path) - {spec.path})))
    data = copy.deepcopy(spec.data)
    grown = enlarge(data, spec.game, mut.rng, mut.pick([1, 2, 3, 6, 50]))
    case.files[spec.path] = render_data(data).encode("utf-8")
    case.description = f"{spec.path} grown: {grown}"[:300]
