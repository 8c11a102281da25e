"""--events' bad inputs are usage errors (exit 2), said before anything is read, sent or built: a
stream that would share standard output with a report, a file that cannot be opened, a file in the
project. A stream that fails later (a full disk) is said once and never ends the run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from code_commit.exits import EXIT

from event_lines import read, types
from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--json", "--events", "-"], "--events - and --json"),
        (["--dry-run", "--events", "-"], "--events - and --dry-run's diff"),
        (["check", "--events", "-"], "--events - and check's report"),
        (["apply", "--events", "-", "answer.txt"], "--events - and apply's report"),
    ],
)
def test_events_to_stdout_beside_another_report_there_is_a_usage_error(
    project: Project, api: FakeAPI, cli, args: list[str], said: str
) -> None:
    project.write("answer.txt", FIX)
    result = cli(*args)
    assert result.exit_code == EXIT.SETUP
    assert said in result.stderr and "give --events a file" in result.stderr
    assert result.stdout == "" and not api.requests and not project.run_dirs()


def unopenable(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return {
        "missing folder": (tmp_path / "missing" / "events.jsonl", "No such file or directory"),
        "a folder": (tmp_path, "Is a directory"),
        "a FIFO nobody reads": (fifo, "a FIFO no process reads"),  # an error now, not a wait for ever
    }


@pytest.mark.parametrize("case", ["missing folder", "a folder", "a FIFO nobody reads"])
def test_an_events_file_that_cannot_be_opened_says_why_before_any_call(
    project: Project, api: FakeAPI, cli, tmp_path: Path, case: str
) -> None:
    path, why = unopenable(tmp_path)[case]
    api.reply(FIX)
    result = cli("--json", "--events", str(path))
    assert result.exit_code == EXIT.SETUP
    assert f"--events {path}: the events file cannot be opened: {why}" in result.stderr
    assert json.loads(result.stdout)["outcome"] == "setup_error"
    assert not api.requests and not project.run_dirs()


@pytest.mark.parametrize("where", ["events.jsonl", "agent-config/events.jsonl", "sub/../events.jsonl", "link"])
def test_an_events_file_in_the_project_is_refused(
    project: Project, api: FakeAPI, cli, tmp_path: Path, where: str
) -> None:
    """A build may write the project (and forge lines), git status shows it, the rollup would send it
    to the model, and agent-config/ is fingerprinted by the tamper check. A link out of the project
    that points back in counts as in it."""
    (tmp_path / "link").symlink_to(project.root / "events.jsonl")
    (project.root / "sub").mkdir()
    target = str(tmp_path / "link") if where == "link" else where
    result = cli("--events", target)
    assert result.exit_code == EXIT.SETUP
    assert "the file would be in the project" in result.stderr
    assert not (project.root / "events.jsonl").exists() and not (project.root / "agent-config/events.jsonl").exists()
    assert not api.requests


def test_events_before_a_subcommand_name_the_right_place(project: Project, cli, tmp_path: Path) -> None:
    result = cli("--events", str(tmp_path / "e.jsonl"), "check")
    assert result.exit_code == EXIT.SETUP
    assert "code-commit check --events FILE" in result.stderr


def test_a_stream_that_cannot_be_written_is_said_once_and_the_run_goes_on(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli("--json", "--events", "/dev/full")  # every write: ENOSPC
    assert result.exit_code == EXIT.OK
    assert json.loads(result.stdout)["outcome"] == "passed"
    assert result.stderr.count("the events stream (/dev/full) could not be written") == 1


def test_the_file_is_emptied_first(project: Project, api: FakeAPI, cli, tmp_path: Path) -> None:
    stream = tmp_path / "events.jsonl"
    stream.write_text("an earlier run's line, longer than what this run writes\n" * 1000)
    api.reply(FIX)
    assert cli("--events", str(stream)).exit_code == EXIT.OK
    assert types(read(stream))[0] == "run_start"
