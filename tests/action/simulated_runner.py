"""A GitHub Actions runner for this repository's composite action, as strict as the action needs.

It reads action.yml and runs each step as the runner does (actions/runner: CompositeActionHandler,
ScriptHandler, FileCommandManager, ActionCommandManager):

- a step runs when every step before it succeeded, or when its `if:` is `always()`; any other
  condition is an error here, so no step is silently skipped;
- `run:` goes to `bash --noprofile --norc -eo pipefail FILE` in the workspace, with the job's
  environment, GITHUB_ACTION_PATH, RUNNER_TEMP, GITHUB_WORKSPACE, and a fresh GITHUB_OUTPUT and
  GITHUB_STEP_SUMMARY file each; a `run:` holding `${{` is refused (script injection);
- `env:`, `with:` and the outputs' `value:` are resolved from `${{ inputs.NAME }}` (a declared
  input: the given value or its default) and `${{ steps.ID.outputs.NAME }}` (an earlier step);
  any other expression, or one mixed with text, is an error;
- GITHUB_OUTPUT is parsed as FileCommandManager parses it (`name=value`, or `name<<DELIMITER` up
  to the first line equal to the delimiter, LF line ends);
- the workflow commands a step prints are read line by line from stdout then stderr, honouring
  `::stop-commands::TOKEN` ... `::TOKEN::`; those acted on are recorded, and `add-mask` values are
  what `masked` hides;
- a `uses:` step is not run (no network): it is recorded as skipped, its `with:` resolved all the
  same, its outputs empty; so is a step the test names in `skip`.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

EXPRESSION = re.compile(r"^\$\{\{\s*(.*?)\s*\}\}$", re.DOTALL)
INPUT = re.compile(r"^inputs\.([A-Za-z_][A-Za-z0-9_-]*)$")
STEP_OUTPUT = re.compile(r"^steps\.([A-Za-z_][A-Za-z0-9_-]*)\.outputs\.([A-Za-z_][A-Za-z0-9_-]*)$")
STEP_KEYS = {"name", "id", "if", "shell", "run", "env", "uses", "with"}
ALWAYS = ("always()", "${{ always() }}")
COMMAND = re.compile(r"^::([A-Za-z-]+)(?: [^:]*)?::(.*)$")


# The steps of action.yml a test may leave out: upload-artifact (a `uses:` step, never run here), and
# the bubblewrap step where bubblewrap does not work already (it would install packages).
SANDBOX_STEP = "Install bubblewrap"
UPLOAD_STEP = "Upload the run folder"


@functools.cache  # a fact of the machine: probed (a bwrap process) once a test process, not at each use
def bwrap_works() -> bool:
    from code_commit.sandbox.bubblewrap import probe

    return probe(os.environ)[0] is not None


class NotSupported(Exception):
    """Something action.yml uses that this runner does not model: the test must fail, not skip it."""


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(path.read_text())
    return data


@dataclass
class StepRun:
    name: str
    id: str | None
    ran: bool
    skipped_because: str | None = None
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    env: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    commands: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict[str, str]
    masks: list[str]
    commands_off_at_end: bool  # a stop-commands no resume matched: the job's later steps would be deaf

    @property
    def failed(self) -> bool:
        return any(step.ran and step.exit_code != 0 for step in self.steps)

    @property
    def exit_code(self) -> int:
        """The status the job sees: the last failed step's exit code, else 0."""
        codes = [step.exit_code for step in self.steps if step.ran and step.exit_code]
        return codes[-1] if codes else 0

    @property
    def summary(self) -> str:
        return "".join(step.summary for step in self.steps)

    @property
    def log(self) -> str:
        return "".join(step.stdout + step.stderr for step in self.steps)

    def masked(self, text: str) -> str:
        for value in self.masks:
            text = text.replace(value, "***")
        return text

    def step(self, name: str) -> StepRun:
        (found,) = [step for step in self.steps if step.name == name]
        return found

    def skipped(self) -> list[str]:
        return [step.name for step in self.steps if not step.ran]


def parse_output_file(text: str) -> dict[str, str]:
    """FileCommandManager's parser (Linux: LF only)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            name, value = line.split("=", 1)
            values[name] = value
        elif heredoc >= 0 and (equals < 0 or heredoc < equals):
            name, delimiter = line.split("<<", 1)
            if not name or not delimiter:
                raise ValueError(f"Invalid format '{line}'")
            body = []
            while True:
                if index >= len(lines):
                    raise ValueError(f"Matching delimiter not found '{delimiter}'")
                candidate = lines[index]
                index += 1
                if candidate == delimiter:
                    break
                body.append(candidate)
            values[name] = "\n".join(body)
        else:
            raise ValueError(f"Invalid format '{line}'")
    return values


class Commands:
    """The runner's reading of workflow commands, with stop-commands."""

    def __init__(self) -> None:
        self.stop_token: str | None = None
        self.masks: list[str] = []

    def read(self, text: str) -> list[tuple[str, str]]:
        acted = []
        for line in text.split("\n"):
            line = line.rstrip("\r")
            if self.stop_token is not None:
                if line == f"::{self.stop_token}::":
                    self.stop_token = None
                continue
            match = COMMAND.match(line)
            if match is None:
                continue
            name, value = match.group(1).lower(), match.group(2)
            if name == "stop-commands":
                self.stop_token = value
            elif name == "add-mask":
                self.masks.append(value)
            acted.append((name, value))
        return acted


def run_action(
    root: Path,
    inputs: Mapping[str, str],
    *,
    workspace: Path,
    runner_temp: Path,
    env: Mapping[str, str],
    skip: Iterable[str] = (),
) -> ActionRun:
    action = load(root / "action.yml")
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    if unknown:
        raise NotSupported(f"inputs the action does not declare: {sorted(unknown)}")
    given = {name: str(inputs.get(name, spec.get("default", ""))) for name, spec in declared.items()}
    steps_by_id: dict[str, StepRun] = {}
    done: list[StepRun] = []
    commands = Commands()
    to_skip = set(skip)
    names = [step.get("name") for step in action["runs"]["steps"]]
    missing = to_skip - set(names)
    if missing:
        raise NotSupported(f"no step to skip named {sorted(missing)}")

    def resolve(value: Any) -> str:
        text = str(value)
        if "${{" not in text:
            return text
        match = EXPRESSION.match(text)
        if match is None:
            raise NotSupported(f"an expression mixed with text: {text!r}")
        expression = match.group(1)
        if m := INPUT.match(expression):
            if m.group(1) not in declared:
                raise NotSupported(f"an undeclared input: {expression}")
            return given[m.group(1)]
        if m := STEP_OUTPUT.match(expression):
            if m.group(1) not in steps_by_id:
                raise NotSupported(f"a step that has not run before this one: {expression}")
            return steps_by_id[m.group(1)].outputs.get(m.group(2), "")
        raise NotSupported(f"an expression this runner does not evaluate: {expression!r}")

    for index, spec in enumerate(action["runs"]["steps"]):
        if set(spec) - STEP_KEYS:
            raise NotSupported(f"step keys {sorted(set(spec) - STEP_KEYS)}")
        name = spec.get("name", f"step {index}")
        condition = spec.get("if")
        if condition is not None and condition not in ALWAYS:
            raise NotSupported(f"the condition {condition!r}")
        step = StepRun(name, spec.get("id"), ran=False)
        failed_before = any(s.ran and s.exit_code != 0 for s in done)
        step_env = {key: resolve(value) for key, value in (spec.get("env") or {}).items()}
        with_values = {key: resolve(value) for key, value in (spec.get("with") or {}).items()}
        if failed_before and condition is None:
            step.skipped_because = "a step before it failed"
        elif "uses" in spec:
            step.skipped_because = "uses"
            step.env = with_values
        elif name in to_skip:
            step.skipped_because = "skipped by the test"
        else:
            _run_script(spec, step, step_env, index, root, workspace, runner_temp, env)
            step.commands = commands.read(step.stdout) + commands.read(step.stderr)
        if step.id:
            steps_by_id[step.id] = step
        done.append(step)
    outputs = {name: resolve(spec["value"]) for name, spec in action.get("outputs", {}).items()}
    return ActionRun(done, outputs, commands.masks, commands.stop_token is not None)


def _run_script(
    spec: Mapping[str, Any],
    step: StepRun,
    step_env: dict[str, str],
    index: int,
    root: Path,
    workspace: Path,
    runner_temp: Path,
    env: Mapping[str, str],
) -> None:
    script = spec["run"]
    if "${{" in script:
        raise NotSupported(f"an expression in the script of {step.name!r}: script injection")
    if spec.get("shell") != "bash":
        raise NotSupported(f"shell {spec.get('shell')!r}")
    files = runner_temp / "_runner_file_commands"
    files.mkdir(parents=True, exist_ok=True)
    output, summary, script_file = (files / f"{kind}_{index}" for kind in ("set_output", "step_summary", "script"))
    output.write_text("")
    summary.write_text("")
    script_file.write_text(script)
    full_env = {
        **env,
        "GITHUB_ACTION_PATH": str(root),
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        **step_env,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
        cwd=workspace,
        env=full_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    step.ran = True
    step.exit_code = done.returncode
    step.stdout = done.stdout.decode("utf-8", "replace")
    step.stderr = done.stderr.decode("utf-8", "replace")
    step.env = step_env
    step.outputs = parse_output_file(output.read_text(encoding="utf-8"))
    step.summary = summary.read_text(encoding="utf-8")


RunAction = Callable[..., ActionRun]  # the `run` fixture: run(inputs, env=...)


def runner_env(base: Mapping[str, str], python_bin: str) -> dict[str, str]:
    """A job's environment on a hosted runner, with this test's Python first on PATH as `python3`
    and `code-commit` (the editable install of this checkout)."""
    env = dict(base)
    env["PATH"] = python_bin + os.pathsep + env.get("PATH", "")
    env |= {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_JOB": "repair", "RUNNER_OS": "Linux"}
    return env
