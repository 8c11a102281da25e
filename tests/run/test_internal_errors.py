"""The last line of defence: an exception nothing expected (a bug, a full disk) ends any command with
exit 9, a one-line message and, for a run, its JSON record and the traceback in the run folder:
never a traceback and exit 1, which reads as "the build still fails"."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from code_commit import errors, exits
from code_commit.logs.run_log import RunLog
from code_commit.run import loop as run_module
from code_commit.run import orchestrator

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git
from support.record import valid_record

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
DISK_FULL = OSError(errno.ENOSPC, f"No space left on device (near {TEST_KEY})")


def one_line_error(stderr: str) -> str:
    (line,) = [line for line in stderr.splitlines() if "error: " in line]
    return line


def test_internal_error_has_its_own_exit_code_and_help() -> None:
    assert errors.EXIT_CODES[errors.InternalError] == 9 and list(errors.EXIT_CODES.values()).count(9) == 1
    assert "  9    internal error" in exits.help_text()


def test_an_unexpected_exception_in_a_run_exits_9_with_its_record_and_traceback(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: object, **kwargs: object) -> None:
        raise DISK_FULL

    monkeypatch.setattr(orchestrator, "checked_build", full_disk)
    api.reply(FIX)
    result = cli("--json", "--revert-on-failure", "--tests", "free")  # free: no baseline build before the answer
    assert result.exit_code == 9
    data = json.loads(result.stdout)
    assert data["outcome"] == "internal_error" and data["exit_code"] == 9
    assert data["error"].startswith("internal error: OSError: [Errno 28] No space left on device")
    assert "a full disk, permissions" in data["error"] and "\n" not in data["error"]
    run = Path(data["log_dir"])
    assert valid_record((run / "summary.json").read_text()) == data, "summary.json says the same"
    traceback = (run / "traceback.txt").read_text()
    assert traceback.startswith("Traceback (most recent call last):") and "full_disk" in traceback
    assert f"the traceback is in {run / 'traceback.txt'}" in data["error"]
    assert data["reverted"] is True and not (project.root / "fixed.txt").exists(), "the ending still ran"
    assert "Traceback" not in result.stderr and one_line_error(result.stderr).endswith(data["error"])
    assert "internal error" in (run / "run.log").read_text()
    for text in (result.stdout, result.stderr, traceback):
        assert TEST_KEY not in text, "redacted"


def test_a_record_that_cannot_be_written_is_an_internal_error(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = RunLog.write_file

    def write_file(self: RunLog, name: str, text: str) -> Path:
        if name == "summary.json":
            raise DISK_FULL
        return real(self, name, text)

    monkeypatch.setattr(RunLog, "write_file", write_file)
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 9, "the build passed, but the run's record is lost: not a clean pass"
    data = json.loads(result.stdout)
    assert data["outcome"] == "internal_error" and data["last_build"]["exit_code"] == 0
    assert not (Path(data["log_dir"]) / "summary.json").exists()


def test_before_the_run_folder_the_traceback_is_shown_with_verbose(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(run_module, "load_catalog", broken)
    result = cli("--json")
    assert result.exit_code == 9
    data = json.loads(result.stdout)
    assert data["outcome"] == "internal_error" and data["log_dir"] is None
    assert "internal error: RuntimeError: a bug" in data["error"] and "run with -v" in data["error"]
    assert "Traceback" not in result.stderr
    verbose = cli("-v")
    assert verbose.exit_code == 9 and "  Traceback (most recent call last):" in verbose.stderr
    assert project.run_dirs() == [] and len(api.requests) == 0


@pytest.mark.parametrize(
    ("args", "target"),
    [
        (["recover"], "code_commit.apply.journal.recover"),
        (["init"], "code_commit.cli.scaffold.guess_build"),
        (["config"], "code_commit.cli.config_report.report"),
        (["rollup"], "code_commit.rollup.writing.command"),
    ],
)
def test_every_command_ends_an_unexpected_exception_with_exit_9(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, args: list[str], target: str
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", "somewhere")

    monkeypatch.setattr(target, broken)
    (project.root / "build.sh").unlink()  # so that init gets as far as guessing it
    result = cli(*args)
    assert result.exit_code == 9
    assert "internal error: PermissionError: [Errno 13] Permission denied: 'somewhere'" in result.stderr
    assert "Traceback" not in result.stderr


def test_apply_keeps_the_traceback_in_its_run_folder(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(*args: object, **kwargs: object) -> None:
        raise DISK_FULL

    monkeypatch.setattr("code_commit.run.orchestrator.apply_plan", full_disk)
    result = cli("apply", "-", input=FIX)
    assert result.exit_code == 9
    (run,) = project.run_dirs()
    assert "full_disk" in (run / "traceback.txt").read_text()
    assert f"the traceback is in {run / 'traceback.txt'}" in result.stderr
    assert git(project.root, "status", "--porcelain") == ""


def test_a_crash_in_the_process_is_exit_9_and_one_line(project: Project) -> None:
    """Through the real entry point, as cron sees it: no traceback, not exit 1."""
    probe = (
        "import sys\n"
        "import code_commit.run.workspace as w\n"
        "def broken(*a, **k): raise MemoryError('out of memory')\n"
        "w.check_setup = broken\n"
        "from code_commit.cli.app import main\n"
        "sys.argv = ['code-commit', '--json']\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=project.root, capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    assert "Traceback" not in done.stderr
    assert valid_record(done.stdout)["outcome"] == "internal_error"


@pytest.mark.parametrize("command", [["--json"], ["apply", "--json", "-"]])
def test_a_reader_that_went_away_does_not_change_the_exit_code(project: Project, command: list[str]) -> None:
    """`code-commit --json | head -c 0` in a script: the exit code still says how it ended (here a
    setup error, 2; click would make a broken pipe exit 1, "the build still fails")."""
    (project.root / ".gitignore").unlink()
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "code_commit", *command],
            cwd=project.root,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 2, done.stderr
    assert ".gitignore is missing" in done.stderr and "Traceback" not in done.stderr
