"""`code-commit check`: build.sh run exactly as a run runs it, with no model call and no key; where it
ran, its output, the verdict, the tests it ran, and what kept it from running, with exit codes from
the exit table."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from support import Project
from support.record import valid_record

if shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")):
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

PASSING = "echo 'Ran 3 tests in 0.001s'\necho OK\n"


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """check needs no key and calls no model: nothing is configured for one."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: a call would fail


def test_a_passing_build_says_where_it_ran_its_output_and_the_tests_it_ran(project: Project, cli, no_key) -> None:
    project.build_script(PASSING)
    project.commit_all()

    result = cli("--sandbox", "require", "check")

    assert result.exit_code == EXIT.OK, result.output
    report = result.stdout
    assert (
        "  sandbox     bubblewrap (" in report
        and "  network     off (sandbox_network names the hosts a build may reach)" in report
    )
    assert f"  writable    the project, {os.path.realpath(project.root)}, but " in report
    assert ".git, .gitignore, build.sh" in report and "(the project's toolchain cache)" in report
    assert "  hidden      the host's /tmp (the build gets its own, empty), " in report
    assert "agent-config/" in report.split("  hidden", 1)[1].split("\n", 1)[0]
    assert "UV_CACHE_DIR=" in report and "npm_config_fetch_retries=0" in report
    assert "--- build.sh's output ---\nRan 3 tests in 0.001s\nOK\n" in report
    assert report.rstrip().endswith("s): it ran 3 tests (unittest)")
    (run,) = project.run_dirs()
    assert (run / "01-build.txt").is_file() and valid_record((run / "summary.json").read_text())["command"] == "check"


def test_a_build_that_fails_on_its_own_terms_exits_1_and_says_a_run_would_repair_it(
    project: Project, cli, no_key
) -> None:
    project.build_script("echo 'FAILED tests/test_x.py::test_one - assert 1 == 2'\nexit 1\n")
    project.commit_all()

    result = cli("--sandbox", "require", "check", "--json")

    assert result.exit_code == EXIT.BUILD_FAILS
    record = json.loads(result.stdout)
    assert record["outcome"] == "build_failed" and record["diagnosis"] is None and record["ran_tests"] is None
    assert record["error"].startswith("the build fails: build.sh exited with code 1 after ")
    assert record["error"].endswith("first error: FAILED tests/test_x.py::test_one - assert 1 == 2")
    text = cli("--sandbox", "require", "check")
    assert "build fails: build.sh exited with code 1" in text.stdout and "a run would send its output" in text.stdout


def test_a_build_the_sandbox_keeps_from_running_exits_11_with_the_cause_and_the_fix(
    project: Project, cli, no_key, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "outside" / "venv"  # a virtualenv kept under the host's /tmp
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    project.build_script(f"set -e\n{venv}/bin/python -c 'print(1)'\n")
    project.commit_all()

    result = cli("--sandbox", "require", "check")

    assert result.exit_code == EXIT.BUILD_BLOCKED
    fix = f'sandbox_readable = ["{venv}"] in agent-config/config.toml'
    assert f"kept from running by the sandbox or the setup: the build could not find {venv}/bin/python" in result.stdout
    assert fix in result.stdout and f"read from the build's output: ./build.sh: 3: {venv}/bin/python: not found" in (
        result.stdout
    )
    assert fix in result.stderr, "the error line, as every command's"
    record = json.loads(cli("--sandbox", "require", "check", "--json").stdout)
    assert record["outcome"] == "build_blocked" and record["exit_code"] == 11 and fix in record["error"]
    passing = cli("--sandbox", "require", "--sandbox-readable", str(venv), "check")
    assert passing.exit_code == EXIT.OK, passing.output


def test_a_build_that_changes_a_protected_file_unsandboxed_exits_10(project: Project, cli, no_key) -> None:
    project.build_script("echo '!/agent-config' >> .gitignore\n")
    project.commit_all()

    result = cli("--sandbox", "off", "check", "--json")

    assert result.exit_code == EXIT.TAMPERED
    assert json.loads(result.stdout)["tampered"] == [".gitignore (changed)"]


def test_without_build_sh_check_is_a_setup_error(project: Project, cli, no_key) -> None:
    (project.root / "build.sh").unlink()

    result = cli("check", "--json")

    assert result.exit_code == EXIT.SETUP
    assert "build.sh is missing: code-commit check runs ./build.sh" in json.loads(result.stdout)["error"]
    assert project.run_dirs() == []


def test_a_passing_build_whose_output_shows_no_tests_says_so(project: Project, cli, no_key) -> None:
    project.build_script("echo built\n")
    project.commit_all()

    result = cli("--sandbox", "require", "check")

    assert result.exit_code == EXIT.OK
    assert "but its output has no test runner's summary" in result.stdout and "check that it runs your tests" in (
        result.stdout
    )


def test_init_ends_with_the_check_or_says_to_run_it(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project(tmp_path / "app")
    project.write("Makefile", "test:\n\t@echo 'PASSED: 2'\n\t@echo 'FAILED: 0'\n")
    monkeypatch.chdir(project.root)

    result = cli("init")

    assert result.exit_code == 0, result.output
    assert "check: build passes (build.sh exited with code 0 after " in result.stderr
    assert "it ran 2 tests (make test)" in result.stderr
    assert "code-commit check   (" not in result.stderr, "nothing left to check"
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    (tmp_path / "other" / "Makefile").write_text("test:\n\t@true\n")
    skipped = cli("init", "--no-check")
    assert "check:" not in skipped.stderr and "code-commit check   (runs ./build.sh as a run will" in skipped.stderr
