"""A setting's gitignore-style patterns (test_patterns, protected_patterns, the rollup's) are matched
by git, and git is asked about a path once a process for the same patterns: a run asks at each build."""

from __future__ import annotations

import pytest

from code_commit.git import ignore


def test_git_is_asked_once_per_patterns_and_path_and_never_across_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[str]] = []
    real = ignore.check_ignore

    def counted(tree, paths, *rest, **options):
        paths = list(paths)
        asked.append(paths)
        return real(tree, paths, *rest, **options)

    monkeypatch.setattr(ignore, "check_ignore", counted)
    tests = ignore.PathPatterns(["tests/", "*.spec.js"], "test_patterns")
    first = tests.check(["tests/a.py", "src/b.py"])
    again = tests.check(["src/b.py", "tests/a.py", "lib/c.spec.js"])
    other = ignore.PathPatterns(["src/"], "rollup_exclude").check(["src/b.py"])

    assert asked == [["tests/a.py", "src/b.py"], ["lib/c.spec.js"], ["src/b.py"]]
    assert first == {"tests/a.py": ignore.IgnoreMatch("test_patterns", 1, "tests/"), "src/b.py": None}
    assert again == {**first, "lib/c.spec.js": ignore.IgnoreMatch("test_patterns", 2, "*.spec.js")}
    assert list(again) == ["src/b.py", "tests/a.py", "lib/c.spec.js"], "in the order asked"
    assert other == {"src/b.py": ignore.IgnoreMatch("rollup_exclude", 1, "src/")}


def test_when_git_cannot_answer_nothing_is_remembered() -> None:
    patterns = ignore.PathPatterns(["tests/"], "test_patterns")

    def unanswered(*args, **options):
        raise ignore.GitUnanswered("git check-ignore could not run")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ignore, "check_ignore", unanswered)
        with pytest.raises(ignore.GitUnanswered):
            patterns.check(["tests/a.py"])
        with pytest.raises(ignore.GitUnanswered):
            patterns.check(["tests/a.py"])  # asked again: the failure was not kept as an answer
    assert patterns.check(["tests/a.py"]) == {"tests/a.py": ignore.IgnoreMatch("test_patterns", 1, "tests/")}
