"""The finishing-turn time table against the rulebook's printed table, cell by cell."""

import json

import pytest

from sheetgen.games.rallytaire.timetable import finish_tenths, table

# Copied from rallytaire.txt ("End of the race"), decimal commas as printed.
PRINTED = """\
1 10
2 5,0 10
3 3,3 6,7 10
4 2,5 5,0 7,5 10
5 2,0 4,0 6,0 8,0 10
6 1,7 3,3 5,0 6,7 8,3 10
7 1,4 2,9 4,3 5,7 7,1 8,6 10
8 1,3 2,5 3,8 5,0 6,3 7,5 8,8 10
9 1,1 2,2 3,3 4,4 5,6 6,7 7,8 8,9 10
10 1,0 2,0 3,0 4,0 5,0 6,0 7,0 8,0 9,0 10
11 0,9 1,8 2,7 3,6 4,5 5,5 6,4 7,3 8,2 9,1 10
12 0,8 1,7 2,5 3,3 4,2 5,0 5,8 6,7 7,5 8,3 9,2 10
13 0,8 1,5 2,3 3,1 3,8 4,6 5,4 6,2 6,9 7,7 8,5 9,2 10
14 0,7 1,4 2,1 2,9 3,6 4,3 5,0 5,7 6,4 7,1 7,9 8,6 9,3 10
15 0,7 1,3 2,0 2,7 3,3 4,0 4,7 5,3 6,0 6,7 7,3 8,0 8,7 9,3 10
16 0,6 1,3 1,9 2,5 3,1 3,8 4,4 5,0 5,6 6,3 6,9 7,5 8,1 8,8 9,4 10
"""


def printed_tenths():
    rows = []
    for line in PRINTED.splitlines():
        speed, *cells = line.split()
        rows.append((int(speed), [round(float(c.replace(",", ".")) * 10) for c in cells]))
    return rows


def test_table_equals_printed_table_cell_by_cell():
    ours = table(16)
    printed = printed_tenths()
    assert len(ours) == 16
    for speed, cells in printed:
        assert ours[speed - 1] == cells, f"row {speed}"


def test_half_up_rounding_where_round_half_even_fails():
    # 10*5/8 = 6.25 -> 6.3 printed; 10*3/8 = 3.75 -> 3.8; 10*1/8 = 1.25 -> 1.3; 10*7/8 = 8.75 -> 8.8
    assert [finish_tenths(m, 8) for m in (1, 3, 5, 7)] == [13, 38, 63, 88]
    assert [round(10 * m / 8, 1) for m in (1, 5)] == [1.2, 6.2]  # why round() is not used


def test_row_17_for_pushing_the_engine():
    rows = table(17)
    assert len(rows[16]) == 17
    assert rows[16][:3] == [6, 12, 18]  # 0.588.. -> 0.6, 1.176 -> 1.2, 1.764 -> 1.8
    assert rows[16][-1] == 100


def test_rulebook_example_cell():
    assert finish_tenths(5, 9) == 56


@pytest.mark.parametrize("moved,speed", [(0, 5), (6, 5), (1, 0)])
def test_finish_tenths_refuses_impossible_moves(moved, speed):
    with pytest.raises(ValueError):
        finish_tenths(moved, speed)


def test_cli_json_shape(run):
    result = run("timetable", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["rows"][0] == {"speed": 1, "seconds": [10.0]}
    assert data["rows"][1] == {"speed": 2, "seconds": [5.0, 10.0]}
    assert len(data["rows"]) == 16
    assert data["rows"][8]["seconds"][4] == 5.6


def test_cli_max_speed_17_and_csv(run):
    result = run("timetable", "--max-speed", "17", "--format", "csv")
    lines = result.stdout.splitlines()
    assert lines[0] == "speed," + ",".join(str(m) for m in range(1, 18))
    assert lines[17].startswith("17,0.6,1.2,1.8,")
    assert len(lines) == 18


def test_cli_text_and_range(run):
    text = run("timetable").stdout.splitlines()
    assert text[9].split() == ["9", "1.1", "2.2", "3.3", "4.4", "5.6", "6.7", "7.8", "8.9", "10.0"]
    bad = run("timetable", "--max-speed", "18")
    assert bad.exit_code != 0
    assert "Traceback" not in bad.output
