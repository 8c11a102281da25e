"""The supervisor's terminal: keys one at a time in cbreak mode, colour when wanted, and the check
that a terminal is there at all. Light (standard library only): `cli` imports it before any
model call.
"""

from __future__ import annotations

import codecs
import os
import signal
import sys
import termios
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any, TextIO

from code_commit.errors import Interrupted, SetupError

GONE = "the terminal closed during the review; nothing of this answer was written"


def colour_wanted(stream: TextIO) -> bool:
    """Colour only on a terminal, never when NO_COLOR is set to anything (no-color.org) or TERM is dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return _isatty(stream)


def unattended() -> bool:
    """No one at a terminal: standard input or output is not one (cron, CI, a pipe), or CI says it is
    running the command (Buildkite, and a `docker run -t` in any CI, give it a pseudo-terminal)."""
    from code_commit.console.output import is_ci

    return not (_isatty(sys.stdin) and _isatty(sys.stdout)) or is_ci(os.environ)


def require_terminal(source: str) -> None:
    """Review asks questions: refuse to start, before any model call, where nobody can answer them."""
    missing = [name for name, stream in (("stdin", sys.stdin), ("stderr", sys.stderr)) if not _isatty(stream)]
    if missing:
        origin = "" if source == "flag" else f" (review is on from {source})"
        raise SetupError(
            f"--review needs a terminal{origin}, but {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not one: it reads the keys from stdin and shows the hunks "
            "on stderr. Cron jobs and CI cannot answer questions: run without --review there "
            "(--diff prints what each attempt applied)."
        )


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # a closed stream
        return False


class Keys:
    """The terminal in cbreak mode (no line buffering, no echo) for as long as the `with` lasts.

    Entering discards keys typed earlier (while the model was thinking they were not decisions);
    leaving restores the saved mode on every path: a return, an exception, Ctrl-C (SIGINT still
    works in cbreak mode), SIGTERM (turned into `Interrupted` meanwhile, as Python's default
    would kill the process with the terminal still in cbreak mode).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span reads
        self._saved: list[Any] | None = None  # termios attributes, as tcgetattr gives them
        self._swapped = False
        self._previous_term: object = None

    def __enter__(self) -> Keys:
        self._saved = termios.tcgetattr(self.fd)
        mode = termios.tcgetattr(self.fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        if threading.current_thread() is threading.main_thread():
            self._previous_term = signal.signal(signal.SIGTERM, _terminated)
            self._swapped = True
        try:
            termios.tcsetattr(self.fd, termios.TCSAFLUSH, mode)
        except BaseException:
            self._restore_sigterm()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            # TCSAFLUSH again: keys typed after the last decision must not reach the shell or build.sh.
            if self._saved is not None:
                termios.tcsetattr(self.fd, termios.TCSAFLUSH, self._saved)
        except termios.error:
            pass  # the terminal hung up: nothing to restore, and the error that ended the review matters more
        finally:
            self._restore_sigterm()

    def _restore_sigterm(self) -> None:
        if self._swapped:
            # None: the old handler was not set from Python; the default is the best restoration.
            previous = signal.SIG_DFL if self._previous_term is None else self._previous_term
            signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]
            self._swapped = False

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        while (key := self._take()) is None:
            try:
                data = os.read(self.fd, 64)
            except OSError as exc:  # EIO: the terminal hung up
                raise Interrupted(GONE) from exc
            if not data:
                raise Interrupted(GONE)
            self._buffer += self._decoder.decode(data)
        return key

    def _take(self) -> str | None:
        """The next whole key in the buffer, if there is one yet.

        An escape sequence is one key however the terminal splits it across reads: the up arrow
        (ESC [ A) must never pass for A, accept everything. So an incomplete sequence waits for
        its final byte, and a lone ESC takes the next character with it (an unknown key)."""
        buffer = self._buffer
        if not buffer:
            return None
        end = 1
        if buffer[0] == "\x1b":
            if len(buffer) < 2:
                return None
            end = 2
            if buffer[1] in "[O":  # CSI and SS3 end at the first byte in @..~
                end = next((i + 1 for i in range(2, len(buffer)) if "@" <= buffer[i] <= "~"), 0)
                if not end:
                    return None
        self._buffer = buffer[end:]
        return buffer[:end]


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise Interrupted("terminated during the review; nothing of this answer was written")
