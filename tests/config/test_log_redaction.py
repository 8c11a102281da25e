"""The key never shows in log records: a filter censors every record as it is made, whichever logger
makes it and whichever handler prints it, the SDK's own debug logging included."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

from code_commit.config.redaction import Redactor, redacted_logging

from fakeapi import FakeAPI
from support import TEST_KEY, Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
CENSORED = "********" + TEST_KEY[-2:]


def test_the_sdk_debug_log_never_shows_the_key(project: Project) -> None:
    # ANTHROPIC_LOG is read when the SDK is imported, so this needs a process of its own. The service
    # echoes the key in a response header, which the SDK's debug log prints.
    with FakeAPI() as api:
        api.status(429, headers={"x-echo-key": TEST_KEY, "retry-after-ms": "1"})
        api.reply(FIX)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CODE_COMMIT_", "OPENAI_"))}
        env |= {"ANTHROPIC_LOG": "debug", "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": TEST_KEY}
        done = subprocess.run(
            [sys.executable, "-m", "code_commit"], cwd=project.root, env=env, capture_output=True, text=True, timeout=60
        )

    assert done.returncode == 0, done.stderr
    assert len(api.requests) == 2
    assert "anthropic._base_client" in done.stderr and "DEBUG" in done.stderr, "the SDK's debug log is on"
    assert f"'x-echo-key': '{CENSORED}'" in done.stderr, "the echoed header was logged, censored"
    assert TEST_KEY not in done.stderr + done.stdout
    # The SDK's debug log prints each request's extra headers: the key must never be one of them.
    options = [line for line in done.stderr.splitlines() if "Request options" in line]
    assert len(options) == 2
    assert not any("authorization" in line.lower() or "x-api-key" in line.lower() for line in options)


def test_every_record_is_censored_its_traceback_too() -> None:
    secret = "sk-ant-SECRET-value-0123456789"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger = logging.getLogger("code_commit.test.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with redacted_logging(Redactor.of([secret])):
            logger.warning("the key is %s", secret)
            try:
                raise ValueError(f"bad key {secret}")
            except ValueError:
                logger.exception("failed")
            logger.warning("stack", stack_info=True, extra={"unused": secret})
        logger.warning("after: %s", "sk-not-censored-anymore")
    finally:
        logger.removeHandler(handler)
    text = out.getvalue()
    assert secret not in text
    assert "the key is ********89" in text
    assert "ValueError: bad key ********89" in text
    assert "after: sk-not-censored-anymore" in text, "the factory is put back when the run ends"
