"""Tables to paste into a forum post, Markdown or BBCode, from a neutral structure a game's
report gives (`registry.Report.tables`): a title, a header, rows of text and notes.

- Markdown (GitHub, Discourse, Reddit): a bold title, a pipe table (numbers right-aligned,
  text left), the notes below as a list (lines of a paragraph would run together). A
  cell's `\\`, `|`, `*`, `_`, `` ` ``, `[`, `]`, `<`, `>` and `~` are escaped with a
  backslash, so that a driver's name never turns into markup.
- BBCode (phpBB, vBulletin, XenForo, SMF): `[b]` title, `[table]` of `[tr]` rows with `[th]`
  heads and `[td]` cells, the notes below. BBCode has no escape: a `[` or `]` in a cell is
  written as a fullwidth bracket (U+FF3B, U+FF3D), which looks the same and opens no tag.

Pure text; the same tables give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FORMATS = ("markdown", "bbcode")


@dataclass(frozen=True)
class Table:
    """A table of a report: `align` gives each column's alignment, `l` (text) or `r`
    (numbers; a column past its end is `l`); `notes` are lines printed under it."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str = ""
    notes: tuple[str, ...] = ()

    def alignment(self, column: int) -> str:
        return self.align[column] if column < len(self.align) else "l"


_MARKDOWN_SPECIAL = "\\|*_`[]<>~"


def _md(text: str) -> str:
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def _bb(text: str) -> str:
    return text.replace("[", "\uff3b").replace("]", "\uff3d")


def markdown(tables: Sequence[Table]) -> str:
    blocks = []
    for t in tables:
        lines = [f"**{_md(t.title)}**", ""]
        lines.append("| " + " | ".join(_md(h) for h in t.header) + " |")
        lines.append(
            "|" + "|".join(" ---: " if t.alignment(i) == "r" else " :--- " for i in range(len(t.header))) + "|"
        )
        for row in t.rows:
            lines.append("| " + " | ".join(_md(c) for c in row) + " |")
        if t.notes:
            lines.append("")
            lines += ["- " + _md(n) for n in t.notes]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def bbcode(tables: Sequence[Table]) -> str:
    blocks = []
    for t in tables:
        lines = [f"[b]{_bb(t.title)}[/b]", "[table]"]
        lines.append("[tr]" + "".join(f"[th]{_bb(h)}[/th]" for h in t.header) + "[/tr]")
        for row in t.rows:
            lines.append("[tr]" + "".join(f"[td]{_bb(c)}[/td]" for c in row) + "[/tr]")
        lines.append("[/table]")
        lines += [_bb(n) for n in t.notes]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def render(tables: Sequence[Table], fmt: str) -> str:
    """The tables in `fmt`, one of FORMATS."""
    return markdown(tables) if fmt == "markdown" else bbcode(tables)
