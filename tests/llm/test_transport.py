"""The model transport through `code-commit`, the real SDK and the loopback fake: every fault the service
can throw, retried or not as the issue says, with exact request counts, and never half-applied.

Waits are recorded by conftest's `retry_waits` instead of slept; the computed waits themselves are
tested directly at the end of this file.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from code_commit.llm.base import Usage
from code_commit.llm.transport import (
    BACKOFF_BASE,
    Attempt,
    parse_retry_after,
    retry_wait,
    status_is_transient,
    tls_context,
)

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
# A complete block before the cut: if anything of a broken answer were applied, partial.txt would exist.
PARTIAL = "Fixing.\n^^^partial.txt\nfrom a broken answer\n^^^end\n^^^fixed.txt\nfix"


def untouched(project: Project) -> bool:
    """Nothing of any answer reached the tree."""
    return git(project.root, "status", "--porcelain") == ""


# --- faults that are retried ---


@pytest.mark.parametrize("code", [408, 409, 429, 500, 502, 503, 504, 529])
def test_a_retryable_status_is_retried_with_the_same_prompt(
    project: Project, api: FakeAPI, cli, retry_waits: list[float], code: int
) -> None:
    api.status(code)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    first, second = api.requests
    assert first.body == second.body, "a retry resends the very same request"
    assert project.read("fixed.txt") == "fixed\n"
    (wait,) = retry_waits
    assert BACKOFF_BASE / 2 <= wait <= BACKOFF_BASE, "no retry-after: exponential backoff with jitter"
    assert f"attempt 1 of 10 failed: HTTP {code}" in result.stderr
    assert "retrying in" in result.stderr
    assert f"call 1: attempt 1 of 10 failed: HTTP {code}" in logged(project)["run.log"]
    assert "requests=2 retries=1" in logged(project)["run.log"]


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after-ms": "2500", "retry-after": "9"}, 2.5),  # the precise one wins
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after": "3600"}, 60.0),  # capped
        ({"retry-after-ms": "90000"}, 60.0),
        ({"retry-after": "soon"}, None),  # unreadable: backoff
    ],
)
def test_the_wait_the_service_asks_for_is_honoured_up_to_the_cap(
    project: Project, api: FakeAPI, cli, retry_waits: list[float], headers: dict[str, str], wait: float | None
) -> None:
    api.status(429, headers=headers)
    api.reply(FIX)

    assert cli().exit_code == 0
    assert len(api.requests) == 2
    if wait is None:
        assert BACKOFF_BASE / 2 <= retry_waits[0] <= BACKOFF_BASE
    else:
        assert retry_waits == [wait]


def test_the_wait_cap_is_a_setting(project: Project, api: FakeAPI, cli, retry_waits: list[float]) -> None:
    project.write("agent-config/config.toml", "retry_wait_cap = 5\n")
    api.status(529, headers={"retry-after": "30"})
    api.reply(FIX)

    assert cli().exit_code == 0
    assert retry_waits == [5.0]


# Answers with HTTP 200 that hold no message: what proxies, gateways and captive portals send.
SSE = {"Content-Type": "text/event-stream"}
PORTAL = b"<html><body>Sign in to use this network</body></html>"
PING_ONLY = b'event: ping\ndata: {"type": "ping"}\n\n'
GARBLED = (
    b'event: message_start\ndata: {"type": "message_start", "message": {"id": "m", "type": "message", '
    b'"role": "assistant", "model": "m", "content": [], "stop_reason": null, "stop_sequence": null, '
    b'"usage": {"input_tokens": 12, "output_tokens": 1}}}\n\n'
    b"event: content_block_start\ndata: {not json\n\n"
)


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda api: api.drop(), id="dropped connection"),
        pytest.param(lambda api: api.cut_stream(PARTIAL), id="stream cut mid-answer"),
        pytest.param(lambda api: api.cut_stream(PARTIAL, clean=True), id="stream ended early without a stop"),
        pytest.param(lambda api: api.stream_error(PARTIAL, "overloaded_error"), id="overloaded_error event"),
        pytest.param(lambda api: api.stream_error(PARTIAL, "api_error"), id="api_error event"),
        pytest.param(lambda api: api.stream_error(PARTIAL, "rate_limit_error"), id="rate_limit_error event"),
        pytest.param(lambda api: api.status(200, b""), id="200 with an empty body"),
        pytest.param(
            lambda api: api.status(200, PORTAL, {"Content-Type": "text/html"}), id="200 from a captive portal"
        ),
        pytest.param(lambda api: api.status(200, PING_ONLY, SSE), id="stream with no message in it"),
        pytest.param(lambda api: api.status(200, GARBLED, SSE), id="stream with an event that is not JSON"),
    ],
)
def test_a_broken_answer_is_retried_and_never_applied(
    project: Project, api: FakeAPI, cli, retry_waits: list[float], fault
) -> None:
    fault(api)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    assert api.requests[0].body == api.requests[1].body
    assert not (project.root / "partial.txt").exists()
    assert project.read("fixed.txt") == "fixed\n"
    assert len(retry_waits) == 1
    assert "from a broken answer" not in logged(project)["01-response.txt"]


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda api: api.reply("late", delay=5.0), id="no answer within the timeout"),
        pytest.param(lambda api: api.cut_stream(PARTIAL, stall=5.0), id="stream stalls mid-answer"),
    ],
)
def test_a_timeout_is_retried(project: Project, api: FakeAPI, cli, fault) -> None:
    project.write("agent-config/config.toml", "request_timeout = 0.3\n")
    fault(api)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    assert not (project.root / "partial.txt").exists()
    assert "attempt 1 of 10 failed" in result.stderr


def test_a_retry_inside_a_continuation_resends_the_continuation(project: Project, api: FakeAPI, cli) -> None:
    api.reply("Making it.\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.status(529)
    api.reply("Making it.\n^^^fixed.txt\nfixed\n^^^end\n")

    assert cli().exit_code == 0
    first, second, third = (r.json for r in api.requests)
    assert len(first["messages"]) == 1
    assert second == third
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Making it.\n^^^fixed.txt"}],
    }
    assert second["messages"][-1]["role"] == "user"
    assert project.read("fixed.txt") == "fixed\n"


def test_a_transient_fault_never_uses_up_a_repair(project: Project, api: FakeAPI, cli) -> None:
    for n in range(3):
        api.status(529)
        api.reply(f"^^^attempt.txt\n{n}\n^^^end\n")
    api.drop()
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 8
    names = set(logged(project))
    assert {"01-query.txt", "02-query.txt", "03-query.txt", "04-query.txt"} <= names
    assert "04-build.txt" in names


# --- faults that are not retried ---


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        (400, "HTTP 400 invalid_request_error"),
        (401, "refused the API key from environment variable ANTHROPIC_API_KEY"),
        (403, "may not use claude-sonnet-5-5"),
        (404, "check --model and --base-url"),
        (413, "the prompt is too long"),
    ],
)
def test_a_request_error_exits_3_at_once(project: Project, api: FakeAPI, cli, code: int, fragment: str) -> None:
    api.status(code, headers={"retry-after": "1", "x-should-retry": "true"})  # ignored: never retried
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert api.pending == 1
    assert fragment in result.stderr
    assert TEST_KEY not in result.stderr
    assert untouched(project)
    assert "stop_reason=error" in logged(project)["run.log"]


def test_x_should_retry_false_is_obeyed(project: Project, api: FakeAPI, cli) -> None:
    api.status(503, headers={"x-should-retry": "false"})
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "HTTP 503" in result.stderr


def test_the_model_service_docs_retry_rules_say_what_x_should_retry_does() -> None:
    usage = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    retries = usage[usage.index("**Retries.**") : usage.index("**Cut-off answers.**")]
    assert "`x-should-retry: false` is not\nretried, 5xx included" in retries


def test_an_unexpected_error_event_in_the_stream_is_not_retried(project: Project, api: FakeAPI, cli) -> None:
    api.stream_error(PARTIAL, "invalid_request_error", "something is wrong with the request")
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "invalid_request_error: something is wrong with the request" in result.stderr
    assert untouched(project)


# --- giving up ---


def test_giving_up_after_the_default_attempts_exits_3_and_says_what_failed(
    project: Project, api: FakeAPI, cli, retry_waits: list[float]
) -> None:
    for _ in range(7):
        api.status(529)
    for _ in range(3):
        api.drop()
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 10
    assert api.pending == 1
    assert len(retry_waits) == 9
    assert "after 10 attempts" in result.stderr
    assert "HTTP 529 overloaded_error (7x), connection failed (3x)" in result.stderr
    assert untouched(project)
    log = logged(project)["run.log"]
    assert "call 1: stop_reason=error" in log and "gave up on the Anthropic service" in log
    assert "run total: calls=1" in log


def test_the_attempt_limit_is_a_setting(project: Project, api: FakeAPI, cli) -> None:
    for _ in range(3):
        api.status(500)
    api.reply(FIX)

    result = cli(env={"CODE_COMMIT_RETRY_ATTEMPTS": "2"})

    assert result.exit_code == 3
    assert len(api.requests) == 2
    assert "after 2 attempts" in result.stderr


def test_giving_up_on_the_time_limit_before_a_wait_that_would_pass_it(
    project: Project, api: FakeAPI, cli, retry_waits: list[float]
) -> None:
    # Each 429 asks for 40 s; by default the retries get 300 s: after 7 waits (280 s) another would pass it.
    for _ in range(10):
        api.status(429, headers={"retry-after": "40"})

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 8
    assert retry_waits == [40.0] * 7
    assert "another wait would pass the 5.0 min limit (retry_time)" in result.stderr
    assert "HTTP 429 rate_limit_error (8x)" in result.stderr


# --- what a call made and used ---


def test_a_call_that_gives_up_reports_every_request_and_retry(project: Project, api: FakeAPI, cli) -> None:
    for _ in range(3):
        api.status(429)

    result = cli("--json", env={"CODE_COMMIT_RETRY_ATTEMPTS": "3"})

    assert result.exit_code == 3
    assert len(api.requests) == 3
    files = logged(project)
    assert "requests: 3\nretries: 2\ncontinuations: 0\n" in files["01-usage.txt"]
    assert "call 1: stop_reason=error" in files["run.log"]
    assert "requests=3 retries=2 continuations=0" in files["run.log"]
    (call,) = json.loads(result.stdout)["calls"]
    assert (call["requests"], call["retries"]) == (3, 2)


def test_a_call_that_fails_after_a_continuation_reports_it(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.status(529)
    api.status(401)

    assert cli().exit_code == 3
    assert len(api.requests) == 3
    assert "requests: 3\nretries: 1\ncontinuations: 0\n" in logged(project)["01-usage.txt"]


def test_a_broken_attempt_s_reported_and_streamed_tokens_count(project: Project, api: FakeAPI, cli) -> None:
    # The stream's message_start reported 2,000 input tokens (and, as the API does, 1 output token); then
    # 3,000 characters came before the error: at 3 characters a token, about 1,000 output tokens.
    api.stream_error("x" * 3000, "overloaded_error", usage={"input_tokens": 2000})
    api.reply(FIX, usage={"input_tokens": 2000, "output_tokens": 10})

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    (call,) = json.loads(result.stdout)["calls"]
    assert call["usage"]["input_tokens"] == 4000
    assert call["usage"]["output_tokens"] == 1010
    assert (call["requests"], call["retries"]) == (2, 1)
    assert call["cost_usd"] == pytest.approx((4000 * 2 + 1010 * 10) / 1e6)  # claude-sonnet-5-5: $2 / $10


def test_an_attempt_that_got_no_answer_counts_no_tokens(project: Project, api: FakeAPI, cli) -> None:
    api.status(529)
    api.drop()
    api.reply(FIX, usage={"input_tokens": 100, "output_tokens": 10})

    assert cli().exit_code == 0
    assert "input_tokens=100 output_tokens=10" in logged(project)["run.log"]


@pytest.mark.parametrize(
    ("steps", "used"),
    [
        pytest.param([], Usage(), id="no answer"),
        pytest.param(
            [("text", "x" * 300)], Usage(input_tokens=334, output_tokens=100, estimated=True), id="text, no counts"
        ),
        pytest.param(
            [("counts", Usage(50, 1, 7, 9)), ("text", "x" * 30)],
            Usage(50, 10, 7, 9, estimated=True),
            id="text after the counts",
        ),
        pytest.param(
            [("counts", Usage(50, 1)), ("text", "x" * 30), ("counts", Usage(50, 4))],
            Usage(50, 4),
            id="counts after the text: the service's",
        ),
        pytest.param([("counts", Usage(50, 1))], Usage(50, 1), id="counts, no text"),
    ],
)
def test_what_a_failed_attempt_is_known_to_have_used(steps: list, used: Usage) -> None:
    attempt = Attempt(None)
    for kind, value in steps:
        if kind == "text":
            attempt.text(value)
        else:
            attempt.reported(value)
    assert attempt.used(request_chars=1000) == used


# --- the computed waits ---


def test_retry_after_ms_comes_before_retry_after() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "4"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "junk", "retry-after": "4"}) == 4.0
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "-3"}) is None
    assert parse_retry_after({"retry-after": "nonsense"}) is None


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 11, 22, 5, 0, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": later}, now=now.timestamp()) == 30.0
    earlier = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": earlier}, now=now.timestamp()) == 0.0


def test_backoff_doubles_with_jitter_and_never_passes_the_cap() -> None:
    for attempt in range(1, 12):
        ceiling = min(60.0, BACKOFF_BASE * 2 ** (attempt - 1))
        assert retry_wait(attempt, None, 60.0, rand=0.0) == ceiling / 2
        assert retry_wait(attempt, None, 60.0, rand=1.0) == ceiling
        assert ceiling / 2 <= retry_wait(attempt, None, 60.0, rand=0.37) <= ceiling
    assert retry_wait(10, None, 60.0, rand=1.0) == 60.0


def test_the_service_s_wait_wins_over_backoff_but_not_over_the_cap() -> None:
    assert retry_wait(1, 12.0, 60.0, rand=1.0) == 12.0
    assert retry_wait(5, 0.0, 60.0, rand=1.0) == 0.0
    assert retry_wait(1, 600.0, 60.0, rand=0.0) == 60.0


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (408, {}, True),
        (409, {}, True),
        (429, {}, True),
        (500, {}, True),
        (529, {}, True),
        (599, {}, True),
        (529, {"x-should-retry": "false"}, False),
        (422, {}, False),
        (422, {"x-should-retry": "true"}, False),  # a body the server cannot process stays so
        (400, {"x-should-retry": "true"}, False),
        (401, {}, False),
        (403, {}, False),
        (404, {}, False),
        (413, {"x-should-retry": "true"}, False),
    ],
)
def test_which_statuses_are_transient(status: int, headers: dict[str, str], expected: bool) -> None:
    assert status_is_transient(status, headers) is expected


def test_no_attempt_waits_for_data_past_the_time_limit(project: Project, api: FakeAPI, cli) -> None:
    # request_timeout alone would let the stall run until the fake cuts the stream at 5 s ("broke off");
    # the retry time limit cuts the attempt's own wait short instead ("stalled"), and the run gives up.
    project.write("agent-config/config.toml", "retry_time = 0.5\nrequest_timeout = 30\n")
    api.cut_stream(PARTIAL, stall=5.0)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "Failures: stream stalled (1x)" in result.stderr
    assert "another wait would pass the 0.5 s limit (retry_time)" in result.stderr


def test_loading_the_sdk_does_not_count_against_the_retry_time(
    project: Project, api: FakeAPI, cli, retry_waits: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Importing the SDK takes seconds on a cold machine: not the service's time, so not retry_time's."""
    from code_commit.llm.anthropic_api import AnthropicProvider

    project.write("agent-config/config.toml", "retry_time = 10\n")
    load = AnthropicProvider.client

    def slow_load(self: AnthropicProvider) -> object:
        if self._client is None:
            retry_waits.append(60.0)  # the transport's clock moves on a minute while the client loads
        return load(self)

    monkeypatch.setattr(AnthropicProvider, "client", slow_load)
    api.status(529)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2


@pytest.mark.parametrize("library", ["httpx", "httpx2"])
def test_the_tls_context_is_made_once_and_still_honours_ssl_cert_file(
    library: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One CA bundle load per process, not per client; a custom bundle (a company's TLS proxy) is
    still the one verified against, as the library's own default would have it."""
    import importlib

    import certifi

    httpx = importlib.import_module(library)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = tls_context(httpx)
    assert tls_context(httpx) is default and len(default.get_ca_certs()) > 10
    bundle = Path(certifi.where()).read_text()
    first = bundle[: bundle.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")] + "\n"
    (tmp_path / "company-ca.pem").write_text(first[first.index("-----BEGIN") :])
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "company-ca.pem"))
    custom = tls_context(httpx)
    assert custom is not default and len(custom.get_ca_certs()) == 1
