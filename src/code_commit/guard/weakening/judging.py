"""What a set of changes does to the tests, judged on the project's files: which paths are tests
(git, through `TestPaths`), what each held before (read from the tree, or given by the caller) and
what it holds after; then `weakenings`. An answer's proposed changes (`judge_proposed`), or what a
build changed (`judge_build`), which is held to more: a build has no reason to touch a test.

Fails closed: when git cannot say which paths are tests, every path is judged as a test; a file
whose original cannot be read counts as a test changed past checking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from code_commit.files.confined import Tree
from code_commit.guard.weakening.detect import MAX_READ, Change, language_of, weakenings
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.layout import same_code
from code_commit.guard.weakening.paths import TestPaths, may_hold_tests
from code_commit.guard.weakening.runners import is_found_by_runner, is_runner_config

# What one build's changes are read for, at most: files, and their bytes before and after. Test
# files are read first, then settings files, then sources that may hold tests; a test file or a
# settings file the build changed past either bound is a test changed past checking, the rest is
# left unread (and counted).
MAX_BUILD_FILES = 1_000
MAX_BUILD_BYTES = 64 << 20


@dataclass(frozen=True)
class Judgement:
    findings: tuple[Finding, ...]
    unanswered: str | None = None  # why git could not say which paths are tests (each was judged as one)
    unread: int = 0  # files a build changed that could hold test settings or tests, left unread (the budget)


@dataclass(frozen=True)
class Touched:
    """A file a build created, changed or deleted."""

    path: str
    existed: bool  # it was there before the build
    exists: bool  # it is there after it
    size: int  # its size then, in bytes
    held: Callable[[], bytes | None]  # what it held then, read only when needed; None: no copy was kept


def judge(changes: Iterable[Change], paths: TestPaths) -> Judgement:
    """`changes` (their `test_file` ignored: git decides it here) judged as one set."""
    changes = list(changes)
    verdicts, unanswered = _tests(paths, [change.path for change in changes])
    judged = [replace(change, test_file=change.path in verdicts) for change in changes]
    return Judgement(tuple(weakenings(judged)), unanswered)


def _tests(paths: TestPaths, names: list[str]) -> tuple[set[str], str | None]:
    """Which of `names` are tests, and why git could not say, if it could not (then every one is)."""
    try:
        verdicts = paths.check(names)
    except OSError as exc:  # GitUnanswered: fail closed
        return set(names), str(exc) or type(exc).__name__
    return {name for name, verdict in verdicts.items() if verdict is not None}, None


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


TEST, SETTINGS, NEW_SETTINGS, SOURCE, UNREAD = range(5)  # the order a build's changes are read in
BYTECODE = "__pycache__"  # a cache, not a test: where git shows it, every run of the tests rewrites it


def _rank(item: Touched, tests: set[str]) -> int:
    if BYTECODE in item.path.split("/"):  # Python rewrites these whenever a test changes
        return UNREAD
    if item.path in tests:
        return TEST
    if is_runner_config(item.path):  # one a build made (a generated CMake file) is no test's to fail on
        return SETTINGS if item.existed else NEW_SETTINGS
    return SOURCE if may_hold_tests(item.path) else UNREAD


def judge_build(root: Path, touched: Sequence[Touched], paths: TestPaths) -> Judgement:
    """What a build did to the tests: its changes judged as an answer's are, and held to more, since
    a build has no reason to touch a test. Each test file it deleted counts, even if its tests turn
    up in another file (which the runner may never collect); each it changed counts unless only its
    layout changed (`same_code`: a formatter in build.sh); each it created counts if it is test code
    or a runner's configuration (a conftest.py, a test module that patches the code under test when
    it is imported, a pytest.ini that takes the place of pyproject.toml's settings), not if it is
    test data (a new snapshot). Files that are no tests by their path are read only if they can hold
    test settings or tests (pyproject.toml, package.json, a Rust or TypeScript source), and judged
    as in an answer. Bounded: MAX_BUILD_FILES files and MAX_BUILD_BYTES read at most."""
    tests, unanswered = _tests(paths, [item.path for item in touched])
    ranked = sorted(((_rank(item, tests), item) for item in touched), key=lambda pair: pair[0])
    changes: list[Change] = []
    found: list[Finding] = []
    unread = spent = 0
    with Tree(root) as tree:
        for rank, item in ranked:
            path, test = item.path, rank == TEST
            if rank == UNREAD:
                continue
            if test and not item.exists:  # whatever it held, and wherever its tests went
                found.append(Finding(path, What.DELETED, "", "by the build"))
                continue
            if item.size > MAX_READ:
                why: str | None = f"not read: over {MAX_READ // 2**20} MiB"
            elif len(changes) >= MAX_BUILD_FILES or spent + item.size > MAX_BUILD_BYTES:
                why = "not read: the build changed more than one build's changes are read for"
            else:
                before = item.held() if item.existed else None
                after, why = _now(tree, path)
                spent += len(before or b"") + len(after or b"")
                if item.existed and before is None:
                    why = "what it held before the build was not kept (over the budget of copies)"
                elif why is None:
                    changes.append(Change(path, before, after, test))
                    continue
            if rank <= SETTINGS:  # what decides the tests, unread: changed past checking
                found.append(Finding(path, What.UNCHECKED, "", why or "not read"))
            else:
                unread += 1
    findings = weakenings(changes)
    flagged = {finding.path for finding in findings}
    beyond = (_beyond(change) for change in changes if change.test_file and change.path not in flagged)
    found += [finding for finding in beyond if finding is not None]
    return Judgement(tuple(findings + found), unanswered, unread)


def _beyond(change: Change) -> Finding | None:
    """What a build did to a test file in which no weakening shows, if it counts all the same."""
    path, before, after = change.path, change.before, change.after
    if before is not None and after is not None:
        return None if same_code(path, before, after) else Finding(path, What.REWRITTEN, "", "")
    if before is None and is_found_by_runner(path):
        return Finding(path, What.NARROWED, "", "created by the build: the runner reads it, maybe in place of yours")
    if before is None and language_of(path) is not None:
        return Finding(path, What.HOOK, "", "created by the build: test code the runner loads with the tests")
    return None  # new test data: a snapshot, a golden file


def _now(tree: Tree, path: str) -> tuple[bytes | None, str | None]:
    """What `path` holds now (None: nothing), up to one byte past MAX_READ; or why it cannot be read."""
    try:
        return tree.read(path, MAX_READ + 1), None
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:  # a symlink, a folder, a FIFO: no test file its runner reads as before
        return None, f"it is no longer a regular file ({exc.strerror or exc})"
