"""The loop: initial query -> apply -> build -> up to three repairs -> outcome; and `execute`,
the run around it: take the lock, recover, loop, record how it ended.

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
from .errors import EXIT_BUILD_FAILS, EXIT_OK, AnswerRefused, CodeCommitError, ServiceError, SetupError, exit_code_for
from .guard import Guard
from .llm import Completion, Hooks, Provider, Usage, make_provider
from .llm.catalog import Budget, ModelInfo, load_catalog, prompt_too_long, tokens_at_least
from .llm.transport import MAX_CONTINUATIONS
from .logs import LOGS_DIR, Redactor, RunLog, prune_runs, redacted_logging
from .prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from .revert import Originals
from .review import approve
from .settings import ApiKey, Settings
from .summary import SUMMARY_FILE, summarize
from .ui import Console
from .workspace import ProjectLock, Workspace


@dataclass(frozen=True)
class CallRecord:
    """One model call, as the log, the summary and `--json` report it."""

    call: int
    usage: Usage
    stop_reason: str  # "error" when the call failed and ended the run
    duration: float
    cost_usd: float | None = None  # estimated from the price table; None when the model has no price
    requests: int = 1  # HTTP requests: failed attempts, the answer and its continuations
    retries: int = 0
    continuations: int = 0


@dataclass
class Outcome:
    passed: bool  # the build passes (--dry-run: the answer is acceptable)
    log_dir: Path | None  # None when the run ended before it had a folder (lock held)
    attempts: int = 0  # model calls that produced an answer
    calls: list[CallRecord] = field(default_factory=list)
    files_changed: set[str] = field(default_factory=set)
    files_deleted: set[str] = field(default_factory=set)
    last_build: BuildResult | None = None
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
    def cost_usd(self) -> float | None:
        """The run's estimated cost; None when any call's cost is unknown."""
        costs = [c.cost_usd for c in self.calls]
        return None if None in costs else sum(c for c in costs if c is not None)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return exit_code_for(self.error)
        return EXIT_OK if self.passed else EXIT_BUILD_FAILS


@dataclass(frozen=True)
class RunOptions:
    dry_run: bool = False  # one call, parse and guard, show the diff; write nothing, build nothing
    revert_on_failure: bool = False  # a run that ends without a passing build leaves the tree as it was


@dataclass
class CallMeter:
    """The run's side of the provider's hooks: shows and logs retries and continuations, tallies the
    usage of every answered request (so a call that fails still reports what it used), and asks the
    budget before each request."""

    log: RunLog
    console: Console
    budget: Budget | None = None
    call: int = 0
    usage: Usage = field(default_factory=Usage)

    def hooks(self) -> Hooks:
        return Hooks(notify=self.notify, before_request=self.before_request, on_usage=self.on_usage)

    def start(self, call: int) -> None:
        self.call, self.usage = call, Usage()

    def notify(self, message: str) -> None:
        self.console.warn(f"call {self.call}: {message}")
        self.log.event(f"call {self.call}: {message}")

    def before_request(self, prompt_chars: int) -> None:
        if self.budget is not None:
            self.budget.check(prompt_chars)

    def on_usage(self, usage: Usage) -> None:
        self.usage += usage
        if self.budget is not None:
            self.budget.charge(usage)


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
        system = load_system_prompts(settings=settings)
        model = load_catalog(workspace.root).lookup(settings.model)
        first = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order).redacted(redact)
        check_fits(first, model, settings)
        with (
            stops.watch(settings.timeout),  # SIGINT/SIGTERM and --timeout end the run through `Stopped`
            console.live(enabled=not settings.review),  # a review owns the terminal
            ProjectLock.take(workspace.config_dir, settings.wait_lock, console.info),
            redacted_logging(redact),
        ):
            # (crash recovery of an interrupted apply goes here: under the lock, before the run)
            log = RunLog.create(workspace.config_dir, redact)
            outcome.log_dir = log.folder
            try:
                console.info(f"run log: {log.folder.relative_to(workspace.root)}")
                for old in prune_runs(workspace.config_dir / LOGS_DIR, settings.keep_runs, log.folder):
                    log.event(f"deleted the old run folder {old.name} (keep_runs = {settings.keep_runs})")
                budget = None if settings.max_cost is None else Budget(settings.max_cost, model, settings.max_tokens)
                meter = CallMeter(log, console, budget)
                provider = provider or make_provider(settings, key, meter.hooks())
                loop = dry_run if options.dry_run else repair_loop
                loop(workspace, settings, system, provider, log, console, model=model, meter=meter, outcome=outcome)
            except (CodeCommitError, stops.Stopped) as exc:
                outcome.error = stops.error_of(exc)
            finally:
                outcome.duration = time.monotonic() - started
                with stops.shielded(final=True):
                    report_totals(outcome, log, console)
                    _finish(workspace, options, log, console, outcome)
    except (CodeCommitError, stops.Stopped) as exc:
        if outcome.log_dir is None:  # no folder yet (setup, lock); later, the record is written and stands
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


def check_fits(prompt: Prompt, model: ModelInfo, settings: Settings) -> None:
    """Before anything is sent: SetupError (exit 2) when the first prompt cannot fit the model's context,
    or when --max-cost cannot be enforced for want of a price."""
    chars = len(prompt.render())
    if model.context_window is not None and tokens_at_least(chars) > model.context_window:
        raise SetupError(
            prompt_too_long(model.model, chars, f"its context is {model.context_window:,} tokens")
            + " Nothing was sent."
        )
    if settings.max_cost is not None and model.price is None:
        raise SetupError(
            f"--max-cost needs a price for {model.model}, and the price table has none: add one to "
            f'agent-config/config.toml as [models."{model.model}"] with input and output in US dollars '
            "per million tokens."
        )


def dry_run(
    workspace: Workspace,
    settings: Settings,
    system: SystemPrompts,
    provider: Provider,
    log: RunLog,
    console: Console,
    *,
    model: ModelInfo,
    meter: CallMeter,
    outcome: Outcome,
) -> Outcome:
    """--dry-run: one model call, then parse and guard; keep the diff of what would change."""
    prompt = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order).redacted(log.redact)
    completion = _ask(provider, prompt, settings, log, console, model, meter, outcome, 1, 1)
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
    *,
    model: ModelInfo | None = None,
    meter: CallMeter | None = None,
    outcome: Outcome | None = None,
) -> Outcome:
    """Fills `outcome` as it goes, so a run stopped half-way still reports what it did."""
    model = model or load_catalog(workspace.root).lookup(settings.model)
    meter = meter or CallMeter(log, console)
    outcome = outcome if outcome is not None else Outcome(passed=False, log_dir=log.folder)
    replacements: dict[str, str | None] = {}  # latest state of every file the run touched
    feedback: Feedback | None = None
    calls = 1 + settings.max_repairs
    for call in range(1, calls + 1):
        if feedback is None:
            prompt = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order)
        else:
            prompt = repair_prompt(
                system, feedback, workspace.query, workspace.codebase, replacements, settings.prompt_order
            )
        completion = _ask(
            provider, prompt.redacted(log.redact), settings, log, console, model, meter, outcome, call, calls
        )

        try:
            plan = accept_answer(workspace.root, completion, settings)
            approved = approve(workspace.root, plan, call, settings, log, console)  # --review, --diff
            with stops.shielded():  # a signal waits until the apply is complete (or rolled back) and recorded
                outcome.originals.remember(workspace.root, approved.plan)
                apply_plan(workspace.root, approved.plan)
                _record(approved.plan, replacements, outcome, log, call, console)
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
        feedback = Feedback(output_for_prompt(result, settings.build_output_cap) + approved.note)
    console.info(f"the build still fails after {settings.max_repairs} repairs")
    return outcome


def _ask(
    provider: Provider,
    prompt: Prompt,
    settings: Settings,
    log: RunLog,
    console: Console,
    model: ModelInfo,
    meter: CallMeter,
    outcome: Outcome,
    call: int,
    calls: int,
) -> Completion:
    """One model call, logged and recorded in the outcome as soon as it returns, or fails."""
    log.write(call, "query.txt", prompt.render())
    kind = "initial query" if call == 1 else f"repair {call - 1} of {settings.max_repairs}"
    console.attempt(call, calls)
    console.step(f"call {call}/{calls} ({kind}): asking {settings.model}", f"asking {settings.model}")
    meter.start(call)
    started = time.monotonic()
    try:
        completion = provider.complete(prompt, on_text=console.receiving)
    except (CodeCommitError, stops.Stopped) as exc:
        # The run ends here; what the call used before it failed still counts and is logged.
        record = CallRecord(call, meter.usage, "error", time.monotonic() - started, model.cost(meter.usage))
        outcome.calls.append(record)
        log.write(call, "usage.txt", _usage_file(record))
        log.event(f"{_usage_line(record)} error: {stops.error_of(exc)}")
        raise
    record = CallRecord(
        call,
        completion.usage,
        completion.stop_reason,
        completion.duration,
        model.cost(completion.usage),
        completion.requests,
        completion.retries,
        completion.continuations,
    )
    outcome.attempts = call
    outcome.calls.append(record)
    log.write(call, "response.txt", completion.text)
    log.write(call, "usage.txt", _usage_file(record))
    log.event(_usage_line(record))
    console.info(f"call {call}: {_usage_summary(record.usage, record.cost_usd)}, {record.duration:.1f} s")
    console.spent(outcome.usage, outcome.cost_usd)
    console.detail(_prose(completion.text))  # -v
    if completion.stop_reason == "model_context_window_exceeded":
        raise ServiceError(
            prompt_too_long(settings.model, len(prompt.render()), "the answer ran into the end of its context")
        )
    return completion


def _prose(answer: str) -> str:
    """The answer's words before its first block: the model's explanation."""
    lines = []
    for line in answer.splitlines():
        if line.startswith("^^^"):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def accept_answer(root: Path, completion: Completion, settings: Settings) -> Plan:
    """Parse and guard an answer; raise AnswerRefused if any part of it cannot be applied."""
    if completion.stop_reason == "max_tokens":
        raise AnswerRefused(
            f"the answer was still cut off at the output limit ({settings.max_tokens} tokens) after "
            f"{completion.continuations} continuation(s) of at most {MAX_CONTINUATIONS}, so none of it was "
            "applied; give fewer or smaller files"
        )
    if completion.stop_reason == "refusal":
        raise AnswerRefused("the model declined to answer (stop reason: refusal), so nothing was applied")
    edits = parse_answer(completion.text)
    return plan_changes(root, edits, Guard(root, settings.protected), allow_delete=settings.allow_delete)


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


def report_totals(outcome: Outcome, log: RunLog, console: Console) -> None:
    """The run's tokens and estimated cost, on the console and in run.log."""
    if outcome.calls:
        console.info(f"total for {len(outcome.calls)} call(s): {_usage_summary(outcome.usage, outcome.cost_usd)}")
        log.event(f"run total: calls={len(outcome.calls)} {_pairs(_usage_fields(outcome.usage, outcome.cost_usd))}")


def _usage_fields(usage: Usage, cost: float | None) -> dict[str, object]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cached_share": f"{usage.cached_share:.2f}",
        "cost_usd": "unknown" if cost is None else f"{cost:.6f}",
    }


def _record_fields(record: CallRecord) -> dict[str, object]:
    return {
        "stop_reason": record.stop_reason,
        **_usage_fields(record.usage, record.cost_usd),
        "requests": record.requests,
        "retries": record.retries,
        "continuations": record.continuations,
        "duration_s": f"{record.duration:.2f}",
    }


def _pairs(fields: dict[str, object]) -> str:
    return " ".join(f"{name}={value}" for name, value in fields.items())


def _usage_line(record: CallRecord) -> str:
    return f"call {record.call}: {_pairs(_record_fields(record))}"


def _usage_file(record: CallRecord) -> str:
    """NN-usage.txt: the call's record, one `name: value` a line."""
    return "".join(f"{name}: {value}\n" for name, value in {"call": record.call, **_record_fields(record)}.items())


def _usage_summary(usage: Usage, cost: float | None) -> str:
    """For the console: tokens, the cached share of the input, and the estimated cost."""
    money = "cost unknown (no price for this model)" if cost is None else f"~${cost:.4f}"
    return (
        f"{usage.all_input_tokens:,} input tokens ({usage.cached_share:.0%} from cache), "
        f"{usage.output_tokens:,} output tokens, {money}"
    )
