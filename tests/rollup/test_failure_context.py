"""Which of the failure's files a repair prompt gets: named, then imported; whole or not at all; in a cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from code_commit.files.confined import Tree
from code_commit.rollup.failure_context import CONTEXT_FLOOR, context_cap, failure_context, read_build_log
from code_commit.rollup.imports import Project, imported, subject

from support import git


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    files = {
        ".gitignore": "/agent-config\n",
        "src/lru/__init__.py": "from ._lru import LRU\nfrom .keys import hashkey\n",
        "src/lru/_lru.py": "class LRU:\n    pass\n",
        "src/lru/keys.py": "def hashkey(*a):\n    return a\n",
        "tests/test_lru.py": "from lru import LRU\n",
        "big.py": "x = 1\n" * 20_000,
    }
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    git(project, "init", "-q")
    git(project, "add", "-A")
    return project


def paths(root: Path, output: str, shown: tuple[str, ...] = (), replaced: tuple[str, ...] = (), cap: int = 10**6):
    return [f.path for f in failure_context(root, output, shown, replaced, cap, ())]


def test_the_named_test_then_what_it_imports_the_one_it_tests_first(root: Path) -> None:
    found = paths(root, f'  File "{root}/tests/test_lru.py", line 1\n')
    # The test, then what it imports through the package's face: the file it tests first.
    assert found == ["tests/test_lru.py", "src/lru/_lru.py", "src/lru/__init__.py", "src/lru/keys.py"]


def test_files_whole_in_the_rollup_or_replaced_are_not_repeated_but_still_followed(root: Path) -> None:
    found = paths(
        root, "tests/test_lru.py:1: AssertionError\n", shown=("tests/test_lru.py",), replaced=("src/lru/__init__.py",)
    )
    assert found == ["src/lru/_lru.py", "src/lru/keys.py"]


def test_a_file_comes_whole_or_not_at_all_within_the_cap(root: Path) -> None:
    output = "big.py:1: e\nsrc/lru/keys.py:1: e\n"
    assert paths(root, output, cap=1000) == ["src/lru/keys.py"]
    assert paths(root, output, cap=10) == []


def test_untracked_symlinked_and_agent_config_files_never_come_in(root: Path) -> None:
    (root / "agent-config").mkdir()
    (root / "agent-config/notes.py").write_text("secret notes\n")
    (root / "scratch.py").write_text("untracked\n")
    os.symlink("/etc/passwd", root / "link.py")
    git(root, "add", "link.py")
    git(root, "add", "-f", "agent-config/notes.py")  # tracked by mistake: still never shown
    output = "agent-config/notes.py:1: e\nscratch.py:1: e\nlink.py:1: e\n"
    assert paths(root, output) == []


def test_a_file_holding_a_secret_never_comes_in(root: Path) -> None:
    (root / "src/lru/keys.py").write_text("TOKEN = 'sk-secret-value-123'\n")
    files = failure_context(root, "src/lru/keys.py:1: e\n", (), (), 10**6, ("sk-secret-value-123",))
    assert files == []


def test_each_file_is_read_once_to_follow_its_imports_and_to_be_shown(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = Tree.read

    def counted(tree: Tree, path: str, limit: int = -1) -> bytes:
        reads.append(path)
        return real(tree, path, limit)

    monkeypatch.setattr(Tree, "read", counted)
    found = paths(root, f'  File "{root}/tests/test_lru.py", line 1\n')
    assert found == ["tests/test_lru.py", "src/lru/_lru.py", "src/lru/__init__.py", "src/lru/keys.py"]
    assert sorted(reads) == sorted(found), "each named or imported file read once: its imports and its text"


def test_the_cap_is_a_share_of_the_prompt_with_a_floor_and_the_context_window_s_room() -> None:
    assert context_cap(1000, None) == CONTEXT_FLOOR
    assert context_cap(1_000_000, None) == 250_000
    assert context_cap(1_000_000, 400_000) == 99_999  # half of what is left: (1,200,000 - 333,334 x 3) / 2
    assert context_cap(2_000_000, 400_000) == 0


def test_the_build_log_is_read_at_both_ends_only(tmp_path: Path) -> None:
    log = tmp_path / "build.txt"
    log.write_bytes(b"src/a.py:1: first\n" + b"." * (5 * 2**20) + b"\nsrc/b.py:2: last\n")
    text = read_build_log(log)
    assert len(text) <= 2 * 2**20 + 1 and "src/a.py:1" in text and "src/b.py:2" in text
    assert read_build_log(tmp_path / "missing.txt") == ""


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("tests/test_lru.py", "lru"),
        ("src/_lru.py", "lru"),
        ("lru_test.go", "lru"),
        ("LruTest.java", "lru"),
        ("web/lru.test.ts", "lru"),
        ("src/__init__.py", ""),
        ("index.js", ""),
    ],
)
def test_a_test_and_its_subject_share_a_key(path: str, key: str) -> None:
    assert subject(path) == key


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("test/tests.c", b'#include "../jsmn.h"\n#include <stdio.h>\n', ["jsmn.h", "jsmn.c"]),
        (
            "web/app.test.ts",
            b"import { f } from './lib/f';\nconst g = require('../web/g.js');\n",
            ["web/lib/f.ts", "web/g.js"],
        ),
        ("src/a/B.java", b"package a;\nimport b.C;\nclass B { D d; }\n", ["src/b/C.java", "src/a/D.java"]),
        ("src/lib.rs", b"mod parse;\npub use crate::eval::x;\n", ["src/parse.rs", "src/eval.rs"]),
        ("tests/t.rs", b"use semver::Version;\nuse std::fmt;\n", ["src/lib.rs"]),
        ("pkg/x_test.go", b"package pkg\n", ["pkg/x.go"]),
        ("test/Makefile", b"all: tests.c ../jsmn.h\n\t$(CC) tests.c -o t\n", ["test/tests.c", "jsmn.h"]),
    ],
)
def test_imports_resolve_to_tracked_files(path: str, text: bytes, expected: list[str]) -> None:
    project = Project(
        frozenset(
            {
                "jsmn.h",
                "jsmn.c",
                "web/lib/f.ts",
                "web/g.js",
                "src/b/C.java",
                "src/a/D.java",
                "src/a/B.java",
                "src/parse.rs",
                "src/eval.rs",
                "src/lib.rs",
                "Cargo.toml",
                "tests/t.rs",
                "pkg/x.go",
                "pkg/x_test.go",
                "test/tests.c",
                "web/app.test.ts",
            }
        )
    )
    assert imported(path, text, project) == expected
