"""The fork server the terminal tests run code-commit from (tests/terminal.py): a forked run is what
a spawned one is, it refuses what it could not stand for, and it leaves nothing behind."""

from __future__ import annotations

import os
import select
from pathlib import Path

import pexpect
import pytest

from code_commit.exits import EXIT

from support import Project
from terminal import GUARD, ForkServer, Spawner, spawn_process


def test_a_forked_run_draws_what_a_spawned_one_draws(tmp_path: Path, terminal: Spawner) -> None:
    """--help wraps at the terminal's width and names the program as `python -m` started it."""
    env = dict(os.environ)  # without COLUMNS and LINES, which xdist sets (conftest removes them)
    drawn = []
    for spawn in (spawn_process, terminal):
        child = spawn(["--help"], env=env, cwd=tmp_path, dimensions=(20, 50), encoding="utf-8")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        drawn.append(child.before)
    assert drawn[0] == drawn[1]
    assert drawn[0].startswith("Usage: python -m code_commit [OPTIONS] COMMAND")
    usage_and_summary = drawn[0].split("\r\n\r\n")[:2]  # the paragraphs click wraps (not the exit codes' table)
    assert all(len(line) <= 50 for text in usage_and_summary for line in text.splitlines())


def test_what_the_imports_read_is_recorded_and_a_request_that_differs_there_is_refused(
    fork_server: ForkServer, terminal: Spawner
) -> None:
    """The SDK sets its logging up from ANTHROPIC_LOG as it is imported: a child forked from the server
    would log as the server's environment said, whatever its own says."""
    assert "ANTHROPIC_LOG" in fork_server.read_at_import
    with pytest.raises(RuntimeError, match="ANTHROPIC_LOG: read as the interpreter starts or as the preloaded"):
        terminal(["--version"], env={**os.environ, "ANTHROPIC_LOG": "debug"})
    other_seed = str(int(os.environ.get("PYTHONHASHSEED", "0")) + 1)
    with pytest.raises(RuntimeError, match="PYTHONHASHSEED"):
        terminal(["--version"], env={**os.environ, "PYTHONHASHSEED": other_seed})


def test_a_run_leaves_no_process_and_no_fd(terminal: Spawner) -> None:
    before = sorted(os.listdir("/proc/self/fd"))
    child = terminal(["--version"], env=dict(os.environ), encoding="utf-8")
    child.expect_exact("code-commit ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and child.signalstatus is None
    assert sorted(os.listdir("/proc/self/fd")) == before
    with pytest.raises(ProcessLookupError):  # reaped: not even a zombie
        os.kill(child.pid, 0)


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def test_the_session_s_workers_share_one_server_and_one_that_leaves_ends_only_its_own_runs(
    session_folder: Path, terminal: Spawner, project: Project
) -> None:
    other = ForkServer(session_folder)  # as another xdist worker connects
    try:
        theirs = other.spawn(["apply", "-"], env=dict(os.environ), cwd=project.root, encoding="utf-8")
        ours = terminal(["apply", "-"], env=dict(os.environ), cwd=project.root, encoding="utf-8")
        assert parent(theirs.pid) == parent(ours.pid), "one server"
        ended = os.pidfd_open(theirs.pid)
    finally:
        other.close()
    try:
        assert select.select([ended], [], [], GUARD)[0], "the run of a worker that left was ended"
    finally:
        os.close(ended)
    assert ours.isalive(), "another worker leaving ends its own runs only"
    ours.sendeof()
    ours.expect(pexpect.EOF)
    ours.close()
    assert ours.exitstatus == EXIT.REFUSED, "apply read the empty answer from the terminal, and refused it"
