"""The Anthropic Messages API through the official SDK, always streaming: first-party, and Claude on AWS
Bedrock and Google Vertex AI through the SDK's own clients (`AnthropicBedrock`, `AnthropicVertex`) and
their credential chains (llm/cloud.py). The wire differs (Bedrock frames its stream as AWS event-stream);
the requests, retries, continuations, usage and censoring do not.

The SDK (and httpx2 under it) is imported here, when a call is about to be made, never at start-up:
importing it costs over a second. Its own retries are off (max_retries=0): `StreamingProvider` owns
them, so attempts never multiply.

What a request never carries: temperature, top_p or top_k (the API version SDK 2.x speaks, 2026-10-21,
refuses them, at any value), a `thinking` setting (budget_tokens and `thinking: disabled` are refused by
the current models; each model's own default is kept), or a final assistant turn (prefill, refused from
Claude 4.6 on): a cut-off answer is continued as `continuation` says. An effort level is sent, as
output_config.effort, only to a model the catalog says takes one.
"""

from __future__ import annotations

import json
from typing import Any

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings
from code_commit.errors import ServiceError
from code_commit.llm.base import Hooks, Usage
from code_commit.llm.catalog import ModelInfo, prompt_too_long
from code_commit.llm.continuation import Continuation
from code_commit.llm.endpoint import Endpoint, cloud_region
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
    tls_context,
)
from code_commit.providers import KEY, PROVIDERS

# Error events inside an already-open stream that are worth another attempt: Anthropic's, and the
# exception frames of Bedrock's event-stream (which the SDK turns into error events).
_TRANSIENT_STREAM_ERRORS = frozenset(
    {
        "overloaded_error",
        "api_error",
        "rate_limit_error",
        "timeout_error",
        "throttlingException",
        "internalServerException",
        "serviceUnavailableException",
        "modelTimeoutException",
        "modelStreamErrorException",
    }
)
# The API version older models need on each cloud: the SDK's own (2026-10-21) works there only for
# Claude 4.7 and later (platform.claude.com/docs/en/api/versioning).
_LEGACY_CLOUD_VERSIONS = {"bedrock": "bedrock-2023-05-31", "vertex": "vertex-2023-10-16"}
_CONNECT_TIMEOUT = 10.0


def _blocks(sections: Any) -> list[dict[str, Any]]:
    # Empty sections are left out (the API refuses an empty text block). A section marked cache ends
    # a cached prefix: the service stores everything up to and including it.
    blocks: list[dict[str, Any]] = []
    for section in sections:
        if section.text:
            block: dict[str, Any] = {"type": "text", "text": section.text}
            if section.cache:
                block["cache_control"] = {"type": "ephemeral"}
            blocks.append(block)
    return blocks


def _request_params(prompt: Prompt, continuation: Continuation | None, effort: str | None = None) -> dict[str, Any]:
    """The system, messages and options of a request; with a continuation, the request for the rest of the
    answer, which ends with a user turn like every request."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": _blocks(prompt.user)}]
    if continuation is not None:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": continuation.assistant_turn}]})
        messages.append({"role": "user", "content": [{"type": "text", "text": continuation.instruction}]})
    params: dict[str, Any] = {"system": _blocks(prompt.system), "messages": messages}
    if effort is not None:
        params["output_config"] = {"effort": effort}
    return params


class AnthropicProvider(StreamingProvider):
    name = "Anthropic"

    def __init__(
        self, settings: Settings, key: ApiKey, hooks: Hooks | None, endpoint: Endpoint, model: ModelInfo
    ) -> None:
        super().__init__(settings, hooks, endpoint)
        self.key = key
        self.model = model
        self.name = {"bedrock": "Bedrock", "vertex": "Vertex AI"}.get(settings.provider, "Anthropic")
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            import anthropic
            import httpx2

            # Created once per run. The key goes in the constructor, so the SDK sends
            # it in a header, never in a URL, and never through extra_headers (which its debug log prints).
            url = self.endpoint.url if self.endpoint else None
            # The SDK's own HTTP client, with its defaults, every response body read through a byte cap.
            http_client = anthropic.DefaultHttpxClient(
                verify=tls_context(httpx2), event_hooks=bounded_responses(httpx2, self.raw_cap)
            )
            common: dict[str, Any] = {"base_url": url, "max_retries": 0, "http_client": http_client}
            provider = self.settings.provider
            if provider == "bedrock":
                from code_commit.llm.cloud import require_packages

                require_packages("bedrock")
                # The AWS credential chain (environment, profiles, SSO, web identity, instance roles) is
                # the SDK's, through boto3; an API key (AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token.
                self._client = anthropic.AnthropicBedrock(
                    api_key=self.key.value or None, aws_region=cloud_region("bedrock", self.settings), **common
                )
            elif provider == "vertex":
                from code_commit.llm.cloud import require_packages, vertex_project

                require_packages("vertex")
                # Application default credentials, through google-auth, fetched on the first request.
                project = vertex_project(self.settings)
                if project:  # else the credentials' own project
                    common["project_id"] = project
                self._client = anthropic.AnthropicVertex(region=cloud_region("vertex", self.settings), **common)
            else:
                self._client = anthropic.Anthropic(api_key=self.key.value, **common)
        return self._client

    @property
    def effort(self) -> str | None:
        """The effort level to send: the setting's, where the model takes one."""
        return self.settings.effort if self.model.effort else None

    def extra_body(self) -> dict[str, Any] | None:
        version = _LEGACY_CLOUD_VERSIONS.get(self.settings.provider)
        return {"anthropic_version": version} if version and self.model.legacy_cloud_api else None

    def send(self, prompt: Prompt, continuation: Continuation | None, timeout: float, attempt: Attempt) -> Reply:
        import anthropic
        import httpx2

        client = self.client()
        started = False
        try:
            with client.messages.stream(
                model=self.settings.model,
                max_tokens=self.max_tokens,
                timeout=httpx2.Timeout(timeout, connect=min(timeout, _CONNECT_TIMEOUT)),
                extra_body=self.extra_body(),
                **_request_params(prompt, continuation, self.effort),
            ) as stream:
                if _is_json(stream.response):
                    return self._whole(stream.response, attempt)  # a gateway that does not stream
                for event in stream:
                    if event.type == "text":
                        attempt.text(event.text)
                    elif event.type == "thinking":
                        attempt.thinking(event.thinking)
                    elif event.type == "content_block_start" and event.content_block.type == "redacted_thinking":
                        attempt.thinking(_REDACTED_THINKING)
                    elif event.type in ("message_start", "message_delta"):
                        started = True
                        # The counts so far (the SDK folds message_delta's into message_start's): what
                        # this attempt has used if the stream breaks off from here on.
                        attempt.reported(_usage(stream.current_message_snapshot.usage))
                if not started:
                    # A 200 with no message in it: a proxy, a gateway or a captive portal answered,
                    # or the stream was cut before it began.
                    raise Transient("stream ended early", "the answer ended before it began (no message_start event)")
                message = stream.get_final_message()
        except anthropic.APIStatusError as exc:
            raise self._status_fault(exc, prompt) from exc
        except anthropic.APITimeoutError as exc:
            if isinstance(exc.__cause__, httpx2.ConnectTimeout):
                raise self._unreachable("no answer to the connection", timeout) from exc
            raise Transient("timeout", f"no answer within {timeout:.1f} s") from exc
        except anthropic.APIConnectionError as exc:
            if isinstance(exc.__cause__, httpx2.ConnectError):
                raise self._unreachable(str(exc.__cause__), timeout) from exc
            raise Transient("connection failed", f"{exc.__cause__ or exc} ({self._where()})") from exc
        # Faults after the 200 headers, while the body streams, escape the SDK unwrapped.
        except httpx2.TimeoutException as exc:
            raise Transient("stream stalled", f"no data for {timeout:.1f} s in the middle of the answer") from exc
        except httpx2.TransportError as exc:
            raise Transient("stream broke off", f"{type(exc).__name__}: {exc}") from exc
        except json.JSONDecodeError as exc:  # a garbled event: the SDK parses each one as it comes
            raise Transient("stream garbled", f"an event that is not JSON ({exc})") from exc
        except anthropic.APIError as exc:
            raise ServiceError(f"the {self.name} service sent something unusable: {exc}") from exc
        except Exception as exc:  # the cloud's credential chain, which runs inside the SDK's request
            fault = self._credential_fault(exc)
            if fault is None:
                raise
            raise fault from exc
        if message.stop_reason is None:
            # The body ended cleanly but before message_delta / message_stop: the answer is not whole.
            raise Transient("stream ended early", "the answer stopped without a stop reason")
        # Only text blocks are the answer: thinking (and redacted thinking) blocks never are.
        text = "".join(block.text for block in message.content if block.type == "text")
        return Reply(text=text, stop_reason=message.stop_reason, usage=_usage(message.usage))

    def _credential_fault(self, exc: Exception) -> Exception | None:
        """A failure of the cloud's credential chain (fetching a token, finding credentials) as a fault
        that says so; None for anything else."""
        provider = self.settings.provider
        if provider == "vertex":
            import google.auth.exceptions  # type: ignore[import-untyped,import-not-found,unused-ignore]

            if isinstance(exc, google.auth.exceptions.TransportError):  # the token endpoint is unreachable
                return Transient("cannot get a Google access token", excerpt(exc), connect=True)
            if isinstance(exc, google.auth.exceptions.GoogleAuthError):
                return ServiceError(f"the Google credentials ({self.key.source}) failed: {excerpt(exc)}")
        if provider == "bedrock":
            import botocore.exceptions  # type: ignore[import-untyped,import-not-found,unused-ignore]

            # The SDK raises RuntimeError when the chain found nothing at request time.
            if isinstance(exc, botocore.exceptions.BotoCoreError | RuntimeError):
                return ServiceError(f"the AWS credentials ({self.key.source}) failed: {excerpt(exc)}")
        return None

    def _where(self) -> str:
        return f"endpoint {self.endpoint.describe()}" if self.endpoint else "the SDK's default endpoint"

    def _unreachable(self, why: str, timeout: float) -> Transient:
        if why == "no answer to the connection":
            why = f"no answer to the connection within {min(timeout, _CONNECT_TIMEOUT):.1f} s"
        return Transient("cannot connect", f"{why} ({self._where()})", connect=True)

    def _whole(self, response: Any, attempt: Attempt) -> Reply:
        """A complete Messages API message as one JSON body, in answer to a streaming request: what
        LiteLLM's proxy sends for a mocked model. An answer, not a broken stream."""
        body = response.read()
        if not body.strip():
            raise Transient("answer ended early", "an empty JSON body")
        try:
            message = json.loads(body)
        except ValueError:  # cut short, or garbled on the way: as a broken stream, worth another attempt
            raise Transient("answer garbled", "a JSON body that does not parse") from None
        if isinstance(message, dict) and message.get("type") == "error":
            error = message.get("error")
            error = error if isinstance(error, dict) else {}
            kind, text = excerpt(error.get("type") or "error"), excerpt(error.get("message") or "")
            if kind in _TRANSIENT_STREAM_ERRORS:
                raise Transient(f"{kind} in a JSON answer", text)
            raise ServiceError(f"the {self.name} service answered with {kind}: {text}")
        try:
            if not isinstance(message, dict) or message["type"] != "message":
                raise TypeError("not a message")
            blocks = [b for b in message["content"] if isinstance(b, dict)]
            text = "".join(str(block["text"]) for block in blocks if block.get("type") == "text")
            thought = "".join(_thinking_of(block) for block in blocks)
            stop_reason = message["stop_reason"]
            usage = message.get("usage") or {}
            details = usage.get("output_tokens_details")
            counts = Usage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
                cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
                cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
                thinking_tokens=int((details.get("thinking_tokens") if isinstance(details, dict) else 0) or 0),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ServiceError(
                f"the {self.name} service ({self._where()}) answered with JSON that is not a Messages API message; "
                "check --base-url"
            ) from None
        if not isinstance(stop_reason, str) or not stop_reason:
            raise Transient("answer without a stop reason", "a JSON answer with no stop_reason: it may not be whole")
        attempt.reported(counts)
        if thought:
            attempt.thinking(thought)
        if text:
            attempt.text(text)
        return Reply(text=text, stop_reason=stop_reason, usage=counts)

    def _status_fault(self, exc: Any, prompt: Prompt) -> Exception:
        """An error answer (or error event) as Transient or ServiceError, with a message that says what to do."""
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error")
        # Bedrock's errors are {"message": ...}, with the type in the x-amzn-ErrorType header.
        error = error if isinstance(error, dict) else body
        amazon_type = exc.response.headers.get("x-amzn-errortype", "").split(":")[0] if exc.response else ""
        error_type = excerpt(exc.type or error.get("type") or amazon_type or "")
        message = excerpt(error.get("message") or exc.message)
        status = exc.status_code
        if status == 200:  # an error event inside a stream that had started
            if error_type in _TRANSIENT_STREAM_ERRORS:
                return Transient(f"{error_type} event in the stream", message)
            return ServiceError(
                f"the {self.name} service broke off the answer with {error_type or 'an error'}: {message}"
            )
        headers = exc.response.headers
        what = "API key" if PROVIDERS[self.settings.provider].credentials == KEY else "credentials"
        if status == 401:
            return ServiceError(
                f"the {self.name} service refused the {what} from {self.key.source} (HTTP 401: {message}); "
                "check that they are valid, not revoked and not expired"
            )
        if status == 403:
            return ServiceError(
                f"the {what} from {self.key.source} may not use {self.settings.model} (HTTP 403: {message})"
            )
        if status == 404:
            return ServiceError(
                f"the {self.name} service does not know {self.settings.model} or the endpoint (HTTP 404: {message}); "
                "check --model and --base-url"
            )
        if status == 413 or (status == 400 and _says_too_long(message)):
            return Rejected(prompt_too_long(self.settings.model, len(prompt.render()), f"HTTP {status}: {message}"))
        if status_is_transient(status, headers):
            return Transient(f"HTTP {status} {error_type}".strip(), message, parse_retry_after(headers))
        failure = Rejected if status == 400 else ServiceError
        return failure(f"the {self.name} service answered HTTP {status} {error_type}: {message}".replace("  ", " "))


_REDACTED_THINKING = "[redacted thinking: the service sent it encrypted]\n"


def _thinking_of(block: dict[str, Any]) -> str:
    if block.get("type") == "thinking":
        return str(block.get("thinking") or "")
    return _REDACTED_THINKING if block.get("type") == "redacted_thinking" else ""


def _usage(usage: Any) -> Usage:
    details = getattr(usage, "output_tokens_details", None)
    return Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
        cache_read_tokens=usage.cache_read_input_tokens or 0,
        thinking_tokens=(getattr(details, "thinking_tokens", 0) or 0) if details is not None else 0,
    )


def _is_json(response: Any) -> bool:
    content_type: str = response.headers.get("content-type", "")
    return content_type.split(";")[0].strip().lower() == "application/json"


def _says_too_long(message: str) -> bool:
    text = message.lower()
    return "prompt is too long" in text or "context window" in text or "context_window" in text
