"""The readers against real projects' test files (tests/fixtures/test_styles/, vendored with their
licences): every test found, and mechanical edits of every test judged right: each assertion line
deleted and each test skipped is detected; the file reformatted or given a new test is not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from code_commit.guard.weakening import What, file_weakenings
from code_commit.guard.weakening.compare import judge
from code_commit.guard.weakening.detect import _facts
from code_commit.guard.weakening.languages import BY_SUFFIX
from code_commit.guard.weakening.lexer import COMMENT, lex

STYLES = Path(__file__).resolve().parents[2] / "fixtures" / "test_styles"
SAMPLE = 12  # mutants per file and edit, spread over it: the suite stays fast

# file -> (path in its project, tests it declares: counted by hand from the file)
REAL = {
    "itsdangerous/test_signer.py": ("tests/test_itsdangerous/test_signer.py", 11),
    "express/app.route.js": ("test/app.route.js", 10),
    "yup/bool.ts": ("test/bool.ts", 6),
    "cobra/args_test.go": ("args_test.go", 58),
    "ripgrep/test_matcher.rs": ("crates/matcher/tests/test_matcher.rs", 10),
    "ripgrep/pathutil.rs": ("crates/globset/src/pathutil.rs", 13),  # 15 macro calls, 2 names under two cfgs
    "junit5-samples/CalculatorTests.java": ("src/test/java/CalculatorTests.java", 2),
    "junit5-samples/CalculatorTests.kt": ("src/test/kotlin/CalculatorTests.kt", 2),
    "semver/ComparatorTest.php": ("tests/ComparatorTest.php", 7),
    "xunit-samples/StackTests.cs": ("test/StackTests.cs", 16),
}
# A line that starts an assertion, per language.
ASSERTION_LINE = {
    ".py": r"^\s*assert\b|\.assert\w*\(|pytest\.raises",
    ".js": r"\.expect\(|\bexpect\(|\bassert[.(]",
    ".ts": r"\bexpect\(",
    ".go": r"\bt\.(Error|Errorf|Fatal|Fatalf)\(|^\s*\w+\(err, t\b|expectSuccess\(",
    ".rs": r"\bassert(_eq|_ne)?!",
    ".java": r"\bassert\w*\(",
    ".kt": r"\bassert\w*\(",
    ".php": r"assert\w*\(",
    ".cs": r"\bAssert\.\w+",
}
# How to skip a test, per language: (pattern of a test's first line, replacement)
SKIP_EDIT = {
    ".py": (r"^(\s*)(def test_)", r"\1@pytest.mark.skip\n\1\2"),
    ".js": (r"^(\s*)it\(", r"\1it.skip("),
    ".ts": (r"^(\s*)it\(", r"\1it.skip("),
    ".go": (r"^(func Test\w*\(t \*testing\.T\) \{)$", "\\1\n\tt.Skip()"),
    ".rs": (r"^(\s*)#\[test\]", r"\1#[test]\n\1#[ignore]"),
    ".java": (r"^(\s*)@(Test|ParameterizedTest)\b", r"\1@Disabled\n\1@\2"),
    ".kt": (r"^(\s*)@(Test|ParameterizedTest)\b", r"\1@Disabled\n\1@\2"),
    ".php": (
        r"^(\s*)public function (test\w*)\(([^)]*)\)\s*\{",
        r"\1public function \2(\3) {\n$this->markTestSkipped();",
    ),
    ".cs": (r"\[Fact\]", '[Fact(Skip = "later")]'),
}
NEW_TEST = {
    ".py": "\n\ndef test_added_by_the_model():\n    assert 1 + 1 == 2\n",
    ".js": "\nit('is added by the model', function () {\n  expect(1 + 1).toBe(2);\n});\n",
    ".ts": "\nit('is added by the model', () => {\n  expect(1 + 1).toBe(2);\n});\n",
    ".go": '\nfunc TestAddedByTheModel(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal("no")\n\t}\n}\n',
    ".rs": "\n#[test]\nfn added_by_the_model() {\n    assert_eq!(1 + 1, 2);\n}\n",
}


def _real() -> list[tuple[str, str, int]]:
    return [(name, path, count) for name, (path, count) in REAL.items()]


@pytest.mark.parametrize(("name", "path", "count"), _real())
def test_the_readers_find_every_test_of_a_real_file_and_its_assertions(name: str, path: str, count: int) -> None:
    facts = _facts(path, (STYLES / name).read_bytes())
    assert facts.unreadable is None
    assert len(facts.tests) == count
    assert all(t.checks for t in facts.tests.values()), [t.name for t in facts.tests.values() if not t.checks]
    assert not facts.markers  # none of these files skips anything


@pytest.mark.parametrize(("name", "path", "count"), _real())
def test_a_real_file_unchanged_or_reformatted_is_no_weakening(name: str, path: str, count: int) -> None:
    source = (STYLES / name).read_bytes()
    assert file_weakenings(path, source, source) == []
    reformatted = _reformatted(path, source.decode())
    assert reformatted != source.decode()
    assert file_weakenings(path, source, reformatted.encode()) == []


@pytest.mark.parametrize(("name", "path", "count"), _real())
def test_deleting_any_assertion_line_of_a_real_file_is_detected(name: str, path: str, count: int) -> None:
    source = (STYLES / name).read_text()
    lines = source.split("\n")
    pattern = re.compile(ASSERTION_LINE[Path(path).suffix])
    targets = [n for n, line in enumerate(lines) if pattern.search(line) and not line.lstrip().startswith("//")]
    assert targets
    before = _facts(path, source.encode())
    missed = []
    for n in targets[:: max(1, len(targets) // SAMPLE)]:  # spread over the file
        mutant = "\n".join(lines[:n] + lines[n + 1 :])
        if not judge(path, before, _facts(path, mutant.encode())).findings:
            missed.append(lines[n].strip())
    assert missed == []


# pathutil.rs's tests are macro calls, skipped through the macro: the corpus has that case.
@pytest.mark.parametrize(("name", "path", "count"), [r for r in _real() if r[0] != "ripgrep/pathutil.rs"])
def test_skipping_any_test_of_a_real_file_is_detected(name: str, path: str, count: int) -> None:
    source = (STYLES / name).read_text()
    suffix = Path(path).suffix
    pattern, replacement = SKIP_EDIT[suffix]
    places = list(re.finditer(pattern, source, re.MULTILINE))
    assert places
    before = _facts(path, source.encode())
    for place in places[:: max(1, len(places) // SAMPLE)]:
        mutant = source[: place.start()] + place.expand(replacement) + source[place.end() :]
        found = judge(path, before, _facts(path, mutant.encode())).findings
        assert What.SKIPPED in {f.what for f in found}, (place.group(0), found)


@pytest.mark.parametrize(("name", "path", "count"), [r for r in _real() if Path(r[1]).suffix in NEW_TEST])
def test_adding_a_test_to_a_real_file_is_no_weakening(name: str, path: str, count: int) -> None:
    source = (STYLES / name).read_text()
    grown = source + NEW_TEST[Path(path).suffix]
    assert file_weakenings(path, source.encode(), grown.encode()) == []
    assert len(_facts(path, grown.encode()).tests) == count + 1


def _reformatted(path: str, source: str) -> str:
    """The same code laid out anew: Python through ast.unparse (comments dropped, quotes and
    parentheses changed), brace languages with every indentation removed and runs of spaces doubled."""
    if path.endswith(".py"):
        return ast.unparse(ast.parse(source))
    tokens = lex(source, BY_SUFFIX[Path(path).suffix].lexis)
    out = []
    for k, token in enumerate(tokens):
        gap = source[tokens[k - 1].pos + len(tokens[k - 1].text) : token.pos] if k else ""
        out.append("\n" if "\n" in gap or (k and tokens[k - 1].kind == COMMENT) else "  " if gap else "")
        out.append(token.text)
    return "".join(out) + "\n"
