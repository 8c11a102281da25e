"""The transactional apply of a checked plan (answer/planning.py makes it): all of it or none.

`apply_plan` records the originals in a journal first, then writes each file atomically (temp
file, fsync, rename, mode kept) without following symlinks, and, if any step fails, restores
every file it touched and removes what it created. If the process dies instead, `journal.recover`
does the same on the next start.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from code_commit.answer.plan import ApplyFailed, Plan
from code_commit.apply.journal import Journal, JournalError, close, describe_error, undo
from code_commit.errors import RestoreFailed
from code_commit.files.confined import Tree
from code_commit.git.env import forget_resolved_paths


def apply_plan(root: Path, plan: Plan, journal: Path) -> None:
    """Apply all of the plan or none of it.

    `journal`: a folder to create in the run's log folder (`NN-journal`), where the originals are
    recorded before the tree is touched, so that `journal.recover` can undo the apply if this
    process dies part-way. Raises ApplyFailed after undoing everything on any failure, and
    RestoreFailed if even the undo fails (the journal is then kept for `code-commit recover`)."""
    if not plan.changes:
        return
    try:
        _apply(root, plan, journal)
    finally:
        forget_resolved_paths()  # what the apply wrote could change where a PATH entry leads
    _forget_bytecode(root, [change.path for change in plan.changes])


def _forget_bytecode(root: Path, paths: list[str]) -> None:
    """Remove Python's cached bytecode of each `.py` file written: Python trusts a `__pycache__` file
    whose source has the size and the whole-second mtime it recorded, so a fix of the same size
    written within the second of the last build (`a - b` to `a + b`) would run the old code."""
    for path in paths:
        folder, _, name = path.rpartition("/")
        if not name.endswith(".py"):
            continue
        cache = root / folder / "__pycache__"
        stem = name.removesuffix(".py") + "."
        try:
            if not stat.S_ISDIR(os.lstat(cache).st_mode):  # a symlink a build planted is not followed
                continue
            with os.scandir(cache) as entries:
                stale = [e.name for e in entries if e.name.startswith(stem) and e.name.endswith(".pyc")]
        except OSError:
            continue
        for entry in stale:
            with contextlib.suppress(OSError):
                os.unlink(cache / entry)


def _apply(root: Path, plan: Plan, journal: Path) -> None:
    with Tree(root) as tree:
        try:
            record = Journal.begin(tree, journal, plan.changes)
        except OSError as exc:
            raise ApplyFailed(f"applying the answer failed ({describe_error(exc)}); nothing was changed") from exc
        try:
            for directory in record.manifest.created_dirs:
                tree.mkdir(directory)
            pairs = list(zip(plan.changes, record.manifest.entries, strict=True))
            for change, entry in pairs:  # every new content staged and durable before any name changes
                if change.content is not None:
                    tree.stage(change.path, change.content, entry.mode, entry.temp)
            tree.barrier()
            for change, entry in pairs:
                if change.content is None:
                    tree.unlink(change.path)
                else:
                    tree.install(change.path, entry.temp)
            tree.sync()
            record.commit()  # the commit point: from here on the apply stands
        except BaseException as exc:  # an OSError, or an interrupt: either way nothing stays half done
            try:
                close(journal, undo(tree, journal, record.manifest))
            except (OSError, JournalError) as again:
                raise RestoreFailed(
                    f"applying the answer failed ({describe_error(exc)}) and undoing it failed too "
                    f"({describe_error(again)}). The journal is kept in {journal}; fix the cause and run "
                    "`code-commit recover`."
                ) from again
            if not isinstance(exc, OSError):
                raise
            raise ApplyFailed(f"applying the answer failed ({describe_error(exc)}); nothing was changed") from exc
        record.clean_up()
