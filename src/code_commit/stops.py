"""Stops held back: a run ended from outside (SIGINT, SIGTERM, its time limit: `run/signals.py`
turns each into a `Stopped` raised in the main thread, wherever it is) must never cut in half the
code that runs under `shielded()`: applying an answer and recording it, starting build.sh and taking
charge of its process group, reverting the tree, writing the summary. A stop that comes meanwhile
is raised when the block ends. Outside a watched run (a part used on its own, a test), nothing is
held: no stop is raised there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from code_commit.errors import Stopped


@dataclass
class _Held:
    depth: int = 0  # shielded blocks open
    pending: Stopped | None = None  # the first stop that came while one was


_held: _Held | None = None


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """While the block runs, stops are delivered (`deliver`) and held by `shielded()`."""
    global _held
    _held = _Held()
    try:
        yield
    finally:
        _held = None


def watching() -> bool:
    """Whether a run is watched (`watched()`): a nested watch leaves the outer one in charge."""
    return _held is not None


def deliver(stop: Stopped) -> None:
    """Raise `stop` now, or, inside a shielded block, when the outermost one ends."""
    if _held is not None and _held.depth:
        _held.pending = _held.pending or stop
        return
    raise stop


@contextlib.contextmanager
def shielded(final: bool = False) -> Iterator[None]:
    """Hold back stops until the block is done; then raise the first one that came.

    `final`: the block ends the run anyway (the summary, the revert), so a stop that came during
    it is dropped rather than raised: the run's record is already written and must stay true.
    """
    held = _held
    if held is None:
        yield
        return
    held.depth += 1
    try:
        yield
    finally:
        held.depth -= 1
        if held.depth == 0 and held.pending is not None:
            stop, held.pending = held.pending, None
            if not final:
                raise stop
