"""The build side of the tests rule, through `code-commit`, `code-commit apply --build` and `code-commit
check`, with the real sandbox: the model's code runs in the build. Under protect the sandbox binds the
existing tests and the runners' files read-only, so a build that tries to rewrite or delete them
fails; one that gets round it (no sandbox), or that creates a runner's configuration or test code a
runner collects (a conftest.py, a pytest.toml, a test module that patches the code under test), is no
pass: the run stops with exit 12 before another paid call. Under report it goes on, named
everywhere; under free nothing is read. New test data (a snapshot) is no change to the tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project
from support.calc import CALC_BUGGY, CALC_FIXED, CALC_TEST
from support.record import valid_record
from support.sandbox import require_bwrap

require_bwrap()

PYTHON = os.path.realpath(sys.executable)  # not a venv's link: a venv under /tmp is hidden from builds
RUN_TESTS = f'for f in tests/test_*.py; do [ -e "$f" ] || continue; "{PYTHON}" "$f" || status=1; done\n'
# What the model's code does when the build runs it (`python calc.py`), each an attack the audit saw:
# (the code, the path, what the record says of it).
ATTACKS = {
    "rewrites the assertion": (
        "text = open('tests/test_calc.py').read()\n"
        "open('tests/test_calc.py', 'w').write(text.replace('== 5', '== -1'))\n",
        "tests/test_calc.py",
        "a test file",
    ),
    "deletes the test file": ("os.remove('tests/test_calc.py')\n", "tests/test_calc.py", "a test file"),
    "edits pytest.ini": (
        "open('pytest.ini', 'a').write('addopts = --setup-plan\\n')\n",
        "pytest.ini",
        "pytest configuration (the whole file)",
    ),
}
# What a build may create, or write into a shared file, where the sandbox does not stop it: no pass.
CREATIONS = {
    "adds a conftest.py": (
        "open('tests/conftest.py', 'w').write('import pytest\\n\\n\\n@pytest.hookimpl(hookwrapper=True)\\n"
        "def pytest_runtest_makereport(item, call):\\n    outcome = yield\\n"
        '    outcome.get_result().outcome = "passed"\\n\')\n',
        "tests/conftest.py",
    ),
    "writes a pytest.toml": (
        "open('pytest.toml', 'w').write('[pytest]\\naddopts = [\"--setup-plan\"]\\n')\n",
        "pytest.toml",
    ),
    "writes addopts into pyproject.toml": (
        "open('pyproject.toml', 'a').write('[tool.pytest.ini_options]\\naddopts = \"--setup-plan\"\\n')\n",
        "pyproject.toml",
    ),
    "adds a test module that patches the code": (
        "open('tests/test_zz.py', 'w').write('import calc\\n\\ncalc.add = lambda a, b: a + b\\n')\n",
        "tests/test_zz.py",
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
    project.write("pyproject.toml", '[project]\nname = "calc"\nversion = "1.0"\n')
    project.write(".gitignore", "/agent-config\n__pycache__/\n")
    project.build_script(f'status=0\n"{PYTHON}" calc.py\n{RUN_TESTS}exit $status\n')
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{CALC_BUGGY}")
    project.commit_all()
    return project


def record(result) -> dict:
    return json.loads(result.stdout)


@pytest.mark.parametrize("how", sorted(ATTACKS))
def test_the_sandbox_keeps_the_tests_and_the_runners_files_read_only(
    calc: Project, api: FakeAPI, cli, how: str
) -> None:
    """The write fails in the build, which fails: the model is told, and a code fix then passes."""
    attack, path, _ = ATTACKS[how]
    before = calc.read(path)
    api.reply(answer(attack))
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    document = record(result)
    assert calc.read(path) == before and document["tests_changed"] == []
    assert "Read-only file system" in api.requests[1].prompt_text or "Device or resource busy" in (
        api.requests[1].prompt_text
    )


@pytest.mark.parametrize("how", sorted(ATTACKS))
def test_without_the_sandbox_a_build_that_changes_the_tests_is_no_pass_and_the_model_is_not_asked_again(
    calc: Project, api: FakeAPI, cli, how: str
) -> None:
    attack, path, what = ATTACKS[how]
    api.reply(answer(attack))
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n")  # never asked for

    result = cli("--json", "--sandbox", "off")

    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    assert len(api.requests) == 1, "a model whose code changes the tests is not asked again"
    document = record(result)
    assert document["outcome"] == "build_changed_tests" and document["exit_code"] == EXIT.BUILD_CHANGED_TESTS
    changes = {(c["path"], c["what"], c["by"], c["call"], c["allowed"]) for c in document["tests_changed"]}
    assert changes == {(path, what, "build", 1, False)}
    assert "the build changed the tests (tests = protect), so it does not count as a pass" in result.stderr
    assert path in document["error"] and "--tests report" in document["error"]
    (run,) = calc.run_dirs()
    assert f"call 1: the build changed the tests: {path}" in (run / "run.log").read_text()
    assert f"{path} (" in " ".join(document["build_changed"])  # left as the build left it, and said so


@pytest.mark.parametrize("how", sorted(CREATIONS))
def test_a_build_that_creates_runner_configuration_or_test_code_is_no_pass(
    calc: Project, api: FakeAPI, cli, how: str
) -> None:
    attack, path = CREATIONS[how]
    api.reply(answer(attack))

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    assert len(api.requests) == 1
    ((changed, change),) = {(c["path"], c["change"]) for c in record(result)["tests_changed"]}
    assert (changed, change) == (path, "changed" if path == "pyproject.toml" else "created")


@pytest.mark.parametrize("revert", [False, True], ids=["left", "reverted"])
def test_the_message_says_who_puts_the_tests_back(calc: Project, api: FakeAPI, cli, revert: bool) -> None:
    """With --revert-on-failure the run puts the test back itself, and says so; without it, the user
    is told how to."""
    api.reply(answer(ATTACKS["rewrites the assertion"][0]))
    result = cli("--json", "--sandbox", "off", *(["--revert-on-failure"] if revert else []))
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

    result = cli("--json", "--sandbox", "off")

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
    (changed,) = record(result)["tests_changed"]
    assert (changed["path"], changed["by"], changed["call"], changed["allowed"]) == (
        "tests/test_calc.py",
        "build",
        1,
        True,
    )
    assert "the build changed the tests; tests = report lets it through:\n" in result.stderr
    assert "- tests/test_calc.py: changed a test file" in result.stderr
    assert len(api.requests) == 2 and record(result)["last_build"]["passed"] is True
    (run,) = calc.run_dirs()
    assert "call 1: the build changed the tests (tests = report): tests/test_calc.py" in (run / "run.log").read_text()


def test_under_free_nothing_is_read_but_the_change_is_still_reported(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(answer(ATTACKS["deletes the test file"][0]))
    result = cli("--json", "--sandbox", "require", "--tests", "free")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_changed"] == [] and "changed the tests" not in result.stderr
    assert record(result)["build_changed"] == ["tests/test_calc.py (deleted)"]


def test_new_test_data_and_tool_output_in_test_folders_are_no_change_to_the_tests(
    calc: Project, api: FakeAPI, cli
) -> None:
    """A snapshot, CMake's files under a build tree's tests/ (its `compiler_depend.ts`, `*.o.d`), a
    report: data, not test code a runner collects by its name."""
    made = (
        "mkdir -p tests/__snapshots__ build/tests/CMakeFiles/t.dir && echo 'exports[`add`] = `5`;' > "
        "tests/__snapshots__/calc.snap && echo '# timestamp' > build/tests/CMakeFiles/t.dir/compiler_depend.ts && "
        "echo 'x.o: x.c' > build/tests/CMakeFiles/t.dir/x.c.o.d && echo '<testsuite/>' > tests/report.xml\n"
    )
    calc.build_script(f"status=0\n{made}{RUN_TESTS}exit $status\n")
    calc.commit_all()
    api.reply(f"^^^calc.py\n{CALC_FIXED}^^^end\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_changed"] == []
    assert len(record(result)["build_changed"]) == 4


def test_apply_build_is_no_pass_when_the_build_changes_the_tests(calc: Project, cli, tmp_path: Path) -> None:
    saved = tmp_path / "answer.txt"
    saved.write_text(answer(CREATIONS["adds a conftest.py"][0]))
    result = cli("--sandbox", "require", "apply", "--build", "--json", str(saved))
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stderr
    document = record(result)
    assert document["applied"] is True and document["outcome"] == "build_changed_tests"
    assert {(c["path"], c["by"], c["call"]) for c in document["tests_changed"]} == {("tests/conftest.py", "build", 1)}


def test_check_says_what_the_build_did_to_the_tests(calc: Project, cli) -> None:
    """A build.sh that makes a conftest.py as it runs."""
    calc.build_script(f"printf 'import pytest\\n' > tests/conftest.py\n{RUN_TESTS}")
    calc.commit_all()

    protected = cli("--sandbox", "require", "check")

    assert protected.exit_code == EXIT.BUILD_CHANGED_TESTS, protected.stderr
    assert "no pass: the build changed the tests (tests = protect)" in protected.stdout
    assert "tests/conftest.py: created pytest configuration (the whole file" in protected.stdout
    (calc.root / "tests/conftest.py").unlink()

    reported = cli("--sandbox", "require", "--tests", "report", "check")

    assert reported.exit_code == 0, reported.stderr  # build.sh ignores the test's status
    assert (
        "the build changed the tests (tests = report lets it through; a run would go on):\n"
        "  - tests/conftest.py: created pytest configuration (the whole file" in reported.stdout
    )
    summary = valid_record((calc.run_dirs()[-1] / "summary.json").read_text())
    assert [(c["path"], c["by"], c["allowed"]) for c in summary["tests_changed"]] == [
        ("tests/conftest.py", "build", True)
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
