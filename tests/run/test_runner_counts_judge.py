"""The runners' own counts are the judge of a pass under protect, through `code-commit` in the real
sandbox: the baseline is the same tree's build before any answer (taken once, by `check` or by a
run's first build, and reused for the same tree), and a build that exits 0 passes only when each
runner's summary shows no failure and at least as many tests passing as the baseline ran. Code that
skips its own tests, or that turns a failing run's exit code to 0, buys no pass; the model is told
why, and the counts are in the console and the record."""

from __future__ import annotations

import json

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project
from support.calc import CALC_BUGGY, CALC_FIXED, pytest_calc
from support.sandbox import require_bwrap

require_bwrap()

FIX = f"^^^calc.py\n{CALC_FIXED}^^^end\n"
# The model's code, which the tests import: each is a pass bought without fixing add().
CHEATS = {
    "skips the tests that call it": (
        "def add(a, b):\n    import pytest\n\n    pytest.skip('not today')\n",
        "pytest passed 0 tests, fewer than the 1 it ran before the answers",
    ),
    "turns the failing run's exit code to 0": (
        "import atexit\nimport os\n\natexit.register(lambda: os._exit(0))\n\n" + CALC_BUGGY,
        "pytest reports 1 failed",
    ),
}


@pytest.fixture
def calc(project: Project, sandbox_pytest: str) -> Project:
    return pytest_calc(project, sandbox_pytest)


def record(result) -> dict:
    return json.loads(result.stdout)


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_code_that_fakes_a_passing_exit_buys_no_pass(calc: Project, api: FakeAPI, cli, how: str) -> None:
    cheat, reason = CHEATS[how]
    api.reply(f"^^^calc.py\n{cheat}^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr  # the fix, not the cheat
    assert "no pass: build.sh exits 0, but the test runners' own counts say no: " + reason in result.stderr
    repair = api.requests[1].prompt_text
    assert "[code-commit: no pass: build.sh exited 0, but " + reason in repair
    counts = record(result)["test_counts"]
    assert counts["passed"] is True
    assert counts["baseline"] == [
        {"runner": "pytest", "passed": 0, "failed": 1, "skipped": 0, "unit": "test", "summaries": 1}
    ]
    assert counts["final"] == [
        {"runner": "pytest", "passed": 1, "failed": 0, "skipped": 0, "unit": "test", "summaries": 1}
    ]
    assert "before the answers: 0 passed, 1 failed (pytest); this build: 1 passed (pytest)" in result.stderr


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_a_model_that_only_cheats_never_passes(calc: Project, api: FakeAPI, cli, how: str) -> None:
    for _ in range(4):
        api.reply(f"^^^calc.py\n{CHEATS[how][0]}^^^end\n")
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == EXIT.BUILD_FAILS, result.stderr
    document = record(result)
    assert document["last_build"]["passed"] is True, "build.sh exited 0 every time"
    assert document["test_counts"]["passed"] is False and CHEATS[how][1] in document["error"]


def test_the_baseline_is_taken_once_for_a_tree_and_reused(calc: Project, api: FakeAPI, cli) -> None:
    checked = cli("--sandbox", "require", "check")
    assert checked.exit_code == EXIT.BUILD_FAILS
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    run = calc.run_dirs()[-1]
    assert not (run / "00-build.txt").exists(), "the check's build of the same tree was the baseline"
    assert (
        "the baseline, from " in result.stderr
        and "(the same tree's build): 0 passed, 1 failed (pytest)" in result.stderr
    )


def test_a_run_with_no_baseline_builds_first_and_the_next_run_reuses_it(calc: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^notes.txt\nnot yet\n^^^end\n")
    api.reply("^^^notes.txt\nnot yet, again\n^^^end\n")
    calc.write("agent-config/config.toml", "max_repairs = 1\n")
    first = cli("--json", "--sandbox", "require")
    assert first.exit_code == EXIT.BUILD_FAILS, first.stderr
    assert (calc.run_dirs()[-1] / "00-build.txt").exists()
    (calc.root / "notes.txt").unlink()
    api.reply(FIX)

    second = cli("--json", "--sandbox", "require")

    assert second.exit_code == 0, second.stderr
    assert not (calc.run_dirs()[-1] / "00-build.txt").exists()


def test_a_changed_tree_takes_a_new_baseline(calc: Project, api: FakeAPI, cli) -> None:
    assert cli("--sandbox", "require", "check").exit_code == EXIT.BUILD_FAILS
    calc.write("tests/test_more.py", "def test_more():\n    assert True\n")
    calc.commit_all()
    api.reply(FIX)
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == 0, result.stderr
    assert (calc.run_dirs()[-1] / "00-build.txt").exists()
    assert record(result)["test_counts"]["baseline"][0]["passed"] == 1


def test_a_baseline_build_the_setup_keeps_from_running_costs_no_call(project: Project, api: FakeAPI, cli) -> None:
    project.build_script("no-such-test-runner --all\n")
    project.commit_all()
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == EXIT.BUILD_BLOCKED, result.stderr
    assert api.requests == [], "no paid call on a build no answer can fix"


def test_under_report_a_count_that_falls_short_is_named_and_the_pass_stands(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^calc.py\n{CHEATS['skips the tests that call it'][0]}^^^end\n")
    result = cli("--json", "--sandbox", "require", "--tests", "report")
    assert result.exit_code == 0, result.stderr
    assert "the test runners' counts fall short (tests = report lets it pass)" in result.stderr
    assert record(result)["test_counts"]["passed"] is False


# `make test` without -k: it stops at the first suite that fails, so the broken tree's build prints
# one runner's summary where its fix prints two.
SUITE = (
    "import sys\nsys.path.insert(0, '.')\nfrom calc import add\n\nok = add(2, 3) == 5\n"
    "print(f'PASSED: {{int(ok)}}\\nFAILED: {{int(not ok)}}')\nsys.exit(0 if ok else 1)\n"
)


@pytest.fixture
def suites(project: Project) -> Project:
    project.write(".gitignore", "/agent-config\n__pycache__/\n")
    project.write("calc.py", CALC_BUGGY)
    project.write("tests/check_a.py", SUITE.format())
    project.write("tests/check_b.py", SUITE.format())
    project.write(
        "Makefile", ".PHONY: test a b\ntest: a b\na:\n\tpython3 tests/check_a.py\nb:\n\tpython3 tests/check_b.py\n"
    )
    project.build_script("make --no-print-directory test\n")
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{CALC_BUGGY}")
    project.commit_all()
    return project


def test_a_fix_of_a_build_that_stopped_at_its_first_failing_suite_passes(suites: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    counts = record(result)["test_counts"]
    assert [(c["passed"], c["failed"], c["summaries"]) for c in counts["baseline"]] == [(0, 1, 1)]
    assert [(c["passed"], c["failed"], c["summaries"]) for c in counts["final"]] == [(2, 0, 2)]


def test_a_summary_the_code_prints_still_buys_no_pass_where_the_baseline_passed(
    calc: Project, api: FakeAPI, cli
) -> None:
    calc.write("calc.py", CALC_FIXED)
    calc.commit_all()
    forged = "import atexit\n\natexit.register(print, '===== 1 passed in 0.01s =====')\n"
    api.reply(f"^^^calc.py\n{forged}{CHEATS['skips the tests that call it'][0]}^^^end\n")
    calc.write("agent-config/config.toml", "max_repairs = 0\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_FAILS, result.stderr
    assert "pytest printed 2 summaries, where it printed 1 before the answers" in record(result)["error"]
