"""A build the sandbox keeps from running stops the run before its next paid call: exactly one model
call, exit 11, and the cause, the command and the fix on the console, in run.log and in the record.
An ordinary failing build is still repaired. Through the real loop, the real SDK, the fake service
and bubblewrap."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project

if shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")):
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PYTHON = os.path.realpath(sys.executable)  # not the venv's link: a venv under /tmp is hidden from builds


@pytest.fixture
def tool_under_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tool the user keeps in a folder under the host's /tmp, on their PATH: builds cannot see it."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "lint-all").write_text("#!/bin/sh\necho linted\n")
    (tools / "lint-all").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    return tools


def test_a_build_the_sandbox_keeps_from_running_ends_the_run_after_one_call(
    project: Project, api: FakeAPI, cli, tool_under_tmp: Path
) -> None:
    """Before: four paid calls, the console saying only "build.sh exited with code 127", `error` null."""
    project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")
    project.commit_all()
    for _ in range(4):
        api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_BLOCKED == 11, result.stderr
    assert len(api.requests) == 1, "no repair was asked for"
    record = json.loads(result.stdout)
    fix = f'sandbox_readable = ["{tool_under_tmp}"] in agent-config/config.toml'
    assert record["outcome"] == "build_blocked" and record["attempts"] == 1
    assert record["error"].startswith(f"the build could not find lint-all: it is at {tool_under_tmp}/lint-all")
    assert fix in record["error"] and record["error"] in result.stderr
    assert record["diagnosis"] == {
        "kind": "hidden",
        "subject": f"{tool_under_tmp}/lint-all",
        "cause": record["error"].split(". Fix: ")[0],
        "fix": record["error"].split(". Fix: ")[1],
        "evidence": "./build.sh: 3: lint-all: not found",
    }
    run_log = (Path(record["log_dir"]) / "run.log").read_text()
    assert f"call 1: kept from running: {record['error']}" in run_log
    assert "read from this line of its output: ./build.sh: 3: lint-all: not found" in run_log
    assert json.loads((Path(record["log_dir"]) / "summary.json").read_text()) == record


def test_with_the_setting_it_names_the_same_build_runs_and_is_repaired(
    project: Project, api: FakeAPI, cli, tool_under_tmp: Path
) -> None:
    project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")
    project.write("agent-config/config.toml", f'sandbox_readable = ["{tool_under_tmp}"]\n')
    project.commit_all()
    api.reply("^^^app.txt\nnot the fix\n^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.OK, result.stderr
    assert len(api.requests) == 2 and json.loads(result.stdout)["diagnosis"] is None


def test_an_ordinary_failing_test_is_still_repaired(project: Project, api: FakeAPI, cli) -> None:
    """A real unittest failure, which the diagnosis must leave to the model."""
    project.write(
        "test_app.py",
        "import pathlib, unittest\n\n\nclass AppTest(unittest.TestCase):\n    def test_fixed(self):\n"
        "        self.assertEqual(pathlib.Path('fixed.txt').read_text(), 'fixed\\n')\n",
    )
    project.build_script(f"{PYTHON} -B -m unittest -v test_app\n")
    project.commit_all()
    api.reply("^^^fixed.txt\nbroken\n^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.OK, result.stderr
    assert len(api.requests) == 2
    assert "AssertionError: 'broken\\n' != 'fixed\\n'" in api.requests[1].prompt_text, "the repair saw the failure"


def test_apply_build_kept_from_running_exits_11_with_the_fix(project: Project, cli, tool_under_tmp: Path) -> None:
    project.build_script("set -e\nlint-all\n")
    project.commit_all()

    result = cli("--sandbox", "require", "apply", "--build", "--json", "-", input=FIX)

    assert result.exit_code == EXIT.BUILD_BLOCKED, result.output
    record = json.loads(result.stdout)
    assert record["applied"] and record["outcome"] == "build_blocked"
    assert f'sandbox_readable = ["{tool_under_tmp}"]' in record["error"] and record["diagnosis"]["kind"] == "hidden"
