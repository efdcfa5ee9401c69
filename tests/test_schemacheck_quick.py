"""The quick schema check (sheetgen.schemacheck._surely_valid) that lets a valid file skip
jsonschema: on every bundled spec and on seeded mutations of them it says valid exactly when
jsonschema does, with the same rules (3.0 is not an integer, true is not a number)."""

from __future__ import annotations

import copy
import random

import pytest
import yaml

from conftest import SPECS
from sheetgen import registry
from sheetgen.schemacheck import _surely_valid, _validator

BUNDLED = sorted(p for p in SPECS.rglob("*.yaml"))
ODD_VALUES = [None, True, False, 0, 1, 1.0, 3.0, -1, 2.5, 10**9, "", "x", "asphalt", "\u6771\u4eac", "Col\tde", "\u03a9mega", [], [1, 1], [{}], {}, {"zz": 1}]


def _nodes(data, path=()):
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _nodes(value, (*path, i))


def _mutated(data, rng: random.Random):
    data = copy.deepcopy(data)
    path, node = rng.choice(list(_nodes(data)))
    if not path:
        return data
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    what = rng.random()
    if what < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
    elif what < 0.3 and isinstance(node, dict):
        node[rng.choice(["zz", "name", "length", "surface"])] = rng.choice(ODD_VALUES)
    elif what < 0.4 and isinstance(node, list) and node:
        node.append(copy.deepcopy(node[0]))
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
    return data


def _without_dialects(schema):
    """The schema without the `$schema` of its parts: jsonschema checks a part that names its
    dialect with that dialect's own validator (where 3.0 is an integer), the loaders check
    with parts that name none."""
    if isinstance(schema, dict):
        return {k: _without_dialects(v) for k, v in schema.items() if k != "$schema"}
    if isinstance(schema, list):
        return [_without_dialects(v) for v in schema]
    return schema


def _schema(path) -> dict:
    game = yaml.safe_load(path.read_text())["game"]
    return _without_dialects(registry.game(game).schema())


# (the large tile library, 25 KB, under -m slow: tiles.yaml has the same keys)
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name == "tiles_large.yaml" else p for p in BUNDLED],
    ids=lambda p: str(p.relative_to(SPECS)),
)
def test_quick_check_agrees_with_jsonschema(path) -> None:
    schema = _schema(path)
    data = yaml.safe_load(path.read_text())
    strict = _validator(schema)
    assert _surely_valid(schema, data) and strict.is_valid(data)  # the bundled files skip jsonschema
    rng = random.Random(str(path.relative_to(SPECS)))
    for _ in range(60):
        bad = _mutated(data, rng)
        assert _surely_valid(schema, bad) == strict.is_valid(bad)


def test_quick_check_rules_by_hand() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "x": {"type": "number"},
              "s": {"enum": [1, "a"]}}, "additionalProperties": False, "required": ["n"]}
    assert _surely_valid(schema, {"n": 1, "x": 2, "s": 1.0})
    assert not _surely_valid(schema, {"n": 1.0})  # 1.0 is not a whole number in a spec
    assert not _surely_valid(schema, {"n": True})
    assert not _surely_valid(schema, {"n": 2, "x": True})  # true is not a number
    assert not _surely_valid(schema, {"n": 2, "s": True})  # true is not 1
    assert not _surely_valid(schema, {"n": 0})
    assert not _surely_valid(schema, {"n": 2, "y": 0})
    assert not _surely_valid(schema, {})
    assert not _surely_valid({"$ref": "#/x"}, 1)  # a keyword it does not know: jsonschema decides


TEMPLATES = sorted((SPECS.parent / "templates").glob("*.yaml"))


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_quick_check_agrees_with_jsonschema_on_templates_and_their_game_sizes(path) -> None:
    """A template's schema takes any game's size by pattern (`template.SIZE_KEY`, a key
    ending in _mm): the quick check reads patternProperties as jsonschema does, so a bundled
    template skips jsonschema, and mutations (sizes of any name, wrong types, unknown keys)
    get the same answer."""
    from sheetgen.template import _schema as template_schema

    schema = _without_dialects(template_schema(None))
    data = yaml.safe_load(path.read_text())
    strict = _validator(schema)
    assert _surely_valid(schema, data) and strict.is_valid(data)
    rng = random.Random(path.name)
    for _ in range(60):
        bad = _mutated(data, rng)
        if rng.random() < 0.5:
            bad[rng.choice(["hex_mm", "space_mm", "badge_mm", "x_mm", "mm", "Hex_mm", "zoom"])] = rng.choice(ODD_VALUES + [12, 30.5])
        assert _surely_valid(schema, bad) == strict.is_valid(bad), bad
