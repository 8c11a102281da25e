"""The project's lock: one run (or apply, or recover) at a time per project, an flock on
agent-config/code-commit.lock that names its holder."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR, LOCK_FILE
from code_commit.errors import LockHeld, SetupError

_LOCK_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class _LockHolder:
    pid: int | None
    started: str | None  # UTC, ISO 8601

    def describe(self) -> str:
        if self.pid is None:
            return "a run that has not recorded itself yet"
        return f"pid {self.pid}, started {self.started or 'at an unknown time'}"


class ProjectLock:
    """One run per project: an flock on agent-config/code-commit.lock.

    The kernel releases an flock when its process dies, however it dies, so a crashed run never
    leaves a stale lock to clean up. The file itself stays (unlinking a lock file lets two runs
    lock two different files); it records the holder's pid and start time for the message a
    second run gives. Its descriptor is not inherited (Python's default), so a build child that
    outlives a run cannot keep the lock.
    """

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    @classmethod
    def take(cls, config_dir: Path, wait: float = 0.0, on_wait: Callable[[str], None] | None = None) -> ProjectLock:
        """Take the lock, waiting up to `wait` seconds; raise LockHeld naming the holder if it stays taken.
        `on_wait` is told once, in words, that the lock is taken and by whom, when the waiting begins."""
        path = config_dir / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise SetupError(f"cannot open the lock file {path}: {exc.strerror}") from exc
        deadline = time.monotonic() + wait
        told = False
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    holder = _read_holder(path)
                    if time.monotonic() >= deadline:
                        waited = f" after waiting {wait:g} s" if wait else ""
                        raise LockHeld(
                            f"another code-commit run holds this project's lock{waited}: {holder.describe()} "
                            f"({CONFIG_DIR}/{LOCK_FILE}). Wait for it to end, or pass --wait-lock SECONDS."
                        ) from None
                    if on_wait and not told:
                        on_wait(f"waiting up to {wait:g} s for the lock held by {holder.describe()}")
                        told = True
                    time.sleep(min(_LOCK_POLL_SECONDS, max(deadline - time.monotonic(), 0.0)))
        except BaseException:
            os.close(fd)
            raise
        import json  # here, not at start-up: a setup error never needs it

        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "started": started}).encode() + b"\n", 0)
        return cls(fd, path)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = -1

    def __enter__(self) -> ProjectLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(path: Path) -> _LockHolder:
    """Who holds the lock, as the holder recorded it (it may not have yet)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return _LockHolder(int(data["pid"]), str(data["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return _LockHolder(None, None)
