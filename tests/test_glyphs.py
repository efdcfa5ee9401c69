"""Names the sheets cannot print are refused when a spec is loaded (sheetgen/glyphs.py): a
character the embedded fonts have no glyph for (CJK), one beyond U+FFFF (an emoji, which
breaks the PDF's ToUnicode map), a right-to-left script (printed unjoined and reversed), a
control or formatting character. One line at the value's line and column, naming the
characters; Latin, Greek and Cyrillic names pass. The fonts' coverage comes from a data file
made from the fonts (tests/fontcoverage.py), checked here against them, so that loading never
imports reportlab."""

from __future__ import annotations

import json

import pytest

from conftest import SPECS, VALID
from fontcoverage import FONTS, coverage_text, covered
from sheetgen import glyphs
from test_imports import heavy_imports
from test_loading import errors_of


def test_the_coverage_file_is_what_the_fonts_cover():
    assert (FONTS / "coverage.txt").read_text(encoding="ascii") == coverage_text()
    fonts = covered()
    for code in (0x20, 0x7E, 0xE9, 0x3A9, 0x41F, 0x2026, 0x6771, 0x30E9, 0x1F600, 0x0627, 0x05D0, 0x2603):
        assert glyphs.in_fonts(chr(code)) == (code in fonts), hex(code)
    # what the fonts have and what they lack, by hand
    assert all(glyphs.in_fonts(c) for c in "AZaz09 \u00e9\u00df\u0142\u03a9\u041c\u2013\u2026")
    assert not any(glyphs.in_fonts(c) for c in "\u6771\u4eac\u30e9\uac00")


@pytest.mark.parametrize(
    "text",
    ["Monte Carlo", "Z\u00fcrich\u2013Gen\u00e8ve", "C\u00f4te d'Ivoire", "\u0141\u00f3d\u017a", "\u03a9mega stra\u00dfe", "\u041c\u043e\u043d\u0442\u0435-\u041a\u0430\u0440\u043b\u043e", "SS1 Col de Turini \u2026"],
)
def test_latin_greek_and_cyrillic_names_print(text):
    assert glyphs.problem(text) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\u6771\u4eac \u03a9", "holds characters the sheets cannot print: '\u6771' (U+6771), '\u4eac' (U+4EAC): not in the sheets' font (DejaVu Sans)"),
        ("Go \U0001f600", "holds characters the sheets cannot print: '\U0001f600' (U+1F600): beyond U+FFFF, which the PDFs cannot map to text"),
        ("\u0631\u0627\u0644\u064a", "holds characters the sheets cannot print: '\u0631' (U+0631), '\u0627' (U+0627), '\u0644' (U+0644), '\u064a' (U+064A): a right-to-left script, which the sheets would print unjoined and reversed"),
        ("\u05ea\u05dc \u05d0\u05d1\u05d9\u05d1", "holds characters the sheets cannot print: '\u05ea' (U+05EA), '\u05dc' (U+05DC), '\u05d0' (U+05D0), '\u05d1' (U+05D1) and 1 more: a right-to-left script, which the sheets would print unjoined and reversed"),
        ("Col\tde Turini", "holds characters the sheets cannot print: '\\t' (U+0009): control or formatting characters, which print as nothing or as a box"),
        ("a\u200db", "holds characters the sheets cannot print: '\\u200d' (U+200D): control or formatting characters, which print as nothing or as a box"),
        # the line and paragraph separators: YAML reads them as line breaks, so a name holding
        # one passed the check and did not load back as it was written
        ("SS1\u2028Turini", "holds characters the sheets cannot print: '\\u2028' (U+2028): control or formatting characters, which print as nothing or as a box"),
        ("SS1\u2029Turini", "holds characters the sheets cannot print: '\\u2029' (U+2029): control or formatting characters, which print as nothing or as a box"),
    ],
)
def test_what_the_sheets_cannot_print_is_named(text, message):
    assert glyphs.problem(text) == message


def test_the_loader_and_the_names_check_refuse_the_same_control_characters():
    # one definition: every character the loader refuses in any text, a name refuses too
    from sheetgen import yamlsrc

    refused_by_loader = {c for c in map(chr, range(0x10000)) if yamlsrc._CONTROL.match(c)}
    assert {"\x00", "\x1b", "\r", "\x85", "\u2028", "\u2029"} <= refused_by_loader
    assert not {"\t", "\n"} & refused_by_loader
    assert all(glyphs.problem(f"a{c}b") is not None for c in refused_by_loader)


TOKYO = '"\u6771\u4eac\u30e9\u30ea\u30fc \U0001f600 \u03a9mega"'
NOT_IN_FONT = "holds characters the sheets cannot print: '\u6771' (U+6771), '\u4eac' (U+4EAC), '\u30e9' (U+30E9), '\u30ea' (U+30EA) and 1 more: not in the sheets' font (DejaVu Sans); '\U0001f600' (U+1F600): beyond U+FFFF, which the PDFs cannot map to text"


def _bundled(path: str, old: str, new: str) -> str:
    text = (SPECS / path).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _line_col(text: str, new: str) -> tuple[int, int]:
    at = text.index(new)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


@pytest.mark.parametrize(
    ("what", "path", "old", "key"),
    [
        ("a Rallytaire race", "rallytaire/monte_carlo.yaml", "name: Monte Carlo Classic", "'name'"),
        ("a Rallytaire stage", "rallytaire/monte_carlo.yaml", "name: SS2 La Bollene-Vesubie", "'name'"),
        ("a Rallytaire season's driver", "seasons/winter_season.yaml", "players: [Anna, Ben]", "players[2]"),
        ("a Rally Risk section", "rally_risk/sections.yaml", "name: Fast road", "'name'"),
        ("a Rally Risk calendar's rally", "rally_risk/championship.yaml", "name: Sweden,", "'name'"),
        ("a Rally Run! tile", "rally_run/house_set.yaml", "name: Red trophy", "'name'"),
        ("a Rallyman track", "rallyman/tiny.yaml", "name: Tiny", "'name'"),
        ("a Rallyman tile", "rallyman/tiles.yaml", "name: straight, 2 lanes", "'name'"),
    ],
)
def test_each_game_refuses_a_name_it_cannot_print_at_the_value(run, tmp_path, what, path, old, key):
    new = old.replace("Ben", TOKYO) if key.startswith("players") else old.split(": ")[0] + ": " + TOKYO + ("," if old.endswith(",") else "")
    text = _bundled(path, old, new)
    spec = tmp_path / path
    spec.parent.mkdir(parents=True, exist_ok=True)
    for neighbour in (SPECS / path).parent.glob("*.yaml"):  # the files it names, beside it
        if neighbour.name != spec.name:
            (spec.parent / neighbour.name).write_text(neighbour.read_text(encoding="utf-8"), encoding="utf-8")
    spec.write_text(text, encoding="utf-8")
    line, col = _line_col(text, TOKYO)
    assert errors_of(run("validate", str(spec))) == [(line, col, f"{key} {NOT_IN_FONT}")], what


def test_the_check_reads_no_font_and_imports_no_renderer(tmp_path):
    """validate refuses the name with the data file alone: no reportlab (jsonschema words it)."""
    bad = tmp_path / "race.yaml"
    bad.write_text(VALID.replace("name: Test Race", f"name: {TOKYO}"), encoding="utf-8")
    assert set(heavy_imports("validate", str(bad))) <= {"jsonschema"}


def test_the_published_schemas_say_which_strings_are_printed(run):
    race = json.loads(run("schema", "rallytaire").stdout)["oneOf"][0]
    assert race["properties"]["name"]["format"] == glyphs.FORMAT
    assert race["properties"]["stages"]["items"]["properties"]["name"]["format"] == glyphs.FORMAT
