"""pyproject lists every package folder (the templates/ mapping needs an explicit list)."""

import sys

from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = None


def test_every_package_is_listed():
    if tomllib is None:
        return
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "sheetgen").rglob("__init__.py")
    } | {"sheetgen.templates"}
    assert listed == found


def test_templates_and_fonts_ship_with_the_package():
    from importlib import resources

    from sheetgen.template import builtin_names

    assert "race_sheet" in builtin_names()
    assert (resources.files("sheetgen") / "data" / "fonts" / "DejaVuSans.ttf").is_file()
