"""The lines each changed file gained and lost against HEAD, for the summary's diff stat.

Read with code-commit's own git calls (git's clean environment, no fsmonitor) and counted by git's
diff of two private copies (`git_hunks`), so the project's .gitattributes and diff drivers never
run. Bounded: the first files the summary shows, each up to MOST_BYTES a side.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from code_commit.cli.github_action.summary import MOST_FILES, FileStat
from code_commit.files.setup_files import NotRegularFile, TooLarge, read_regular
from code_commit.git.diff import git_hunks
from code_commit.git.env import git_failure, run_git

_MOST_BYTES = 1 << 20


def file_stats(project: Path, paths: Sequence[str]) -> list[FileStat]:
    return [_stat(project, path) for path in paths[:MOST_FILES]]


def _stat(project: Path, path: str) -> FileStat:
    old = _at_head(project, path)
    new = _on_disk(project / path)
    if old is None and new is None:
        return FileStat(path, None, None, "neither in HEAD nor on disk")
    if isinstance(old, str) or isinstance(new, str):
        return FileStat(path, None, None, old if isinstance(old, str) else str(new))
    if b"\0" in (old or b"") or b"\0" in (new or b""):
        return FileStat(path, None, None, "binary")
    hunks = git_hunks(old or b"", new or b"", 0)
    if hunks is None:
        return FileStat(path, None, None, "git could not diff it")
    kinds = [kind for hunk in hunks for kind, _ in hunk.lines]
    note = "created" if old is None else "deleted" if new is None else ""
    return FileStat(path, kinds.count("+"), kinds.count("-"), note)


def _at_head(project: Path, path: str) -> bytes | str | None:
    """The file at HEAD; None when HEAD has none; a reason when it cannot be counted."""
    try:
        size = run_git(project, "cat-file", "-s", f"HEAD:{path}")
        if size.returncode != 0:
            return None  # not in HEAD: a new file
        if int(size.stdout.strip() or 0) > _MOST_BYTES:
            return "too large to count"
        done = run_git(project, "cat-file", "blob", f"HEAD:{path}")
    except (OSError, subprocess.SubprocessError, ValueError):
        return "git could not read it"
    return done.stdout if done.returncode == 0 else git_failure(done)


def _on_disk(path: Path) -> bytes | str | None:
    """The file now; None when it is gone; a reason when it cannot be counted. A symlink is not
    followed: the model's change may point one anywhere."""
    try:
        return read_regular(path, _MOST_BYTES, follow=False)
    except FileNotFoundError:
        return None
    except TooLarge:
        return "too large to count"
    except NotRegularFile:
        return "not a regular file"
    except OSError:
        return "unreadable"
