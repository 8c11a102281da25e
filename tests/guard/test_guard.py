"""The guard: every rule refuses with a reason naming the path and the rule, and nothing else is refused."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from code_commit.guard import policy
from code_commit.guard.policy import Guard, Refusal

from support import git


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
        ("a\tb", "control"),
        ("a\x7fb", "control"),
        ("a\x85b", "control"),  # C1 controls too
        ("src/\x1b[31m.py", "control"),
        ("../outside.py", "traversal"),
        ("src/../../outside.py", "traversal"),
        ("./a.py", "'.' segments"),
        ("src/", "ends with a slash"),
        ("src//a.py", "empty segment"),
        ("a" * 256, "255 bytes"),
        ("é" * 128, "255 bytes"),  # 256 bytes in UTF-8: the limit is bytes, not characters
        ("/".join(["d"] * 2100), "4096 bytes"),
        ("d/" * 2047 + "abc", "4096 bytes"),  # 4097 bytes
        ("d/" * 101 + "x", "more than 100 folders deep"),
        ("c:x.py", "drive-letter"),
        # Lone surrogates (a JSON answer can spell them, "\udcff"): no UTF-8 file name.
        ("x\udcff.txt", "not valid UTF-8"),
        ("src/x\ud800.txt", "not valid UTF-8"),
        ("\udc80/a.txt", "not valid UTF-8"),
    ],
)
def test_path_syntax_rules(root: Path, path: str, rule: str) -> None:
    refusal = Guard(root).check_write(path)
    assert refusal is not None and rule in refusal.rule
    assert repr(path) in str(refusal)
    delete = Guard(root).check_delete(path)
    assert delete is not None and rule in delete.rule


@pytest.mark.parametrize(
    "path", ["a" * 255, "é" * 127 + "a", ("d" * 199 + "/") * 20 + "a" * 96, "d/" * 100 + "x", "ab:c.txt", "C", "a/b:"]
)
def test_paths_at_the_limits_pass(root: Path, path: str) -> None:
    assert len(path.encode()) <= 4096
    assert Guard(root).check_write(path) is None


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
        "target",  # a file named like a protected root folder
        "Target",
        "target/debug/app",
        # Case and Unicode variants are the same files on macOS and Windows.
        "BUILD.SH",
        ".GIT/config",
        "Agent-Config/x",
        "userspecification.MD",
        ".GitIgnore",
        # Spellings that macOS or Windows resolve to .git (git refuses them for the same reason).
        ".git./config",
        ".git /config",
        ".git::$INDEX_ALLOCATION/config",
        "GIT~1/config",
        ".g\u200cit/config",
        "sub/.G\ufeffIT/hooks/post-checkout",
        # ... and to other protected names.
        "build.sh.",
        "Agent-Config./x",
        "docs/.gitignore:stream",
        ".gitmodules ",
        # NTFS compares names upper-cased: a dotless ı (U+0131) upper-cases to I, a long ſ to S.
        "bu\u0131ld.sh",
        ".g\u0131t/config",
        "agent-conf\u0131g/x",
        "LLM\u0131nstructions.md",
        "U\u017ferSpecification.md",
    ],
)
def test_protected_names_are_refused(root: Path, path: str) -> None:
    assert_protected_name(Guard(root).check_write(path))
    assert_protected_name(Guard(root).check_delete(path))


def test_protected_names_match_after_nfc_normalisation(root: Path) -> None:
    # U+212A KELVIN SIGN normalises (NFC) to "K": on macOS "Cargo.loc\u212a" is Cargo.lock.
    assert_protected_name(Guard(root).check_write("Cargo.loc\u212a"))
    assert Guard(root).check_write("agent-config\u0301/x") is None  # a different name, not the folder


def assert_protected_name(refusal: Refusal | None) -> None:
    """Refused by its name alone: a protected file or folder, git's own folder (or, for `.gitmodules `,
    the spelling rule that comes first), never for git's failure."""
    assert refusal is not None
    assert any(rule in refusal.rule for rule in NAME_RULES), refusal


NAME_RULES = (" is a protected file", " is a protected folder", "inside a .git directory", "trailing whitespace")
IGNORED = [
    ("debug.log", ".gitignore:2: *.log"),
    ("logs/x.log", ".gitignore:2: *.log"),
    ("build/out.o", ".gitignore:3: build/"),
    ("src/build/x", ".gitignore:3: build/"),
    ("dist/keep.txt", ".gitignore:5: dist/"),  # a ! line cannot re-include a file below an ignored folder
]


@pytest.mark.parametrize(("path", "line"), IGNORED)
def test_gitignored_paths_are_refused(root: Path, path: str, line: str) -> None:
    assert_ignored_by(Guard(root).check_write(path), line)


def test_a_path_below_agent_config_is_refused_by_its_name_before_git_is_asked(root: Path) -> None:
    assert_protected_name(Guard(root).check_write("agent-config/new.txt"))


def assert_ignored_by(refusal: Refusal | None, line: str) -> None:
    """Refused because git ignores it, by the ignore file's line that decides it."""
    assert refusal is not None
    assert f"it is ignored by git ({line})" in refusal.rule, refusal


def test_gitignore_reason_names_git(root: Path) -> None:
    refusal = Guard(root).check_write("debug.log")
    assert refusal is not None and "ignored by git" in refusal.rule


def test_info_exclude_is_honoured(root: Path) -> None:
    git(root, "init", "-q")  # a real repository: git reads no index from a bare .git/info folder
    (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("secret.txt\n")
    assert_ignored_by(Guard(root).check_write("secret.txt"), ".git/info/exclude:1: secret.txt")


def test_extra_protected_patterns(root: Path) -> None:
    guard = Guard(root, extra_patterns=[".github/workflows/**", ".env*", "!.env.example", "secrets/", "!secrets/ok"])
    refusal = guard.check_write(".github/workflows/ci.yml")
    assert refusal is not None and "protected pattern '.github/workflows/**'" in refusal.rule
    assert guard.check_write(".env.local") is not None
    assert guard.check_delete(".env") is not None
    assert guard.check_write(".github/CODEOWNERS") is None
    assert guard.check_write(".env.example") is None, "a ! line re-allows, last match wins"
    assert guard.check_write("secrets/ok") is not None, "nothing below a protected folder is re-allowed"
    assert guard.check_write("lib/secrets/key.pem") is not None


def test_extra_protected_patterns_ignore_case_and_normalisation(root: Path) -> None:
    guard = Guard(root, extra_patterns=[".env*", "Caf\u00e9/"])
    assert_protected_pattern(guard.check_write(".ENV"), ".env*")
    assert_protected_pattern(guard.check_write("CAFE\u0301/menu.txt"), "caf\u00e9/")  # NFD spelling, same folder


def assert_protected_pattern(refusal: Refusal | None, pattern: str) -> None:
    assert refusal is not None
    assert f"it matches the protected pattern {pattern!r}" in refusal.rule, refusal


@pytest.fixture
def git_fails(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every git the guard starts fails, as in a broken repository: the guard then refuses every path
    it asks git about (it fails closed), whatever rule the path breaks or not."""
    shim = tmp_path_factory.mktemp("failing-git")
    (shim / "git").write_text('#!/bin/sh\necho "fatal: simulated failure" >&2\nexit 128\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(
    ("path", "check"),
    [
        ("Cargo.lock", assert_protected_name),
        ("Cargo.loc\u212a", assert_protected_name),
        ("BUILD.SH", assert_protected_name),
        (".git/config", assert_protected_name),
        *((path, functools.partial(assert_ignored_by, line=line)) for path, line in IGNORED),
        ("secret.txt", functools.partial(assert_ignored_by, line=".git/info/exclude:1: secret.txt")),
        (".ENV", functools.partial(assert_protected_pattern, pattern=".env*")),
        ("CAFE\u0301/menu.txt", functools.partial(assert_protected_pattern, pattern="caf\u00e9/")),
    ],
)
def test_the_rule_assertions_fail_when_git_failing_is_why_a_path_was_refused(
    root: Path, git_fails: None, monkeypatch: pytest.MonkeyPatch, path: str, check: Callable[[Refusal | None], None]
) -> None:
    # The tests above assert the rule that refused. Here git fails and the name rule is switched
    # off, so every path is refused for git's failure alone: "refused" still holds, the rule does not.
    monkeypatch.setattr(policy, "protected_refusal", lambda path: None)
    refusal = Guard(root, extra_patterns=[".env*", "Caf\u00e9/"]).check_write(path)
    assert refusal is not None and "git could not" in refusal.rule and "simulated failure" in refusal.rule
    with pytest.raises(AssertionError):
        check(refusal)


def test_an_extra_pattern_that_can_never_match_is_an_error(root: Path) -> None:
    with pytest.raises(ValueError, match="unterminated"):
        Guard(root, extra_patterns=["secrets["])


def test_nested_repositories_are_refused(root: Path) -> None:
    (root / "vendor" / "lib" / ".git").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    guard = Guard(root)
    for path in ("vendor/lib/x.c", "vendor/lib/deep/y.c", "sub/README"):
        refusal = guard.check_write(path)
        assert refusal is not None and "nested git repository" in refusal.rule, path
    assert guard.check_write("vendor/other.c") is None


@pytest.fixture
def clone_with_a_submodule(tmp_path: Path) -> Path:
    """A plain `git clone` (no --recurse-submodules, as CI checkouts do) of a project with a
    submodule at vendor/lib: an empty folder, a gitlink in the index, and no .git inside."""
    inner, outer = tmp_path / "inner", tmp_path / "outer"
    for repo in (inner, outer):
        repo.mkdir()
        git(repo, "init", "-q")
    (inner / "lib.c").write_text("int x;\n")
    git(inner, "add", "-A")
    git(inner, "commit", "-qm", "inner")
    (outer / "app.py").write_text("x\n")
    git(outer, "add", "-A")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendor/lib")
    git(outer, "commit", "-qm", "outer")
    git(tmp_path, "clone", "-q", str(outer), "clone")
    clone = tmp_path / "clone"
    assert (clone / "vendor" / "lib").is_dir() and not list((clone / "vendor" / "lib").iterdir())
    return clone


def test_uninitialized_submodules_are_refused(clone_with_a_submodule: Path) -> None:
    clone = clone_with_a_submodule
    guard = Guard(clone)
    for path in ("vendor/lib/evil.py", "vendor/lib/deep/er.c", "vendor/lib", "Vendor/LIB/x.c"):
        refusal = guard.check_write(path)
        assert refusal is not None and "vendor/lib is a submodule" in refusal.rule.lower(), path
    assert guard.check_delete("vendor/lib") is not None
    assert guard.check_write("vendor/other.c") is None and guard.check_write("vendor/lib2/x.c") is None
    # The folder may be gone altogether (deinit, or removed by hand): the index still names it.
    (clone / "vendor" / "lib").rmdir()
    assert Guard(clone).check_write("vendor/lib/evil.py") is not None
    # A project in a subfolder of the repository: the index names the submodule from the top.
    (clone / "vendor" / "lib").mkdir()
    refusal = Guard(clone / "vendor").check_write("lib/evil.py")
    assert refusal is not None and refusal.rule.startswith("lib is a submodule")
    refusal = Guard(clone / "vendor" / "lib").check_write("evil.py")
    assert refusal is not None and "vendor/lib (around the project) is a submodule" in refusal.rule


def test_untracked_files_are_refused_unless_the_run_created_them(root: Path) -> None:
    # git status shows an untracked file as "??" whatever its content, and git diff not at all:
    # a change or a deletion would be invisible, and the original lost.
    git(root, "init", "-q")
    (root / "notes.txt").write_text("the supervisor's notes\n")
    (root / "src" / "staged.py").write_text("x\n")
    git(root, "add", ".gitignore", "src/staged.py")  # tracked once added, even before a commit
    guard = Guard(root)
    for path in ("notes.txt", "src/app.py"):
        refusal = guard.check_write(path)
        assert refusal is not None and f"{path} is not tracked by git" in refusal.rule, path
        assert f"git add {path} first" in refusal.rule
        refusal = guard.check_delete(path)
        assert refusal is not None and "could not show this deletion" in refusal.rule, path
    assert guard.check_write("src/staged.py") is None and guard.check_delete("src/staged.py") is None
    assert guard.check_write("brand/new.txt") is None, "new files show in git status"
    assert guard.check_delete("never/was.txt") is None, "deleting a missing file stays a no-op"
    # Files earlier answers of the same run created are the run's own: writable and deletable.
    created = Guard(root, created=["notes.txt"])
    assert created.check_write("notes.txt") is None and created.check_delete("notes.txt") is None
    assert created.check_write("src/app.py") is not None
    # A project in a subfolder of the repository: the index names files from the top.
    git(root, "add", "src/app.py")
    assert Guard(root / "src").check_write("app.py") is None
    (root / "src" / "loose.py").write_text("x\n")
    assert Guard(root / "src").check_write("loose.py") is not None


def test_outside_a_repository_existing_files_stay_writable(root: Path) -> None:
    # No index, no git status to keep truthful: the untracked-file rule does not apply.
    assert not (root / ".git").exists()
    assert Guard(root).check_write("src/app.py") is None and Guard(root).check_delete("src/app.py") is None


def test_delete_rules(root: Path) -> None:
    (root / "debug.log").write_text("x\n")
    os.symlink(root / "src" / "app.py", root / "alias.py")
    guard = Guard(root)
    assert guard.check_delete("src/app.py") is None
    assert guard.check_delete("does/not/exist.py") is None, "a missing file is a no-op, not a refusal"
    for path, rule in [
        ("src", "directory"),
        ("alias.py", "symlink"),
        ("build.sh", "protected"),
        ("debug.log", "ignored by git"),
        ("src/app.py/x", "not a directory"),
    ]:
        refusal = guard.check_delete(path)
        assert refusal is not None and rule in refusal.rule, path


def test_special_files_are_refused(root: Path) -> None:
    os.mkfifo(root / "pipe")
    refusal = Guard(root).check_write("pipe")
    assert refusal is not None and "not a regular file" in refusal.rule


def test_guard_warnings_report_invalid_ignore_lines(root: Path) -> None:
    (root / ".gitignore").write_text("/agent-config\n[broken\n")
    guard = Guard(root)
    guard.check_write("x.py")
    assert guard.warnings == [
        ".gitignore:2: pattern '[broken' is skipped, as git skips it: an unterminated [ bracket expression"
    ]


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
