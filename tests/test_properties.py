"""Property tests: dump/load round trips, and damaged specs only ever raise SpecError."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RALLYTAIRE_SPECS
from sheetgen.errors import SpecError
from sheetgen.games.rallytaire import spec as rallytaire_spec
from sheetgen.registry import load_spec
from sheetgen.yamlsrc import dump, load_text
from strategies import races

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# (75 races: each is written, loaded and validated; the other properties take 150 cases)
@settings(SETTINGS, max_examples=75)
@given(race=races())
def test_dump_then_load_gives_the_same_model(race, tmp_path):
    assert rallytaire_spec.validate(race) == []
    text = dump(rallytaire_spec.to_data(race))
    path = tmp_path / "race.yaml"
    path.write_text(text, encoding="utf-8")
    assert load_spec(path).model == race


def _bundled_texts():
    return [p.read_text(encoding="utf-8") for p in RALLYTAIRE_SPECS]


@st.composite
def damaged(draw):
    text = draw(st.sampled_from(_bundled_texts()))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "replace", "swap_lines"]))
        if action == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 20)) :]
        elif action == "insert":
            junk = draw(st.sampled_from(["&a ", "*a", ": ", "- ", "\t", "{", "]", "'", '"', "!!int ", "9999", "-1", "\n  x: 1\n", "#", "\x00", "\ufeff", "é", "~", "null", "0x1F", ".nan"]))
            text = text[:where] + junk + text[where:]
        elif action == "replace":
            text = text[:where] + draw(st.text(max_size=5)) + text[where + 1 :]
        else:
            lines = text.splitlines(keepends=True)
            if len(lines) > 2:
                i = draw(st.integers(0, len(lines) - 2))
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
                text = "".join(lines)
    return text


@SETTINGS
@given(text=damaged())
def test_damaged_spec_raises_only_spec_error(text, tmp_path):
    path = tmp_path / "damaged.yaml"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    try:
        load_spec(path)
    except SpecError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.location.file == str(path)
            assert problem.location.line >= 1 and problem.location.col >= 1
            assert "\n" not in problem.message


@SETTINGS
@given(data=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8), lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=20))
def test_arbitrary_yaml_raises_only_spec_error(data, tmp_path):
    path = tmp_path / "any.yaml"
    path.write_text(yaml.safe_dump({"game": "rallytaire", "stages": data}), encoding="utf-8")
    try:
        load_spec(path)
    except SpecError:
        pass


@pytest.mark.parametrize("name", ["0e0", "1e5", "No", "on", "1:20", "0o17", "0x1F", "null", "~", "True", ".5", "-.inf", "", "é"])
def test_dump_quotes_strings_that_read_as_other_scalars(name):
    assert load_text(dump({"name": name})).data == {"name": name}


def test_load_text_positions_are_one_based():
    doc = load_text("a:\n  b: [1, 2]\n", "x.yaml")
    assert str(doc.where(("a", "b", 1))) == "x.yaml:2:10"
    assert str(doc.where(("a", "b"), key=True)) == "x.yaml:2:3"
