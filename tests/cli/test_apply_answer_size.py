"""`code-commit apply` reads a model's answer too, and an answer is bounded wherever it comes from:
past max_answer_bytes (as a run counts it) nothing more is read and the answer is refused, so
`some-agent | code-commit apply -` cannot grow memory without end."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path

from support import Project

CAP = 10_000
ANSWER = "^^^fixed.txt\nfixed\n^^^end\n"


def _feed(fifo: Path, size: int, written: list[int]) -> None:
    """Write `size` bytes of prose into the FIFO until its reader goes away; count what was taken."""
    with contextlib.suppress(BrokenPipeError), open(fifo, "wb", buffering=0) as fh:
        chunk = b"x" * 65536
        while written[0] < size:
            written[0] += fh.write(chunk)


def test_an_answer_past_max_answer_bytes_is_refused_and_not_read_further(project: Project, cli, tmp_path) -> None:
    fifo = tmp_path / "answer"
    os.mkfifo(fifo)
    written = [0]
    writer = threading.Thread(target=_feed, args=(fifo, 50 << 20, written))
    writer.start()
    try:
        result = cli("apply", "--json", str(fifo), env={"CODE_COMMIT_MAX_ANSWER_BYTES": str(CAP)})
    finally:
        with contextlib.suppress(OSError):  # a reader that never opened it: let the writer go
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join()
    assert result.exit_code == 7, result.output
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "too_large"
    assert "max_answer_bytes" in problem["message"]
    assert written[0] < CAP + (1 << 20), "reading stops near the cap"


def test_an_answer_at_the_cap_is_read(project: Project, cli) -> None:
    answer = ANSWER + "x" * (CAP - len(ANSWER))
    result = cli("apply", "--check", "-", input=answer, env={"CODE_COMMIT_MAX_ANSWER_BYTES": str(CAP)})
    assert "too_large" not in result.stdout and "max_answer_bytes" not in result.stdout, result.stdout


def test_the_time_limit_runs_while_the_answer_is_read(project: Project, cli, monkeypatch) -> None:
    import signal

    from code_commit.cli import apply as apply_command

    remaining: list[float] = []
    read = apply_command._read_answer

    def reading(source: str, cap: int) -> str:
        remaining.append(signal.getitimer(signal.ITIMER_REAL)[0])
        return read(source, cap)

    monkeypatch.setattr(apply_command, "_read_answer", reading)
    for command in (["apply", "--check", "-"], ["apply", "-"]):
        result = cli("--timeout", "300", *command, input=ANSWER)
        assert result.exit_code == 0, result.output
    assert len(remaining) == 2 and all(0 < left <= 300 for left in remaining), remaining
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0, "and it is stopped when the command ends"
