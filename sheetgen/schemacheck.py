"""Check loaded spec data against a JSON Schema and word each failure for people.

The same schemas are published by `sheetgen schema` for editors. jsonschema finds every
failure at once; this module turns each into a `Problem` at the offending value (or at
the offending key, for unknown keys) with a message in the spec's own words.
"""

from __future__ import annotations

import difflib
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from sheetgen.errors import Problem
from sheetgen.yamlsrc import Document

# In a spec, 3.0 is not an integer and true is not a number.
_TYPES = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
).redefine(
    "number",
    lambda _checker, value: isinstance(value, (int, float)) and not isinstance(value, bool),
)
_Validator = jsonschema.validators.extend(Draft202012Validator, type_checker=_TYPES)

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "empty",
}


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"{value!r}"
    return f"{value!r}"


def _name(path: tuple) -> str:
    """What the user calls the value at `path`: its key, or `stages[2]` for list items."""
    if not path:
        return "the spec"
    last = path[-1]
    if isinstance(last, int):
        parent = next((p for p in reversed(path[:-1]) if isinstance(p, str)), "item")
        return f"{parent}[{last + 1}]"
    return repr(last)


def check(doc: Document, schema: dict, data: Any = None, base: tuple = ()) -> list[Problem]:
    """Every schema failure of `data` (default: the whole document) as a Problem."""
    data = doc.data if data is None else data
    problems = []
    for error in _Validator(schema).iter_errors(data):
        path = base + tuple(error.absolute_path)
        problems.extend(_word(doc, error, path))
    return problems


def _word(doc: Document, error: jsonschema.ValidationError, path: tuple) -> list[Problem]:
    kind, expected, value = error.validator, error.validator_value, error.instance
    name = _name(path)
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        problems = []
        for key in value:
            if key in allowed:
                continue
            near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f", did you mean {near[0]!r}?" if near else f" (expected one of: {', '.join(allowed)})"
            problems.append(doc.problem(path + (key,), f"unknown key {key!r}{hint}", key=True))
        return problems
    if kind == "required":
        missing = [key for key in expected if key not in value]
        where = "the spec" if not path else name
        return [doc.problem(path, f"missing required key {key!r} in {where}") for key in missing]
    if kind == "type":
        types = [expected] if isinstance(expected, str) else list(expected)
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
        return [doc.problem(path, f"{name} must be {words}, got {_kind(value)}")]
    if kind == "enum":
        choices = ", ".join(str(c) for c in expected)
        return [doc.problem(path, f"{name} must be one of {choices}; got {_kind(value)}")]
    if kind == "const":
        return [doc.problem(path, f"{name} must be {expected!r}, got {_kind(value)}")]
    if kind in ("minimum", "exclusiveMinimum"):
        return [doc.problem(path, f"{name} must be at least {expected}, got {value!r}")]
    if kind in ("maximum", "exclusiveMaximum"):
        return [doc.problem(path, f"{name} must be at most {expected}, got {value!r}")]
    if kind == "minItems":
        return [doc.problem(path, f"{name} must have at least {expected} item{'s' if expected != 1 else ''}")]
    if kind == "maxItems":
        return [doc.problem(path, f"{name} must have at most {expected} items, got {len(value)}")]
    if kind == "minLength":
        return [doc.problem(path, f"{name} must not be empty")]
    if kind == "maxLength":
        return [doc.problem(path, f"{name} is too long: at most {expected} characters, got {len(value)}")]
    if kind == "uniqueItems":
        return [doc.problem(path, f"{name} must not repeat an item")]
    if kind == "pattern":
        return [doc.problem(path, f"{name} has an invalid form: {_kind(value)}")]
    return [doc.problem(path, f"{name}: {error.message}")]
