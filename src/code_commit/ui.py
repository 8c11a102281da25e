"""What the user sees while a run goes on: timestamped lines on stderr, every one redacted.

stdout is left for results (`--json`), so scripts can read it cleanly.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from .logs import Redactor


@dataclass
class Console:
    redact: Redactor = field(default_factory=Redactor)
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    quiet: bool = False
    verbose: bool = False

    def _emit(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        for line in self.redact(text).splitlines() or [""]:
            self.stream.write(f"{stamp} {line}\n")
        self.stream.flush()

    def info(self, text: str) -> None:
        if not self.quiet:
            self._emit(text)

    def detail(self, text: str) -> None:
        if self.verbose:
            self._emit(text)

    def warn(self, text: str) -> None:
        self._emit(f"warning: {text}")

    def error(self, text: str) -> None:
        self._emit(f"error: {text}")

    def show(self, text: str) -> None:
        """A block the user asked to see (--diff), verbatim: no timestamps, shown even when quiet."""
        self.stream.write(self.redact(text))
        self.stream.flush()
