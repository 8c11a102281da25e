"""Thinking and effort. Current Claude models think by default and the fake sends their thinking block
first, as the real ones do; a thinking block is never the answer, is logged apart (censored), and its
tokens count. The effort setting goes only to models that take it; nothing sends budget_tokens,
`thinking: disabled` or sampling parameters, which the fake refuses as the real services do."""

from __future__ import annotations

import json

import pytest

from fakeapi import FakeAPI
from support import TEST_KEY, Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
# Thinking that drafts a block: were it parsed, planted.txt would be written.
DRAFT = "The build needs fixed.txt. A first draft:\n^^^planted.txt\nfrom the thinking\n^^^end\nNo, simpler."


@pytest.mark.parametrize("whole", [False, True], ids=["streamed", "whole JSON answer"])
def test_thinking_is_never_the_answer_and_is_logged_apart(project: Project, api: FakeAPI, cli, whole: bool) -> None:
    api.reply(FIX, thinking=DRAFT, thinking_tokens=40, usage={"output_tokens": 60}, whole=whole)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    assert not (project.root / "planted.txt").exists()
    assert project.read("fixed.txt") == "fixed\n"
    files = logged(project)
    assert files["01-response.txt"] == FIX
    assert files["01-thinking.txt"] == DRAFT
    assert "thinking_tokens: 40\n" in files["01-usage.txt"]
    assert "output_tokens=60 thinking_tokens=40" in files["run.log"]
    (call,) = json.loads(result.stdout)["calls"]
    assert call["usage"]["thinking_tokens"] == 40
    # Billed as output: the cost counts the 60 output tokens, the 40 of thinking among them.
    assert call["cost_usd"] == pytest.approx((12 * 2 + 60 * 10) / 1e6)
    assert "60 output tokens (40 thinking)" in result.stderr


def test_thinking_is_censored_like_everything_else(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX, thinking=f"The key in the environment is {TEST_KEY}, I should not say it.")

    assert cli().exit_code == 0
    thinking = logged(project)["01-thinking.txt"]
    assert TEST_KEY not in thinking and "********" + TEST_KEY[-2:] in thinking


def test_a_model_that_thinks_by_default_sends_an_empty_thinking_block_and_nothing_is_logged(
    project: Project, api: FakeAPI, cli
) -> None:
    # Opus 5.5 sends its thinking as display "omitted": a block with no text, only a signature.
    api.reply(FIX)

    assert cli("--model", "claude-opus-5-5").exit_code == 0
    files = logged(project)
    assert "01-thinking.txt" not in files
    assert "thinking_tokens: 6\n" in files["01-usage.txt"]  # of the answer's 6 output tokens, as the fake counts


def test_thinking_over_continuations_is_kept_in_order(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfix", stop_reason="max_tokens", thinking="first thoughts")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n", thinking="second thoughts")

    assert cli().exit_code == 0
    assert logged(project)["01-thinking.txt"] == "first thoughts\n--- continuation 1 ---\nsecond thoughts"


def test_no_request_carries_thinking_or_sampling_settings(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)

    assert cli("--model", "claude-opus-5-5").exit_code == 0
    (request,) = api.requests
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert not {"thinking", "temperature", "top_p", "top_k"} & set(request.json)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"temperature": 0.2}, "temperature: Extra inputs are not permitted"),
        ({"top_p": 0.9}, "top_p: Extra inputs are not permitted"),
        ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, '"thinking.type.enabled" is not supported'),
        ({"thinking": {"type": "disabled"}}, '"thinking.type.disabled" is not supported'),
    ],
)
def test_the_fake_refuses_what_the_service_refuses(api: FakeAPI, body: dict, message: str) -> None:
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test-key-0000", base_url=api.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(
            model="claude-opus-5-5",
            max_tokens=4096,
            messages=[{"role": "user", "content": "hi"}],
            extra_body=body,
        )
    assert message in refused.value.message
    assert api.pending == 0


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("claude-sonnet-5-5", True),
        ("claude-opus-4-6", True),
        ("claude-haiku-4-5", False),  # takes no effort: the fake refuses it, as the service does
        ("claude-unknown-9", False),  # not known to: not sent
    ],
)
def test_effort_is_sent_only_where_the_model_takes_it(
    project: Project, api: FakeAPI, cli, model: str, sent: bool
) -> None:
    api.reply(FIX)

    result = cli("--model", model, "--effort", "low")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    (request,) = api.requests
    assert request.json.get("output_config") == ({"effort": "low"} if sent else None)
    if not sent:
        assert f"effort = 'low' is not sent: {model}" in result.stderr
        assert f"effort = 'low' is not sent: {model}" in logged(project)["run.log"]


def test_unset_effort_leaves_the_model_s_default(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)

    assert cli().exit_code == 0
    assert "output_config" not in api.requests[0].json


def test_openai_reasoning_effort_and_reasoning_content(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-0123456789")
    api.reply(FIX, thinking=DRAFT, thinking_tokens=30, usage={"output_tokens": 50})

    result = cli("--provider", "openai", "--model", "gpt-6-sol", "--base-url", f"{api.url}/v1", "--effort", "medium")

    assert result.exit_code == 0, result.stderr
    assert api.requests[0].json["reasoning_effort"] == "medium"
    assert not (project.root / "planted.txt").exists()
    files = logged(project)
    assert files["01-thinking.txt"] == DRAFT
    assert "output_tokens=50 thinking_tokens=30" in files["run.log"]


def test_a_bad_effort_is_a_setup_error(project: Project, api: FakeAPI, cli) -> None:
    result = cli("--effort", "maximum")

    assert result.exit_code == 2
    assert "effort" in result.stderr and "must be one of low, medium, high" in result.stderr
    assert api.requests == []


def test_max_tokens_follows_the_model_s_output_limit(project: Project, api: FakeAPI, cli) -> None:
    runs = [(), ("--model", "claude-haiku-4-5"), ("--model", "claude-unknown-9"), ("--max-tokens", "5000")]
    for args in runs:
        api.reply(FIX)
        result = cli("--dry-run", *args)
        assert result.exit_code == 0, result.stderr

    # claude-sonnet-5-5's 128,000; claude-haiku-4-5's 64,000; 32,000 for a model the catalog does not know.
    assert [r.json["max_tokens"] for r in api.requests] == [128_000, 64_000, 32_000, 5000]
    assert api.refused == []
