"""The fake API speaks the real wire formats: driven here by the real anthropic SDK and, for the
OpenAI-style endpoint, by plain httpx.

These tests also pin down which exception the SDK raises for each fault, which the transport layer
relies on.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import anthropic
import httpx
import httpx2
import pytest

from fakeapi import FakeAPI

KEY = "sk-fake-key-123"
MODEL = "claude-fake-1"
PROMPT = "Please fix the build."


@pytest.fixture
def api() -> Iterator[FakeAPI]:
    with FakeAPI() as fake:
        yield fake


@pytest.fixture(scope="module")
def http_client() -> Iterator[httpx2.Client]:
    # Building the SDK's HTTP client (its TLS context) costs ~65 ms; one for the module saves seconds.
    # Each test's server has its own port, so pooled connections never cross tests.
    with anthropic.DefaultHttpxClient() as shared:
        yield shared


def make_client(api: FakeAPI, http_client: httpx2.Client, **options: object) -> anthropic.Anthropic:
    # max_retries=0: every fault must reach the test, as it reaches code-commit's own retry loop.
    options.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key=KEY, base_url=api.url, http_client=http_client, **options)  # type: ignore[arg-type]


@pytest.fixture
def client(api: FakeAPI, http_client: httpx2.Client) -> anthropic.Anthropic:
    return make_client(api, http_client)


def create(client: anthropic.Anthropic) -> anthropic.types.Message:
    return client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": PROMPT}])


def stream(client: anthropic.Anthropic, pieces: list[str] | None = None) -> anthropic.types.Message:
    """As code-commit calls the model: messages.stream, text_stream, get_final_message. Text pieces
    land in `pieces` as they arrive, so a test can see what came before a failure."""
    pieces = [] if pieces is None else pieces
    with client.messages.stream(
        model=MODEL,
        max_tokens=64,
        system=[{"type": "text", "text": "You are a build fixer."}],
        messages=[{"role": "user", "content": [{"type": "text", "text": PROMPT}]}],
    ) as answer:
        for piece in answer.text_stream:
            pieces.append(piece)
        return answer.get_final_message()


# --- Anthropic: answers ---


def test_create_returns_the_scripted_text_stop_reason_and_usage(api: FakeAPI, client: anthropic.Anthropic) -> None:
    usage = {"input_tokens": 7, "output_tokens": 3, "cache_creation_input_tokens": 2, "cache_read_input_tokens": 5}
    api.reply("Hello, build.", usage=usage)

    message = create(client)

    assert [block.text for block in message.content if block.type == "text"] == ["Hello, build."]
    assert message.stop_reason == "end_turn"
    assert message.model == MODEL
    assert message.usage.input_tokens == 7
    assert message.usage.output_tokens == 3
    assert message.usage.cache_creation_input_tokens == 2
    assert message.usage.cache_read_input_tokens == 5
    [request] = api.requests
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert "stream" not in request.json


def test_stream_returns_the_scripted_text_in_several_deltas(api: FakeAPI, client: anthropic.Anthropic) -> None:
    usage = {"input_tokens": 40, "output_tokens": 9, "cache_creation_input_tokens": 11, "cache_read_input_tokens": 13}
    api.reply("=== FILE: a.py ===\nprint('hi')\n", usage=usage)
    pieces: list[str] = []

    message = stream(client, pieces)

    assert len(pieces) > 1
    assert "".join(pieces) == "=== FILE: a.py ===\nprint('hi')\n"
    assert message.content[0].text == "=== FILE: a.py ===\nprint('hi')\n"
    assert message.stop_reason == "end_turn"
    # Input and cache counts come from message_start and must survive message_delta, which only has output.
    assert (message.usage.input_tokens, message.usage.output_tokens) == (40, 9)
    assert (message.usage.cache_creation_input_tokens, message.usage.cache_read_input_tokens) == (11, 13)
    [request] = api.requests
    assert request.json["stream"] is True


def test_stream_sends_the_event_sequence_of_the_real_api(api: FakeAPI) -> None:
    api.reply("abcdefgh")
    body = {"model": MODEL, "max_tokens": 8, "stream": True, "messages": [{"role": "user", "content": "x"}]}

    response = httpx.post(f"{api.url}/v1/messages", json=body, headers={"x-api-key": KEY})

    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    events = [block.split("\n") for block in response.text.strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    assert names == ["message_start", "ping", "content_block_start"] + ["content_block_delta"] * 4 + [
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    for name, (_, data) in zip(names, events, strict=True):
        assert json.loads(data.removeprefix("data: "))["type"] == name


@pytest.mark.parametrize("stop_reason", ["max_tokens", "refusal", "end_turn"])
@pytest.mark.parametrize("call", [create, stream])
def test_stop_reason_reaches_the_caller(api: FakeAPI, client: anthropic.Anthropic, call, stop_reason: str) -> None:
    api.reply("partial answer", stop_reason=stop_reason)

    message = call(client)

    assert message.stop_reason == stop_reason
    assert message.content[0].text == "partial answer"


def test_replies_are_served_in_order(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.reply("one")
    api.reply("two")
    assert api.pending == 2

    assert stream(client).content[0].text == "one"
    assert create(client).content[0].text == "two"
    assert api.pending == 0


def test_reply_rejects_unknown_usage_keys(api: FakeAPI) -> None:
    with pytest.raises(ValueError, match="unknown usage keys"):
        api.reply("x", usage={"prompt_tokens": 3})
    assert api.pending == 0


# --- Anthropic: recording ---


def test_the_key_travels_in_a_header_never_in_the_url(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.reply("ok")
    stream(client)

    [request] = api.requests
    # This SDK sends an api_key as "Authorization: Bearer", not as x-api-key.
    assert request.headers.get("x-api-key") == KEY or request.headers.get("authorization") == f"Bearer {KEY}"
    assert KEY not in request.path
    assert KEY not in request.query
    assert KEY.encode() not in request.body
    assert "anthropic-version" in request.headers


def test_the_prompt_is_recorded(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.reply("ok")
    stream(client)

    [request] = api.requests
    assert request.json["model"] == MODEL
    assert request.json["messages"] == [{"role": "user", "content": [{"type": "text", "text": PROMPT}]}]
    assert request.prompt_text == f"You are a build fixer.\n{PROMPT}"
    assert json.loads(request.body) == request.json


# --- Anthropic: faults ---


@pytest.mark.parametrize(
    ("code", "error_type", "exception"),
    [
        (400, "invalid_request_error", anthropic.BadRequestError),
        (401, "authentication_error", anthropic.AuthenticationError),
        (403, "permission_error", anthropic.PermissionDeniedError),
        (404, "not_found_error", anthropic.NotFoundError),
        (413, "request_too_large", anthropic.ContentTooLargeError),
        (429, "rate_limit_error", anthropic.RateLimitError),
        (500, "api_error", anthropic.InternalServerError),
        (529, "overloaded_error", anthropic.OverloadedError),
    ],
)
def test_each_status_raises_the_sdk_class(
    api: FakeAPI, client: anthropic.Anthropic, code: int, error_type: str, exception: type
) -> None:
    api.status(code)

    with pytest.raises(anthropic.APIStatusError) as caught:
        stream(client)

    assert type(caught.value) is exception
    assert caught.value.status_code == code
    assert caught.value.type == error_type
    assert caught.value.request_id == "req_fake_0001"
    assert len(api.requests) == 1


def test_overloaded_is_an_internal_server_error() -> None:
    # So `except InternalServerError` catches 529 too.
    assert issubclass(anthropic.OverloadedError, anthropic.InternalServerError)


def test_status_on_create_raises_the_same_class(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.status(529)
    with pytest.raises(anthropic.OverloadedError):
        create(client)


def test_retry_headers_are_visible_on_the_exception(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.status(429, headers={"retry-after": "7", "retry-after-ms": "6500"})

    with pytest.raises(anthropic.RateLimitError) as caught:
        stream(client)

    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.response.headers["retry-after-ms"] == "6500"


def test_a_custom_error_body_is_passed_through(api: FakeAPI, client: anthropic.Anthropic) -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}
    api.status(400, body=body)

    with pytest.raises(anthropic.BadRequestError) as caught:
        stream(client)

    assert caught.value.body == body
    assert caught.value.api_message == "prompt is too long"


def test_a_non_json_error_body_arrives_as_text(api: FakeAPI, client: anthropic.Anthropic) -> None:
    # What a proxy in front of the API may answer.
    api.status(502, body="<html>Bad Gateway</html>")

    with pytest.raises(anthropic.InternalServerError) as caught:
        stream(client)

    assert caught.value.status_code == 502
    assert caught.value.body == "<html>Bad Gateway</html>"
    assert caught.value.type is None


@pytest.mark.parametrize("call", [create, stream])
def test_drop_raises_api_connection_error(api: FakeAPI, client: anthropic.Anthropic, call) -> None:
    api.drop()

    with pytest.raises(anthropic.APIConnectionError) as caught:
        call(client)

    assert type(caught.value) is anthropic.APIConnectionError  # not APITimeoutError
    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)
    assert len(api.requests) == 1


def test_cut_stream_raises_raw_httpx2_remote_protocol_error(api: FakeAPI, client: anthropic.Anthropic) -> None:
    # The failure happens while iterating the body, outside the SDK's request wrapper, so it is NOT
    # turned into an anthropic.APIConnectionError: the caller gets httpx2's own exception.
    api.cut_stream("=== FILE: a.py ===\nprint(")
    pieces: list[str] = []

    with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
        stream(client, pieces)

    assert "".join(pieces) == "=== FILE: a.py ===\nprint("


def test_cut_body_on_create_raises_api_connection_error(api: FakeAPI, client: anthropic.Anthropic) -> None:
    # Without streaming the SDK reads the whole body inside its wrapper, so here it IS wrapped.
    api.cut_stream("a truncated answer")

    with pytest.raises(anthropic.APIConnectionError) as caught:
        create(client)

    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)


@pytest.mark.parametrize("error_type", ["overloaded_error", "api_error"])
def test_stream_error_raises_the_base_api_status_error(
    api: FakeAPI, client: anthropic.Anthropic, error_type: str
) -> None:
    # The SDK picks the class from the HTTP status, which is 200 for a stream that already started: so
    # an in-stream overloaded_error is a plain APIStatusError(status_code=200), not an OverloadedError.
    # Only .type (or .body) tells what went wrong.
    api.stream_error("half of the ", error_type=error_type)
    pieces: list[str] = []

    with pytest.raises(anthropic.APIStatusError) as caught:
        stream(client, pieces)

    assert type(caught.value) is anthropic.APIStatusError
    assert caught.value.status_code == 200
    assert caught.value.type == error_type
    assert caught.value.body["error"]["type"] == error_type
    assert "".join(pieces) == "half of the "


def test_stream_error_on_a_non_streaming_request_fails_loudly(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.stream_error("x")

    with pytest.raises(anthropic.InternalServerError, match="did not ask to stream"):
        create(client)


def test_an_unscripted_request_fails_loudly_and_is_not_retried(api: FakeAPI, http_client: httpx2.Client) -> None:
    # Retries allowed on purpose: the fake's x-should-retry: false must stop them.
    sdk = make_client(api, http_client, max_retries=2)

    with pytest.raises(anthropic.InternalServerError, match="script exhausted"):
        stream(sdk)

    assert api.unscripted == 1
    assert len(api.requests) == 1


def test_a_delay_longer_than_the_timeout_raises_api_timeout_error(api: FakeAPI, http_client: httpx2.Client) -> None:
    api.reply("late", delay=5.0)
    sdk = make_client(api, http_client, timeout=0.2)
    started = time.monotonic()

    with pytest.raises(anthropic.APITimeoutError):
        stream(sdk)

    assert time.monotonic() - started < 2.0


def test_a_stall_mid_stream_raises_raw_httpx2_read_timeout(api: FakeAPI, http_client: httpx2.Client) -> None:
    # As with a cut stream, a timeout while reading the body escapes the SDK's wrapper unwrapped.
    api.cut_stream("some text", stall=5.0)
    sdk = make_client(api, http_client, timeout=0.2)
    pieces: list[str] = []

    with pytest.raises(httpx2.ReadTimeout):
        stream(sdk, pieces)

    assert "".join(pieces) == "some text"


def test_a_slow_stream_within_the_read_timeout_succeeds(api: FakeAPI, http_client: httpx2.Client) -> None:
    # The read timeout bounds the gap between events, not the whole answer (10 events × 0.05 s > 0.3 s).
    api.reply("slow but steady", chunk_delay=0.05)
    sdk = make_client(api, http_client, timeout=0.3)

    assert stream(sdk).content[0].text == "slow but steady"


# --- OpenAI-style Chat Completions ---


def openai_body(**extra: object) -> dict[str, object]:
    return {"model": "gpt-fake", "messages": [{"role": "user", "content": PROMPT}], **extra}


def test_openai_json_answer(api: FakeAPI) -> None:
    usage = {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 4}
    api.reply("Hi there", stop_reason="max_tokens", usage=usage)

    response = httpx.post(
        f"{api.url}/v1/chat/completions", json=openai_body(), headers={"Authorization": f"Bearer {KEY}"}
    )

    assert response.status_code == 200
    answer = response.json()
    assert answer["object"] == "chat.completion"
    assert answer["model"] == "gpt-fake"
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "Hi there"}
    assert answer["choices"][0]["finish_reason"] == "length"
    # OpenAI counts cached tokens inside prompt_tokens.
    assert answer["usage"] == {
        "prompt_tokens": 14,
        "completion_tokens": 3,
        "total_tokens": 17,
        "prompt_tokens_details": {"cached_tokens": 4},
    }
    [request] = api.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.prompt_text == PROMPT


def sse_data(response: httpx.Response) -> list[str]:
    return [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]


def test_openai_stream_under_a_base_path_with_usage(api: FakeAPI) -> None:
    api.reply("streamed words", usage={"input_tokens": 5, "output_tokens": 2})

    response = httpx.post(
        f"{api.url}/openai/v1/chat/completions",
        json=openai_body(stream=True, stream_options={"include_usage": True}),
    )

    assert response.headers["content-type"].startswith("text/event-stream")
    *chunks, done = sse_data(response)
    assert done == "[DONE]"
    parsed = [json.loads(chunk) for chunk in chunks]
    assert parsed[0]["choices"][0]["delta"]["role"] == "assistant"
    content = [c["choices"][0]["delta"].get("content", "") for c in parsed if c["choices"]]
    assert "".join(content) == "streamed words"
    assert len([piece for piece in content if piece]) > 1
    finishes = [c["choices"][0]["finish_reason"] for c in parsed if c["choices"]]
    assert finishes[-1] == "stop"
    assert set(finishes[:-1]) == {None}
    assert parsed[-1]["choices"] == []
    assert parsed[-1]["usage"]["prompt_tokens"] == 5
    assert parsed[-1]["usage"]["completion_tokens"] == 2
    assert api.requests[0].path == "/openai/v1/chat/completions"


def test_openai_stream_without_usage_and_with_length(api: FakeAPI) -> None:
    api.reply("cut short", stop_reason="max_tokens")

    response = httpx.post(f"{api.url}/v1/chat/completions", json=openai_body(stream=True))

    *chunks, done = sse_data(response)
    parsed = [json.loads(chunk) for chunk in chunks]
    assert done == "[DONE]"
    assert all("usage" not in chunk for chunk in parsed)
    assert parsed[-1]["choices"][0]["finish_reason"] == "length"


def test_openai_status_has_an_openai_error_body(api: FakeAPI) -> None:
    api.status(429, headers={"retry-after": "2"})

    response = httpx.post(f"{api.url}/v1/chat/completions", json=openai_body())

    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.json()["error"]["type"] == "rate_limit_error"


def test_openai_drop_and_cut_stream(api: FakeAPI) -> None:
    api.drop()
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(f"{api.url}/v1/chat/completions", json=openai_body())

    api.cut_stream("partial")
    received = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", f"{api.url}/v1/chat/completions", json=openai_body(stream=True)) as response,
    ):
        for line in response.iter_lines():
            received.append(line)
    contents = [json.loads(line[6:])["choices"][0]["delta"].get("content") for line in received if line]
    assert "".join(filter(None, contents)) == "partial"


def test_openai_stream_error_sends_an_error_chunk_and_no_done(api: FakeAPI) -> None:
    api.stream_error("part", error_type="server_error", message="boom")

    response = httpx.post(f"{api.url}/v1/chat/completions", json=openai_body(stream=True))

    data = sse_data(response)
    assert "[DONE]" not in data
    assert json.loads(data[-1])["error"] == {"message": "boom", "type": "server_error", "param": None, "code": None}


# --- robustness, concurrency, life cycle ---


def test_get_is_a_404_that_consumes_no_script_and_is_no_model_call(api: FakeAPI) -> None:
    api.reply("kept")

    response = httpx.get(f"{api.url}/v1/models")

    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"
    assert api.pending == 1
    assert [(r.method, r.path) for r in api.lookups] == [("GET", "/v1/models")]
    assert api.requests == []


def raw_exchange(api: FakeAPI, request: bytes) -> bytes:
    """Send bytes no well-behaved client would, and read the answer until the server closes."""
    host, port = api.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=2) as raw:
        raw.sendall(request)
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    return answer


def test_malformed_requests_do_not_kill_the_server(api: FakeAPI, client: anthropic.Anthropic) -> None:
    api.reply("still here")

    not_json = httpx.post(f"{api.url}/v1/messages", content=b"{not json", headers={"content-type": "application/json"})
    garbage = raw_exchange(api, b"\x00\x01 garbage\r\n\r\n")
    bad_length = raw_exchange(api, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n{}")

    assert not_json.status_code == 400
    assert b"Error code: 400" in garbage  # http.server's own page: no status line for a request it cannot parse
    assert bad_length.startswith(b"HTTP/1.1 400 ")
    assert b"bad Content-Length" in bad_length
    assert api.pending == 1  # none of them took the scripted reply
    assert stream(client).content[0].text == "still here"


def test_a_chunked_request_body_is_read(api: FakeAPI) -> None:
    api.reply("ok")
    payload = json.dumps(openai_body()).encode()

    response = httpx.post(f"{api.url}/v1/chat/completions", content=iter([payload[:10], payload[10:]]))

    assert response.status_code == 200
    assert api.requests[0].headers["transfer-encoding"] == "chunked"
    assert api.requests[0].json == openai_body()


def test_concurrent_requests_each_get_one_reply(api: FakeAPI, client: anthropic.Anthropic) -> None:
    answers = [f"answer {n}" for n in range(8)]
    for answer in answers:
        api.reply(answer)
    results: list[str] = []
    lock = threading.Lock()

    def ask() -> None:
        text = stream(client).content[0].text
        with lock:
            results.append(text)

    threads = [threading.Thread(target=ask) for _ in answers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert sorted(results) == answers
    assert len(api.requests) == 8
    assert api.pending == 0


def test_stop_is_fast_with_a_delayed_answer_and_an_idle_connection_open(http_client: httpx2.Client) -> None:
    api = FakeAPI().start()
    url = api.url
    idle = httpx.Client()
    idle.get(f"{api.url}/")  # leaves a keep-alive connection open on the server
    api.reply("never sent", delay=30.0)
    sdk = make_client(api, http_client)
    errors: list[Exception] = []

    def wait_for_answer() -> None:
        try:
            stream(sdk)
        except Exception as exc:
            errors.append(exc)

    waiter = threading.Thread(target=wait_for_answer)
    waiter.start()
    deadline = time.monotonic() + 5
    while not api.requests:  # until the delayed request has arrived (the GET is a lookup, not a call)
        assert time.monotonic() < deadline, "the delayed request never reached the server"
        time.sleep(0.005)
    started = time.monotonic()
    api.stop()
    stopped_in = time.monotonic() - started
    waiter.join(timeout=5)

    assert stopped_in < 0.5
    assert [type(e) for e in errors] == [anthropic.APIConnectionError]
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, timeout=1)
    idle.close()


def test_url_is_only_available_while_running_and_the_server_can_restart() -> None:
    api = FakeAPI()
    with pytest.raises(RuntimeError):
        _ = api.url
    for _ in range(2):
        with api:
            assert api.url.startswith("http://127.0.0.1:")
            api.reply("again")
            assert httpx.post(f"{api.url}/v1/chat/completions", json=openai_body()).status_code == 200
    assert len(api.requests) == 2
