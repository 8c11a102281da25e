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
