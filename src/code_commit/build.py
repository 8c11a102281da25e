"""Running build.sh: its own process group, stdin from /dev/null, no API keys in its
environment, stdout and stderr interleaved in write order through one pipe, streamed to the
log file so memory stays bounded, and a hard time limit.

When build.sh ends, the run does not wait for background children that still hold the pipe:
after a short grace (`build_linger`) the whole group is killed, so no child of the build outlives
the run. (A child that leaves the group with setsid escapes this; nothing short of a container
can follow it.)
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import errno
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .logs import Redactor
from .private import open_private
from .secrets import PROVIDER_ENV

SECRET_ENV = PROVIDER_ENV
LINGER_SECONDS = 2.0  # after build.sh exits, how long children may keep the pipe open
CHUNK = 1 << 16
BLOCK = 1 << 20
# Searched in lower-cased bytes: words that mark a line worth keeping when the output is cut.
ERROR_WORDS = (
    b"error",
    b"fail",
    b"panic",
    b"traceback",
    b"exception",
    b"fatal",
    b"assert",
    b"undefined",
    b"cannot",
    b"not found",
    b"denied",
    b"segmentation",
)


@dataclass(frozen=True)
class BuildResult:
    exit_code: int | None  # None when killed for the time limit
    timed_out: bool
    duration: float
    log_path: Path
    output_chars: int
    time_limit: float = 0.0
    lingered: bool = False  # background children still held the output when build.sh ended; killed
    start_error: str | None = None  # why build.sh could not be started at all, if it could not

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def describe(self) -> str:
        if self.timed_out:
            return f"build.sh was killed at its time limit of {self.time_limit:g} s (--build-timeout)"
        if self.start_error is not None:
            code = self.exit_code
            return f"build.sh could not be started: {self.start_error} (exit code {code}, as a shell reports it)"
        return f"build.sh exited with code {self.exit_code} after {self.duration:.1f} s"


def build_command(root: Path) -> list[str]:
    script = root / "build.sh"
    return ["./build.sh"] if os.access(script, os.X_OK) else ["sh", "build.sh"]


def _start(root: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start build.sh as a shell would: exec it, and if the kernel cannot (a script with no #! line:
    ENOEXEC), run it with sh."""
    command = build_command(root)
    while True:
        try:
            return subprocess.Popen(
                command,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=build_env(env),
                start_new_session=True,  # its own process group, killed as one; and no terminal signals
            )
        except OSError as exc:
            if exc.errno != errno.ENOEXEC or command[0] == "sh":
                raise
            command = ["sh", "build.sh"]


def _why_not_started(root: Path, exc: OSError) -> tuple[int, str]:
    """The exit code a shell gives a command it cannot run (127: not found, 126: found but not
    executable), and why, in words."""
    code = 127 if exc.errno == errno.ENOENT else 126
    reason = exc.strerror or str(exc)
    if build_command(root)[0] == "sh":  # it was not run through its #! line: sh itself failed
        return code, f"sh: {reason}"
    line = b""
    with contextlib.suppress(OSError), open(root / "build.sh", "rb") as fh:
        line = fh.readline(512).rstrip(b"\n")
    if not line.startswith(b"#!") or exc.errno not in (errno.ENOENT, errno.EACCES):
        return code, reason
    if line.endswith(b"\r"):
        return code, (
            "its #! line ends with a carriage return (the file has Windows CRLF line endings), so the "
            "interpreter it names does not exist; save build.sh with LF line endings"
        )
    interpreter = line[2:].strip().decode("utf-8", "backslashreplace")
    what = "was not found" if exc.errno == errno.ENOENT else "cannot be executed"
    return code, f"its interpreter {interpreter!r} (its #! line) {what}"


def build_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in SECRET_ENV and not k.startswith("CODE_COMMIT_")}


def run_build(
    root: Path,
    log_path: Path,
    redact: Redactor,
    timeout: float,
    env: Mapping[str, str] | None = None,
    on_output: Callable[[str], None] | None = None,
    linger: float = LINGER_SECONDS,
) -> BuildResult:
    """Run build.sh, stream its output (redacted) to `log_path`, and end with its exit status.

    Whatever ends the wait (exit, time limit, an exception such as a signal's), the whole process
    group is killed before this returns, and the log says how the build ended.
    """
    started = time.monotonic()
    deadline = started + timeout
    sink = _RedactingSink(log_path, redact, on_output)
    try:
        process = _start(root, os.environ if env is None else env)
    except OSError as exc:  # a build that cannot start at all is a failed build, as in a shell
        code, why = _why_not_started(root, exc)
        result = BuildResult(code, False, time.monotonic() - started, log_path, 0, timeout, start_error=why)
        sink.write(f"code-commit could not start build.sh: {why}\n".encode())
        sink.close(f"--- {result.describe()} ---\n")
        return dataclasses.replace(result, output_chars=sink.chars)
    except BaseException:
        sink.close("")
        raise
    assert process.stdout is not None
    timed_out = lingered = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            linger_until: float | None = None  # set once build.sh itself has exited
            while True:
                now = time.monotonic()
                if linger_until is None and process.poll() is not None:
                    linger_until = now + linger
                if linger_until is None and now >= deadline:
                    timed_out = True
                    break
                if linger_until is not None and now >= linger_until:
                    lingered = True
                    break  # children still hold the pipe; the group is killed below
                wait = (deadline if linger_until is None else linger_until) - now
                if not selector.select(timeout=min(wait, 0.5)):
                    continue
                chunk = os.read(process.stdout.fileno(), CHUNK)
                if not chunk:
                    break
                sink.write(chunk)
    except BaseException as exc:
        sink.close(f"\n--- build.sh was stopped: {exc or type(exc).__name__}; its process group was killed ---\n")
        raise
    finally:
        _kill_group(process)
        process.stdout.close()
        exit_code = process.wait()
    duration = time.monotonic() - started
    sink.flush()
    result = BuildResult(None if timed_out else exit_code, timed_out, duration, log_path, sink.chars, timeout, lingered)
    note = (
        f"--- background processes still held build.sh's output {linger:g} s after it exited; they were killed ---\n"
        if lingered
        else ""
    )
    sink.close(f"\n{note}--- {result.describe()} ---\n")
    return result


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class _RedactingSink:
    """Decodes a byte stream, censors secrets even when split across chunks, and appends to a file."""

    def __init__(self, path: Path, redact: Redactor, on_output: Callable[[str], None] | None) -> None:
        # Closed in close(). backslashreplace: no character can make a log write raise.
        fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
        self._file = open(fd, "w", encoding="utf-8", errors="backslashreplace", newline="")  # noqa: SIM115
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._redact = redact
        self._keep = max((len(s) for s in redact.secrets), default=1) - 1
        self._pending = ""
        self._on_output = on_output
        self.chars = 0

    def write(self, chunk: bytes) -> None:
        text = self._pending + self._decoder.decode(chunk)
        text = self._redact(text)
        # Hold back a secret's length minus one, in case a secret straddles this chunk and the next.
        cut = max(len(text) - self._keep, 0)
        self._emit(text[:cut])
        self._pending = text[cut:]

    def flush(self) -> None:
        """Write out what was held back: the output has ended."""
        if not self._file.closed:
            self._emit(self._redact(self._pending + self._decoder.decode(b"", final=True)))
            self._pending = ""

    def close(self, trailer: str) -> None:
        if self._file.closed:
            return
        self.flush()
        self._file.write(trailer)
        self._file.close()

    def _emit(self, text: str) -> None:
        if text:
            self.chars += len(text)
            self._file.write(text)
            if self._on_output:
                self._on_output(text)


def output_for_prompt(result: BuildResult, cap: int) -> str:
    """The build output for a repair prompt: all of it up to about `cap` characters; above that, the
    head, the tail, and every error-looking line between them that fits, with markers saying what
    was left out. Reads the log in blocks, so memory stays bounded for any output size.
    """
    size = result.log_path.stat().st_size
    with open(result.log_path, "rb") as fh:
        if size <= cap:
            return fh.read().decode("utf-8", "replace")
        quarter = cap // 4
        # Whole lines where that keeps most of each end; a long line (a progress bar redrawn with \r,
        # a one-line JSON report) is cut instead, so that its end still shows.
        head = fh.read(quarter)
        end = head.rfind(b"\n") + 1
        head = head[:end] if end >= len(head) // 2 else head
        fh.seek(size - quarter)
        tail = fh.read()
        start = tail.find(b"\n") + 1
        tail = tail[start:] if 0 < start <= len(tail) // 2 else tail
        errors, skipped = _error_lines(fh, len(head), size - len(tail), cap - 2 * quarter)
    omitted = size - len(head) - len(tail) - sum(map(len, errors))
    parts = [
        head,
        f"\n[... {omitted:,} bytes of build output left out; the error-looking lines among them follow ...]\n".encode(),
        *errors,
        f"[... and {skipped:,} more error-looking lines ...]\n".encode() if skipped else b"",
        b"[... end of the left-out part ...]\n",
        tail,
    ]
    return b"".join(parts).decode("utf-8", "replace")


def _error_lines(fh: BinaryIO, start: int, end: int, budget: int) -> tuple[list[bytes], int]:
    """Lines in [start, end) that look like errors, up to `budget` bytes, and how many did not fit.

    Searched a 1 MiB block at a time at C speed, not one regex call per line.
    """
    kept: list[bytes] = []
    used = skipped = 0
    fh.seek(start)
    carry = b""
    position = start
    while position < end:
        block = fh.read(min(BLOCK, end - position))
        if not block:
            break
        position += len(block)
        data = carry + block
        cut = len(data) if position >= end else data.rfind(b"\n") + 1
        if cut == 0 and len(data) > BLOCK:  # a line longer than a block: take it in pieces, memory stays bounded
            cut = len(data)
        data, carry = data[:cut], data[cut:]
        for line_start in sorted(_matching_line_starts(data.lower())):
            line_end = data.find(b"\n", line_start)
            line = data[line_start : len(data) if line_end < 0 else line_end + 1]
            if used + len(line) <= budget:
                kept.append(line if line.endswith(b"\n") else line + b"\n")
                used += len(line)
            else:
                skipped += 1
    return kept, skipped


def _matching_line_starts(lowered: bytes) -> set[int]:
    """Start offsets of the lines containing an error word. bytes.find per word scans at memchr
    speed; one regex alternation over the same block is several times slower."""
    starts: set[int] = set()
    for word in ERROR_WORDS:
        found = lowered.find(word)
        while found >= 0:
            starts.add(lowered.rfind(b"\n", 0, found) + 1)
            line_end = lowered.find(b"\n", found)
            found = -1 if line_end < 0 else lowered.find(word, line_end)
    return starts
