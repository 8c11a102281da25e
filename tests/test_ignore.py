"""git's ignore rules as the guard applies them: every source git uses, its precedence, and its quirks.

The differential test (test_ignore_differential.py) compares generated cases with git; these
tests pin down each rule by name, through `Guard` where the guard is what a user meets.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from code_commit import ignore as ignore_module
from code_commit.guard import Guard
from code_commit.ignore import GitSetup, IgnoreRules, find_git_layout, pattern_problem, read_git_setup

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
    assert refused(worktree, "secret.txt")


def test_core_excludes_file_ranks_below_info_exclude(repo: Path, tmp_path: Path) -> None:
    excludes = tmp_path / "global-ignore"
    excludes.write_text(".env\n*.pem\n")
    write(repo, ".git/info/exclude", "!*.pem\n")
    setup = GitSetup(excludes_file=excludes)
    rule = refused(repo, ".env", git=setup)
    assert rule and str(excludes) in rule
    assert not refused(repo, "cert.pem", git=setup)


def test_core_excludes_file_is_read_from_git_config(repo: Path, tmp_path: Path) -> None:
    excludes = tmp_path / "mine"
    excludes.write_text("*.secret\n")
    git(repo, "config", "core.excludesFile", str(excludes))
    assert read_git_setup(repo).excludes_file == excludes
    assert Guard(repo).check_write("a.secret") is not None


def test_default_excludes_file_is_under_xdg_config_home(repo: Path, tmp_path: Path) -> None:
    setup = read_git_setup(repo, env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert setup.excludes_file == tmp_path / "xdg" / "git" / "ignore"
    setup = read_git_setup(repo, env={k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"} | {"HOME": "/h"})
    assert setup.excludes_file == Path("/h/.config/git/ignore")


def test_core_ignore_case_folds_ascii_case_like_git(repo: Path) -> None:
    write(repo, ".gitignore", "secret.txt\n/Build/\n")
    assert not refused(repo, "SECRET.TXT")
    git(repo, "config", "core.ignoreCase", "true")
    assert read_git_setup(repo).ignore_case
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


def test_each_ignore_file_is_read_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, ".gitignore", "*.o\n")
    write(repo, "src/.gitignore", "*.tmp\n")
    reads: list[str] = []
    real = ignore_module._read_ignore_file

    def counting(path: Path, **kwargs):
        reads.append(kwargs["name"])
        return real(path, **kwargs)

    monkeypatch.setattr(ignore_module, "_read_ignore_file", counting)
    guard = Guard(repo, git=GitSetup())
    for n in range(200):
        guard.check_write(f"src/deep/er/file{n}.c")
    assert sorted(reads) == sorted(set(reads)), "no ignore file is read twice"
    assert {".gitignore", "src/.gitignore", "src/deep/.gitignore", "src/deep/er/.gitignore"} <= set(reads)


def test_a_pattern_full_of_stars_cannot_stall_the_guard(repo: Path) -> None:
    # A backtracking regex would take ~255^9 steps here; git's own algorithm prunes.
    write(repo, ".gitignore", "*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/x/**/y\n")
    guard = Guard(repo, git=GitSetup())
    assert guard.check_write("a" * 250) is None
    assert guard.check_write("/".join(["a"] * 800) + "/z") is None
    assert guard.check_write("a" * 9 + "b") is not None


def test_pattern_problem_names_what_can_never_match() -> None:
    assert pattern_problem(".github/workflows/**") is None
    assert pattern_problem("!.env.example") is None
    assert "unterminated" in (pattern_problem("secrets[") or "")
    assert "backslash" in (pattern_problem("x\\") or "")
    assert "comment" in (pattern_problem("# note") or "")
    assert pattern_problem("   ") is not None


# The two matching engines must agree: the regex translation (most patterns) and the port of
# git's wildmatch (patterns with many stars). The differential test checks each against git;
# this checks them against each other on far more patterns than git could be asked about.
# Each piece of a pattern, with texts it can match (so most subjects are built to match).
PIECES = {
    "a": ["a"], "b": ["b"], "A": ["A", "a"], "é": ["é"], "/": ["/"], "-": ["-"], "]": ["]"],
    "*": ["", "a", "bA"], "**": ["", "a/", "a/b/", "ab"], "**/": ["", "a/", "a/b/"], "/**/": ["/", "/a/"],
    "?": ["a", "é"], "[ab]": ["a", "b"], "[!a]": ["b", "A"], "[A-Z]": ["A", "b"], "[[:upper:]]": ["B", "b"],
    "\\*": ["*"], "\\A": ["A", "a"],
}  # fmt: skip


def test_regex_and_wildmatch_engines_agree() -> None:
    rng = random.Random(3)  # fixed: the same 6,000 cases on every run
    compared = matched = 0
    for _ in range(6000):
        pieces = [rng.choice(list(PIECES)) for _ in range(rng.randint(1, 6))]
        pattern = "".join(pieces).encode()
        subject = "".join(rng.choice(PIECES[p]) if rng.random() < 0.9 else rng.choice("ab/") for p in pieces).encode()
        casefold = rng.random() < 0.5
        try:
            regex, _, _ = ignore_module._translate(pattern, casefold)
        except ignore_module._Never:
            continue
        text = subject.lower() if casefold else subject
        by_regex = re.fullmatch(regex, text, re.DOTALL) is not None
        by_wildmatch = ignore_module._dowild(pattern, 0, text, 0, casefold) == ignore_module._MATCH
        assert by_regex == by_wildmatch, (pattern, subject, casefold)
        compared += 1
        matched += by_regex
    assert compared > 5000 and 1000 < matched < compared - 1000, "the cases must exercise both outcomes"


def test_rules_for_a_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.o\n")
    rules, prefix = IgnoreRules.for_root(tmp_path, GitSetup())
    assert prefix == ""
    assert rules.ignored_by("x.o") is not None
