"""Rekee's track files, read (`sheetgen import rekee`) and written (`sheetgen export rekee`).

Rekee (a web editor of Rallyman tracks) saves a track as JSON::

    {"title": "Short Track", "author": "Me",
     "tiles": [{"q": 0, "r": 1, "id": "102b", "dir": 0},
               {"q": 1, "r": 1, "id": "106b-2", "dir": 2,
                "tokens": [{"id": "water-gravel", "q": 0.33, "r": 0.0, "dir": 3.0}]}]}

Its `q`, `r` are a tile's axial coordinates on Rekee's pointy-top tile grid, the tile
coordinates of sheetgen's tracks (hexgrid: the tile at (q, r) is centred on cell (4q, 4r),
or (7q, 7r) for a library of the large frame: the frame is the library's, not the file's);
`dir` is the tile's rotation, clockwise in steps of 60 degrees from the tile as printed, the
rotation of a placed tile. Rekee knows no cells: the cells come from the tile library given
with `--tiles`, which says what each tile id holds (a user writes the tiles of their own box;
sheetgen ships none of the publisher's). Tokens (chicanes, jumps, water...) are kept as Rekee
writes them, for the round trip; they do not change the cells (the library's tile does).
The editor's own state (`active_pos`, `active_dir`) is not kept. Any other key (at the top,
in a tile or in a token) is refused at its place in the file: sheetgen would lose it.

A track imported and exported gives the same JSON data: title, author, and every tile's id,
q, r, dir and tokens, in order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from typing import Any

from sheetgen.errors import Location, Omitted, OptionError, SpecError
from sheetgen.games.rallyman.model import Track
from sheetgen.schemacheck import check
from sheetgen.yamlsrc import Document, load_file, load_text, path_from

_NUMBER = {"type": "number", "minimum": -1000, "maximum": 1000}  # (a float: the bounds of spec.py's tokens)
REKEE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tiles"],
    "properties": {
        "title": {"type": "string", "maxLength": 80},
        "author": {"type": "string", "maxLength": 80},
        # the editor's own state: accepted, not kept
        "active_pos": {},
        "active_dir": {},
        "tiles": {
            "type": "array",
            "minItems": 1,
            "maxItems": 200,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["q", "r", "id", "dir"],
                "properties": {
                    "q": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "r": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "id": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"},
                    "dir": {"type": "integer", "minimum": 0, "maximum": 5},
                    "tokens": {
                        "type": "array",
                        "maxItems": 20,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["id", "q", "r", "dir"],
                            "properties": {
                                "id": {"type": "string", "minLength": 1, "maxLength": 60},
                                "q": _NUMBER,
                                "r": _NUMBER,
                                "dir": _NUMBER,
                            },
                        },
                    },
                },
            },
        },
    },
}


def read(path: str, target: str, options: Any) -> tuple[str, tuple[str, ...]]:
    """The spec text of the Rekee track at `path`, to be written at `target`, and the files
    read besides it (the tile library)."""
    from sheetgen.games.rallyman.spec import load_library

    library_path = options.get("tiles")
    if library_path is None:
        raise OptionError("--tiles is needed for Rallyman: the tile library that says what each Rekee tile id holds")
    doc = load_json(path)  # JSON is YAML: every value keeps its line and column
    problems = check(doc, REKEE_SCHEMA)
    if problems:
        raise SpecError(problems)
    tiles_doc = load_file(library_path)
    kind = tiles_doc.data.get("kind") if isinstance(tiles_doc.data, dict) else None
    if not isinstance(tiles_doc.data, dict) or tiles_doc.data.get("game") != "rallyman" or kind != "tiles":
        raise OptionError(
            f"--tiles {library_path}: not a Rallyman tile library (a file with game: rallyman and kind: tiles)"
        )
    library = load_library(tiles_doc)
    data = doc.data
    missing = [
        doc.problem(
            ("tiles", i, "id"),
            f"tile {tile['id']!r} at ({tile['q']}, {tile['r']}) is not in the library {library_path!r}",
        )
        for i, tile in enumerate(data["tiles"])
        if library.get(tile["id"]) is None
    ]
    if missing:
        raise SpecError(missing)
    if options.get("variant") and library.variant is not None and options["variant"] != library.variant.value:
        raise OptionError(
            f"--variant {options['variant']}: the library {library_path!r} holds {library.variant.value.upper()} tiles"
        )
    variant = options.get("variant") or (library.variant.value if library.variant else None)
    if variant is None:
        raise OptionError(
            f"--variant gt or --variant dirt is needed: the library {library_path!r} holds tiles for either game"
        )
    base = os.path.dirname(os.path.abspath(target)) if target != "<stdout>" else os.getcwd()
    rel = path_from(base, library_path)  # (absolute on another drive: relpath raised there)
    title = data.get("title") or os.path.splitext(os.path.basename(path))[0] or "Rekee track"
    lines = [
        f"# Imported from Rekee: {os.path.basename(path)}",
        "game: rallyman",
        f"variant: {variant}",
        f"name: {json.dumps(title, ensure_ascii=False)}",
    ]
    if data.get("author"):
        lines.append(f"author: {json.dumps(data['author'], ensure_ascii=False)}")
    lines += [f"library: {json.dumps(rel, ensure_ascii=False)}", "tiles:"]
    for tile in data["tiles"]:
        entry = f"  - {{id: {json.dumps(tile['id'])}, q: {tile['q']}, r: {tile['r']}, rotation: {tile['dir']}"
        tokens = tile.get("tokens") or []
        if tokens:
            shown = ", ".join(
                f"{{id: {json.dumps(t['id'], ensure_ascii=False)}, q: {_num(t['q'])}, r: {_num(t['r'])}, dir: "
                f"{_num(t['dir'])}}}"
                for t in tokens
            )
            entry += f", tokens: [{shown}]"
        lines.append(entry + "}")
    text = "\n".join(lines) + "\n"
    line_paths: list[tuple[str | int, ...]] = [
        ("title",) if line.startswith("name:") else ("author",) if line.startswith("author:") else () for line in lines
    ]
    line_paths[len(line_paths) - len(data["tiles"]) :] = [("tiles", i) for i in range(len(data["tiles"]))]
    _check_located_in_json(doc, text, target, line_paths)
    return text, (library_path,)


#: the spec's keys that hold a Rekee key's value, by the Rekee key
_SPEC_KEYS = {"name": "title", "rotation": "dir"}


def _check_located_in_json(doc: Document, text: str, target: str, line_paths: list[tuple]) -> None:
    """Load the spec `text` (to be written at `target`) as `import` will, and raise what it
    refuses located in the Rekee file `doc` (each tile's problem at its tile, key or token
    there), not in the spec, which is never written."""
    from sheetgen.games.rallyman.spec import load_track

    spec_doc = None
    try:
        spec_doc = load_text(text, target)
        load_track(spec_doc)
    except SpecError as exc:
        at = {loc: path for path, loc in spec_doc.values.items()} if spec_doc is not None else {}
        keys = {loc: path for path, loc in spec_doc.keys.items()} if spec_doc is not None else {}
        # a problem of the text itself (no value there): the line's own
        on_line = {number: line_paths[number - 1] for number in range(1, len(line_paths) + 1)}
        problems = []
        for p in exc.problems:
            if p.location.file != target:  # (the library's own problems stay where they are)
                problems.append(p)
            elif isinstance(p, Omitted):
                problems.append(dataclasses.replace(p, location=Location(doc.file, 1, 1)))
            else:
                key = p.location in keys and p.location not in at
                path = keys[p.location] if key else at.get(p.location, on_line.get(p.location.line, ()))
                json_path = tuple(_SPEC_KEYS.get(step, step) if isinstance(step, str) else step for step in path)
                if json_path[:1] not in (("title",), ("author",), ("tiles",)):
                    json_path = ()
                problems.append(doc.problem(json_path, p.message, key=key))
        raise SpecError(problems) from None


_ESCAPE = re.compile(r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|.)", re.DOTALL)
_LONE = "a lone surrogate"


def load_json(path: str) -> Document:
    """The JSON file at `path` as a Document (JSON is YAML). JSON writes a character beyond
    U+FFFF as a pair of `\\u` escapes (a surrogate pair, as Python's json reads it), which YAML
    reads as two lone halves: each pair is read as its one character, and the lines and
    columns stay the file's own. A lone half is refused."""
    try:
        return load_file(path)
    except SpecError as exc:
        if not any(p.message.startswith(_LONE) for p in exc.problems) or not os.path.isfile(path):
            raise _json_worded(exc) from None
        original = exc
    with open(path, "rb") as handle:
        raw = handle.read()
    text = raw.decode("utf-8").removeprefix("\ufeff")  # (load_file decoded it)
    joined: list[str] = []
    shifts: dict[int, list[int]] = {}  # line -> columns (in the text read) after which 2 are added
    end = 0
    for m in _ESCAPE.finditer(text):
        if len(m.group(1)) == 1:
            continue
        hi, lo = int(m.group(1)[1:5], 16), int(m.group(1)[7:11], 16)
        code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1 - 2 * len(shifts.get(line, ()))
        shifts.setdefault(line, []).append(col)
        joined += [text[end : m.start()], f"\\U{code:08X}"]
        end = m.end()
    if not shifts:
        raise _json_worded(original) from None

    def back(loc: Location) -> Location:
        return Location(loc.file, loc.line, loc.col + 2 * sum(1 for c in shifts.get(loc.line, ()) if loc.col > c))

    try:
        doc = load_text("".join(joined) + text[end:], path)
    except SpecError as exc:
        raise _json_worded(
            SpecError([dataclasses.replace(p, location=back(p.location)) for p in exc.problems])
        ) from None
    return dataclasses.replace(
        doc,
        values={k: back(v) for k, v in doc.values.items()},
        keys={k: back(v) for k, v in doc.keys.items()},
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def _json_worded(exc: SpecError) -> SpecError:
    """The file's problems in JSON's words: a syntax error is invalid JSON, a lone surrogate
    is written as JSON writes it (JSON has no \\U escape)."""
    return SpecError(
        [
            dataclasses.replace(
                p,
                message=p.message.replace(
                    "or its 8-digit \\U escape", "or both halves of its pair, high then low (as \\ud83d\\ude00)"
                ),
            )
            if p.message.startswith(_LONE)
            else dataclasses.replace(p, message="invalid JSON: " + p.message.removeprefix("invalid YAML: "))
            if p.message.startswith("invalid YAML: ")
            else p
            for p in exc.problems
        ]
    )


def _num(value: float) -> str:
    """A number as YAML reads it back to the same float."""
    return repr(float(value))


def _not_held(doc: Document | None) -> list:
    """What the track spec `doc` says that Rekee's files have no place for (title, author and
    tiles placed with their tokens is all they hold): its laps, inside lines of its own, cells
    that replace a tile's and its own box's values. Refused rather than lost."""
    if doc is None or not isinstance(doc.data, dict):
        return []
    data = doc.data
    problems = []
    if data.get("laps", 1) != 1:
        problems.append(
            doc.problem(
                ("laps",),
                f"a track of {data['laps']} laps: Rekee's files have no place for laps (the track would come back as "
                "one lap)",
            )
        )
    given = data.get("cells")
    cells = given if isinstance(given, list) else []
    for j, raw in enumerate(cells):
        if isinstance(raw, dict) and raw.get("replace"):
            problems.append(
                doc.problem(
                    ("cells", j),
                    f"cell ({raw.get('q')}, {raw.get('r')}) replaces a tile's: Rekee's files have no place for cells, "
                    "only for tiles placed",
                )
            )
    if data.get("lines"):
        problems.append(
            doc.problem(
                ("lines", 0),
                "the track's own inside lines: Rekee's files have no place for them (only tiles placed, with the "
                "lines of their tiles)",
            )
        )
    if "ruleset" in data:
        problems.append(
            doc.problem(("ruleset",), "the values of your own box ('ruleset'): Rekee's files have no place for them")
        )
    return problems


def write(spec: Any, options: Any) -> bytes:
    """The Rekee JSON of a track laid from tiles."""
    track = spec.model
    if not isinstance(track, Track):
        raise spec.wrong(f"{spec.described('rallyman')}, not a track: Rekee's files hold tracks")
    if not track.placements:
        raise spec.wrong("a track without tiles: Rekee's files hold tiles placed, not cells or a path")
    loose = next((c for c in track.cells if c.tile is None), None)
    if loose is not None:
        raise spec.wrong(f"the track has cells that are on no tile (e.g. {loose.hex}): Rekee's files hold tiles only")
    lost = _not_held(spec.document)
    if lost:
        raise SpecError(lost)
    data: dict[str, Any] = {"title": track.name}
    if track.author:
        data["author"] = track.author
    tiles = []
    for p in track.placements:
        entry: dict[str, Any] = {"q": p.q, "r": p.r, "id": p.tile, "dir": p.rotation}
        if p.tokens:
            entry["tokens"] = [{"id": t.id, "q": t.q, "r": t.r, "dir": t.dir} for t in p.tokens]
        tiles.append(entry)
    data["tiles"] = tiles
    return (json.dumps(data, indent=3, ensure_ascii=False) + "\n").encode("utf-8")


