"""The characters a sheet can print: what a name in a spec may hold.

A name is printed in the embedded DejaVu fonts, left to right, one glyph a character. So a
name may hold only characters both fonts have a glyph for (sheetgen/data/fonts/coverage.txt,
made from the fonts by tests/fontcoverage.py), and none of these, which would print wrong:

- characters beyond U+FFFF (emoji, historic scripts): the PDFs' text layer cannot map them;
- right-to-left scripts (Arabic, Hebrew, ...): the sheets neither join nor reverse them, so
  they would print as separate letters in the wrong order;
- control and formatting characters (a tab, a zero-width joiner, a direction mark): nothing to
  see, or a box.

A schema marks a printed string with `"format": FORMAT` (`TEXT`); schemacheck refuses one that
breaks these rules at its line and column, naming the characters (:func:`problem`). No
reportlab here: loading a spec never imports the renderers.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from importlib import resources

#: the JSON Schema `format` of a string the sheets print
FORMAT = "printable"
#: what a schema adds to a printed string's schema
TEXT = {"format": FORMAT}
#: characters named in a message, per reason, before "and N more"
SHOWN = 4

#: the characters no text of a spec may hold, a name or any other (the loader refuses them at
#: their value): the control characters but tab and newline, and the Unicode line and
#: paragraph separators, which YAML itself counts as line breaks (a name holding one would
#: not read back as written). A name refuses these and more (:func:`problem`).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")

_RIGHT_TO_LEFT = frozenset({"R", "AL", "RLE", "RLO", "RLI", "LRE", "LRO", "LRI", "FSI", "PDF", "PDI"})
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})

_WHY = {
    "plane": "beyond U+FFFF, which the PDFs cannot map to text",
    "rtl": "a right-to-left script, which the sheets would print unjoined and reversed",
    "control": "control or formatting characters, which print as nothing or as a box",
    "font": "not in the sheets' font (DejaVu Sans)",
}


@functools.cache
def _coverage() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The fonts' ranges of code points: their first and last code points, in order."""
    fonts = resources.files("sheetgen").joinpath("data").joinpath("fonts")
    text = fonts.joinpath("coverage.txt").read_text(encoding="ascii")
    firsts, lasts = [], []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            lo, hi = line.split("-")
            firsts.append(int(lo, 16))
            lasts.append(int(hi, 16))
    return tuple(firsts), tuple(lasts)


def in_fonts(char: str) -> bool:
    """Whether both embedded fonts have a glyph for `char`."""
    firsts, lasts = _coverage()
    k = bisect.bisect_right(firsts, ord(char)) - 1
    return k >= 0 and ord(char) <= lasts[k]


@functools.lru_cache(maxsize=4096)
def _reason(char: str) -> str | None:
    """Why the sheets cannot print `char` (a key of `_WHY`), or None when they can."""
    if ord(char) > 0xFFFF:
        return "plane"
    if unicodedata.bidirectional(char) in _RIGHT_TO_LEFT:
        return "rtl"
    if unicodedata.category(char) in _INVISIBLE or CONTROL.match(char):
        return "control"
    return None if in_fonts(char) else "font"


def printable(text: str) -> bool:
    return text.isascii() and text.isprintable() or all(_reason(char) is None for char in text)


def problem(text: str) -> str | None:
    """What keeps the sheets from printing `text`, one line naming its characters ("holds
    characters the sheets cannot print: '東' (U+6771) ...: not in the sheets' font ..."), or
    None when they print it all."""
    if printable(text):
        return None
    found: dict[str, dict[str, None]] = {}
    for char in text:
        why = _reason(char)
        if why is not None:
            found.setdefault(why, {})[char] = None
    parts = []
    for why, chars in found.items():
        listed = [f"{char!r} (U+{ord(char):04X})" for char in list(chars)[:SHOWN]]
        more = f" and {len(chars) - SHOWN} more" if len(chars) > SHOWN else ""
        parts.append(f"{', '.join(listed)}{more}: {_WHY[why]}")
    return "holds characters the sheets cannot print: " + "; ".join(parts)
