"""Setup files are read only if they are regular files: a FIFO (or a device, a socket) where the
query, the rollup, config.toml, a key file or .gitignore should be ends the run at once with a
setup error naming it, instead of blocking in open() forever, before any timer could help.

Each case runs code-commit as its own process: a regression would block the process, and only a
process can be given up on. The subprocess timeout is a guard against hanging the suite, not the
assertion: a run that ends promptly ends in well under a second."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from support import TEST_KEY, Project

GUARD_SECONDS = 60


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("agent-config/query.txt", "agent-config/query.txt is a special file (a pipe, socket or device)"),
        ("agent-config/codeRollup.txt", "agent-config/codeRollup.txt is a special file (a pipe, socket or device)"),
        (".gitignore", ".gitignore is a special file (a pipe, socket or device)"),
        ("agent-config/config.toml", "cannot read the settings file"),
        ("agent-config/anthropic-api-key", "cannot read the key file"),
    ],
)
def test_a_fifo_in_place_of_a_setup_file_ends_the_run_with_a_clear_error(
    project: Project, name: str, fragment: str
) -> None:
    target = project.root / name
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODE_COMMIT_"))}
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens: no call could succeed anyway
    if not name.endswith("api-key"):
        env["ANTHROPIC_API_KEY"] = TEST_KEY

    try:
        done = subprocess.run(
            [sys.executable, "-m", "code_commit", "--timeout", "5"],
            cwd=project.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"code-commit blocked on the FIFO at {name}")

    assert done.returncode == 2, done.stderr
    assert fragment in done.stderr
    assert name in done.stderr
    assert project.run_dirs() == []


def test_the_run_s_timer_is_running_while_the_setup_files_are_read(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from code_commit.errors import SetupError
    from code_commit.run import workspace

    remaining: list[float] = []

    def check_setup(*args: object, **kwargs: object) -> None:
        remaining.append(signal.getitimer(signal.ITIMER_REAL)[0])
        raise SetupError("stop here")

    monkeypatch.setattr(workspace, "check_setup", check_setup)

    result = cli("--timeout", "300")

    assert result.exit_code == 2
    assert remaining and 0 < remaining[0] <= 300
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0, "and it is stopped when the command ends"


def test_a_watch_inside_a_watch_keeps_the_outer_time_limit() -> None:
    from code_commit.run import signals

    with signals.watch(signals.TimeLimit(300, "--timeout")):
        with signals.watch(signals.TimeLimit(100, "--timeout")):
            pass
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 100, "the inner watch neither reset nor cancelled it"
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_init_with_a_fifo_as_gitignore_ends_with_a_clear_error(tmp_path) -> None:
    os.mkfifo(tmp_path / ".gitignore")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "code_commit", "init"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("code-commit init blocked on the FIFO at .gitignore")

    assert done.returncode == 2, done.stderr
    assert ".gitignore cannot be used" in done.stderr and "not a regular file" in done.stderr


# Runs code-commit with its address space capped: a setup file read whole would fail the run with a
# MemoryError (exit 9), or take the machine; the cap is what the test holds it to, not the clock.
UNDER_A_GIB = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'code_commit', *sys.argv[1:]])\n"
)


@pytest.mark.parametrize(
    ("name", "size", "fragment"),
    [
        ("agent-config/codeRollup.txt", 4 << 30, "it is 4.0 GiB, more than the 32.0 MiB code-commit reads of it"),
        ("agent-config/query.txt", 4 << 30, "it is 4.0 GiB, more than the 32.0 MiB code-commit reads of it"),
        ("agent-config/config.toml", 2 << 30, "it is 2.0 GiB, more than the 1.0 MiB code-commit reads of it"),
        ("agent-config/anthropic-api-key", 1 << 30, "it is 1.0 GiB, more than the 64.0 KiB code-commit reads of it"),
    ],
)
def test_a_huge_sparse_setup_file_is_refused_by_its_size_before_a_byte_is_read(
    project: Project, name: str, size: int, fragment: str
) -> None:
    """A sparse 4 GiB codeRollup.txt was read whole (12.6 GB of memory) before "prompt too long"."""
    with open(project.root / name, "wb") as fh:
        fh.truncate(size)  # sparse: no disk, and nothing to read unless someone reads it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODE_COMMIT_"))}
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
    if not name.endswith("api-key"):
        env["ANTHROPIC_API_KEY"] = TEST_KEY

    done = subprocess.run(
        [sys.executable, "-c", UNDER_A_GIB, "--timeout", "5"],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
    )

    assert done.returncode == 2, done.stderr
    assert fragment in done.stderr and name.split("/")[-1] in done.stderr
    assert project.run_dirs() == []
