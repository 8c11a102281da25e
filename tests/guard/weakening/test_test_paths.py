"""Which paths are tests: the default patterns, `test_patterns` extending or replacing them (git
matching, as for protected_patterns), and sources that hold tests by their content."""

from __future__ import annotations

import pytest

from code_commit.git import ignore
from code_commit.guard.weakening import DEFAULT_PATTERNS, TestPaths, holds_tests

TESTS = [
    "tests/test_calc.py",
    "tests/data/expected.json",
    "pkg/tests/unit/test_io.py",
    "src/calc_test.py",
    "conftest.py",
    "sub/pkg/conftest.py",
    "app/tests.py",
    "test/unit/router.js",
    "spec/models/user_spec.rb",
    "src/components/__tests__/Button.js",
    "src/components/__snapshots__/Button.test.js.snap",
    "src/__mocks__/fs.js",
    "internal/calc/calc_test.go",
    "internal/calc/testdata/golden.txt",
    "src/sum.test.ts",
    "src/sum.test.mts",
    "src/App.spec.jsx",
    "src/App.test.tsx",
    "src/test/java/com/example/CalculatorTests.java",
    "app/src/androidTest/java/com/example/UiTest.kt",
    "lib/src/integrationTest/kotlin/ApiIT.kt",
    "crates/cli/tests/integration.rs",
    "Calc.Tests/CalcTests.cs",
    "CalcTests/StackTests.cs",
    "tests/ComparatorTest.php",
    "test/test_calc.c",
    "e2e/login.spec.ts",
    "pytest.ini",
    "jest.config.ts",
    "vitest.config.mts",
    ".mocharc.yml",
    "karma.conf.js",
    "phpunit.xml.dist",
    ".rspec",
    ".config/nextest.toml",
    "playwright.config.ts",
]
NOT_TESTS = [
    "src/calc.py",
    "src/main/java/com/example/Latest.java",  # *Test.java is case-sensitive: Latest is not a test
    "src/main/java/com/example/Testimonial.java",
    "lib/contest.rb",
    "src/attest.go",
    "src/spectrum.js",
    "docs/testing.md",
    "README.md",
    "package.json",  # manifests are read for their test settings, not guarded as test files
    "pyproject.toml",
    "Cargo.toml",
    "vite.config.ts",
    "src/openapi.spec.yaml",  # *.spec.* is for code: an API spec is no test
    "TESTS/test_notes.txt",  # case-sensitive: a folder named TESTS is not tests/
]


def test_the_default_patterns_recognise_the_common_ecosystems() -> None:
    verdicts = TestPaths().check(TESTS + NOT_TESTS)
    assert [p for p in TESTS if verdicts[p] is None] == []
    assert [p for p in NOT_TESTS if verdicts[p] is not None] == []


def test_a_verdict_names_the_pattern_and_whether_it_is_a_default() -> None:
    verdicts = TestPaths(["qa/**"]).check(["tests/a.py", "qa/smoke.sh"])
    assert verdicts == {"tests/a.py": "tests/ (default)", "qa/smoke.sh": "qa/** (test_patterns)"}


def test_test_patterns_extend_the_defaults_and_a_bang_drops_a_file() -> None:
    paths = TestPaths(["qa/**", "Makefile", "!internal/calc/calc_test.go"])
    verdicts = paths.check(["qa/smoke.sh", "Makefile", "sub/Makefile", "tests/a.py", "internal/calc/calc_test.go"])
    assert {p for p, v in verdicts.items() if v} == {"qa/smoke.sh", "Makefile", "sub/Makefile", "tests/a.py"}


def test_replace_mode_uses_the_test_patterns_alone() -> None:
    verdicts = TestPaths(["checks/"], mode="replace").check(["checks/a.py", "tests/test_a.py", "conftest.py"])
    assert {p for p, v in verdicts.items() if v} == {"checks/a.py"}


def test_a_bad_mode_or_a_pattern_that_cannot_match_is_refused() -> None:
    with pytest.raises(ValueError, match="test_patterns_mode"):
        TestPaths([], mode="merge")
    with pytest.raises(ValueError, match="test_patterns"):
        TestPaths(["tests/[unclosed"])


def test_one_git_call_for_all_the_paths_of_a_change(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = ignore.check_ignore

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ignore, "check_ignore", counted)
    verdicts = TestPaths().check([f"src/m{n}.py" for n in range(300)] + [f"tests/test_{n}.py" for n in range(300)])
    assert len(calls) == 1
    assert sum(v is not None for v in verdicts.values()) == 300


def test_when_git_cannot_answer_the_check_raises_for_the_caller_to_fail_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(OSError, match="git"):
        TestPaths().check(["tests/test_a.py"])


def test_every_default_pattern_is_usable_by_git() -> None:
    assert all(ignore.pattern_problem(p) is None for p in DEFAULT_PATTERNS)


@pytest.mark.parametrize(
    ("path", "content", "holds"),
    [
        ("src/lib.rs", b"fn f() {}\n#[cfg(test)]\nmod tests {\n #[test]\n fn t() { assert!(true); }\n}\n", True),
        ("src/lib.rs", b"#[tokio::test]\nasync fn t() {}\n", True),
        ("src/lib.rs", b'// #[test] in a comment\nconst S: &str = "#[cfg(test)]";\nfn f() {}\n', False),
        ("src/lib.rs", b"fn test_helper() {}\n", False),
        ("src/sum.ts", b"export const sum = (a, b) => a + b\nif (import.meta.vitest) { test('x', () => {}) }\n", True),
        ("src/sum.ts", b"// import.meta.vitest is how in-source tests start\nexport const vitest = 1\n", False),
        ("src/calc.py", b"def test_x():\n    assert 1\n", False),  # pytest collects by file name only
        ("src/lib.rs", None, False),
    ],
)
def test_a_source_file_holds_tests_by_its_code_not_its_comments(path: str, content: bytes | None, holds: bool) -> None:
    assert holds_tests(path, content) is holds
