"""The loop: initial query -> apply -> build -> up to three repairs -> outcome.

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` that `cli` maps to an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .apply import Plan, apply_plan, plan_changes
from .build import BuildResult, output_for_prompt, run_build
from .edits import parse_answer
from .errors import AnswerRefused
from .guard import Guard
from .journal import recover
from .llm import Completion, Provider, Usage, make_provider
from .logs import Redactor, RunLog
from .prompts import Feedback, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from .settings import ApiKey, Settings
from .ui import Console
from .workspace import Workspace


@dataclass(frozen=True)
class CallRecord:
    """One model call, as the log, the summary and `--json` report it."""

    call: int
    usage: Usage
    stop_reason: str
    duration: float


@dataclass
class Outcome:
    passed: bool
    log_dir: Path
    attempts: int = 0  # model calls that produced an answer
    calls: list[CallRecord] = field(default_factory=list)
    files_changed: set[str] = field(default_factory=set)
    files_deleted: set[str] = field(default_factory=set)
    last_build: BuildResult | None = None

    @property
    def usage(self) -> Usage:
        return sum((c.usage for c in self.calls), Usage())


def execute(workspace: Workspace, key: ApiKey, settings: Settings, console: Console) -> Outcome:
    """Run the loop on a checked setup (see `workspace.check_setup`)."""
    system = load_system_prompts()
    redact = Redactor.of([key.value])
    console.redact = redact
    log = RunLog.create(workspace.config_dir, redact)
    console.info(f"run log: {log.folder.relative_to(workspace.root)}")
    for line in recover(workspace.root).lines():  # an apply a killed run left half done
        log.event(f"recovery: {line}")
        console.warn(f"recovery: {line}")
    return repair_loop(workspace, settings, system, make_provider(settings, key), log, console)


def repair_loop(
    workspace: Workspace,
    settings: Settings,
    system: SystemPrompts,
    provider: Provider,
    log: RunLog,
    console: Console,
) -> Outcome:
    outcome = Outcome(passed=False, log_dir=log.folder)
    replacements: dict[str, str | None] = {}  # latest state of every file the run touched
    feedback: Feedback | None = None
    warned: set[str] = set()  # guard warnings already shown
    calls = 1 + settings.max_repairs
    for call in range(1, calls + 1):
        if feedback is None:
            prompt = initial_prompt(system, workspace.query, workspace.codebase)
        else:
            prompt = repair_prompt(system, feedback, workspace.query, workspace.codebase, replacements)
        prompt = prompt.redacted(log.redact)
        log.write(call, "query.txt", prompt.render())
        kind = "initial query" if call == 1 else f"repair {call - 1} of {settings.max_repairs}"
        console.info(f"call {call}/{calls} ({kind}): asking {settings.model}")

        completion = provider.complete(prompt)
        record = CallRecord(call, completion.usage, completion.stop_reason, completion.duration)
        outcome.attempts = call
        outcome.calls.append(record)
        log.write(call, "response.txt", completion.text)
        log.event(_usage_line(record))

        guard = Guard(workspace.root, settings.protected_patterns)
        try:
            plan = accept_answer(workspace.root, completion, settings, guard)
            apply_plan(workspace.root, plan, log.path(call, "journal"))
        except AnswerRefused as refusal:
            reasons = "\n".join(f"- {r}" for r in refusal.reasons)
            log.write(call, "refused.txt", reasons + "\n")
            console.warn(f"answer refused, nothing was written:\n{reasons}")
            feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}\n", True)
            continue
        finally:
            for warning in [w for w in guard.warnings if w not in warned]:  # invalid ignore lines, once a run
                warned.add(warning)
                log.event(f"call {call}: {warning}")
                console.warn(warning)
        _record(plan, replacements, outcome, log, call, console)

        console.info("running build.sh")
        result = run_build(workspace.root, log.path(call, "build.txt"), log.redact, settings.build_timeout)
        outcome.last_build = result
        log.event(f"call {call}: {result.describe()}")
        if result.passed:
            console.info(f"build passes ({result.describe()})")
            outcome.passed = True
            return outcome
        console.info(f"build fails: {result.describe()}")
        feedback = Feedback(output_for_prompt(result, settings.build_output_cap))
    console.info(f"the build still fails after {settings.max_repairs} repairs")
    return outcome


def accept_answer(root: Path, completion: Completion, settings: Settings, guard: Guard | None = None) -> Plan:
    """Parse and guard an answer; raise AnswerRefused if any part of it cannot be applied."""
    if completion.stop_reason == "max_tokens":
        raise AnswerRefused(
            f"the answer was cut off at the output limit ({settings.max_tokens} tokens); give fewer or smaller files"
        )
    edits = parse_answer(completion.text)
    return plan_changes(root, edits, guard or Guard(root, settings.protected_patterns))


def _record(
    plan: Plan, replacements: dict[str, str | None], outcome: Outcome, log: RunLog, call: int, console: Console
) -> None:
    for path, content in plan.final.items():
        replacements[path] = None if content is None else content.decode("utf-8")
    for change in plan.changes:
        if change.content is None:
            outcome.files_deleted.add(change.path)
            outcome.files_changed.discard(change.path)
        else:
            outcome.files_changed.add(change.path)
            outcome.files_deleted.discard(change.path)
    for path in plan.missing_deletes:
        log.event(f"call {call}: delete of {path} skipped: the file does not exist")
    written = sum(c.content is not None for c in plan.changes)
    deleted = len(plan.changes) - written
    console.info(f"applied: {written} file(s) written, {deleted} deleted")
    log.event(
        f"call {call}: applied "
        + ", ".join(f"{'deleted' if c.content is None else 'wrote'} {c.path}" for c in plan.changes)
    )


def _usage_line(record: CallRecord) -> str:
    u = record.usage
    return (
        f"call {record.call}: stop_reason={record.stop_reason} input_tokens={u.input_tokens} "
        f"output_tokens={u.output_tokens} cache_write_tokens={u.cache_write_tokens} "
        f"cache_read_tokens={u.cache_read_tokens} duration_s={record.duration:.2f}"
    )
