"""`code-commit check`: build.sh run exactly as a run runs it, with no model call and no key.

The same orchestrator as a run (run/orchestrator.py): the same sandbox, environment, time limits,
output capture and tamper check, under the project's lock, logged in a run folder. It says where
the build ran (the sandbox, the network, what it may write, what is hidden), the build's output as
a repair prompt would carry it, the verdict, how many tests the output says ran, and, when the
sandbox or the setup kept the build from running, the cause and the fix (builds/diagnosis/).
What the build did to the tests is judged as in a run (the tests setting): under protect a build
that changed them or a runner's configuration is no pass (exit 12), as a run would stop there; under
report it is named under the verdict.

The report goes to stdout (the JSON record with `--json`); progress to stderr. The model SDK is
never imported here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.builds.gate import output_text, sandbox_policy
from code_commit.builds.output import output_for_prompt
from code_commit.builds.ran_tests import ran_tests
from code_commit.config.settings import Settings, load_settings
from code_commit.console.output import Console, to_stdout
from code_commit.console.printable import visible, visible_lines
from code_commit.errors import BuildChangedTests, CodeCommitError, SetupError, Stopped
from code_commit.events.kinds import Observer, ignore
from code_commit.run import signals
from code_commit.run.baseline import tree_state
from code_commit.run.orchestrator import Orchestrator
from code_commit.run.record import RunRecord, first_errors
from code_commit.run.signals import TimeLimit
from code_commit.run.workspace import build_script_problems, config_dir_problems, gitignore_problems
from code_commit.sandbox.bubblewrap import BUBBLEWRAP, Sandbox, choose, describe_policy
from code_commit.sandbox.toolchains import cache_folder

_WHY = "code-commit check runs ./build.sh"


@dataclass
class Checked:
    """A check's record, and where its build ran, in words: filled in as it goes."""

    record: RunRecord = field(default_factory=lambda: RunRecord("check"))
    where: list[tuple[str, str]] = field(default_factory=list)


def check(console: Console, root: Path, settings: Settings, checked: Checked, observe: Observer = ignore) -> Checked:
    """Run build.sh as a run would. What ends it early (a setup error, the lock, the tamper check, a
    build the sandbox kept from running, a stop) is raised, `checked` filled as far as it got."""
    problems = config_dir_problems(root) + gitignore_problems(root) + build_script_problems(root, _WHY)
    if problems:
        raise SetupError("\n".join(problems))
    limit = TimeLimit.of(settings)
    with signals.watch(limit):
        orchestrator = Orchestrator(root, settings, console, checked.record, limit, observe=observe)
        orchestrator.prepare(builds=True)
        assert orchestrator.sandbox is not None
        checked.where = where(root, settings, orchestrator.sandbox)
        with orchestrator.session():
            state = tree_state(root, settings)  # the tree as no answer touched it: the baseline's
            result = orchestrator.build(1)
            orchestrator.remember_baseline(state, result)
            checked.record.passed = result.passed
            checked.record.ran_tests = ran_tests(output_text(result))
    return checked


def where(root: Path, settings: Settings, sandbox: Sandbox) -> list[tuple[str, str]]:
    """Where the build runs: the sandbox, and what it may touch there."""
    lines = [("sandbox", sandbox.describe())]
    policy = sandbox_policy(root, settings, sandbox)
    if policy is not None:
        home = os.environ.get("HOME", "")
        cache = cache_folder(root, os.environ)
        lines += describe_policy(
            policy, Path(home) if home.startswith("/") else None, Path(os.path.realpath(cache)) if cache else None
        )
    return lines


def command(
    console: Console, root: Path, settings: Settings, as_json: bool, checked: Checked, observe: Observer = ignore
) -> int:
    """`code-commit check`: the report on stdout, and the check's exit code. An ending by an error
    still reports where the build ran and what it printed before `cli._guarded` says the error."""
    try:
        check(console, root, settings, checked, observe)
    except (CodeCommitError, Stopped):
        if not as_json:
            to_stdout(console.redact(report(checked, settings)))
        raise
    to_stdout(console.redact(checked.record.to_json() if as_json else report(checked, settings)))
    return checked.record.exit_code


def report(checked: Checked, settings: Settings) -> str:
    """The check for a person: where the build ran, its output (as a repair prompt would carry it, with
    every escape made visible), and the verdict in one line, with the diagnosis when there is one."""
    record = checked.record
    width = max((len(what) for what, _ in checked.where), default=0)
    out = ["where build.sh runs:\n"] if checked.where else []
    out += [f"  {what:<{width}}  {text}\n" for what, text in checked.where]
    build = record.last_build
    if build is not None:
        output = output_for_prompt(build.output, settings.build_output_cap)
        out += ["--- build.sh's output ---\n", visible_lines(output), "--- end of build.sh's output ---\n"]
    out.append(verdict(record) + "\n")
    if record.diagnosis is not None:
        out.append(f"  read from the build's output: {record.diagnosis.evidence}\n")
    allowed = [change for change in record.tests_changed if change.allowed]
    if allowed:
        out.append("the build changed the tests (tests = report lets it through; a run would go on):\n")
        out += [f"  - {visible(change.path)}: {change.change} {change.what}\n" for change in allowed]
    return "".join(out)


def init_check(console: Console, root: Path) -> Checked | None:
    """init's last step: the check, when there is a sandbox to run it in (init never runs a build
    with the user's full rights unasked); its verdict said on the console. None: not run, and the
    next steps say to run it."""
    settings = load_settings(root).settings
    if choose(settings.sandbox, root=root).kind != BUBBLEWRAP:
        console.info("not running build.sh now: builds here would run without a sandbox (code-commit config says why)")
        return None
    console.info("checking: running build.sh as a run will, in the sandbox")
    checked = Checked()
    try:
        check(console, root, settings, checked)
    except (CodeCommitError, Stopped) as exc:
        checked.record.ended_by(exc, 0.0)
    console.info(f"check: {verdict(checked.record)}")
    build = checked.record.last_build
    if build is not None and not build.passed and checked.record.diagnosis is None:
        console.excerpt(first_errors(build))
    return checked


def verdict(record: RunRecord) -> str:
    """The check's result in one line a person can act on."""
    build = record.last_build
    if record.diagnosis is not None:
        return f"kept from running by the sandbox or the setup: {record.diagnosis.line()}"
    if isinstance(record.error, BuildChangedTests):
        return f"no pass: {record.message}"
    if record.error is not None or build is None:
        return f"no verdict: {record.message}"
    if not build.passed:
        return f"build fails: {build.describe()}; a run would send its output to the model for a repair"
    ran = record.ran_tests
    if ran is None:
        return (
            f"build passes ({build.describe()}), but its output has no test runner's summary (pytest, unittest, "
            "cargo test, ctest, go test, node --test, Maven...): check that it runs your tests"
        )
    return f"build passes ({build.describe()}): it ran {ran.describe()}"
