"""The guard: every rule refuses with a reason naming the path and the rule, and nothing else is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from code_commit.guard import Guard


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x\n")
    (tmp_path / ".gitignore").write_text("/agent-config\n*.log\nbuild/\n!keep.log\ndist/\n!dist/keep.txt\n")
    return tmp_path


@pytest.mark.parametrize(
    "path",
    ["src/app.py", "src/new/deep/file.py", "README.md", "keep.log", "docs/build.sh", "src/target/x.rs", "a b.txt"],
)
def test_ordinary_paths_pass(root: Path, path: str) -> None:
    assert Guard(root).check_write(path) is None


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (" a.py", "whitespace"),
        ("a.py ", "whitespace"),
        ("/etc/passwd", "absolute"),
        ("C:/x.py", "drive-letter"),
        ("src\\app.py", "backslash"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        ("../outside.py", "traversal"),
        ("src/../../outside.py", "traversal"),
        ("./a.py", "'.' segments"),
        ("src/", "ends with a slash"),
        ("src//a.py", "empty segment"),
        ("a" * 256, "255 bytes"),
        ("/".join(["d"] * 2100), "4096 bytes"),
    ],
)
def test_path_syntax_rules(root: Path, path: str, rule: str) -> None:
    refusal = Guard(root).check_write(path)
    assert refusal is not None and rule in refusal.rule
    assert repr(path) in str(refusal)


@pytest.mark.parametrize(
    "path",
    [
        ".gitignore",
        "sub/.gitignore",
        "build.sh",
        "codeRollup.sh",
        "Cargo.lock",
        "LLMInstructions.md",
        "UserSpecification.md",
        "docs/UserSpecification.md",
        ".git/config",
        ".git/hooks/pre-commit",
        "vendor/lib/.git/config",
        "agent-config/query.txt",
        "agent-config",
        "target/debug/app",
        # Case and Unicode variants are the same files on macOS and Windows.
        "BUILD.SH",
        ".GIT/config",
        "Agent-Config/x",
        "userspecification.MD",
        ".GitIgnore",
    ],
)
def test_protected_names_are_refused(root: Path, path: str) -> None:
    assert Guard(root).check_write(path) is not None
    assert Guard(root).check_delete(path) is not None


def test_protected_names_match_after_nfc_normalisation(root: Path) -> None:
    # U+212A KELVIN SIGN normalises (NFC) to "K": on macOS "Cargo.loc\u212a" is Cargo.lock.
    assert Guard(root).check_write("Cargo.loc\u212a") is not None
    assert Guard(root).check_write("agent-config\u0301/x") is None  # a different name, not the folder


@pytest.mark.parametrize(
    "path",
    ["debug.log", "logs/x.log", "build/out.o", "src/build/x", "dist/keep.txt", "agent-config/new.txt"],
)
def test_gitignored_paths_are_refused(root: Path, path: str) -> None:
    refusal = Guard(root).check_write(path)
    assert refusal is not None


def test_gitignore_reason_names_git(root: Path) -> None:
    refusal = Guard(root).check_write("debug.log")
    assert refusal is not None and "ignored by git" in refusal.rule


def test_info_exclude_is_honoured(root: Path) -> None:
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("secret.txt\n")
    assert Guard(root).check_write("secret.txt") is not None


def test_extra_protected_patterns(root: Path) -> None:
    guard = Guard(root, extra_patterns=[".github/workflows/**", ".env*"])
    assert guard.check_write(".github/workflows/ci.yml") is not None
    assert guard.check_write(".env.local") is not None
    assert guard.check_write(".github/CODEOWNERS") is None


def test_symlinks_are_never_written_through(root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside, root / "escape")
    os.symlink(root / "src" / "app.py", root / "alias.py")
    os.symlink(root / "nowhere", root / "dangling.py")
    guard = Guard(root)
    for path in ("escape/x.py", "alias.py", "dangling.py"):
        refusal = guard.check_write(path)
        assert refusal is not None and "symlink" in refusal.rule, path
    assert guard.check_delete("alias.py") is not None


def test_writing_over_a_directory_or_below_a_file_is_refused(root: Path) -> None:
    guard = Guard(root)
    assert "directory" in (guard.check_write("src").rule if guard.check_write("src") else "")
    refusal = guard.check_write("src/app.py/child")
    assert refusal is not None and "not a directory" in refusal.rule


def test_root_reached_through_a_symlink_still_works(root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    link = tmp_path_factory.mktemp("links") / "project"
    os.symlink(root, link)
    assert Guard(link).check_write("src/app.py") is None
