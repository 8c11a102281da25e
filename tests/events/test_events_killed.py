"""A killed run's stream is whole lines up to its last: each line is written with one write, never
buffered. Real processes (`python -m code_commit`), stopped in the middle of a build that waits on a
FIFO the test holds shut, so the moment is the test's, not a timer's."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from event_lines import read, types
from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


@pytest.fixture
def blocked(project: Project, api: FakeAPI, tmp_path: Path):
    """A run whose judged build has started and waits on a FIFO no one opens; its build's pid."""
    gate, started = tmp_path / "gate", tmp_path / "build.pid"
    os.mkfifo(gate)
    # The baseline fails at once (no fixed.txt); the build after the answer waits on the gate.
    project.build_script(f"test -f fixed.txt || exit 1\necho $$ > {started}\nread line < {gate}\n")
    project.commit_all()
    api.reply(FIX)
    stream = tmp_path / "events.jsonl"
    # --sandbox off: the sandbox's /tmp is its own, and the test's FIFO is in the host's.
    process = subprocess.Popen(
        [sys.executable, "-m", "code_commit", "--json", "--sandbox", "off", "--events", str(stream)],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60  # a liveness bound, not a timing claim
        while not (started.exists() and started.read_text().strip()):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.02)
        build = int(started.read_text())
        yield process, stream, build
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(build, signal.SIGKILL)  # a killed run cannot end its build's group itself


def test_sigkill_in_the_middle_of_a_build_leaves_whole_valid_lines(blocked) -> None:
    process, stream, _ = blocked
    process.kill()
    process.wait()
    events = read(stream)  # every line ends in a newline, parses and is valid
    assert types(events)[-3:] == ["call_end", "answer_applied", "build_start"]
    assert events[-1]["build"] == "verdict" and "end" not in types(events)


def test_sigterm_in_the_middle_of_a_build_ends_the_stream_with_the_record_s_outcome(blocked) -> None:
    process, stream, _ = blocked
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == EXIT.INTERRUPTED == 130, stderr
    record = json.loads(stdout)
    events = read(stream)
    assert types(events)[-2:] == ["build_start", "end"], "a stopped build has no build_end"
    end = events[-1]
    assert (end["outcome"], end["exit_code"], end["log_dir"]) == ("interrupted", 130, record["log_dir"])
    assert (end["outcome"], end["exit_code"]) == (record["outcome"], record["exit_code"])
