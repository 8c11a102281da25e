"""The `--events` file: each event one line of JSON, written whole with one write and no buffer, so
a run killed at any point leaves a file of whole lines (docs/events.md).

Every string in an event is censored first (the console's redactor: the run's, once it knows its
secrets), and `json.dumps` escapes every control character and everything past ASCII: a path or a
reason holding a newline, a NUL or an escape sequence stays inside its string, and no text can start
a line of its own. A write that fails (a full disk, a reader that went away) is said once on the
console and ends the stream, never the run: the record still says how it ended.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from code_commit.console.output import Console
from code_commit.errors import SetupError
from code_commit.events.kinds import Event
from code_commit.schemas import SCHEMA_VERSION, to_the_millisecond

_STDOUT = "-"
# Held back while a line is written, so that a stop's handler (run/signals.py) cannot raise between
# two parts of one line; they are delivered as soon as it is whole.
_HELD = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGALRM})


def open_events(target: str, root: Path | None, console: Console) -> EventWriter:
    """The stream to `target` (a file, made or emptied; `-`: standard output), or a SetupError saying
    why it cannot be. A file in the project (`root`) is refused: a build (the model's code) may write
    there and could forge lines, git status would show it and the next rollup send it to the model;
    and agent-config/, which builds cannot see, is what the tamper check fingerprints around each build."""
    if target == _STDOUT:
        return EventWriter(sys.stdout.buffer, "standard output", console, owned=False)
    path = Path(os.path.realpath(Path.cwd() / target))
    if root is not None and path.is_relative_to(os.path.realpath(root)):
        raise SetupError(
            f"--events {target}: the file would be in the project, where a build may write it, git status "
            "shows it and the next rollup would send it to the model, so nothing was done; give a path outside "
            "the project"
        )
    try:
        # O_NONBLOCK: a FIFO with no reader is an error now, not a wait for ever.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        why = "a FIFO no process reads" if exc.errno == errno.ENXIO else exc.strerror or str(exc)
        raise SetupError(f"--events {target}: the events file cannot be opened: {why}") from None
    os.set_blocking(fd, True)
    return EventWriter(open(fd, "wb", buffering=0), str(path), console)


@dataclass
class EventWriter:
    """The stream: an `Observer` (call it with each event), numbering the lines from 1."""

    out: BinaryIO  # unbuffered, or flushed after each line
    name: str
    console: Console  # its redactor censors; its warning says a write failed
    owned: bool = True  # the file is this stream's to close (standard output is not)
    seq: int = 0
    broken: bool = False

    def __call__(self, event: Event) -> None:
        if self.broken:
            return
        self.seq += 1
        line = {
            "schema_version": SCHEMA_VERSION,
            "type": event.type,
            "seq": self.seq,
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            **_censored(dataclasses.asdict(event), self.console),
        }
        data = (json.dumps(line, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")
        try:
            with _held():
                _write_all(self.out, data)
        except OSError as exc:
            self.broken = True
            self.console.warn(
                f"the events stream ({self.name}) could not be written ({exc.strerror or exc}): no more events go "
                "to it; the run goes on, and its record says how it ended"
            )

    def close(self) -> None:
        self.broken = True
        if self.owned:
            self.out.close()


def _censored(value: Any, console: Console) -> Any:
    """Every string censored; durations to the millisecond, as the record has them."""
    if isinstance(value, str):
        return console.redact(value)
    if isinstance(value, dict):
        return {key: _censored(to_the_millisecond(key, item), console) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_censored(item, console) for item in value]
    return value


def _write_all(out: BinaryIO, data: bytes) -> None:
    """All of `data`, then flushed: a raw file may take a write in parts."""
    view = memoryview(data)
    while view:
        view = view[out.write(view) or 0 :]
    out.flush()


@contextmanager
def _held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGALRM held back (this thread) while the block runs."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
