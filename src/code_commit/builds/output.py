"""A build's output, compacted: the log keeps its head and tail within `build_log_cap` (escape
sequences stripped, secrets censored even when split across chunks), the diagnostics are noted as
the output streams past, and `output_for_prompt` makes a repair prompt's share of it from the
log's two ends and those diagnostics. Memory stays bounded whatever the build prints.
"""

from __future__ import annotations

import codecs
import os
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.files.ends import read_ends
from code_commit.files.owner_only import open_private

CHUNK = 1 << 16  # characters of the log's tail joined into one piece; bytes of the pipe read at once


LOG_CAP = Settings.build_log_cap  # characters of output kept in the log, head and tail


# Searched in lower-cased text: words that mark a line worth keeping when the output is cut, if there
# is room after the diagnostics.
_ERROR_WORDS = (
    "error",
    "fail",
    "panic",
    "traceback",
    "exception",
    "fatal",
    "assert",
    "undefined",
    "cannot",
    "not found",
    "denied",
    "segmentation",
)


# Lines shaped like compiler and test diagnostics, kept before any line that merely contains a word
# like "error" (a `gcc ... -Werror ...` command line): found anywhere in a line...
_DIAGNOSTIC_MARKERS = (
    ": error:",
    ": fatal error:",
    ": undefined reference",
    "error[E",
    "FAILED",
    "--- FAIL",
    "Traceback (most recent call last)",
    "panicked at",
    "AssertionError",
    "npm ERR!",
)


# ... or at its start.
_DIAGNOSTIC_LINE_STARTS = ("E   ", "error:", "error[", "ERROR ", "ERROR:", "FAIL ", "FAIL:", "Error:", "fatal:")


_KEEP_CHARS = 1 << 16  # of each kind, the first and the last lines kept up to this many characters each


MAX_LINE = 2000  # characters of a kept line


# Lower-cases ASCII letters only: str.lower can change a string's length ("İ"), and offsets must hold.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


# Escape sequences: CSI (colours, cursor moves), OSC/DCS/PM/APC strings (titles, hyperlinks), and the
# two-character ones; 0x9b is CSI's one-character form.
_ESCAPE_WHOLE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-OQ-WYZ\\`-~]"
)


# The same, also matching an unterminated string or a lone ESC at the end of the output.
_ESCAPE = re.compile(_ESCAPE_WHOLE.pattern + r"|\x1b[\]PX^_][^\x07\x1b]*|\x1b|\x9b")


_FRESH_PIECES = 256  # pieces of output joined into one entry of the log's tail, at most


_MAX_ESCAPE = 4096  # characters an escape sequence cut by a chunk boundary is held back for, at most


@dataclass(frozen=True)
class Kept:
    """Lines of one kind seen in a build's output: the first and the last ones, up to a size each,
    with their offsets in the output (in characters), and how many there were in all."""

    first: tuple[tuple[int, str], ...] = ()
    last: tuple[tuple[int, str], ...] = ()
    seen: int = 0


@dataclass(frozen=True)
class BuildOutput:
    """The build's output as it was logged, and what the log noted about it as it streamed: the
    log file keeps only its head and tail."""

    log_path: Path
    chars: int = 0  # characters of output, all of them counted, whatever the log kept
    diagnostics: Kept = Kept()  # lines shaped like compiler and test diagnostics
    mentions: Kept = Kept()  # other lines containing a word such as "error"
    cut: int = 0  # characters left out of the log (build_log_cap)
    trailer: int = 0  # characters the log has after the output: the markers code-commit added


class OutputLog:
    """Decodes a byte stream, strips terminal escape sequences, censors secrets even when split across
    chunks, notes the diagnostic lines as they pass, and appends to a file: all of it up to half of
    `log_cap` characters, then only the last half (kept in memory), written with a marker at the end."""

    def __init__(
        self, path: Path, redact: Redactor, on_output: Callable[[str], None] | None, log_cap: int = LOG_CAP
    ) -> None:
        # Closed in close(). backslashreplace: no character can make a log write raise.
        fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
        self._file = open(fd, "w", encoding="utf-8", errors="backslashreplace", newline="")  # noqa: SIM115
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._redact = redact
        self._keep = max((len(s) for s in redact.secrets), default=1) - 1
        self._raw = ""  # an escape sequence that may go on in the next chunk
        self._pending = ""
        self._on_output = on_output
        self._head_left = log_cap // 2
        self._tail_cap = log_cap - log_cap // 2
        self._tail: deque[str] = deque()
        self._tail_chars = 0
        self._fresh: list[str] = []  # the newest pieces of the tail, joined once they make a CHUNK
        self._fresh_chars = 0
        self._head_chars = 0
        self._escapes = 0
        self._scan = _DiagnosticScan()
        self._path = path
        self.chars = 0
        self.output = BuildOutput(path)

    def write(self, chunk: bytes) -> None:
        text = self._strip(self._raw + self._decoder.decode(chunk), final=False)
        text = self._redact(self._pending + text)
        # Hold back a secret's length minus one, in case a secret straddles this chunk and the next.
        cut = max(len(text) - self._keep, 0)
        self._emit(text[:cut])
        self._pending = text[cut:]

    def flush(self) -> None:
        """Write out what was held back: the output has ended."""
        if not self._file.closed:
            text = self._strip(self._raw + self._decoder.decode(b"", final=True), final=True)
            self._emit(self._redact(self._pending + text))
            self._pending = ""
            self._scan.end(self.chars)

    def close(self, trailer: str) -> None:
        if self._file.closed:
            return
        self.flush()
        self._push_tail()
        cut = self.chars - self._head_chars - self._tail_chars
        if cut > 0:
            self._file.write(
                f"\n[... code-commit left {cut:,} characters of build output out of this log here "
                "(build_log_cap) ...]\n"
            )
        self._file.writelines(self._tail)
        if self._escapes:
            trailer += (
                f"--- {self._escapes:,} terminal escape sequence(s) (colours, cursor moves) were removed from "
                "the build's output ---\n"
            )
        self._file.write(trailer)
        self._file.close()
        self.output = BuildOutput(
            self._path, self.chars, self._scan.strong.result(), self._scan.weak.result(), cut, len(trailer)
        )

    def _strip(self, text: str, final: bool) -> str:
        """`text` without escape sequences; one that may be cut off at its end is held back (in `_raw`)."""
        self._raw = ""
        last = max(text.rfind("\x1b"), text.rfind("\x9b"))
        if last < 0:
            return text  # no escape anywhere: the regex would only walk the chunk (most builds' output)
        if not final and len(text) - last < _MAX_ESCAPE and not _ESCAPE_WHOLE.match(text, last):
            text, self._raw = text[:last], text[last:]
        stripped, count = _ESCAPE.subn("", text)
        self._escapes += count
        return stripped

    def _emit(self, text: str) -> None:
        if not text:
            return
        whole = text
        self._scan.feed(text, self.chars)
        self.chars += len(text)
        if self._head_left:
            head = text[: self._head_left]
            self._head_left -= len(head)
            self._head_chars += len(head)
            self._file.write(head)
            text = text[len(head) :]
        if text:
            # Small pieces (a build that writes a byte at a time) are joined before they join the tail:
            # a deque entry per piece would cost some 50 bytes of memory per character kept.
            self._fresh.append(text)
            self._fresh_chars += len(text)
            if self._fresh_chars >= CHUNK or len(self._fresh) >= _FRESH_PIECES:
                self._push_tail()
        if self._on_output:
            self._on_output(whole)

    def _push_tail(self) -> None:
        if self._fresh:
            self._tail.append("".join(self._fresh))
            self._tail_chars += self._fresh_chars
            self._fresh, self._fresh_chars = [], 0
        if self._tail:
            while self._tail_chars - len(self._tail[0]) >= self._tail_cap:
                self._tail_chars -= len(self._tail.popleft())
            if self._tail_chars > self._tail_cap:  # trim the oldest chunk to the cap exactly
                extra = self._tail_chars - self._tail_cap
                self._tail[0] = self._tail[0][extra:]
                self._tail_chars -= extra


class _Keeper:
    """The first and the last lines of one kind, up to _KEEP_CHARS characters each: bounded memory."""

    def __init__(self) -> None:
        self.first: list[tuple[int, str]] = []
        self.first_chars = 0
        self.last: deque[tuple[int, str]] = deque()
        self.last_chars = 0
        self.seen = 0

    def add(self, items: list[tuple[int, str]]) -> None:
        self.seen += len(items)
        taken = 0
        for item in items:
            if self.first_chars + len(item[1]) > _KEEP_CHARS:
                break
            self.first.append(item)
            self.first_chars += len(item[1])
            taken += 1
        newest: list[tuple[int, str]] = []
        size = 0
        for item in reversed(items[taken:]):  # only what can still be among the last ones
            size += len(item[1])
            if size > _KEEP_CHARS:
                break
            newest.append(item)
        for item in reversed(newest):
            self.last.append(item)
            self.last_chars += len(item[1])
        while self.last and self.last_chars > _KEEP_CHARS:
            self.last_chars -= len(self.last.popleft()[1])

    def result(self) -> Kept:
        return Kept(tuple(self.first), tuple(self.last), self.seen)


class _DiagnosticScan:
    """Finds, line by line as the output streams, the diagnostics and the lines mentioning errors.

    Searched a chunk at a time with str.find per marker (C speed), not one regex call per line."""

    def __init__(self) -> None:
        self.strong = _Keeper()
        self.weak = _Keeper()
        self._carry = ""  # the start of a line whose end has not come yet

    def feed(self, text: str, offset: int) -> None:
        data = self._carry + text
        end = data.rfind("\n") + 1
        self._scan(data[:end], offset - len(self._carry))
        # Of a line longer than MAX_LINE only the start is carried: memory stays bounded (and its
        # offset reads a little late, which only matters for a line that long).
        self._carry = data[end:][:MAX_LINE]

    def end(self, offset: int) -> None:
        if self._carry:
            self._scan(self._carry + "\n", offset - len(self._carry))
            self._carry = ""

    def _scan(self, data: str, offset: int) -> None:
        if not data:
            return
        strong = _line_starts(data, _DIAGNOSTIC_MARKERS, line_start=False)
        strong |= _line_starts(data, _DIAGNOSTIC_LINE_STARTS, line_start=True)
        weak = _line_starts(data.translate(_ASCII_LOWER), _ERROR_WORDS, line_start=False) - strong
        for starts, keeper in ((strong, self.strong), (weak, self.weak)):
            items = []
            for at in sorted(starts):
                stop = data.find("\n", at)
                line = data[at : stop + 1] if stop - at < MAX_LINE else data[at : at + MAX_LINE] + " [...]\n"
                items.append((offset + at, line))
            keeper.add(items)


def _line_starts(data: str, words: tuple[str, ...], line_start: bool) -> set[int]:
    """Start offsets of the lines of `data` containing one of `words` (line_start: beginning with one)."""
    starts: set[int] = set()
    for word in words:
        if line_start and data.startswith(word):
            starts.add(0)
        needle = "\n" + word if line_start else word
        found = data.find(needle)
        while found >= 0:
            line = found + 1 if line_start else data.rfind("\n", 0, found) + 1
            starts.add(line)
            line_end = data.find("\n", found + len(needle))
            found = -1 if line_end < 0 else data.find(needle, line_end if line_start else line_end + 1)
    return starts


def output_for_prompt(output: BuildOutput, cap: int) -> str:
    """The build output for a repair prompt: all of it up to about `cap` characters; above that, the
    head, the tail, and between them the diagnostics the build printed in the part left out (the
    first and the last ones), then other lines mentioning errors if there is room, with markers
    saying what was left out. Reads only the two ends of the log, so memory stays bounded.
    """
    ends = read_ends(output.log_path, cap // 4, cap // 4, whole=0 if output.cut else cap)
    if not ends.tail:
        return ends.head.decode("utf-8", "replace")
    # Whole lines where that keeps most of each end; a long line (a progress bar redrawn with \r,
    # a one-line JSON report) is cut instead, so that its end still shows.
    raw_head, raw_tail = ends.head, ends.tail
    end = raw_head.rfind(b"\n") + 1
    raw_head = raw_head[:end] if end >= len(raw_head) // 2 else raw_head
    start = raw_tail.find(b"\n") + 1
    raw_tail = raw_tail[start:] if 0 < start <= len(raw_tail) // 2 else raw_tail
    head, tail = raw_head.decode("utf-8", "replace"), raw_tail.decode("utf-8", "replace")
    # The part of the output between the two ends, in the output's own offsets.
    low, high = len(head), output.chars - max(len(tail) - output.trailer, 0)
    room = cap - len(head) - len(tail)
    strong, strong_left = _pick(output.diagnostics, low, high, room)
    weak, weak_left = _pick(output.mentions, low, high, room - sum(map(len, strong)), tail_half=False)
    shown = strong + weak
    omitted = max(high - low - sum(map(len, shown)), 0)
    what = (
        "the diagnostics and error-looking lines among them follow" if shown else "nothing in it looked like an error"
    )
    left = [
        f"{n:,} more {kind}" for n, kind in ((strong_left, "diagnostic lines"), (weak_left, "error-looking lines")) if n
    ]
    parts = [
        head,
        f"\n[... {omitted:,} characters of build output left out; {what} ...]\n",
        *strong,
        *weak,
        f"[... and {' and '.join(left)}, left out ...]\n" if left else "",
        "[... end of the left-out part ...]\n",
        tail,
    ]
    return "".join(parts)


def _pick(kept: Kept, low: int, high: int, room: int, tail_half: bool = True) -> tuple[list[str], int]:
    """The lines of `kept` between the offsets low and high that fit in `room` characters, in order:
    the first ones in half of it and the last ones in the rest (tail_half; else the first ones, then
    the last ones only if room is left), and how many lines in that range were not taken."""
    outside = sum(not low <= at < high for at, _ in kept.first + kept.last)
    between = kept.seen - outside  # every line seen in the range, kept or not
    items = [line for at, line in kept.first + kept.last if low <= at < high]
    used = front = 0
    for line in items:
        if used + len(line) > (room // 2 if tail_half else room):
            break
        used += len(line)
        front += 1
    back = 0
    for line in reversed(items[front:]):
        if used + len(line) > room:
            break
        used += len(line)
        back += 1
    chosen = items[:front] + items[len(items) - back :]
    return chosen, max(between - len(chosen), 0)
