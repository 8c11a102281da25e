"""A whole change judged at once: a test moved to another file is no loss, a test that is gone is;
which files are judged at all; and inputs built to cost work or crash the readers."""

from __future__ import annotations

import pytest

from code_commit.guard.weakening import Change, Finding, What, detect, file_weakenings, weakenings
from code_commit.guard.weakening.languages import JS, RUST
from code_commit.guard.weakening.lexer import _Lexer, lex

CALC = b"""from calc import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(3, 2) == 1
"""
ADD_ONLY = b"""from calc import add


def test_add():
    assert add(2, 3) == 5
"""
SUB_ONLY = b"""from calc import sub


def test_sub():
    assert sub(3, 2) == 1
"""


def kinds(found: list[Finding]) -> set[str]:
    return {f"{f.what.name}@{f.path}" for f in found}


def test_a_test_moved_to_a_new_file_is_no_loss() -> None:
    found = weakenings([Change("tests/test_calc.py", CALC, ADD_ONLY), Change("tests/test_sub.py", None, SUB_ONLY)])
    assert found == []


def test_a_test_moved_to_an_existing_file_is_no_loss() -> None:
    existing = b"def test_mul():\n    assert mul(2, 3) == 6\n"
    found = weakenings(
        [
            Change("tests/test_calc.py", CALC, ADD_ONLY),
            Change("tests/test_more.py", existing, existing + b"\n" + SUB_ONLY),
        ]
    )
    assert found == []


def test_a_test_file_renamed_is_no_loss() -> None:
    found = weakenings([Change("tests/test_calc.py", CALC, None), Change("tests/test_arith.py", None, CALC)])
    assert found == []


def test_a_data_file_renamed_is_no_loss_but_deleted_it_is() -> None:
    data = b'{"total": 3}\n'
    assert weakenings([Change("tests/data/a.json", data, None), Change("tests/data/b.json", None, data)]) == []
    assert kinds(weakenings([Change("tests/data/a.json", data, None)])) == {"DELETED@tests/data/a.json"}


def test_a_test_that_moves_nowhere_is_removed_and_one_that_moves_gaining_a_skip_is_skipped() -> None:
    assert kinds(weakenings([Change("tests/test_calc.py", CALC, ADD_ONLY)])) == {"REMOVED@tests/test_calc.py"}
    skipped = b"import pytest\n\n\n@pytest.mark.skip\n" + SUB_ONLY.split(b"\n\n\n", 1)[1]
    found = weakenings([Change("tests/test_calc.py", CALC, ADD_ONLY), Change("tests/test_sub.py", None, skipped)])
    assert kinds(found) == {"SKIPPED@tests/test_sub.py"}


def test_a_deleted_test_file_whose_tests_went_nowhere_is_reported_once() -> None:
    found = weakenings([Change("tests/test_calc.py", CALC, None)])
    assert [f.what for f in found] == [What.DELETED]


def test_a_file_that_is_no_test_is_not_judged_unless_it_holds_tests() -> None:
    weakened = CALC.replace(b"    assert sub(3, 2) == 1\n", b"    pass\n")
    assert file_weakenings("src/calc_checks.py", CALC, weakened, test_file=False) == []
    rust = (
        b"pub fn add(a: i32) -> i32 { a }\n"
        b"#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1), 1); }\n}\n"
    )
    gutted = rust.replace(b"assert_eq!(super::add(1), 1);", b"")
    found = file_weakenings("src/lib.rs", rust, gutted, test_file=False)
    assert [(f.what, f.where) for f in found] == [(What.CHECKS_REMOVED, "tests::adds")]


def test_a_new_file_reaches_other_tests_only_through_hooks_filters_and_focus() -> None:
    skipped_new = b"import pytest\n\npytestmark = pytest.mark.skip\n\n\ndef test_new():\n    assert 1\n"
    assert weakenings([Change("tests/test_new.py", None, skipped_new)]) == []
    hook = b"def pytest_collection_modifyitems(items):\n    items.clear()\n"
    assert kinds(weakenings([Change("tests/conftest.py", None, hook)])) == {"HOOK@tests/conftest.py"}


def test_a_test_file_over_the_read_limit_is_unchecked_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detect, "MAX_READ", 64)
    found = file_weakenings("tests/test_calc.py", CALC, CALC + b"# a comment\n")
    assert [f.what for f in found] == [What.UNCHECKED] and "over" in found[0].detail


def test_a_finding_reads_as_path_test_what_and_detail() -> None:
    finding = Finding("tests/test_calc.py", What.SKIPPED, "test_add", "@pytest.mark.skip")
    assert str(finding) == "tests/test_calc.py: test_add: added a skip, xfail or ignore marker (@pytest.mark.skip)"
    assert str(Finding("a_test.go", What.DELETED, "", "")) == "a_test.go: deleted a test file"


def test_a_python_file_nested_past_the_parsers_limits_is_unreadable_not_a_crash() -> None:
    deep = b"def test_x():\n    assert " + b"(" * 400 + b"1" + b")" * 400 + b"\n"
    found = file_weakenings("tests/test_deep.py", CALC, deep)
    assert [f.what for f in found] == [What.UNREADABLE]
    long_chain = b"def test_x():\n    assert " + b"+".join([b"x"] * 50_000) + b"\n"
    assert {f.what for f in file_weakenings("tests/test_chain.py", CALC, long_chain)} <= {What.UNREADABLE, What.REMOVED}


def test_failed_jsx_guesses_scan_a_bounded_number_of_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """`(<T` in TypeScript-in-JSX looks like an element that never closes: each guess reads to the end
    of the file, so the guesses share a budget of twice the file's length."""
    scanned: list[int] = []
    real = _Lexer._jsx

    def counting(self: _Lexer, i: int) -> int | None:
        end = real(self, i)
        scanned.append((end if end is not None else self._scanned) - i)
        return end

    monkeypatch.setattr(_Lexer, "_jsx", counting)
    text = "const f = (<T,>(x: T) => x);\n" * 4000
    tokens = lex(text, JS.lexis)
    assert sum(scanned) <= 2 * len(text) + 1024 + len(text)  # the budget, and the one guess that used it up
    assert sum(t.text == "=>" for t in tokens) == 4000  # the code after each guess is still read as code


def test_deeply_nested_templates_brackets_and_comments_do_not_exhaust_the_stack() -> None:
    template = "`${" * 5000 + "x" + "}`" * 5000
    assert lex(f"const a = {template};", JS.lexis)
    rust = "fn f() {" + "/*" * 20000 + "*/" * 20000 + "}"
    assert [t.text for t in lex(rust, RUST.lexis) if t.kind != "comment"] == ["fn", "f", "(", ")", "{", "}"]
    brackets = "it('x', () => {" + "(" * 50000 + "});\n"
    assert file_weakenings("test/a.test.js", b"it('x', () => { expect(1).toBe(1) })\n", brackets.encode())


def test_thousands_of_changed_checks_are_paired_one_to_one() -> None:
    before = "def test_many():\n" + "".join(f"    assert f({n}) == {n}\n" for n in range(1000))
    after = "def test_many():\n" + "".join(f"    assert f({n}) == {n + 1}\n" for n in range(1000))
    found = file_weakenings("tests/test_many.py", before.encode(), after.encode())
    assert len(found) == 1000 and {f.what for f in found} == {What.CHECK_WEAKENED}


def test_matching_removed_tests_to_new_ones_compares_a_bounded_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """600 tests renamed, each with a body of its own but one check in common: every removed
    test is compared with at most MAX_TRIED new ones, not with all 600."""
    from code_commit.guard.weakening import compare

    compared = []
    real = compare._keeps_checks
    monkeypatch.setattr(compare, "_keeps_checks", lambda old, new: compared.append(1) or real(old, new))
    count = 600
    before = "".join(f"def test_a{n}():\n    x = {n}\n    assert ok()\n\n" for n in range(count))
    after = "".join(f"def test_b{n}():\n    x = {n + 1}\n    assert ok()\n\n" for n in range(count))
    found = file_weakenings("tests/test_many.py", before.encode(), after.encode())
    assert found == []  # each old test's one check is kept by a new one
    assert len(compared) <= compare.MAX_TRIED * count


def test_tests_nested_thousands_deep_are_read_once_and_suites_found_in_one_sweep() -> None:
    depth = 3000
    nested = "it('t', () => {\n" * depth + "expect(1).toBe(1);\n" + "});\n" * depth
    facts = detect._facts("test/deep.test.js", nested.encode())
    assert list(facts.tests) == ["t"]  # the inner ones are inside a test: no runner collects them
    suites = "describe('s', () => {\n" * depth + "it.skip('t', () => {});\n" + "});\n" * depth
    facts = detect._facts("test/deep.test.js", suites.encode())
    assert [t.markers[0].shown for t in facts.tests.values()] == ["it.skip"]
    marked = "describe.skip('s', () => {\n" * depth + "});\n" * depth
    assert len(detect._facts("test/deep.test.js", marked.encode()).markers) == depth
