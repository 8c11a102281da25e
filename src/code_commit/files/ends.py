"""A file's two ends, for a log too long to read whole: one bounded read, never a byte twice."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Ends:
    head: bytes
    tail: bytes  # empty when the head is all of the file
    left_out: int  # bytes between the two


def read_ends(path: Path, head: int, tail: int, whole: int = 0) -> Ends:
    """The file's first `head` bytes and its last `tail` bytes after them; all of it, in `head`, when it
    is no longer than `whole`. At most max(head + tail, whole) bytes are read, whatever the file's
    size. Raises OSError."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        first = fh.read(size if size <= whole else min(size, head))
        start = max(size - tail, len(first))
        fh.seek(start)
        return Ends(first, fh.read(size - start), start - len(first))
