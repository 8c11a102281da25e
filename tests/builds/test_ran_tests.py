"""What a build's test runners say they ran, from each runner's own summary, per runner: passed,
failed, skipped. A build that runs a demo program (cJSON's `make test`) or only compiles says none;
a line the build prints can add a summary but never take a real failure away."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from code_commit.builds import ran_tests as module
from code_commit.builds.ran_tests import MAX_CHARS, MAX_LINE, RunnerCount, ran_tests, runner_counts, summary_lines

CORPUS = Path(__file__).parent / "corpus"
SAMPLES = Path(__file__).parent / "runner_summaries"


def counts(output: str) -> list[tuple[str, int, int, int]]:
    return [(count.runner, count.passed, count.failed, count.skipped) for count in runner_counts(output)]


# real runs (runner_summaries/README.md says how each was made): (runner, passed, failed, skipped)
REAL = {
    "pytest_fail": ("pytest", 3, 2, 2),  # 1 failed, 3 passed, 1 skipped, 1 xfailed, 1 error
    "pytest_pass_color": ("pytest", 1, 0, 0),
    "pytest_deselected": ("pytest", 0, 0, 7),
    "pytest_none": ("pytest", 0, 0, 0),  # "no tests ran"
    "pytest_subtests_fail": ("pytest", 0, 2, 0),
    "unittest_fail": ("unittest", 2, 3, 2),  # failures, errors, unexpected successes; skipped, expected
    "unittest_pass": ("unittest", 1, 0, 1),
    "cargo_fail": ("cargo test", 3, 1, 1),  # three binaries: unit, integration, doc tests
    "cargo_pass_filtered_color": ("cargo test", 2, 0, 3),  # 3 filtered out
    "ctest_fail": ("ctest", 2, 1, 1),  # and one disabled, which is not in "out of 4"
    "node_test_fail_tap": ("node:test", 2, 1, 3),  # skipped 1, todo 2
    "node_test_fail_spec_color": ("node:test", 2, 1, 3),
    "jest_fail": ("jest", 2, 2, 2),  # 1 failed test, and a second suite that did not load
    "jest_pass": ("jest", 1, 0, 4),
    "jest_fail_color": ("jest", 2, 1, 2),
    "vitest_fail": ("vitest", 2, 1, 2),
    "maven_fail": ("Maven", 3, 2, 1),  # the Results line, not the two classes' lines again
    "maven_pass_color": ("Maven", 3, 0, 1),
    "go_fail": ("go test", 1, 2, 0),  # a package that does not build fails; one with no test files is none
    "go_v_fail": ("go test", 1, 1, 0),
    "go_json_fail": ("go test", 1, 1, 0),
    "go_norun": ("go test", 1, 0, 1),  # "[no tests to run]"
    "go_cover": ("go test", 1, 0, 0),
    "mocha_fail": ("mocha", 2, 2, 2),
    "mocha_fail_color": ("mocha", 2, 2, 2),
    "ava_fail": ("ava", 0, 1, 3),  # AVA prints no passed count when a test failed
    "ava_pass": ("ava", 2, 0, 1),
    "uvu_fail": ("uvu", 2, 1, 1),
    "uvu_fail_color": ("uvu", 2, 1, 1),
    "jasmine_fail": ("jasmine", 2, 1, 2),
    "jasmine_focused": ("jasmine", 1, 0, 2),  # "Ran 1 of 3 specs": fit() left two out
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_runs_summary_is_read_per_runner(name: str) -> None:
    assert counts((SAMPLES / f"{name}.txt").read_text(encoding="utf-8")) == [REAL[name]]


def test_every_real_sample_is_checked() -> None:
    assert {path.stem for path in SAMPLES.glob("*.txt")} == set(REAL)


Summary = tuple[str, tuple[str, int, int, int]]  # an output, and its (runner, passed, failed, skipped)

# a failing run of each runner, in its own words
FAILING_RUNS: list[Summary] = [
    ("Tests:       1 failed, 2 passed, 3 total\n", ("jest", 2, 1, 0)),
    ("Test Suites: 1 failed, 1 total\nTests:       0 total\n", ("jest", 0, 1, 0)),  # ran no test
    ("1 failed, 2 passed, 1 skipped, 1 xfailed, 1 error in 0.12s\n", ("pytest", 2, 2, 2)),
    ("  3 passing (12ms)\n  2 failing\n", ("mocha", 3, 2, 0)),
    (
        "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
        ("cargo test", 1, 1, 0),
    ),
    ("FAIL\texample.com/calc\t0.002s\nok  \texample.com/sub\t0.001s\n", ("go test", 1, 1, 0)),
    ("      Tests  1 failed | 2 passed (3)\n", ("vitest", 2, 1, 0)),
    (" Test Files  1 failed (1)\n      Tests  no tests\n", ("vitest", 0, 1, 0)),  # a file that does not load
    ("      Tests  2 passed (2)\n     Errors  1 error\n", ("vitest", 2, 1, 0)),  # an error outside tests
    ("# tests 3\n# pass 2\n# fail 1\n# cancelled 1\n", ("node:test", 2, 2, 0)),
    ("  1 test failed\n  2 uncaught exceptions\n  1 known failure\n  1 test todo\n", ("ava", 0, 3, 2)),
    ("  Total:     3\n  Passed:    2\n  Skipped:   0\n", ("uvu", 2, 1, 0)),
    ("3 specs, 1 failure\n", ("jasmine", 2, 1, 0)),
    ("67% tests passed, 1 tests failed out of 3\n", ("ctest", 2, 1, 0)),
    ("[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n", ("Maven", 2, 1, 0)),
    ("Tests run: 3, Failures: 0, Errors: 1, Skipped: 1\n", ("Maven", 1, 1, 1)),  # Surefire 2.x: no level
    ("Ran 3 tests in 0.002s\n\nFAILED (failures=1, errors=1)\n", ("unittest", 1, 2, 0)),
    ("Ran 0 tests in 0.000s\n\nNO TESTS RAN\n", ("unittest", 0, 0, 0)),  # Python 3.12
    ("PASSED: 15\nFAILED: 1\n", ("make test", 15, 1, 0)),
    ("1..3\n# tests 3\n# pass  2\n# fail  1\n", ("node:test", 2, 1, 0)),  # TAP as tape aligns it
]


# PHPUnit is not installable here: its lines as sebastianbergmann/phpunit prints them, from
# src/TextUI/Output/SummaryPrinter.php at f123cdb2a2d4 (main, 2026-08-22): "OK (%d test%s, %d assertion%s)",
# "No tests executed!", or a verdict line then "Tests: %d, Assertions: %d" and ", <Name>: %d" for each of
# Errors, Failures, PHPUnit Warnings, Warnings, Deprecations, PHPUnit Deprecations, PHPUnit Notices, Notices,
# Skipped, Incomplete, Risky that is not 0, then "."
PHPUNIT: list[Summary] = [
    ("..\n\nTime: 00:00.005, Memory: 8.00 MB\n\nOK (2 tests, 3 assertions)\n", ("phpunit", 2, 0, 0)),
    ("FAILURES!\nTests: 5, Assertions: 5, Failures: 1, Skipped: 1.\n", ("phpunit", 3, 1, 1)),
    (
        "ERRORS!\nTests: 7, Assertions: 2, Errors: 1, Failures: 1, Skipped: 1, Incomplete: 1, Risky: 1.\n",
        ("phpunit", 3, 2, 2),
    ),
    ("OK, but there were issues!\nTests: 4, Assertions: 4, PHPUnit Deprecations: 2.\n", ("phpunit", 4, 0, 0)),
    ("No tests executed!\n", ("phpunit", 0, 0, 0)),
]


# dotnet test is not installable here: VSTest's console logger as microsoft/vstest prints it, from
# src/vstest.console/Internal/ConsoleLogger.cs and src/vstest.console/Resources/Resources.resx at 0b289d54af2f
# (2026-08-19): at minimal verbosity (dotnet test's) one line a test assembly, "{0} - Failed: {1}, Passed: {2},
# Skipped: {3}, Total: {4}, Duration: {5}" then " - {assembly} {framework}", the outcome "Passed!", "Failed!",
# "Skipped!" or "None" padded to 8, the counts to 5; at normal verbosity "Total tests: {0}" ("Unknown" when
# aborted or cancelled) and "     Passed: {0}", "     Failed: {0}", "    Skipped: {0}" for those not 0; before
# 3da56d3a6 (2017) "Total tests: {0}. Passed: {1}. Failed: {2}. Skipped: {3}."
DOTNET: list[Summary] = [
    (
        "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 45 ms - "
        "Calc.Tests.dll (net8.0)\n"
        "Failed!  - Failed:     1, Passed:     3, Skipped:     1, Total:     5, Duration: 1 s - "
        "Web.Tests.dll (net8.0)\n",
        ("dotnet test", 15, 1, 1),
    ),
    (
        "Test Run Successful.\nTotal tests: 2\n     Passed: 1\n    Skipped: 1\n Total time: 0.5333 Seconds\n",
        ("dotnet test", 1, 0, 1),
    ),
    (
        "Test Run Failed.\nTotal tests: 3\n     Passed: 2\n     Failed: 1\n Total time: 1.2 Seconds\n",
        ("dotnet test", 2, 1, 0),
    ),
    (
        "Test Run Aborted.\nTotal tests: Unknown\n     Passed: 2\n Total time: 1.2 Seconds\n",
        ("dotnet test", 2, 1, 0),
    ),
    ("Total tests: 4. Passed: 3. Failed: 1. Skipped: 0.\n", ("dotnet test", 3, 1, 0)),
]


@pytest.mark.parametrize(("output", "expected"), FAILING_RUNS + PHPUNIT + DOTNET)
def test_a_summary_is_read_with_its_failures(output: str, expected: tuple[str, int, int, int]) -> None:
    assert counts(output) == [expected]


def test_a_runners_summaries_add_up_and_runners_keep_the_order_they_first_appear_in() -> None:
    output = (
        "Tests:       2 passed, 2 total\n"
        "===== 1 failed, 3 passed in 0.20s =====\n"
        "Tests:       1 failed, 1 total\n"
        "===== 4 passed, 1 skipped in 0.10s =====\n"  # a build that runs pytest twice
    )

    assert counts(output) == [("jest", 2, 1, 0), ("pytest", 7, 1, 1)]


def test_a_printed_summary_line_adds_but_never_takes_a_real_failure_away() -> None:
    real = "F..\n===== 1 failed, 2 passed in 0.12s =====\n"
    forged = "===== 0 failed, 9 passed in 0.01s =====\n"

    assert counts(forged + real) == counts(real + forged) == [("pytest", 11, 1, 0)]


@pytest.mark.parametrize(
    "output",
    [
        # printed just before mocha's epilogue: it takes the place of the real "failing" line
        "  0 failing\n\n  2 passing (3ms)\n  2 failing\n\n  1) adds:\n",
        "  2 passing (3ms)\n  2 failing\n  0 failing\n",
    ],
    ids=["before", "after"],
)
def test_a_printed_line_in_a_real_summarys_place_leaves_its_failures_counted(output: str) -> None:
    [(runner, _, failed, _)] = counts(output)

    assert (runner, failed) == ("mocha", 2)


def test_a_verdict_printed_between_unittests_lines_leaves_the_real_failures_counted() -> None:
    assert counts("Ran 3 tests in 0.002s\nOK\n\nFAILED (failures=1)\n") == [("unittest", 3, 1, 0)]


def test_a_line_printed_between_a_summarys_lines_makes_what_it_does_not_show_passed_failed() -> None:
    real = "  Total:     3\n  Passed:    2\n  Skipped:   0\n  Duration:  0.93ms\n"  # uvu: 1 failed
    split = real.replace("  Passed", "noise\n  Passed")
    forged = "  Total:     5\n  Passed:    5\n  Skipped:   0\n  Duration:  0.1ms\n"

    assert counts(real) == [("uvu", 2, 1, 0)]
    [(runner, _, failed, _)] = counts(split + forged)  # the forged Total joins the real Passed: more failures
    assert runner == "uvu" and failed >= 1
    assert counts(split) == [("uvu", 0, 3, 0)]
    assert counts("Ran 2 tests in 0.002s\n") == [("unittest", 0, 2, 0)]  # its verdict never came


def test_mavens_lines_for_each_class_are_not_counted_again_and_each_modules_results_add_up() -> None:
    one_module = (SAMPLES / "maven_fail.txt").read_text(encoding="utf-8")

    assert counts(one_module + one_module) == [("Maven", 6, 4, 2)]


def test_go_json_events_are_not_counted_again_from_the_text_they_carry() -> None:
    output = (SAMPLES / "go_json_fail.txt").read_text(encoding="utf-8")

    assert '"Output":"ok  \\texample.com/gt/calc' in output
    assert counts(output) == [("go test", 1, 1, 0)]
    assert runner_counts(output)[0].unit == "package"


def test_a_summary_with_an_outcome_it_does_not_know_is_not_read() -> None:
    # a plugin's outcome could be a failure: not read as none
    assert counts("===== 3 passed, 1 flaky in 0.12s =====\n") == []


@pytest.mark.parametrize(
    "output",
    [
        "\x1b[32m===== \x1b[1m2 passed\x1b[0m\x1b[32m in 0.50s =====\x1b[0m\n",
        "test result: \x1b[32mok\x1b(B\x1b[m. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 0.00s\n",
        "\x1b]8;;file:///x\x07Tests:       2 passed, 2 total\x1b]8;;\x07\n",  # a hyperlink
    ],
    ids=["pytest", "cargo", "osc"],
)
def test_the_terminals_escapes_are_taken_out_before_reading(output: str) -> None:
    [count] = runner_counts(output)

    assert (count.passed, count.failed) == (2, 0)


@pytest.mark.parametrize(
    "output",
    [
        'cc -o cJSON_test cJSON.c test.c\n./cJSON_test\nVersion: 1.7.18\n{\n\t"name":\t"Jack (\\"Bee\\") Nimble"\n}\n',
        "   Compiling fmtnum v0.1.0\n    Finished `dev` profile target(s) in 0.5s\n",
        "[100%] Built target cjson\n",
        "FAILED: test partial JSON string parsing (at line 115)\nOK\n",
        "Total: 42\nPassed: 40\n",  # not uvu's alignment
        "",
    ],
    ids=["cjson-demo", "cargo-build", "cmake-build", "lookalikes", "a-total", "nothing"],
)
def test_a_build_that_runs_no_test_runner_says_none(output: str) -> None:
    assert runner_counts(output) == ()
    assert ran_tests(output) is None


def test_a_line_past_the_length_cap_is_never_read() -> None:
    digits = "1 " * (MAX_CHARS // 4)  # half a megabyte on one line: no pattern ever sees it
    output = digits + "\n" + "5 passed in 0.1s\n" + digits + " passed in 0.1s\n"

    lines = list(summary_lines(output))

    assert lines == ["5 passed in 0.1s"]
    assert counts(output) == [("pytest", 5, 0, 0)]


def test_a_megabyte_of_short_lines_is_read_a_line_at_a_time_within_the_cap() -> None:
    output = ("1 " * (MAX_LINE // 2 - 10) + "passed in 0.1\n") * (MAX_CHARS // MAX_LINE + 10)

    lines = list(summary_lines(output))

    assert len(output) > MAX_CHARS and MAX_CHARS // MAX_LINE <= len(lines) <= MAX_CHARS // (MAX_LINE - 10) + 1
    assert max(len(line) for line in lines) <= MAX_LINE
    assert runner_counts(output) == ()


def test_only_the_outputs_end_is_read_and_a_line_cut_in_two_is_not() -> None:
    summary = "15 passed in 0.1s\n"
    output = "x" * MAX_CHARS + "\n" + summary

    assert counts(output) == [("pytest", 15, 0, 0)]
    cut = "x" * 10 + summary + "\n" * (MAX_CHARS - len(summary) + 1)  # the end starts at "5 passed in"

    assert counts(cut) == []


def repeats_inside_repeats(pattern: re.Pattern[str]) -> list[str]:
    """The pattern's unbounded repetitions that hold another: those that can backtrack without end."""
    parser = re._parser  # type: ignore[attr-defined]
    found: list[str] = []

    def walk(items: object, inside: bool) -> None:
        for op, value in items:  # type: ignore[attr-defined]
            if op in (parser.MAX_REPEAT, parser.MIN_REPEAT, parser.POSSESSIVE_REPEAT):
                _, high, sub = value
                unbounded = high > 1
                if inside and unbounded:
                    found.append(str(value))
                walk(sub, inside or unbounded)
            elif op == parser.SUBPATTERN:
                walk(value[-1], inside)
            elif op == parser.BRANCH:
                for branch in value[1]:
                    walk(branch, inside)
            elif op in (parser.ASSERT, parser.ASSERT_NOT):
                walk(value[1], inside)

    walk(parser.parse(pattern.pattern, pattern.flags), False)
    return found


def test_no_pattern_nests_one_unbounded_repetition_in_another() -> None:
    patterns = [value for value in vars(module).values() if isinstance(value, re.Pattern)]

    assert len(patterns) >= 5  # the gate (every summary's lines), the escapes, the items
    assert module._GATE.groups == len(module._SUMMARIES)  # a group a summary: its match names the summary
    assert {pattern.pattern[:40]: repeats_inside_repeats(pattern) for pattern in patterns} == {
        pattern.pattern[:40]: [] for pattern in patterns
    }
    assert repeats_inside_repeats(re.compile(r"\d+ (?:[a-z]+)? (?:\d+)?x")) == []
    assert repeats_inside_repeats(re.compile(r"(?:\d+ ?)*x")) != []  # the check can fail


@pytest.mark.parametrize(
    ("output", "count", "runner"),
    [
        ("........\n16 passed, 64 subtests passed in 0.53s\n", 16, "pytest"),
        ("===== 1 failed, 2 passed, 1 skipped, 3 warnings in 0.12s =====\n", 3, "pytest"),
        ("test_add (t.AddTest.test_add) ... ok\n\n" + "-" * 70 + "\nRan 3 tests in 0.001s\n\nOK\n", 3, "unittest"),
        (
            "running 1 test\ntest tests::renders ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured;"
            " 0 filtered out; finished in 0.00s\n\n   Doc-tests fmtnum\n\nrunning 2 tests\n..\ntest result: ok. "
            "2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n",
            3,
            "cargo test",
        ),
        ("100% tests passed, 0 tests failed out of 5\n\nTotal Test time (real) =   0.09 sec\n", 5, "ctest"),
        ("TAP version 13\nok 1 - two days in ms\n1..1\n# tests 1\n# suites 0\n# pass 1\n", 1, "node:test"),
        ("ℹ tests 4\nℹ suites 1\nℹ pass 4\n", 4, "node:test"),
        # the skipped test did not run
        ("[INFO] Results:\n[INFO] \n[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 1\n", 6, "Maven"),
        ("ok  \texample.com/calc\t0.002s\nok  \texample.com/calc/sub\t(cached)\n", 2, "go test"),
        ("PASSED: 15\nFAILED: 0\n" * 4, 60, "make test"),
        ("  ....\n\n  1977 passing (839ms)\n\n", 1977, "mocha"),
        ("  ..,.\n\n  3 passing (12ms)\n  1 pending\n  1 failing\n\n  1) adds:\n", 4, "mocha"),
        ("Tests:       2 passed, 2 total\n  1 passing (3ms)\n", 3, "jest, mocha"),
        ("ok  \tx\t0.1s\nTests:       2 passed, 2 total\n", 2, "jest"),  # go's packages only when nothing else
    ],
)
def test_ran_tests_counts_the_tests_that_ran(output: str, count: int, runner: str) -> None:
    found = ran_tests(output)

    assert found is not None and (found.count, found.runner) == (count, runner)


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("ordinary_ctest_failure", 19),
        ("ordinary_cargo_test_failure", 1),
        ("ordinary_unittest_failure", 1),
        ("ordinary_pytest_assertion", 1),
        ("ordinary_maven_junit_failure", 1),
        ("ordinary_npm_node_test_failure", 1),
        ("ordinary_make_c_test_failure", 16),
        ("ordinary_more_jest", 2),
        ("ordinary_more_vitest_nocolor", 2),
        ("ordinary_mocha_failure", 1977),
        ("ordinary_go_test_failure", 1),
    ],
)
def test_a_real_failing_runs_count_is_read_from_its_output(name: str, count: int) -> None:
    found = ran_tests((CORPUS / f"{name}.txt").read_text())

    assert found is not None and found.count == count
    assert all(runner.failed > 0 for runner in runner_counts((CORPUS / f"{name}.txt").read_text()))


def test_the_count_reads_in_words() -> None:
    assert ran_tests("Ran 1 test in 0.001s\n\nOK\n").describe() == "1 test (unittest)"  # type: ignore[union-attr]
    assert ran_tests("ok  \tx\t0.1s\n").describe() == "1 package (go test)"  # type: ignore[union-attr]
    assert RunnerCount("pytest", 2, 1).ran == 3
