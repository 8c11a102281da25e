"""Unified diffs of a plan against the files on disk, in git's format (pure, given disk).

Git-style headers (`diff --git`, `new file mode`, `deleted file mode`) make every change
visible, an empty new file included, and let `git apply` replay the patch. The hunks are
`hunks.split`'s, so a review shows exactly the hunks this diff prints.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .apply import Plan
from .hunks import FileChange, Hunk, file_change

NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(path: str, old: bytes | None, new: bytes | None, mode: int = 0o644) -> str:
    """The diff of one file; `None` stands for a side where the file does not exist."""
    return change_diff(file_change(path, old, new, mode))


def change_diff(change: FileChange) -> str:
    if change.old == change.new:
        return ""
    return file_header(change) + "".join(hunk_diff(hunk) for hunk in change.hunks)


def file_header(change: FileChange) -> str:
    path = change.path
    header = f"diff --git a/{path} b/{path}\n"
    if change.kind == "create":
        header += f"new file mode 100{change.mode:o}\n"
    elif change.kind == "delete":
        header += f"deleted file mode 100{change.mode:o}\n"
    if not change.hunks:  # an empty file created or deleted: git prints no ---/+++ lines
        return header
    source = f"a/{path}" if change.old is not None else "/dev/null"
    target = f"b/{path}" if change.new is not None else "/dev/null"
    return header + f"--- {source}\n+++ {target}\n"


def hunk_diff(hunk: Hunk) -> str:
    """One hunk as unified-diff text. Bytes that are not UTF-8 show as U+FFFD: for reading only."""
    parts = [hunk.header + "\n"]
    for tag, line in hunk.lines:
        text = line.decode("utf-8", "replace")
        parts.append(tag + text if text.endswith("\n") else tag + text + "\n" + NO_NEWLINE)
    return "".join(parts)


def plan_changes_on_disk(root: Path, plan: Plan) -> list[FileChange]:
    """Every change of the plan with the file as it is on disk now, in plan order."""
    changes = []
    for change in plan.changes:
        target = root / change.path
        try:
            old: bytes | None = target.read_bytes()
            mode = 0o755 if os.stat(target).st_mode & stat.S_IXUSR else 0o644
        except FileNotFoundError:
            old, mode = None, 0o644
        changes.append(file_change(change.path, old, change.content, mode))
    return changes


def plan_diff(root: Path, plan: Plan) -> str:
    """The diff of every change in the plan, in plan order."""
    return "".join(change_diff(change) for change in plan_changes_on_disk(root, plan))
