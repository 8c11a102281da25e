"""The tests setting through `code-commit` and `code-commit apply`: an answer that deletes, skips or
hollows out the failing test is refused under protect (the default) and the model is told to fix
the code, let through and named under report, unread under free; adding a test is no weakening."""

from __future__ import annotations

import json

import pytest

from code_commit.git.ignore import GitUnanswered
from code_commit.guard.weakening import TestPaths

from fakeapi import FakeAPI
from support import CALC_BUGGY, CALC_FIXED, CALC_TEST, Project, git

FIX = f"^^^calc.py\n{CALC_FIXED}^^^end\n"

WEAKENINGS = {
    "deleted": "^^^tests/test_calc.py\n^^^delete\n",
    "skipped": "^^^tests/test_calc.py\n^^^search\ndef test_add():\n^^^replace\n"
    "import pytest\n\n\n@pytest.mark.skip\ndef test_add():\n^^^end\n",
    "checks_removed": "^^^tests/test_calc.py\n^^^search\n    assert add(2, 3) == 5\n^^^replace\n"
    "    add(2, 3)\n^^^end\n",
    "check_weakened": "^^^tests/test_calc.py\n^^^search\n    assert add(2, 3) == 5\n^^^replace\n"
    "    assert add(2, 3) == -1\n^^^end\n",
    "hook": "^^^tests/conftest.py\nimport pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
    "^^^end\n",
}


@pytest.fixture
def calc(project: Project) -> Project:
    """A project whose build runs its tests, and fails: add() subtracts. With the test gone it passes."""
    project.write("calc.py", CALC_BUGGY)
    project.write("tests/test_calc.py", CALC_TEST)
    project.build_script('set -e\nfor f in tests/test_*.py; do [ -e "$f" ] || continue; python3 "$f"; done\n')
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{project.read('calc.py')}")
    project.commit_all()
    return project


def user_text(request) -> str:
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def record(result) -> dict:
    return json.loads(result.stdout)


@pytest.mark.parametrize("how", sorted(WEAKENINGS))
def test_weakening_the_failing_test_never_passes_under_the_default(calc: Project, api: FakeAPI, cli, how: str) -> None:
    for _ in range(4):
        api.reply(WEAKENINGS[how])
    result = cli("--json")
    assert result.exit_code == 1, result.stderr
    assert record(result)["outcome"] == "refused"
    assert calc.read("tests/test_calc.py") == CALC_TEST and not (calc.root / "tests/conftest.py").exists()
    assert git(calc.root, "status", "--porcelain") == ""
    weakened = record(result)["tests_weakened"]
    assert {w["what"] for w in weakened} == {how} and {w["allowed"] for w in weakened} == {False}
    assert [w["attempt"] for w in weakened] == [1, 2, 3, 4] and {w["by"] for w in weakened} == {"answer"}


def test_the_model_is_told_to_fix_the_code_and_then_the_build_passes(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["skipped"])
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert calc.read("calc.py") == CALC_FIXED and calc.read("tests/test_calc.py") == CALC_TEST
    repair = user_text(api.requests[1])
    assert "--- ANSWER REFUSED ---" in repair
    assert "tests/test_calc.py: test_add: added a skip, xfail or ignore marker (pytest.mark.skip)" in repair
    assert "fix the code, not the test" in repair and "--tests report" in repair
    assert "answer refused" in result.stderr and "--tests report" in result.stderr
    (run,) = calc.run_dirs()
    assert "fix the code, not the test" in (run / "01-refused.txt").read_text()
    assert "call 1: refused: it weakens the tests (1 finding)" in (run / "run.log").read_text()
    (weakened,) = record(result)["tests_weakened"]
    assert weakened == {
        "path": "tests/test_calc.py",
        "what": "skipped",
        "where": "test_add",
        "detail": "pytest.mark.skip",
        "by": "answer",
        "attempt": 1,
        "allowed": False,
    }


def test_under_report_the_weakening_is_applied_and_named_everywhere(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["deleted"])
    result = cli("--json", "--tests", "report")
    assert result.exit_code == 0, result.stderr
    assert not (calc.root / "tests/test_calc.py").exists()
    assert "the answer weakens the tests; tests = report lets it through:\n" in result.stderr
    assert "- tests/test_calc.py: deleted a test file" in result.stderr
    (run,) = calc.run_dirs()
    assert (
        "call 1: weakens the tests (tests = report): tests/test_calc.py: deleted a test file"
        in (run / "run.log").read_text()
    )
    (weakened,) = record(result)["tests_weakened"]
    assert (weakened["path"], weakened["what"], weakened["allowed"]) == ("tests/test_calc.py", "deleted", True)


def test_under_free_nothing_is_checked(calc: Project, api: FakeAPI, cli) -> None:
    calc.write("agent-config/config.toml", 'tests = "free"\n')
    api.reply(WEAKENINGS["deleted"])
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_weakened"] == [] and "weakens" not in result.stderr


def test_adding_a_test_and_fixing_the_code_passes(calc: Project, api: FakeAPI, cli) -> None:
    more = CALC_TEST.replace("def test_add():", "def test_add_zero():\n    assert add(0, 0) == 0\n\n\ndef test_add():")
    api.reply(FIX + f"^^^tests/test_calc.py\n{more}^^^end\n^^^tests/test_more.py\n{CALC_TEST}^^^end\n")
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_weakened"] == [] and calc.read("tests/test_calc.py") == more


def test_a_dry_run_says_the_answer_would_be_refused(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["checks_removed"])
    result = cli("--json", "--dry-run")
    assert result.exit_code == 1 and record(result)["outcome"] == "refused"
    assert "removed assertions" in record(result)["error"] and "fix the code, not the test" in result.stderr


def test_apply_refuses_a_weakening_answer_unless_told_to_report_it(calc: Project, cli, tmp_path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(WEAKENINGS["deleted"] + FIX)
    checked = cli("apply", "--check", "--json", str(answer))
    assert checked.exit_code == 7
    (problem,) = record(checked)["problems"]
    assert problem["kind"] == "tests_weakened" and problem["path"] == "tests/test_calc.py"
    assert "--tests report" in problem["message"]
    refused = cli("apply", str(answer))
    assert refused.exit_code == 7 and "deleted a test file" in refused.stdout
    assert git(calc.root, "status", "--porcelain") == ""
    applied = cli("--tests", "report", "apply", "--json", "--build", str(answer))
    assert applied.exit_code == 0, applied.stderr
    assert not (calc.root / "tests/test_calc.py").exists() and calc.read("calc.py") == CALC_FIXED
    (weakened,) = record(applied)["tests_weakened"]
    assert (weakened["what"], weakened["allowed"], weakened["attempt"]) == ("deleted", True, 1)
    assert "weakens the tests" in applied.stderr


def test_when_git_cannot_say_which_files_are_tests_every_file_is_one(
    calc: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unanswered(self, paths):
        raise GitUnanswered("git check-ignore could not run: no such file")

    monkeypatch.setattr(TestPaths, "check", unanswered)
    calc.write("notes.txt", "a note\n")
    calc.commit_all()
    api.reply("^^^notes.txt\n^^^delete\n")  # no test at all, but git cannot say so
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert "git could not say which files are tests (git check-ignore could not run" in result.stderr
    assert [w["path"] for w in record(result)["tests_weakened"]] == ["notes.txt"]
    assert (calc.root / "notes.txt").exists()
