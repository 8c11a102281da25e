"""What a set of changes does to the tests, judged on the project's files: which paths are tests
(git, through `TestPaths`), what each held before (read from the tree, or given by the caller) and
what it holds after; then `weakenings`.

Fails closed: when git cannot say which paths are tests, every path is judged as a test; a file
whose original cannot be read counts as a test changed past checking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from code_commit.files.confined import Tree
from code_commit.guard.weakening.detect import Change, weakenings
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.paths import TestPaths


@dataclass(frozen=True)
class Judgement:
    findings: tuple[Finding, ...]
    unanswered: str | None = None  # why git could not say which paths are tests (each was judged as one)


def judge(changes: Iterable[Change], paths: TestPaths) -> Judgement:
    """`changes` (their `test_file` ignored: git decides it here) judged as one set."""
    changes = list(changes)
    unanswered = None
    try:
        verdicts = paths.check(change.path for change in changes)
    except OSError as exc:  # GitUnanswered: fail closed
        unanswered = str(exc) or type(exc).__name__
        verdicts = {change.path: "every path (git could not say)" for change in changes}
    judged = [replace(change, test_file=verdicts.get(change.path) is not None) for change in changes]
    return Judgement(tuple(weakenings(judged)), unanswered)


def judge_proposed(root: Path, proposed: Mapping[str, bytes | None], paths: TestPaths) -> Judgement:
    """What writing `proposed` (path -> new content, None: deleted) over the tree as it is now would
    do to the tests. Each original is read without following a symlink (the guard refuses writing
    through one, so a path it accepted is a regular file or nothing)."""
    changes: list[Change] = []
    unreadable: list[Finding] = []
    with Tree(root) as tree:
        for path, after in proposed.items():
            try:
                before: bytes | None = tree.read(path)
            except (FileNotFoundError, NotADirectoryError):
                before = None
            except OSError as exc:  # the planner read it a moment ago: whatever it is, it is not let through
                why = exc.strerror or str(exc)
                unreadable.append(Finding(path, What.UNCHECKED, "", f"its original could not be read: {why}"))
                continue
            changes.append(Change(path, before, after))
    judgement = judge(changes, paths)
    return Judgement(judgement.findings + tuple(unreadable), judgement.unanswered)
