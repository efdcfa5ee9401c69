"""Hostile input gets one located line per problem and exit 1, quickly, never a traceback:
integer literals too long to print in any base, lone surrogates, special files as specs,
control characters in file names, and files of tens of thousands of problems."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import time

import pytest
from click.testing import CliRunner

from conftest import SPECS, VALID
from sheetgen.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def refused(result) -> str:
    """The whole of standard error of a run that must fail with exit 1."""
    assert result.exit_code == 1, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output
    return result.stderr


# -- counting work (a count of what was done, never a clock: the suite runs on slow machines) ----


@pytest.fixture
def counts(monkeypatch):
    """How much checking a run did: near-miss searches (difflib, the costly part of an unknown
    key's message), schema errors jsonschema produced, the largest list jsonschema was given,
    and YAML events the loader read."""
    import difflib

    from sheetgen import schemacheck, yamlsrc

    tally = {"near_miss": 0, "errors": 0, "longest_list": 0, "events": 0}
    close = difflib.get_close_matches

    def counted_close(*args, **kwargs):
        tally["near_miss"] += 1
        return close(*args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted_close)
    make = schemacheck._validator

    def longest(value) -> int:
        if isinstance(value, list):
            return max([len(value), *(longest(v) for v in value)])
        if isinstance(value, dict):
            return max([0, *(longest(v) for v in value.values())])
        return 0

    class Counted:
        def __init__(self, validator):
            self.validator = validator

        def iter_errors(self, data):
            tally["longest_list"] = max(tally["longest_list"], longest(data))
            for error in self.validator.iter_errors(data):
                tally["errors"] += 1
                yield error

        def __getattr__(self, name):
            return getattr(self.validator, name)

    monkeypatch.setattr(schemacheck, "_validator", lambda schema: Counted(make(schema)))
    events = yamlsrc._c_events

    def counted_events(text):
        for event in events(text):
            tally["events"] += 1
            yield event

    monkeypatch.setattr(yamlsrc, "_c_events", counted_events)
    return tally


@pytest.fixture
def specs(tmp_path):
    """A copy of the bundled specs, so that files refer to one another as they do there."""
    copy = tmp_path / "track_specs"
    shutil.copytree(SPECS, copy)
    return copy


@pytest.fixture
def deadline():
    """Fail (instead of hanging the suite) if the test waits on a special file."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(_signum, _frame):
        raise AssertionError("timed out: something waited on a special file")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- integers too long to print -------------------------------------------------------------

HEX = "0x" + "f" * 3600
OCT = "0o" + "7" * 5000


@pytest.mark.parametrize("command", [["validate"], ["analyze"], ["simulate", "--seed", "1"], ["validate", "--strict"]])
def test_a_huge_hexadecimal_length_is_named_by_its_start_and_length(write, command):
    path = write(VALID.replace("length: 30", f"length: {HEX}"))
    assert refused(run(*command, path)) == f"{path}:6:13: error: not a valid int: '0xffffffffffffffffff'... (3602 characters; over 4300 decimal digits)\n"


def test_a_huge_octal_integer_is_named_by_its_start_and_length(write):
    path = write(VALID.replace("gear: 3,", f"gear: {OCT},"))
    assert refused(run("validate", path)) == f"{path}:8:27: error: not a valid int: '0o777777777777777777'... (5002 characters; over 4300 decimal digits)\n"


def test_a_huge_hexadecimal_integer_is_refused_in_any_field(write):
    # a string field, a key that is no field at all (refused too), and a list item
    text = VALID.replace("name: Test Race", f"name: {HEX}").replace("    surface: gravel", f"    surface: gravel\n    extra: [{OCT}]")
    path = write(text)
    assert refused(run("validate", path)) == (
        f"{path}:2:7: error: not a valid int: '0xffffffffffffffffff'... (3602 characters; over 4300 decimal digits)\n"
        f"{path}:6:5: error: unknown key 'extra' (expected one of: corners, length, name, service_park, surface)\n"
        f"{path}:6:13: error: not a valid int: '0o777777777777777777'... (5002 characters; over 4300 decimal digits)\n"
    )


def test_a_huge_hexadecimal_seed_in_a_season(specs):
    season = specs / "seasons" / "winter_season.yaml"
    season.write_text(season.read_text().replace("seed: 7", f"seed: {HEX}"))
    assert refused(run("season", str(season))) == f"{season}:12:22: error: not a valid int: '0xffffffffffffffffff'... (3602 characters; over 4300 decimal digits)\n"


def test_a_long_hexadecimal_that_can_be_printed_is_shortened_in_the_message(write):
    path = write(VALID.replace("length: 30", "length: 0x" + "f" * 100))
    assert refused(run("validate", path)) == f"{path}:6:13: error: 'length' must be at most 300, got 25822498780869085896... (121 digits)\n"


# -- lone surrogates --------------------------------------------------------------------------

SURROGATE = "a lone surrogate '\\ud800' is not a character (it is half of a UTF-16 pair); write the character itself or its 8-digit \\U escape"


@pytest.mark.parametrize("command", [["validate"], ["analyze"], ["render", "-o", "-"], ["simulate", "--seed", "3"]])
def test_a_lone_surrogate_in_a_name_is_refused_at_load(write, command):
    path = write(VALID.replace("name: Test Race", 'name: "Test \\ud800 Race"'))
    assert refused(run(*command, path)) == f"{path}:2:7: error: {SURROGATE}\n"


def test_a_surrogate_pair_written_as_two_escapes_is_refused_too(write):
    path = write(VALID.replace("name: SS1", 'name: "SS1 \\ud83d\\ude00"'))
    message = SURROGATE.replace("ud800", "ud83d")
    assert refused(run("validate", path)) == f"{path}:4:11: error: {message}\n"


def test_a_lone_surrogate_in_a_key_is_refused(write):
    path = write(VALID + '"\\udfff": 1\n')
    message = SURROGATE.replace("ud800", "udfff")
    assert refused(run("validate", path)) == f"{path}:10:1: error: {message}\n"


def test_a_lone_surrogate_in_a_season_race_path(specs):
    season = specs / "seasons" / "winter_season.yaml"
    season.write_text(season.read_text().replace("race: ../rallytaire/acropolis.yaml", 'race: "../rallytaire/acropolis\\ud800.yaml"'))
    assert refused(run("validate", str(season))) == f"{season}:13:11: error: {SURROGATE}\n"


def test_a_lone_surrogate_in_a_rally_risk_library_path(specs):
    race = specs / "rally_risk" / "montecarlo_1.yaml"
    race.write_text(race.read_text().replace("library: sections.yaml", 'library: "sections\\ud800.yaml"'))
    assert refused(run("analyze", str(race))) == f"{race}:7:10: error: {SURROGATE}\n"


def test_a_lone_surrogate_in_a_large_file_gets_the_same_words(write):
    # over 64 KiB, libyaml's refusal is worded (at the escape's digits) without a second reading
    path = write(VALID.replace("name: Test Race", 'name: "Test \\ud800 Race"') + "#" * (70 * 1024) + "\n")
    assert refused(run("validate", path)) == f"{path}:2:15: error: {SURROGATE}\n"


def test_an_escape_beyond_the_last_code_point_is_located(write):
    path = write(VALID.replace("name: Test Race", 'name: "Test \\U00110000"'))
    assert refused(run("validate", path)) == f"{path}:2:15: error: invalid YAML: an escape names a code point beyond \\U0010FFFF; it is not a character\n"


@pytest.mark.parametrize(
    "escape,shown",
    [("\\x1b[2J", "'\\x1b' (U+001B)"), ("\\r", "'\\r' (U+000D)"), ("\\0", "'\\x00' (U+0000)"), ("\\N", "'\\x85' (U+0085)"), ("\\L", "'\\u2028' (U+2028)")],
)
def test_a_control_character_in_a_name_is_refused_at_load(write, escape, shown):
    path = write(VALID.replace("name: SS1", f'name: "SS1 {escape} x"'))
    message = f"control character {shown} in a text; a spec's text holds no control characters but tab and newline"
    assert refused(run("analyze", path)) == f"{path}:4:11: error: {message}\n"


def test_tab_and_newline_stay_allowed_in_a_text(write):
    """The loader keeps them (a text that is not printed may hold them); a name the sheets
    print may not (a tab prints as nothing or a box): refused by the name's check
    (tests/test_glyphs.py), not as a control character."""
    from sheetgen.yamlsrc import load_text

    assert load_text('note: "Test\\tRace\\nand more"').data == {"note": "Test\tRace\nand more"}
    path = write(VALID.replace("name: Test Race", 'name: "Test\\tRace"'))
    assert refused(run("validate", path)) == f"{path}:2:7: error: 'name' holds characters the sheets cannot print: '\\t' (U+0009): control or formatting characters, which print as nothing or as a box\n"


# -- special files ------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("command", [["validate"], ["validate", "--strict"], ["analyze"], ["render", "-o", "-"], ["build", "-o", "out"]])
def test_a_fifo_as_spec_is_refused_at_once(tmp_path, deadline, command):
    fifo = tmp_path / "x.fifo"
    os.mkfifo(fifo)
    if "out" in command:
        command = [*command[:-1], str(tmp_path / "out")]
    assert refused(run(*command, str(fifo))) == f"{fifo}:1:1: error: cannot read file: it is a named pipe and no process is writing to it\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_a_slow_process_writes_into_is_read(tmp_path, deadline):
    # as `sheetgen validate <(sheetgen generate ...)`: the writer holds the pipe open first
    import threading

    fifo = tmp_path / "race.yaml"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as pipe:
            time.sleep(0.6)  # longer than the grace a pipe without a writer gets
            pipe.write(VALID.encode())

    feeder = threading.Thread(target=feed)
    feeder.start()
    result = run("validate", str(fifo))
    feeder.join()
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{fifo}: ok (Rallytaire: 1 stage, 30 spaces, 2 corners)\n"


def test_a_character_device_as_spec_is_refused(deadline):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null here")
    assert refused(run("validate", "/dev/null")) == "/dev/null:1:1: error: cannot read file: it is a character device, not a regular file\n"


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_a_socket_as_spec_is_refused(tmp_path, deadline):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        assert refused(run("validate", str(path))) == f"{path}:1:1: error: cannot read file: it is a socket, not a regular file\n"
    finally:
        server.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_as_a_season_race_is_refused_where_the_season_names_it(specs, deadline):
    os.mkfifo(specs / "rallytaire" / "x.fifo")
    season = specs / "seasons" / "winter_season.yaml"
    season.write_text(season.read_text().replace("race: ../rallytaire/acropolis.yaml", "race: ../rallytaire/x.fifo"))
    assert refused(run("validate", str(season))) == (
        f"{season}:13:11: error: race '../rallytaire/x.fifo': cannot read file: it is a named pipe and no process is writing to it\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_as_a_rally_risk_library_is_refused_where_the_race_names_it(specs, deadline):
    os.mkfifo(specs / "rally_risk" / "lib.fifo")
    race = specs / "rally_risk" / "montecarlo_1.yaml"
    race.write_text(race.read_text().replace("library: sections.yaml", "library: lib.fifo"))
    assert refused(run("validate", str(race))) == (
        f"{race}:7:10: error: library 'lib.fifo': cannot read file: it is a named pipe and no process is writing to it\n"
    )


# -- control characters in file names ----------------------------------------------------------


def test_a_newline_in_a_file_name_does_not_split_the_error_line(write, tmp_path):
    path = write(VALID.replace("gear: 3,", "gear: 9,"), "bad\nname.yaml")
    assert refused(run("validate", path)) == f"{tmp_path}/bad\\nname.yaml:8:27: error: 'gear' must be at most 5, got 9\n"


def test_control_characters_in_a_missing_file_name_are_escaped(tmp_path):
    path = str(tmp_path / "no\r\x1b[2Jpe\t.yaml")
    assert refused(run("validate", path)) == f"{tmp_path}/no\\r\\x1b[2Jpe\\t.yaml:1:1: error: cannot read file: No such file or directory\n"


def test_an_ordinary_file_name_prints_as_itself(write, tmp_path):
    path = write(VALID.replace("gear: 3,", "gear: 9,"), "Rallye Monte-Carlo é \\ x.yaml")
    assert refused(run("validate", path)) == f"{path}:8:27: error: 'gear' must be at most 5, got 9\n"


# -- files of very many problems ----------------------------------------------------------------


def test_sixty_thousand_unknown_keys_are_answered_quickly_in_101_lines(write, counts):
    keys = "".join(f"k{i:05d}xyzzy: 1\n" for i in range(60_000))
    path = write(VALID.replace("name: Test Race", "name: Test Race\ntyers: 1\n" + keys))
    assert os.path.getsize(path) < 1024 * 1024
    lines = refused(run("validate", path)).splitlines()
    # a near-miss search only for the keys listed (each compares with every allowed key);
    # schema errors looked for up to the ten thousandth, not the sixty thousandth
    assert counts["near_miss"] <= 100
    assert counts["errors"] <= 10_001
    assert len(lines) == 101
    # the first problems keep their words, near-miss included
    assert lines[0] == f"{path}:3:1: error: unknown key 'tyers', did you mean 'tyres'?"
    assert lines[1] == f"{path}:4:1: error: unknown key 'k00000xyzzy' (expected one of: boxes, game, name, stages, tyres)"
    assert lines[99] == f"{path}:102:1: error: unknown key 'k00098xyzzy' (expected one of: boxes, game, name, stages, tyres)"
    # (the stage's own check is not made: the checks stop after 10000 problems)
    assert lines[100] == f"{path}:1:1: error: and 59901 more problems (only the first 100 of this file are listed; the checks stopped after 10000)"


def test_a_hundred_problems_are_all_listed(write):
    keys = "".join(f"k{i:03d}: 1\n" for i in range(100))
    path = write(VALID + keys)
    lines = refused(run("validate", path)).splitlines()
    assert len(lines) == 100
    assert lines[-1] == f"{path}:109:1: error: unknown key 'k099' (expected one of: boxes, game, name, stages, tyres)"


def test_a_hundred_and_one_problems_end_with_the_count(write):
    keys = "".join(f"k{i:03d}: 1\n" for i in range(101))
    path = write(VALID + keys)
    lines = refused(run("validate", path)).splitlines()
    assert lines[-1] == f"{path}:1:1: error: and 1 more problem (only the first 100 of this file are listed)"
    assert len(lines) == 101


def test_a_list_far_over_its_limit_is_not_checked_item_by_item(write, counts):
    path = write("game: rallytaire\nname: x\nstages: [" + "{}," * 40_000 + "{}]\n")
    lines = refused(run("validate", path)).splitlines()
    # jsonschema is given the first 8 + 100 stages, not the 40001
    assert counts["longest_list"] == 108
    assert lines[0] == f"{path}:3:9: error: 'stages' must have at most 8 items, got 40001"
    assert lines[1] == f"{path}:3:10: error: missing required key 'length' in stages[1]"
    # the first 8 + 100 stages are checked (3 problems each), the others are not
    assert lines[-1] == f"{path}:1:1: error: and 225 more problems (only the first 100 of this file are listed)"
    assert len(lines) == 101


def test_checking_stops_after_ten_thousand_problems(write, counts):
    path = write(VALID.replace("      - {after: 10, gear: 3, zone: 5, turn: left}\n", "      - {}\n" * 30_000))
    lines = refused(run("validate", path)).splitlines()
    # jsonschema's errors are taken up to the ten thousandth and one more (to know there are
    # more), not the 90000 there are; near misses only for the first hundred
    assert 9_000 < counts["errors"] <= 10_001
    assert counts["near_miss"] <= 100
    assert lines[0] == f"{path}:8:9: error: missing required key 'after' in corners[1]"
    assert lines[-1] == f"{path}:1:1: error: and 9900 more problems (only the first 100 of this file are listed; the checks stopped after 10000)"
    assert len(lines) == 101


def test_a_file_of_uniqueness_checks_over_mappings_is_quick(write, monkeypatch):
    # jsonschema's own uniqueItems compares every pair of mappings: minutes for these
    from jsonschema import _utils

    def pairwise(*_args, **_kwargs):
        raise AssertionError("jsonschema's pairwise uniqueItems was used")

    monkeypatch.setattr(_utils, "uniq", pairwise)
    fords = ", ".join(f"{{a: {i}}}" for i in range(20_000))
    text = f"game: rally_risk\nkind: library\nname: x\nsections:\n- {{id: a, name: b, tags: [straight], entry: S, exit: N, copies: 1, factors: [0, 0, 0], fords: [{fords}]}}\n"
    path = write(text)
    lines = refused(run("validate", path)).splitlines()
    assert lines[0] == f"{path}:5:96: error: fords[1] must be a whole number, got a mapping"
    assert len(lines) == 101


def test_a_file_of_too_many_values_is_refused_at_the_first_one_over(write, counts):
    path = write("game: rallytaire\nname: x\nstages: [" + "0," * 200_000 + "0]\n")
    stderr = refused(run("validate", path))
    # the parser is left at the value over the limit: its events are not all read
    from sheetgen.yamlsrc import MAX_VALUES

    assert MAX_VALUES < counts["events"] < MAX_VALUES + 10
    assert stderr == f"{path}:3:200002: error: too many values: a spec holds at most 100000 (list items, mapping entries, at any depth)\n"


def test_the_count_of_a_season_race_s_problems_is_carried_into_the_season_s(specs):
    race = specs / "rallytaire" / "acropolis.yaml"
    race.write_text(race.read_text() + "".join(f"k{i:03d}: 1\n" for i in range(150)))
    season = specs / "seasons" / "winter_season.yaml"
    lines = refused(run("validate", str(season))).splitlines()
    shown = f"{season.parent}/../rallytaire/acropolis.yaml"  # as the season names it
    assert lines[0] == f"{shown}:58:1: error: unknown key 'k000' (expected one of: boxes, game, name, stages, tyres)"
    assert lines[100] == f"{shown}:1:1: error: and 50 more problems (only the first 100 of this file are listed)"
    assert lines[101] == f"{season}:13:11: error: race '../rallytaire/acropolis.yaml' has errors (listed with its name)"
    assert len(lines) == 102
