"""Unified diffs of a plan against the files on disk, in git's format (pure, given disk).

Git-style headers (`diff --git`, `new file mode`, `deleted file mode`) make every change
visible, an empty new file included, and let `git apply` replay the patch.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

from .apply import Plan

NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(path: str, old: bytes | None, new: bytes | None, mode: int = 0o644) -> str:
    """The diff of one file; `None` stands for a side where the file does not exist."""
    if old == new:
        return ""
    header = f"diff --git a/{path} b/{path}\n"
    if old is None:
        header += f"new file mode 100{mode:o}\n"
    elif new is None:
        header += f"deleted file mode 100{mode:o}\n"
    body = difflib.unified_diff(
        _lines(old),
        _lines(new),
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}" if new is not None else "/dev/null",
    )
    return header + "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in body)


def plan_diff(root: Path, plan: Plan) -> str:
    """The diff of every change in the plan, in plan order."""
    parts = []
    for change in plan.changes:
        target = root / change.path
        try:
            old: bytes | None = target.read_bytes()
            mode = 0o755 if os.stat(target).st_mode & stat.S_IXUSR else 0o644
        except FileNotFoundError:
            old, mode = None, 0o644
        parts.append(file_diff(change.path, old, change.content, mode))
    return "".join(parts)


def _lines(data: bytes | None) -> list[str]:
    """Lines as git sees them: split at "\n" only (str.splitlines would also split at \f, \v, U+2028...)."""
    if not data:
        return []
    pieces = data.decode("utf-8", "replace").split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
