"""Ending a run from outside: SIGINT, SIGTERM and the whole-run time limit (`--timeout`).

While `watch()` is active, those signals raise a `Stopped` (errors.py: `Interrupted` or
`RunTimeout`, no `Exception`, so nothing but the session catches it) in the main thread, wherever
it is blocked: waiting for the model, for build.sh (whose process group `runner.run_build` then
kills) or for the lock.

Code that must not be cut in half runs under `stops.shielded()`: a stop that arrives meanwhile
waits until the block is done.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

from code_commit.config.settings import Settings
from code_commit.errors import Interrupted, RunTimeout
from code_commit.stops import deliver, watched, watching

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class TimeLimit:
    """The run's time limit, computed once a command: timeout if set (0: none); unset, none at a
    terminal and unattended_timeout (0: none) without one, so a cron job or CI run cannot hang for ever."""

    seconds: float | None
    source: str  # the setting it comes from, for the message that it was reached
    unattended: bool = False  # it is unattended_timeout's, for want of a terminal

    @classmethod
    def of(cls, settings: Settings) -> TimeLimit:
        if settings.timeout is not None:
            return cls(settings.timeout or None, "--timeout")
        from code_commit.console.terminal import unattended

        if unattended() and settings.unattended_timeout:
            return cls(settings.unattended_timeout, "unattended_timeout: no terminal; --timeout 0 turns it off", True)
        return cls(None, "--timeout")

    def note(self) -> str | None:
        """What a run without a terminal is told of the limit it did not set."""
        if not self.unattended:
            return None
        return f"no terminal (cron, CI): the run's time limit is {self.seconds:g} s ({self.source})"


def _on_signal(limit: TimeLimit) -> Callable[[int, FrameType | None], None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGALRM:
            deliver(RunTimeout(f"the run's time limit of {limit.seconds:g} s was reached ({limit.source})"))
        else:
            deliver(Interrupted(f"interrupted by {signal.Signals(signum).name}"))

    return stop


@contextlib.contextmanager
def watch(limit: TimeLimit) -> Iterator[None]:
    """Turn SIGINT, SIGTERM and, after the limit's seconds, SIGALRM into a `Stopped` until the block ends."""
    # Signal handlers are main-thread only. Inside another watch, its timer already runs: the run's
    # limit counts from the outer one (the CLI starts it before it reads the setup files).
    if threading.current_thread() is not threading.main_thread() or watching():
        yield
        return
    handler = _on_signal(limit)
    previous = {sig: signal.signal(sig, handler) for sig in (*_SIGNALS, signal.SIGALRM)}
    try:
        with watched():
            if limit.seconds is not None:
                signal.setitimer(signal.ITIMER_REAL, limit.seconds)
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler_before in previous.items():
            signal.signal(sig, handler_before)
