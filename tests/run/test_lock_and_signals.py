"""One run per project, and SIGTERM, across real processes: `python -m code_commit` subprocesses.

Kept few: a run that reaches the model imports the SDK (over a second per process).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from code_commit.errors import LockHeld
from code_commit.run.lock import ProjectLock

from fakeapi import FakeAPI
from support import Project
from support.record import valid_record

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def wait_for(path: Path) -> int:
    """The pid a helper process wrote to `path` (a generous liveness bound, not a timing claim)."""
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return int(path.read_text())


def is_dead(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X") or time.monotonic() > deadline:
            return state in ("Z", "X")
        time.sleep(0.01)


def code_commit(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "code_commit", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_run_exits_4_and_sigterm_ends_the_first_cleanly(project: Project, api: FakeAPI, tmp_path) -> None:
    build_pid, child_pid = tmp_path / "build.pid", tmp_path / "child.pid"
    project.build_script(
        f"test -f fixed.txt || exit 1\nsh -c 'echo $$ > {child_pid}; exec sleep 600' &\n"
        f"echo $$ > {build_pid}\nsleep 600\n"
    )
    api.reply(FIX)
    first = code_commit(project.root, "--json", "--sandbox", "off")  # the build writes pids outside the project
    try:
        builder, child = wait_for(build_pid), wait_for(child_pid)

        second = subprocess.run(
            [sys.executable, "-m", "code_commit", "--json"], cwd=project.root, capture_output=True, text=True
        )
        assert second.returncode == 4
        assert f"pid {first.pid}, started 20" in second.stderr and "--wait-lock" in second.stderr
        refused = valid_record(second.stdout)
        assert refused["outcome"] == "lock_held" and refused["log_dir"] is None
        assert len(api.requests) == 1, "the second run sent nothing"

        first.send_signal(signal.SIGTERM)
        stdout, stderr = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, stderr
    assert "interrupted by SIGTERM" in stderr
    assert is_dead(builder) and is_dead(child), "the build's process group was killed"
    data = valid_record(stdout)  # what SIGTERM to a real process prints keeps the schema
    assert data["outcome"] == "interrupted" and data["exit_code"] == 130 and data["files_changed"] == ["fixed.txt"]
    assert valid_record((Path(data["log_dir"]) / "summary.json").read_text()) == data
    assert "build.sh was stopped: interrupted by SIGTERM" in (Path(data["log_dir"]) / "01-build.txt").read_text()
    assert project.read("fixed.txt") == "fixed\n", "the applied answer stays whole"
    ProjectLock.take(project.root / "agent-config").release()  # the lock went with the process


def test_the_lock_is_released_when_its_holder_is_killed(project: Project) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from pathlib import Path; from code_commit.run.lock import ProjectLock\n"
            "lock = ProjectLock.take(Path('agent-config')); print('locked', flush=True); time.sleep(600)",
        ],
        cwd=project.root,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(LockHeld, match=f"pid {holder.pid}, started "):
            ProjectLock.take(project.root / "agent-config")
    finally:
        holder.kill()  # SIGKILL: no cleanup code runs in the holder
        holder.wait()
    ProjectLock.take(project.root / "agent-config").release()


def test_wait_lock_waits_for_the_holder(project: Project, api: FakeAPI, cli) -> None:
    lock = ProjectLock.take(project.root / "agent-config")
    try:
        result = cli()
        assert result.exit_code == 4 and f"pid {os.getpid()}" in result.stderr
        result = cli("--wait-lock", "0.3")
        assert result.exit_code == 4 and "after waiting 0.3 s" in result.stderr
        assert api.requests == []
        threading.Timer(0.3, lock.release).start()
        api.reply(FIX)
        result = cli("--wait-lock", "60")
    finally:
        lock.release()
    assert result.exit_code == 0, result.stderr
    assert f"waiting up to 60 s for the lock held by pid {os.getpid()}" in result.stderr


def test_sigterm_while_waiting_for_the_lock_exits_130_with_a_record(project: Project, cli) -> None:
    lock = ProjectLock.take(project.root / "agent-config")
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
    try:
        result = cli("--wait-lock", "60", "--json", env={"ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789"})
    finally:
        lock.release()
    assert result.exit_code == 130
    data = json.loads(result.stdout)
    assert data["outcome"] == "interrupted" and data["log_dir"] is None
    assert project.run_dirs() == []
