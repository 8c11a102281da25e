"""action.yml and the example workflows: valid against GitHub's schemas (the ones check-jsonschema
ships, offline), and holding the rules the docs promise: no expression in a script, every action
pinned to a commit, the inputs and outputs the code reads and writes, and the CI-repair workflow's
guards and least permissions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from simulated_runner import load

from code_commit.cli.github_action.inputs import INPUTS, STEP_VARIABLES, input_variable
from code_commit.cli.github_action.steps import OUTPUTS, STEPS

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = ROOT / "docs" / "examples" / "workflows"
EXAMPLES = sorted(WORKFLOWS.glob("*.yml"))
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
OURS = "YOUR-ORG/code-commit@COMMIT-SHA"  # the placeholder the docs tell the user to fill in
STEP_COMMAND = re.compile(r'^python3 -I "\$GITHUB_ACTION_PATH/src/code_commit/cli/github_action/__main__\.py" (\w+)$')


def check_jsonschema(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
    )


def test_the_action_and_the_workflows_validate_against_github_s_schemas() -> None:
    assert [path.name for path in EXAMPLES] == ["ci-repair.yml", "scheduled-repair.yml"]
    action = check_jsonschema("vendor.github-actions", ACTION)
    assert action.returncode == 0, action.stdout + action.stderr
    workflows = check_jsonschema("vendor.github-workflows", *EXAMPLES)
    assert workflows.returncode == 0, workflows.stdout + workflows.stderr


def test_the_schema_check_fails_on_a_broken_action(tmp_path: Path) -> None:
    """The check above can fail: an action whose steps lack `runs.using` is refused."""
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text().replace("using: composite", "using: compost"))
    assert check_jsonschema("vendor.github-actions", broken).returncode != 0


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in document:
        return list(document["runs"]["steps"])
    return [step for job in document["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("path", [ACTION, *EXAMPLES], ids=lambda p: p.name)
def test_no_script_holds_an_expression_and_every_action_is_pinned(path: Path) -> None:
    for step in _steps(load(path)):
        assert "${{" not in step.get("run", ""), f"script injection risk in {step.get('name')}"
        uses = step.get("uses")
        if uses is not None:
            assert uses == OURS or PINNED.match(uses), f"{uses} is not pinned to a commit"
            assert uses == OURS or re.search(rf"uses: {re.escape(uses)} # v\d", path.read_text()), "its version named"


def test_the_action_declares_the_inputs_and_outputs_its_code_reads_and_writes() -> None:
    action = load(ACTION)
    assert tuple(action["inputs"]) == INPUTS
    assert tuple(action["outputs"]) == OUTPUTS
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.report.outputs.{name} }}}}"


def test_each_step_runs_one_step_of_the_module_with_inputs_only_through_env() -> None:
    steps = [step for step in _steps(load(ACTION)) if "run" in step]
    names = [STEP_COMMAND.match(step["run"].strip()) for step in steps]
    assert all(names), [step["run"] for step in steps]
    assert [match.group(1) for match in names if match] == list(STEPS)
    for step in steps:
        for variable, value in (step.get("env") or {}).items():
            inputs = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", value)
            if inputs:
                assert variable == input_variable(inputs.group(1))
            else:
                assert variable in STEP_VARIABLES, variable


def test_only_the_report_and_the_steps_after_it_run_whatever_happened_before() -> None:
    conditions = {step["name"]: step.get("if") for step in _steps(load(ACTION))}
    assert [name for name, condition in conditions.items() if condition != "always()"] == [
        "Install code-commit",
        "Install bubblewrap",
        "Run code-commit",
    ]


def test_the_ci_repair_runs_only_for_a_failed_run_of_this_repository_off_its_own_branches() -> None:
    workflow = load(WORKFLOWS / "ci-repair.yml")
    assert workflow["on"]["workflow_run"]["types"] == ["completed"]
    assert workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    guard = " ".join(job["if"].split())
    assert "github.event.workflow_run.conclusion == 'failure'" in guard
    assert "github.event.workflow_run.head_repository.full_name == github.repository" in guard
    assert "!startsWith(github.event.workflow_run.head_branch, 'code-commit/')" in guard
    assert guard.count("&&") == 2 and "||" not in guard
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    steps = job["steps"]
    pull_request = steps[-1]
    assert pull_request["with"]["branch"].startswith("code-commit/"), "the loop guard's prefix"
    assert pull_request["if"] == "steps.repair.outputs.outcome == 'passed' && steps.repair.outputs.changed-files != ''"
    assert pull_request["with"]["add-paths"] == "${{ steps.repair.outputs.changed-files }}"
    checkout = steps[0]
    assert checkout["with"] == {"ref": "${{ github.event.workflow_run.head_sha }}", "persist-credentials": False}


def test_the_scheduled_repair_has_a_schedule_and_the_same_least_permissions() -> None:
    workflow = load(WORKFLOWS / "scheduled-repair.yml")
    assert workflow["on"]["schedule"][0]["cron"]
    assert workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert job["steps"][0]["with"] == {"persist-credentials": False}
    assert job["steps"][-1]["with"]["branch"].startswith("code-commit/")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_docs_page_shows_each_workflow(path: Path) -> None:
    page = (ROOT / "docs" / "github-action.md").read_text()
    assert f"(examples/workflows/{path.name})" in page
    action = _steps(load(path))
    (ours,) = [step for step in action if step.get("uses") == OURS]
    assert ours["with"].get("api-key") == "${{ secrets.ANTHROPIC_API_KEY }}"
    assert "sandbox" not in ours["with"], "the action's default, require, stays"
