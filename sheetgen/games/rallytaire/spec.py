"""Rallytaire specs: the JSON Schema, YAML data <-> model, and validation with locations."""

from __future__ import annotations

from typing import Any

from sheetgen.errors import SpecError
from sheetgen.games.rallytaire.graph import structural_problems
from sheetgen.games.rallytaire.model import MAX_GEAR, MIN_GEAR, Boxes, Corner, Race, Stage, Surface, Turn
from sheetgen.glyphs import TEXT
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document

MIN_LENGTH = 2
MAX_LENGTH = 300
MAX_STAGES = 8
MAX_BOXES = 9
#: The built-in template whose race sheet every stage must fit on (the game's own).
SHEET_TEMPLATE = "race_sheet"

_SURFACES = [s.value for s in Surface]

_CORNER = {
    "type": "object",
    "description": "A corner: the line between space `after` and `after`+1.",
    "additionalProperties": False,
    "required": ["after", "gear", "zone", "turn"],
    "properties": {
        "after": {"type": "integer", "minimum": 1, "description": "the corner line follows this space"},
        "gear": {
            "type": "integer",
            "minimum": MIN_GEAR,
            "maximum": MAX_GEAR,
            "description": "highest safe gear (one more when planned D)",
        },
        "zone": {"type": "integer", "minimum": 1, "description": "first space of the planning zone"},
        "turn": {"enum": [t.value for t in Turn]},
    },
}

_STAGE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "surface", "length"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 60, **TEXT},
        "surface": {"enum": _SURFACES},
        "length": {
            "type": "integer",
            "minimum": MIN_LENGTH,
            "maximum": MAX_LENGTH,
            "description": "spaces; the finish line follows the last one",
        },
        "corners": {"type": "array", "items": _CORNER, "description": "in track order"},
        "service_park": {"type": "boolean", "description": "a service park follows this stage (advanced game)"},
    },
}

_STAGES = {"type": "array", "minItems": 1, "maxItems": MAX_STAGES}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sheetgen Rallytaire race",
    "type": "object",
    "additionalProperties": False,
    "required": ["game", "name", "stages"],
    "properties": {
        "game": {"const": "rallytaire"},
        "name": {"type": "string", "minLength": 1, "maxLength": 60, **TEXT, "description": "the race: one race sheet"},
        "boxes": {
            "type": "object",
            "additionalProperties": False,
            "description": "advanced-game boxes on the sheet (default 3 each)",
            "properties": {
                "engine": {"type": "integer", "minimum": 0, "maximum": MAX_BOXES},
                "brakes": {"type": "integer", "minimum": 0, "maximum": MAX_BOXES},
                "gearbox": {"type": "integer", "minimum": 0, "maximum": MAX_BOXES},
                "car": {"type": "integer", "minimum": 1, "maximum": MAX_BOXES},
            },
        },
        "tyres": {
            "type": "array",
            "items": {"enum": _SURFACES},
            "minItems": 1,
            "uniqueItems": True,
            "description": "tyres that may be chosen before the race (default all three)",
        },
        "stages": dict(_STAGES, items=_STAGE),
    },
}


def load(doc: Document) -> Race:
    """The race in `doc`, or SpecError listing every problem with its location.

    Each stage is checked on its own, so a stage with a schema problem does not hide the
    semantic problems (corner order, zones) of the others.
    """
    data = doc.data
    outline = dict(SCHEMA, properties=dict(SCHEMA["properties"], stages=dict(_STAGES, items={"type": "object"})))
    problems = check(doc, outline)
    stages = data.get("stages") if isinstance(data, dict) else None
    names: dict[str, int] = {}
    for i, raw in enumerate(stages if isinstance(stages, list) else []):
        if not isinstance(raw, dict):
            continue
        base = ("stages", i)
        name = raw.get("name")
        if isinstance(name, str) and name:
            if name in names:
                problems.append(
                    doc.problem(base + ("name",), f"duplicate stage name {name!r} (also stage {names[name] + 1})")
                )
            else:
                names[name] = i
        stage_problems = check(doc, _STAGE, raw, base)
        if not stage_problems:
            stage_problems = [doc.problem(base + path, message) for path, message in validate_stage(_stage(raw))]
        problems.extend(stage_problems)
    if problems:
        raise SpecError(problems)
    race = from_data(data)
    # what validate accepts, render prints: a stage that fits on no page of the race sheet
    # (the built-in template's) is refused at its length
    from sheetgen.games.rallytaire.sheet import unprintable
    from sheetgen.template import load_template

    for i, reason in unprintable(race, load_template(SHEET_TEMPLATE)):
        problems.append(
            doc.problem(
                ("stages", i, "length"),
                f"cannot be printed on the race sheet: {reason}; shorten the stage or space its corners out",
            )
        )
    if problems:
        raise SpecError(problems)
    return race


def from_data(data: dict) -> Race:
    """Build the model from schema-valid data (no semantic checks; see `validate`)."""
    stages = tuple(_stage(s) for s in data["stages"])
    boxes = Boxes(**data.get("boxes", {}))
    if "tyres" in data:
        tyres = tuple(Surface(t) for t in data["tyres"])
        return Race(name=data["name"], stages=stages, boxes=boxes, tyres=tyres)
    return Race(name=data["name"], stages=stages, boxes=boxes)  # the default tyres


def _stage(s: dict) -> Stage:
    return Stage(
        name=s["name"],
        surface=Surface(s["surface"]),
        length=s["length"],
        corners=tuple(
            Corner(after=c["after"], gear=c["gear"], zone=c["zone"], turn=Turn(c["turn"])) for c in s.get("corners", [])
        ),
        service_park=s.get("service_park", False),
    )


def to_data(race: Race) -> dict:
    """The spec data of `race`, in the order a person writes it; `from_data` inverts it."""
    data: dict[str, Any] = {"game": "rallytaire", "name": race.name}
    if race.boxes != Boxes():
        data["boxes"] = {k: getattr(race.boxes, k) for k in ("engine", "brakes", "gearbox", "car")}
    if race.tyres != Race.__dataclass_fields__["tyres"].default:
        data["tyres"] = [t.value for t in race.tyres]
    data["stages"] = [
        {
            "name": stage.name,
            "surface": stage.surface.value,
            "length": stage.length,
            "corners": [
                {"after": c.after, "gear": c.gear, "zone": c.zone, "turn": c.turn.value} for c in stage.corners
            ],
            "service_park": stage.service_park,
        }
        for stage in race.stages
    ]
    return data


def validate(race: Race) -> list[tuple[tuple, str]]:
    """Every semantic problem of a race built from schema-valid data, as (path, message)."""
    problems: list[tuple[tuple, str]] = []
    names: dict[str, int] = {}
    for i, stage in enumerate(race.stages):
        base = ("stages", i)
        if stage.name in names:
            problems.append(
                (base + ("name",), f"duplicate stage name {stage.name!r} (also stage {names[stage.name] + 1})")
            )
        else:
            names[stage.name] = i
        problems.extend((base + path, message) for path, message in validate_stage(stage))
    return problems


def validate_stage(stage: Stage) -> list[tuple[tuple, str]]:
    """Corner lines inside the track, in track order, zones before their corners."""
    problems: list[tuple[tuple, str]] = []
    in_range = True
    previous = None
    for j, corner in enumerate(stage.corners):
        here = ("corners", j)
        if not 1 <= corner.after <= stage.length - 1:
            in_range = False
            problems.append(
                (
                    here + ("after",),
                    f"'after' must be between 1 and {stage.length - 1} (the stage has {stage.length} spaces), got "
                    f"{corner.after}",
                )
            )
        if corner.zone > corner.after:
            in_range = False
            problems.append(
                (here + ("zone",), f"'zone' must be between 1 and 'after' ({corner.after}), got {corner.zone}")
            )
        if previous is not None and corner.after <= previous.after:
            in_range = False
            if corner.after == previous.after:
                message = f"two corners after space {corner.after}; each corner needs its own line"
            else:
                message = (
                    f"corners must be in track order: after space {corner.after} comes before the previous corner's "
                    f"{previous.after}"
                )
            problems.append((here + ("after",), message))
        previous = corner
    if in_range:
        problems.extend(structural_problems(stage))
    return problems
