"""The loop: initial query -> apply -> build -> up to three repairs -> outcome; and `execute`,
the run around it: take the lock, recover, loop, record how it ended.

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` (or a `stops.Stopped` from a signal or the time limit), which `execute`
records in the outcome, so every ending gets the same record and exit code. Any other
exception is a bug or the environment failing (a full disk): `execute` records it as an
`InternalError` (exit 9), with its traceback in the run folder, and still writes the record.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import stops
from .apply import MatchLimits, Plan, apply_plan, plan_changes
from .build import output_for_prompt
from .calls import CallMeter, ask, check_fits, report_totals
from .diffs import change_diff, patch_of, plan_changes_on_disk, write_patch
from .edits import parse_answer
from .errors import AnswerRefused, CodeCommitError, error_of
from .guard import Guard, check_git_index
from .journal import recover
from .llm import Completion, Provider, make_provider
from .llm.catalog import Budget, ModelInfo, load_catalog
from .llm.endpoint import Endpoint
from .llm.transport import ANSWER_TOO_LARGE, MAX_CONTINUATIONS
from .logs import LOGS_DIR, Redactor, RunLog, internal_error, prune_runs, redacted_logging
from .outcome import Outcome, RunOptions, Service
from .preflight import untracked_in_rollup, untracked_warning
from .prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from .review import approve
from .sandbox import Sandbox, choose
from .secrets import collect_secrets
from .settings import ApiKey, Settings, answer_byte_cap, run_time_limit
from .summary import SUMMARY_FILE, summarize
from .tamper import checked_build, not_dumpable
from .terminal import unattended
from .tree import Tree
from .ui import Console
from .words import count
from .workspace import ProjectLock, Workspace


@dataclass(frozen=True)
class RunContext:
    """What every step of one run shares."""

    workspace: Workspace
    settings: Settings
    system: SystemPrompts
    provider: Provider
    model: ModelInfo
    meter: CallMeter
    log: RunLog
    console: Console
    outcome: Outcome
    sandbox: Sandbox

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
    """A whole run on a checked setup (see `workspace.check_setup`): take the lock, recover, loop,
    and record how it ended. Never raises for an ending the user should see: the outcome carries it,
    an unexpected exception included (as an `InternalError`).
    """
    started = time.monotonic()
    options = options or RunOptions()
    console.redact = redact = Redactor.of([key.value] if key else [])
    outcome = Outcome(passed=False, log_dir=None, dry_run=options.dry_run)
    served_by = settings.provider if provider is None else str(getattr(provider, "name", type(provider).__name__))
    outcome.service = Service(served_by, settings.model, endpoint.host if endpoint else None)
    try:
        secrets = collect_secrets(workspace.root, redact_env=settings.redact_env)
        console.redact = redact = secrets.redactor(key.value if key else "")
        system = load_system_prompts(settings=settings)
        model = load_catalog(workspace.root).lookup(settings.model)
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
        with (
            not_dumpable(),  # the key in this process's environment and memory, out of same-user reach
            stops.watch(limit, limit_source),  # SIGINT/SIGTERM and the time limit end the run through `Stopped`
            console.live(enabled=not settings.review),  # a review owns the terminal
            ProjectLock.take(workspace.config_dir, settings.wait_lock, console.info),
            redacted_logging(redact),
        ):
            log = RunLog.create(workspace.config_dir, redact)
            outcome.log_dir = log.folder
            try:
                console.info(f"run log: {log.folder.relative_to(workspace.root)}")
                where = f" at {endpoint.describe()}" if endpoint else ""
                log.event(f"model {settings.model} from the {served_by} service{where}")
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
                # An apply a killed run left half done.
                for line in recover(workspace.root, settings.protected_patterns).lines():
                    log.event(f"recovery: {line}")
                    console.warn(f"recovery: {line}")
                for old in prune_runs(workspace.config_dir / LOGS_DIR, settings.keep_runs, log.folder):
                    log.event(f"deleted the old run folder {old.name} (keep_runs = {settings.keep_runs})")
                budget = None if settings.max_cost is None else Budget(settings.max_cost, model, settings.max_tokens)
                meter = CallMeter(log, console, budget)
                provider = provider or make_provider(settings, key, meter.hooks(), endpoint)
                run = RunContext(workspace, settings, system, provider, model, meter, log, console, outcome, sandbox)
                (dry_run if options.dry_run else repair_loop)(run)
            except (CodeCommitError, stops.Stopped) as exc:
                outcome.error = error_of(exc)
            except Exception as exc:  # the last line of defence: a bug, or the disk, never "build fails"
                outcome.error = internal_error(exc, log.folder, redact)
            finally:
                outcome.duration = time.monotonic() - started
                with stops.shielded(final=True):
                    _survive(
                        outcome,
                        log,
                        lambda: report_totals(outcome.calls, outcome.usage, outcome.cost_usd, log, console),
                    )
                    _finish(workspace, options, log, console, outcome)
    except (CodeCommitError, stops.Stopped) as exc:
        if outcome.log_dir is None:  # no folder yet (setup, lock); later, the record is written and stands
            outcome.error = error_of(exc)
            outcome.duration = time.monotonic() - started
    except Exception as exc:
        if outcome.log_dir is None:
            outcome.error = internal_error(exc, None, redact)
            outcome.duration = time.monotonic() - started
    return outcome


def repair_loop(run: RunContext) -> None:
    """Fills `run.outcome` as it goes, so a run stopped half-way still reports what it did."""
    workspace, settings, log, console, outcome = run.workspace, run.settings, run.log, run.console, run.outcome
    touched: set[str] = set()  # every file the run wrote or deleted
    feedback: Feedback | None = None
    warned: set[str] = set()  # guard warnings already shown
    calls = 1 + settings.max_repairs
    for call in range(1, calls + 1):
        if feedback is None:
            prompt = run.initial_prompt()
        else:
            replacements = current_files(workspace.root, touched)  # after the build, which may format them
            prompt = repair_prompt(
                run.system, feedback, workspace.query, workspace.codebase, replacements, settings.prompt_order
            ).redacted(log.redact)
        completion = ask(run, prompt, call, calls)

        guard = Guard(workspace.root, settings.protected_patterns, created=outcome.originals.created())
        try:
            plan = accept_answer(workspace.root, completion, settings, guard)
            approved = approve(workspace.root, plan, call, settings, log, console)  # --review, --diff
            with stops.shielded():  # a signal waits until the apply is complete (or rolled back) and recorded
                recorded = outcome.originals.remember(workspace.root, approved.plan)
                try:
                    apply_plan(workspace.root, approved.plan, log.path(call, "journal"))
                except AnswerRefused:  # a write failed and everything was put back
                    outcome.originals.forget(recorded)
                    raise
                _record(approved.plan, touched, outcome, log, call, console)
        except AnswerRefused as refusal:
            log.write(call, "refused.txt", "".join(f"- {r}\n" for r in refusal.reasons))  # every reason
            reasons = listed(refusal.reasons, settings.build_output_cap)
            console.warn(f"answer refused, nothing was written:\n{reasons}")
            feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}", True)
            outcome.refusal = (
                f"no answer could be applied: all {call} were refused, so no build ran; "
                f"the last one because: {listed(refusal.reasons, settings.build_output_cap, '; ')}"
            )
            continue
        finally:
            for warning in [w for w in guard.warnings if w not in warned]:  # invalid ignore lines, once a run
                warned.add(warning)
                log.event(f"call {call}: {warning}")
                console.warn(warning)

        console.step("running build.sh")
        result = checked_build(
            workspace.root,
            log.folder,
            log.path(call, "build.txt"),
            log.redact,
            settings,
            run.sandbox,
            on_output=console.build_output,
            on_note=lambda note: _once(note, warned, log, console),
        )
        outcome.last_build = result
        log.event(f"call {call}: {result.describe()}")
        if result.passed:
            console.info(f"build passes ({result.describe()})")
            outcome.passed = True
            return
        console.info(f"build fails: {result.describe()}")
        feedback = Feedback(output_for_prompt(result, settings.build_output_cap) + approved.note)
    if outcome.last_build is None:
        console.info(f"no answer could be applied: all {calls} were refused, so no build ran")
    else:
        console.info(f"the build still fails after {settings.max_repairs} repairs")


def _once(note: str, warned: set[str], log: RunLog, console: Console) -> None:
    if note not in warned:
        warned.add(note)
        log.event(note)
        console.warn(note)


def dry_run(run: RunContext) -> None:
    """--dry-run: one model call, then parse and guard; keep the diff of what would change."""
    completion = ask(run, run.initial_prompt(), 1, 1)
    root, log = run.workspace.root, run.log
    try:
        plan = accept_answer(root, completion, run.settings, need_blocks=True)
    except AnswerRefused as refusal:
        log.write(1, "refused.txt", "".join(f"- {r}\n" for r in refusal.reasons))
        cap = run.settings.build_output_cap
        run.console.warn(f"the answer would be refused:\n{listed(refusal.reasons, cap)}")
        run.outcome.refusal = f"the answer would be refused: {listed(refusal.reasons, cap, '; ')}"
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
    edits = parse_answer(completion.text)
    if need_blocks and not edits:
        raise AnswerRefused("the answer has no ^^^ blocks, so there is nothing to apply")
    guard = guard or Guard(root, settings.protected_patterns)
    return plan_changes(root, edits, guard, allow_delete=settings.allow_delete, limits=MatchLimits.of(settings))


def _record(plan: Plan, touched: set[str], outcome: Outcome, log: RunLog, call: int, console: Console) -> None:
    # A delete of a file that never existed removed nothing: no FILE REMOVED for it.
    touched.update(path for path in plan.final if path not in plan.missing_deletes)
    outcome.refusal = None  # an answer was applied: the run is no longer one where all were refused
    created = outcome.originals.created()
    for change in plan.changes:
        if change.content is None:
            if change.path not in created:  # one the run created and deleted again is no change at all
                outcome.files_deleted.add(change.path)
            outcome.files_changed.discard(change.path)
        else:
            outcome.files_changed.add(change.path)
            outcome.files_deleted.discard(change.path)
    for path in plan.missing_deletes:
        log.event(f"call {call}: delete of {path} skipped: the file does not exist")
    written = sum(c.content is not None for c in plan.changes)
    deleted = len(plan.changes) - written
    console.info(f"applied: {count(written, 'file')} written, {deleted} deleted")
    log.event(
        f"call {call}: applied "
        + ", ".join(f"{'deleted' if c.content is None else 'wrote'} {c.path}" for c in plan.changes)
    )


def current_files(root: Path, paths: set[str]) -> dict[str, str | None]:
    """What each path holds now, as the repair prompt shows it: the file's current data, not what the
    model wrote (a formatter in build.sh may have changed it). None: there is no regular file there
    now, or only through a symlink, which is never followed. Bytes that are not UTF-8 show as U+FFFD
    (a reviewed file keeps the original bytes of the hunks rejected, which need not be UTF-8)."""
    current: dict[str, str | None] = {}
    with Tree(root) as tree:
        for path in sorted(paths):
            try:
                current[path] = tree.read(path).decode("utf-8", "replace")
            except OSError:
                current[path] = None
    return current


def _finish(workspace: Workspace, options: RunOptions, log: RunLog, console: Console, outcome: Outcome) -> None:
    """The end of every run that has a folder: revert if asked, then write summary.json. Never
    raises: each step that fails unexpectedly becomes the run's error, unless it already has one."""
    if options.revert_on_failure and not outcome.passed and outcome.originals.files:
        _survive(outcome, log, lambda: _revert(workspace, log, console, outcome))
    if outcome.error is not None:
        _survive(outcome, log, lambda: log.event(f"run ended: {outcome.error}"))
    _survive(outcome, log, lambda: log.write_file(SUMMARY_FILE, summarize(outcome).to_json()))


def _revert(workspace: Workspace, log: RunLog, console: Console, outcome: Outcome) -> None:
    proposal = outcome.originals.patch(workspace.root, log.redact)  # bytes: byte for byte
    outcome.patch = write_patch(log.folder / "final.patch", proposal, log.redact)
    problems = outcome.originals.restore(workspace.root)
    outcome.reverted = not problems
    for problem in problems:
        console.error(f"could not revert {problem}")
    log.event(f"reverted {count(len(outcome.originals.files), 'file')}; the proposal is in final.patch")
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
