"""Tile libraries made for the Rekee tests: copies of sheetgen's own libraries whose tiles
stand for made-up Rekee ids.

sheetgen's original tiles (`sg-...`) have no Rekee id, so Rekee cannot show a track laid
from them and `export rekee` refuses it. `stand_in(source, target)` writes a copy of the
library `source` at `target` where each tile says `rekee: "NNNa"`, numbered in the file's
order from 102 (102a, 103a...: ids of Rekee's shape standing in for the real ones of a
user's box; none says which official tile is which, and 101, the pit-stop tile, has no
side). It returns the map from each tile's own id to its stand-in.
"""

from __future__ import annotations

import re
from pathlib import Path

_TILE = re.compile(r"(?m)^  - id: (\S+)$")


def stand_in(source: Path, target: Path, first: int = 102) -> dict[str, str]:
    text = source.read_text(encoding="utf-8")
    ids: dict[str, str] = {}

    def add(m: re.Match) -> str:
        ids[m.group(1)] = f"{first + len(ids)}a"
        return f'{m.group(0)}\n    rekee: "{ids[m.group(1)]}"'

    target.write_text(_TILE.sub(add, text), encoding="utf-8")
    return ids
