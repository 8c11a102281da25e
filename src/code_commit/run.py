"""The loop: initial query -> apply -> build -> up to three repairs -> outcome.

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` (or a `stops.Stopped` from a signal or the time limit), which `execute`
records in the outcome, so every ending gets the same record and exit code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from . import stops
from .apply import Plan, apply_plan, plan_changes
from .build import BuildResult, output_for_prompt, run_build
from .diffs import plan_diff
from .edits import parse_answer
from .errors import EXIT_BUILD_FAILS, EXIT_OK, AnswerRefused, CodeCommitError, exit_code_for
from .guard import Guard
from .llm import Completion, Provider, Usage, make_provider
from .logs import LOGS_DIR, Redactor, RunLog, prune_runs
from .prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from .revert import Originals
from .settings import ApiKey, Settings
from .summary import SUMMARY_FILE, summarize
from .ui import Console
from .workspace import ProjectLock, Workspace


@dataclass(frozen=True)
class CallRecord:
    """One model call, as the log, the summary and `--json` report it."""

    call: int
    usage: Usage
    stop_reason: str
    duration: float


@dataclass
class Outcome:
    passed: bool  # the build passes (--dry-run: the answer is acceptable)
    log_dir: Path | None  # None when the run ended before it had a folder (lock held)
    attempts: int = 0  # model calls that produced an answer
    calls: list[CallRecord] = field(default_factory=list)
    files_changed: set[str] = field(default_factory=set)
    files_deleted: set[str] = field(default_factory=set)
    last_build: BuildResult | None = None
    cost_usd: float | None = None  # None while the provider's price is unknown
    error: CodeCommitError | None = None  # what ended the run early, if anything did
    duration: float = 0.0
    originals: Originals = field(default_factory=Originals)  # the touched files as they were
    reverted: bool = False
    patch: Path | None = None  # --revert-on-failure: the final proposal, saved before reverting
    diff: str | None = None  # --dry-run: what the answer would change
    dry_run: bool = False

    @property
    def usage(self) -> Usage:
        return sum((c.usage for c in self.calls), Usage())

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return exit_code_for(self.error)
        return EXIT_OK if self.passed else EXIT_BUILD_FAILS


@dataclass(frozen=True)
class RunOptions:
    dry_run: bool = False  # one call, parse and guard, show the diff; write nothing, build nothing
    revert_on_failure: bool = False  # a run that ends without a passing build leaves the tree as it was


def execute(
    workspace: Workspace,
    key: ApiKey | None,
    settings: Settings,
    console: Console,
    options: RunOptions = RunOptions(),
    provider: Provider | None = None,
) -> Outcome:
    """A whole run on a checked setup (see `workspace.check_setup`): take the lock, recover, loop,
    and record how it ended. Never raises for an ending the user should see: the outcome carries it.
    """
    started = time.monotonic()
    console.redact = redact = Redactor.of([key.value] if key else [])
    outcome = Outcome(passed=False, log_dir=None, dry_run=options.dry_run)
    try:
        with (
            stops.watch(settings.timeout),  # SIGINT/SIGTERM and --timeout end the run through `Stopped`
            console.live(),
            ProjectLock.take(workspace.config_dir, settings.wait_lock, console.info),
        ):
            # (crash recovery of an interrupted apply goes here: under the lock, before the run)
            log = RunLog.create(workspace.config_dir, redact)
            outcome.log_dir = log.folder
            try:
                console.info(f"run log: {log.folder.relative_to(workspace.root)}")
                for old in prune_runs(workspace.config_dir / LOGS_DIR, settings.keep_runs, log.folder):
                    log.event(f"deleted the old run folder {old.name} (keep_runs = {settings.keep_runs})")
                provider = provider or make_provider(settings, key)
                loop = dry_run if options.dry_run else repair_loop
                loop(workspace, settings, load_system_prompts(), provider, log, console, outcome)
            except (CodeCommitError, stops.Stopped) as exc:
                outcome.error = stops.error_of(exc)
            finally:
                outcome.duration = time.monotonic() - started
                with stops.shielded(final=True):
                    _finish(workspace, options, log, console, outcome)
    except (CodeCommitError, stops.Stopped) as exc:
        if outcome.log_dir is None:  # the lock was not taken; later, the record is written and stands
            outcome.error = stops.error_of(exc)
            outcome.duration = time.monotonic() - started
    return outcome


def _finish(workspace: Workspace, options: RunOptions, log: RunLog, console: Console, outcome: Outcome) -> None:
    """The end of every run that has a folder: revert if asked, then write summary.json."""
    if options.revert_on_failure and not outcome.passed and outcome.originals.files:
        outcome.patch = log.write_file("final.patch", outcome.originals.patch(workspace.root))
        problems = outcome.originals.restore(workspace.root)
        outcome.reverted = not problems
        for problem in problems:
            console.error(f"could not revert {problem}")
        log.event(f"reverted {len(outcome.originals.files)} file(s); the proposal is in final.patch")
        console.info(f"reverted the run's changes; its final proposal is saved in {outcome.patch}")
    if outcome.error is not None:
        log.event(f"run ended: {outcome.error}")
    log.write_file(SUMMARY_FILE, summarize(outcome).to_json())


def dry_run(
    workspace: Workspace,
    settings: Settings,
    system: SystemPrompts,
    provider: Provider,
    log: RunLog,
    console: Console,
    outcome: Outcome,
) -> Outcome:
    """--dry-run: one model call, then parse and guard; keep the diff of what would change."""
    prompt = initial_prompt(system, workspace.query, workspace.codebase).redacted(log.redact)
    log.write(1, "query.txt", prompt.render())
    completion = _ask(provider, prompt, settings, log, console, outcome, 1, 1)
    try:
        plan = accept_answer(workspace.root, completion, settings)
    except AnswerRefused as refusal:
        reasons = "\n".join(f"- {r}" for r in refusal.reasons)
        log.write(1, "refused.txt", reasons + "\n")
        console.warn(f"the answer would be refused:\n{reasons}")
        return outcome
    outcome.diff = log.redact(plan_diff(workspace.root, plan))
    log.write_file("dry-run.patch", outcome.diff)
    console.info(f"the answer is acceptable: {len(plan.changes)} file(s) would change; nothing was written")
    outcome.passed = True
    return outcome


def repair_loop(
    workspace: Workspace,
    settings: Settings,
    system: SystemPrompts,
    provider: Provider,
    log: RunLog,
    console: Console,
    outcome: Outcome,
) -> Outcome:
    """Fills `outcome` as it goes, so a run stopped half-way still reports what it did."""
    replacements: dict[str, str | None] = {}  # latest state of every file the run touched
    feedback: Feedback | None = None
    calls = 1 + settings.max_repairs
    for call in range(1, calls + 1):
        if feedback is None:
            prompt = initial_prompt(system, workspace.query, workspace.codebase)
        else:
            prompt = repair_prompt(system, feedback, workspace.query, workspace.codebase, replacements)
        prompt = prompt.redacted(log.redact)
        log.write(call, "query.txt", prompt.render())
        completion = _ask(provider, prompt, settings, log, console, outcome, call, calls)

        try:
            plan = accept_answer(workspace.root, completion, settings)
            if console.verbose:
                console.detail(plan_diff(workspace.root, plan))
            with stops.shielded():  # a signal waits until the apply is complete (or rolled back) and recorded
                outcome.originals.remember(workspace.root, plan)
                apply_plan(workspace.root, plan)
                _record(plan, replacements, outcome, log, call, console)
        except AnswerRefused as refusal:
            reasons = "\n".join(f"- {r}" for r in refusal.reasons)
            log.write(call, "refused.txt", reasons + "\n")
            console.warn(f"answer refused, nothing was written:\n{reasons}")
            feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}\n", True)
            continue

        console.step("running build.sh")
        result = run_build(
            workspace.root,
            log.path(call, "build.txt"),
            log.redact,
            settings.build_timeout,
            on_output=console.build_output,
            linger=settings.build_linger,
        )
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


def _ask(
    provider: Provider,
    prompt: Prompt,
    settings: Settings,
    log: RunLog,
    console: Console,
    outcome: Outcome,
    call: int,
    calls: int,
) -> Completion:
    """One model call, recorded in the outcome and the log as soon as it returns."""
    kind = "initial query" if call == 1 else f"repair {call - 1} of {settings.max_repairs}"
    console.attempt(call, calls)
    console.step(f"call {call}/{calls} ({kind}): asking {settings.model}", f"asking {settings.model}")
    completion = provider.complete(prompt, on_text=console.receiving)
    record = CallRecord(call, completion.usage, completion.stop_reason, completion.duration)
    outcome.attempts = call
    outcome.calls.append(record)
    log.write(call, "response.txt", completion.text)
    log.event(_usage_line(record))
    console.spent(outcome.usage, outcome.cost_usd)
    console.detail(completion.text.split("\n^^^")[0].strip())  # the answer's words before its first block
    return completion


def accept_answer(root: Path, completion: Completion, settings: Settings) -> Plan:
    """Parse and guard an answer; raise AnswerRefused if any part of it cannot be applied."""
    if completion.stop_reason == "max_tokens":
        raise AnswerRefused(
            f"the answer was cut off at the output limit ({settings.max_tokens} tokens); give fewer or smaller files"
        )
    edits = parse_answer(completion.text)
    return plan_changes(root, edits, Guard(root, settings.protected))


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
