"""The output limit's name on Chat Completions: OpenAI's reasoning-era models (gpt-5 and later, the
o-series) refuse max_tokens, as the fake does with OpenAI's own status and body; older compatible servers
know only max_tokens (the fake's "vllm-0.5" mode refuses any other field, as vLLM 0.4.2-0.6.3 did)."""

from __future__ import annotations

import pytest

from code_commit.llm.openai_api import prompt_cache_key, token_field_for
from code_commit.llm.prompts import Prompt, Section

from fakeapi import OPENAI_MAX_TOKENS_MESSAGE, FakeAPI
from support import Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
OPENAI_KEY = "sk-openai-test-0123456789-KEYab"


@pytest.fixture
def openai(api: FakeAPI, monkeypatch: pytest.MonkeyPatch, cli):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)

    def run(model: str, *args: str, env=None):
        return cli("--provider", "openai", "--model", model, "--base-url", f"{api.url}/v1", *args, env=env)

    return run


def test_gpt_6_repairs_a_project_against_a_service_that_refuses_max_tokens(
    project: Project, api: FakeAPI, openai
) -> None:
    api.reply(WRONG)
    api.reply(FIX)

    result = openai("gpt-6-sol")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    for request in api.requests:
        assert "max_tokens" not in request.json
        assert request.json["max_completion_tokens"] == 128_000  # gpt-6-sol's output limit, from the catalog
    assert project.read("fixed.txt") == "fixed\n"


def test_the_fake_refuses_max_tokens_exactly_as_openai_does(project: Project, api: FakeAPI) -> None:
    import httpx

    for model in ("gpt-5", "gpt-5.4-mini", "gpt-6-sol", "o3", "o4-mini"):
        body = {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
        response = httpx.post(f"{api.url}/v1/chat/completions", json=body)
        assert response.status_code == 400
        assert response.json() == {
            "error": {
                "message": OPENAI_MAX_TOKENS_MESSAGE,
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
        }
    assert api.pending == 0 and len(api.refused) == 5


@pytest.mark.parametrize(
    ("model", "url", "field"),
    [
        ("gpt-6-sol", "http://127.0.0.1:8000/v1", "max_completion_tokens"),
        ("o3-mini", "http://127.0.0.1:8000/v1", "max_completion_tokens"),
        ("openai/gpt-5.1", "http://127.0.0.1:4000/v1", "max_completion_tokens"),  # a gateway's prefixed id
        ("my-deployment", "https://team.openai.azure.com/openai/v1", "max_completion_tokens"),
        ("gpt-4.1", "https://api.openai.com/v1", "max_completion_tokens"),
        ("qwen2.5-coder", "http://127.0.0.1:11434/v1", "max_tokens"),  # Ollama knows only this one
        ("gpt-4o", "http://127.0.0.1:8000/v1", "max_tokens"),
        ("orca-mini", "http://127.0.0.1:8000/v1", "max_tokens"),
    ],
)
def test_the_name_sent_before_any_server_has_said(model: str, url: str, field: str) -> None:
    assert token_field_for(model, url) == field


def test_an_older_server_that_knows_only_max_tokens_still_works_and_is_remembered(
    project: Project, api: FakeAPI, openai
) -> None:
    # A vLLM of 2024 serving a model named like OpenAI's: max_completion_tokens is an extra field it forbids.
    api.openai_server = "vllm-0.5"
    api.reply(WRONG)
    api.reply(FIX)

    result = openai("gpt-5-distill")

    assert result.exit_code == 0, result.stderr
    first, second, third = api.requests
    assert "max_completion_tokens" in first.json and "max_tokens" not in first.json
    assert "extra_forbidden" in api.refused[0]
    assert second.json["max_tokens"] == 32_000 and "max_completion_tokens" not in second.json
    assert third.json["max_tokens"] == 32_000, "the repair call sends the name the server took, at once"
    assert len(api.refused) == 1
    assert "the server refuses max_completion_tokens; sending the output limit as max_tokens" in result.stderr
    assert "requests=2 retries=1" in logged(project)["run.log"]


def test_a_server_that_refuses_max_tokens_gets_the_other_name(project: Project, api: FakeAPI, openai) -> None:
    # An Azure deployment of a GPT-5 model behind a gateway, under a name that says nothing.
    refusal = {
        "error": {
            "message": OPENAI_MAX_TOKENS_MESSAGE,
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    }
    api.status(400, body=refusal)
    api.reply(FIX)

    result = openai("team-deployment")

    assert result.exit_code == 0, result.stderr
    first, second = api.requests
    assert "max_tokens" in first.json
    assert second.json["max_completion_tokens"] == 32_000 and "max_tokens" not in second.json


def test_the_name_is_switched_once_only(project: Project, api: FakeAPI, openai) -> None:
    # A server that refuses both names: after one switch, its refusal is a refusal (exit 3), not a loop.
    refusal = {"error": {"message": OPENAI_MAX_TOKENS_MESSAGE, "type": "invalid_request_error"}}
    other = {"error": {"message": "Unrecognized request argument supplied: max_completion_tokens", "type": "x"}}
    api.status(400, body=refusal)
    api.status(400, body=other)
    api.reply(FIX)

    result = openai("team-deployment")

    assert result.exit_code == 3
    assert len(api.requests) == 2
    assert "Unrecognized request argument supplied: max_completion_tokens" in result.stderr


def test_a_refusal_of_the_value_is_not_taken_for_a_refusal_of_the_name(project: Project, api: FakeAPI, openai) -> None:
    body = {"error": {"message": "max_tokens is too large: 32000. This model supports at most 4096 completion tokens"}}
    api.status(400, body=body)

    result = openai("gpt-4o")

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "Lower --max-tokens" in result.stderr


def test_prompt_cache_key_goes_to_openai_only_and_is_stable_across_calls() -> None:
    shared = Section("code modification", "HOW TO CHANGE FILES", system=True, cache=True)
    first = Prompt((shared, Section("query", "initial")))
    repair = Prompt((shared, Section("query", "repair: the build failed")))
    other = Prompt((Section("code modification", "OTHER RULES", system=True, cache=True),))
    assert prompt_cache_key(first) == prompt_cache_key(repair) != prompt_cache_key(other)
    assert prompt_cache_key(first).startswith("code-commit-")
    assert "HOW TO" not in prompt_cache_key(first)


def test_a_compatible_server_gets_no_field_it_may_not_know(project: Project, api: FakeAPI, openai) -> None:
    # prompt_cache_key and reasoning_effort are OpenAI's: an old vLLM refuses any field it does not know.
    api.openai_server = "vllm-0.5"
    api.reply(FIX)

    result = openai("qwen2.5-coder", "--effort", "high")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    assert set(api.requests[0].json) == {"model", "max_tokens", "messages", "stream", "stream_options"}
    assert "effort = 'high' is not sent: qwen2.5-coder is not known to take one" in result.stderr
