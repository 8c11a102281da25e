"""How many tests a build's output says ran, from each runner's own summary: a build that runs a demo
program (cJSON's `make test`) or only compiles says none."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_commit.builds.ran_tests import ran_tests

CORPUS = Path(__file__).parent / "corpus"


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
        ("[INFO] Results:\n[INFO] \n[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 1\n", 7, "Maven"),
        ("ok  \texample.com/calc\t0.002s\nok  \texample.com/calc/sub\t(cached)\n", 2, "go test"),
        ("PASSED: 15\nFAILED: 0\n" * 4, 60, "make test"),
    ],
)
def test_each_runners_summary_counts_the_tests_that_ran(output: str, count: int, runner: str) -> None:
    found = ran_tests(output)

    assert found is not None and (found.count, found.runner) == (count, runner)


@pytest.mark.parametrize(
    "output",
    [
        'cc -o cJSON_test cJSON.c test.c\n./cJSON_test\nVersion: 1.7.18\n{\n\t"name":\t"Jack (\\"Bee\\") Nimble"\n}\n',
        "   Compiling fmtnum v0.1.0\n    Finished `dev` profile target(s) in 0.5s\n",
        "[100%] Built target cjson\n",
        "",
    ],
    ids=["cjson-demo", "cargo-build", "cmake-build", "nothing"],
)
def test_a_build_that_runs_no_test_runner_says_none(output: str) -> None:
    assert ran_tests(output) is None


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
    ],
)
def test_a_real_failing_runs_count_is_read_from_its_output(name: str, count: int) -> None:
    found = ran_tests((CORPUS / f"{name}.txt").read_text())

    assert found is not None and found.count == count


def test_the_count_reads_in_words() -> None:
    assert ran_tests("Ran 1 test in 0.001s\n").describe() == "1 test (unittest)"  # type: ignore[union-attr]
    assert ran_tests("ok  \tx\t0.1s\n").describe() == "1 package (go test)"  # type: ignore[union-attr]
