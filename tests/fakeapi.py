"""A loopback fake of the Anthropic Messages API and of OpenAI-style Chat Completions, for tests.

The installed SDK runs on httpx2, which respx cannot intercept, so the seam is a real HTTP server on
127.0.0.1. Standard library only.

    with FakeAPI() as api:
        api.reply("hello")                      # script the next answer
        client = anthropic.Anthropic(api_key="k", base_url=api.url, max_retries=0)
        ...
        assert len(api.requests) == 1

Routing: POST to a path ending in /v1/messages is Anthropic; POST to a path ending in /chat/completions
is OpenAI-style (so any base path prefix works). Anything else is a 404 JSON answer, recorded, that
consumes nothing.

The script is ONE shared FIFO queue for both endpoints: each API request takes the next scripted step,
whichever endpoint it hit, and the step is rendered in that endpoint's wire format (JSON, or SSE when
the body says "stream": true). A run talks to one provider, so one queue keeps the scripting API the
same for both. A request that finds the queue empty gets a 500 that says so, with x-should-retry: false
so an SDK that retries does not hide it or slow the test down.

Every request is recorded before its answer starts, so it is visible as soon as the client has a reply.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import selectors
import socket
import socketserver
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FakeAPI", "RecordedRequest"]

# The Anthropic error type for each status; other codes get api_error (5xx) or invalid_request_error.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

# Anthropic stop_reason -> OpenAI finish_reason.
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")

# A streamed answer is split into this many text deltas (fewer if the text is shorter).
STREAM_PIECES = 4

# Errors that only mean the client went away (timed out, was closed, or we cut it off on purpose).
_DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


def error_type_for(code: int) -> str:
    return ERROR_TYPES.get(code) or ("api_error" if code >= 500 else "invalid_request_error")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str  # without the query string
    query: str  # the raw query string, "" when there is none
    headers: dict[str, str]  # names lower-cased; repeated headers joined with ", "
    body: bytes
    json: Any  # the parsed body, or None when it is not JSON

    @property
    def prompt_text(self) -> str:
        """Every text of the system prompt and the messages, joined by newlines (Anthropic and OpenAI shapes)."""
        if not isinstance(self.json, dict):
            return ""
        texts: list[str] = []
        _collect_texts(self.json.get("system"), texts)
        for message in self.json.get("messages") or []:
            if isinstance(message, dict):
                _collect_texts(message.get("content"), texts)
        return "\n".join(texts)


def _collect_texts(content: Any, texts: list[str]) -> None:
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])


@dataclass(frozen=True)
class _Step:
    """One scripted answer. kind is reply, status, drop, cut or stream_error."""

    kind: str
    text: str = ""
    stop_reason: str = "end_turn"
    usage: dict[str, int] = field(default_factory=dict)
    code: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    error_type: str = ""
    message: str = ""
    delay: float = 0.0  # before the answer starts
    chunk_delay: float = 0.0  # before each stream event
    stall: float = 0.0  # cut only: after the partial text, before the cut
    clean: bool = False  # cut only: end the body properly instead of dropping the connection
    whole: bool = False  # reply only: one JSON body even to a streaming request


class FakeAPI:
    """The fake server. Start it with `with FakeAPI() as api:` (or start()/stop()), then script and inspect."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[_Step] = deque()
        self._requests: list[RecordedRequest] = []
        self._unscripted = 0
        self._ids = 0
        self._stopping = threading.Event()  # also interrupts scripted delays, so stop() never waits them out
        self._server: _Server | None = None
        self._accept_thread: threading.Thread | None = None

    # --- life cycle ---

    def start(self) -> FakeAPI:
        if self._server is not None:
            raise RuntimeError("FakeAPI is already running")
        self._stopping.clear()
        self._wake_r, self._wake_w = socket.socketpair()  # stop() writes here to wake the accept loop
        self._server = _Server(self)
        self._accept_thread = threading.Thread(target=self._accept_loop, name="fakeapi-accept", daemon=True)
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        """Stop at once: no poll interval to wait out, scripted delays cut short, open connections closed."""
        server = self._server
        if server is None:
            return
        self._stopping.set()
        self._wake_w.send(b"x")
        assert self._accept_thread is not None
        self._accept_thread.join()
        server.server_close()
        with self._lock:
            connections = dict(server.connections)
        for sock in connections:
            # Wakes a handler blocked reading the next keep-alive request: it sees end of file and returns.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in connections.values():
            thread.join(timeout=2.0)
        self._wake_r.close()
        self._wake_w.close()
        self._server = None

    def __enter__(self) -> FakeAPI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The base URL, e.g. http://127.0.0.1:PORT (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("FakeAPI is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _accept_loop(self) -> None:
        # Our own loop rather than serve_forever(): that one only notices shutdown() every poll_interval
        # (0.5 s by default), which hundreds of tests would pay. Here stop() wakes the select at once.
        server = self._server
        assert server is not None
        with selectors.DefaultSelector() as selector:
            selector.register(server.socket, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj is self._wake_r for key, _ in ready):
                    return
                try:
                    conn, address = server.get_request()
                except OSError:  # the client gave up before we accepted
                    continue
                conn.setblocking(True)
                # Without this, Nagle's algorithm holds each small SSE chunk until the client's delayed ACK
                # (~40 ms): a streamed answer took 50 ms instead of 6.
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                server.process_request(conn, address)

    # --- scripting ---

    def reply(
        self,
        text: str,
        stop_reason: str = "end_turn",
        usage: Mapping[str, int] | None = None,
        *,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        whole: bool = False,
    ) -> None:
        """A normal answer. usage overrides any of USAGE_KEYS; a stream splits text into several deltas.
        whole=True answers even a streaming request with the complete message as one JSON body
        (Content-Type application/json), as LiteLLM's proxy does for a mocked model."""
        counts = _counts(text, usage)
        self._push(
            _Step(
                "reply",
                text=text,
                stop_reason=stop_reason,
                usage=counts,
                delay=delay,
                chunk_delay=chunk_delay,
                whole=whole,
            )
        )

    def status(
        self,
        code: int,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        delay: float = 0.0,
    ) -> None:
        """An HTTP error. body: a dict (sent as JSON), str or bytes (sent as is), or None for the provider's
        error JSON with the type that matches code. headers: extra response headers (retry-after, ...), and
        a Content-Type other than application/json."""
        self._push(_Step("status", code=code, body=body, headers=dict(headers or {}), delay=delay))

    def drop(self, *, delay: float = 0.0) -> None:
        """Read the request, then close the connection without any response."""
        self._push(_Step("drop", delay=delay))

    def cut_stream(
        self,
        partial_text: str,
        *,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        stall: float = 0.0,
        clean: bool = False,
        usage: Mapping[str, int] | None = None,
    ) -> None:
        """Start a valid stream, send partial_text as deltas, hang for stall seconds, then close the
        connection mid-body (no message_stop). clean=True ends the chunked body properly instead, as a
        proxy that gave up might: the stream just stops early, with no stop reason and no error. To a
        non-streaming request: promise the whole JSON body, send half of it, close. usage: as reply()'s;
        an Anthropic stream's message_start carries its input counts (and 1 output token), as the API's."""
        self._push(
            _Step(
                "cut",
                text=partial_text,
                usage=_counts(partial_text, usage),
                delay=delay,
                chunk_delay=chunk_delay,
                stall=stall,
                clean=clean,
            )
        )

    def stream_error(
        self,
        partial_text: str,
        error_type: str = "overloaded_error",
        message: str | None = None,
        *,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> None:
        """Stream partial_text as deltas, then an in-stream error event, then end the body cleanly.
        Anthropic: `event: error` with {"type":"error","error":{...}}. OpenAI: `data: {"error":{...}}`.
        Only for streaming requests: a non-streaming one gets a loud 500 instead. usage: as cut_stream()'s."""
        text = message or f"FakeAPI: scripted in-stream {error_type}"
        self._push(
            _Step(
                "stream_error",
                text=partial_text,
                usage=_counts(partial_text, usage),
                error_type=error_type,
                message=text,
                delay=delay,
                chunk_delay=chunk_delay,
            )
        )

    def _push(self, step: _Step) -> None:
        with self._lock:
            self._script.append(step)

    # --- inspection ---

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """How many scripted steps no request has taken yet."""
        with self._lock:
            return len(self._script)

    @property
    def unscripted(self) -> int:
        """How many API requests found the script empty (and got the 500)."""
        with self._lock:
            return self._unscripted

    # --- used by the handler threads ---

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._requests.append(request)
            self._ids += 1
            return self._ids

    def _next_step(self) -> _Step | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            self._unscripted += 1
            return None


class _Server(socketserver.TCPServer):
    """A TCP server that serves each connection on its own thread and remembers them, so stop() can close
    and join them. (socketserver's ThreadingMixIn forgets daemon threads, and HTTPServer.server_bind does
    a reverse DNS lookup we do not need.)"""

    def __init__(self, api: FakeAPI) -> None:
        self.api = api
        self.connections: dict[socket.socket, threading.Thread] = {}
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), name="fakeapi-conn", daemon=True
        )
        with self.api._lock:
            self.connections[request] = thread
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            with self.api._lock:
                self.connections.pop(request, None)
            self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away is routine here (timeouts, drop(), cut_stream(), stop()); anything else
        # is a bug in the fake and must be seen, but must not kill the server.
        if isinstance(sys.exc_info()[1], OSError):  # _DISCONNECTS and their kin
            return
        super().handle_error(request, client_address)


class _BadRequest(Exception):
    pass


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as the real services speak
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # no per-request lines on stderr

    def do_POST(self) -> None:
        try:
            self._serve()
        except _DISCONNECTS:
            self.close_connection = True
        except Exception as exc:
            # A bug in the fake: answer loudly if the answer has not started, and keep serving.
            self.close_connection = True
            with contextlib.suppress(Exception):
                self._send_json(500, _anthropic_error("api_error", f"FakeAPI internal error: {exc!r}"))
            raise

    do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

    # --- one exchange ---

    def _serve(self) -> None:
        api = self.server.api
        path, _, query = self.path.partition("?")
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        try:
            body = self._read_body()
        except _BadRequest as exc:
            api._record(RecordedRequest(self.command, path, query, headers, b"", None))
            self.close_connection = True  # the framing is unknown, so the connection is unusable
            self._send_json(400, _anthropic_error("invalid_request_error", f"FakeAPI: {exc}"))
            return
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        number = api._record(RecordedRequest(self.command, path, query, headers, body, parsed))

        if self.command == "POST" and path.endswith("/v1/messages"):
            route: type[_Dialect] = _AnthropicDialect
        elif self.command == "POST" and path.endswith("/chat/completions"):
            route = _OpenAIDialect
        else:
            self._send_json(404, _anthropic_error("not_found_error", f"FakeAPI: no route for {self.command} {path}"))
            return
        if not isinstance(parsed, dict):
            self._send_json(400, route.error("invalid_request_error", "FakeAPI: the body is not a JSON object"))
            return

        step = api._next_step()
        if step is None:
            message = f"FakeAPI: script exhausted: nothing scripted for request #{number} ({self.command} {path})"
            self._send_json(500, route.error("api_error", message), {"x-should-retry": "false"})
            return
        if step.delay and api._stopping.wait(step.delay):
            self._abort()
            return

        dialect = route(str(parsed.get("model") or "fake-model"), number, _wants_stream_usage(parsed))
        streaming = parsed.get("stream") is True
        ids = {"request-id": f"req_fake_{number:04d}"}
        if step.kind == "status":
            body_out = step.body
            if body_out is None:
                body_out = dialect.error(error_type_for(step.code), f"FakeAPI: scripted HTTP {step.code}")
            headers = {**ids, **step.headers}
            content_type = headers.pop("Content-Type", "application/json")  # a proxy may send HTML, say
            self._send_json(step.code, body_out, headers, content_type)
        elif step.kind == "drop":
            self._abort()
        elif not streaming or step.whole:
            if step.kind == "stream_error":
                message = "FakeAPI: stream_error() was scripted but the request did not ask to stream"
                self._send_json(500, dialect.error("api_error", message), {"x-should-retry": "false"})
                return
            payload = _encode(dialect.message(step))
            if step.kind == "cut":
                self._send_head(200, "application/json", {**ids, "Content-Length": str(len(payload))})
                self.wfile.write(payload[: len(payload) // 2])
                self._abort()
            else:
                self._send_body(200, payload, "application/json", ids)
        else:
            self._send_head(200, "text/event-stream; charset=utf-8", {**ids, "Transfer-Encoding": "chunked"})
            for event in dialect.opening(step):
                self._send_chunk(event, step.chunk_delay)
            if step.kind == "cut":
                if step.stall:
                    api._stopping.wait(step.stall)
                if step.clean:
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self._abort()
                return
            closing = dialect.in_stream_error(step) if step.kind == "stream_error" else dialect.closing(step)
            for event in closing:
                self._send_chunk(event, step.chunk_delay)
            self.wfile.write(b"0\r\n\r\n")

    # --- wire helpers ---

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                line = self.rfile.readline(65537)
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise _BadRequest(f"bad chunk size line {line[:40]!r}") from None
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self._read_exactly(size))
                self.rfile.readline()
        raw_length = self.headers.get("Content-Length") or "0"
        try:
            length = int(raw_length)
        except ValueError:
            raise _BadRequest(f"bad Content-Length {raw_length!r}") from None
        if length < 0:
            raise _BadRequest(f"bad Content-Length {raw_length!r}")
        return self._read_exactly(length)

    def _read_exactly(self, size: int) -> bytes:
        data = self.rfile.read(size)
        if len(data) < size:
            raise ConnectionResetError("the client closed the connection inside the request body")
        return data

    def _send_head(self, code: int, content_type: str, headers: Mapping[str, str]) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()

    def _send_body(self, code: int, body: bytes, content_type: str, headers: Mapping[str, str]) -> None:
        self._send_head(code, content_type, {**headers, "Content-Length": str(len(body))})
        self.wfile.write(body)

    def _send_json(
        self, code: int, obj: Any, headers: Mapping[str, str] | None = None, content_type: str = "application/json"
    ) -> None:
        body = obj if isinstance(obj, bytes) else obj.encode() if isinstance(obj, str) else _encode(obj)
        self._send_body(code, body, content_type, headers or {})

    def _send_chunk(self, data: bytes, delay: float) -> None:
        if delay and self.server.api._stopping.wait(delay):
            raise ConnectionAbortedError("FakeAPI stopped")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _abort(self) -> None:
        """Close the connection now, mid-exchange: the client sees the peer vanish."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _counts(text: str, usage: Mapping[str, int] | None) -> dict[str, int]:
    """A step's token counts: defaults for text, overridden by any of USAGE_KEYS in usage."""
    counts = {
        "input_tokens": 12,
        "output_tokens": max(1, len(text) // 4),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    unknown = set(usage or {}) - set(USAGE_KEYS)
    if unknown:
        raise ValueError(f"unknown usage keys {sorted(unknown)}; expected some of {USAGE_KEYS}")
    counts.update(usage or {})
    return counts


def _encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _pieces(text: str) -> list[str]:
    if not text:
        return []
    size = -(-len(text) // STREAM_PIECES)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _wants_stream_usage(body: Mapping[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


def _anthropic_error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


class _Dialect:
    """How one provider renders a step, for one exchange. Stream events are whole SSE events, framed."""

    def __init__(self, model: str, number: int, include_usage: bool) -> None:
        self.model = model  # echoed back, as the real services do
        self.number = number  # the request's 1-based arrival number, for ids
        self.include_usage = include_usage  # OpenAI's stream_options.include_usage

    @staticmethod
    def error(error_type: str, message: str) -> Any:
        raise NotImplementedError

    def message(self, step: _Step) -> dict[str, Any]:
        """The whole answer as the JSON of a non-streaming response."""
        raise NotImplementedError

    def opening(self, step: _Step) -> list[bytes]:
        """The stream up to and including the text deltas."""
        raise NotImplementedError

    def closing(self, step: _Step) -> list[bytes]:
        raise NotImplementedError

    def in_stream_error(self, step: _Step) -> list[bytes]:
        raise NotImplementedError


class _AnthropicDialect(_Dialect):
    @staticmethod
    def error(error_type: str, message: str) -> Any:
        return _anthropic_error(error_type, message)

    def _stop_details(self, step: _Step) -> dict[str, Any]:
        if step.stop_reason == "refusal":
            return {"stop_details": {"type": "refusal", "category": None, "explanation": None}}
        return {}

    def message(self, step: _Step) -> dict[str, Any]:
        return {
            "id": f"msg_fake_{self.number:04d}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [{"type": "text", "text": step.text}],
            "stop_reason": step.stop_reason,
            "stop_sequence": None,
            **self._stop_details(step),
            "usage": dict(step.usage),
        }

    @staticmethod
    def _event(data: dict[str, Any]) -> bytes:
        # The SDK skips any SSE event without an `event:` line, so every one carries its type there too.
        return b"event: %s\ndata: %s\n\n" % (data["type"].encode(), _encode(data))

    def opening(self, step: _Step) -> list[bytes]:
        # As the real API: message_start carries the input counts and an early output count; the final
        # output count comes in message_delta. A ping proves the client ignores it.
        start = self.message(step)
        start.update(content=[], stop_reason=None)
        start.pop("stop_details", None)
        start["usage"] = {**step.usage, "output_tokens": 1}
        events = [
            self._event({"type": "message_start", "message": start}),
            self._event({"type": "ping"}),
            self._event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ]
        for piece in _pieces(step.text):
            delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
            events.append(self._event(delta))
        return events

    def closing(self, step: _Step) -> list[bytes]:
        delta = {"stop_reason": step.stop_reason, "stop_sequence": None, **self._stop_details(step)}
        return [
            self._event({"type": "content_block_stop", "index": 0}),
            self._event(
                {"type": "message_delta", "delta": delta, "usage": {"output_tokens": step.usage["output_tokens"]}}
            ),
            self._event({"type": "message_stop"}),
        ]

    def in_stream_error(self, step: _Step) -> list[bytes]:
        return [self._event(_anthropic_error(step.error_type, step.message))]


class _OpenAIDialect(_Dialect):
    def __init__(self, model: str, number: int, include_usage: bool) -> None:
        super().__init__(model, number, include_usage)
        # The fields every chunk repeats; as OpenAI, usage is null on every chunk but the last when asked for.
        self.head: dict[str, Any] = {
            "id": f"chatcmpl-fake{number:04d}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            **({"usage": None} if include_usage else {}),
        }

    @staticmethod
    def error(error_type: str, message: str) -> Any:
        return {"error": {"message": message, "type": error_type, "param": None, "code": None}}

    @staticmethod
    def _usage(step: _Step) -> dict[str, Any]:
        # OpenAI counts cached tokens inside prompt_tokens; Anthropic's input_tokens excludes them.
        cached = step.usage["cache_read_input_tokens"]
        prompt = step.usage["input_tokens"] + cached + step.usage["cache_creation_input_tokens"]
        completion = step.usage["output_tokens"]
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }

    def message(self, step: _Step) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-fake{self.number:04d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": step.text},
                    "finish_reason": FINISH_REASONS.get(step.stop_reason, "stop"),
                }
            ],
            "usage": self._usage(step),
        }

    def opening(self, step: _Step) -> list[bytes]:
        events = [self._chunk({"role": "assistant", "content": ""}, None)]
        events += [self._chunk({"content": piece}, None) for piece in _pieces(step.text)]
        return events

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None) -> bytes:
        return self._data({**self.head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

    @staticmethod
    def _data(obj: Any) -> bytes:
        return b"data: %s\n\n" % (obj if isinstance(obj, bytes) else _encode(obj))

    def closing(self, step: _Step) -> list[bytes]:
        events = [self._chunk({}, FINISH_REASONS.get(step.stop_reason, "stop"))]
        if self.include_usage:
            events.append(self._data({**self.head, "choices": [], "usage": self._usage(step)}))
        events.append(self._data(b"[DONE]"))
        return events

    def in_stream_error(self, step: _Step) -> list[bytes]:
        return [self._data(self.error(step.error_type, step.message))]
