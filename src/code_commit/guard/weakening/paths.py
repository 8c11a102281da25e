"""Which paths are tests: test code, its data (fixtures, snapshots, golden files) and the test
configuration that decides which tests run.

The defaults are gitignore patterns, matched by git itself with the user's `test_patterns` (see
`git/ignore.py`: a throwaway git directory whose info/exclude holds the patterns, one
`git check-ignore` for all the paths of a change). `test_patterns` extend the defaults (a `!line`
drops a file the defaults name, as in any ignore file) or, with `test_patterns_mode = "replace"`,
replace them. Matching is case-sensitive, as the conventions are (`*Test.java` is not
`Latest.java`).

Sources may hold tests too: a Rust file with `#[test]` or `#[cfg(test)]` functions and a
JavaScript or TypeScript file with in-source Vitest tests (`import.meta.vitest`) are judged as
test files whatever their path (`holds_tests`).

Files that mix test configuration with other settings (pyproject.toml, setup.cfg, tox.ini,
package.json, pom.xml, build.gradle, Cargo.toml, CMakeLists.txt, vite.config.*) are not test files:
what they say about tests is read by `runners/` whatever the patterns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from code_commit.config.settings import TEST_PATTERNS_MODES
from code_commit.guard.weakening.languages import BY_SUFFIX, JS, RUST, TS, suffix
from code_commit.guard.weakening.lexer import ID, PUNCT, brackets, code, lex

SOURCE = "test_patterns"

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
# Files named as tests, wherever they are.
TEST_FILES = (
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
# Configuration that decides which tests run, and nothing else.
TEST_CONFIG = (
    "pytest.ini",
    ".pytest.ini",
    "jest.config.*",
    "vitest.config.*",
    "vitest.workspace.*",
    ".mocharc*",
    "karma.conf.*",
    "playwright.config.*",
    "cypress.config.*",
    "ava.config.*",
    "phpunit.xml",
    "phpunit.xml.dist",
    ".rspec",
    ".config/nextest.toml",
)
DEFAULT_PATTERNS = (*TEST_FOLDERS, *TEST_FILES, *TEST_CONFIG)


def test_pattern_lines(patterns: Sequence[str], mode: str) -> tuple[str, ...]:
    """The patterns in force: the defaults then the user's, or the user's alone."""
    if mode not in TEST_PATTERNS_MODES:
        raise ValueError(f"test_patterns_mode must be one of {', '.join(TEST_PATTERNS_MODES)}, not {mode!r}")
    return tuple(patterns) if mode == "replace" else (*DEFAULT_PATTERNS, *patterns)


class TestPaths:
    """Which paths of a change are tests, git deciding (one `git check-ignore` per call)."""

    __test__ = False  # a class named Test* that pytest must not collect

    def __init__(self, patterns: Sequence[str] = (), mode: str = "extend") -> None:
        from code_commit.git.ignore import PathPatterns  # git is asked only when there are paths

        self.lines = test_pattern_lines(patterns, mode)
        self.defaults = 0 if mode == "replace" else len(DEFAULT_PATTERNS)
        self._patterns = PathPatterns(self.lines, SOURCE)

    def check(self, paths: Iterable[str]) -> dict[str, str | None]:
        """For each path, the pattern that makes it a test ("tests/ (default)", "qa/** (test_patterns)"),
        or None. Raises GitUnanswered (an OSError) if git cannot say: the caller treats every
        path as a test then, failing closed."""
        found = self._patterns.check(paths)
        return {
            path: None if match is None else self._named(match.line, match.pattern) for path, match in found.items()
        }

    def _named(self, line: int, pattern: str) -> str:
        return f"{pattern} ({'default' if line <= self.defaults else SOURCE})"


def may_hold_tests(path: str) -> bool:
    """Whether a file of this name can hold tests whatever its path (`holds_tests` reads it to say)."""
    return BY_SUFFIX.get(suffix(path)) in (RUST, JS, TS)


def holds_tests(path: str, content: bytes | None) -> bool:
    """Whether a source file holds tests whatever its path: Rust `#[test]`/`#[cfg(test)]`, in-source
    Vitest (`import.meta.vitest`). Read as tokens, so a comment or string saying so does not count."""
    if content is None:
        return False
    rules = BY_SUFFIX.get(suffix(path))
    if rules is RUST:
        if b"test" not in content:
            return False
        tokens = code(lex(content.decode("utf-8", "replace"), RUST.lexis))
        partner = brackets(tokens)
        for j, token in enumerate(tokens[:-2]):
            if token.kind == PUNCT and token.text == "#" and tokens[j + 1].text == "[" and partner[j + 1] > j:
                inside = [t.text for t in tokens[j + 2 : partner[j + 1]]]
                if inside == ["test"] or (inside[:1] == ["cfg"] and "test" in inside) or inside[-1:] == ["test"]:
                    return True
        return False
    if rules in (JS, TS):
        if b"vitest" not in content:
            return False
        tokens = code(lex(content.decode("utf-8", "replace"), rules.lexis))
        texts = [t.text for t in tokens]
        return any(
            texts[j : j + 5] == ["import", ".", "meta", ".", "vitest"] and tokens[j].kind == ID
            for j in range(len(texts))
        )
    return False
