"""What an answer or a build does to the tests and the runners' configuration, judged on the tree.

The rule is plain so that it can be kept exactly: an existing test file may not be changed or
deleted; a runner's configuration (`runners.TABLE`: a whole file, or the runner's part of a file
such as pyproject.toml's `[tool.pytest]`) may not be created, changed or deleted; a source's own
tests (`files.in_source_tests`) may not be changed. A new test file is allowed: it is kept, and the
run judges the pass without it. Whether a change is *bad* for the tests is not asked: that question
has no end, and the runners' own counts (`counts`) judge what the tests say.

"Existing" means there before the run: a test file an earlier answer of the same run created is
the model's own new test, which later answers and builds may change.

A build is held to the same rule, and to one more: it may create no test code a runner collects
by its name (`test_x.py`, `x.test.js`, a `conftest.py`), nor runner configuration. What tools write
into test folders (a CMake build tree's `tests/CMakeFiles/...`, bytecode, reports) is data, not code.

Fails closed: when git cannot say which paths are tests, every path is judged as one; a file whose
original cannot be read, or whose format cannot be parsed, counts as changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.files.confined import Tree
from code_commit.testguard.files import TestPaths, in_source_tests, may_hold_own_tests, named_as_test
from code_commit.testguard.runners import RunnerPart, Unreadable, entries_for, is_runner_file, runner_part

CREATED, CHANGED, DELETED = "created", "changed", "deleted"
MAX_READ = 4 << 20  # bytes of one file read to judge it (runners.MAX_CONFIG_BYTES is the parsers' own cap)
_MAX_BUILD_FILES = 1_000  # files one build changed that are read, at most
_MAX_BUILD_BYTES = 64 << 20  # bytes read for one build's changes, at most
_PACKAGE_MARKER = "__init__.py"  # in a folder of tests, it changes how pytest imports every module there


@dataclass(frozen=True)
class TestChange:
    """A change to what the tests are: an existing test file, a runner's configuration, a source's
    own tests."""

    __test__ = False  # a class named Test* that pytest must not collect

    path: str
    kind: str  # CREATED, CHANGED or DELETED
    what: str  # "a test file", "pytest's configuration (the whole file)", ...

    def __str__(self) -> str:
        return f"{self.path}: {self.kind} {self.what}"


@dataclass(frozen=True)
class Judged:
    changes: tuple[TestChange, ...]  # what the rule forbids under protect
    new_tests: tuple[str, ...] = ()  # test files created (an answer's): kept, judged apart
    unanswered: str | None = None  # why git could not say which paths are tests (each was judged as one)
    unread: int = 0  # files a build changed that could hold tests, left unread (the budget)


def _tests(paths: TestPaths, names: Iterable[str]) -> tuple[set[str], str | None]:
    names = list(names)
    try:
        verdicts = paths.check(names)
    except OSError as exc:  # GitUnanswered: fail closed
        return set(names), str(exc) or type(exc).__name__
    return {name for name, verdict in verdicts.items() if verdict is not None}, None


def _kind(before: bytes | None, after: bytes | None) -> str:
    return CREATED if before is None else DELETED if after is None else CHANGED


def _config_change(path: str, before: bytes | None, after: bytes | None) -> TestChange | None:
    """The change to the runners' configuration in `path`, if any (a file they cannot read counts)."""
    try:
        old, new = runner_part(path, before), runner_part(path, after)
    except Unreadable as exc:
        return TestChange(path, _kind(before, after), f"a file test runners read, which could not be parsed ({exc})")
    if old is None or new is None or old == new or not (old.holds_any() or new.holds_any()):
        return None
    return TestChange(path, _kind(before, after), _described(new if new.holds_any() else old))


def _described(part: RunnerPart) -> str:
    return f"{part.runners} configuration ({part.parts})"


def _in_source_change(path: str, before: bytes | None, after: bytes | None) -> TestChange | None:
    """A change to a source's own tests (layout alone aside: a formatter in build.sh)."""
    old = in_source_tests(path, before)
    if old is None:
        return None
    new = in_source_tests(path, after)
    if new is not None and new.items == old.items:
        return None
    return TestChange(path, DELETED if after is None else CHANGED, f"the tests in a source file (from line {old.line})")


def _package_marker(root: Path, path: str) -> bool:
    """A new `__init__.py` in a folder of tests that already holds files: it changes how pytest
    imports each of them (rootdir-relative package names, `conftest.py` scope)."""
    folder, _, name = path.rpartition("/")
    if name != _PACKAGE_MARKER:
        return False
    try:
        with os.scandir(root / folder if folder else root) as entries:
            return any(entry.name != _PACKAGE_MARKER for entry in entries)
    except OSError:
        return False


def judge_answer(root: Path, proposed: Mapping[str, bytes | None], new: Collection[str], paths: TestPaths) -> Judged:
    """What writing `proposed` (path -> new content, None: deleted) over the tree as it is now does to
    the tests. `new`: the test files this run created, which are the model's to change. Each
    original is read without following a symlink (the guard refuses writing through one)."""
    tests, unanswered = _tests(paths, proposed)
    changes: list[TestChange] = []
    created: list[str] = []
    with Tree(root) as tree:
        for path, after in proposed.items():
            before, why = _now(tree, path)
            if why is not None:
                changes.append(TestChange(path, CHANGED, f"a file whose original is past checking ({why})"))
                continue
            if before == after:
                continue
            if path in tests and before is not None and path not in new:
                changes.append(TestChange(path, _kind(before, after), "a test file"))
                continue
            config = _config_change(path, before, after)
            if config is None and before is None and _package_marker(root, path) and path in tests:
                config = TestChange(path, CREATED, "pytest's configuration (a package marker among existing tests)")
            if config is not None:
                changes.append(config)
            elif path in tests and after is not None:
                created.append(path)
            elif path not in tests and (found := _in_source_change(path, before, after)) is not None:
                changes.append(found)
    return Judged(tuple(changes), tuple(created), unanswered)


@dataclass(frozen=True)
class Touched:
    """A file a build created, changed or deleted."""

    path: str
    existed: bool  # it was there before the build
    exists: bool  # it is there after it
    size: int  # its size then, in bytes
    held: Callable[[], bytes | None]  # what it held then, read only when needed; None: no copy was kept


# The trees of installed packages, by the runners' own rule for skipping them: a folder named
# node_modules (pytest's norecursedirs, Jest's testPathIgnorePatterns) or holding a virtual
# environment's pyvenv.cfg (pytest's virtualenv check). Every file a build makes there is the tool's:
# a runner collects nothing from them. In a build tree (CMake's, Meson's, one tagged by the Cache
# Directory Tagging Specification: Cargo's target/) what a build tool reads where the build points it
# (a generated Makefile, CTestTestfile.cmake) is the tool's output, but what a runner finds by walking
# the tree (a conftest.py, a test module) still counts: a marker there is no runner's rule, and the
# model's code could write one.
_PACKAGE_FOLDER = "node_modules"
_PACKAGE_TREES = ("pyvenv.cfg",)
_BUILD_TREES = ("CMakeCache.txt", "CACHEDIR.TAG", "meson-private")


class _ToolTrees:
    """Which folders of the project are tool trees, by their markers, looked up once a folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.known: dict[tuple[str, tuple[str, ...]], bool] = {}

    def holds(self, path: str, markers: tuple[str, ...]) -> bool:
        parts = path.split("/")[:-1]
        return any(self._marked("/".join(parts[: depth + 1]), markers) for depth in range(len(parts)))

    def _marked(self, folder: str, markers: tuple[str, ...]) -> bool:
        key = (folder, markers)
        if key not in self.known:
            self.known[key] = any(os.path.lexists(self.root / folder / marker) for marker in markers)
        return self.known[key]


def _reads(path: str) -> bool:
    """Whether judging a build's change to `path` needs what it holds: a runner's file, or a source
    that may hold its own tests."""
    return is_runner_file(path) or may_hold_own_tests(path)


def _tool_output(path: str, trees: _ToolTrees) -> bool:
    """A file a build created in a tree of installed packages, or in a build tree where no runner
    finds it by walking the tree."""
    if _PACKAGE_FOLDER in path.split("/")[:-1] or trees.holds(path, _PACKAGE_TREES):
        return True
    if named_as_test(path) or any(entry.discovered for entry in entries_for(path)):
        return False
    return trees.holds(path, _BUILD_TREES)


def _created_test_code(root: Path, path: str) -> TestChange | None:
    """A file a build created among the tests that a runner takes up by its name alone."""
    if named_as_test(path):
        return TestChange(path, CREATED, "test code that its runner collects by name")
    if _package_marker(root, path):
        return TestChange(path, CREATED, "pytest's configuration (a package marker among existing tests)")
    return None


def judge_build(root: Path, touched: Sequence[Touched], new: Collection[str], paths: TestPaths) -> Judged:
    """What a build did to the tests. An existing test file changed or deleted counts, however; a
    runner's configuration created, changed or deleted counts; test code a runner collects by its
    name created counts. `new`: the files the run made (its answers' new tests, the test data its
    builds wrote, which a later build may write again), judged when they were made. Bounded:
    _MAX_BUILD_FILES files and _MAX_BUILD_BYTES read at most; a runner's file past that counts."""
    tests, unanswered = _tests(paths, (item.path for item in touched))
    changes: list[TestChange] = []
    unread = spent = read = 0
    trees = _ToolTrees(root)
    with Tree(root) as tree:
        for item in touched:
            path = item.path
            found: TestChange | None = None
            if path in new or (not item.existed and _tool_output(path, trees)):
                continue
            if path in tests and item.existed:
                found = TestChange(path, CHANGED if item.exists else DELETED, "a test file")
            elif _reads(path):
                if spent >= _MAX_BUILD_BYTES or read >= _MAX_BUILD_FILES:
                    unread += 1
                    if is_runner_file(path):
                        found = TestChange(path, CHANGED, "a file test runners read, past checking (the read budget)")
                else:
                    read += 1
                    before = item.held() if item.existed else None
                    after, why = _now(tree, path)
                    spent += len(before or b"") + len(after or b"")
                    if (item.existed and before is None) or why is not None:
                        if is_runner_file(path):
                            found = TestChange(
                                path, CHANGED, f"a file test runners read, past checking ({why or 'no copy'})"
                            )
                    else:
                        found = _config_change(path, before, after) or _in_source_change(path, before, after)
            if found is None and path in tests and not item.existed:
                found = _created_test_code(root, path)
            if found is not None:
                changes.append(found)
    return Judged(tuple(changes), (), unanswered, unread)


def _now(tree: Tree, path: str) -> tuple[bytes | None, str | None]:
    """What `path` holds now (None: nothing), up to one byte past MAX_READ; or why it cannot be read."""
    try:
        data = tree.read(path, MAX_READ + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:  # a symlink, a folder, a FIFO: no file its runner reads as before
        return None, f"not a regular file: {exc.strerror or exc}"
    return (None, f"over {MAX_READ >> 20} MiB") if len(data) > MAX_READ else (data, None)
