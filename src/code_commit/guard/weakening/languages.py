"""What each brace language's test frameworks call a test, a skip, a check and an early exit.

The frameworks covered: JavaScript and TypeScript (Jest, Vitest, Mocha, Jasmine, node:test, AVA,
tap, Chai, Sinon, supertest), Rust (libtest, tokio, rstest, test-case, insta, assert_cmd), Go
(testing, testify, gomega, quicktest, is), Java and Kotlin (JUnit 3/4/5, TestNG, AssertJ,
Hamcrest, Truth, Mockito, kotest matchers), C# (xUnit, NUnit, MSTest, FluentAssertions, Moq,
NSubstitute), PHP (PHPUnit, Pest, Mockery), C and C++ (GoogleTest, Catch2, doctest, Boost.Test,
Criterion, Check, Unity, CMocka, CUnit); and, for any other language, the usual words (`assert`,
`expect`, `should`, `skip`, `pending`, `xit`, ...) counted over the whole file.
"""

# ruff: noqa: SIM905 - word lists read best as words

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from code_commit.guard.weakening.chains import Chain
from code_commit.guard.weakening.facts import FOCUS, SKIP
from code_commit.guard.weakening.lexer import Lexis

ASSERT, FAIL = "assert", "fail"  # a check that holds a condition, or one that fails when reached


@dataclass(frozen=True)
class Rules:
    name: str
    lexis: Lexis
    finder: str  # "calls", "members", "go", "rust", "generic"
    check: Callable[[Chain], str | None]  # ASSERT, FAIL or None
    marker: Callable[[Chain], str | None]  # SKIP, FOCUS or None, for a chain in a body
    exits: frozenset[tuple[str, ...]] = frozenset()  # chains that end the process
    test_annotations: frozenset[str] = frozenset()  # annotations or attributes that make a test
    marker_annotations: Callable[[str, str], str | None] = lambda name, args: None
    row_annotations: frozenset[str] = frozenset()  # each one is a case: @ValueSource, [InlineData]
    container_words: frozenset[str] = frozenset()
    keywords: frozenset[str] = frozenset()  # never a method name
    extra: dict[str, object] = field(default_factory=dict)


def _lower_starts(names: tuple[str, ...], *prefixes: str) -> bool:
    return any(name.lower().startswith(prefixes) for name in names)


# -- JavaScript and TypeScript ---------------------------------------------------------------------------

JS_TESTS = frozenset("it test specify xit xtest xspecify fit ftest fspecify".split())
JS_SUITES = frozenset("describe context suite xdescribe xcontext xsuite fdescribe fcontext".split())
JS_MODIFIERS_SKIP = frozenset("skip todo fails failing skipIf runIf".split())
_TAP_CHECKS = frozenset(
    """is not deepEqual notDeepEqual like notLike throws throwsAsync notThrows notThrowsAsync regex notRegex
    assert true false truthy falsy equal notEqual strictEqual notStrictEqual ok notOk same notSame match
    notMatch has hasStrict error rejects resolves resolveMatch snapshot""".split()
)


def _js_check(chain: Chain) -> str | None:
    names = chain.names
    if not chain.calls:
        return ASSERT if "should" in names[1:] else None
    head = names[0]
    if head in ("expect", "expectTypeOf", "assertType", "should") or head.startswith("assert"):
        return ASSERT
    if any(n in ("expect", "should") or n.startswith("assert") for n in names[1:]):
        return ASSERT  # supertest's .expect(200), sinon.assert.calledOnce, x.should.equal
    if head == "t" and len(names) == 2 and names[1] in _TAP_CHECKS:
        return ASSERT
    if names[-1] == "fail" and head in ("assert", "t", "expect", "chai"):
        return FAIL
    return None


def _js_marker(chain: Chain) -> str | None:
    names = chain.names
    head = names[0]
    if not chain.calls:
        return None
    if head in JS_TESTS | JS_SUITES:
        if head[0] == "x":
            return SKIP
        if head[0] == "f":
            return FOCUS
        if "only" in names[1:]:
            return FOCUS
        if JS_MODIFIERS_SKIP & set(names[1:]):
            return SKIP
        return None
    if head in ("this", "t", "ctx", "context") and len(names) == 2 and names[1] in ("skip", "todo"):
        return SKIP
    if head == "pending" and len(names) == 1:
        return SKIP
    return None


_JS_LEXIS = Lexis(js=True, jsx=True, dollar_ids=True)
_TS_LEXIS = Lexis(js=True, jsx=False, dollar_ids=True)

# -- Go ------------------------------------------------------------------------------------------------

_GO_FAILS = frozenset({"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"})
_GO_RECEIVERS = frozenset({"t", "b", "f", "tb", "tt", "st", "c"})
_TESTIFY = frozenset(
    """Equal NotEqual EqualValues Exactly Same NotSame True False Nil NotNil NoError Error ErrorIs NotErrorIs
    ErrorAs ErrorContains EqualError Len Contains NotContains Empty NotEmpty Zero NotZero Greater GreaterOrEqual
    Less LessOrEqual Panics NotPanics PanicsWithValue PanicsWithError ElementsMatch Subset NotSubset JSONEq YAMLEq
    Regexp NotRegexp IsType Implements InDelta InEpsilon WithinDuration Eventually Never Condition FileExists
    DirExists Positive Negative""".split()
)


def _go_check(chain: Chain) -> str | None:
    names = chain.names
    if not chain.calls:
        return None
    if len(names) >= 2 and names[-1] in _GO_FAILS and names[0] in _GO_RECEIVERS:
        return FAIL
    if len(names) >= 2 and names[-1] in _GO_FAILS and names[-2] == "T" and chain.calls:
        return FAIL  # s.T().Fatal(...)
    if names[0] in ("assert", "require", "is", "qt") and len(names) >= 2:
        return ASSERT
    if any(n in ("Assert", "Require", "Check") for n in names):
        return ASSERT  # s.Require().Equal, c.Assert(...), qt's c.Check
    if names[0] in ("Expect", "Ω", "Eventually", "Consistently") or names[-1] in ("Expect", "Eventually"):
        return ASSERT
    if names[0] in ("s", "suite") and len(names) == 2 and names[1] in _TESTIFY:
        return ASSERT
    return None


def _go_marker(chain: Chain) -> str | None:
    if chain.calls and len(chain.names) >= 2 and chain.names[-1] in ("Skip", "SkipNow", "Skipf"):
        return SKIP
    return None


# -- Rust ----------------------------------------------------------------------------------------------


def _rust_check(chain: Chain) -> str | None:
    if not chain.calls:
        return None
    if _lower_starts(chain.names, "assert", "debug_assert", "prop_assert"):
        return ASSERT  # assert!, assert_eq!, insta::assert_snapshot!, cmd.assert().success()
    if chain.macro and chain.names[-1] == "panic":
        return FAIL
    return None


def _rust_marker_annotation(name: str, args: str) -> str | None:
    if name == "ignore" or name == "should_panic" or name == "cfg":
        return SKIP  # compared as a multiset: only a new or changed one counts
    if name == "cfg_attr" and re.search(r"\bignore\b", args):
        return SKIP
    return None


# -- Java and Kotlin -------------------------------------------------------------------------------------

JVM_TESTS = frozenset("Test ParameterizedTest RepeatedTest TestFactory TestTemplate Property Example Theory".split())
_JVM_SKIP_NEW = frozenset({"AssumptionViolatedException", "TestAbortedException", "SkipException"})


def _jvm_check(chain: Chain) -> str | None:
    if not chain.calls:
        return None
    names = chain.names
    if _lower_starts(names, "assert") or names[0] in ("verify", "verifyNoMoreInteractions", "expectThrows"):
        return ASSERT
    if names[-1] in ("verify", "verifyNoInteractions", "verifyNoMoreInteractions") or names[0] == "expect":
        return ASSERT
    if names[-1] == "fail" and (len(names) == 1 or names[0] in ("Assert", "Assertions", "Fail", "org")):
        return FAIL
    return None


def _jvm_marker(chain: Chain) -> str | None:
    names = chain.names
    if chain.calls and (_lower_starts(names, "assume") or (names[-1] == "abort" and names[0] == "Assumptions")):
        return SKIP
    if names[0] in _JVM_SKIP_NEW or names[-1] in _JVM_SKIP_NEW:
        return SKIP  # throw new TestAbortedException(...)
    return None


def _jvm_marker_annotation(name: str, args: str) -> str | None:
    last = name.rsplit(".", 1)[-1]
    if last in ("Disabled", "Ignore") or re.match(r"(Disabled|Enabled)(If|On|For)", last):
        return SKIP
    if last == "Test" and re.search(r"\benabled\s*=\s*false\b", args):
        return SKIP  # TestNG
    return None


# -- C# ------------------------------------------------------------------------------------------------

CSHARP_TESTS = frozenset(
    "Test TestCase TestCaseSource Fact Theory TestMethod DataTestMethod SkippableFact SkippableTheory".split()
)


def _csharp_check(chain: Chain) -> str | None:
    if not chain.calls:
        return None
    names = chain.names
    if any(n.endswith("Assert") or n.lower().startswith("assert") for n in names):
        return FAIL if names[-1] == "Fail" else ASSERT
    if any(n in ("Should", "Verify", "VerifyAll", "Received", "DidNotReceive") for n in names):
        return ASSERT
    return None


def _csharp_marker(chain: Chain) -> str | None:
    names = chain.names
    if not chain.calls:
        return None
    if names[0] in ("Assert", "ClassicAssert") and len(names) == 2 and names[1] in ("Ignore", "Inconclusive", "Skip"):
        return SKIP
    if names[0] in ("Assume", "Skip") and len(names) == 2:
        return SKIP  # Assume.That, Skip.If, Skip.IfNot, Skip.When, Skip.Unless
    return None


def _csharp_marker_annotation(name: str, args: str) -> str | None:
    last = name.rsplit(".", 1)[-1]
    if last in ("Ignore", "Explicit"):
        return SKIP
    if last in CSHARP_TESTS | {"InlineData", "TestCase"} and re.search(r"\b(Skip|Ignore|Explicit)\s*=", args):
        return SKIP
    return None


# -- PHP -----------------------------------------------------------------------------------------------


def _php_check(chain: Chain) -> str | None:
    if not chain.calls:
        return None
    names = chain.names
    if _lower_starts(names, "assert", "expectexception", "should") or names[0] == "expect":
        return ASSERT
    if names[-1] == "fail" and (len(names) == 1 or names[0] in ("$this", "self", "static")):
        return FAIL
    return None


def _php_marker(chain: Chain) -> str | None:
    names = chain.names
    if not chain.calls:
        return None
    if names[-1] in ("markTestSkipped", "markTestIncomplete"):
        return SKIP
    if names[0] in ("test", "it", "describe") and len(names) > 1:
        if "only" in names[1:]:
            return FOCUS
        if {"skip", "todo"} & set(names[1:]):
            return SKIP
    return None


def _php_marker_annotation(name: str, args: str) -> str | None:
    if name.startswith("Requires") or name in ("Ignore", "Skip"):
        return SKIP
    return None


# -- C and C++ -----------------------------------------------------------------------------------------

C_TEST_MACROS = frozenset(
    """TEST TEST_F TEST_P TYPED_TEST TYPED_TEST_P TEST_CASE TEST_CASE_METHOD SCENARIO TEMPLATE_TEST_CASE
    TEMPLATE_PRODUCT_TEST_CASE BOOST_AUTO_TEST_CASE BOOST_FIXTURE_TEST_CASE BOOST_DATA_TEST_CASE CTEST CTEST2
    START_TEST Test UTEST UTEST_F DOCTEST_TEST_CASE TEST_CASE_FIXTURE""".split()
)
C_REGISTRATIONS = frozenset({"RUN_TEST", "cmocka_unit_test", "tcase_add_test", "CU_add_test", "RUN_TEST_CASE"})
_C_CHECK_PREFIXES = (
    "assert",
    "expect_",
    "check",
    "require",
    "boost_check",
    "boost_require",
    "boost_test",
    "boost_warn",
    "cr_assert",
    "cr_expect",
    "ck_assert",
    "cu_assert",
    "test_assert",
    "g_assert",
    "munit_assert",
    "zassert",
    "static_require",
)
_C_FAILS = frozenset({"FAIL", "ADD_FAILURE", "GTEST_FAIL", "ck_abort", "ck_abort_msg", "cr_fail", "TEST_FAIL"})


def _c_check(chain: Chain) -> str | None:
    if not chain.calls:
        return None
    head = chain.names[0]
    if head in _C_FAILS:
        return FAIL
    if head.lower().startswith(_C_CHECK_PREFIXES):
        return ASSERT
    return None


def _c_marker(chain: Chain) -> str | None:
    if chain.calls and chain.names[0] in (
        "GTEST_SKIP",
        "SKIP",
        "TEST_IGNORE",
        "TEST_IGNORE_MESSAGE",
        "cr_skip_test",
        "skip",
    ):
        return SKIP
    return None


# -- Any other language -----------------------------------------------------------------------------------

GENERIC_MARKERS = frozenset(
    """skip skipped xit xdescribe xcontext xspecify xtest pending fit fdescribe fcontext focus ignore Ignore
    Disabled XCTSkip XCTSkipIf XCTSkipUnless markTestSkipped""".split()
)
GENERIC_TESTS = frozenset("it test specify example scenario should".split())


def _generic_check(chain: Chain) -> str | None:
    if _lower_starts(chain.names, "assert", "expect", "should", "must_", "refute", "xctassert", "verify"):
        return ASSERT
    return None


def _generic_marker(chain: Chain) -> str | None:
    names = chain.names
    if names[0] in GENERIC_MARKERS:
        return FOCUS if names[0] in ("fit", "fdescribe", "fcontext", "focus") else SKIP
    if len(names) > 1 and names[0] in GENERIC_TESTS | {"describe", "context"}:
        if "only" in names[1:]:
            return FOCUS
        if "skip" in names[1:]:
            return SKIP
    return None


_COMMON_KEYWORDS = frozenset(
    "if for while switch catch synchronized using lock foreach return new when typeof sizeof base this super "
    "function fun fn func def else do try throw await yield".split()
)

JS = Rules(
    "JavaScript",
    _JS_LEXIS,
    "calls",
    _js_check,
    _js_marker,
    exits=frozenset({("process", "exit"), ("process", "reallyExit"), ("process", "abort")}),
)
TS = Rules("TypeScript", _TS_LEXIS, "calls", _js_check, _js_marker, exits=JS.exits)
GO = Rules(
    "Go",
    Lexis(quote_strings=False, go_raw=True),
    "go",
    _go_check,
    _go_marker,
    exits=frozenset({("os", "Exit"), ("syscall", "Exit")}),
)
RUST = Rules(
    "Rust",
    Lexis(quote_strings=False, nested_comments=True, rust=True),
    "rust",
    _rust_check,
    lambda chain: None,
    exits=frozenset({("std", "process", "exit"), ("process", "exit"), ("std", "process", "abort")}),
    marker_annotations=_rust_marker_annotation,
    row_annotations=frozenset({"test_case", "case"}),
)
JAVA = Rules(
    "Java",
    Lexis(quote_strings=False, text_blocks=True),
    "members",
    _jvm_check,
    _jvm_marker,
    exits=frozenset({("System", "exit"), ("Runtime", "getRuntime", "halt"), ("Runtime", "getRuntime", "exit")}),
    test_annotations=JVM_TESTS,
    marker_annotations=_jvm_marker_annotation,
    row_annotations=frozenset({"ValueSource", "CsvSource"}),
    container_words=frozenset({"class", "interface", "enum", "record"}),
    keywords=_COMMON_KEYWORDS,
)
KOTLIN = Rules(
    "Kotlin",
    Lexis(quote_strings=False, text_blocks=True, nested_comments=True, backtick_ids=True),
    "members",
    _jvm_check,
    _jvm_marker,
    exits=frozenset({("System", "exit"), ("exitProcess",)}),
    test_annotations=JVM_TESTS,
    marker_annotations=_jvm_marker_annotation,
    row_annotations=frozenset({"ValueSource", "CsvSource"}),
    container_words=frozenset({"class", "interface", "object"}),
    keywords=_COMMON_KEYWORDS,
    extra={"infix_checks": True},
)
CSHARP = Rules(
    "C#",
    Lexis(quote_strings=False, csharp=True),
    "members",
    _csharp_check,
    _csharp_marker,
    exits=frozenset({("Environment", "Exit"), ("Environment", "FailFast")}),
    test_annotations=CSHARP_TESTS,
    marker_annotations=_csharp_marker_annotation,
    row_annotations=frozenset({"InlineData", "TestCase", "DataRow"}),
    container_words=frozenset({"class", "interface", "enum", "struct", "record", "namespace"}),
    keywords=_COMMON_KEYWORDS,
)
PHP = Rules(
    "PHP",
    Lexis(hash_comments=True, php=True),
    "members",
    _php_check,
    _php_marker,
    exits=frozenset({("exit",), ("die",)}),
    test_annotations=frozenset({"Test"}),
    marker_annotations=_php_marker_annotation,
    row_annotations=frozenset({"TestWith"}),
    container_words=frozenset({"class", "interface", "trait", "enum", "namespace"}),
    keywords=_COMMON_KEYWORDS,
)
C = Rules(
    "C/C++",
    Lexis(quote_strings=False, hash_comments=True),
    "members",
    _c_check,
    _c_marker,
    exits=frozenset({("exit",), ("_exit",), ("_Exit",), ("quick_exit",), ("std", "exit")}),
    container_words=frozenset({"class", "struct", "namespace", "union", "extern"}),
    keywords=_COMMON_KEYWORDS,
)
GENERIC_SLASH = Rules("other", Lexis(quote_strings=True), "generic", _generic_check, _generic_marker)
GENERIC_HASH = Rules(
    "other",
    Lexis(quote_strings=True, hash_comments=True, slash_comments=False),
    "generic",
    _generic_check,
    _generic_marker,
)

BY_SUFFIX = {
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".tsx"), JS),
    **dict.fromkeys((".ts", ".mts", ".cts"), TS),
    ".go": GO,
    ".rs": RUST,
    ".java": JAVA,
    **dict.fromkeys((".kt", ".kts"), KOTLIN),
    ".cs": CSHARP,
    ".php": PHP,
    **dict.fromkeys((".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx"), C),
    **dict.fromkeys((".swift", ".scala", ".dart", ".groovy", ".zig", ".fs", ".v", ".d", ".m", ".mm"), GENERIC_SLASH),
    **dict.fromkeys(
        (".rb", ".ex", ".exs", ".cr", ".coffee", ".pl", ".pm", ".t", ".r", ".jl", ".nim", ".sh", ".bash"), GENERIC_HASH
    ),
}


def suffix(path: str) -> str:
    """The file name's last suffix, in lower case, dot included ("" for none): how BY_SUFFIX is keyed."""
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
