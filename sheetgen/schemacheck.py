"""Check loaded spec data against a JSON Schema and word each failure for people.

The same schemas are published by `sheetgen schema` for editors. jsonschema finds every
failure at once; this module turns each into a `Problem` at the offending value (or at
the offending key, for unknown keys) with a message in the spec's own words.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import TYPE_CHECKING, Any

from sheetgen import glyphs
from sheetgen.errors import MAX_SHOWN, Problem, omitted
from sheetgen.yamlsrc import Document

if TYPE_CHECKING:
    import jsonschema


def _canonical(value: Any) -> Any:
    """A hashable stand-in for `value`, equal for values JSON Schema calls equal (1 and 1.0,
    not 1 and true)."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("other", repr(value))


def _unique_items(validator, unique, instance, _schema):
    """uniqueItems in linear time: jsonschema's own compares every pair of items it cannot
    sort (mappings, mixed types), minutes for a few ten thousand."""
    import jsonschema

    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set = set()
    for item in instance:
        key = _canonical(item)
        if key in seen:
            yield jsonschema.ValidationError("has non-unique elements")
            return
        seen.add(key)


@functools.cache
def _pattern(rule: str) -> re.Pattern:
    """A schema's `pattern` as JSON Schema reads it (ECMA-262): `$` is the very end of the
    text, never before a final newline as Python's `$` is, so "sg-s2\\n" is no id; written
    as `\\Z` here (outside character classes and escapes)."""
    out, escaped, in_class = [], False, False
    for char in rule:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            out.append(r"\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


def _pattern_rule(validator, rule, instance, _schema):
    """jsonschema's `pattern` with :func:`_pattern`'s end of text."""
    import jsonschema

    if validator.is_type(instance, "string") and _pattern(rule).search(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {rule!r}")


@functools.cache
def _validator_class():
    """jsonschema's Draft 2020-12 validator as specs need it (imported on first use: most
    files pass :func:`_surely_valid` and never need it)."""
    import jsonschema
    from jsonschema import Draft202012Validator

    # In a spec, 3.0 is not an integer and true is not a number.
    types = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    ).redefine(
        "number",
        lambda _checker, value: isinstance(value, (int, float)) and not isinstance(value, bool),
    )
    return jsonschema.validators.extend(
        Draft202012Validator, validators={"uniqueItems": _unique_items, "pattern": _pattern_rule}, type_checker=types
    )


@functools.cache
def _formats():
    """The one `format` sheetgen's schemas assert: text the sheets print (`glyphs.FORMAT`)."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    checker.checks(glyphs.FORMAT)(lambda value: not isinstance(value, str) or glyphs.printable(value))
    return checker


def _validator(schema: dict):
    """jsonschema's validator of `schema` as specs are checked (:func:`_validator_class`, the
    printed text's format asserted)."""
    return _validator_class()(schema, format_checker=_formats())


# --------------------------------------------------------------------------- the quick check

_IS_TYPE = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

#: keywords that only annotate (no effect on validity)
_ANNOTATIONS = frozenset({"description", "title", "$schema", "$comment", "default", "examples"})


class _Unsure(Exception):
    """The quick check met a keyword it does not know: jsonschema decides."""


def _surely_valid(schema: Any, data: Any) -> bool:
    """True when `data` is valid against `schema` for certain, checked in plain Python for the
    keywords sheetgen's schemas use (with the same rules as :func:`_validator_class`: 3.0 is
    not an integer, true not a number, 1 and 1.0 equal); False when it is not, or when the
    schema uses any other keyword. Only a True skips jsonschema (and its import), so that a
    valid file is checked without it; every failure is still found and worded by jsonschema."""
    try:
        return _valid(schema, data)
    except _Unsure:
        return False


def _valid(schema: Any, v: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise _Unsure
    for key, rule in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            kinds = (rule,) if isinstance(rule, str) else rule
            if any(k not in _IS_TYPE for k in kinds):
                raise _Unsure
            if not any(_IS_TYPE[k](v) for k in kinds):
                return False
        elif key == "properties":
            if isinstance(v, dict):
                for name, sub in rule.items():
                    if name in v and not _valid(sub, v[name]):
                        return False
        elif key == "patternProperties":
            if isinstance(v, dict):
                for pattern, sub in rule.items():
                    for name, item in v.items():
                        if re.search(pattern, name) and not _valid(sub, item):  # (jsonschema's own search)
                            return False
        elif key == "additionalProperties":
            if isinstance(v, dict):
                known = schema.get("properties", {})
                patterns = tuple(schema.get("patternProperties", {}))
                for name, item in v.items():
                    if name not in known and not any(re.search(p, name) for p in patterns) and not _valid(rule, item):
                        return False
        elif key == "required":
            if isinstance(v, dict) and any(name not in v for name in rule):
                return False
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unsure
            if isinstance(v, list) and not all(_valid(rule, item) for item in v):
                return False
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if _IS_TYPE["number"](v):
                if key == "minimum" and v < rule or key == "maximum" and v > rule:
                    return False
                if key == "exclusiveMinimum" and v <= rule or key == "exclusiveMaximum" and v >= rule:
                    return False
        elif key in ("minItems", "maxItems"):
            if isinstance(v, list) and (len(v) < rule if key == "minItems" else len(v) > rule):
                return False
        elif key in ("minLength", "maxLength"):
            if isinstance(v, str) and (len(v) < rule if key == "minLength" else len(v) > rule):
                return False
        elif key == "uniqueItems":
            if rule and isinstance(v, list):
                keys = [_canonical(item) for item in v]
                if len(set(keys)) != len(keys):
                    return False
        elif key == "enum":
            if _canonical(v) not in {_canonical(option) for option in rule}:
                return False
        elif key == "const":
            if _canonical(v) != _canonical(rule):
                return False
        elif key == "pattern":
            if isinstance(v, str) and _pattern(rule).search(v) is None:
                return False
        elif key == "format":
            if rule != glyphs.FORMAT:
                raise _Unsure
            if isinstance(v, str) and not glyphs.printable(v):
                return False
        elif key == "oneOf":
            if sum(_valid(sub, v) for sub in rule) != 1:
                return False
        elif key == "anyOf":
            if not any(_valid(sub, v) for sub in rule):
                return False
        elif key == "allOf":
            if not all(_valid(sub, v) for sub in rule):
                return False
        elif key == "not":
            if _valid(rule, v):
                return False
        else:
            raise _Unsure
    return True


#: schema failures worded per check; a file with more is refused without looking for the rest
MAX_COUNTED = 10_000
#: a value longer than this is shown by its start and its length
MAX_QUOTED = 60

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "empty",
}


def _shown(value: Any) -> str:
    """`value!r`, or for a long string or number its start and its length (a message is one
    line a person reads, not a copy of the file)."""
    if isinstance(value, str) and len(value) > MAX_QUOTED:
        return f"{value[:20]!r}... ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_QUOTED:
        digits = str(value)  # (the loader refuses integers too long to print)
        return f"{digits[:20]}... ({len(digits.lstrip('-'))} digits)"
    return repr(value)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return _shown(value)


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
    """Every schema failure of `data` (default: the whole document) as a Problem.

    Bounded for hostile files: only the first `MAX_SHOWN` problems get a near-miss search
    (the others are not listed: `SpecError` counts them), and after `MAX_COUNTED` failures
    the rest are not looked for (in this call or any later one on the same document): one
    more problem says so, and every later call returns just that problem."""
    data = doc.data if data is None else data
    tally = doc.tally
    if tally.problems >= MAX_COUNTED:
        return [_stopped(doc)]
    if tally.oversized:  # an item far down a list already refused for its length
        for depth in range(len(base)):
            entry = tally.oversized.get(base[:depth])
            if entry is not None and isinstance(base[depth], int) and base[depth] >= entry[0]:
                return [entry[1]]
    if _surely_valid(schema, data):
        return []
    cut: dict = {}
    data = _trimmed(schema, data, base, cut)
    problems: dict[Problem, None] = {}  # in order, each once (jsonschema says "required" once a missing key)
    errors = _validator(schema).iter_errors(data)
    for error in errors:
        path = base + tuple(error.absolute_path)
        if error.validator == "maxItems" and path in cut:
            limit, length = cut[path]
            found = _too_many(doc, path, limit, length)
            tally.oversized[path] = (limit + MAX_SHOWN, found[0])
        else:
            found = _word(doc, error, path, hints=tally.problems + len(problems) < MAX_SHOWN)
        problems.update(dict.fromkeys(found))
        if tally.problems + len(problems) >= MAX_COUNTED:
            if next(errors, None) is not None:
                problems[_stopped(doc)] = None
            break
    tally.problems += len(problems)
    return list(problems)


def _trimmed(schema: Any, data: Any, path: tuple, cut: dict) -> Any:
    """`data` with every list longer than its schema's maxItems by over MAX_SHOWN items cut to
    that length (`cut[path]` = (maxItems, its real length)): the items past it are not
    checked one by one, the list is refused for its length. The same object when nothing is
    cut."""
    if not isinstance(schema, dict):
        return data
    if isinstance(data, list):
        limit = schema.get("maxItems")
        if isinstance(limit, int) and len(data) > limit + MAX_SHOWN:
            cut[path] = (limit, len(data))
            data = data[: limit + MAX_SHOWN]
        items = schema.get("items")
        if isinstance(items, dict) and ("properties" in items or "items" in items or "maxItems" in items):
            new = [_trimmed(items, item, path + (i,), cut) for i, item in enumerate(data)]
            if any(a is not b for a, b in zip(new, data)):
                return new
        return data
    properties = schema.get("properties")
    if isinstance(data, dict) and isinstance(properties, dict):
        new_data = {
            key: _trimmed(properties[key], item, path + (key,), cut) if key in properties else item
            for key, item in data.items()
        }
        if any(new_data[key] is not item for key, item in data.items()):
            return new_data
    return data


def _too_many(doc: Document, path: tuple, limit: int, length: int) -> list[Problem]:
    return [doc.problem(path, f"{_name(path)} must have at most {limit} items, got {length}")]


def _stopped(doc: Document) -> Problem:
    """Said once, in the closing line of the file's problems (see `errors.Omitted`)."""
    return omitted(doc.file, 0, f"the checks stopped after {MAX_COUNTED}")


def _word(doc: Document, error: jsonschema.ValidationError, path: tuple, hints: bool = True) -> list[Problem]:
    kind, expected, value = error.validator, error.validator_value, error.instance
    name = _name(path)
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        listing = f" (expected one of: {', '.join(allowed)})"
        problems: list[Problem] = []
        for key in value:
            if key in allowed or any(p.search(key) for p in patterns):
                continue
            near = (
                difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                if hints and len(problems) < MAX_SHOWN
                else None
            )
            hint = f", did you mean {near[0]!r}?" if near else listing
            problems.append(doc.problem(path + (key,), f"unknown key {_shown(key)}{hint}", key=True))
        return problems
    if kind == "required":
        missing = [key for key in expected if key not in value]
        where = "the spec" if not path else name
        return [doc.problem(path, f"missing required key {key!r} in {where}") for key in missing]
    if kind in ("oneOf", "anyOf") and error.context:
        return _word_choice(doc, error, path, hints)
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
        return [doc.problem(path, f"{name} must be at least {expected}, got {_shown(value)}")]
    if kind in ("maximum", "exclusiveMaximum"):
        return [doc.problem(path, f"{name} must be at most {expected}, got {_shown(value)}")]
    if kind == "minItems":
        return [doc.problem(path, f"{name} must have at least {expected} item{'s' if expected != 1 else ''}")]
    if kind == "maxItems":
        return _too_many(doc, path, expected, len(value))
    if kind == "minLength":
        return [doc.problem(path, f"{name} must not be empty")]
    if kind == "maxLength":
        return [doc.problem(path, f"{name} is too long: at most {expected} characters, got {len(value)}")]
    if kind == "uniqueItems":
        return [doc.problem(path, f"{name} must not repeat an item")]
    if kind == "pattern":
        return [doc.problem(path, f"{name} has an invalid form: {_kind(value)}")]
    if kind == "format" and expected == glyphs.FORMAT:
        return [doc.problem(path, f"{name} {glyphs.problem(value)}")]
    message = error.message if len(error.message) <= 3 * MAX_QUOTED else f"{error.message[: 2 * MAX_QUOTED]}..."
    return [doc.problem(path, f"{name}: {message}")]


def _json_types(value: Any) -> set[str]:
    """The JSON Schema types `value` has in a spec (3.0 is no integer, true no number)."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"} if isinstance(value, dict) else set()


def _branch_types(branch: Any) -> list[str] | None:
    """The types a branch of a oneOf takes, or None when it does not say."""
    if not isinstance(branch, dict) or "type" not in branch:
        return None
    return [branch["type"]] if isinstance(branch["type"], str) else list(branch["type"])


def _word_choice(doc: Document, error: jsonschema.ValidationError, path: tuple, hints: bool) -> list[Problem]:
    """A value that fits none of a oneOf's branches, worded as the branch meant for it says
    (a mapping with an unknown key: that key, at its place), or, when no branch takes a
    value of its type, as the types it may have: never "is not valid under any of the given
    schemas"."""
    value = error.instance
    has = _json_types(value)
    branches = error.validator_value
    fitting = [k for k, branch in enumerate(branches) if (types := _branch_types(branch)) is None or has & set(types)]
    if not fitting:
        words: list[str] = []
        for branch in branches:
            for t in _branch_types(branch) or ():
                word = _TYPE_WORDS.get(t, t)
                if word not in words:
                    words.append(word)
        listed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)
        return [doc.problem(path, f"{_name(path)} must be {listed}, got {_kind(value)}")]
    sub = [e for e in error.context if e.schema_path and e.schema_path[0] in fitting]
    if len(fitting) > 1 and sub:
        sub = [jsonschema.exceptions.best_match(sub)]
    problems: list[Problem] = []
    for e in sub:
        problems.extend(_word(doc, e, path + tuple(e.relative_path), hints))
    return list(dict.fromkeys(problems)) or [doc.problem(path, f"{_name(path)}: {error.message[: 2 * MAX_QUOTED]}")]
