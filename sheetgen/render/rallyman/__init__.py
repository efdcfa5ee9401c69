"""Rallyman printables (GT and DIRT): a track's true-scale map tiled across pages with its
assembly page, roadbook, dashboard reference card and time sheet (`printout.print_track`), a
tile library as cut-out tiles (`tiles.print_tiles`) and a results file as the standings sheet
(`standings.print_standings`). docs/rallyman_printing.md describes them."""
