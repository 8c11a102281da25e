"""The loop: initial query -> apply -> build -> up to three repairs; and `execute`, the run around
it, through the orchestrator (run/orchestrator.py): the setup checks, the session, the record.

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` (or a `Stopped` from a signal or the time limit), which the session records,
so every ending gets the same record and exit code. Any other exception is a bug or the
environment failing (a full disk): the session records it as an `InternalError` (exit 9), with
its traceback in the run folder, and the record is still written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from code_commit import stops
from code_commit.answer.accept import accept_answer
from code_commit.answer.plan import AnswerRefused, Plan
from code_commit.builds.changes import Before
from code_commit.builds.output import output_for_prompt
from code_commit.config.keys import ApiKey
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings, output_limit
from code_commit.console.output import Console
from code_commit.console.plural import count
from code_commit.errors import CodeCommitError, Stopped
from code_commit.events.kinds import Observer, ignore
from code_commit.files.confined import Tree
from code_commit.guard.policy import Guard
from code_commit.llm import Completion, Provider, make_provider
from code_commit.llm.catalog import Budget, load_catalog, model_notes, with_output_limit
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from code_commit.logs.run_folder import DRY_RUN_PATCH, FINAL_PATCH
from code_commit.logs.run_log import RunLog
from code_commit.review.diffs import change_diff, patch_of, plan_changes_on_disk, write_patch
from code_commit.review.interactive import Approved, approve
from code_commit.rollup.failure_context import context_cap, failure_context, read_build_log
from code_commit.rollup.framing import shown_paths
from code_commit.run.built_trees import BuiltTrees
from code_commit.run.model_calls import Caller, CallMeter, check_fits, report_totals, with_server_context
from code_commit.run.orchestrator import Orchestrator
from code_commit.run.preflight import stale_rollup, untracked_in_rollup, untracked_warning
from code_commit.run.record import RunRecord, first_errors
from code_commit.run.revert import Originals, build_originals
from code_commit.run.signals import TimeLimit
from code_commit.run.workspace import Workspace


@dataclass(frozen=True)
class RunOptions:
    dry_run: bool = False  # one call, parse and guard, show the diff; write nothing, build nothing
    revert_on_failure: bool = False  # a run that ends without a passing build leaves the tree as it was


@dataclass
class _LoopState:
    """The loop's working state, apart from the record: the record takes its facts from here when the
    run ends (`into`), however it ends."""

    originals: Originals = field(default_factory=Originals)  # each file the run changed, as it was first
    deletes: set[str] = field(default_factory=set)  # of those, the ones the run's last word deletes
    named: set[str] = field(default_factory=set)  # every path an applied answer named: the repair prompt shows them
    feedback: Feedback | None = None  # for the next repair prompt: the build's output, or a refusal's reasons
    failed_build: Path | None = None  # the log of the build that failed, while it is the feedback
    refusal: AnswerRefused | None = None  # the last answer's refusal, while no answer has been applied
    refusal_text: str | None = None  # that refusal as the record states it
    trees: BuiltTrees = field(default_factory=BuiltTrees)  # what each build started from: none is built twice

    def into(self, record: RunRecord) -> None:
        """The run's net change to the tree, and its refusal, into the record."""
        record.files_changed = {path for path in self.originals.files if path not in self.deletes}
        created = self.originals.created()  # one the run created and deleted again is no change at all
        record.files_deleted = {path for path in self.deletes if path not in created}
        record.refusal = self.refusal_text
        record.problems = list(self.refusal.problems) if self.refusal else []


@dataclass(frozen=True)
class _RunContext:
    """What every step of one run shares."""

    workspace: Workspace
    orchestrator: Orchestrator
    system: SystemPrompts
    caller: Caller
    state: _LoopState

    @property
    def settings(self) -> Settings:
        return self.orchestrator.settings

    @property
    def log(self) -> RunLog:
        return self.orchestrator.log

    @property
    def record(self) -> RunRecord:
        return self.orchestrator.record

    def initial_prompt(self) -> Prompt:
        return initial_prompt(
            self.system, self.workspace.query, self.workspace.codebase, self.settings.prompt_order
        ).redacted(self.log.redact)


def execute(
    workspace: Workspace,
    key: ApiKey | None,
    settings: Settings,
    console: Console,
    limit: TimeLimit,
    options: RunOptions | None = None,
    provider: Provider | None = None,
    endpoint: Endpoint | None = None,
    observe: Observer = ignore,
) -> RunRecord:
    """A whole run on a checked setup (see `workspace.check_setup`), under the watch of `limit`
    (started by the command): the checks before any call, then the loop in a session, which records
    how it ended; `observe` is told what happens (--events). Never raises for an ending the user
    should see: the record carries it, an unexpected exception in the session included (as an
    `InternalError`). An unexpected exception
    before the session (a bug in a setup check) is the command's last line of defence's
    (`cli._guarded`): exit 9 all the same.
    """
    options = options or RunOptions()
    record = RunRecord("run", dry_run=options.dry_run)
    orchestrator = Orchestrator(
        workspace.root, settings, console, record, limit, reverts=options.revert_on_failure, observe=observe
    )
    console.redact = Redactor.of(key.censored if key else [])
    served_by = settings.provider if provider is None else str(getattr(provider, "name", type(provider).__name__))
    record.provider, record.model = served_by, settings.model
    record.endpoint_host = endpoint.host if endpoint else None
    state = _LoopState()
    try:
        git = orchestrator.prepare(censored=key.censored if key else (), builds=not options.dry_run)
        stale, fresh = stale_rollup(workspace.root, git, workspace.codebase, workspace.query, settings)
        if fresh is not None:
            workspace = replace(workspace, codebase=fresh)
        if stale and fresh is None:
            console.warn(stale)
        elif stale:
            console.info(stale)
        system = load_system_prompts(settings=settings)
        model = with_server_context(load_catalog(workspace.root).lookup(settings.model), settings, endpoint, key)
        settings = orchestrator.settings = with_output_limit(settings, model)  # max_tokens: the model's, if unset
        redact = orchestrator.redact
        first = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order).redacted(redact)
        check_fits(first, model, settings)
        untracked = untracked_warning(untracked_in_rollup(workspace.root, git, workspace.codebase))
        if untracked:
            console.warn(untracked)

        def begin(log: RunLog) -> None:
            where = f" at {endpoint.describe()}" if endpoint else ""
            log.event(f"model {settings.model} from the {served_by} service{where}")
            for note in model_notes(model, settings):
                log.event(note)
                console.info(note)
            if stale:
                log.event(stale if fresh is not None else f"warning: {stale}")
            if untracked:
                log.event(f"warning: {untracked}")

        def finish(log: RunLog) -> None:
            state.into(record)
            orchestrator.survive(lambda: report_totals(record, log, console))
            built = orchestrator.watch.originals if orchestrator.watch else {}
            if options.revert_on_failure and not record.passed and (state.originals.files or built):
                orchestrator.survive(lambda: _revert(workspace, orchestrator, state.originals, built))

        # No live view with --review: the review owns the terminal.
        with orchestrator.session(live=not settings.review, begin=begin, finish=finish) as log:
            budget = None if settings.max_cost is None else Budget(settings.max_cost, model, output_limit(settings))
            meter = CallMeter(log, console, budget, model=model)
            provider = provider or make_provider(settings, key, meter.hooks(), endpoint, model)
            caller = Caller(provider, model, meter, settings, record, observe)
            run = _RunContext(workspace, orchestrator, system, caller, state)
            (dry_run if options.dry_run else _repair_loop)(run)
    except (CodeCommitError, Stopped) as exc:  # the session has recorded it, if it had begun
        record.ended_by(exc, orchestrator.elapsed())
    return record


def _repair_loop(run: _RunContext) -> None:
    """Ask; apply the answer, or take its refusal as the next call's feedback; build; and while the
    build fails, ask again with its output, up to `max_repairs` times."""
    settings, console, record, state = run.settings, run.orchestrator.console, run.record, run.state
    calls = 1 + settings.max_repairs
    run.orchestrator.take_baseline()
    if run.orchestrator.baseline is not None and run.orchestrator.baseline.exit_code != 0:
        state.trees.building(0, {})  # the tree no answer touched failed: an answer that puts it back is not built
    for call in range(1, calls + 1):
        completion = run.caller.ask(_next_prompt(run), call, calls)
        try:
            approved = _apply_answer(run, completion, call)
        except AnswerRefused as refusal:
            refused(run, refusal, call)
            continue
        if _not_built(run, approved.plan, call):
            continue
        result = run.orchestrator.build(call)
        counted = run.orchestrator.judge_counts(result, call) if result.passed and settings.tests != "free" else None
        if result.passed and (counted is None or counted.passed or settings.tests == "report"):
            console.info(f"build passes ({result.describe()})" + (f"; {counted.line()}" if counted else ""))
            if run.orchestrator.new_tests and settings.tests == "protect":
                run.orchestrator.build_new_tests(call)
            record.passed = True
            return
        output = output_for_prompt(result.output, settings.build_output_cap)
        if counted is not None:  # it exited 0, and its own runners say otherwise
            console.info(f"no pass: build.sh exits 0, but the test runners' own counts say no: {counted.reason}")
            output += f"\n[code-commit: no pass: build.sh exited 0, but {counted.reason} ({counted.line()})]\n"
        else:
            console.info(f"build fails: {result.describe()}")
            console.excerpt(first_errors(result))
        state.feedback = Feedback(output + approved.note)
        state.failed_build = result.log_path
    if record.last_build is None and record.answers_without_change:
        console.info(str(record.message))
    elif record.last_build is None:
        console.info(f"no answer could be applied: all {calls} were refused, so no build ran")
    else:
        console.info(f"the build still fails after {settings.max_repairs} repairs")


def _not_built(run: _RunContext, plan: Plan, call: int) -> bool:
    """Whether the tree the applied answer left is not to be built (run/built_trees.py has the rule).
    Then its attempt is used up, counted, and the next prompt says what happened."""
    state, orchestrator = run.state, run.orchestrator
    built = orchestrator.watch.originals if orchestrator.watch else {}
    why = state.trees.decide(plan, call, orchestrator.root, built, state.originals.files)
    if why is None:
        return False
    run.record.answers_without_change += 1
    orchestrator.event(call, f"not built: {why.what}")
    orchestrator.console.warn(f"call {call}: {why.what}; build.sh was not run again (the attempt is used up)")
    state.feedback = why.feedback(state.feedback)
    return True


def _next_prompt(run: _RunContext) -> Prompt:
    """The initial prompt, or a repair prompt: the feedback, the files earlier answers named as they
    are now (after the build, which may have formatted them), and the failure's files."""
    feedback = run.state.feedback
    if feedback is None:
        return run.initial_prompt()
    workspace, settings = run.workspace, run.settings
    replacements = _current_files(workspace.root, run.state.named, settings.answer_byte_cap)
    spec = repair_prompt(run.system, feedback, workspace.query, workspace.codebase, replacements, settings.prompt_order)
    context = _failure_files(run, replacements, len(spec.render())) if not feedback.refused else {}
    if not context:
        return spec.redacted(run.log.redact)
    return repair_prompt(
        run.system, feedback, workspace.query, workspace.codebase, replacements, settings.prompt_order, context
    ).redacted(run.log.redact)


def _failure_files(run: _RunContext, replacements: Mapping[str, str | None], rest: int) -> dict[str, str]:
    """The files the failed build names, and what they import, that the model cannot see whole yet
    (`repair_context = "failure"`), in a share of a prompt whose other sections take `rest` characters."""
    log = run.state.failed_build
    if run.settings.repair_context != "failure" or log is None:
        return {}
    cap = context_cap(rest, run.caller.model.context_window)
    shown = shown_paths(run.workspace.codebase)
    files = failure_context(run.workspace.root, read_build_log(log), shown, replacements, cap, run.log.redact.secrets)
    if files:
        run.log.event(f"repair prompt: the failure's files {', '.join(f.path for f in files)}")
    return {f.path: f.text for f in files}


def _apply_answer(run: _RunContext, completion: Completion, call: int) -> Approved:
    """One answer: parsed, guarded, reviewed (--review, --diff) and applied all or nothing, its
    originals recorded first. Raises AnswerRefused, with nothing written, if any of it cannot be."""
    orchestrator, state = run.orchestrator, run.state
    root, settings = orchestrator.root, orchestrator.settings
    guard = Guard(root, settings.protected_patterns, created=state.originals.created())
    try:
        plan = accept_answer(root, completion, settings, guard, secrets=orchestrator.redact)
        created = state.originals.created()
        judged = orchestrator.judge_tests(plan, call, created)  # before the review: no one reviews a refused answer
        orchestrator.warn_whole_over_dirty(plan, call)  # before the review, which shows it the user first
        approved = approve(root, plan, call, settings, run.log, orchestrator.console)
        if approved.plan is not plan:  # what the supervisor kept of it: its own changes to the tests
            judged = orchestrator.judge_tests(approved.plan, call, created, shown=False)
        with stops.shielded():  # the originals, the apply and their record: one step a stop cannot split
            recorded = state.originals.remember(root, approved.plan)
            try:
                orchestrator.apply(approved.plan, call)
            except AnswerRefused:  # a write failed and everything was put back
                state.originals.forget(recorded)
                raise
            _applied(run, approved.plan, call)
            orchestrator.tests_let_through(judged, approved.plan, call)
        return approved
    finally:
        for warning in guard.warnings:  # invalid ignore lines, once a run
            orchestrator.warn_once(f"call {call}: {warning}", warning)


def refused(run: _RunContext, refusal: AnswerRefused, call: int) -> None:
    """A refused answer uses up its call: its reasons are the next call's feedback."""
    run.orchestrator.refuse(refusal, call)
    cap = run.settings.build_output_cap
    reasons = listed(refusal.reasons, cap)
    run.orchestrator.console.warn(f"answer refused, nothing was written:\n{reasons}")
    run.state.feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}", True)
    run.state.failed_build = None
    run.state.refusal = refusal
    run.state.refusal_text = (
        f"no answer could be applied: all {call} were refused, so no build ran; "
        f"the last one because: {listed(refusal.reasons, cap, '; ')}"
    )


def dry_run(run: _RunContext) -> None:
    """--dry-run: one model call, then parse and guard; keep the diff of what would change."""
    orchestrator, record = run.orchestrator, run.record
    completion = run.caller.ask(run.initial_prompt(), 1, 1)
    root, log = orchestrator.root, run.log
    try:
        plan = accept_answer(root, completion, run.settings, need_blocks=True, secrets=orchestrator.redact)
        orchestrator.tests_let_through(orchestrator.judge_tests(plan, 1), plan, 1)
    except AnswerRefused as refusal:
        orchestrator.refuse(refusal, 1)
        cap = run.settings.build_output_cap
        orchestrator.console.warn(f"the answer would be refused:\n{listed(refusal.reasons, cap)}")
        run.state.refusal = refusal
        run.state.refusal_text = f"the answer would be refused: {listed(refusal.reasons, cap, '; ')}"
        return
    changes = plan_changes_on_disk(root, plan)
    record.diff = log.redact("".join(change_diff(change) for change in changes))  # for reading
    record.patch = write_patch(log.folder / DRY_RUN_PATCH, patch_of(root, changes, log.redact), log.redact)
    orchestrator.console.info(
        f"the answer is acceptable: {count(len(plan.changes), 'file')} would change; nothing was written"
    )
    record.passed = True


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


def _applied(run: _RunContext, plan: Plan, call: int) -> None:
    state, orchestrator = run.state, run.orchestrator
    # A delete of a file that never existed removed nothing: no FILE REMOVED for it.
    state.named.update(path for path in plan.final if path not in plan.missing_deletes)
    state.refusal = state.refusal_text = None  # an answer was applied: the run is no longer one where all were refused
    for change in plan.changes:
        if change.content is None:
            state.deletes.add(change.path)
        else:
            state.deletes.discard(change.path)
    written = sum(c.content is not None for c in plan.changes)
    deleted = len(plan.changes) - written
    if plan.changes:  # an answer that changed nothing is said so in one line (_not_built)
        orchestrator.console.info(f"applied: {count(written, 'file')} written, {deleted} deleted")


def _current_files(root: Path, paths: set[str], cap: int) -> dict[str, str | None]:
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


def _revert(
    workspace: Workspace, orchestrator: Orchestrator, originals: Originals, built: Mapping[str, Before]
) -> None:
    """Every file the answers changed back as it was, and every file git shows that a build changed
    (beyond the answers) back as it was before the run's first build; the proposal saved first."""
    log, console, record = orchestrator.log, orchestrator.console, orchestrator.record
    proposal = originals.patch(workspace.root, log.redact)  # bytes: byte for byte
    record.patch = write_patch(log.folder / FINAL_PATCH, proposal, log.redact)
    # A file the baseline build changed before any answer did is put back as the run found it.
    first = orchestrator.baseline_changed
    by_builds, unrestorable = build_originals(workspace.root, built, [p for p in originals.files if p not in first])
    originals = Originals({path: o for path, o in originals.files.items() if path not in by_builds.files})
    created = Originals({path: o for path, o in by_builds.files.items() if o.content is None})
    for path in created.files:
        del by_builds.files[path]
    problems = originals.restore(workspace.root) + by_builds.restore(workspace.root) + unrestorable
    if problems and created.files:  # one may hold what a file left unrestored held (a build's `mv`)
        problems.append(
            f"{', '.join(sorted(created.files))}: the builds created them; left in place, as not "
            "every file could be put back"
        )
    else:
        problems += created.restore(workspace.root)
    record.reverted = not problems
    for problem in problems:
        console.error(f"could not revert {problem}")
    what = count(len(originals.files), "file")
    if by_builds.files or unrestorable:
        what += f" the answers changed and {count(len(by_builds.files), 'file')} the builds changed"
    log.event(f"reverted {what}; the proposal is in {FINAL_PATCH}")
    console.info(f"reverted the run's changes; its final proposal is saved in {record.patch}")
