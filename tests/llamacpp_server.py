"""A loopback fake of llama.cpp's OpenAI-compatible server (llama-server), and of llama-cpp-python's, for
tests. Standard library only; it listens on 127.0.0.1.

    with LlamaServer(n_ctx=2048) as server:
        server.reply("answer")                 # the next chat completion's text
        ...  # point --base-url at server.url + "/v1"
        assert len(server.calls) == 1          # POSTs to the chat completions endpoint
        assert server.lookups == ["/props"]    # GETs, by path

As strict as the real servers where code-commit meets them, each behaviour read from their source (cited
beside it). `flavour` picks which server it is:

- "llama.cpp": ggml-org/llama.cpp's llama-server since 2025-10 (tools/server/server.cpp, server-common.cpp,
  server-task.cpp). Usage in a stream only when `stream_options.include_usage` is set; a prompt over the
  context is an HTTP 400 `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`, streaming or not
  (the first result of a stream is sent as a plain response when it is an error, ggml-org/llama.cpp#16486);
  an error after the stream began is a `data: {"error": {...}}` event, and the stream ends there, with no
  `[DONE]`. `GET /props` and `GET /v1/models` publish the context.
- "llama.cpp-2025-09": the same server before #16486 (from #15780, 2025-09): a streamed request whose
  prompt is over the context is answered HTTP 200, with the error as an SSE field of its own, `error:
  {...}` (server_sent_event(sink, "error", ...)), then `data: [DONE]`. Stream errors come the same way.
- "llama-cpp-python": abetlen/llama-cpp-python's server (llama_cpp/server/app.py, errors.py,
  llama_chat_format.py). Its chat stream never carries usage; a prompt over the context, streamed, is
  HTTP 200 with an empty event stream: the generator's ValueError comes after the headers (seen with
  0.3.36, sse-starlette 3.7 and SmolLM2-135M on 2026-11-28: no event at all; earlier versions sent the
  role chunk first). uvicorn then drops that connection, so a request sent on it at once, before the
  client has seen it close, is reset: here, deterministically, the next request on it. Not streamed, a
  prompt over the context is HTTP 400 `context_length_exceeded` in OpenAI's words, with the numbers in
  the message only. No `/props`; `/v1/models` lists the model with no context.
- "vllm": only what sets vLLM apart here (vllm/entrypoints/openai/protocol.py, serving_engine.py): its
  `/v1/models` entries carry `max_model_len`, and a prompt over it is an HTTP 400 BadRequestError with
  `param: "input_tokens"` (a VLLMValidationError) and the numbers in the message. Its streams are
  llama.cpp's here.

Prompts are counted in the fake's own tokens (TOKEN_CHARS characters a token, and TEMPLATE_TOKENS a
message for the chat template), not a real tokenizer's: enough to put a prompt over or under `n_ctx`.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import math
import socket
import socketserver
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LlamaServer"]

FLAVOURS = ("llama.cpp", "llama.cpp-2025-09", "llama-cpp-python", "vllm")
TOKEN_CHARS = 4
TEMPLATE_TOKENS = 4
PIECES = 4  # text deltas a streamed answer is split into
BUILD_INFO = "b6800-fake"
CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")  # llama.cpp serves both (server.cpp's routes)


@dataclass(frozen=True)
class _Step:
    kind: str  # "reply", "error_event" (text, then an error in the stream), "abrupt" (text, then a cut)
    text: str = ""
    finish: str = "stop"  # "stop" or "length" (max_tokens reached)
    error: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """One POST to the chat completions endpoint, as the server saw it."""

    path: str
    headers: dict[str, str]
    json: dict[str, Any]

    @property
    def stream(self) -> bool:
        return self.json.get("stream") is True


class LlamaServer:
    def __init__(
        self,
        flavour: str = "llama.cpp",
        n_ctx: int = 4096,
        n_ctx_train: int = 32768,
        alias: str = "qwen2.5-coder-0.5b-instruct",
    ) -> None:
        if flavour not in FLAVOURS:
            raise ValueError(f"flavour must be one of {FLAVOURS}")
        self.flavour, self.n_ctx, self.n_ctx_train, self.alias = flavour, n_ctx, n_ctx_train, alias
        self._lock = threading.Lock()
        self._script: deque[_Step] = deque()
        self.calls: list[Call] = []
        self.lookups: list[str] = []  # the path of every GET
        self._server: _Server | None = None

    # --- life cycle ---

    def __enter__(self) -> LlamaServer:
        self._server = _Server(self)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # --- scripting ---

    def reply(self, text: str, finish: str = "stop") -> None:
        self._add(_Step("reply", text, finish))

    def error_event(self, text: str, error_type: str = "server_error", message: str = "boom") -> None:
        """`text` streams, then the server's error: llama.cpp's shape (format_error_response)."""
        code = 400 if error_type in ("invalid_request_error", "exceed_context_size_error") else 500
        self._add(_Step("error_event", text, error={"code": code, "message": message, "type": error_type}))

    def abrupt(self, text: str) -> None:
        """`text` streams, then the connection closes mid-body (a server killed, a proxy's timeout)."""
        self._add(_Step("abrupt", text))

    def _add(self, step: _Step) -> None:
        with self._lock:
            self._script.append(step)

    def _next(self) -> _Step:
        with self._lock:
            if not self._script:
                raise AssertionError("LlamaServer: nothing scripted for this request")
            return self._script.popleft()

    # --- what the server computes ---

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        messages = body.get("messages") or []
        chars = sum(len(m.get("content") or "") for m in messages if isinstance(m, dict))
        return math.ceil(chars / TOKEN_CHARS) + TEMPLATE_TOKENS * len(messages)


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: LlamaServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no reverse DNS lookup of 127.0.0.1


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 10  # a client that keeps a connection open and silent is let go
    dropped = False  # the server dropped this connection after its last answer (llama-cpp-python's)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle_one_request(self) -> None:
        if not self.dropped:
            return super().handle_one_request()
        # The next request on a connection the server dropped: it meets a reset, not an answer.
        self.rfile.readline()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        return None

    # --- routes ---

    def do_GET(self) -> None:
        fake = self.server.fake
        path = self.path.partition("?")[0]
        with fake._lock:
            fake.lookups.append(path)
        if fake.flavour in ("llama-cpp-python", "vllm"):
            if path == "/v1/models" and fake.flavour == "vllm":  # ModelCard: max_model_len
                entry = {"id": fake.alias, "object": "model", "owned_by": "vllm", "max_model_len": fake.n_ctx}
                return self._json(200, {"object": "list", "data": [{**entry, "root": fake.alias, "parent": None}]})
            if path == "/v1/models":  # llama_cpp/server/app.py, get_models
                entry = {"id": fake.alias, "object": "model", "owned_by": "me", "permissions": []}
                return self._json(200, {"object": "list", "data": [entry]})
            return self._json(404, {"detail": "Not Found"})  # FastAPI's answer to a route it lacks
        if path == "/props":  # tools/server/server.cpp, get_props: a slot's context, the one prompts meet
            return self._json(
                200,
                {
                    "default_generation_settings": {"params": {"n_predict": -1}, "n_ctx": fake.n_ctx},
                    "total_slots": 1,
                    "model_alias": fake.alias,
                    "model_path": f"/models/{fake.alias}.gguf",
                    "modalities": {"vision": False, "audio": False},
                    "build_info": BUILD_INFO,
                },
            )
        if path in ("/v1/models", "/models"):  # server.cpp get_models; meta is server-context's model_meta()
            meta = {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": fake.n_ctx_train, "n_embd": 896}
            entry = {"id": fake.alias, "object": "model", "created": int(time.time()), "owned_by": "llamacpp"}
            return self._json(200, {"object": "list", "data": [{**entry, "meta": meta}]})
        return self._json(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        path = self.path.partition("?")[0]
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if path not in CHAT_PATHS:
            return self._json(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})
        call = Call(path, {k.lower(): v for k, v in self.headers.items()}, body)
        with fake._lock:
            fake.calls.append(call)
        tokens = fake.prompt_tokens(body)
        if tokens >= fake.n_ctx:  # llama.cpp: `n_tokens() >= slot.n_ctx` (server-context.cpp, launching a slot)
            return self._over_context(call, tokens)
        step = fake._next()
        if not call.stream:
            return self._whole(call, step, tokens)
        return self._stream(call, step, tokens)

    # --- a prompt over the context ---

    def _over_context(self, call: Call, tokens: int) -> None:
        fake = self.server.fake
        if fake.flavour == "llama-cpp-python":
            if call.stream:
                # The headers, then the generator's ValueError ends the stream before any event: no text,
                # no finish reason, no [DONE]; and the connection is dead.
                self._start_stream()
                self._end_stream()
                self.dropped = True
                return None
            # llama_cpp/server/errors.py, ErrorResponseFormatters.context_length_exceeded (chat completion)
            completion = call.json.get("max_tokens")
            message = (
                f"This model's maximum context length is {fake.n_ctx} tokens. However, you requested "
                f"{(completion or 0) + tokens} tokens ({tokens} in the messages, {completion} in the "
                "completion). Please reduce the length of the messages or completion."
            )
            error = {"message": message, "type": "invalid_request_error", "param": "messages"}
            return self._json(400, {"error": {**error, "code": "context_length_exceeded"}})
        if fake.flavour == "vllm":  # serving_engine.py's token length check: a VLLMValidationError
            message = (
                f"This model's maximum context length is {fake.n_ctx} tokens. However, your request has "
                f"{tokens} input tokens. Please reduce the length of the input messages."
            )
            error = {"message": message, "type": "BadRequestError", "param": "input_tokens", "code": 400}
            return self._json(400, {"error": error})
        # server-context.cpp's send_error; server-task.cpp, server_task_result_error::to_json adds the counts
        error = {
            "code": 400,
            "message": f"request ({tokens} tokens) exceeds the available context size ({fake.n_ctx} tokens), "
            "try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": tokens,
            "n_ctx": fake.n_ctx,
        }
        if call.stream and fake.flavour == "llama.cpp-2025-09":
            self._start_stream()
            self._raw(f"error: {json.dumps(error)}\n\n")
            self._raw("data: [DONE]\n\n")
            return self._end_stream()
        self._json(400, {"error": error})  # server.cpp, server_res_generator::error: status = code

    # --- answers ---

    def _usage(self, text: str, tokens: int) -> dict[str, int]:
        completion = math.ceil(len(text) / TOKEN_CHARS)
        return {"completion_tokens": completion, "prompt_tokens": tokens, "total_tokens": completion + tokens}

    def _whole(self, call: Call, step: _Step, tokens: int) -> None:
        if step.kind != "reply":
            raise AssertionError(f"LlamaServer: a {step.kind} step needs a streaming request")
        message = {"role": "assistant", "content": step.text}
        answer = {
            "choices": [{"finish_reason": step.finish, "index": 0, "message": message}],
            "created": int(time.time()),
            "model": self.server.fake.alias,
            "object": "chat.completion",
            "usage": self._usage(step.text, tokens),  # a whole answer counts, in every flavour
            "id": "chatcmpl-fake",
        }
        self._json(200, answer)

    def _stream(self, call: Call, step: _Step, tokens: int) -> None:
        fake = self.server.fake
        self._start_stream()
        python = fake.flavour == "llama-cpp-python"
        # llama.cpp's first chunk carries the role and a null content (server-task.cpp, update());
        # llama-cpp-python's the role alone.
        self._event(self._chunk({"role": "assistant"} if python else {"role": "assistant", "content": None}))
        size = max(1, math.ceil(len(step.text) / PIECES))
        for start in range(0, len(step.text), size):
            self._event(self._chunk({"content": step.text[start : start + size]}))
        if step.kind == "abrupt":
            self.wfile.flush()
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)  # no last chunk: the body never ends properly
            return
        if step.kind == "error_event":
            if fake.flavour == "llama.cpp-2025-09":
                self._raw(f"error: {json.dumps(step.error)}\n\n")
                self._raw("data: [DONE]\n\n")
            else:  # server.cpp: format_oai_sse({"error": ...}), then `return false`: the stream ends there
                self._event({"error": step.error})
            return self._end_stream()
        self._event(self._chunk({}, step.finish))
        include = (call.json.get("stream_options") or {}).get("include_usage") is True
        if include and not python:  # server-task.cpp, to_json_oaicompat_chat_stream: `if (include_usage)`
            usage = {**self._chunk({}), "choices": [], "usage": self._usage(step.text, tokens)}
            self._event(usage)
        self._raw("data: [DONE]\n\n")
        self._end_stream()

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
            "created": int(time.time()),
            "id": "chatcmpl-fake",
            "model": self.server.fake.alias,
            "object": "chat.completion.chunk",
        }

    # --- the wire ---

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _event(self, payload: Any) -> None:
        self._raw(f"data: {json.dumps(payload)}\n\n")  # server-common.cpp, format_oai_sse

    def _raw(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
