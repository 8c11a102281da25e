"""Which paths are tests: test code and its data (fixtures, snapshots, golden files).

The defaults are gitignore patterns, matched by git itself with the user's `test_patterns` (see
`git/ignore.py`: a throwaway git directory whose info/exclude holds the patterns, one
`git check-ignore` for all the paths of a change). `test_patterns` extend the defaults (a `!line`
drops a file the defaults name, as in any ignore file) or, with `test_patterns_mode = "replace"`,
replace them. Matching is case-sensitive, as the conventions are (`*Test.java` is not `Latest.java`).

Some sources hold tests of their own: Rust's items under `#[cfg(test)]` or `#[test]` (a `mod tests
{ ... }`, a `use`, a `fn`: each the whole item its attributes apply to, as the Rust reference
defines it, at the top level or in a module's, impl's or trait's body) and in-source Vitest's
top-level `if (import.meta.vitest) { ... }`. `in_source_tests` takes each such item as tree-sitter
parses it (strings, raw strings, comments and nested braces are the grammar's): the code around
them is the model's to change, the items are not. Where the file does not parse whole, the grammar
is missing or the items are past MAX_NODES, it falls back to everything from the first such line to
the end of the file, failing closed.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from code_commit.config.settings import TEST_PATTERNS_MODES

_SOURCE = "test_patterns"

# Folders of tests, at any depth (a pattern with no slash but a trailing one matches a folder anywhere).
TEST_FOLDERS = (
    "tests/",
    "test/",
    "spec/",
    "specs/",
    "__tests__/",
    "__snapshots__/",
    "__mocks__/",
    "__fixtures__/",
    "testdata/",
    "test_data/",
    "e2e/",
    "*Tests/",
    "*.Test/",
    "*.Tests/",
    "**/src/*Test/",
    "**/src/testFixtures/",
)
# Files named as tests, wherever they are: the names the runners collect by default.
_TEST_FILES = (
    "test_*.py",
    "*_test.py",
    "tests.py",
    "conftest.py",
    "*_test.go",
    "*.test.[jt]s",
    "*.test.[jt]sx",
    "*.test.[cm][jt]s",
    "*.spec.[jt]s",
    "*.spec.[jt]sx",
    "*.spec.[cm][jt]s",
    "*_test.rb",
    "*_spec.rb",
    "*Test.php",
    "*Test.java",
    "*Tests.java",
    "*TestCase.java",
    "*IT.java",
    "*Test.kt",
    "*Tests.kt",
    "*Test.cs",
    "*Tests.cs",
    "*Tests.swift",
    "*Spec.scala",
    "*Suite.scala",
    "*Test.scala",
    "*_test.dart",
    "*_test.exs",
    "*_test.c",
    "*_test.cc",
    "*_test.cpp",
    "*_unittest.cc",
    "test_*.c",
)
_DEFAULT_PATTERNS = (*TEST_FOLDERS, *_TEST_FILES)
_JS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")

# The line that starts a source's own tests, by suffix: an attribute or a condition at a line's start.
_IN_SOURCE = (
    ((".rs",), re.compile(rb"^[ \t]*#\[(?:cfg\(test\)|test)\]", re.MULTILINE)),
    (_JS, re.compile(rb"^[ \t]*if[ \t]*\([ \t]*import\.meta\.vitest\b", re.MULTILINE)),
)


MAX_NODES = 100_000  # the item lists' nodes walked to find a file's tests, at most
_RUST_TESTS = (b"#[cfg(test)]", b"#[test]")
_VITEST = b"(import.meta.vitest)"
_SPACE = re.compile(rb"\s+")


def _test_pattern_lines(patterns: Sequence[str], mode: str) -> tuple[str, ...]:
    """The patterns in force: the defaults then the user's, or the user's alone."""
    if mode not in TEST_PATTERNS_MODES:
        raise ValueError(f"test_patterns_mode must be one of {', '.join(TEST_PATTERNS_MODES)}, not {mode!r}")
    return tuple(patterns) if mode == "replace" else (*_DEFAULT_PATTERNS, *patterns)


class TestPaths:
    """Which paths are tests, git deciding (one `git check-ignore` per call)."""

    __test__ = False  # a class named Test* that pytest must not collect

    def __init__(self, patterns: Sequence[str] = (), mode: str = "extend") -> None:
        from code_commit.git.ignore import PathPatterns  # git is asked only when there are paths

        self.lines = _test_pattern_lines(patterns, mode)
        self.defaults = 0 if mode == "replace" else len(_DEFAULT_PATTERNS)
        self._patterns = PathPatterns(self.lines, _SOURCE)

    def check(self, paths: Iterable[str]) -> dict[str, str | None]:
        """For each path, the pattern that makes it a test ("tests/ (default)", "qa/** (test_patterns)"),
        or None. Raises GitUnanswered (an OSError) if git cannot say: callers then treat every path
        as a test, failing closed."""
        found = self._patterns.check(paths)
        return {path: None if m is None else self._named(m.line, m.pattern) for path, m in found.items()}

    def _named(self, line: int, pattern: str) -> str:
        return f"{pattern} ({'default' if line <= self.defaults else _SOURCE})"


def named_as_test(path: str) -> bool:
    """Whether a file's name is one a runner collects by default (`test_x.py`, `x.test.js`), or it is
    JavaScript in a `__tests__` folder, which Jest collects whatever its name: test code, as opposed
    to the data a test folder also holds (fixtures, snapshots, and what tools write there)."""
    name = path.rsplit("/", 1)[-1]
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in _TEST_FILES):
        return True
    return "__tests__" in path.split("/")[:-1] and name.endswith(_JS)


@dataclass(frozen=True)
class _InSource:
    """A source file's own tests: each item's text, its layout aside (a formatter in build.sh), the
    first starting at `line` (1-based)."""

    line: int
    items: tuple[bytes, ...]


def may_hold_own_tests(path: str) -> bool:
    """Whether a source of this name may hold its own tests (`in_source_tests` reads it to say)."""
    return any(path.endswith(suffixes) for suffixes, _ in _IN_SOURCE)


def in_source_tests(path: str, content: bytes | None) -> _InSource | None:
    """The items of a source file that are its own tests, if it holds any (see the module's note)."""
    start = next((start for suffixes, start in _IN_SOURCE if path.endswith(suffixes)), None)
    found = None if start is None or content is None else start.search(content)
    if found is None or content is None:
        return None
    spans = _test_items(path, content)
    if spans is None:  # past parsing: from the first line to the end
        spans = [(found.start(), len(content))]
    items = tuple(_SPACE.sub(b" ", content[a:b]).strip() for a, b in spans)
    return _InSource(content.count(b"\n", 0, spans[0][0]) + 1, items) if spans else None


def _test_items(path: str, content: bytes) -> list[tuple[int, int]] | None:
    """Each test item's byte span, walking the item lists (a file's, a module's, an impl's or a
    trait's body) and no deeper; None when the file does not parse whole, or past MAX_NODES nodes."""
    from code_commit.rollup.grammars import LANGUAGES, parser_for

    parser = parser_for(LANGUAGES[path[path.rfind(".") :]])
    root = None if parser is None else parser.parse(content).root_node
    if root is None or root.has_error:
        return None
    spans: list[tuple[int, int]] = []
    lists, budget = [root], MAX_NODES
    while lists:
        attributes: int | None = None  # where the attributes of the item being read start
        tested = False  # one of them is a test's
        for node in lists.pop().children:
            budget -= 1
            if budget < 0:
                return None
            if node.type == "attribute_item":
                attributes = node.start_byte if attributes is None else attributes
                tested = tested or _SPACE.sub(b"", content[node.start_byte : node.end_byte]) in _RUST_TESTS
            elif node.type == "if_statement" and (condition := node.child_by_field_name("condition")) is not None:
                if _SPACE.sub(b"", content[condition.start_byte : condition.end_byte]) == _VITEST:
                    spans.append((node.start_byte, node.end_byte))
            elif "comment" not in node.type:
                if tested and attributes is not None:
                    spans.append((attributes, node.end_byte))
                elif (body := node.child_by_field_name("body")) is not None and body.type == "declaration_list":
                    lists.append(body)
                attributes, tested = None, False
    return sorted(spans)
