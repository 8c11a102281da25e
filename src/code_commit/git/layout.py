"""Where the repository around a project root is (`find_git_layout`: the nearest `.git`, as git
finds it, from the disk alone), what its index says (`read_git_setup`: every tracked path, the
ones whose changes git status hides, the submodules), and which files git shows (`shown_files`);
both at once with `list_tree`."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.git.env import NO_LOCKS, git_failure, run_git


@dataclass(frozen=True)
class GitSetup:
    """What git's index says about what `git status` shows, read once per guard."""

    # Tracked files whose changes git status does not show: flagged assume-unchanged or
    # skip-worktree in the index (paths relative to the top).
    hidden: frozenset[str] = frozenset()
    # Submodules: index entries of mode 160000 (gitlinks). git status never looks inside one, and
    # one that was never initialized (a plain clone) is an empty folder with no `.git` to see.
    gitlinks: frozenset[str] = frozenset()
    # Every path in the index (relative to the top). None: no index to compare with (the project
    # is not in a repository, or the caller did not read it), which turns the untracked-file rule off.
    tracked: frozenset[str] | None = None
    # Why git could not list the index of the repository around the project, if it could not.
    index_error: str | None = None
    # Each regular file's blob at stage 0, by path relative to the top: what the index holds of it.
    blobs: Mapping[str, str] = field(default_factory=dict)
    # The entries as listed ("<tag> <mode> <object> <stage>\t<path>"): the index's state, flags included.
    entries: tuple[str, ...] = ()


_GITLINK_MODE = "160000"
_SHOWN = ("--cached", "--others", "--exclude-standard")  # what git status shows: tracked, untracked not ignored
_UNTRACKED = "? "  # how `ls-files -v` tags a file of --others; no index entry's tag is "?"
_REGULAR_MODES = ("100644", "100755")


def read_git_setup(top: Path) -> GitSetup:
    """What the index of the repository at `top` says: every tracked path, the hidden ones and the
    submodules (`git ls-files -s -v` gives each entry's tag, mode and path)."""
    listed = ls_files(top, "-s", "-v")
    return GitSetup(index_error=listed) if isinstance(listed, str) else _index_of(listed)


def shown_files(root: Path) -> list[str] | None:
    """The files `git status` shows below `root`: tracked ones, and untracked ones git does not
    ignore, relative to it, each once; None if git cannot say (no repository, no git)."""
    listed = ls_files(root, *_SHOWN)
    return None if isinstance(listed, str) else list(dict.fromkeys(listed))


@dataclass(frozen=True)
class TreeListing:
    """The files git shows below a root (`shown_files`) and its repository's index (`read_git_setup`),
    as listed at one moment."""

    shown: list[str] | None
    index: GitSetup


def list_tree(root: Path, top: Path) -> TreeListing:
    """`shown_files(root)` and `read_git_setup(top)`. When the root is the repository's top (or in
    none), one `git ls-files` gives both: its untracked files come tagged `?` and without the
    stage fields, its index entries as `read_git_setup` reads them. Around a build this is one git
    call fewer before and after it, and on a large tree one listing parsed fewer."""
    if root.resolve() != top:
        return TreeListing(shown_files(root), read_git_setup(top))
    listed = ls_files(root, "-s", "-v", *_SHOWN)
    if isinstance(listed, str):
        return TreeListing(None, GitSetup(index_error=listed))
    shown = (record[len(_UNTRACKED) :] if record.startswith(_UNTRACKED) else _path(record) for record in listed)
    entries = [record for record in listed if not record.startswith(_UNTRACKED)]
    return TreeListing(list(dict.fromkeys(path for path in shown if path)), _index_of(entries))


def ls_files(cwd: Path, *args: str) -> list[str] | str:
    """The records `git ls-files -z ARGS` lists in `cwd`, or why git could not list them. git sees
    the repository the layout was found in, never one the environment names (`run_git`)."""
    try:
        listed = run_git(cwd, "ls-files", "-z", *args, extra=NO_LOCKS)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"git ls-files could not run: {exc}"
    if listed.returncode != 0:
        return f"git ls-files failed: {git_failure(listed)}"
    return [record for record in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if record]


def _path(record: str) -> str:
    return record.partition("\t")[2]  # "<tag> <mode> <object> <stage>\t<path>"


def _index_of(records: list[str]) -> GitSetup:
    hidden: set[str] = set()
    gitlinks: set[str] = set()
    tracked: set[str] = set()
    blobs: dict[str, str] = {}
    for record in records:
        entry, tab, path = record.partition("\t")  # "<tag> <mode> <object> <stage>\t<path>"
        if not tab or not path:
            continue
        tag, *fields = entry.split(" ")
        tracked.add(path)
        if tag == "S" or tag.islower():  # S: skip-worktree; lower case: assume-unchanged
            hidden.add(path)
        if fields[:1] == [_GITLINK_MODE]:
            gitlinks.add(path)
        elif len(fields) == 3 and fields[0] in _REGULAR_MODES and fields[2] == "0":
            blobs[path] = fields[1]
    return GitSetup(frozenset(hidden), frozenset(gitlinks), frozenset(tracked), None, blobs, tuple(records))


@dataclass(frozen=True)
class GitLayout:
    """Where the repository around a project root keeps what ignoring depends on."""

    top: Path  # the work tree's top (the root itself when there is no repository)
    prefix: str  # the root relative to `top`, "" or ending in "/"
    common_dir: Path | None  # $GIT_COMMON_DIR, holding info/exclude; None outside a repository


def find_git_layout(root: Path) -> GitLayout:
    """Find the repository containing `root` as git does: the nearest `.git` dir or `gitdir:` file."""
    root = root.resolve()
    for top in (root, *root.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8", errors="surrogateescape").strip()
            except OSError:
                continue
            if not text.startswith("gitdir:"):
                continue
            git_dir = (top / text[len("gitdir:") :].strip()).resolve()
        else:
            continue
        common = git_dir  # a linked worktree's shared files (info/exclude) are in its commondir
        with contextlib.suppress(OSError):
            common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        prefix = root.relative_to(top).as_posix()
        return GitLayout(top, "" if prefix == "." else prefix + "/", common)
    return GitLayout(root, "", None)
