"""The build gate lists the files git shows and the index in one `git ls-files` (`list_tree`): it must
give exactly what the two listings it replaces give, on a repository with every kind of entry."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from code_commit.git.layout import TreeListing, list_tree, read_git_setup, shown_files

from support import git, write_file


def separately(root: Path, top: Path) -> TreeListing:
    return TreeListing(shown_files(root), read_git_setup(top))


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """Tracked, hidden (skip-worktree, assume-unchanged), deleted, conflicted, a submodule's gitlink,
    untracked ones named like the listing's own tags and fields, and ignored ones."""
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q")
    write_file(top, ".gitignore", "*.log\nbuild/\n")
    for name in ("a.txt", "skipped.txt", "assumed.txt", "gone.txt", "sub/deep/b.txt", "conflict.txt", "? tracked"):
        write_file(top, name, f"{name}\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "base")
    git(top, "checkout", "-qb", "other")
    write_file(top, "conflict.txt", "theirs\n")
    git(top, "commit", "-qam", "theirs")
    git(top, "checkout", "-q", "-")
    write_file(top, "conflict.txt", "ours\n")
    git(top, "commit", "-qam", "ours")
    with pytest.raises(subprocess.CalledProcessError):  # a conflict: stages 1, 2 and 3 of conflict.txt
        git(top, "merge", "-q", "other")
    blob = git(top, "rev-parse", "HEAD").strip()
    git(top, "update-index", "--add", "--cacheinfo", f"160000,{blob},vendor/lib")
    git(top, "update-index", "--skip-worktree", "skipped.txt")
    git(top, "update-index", "--assume-unchanged", "assumed.txt")
    (top / "gone.txt").unlink()
    for name in ("? untracked", "H 100644 0 0\tlooks staged", "new\nline.txt", "sub/new.txt", "x.log", "build/out.o"):
        write_file(top, name, "untracked\n")
    return top


def test_one_listing_gives_what_the_two_give(repository: Path) -> None:
    listing = list_tree(repository, repository)
    assert listing == separately(repository, repository)
    assert listing.shown is not None
    assert {"? untracked", "H 100644 0 0\tlooks staged", "new\nline.txt", "? tracked", "vendor/lib"} <= set(
        listing.shown
    )
    assert not {"x.log", "build/out.o"} & set(listing.shown), "ignored files are not shown"
    assert len(listing.shown) == len(set(listing.shown)), "a conflicted file is shown once"
    index = listing.index
    assert index.hidden == {"skipped.txt", "assumed.txt"} and index.gitlinks == {"vendor/lib"}
    assert "H 100644 0 0\tlooks staged" not in index.tracked and "? tracked" in index.tracked
    assert sum(entry.endswith("\tconflict.txt") for entry in index.entries) == 3


def test_a_root_below_the_top_is_listed_from_both_places(repository: Path) -> None:
    root = repository / "sub"
    listing = list_tree(root, repository)
    assert listing == separately(root, repository)
    assert listing.shown is not None and set(listing.shown) == {"deep/b.txt", "new.txt"}


def test_outside_a_repository_neither_listing_is_there(tmp_path: Path) -> None:
    listing = list_tree(tmp_path, tmp_path)
    assert listing.shown is None
    assert listing.index.tracked is None and listing.index.index_error is not None
    assert listing == separately(tmp_path, tmp_path)
