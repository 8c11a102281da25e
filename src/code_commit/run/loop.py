"""The loop: initial query -> apply -> build -> up to three repairs -> outcome; and `execute`,
the run around it: the setup checks, then the loop in a `session.session` (lock, recover, record).

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` (or a `stops.Stopped` from a signal or the time limit), which the session
records, so every ending gets the same record and exit code. Any other exception is a bug or the
environment failing (a full disk): the session records it as an `InternalError` (exit 9), with
its traceback in the run folder, and the record is still written.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import Plan
from code_commit.apply.transaction import apply_plan
from code_commit.builds.gate import checked_build
from code_commit.builds.runner import BuildResult, output_for_prompt
from code_commit.builds.sandbox import Sandbox, choose
from code_commit.config.secrets import collect_secrets
from code_commit.config.settings import ApiKey, Settings, answer_byte_cap, output_limit, run_time_limit
from code_commit.console.output import Console
from code_commit.console.plural import count
from code_commit.console.terminal import unattended
from code_commit.errors import AnswerRefused, CodeCommitError, error_of
from code_commit.files.confined import Tree
from code_commit.guard.policy import Guard, check_git_index
from code_commit.llm import Completion, Provider, make_provider
from code_commit.llm.catalog import Budget, load_catalog, model_notes, with_output_limit
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from code_commit.llm.transport import ANSWER_TOO_LARGE, MAX_CONTINUATIONS
from code_commit.logs.folder import SUMMARY_FILE
from code_commit.logs.run_log import Redactor, RunLog, internal_error
from code_commit.review.diffs import change_diff, patch_of, plan_changes_on_disk, write_patch
from code_commit.review.interactive import Approved, approve
from code_commit.run import stops
from code_commit.run.calls import Caller, CallMeter, check_fits, report_totals
from code_commit.run.outcome import Outcome, RunOptions, Service
from code_commit.run.preflight import untracked_in_rollup, untracked_warning
from code_commit.run.revert import Originals
from code_commit.run.session import Session, checked_plan, session
from code_commit.run.summary import summarize
from code_commit.run.workspace import Workspace


@dataclass
class LoopState:
    """The loop's working state, apart from the record: the `Outcome` takes its facts from here when
    the run ends (`record`), however it ends."""

    originals: Originals = field(default_factory=Originals)  # each file the run changed, as it was first
    deletes: set[str] = field(default_factory=set)  # of those, the ones the run's last word deletes
    named: set[str] = field(default_factory=set)  # every path an applied answer named: the repair prompt shows them
    feedback: Feedback | None = None  # for the next repair prompt: the build's output, or a refusal's reasons
    refusal: str | None = None  # why the last answer was refused, while no answer has been applied
    warned: set[str] = field(default_factory=set)  # notes and guard warnings already shown, once a run

    def record(self, outcome: Outcome) -> None:
        """The run's net change to the tree, and its refusal, into the record."""
        outcome.files_changed = {path for path in self.originals.files if path not in self.deletes}
        created = self.originals.created()  # one the run created and deleted again is no change at all
        outcome.files_deleted = {path for path in self.deletes if path not in created}
        outcome.refusal = self.refusal


@dataclass(frozen=True)
class RunContext:
    """What every step of one run shares."""

    workspace: Workspace
    settings: Settings
    system: SystemPrompts
    caller: Caller
    log: RunLog
    console: Console
    outcome: Outcome
    sandbox: Sandbox
    state: LoopState

    def initial_prompt(self) -> Prompt:
        return initial_prompt(
            self.system, self.workspace.query, self.workspace.codebase, self.settings.prompt_order
        ).redacted(self.log.redact)


def execute(
    workspace: Workspace,
    key: ApiKey | None,
    settings: Settings,
    console: Console,
    options: RunOptions | None = None,
    provider: Provider | None = None,
    endpoint: Endpoint | None = None,
) -> Outcome:
    """A whole run on a checked setup (see `workspace.check_setup`): the setup checks, then the loop
    in a session, which records how it ended. Never raises for an ending the user should see: the
    outcome carries it, an unexpected exception in the session included (as an `InternalError`). An
    unexpected exception before the session (a bug in a setup check) is the command's last line of
    defence's (`cli._guarded`): exit 9 all the same.
    """
    started = time.monotonic()
    options = options or RunOptions()
    console.redact = redact = Redactor.of(key.censored if key else [])
    outcome = Outcome(passed=False, log_dir=None, dry_run=options.dry_run)
    served_by = settings.provider if provider is None else str(getattr(provider, "name", type(provider).__name__))
    outcome.service = Service(served_by, settings.model, endpoint.host if endpoint else None)
    try:
        secrets = collect_secrets(workspace.root, redact_env=settings.redact_env)
        console.redact = redact = secrets.redactor(*(key.censored if key else ()))
        system = load_system_prompts(settings=settings)
        model = load_catalog(workspace.root).lookup(settings.model)
        settings = with_output_limit(settings, model)
        first = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order).redacted(redact)
        check_fits(first, model, settings)
        git = check_git_index(workspace.root)
        untracked = untracked_warning(untracked_in_rollup(workspace.root, git, workspace.codebase))
        if untracked:
            console.warn(untracked)
        limit, limit_source = run_time_limit(settings, unattended())
        # Probed once, before the first model call: `require` without a working sandbox is exit 2 here.
        sandbox = choose("off" if options.dry_run else settings.sandbox, root=workspace.root)
        outcome.sandbox = None if options.dry_run else sandbox.describe()

        def begin(log: RunLog) -> None:
            outcome.log_dir = log.folder
            console.info(f"run log: {log.folder.relative_to(workspace.root)}")
            where = f" at {endpoint.describe()}" if endpoint else ""
            log.event(f"model {settings.model} from the {served_by} service{where}")
            for note in model_notes(model, settings):
                log.event(note)
                console.info(note)
            if untracked:
                log.event(f"warning: {untracked}")
            if not options.dry_run:
                log.event(f"sandbox: builds run under {sandbox.describe()}")
            if sandbox.problem is not None:  # auto without a working sandbox: once a run, with the fix
                console.warn(f"builds run without a sandbox, with your full rights: {sandbox.problem}")
            if limit is not None and settings.timeout is None:
                note = f"no terminal (cron, CI): the run's time limit is {limit:g} s ({limit_source})"
                log.event(note)
                console.info(note)

        state = LoopState()

        def end(ending: Session) -> None:
            outcome.error = ending.error
            outcome.duration = time.monotonic() - started
            state.record(outcome)
            log = ending.log
            _survive(outcome, log, lambda: report_totals(outcome.calls, outcome.usage, outcome.cost_usd, log, console))
            _finish(workspace, options, log, console, outcome, state.originals)

        with session(
            workspace.root,
            workspace.config_dir,
            settings,
            console,
            redact,
            (limit, limit_source),
            begin=begin,
            end=end,
            live=not settings.review,  # a review owns the terminal
        ) as current:
            budget = None if settings.max_cost is None else Budget(settings.max_cost, model, output_limit(settings))
            meter = CallMeter(current.log, console, budget, model=model)
            provider = provider or make_provider(settings, key, meter.hooks(), endpoint, model)
            caller = Caller(provider, model, meter, settings, outcome.calls)
            run = RunContext(workspace, settings, system, caller, current.log, console, outcome, sandbox, state)
            (dry_run if options.dry_run else repair_loop)(run)
    except (CodeCommitError, stops.Stopped) as exc:
        if outcome.log_dir is None:  # no folder yet (setup, lock); later, the record is written and stands
            outcome.error = error_of(exc)
            outcome.duration = time.monotonic() - started
    return outcome


def repair_loop(run: RunContext) -> None:
    """Ask; apply the answer, or take its refusal as the next call's feedback; build; and while the
    build fails, ask again with its output, up to `max_repairs` times."""
    settings, console, outcome, state = run.settings, run.console, run.outcome, run.state
    calls = 1 + settings.max_repairs
    for call in range(1, calls + 1):
        completion = run.caller.ask(next_prompt(run), call, calls)
        try:
            approved = apply_answer(run, completion, call)
        except AnswerRefused as refusal:
            refused(run, refusal, call)
            continue
        result = outcome.last_build = build(run, call)
        if result.passed:
            console.info(f"build passes ({result.describe()})")
            outcome.passed = True
            return
        console.info(f"build fails: {result.describe()}")
        state.feedback = Feedback(output_for_prompt(result, settings.build_output_cap) + approved.note)
    if outcome.last_build is None:
        console.info(f"no answer could be applied: all {calls} were refused, so no build ran")
    else:
        console.info(f"the build still fails after {settings.max_repairs} repairs")


def next_prompt(run: RunContext) -> Prompt:
    """The initial prompt, or a repair prompt: the feedback, and the files earlier answers named as
    they are now (after the build, which may have formatted them)."""
    if run.state.feedback is None:
        return run.initial_prompt()
    workspace, settings = run.workspace, run.settings
    replacements = current_files(workspace.root, run.state.named, answer_byte_cap(settings, MAX_CONTINUATIONS))
    return repair_prompt(
        run.system, run.state.feedback, workspace.query, workspace.codebase, replacements, settings.prompt_order
    ).redacted(run.log.redact)


def apply_answer(run: RunContext, completion: Completion, call: int) -> Approved:
    """One answer: parsed, guarded, reviewed (--review, --diff) and applied all or nothing, its
    originals recorded first. Raises AnswerRefused, with nothing written, if any of it cannot be."""
    root, settings, log, console, state = run.workspace.root, run.settings, run.log, run.console, run.state
    guard = Guard(root, settings.protected_patterns, created=state.originals.created())
    try:
        plan = accept_answer(root, completion, settings, guard)
        approved = approve(root, plan, call, settings, log, console)
        with stops.shielded():  # a signal waits until the apply is complete (or rolled back) and recorded
            recorded = state.originals.remember(root, approved.plan)
            try:
                apply_plan(root, approved.plan, log.path(call, "journal"))
            except AnswerRefused:  # a write failed and everything was put back
                state.originals.forget(recorded)
                raise
            _applied(run, approved.plan, call)
        return approved
    finally:
        for warning in guard.warnings:  # invalid ignore lines, once a run
            _once(f"call {call}: {warning}", warning, state.warned, log, console)


def refused(run: RunContext, refusal: AnswerRefused, call: int) -> None:
    """A refused answer uses up its call: its reasons are the next call's feedback."""
    run.log.write(call, "refused.txt", "".join(f"- {r}\n" for r in refusal.reasons))  # every reason
    cap = run.settings.build_output_cap
    reasons = listed(refusal.reasons, cap)
    run.console.warn(f"answer refused, nothing was written:\n{reasons}")
    run.state.feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}", True)
    run.state.refusal = (
        f"no answer could be applied: all {call} were refused, so no build ran; "
        f"the last one because: {listed(refusal.reasons, cap, '; ')}"
    )


def build(run: RunContext, call: int) -> BuildResult:
    run.console.step("running build.sh")
    log, state = run.log, run.state
    result = checked_build(
        run.workspace.root,
        log.folder,
        log.path(call, "build.txt"),
        log.redact,
        run.settings,
        run.sandbox,
        on_output=run.console.build_output,
        on_note=lambda note: _once(note, note, state.warned, log, run.console),
    )
    log.event(f"call {call}: {result.describe()}")
    return result


def _once(event: str, note: str, warned: set[str], log: RunLog, console: Console) -> None:
    if note not in warned:
        warned.add(note)
        log.event(event)
        console.warn(note)


def dry_run(run: RunContext) -> None:
    """--dry-run: one model call, then parse and guard; keep the diff of what would change."""
    completion = run.caller.ask(run.initial_prompt(), 1, 1)
    root, log = run.workspace.root, run.log
    try:
        plan = accept_answer(root, completion, run.settings, need_blocks=True)
    except AnswerRefused as refusal:
        log.write(1, "refused.txt", "".join(f"- {r}\n" for r in refusal.reasons))
        cap = run.settings.build_output_cap
        run.console.warn(f"the answer would be refused:\n{listed(refusal.reasons, cap)}")
        run.state.refusal = f"the answer would be refused: {listed(refusal.reasons, cap, '; ')}"
        return
    changes = plan_changes_on_disk(root, plan)
    run.outcome.diff = log.redact("".join(change_diff(change) for change in changes))  # for reading
    run.outcome.patch = write_patch(log.folder / "dry-run.patch", patch_of(root, changes, log.redact), log.redact)
    run.console.info(f"the answer is acceptable: {count(len(plan.changes), 'file')} would change; nothing was written")
    run.outcome.passed = True


def listed(reasons: Sequence[str], cap: int, separator: str = "") -> str:
    """A refusal's reasons for a prompt, the console or the record, in about `cap` characters: the
    first ones in full, then how many more there were (all of them are in NN-refused.txt)."""
    parts: list[str] = []
    used = 0
    for number, reason in enumerate(reasons):
        item = reason if separator else f"- {reason}\n"
        if used + len(item) > cap:
            if not parts:  # one reason longer than the cap: its start
                parts.append(item[: cap // 2] + " [...]" + ("" if separator else "\n"))
                number += 1
            rest = len(reasons) - number
            if rest:
                parts.append(
                    f"[... and {rest:,} more reason(s), left out here: this list is capped at "
                    f"{cap:,} characters (build_output_cap) ...]" + ("" if separator else "\n")
                )
            break
        parts.append(item)
        used += len(item) + len(separator)
    return separator.join(parts)


def accept_answer(
    root: Path, completion: Completion, settings: Settings, guard: Guard | None = None, need_blocks: bool = False
) -> Plan:
    """Parse and guard an answer; raise AnswerRefused if any part of it cannot be applied (or, with
    `need_blocks`, if it has no block at all: prose alone is no answer to a dry run)."""
    if completion.stop_reason == "max_tokens":
        raise AnswerRefused(
            f"the answer was still cut off at the output limit ({settings.max_tokens} tokens) after "
            f"{completion.continuations} continuation(s) of at most {MAX_CONTINUATIONS}, so none of it was "
            "applied; give fewer or smaller files"
        )
    if completion.stop_reason == ANSWER_TOO_LARGE:
        raise AnswerRefused(
            f"the answer was longer than code-commit reads ({answer_byte_cap(settings, MAX_CONTINUATIONS):,} bytes, "
            "max_answer_bytes), so the rest of it was not read and none of it was applied; give fewer or smaller "
            "files, or edit blocks instead of whole files"
        )
    if completion.stop_reason == "refusal":
        raise AnswerRefused("the model declined to answer (stop reason: refusal), so nothing was applied")
    return checked_plan(root, completion.text, settings, guard=guard, need_edits=need_blocks)


def _applied(run: RunContext, plan: Plan, call: int) -> None:
    state, log = run.state, run.log
    # A delete of a file that never existed removed nothing: no FILE REMOVED for it.
    state.named.update(path for path in plan.final if path not in plan.missing_deletes)
    state.refusal = None  # an answer was applied: the run is no longer one where all were refused
    for change in plan.changes:
        if change.content is None:
            state.deletes.add(change.path)
        else:
            state.deletes.discard(change.path)
    for path in plan.missing_deletes:
        log.event(f"call {call}: delete of {path} skipped: the file does not exist")
    written = sum(c.content is not None for c in plan.changes)
    deleted = len(plan.changes) - written
    run.console.info(f"applied: {count(written, 'file')} written, {deleted} deleted")
    log.event(
        f"call {call}: applied "
        + ", ".join(f"{'deleted' if c.content is None else 'wrote'} {c.path}" for c in plan.changes)
    )


def current_files(root: Path, paths: set[str], cap: int) -> dict[str, str | None]:
    """What each path holds now, as the repair prompt shows it: the file's current data, not what the
    model wrote (a formatter in build.sh may have changed it). None: there is no regular file there
    now, or only through a symlink, which is never followed. Bytes that are not UTF-8 show as U+FFFD
    (a reviewed file keeps the original bytes of the hunks rejected, which need not be UTF-8).

    A file the build grew past `cap` bytes (the most an answer may hold, so no answer wrote it so) is
    not read whole: the prompt says so instead, and the build cannot make the next request huge."""
    current: dict[str, str | None] = {}
    with Tree(root) as tree:
        for path in sorted(paths):
            try:
                data = tree.read(path, cap + 1)
            except OSError:
                current[path] = None
                continue
            current[path] = (
                data.decode("utf-8", "replace")
                if len(data) <= cap
                else f"[code-commit: the build left this file over {cap:,} bytes (max_answer_bytes), more than "
                "an answer may hold; its content is not shown]\n"
            )
    return current


def _finish(
    workspace: Workspace, options: RunOptions, log: RunLog, console: Console, outcome: Outcome, originals: Originals
) -> None:
    """The end of every run that has a folder: revert if asked, then write summary.json. Never
    raises: each step that fails unexpectedly becomes the run's error, unless it already has one."""
    if options.revert_on_failure and not outcome.passed and originals.files:
        _survive(outcome, log, lambda: _revert(workspace, log, console, outcome, originals))
    if outcome.error is not None:
        _survive(outcome, log, lambda: log.event(f"run ended: {outcome.error}"))
    _survive(outcome, log, lambda: log.write_file(SUMMARY_FILE, summarize(outcome).to_json()))


def _revert(workspace: Workspace, log: RunLog, console: Console, outcome: Outcome, originals: Originals) -> None:
    proposal = originals.patch(workspace.root, log.redact)  # bytes: byte for byte
    outcome.patch = write_patch(log.folder / "final.patch", proposal, log.redact)
    problems = originals.restore(workspace.root)
    outcome.reverted = not problems
    for problem in problems:
        console.error(f"could not revert {problem}")
    log.event(f"reverted {count(len(originals.files), 'file')}; the proposal is in final.patch")
    console.info(f"reverted the run's changes; its final proposal is saved in {outcome.patch}")


def _survive(outcome: Outcome, log: RunLog, step: Callable[[], object]) -> None:
    """A step of a run's ending, which must not stop the steps after it: an unexpected exception
    becomes the run's error if it has none yet (the first error is the one that explains the run)."""
    try:
        step()
    except Exception as exc:
        if outcome.error is None:
            outcome.error = internal_error(exc, log.folder, log.redact)
        else:  # the first error's traceback stays; this one is only noted, if the disk lets us
            with contextlib.suppress(Exception):
                log.event(f"while ending the run: {type(exc).__name__}: {exc}")
