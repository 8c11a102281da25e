"""The user's uncommitted work, kept reachable through git whatever a command writes (git/stash.py
saves it).

Before a command's first write, if the project's tracked files have uncommitted changes (staged or
not), they are all saved as a stash entry: the answer, and the build after it, may change any of
them. Before each later write, the files that write changes are compared with where they were
last saved (that entry, or HEAD) and with what the command itself last wrote there: content that
is in neither (an edit made while the run went on, a file a build rewrote) is saved in a new entry
first. So no write ever replaces content git cannot give back.

Working state of one command (the orchestrator holds it); what it saved goes into the record.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import Plan
from code_commit.files.confined import Tree
from code_commit.git.objects import blob_id, object_format
from code_commit.git.stash import GitFailed, Saved, blob_ids, head, save, uncommitted


@dataclass
class UserWork:
    root: Path
    name: str  # the stash entries' message: "code-commit <run id>"
    repository: bool = True  # False: the project is in no git repository, so there is nothing to save in
    # Around each save: it changes git's refs, which the tamper check watches between builds.
    around_save: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext
    saved: list[Saved] = field(default_factory=list)
    _dirty: tuple[str, ...] | None = None  # the project's uncommitted files before the first write
    _reference: str | None = None  # the commit whose tree holds each file as last saved (HEAD's, or a stash)
    _written: dict[str, bytes] = field(default_factory=dict)  # path -> sha256 of what the command last wrote
    _first: bool = True

    def dirty(self) -> tuple[str, ...]:
        """The project's tracked files with uncommitted changes of the user's: as they are before the
        command's first write, and as they were then after it. GitFailed if git cannot say."""
        if self._dirty is None:
            self._reference = head(self.root) if self.repository else None
            self._dirty = uncommitted(self.root, self._reference) if self.repository else ()
        return self._dirty

    def whole_over_dirty(self, plan: Plan) -> list[str]:
        """The files `plan` writes whole (a whole-file block, written against the rollup, not against
        the file) that hold uncommitted changes of the user's the command has not written over yet."""
        if not plan.whole:
            return []
        try:
            dirty = set(self.dirty())
        except GitFailed:
            return []  # the save before the write says so
        changed = {change.path for change in plan.changes if change.content is not None}
        return sorted(path for path in plan.whole if path in dirty and path in changed and path not in self._written)

    def before_write(self, plan: Plan, call: int) -> Saved | None:
        """Save what `plan` would write over and git could not give back, before it is written; the
        entry stored, or None when nothing needed saving. GitFailed if git cannot save it."""
        if not plan.changes or not self.repository:
            return None
        if self._first:
            files = self.dirty()
            self._first = False
            return self._save(self.name, files) if files else None
        unsaved = self._unsaved([change.path for change in plan.changes])
        return self._save(f"{self.name} (before call {call})", unsaved) if unsaved else None

    def wrote(self, plan: Plan) -> None:
        """What the command wrote: its own content is no work of the user's to save."""
        for change in plan.changes:
            if change.content is None:
                self._written.pop(change.path, None)
            else:
                self._written[change.path] = hashlib.sha256(change.content).digest()

    def _save(self, message: str, files: Sequence[str]) -> Saved:
        with self.around_save():
            entry = save(self.root, message, files)
        self.saved.append(entry)
        self._reference = entry.commit
        return entry

    def _unsaved(self, paths: list[str]) -> list[str]:
        """Of `paths`, those whose content now is neither where it was last saved nor what the
        command wrote there."""
        known = blob_ids(self.root, self._reference, paths) if self._reference else dict.fromkeys(paths)
        fmt = object_format(self.root)
        unsaved = []
        with Tree(self.root) as tree:
            for path in paths:
                try:
                    now = tree.read(path)
                except (FileNotFoundError, NotADirectoryError):
                    continue  # nothing there to lose
                except OSError:  # unreadable here: the save reads it through git, or fails and stops the write
                    unsaved.append(path)
                    continue
                if hashlib.sha256(now).digest() != self._written.get(path) and blob_id(now, fmt) != known.get(path):
                    unsaved.append(path)
        return unsaved
