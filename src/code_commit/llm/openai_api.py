"""Any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, llama.cpp's server, Ollama, other
vendors), spoken with httpx and always streaming (server-sent events).

httpx is imported when a call is about to be made. The prompts, retries, continuations, usage and
redaction are the same as for Anthropic; only the wire differs:

- the system sections become one system message and the rest one user message, as plain strings
  (the form every compatible server accepts);
- finish_reason "length" is a cut-off answer ("max_tokens"), "content_filter" a refusal;
- a continuation sends the partial answer, exactly as received (white space at the cut included), as
  the assistant's message and asks, in a user message, for the rest: Chat Completions has no portable
  way to make a model extend its own message. The rest is joined to the partial answer as it is;
- usage comes from stream_options.include_usage; prompt_tokens counts cached tokens, so they are
  taken out of input_tokens to match Anthropic's accounting.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings
from code_commit.errors import ServiceError
from code_commit.llm.base import Hooks, Usage
from code_commit.llm.catalog import prompt_too_long, tokens_at_most
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.prompts import Prompt
from code_commit.llm.transport import (
    Attempt,
    Rejected,
    Reply,
    StreamingProvider,
    Transient,
    bounded_responses,
    excerpt,
    parse_retry_after,
    status_is_transient,
)

CONNECT_TIMEOUT = 10.0
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
TRANSIENT_STREAM_ERRORS = frozenset(
    {"server_error", "api_error", "overloaded_error", "rate_limit_error", "rate_limit_exceeded", "timeout_error"}
)
CONTINUE = (
    "Your answer above was cut off at the output limit. Continue it from exactly where it stopped, "
    "starting with the next character: do not repeat anything and do not add any preface."
)


def _joined(sections: Any) -> str:
    return "".join(s.text if s.text.endswith("\n") or not s.text else s.text + "\n" for s in sections)


def request_body(settings: Settings, prompt: Prompt, partial: str) -> dict[str, Any]:
    messages: list[dict[str, str]] = []
    if prompt.system:
        messages.append({"role": "system", "content": _joined(prompt.system)})
    messages.append({"role": "user", "content": _joined(prompt.user)})
    if partial:
        messages += [{"role": "assistant", "content": partial}, {"role": "user", "content": CONTINUE}]
    return {
        "model": settings.model,
        "max_tokens": settings.max_tokens,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("prompt_tokens_details")
    cached = (details.get("cached_tokens") if isinstance(details, dict) else 0) or 0
    prompt = raw.get("prompt_tokens") or 0
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=raw.get("completion_tokens") or 0,
        cache_read_tokens=cached,
    )


def _error_of(payload: Any) -> tuple[str, str]:
    """(type or code, message) of an OpenAI-style error body: {"error": {...}}, {"error": "..."}, or the
    error itself at the top level, as vLLM sends it ({"object": "error", "message": ..., "type": ...})."""
    if not isinstance(payload, dict):
        return "", ""
    error = payload.get("error")
    if isinstance(error, str):
        return "", excerpt(error)
    if not isinstance(error, dict):
        error = payload if payload.get("object") == "error" or "message" in payload else {}
    kind = excerpt(error.get("type") or error.get("code") or "")
    return kind, excerpt(error.get("message") or "")


# What a refusal's message may say about the model's limits (OpenAI's, vLLM's and others' wording).
_CONTEXT = re.compile(r"maximum context length is (\d+)|context (?:length|window|size) (?:is|of) (\d+)", re.I)
_PROMPT = re.compile(
    r"\((\d+) in the messages|(\d+) input tokens|messages resulted in (\d+) tokens"
    r"|prompt (?:has|contains) (\d+) tokens",
    re.I,
)
_OUTPUT_CAP = re.compile(r"at most (\d+) completion tokens", re.I)
_MAX_TOKENS = re.compile(r"max_(?:completion_)?tokens\W{0,3}(?:is )?too large|in the completion", re.I)


def _number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    return None if match is None else int(next(group for group in match.groups() if group))


@dataclass(frozen=True)
class OutputLimitTooLarge:
    """A request refused for its output limit (max_tokens), not its prompt."""

    fits: int | None  # the largest max_tokens that would fit, when the service's numbers tell


def output_limit_problem(message: str, prompt_chars: int, max_tokens: int) -> OutputLimitTooLarge | None:
    """Whether a refusal's message says, or its numbers show, that the trouble is the requested output
    limit rather than the prompt.

    Servers that check prompt + max_tokens against the context (vLLM, OpenAI's older models) refuse with
    "maximum context length is C tokens ... (P in the messages, M in the completion)". Where the message
    gives C but not P, the prompt is counted at 3 characters a token (a high estimate): a prompt that fits
    even so is not the trouble."""
    cap = _number(_OUTPUT_CAP, message)
    if cap is not None:
        return OutputLimitTooLarge(cap)
    context = _number(_CONTEXT, message)
    prompt = _number(_PROMPT, message)
    if context is not None and prompt is None and tokens_at_most(prompt_chars) < context:
        prompt = tokens_at_most(prompt_chars)
    if context is not None and prompt is not None:
        room = context - prompt
        return OutputLimitTooLarge(room) if 0 < room < max_tokens else None
    return OutputLimitTooLarge(None) if _MAX_TOKENS.search(message) else None


class OpenAIProvider(StreamingProvider):
    name = "OpenAI-compatible"

    def __init__(self, settings: Settings, key: ApiKey, hooks: Hooks | None, endpoint: Endpoint) -> None:
        super().__init__(settings, hooks, endpoint)
        self.key = key
        self.url = endpoint.url.rstrip("/") + "/chat/completions"
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            import httpx

            # The key travels only in the Authorization header. With no key configured (a local server)
            # no Authorization header is sent at all.
            headers = {"Authorization": f"Bearer {self.key.value}"} if self.key.value else {}
            self._client = httpx.Client(headers=headers, event_hooks=bounded_responses(httpx, self.raw_cap))
        return self._client

    def request_chars(self, prompt: Prompt, partial: str) -> int:
        return super().request_chars(prompt, partial) + (len(CONTINUE) if partial else 0)

    def send(self, prompt: Prompt, partial: str, timeout: float, attempt: Attempt) -> Reply:
        import httpx

        client = self.client()
        body = request_body(self.settings, prompt, partial)
        try:
            with client.stream(
                "POST", self.url, json=body, timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
            ) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._status_fault(response, prompt)
                if response.headers.get("content-type", "").startswith("application/json"):
                    return self._whole(response.read(), attempt)  # a server that ignored "stream": true
                return self._stream(response, attempt)
        except httpx.ConnectTimeout as exc:
            wait = min(timeout, CONNECT_TIMEOUT)
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

    def _stream(self, response: Any, attempt: Attempt) -> Reply:
        parts: list[str] = []
        finish: str | None = None
        usage: Usage | None = None
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue  # blank separators, comments, event: lines
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                chunk = json.loads(data)
            except ValueError:
                raise ServiceError(
                    f"the {self.name} service sent a stream event that is not JSON: {data[:200]}"
                ) from None
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                kind, message = _error_of(chunk)
                if kind in TRANSIENT_STREAM_ERRORS or not kind:
                    raise Transient(f"{kind or 'error'} event in the stream", message)
                raise ServiceError(f"the {self.name} service broke off the answer with {kind}: {message}")
            if chunk.get("usage"):
                usage = _usage(chunk["usage"])
                attempt.reported(usage)
            for choice in chunk.get("choices") or []:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                delta = choice.get("delta") or {}
                piece = delta.get("content") if isinstance(delta, dict) else None
                if isinstance(piece, str) and piece:
                    parts.append(piece)
                    attempt.text(piece)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        if finish is None:
            # The body ended (or [DONE] came) before any finish_reason: the answer is not whole.
            raise Transient("stream ended early", "the answer stopped without a finish reason")
        if usage is None:
            # Without counts the call's cost (and the --max-cost budget) would silently read as zero.
            self.hooks.notify("the server reported no token usage: this request's tokens and cost count as 0")
            usage = Usage()
        return Reply("".join(parts), STOP_REASONS.get(finish, finish), usage)

    def _whole(self, raw: bytes, attempt: Attempt) -> Reply:
        try:
            answer = json.loads(raw)
            choice = answer["choices"][0]
            text = choice["message"].get("content") or ""
            finish = choice.get("finish_reason") or "stop"
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise ServiceError(f"the {self.name} service sent an answer that is not a chat completion") from None
        if text:
            attempt.text(text)
        return Reply(text, STOP_REASONS.get(finish, finish), _usage(answer.get("usage")))

    def _status_fault(self, response: Any, prompt: Prompt) -> Exception:
        status = response.status_code
        try:
            kind, message = _error_of(response.json())
        except ValueError:
            kind, message = "", response.text[:300]
        headers = response.headers
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
        text = f"{kind} {message}".lower()
        chars = len(prompt.render())
        too_large = output_limit_problem(message, chars, self.settings.max_tokens) if status == 400 else None
        if too_large is not None:
            return Rejected(self._output_limit_message(too_large, message))
        if status == 413 or (status == 400 and ("context" in text and ("length" in text or "window" in text))):
            return Rejected(prompt_too_long(self.settings.model, chars, f"HTTP {status}: {message}"))
        if status_is_transient(status, headers):
            return Transient(f"HTTP {status} {kind}".strip(), message, parse_retry_after(headers))
        failure = Rejected if status == 400 else ServiceError
        return failure(f"the {self.name} service answered HTTP {status} {kind}: {message}".replace("  ", " "))

    def _output_limit_message(self, too_large: OutputLimitTooLarge, message: str) -> str:
        at_most = "" if too_large.fits is None else f" to at most {too_large.fits:,}"
        return (
            f"the {self.name} service refused the output limit of {self.settings.max_tokens:,} tokens for "
            f"{self.settings.model}, not the prompt (HTTP 400: {message}). "
            f"Lower --max-tokens (the max_tokens setting){at_most}."
        )
