"""One model call as a run makes it: checked before anything is sent, metered (retries,
continuations, usage, budget), logged as NN-query/NN-response/NN-usage, and recorded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings
from code_commit.console.output import Console
from code_commit.console.plural import count
from code_commit.errors import CodeCommitError, ServiceError, SetupError, Stopped
from code_commit.events.kinds import CallStart, Observer, ignore
from code_commit.llm import Completion, Hooks, Provider, Tally, Usage
from code_commit.llm.catalog import Budget, ModelInfo, prompt_too_long, tokens_at_least
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Prompt
from code_commit.logs.run_folder import QUERY, RAW_RESPONSE, RESPONSE, THINKING, USAGE
from code_commit.logs.run_log import RunLog
from code_commit.providers import PROVIDERS
from code_commit.run import emitted
from code_commit.run.record import CallRecord, RunRecord


@dataclass
class CallMeter:
    """The run's side of the provider's hooks: shows and logs retries and continuations, keeps the call's
    usage (every answered request and what failed attempts used) and its request counts, so that a call
    that fails still reports both, and asks the budget before each request. Its cost is priced request
    by request: a tiered price depends on each request's own input."""

    log: RunLog
    console: Console
    budget: Budget | None = None
    call: int = 0
    usage: Usage = field(default_factory=Usage)
    tally: Tally = field(default_factory=Tally)
    model: ModelInfo | None = None  # its prices; None: the cost is unknown
    cost: float = 0.0

    def hooks(self) -> Hooks:
        return Hooks(
            notify=self.notify, before_request=self.before_request, on_usage=self.on_usage, on_tally=self.on_tally
        )

    def start(self, call: int) -> None:
        self.call, self.usage, self.tally, self.cost = call, Usage(), Tally(), 0.0

    def on_tally(self, tally: Tally) -> None:
        self.tally = tally

    def notify(self, message: str) -> None:
        self.console.warn(f"call {self.call}: {message}")
        self.log.event(f"call {self.call}: {message}")

    def before_request(self, prompt_chars: int) -> None:
        if self.budget is not None:
            self.budget.check(prompt_chars)

    def on_usage(self, usage: Usage) -> None:
        self.usage += usage
        self.cost += (self.model.cost(usage) if self.model else None) or 0.0
        if self.budget is not None:
            self.budget.charge(usage)


def with_server_context(
    model: ModelInfo, settings: Settings, endpoint: Endpoint | None, key: ApiKey | None
) -> ModelInfo:
    """The model as the catalog knows it; where the catalog has no context window and the model is served
    by an OpenAI-compatible server, with the window that server publishes (asked once a run, briefly,
    never fatal: llm.server_facts.published_context)."""
    entry = PROVIDERS.get(settings.provider)
    if model.context_window is not None or entry is None or not entry.any_server or endpoint is None:
        return model
    from code_commit.llm.server_facts import published_context

    published = published_context(endpoint, key, settings.model)
    if published is None:
        return model
    return replace(model, context_window=published.tokens, context_source=published.source)


def check_fits(prompt: Prompt, model: ModelInfo, settings: Settings) -> None:
    """Before anything is sent: SetupError (exit 2) when the first prompt cannot fit the model's context
    (the catalog's, or the one its server publishes), or when --max-cost cannot be enforced for want of a
    price."""
    chars = len(prompt.render())
    if model.context_window is not None and tokens_at_least(chars) > model.context_window:
        whose = f"as {model.context_source} says" if model.context_source else "in the model catalog"
        raise SetupError(
            prompt_too_long(model.model, chars, f"its context is {model.context_window:,} tokens, {whose}")
            + " Nothing was sent."
        )
    if settings.max_cost is not None and model.price is None:
        raise SetupError(
            f"--max-cost needs a price for {model.model}, and the price table has none: add one to "
            f'agent-config/config.toml as [models."{model.model}"] with input and output in US dollars '
            "per million tokens."
        )


@dataclass
class Caller:
    """What one run's model calls share, and nothing of the run around them: the provider, the model
    (its price), the meter, and the record its calls go into."""

    provider: Provider
    model: ModelInfo
    meter: CallMeter
    settings: Settings
    record: RunRecord  # each call is recorded in its `calls` as soon as it returns or fails
    observe: Observer = ignore  # --events: each call's start and end

    def ask(self, prompt: Prompt, call: int, calls: int) -> Completion:
        """One model call, logged and recorded as soon as it returns, or fails."""
        settings, log, console = self.settings, self.meter.log, self.meter.console
        log.write_shown(call, QUERY, prompt.render())
        kind = "initial query" if call == 1 else f"repair {call - 1} of {settings.max_repairs}"
        console.attempt(call, calls)
        console.step(f"call {call}/{calls} ({kind}): asking {settings.model}", f"asking {settings.model}")
        self.meter.start(call)
        self.observe(CallStart(call, calls, settings.model))
        started = time.monotonic()
        try:
            completion = self.provider.complete(prompt, on_text=console.receiving)
        except (CodeCommitError, Stopped) as exc:
            # The run ends here; what the call used and sent before it failed still counts and is logged.
            usage, tally = self.meter.usage, self.meter.tally
            record = CallRecord(
                call,
                usage,
                "error",
                time.monotonic() - started,
                self._cost(usage),
                tally.requests,
                tally.retries,
                tally.continuations,
            )
            self.record.calls.append(record)
            self.observe(emitted.call_end(record))
            log.write(call, USAGE, _usage_file(record))
            log.event(f"{_usage_line(record)} error: {exc}")
            raise
        record = CallRecord(
            call,
            completion.usage,
            completion.stop_reason,
            completion.duration,
            self._cost(completion.usage),
            completion.requests,
            completion.retries,
            completion.continuations,
        )
        self.record.calls.append(record)
        self.observe(emitted.call_end(record))
        log.write_shown(call, RESPONSE, completion.text, raw=RAW_RESPONSE)
        if completion.thinking:
            log.write_shown(call, THINKING, completion.thinking)
        log.write(call, USAGE, _usage_file(record))
        log.event(_usage_line(record))
        console.info(f"call {call}: {_usage_summary(record.usage, record.cost_usd)}, {record.duration_s:.1f} s")
        usage = self.record.usage
        console.spent(usage.all_input_tokens, usage.output_tokens, self.record.cost_usd)
        console.detail(_prose(completion.text))  # -v
        if completion.stop_reason == "model_context_window_exceeded":
            raise ServiceError(
                prompt_too_long(settings.model, len(prompt.render()), "the answer ran into the end of its context")
            )
        return completion

    def _cost(self, usage: Usage) -> float | None:
        """The call's cost: as the meter priced it, request by request; a provider that reports no
        requests to the meter (the demo's scripted model) as one request."""
        if self.model.price is None:
            return None
        return self.meter.cost if self.meter.usage == usage else self.model.cost(usage)


def _prose(answer: str) -> str:
    """The answer's words before its first block: the model's explanation."""
    lines = []
    for line in answer.splitlines():
        if line.startswith("^^^"):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def report_totals(record: RunRecord, log: RunLog, console: Console) -> None:
    """The run's tokens and estimated cost, on the console and in run.log."""
    calls, usage, cost = record.calls, record.usage, record.cost_usd
    if calls:
        console.info(f"total for {count(len(calls), 'call')}: {_usage_summary(usage, cost)}")
        log.event(f"run total: calls={len(calls)} {_pairs(_usage_fields(usage, cost))}")


def _usage_fields(usage: Usage, cost: float | None) -> dict[str, object]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "thinking_tokens": usage.thinking_tokens,  # of output_tokens
        "cache_write_tokens": usage.cache_write_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cached_share": f"{usage.cached_share:.2f}",
        "cost_usd": "unknown" if cost is None else f"{cost:.6f}",
        "estimated": str(usage.estimated).lower(),  # some counts are from the text, not the service's
    }


def _record_fields(record: CallRecord) -> dict[str, object]:
    return {
        "stop_reason": record.stop_reason,
        **_usage_fields(record.usage, record.cost_usd),
        "requests": record.requests,
        "retries": record.retries,
        "continuations": record.continuations,
        "duration_s": f"{record.duration_s:.2f}",
    }


def _pairs(fields: dict[str, object]) -> str:
    return " ".join(f"{name}={value}" for name, value in fields.items())


def _usage_line(record: CallRecord) -> str:
    return f"call {record.call}: {_pairs(_record_fields(record))}"


def _usage_file(record: CallRecord) -> str:
    """NN-usage.txt: the call's record, one `name: value` a line."""
    return "".join(f"{name}: {value}\n" for name, value in {"call": record.call, **_record_fields(record)}.items())


def _usage_summary(usage: Usage, cost: float | None) -> str:
    """For the console: tokens, the cached share of the input, and the estimated cost; tokens the service
    did not count are said to be estimated."""
    money = "cost unknown (no price for this model)" if cost is None else f"~${cost:.4f}"
    thinking = f" ({usage.thinking_tokens:,} thinking)" if usage.thinking_tokens else ""
    about = "about " if usage.estimated else ""
    estimated = " (tokens estimated from the text: the server did not count them all)" if usage.estimated else ""
    return (
        f"{about}{usage.all_input_tokens:,} input tokens ({usage.cached_share:.0%} from cache), "
        f"{about}{usage.output_tokens:,} output tokens{thinking}{estimated}, {money}"
    )
