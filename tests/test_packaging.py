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


def test_the_distribution_has_a_name_of_its_own():
    """`sheetgen` on the package index is an unrelated barcode tool with the same import
    package and command (`pip install -U sheetgen` replaced this one); the distribution is
    sheetgen-rally, the import package and the command stay `sheetgen`."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "sheetgen-rally"
    # (the entry lets Ctrl-C end the command at once while its modules are imported)
    assert project["scripts"] == {"sheetgen": "sheetgen.__main__:main"}


def test_the_license_pyproject_names_is_in_the_checkout():
    """pyproject says MIT: the licence's text is there to ship beside it (LICENSE)."""
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
