"""The loop: initial query -> apply -> build -> up to three repairs -> outcome.

Control flow by exceptions: a refused answer is `AnswerRefused` (it uses up the attempt and
its reasons become the next prompt's feedback); anything that ends the run early is a
`CodeCommitError` that `cli` maps to an exit code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .apply import Plan, apply_plan, plan_changes
from .build import BuildResult, output_for_prompt, run_build
from .edits import parse_answer
from .errors import AnswerRefused, CodeCommitError, ServiceError, SetupError
from .guard import Guard
from .llm import Completion, Hooks, Provider, Usage, make_provider
from .llm.catalog import Budget, ModelInfo, load_catalog, prompt_too_long, tokens_at_least
from .llm.transport import MAX_CONTINUATIONS
from .logs import Redactor, RunLog, redacted_logging
from .prompts import Feedback, Prompt, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt
from .review import approve
from .settings import ApiKey, Settings
from .ui import Console
from .workspace import Workspace


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

    @property
    def cost_usd(self) -> float | None:
        """The run's estimated cost; None when any call's cost is unknown."""
        costs = [c.cost_usd for c in self.calls]
        return None if None in costs else sum(c for c in costs if c is not None)


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


def execute(workspace: Workspace, key: ApiKey, settings: Settings, console: Console) -> Outcome:
    """Run the loop on a checked setup (see `workspace.check_setup`)."""
    system = load_system_prompts(settings=settings)
    redact = Redactor.of([key.value])
    console.redact = redact
    model = load_catalog(workspace.root).lookup(settings.model)
    first = initial_prompt(system, workspace.query, workspace.codebase, settings.prompt_order).redacted(redact)
    check_fits(first, model, settings)
    log = RunLog.create(workspace.config_dir, redact)
    console.info(f"run log: {log.folder.relative_to(workspace.root)}")
    budget = None if settings.max_cost is None else Budget(settings.max_cost, model, settings.max_tokens)
    meter = CallMeter(log, console, budget)
    outcome = Outcome(passed=False, log_dir=log.folder)
    with redacted_logging(redact):
        try:
            provider = make_provider(settings, key, meter.hooks())
            return repair_loop(
                workspace, settings, system, provider, log, console, model=model, meter=meter, outcome=outcome
            )
        finally:
            report_totals(outcome, log, console)  # also when a call fails or the run is interrupted


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
        prompt = prompt.redacted(log.redact)
        log.write(call, "query.txt", prompt.render())
        kind = "initial query" if call == 1 else f"repair {call - 1} of {settings.max_repairs}"
        console.info(f"call {call}/{calls} ({kind}): asking {settings.model}")

        meter.start(call)
        started = time.monotonic()
        try:
            completion = provider.complete(prompt)
        except CodeCommitError as exc:
            # The run ends here; what the call used before it failed still counts and is logged.
            record = CallRecord(call, meter.usage, "error", time.monotonic() - started, model.cost(meter.usage))
            outcome.calls.append(record)
            log.write(call, "usage.txt", _usage_file(record))
            log.event(f"{_usage_line(record)} error: {exc}")
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
        if completion.stop_reason == "model_context_window_exceeded":
            raise ServiceError(
                prompt_too_long(settings.model, len(prompt.render()), "the answer ran into the end of its context")
            )

        try:
            plan = accept_answer(workspace.root, completion, settings)
            approved = approve(workspace.root, plan, call, settings, log, console)  # --review, --diff
            apply_plan(workspace.root, approved.plan)
        except AnswerRefused as refusal:
            reasons = "\n".join(f"- {r}" for r in refusal.reasons)
            log.write(call, "refused.txt", reasons + "\n")
            console.warn(f"answer refused, nothing was written:\n{reasons}")
            feedback = Feedback(f"Your previous answer was refused; nothing in it was applied.\n{reasons}\n", True)
            continue
        _record(approved.plan, replacements, outcome, log, call, console)

        console.info("running build.sh")
        result = run_build(workspace.root, log.path(call, "build.txt"), log.redact, settings.build_timeout)
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
    return plan_changes(root, edits, Guard(root), allow_delete=settings.allow_delete)


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
