"""The user's uncommitted work, saved where git keeps it: a stash entry, as `git stash` makes one,
stored in `refs/stash` and its reflog (`git stash list`), while the working tree and the index
stay exactly as they are.

`git stash create` makes the entry without touching the tree; it is given a copy of the index
(GIT_INDEX_FILE), as it would otherwise rewrite the index file to refresh its stat data. In a
repository with no commit yet there is nothing for `stash create` to build on: the entry is made
the same way by hand (the index's tree, then the work tree's, on an empty base commit), so the
user gets it back from the same place, with `git checkout <commit> -- <file>`.

Only tracked files are saved: an answer can neither write nor delete an untracked file (the guard
refuses it), and what a build does to one is named after the build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from code_commit.git.env import NO_LOCKS, git_failure, run_git


class GitFailed(OSError):
    """A git call failed or gave no answer: its reason."""


@dataclass(frozen=True)
class Saved:
    """One stash entry code-commit stored."""

    commit: str  # the stash commit's id
    message: str  # its line in `git stash list`
    files: tuple[str, ...]  # the project's files whose uncommitted changes it holds, relative to the root
    unborn: bool = False  # no commit yet: made by hand, for `git checkout`, as `git stash apply` needs a HEAD

    @property
    def restore(self) -> str:
        """How to get the work back: the commands."""
        one = f"`git checkout {self.commit} -- <file>` brings back one file"
        if self.unborn:  # no HEAD for `git stash apply` to apply onto
            return one
        return f"`git stash apply {self.commit}` brings back all of it (onto a clean tree); {one}"


# Writing an index (the copy) runs the post-index-change hook: saving the user's work runs no program.
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


def _git(root: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes = b"") -> bytes:
    try:
        done = run_git(root, *_NO_HOOKS, *args, input=stdin, extra={**NO_LOCKS, **(env or {})})
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitFailed(f"git {args[0]} could not run: {exc}") from None
    if done.returncode != 0:
        raise GitFailed(f"git {args[0]} failed: {git_failure(done)}")
    return done.stdout


def _names(output: bytes) -> list[str]:
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def uncommitted(root: Path, base: str | None) -> tuple[str, ...]:
    """The project's tracked files with changes not committed to `base` (HEAD's commit, None when there
    is none yet), staged or not, a deletion too; relative to the root, sorted. Submodules are left
    out: nothing in them is ever written."""
    common = ("--name-only", "-z", "--relative", "--no-ext-diff", "--no-textconv", "--ignore-submodules")
    if base is not None:
        return tuple(sorted(_names(_git(root, "diff", *common, base, "--"))))
    staged = _names(_git(root, "diff", "--cached", *common, "--"))  # everything in the index is new
    return tuple(sorted({*staged, *_names(_git(root, "diff", *common, "--"))}))


def save(root: Path, message: str, files: Iterable[str]) -> Saved:
    """Store the repository's uncommitted changes as a stash entry named `message`; the tree and
    the index are left as they are. Raises GitFailed with git's reason."""
    index = Path(os.fsdecode(_git(root, "rev-parse", "--path-format=absolute", "--git-path", "index").strip()))
    base = head(root)
    with tempfile.TemporaryDirectory(prefix="code-commit-stash-") as folder:  # 0700
        copy = os.path.join(folder, "index")
        if index.exists():
            shutil.copyfile(index, copy)
        env = {"GIT_INDEX_FILE": copy}
        try:
            commit = _git(root, "stash", "create", message, env=env).decode().strip() if base else ""
        except GitFailed:  # an unmerged index (a merge stopped on conflicts): "Cannot save the current index state"
            commit = ""
        if not commit:
            commit = _by_hand(root, message, env, base)
    _git(root, "stash", "store", "-m", message, commit)
    return Saved(commit, message, tuple(files), unborn=base is None)


def head(root: Path) -> str | None:
    """HEAD's commit id; None when there is no commit yet."""
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode().strip()
    except GitFailed:
        return None


def _by_hand(root: Path, message: str, env: dict[str, str], head: str | None) -> str:
    """What `git stash create` makes, where it cannot: on HEAD (on an empty base commit when there is
    no commit yet), the index's tree (HEAD's, if the index is unmerged) and the work tree's tracked
    files, the work tree's commit with the index's as second parent."""
    ident = env | {"GIT_AUTHOR_NAME": "code-commit", "GIT_AUTHOR_EMAIL": "code-commit@localhost"}
    ident |= {"GIT_COMMITTER_NAME": "code-commit", "GIT_COMMITTER_EMAIL": "code-commit@localhost"}
    if head is None:
        empty = _git(root, "hash-object", "-t", "tree", "-w", "--stdin", env=env).decode().strip()
        base = _git(root, "commit-tree", empty, "-m", "code-commit: no commit yet", env=ident).decode().strip()
    else:
        base = head
    try:
        staged = _git(root, "write-tree", env=env).decode().strip()
    except GitFailed:  # unmerged entries: no tree of the index; the conflicted files are in the work tree's
        staged = f"{base}^{{tree}}"
    _git(root, "add", "--update", "--", ":/", env=env)  # the copy takes the work tree's tracked files
    worked = _git(root, "write-tree", env=env).decode().strip()
    index = _git(root, "commit-tree", staged, "-p", base, "-m", f"index on {base[:12]}: {message}", env=ident)
    parents = ("-p", base, "-p", index.decode().strip())
    return _git(root, "commit-tree", worked, *parents, "-m", f"On {base[:12]}: {message}", env=ident).decode().strip()


def blob_ids(root: Path, commit: str, paths: Iterable[str]) -> dict[str, str | None]:
    """Each path's blob in `commit` (paths relative to the root, which the guard keeps free of line
    breaks); None where it holds none. One git call, however many paths."""
    paths = list(paths)
    if not paths:
        return {}
    asked = "".join(f"{commit}:./{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    answers = _git(root, "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=asked).splitlines()
    if len(answers) != len(paths):
        raise GitFailed(f"git cat-file gave {len(answers)} answers for {len(paths)} paths")
    found: dict[str, str | None] = {}
    for path, answer in zip(paths, answers, strict=True):
        name, _, kind = answer.decode("utf-8", "replace").rpartition(" ")
        found[path] = name if kind == "blob" else None
    return found
