"""Hardening the code-commit process itself while it holds a key: not dumpable, so another process of
the same user cannot read its environment or memory."""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Callable, Iterator

PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3


@contextlib.contextmanager
def not_dumpable() -> Iterator[None]:
    """For the block, the process is not dumpable: a process of the same (non-root) user cannot read
    its /proc/<pid>/environ or memory, or attach a debugger. Linux only; elsewhere nothing happens."""
    prctl = _prctl()
    if prctl is None:
        yield
        return
    was = prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        yield
    finally:
        if was > 0:
            prctl(PR_SET_DUMPABLE, was, 0, 0, 0)


def _prctl() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None).prctl  # libc's, linked into the interpreter
    except (OSError, AttributeError):
        return None
    return function
