"""A gateway's whole-JSON answer to a streaming request is bounded like a stream: past max_answer_bytes
of text it is refused (not retried), whichever provider reads it."""

from __future__ import annotations

import pytest

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
CAP = 100_000


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_whole_json_answer_over_the_cap_is_refused_and_repaired(
    project: Project, api: FakeAPI, cli, provider: str
) -> None:
    api.reply("Some prose.\n" * 20_000 + FIX, whole=True)  # 240 KB of text
    api.reply(FIX, whole=True)
    env = {"CODE_COMMIT_MAX_ANSWER_BYTES": str(CAP), "OPENAI_API_KEY": "sk-openai-test-0123456789-KEYab"}
    openai = ("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1")
    flags = openai if provider == "openai" else ()
    result = cli(*flags, env=env)
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2, "not retried"
    (run,) = project.run_dirs()
    assert "max_answer_bytes" in (run / "01-refused.txt").read_text()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("code", [400, 500])
def test_a_service_s_huge_error_message_is_shown_and_logged_cut(
    project: Project, api: FakeAPI, cli, provider: str, code: int
) -> None:
    """A gateway's 1 MB error message was repeated whole on the console, in run.log and --json, once
    per retry."""
    message = "overloaded " * 100_000
    kind = "invalid_request_error" if code == 400 else "api_error"
    for _ in range(3):
        api.status(code, body={"type": "error", "error": {"type": kind, "message": message}})
    env = {"OPENAI_API_KEY": "sk-openai-test-0123456789-KEYab", "CODE_COMMIT_RETRY_ATTEMPTS": "3"}
    openai = ("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1")
    result = cli("--json", *(openai if provider == "openai" else ()), env=env)
    assert result.exit_code == 3, result.stderr
    assert "overloaded overloaded" in result.stderr
    assert len(result.stdout) + len(result.stderr) < 20_000
    (run,) = project.run_dirs()
    assert len((run / "run.log").read_text()) < 20_000


def test_a_key_echoed_across_the_cut_of_a_service_s_message_never_shows_in_part(
    project: Project, api: FakeAPI, cli
) -> None:
    """A service that echoes the key it was sent, where the message's cut falls inside the key: the cut
    must not leave a part of the key that the censor (which looks for the whole key) cannot recognise."""
    from code_commit.llm.transport import MESSAGE_CHARS

    from support import TEST_KEY

    head = "bad header Authorization: Bearer "
    pad = ("x " * MESSAGE_CHARS)[: MESSAGE_CHARS - len(head) - len(TEST_KEY) // 2]
    message = f"{pad}{head}{TEST_KEY} and more " + "y " * 5000
    assert message.index(TEST_KEY) < MESSAGE_CHARS < message.index(TEST_KEY) + len(TEST_KEY)  # the cut is in it
    api.status(400, body={"type": "error", "error": {"type": "invalid_request_error", "message": message}})
    result = cli("--json")
    assert result.exit_code == 3, result.stderr
    (run,) = project.run_dirs()
    shown = result.stdout + result.stderr + (run / "run.log").read_text() + (run / "summary.json").read_text()
    assert "x x x" in shown  # the message itself is shown
    for part in (TEST_KEY[:12], TEST_KEY[12:24], TEST_KEY[-12:-2]):
        assert part not in shown
