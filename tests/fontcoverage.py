"""The code points both embedded fonts have a glyph for, read from the fonts themselves (their
cmap tables, through reportlab), as sheetgen/data/fonts/coverage.txt holds them.

    PYTHONPATH=. python tests/fontcoverage.py    # writes sheetgen/data/fonts/coverage.txt

tests/test_glyphs.py checks that the file in the tree is what this writes.
"""

from __future__ import annotations

from pathlib import Path

FONTS = Path(__file__).resolve().parent.parent / "sheetgen" / "data" / "fonts"
HEADER = """\
# The characters both embedded fonts (DejaVuSans.ttf and DejaVuSans-Bold.ttf) have a glyph
# for: ranges of code points, first-last in hex, one a line. Made from the fonts by
# tests/fontcoverage.py (tests/test_glyphs.py checks that it matches them); read by
# sheetgen/glyphs.py, which refuses names the sheets could not print.
"""


def covered() -> set[int]:
    from reportlab.pdfbase.ttfonts import TTFont

    faces = [TTFont(name, str(FONTS / f"{name}.ttf")).face for name in ("DejaVuSans", "DejaVuSans-Bold")]
    return set.intersection(*(set(face.charToGlyph) for face in faces))


def coverage_text() -> str:
    ranges: list[list[int]] = []
    for code in sorted(covered()):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return HEADER + "".join(f"{lo:04X}-{hi:04X}\n" for lo, hi in ranges)


if __name__ == "__main__":
    (FONTS / "coverage.txt").write_text(coverage_text(), encoding="ascii")
