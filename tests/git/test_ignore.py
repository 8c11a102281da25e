"""git's ignore rules as the guard applies them: every source git uses, its precedence, and its quirks.

git itself decides (git/ignore.py asks `git check-ignore`); the differential test
(test_ignore_differential.py) compares generated cases with a separate git call, and these tests
pin down each rule by name, through `Guard`, which is what a user meets.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from code_commit.git.ignore import pattern_problem
from code_commit.git.layout import GitSetup, find_git_layout
from code_commit.guard.policy import MAX_DEPTH, Guard

from support import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def refused(root: Path, path: str, **kwargs) -> str | None:
    refusal = Guard(root, git=kwargs.pop("git", GitSetup()), **kwargs).check_write(path)
    return refusal.rule if refusal else None


def test_nested_gitignore_patterns_are_relative_to_their_directory(repo: Path) -> None:
    write(repo, "sub/.gitignore", "/local.txt\nanywhere.txt\n")
    assert refused(repo, "sub/local.txt")
    assert refused(repo, "sub/deeper/anywhere.txt")
    assert not refused(repo, "local.txt")
    assert not refused(repo, "sub/deeper/local.txt")
    assert not refused(repo, "anywhere.txt")


def test_a_deeper_gitignore_overrides_a_shallower_one(repo: Path) -> None:
    write(repo, ".gitignore", "*.log\n")
    write(repo, "logs/.gitignore", "!keep.log\n")
    assert not refused(repo, "logs/keep.log")
    assert refused(repo, "keep.log")
    assert refused(repo, "logs/other.log")


def test_last_matching_line_wins(repo: Path) -> None:
    write(repo, ".gitignore", "*.txt\n!notes.txt\nnotes.txt\n!readme.txt\n")
    assert refused(repo, "notes.txt")
    assert not refused(repo, "readme.txt")


def test_nothing_under_an_excluded_directory_can_be_re_included(repo: Path) -> None:
    write(repo, ".gitignore", "build/\n!build/keep.txt\n/out/*\n!/out/keep.txt\n")
    rule = refused(repo, "build/keep.txt")
    assert rule and ".gitignore:1: build/" in rule, "the reason names the line that excluded the directory"
    assert not refused(repo, "out/keep.txt"), "out/ itself is not excluded, only what is in it"
    assert refused(repo, "out/other.txt")


def test_the_gitignore_of_an_excluded_directory_is_never_read(repo: Path) -> None:
    write(repo, ".gitignore", "vendor/\n")
    write(repo, "vendor/.gitignore", "!*\n")
    assert refused(repo, "vendor/lib.c")


def test_info_exclude_ranks_below_every_gitignore(repo: Path) -> None:
    write(repo, ".git/info/exclude", "secret.txt\n*.bak\n")
    write(repo, ".gitignore", "!*.bak\n")
    rule = refused(repo, "secret.txt")
    assert rule and ".git/info/exclude:1" in rule
    assert not refused(repo, "old.bak"), "a .gitignore negation outranks info/exclude"


def test_info_exclude_of_a_linked_worktree_is_the_shared_one(repo: Path, tmp_path: Path) -> None:
    write(repo, "a.txt", "a\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "a")
    write(repo, ".git/info/exclude", "secret.txt\n")
    worktree = tmp_path / "worktree"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    rule = refused(worktree, "secret.txt")
    assert rule and "(.git/info/exclude:1: secret.txt)" in rule, "named as in the main work tree, not by full path"


def test_core_excludes_file_ranks_below_info_exclude(repo: Path, tmp_path: Path) -> None:
    excludes = tmp_path / "global-ignore"
    excludes.write_text(".env\n*.pem\n")
    git(repo, "config", "core.excludesFile", str(excludes))
    write(repo, ".git/info/exclude", "!*.pem\n")
    rule = refused(repo, ".env")
    assert rule and f"{excludes}:1: .env" in rule
    assert not refused(repo, "cert.pem")


def test_default_excludes_file_is_under_xdg_config_home(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "xdg/git/ignore", "*.secret\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert refused(repo, "a.secret")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert not refused(repo, "a.secret")
    write(tmp_path, "home/.config/git/ignore", "*.secret\n")
    assert refused(repo, "a.secret")


def test_core_ignore_case_folds_ascii_case_like_git(repo: Path) -> None:
    write(repo, ".gitignore", "secret.txt\n/Build/\n")
    assert not refused(repo, "SECRET.TXT")
    git(repo, "config", "core.ignoreCase", "true")
    guard = Guard(repo)
    assert guard.check_write("SECRET.TXT") is not None
    assert guard.check_write("build/x.o") is not None


def test_files_whose_changes_git_status_hides_are_refused(repo: Path) -> None:
    for name in ("assumed.txt", "sparse.txt", "plain.txt"):
        write(repo, name, "x\n")
    git(repo, "add", ".")
    git(repo, "update-index", "--assume-unchanged", "assumed.txt")
    git(repo, "update-index", "--skip-worktree", "sparse.txt")
    guard = Guard(repo)
    for name in ("assumed.txt", "sparse.txt"):
        refusal = guard.check_write(name)
        assert refusal is not None and "assume-unchanged or skip-worktree" in refusal.rule, name
        assert guard.check_delete(name) is not None
    assert guard.check_write("plain.txt") is None


def test_an_index_git_cannot_read_refuses_every_path(repo: Path) -> None:
    # Without the index the guard cannot tell tracked from untracked files, nor see submodules:
    # it fails closed rather than guess, and says why.
    write(repo, "a.txt", "x\n")
    git(repo, "add", "a.txt")
    (repo / ".git" / "index").write_bytes(b"not an index")
    guard = Guard(repo)
    for path in ("a.txt", "new.txt", "src/new.py"):
        refusal = guard.check_write(path)
        assert refusal is not None and "could not read this repository's index" in refusal.rule, path
    assert "git ls-files failed" in (guard.check_delete("a.txt") or "").__str__()


def test_a_project_inside_a_larger_repository_honours_the_parents_rules(repo: Path) -> None:
    write(repo, ".gitignore", "*.tmp\n/project/generated/\n")
    project = repo / "project"
    project.mkdir()
    assert find_git_layout(project).prefix == "project/"
    assert refused(project, "x.tmp")
    assert refused(project, "generated/a.py")
    assert not refused(project, "src/a.py")


def test_a_patterns_literal_start_is_compared_first_as_in_git(repo: Path) -> None:
    # git compares "ab" literally, then matches "**/c" as a pattern of its own, where "**/" may
    # match nothing: so "ab**/c" ignores "abc" (git check-ignore agrees).
    write(repo, ".gitignore", "ab**/c\n")
    assert refused(repo, "abc")
    assert refused(repo, "abx/y/c")


def test_crlf_and_a_leading_bom_are_read_as_git_reads_them(repo: Path) -> None:
    (repo / ".gitignore").write_bytes(b"\xef\xbb\xbffirst.txt\r\n*.log\r\n")
    assert refused(repo, "first.txt")
    assert refused(repo, "a.log")


def test_trailing_spaces_are_trimmed_unless_escaped(repo: Path) -> None:
    write(repo, ".gitignore", "plain.txt   \nkept\\ \n")
    assert refused(repo, "plain.txt")
    assert refused(repo, "kept ")
    assert not refused(repo, "kept")


def test_invalid_lines_are_skipped_with_a_warning_and_the_rest_apply(repo: Path) -> None:
    write(repo, ".gitignore", "[abc\n*.log\nfoo\\\n[[:nope:]]x\n")
    write(repo, "sub/.gitignore", "!\n")
    guard = Guard(repo, git=GitSetup())
    assert guard.check_write("a.log") is not None
    assert guard.check_write("[abc") is None, "git skips the line, so the literal name is writable"
    assert guard.check_write("sub/x") is None
    assert len(guard.warnings) == 4
    assert any(w.startswith(".gitignore:1: pattern '[abc'") and "unterminated" in w for w in guard.warnings)
    assert any(w.startswith(".gitignore:3:") and "backslash" in w for w in guard.warnings)
    assert any(w.startswith(".gitignore:4:") and "[:nope:]" in w for w in guard.warnings)
    assert any(w.startswith("sub/.gitignore:1:") for w in guard.warnings)


def test_a_symlinked_gitignore_is_not_read_as_git_does_not(repo: Path) -> None:
    write(repo, "elsewhere", "*.c\n")
    os.symlink(repo / "elsewhere", repo / ".gitignore")
    guard = Guard(repo, git=GitSetup())
    assert guard.check_write("main.c") is None
    assert any("symlink" in w for w in guard.warnings)


def test_an_ignore_file_git_would_wait_on_refuses_instead(repo: Path) -> None:
    # git opens a FIFO .gitignore and waits for a writer forever: the guard never asks it then.
    write(repo, ".gitignore", "*.o\n")
    (repo / "src").mkdir()
    os.mkfifo(repo / "src" / ".gitignore")
    guard = Guard(repo, git=GitSetup())
    refusal = guard.check_write("src/a.c")
    assert refusal is not None and "src/.gitignore is a special file" in refusal.rule
    assert "git could not say whether it ignores the path" in refusal.rule
    assert stat.S_ISFIFO(os.lstat(repo / "src" / ".gitignore").st_mode)


def test_a_pattern_full_of_stars_cannot_stall_the_guard(repo: Path) -> None:
    # A backtracking regex would take ~255^9 steps here; git's own algorithm prunes. (Four "**/" in a
    # row would not be pruned: git itself takes minutes on an 800-folder path, which the guard refuses
    # by its depth before asking git; see MAX_DEPTH in guard/policy.py and GIT_TIMEOUT in git/ignore.py.)
    write(repo, ".gitignore", "*a*a*a*a*a*a*a*a*a*b\n**/x/**/y\na/**/b/**/c/**/d\n")
    guard = Guard(repo, git=GitSetup())
    assert guard.check_write("a" * 250) is None
    assert guard.check_write("/".join(["a"] * MAX_DEPTH) + "/z") is None
    assert guard.check_write("a" * 9 + "b") is not None


def test_pattern_problem_names_what_can_never_match() -> None:
    assert pattern_problem(".github/workflows/**") is None
    assert pattern_problem("!.env.example") is None
    assert pattern_problem("[[:alpha:]]x[]a]\\ ") is None
    assert "unterminated" in (pattern_problem("secrets[") or "")
    assert "unterminated" in (pattern_problem("a[b-") or "")
    assert "[:nope:]" in (pattern_problem("[[:nope:]]") or "")
    assert "backslash" in (pattern_problem("x\\") or "")
    assert "comment" in (pattern_problem("# note") or "")
    assert "empty" in (pattern_problem("!/") or "")
    assert "line break" in (pattern_problem("a\nb") or "")
    assert pattern_problem("   ") is not None


def test_rules_for_a_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    # No repository: git answers from a throwaway git directory whose work tree is the project, so
    # the project's .gitignore files count, and nothing of another repository does.
    write(tmp_path, ".gitignore", "*.o\n")
    write(tmp_path, "sub/.gitignore", "/local.txt\n")
    assert find_git_layout(tmp_path).common_dir is None
    guard = Guard(tmp_path)
    guard.prepare(["x.o", "sub/local.txt", "local.txt", ":x.o"])
    assert "it is ignored by git (.gitignore:1: *.o)" in (guard.check_write("x.o") or "").__str__()
    assert "sub/.gitignore:1: /local.txt" in (guard.check_write("sub/local.txt") or "").__str__()
    assert guard.check_write("local.txt") is None
    assert guard.check_write(":x.o") is not None, "a leading ':' is part of the name, not pathspec magic"
