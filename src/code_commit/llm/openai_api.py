"""Any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, llama.cpp's server, Ollama, other
vendors), spoken with httpx and always streaming (server-sent events).

httpx is imported when a call is about to be made. The prompts, retries, continuations, usage and
redaction are the same as for Anthropic; only the wire differs:

- the system sections become one system message and the rest one user message, as plain strings
  (the form every compatible server accepts);
- finish_reason "length" is a cut-off answer ("max_tokens"), "content_filter" a refusal;
- a continuation is asked as for every provider (`continuation`), in a request ending with a user turn;
- the output limit goes as `max_completion_tokens` to OpenAI's and Azure's own hosts and to the
  reasoning-era models (gpt-5 and later, the o-series), which refuse `max_tokens`; as `max_tokens`
  elsewhere, since older servers (vLLM before 0.6.4, llama.cpp's before 2026-02, Ollama) know only that
  one and some ignore the other, lifting the bound. A server that refuses the name sent and names the
  other gets the other, once, and keeps it for the run;
- the effort setting goes as `reasoning_effort` to models the catalog says take one; to OpenAI's own
  host, a `prompt_cache_key` derived from the prompt's stable prefix routes a run's calls to the same
  cache (OpenAI's prompt-caching guide); other servers may refuse unknown fields, so get neither;
- a reasoning model's thinking (`reasoning_content` or `reasoning` deltas, as vLLM, llama.cpp, DeepSeek
  and Ollama send it) is kept apart from the answer;
- usage comes from stream_options.include_usage; prompt_tokens counts cached tokens (and cache writes),
  so they are taken out of input_tokens to match Anthropic's accounting; completion_tokens counts the
  reasoning tokens, which are also reported apart. A server that reports none (llama-cpp-python's never
  does in a stream) has its tokens estimated from the text, marked as estimated, and counted toward
  --max-cost all the same;
- a stream that ends with nothing in it (no text, no finish reason: llama-cpp-python's answer to a
  prompt over the context) is asked again once without streaming, on a new connection (the server
  dropped the old one), which gets the server's real error;
  an error event in a stream counts as that error, both in `data:` and in the `error:` lines llama.cpp's
  server sent before 2025-10 (ggml-org/llama.cpp#16486);
- a prompt over the context is known by the fields each server sets (`context_exceeded`), never retried,
  and reported with the server's own numbers; where the catalog has no context window for the model,
  the one the server publishes is read once a run (`published_context`).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings
from code_commit.errors import ServiceError
from code_commit.llm.base import Hooks, Usage
from code_commit.llm.catalog import CHARS_PER_TOKEN_HIGH_ESTIMATE, ModelInfo, prompt_too_long
from code_commit.llm.continuation import Continuation
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Prompt
from code_commit.llm.server_errors import (
    ContextExceeded,
    OutputLimitTooLarge,
    ServerError,
    context_exceeded,
    output_limit_problem,
    server_error,
)
from code_commit.llm.transport import (
    Attempt,
    Rejected,
    Reply,
    StreamingProvider,
    Transient,
    bounded_responses,
    parse_retry_after,
    status_is_transient,
    tls_context,
)

_CONNECT_TIMEOUT = 10.0
_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
_TRANSIENT_STREAM_ERRORS = frozenset(
    {"server_error", "api_error", "overloaded_error", "rate_limit_error", "rate_limit_exceeded", "timeout_error"}
)
MAX_TOKENS, MAX_COMPLETION_TOKENS = "max_tokens", "max_completion_tokens"
# Model ids that refuse max_tokens on Chat Completions: gpt-5 and later, and the o-series.
_REASONING_ERA = re.compile(r"^(?:[\w.-]+/)?(?:gpt-(?:[5-9]|\d\d)|o\d)", re.IGNORECASE)
# OpenAI's own hosts and Azure's: max_completion_tokens, and (OpenAI's) a prompt_cache_key.
_OPENAI_HOSTS = ("api.openai.com",)
_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
# A refusal of a parameter by name (OpenAI's "Unsupported parameter", vLLM's extra_forbidden, others').
_REFUSED = re.compile(
    r"unsupported|not supported|extra inputs|extra_forbidden|unrecognized|unknown (?:field|parameter|argument)"
    r"|not permitted|not allowed|unexpected (?:field|keyword)",
    re.IGNORECASE,
)
_REASONING_FIELDS = ("reasoning_content", "reasoning")  # a delta's thinking, as servers name it
# llama.cpp's server before 2025-10 sent a stream's error as an SSE field of its own, `error: {...}`, where
# every other server sends `data: {"error": {...}}` (tools/server/server.cpp, server_sent_event(sink, "error",
# ...); ggml-org/llama.cpp#16486 made the first error an HTTP status).
_ERROR_FIELD = "error:"


def token_field_for(model: str, url: str) -> str:
    """The name the output limit goes under, before any server has said otherwise."""
    host = (urlsplit(url).hostname or "").lower()
    if host in _OPENAI_HOSTS or host.endswith(_AZURE_HOSTS) or _REASONING_ERA.match(model):
        return MAX_COMPLETION_TOKENS
    return MAX_TOKENS


def _is_openai_host(url: str) -> bool:
    return (urlsplit(url).hostname or "").lower() in _OPENAI_HOSTS


def prompt_cache_key(prompt: Prompt) -> str:
    """The same for every call of a run, and of the next run while the prompts and the codebase stay
    the same: a hash of the prompt up to its last cache breakpoint (never a secret: what it hashes is
    sent anyway)."""
    sections = prompt.sections
    last = max((i for i, section in enumerate(sections) if section.cache), default=-1)
    prefix = "".join(section.text for section in sections[: last + 1])
    return "code-commit-" + hashlib.sha256(prefix.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _joined(sections: Any) -> str:
    return "".join(s.text if s.text.endswith("\n") or not s.text else s.text + "\n" for s in sections)


def request_body(
    settings: Settings,
    prompt: Prompt,
    continuation: Continuation | None,
    *,
    max_tokens: int,
    token_field: str = MAX_TOKENS,
    effort: str | None = None,
    cache_key: bool = False,
) -> dict[str, Any]:
    messages: list[dict[str, str]] = []
    if prompt.system:
        messages.append({"role": "system", "content": _joined(prompt.system)})
    messages.append({"role": "user", "content": _joined(prompt.user)})
    if continuation is not None:
        messages += [
            {"role": "assistant", "content": continuation.assistant_turn},
            {"role": "user", "content": continuation.instruction},
        ]
    body: dict[str, Any] = {
        "model": settings.model,
        token_field: max_tokens,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if effort is not None:
        body["reasoning_effort"] = effort
    if cache_key:
        body["prompt_cache_key"] = prompt_cache_key(prompt)
    return body


def _count(details: Any, name: str) -> int:
    value = details.get(name) if isinstance(details, dict) else 0
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt_details = raw.get("prompt_tokens_details")
    cached, written = _count(prompt_details, "cached_tokens"), _count(prompt_details, "cache_write_tokens")
    prompt = raw.get("prompt_tokens") or 0
    return Usage(
        input_tokens=max(0, prompt - cached - written),
        output_tokens=raw.get("completion_tokens") or 0,
        cache_write_tokens=written,
        cache_read_tokens=cached,
        thinking_tokens=_count(raw.get("completion_tokens_details"), "reasoning_tokens"),
    )


class OpenAIProvider(StreamingProvider):
    name = "OpenAI-compatible"

    def __init__(
        self, settings: Settings, key: ApiKey, hooks: Hooks | None, endpoint: Endpoint, model: ModelInfo
    ) -> None:
        super().__init__(settings, hooks, endpoint)
        self.key = key
        self.model = model
        self.url = endpoint.url.rstrip("/") + "/chat/completions"
        self.token_field = token_field_for(settings.model, endpoint.url)  # changed at most once a run
        self._field_switched = False
        self._estimating_said = False  # the note that tokens are estimated is given once a run
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            import httpx

            # The key travels only in the Authorization header. With no key configured (a local server)
            # no Authorization header is sent at all.
            headers = {"Authorization": f"Bearer {self.key.value}"} if self.key.value else {}
            self._client = httpx.Client(
                headers=headers, verify=tls_context(httpx), event_hooks=bounded_responses(httpx, self.raw_cap)
            )
        return self._client

    def body(self, prompt: Prompt, continuation: Continuation | None) -> dict[str, Any]:
        return request_body(
            self.settings,
            prompt,
            continuation,
            max_tokens=self.max_tokens,
            token_field=self.token_field,
            effort=self.settings.effort if self.model.effort else None,
            cache_key=_is_openai_host(self.url),
        )

    def send(self, prompt: Prompt, continuation: Continuation | None, timeout: float, attempt: Attempt) -> Reply:
        return self._post(prompt, continuation, self.body(prompt, continuation), timeout, attempt)

    def send_whole(self, prompt: Prompt, continuation: Continuation | None, timeout: float, attempt: Attempt) -> Reply:
        # On a new connection: a stream that ended with nothing in it is how llama-cpp-python's server
        # answers an error met after its headers (a prompt over the context), and uvicorn then drops
        # that connection; this request, sent on it at once, met a reset instead of the server's error.
        if self._client is not None:
            self._client.close()
            self._client = None
        body = {**self.body(prompt, continuation), "stream": False}
        del body["stream_options"]  # OpenAI refuses stream_options without stream
        return self._post(prompt, continuation, body, timeout, attempt)

    def _post(
        self,
        prompt: Prompt,
        continuation: Continuation | None,
        body: dict[str, Any],
        timeout: float,
        attempt: Attempt,
    ) -> Reply:
        import httpx

        client = self.client()
        chars = self.request_chars(prompt, continuation)
        try:
            with client.stream(
                "POST", self.url, json=body, timeout=httpx.Timeout(timeout, connect=min(timeout, _CONNECT_TIMEOUT))
            ) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._status_fault(response, prompt)
                if response.headers.get("content-type", "").startswith("application/json"):
                    return self._whole(response.read(), attempt, chars)  # not streamed, asked so or not
                return self._stream(response, attempt, prompt, chars)
        except httpx.ConnectTimeout as exc:
            wait = min(timeout, _CONNECT_TIMEOUT)
            raise Transient(
                "cannot connect", f"no answer to the connection within {wait:.1f} s ({self._where()})", connect=True
            ) from exc
        except httpx.ConnectError as exc:
            raise Transient("cannot connect", f"{exc} ({self._where()})", connect=True) from exc
        except httpx.TimeoutException as exc:
            raise Transient("timeout", f"no data within {timeout:.1f} s") from exc
        except httpx.TransportError as exc:
            raise Transient("connection failed or broke off", f"{type(exc).__name__}: {exc} ({self._where()})") from exc

    def _where(self) -> str:
        assert self.endpoint is not None
        return f"endpoint {self.endpoint.describe()}"

    def _stream(self, response: Any, attempt: Attempt, prompt: Prompt, chars: int) -> Reply:
        import httpx

        parts: list[str] = []
        try:
            finish, usage = self._read_events(response, attempt, prompt, parts)
        except httpx.TransportError as exc:
            if parts or attempt.thinking_chars:
                raise
            raise Transient(
                "stream ended early", f"the stream broke off before any answer ({type(exc).__name__})", whole=True
            ) from exc
        if finish is None:
            if not parts and not attempt.thinking_chars:
                raise Transient("stream ended early", "it ended with no answer and no finish reason", whole=True)
            # The body ended (or [DONE] came) before any finish_reason: the answer is not whole.
            raise Transient("stream ended early", "the answer stopped without a finish reason")
        return Reply("".join(parts), _STOP_REASONS.get(finish, finish), self._counted(usage, attempt, chars))

    def _read_events(
        self, response: Any, attempt: Attempt, prompt: Prompt, parts: list[str]
    ) -> tuple[str | None, Usage | None]:
        """The stream's events into parts (and attempt): its finish reason and the usage it reported."""
        finish: str | None = None
        usage: Usage | None = None
        for line in response.iter_lines():
            if line.startswith(_ERROR_FIELD):
                raise self._stream_fault(self._event(line[len(_ERROR_FIELD) :]), prompt)
            if not line.startswith("data:"):
                continue  # blank separators, comments, event: lines
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunk = self._event(data)
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                raise self._stream_fault(chunk, prompt)
            if chunk.get("usage"):
                usage = _usage(chunk["usage"])
                attempt.reported(usage)
            for choice in chunk.get("choices") or []:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                delta = choice.get("delta") or {}
                if not isinstance(delta, dict):
                    delta = {}
                for field in _REASONING_FIELDS:
                    thought = delta.get(field)
                    if isinstance(thought, str) and thought:
                        attempt.thinking(thought)
                        break
                piece = delta.get("content")
                if isinstance(piece, str) and piece:
                    parts.append(piece)
                    attempt.text(piece)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        return finish, usage

    def _event(self, data: str) -> Any:
        try:
            return json.loads(data)
        except ValueError:
            raise ServiceError(f"the {self.name} service sent a stream event that is not JSON: {data[:200]}") from None

    def _stream_fault(self, payload: Any, prompt: Prompt) -> Exception:
        """An error event in a stream: a prompt over the context is refused (not retried), a server's
        transient fault retried, any other fault ends the call."""
        error = server_error(payload)
        exceeded = context_exceeded(error)
        if exceeded is not None:
            return Rejected(self._context_message(exceeded, error, prompt, "an error event in the stream,"))
        if error.kind in _TRANSIENT_STREAM_ERRORS or not error.kind:
            return Transient(f"{error.kind or 'error'} event in the stream", error.message)
        return ServiceError(f"the {self.name} service broke off the answer with {error.kind}: {error.message}")

    def _counted(self, usage: Usage | None, attempt: Attempt, chars: int) -> Usage:
        """The request's usage as the server reported it; where it reported none, estimated from the text
        (counted toward --max-cost all the same, and marked as estimated)."""
        if usage is not None:
            return usage
        if not self._estimating_said:
            self._estimating_said = True
            self.hooks.notify(
                "the server reports no token usage: tokens are estimated from the text "
                f"({CHARS_PER_TOKEN_HIGH_ESTIMATE:g} characters a token) and marked as estimated"
            )
        return attempt.estimated(chars)

    def _whole(self, raw: bytes, attempt: Attempt, chars: int) -> Reply:
        try:
            answer = json.loads(raw)
            choice = answer["choices"][0]
            text = choice["message"].get("content") or ""
            thought = next((choice["message"][f] for f in _REASONING_FIELDS if choice["message"].get(f)), "")
            finish = choice.get("finish_reason") or "stop"
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise ServiceError(f"the {self.name} service sent an answer that is not a chat completion") from None
        if isinstance(thought, str) and thought:
            attempt.thinking(thought)
        if text:
            attempt.text(text)
        usage = _usage(answer["usage"]) if isinstance(answer.get("usage"), dict) else None
        return Reply(text, _STOP_REASONS.get(finish, finish), self._counted(usage, attempt, chars))

    def _status_fault(self, response: Any, prompt: Prompt) -> Exception:
        status = response.status_code
        try:
            error = server_error(response.json())
        except ValueError:
            error = ServerError(message=response.text[:300])
        kind, message = error.kind, error.message
        headers = response.headers
        exceeded = context_exceeded(error)
        if exceeded is not None and error.type == "exceed_context_size_error":
            # llama.cpp's counts are the prompt's alone, whatever the status (500 before 2025-10).
            return Rejected(self._context_message(exceeded, error, prompt, f"HTTP {status}"))
        if status == 401:
            if not self.key.value:
                return ServiceError(
                    f"the {self.name} service at {self.url} wants an API key (HTTP 401); "
                    "set OPENAI_API_KEY or write it to agent-config/openai-api-key"
                )
            return ServiceError(
                f"the {self.name} service refused the API key from {self.key.source} (HTTP 401); "
                "check that the key is valid"
            )
        if status == 403:
            return ServiceError(
                f"the API key from {self.key.source} may not use {self.settings.model} (HTTP 403: {message})"
            )
        if status == 404:
            return ServiceError(
                f"the {self.name} service has no {self.settings.model} or no endpoint at {self.url} "
                f"(HTTP 404: {message}); check --model and --base-url (it usually ends in /v1)"
            )
        if not message:
            message = response.text[:300].strip() or "(no message)"
        if status == 400 and self._refuses_token_field(message, response):
            other = MAX_TOKENS if self.token_field == MAX_COMPLETION_TOKENS else MAX_COMPLETION_TOKENS
            refused, self.token_field, self._field_switched = self.token_field, other, True
            self.hooks.notify(f"the server refuses {refused}; sending the output limit as {other} from now on")
            return Transient(f"HTTP 400: {refused} refused", message, retry_after=0.0)
        text = f"{kind} {message}".lower()
        chars = len(prompt.render())
        too_large = output_limit_problem(message, chars, self.max_tokens) if status == 400 else None
        if too_large is not None:
            return Rejected(self._output_limit_message(too_large, message))
        if exceeded is not None:
            return Rejected(self._context_message(exceeded, error, prompt, f"HTTP {status}"))
        if status == 413 or (status == 400 and ("context" in text and ("length" in text or "window" in text))):
            return Rejected(prompt_too_long(self.settings.model, chars, f"HTTP {status}: {message}"))
        if status_is_transient(status, headers):
            return Transient(f"HTTP {status} {kind}".strip(), message, parse_retry_after(headers))
        failure = Rejected if status == 400 else ServiceError
        return failure(f"the {self.name} service answered HTTP {status} {kind}: {message}".replace("  ", " "))

    def _refuses_token_field(self, message: str, response: Any) -> bool:
        """A 400 that refuses the output limit's name (not its value), the first such one of the run."""
        if self._field_switched:
            return False
        try:
            payload = response.json()
        except ValueError:
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        param = error.get("param") if isinstance(error, dict) else None
        named = param == self.token_field or re.search(rf"\b{self.token_field}\b", message) is not None
        return named and _REFUSED.search(message) is not None

    def _context_message(self, exceeded: ContextExceeded, error: ServerError, prompt: Prompt, where: str) -> str:
        """A prompt over the context, with the server's numbers, and what to do."""
        context = f"its context is {exceeded.context:,} tokens; " if exceeded.context else ""
        detail = f"{context}{where} {error.names}: {error.message}".rstrip(": ")
        return prompt_too_long(self.settings.model, len(prompt.render()), detail, counted=exceeded.prompt_tokens)

    def _output_limit_message(self, too_large: OutputLimitTooLarge, message: str) -> str:
        at_most = "" if too_large.fits is None else f" to at most {too_large.fits:,}"
        return (
            f"the {self.name} service refused the output limit of {self.max_tokens:,} tokens for "
            f"{self.settings.model}, not the prompt (HTTP 400: {message}). "
            f"Lower --max-tokens (the max_tokens setting){at_most}."
        )
