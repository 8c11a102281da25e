"""What every network provider shares: retries, continuations of a cut-off answer, and the budget veto.

A provider subclasses `StreamingProvider` and implements `send`: one streamed HTTP request, which
returns a `Reply`, raises `Transient` for a fault worth another attempt, `Rejected` when the service
refuses the request itself (400, 413), or `ServiceError` for any other fault that is not worth one.
Here:

- retries are tenacity's (the SDK's own are off): the wait the service asks for (retry-after-ms,
  retry-after) or exponential backoff with jitter, each wait capped; a stop after so many attempts
  or so much time; every retry reported to the console and the run log;
- an answer cut off at the output limit is continued, up to MAX_CONTINUATIONS times, in a request
  that ends with a user turn (no prefill: current models refuse it), and the parts are joined exactly
  (`continuation`: how it is asked and joined, the same for every provider);
- the budget (--max-cost) is asked before every HTTP attempt (first requests, retries and continuations
  alike) and told the usage after it: an answered request's counts, and what a failed attempt is known
  to have used (`Attempt.used`);
- the call's running counts (requests, retries, continuations) go to the hooks as they change, so a
  call that fails still reports how many requests it made;
- an answer's size is bounded: past `Settings.answer_byte_cap` bytes of text (continuations included) the
  stream is closed and the answer ends with the stop reason ANSWER_TOO_LARGE, which the run refuses;
  and every response body is read through `bounded_responses`, which closes it past RAW_BYTES_PER_ANSWER_BYTE
  times that many bytes whatever they hold (an event that never ends, endless pings), so memory stays flat;
- a thinking model's thinking is kept apart from the answer (`Attempt.thinking`), never joined to it,
  up to the same number of bytes (past them it is no longer kept, and the answer goes on).
- an answer's pace is bounded too: `request_timeout` ends an attempt that gets no byte at all for that
  long, but a server that drips a byte at a time, or sends keep-alive pings forever, never lets it fire.
  So each chunk of a response body is also a check of the attempt's progress in output (answer text or thinking)
  (`Attempt.check`): none for `stream_idle_timeout` seconds, or less than `stream_min_rate` bytes a
  second over any minute once it has begun, and the attempt fails as a stalled stream (retried within
  `retry_time`, like any other).
"""

from __future__ import annotations

import email.utils
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from code_commit.config.settings import MAX_CONTINUATIONS, Settings, output_limit
from code_commit.errors import BudgetExceeded, ServiceError
from code_commit.llm.base import Completion, Hooks, Tally, Usage
from code_commit.llm.catalog import estimated_usage
from code_commit.llm.continuation import Continuation, continuation_of, join
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Prompt

ANSWER_TOO_LARGE = "answer_too_large"  # the stop reason of an answer read up to its cap, and no further
# Bytes of one response body read at most, per byte of answer text allowed: room for the event framing
# around the text (about 100 bytes an event, an event every few tokens) and for escaped characters.
RAW_BYTES_PER_ANSWER_BYTE = 8
BACKOFF_BASE = 1.0  # seconds before the second attempt, doubling after each failure (then jittered)
_RATE_WINDOW = 60.0  # seconds over which an answer's pace is measured against stream_min_rate

# Never retried, whatever the headers say: the same request would fail the same way (a bad request, a
# model or endpoint that is not there, a body the server cannot process).
_NEVER_RETRY = frozenset({400, 401, 403, 404, 413, 422})
_RETRY_STATUSES = frozenset({408, 409, 429, *range(500, 600)})

# Seams for tests, looked up at call time: no test sleeps out a real backoff.
sleep: Callable[[float], None] = time.sleep
clock: Callable[[], float] = time.monotonic
jitter: Callable[[], float] = random.random


@dataclass(frozen=True)
class Reply:
    """One answered request."""

    text: str
    stop_reason: str  # in Anthropic's words; other providers map theirs
    usage: Usage
    thinking: str = ""  # the model's thinking, apart from the answer (empty when it showed none)


MESSAGE_CHARS = 1000  # of a service's own error message, shown and logged at most


def excerpt(text: object) -> str:
    """A service's error message as code-commit repeats it (console, run.log, --json, every retry's
    notice): at most MESSAGE_CHARS characters, however long the body that carried it.

    The cut never leaves part of a word: a service may echo the key it was sent, and a key cut in two
    is no longer the string the censor looks for, so the word the cut falls in is dropped whole."""
    text = str(text)
    if len(text) <= MESSAGE_CHARS:
        return text
    kept = text[:MESSAGE_CHARS]
    if not text[MESSAGE_CHARS].isspace():
        kept = kept[: max((i for i, ch in enumerate(kept) if ch.isspace()), default=-1) + 1]
    return f"{kept.rstrip()} [... {len(text) - len(kept):,} more characters]"


class _AnswerTooLarge(Exception):
    """The answer (or a response body) passed its size cap: the rest is not read."""


_TLS: dict[tuple[str, str | None, str | None], Any] = {}


def tls_context(httpx: Any) -> Any:
    """The TLS context an httpx (or httpx2) client verifies the service with: the library's own
    default (SSL_CERT_FILE and SSL_CERT_DIR honoured), made once per process and library. Loading
    the CA bundle is most of a client's cost (65 ms of its 70), paid again by every run a process
    makes (the demo, the tests) without it; an SSLContext is safe to share between clients."""
    key = (httpx.__name__, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if key not in _TLS:
        _TLS[key] = httpx.create_ssl_context()
    return _TLS[key]


def bounded_responses(httpx: Any, cap: int) -> dict[str, list[Callable[[Any], None]]]:
    """`event_hooks` for an httpx (or httpx2) client: every response body is read through a counter
    that raises _AnswerTooLarge once more than `cap` bytes have come, before they reach any parser."""

    # The httpx module is passed in (httpx or httpx2), so its base class is only known at run time.
    class Bounded(httpx.SyncByteStream):  # type: ignore[misc]
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __iter__(self) -> Any:
            read = 0
            watched = _ATTEMPT.get()  # the attempt reading this body, whose pace each chunk checks
            for chunk in self.inner:
                read += len(chunk)
                if read > cap:
                    raise _AnswerTooLarge(f"the response passed {cap:,} bytes")
                if watched is not None:
                    watched.check()
                yield chunk

        def close(self) -> None:
            self.inner.close()

    def bound(response: Any) -> None:
        response.stream = Bounded(response.stream)

    return {"response": [bound]}


class Attempt:
    """One HTTP attempt as it streams in. `send` hands it every piece of answer text (`text`, which also
    passes it on to the console) and every token count the service reports on the way (`reported`:
    Anthropic's message_start and message_delta, an OpenAI usage chunk), so that an attempt that breaks
    off can still say what it used (`used`)."""

    def __init__(
        self,
        on_text: Callable[[str], None] | None,
        byte_cap: int | None = None,
        idle: float | None = None,
        min_rate: float = 0.0,
    ) -> None:
        self._on_text = on_text
        self.chars = 0  # characters of answer text received
        self.thinking_chars = 0  # characters of thinking received, kept or not
        self.bytes = 0  # the same, in UTF-8 bytes
        self._byte_cap = byte_cap  # past this many bytes of text the attempt raises _AnswerTooLarge
        self._reported: Usage | None = None
        self._chars_reported = 0  # characters received when the service last reported its counts
        self._idle = idle  # seconds without output after which the attempt is stalled (None: never)
        self._min_rate = min_rate  # bytes of output a second, at least, over each _RATE_WINDOW (0: any)
        self._output = 0  # bytes of output so far: answer text and thinking
        self._last_output = clock()
        self._window: tuple[float, int] | None = None  # since the first output: (when it began, bytes then)
        self._thinking: list[str] = []
        self._thinking_bytes = 0
        self.thinking_dropped = 0  # bytes of thinking past the cap, not kept

    def thinking(self, piece: str) -> None:
        """A piece of the model's thinking: kept apart from the answer, up to the answer's byte cap."""
        size = len(piece.encode("utf-8", "surrogatepass"))
        self.thinking_chars += len(piece)
        self._progressed(size)  # a model thinking for minutes before it answers is not stalled
        if self._byte_cap is not None and self._thinking_bytes + size > self._byte_cap:
            self.thinking_dropped += size
            return
        self._thinking_bytes += size
        self._thinking.append(piece)

    @property
    def thought(self) -> str:
        """The thinking received, with a note of what was past the cap."""
        text = "".join(self._thinking)
        if self.thinking_dropped:
            text += f"\n[... {self.thinking_dropped:,} more bytes of thinking not kept (max_answer_bytes)]\n"
        return text

    def text(self, piece: str) -> None:
        size = len(piece.encode("utf-8", "surrogatepass"))
        self.chars += len(piece)
        self.bytes += size
        if self._byte_cap is not None and self.bytes > self._byte_cap:
            raise _AnswerTooLarge(f"the answer passed {self._byte_cap:,} bytes")
        self._progressed(size)
        if self._on_text:
            self._on_text(piece)

    def _progressed(self, size: int) -> None:
        self._output += size
        self._last_output = clock()
        if self._window is None:
            self._window = (self._last_output, self._output - size)

    def check(self) -> None:
        """Raise Transient if the answer has stalled: no output (answer text or thinking) for `idle`
        seconds, whatever else came (keep-alive pings, a byte of an event at a time), or, once it has
        begun, less than `min_rate` bytes of it a second over the last _RATE_WINDOW seconds."""
        now = clock()
        if self._idle is not None and now - self._last_output > self._idle:
            raise Transient(
                "stream stalled",
                f"no answer text for {now - self._last_output:.0f} s, only keep-alives or a trickle of bytes "
                "(stream_idle_timeout)",
            )
        if self._window is None or not self._min_rate:
            return
        began, bytes_then = self._window
        if now - began >= _RATE_WINDOW:
            rate = (self._output - bytes_then) / (now - began)
            if rate < self._min_rate:
                raise Transient(
                    "stream too slow",
                    f"{rate:.2f} bytes of answer a second over {now - began:.0f} s, under stream_min_rate "
                    f"({self._min_rate:g})",
                )
            self._window = (now, self._output)

    def reported(self, usage: Usage) -> None:
        self._reported = usage
        self._chars_reported = self.chars

    def used(self, request_chars: int) -> Usage:
        """What a failed attempt is known to have used: the counts the service reported before it broke;
        where it reported none, the request's input once answer text came back (the prompt was read), at
        the high estimate (`estimated_usage`); and, when text came after the last count the service
        gave (Anthropic's message_start says 1 output token), the output at the same high estimate if that
        is more. Nothing at all for an attempt that got no answer (an HTTP error, a refused connection)."""
        usage = self._reported
        if usage is None:
            if not self.chars:
                return Usage()
            usage = estimated_usage(request_chars, 0)
        more = estimated_usage(0, self.chars).output_tokens
        if self.chars > self._chars_reported and more > usage.output_tokens:
            usage = replace(usage, output_tokens=more, estimated=True)
        return usage

    def estimated(self, request_chars: int) -> Usage:
        """An answered request's tokens where the service reported none: the prompt, and the answer with
        its thinking, counted from their text (`estimated_usage`)."""
        return estimated_usage(request_chars, self.chars + self.thinking_chars)


# The attempt now reading a response body, for bounded_responses' chunk-by-chunk check of its pace:
# the providers' HTTP clients need not know of it.
_ATTEMPT: ContextVar[Attempt | None] = ContextVar("code_commit_attempt", default=None)


class _Call:
    """One `complete`: its running counts and usage, each change passed on to the hooks."""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self.tally = Tally()
        self.usage = Usage()

    def count(self, **steps: int) -> None:
        self.tally = replace(self.tally, **{name: getattr(self.tally, name) + n for name, n in steps.items()})
        self.hooks.on_tally(self.tally)

    def charge(self, usage: Usage) -> None:
        if usage != Usage():
            self.usage += usage
            self.hooks.on_usage(usage)


class Rejected(ServiceError):
    """The service refused the request itself (HTTP 400 or 413): sending it again would not help."""


class Transient(Exception):
    """A fault worth another attempt. kind groups faults for the give-up message; retry_after is the
    wait the service asked for, in seconds, if it asked. connect: the request never reached the
    service (connection refused, a name that does not resolve, no answer to the connection): a
    wrong endpoint is not worth minutes of retries, so these have their own small budget,
    connect_attempts. whole: a stream that ended with nothing in it, which says nothing of why; the
    next attempt, once a request, asks without streaming (`send_whole`), where a server answers with
    its real error (an HTTP status and its body) rather than a stream that stops."""

    def __init__(
        self,
        kind: str,
        detail: str = "",
        retry_after: float | None = None,
        connect: bool = False,
        whole: bool = False,
    ) -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.retry_after = retry_after
        self.connect = connect
        self.whole = whole


def status_is_transient(status: int, headers: Mapping[str, str]) -> bool:
    """408, 409, 429 and 5xx are retried, unless the service says x-should-retry: false."""
    if status in _NEVER_RETRY:
        return False
    should = headers.get("x-should-retry", "").strip().lower()
    if should == "false":
        return False
    return status in _RETRY_STATUSES or should == "true"


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait the service asks for, in seconds: retry-after-ms first (more precise), then retry-after
    as seconds or as an HTTP date. None when neither is there or readable."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000
            if value >= 0 and value != float("inf"):
                return value
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
        return value if value >= 0 and value != float("inf") else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(tz=UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_wait(attempt: int, retry_after: float | None, cap: float, rand: float) -> float:
    """The wait after failed attempt number `attempt` (1-based). The service's own retry-after wins;
    otherwise BACKOFF_BASE doubling per attempt with "equal jitter" (between half and all of it, so
    clients that failed together spread out). Never more than cap."""
    if retry_after is not None:
        return min(retry_after, cap)
    ceiling = min(cap, BACKOFF_BASE * 2.0 ** min(attempt - 1, 64))  # 2**64 times the base passes any cap
    return ceiling / 2 + ceiling / 2 * rand


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 90 else f"{value / 60:.1f} min"


class StreamingProvider:
    """Retries, continuations and the budget around a subclass's single-request `send`."""

    name = "model"  # for messages

    def __init__(self, settings: Settings, hooks: Hooks | None = None, endpoint: Endpoint | None = None) -> None:
        self.settings = settings
        self.hooks = hooks or Hooks()
        self.endpoint = endpoint

    def client(self) -> Any:
        """The provider's client, created on first use: importing an SDK costs over a second, which
        neither start-up nor the retries' time limit should pay. Its responses must be read through
        `bounded_responses(httpx, self.raw_cap)`."""
        return None

    @property
    def answer_cap(self) -> int:
        """Bytes of answer text read at most, continuations included."""
        return self.settings.answer_byte_cap

    @property
    def raw_cap(self) -> int:
        """Bytes of one response body read at most."""
        return self.answer_cap * RAW_BYTES_PER_ANSWER_BYTE

    @property
    def max_tokens(self) -> int:
        return output_limit(self.settings)

    def send(self, prompt: Prompt, continuation: Continuation | None, timeout: float, attempt: Attempt) -> Reply:
        """One streamed request for the prompt; with a continuation, the request for the rest of the answer
        (`continuation.assistant_turn` as the assistant's turn, then `continuation.instruction` as the
        user's). Every piece of answer text, of thinking, and every token count the service reports goes
        to `attempt` as it arrives."""
        raise NotImplementedError

    def send_whole(self, prompt: Prompt, continuation: Continuation | None, timeout: float, attempt: Attempt) -> Reply:
        """The same request, asked for one whole answer instead of a stream, after a stream that ended with
        nothing in it. A provider whose service always streams asks the same way again."""
        return self.send(prompt, continuation, timeout, attempt)

    def request_chars(self, prompt: Prompt, continuation: Continuation | None) -> int:
        """The characters a request sends, for the budget's estimate of its input."""
        return len(prompt.render()) + (continuation.chars if continuation else 0)

    def complete(self, prompt: Prompt, on_text: Callable[[str], None] | None = None) -> Completion:
        started = clock()
        call = _Call(self.hooks)
        text = ""
        thinking: list[str] = []
        received = 0  # bytes of answer text received, continuations (and the lines they repeat) included
        reply: Reply | None = None
        continuation: Continuation | None = None
        stop_reason = ""
        while True:
            try:
                part = self._send_with_retries(prompt, continuation, on_text, call, self.answer_cap - received)
            except _AnswerTooLarge as exc:
                # Not worth another attempt: the same request would bring the same flood. The answer is
                # what came before this request; the run refuses it by its stop reason.
                self.hooks.notify(f"stopped reading the answer: {exc} (max_answer_bytes)")
                stop_reason = ANSWER_TOO_LARGE
                break
            except (BudgetExceeded, Rejected) as exc:
                if reply is None:
                    raise
                # A continuation the budget forbids, or the service refuses (a prompt that no longer
                # fits): the answer stays incomplete, and the run refuses it as any cut-off answer.
                self.hooks.notify(f"not continuing the cut-off answer: {exc}")
                break
            call.charge(part.usage)
            received += len(part.text.encode("utf-8", "surrogatepass"))
            if part.thinking:
                label = f"\n--- continuation {call.tally.continuations + 1} ---\n" if continuation else ""
                thinking.append(label + part.thinking)
            if continuation is None:
                text = part.text
            else:
                call.count(continuations=1)
                joined = join(continuation, part.text)
                if joined is None:
                    # Not guessed at: asked again, insisting, while continuations remain; after the last one
                    # the answer stays as it was, cut off, and the run refuses it.
                    done = call.tally.continuations
                    unplaced = (
                        "the continuation did not begin with the answer's last lines, as it was asked to, so "
                        "where it goes is unknown"
                    )
                    if done == MAX_CONTINUATIONS:
                        self.hooks.notify(
                            f"{unplaced}: the answer stays cut off ({done} of {MAX_CONTINUATIONS} continuations used)"
                        )
                        break
                    self.hooks.notify(
                        f"{unplaced}; asking again (continuation {done + 1} of {MAX_CONTINUATIONS}), "
                        "insisting on its last lines"
                    )
                    continuation = continuation.insisting()
                    continue
                text = joined
            reply = part
            continuations = call.tally.continuations
            if part.stop_reason != "max_tokens" or continuations == MAX_CONTINUATIONS:
                break
            continuation = continuation_of(text)
            if continuation is None:
                what = "thinking, before any answer" if not text.strip() else "a first line that never ended"
                self.hooks.notify(
                    f"the answer was cut off at the {self.max_tokens:,}-token output limit in {what}: "
                    "there is no complete line to continue from"
                )
                break
            self.hooks.notify(
                f"the answer was cut off at the {self.max_tokens:,}-token output limit; asking for the rest "
                f"(continuation {continuations + 1} of {MAX_CONTINUATIONS}), from its last complete line"
            )
        return Completion(
            text=text,
            stop_reason=stop_reason or (reply.stop_reason if reply else ANSWER_TOO_LARGE),
            usage=call.usage,
            duration=clock() - started,
            requests=call.tally.requests,
            retries=call.tally.retries,
            continuations=call.tally.continuations,
            thinking="".join(thinking),
        )

    def _send_with_retries(
        self,
        prompt: Prompt,
        continuation: Continuation | None,
        on_text: Callable[[str], None] | None,
        call: _Call,
        byte_cap: int,
    ) -> Reply:
        """One request, retried on transient faults. Before every attempt the budget may veto it; every
        attempt sent is counted, and what a failed one used is charged."""
        import tenacity

        settings = self.settings
        started: float | None = None  # the retry clock starts once the client is ready
        faults: list[Transient] = []
        chars = self.request_chars(prompt, continuation)
        asked_whole = False  # a request is asked without streaming once at most

        def attempt() -> Reply:
            nonlocal started, asked_whole
            self.hooks.before_request(chars)  # raises BudgetExceeded: never retried
            if started is None:
                self.client()  # importing an SDK takes over a second: not the service's time
                started = clock()
            # No attempt may wait for data past the time limit of the retries.
            remaining = settings.retry_time - (clock() - started)
            timeout = max(0.001, min(settings.request_timeout, remaining))
            call.count(requests=1, retries=1 if faults else 0)
            progress = Attempt(on_text, byte_cap, settings.stream_idle_timeout, settings.stream_min_rate)
            watching = _ATTEMPT.set(progress)  # bounded_responses checks its pace chunk by chunk
            whole = asks_whole()
            asked_whole = asked_whole or whole
            send = self.send_whole if whole else self.send
            try:
                return replace(send(prompt, continuation, timeout, progress), thinking=progress.thought)
            except BaseException as exc:
                # Whatever ended it (a fault, a stop), what the attempt used is spent.
                call.charge(progress.used(chars))
                if isinstance(exc, Transient):
                    faults.append(exc)
                raise
            finally:
                _ATTEMPT.reset(watching)

        def asks_whole() -> bool:
            """The next attempt asks without streaming: at once, after a stream with nothing in it."""
            return bool(faults) and faults[-1].whole and not asked_whole

        def wait(state: tenacity.RetryCallState) -> float:
            fault = state.outcome.exception() if state.outcome else None
            if asks_whole():
                return 0.0
            retry_after = fault.retry_after if isinstance(fault, Transient) else None
            return retry_wait(state.attempt_number, retry_after, settings.retry_wait_cap, jitter())

        def elapsed() -> float:
            return 0.0 if started is None else clock() - started

        def stop(state: tenacity.RetryCallState) -> bool:
            out_of_time = elapsed() + state.upcoming_sleep >= settings.retry_time
            unreachable = bool(faults) and faults[-1].connect and _connects(faults) >= settings.connect_attempts
            return state.attempt_number >= settings.retry_attempts or out_of_time or unreachable

        def announce(state: tenacity.RetryCallState) -> None:
            how = (
                "asking again without streaming, for the server's own error"
                if asks_whole()
                else f"retrying in {_seconds(state.upcoming_sleep)}"
            )
            number = f"attempt {state.attempt_number} of {settings.retry_attempts}"
            self.hooks.notify(f"{number} failed: {faults[-1]}; {how}")

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(Transient),
            wait=wait,
            stop=stop,
            sleep=lambda seconds: sleep(seconds),
            before_sleep=announce,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except Transient:
            raise ServiceError(self._give_up_message(faults, elapsed())) from None

    def _give_up_message(self, faults: list[Transient], elapsed: float) -> str:
        settings = self.settings
        counts = Counter(fault.kind for fault in faults)
        tally = ", ".join(f"{kind} ({n}x)" for kind, n in counts.items())
        if faults[-1].connect and _connects(faults) >= settings.connect_attempts:
            why = f"after {_connects(faults)} failed attempts to connect, the limit (connect_attempts)"
        elif len(faults) >= settings.retry_attempts:
            why = f"after {len(faults)} attempts, the limit (retry_attempts)"
        else:
            why = (
                f"after {len(faults)} attempt(s) in {_seconds(elapsed)}: another wait would pass the "
                f"{_seconds(settings.retry_time)} limit (retry_time)"
            )
        last = str(faults[-1])
        if self.endpoint and self.endpoint.shown not in last:  # a connection fault names it already
            last += f" (endpoint {self.endpoint.describe()})"
        return f"gave up on the {self.name} service {why}. Failures: {tally}. Last: {last}"


def _connects(faults: list[Transient]) -> int:
    return sum(fault.connect for fault in faults)
