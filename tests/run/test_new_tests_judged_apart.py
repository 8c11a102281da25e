"""An answer may add test files (a query that asks for a regression test is common): under protect
they are kept, but the pass is judged without them, in the real sandbox. They are held aside while
the judged build runs (through the apply's journal, so a killed run loses none of them), then the
build runs again with them, for the record. So a new test module that patches the code under test
when pytest imports it buys no pass, and a real fix with a new test passes, its new test reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from code_commit.apply.aside import held_aside
from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project
from support.calc import CALC_FIXED, pytest_calc
from support.sandbox import require_bwrap

require_bwrap()

PATCH = "import calc\n\ncalc.add = lambda a, b: a + b\n"  # a "test" module: pytest imports it before any test runs
MORE = "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"


@pytest.fixture
def calc(project: Project, sandbox_pytest: str) -> Project:
    return pytest_calc(project, sandbox_pytest)


def record(result) -> dict:
    return json.loads(result.stdout)


def test_a_new_test_module_that_patches_the_code_under_test_buys_no_pass(calc: Project, api: FakeAPI, cli) -> None:
    for _ in range(4):
        api.reply(f"^^^tests/test_aa_patch.py\n{PATCH}^^^end\n")
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == EXIT.BUILD_FAILS, result.stderr
    document = record(result)
    assert document["new_tests"] == ["tests/test_aa_patch.py"] and document["new_tests_pass"] is None
    assert calc.read("tests/test_aa_patch.py") == PATCH, "kept: it is the model's new test, not lost"
    (run,) = calc.run_dirs()
    assert "1 failed" in (run / "01-build.txt").read_text(), "judged without the new module: add() still subtracts"
    assert (
        "held aside while the build runs (new test files, judged apart): tests/test_aa_patch.py"
        in (run / "run.log").read_text()
    )
    assert not list(run.glob("*-held-journal")), "every held file was put back and its journal removed"


def test_a_fix_with_a_new_test_passes_and_the_new_test_is_reported(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n^^^tests/test_more.py\n{MORE}^^^end\n")
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == 0, result.stderr
    document = record(result)
    assert document["new_tests"] == ["tests/test_more.py"] and document["new_tests_pass"] is True
    (run,) = calc.run_dirs()
    assert "1 passed" in (run / "01-build.txt").read_text()
    assert "2 passed" in (run / "01-new-tests-build.txt").read_text()
    assert "the new test files pass too" in result.stderr


def test_a_new_test_that_fails_is_reported_and_the_pass_stands(calc: Project, api: FakeAPI, cli) -> None:
    failing = MORE.replace("== 0", "== 1")
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n^^^tests/test_more.py\n{failing}^^^end\n")
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == 0, result.stderr
    assert record(result)["new_tests_pass"] is False and "the new test files fail" in result.stderr


def test_new_tests_that_change_the_code_after_the_pass_void_it(calc: Project, api: FakeAPI, cli) -> None:
    """The judged build passes; the new tests, run after it, put the bug back: no pass stands on that."""
    sabotage = "import pathlib\n\npathlib.Path('calc.py').write_text('def add(a, b):\\n    return a - b\\n')\n"
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n^^^tests/test_zz.py\n{sabotage}^^^end\n")
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    assert "calc.py (changed): changed by the build with the new test files" in record(result)["error"]


def test_a_killed_run_loses_no_held_test(calc: Project, cli) -> None:
    """code-commit dies while the new tests are held aside: the next command puts them back."""
    calc.write("tests/test_new.py", MORE)
    run = calc.root / "agent-config" / "logs" / "20261128-000000-000000"
    run.mkdir(parents=True)
    child = os.fork()
    if child == 0:  # the run, killed in the middle of its build
        try:
            with held_aside(calc.root, run / "01-held-journal", ["tests/test_new.py"]):
                os._exit(0 if not (calc.root / "tests/test_new.py").exists() else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and not (calc.root / "tests/test_new.py").exists()

    result = cli("recover")

    assert result.exit_code == 0, result.stdout + result.stderr
    assert calc.read("tests/test_new.py") == MORE
    assert "restored tests/test_new.py" in result.stdout + result.stderr


def test_a_file_the_build_put_in_a_held_tests_place_is_left_and_the_held_one_kept(
    calc: Project, tmp_path: Path
) -> None:
    calc.write("tests/test_new.py", MORE)
    journal = tmp_path / "01-held-journal"
    with held_aside(calc.root, journal, ["tests/test_new.py"]) as aside:
        calc.write("tests/test_new.py", "the build's own\n")
    assert calc.read("tests/test_new.py") == "the build's own\n"
    (conflict,) = aside.conflicts
    assert "tests/test_new.py was changed" in conflict and str(journal) in conflict
    assert MORE in [p.read_text() for p in journal.iterdir() if p.name.startswith("orig-")]
