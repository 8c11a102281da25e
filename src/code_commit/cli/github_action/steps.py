"""The action's steps, one function each, in action.yml's order. They speak through files in the
action's own folder under RUNNER_TEMP, which the install step makes: the run step writes what it
observed (`ran.json`, `record.json`), and the steps after it read that, so each works whatever
happened before it (`if: always()`).

- install: a virtualenv with code-commit from the action's own checkout ($GITHUB_ACTION_PATH), with
  the cloud's extra for bedrock and vertex; `install: false` takes the code-commit on PATH instead
  (a container image that has it).
- sandbox: bubblewrap installed and working (sandbox_setup).
- run: the query and the rollup, then code-commit --json; its exit code and record saved. Exits 0:
  the action's own exit comes last, after the outputs, the upload and the summary.
- report: the outputs (GITHUB_OUTPUT) and what upload-artifact uploads.
- summary: the job summary (GITHUB_STEP_SUMMARY).
- exit: code-commit's exit code as the action's.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import IO

from code_commit.cli.github_action.facts import RECORD_FILE, Facts, Ran, read_facts
from code_commit.cli.github_action.inputs import (
    ARTIFACT_URL_VARIABLE,
    FOLDER_VARIABLE,
    PROGRAM_VARIABLE,
    ActionInputs,
    ActionSetupError,
    child_environment,
    command,
)
from code_commit.cli.github_action.runner_files import command as workflow_command
from code_commit.cli.github_action.runner_files import commands_stopped, write_outputs
from code_commit.config.paths import CONFIG_DIR, QUERY_FILE
from code_commit.credentials import CLOUD_PROVIDERS
from code_commit.exits import EXIT
from code_commit.files.setup_files import INPUT_BYTES, read_regular

_ROLLUP_SCRIPT = "codeRollup.sh"  # the project's own, which init writes; else `code-commit rollup`
OUTPUTS = ("outcome", "exit-code", "record", "cost", "changed-files")  # action.yml's outputs, from `report`


def install(env: Mapping[str, str]) -> int:
    inputs = ActionInputs.from_env(env)
    # The folder the steps speak through holds small files only: when there is no run folder, it is
    # what gets uploaded. The virtualenv goes beside it.
    root = Path(tempfile.mkdtemp(prefix="code-commit-", dir=env.get("RUNNER_TEMP") or None))
    folder = root / "report"
    folder.mkdir()
    write_outputs(env["GITHUB_OUTPUT"], {"folder": str(folder)})  # first: the steps after it need it
    if inputs.install:
        venv = root / "venv"
        extra = inputs.effective("provider", env)
        source = env["GITHUB_ACTION_PATH"] + (f"[{extra}]" if extra in CLOUD_PROVIDERS else "")
        print(f"installing code-commit from {source} into {venv}", flush=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", source]
        for step in ([sys.executable, "-m", "venv", str(venv)], pip):
            if subprocess.run(step, stdin=subprocess.DEVNULL, check=False).returncode != 0:
                workflow_command("error", f"installing code-commit failed: {' '.join(step[:4])} did not succeed")
                return EXIT.SETUP
        program = str(venv / "bin" / "code-commit")
    else:
        found = shutil.which("code-commit", path=env.get("PATH"))
        if found is None:
            workflow_command("error", "`install` is false, but no code-commit is on PATH")
            return EXIT.SETUP
        program = found
    if subprocess.run([program, "--version"], stdin=subprocess.DEVNULL, check=False).returncode != 0:
        workflow_command("error", f"{program} --version failed")
        return EXIT.SETUP
    write_outputs(env["GITHUB_OUTPUT"], {"program": program})
    return 0


def sandbox(env: Mapping[str, str]) -> int:
    from code_commit.cli.github_action.sandbox_setup import Runner, set_up

    mode = ActionInputs.from_env(env).effective("sandbox", env)
    result = set_up(mode, Runner(dict(env)))
    for line in result.lines:
        print(line, flush=True)
    if not result.works and mode != "off":
        workflow_command("warning", f"bubblewrap does not work on this runner: {result.lines[-1]}")
    return 0


def run(env: Mapping[str, str], program: str) -> int:
    folder = Path(env[FOLDER_VARIABLE])
    project = Path.cwd()
    try:
        inputs = ActionInputs.from_env(env)
        project = (Path.cwd() / inputs.working_directory).resolve()
        if not project.is_dir():
            raise ActionSetupError(f"the `working-directory` {inputs.working_directory} is not a folder")
        argv = command(program, inputs)
        child = child_environment(env, inputs)
        if inputs.api_key:
            workflow_command("add-mask", inputs.api_key)  # never in the log, whatever prints it
        _write_query(project, inputs)
    except OSError as exc:
        why = f"the query could not be written: {exc}"
        workflow_command("error", why)
        Ran(EXIT.SETUP, str(project), why).save(folder)
        return 0
    except ActionSetupError as exc:
        workflow_command("error", str(exc))
        Ran(EXIT.SETUP, str(project), str(exc)).save(folder)
        return 0
    with commands_stopped(sys.stdout.buffer) as relay:
        rollup = _rollup_command(project, program)
        # The rollup script finds code-commit on PATH; code-commit itself, and so the build, does not
        # get the action's virtualenv there: build.sh's `python3` stays the project's.
        beside = {**child, "PATH": f"{Path(program).parent}{os.pathsep}{child.get('PATH', '')}"}
        code = _relayed(rollup, project, beside, relay)
        problem = f"the rollup ({' '.join(rollup[:2])}) failed with exit code {code}" if code else None
        if problem is None:
            with open(folder / RECORD_FILE, "wb") as record:
                code = _relayed(argv, project, child, relay, record)
    if problem is not None:
        workflow_command("error", problem)
        Ran(EXIT.SETUP, str(project), problem).save(folder)
        return 0
    Ran(code, str(project)).save(folder)
    return 0


def _write_query(project: Path, inputs: ActionInputs) -> None:
    if inputs.query and inputs.query_file:
        raise ActionSetupError("give `query` or `query-file`, not both")
    target = project / QUERY_FILE
    if not (inputs.query or inputs.query_file):
        if target.is_file():
            return
        raise ActionSetupError(f"give the change you want as `query` or `query-file` (there is no {QUERY_FILE})")
    data = inputs.query.encode("utf-8", "surrogateescape")
    if inputs.query_file:  # its bytes as they are: code-commit itself refuses what is no query
        try:
            data = read_regular(project / inputs.query_file, INPUT_BYTES)  # never blocks on a FIFO
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise ActionSetupError(f"the `query-file` {inputs.query_file} cannot be read: {why}") from None
    for path in (project / CONFIG_DIR, target):
        if path.is_symlink():
            raise ActionSetupError(f"{path.relative_to(project)} is a symlink: the query is not written through it")
    (project / CONFIG_DIR).mkdir(exist_ok=True)
    target.write_bytes(data if data.endswith(b"\n") else data + b"\n")


def _rollup_command(project: Path, program: str) -> list[str]:
    script = project / _ROLLUP_SCRIPT
    return [f"./{_ROLLUP_SCRIPT}"] if script.is_file() and os.access(script, os.X_OK) else [program, "rollup"]


def _relayed(
    argv: list[str], cwd: Path, env: Mapping[str, str], relay: Callable[[bytes], None], stdout: IO[bytes] | None = None
) -> int:
    """Run `argv`; what it prints on stderr (and on stdout, unless `stdout` takes it) goes to the log
    through `relay`, in order. SIGINT and SIGTERM (a cancelled job) are passed on to it, and its own
    ending is waited for: code-commit writes its record when stopped."""
    try:
        child = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=stdout if stdout is not None else subprocess.PIPE,
            stderr=subprocess.STDOUT if stdout is None else subprocess.PIPE,
        )
    except OSError as exc:
        relay(f"{argv[0]} could not be started: {exc.strerror}\n".encode())
        return 127

    def forward(signum: int, frame: FrameType | None) -> None:
        child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        stream = child.stdout if stdout is None else child.stderr
        assert stream is not None
        while chunk := os.read(stream.fileno(), 65536):
            relay(chunk)
        return child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _folder(env: Mapping[str, str]) -> Path | None:
    value = env.get(FOLDER_VARIABLE, "")
    return Path(value) if value and Path(value).is_dir() else None


def report(env: Mapping[str, str]) -> int:
    folder = _folder(env)
    facts = read_facts(folder)
    changed = "\n".join(_one_line(path) for path in facts.files)
    values = {
        "outcome": facts.outcome,
        "exit-code": str(facts.exit_code),
        "record": str(facts.record_path or ""),
        "cost": "" if facts.cost_usd is None else repr(facts.cost_usd),
        "changed-files": changed,
    }
    artifact = facts.log_dir or folder
    values["artifact-path"] = str(artifact or "")
    name = (
        ActionInputs.from_env(env).artifact_name or f"code-commit-{env.get('GITHUB_JOB', 'job')}-{secrets.token_hex(4)}"
    )
    values["artifact-name"] = name
    write_outputs(env["GITHUB_OUTPUT"], values)
    return 0


def _one_line(path: str) -> str:
    """A path on one line of `changed-files`: one with a line break or another control character is
    written quoted, as git quotes such names (the guard refuses them, so none should come)."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path) or path.startswith('"'):
        return json.dumps(path)
    return path


def summary(env: Mapping[str, str]) -> int:
    from code_commit.cli.github_action.diffstat import file_stats
    from code_commit.cli.github_action.summary import render

    facts: Facts = read_facts(_folder(env))
    stats = None
    if facts.exit_code != EXIT.TAMPERED and facts.project is not None:
        stats = file_stats(facts.project, facts.files)
    text = render(facts, stats, env.get(ARTIFACT_URL_VARIABLE, ""))
    with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8", errors="backslashreplace") as file:
        file.write(text)
    return 0


def exit_step(env: Mapping[str, str]) -> int:
    facts = read_facts(_folder(env))
    if facts.problems and facts.record_path is None:
        workflow_command("error", facts.problems[0])
    print(f"code-commit: {facts.outcome} (exit {facts.exit_code})", flush=True)
    return facts.exit_code


STEPS: dict[str, Callable[[Mapping[str, str]], int]] = {
    "install": install,
    "sandbox": sandbox,
    "run": lambda env: run(env, env.get(PROGRAM_VARIABLE, "")),
    "report": report,
    "summary": summary,
    "exit": exit_step,
}


def main(args: list[str]) -> int:
    if len(args) != 1 or args[0] not in STEPS:
        print(f"usage: github_action {{{','.join(STEPS)}}}", file=sys.stderr)
        return EXIT.SETUP
    try:
        return STEPS[args[0]](os.environ)
    except ActionSetupError as exc:  # an input a step other than `run` reads (`install`)
        workflow_command("error", str(exc))
        return EXIT.SETUP
