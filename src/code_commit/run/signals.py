"""Ending a run from outside: SIGINT, SIGTERM and the whole-run time limit (`--timeout`).

While `watch()` is active, those signals raise a `Stopped` (errors.py: `Interrupted` or
`RunTimeout`, no `Exception`, so nothing but the session catches it) in the main thread, wherever
it is blocked: waiting for the model, for build.sh (whose process group `runner.run_build` then
kills) or for the lock.

Code that must not be cut in half (applying an answer, reverting the tree, writing the
summary) runs under `shielded()`: a stop that arrives meanwhile waits until the block is done.
Outside `watch()` (a part used on its own, a test), `shielded()` does nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType

from code_commit.config.settings import Settings
from code_commit.errors import Interrupted, RunTimeout, Stopped

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


@dataclass
class _Watch:
    limit: TimeLimit
    shield_depth: int = 0
    pending: Stopped | None = None

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGALRM:
            limit = self.limit
            stop: Stopped = RunTimeout(f"the run's time limit of {limit.seconds:g} s was reached ({limit.source})")
        else:
            stop = Interrupted(f"interrupted by {signal.Signals(signum).name}")
        if self.shield_depth:
            self.pending = self.pending or stop
            return
        raise stop


_active: _Watch | None = None


@contextlib.contextmanager
def watch(limit: TimeLimit) -> Iterator[None]:
    """Turn SIGINT, SIGTERM and, after the limit's seconds, SIGALRM into a `Stopped` until the block ends."""
    global _active
    # Signal handlers are main-thread only. Inside another watch, its timer already runs: the run's
    # limit counts from the outer one (the CLI starts it before it reads the setup files).
    if threading.current_thread() is not threading.main_thread() or _active is not None:
        yield
        return
    state = _Watch(limit)
    previous = {sig: signal.signal(sig, state.on_signal) for sig in (*_SIGNALS, signal.SIGALRM)}
    _active = state
    try:
        if limit.seconds is not None:
            signal.setitimer(signal.ITIMER_REAL, limit.seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _active = None
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def shielded(final: bool = False) -> Iterator[None]:
    """Hold back stops until the block is done; then raise the first one that came.

    `final`: the block ends the run anyway (the summary, the revert), so a stop that came during
    it is dropped rather than raised: the run's record is already written and must stay true.
    """
    state = _active
    if state is None:
        yield
        return
    state.shield_depth += 1
    try:
        yield
    finally:
        state.shield_depth -= 1
        if state.shield_depth == 0 and state.pending is not None:
            stop, state.pending = state.pending, None
            if not final:
                raise stop
