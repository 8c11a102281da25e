"""--provider openai: any OpenAI-compatible Chat Completions server, spoken with httpx, against the loopback
fake. Same prompts, retries, continuations, usage and redaction as the Anthropic provider."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from code_commit.config.settings import Settings

from fakeapi import FakeAPI
from support import Project, git, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PARTIAL = "^^^partial.txt\nfrom a broken answer\n^^^end\n^^^fixed.txt\nfix"
OPENAI_KEY = "sk-openai-test-0123456789-KEYab"


@pytest.fixture
def openai(api: FakeAPI, monkeypatch: pytest.MonkeyPatch, cli):
    """Runs code-commit against the fake's Chat Completions endpoint."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)

    def run(*args: str, env=None):
        return cli("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1", *args, env=env)

    return run


def test_a_run_through_an_openai_compatible_server(project: Project, api: FakeAPI, openai) -> None:
    api.reply("^^^wrong.txt\nnope\n^^^end\n")
    api.reply(FIX, usage={"input_tokens": 300, "output_tokens": 40, "cache_read_input_tokens": 700})

    result = openai()

    assert result.exit_code == 0, result.stderr
    assert project.read("fixed.txt") == "fixed\n"
    initial, repair = api.requests
    assert initial.path == "/v1/chat/completions"
    assert initial.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert OPENAI_KEY not in initial.path + initial.query
    body = initial.json
    assert body["model"] == "gpt-fake" and body["max_tokens"] == 32000
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    # The same prompt as the Anthropic provider sends, in the default order.
    assert system["content"].index("HOW TO CHANGE FILES") < system["content"].index("TASK")
    assert user["content"] == "--- QUERY ---\nMake the build pass.\n--- CODEBASE ---\n==> app.txt <==\nhello\n"
    assert "REPAIR TASK" in repair.json["messages"][0]["content"]
    assert repair.json["messages"][1]["content"].startswith("--- BUILD OUTPUT ---")
    # prompt_tokens (1000) counts the cached tokens (700): they are taken out of input_tokens.
    assert (
        "call 2: stop_reason=end_turn input_tokens=300 output_tokens=40 thinking_tokens=0 cache_write_tokens=0 "
        in (logged(project)["run.log"])
    )
    assert "cache_read_tokens=700 cached_share=0.70 cost_usd=unknown" in logged(project)["run.log"]


def test_a_server_that_reports_no_usage_is_noticed(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    from code_commit.llm import openai_api

    real = openai_api.request_body
    monkeypatch.setattr(openai_api, "request_body", lambda *a, **k: {**real(*a, **k), "stream_options": None})
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 0
    assert "the server reports no token usage: tokens are estimated" in result.stderr
    assert "the server reports no token usage" in logged(project)["run.log"]


def test_a_price_for_the_server_s_model_comes_from_the_config(project: Project, api: FakeAPI, openai) -> None:
    project.write("agent-config/config.toml", '[models."gpt-fake"]\ninput = 2.0\noutput = 8.0\n')
    api.reply(FIX, usage={"input_tokens": 1000, "output_tokens": 100})

    assert openai().exit_code == 0
    assert f"cost_usd={(1000 * 2 + 100 * 8) / 1e6:.6f}" in logged(project)["run.log"]


def test_a_local_server_needs_no_key(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 0, result.stderr
    assert "authorization" not in api.requests[0].headers


def test_a_server_that_wants_a_key_says_where_to_put_it(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    api.status(401)

    result = openai()

    assert result.exit_code == 3
    assert "wants an API key (HTTP 401); set OPENAI_API_KEY or write it to agent-config/openai-api-key" in (
        result.stderr
    )


def test_the_default_openai_endpoint_needs_a_key(project: Project, cli, monkeypatch) -> None:
    result = cli("--provider", "openai", "--model", "gpt-fake")

    assert result.exit_code == 2
    assert "no API key configured for openai" in result.stderr
    assert project.run_dirs() == []


def test_the_key_file_and_a_refused_key(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    project.write("agent-config/openai-api-key", "sk-from-the-openai-file-42\n")
    api.status(401)

    result = openai()

    assert result.exit_code == 3
    assert api.requests[0].headers["authorization"] == "Bearer sk-from-the-openai-file-42"
    assert "refused the API key from key file agent-config/openai-api-key" in result.stderr
    assert "sk-from-the-openai-file-42" not in result.stderr
    assert len(api.requests) == 1


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda api: api.status(429, headers={"retry-after": "3"}), id="429 with retry-after"),
        pytest.param(lambda api: api.status(503), id="503"),
        pytest.param(lambda api: api.drop(), id="dropped connection"),
        pytest.param(lambda api: api.cut_stream(PARTIAL), id="stream cut mid-answer"),
        pytest.param(lambda api: api.cut_stream(PARTIAL, clean=True), id="stream ended without a finish reason"),
        pytest.param(lambda api: api.stream_error(PARTIAL, "server_error"), id="error chunk in the stream"),
    ],
)
def test_faults_are_retried_and_nothing_partial_applied(
    project: Project, api: FakeAPI, openai, retry_waits: list[float], fault
) -> None:
    fault(api)
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    assert api.requests[0].body == api.requests[1].body
    assert not (project.root / "partial.txt").exists()
    assert len(retry_waits) == 1
    assert "attempt 1 of 10 failed" in result.stderr


def test_a_broken_stream_s_tokens_are_estimated(project: Project, api: FakeAPI, openai) -> None:
    # A Chat Completions stream reports usage only at its end: for one that broke off after text came
    # back, the prompt counts as read and the text as written, both at 3 characters a token.
    api.stream_error("x" * 300, "server_error")
    api.reply(FIX, usage={"input_tokens": 100, "output_tokens": 10})

    assert openai().exit_code == 0
    files = logged(project)
    prompt_tokens = math.ceil(len(files["01-query.txt"]) / 3)
    assert f"input_tokens={prompt_tokens + 100} output_tokens={100 + 10} " in files["run.log"]
    assert "requests=2 retries=1 " in files["run.log"]


def test_retry_after_is_honoured(project: Project, api: FakeAPI, openai, retry_waits: list[float]) -> None:
    api.status(429, headers={"retry-after-ms": "1500"})
    api.reply(FIX)

    assert openai().exit_code == 0
    assert retry_waits == [1.5]


@pytest.mark.parametrize("code", [400, 401, 403, 404, 413, 422])
def test_request_errors_are_not_retried(project: Project, api: FakeAPI, openai, code: int) -> None:
    api.status(code)
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert git(project.root, "status", "--porcelain") == ""


def test_a_context_length_error_exits_3_with_the_fix(project: Project, api: FakeAPI, openai) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in "
            "9500 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    api.status(400, body=body)

    result = openai()

    assert result.exit_code == 3
    assert "the prompt is too long for gpt-fake" in result.stderr and "Shrink the rollup" in result.stderr
    assert "--max-tokens" not in result.stderr
    # OpenAI's numbers are in its message only: read from there.
    assert "its context is 8,192 tokens; HTTP 400 invalid_request_error context_length_exceeded" in result.stderr
    assert "9,500 tokens as the server counts them" in result.stderr


def test_llama_cpp_s_context_error_is_known_by_its_type_whatever_the_status(
    project: Project, api: FakeAPI, openai
) -> None:
    # From 2025-09 to 2025-10 llama.cpp's server answered it with its code, 500, as the HTTP status
    # (ggml-org/llama.cpp#15780): a 500 is retried, but not this one, whose type says it would not change.
    error = {
        "code": 500,
        "message": "the request exceeds the available context size. try increasing the context size or enable "
        "context shift",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 1407,
        "n_ctx": 256,
    }
    api.status(500, body={"error": error})
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "its context is 256 tokens; HTTP 500 exceed_context_size_error" in result.stderr
    assert "1,407 tokens as the server counts them" in result.stderr


VLLM_TOO_LONG = (
    "This model's maximum context length is 8192 tokens. However, you requested 33466 tokens (1466 in the "
    "messages, 32000 in the completion). Please reduce the length of the messages or completion."
)


@pytest.mark.parametrize(
    ("body", "at_most"),
    [
        pytest.param(
            {"object": "error", "message": VLLM_TOO_LONG, "type": "BadRequestError", "code": 400},
            "6,726",
            id="vLLM, error at the top level",
        ),
        pytest.param({"error": {"message": VLLM_TOO_LONG, "type": "BadRequestError"}}, "6,726", id="nested"),
        pytest.param(
            {
                "object": "error",
                "message": "'max_tokens' is too large: 32000. This model's maximum context length is 8192 tokens "
                "and your request has 1466 input tokens (32000 > 8192 - 1466).",
                "type": "BadRequestError",
            },
            "6,726",
            id="vLLM, newer wording",
        ),
        pytest.param(
            {
                "error": {
                    "message": "max_tokens is too large: 32000. This model supports at most 16384 completion tokens, "
                    "whereas you provided 32000.",
                    "type": "invalid_request_error",
                    "code": "invalid_value",
                }
            },
            "16,384",
            id="OpenAI, above the model's output limit",
        ),
    ],
)
def test_a_refused_output_limit_says_to_lower_max_tokens(
    project: Project, api: FakeAPI, openai, body: dict, at_most: str
) -> None:
    api.status(400, body=body)

    result = openai()

    assert result.exit_code == 3
    assert "refused the output limit of 32,000 tokens for gpt-fake, not the prompt" in result.stderr
    assert f"Lower --max-tokens (the max_tokens setting) to at most {at_most}." in result.stderr
    assert "Shrink the rollup" not in result.stderr


def test_a_context_error_with_a_prompt_that_fits_blames_the_output_limit(
    project: Project, api: FakeAPI, openai
) -> None:
    # The message gives only the context; the prompt (under 2,000 tokens by any estimate) fits it, so the
    # 32,000 tokens of output asked for are what does not.
    body = {"error": {"message": "This model's maximum context length is 8192 tokens.", "code": "context_length"}}
    api.status(400, body=body)
    api.status(400, body=body)

    result = openai()
    assert "Lower --max-tokens" in result.stderr and "Shrink the rollup" not in result.stderr

    result = openai("--max-tokens", "1000")  # then the prompt must be what does not fit
    assert "the prompt is too long for gpt-fake" in result.stderr


def test_an_error_at_the_top_level_of_the_body_keeps_its_message(project: Project, api: FakeAPI, openai) -> None:
    api.status(400, body={"object": "error", "message": "tools are not supported", "type": "BadRequestError"})

    result = openai()

    assert result.exit_code == 3
    assert "answered HTTP 400 BadRequestError: tools are not supported" in result.stderr


def test_giving_up_exits_3(project: Project, api: FakeAPI, openai) -> None:
    for _ in range(3):
        api.status(502)

    result = openai(env={"CODE_COMMIT_RETRY_ATTEMPTS": "3"})

    assert result.exit_code == 3
    assert len(api.requests) == 3
    assert "gave up on the OpenAI-compatible service after 3 attempts" in result.stderr
    assert "HTTP 502 api_error (3x)" in result.stderr


def test_a_content_filter_stop_is_a_refusal(project: Project, api: FakeAPI, openai) -> None:
    api.reply("^^^partial.txt\nx\n^^^end\n", stop_reason="refusal")
    api.reply(FIX)

    result = openai()

    assert result.exit_code == 0
    assert "declined to answer" in result.stderr
    assert not (project.root / "partial.txt").exists()


def test_the_key_never_reaches_prompts_logs_or_console(project: Project, api: FakeAPI, openai) -> None:
    project.write("agent-config/codeRollup.txt", f"==> .env <==\nOPENAI={OPENAI_KEY}\n")
    api.status(401, body={"error": {"message": f"Incorrect API key provided: {OPENAI_KEY}", "type": "auth"}})

    result = openai()

    assert result.exit_code == 3
    assert OPENAI_KEY not in api.requests[0].body.decode()
    assert "********" + OPENAI_KEY[-2:] in json.loads(api.requests[0].body)["messages"][1]["content"]
    assert OPENAI_KEY not in result.stderr + result.stdout
    for name, text in logged(project).items():
        assert OPENAI_KEY not in text, name


def test_a_server_that_ignores_stream_true_is_understood(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    # Some servers answer with one JSON body whatever was asked: the fake does when not asked to stream.
    from code_commit.llm import openai_api

    real = openai_api.request_body
    monkeypatch.setattr(openai_api, "request_body", lambda *a, **k: {**real(*a, **k), "stream": False})
    api.reply(FIX, usage={"input_tokens": 50, "output_tokens": 5})

    assert openai().exit_code == 0
    assert "input_tokens=50 output_tokens=5" in logged(project)["run.log"]


def test_openai_base_url_from_the_environment(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{api.url}/v1")
    api.reply(FIX)

    result = cli("--provider", "openai", "--model", "gpt-fake")

    assert result.exit_code == 0, result.stderr
    assert api.requests[0].path == "/v1/chat/completions"
    assert "authorization" not in api.requests[0].headers
    # ... as the setting's documentation (and so the config template) says.
    from code_commit.cli.config_report import template

    (doc,) = (f.metadata["doc"] for f in dataclasses.fields(Settings) if f.name == "base_url")
    assert "OPENAI_BASE_URL for openai" in doc and f"# {doc}\n" in template()


def test_config_says_a_local_server_needs_no_key(project: Project, api: FakeAPI, openai, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    result = openai("config")

    assert result.exit_code == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("api_key"))
    assert "(none)  # not needed for a server at a base URL of your choosing: no key configured" in line
    assert "Set OPENAI_API_KEY" not in line
    key = json.loads(openai("config", "--json").stdout)["api_key"]
    assert key["value"] is None and key["needed"] is False and "problem" not in key


def test_config_still_says_the_default_openai_endpoint_needs_a_key(project: Project, cli) -> None:
    result = cli("--provider", "openai", "--model", "gpt-fake", "config")

    assert result.exit_code == 0
    assert "no API key configured for openai. Set OPENAI_API_KEY" in result.stdout
