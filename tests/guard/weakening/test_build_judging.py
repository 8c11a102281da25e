"""What a build did to the tests (`judging.judge_build`): held to more than an answer, since a build
has no reason to touch a test. A deleted or rewritten test file counts even where no weakening shows,
a reformat does not; created test code and runner configuration count, created test data does not;
what cannot be read counts as changed past checking; the reads are bounded."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from code_commit.git.ignore import GitUnanswered
from code_commit.guard.weakening import TestPaths, What, judging
from code_commit.guard.weakening.judging import Touched, judge_build
from code_commit.guard.weakening.layout import same_code

TEST = b"from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def built(root: Path, before: dict[str, bytes | None], after: dict[str, bytes | None]) -> list[Touched]:
    """Write `after` over the tree as a build would; each path's Touched, as the run makes it."""
    touched = []
    for path, content in after.items():
        target = root / path
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        held = before.get(path)
        touched.append(Touched(path, held is not None, content is not None, len(held or b""), lambda held=held: held))
    return touched


def judged(root: Path, before: dict[str, bytes | None], after: dict[str, bytes | None]) -> list[tuple[str, str, str]]:
    findings = judge_build(root, built(root, before, after), TestPaths()).findings
    return [(f.path, f.what.name, f.detail) for f in findings]


def test_a_rewrite_that_keeps_every_check_still_counts_as_the_build_s(root: Path) -> None:
    patched = TEST.replace(b"    assert", b"    add = lambda a, b: 5\n    assert")  # the code under test, replaced
    assert judged(root, {"tests/test_calc.py": TEST}, {"tests/test_calc.py": patched}) == [
        ("tests/test_calc.py", "REWRITTEN", "")
    ]


def test_what_the_detector_sees_is_named_as_it_would_be_in_an_answer(root: Path) -> None:
    weakened = TEST.replace(b"== 5", b"== -1")
    ((path, what, detail),) = judged(root, {"tests/test_calc.py": TEST}, {"tests/test_calc.py": weakened})
    assert (path, what) == ("tests/test_calc.py", "CHECK_WEAKENED") and "== -1" in detail


def test_a_deleted_test_file_counts_even_when_its_tests_went_to_a_file_the_runner_skips(root: Path) -> None:
    found = judged(root, {"tests/test_calc.py": TEST}, {"tests/test_calc.py": None, "tests/calc_checks.py": TEST})
    assert ("tests/test_calc.py", "DELETED", "by the build") in found


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("tests/test_calc.py", TEST, TEST.replace(b"add(2, 3) == 5", b"add(2,3)==5") + b"\n\n# formatted\n"),
        (
            "calc_test.go",
            b"func TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 { t.Fatal() }\n}\n",
            b"func TestAdd(t *testing.T) {\n    if Add(2, 3) != 5 {  t.Fatal() }\n}\n",
        ),
    ],
)
def test_a_formatter_that_only_lays_a_test_out_anew_is_no_change_to_the_tests(
    root: Path, path: str, before: bytes, after: bytes
) -> None:
    assert judged(root, {path: before}, {path: after}) == []


def test_python_s_bytecode_cache_beside_a_test_is_no_test(root: Path) -> None:
    """Where git shows `__pycache__/`, pytest rewrites it whenever a test changes (its assertion rewriting)."""
    cache = "tests/__pycache__/test_calc.cpython-311-pytest-9.0.3.pyc"
    assert judged(root, {cache: b"\x00old"}, {cache: b"\x00new"}) == []
    assert judged(root, {"tests/data.bin": b"\x00old"}, {"tests/data.bin": b"\x00new"}) != [], "test data is"


def test_a_line_break_that_ends_a_statement_is_code_not_layout() -> None:
    assert not same_code("a.test.js", b"return expect(add(2, 3)).toBe(5)\n", b"return\nexpect(add(2, 3)).toBe(5)\n")
    assert same_code("a_test.rs", b"fn t() { assert_eq!(add(2,3), 5); }", b"fn t() {\n    assert_eq!(add(2, 3), 5);\n}")
    assert not same_code("tests/data.json", b'{"a": 1}', b'{"a":1}'), "data has no layout to ignore"


def test_created_test_data_is_no_weakening_but_created_test_code_and_configuration_are(root: Path) -> None:
    created = {
        "tests/__snapshots__/calc.test.js.snap": b"exports[`add 1`] = `5`;\n",
        "tests/golden/out.txt": b"5\n",
        "tests/conftest.py": b"import calc\n\ncalc.add = lambda a, b: 5\n",  # no hook, but it runs first
        "tests/test_zz.py": b"import calc\n\ncalc.add = lambda a, b: a + b\n",  # imported before any test runs
        "pytest.ini": b"[pytest]\n",  # takes the place of pyproject.toml's settings
        "tests/tox.ini": b"[pytest]\n",  # so does this one, for `pytest tests`
        "tests/CTestTestfile.cmake": b"subdirs(unit)\n",  # written by CMake configuring in the tree
    }
    assert sorted((path, what) for path, what, _ in judged(root, {}, created)) == [
        ("pytest.ini", "NARROWED"),
        ("tests/conftest.py", "HOOK"),
        ("tests/test_zz.py", "HOOK"),
        ("tests/tox.ini", "NARROWED"),
    ]


def test_a_created_hook_is_named_by_the_detector(root: Path) -> None:
    hook = b"def pytest_collection_modifyitems(items):\n    items.clear()\n"
    assert judged(root, {}, {"conftest.py": hook}) == [("conftest.py", "HOOK", "added")]


def test_test_settings_in_a_file_that_is_no_test_are_read_as_in_an_answer(root: Path) -> None:
    before = b'[project]\nname = "calc"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    narrowed = before + b'addopts = "-k not_add"\n'
    ((path, what, _),) = judged(root, {"pyproject.toml": before}, {"pyproject.toml": narrowed})
    assert (path, what) == ("pyproject.toml", "NARROWED")
    version = before.replace(b'name = "calc"', b'name = "calc"\nversion = "2"')
    assert judged(root, {"pyproject.toml": before}, {"pyproject.toml": version}) == []
    assert judged(root, {"README.md": b"a\n"}, {"README.md": b"b\n"}) == [], "no test, no test settings"


def test_a_test_file_whose_original_was_not_kept_or_that_is_now_a_symlink_is_changed_past_checking(
    root: Path,
) -> None:
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_bytes(TEST + b"# changed\n")
    unknown = Touched("tests/test_calc.py", True, True, len(TEST), lambda: None)
    os.symlink("/etc/hostname", root / "tests" / "test_other.py")
    linked = Touched("tests/test_other.py", True, True, len(TEST), lambda: TEST)
    findings = judge_build(root, [unknown, linked], TestPaths()).findings
    assert [(f.path, f.what) for f in findings] == [
        ("tests/test_calc.py", What.UNCHECKED),
        ("tests/test_other.py", What.UNCHECKED),
    ]
    assert "was not kept" in findings[0].detail and "no longer a regular file" in findings[1].detail


def test_the_reads_are_bounded_a_test_file_past_them_counts_and_other_files_are_counted(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judging, "MAX_BUILD_FILES", 2)
    sources = {f"src/{n}.rs": b"fn a() {}\n" for n in range(3)}  # named first, read last
    before = sources | {f"tests/test_{n}.py": TEST for n in range(3)} | {"package.json": b"{}\n"}
    after = {path: content + b"\n\n" for path, content in before.items()}  # layout: no finding when read
    reads = []
    touched = [
        Touched(t.path, t.existed, t.exists, t.size, lambda t=t: reads.append(t.path) or t.held())
        for t in built(root, before, after)
    ]
    judgement = judge_build(root, touched, TestPaths())
    assert reads == ["tests/test_0.py", "tests/test_1.py"], "test files first, and no more than the budget"
    assert [(f.path, f.what) for f in judgement.findings] == [
        ("tests/test_2.py", What.UNCHECKED),
        ("package.json", What.UNCHECKED),  # test settings, unread: past checking too
    ]
    assert judgement.unread == 3  # the sources could hold tests, but were not read
    big = Touched("tests/test_big.py", True, True, 9 << 20, lambda: pytest.fail("a file over the limit is read"))
    ((finding,),) = [judge_build(root, [big], TestPaths()).findings]
    assert (finding.what, finding.detail) == (What.UNCHECKED, "not read: over 8 MiB")


def test_when_git_cannot_say_which_files_are_tests_every_file_a_build_changed_is_one(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unanswered(self: TestPaths, paths: object) -> dict[str, str | None]:
        raise GitUnanswered("git check-ignore could not run")

    monkeypatch.setattr(TestPaths, "check", unanswered)
    judgement = judge_build(root, built(root, {"notes.py": b"x = 1\n"}, {"notes.py": b"x = 2\n"}), TestPaths())
    assert judgement.unanswered == "git check-ignore could not run"
    assert [(f.path, f.what) for f in judgement.findings] == [("notes.py", What.REWRITTEN)]
