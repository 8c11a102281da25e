"""The action's steps, end to end: action.yml's own steps run by the simulated runner against the
fake model service, in a committed project. A passing run and a failing one, their outputs, the
job summary, the action's exit status, and what must never show (the key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from simulated_runner import SANDBOX_STEP, UPLOAD_STEP, RunAction, bwrap_works

from code_commit.cli.github_action.summary import inline
from code_commit.schemas import SCHEMA_VERSION

from fakeapi import FakeAPI
from support import TEST_KEY, Project
from support.sandbox import require_bwrap

FIX = "The build wants fixed.txt.\n^^^fixed.txt\ndone\n^^^end\n"


def _without_key_env(monkeypatch) -> None:
    """The key comes only through the `api-key` input, as from a secret."""
    monkeypatch.delenv("ANTHROPIC_API_KEY")


def test_a_passing_run_sets_every_output_and_writes_the_summary(
    project: Project, api: FakeAPI, run: RunAction, monkeypatch
) -> None:
    require_bwrap()  # the action's default is sandbox: require
    _without_key_env(monkeypatch)
    api.reply(FIX)

    done = run({"query": "Make the build pass.", "api-key": TEST_KEY})

    assert done.exit_code == 0, done.log
    assert done.skipped() == ([] if bwrap_works() else [SANDBOX_STEP]) + [UPLOAD_STEP]
    if bwrap_works():
        assert "bubblewrap works here" in done.step(SANDBOX_STEP).stdout
    outputs = done.outputs
    assert outputs["outcome"] == "passed" and outputs["exit-code"] == "0"
    assert outputs["changed-files"] == "fixed.txt"
    record = json.loads(Path(outputs["record"]).read_text())
    assert record["outcome"] == "passed" and record["schema_version"] == SCHEMA_VERSION
    assert float(outputs["cost"]) == record["cost_usd"] > 0
    assert "bubblewrap" in record["sandbox"]
    assert project.read("agent-config/query.txt") == "Make the build pass.\n"
    assert "Make the build pass." in api.requests[0].prompt_text
    # What upload-artifact is given: the run folder, and a name of this job's.
    upload = done.step(UPLOAD_STEP).env
    assert upload["path"] == record["log_dir"] and Path(upload["path"]).is_dir()
    assert upload["name"].startswith("code-commit-repair-")
    summary = done.summary
    assert "## code-commit: passed (exit 0)" in summary
    assert "| model calls | 1 |" in summary
    assert "| tokens | " in summary and " in, " in summary
    assert "| cost | $" in summary
    assert "| fixed&#46;txt | +1 -0 (created) |" in summary
    assert f"on the runner: {inline(record['log_dir'], 300)} (run.log" in summary
    assert "What ended the run" not in summary
    assert "Problems the action found" not in summary
    # The key: masked at once, and nowhere else in the log, the outputs or the summary.
    assert ("add-mask", TEST_KEY) in done.step("Run code-commit").commands
    assert TEST_KEY not in done.masked(done.log)
    assert TEST_KEY not in summary and all(TEST_KEY not in value for value in outputs.values())


def test_a_failing_run_still_reports_and_the_action_exits_with_its_code(
    project: Project, api: FakeAPI, run: RunAction
) -> None:
    api.reply("Not this one.\n^^^notes.txt\nstill broken\n^^^end\n")
    project.write(".github/nightly.txt", "The nightly change, from a file.")
    project.commit_all()

    done = run({"query-file": ".github/nightly.txt", "sandbox": "auto"}, env={"CODE_COMMIT_MAX_REPAIRS": "0"})

    assert "The nightly change, from a file." in api.requests[0].prompt_text
    assert done.step("Run code-commit").exit_code == 0  # the run step observed; the last step decides
    assert done.step("Exit with code-commit's exit code").exit_code == 1
    assert done.exit_code == 1 and done.failed
    for name in ("Set the outputs", "Write the job summary"):
        assert done.step(name).exit_code == 0, done.step(name).stderr
    assert done.outputs["outcome"] == "build_failed" and done.outputs["exit-code"] == "1"
    assert done.outputs["changed-files"] == "notes.txt"
    summary = done.summary
    assert "## code-commit: build&#95;failed (exit 1)" in summary
    assert "### What ended the run" in summary and "the build still fails after 0 repairs" in summary
    assert "| last build | failed, exit code 1" in summary


@pytest.mark.parametrize(
    ("inputs", "problem"),
    [
        ({"query": "x", "query-file": "q.txt"}, "give `query` or `query-file`, not both"),
        ({"query-file": "missing.txt"}, "the `query-file` missing.txt cannot be read: No such file or directory"),
        ({"query": "x", "working-directory": "nowhere"}, "the `working-directory` nowhere is not a folder"),
        ({"query": "x", "args": "--effort 'unclosed"}, "the `args` input cannot be split into arguments"),
    ],
)
def test_a_setup_error_of_the_action_is_exit_2_with_outputs_and_a_summary(
    project: Project, api: FakeAPI, run: RunAction, inputs: dict[str, str], problem: str
) -> None:
    done = run({**inputs, "sandbox": "off"})

    assert done.exit_code == 2 and api.requests == []
    assert done.outputs["outcome"] == "setup_error" and done.outputs["record"] == ""
    assert inline(problem, 400) in done.summary
    assert any(name == "error" and value.startswith(problem) for name, value in done.step("Run code-commit").commands)
