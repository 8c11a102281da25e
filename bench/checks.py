"""A scenario checks its input before it prints a row: a figure measured on nothing (an empty rollup, a
build that never ran, an answer that was not applied) must be an error, never a zero in the table.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from .harness import bench_env

T = TypeVar("T")


class EmptyMeasurement(RuntimeError):
    """A scenario's input is not what its row says it measured."""


def require(condition: bool, what: str) -> None:
    """Raise EmptyMeasurement saying `what` should have held, unless it does."""
    if not condition:
        raise EmptyMeasurement(what)


def tracked(root: Path) -> list[str]:
    """The files git tracks under `root`: what a rollup or a gate can read at all."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, env=bench_env(), capture_output=True, check=True
    ).stdout
    return [path.decode("utf-8", "surrogateescape") for path in listing.split(b"\0") if path]


def require_tracked(root: Path, at_least: int) -> None:
    """The scenario's repository has its files committed: git tracks at least `at_least` of them."""
    count = len(tracked(root))
    require(count >= at_least, f"git tracks {count} files in {root}, fewer than the {at_least} the scenario wrote")


def output_of(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One more, untimed run of a measured command, for what it printed."""
    return subprocess.run(argv, cwd=cwd, env=env or bench_env(), capture_output=True, text=True, errors="replace")


def some_rows(scenario: str, rows: Iterable[T]) -> Iterator[T]:
    """`rows`, passed on as they come; EmptyMeasurement if there was none (a scenario that measured nothing)."""
    count = 0
    for row in rows:
        count += 1
        yield row
    require(count > 0, f"{scenario} printed no row: it measured nothing")
