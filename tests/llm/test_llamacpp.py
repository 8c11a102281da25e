"""OpenAI-compatible servers as they behave: llama.cpp's server, llama-cpp-python's and vLLM's,
through `--provider openai --base-url ... --model ...`, against the strict loopback fake in
tests/llamacpp_server.py. Each test counts the requests the server got: no retry storm."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from llamacpp_server import LlamaServer
from support import Project, logged

MODEL = "qwen2.5-coder-0.5b-instruct"
FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
PRICE = '[models."qwen2.5-coder-0.5b-instruct"]\ninput = 1000.0\noutput = 1000.0\n'


@pytest.fixture
def llama() -> Iterator[type[LlamaServer]]:
    """Starts fake servers (`llama(flavour=..., n_ctx=...)`), each stopped after the test."""
    with ExitStack() as stack:

        def start(*args: object, **kwargs: object) -> LlamaServer:
            return stack.enter_context(LlamaServer(*args, **kwargs))  # type: ignore[arg-type]

        yield start  # type: ignore[misc]


@pytest.fixture
def run(cli):
    def invoke(server: LlamaServer, *args: str):
        result = cli("--provider", "openai", "--base-url", f"{server.url}/v1", "--model", MODEL, "--json", *args)
        return result, json.loads(result.stdout)

    return invoke


def estimate(chars: int) -> int:
    return math.ceil(chars / 3)  # catalog's high estimate: 3 characters a token


# --- usage: a stream that reports none ---


def test_a_stream_without_usage_is_estimated_from_the_text_and_marked(project: Project, llama, run) -> None:
    project.write("agent-config/config.toml", PRICE)
    server = llama(flavour="llama-cpp-python")  # its chat stream never carries usage
    server.reply(FIX)

    result, record = run(server)

    assert result.exit_code == 0, result.stderr
    assert len(server.calls) == 1 and server.calls[0].stream
    assert server.calls[0].json["stream_options"] == {"include_usage": True}  # asked for, not honoured
    files = logged(project)
    usage = record["calls"][0]["usage"]
    assert usage["estimated"] is True and record["usage"]["estimated"] is True
    assert usage["input_tokens"] == estimate(len(files["01-query.txt"]))
    assert usage["output_tokens"] == estimate(len(FIX))
    assert record["cost_usd"] == pytest.approx((usage["input_tokens"] + usage["output_tokens"]) * 1000 / 1e6)
    assert "the server reports no token usage: tokens are estimated from the text" in result.stderr
    assert f"call 1: about {usage['input_tokens']:,} input tokens" in result.stderr
    assert "(tokens estimated from the text: the server did not count them all)" in result.stderr
    assert "estimated: true" in files["01-usage.txt"] and "estimated=true" in files["run.log"]


def test_llama_cpp_honours_include_usage_so_nothing_is_estimated(project: Project, llama, run) -> None:
    server = llama(flavour="llama.cpp")
    server.reply(FIX)

    result, record = run(server)

    assert result.exit_code == 0, result.stderr
    prompt_tokens = server.prompt_tokens(server.calls[0].json)
    assert record["usage"]["input_tokens"] == prompt_tokens and record["usage"]["estimated"] is False
    assert "estimated" not in result.stderr
    assert "estimated: false" in logged(project)["01-usage.txt"]


def test_the_budget_counts_estimated_tokens_and_stops_the_run(project: Project, llama, run) -> None:
    project.write("agent-config/config.toml", PRICE)
    server = llama(flavour="llama-cpp-python")
    server.reply(WRONG)
    # A limit the repair call alone fits in (the first call's worst case, 1.5 times): only what the first
    # call was estimated to have spent can take the run over it.
    first = run(server, "--dry-run", "--max-tokens", "100")[1]["calls"][0]["usage"]
    server.calls.clear()
    server.reply(WRONG)  # the build still fails: a repair call would follow
    server.reply(FIX)
    limit = 1.5 * (first["input_tokens"] + 100) * 1000 / 1e6

    result, record = run(server, "--max-tokens", "100", "--max-cost", f"{limit:.4f}")

    assert result.exit_code == 3, result.stderr
    assert len(server.calls) == 1, "the repair call was never sent"
    spent = re.search(
        r"could cost up to \$([\d.]+) .* \$([\d.]+) is already spent \(\$([\d.]+) of it estimated", record["error"]
    )
    assert spent is not None, result.stderr
    worst, already, estimated = map(float, spent.groups())
    assert worst <= limit < worst + already and estimated == already > 0
    assert "the server reported no token usage" in record["error"]
    assert record["usage"]["estimated"] is True and record["cost_usd"] == pytest.approx(already, abs=1e-4)


# --- a prompt over the server's context ---


def over_the_context_on_repair(project: Project, llama, run, flavour: str) -> LlamaServer:
    """A server whose context holds the first prompt but not the repair prompt, which carries the failed
    build's output: measured on a first run, as the fake counts tokens."""
    project.build_script("seq 1 3000\ntest -f fixed.txt\n")
    project.commit_all()
    server = llama(flavour=flavour, n_ctx=1 << 20)
    server.reply(WRONG)
    run(server, "--dry-run")
    first = server.prompt_tokens(server.calls[0].json)
    server.calls.clear()
    server.lookups.clear()
    server.n_ctx = first + 200
    server.reply(WRONG)
    return server


@pytest.mark.parametrize(
    ("flavour", "calls", "field"),
    [
        pytest.param("llama.cpp", 2, "exceed_context_size_error", id="llama.cpp: HTTP 400, even streaming"),
        pytest.param("llama.cpp-2025-09", 2, "exceed_context_size_error", id="llama.cpp before 2025-10: error: line"),
        pytest.param("llama-cpp-python", 3, "context_length_exceeded", id="llama-cpp-python: an empty stream"),
        pytest.param("vllm", 2, "BadRequestError", id="vLLM: param input_tokens"),
    ],
)
def test_a_prompt_over_the_context_is_not_retried_and_says_the_numbers(
    project: Project, llama, run, flavour: str, calls: int, field: str
) -> None:
    server = over_the_context_on_repair(project, llama, run, flavour)

    result, record = run(server)

    assert result.exit_code == 3, result.stderr
    assert len(server.calls) == calls, "no retry: the same prompt would be refused the same way"
    repair = server.calls[1].json
    counted = server.prompt_tokens(repair)
    assert f"its context is {server.n_ctx:,} tokens" in record["error"]
    assert f"{counted:,} tokens as the server counts them" in record["error"]
    assert field in record["error"]
    assert "Shrink the rollup" in record["error"] and "with a larger context" in record["error"]
    assert record["error"] in result.stderr
    assert record["calls"][1]["stop_reason"] == "error" and record["calls"][1]["requests"] == calls - 1
    if flavour == "llama-cpp-python":
        # The stream ended with neither text nor finish reason: asked again once, not streaming.
        asked_again = server.calls[2].json
        assert server.calls[1].stream and asked_again["stream"] is False and "stream_options" not in asked_again
        assert {k: v for k, v in asked_again.items() if k not in ("stream", "stream_options")} == {
            k: v for k, v in repair.items() if k not in ("stream", "stream_options")
        }
        assert "asking again without streaming, for the server's own error" in result.stderr


def test_a_first_prompt_over_the_published_context_is_never_sent(project: Project, llama, run) -> None:
    server = llama(flavour="llama.cpp", n_ctx=64)

    result, record = run(server)

    assert result.exit_code == 2
    assert server.calls == [] and server.lookups == ["/props"]
    assert (
        "its context is 64 tokens, as the server's GET /props (default_generation_settings.n_ctx) says"
        in (record["error"])
    )
    assert "Nothing was sent." in record["error"]


@pytest.mark.parametrize(
    ("flavour", "lookups", "source"),
    [
        pytest.param("llama.cpp", ["/props"], "GET /props (default_generation_settings.n_ctx)", id="llama.cpp"),
        pytest.param("vllm", ["/props", "/v1/models"], "GET /v1/models (max_model_len)", id="vLLM"),
        pytest.param("llama-cpp-python", ["/props", "/v1/models"], None, id="llama-cpp-python: none published"),
    ],
)
def test_the_server_s_context_window_is_read_once_a_run(
    project: Project, llama, run, flavour: str, lookups: list[str], source: str | None
) -> None:
    project.write("agent-config/config.toml", PRICE)
    server = llama(flavour=flavour, n_ctx=32768)
    server.reply(WRONG)
    server.reply(FIX)

    result, _ = run(server)

    assert result.exit_code == 0, result.stderr
    assert len(server.calls) == 2 and server.lookups == lookups, "once a run, however many calls"
    note = f"context window of {MODEL}: 32,768 tokens, as the server's {source} says"
    if source is None:
        assert f"context window unknown for {MODEL}" in result.stderr
    else:
        assert note in result.stderr and note in logged(project)["run.log"]


def test_a_lookup_that_fails_is_no_failure(project: Project, llama) -> None:
    from code_commit.config.keys import ApiKey
    from code_commit.llm.endpoint import Endpoint
    from code_commit.llm.server_facts import published_context

    with LlamaServer() as gone:
        url = gone.url  # shut once the block ends: nothing listens there
    assert published_context(Endpoint(f"{url}/v1", "test"), ApiKey("", "none"), MODEL) is None
    served = published_context(Endpoint(f"{llama(n_ctx=2048).url}/v1", "test"), None, MODEL)
    assert served is not None and served.tokens == 2048


# --- errors in the stream ---


PARTIAL = "^^^partial.txt\nfrom a broken answer\n^^^end\n^^^fixed.txt\nfix"


@pytest.mark.parametrize("flavour", ["llama.cpp", "llama.cpp-2025-09"])
def test_a_server_error_mid_stream_is_retried_and_shown(project: Project, llama, run, flavour: str) -> None:
    server = llama(flavour=flavour)
    server.error_event(PARTIAL, "server_error", "Context size has been exceeded.")
    server.reply(FIX)

    result, record = run(server)

    assert result.exit_code == 0, result.stderr
    assert len(server.calls) == 2 and all(call.stream for call in server.calls)
    assert "server_error event in the stream: Context size has been exceeded." in result.stderr
    assert not (project.root / "partial.txt").exists()
    assert record["calls"][0]["retries"] == 1


def test_a_bad_request_mid_stream_is_not_retried(project: Project, llama, run) -> None:
    server = llama(flavour="llama.cpp")
    server.error_event(PARTIAL, "invalid_request_error", "Invalid tool call")

    result, record = run(server)

    assert result.exit_code == 3
    assert len(server.calls) == 1
    assert "broke off the answer with invalid_request_error: Invalid tool call" in record["error"]


def test_an_abrupt_end_after_text_is_retried_streaming(project: Project, llama, run) -> None:
    server = llama(flavour="llama.cpp")
    server.abrupt(PARTIAL)
    server.reply(FIX)

    result, _ = run(server)

    assert result.exit_code == 0, result.stderr
    assert [call.stream for call in server.calls] == [True, True]
    assert not (project.root / "partial.txt").exists()


def test_an_abrupt_end_before_any_text_is_asked_again_without_streaming(
    project: Project, llama, run, retry_waits: list[float]
) -> None:
    server = llama(flavour="llama.cpp")
    server.abrupt("")
    server.reply(FIX)  # the whole answer the server gives when not asked to stream

    result, record = run(server)

    assert result.exit_code == 0, result.stderr
    assert [call.stream for call in server.calls] == [True, False]
    assert retry_waits == [0.0], "asked again at once: no backoff"
    assert project.read("fixed.txt") == "fixed\n"
    # llama.cpp counts a whole answer's tokens: nothing is estimated.
    assert record["usage"]["estimated"] is False


# --- a continuation that does not repeat its anchor ---


def test_a_continuation_without_the_anchor_is_asked_again(project: Project, llama, run) -> None:
    server = llama(flavour="llama-cpp-python")
    server.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix", finish="length")
    server.reply("Sure! Here is the rest:\n^^^fixed.txt\nfixed\n^^^end\n")  # starts over: not placed
    server.reply("^^^end\n^^^fixed.txt\nfixed\n^^^end\n")

    result, record = run(server)

    assert result.exit_code == 0, result.stderr
    assert len(server.calls) == 3
    insisted = server.calls[2].json["messages"][-1]["content"]
    assert insisted.startswith("Your last reply did not begin with those lines")
    assert server.calls[1].json["messages"][-1]["content"] in insisted
    assert record["calls"][0]["continuations"] == 2
    assert project.read("partial.txt") == "whole\n"
