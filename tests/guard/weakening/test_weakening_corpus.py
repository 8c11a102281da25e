"""The corpus: test-weakening edits and legitimate test edits in Python, JavaScript and TypeScript,
Rust, Go, Java, Kotlin, C#, PHP, C++ and the runners' configuration files (corpus/*.txt). Every
weakening edit is detected as what it is; no legitimate edit is reported."""

from __future__ import annotations

from collections import Counter

import pytest

from code_commit.guard.weakening import Change, What, weakenings

from weakening_corpus import Case, every_case

CASES = every_case()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_each_corpus_edit_is_judged_as_expected(case: Case) -> None:
    found = weakenings([Change(case.path, case.before, case.after)])
    shown = "\n".join(map(str, found)) or "(nothing)"
    assert {f.what.name for f in found} == {kind for kind, _ in case.expect}, shown
    for kind, where in case.expect:
        if where:
            assert any(f.what.name == kind and f.where == where for f in found), f"{kind}@{where} in\n{shown}"


def test_the_corpus_has_both_kinds_of_edit_in_every_language() -> None:
    weakening = Counter(case.file for case in CASES if case.weakening)
    legitimate = Counter(case.file for case in CASES if not case.weakening)
    for file in ("python.txt", "javascript.txt", "rust.txt", "go.txt", "java.txt"):
        assert weakening[file] >= 10 and legitimate[file] >= 4, (file, weakening[file], legitimate[file])
    every_kind = {kind for case in CASES for kind, _ in case.expect}
    # UNCHECKED: 8 MiB files (test_weakening_changes.py); REWRITTEN: a build's alone (test_build_judging.py)
    assert every_kind == {what.name for what in What} - {"UNCHECKED", "REWRITTEN"}
    print(f"\ncorpus: {sum(weakening.values())} weakening edits, {sum(legitimate.values())} legitimate ones")
