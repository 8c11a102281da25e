"""A server that drips an answer a byte at a time, or sends keep-alive pings forever, is given up on
in minutes: `request_timeout` never fires while bytes keep coming, and before, only the run's
2-hour unattended limit ended it. Time here is the transport's clock, stepped by each look at it,
never waited for: the tests count looks and bytes."""

from __future__ import annotations

import itertools
import json

import pytest

from code_commit.llm import transport

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PROVIDERS = ["anthropic", "openai"]


@pytest.fixture
def stepped_clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The transport's clock moves on STEP seconds at every look; returns the looks taken so far."""
    looks: list[int] = []
    counter = itertools.count()

    def clock() -> float:
        looks.append(1)
        return next(counter) * STEP

    monkeypatch.setattr(transport, "clock", clock)
    return looks


STEP = 30.0


def run(cli, api: FakeAPI, provider: str, *extra: str, env: dict[str, str] | None = None):
    args = ["--json", *extra]
    if provider == "openai":
        args += ["--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1"]
        env = {"OPENAI_API_KEY": "sk-openai-test-0123456789", **(env or {})}
    return cli(*args, env=env)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_that_pings_forever_is_given_up_on_and_the_request_retried(
    project: Project, api: FakeAPI, cli, stepped_clock: list[int], provider: str
) -> None:
    api.endless(pace="pings")
    api.reply(FIX)

    # The retry is a plain answer: its pace is not what this stepped clock could judge.
    result = run(cli, api, provider, env={"CODE_COMMIT_RETRY_TIME": "100000", "CODE_COMMIT_STREAM_MIN_RATE": "0"})

    assert result.exit_code == 0, result.stderr
    assert "stream stalled" in result.stderr and "stream_idle_timeout" in result.stderr
    assert len(api.requests) == 2
    (chunks,) = api.endless_chunks
    # The attempt is idle STEP seconds a look: it ends within 300 s of looks (plus what the socket held).
    assert len(stepped_clock) < 100 and chunks < 1_000_000


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_that_drips_its_answer_is_given_up_on(
    project: Project, api: FakeAPI, cli, stepped_clock: list[int], provider: str
) -> None:
    """Text keeps coming, so the idle limit never fires, but at a byte every few looks: under
    stream_min_rate over a minute. The retry drips too. (Two attempts, and no retry_time to count
    against this clock: how much of it the first attempt used up depends on how the drips happen to
    arrive, and a retry left no time ends as a plain timeout.)"""
    for _ in range(3):
        api.endless("x", pace="drip")

    result = run(cli, api, provider, env={"CODE_COMMIT_RETRY_ATTEMPTS": "2", "CODE_COMMIT_RETRY_TIME": "100000"})

    assert result.exit_code == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["outcome"] == "service_error"
    assert "stream too slow" in record["error"] and "stream_min_rate" in record["error"]
    assert len(stepped_clock) < 200


def test_a_slow_answer_at_the_minimum_rate_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pace is counted in answer text per second over each minute: 2 bytes a second passes a
    minimum of 1; half a byte a second does not; 0 turns the minimum off."""
    now = [0.0]
    monkeypatch.setattr(transport, "clock", lambda: now[0])
    for rate, minimum, stalls in ((2.0, 1.0, False), (0.5, 1.0, True), (0.01, 0.0, False)):
        attempt = transport.Attempt(None, idle=1000.0, min_rate=minimum)
        stalled, owed = False, 1.0
        for _ in range(600):  # ten minutes, a look a second
            now[0] += 1.0
            while owed >= 1:  # `rate` bytes a second, a whole byte at a time
                attempt.text("x")
                owed -= 1
            owed += rate
            try:
                attempt.check()
            except transport.Transient:
                stalled = True
                break
        assert stalled == stalls, (rate, minimum)


def test_the_pace_settings_are_checked(project: Project, cli) -> None:
    for name, value in (("STREAM_IDLE_TIMEOUT", "0"), ("STREAM_MIN_RATE", "-1"), ("STREAM_MIN_RATE", "nan")):
        result = cli("config", env={f"CODE_COMMIT_{name}": value})
        assert result.exit_code == 2 and name.lower() in result.stderr, (name, value)


def test_a_model_that_thinks_before_it_answers_is_not_stalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thinking is output too: ten minutes of it, and no answer text yet, is no stall."""
    now = [0.0]
    monkeypatch.setattr(transport, "clock", lambda: now[0])
    attempt = transport.Attempt(None, idle=300.0, min_rate=1.0)
    for _ in range(600):
        now[0] += 1.0
        attempt.thinking("hmm, ")
        attempt.check()
    now[0] += 301.0
    with pytest.raises(transport.Transient, match="stream stalled"):
        attempt.check()
