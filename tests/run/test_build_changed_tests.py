"""The build side of the test guard, through `code-commit`, `code-commit apply --build` and
`code-commit check`, with the real sandbox: the model's code runs in the build, and a build that
rewrites, deletes or weakens a test, or plants a conftest.py or a pytest.ini, is no pass. Under
protect (the default) the run stops there with exit 12, before another paid call; under report it
goes on, named everywhere; under free nothing is read. New test data (a snapshot) and a formatter
that only lays a test out anew are no weakening."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import CALC_BUGGY, CALC_FIXED, CALC_TEST, Project, git

if shutil.which("bwrap") is None:
    if os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"):
        pytest.fail("bubblewrap (bwrap) is missing in CI: .ci/run installs it; these tests must run", pytrace=False)
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

PYTHON = os.path.realpath(sys.executable)  # not a venv's link: a venv under /tmp is hidden from builds
RUN_TESTS = f'for f in tests/test_*.py; do [ -e "$f" ] || continue; "{PYTHON}" "$f" || status=1; done\n'
# What the model's code does when the build runs it (`python calc.py`), each an attack the audit saw.
ATTACKS = {
    "rewrites the assertion": (
        "text = open('tests/test_calc.py').read()\n"
        "open('tests/test_calc.py', 'w').write(text.replace('== 5', '== -1'))\n",
        "tests/test_calc.py",
        "check_weakened",
    ),
    "deletes the test file": ("os.remove('tests/test_calc.py')\n", "tests/test_calc.py", "deleted"),
    "adds a conftest.py": (
        "open('tests/conftest.py', 'w').write('import pytest\\n\\n\\n@pytest.hookimpl(hookwrapper=True)\\n"
        "def pytest_runtest_makereport(item, call):\\n    outcome = yield\\n"
        '    outcome.get_result().outcome = "passed"\\n\')\n',
        "tests/conftest.py",
        "hook",
    ),
    "edits pytest.ini": (
        "open('pytest.ini', 'a').write('addopts = --deselect tests/test_calc.py::test_add\\n')\n",
        "pytest.ini",
        "narrowed",
    ),
}


def calc_with(attack: str) -> str:
    """calc.py, still buggy, whose main (which the build runs) does `attack`."""
    return f'{CALC_BUGGY}\n\nif __name__ == "__main__":\n    import os\n\n' + "".join(
        f"    {line}\n" for line in attack.splitlines()
    )


def answer(attack: str) -> str:
    return f"^^^calc.py\n{calc_with(attack)}^^^end\n"


@pytest.fixture
def calc(project: Project) -> Project:
    """A project whose build runs the model's code, then its tests: add() subtracts, so it fails."""
    project.write("calc.py", CALC_BUGGY)
    project.write("tests/test_calc.py", CALC_TEST)
    project.write("pytest.ini", "[pytest]\ntestpaths = tests\n")
    project.write(".gitignore", "/agent-config\n__pycache__/\n")
    project.build_script(f'status=0\n"{PYTHON}" calc.py\n{RUN_TESTS}exit $status\n')
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{CALC_BUGGY}")
    project.commit_all()
    return project


def record(result) -> dict:
    return json.loads(result.stdout)


@pytest.mark.parametrize("how", sorted(ATTACKS))
def test_a_build_that_changes_the_tests_is_no_pass_and_the_model_is_not_asked_again(
    calc: Project, api: FakeAPI, cli, how: str
) -> None:
    attack, path, what = ATTACKS[how]
    api.reply(answer(attack))
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n")  # never asked for

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    assert len(api.requests) == 1, "a model whose code rewrites the tests is not asked again"
    document = record(result)
    assert document["outcome"] == "build_changed_tests" and document["exit_code"] == EXIT.BUILD_CHANGED_TESTS
    weakened = document["tests_weakened"]
    assert {(w["path"], w["what"], w["by"], w["attempt"], w["allowed"]) for w in weakened} == {
        (path, what, "build", 1, False)
    }
    if how in ("rewrites the assertion", "deletes the test file"):
        assert document["last_build"]["passed"] is True, "the build passed for it, and still it is no pass"
    assert "the build changed the tests (tests = protect), so it does not count as a pass" in result.stderr
    assert path in document["error"] and "--tests report" in document["error"]
    (run,) = calc.run_dirs()
    assert f"call 1: the build changed the tests: {path}" in (run / "run.log").read_text()
    assert f"{path} (" in " ".join(document["build_changed"])  # left as the build left it, and said so


@pytest.mark.parametrize("revert", [False, True], ids=["left", "reverted"])
def test_the_message_says_who_puts_the_tests_back(calc: Project, api: FakeAPI, cli, revert: bool) -> None:
    """With --revert-on-failure the run puts the test back itself, and says so; without it, the user
    is told how to."""
    api.reply(answer(ATTACKS["rewrites the assertion"][0]))
    result = cli("--json", *(["--revert-on-failure"] if revert else []))
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    error = record(result)["error"]
    assert ("the run puts back the files its builds changed" in error) is revert
    assert ("put them back (git checkout -- <file>" in error) is not revert
    assert (calc.read("tests/test_calc.py") == CALC_TEST) is revert


def test_a_test_rewritten_for_the_next_build_stops_the_run_before_that_build(calc: Project, api: FakeAPI, cli) -> None:
    """The model's code runs after the tests (a lint step): this build fails, the next would pass."""
    calc.build_script(f'status=0\n{RUN_TESTS}"{PYTHON}" calc.py\nexit $status\n')
    calc.commit_all()
    api.reply(answer(ATTACKS["rewrites the assertion"][0]))
    api.reply("^^^notes.txt\nthe build will pass now\n^^^end\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS and len(api.requests) == 1, result.stderr
    assert record(result)["last_build"]["passed"] is False
    assert "== -1" in calc.read("tests/test_calc.py"), "the files are left as the build left them"


def test_under_report_the_run_goes_on_and_names_what_the_build_did(calc: Project, api: FakeAPI, cli) -> None:
    calc.build_script(f'status=0\n{RUN_TESTS}"{PYTHON}" calc.py\nexit $status\n')
    calc.commit_all()
    api.reply(answer(ATTACKS["rewrites the assertion"][0]))
    api.reply("^^^notes.txt\nthe build will pass now\n^^^end\n")

    result = cli("--json", "--sandbox", "require", "--tests", "report")

    assert result.exit_code == 0, result.stderr  # what report allows: the record says how
    (weakened,) = record(result)["tests_weakened"]
    assert (weakened["path"], weakened["by"], weakened["attempt"], weakened["allowed"]) == (
        "tests/test_calc.py",
        "build",
        1,
        True,
    )
    assert "the build changed the tests; tests = report lets it through:\n" in result.stderr
    assert "- tests/test_calc.py: test_add: weakened an assertion" in result.stderr
    assert len(api.requests) == 2 and record(result)["last_build"]["passed"] is True
    (run,) = calc.run_dirs()
    assert "call 1: the build changed the tests (tests = report): tests/test_calc.py" in (run / "run.log").read_text()


def test_under_free_nothing_is_read_but_the_change_is_still_reported(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(answer(ATTACKS["deletes the test file"][0]))
    result = cli("--json", "--sandbox", "require", "--tests", "free")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_weakened"] == [] and "changed the tests" not in result.stderr
    assert record(result)["build_changed"] == ["tests/test_calc.py (deleted)"]


def test_a_new_snapshot_and_a_formatter_that_lays_a_test_out_anew_are_no_weakening(
    calc: Project, api: FakeAPI, cli
) -> None:
    formatter = "printf '\\n\\n# formatted\\n' >> tests/test_calc.py\n"  # a comment and blank lines: layout
    snapshot = "mkdir -p tests/__snapshots__ && echo 'exports[`add`] = `5`;' > tests/__snapshots__/calc.snap\n"
    calc.build_script(f"status=0\n{formatter}{snapshot}{RUN_TESTS}exit $status\n")
    calc.commit_all()
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_weakened"] == []
    assert record(result)["build_changed"] == [
        "tests/__snapshots__/calc.snap (created)",
        "tests/test_calc.py (changed)",
    ]


def test_a_new_test_module_that_patches_the_code_under_test_is_no_pass(calc: Project, api: FakeAPI, cli) -> None:
    """pytest imports every test module before it runs a test: a new one can replace the code under test."""
    patch = "open('tests/test_zz.py', 'w').write('import calc\\n\\ncalc.add = lambda a, b: a + b\\n')\n"
    api.reply(answer(patch))
    result = cli("--json", "--sandbox", "require")
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    ((path, what),) = {(w["path"], w["what"]) for w in record(result)["tests_weakened"]}
    assert (path, what) == ("tests/test_zz.py", "hook")


def test_apply_build_is_no_pass_when_the_build_changes_the_tests(calc: Project, cli, tmp_path: Path) -> None:
    saved = tmp_path / "answer.txt"
    saved.write_text(answer(ATTACKS["rewrites the assertion"][0]))
    result = cli("--sandbox", "require", "apply", "--build", "--json", str(saved))
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    document = record(result)
    assert document["applied"] is True and document["outcome"] == "build_changed_tests"
    assert {(w["path"], w["by"], w["attempt"]) for w in document["tests_weakened"]} == {
        ("tests/test_calc.py", "build", 1)
    }


def test_check_says_what_the_build_did_to_the_tests(calc: Project, cli) -> None:
    """A build.sh that updates expectations as it runs (here: before the test, which then passes)."""
    calc.build_script(f"sed -i 's/== 5/== -1/' tests/test_calc.py\n{RUN_TESTS}")
    calc.commit_all()

    protected = cli("--sandbox", "require", "check")

    assert protected.exit_code == EXIT.BUILD_CHANGED_TESTS, protected.stderr
    assert "no pass: the build changed the tests (tests = protect)" in protected.stdout
    assert "tests/test_calc.py: test_add: weakened an assertion" in protected.stdout
    git(calc.root, "checkout", "--", "tests/test_calc.py")

    reported = cli("--sandbox", "require", "--tests", "report", "check")

    assert reported.exit_code == 0, reported.stderr
    assert "build passes" in reported.stdout
    assert (
        "the build changed the tests (tests = report lets it through; a run would go on):\n"
        "  - tests/test_calc.py: test_add: weakened an assertion" in reported.stdout
    )
    summary = json.loads((calc.run_dirs()[-1] / "summary.json").read_text())
    assert [(w["path"], w["by"], w["allowed"]) for w in summary["tests_weakened"]] == [
        ("tests/test_calc.py", "build", True)
    ]


def test_a_tampered_gate_is_reported_even_when_judging_the_tests_fails(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a build did is judged however it ended, but a failure to judge (a disk error) never hides
    the ending: a build that rewrote build.sh is still exit 10, naming it."""
    from code_commit.run import orchestrator

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(orchestrator, "judge_build", broken)
    project.write("tests/test_app.py", "def test_app():\n    assert True\n")
    project.build_script("echo '# rewritten' >> build.sh\nprintf 'x\\n' >> tests/test_app.py\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")

    result = cli("--json", "--sandbox", "off")

    assert result.exit_code == 10, result.stderr
    record = json.loads(result.stdout)
    assert record["outcome"] == "tampered" and "build.sh (changed)" in record["tampered"]
    assert "tests/test_app.py (changed)" in record["build_changed"]
