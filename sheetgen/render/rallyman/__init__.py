"""Rallyman printables (GT and DIRT): a track's true-scale map tiled across pages with its
assembly page and roadbook (`track_map.print_track`), and a tile library as cut-out tiles
(`tiles.print_tiles`). docs/rallyman_printing.md describes them."""
