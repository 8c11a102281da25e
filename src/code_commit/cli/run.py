"""`code-commit` itself, a run: the setup checked, then the loop (run/loop.py), its proposal and record
printed. Imported only when a run is the command (cli/app.py's COMMANDS)."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from code_commit.cli.endings import report_error
from code_commit.config.settings import Flags, load_settings
from code_commit.console.output import to_stdout
from code_commit.console.printable import visible_lines
from code_commit.console.terminal import require_terminal
from code_commit.errors import SetupError
from code_commit.events.kinds import Observer, ignore
from code_commit.llm.endpoint import resolve_endpoint
from code_commit.run import signals, workspace
from code_commit.run.record import RunRecord


def new_record(dry_run: bool) -> RunRecord:
    """The record of a run, before anything is known: what a setup error reports too, with --json."""
    return RunRecord("run", dry_run=dry_run)


def command(
    console: Any,
    root: Path,
    found: str | None,
    flags: Flags,
    dry_run: bool,
    revert_on_failure: bool,
    json_output: bool,
    *,
    observe: Observer = ignore,
    ran: Callable[[RunRecord], None] = lambda record: None,
) -> int:
    """A run from `root` (`found`: the line that says why it is the root, when it is not the current
    folder): its exit code, its proposal on stdout (--dry-run), its record (--json). `observe`: the
    --events stream's; `ran` is given the run's own record, once it has one."""
    loaded = load_settings(root, flags=flags)
    settings = loaded.settings
    if dry_run:  # a dry run writes nothing, so there is nothing to review, whatever the config says
        settings = dataclasses.replace(settings, review=False)
    if settings.review:
        require_terminal(loaded.sources["review"])
    limit = signals.TimeLimit.of(settings)
    with signals.watch(limit):  # the run's time limit covers reading its setup files too
        try:
            inputs, key = workspace.check_setup(root, settings, os.environ)
        except SetupError as exc:
            if found:  # inputs missing in a folder the user did not name: say which
                raise SetupError(f"{exc}\n({found})") from None
            raise
        endpoint = resolve_endpoint(
            settings.provider, settings.base_url, loaded.sources["base_url"], os.environ, settings
        )

        from code_commit.run.loop import RunOptions, execute  # imported only once the setup is known to be good

        options = RunOptions(dry_run, revert_on_failure)
        record = execute(inputs, key, settings, console, limit, options, endpoint=endpoint, observe=observe)
        ran(record)
    if record.error is not None:
        report_error(console, record.error)
    if record.diff is not None and not json_output:
        _print_proposal(record.diff, record.patch)
    if record.log_dir is not None:
        console.info(f"logs: {record.log_dir}")
    if json_output:
        to_stdout(console.redact(record.to_json()))
    return record.exit_code


def _print_proposal(diff: str, patch: Path | None) -> None:
    """The --dry-run proposal on stdout. For a program (a pipe, a file) the exact patch, byte for
    byte, as git apply takes it; on a terminal, the diff for reading, escape sequences made visible."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty or patch is None:
        to_stdout(visible_lines(diff) if tty else diff)
        return
    try:
        data = patch.read_bytes()
    except OSError:
        to_stdout(diff)
        return
    to_stdout(data)
