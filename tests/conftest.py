from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

# the tests' own disk cache of solved figures (sheetgen/cache.py), shared by the test processes
# and never the user's: entries are keyed by the solver's source, so an old one is never met
os.environ.setdefault("SHEETGEN_CACHE", os.path.join(tempfile.gettempdir(), f"sheetgen-test-cache-{os.getuid()}"))
# builds in the tests are there to be built: the kept builds of sheetgen/buildcache.py are
# off but where tests/test_buildcache.py turns them on
os.environ["SHEETGEN_BUILD_CACHE"] = "off"
# one process per command unless a test asks for more with --jobs: the suite already runs in
# two processes (pytest-xdist), and worker processes started by every build only add their
# start-up (tests/test_parallel.py and the --jobs 2 cases check the worker pools)
os.environ.setdefault("SHEETGEN_JOBS", "1")

# Ctrl-C, SIGTERM and SIGHUP reach the commands the tests start (their handling is tested):
# a suite started as a background job (`cmd &`: SIGINT and SIGQUIT ignored) or under nohup
# (SIGHUP ignored) would hand the ignoring on to every process it starts, and a preview
# server sent Ctrl-C would serve on until the test gave up
for _name in ("SIGINT", "SIGHUP"):
    _number = getattr(signal, _name, None)
    if _number is not None and signal.getsignal(_number) == signal.SIG_IGN:
        signal.signal(_number, signal.default_int_handler if _name == "SIGINT" else signal.SIG_DFL)

from sheetgen.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "track_specs"
RALLYTAIRE_SPECS = sorted((SPECS / "rallytaire").glob("*.yaml"))


@pytest.fixture
def run():
    """Run the CLI in-process; returns click's Result (stdout and stderr kept apart)."""

    def invoke(*args: str, input: str | bytes | None = None):
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def write(tmp_path):
    """Write a spec file into a temporary folder and return its path as a string."""

    def writer(text: str | bytes, name: str = "spec.yaml") -> str:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    return writer


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


VALID = """\
game: rallytaire
name: Test Race
stages:
  - name: SS1
    surface: gravel
    length: 30
    corners:
      - {after: 10, gear: 3, zone: 5, turn: left}
      - {after: 20, gear: 2, zone: 15, turn: right}
"""


#: Tests run in slow runs only (`-m slow`), for the default suite's time (under 4 minutes on
#: the 2-core machine): each named here with what keeps its ground covered in the default
#: suite. Measured per test with the suite's own processes (process and child CPU, wall).
SLOW_FOR_TIME = {
    # the preview's updates are seen through /events by test_saves_update_the_page...; a
    # superseded save and the browser's view run in slow runs (12 s and 5 s)
    "tests/test_preview.py::test_a_newer_save_is_what_the_page_ends_with": "saves_update_the_page covers updates",
    "tests/test_preview.py::test_the_page_in_a_browser_shows_a_new_problem_and_new_figures_without_a_reload": "over HTTP",
    "tests/test_preview.py::test_a_huge_spec_and_a_flood_of_requests_leave_it_answering_and_write_nothing":
    "test_loading's size and alias refusals; the other servers' HTTP tests",
    "tests/test_preview.py::test_a_tile_library_and_a_template_file_are_watched_too":
    "a_template_file_is_watched_and_its_mistake_refuses_the_spec (in process)",
    # hypothesis properties of 7-8 s: their bundled twins (goldens, rebuilds of generated specs)
    "tests/test_properties.py::test_dump_then_load_gives_the_same_model": "generated specs rebuild (test_generate)",
    "tests/test_layout.py::test_any_box_fits_or_is_genuinely_too_small": "any_stage_fits_a_full_a4_page, check_fits",
    # brute forces and reference tables whose cases the oracle test (engine walk) and the
    # per-state expectimax keep in the default suite
    "tests/test_rallyman_par.py::test_the_par_equals_a_brute_force_where_tokens_carry_over[1-True]": "its other cases",
    "tests/test_solve_speed_equivalence.py::test_transitions_are_the_turn_functions": "per-state expectimax",
    "tests/test_solve_speed_equivalence.py::test_drive_matches_the_rule_read_corner_by_corner": "per-state expectimax",
    "tests/test_rally_risk_solve_equivalence.py::test_every_table_is_the_reference_bit_for_bit[montecarlo_special]": "other races",
    "tests/test_rally_risk_solve.py::test_finishing_round_distribution_is_exact": "analyze goldens' percentiles",
    "tests/test_rallyman_kernel.py::test_the_kernel_does_the_policys_forward_pass_itself": "random tracks' turns and losses",
    "tests/test_rallyman_kernel.py::test_the_kernel_gives_the_references_analysis_and_printouts[strip1]": "[tiny]",
    "tests/test_rallytaire_advanced.py::test_figures_are_probabilities_and_counts[monte_carlo]": "[thousand_lakes]",
    "tests/test_rallytaire_advanced.py::test_figures_are_probabilities_and_counts[acropolis]": "[thousand_lakes]",
    "tests/test_rallytaire_advanced.py::test_json_shape": "analyze goldens (JSON)",
    # printed pages whose golden references (the same pages, semantically) stay in the default suite
    "tests/test_rally_risk_pages.py::test_ford_marks_never_cross_a_digit[a4]": "course sheet goldens",
    "tests/test_rally_risk_pages.py::test_the_calendar_prints_no_section_lists_besides_the_course_sheets": "calendar golden",
    "tests/test_rally_risk_pages.py::test_pages_name_sections_and_rallies_not_ids": "course sheet goldens",
    "tests/test_render_rally_risk.py::test_build_prints_a_calendar_as_the_calendar_command_does_with_seed_1": "calendar golden",
    "tests/test_render_rally_risk.py::test_library_pages_and_text[letter-size1]": "[a4-size0]",
    "tests/test_render.py::test_advanced_par_and_best_tyres_are_printed": "race sheet goldens",
    "tests/test_render.py::test_stage_names_and_corner_gears_are_text": "race sheet goldens",
    "tests/test_rallyman_printing.py::test_tile_labels_are_at_least_6_pt_and_dark[low]": "[normal]",
    "tests/test_championship.py::test_validate_build_and_render_take_a_season": "the build-report golden",
    "tests/test_cache.py::test_a_race_with_its_entries_edited_prints_as_without_the_cache": "damaged-entry tests",
    "tests/test_generate.py::test_generated_races_are_valid_printable_and_in_their_band[easy]": "[medium], [hard]",
    "tests/test_generate.py::test_stages_too_long_to_wind_print_as_rows_with_u_turns[hard]": "its other bands",
    "tests/test_schemacheck_quick.py::test_quick_check_agrees_with_jsonschema[rallyman/tiles.yaml]": "other files",
    "tests/test_rl_accel.py::test_the_accelerator_gives_the_same_pdf[sweden_1]": "[thousand_lakes]",
    # one descriptor of each kind stays: /dev/stdout for the shell's append, a file for the library
    "tests/test_data_loss.py::test_an_output_naming_a_descriptor_appends_where_the_shell_appends[/dev/fd/3-3>> log.txt]": "/dev/stdout",
    "tests/test_data_loss.py::test_an_output_naming_a_descriptor_appends_where_the_shell_appends[/dev/stderr-2>> log.txt]": "/dev/stdout",
    "tests/test_data_loss.py::test_an_output_naming_a_descriptor_appends_where_the_shell_appends[/proc/self/fd/1->> log.txt]": "/dev/stdout",
    "tests/test_parallel.py::test_results_in_order_for_any_number_of_processes": "build_is_byte_identical_for_any_jobs",
    "tests/test_parallel.py::test_a_terminated_build_takes_its_worker_processes_with_it[15]": "[1]",
    "tests/test_parallel.py::test_a_build_leaves_no_worker_process_behind": "a terminated build's [1], [2]",
    "tests/test_preview.py::test_saves_update_the_page_through_its_update_channel": "the folder scan, in process",
    "tests/test_rally_risk_pages.py::test_every_character_is_inside_the_10_mm_margins[a4]": "test_text_fit's margins",
    "tests/test_layout.py::test_any_stage_fits_a_full_a4_page": "check_fits_answers_what_layout_stage_does",
    "tests/test_race_sheet_pdf.py::test_a_season_prints_its_generated_races_sheets_and_names_its_races": "season golden",
    "tests/test_data_loss.py::test_a_generated_spec_written_through_a_descriptor_names_its_library_from_the_file_behind_it"
    "[/proc/self/fd/1]": "[/dev/fd/1]",
    "tests/test_pdfops.py::test_every_operation_is_pypdfs[rallytaire/acropolis.yaml]": "its other specs",
    "tests/test_cache.py::test_a_renamed_spec_is_not_solved_again": "a renamed GT track simulated; analyze reads a build's",
    "tests/test_rl_accel.py::test_the_accelerator_gives_the_same_pdf[thousand_lakes]": "goldens drawn with it",
    "tests/test_rally_run.py::test_generate_warns_when_the_target_is_out_of_reach": "generate's other tests",
    "tests/test_cli.py::test_build_shows_progress_on_a_terminal_and_q_silences_it": "build's other CLI tests",
    "tests/test_rallyman_par.py::test_the_par_equals_a_brute_force_over_every_plan[two lanes, two limits-0-True]": "one lane",
    "tests/test_layout.py::test_the_layout_does_not_depend_on_the_process": "byte-identical build tests",
    "tests/test_rallyman_kernel.py::test_the_kernel_gives_the_references_par_for_other_caps_and_modes[1-True]": "others",
    "tests/test_rallyman_sheets.py::test_the_overviews_page_labels_never_cover_a_start_or_finish_letter_nor_each_other"
    "[a4]": "map goldens",
    "tests/test_rallyman_sheets.py::test_a_dirt_stage_of_25_turns_keeps_to_one_letter_sheet_with_rows_still_to_write_in":
    "DIRT sheet goldens",
}


def _slow_for_time(nodeid: str, fixtures: tuple = ()) -> bool:
    """Named above; a second filler of test_text_fit's longest names (the 'wide' letters: the
    'words' filler of every spec stays in the default suite); or a preview test on the server
    of eleven specs (`gallery`, 12 s to start: the preview's 29 other tests, in process and
    over HTTP, stay in the default suite)."""
    if "gallery" in fixtures and nodeid.startswith("tests/test_preview.py::"):
        return True
    return nodeid in SLOW_FOR_TIME or (
        nodeid.startswith("tests/test_text_fit.py::test_names_at_their_longest_keep_to_their_room[")
        and nodeid.endswith("-wide]")
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _slow_for_time(item.nodeid, tuple(getattr(item, "fixturenames", ()))):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    """Compile sheetgen's modules once before the tests (in the controlling process): the
    tests start hundreds of `sheetgen` processes, and where PYTHONDONTWRITEBYTECODE is set (a
    CI's or a sandbox's environment) each of them compiled every module it imports again.
    compileall writes the same bytecode an import would have written."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    compileall.compile_dir(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sheetgen"), quiet=1)
