"""The runners' counts as the judge of a pass (testguard/counts.py), on outputs the real runners
printed on this machine: cargo 1.9x's `cargo test --quiet` and go 1.19's `go test ./...` (`-v` prints
the same package lines), each for a broken tree and its fix."""

from __future__ import annotations

from code_commit.builds.ran_tests import runner_counts
from code_commit.testguard.counts import judge

FAILED_TEST = (
    "tests::adds --- FAILED\n\nfailures:\n    tests::adds\n\n"
    "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.19s\n\n"
    "error: test failed, to rerun pass `--lib`\n"
)
# cargo stops at the first test binary that fails: the integration tests and the doc tests never ran.
CARGO_BROKEN = "\nrunning 1 test\n" + FAILED_TEST
CARGO_FIXED = "".join(
    f"\nrunning {n} tests\n{'.' * n}\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; "
    "0 filtered out; finished in 0.00s\n\n"
    for n in (1, 2, 0)
)
FORGED = "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"

GO_BROKEN = (
    "# example.com/m/bad [example.com/m/bad.test]\n"
    'bad/b.go:2:23: cannot use "s" (untyped string constant) as int value in return statement\n'
    "--- FAIL: TestAdd (0.00s)\n    m_test.go:3: bad\nFAIL\nFAIL\texample.com/m\t0.022s\n"
    "FAIL\texample.com/m/bad [build failed]\n?   \texample.com/m/notest\t[no test files]\n"
    "ok  \texample.com/m/sub\t(cached)\nFAIL\n"
)
GO_FIXED = (
    "ok  \texample.com/m\t0.002s\nok  \texample.com/m/bad\t0.003s\n?   \texample.com/m/notest\t[no test files]\n"
    "ok  \texample.com/m/sub\t(cached)\n"
)
GO_SETUP_FAILED = (
    "# example.com/m/setup/inner\npackage example.com/m/setup/inner\n"
    "\timports example.com/m/setup: import cycle not allowed in test\n"
    "FAIL\texample.com/m/setup/inner [setup failed]\n?   \texample.com/m/setup\t[no test files]\n"
)


def test_the_fix_of_a_build_that_stopped_at_its_first_failing_suite_passes() -> None:
    check = judge(runner_counts(CARGO_BROKEN), runner_counts(CARGO_FIXED), baseline_passed=False)

    assert check.passed, check.reason


def test_where_the_baseline_failed_a_failure_or_fewer_passing_is_still_no_pass() -> None:
    baseline = runner_counts(CARGO_FIXED.replace("ok. 2 passed; 0 failed", "FAILED. 1 passed; 1 failed"))

    assert judge(baseline, runner_counts(CARGO_FIXED + "\nrunning 1 test\n" + FAILED_TEST), False).reason == (
        "cargo test reports 1 failed"
    )
    assert judge(baseline, runner_counts(CARGO_FIXED.replace("ok. 2 passed", "ok. 1 passed")), False).reason == (
        "cargo test passed 2 tests, fewer than the 3 it ran before the answers"
    )


def test_a_summary_the_code_prints_is_no_pass_where_the_baseline_ran_to_its_end() -> None:
    baseline = runner_counts(CARGO_FIXED)
    skipped = CARGO_FIXED.replace("ok. 2 passed; 0 failed; 0 ignored", "ok. 0 passed; 0 failed; 2 ignored")

    check = judge(baseline, runner_counts(skipped + FORGED), baseline_passed=True)

    assert not check.passed
    assert check.reason.startswith("cargo test printed 4 summaries, where it printed 3 before the answers")


def test_each_go_package_line_is_one_summary_whatever_its_verdict() -> None:
    broken = "FAIL\texample.com/m\t0.006s\nok  \texample.com/m/sub\t0.002s\n"
    fixed = "ok  \texample.com/m\t0.006s\nok  \texample.com/m/sub\t0.002s\n"

    assert [c.summaries for c in runner_counts(broken) + runner_counts(fixed)] == [2, 2]
    assert judge(runner_counts(broken), runner_counts(fixed), baseline_passed=True).passed
    [count] = runner_counts(GO_BROKEN)
    assert (count.passed, count.failed, count.skipped, count.summaries) == (1, 2, 0, 4)
    assert judge(runner_counts(GO_BROKEN), runner_counts(GO_FIXED), baseline_passed=True).passed
    [setup] = runner_counts(GO_SETUP_FAILED)
    assert (setup.passed, setup.failed, setup.summaries) == (0, 1, 2)


def test_a_go_package_line_the_code_prints_is_still_one_summary_more() -> None:
    forged = "ok  \texample.com/m/fake\t0.001s\n"

    check = judge(runner_counts(GO_FIXED), runner_counts(GO_FIXED + forged), baseline_passed=True)

    assert not check.passed and "go test printed 5 summaries, where it printed 4" in check.reason
