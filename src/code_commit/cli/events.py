"""`--events FILE|-`: the option of the commands that run the loop or a build (a run, `demo`, `apply`,
`check`), its checks, and its stream around the command: opened by the command's action before
anything is sent or built, handed to the run as its observer, and ended with the record's outcome
by the command's last line of defence (`app._guarded`), however the command ends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from code_commit.errors import Ending

if TYPE_CHECKING:
    from code_commit.console.output import Console
    from code_commit.events.kinds import Observer
    from code_commit.events.writer import EventWriter
    from code_commit.run.record import RunRecord

_STDOUT = "-"  # as events.writer.STDOUT, which start-up does not import

OPTION = typer.Option(
    "--events",
    metavar="FILE|-",
    help="Write what happens as it happens to FILE (- for standard output), one JSON object a line: "
    "calls, answers, builds and the end (docs/events.md). FILE must be outside the project.",
)


def stdout_taken(target: str | None, command: str, why: str | None) -> str | None:
    """The usage error of `--events -` where the command writes something else to standard output."""
    if target != _STDOUT or why is None:
        return None
    return (
        f"--events - and {why} would both write to standard output, so nothing was done; "
        f"give --events a file: code-commit {command + ' ' if command else ''}--events FILE"
    )


@dataclass
class Events:
    """One command's --events stream: the target given, and once opened, the writer."""

    target: str | None
    record: Callable[[], RunRecord]  # the command's record as it stands: the end event's values
    writer: EventWriter | None = None

    def open(self, root: Path | None, console: Console) -> Observer:
        """The observer for the run: the stream opened (a SetupError, exit 2, when it cannot be), or
        one that ignores every event when no --events was given."""
        from code_commit.events.kinds import ignore

        if self.target is None:
            return ignore
        from code_commit.events.writer import open_events

        self.writer = open_events(self.target, root, console)
        return self.writer

    def end(self, error: Ending | None, duration: float) -> None:
        """The end event, with the record's outcome and exit code (`error`: what ended the command,
        if anything did), then the stream closed. Once; nothing when the stream was never opened."""
        writer, self.writer = self.writer, None
        if writer is None:
            return
        from code_commit.events.kinds import End

        record = self.record() if error is None else self.record().ended_by(error, duration)
        try:
            log_dir = None if record.log_dir is None else str(record.log_dir)
            writer(End(record.outcome, record.exit_code, record.duration_s, log_dir))
        finally:
            writer.close()
