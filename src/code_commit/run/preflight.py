"""Before the first paid call: could any answer be applied at all, and does the rollup show the
files as they are?

The guard refuses every change to a file git does not track (git diff could not show it, and its
content would be lost), so in a project with no tracked file every answer that changes an existing
file is refused, call after call. That is a setup error, found before any call. Untracked files the
rollup shows the model are worth a warning: the model may well try to change them. So is a stale
rollup (rollup/freshness.py), which `stale_rollup` may also refuse, or refresh.
"""

from __future__ import annotations

import os
from pathlib import Path

from code_commit.config.settings import Settings
from code_commit.errors import SetupError
from code_commit.git.layout import TreeListing, find_git_layout
from code_commit.rollup.framing import shown_paths
from code_commit.rollup.freshness import check_freshness
from code_commit.rollup.writing import write_rollup

_NAMED = 3  # untracked files named in the warning; the rest are counted


def untracked_in_rollup(root: Path, listing: TreeListing | None, codebase: str) -> list[str]:
    """Raise SetupError when the project has no tracked file; else the files the rollup shows that git
    does not track and does not ignore. The rollup has no escaping, so a line inside a file's content
    can look like a header and name anything: only a file the rollup could have included counts (git
    lists it, untracked and not ignored), or a hostile file's content could make this warning tell the
    user to `git add` an ignored `.env` or a key file."""
    tracked = None if listing is None else listing.index.tracked
    if listing is None or tracked is None:
        return []  # not a repository: nothing is refused for being untracked
    prefix = find_git_layout(root).prefix
    if not any(path.startswith(prefix) for path in tracked):
        where = "this repository" if not prefix else f"{prefix.rstrip('/')}/ in this repository"
        raise SetupError(
            f"git tracks no file of {where}, and code-commit lets the model change only files git tracks "
            "(git diff must be able to show every change), so every answer would be refused: add and commit "
            "the project's own files first (git add <them> && git commit; code-commit init's next steps name "
            "them, and the build's outputs to leave out), then run code-commit."
        )
    shown = dict.fromkeys(shown_paths(codebase))
    candidates = [path for path in shown if prefix + path not in tracked and _project_file(root, path)]
    listed = set(listing.shown or ())  # tracked, and untracked files git does not ignore
    return [path for path in candidates if path in listed]


def _project_file(root: Path, path: str) -> bool:
    """A regular file inside the project: a header-like line in some file's content may name anything."""
    if path.startswith("/") or ".." in path.split("/"):
        return False
    return os.path.isfile(root / path) and not os.path.islink(root / path)


def untracked_warning(paths: list[str]) -> str | None:
    if not paths:
        return None
    named = ", ".join(paths[:_NAMED])
    more = f" and {len(paths) - _NAMED} more" if len(paths) > _NAMED else ""
    files = "file" if len(paths) == 1 else "files"
    return (
        f"the rollup shows {len(paths)} {files} git does not track, which the model will not be allowed to "
        f"change: {named}{more}; git add (or commit) what the task may need changed"
    )


def stale_rollup(
    root: Path, listing: TreeListing | None, codebase: str, query: str, settings: Settings
) -> tuple[str | None, str | None]:
    """The rollup checked against the disk, as `stale_rollup` says: (a warning, or None; the rollup
    made again, or None). Raises SetupError under refuse, and when the refresh fails. In a repository
    only the files git lists are compared (see `untracked_in_rollup` on forged headers)."""
    listed = None if listing is None else set(listing.shown or ())
    warning = check_freshness(root, codebase, listed).message()
    if warning is None:
        return None, None
    if settings.stale_rollup == "refuse":
        raise SetupError(f"{warning}. Nothing was sent (stale_rollup = refuse)")
    if settings.stale_rollup == "warn":
        return warning, None
    made = write_rollup(root, settings=settings, query=query)  # as `code-commit rollup` makes it
    fresh = (root / made.output).read_text(encoding="utf-8")
    note = f"{warning.split('. The model', 1)[0]}; made again with `code-commit rollup` (stale_rollup = refresh): "
    return note + made.summary(), fresh
