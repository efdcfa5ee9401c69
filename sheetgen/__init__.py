"""sheetgen: print-and-play sheets from YAML track specs for tabletop rally games."""

__version__ = "0.1.0"
