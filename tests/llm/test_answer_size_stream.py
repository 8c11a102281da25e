"""An answer's size is bounded: a service that streams without end is read up to `max_answer_bytes`
of text (or RAW_BYTES_PER_ANSWER_BYTE times that of body, whatever it holds), then the answer is
refused like any other, and the next call repairs. Shown by the bytes the server managed to send,
never by timing."""

from __future__ import annotations

import pytest

from code_commit.config.settings import Settings
from code_commit.llm.transport import RAW_BYTES_PER_ANSWER_BYTE

from fakeapi import ENDLESS_SAFETY_STOP, FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
CAP = 100_000
# What the kernel may buffer on a loopback connection between the server's writes and the client's reads.
SOCKET_SLACK = 16 << 20


def _repair_text(request) -> str:
    messages = request.json["messages"]
    return "".join(
        block if isinstance(block, str) else block["text"]
        for message in messages
        for block in (message["content"] if isinstance(message["content"], list) else [message["content"]])
    )


def _run(cli, api: FakeAPI, provider: str, *extra: str):
    env = {"CODE_COMMIT_MAX_ANSWER_BYTES": str(CAP), "OPENAI_API_KEY": "sk-openai-test-0123456789-KEYab"}
    flags = (
        ("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1") if provider == "openai" else ()
    )
    return cli(*flags, *extra, env=env)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("one_line", [False, True], ids=["endless-events", "endless-line"])
def test_an_endless_stream_is_cut_off_refused_and_repaired(
    project: Project, api: FakeAPI, cli, provider: str, one_line: bool
) -> None:
    api.endless(one_line=one_line)
    api.reply(FIX)
    result = _run(cli, api, provider)
    assert result.exit_code == 0, result.stderr
    assert project.read("fixed.txt") == "fixed\n"
    assert len(api.requests) == 2, "a flood is not retried"
    (sent,) = api.endless_sent
    read_at_most = CAP * RAW_BYTES_PER_ANSWER_BYTE if one_line else CAP * 2  # text events: framing and text
    assert sent < read_at_most + SOCKET_SLACK < ENDLESS_SAFETY_STOP
    repair = _repair_text(api.requests[1])
    assert "max_answer_bytes" in repair and f"{CAP:,} bytes" in repair
    (run,) = project.run_dirs()
    assert "max_answer_bytes" in (run / "01-refused.txt").read_text()


def test_the_default_cap_follows_max_tokens() -> None:
    assert Settings().answer_byte_cap == 32000 * 16 * 4
    assert Settings(max_tokens=1000).answer_byte_cap == 1000 * 16 * 4
    assert Settings(max_answer_bytes=5000).answer_byte_cap == 5000


def test_an_answer_under_the_cap_is_read_whole(project: Project, api: FakeAPI, cli) -> None:
    answer = "Some prose.\n" * 5000 + FIX  # 60 KB, under the 100 KB cap
    api.reply(answer)
    result = _run(cli, api, "anthropic")
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 1


def test_a_bad_cap_is_a_setup_error(project: Project, cli) -> None:
    result = cli("config", env={"CODE_COMMIT_MAX_ANSWER_BYTES": "10"})
    assert result.exit_code != 0
    assert "max_answer_bytes" in result.stderr
