"""Plain-text tables for the terminal reports of every game."""

from __future__ import annotations


def table(header: list[str], rows: list[list[str]], left: frozenset[int] = frozenset()) -> list[str]:
    """Columns padded to their widest cell: numbers right-aligned, columns in `left` (text)
    left-aligned, so that a person can compare a column at a glance."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def pct(p: float) -> str:
    return f"{100 * p:.1f}%"
