"""A loopback fake of the Anthropic Messages API and of OpenAI-style Chat Completions, for tests.

The installed SDK runs on httpx2, which respx cannot intercept, so the seam is a real HTTP server on
127.0.0.1. Standard library only.

    with FakeAPI() as api:
        api.reply("hello")                      # script the next answer
        client = anthropic.Anthropic(api_key="k", base_url=api.url, max_retries=0)
        ...
        assert len(api.requests) == 1

Routing: POST to a path ending in /v1/messages is Anthropic; POST to a path ending in /chat/completions
is OpenAI-style (so any base path prefix works); POST /model/{id}/invoke[-with-response-stream] is Claude
on AWS Bedrock (InvokeModel: JSON errors with x-amzn-ErrorType, and a stream framed as AWS event-stream);
POST .../publishers/anthropic/models/{id}:streamRawPredict (or :rawPredict) is Claude on Vertex AI; POST
/token is an OAuth token endpoint (Google's application default credentials refresh there when a test's
credentials file points at it). Anything else is a 404 JSON answer, recorded, that consumes nothing; a GET
(a client looking up what a server publishes, such as its context window) is recorded in `lookups`, apart
from the model calls in `requests`.

As strict as the real services (see `refuse` and the tables above it, each with its source): a request
they refuse today is refused here with their status and message, before it takes a scripted step, and
its message is appended to `refused`. Answers on models that
think by default carry a thinking block, as the real ones do.

The script is ONE shared FIFO queue for both endpoints: each API request takes the next scripted step,
whichever endpoint it hit, and the step is rendered in that endpoint's wire format (JSON, or SSE when
the body says "stream": true). A run talks to one provider, so one queue keeps the scripting API the
same for both. A request that finds the queue empty gets a 500 that says so, with x-should-retry: false
so an SDK that retries does not hide it or slow the test down.

Every request is recorded before its answer starts, so it is visible as soon as the client has a reply.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import http.server
import json
import math
import re
import selectors
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

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
DRIP_SECONDS = 0.005  # between two events of a drip
ENDLESS_SAFETY_STOP = 1 << 26  # bytes: an endless() stream ends here even if the client never stops reading

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
        return _prompt_text(self.json) if isinstance(self.json, dict) else ""


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
    one_line: bool = False  # endless only: one event line that never ends, instead of endless events
    pace: str = "flood"  # endless only: "flood", "pings" (keep-alives, never a text), "drip" (a small event a chunk)
    clean: bool = False  # cut only: end the body properly instead of dropping the connection
    whole: bool = False  # reply only: one JSON body even to a streaming request
    thinking: str | None = None  # the model's thinking before the text; None: as the model does by default
    thinking_tokens: int = 0


class FakeAPI:
    """The fake server. Start it with `with FakeAPI() as api:` (or start()/stop()), then script and inspect."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[_Step] = deque()
        self._requests: list[RecordedRequest] = []
        self._unscripted = 0
        self._ids = 0
        self.endless_sent: list[int] = []  # per endless() step served: body bytes written before the client left
        self.endless_chunks: list[int] = []  # per endless() step served: body chunks written before the client left
        self._stopping = threading.Event()  # also interrupts scripted delays, so stop() never waits them out
        # What the OpenAI-style endpoint is: "openai" (api.openai.com's rules), "vllm-0.5" (refuses any field
        # it does not know, max_completion_tokens included, as vLLM 0.4.2-0.6.3 did) or "ollama" (ignores
        # max_completion_tokens, as Ollama's /v1 and llama.cpp's server before 2026-02 do).
        self.openai_server = "openai"
        self.refused: list[str] = []  # the message of every request refused by the REFUSALS rules
        self.lookups: list[RecordedRequest] = []  # every GET (404): kept apart from the model calls in requests
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
        thinking: str | None = None,
        thinking_tokens: int | None = None,
    ) -> None:
        """A normal answer. usage overrides any of USAGE_KEYS; a stream splits text into several deltas.
        whole=True answers even a streaming request with the complete message as one JSON body
        (Content-Type application/json), as LiteLLM's proxy does for a mocked model. thinking: the
        model's thinking, sent before the text (a thinking block; OpenAI-style, reasoning_content
        deltas); thinking_tokens: how many of the output tokens it counts (default: its length / 4)."""
        counts = _counts(text, usage)
        spent = thinking_tokens if thinking_tokens is not None else len(thinking or "") // 4
        self._push(
            _Step(
                "reply",
                text=text,
                stop_reason=stop_reason,
                usage=counts,
                delay=delay,
                chunk_delay=chunk_delay,
                whole=whole,
                thinking=thinking,
                thinking_tokens=spent,
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

    def endless(self, piece: str = "x" * 1000, *, one_line: bool = False, pace: str = "flood") -> None:
        """A stream that never ends: after the opening events, `piece` as text delta after text delta;
        one_line=True: one event line that never ends instead. pace="pings": keep-alive pings only, one
        a chunk, never a text; pace="drip": one text delta of `piece` a chunk. Written until the client
        closes the connection (or ENDLESS_SAFETY_STOP bytes); the bytes written are appended to
        `endless_sent`, the chunks to `endless_chunks`."""
        self._push(_Step("endless", text=piece, one_line=one_line, pace=pace))

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

    def _looked_up(self, request: RecordedRequest) -> None:
        with self._lock:
            self.lookups.append(request)

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
        if self.command == "GET":  # what a client looks up (a server's published facts), not a model call
            api._looked_up(RecordedRequest(self.command, path, query, headers, body, parsed))
            self._send_json(404, _anthropic_error("not_found_error", f"FakeAPI: no route for {self.command} {path}"))
            return
        number = api._record(RecordedRequest(self.command, path, query, headers, body, parsed))

        bedrock = _BEDROCK_PATH.fullmatch(path)
        vertex = _VERTEX_PATH.fullmatch(path)
        model = str(parsed.get("model") or "fake-model") if isinstance(parsed, dict) else "fake-model"
        if self.command == "POST" and path.endswith("/v1/messages"):
            route: type[_Dialect] = _AnthropicDialect
        elif self.command == "POST" and path.endswith("/chat/completions"):
            route = _OpenAIDialect
        elif self.command == "POST" and bedrock:
            route, model = _BedrockDialect, urllib.parse.unquote(bedrock["model"])
        elif self.command == "POST" and vertex:
            route, model = _AnthropicDialect, urllib.parse.unquote(vertex["model"])
        elif self.command == "POST" and path == "/token":
            self._send_json(
                200, {"access_token": f"ya29.fake-token-{number:04d}", "expires_in": 3600, "token_type": "Bearer"}
            )
            return
        else:
            self._send_json(404, _anthropic_error("not_found_error", f"FakeAPI: no route for {self.command} {path}"))
            return
        if not isinstance(parsed, dict):
            self._send_json(400, route.error("invalid_request_error", "FakeAPI: the body is not a JSON object"))
            return
        wire = "bedrock" if bedrock else "vertex" if vertex else route.wire
        refusal = refuse(wire, model, parsed, headers, api.openai_server)
        if refusal is not None:
            status, message, error_type = refusal
            api.refused.append(message)
            self._send_json(status, route.error(error_type, message), route.error_headers(error_type))
            return
        if bedrock:
            parsed = {**parsed, "stream": bedrock["stream"] is not None}  # Bedrock says it in the path

        step = api._next_step()
        if step is None:
            message = f"FakeAPI: script exhausted: nothing scripted for request #{number} ({self.command} {path})"
            self._send_json(500, route.error("api_error", message), {"x-should-retry": "false"})
            return
        if step.delay and api._stopping.wait(step.delay):
            self._abort()
            return

        dialect = route(model, number, _wants_stream_usage(parsed))
        streaming = parsed.get("stream") is True
        ids = {"request-id": f"req_fake_{number:04d}"}
        step = dialect.as_the_model_answers(step)
        if step.kind == "status":
            body_out = step.body
            if body_out is None:
                body_out = dialect.error(error_type_for(step.code), f"FakeAPI: scripted HTTP {step.code}")
            headers = {**ids, **dialect.error_headers(error_type_for(step.code)), **step.headers}
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
        elif step.kind == "endless":
            self._send_head(200, dialect.stream_type, {**ids, "Transfer-Encoding": "chunked"})
            self._send_endless(dialect, step)
        else:
            self._send_head(200, dialect.stream_type, {**ids, "Transfer-Encoding": "chunked"})
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

    def _send_endless(self, dialect: _Dialect, step: _Step) -> None:
        sent = chunks = 0
        try:
            for event in dialect.opening(dataclasses.replace(step, text="")):
                self._send_chunk(event, 0.0)
                sent += len(event)
            repeated = {
                "pings": dialect.ping_event(),
                "drip": dialect.text_event(step.text),
            }.get(step.pace, b"x" * 65536 if step.one_line else dialect.text_event(step.text) * 64)
            if step.one_line:
                self._send_chunk(b'data: {"text": "', 0.0)
            # A drip is a drip in real time too: one event every few milliseconds, so a client's read
            # finds one or a few, never the thousands a flood would pile up in the socket meanwhile.
            delay = DRIP_SECONDS if step.pace == "drip" else 0.0
            while sent < ENDLESS_SAFETY_STOP and not self.server.api._stopping.is_set():
                self._send_chunk(repeated, delay)
                self.wfile.flush()
                sent += len(repeated)
                chunks += 1
        except OSError:
            pass  # the client closed the connection: what it would not read is never sent
        finally:
            self.server.api.endless_sent.append(sent)
            self.server.api.endless_chunks.append(chunks)
            self._abort()

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


# --- what the real services refuse today (research of 2026-11-25: the services' docs and their users' reports) ---

PREFILL_MESSAGE = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
# Claude families: the id without its date, version suffix, or cloud prefix (Bedrock's, Vertex's @date).
_CLAUDE_ID = re.compile(
    r"^(?:[a-z-]{2,8}\.)?(?:anthropic\.)?(?P<family>claude-(?:opus|sonnet|haiku|fable|mythos)-\d+(?:-\d+)?)"
    r"(?:-\d{8})?(?:-v\d+(?::\d+)?)?(?:@\d{8})?$"
)
# A final assistant turn (prefill) is refused from Claude 4.6 on (Anthropic's 4.6 migration guide; Opus 4.7
# and 4.8: copilot-api PR #261; every Claude 5 and 5.5 model: openrouter's claude-5-5 guide).
PREFILL_REFUSED = {
    "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-opus-5",
    "claude-sonnet-5", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5", "claude-fable-5-1",
    "claude-mythos-5-1",
}  # fmt: skip
LEGACY_45 = {"claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"}  # 200K context, 64K output
# Models that think without being asked (adaptive thinking on by default): their answers start with a
# thinking block. Opus 5.5 sends it with display "omitted" (empty thinking, a signature): so do all here,
# unless a test scripts the thinking.
THINK_BY_DEFAULT = {"claude-opus-5", "claude-sonnet-5", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"}
# thinking.type refused: "enabled" (budget_tokens) from Opus 4.7 and on the 5 family; "disabled" on
# Opus 5.5 and Sonnet 5.5 (always adaptive); "adaptive" on the 4.5 family.
THINKING_REFUSED = {
    "enabled": {"claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5", "claude-opus-5-5",
                "claude-sonnet-5-5", "claude-haiku-5-5"},
    "disabled": {"claude-opus-5-5", "claude-sonnet-5-5"},
    "adaptive": LEGACY_45,
}  # fmt: skip
# output_config.effort is taken from Claude 4.6 on; the 4.5 family refuses it (message unverified).
EFFORT_REFUSED = LEGACY_45
# The API version SDK 2.x sends; under it, sampling parameters are refused at any value.
STRICT_VERSION = "2026-10-21"
SAMPLING = ("temperature", "top_p", "top_k")
# On Bedrock and Vertex the newest version works only for Claude 4.7 and later (the versioning page).
LEGACY_CLOUD = {"claude-opus-4-6", "claude-sonnet-4-6", *LEGACY_45}
# OpenAI: gpt-5 and later and the o-series refuse max_tokens (and sampling other than the default).
_OPENAI_REASONING = re.compile(r"^(?:gpt-(?:[5-9]|\d\d)|o\d)")
OPENAI_MAX_TOKENS_MESSAGE = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
)
OLD_VLLM_FIELDS = {
    "model", "messages", "max_tokens", "stream", "stream_options", "temperature", "top_p", "n", "stop",
    "presence_penalty", "frequency_penalty", "user", "seed", "logprobs", "top_logprobs", "tools", "tool_choice",
}  # fmt: skip

# A SigV4 signature for Bedrock: AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/bedrock/aws4_request, ...
_SIGV4 = re.compile(r"AWS4-HMAC-SHA256 Credential=[A-Z0-9]{16,128}/\d{8}/[a-z0-9-]+/bedrock/aws4_request, ")
_BEDROCK_PATH = re.compile(r"/model/(?P<model>[^/]+)/invoke(?P<stream>-with-response-stream)?")
_VERTEX_PATH = re.compile(
    r"(?:/v1)?/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):(?:stream)?[Rr]awPredict"
)


def claude_family(model: str) -> str | None:
    match = _CLAUDE_ID.match(model)
    return match["family"] if match else None


def refuse(
    wire: str, model: str, body: dict[str, Any], headers: Mapping[str, str], openai_server: str
) -> tuple[int, str, str] | None:
    """(status, message, error type) for a request the real service refuses, None for one it takes."""
    if wire == "openai":
        return _refuse_openai(model, body, openai_server)
    family = claude_family(model)
    version = body.get("anthropic_version") if wire in ("bedrock", "vertex") else headers.get("anthropic-version")
    auth = headers.get("authorization", "")
    if wire == "bedrock" and not (_SIGV4.match(auth) or auth.startswith("Bearer ")):
        return 403, "The security token included in the request is invalid.", "UnrecognizedClientException"
    if wire == "vertex" and not auth.startswith("Bearer "):
        return (
            401,
            "Request had invalid authentication credentials. Expected OAuth 2 access token.",
            "authentication_error",
        )
    if wire == "bedrock":
        for key in ("model", "stream"):
            if key in body:  # Bedrock's InvokeModel takes the model and streaming from the path
                why = f"extraneous key [{key}] is not permitted, please reformat your input and try again."
                return 400, f"Malformed input request: #: {why}", "ValidationException"
    if wire in ("bedrock", "vertex"):
        if not version:
            return 400, "anthropic_version: Field required", "invalid_request_error"
        if family in LEGACY_CLOUD and version == STRICT_VERSION:
            return 400, f"anthropic_version {STRICT_VERSION} is not supported for this model", "invalid_request_error"
    if version == STRICT_VERSION:
        for key in SAMPLING:
            if key in body:
                return 400, f"{key}: Extra inputs are not permitted", "invalid_request_error"
    messages = body.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    if family is None:
        return None
    if last.get("role") == "assistant":
        if family in PREFILL_REFUSED:
            return 400, PREFILL_MESSAGE, "invalid_request_error"
        if _texts(last.get("content")).rstrip() != _texts(last.get("content")):
            return 400, "final assistant content cannot end with trailing whitespace", "invalid_request_error"
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind and family in THINKING_REFUSED.get(kind, ()):
        use = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
        return 400, f'"thinking.type.{kind}" is not supported for this model. {use}', "invalid_request_error"
    if isinstance(body.get("output_config"), dict) and "effort" in body["output_config"] and family in EFFORT_REFUSED:
        return 400, "output_config.effort: this model does not support the effort parameter", "invalid_request_error"
    limit = 64_000 if family in LEGACY_45 else 128_000
    asked = body.get("max_tokens")
    if isinstance(asked, int) and asked > limit:
        return (
            400,
            f"max_tokens: {asked} > {limit}, which is the maximum allowed number of output tokens for {model}",
            "invalid_request_error",
        )
    window = 200_000 if family in LEGACY_45 else 1_000_000
    tokens = math.ceil(len(_prompt_text(body)) / 4)
    if tokens > window:
        return 400, f"prompt is too long: {tokens} tokens > {window} maximum", "invalid_request_error"
    return None


def _refuse_openai(model: str, body: dict[str, Any], server: str) -> tuple[int, str, str] | None:
    if server == "vllm-0.5":
        for key, value in body.items():
            if key not in OLD_VLLM_FIELDS:
                detail = [
                    {
                        "type": "extra_forbidden",
                        "loc": ("body", key),
                        "msg": "Extra inputs are not permitted",
                        "input": value,
                    }
                ]
                return 400, str(detail), "BadRequestError"
        return None
    if server == "openai" and _OPENAI_REASONING.match(model):
        if "max_tokens" in body:
            return 400, OPENAI_MAX_TOKENS_MESSAGE, "invalid_request_error"
        temperature = body.get("temperature")
        if temperature is not None and temperature != 1:
            only = "Only the default (1) value is supported."
            message = f"Unsupported value: 'temperature' does not support {temperature} with this model. {only}"
            return 400, message, "invalid_request_error"
    if server == "openai" and not _OPENAI_REASONING.match(model) and "reasoning_effort" in body:
        return (
            400,
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            "invalid_request_error",
        )
    return None


def _texts(content: Any) -> str:
    found: list[str] = []
    _collect_texts(content, found)
    return "".join(found)


def _prompt_text(body: Mapping[str, Any]) -> str:
    texts: list[str] = []
    _collect_texts(body.get("system"), texts)
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            _collect_texts(message.get("content"), texts)
    return "\n".join(texts)


class _Dialect:
    """How one provider renders a step, for one exchange. Stream events are whole SSE events, framed."""

    wire = ""
    stream_type = "text/event-stream; charset=utf-8"

    def __init__(self, model: str, number: int, include_usage: bool) -> None:
        self.model = model  # echoed back, as the real services do
        self.number = number  # the request's 1-based arrival number, for ids
        self.include_usage = include_usage  # OpenAI's stream_options.include_usage

    @staticmethod
    def error(error_type: str, message: str) -> Any:
        raise NotImplementedError

    @staticmethod
    def error_headers(error_type: str) -> dict[str, str]:
        return {}

    def as_the_model_answers(self, step: _Step) -> _Step:
        """The step as this model sends it: with the thinking it does by default, where it does."""
        return step

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

    def text_event(self, piece: str) -> bytes:
        raise NotImplementedError

    def ping_event(self) -> bytes:
        """A keep-alive: no answer text."""
        raise NotImplementedError


class _AnthropicDialect(_Dialect):
    wire = "anthropic"

    @staticmethod
    def error(error_type: str, message: str) -> Any:
        return _anthropic_error(error_type, message)

    def as_the_model_answers(self, step: _Step) -> _Step:
        if step.thinking is None and claude_family(self.model) in THINK_BY_DEFAULT and step.kind != "endless":
            spent = step.thinking_tokens or min(8, step.usage.get("output_tokens", 0))  # never more than the output
            return dataclasses.replace(step, thinking="", thinking_tokens=spent)
        return step

    def _stop_details(self, step: _Step) -> dict[str, Any]:
        if step.stop_reason == "refusal":
            return {"stop_details": {"type": "refusal", "category": None, "explanation": None}}
        return {}

    def _usage(self, step: _Step) -> dict[str, Any]:
        usage: dict[str, Any] = dict(step.usage)
        if step.thinking is not None:
            usage["output_tokens_details"] = {"thinking_tokens": step.thinking_tokens}
        return usage

    def _text_index(self, step: _Step) -> int:
        return 0 if step.thinking is None else 1

    def message(self, step: _Step) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if step.thinking is not None:
            content.append({"type": "thinking", "thinking": step.thinking, "signature": "EqFakeSignature=="})
        content.append({"type": "text", "text": step.text})
        return {
            "id": f"msg_fake_{self.number:04d}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": step.stop_reason,
            "stop_sequence": None,
            **self._stop_details(step),
            "usage": self._usage(step),
        }

    def _event(self, data: dict[str, Any]) -> bytes:
        # The SDK skips any SSE event without an `event:` line, so every one carries its type there too.
        return b"event: %s\ndata: %s\n\n" % (data["type"].encode(), _encode(data))

    def opening(self, step: _Step) -> list[bytes]:
        # As the real API: message_start carries the input counts and an early output count; the final
        # output count comes in message_delta. A ping proves the client ignores it.
        start = self.message(step)
        start.update(content=[], stop_reason=None)
        start.pop("stop_details", None)
        start["usage"] = {**step.usage, "output_tokens": 1}
        events = [self._event({"type": "message_start", "message": start}), self._event({"type": "ping"})]
        if step.thinking is not None:  # a thinking block first: its deltas, then its signature
            block = {"type": "thinking", "thinking": "", "signature": ""}
            events.append(self._event({"type": "content_block_start", "index": 0, "content_block": block}))
            for piece in _pieces(step.thinking):
                delta = {"type": "thinking_delta", "thinking": piece}
                events.append(self._event({"type": "content_block_delta", "index": 0, "delta": delta}))
            signature = {"type": "signature_delta", "signature": "EqFakeSignature=="}
            events.append(self._event({"type": "content_block_delta", "index": 0, "delta": signature}))
            events.append(self._event({"type": "content_block_stop", "index": 0}))
        index = self._text_index(step)
        events.append(
            self._event({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
        )
        for piece in _pieces(step.text):
            delta = {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
            events.append(self._event(delta))
        return events

    def closing(self, step: _Step) -> list[bytes]:
        delta = {"stop_reason": step.stop_reason, "stop_sequence": None, **self._stop_details(step)}
        usage: dict[str, Any] = {"output_tokens": step.usage["output_tokens"]}
        if step.thinking is not None:
            usage["output_tokens_details"] = {"thinking_tokens": step.thinking_tokens}
        return [
            self._event({"type": "content_block_stop", "index": self._text_index(step)}),
            self._event({"type": "message_delta", "delta": delta, "usage": usage}),
            self._event({"type": "message_stop"}),
        ]

    def in_stream_error(self, step: _Step) -> list[bytes]:
        return [self._event(_anthropic_error(step.error_type, step.message))]

    def text_event(self, piece: str) -> bytes:
        return self._event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})

    def ping_event(self) -> bytes:
        return self._event({"type": "ping"})


def _event_stream_frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One message of AWS's event-stream framing (application/vnd.amazon.eventstream): prelude (total and
    header lengths, their CRC32), string headers, payload, CRC32 of all before. Big-endian throughout."""
    encoded = b"".join(
        struct.pack("!B", len(name)) + name.encode() + b"\x07" + struct.pack("!H", len(value)) + value.encode()
        for name, value in headers.items()
    )
    prelude = struct.pack("!II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + encoded + payload
    return message + struct.pack("!I", binascii.crc32(message) & 0xFFFFFFFF)


class _BedrockDialect(_AnthropicDialect):
    """Claude on Bedrock's InvokeModel: the Messages API's events, each base64 in a `chunk` event of an
    AWS event-stream; errors as {"message": ...} with the type in x-amzn-ErrorType; an error inside the
    stream as an `exception` frame."""

    wire = "bedrock"
    stream_type = "application/vnd.amazon.eventstream"
    TYPES: ClassVar[dict[str, str]] = {
        "invalid_request_error": "ValidationException",
        "overloaded_error": "ServiceUnavailableException",
        "rate_limit_error": "ThrottlingException",
        "api_error": "InternalServerException",
        "not_found_error": "ResourceNotFoundException",
        "permission_error": "AccessDeniedException",
        "authentication_error": "UnrecognizedClientException",
    }
    STREAM_TYPES: ClassVar[dict[str, str]] = {
        "overloaded_error": "serviceUnavailableException",
        "rate_limit_error": "throttlingException",
        "api_error": "internalServerException",
        "invalid_request_error": "validationException",
    }

    @staticmethod
    def error(error_type: str, message: str) -> Any:
        return {"message": message}

    @staticmethod
    def error_headers(error_type: str) -> dict[str, str]:
        kind = _BedrockDialect.TYPES.get(error_type, error_type)
        return {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"}

    def _event(self, data: dict[str, Any]) -> bytes:
        payload = _encode({"bytes": base64.b64encode(_encode(data)).decode(), "p": "abcdefghij"})
        headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
        return _event_stream_frame(headers, payload)

    def in_stream_error(self, step: _Step) -> list[bytes]:
        kind = self.STREAM_TYPES.get(step.error_type, step.error_type)
        headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
        return [_event_stream_frame(headers, _encode({"message": step.message}))]


class _OpenAIDialect(_Dialect):
    wire = "openai"

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
        if error_type == "BadRequestError":  # vLLM's own shape
            return {"object": "error", "message": message, "type": error_type, "param": None, "code": 400}
        if message == OPENAI_MAX_TOKENS_MESSAGE:
            return {
                "error": {
                    "message": message,
                    "type": error_type,
                    "param": "max_tokens",
                    "code": "unsupported_parameter",
                }
            }
        return {"error": {"message": message, "type": error_type, "param": None, "code": None}}

    @staticmethod
    def _usage(step: _Step) -> dict[str, Any]:
        # OpenAI counts cached tokens inside prompt_tokens; Anthropic's input_tokens excludes them.
        cached = step.usage["cache_read_input_tokens"]
        prompt = step.usage["input_tokens"] + cached + step.usage["cache_creation_input_tokens"]
        completion = step.usage["output_tokens"]
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        if step.thinking is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": step.thinking_tokens}
        return usage

    def message(self, step: _Step) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.text}
        if step.thinking:
            message["reasoning_content"] = step.thinking
        return {
            "id": f"chatcmpl-fake{self.number:04d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": FINISH_REASONS.get(step.stop_reason, "stop")}
            ],
            "usage": self._usage(step),
        }

    def opening(self, step: _Step) -> list[bytes]:
        events = [self._chunk({"role": "assistant", "content": ""}, None)]
        events += [self._chunk({"reasoning_content": piece}, None) for piece in _pieces(step.thinking or "")]
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

    def text_event(self, piece: str) -> bytes:
        return self._chunk({"content": piece}, None)

    def ping_event(self) -> bytes:
        return b": keep-alive\n\n"  # an SSE comment, as OpenAI-compatible servers send
