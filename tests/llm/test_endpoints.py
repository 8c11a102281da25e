"""Endpoints: a connection error names the URL and where it came from; an endpoint nothing answers
is given up on after a few attempts, not minutes; a gateway that answers a streaming request with
one whole JSON message is giving an answer."""

from __future__ import annotations

import json
import socket

import pytest

from fakeapi import FakeAPI
from support import TEST_KEY, Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
OPENAI_KEY = "sk-openai-test-0123456789-KEYab"


@pytest.fixture
def closed_url() -> str:
    """A loopback URL where nothing listens: every connection is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_a_refused_connection_is_given_up_on_after_three_attempts_naming_the_url_and_its_source(
    project: Project, cli, closed_url: str, monkeypatch: pytest.MonkeyPatch, retry_waits: list[float]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", closed_url)
    result = cli()
    assert result.exit_code == 3, result.stderr
    assert len(retry_waits) == 2, "three attempts, two waits"
    assert sum(retry_waits) <= 3.0, "seconds, not minutes"
    assert "after 3 failed attempts to connect, the limit (connect_attempts)" in result.stderr
    assert f"{closed_url} (from environment variable ANTHROPIC_BASE_URL)" in result.stderr


@pytest.mark.parametrize(
    ("how", "source"),
    [
        ("flag", "the --base-url flag"),
        ("config", "agent-config/config.toml (base_url)"),
        ("env", "environment variable CODE_COMMIT_BASE_URL"),
    ],
)
def test_the_message_names_where_the_url_came_from(
    project: Project, cli, closed_url: str, monkeypatch: pytest.MonkeyPatch, how: str, source: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    args: list[str] = []
    if how == "flag":
        args = ["--base-url", closed_url]
    elif how == "config":
        project.write("agent-config/config.toml", f'base_url = "{closed_url}"\n')
    else:
        monkeypatch.setenv("CODE_COMMIT_BASE_URL", closed_url)
    result = cli(*args, "--json")
    assert result.exit_code == 3
    assert f"{closed_url} (from {source})" in json.loads(result.stdout)["error"]


def test_an_openai_compatible_endpoint_that_refuses_is_given_up_on_quickly_too(
    project: Project, cli, closed_url: str, monkeypatch: pytest.MonkeyPatch, retry_waits: list[float]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{closed_url}/v1")
    result = cli("--provider", "openai", "--model", "gpt-fake", "--json")
    assert result.exit_code == 3
    assert len(retry_waits) == 2
    error = json.loads(result.stdout)["error"]
    assert f"{closed_url}/v1 (from environment variable OPENAI_BASE_URL)" in error and "connect_attempts" in error


def test_a_name_that_does_not_resolve_is_given_up_on_quickly(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, retry_waits: list[float]
) -> None:
    real = socket.getaddrinfo
    looked_up: list[str] = []

    def getaddrinfo(host, *args, **kwargs):  # no DNS in tests: this one name never resolves
        if host == "gateway.unresolvable.test":
            looked_up.append(host)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("CODE_COMMIT_CONNECT_ATTEMPTS", "2")
    result = cli("--base-url", "https://gateway.unresolvable.test:8443")
    assert result.exit_code == 3
    assert len(looked_up) == 2 and len(retry_waits) == 1
    assert "https://gateway.unresolvable.test:8443 (from the --base-url flag)" in result.stderr
    assert "Name or service not known" in result.stderr


def test_overload_keeps_the_full_patience(project: Project, api: FakeAPI, cli, retry_waits: list[float]) -> None:
    for _ in range(6):
        api.status(529)
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert len(retry_waits) == 6


def test_a_url_no_client_can_call_is_a_setup_error(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "127.0.0.1:4000")
    result = cli()
    assert result.exit_code == 2
    assert "'127.0.0.1:4000' (from environment variable ANTHROPIC_BASE_URL) is not a URL" in result.stderr
    assert not project.run_dirs()


def test_a_whole_json_message_in_answer_to_a_stream_is_an_answer(
    project: Project, api: FakeAPI, cli, retry_waits: list[float]
) -> None:
    api.reply(FIX, usage={"input_tokens": 321, "output_tokens": 9}, whole=True)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 1 and api.requests[0].json["stream"] is True and not retry_waits
    assert project.read("fixed.txt") == "fixed\n"
    (call,) = json.loads(result.stdout)["calls"]
    assert call["usage"]["input_tokens"] == 321 and call["usage"]["output_tokens"] == 9


def test_a_whole_json_chat_completion_in_answer_to_a_stream_is_an_answer(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    api.reply(FIX, usage={"input_tokens": 55, "output_tokens": 7}, whole=True)
    result = cli("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1", "--json")
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 1 and api.requests[0].json["stream"] is True
    (call,) = json.loads(result.stdout)["calls"]
    assert call["usage"]["input_tokens"] == 55 and call["usage"]["output_tokens"] == 7


def test_a_whole_json_answer_cut_off_at_the_limit_is_continued(project: Project, api: FakeAPI, cli) -> None:
    api.reply("Making it.\n^^^fixed.txt\nfix", stop_reason="max_tokens", whole=True)
    api.reply("Making it.\n^^^fixed.txt\nfixed\n^^^end\n", whole=True)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert project.read("fixed.txt") == "fixed\n"


def test_json_that_is_no_message_is_a_service_error_at_once(project: Project, api: FakeAPI, cli) -> None:
    api.status(200, {"status": "ok", "hint": "this is not a model"})
    result = cli()
    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "not a Messages API message" in result.stderr and api.url in result.stderr


def test_the_record_and_the_run_log_name_provider_model_and_endpoint_host(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli("--model", "claude-test-model", "--json")
    data = json.loads(result.stdout)
    host = api.url.removeprefix("http://")
    assert (data["provider"], data["model"], data["endpoint_host"]) == ("anthropic", "claude-test-model", host)
    assert f"model claude-test-model from the anthropic service at {api.url}" in logged(project)["run.log"]


def test_credentials_in_the_url_never_show(project: Project, api: FakeAPI, cli, closed_url: str) -> None:
    secret_url = closed_url.replace("http://", "http://user:hunter2-secret@")
    result = cli("--base-url", secret_url, "--json")
    assert result.exit_code == 3
    assert "hunter2" not in result.stdout + result.stderr
    assert "hunter2" not in "".join(logged(project).values())
