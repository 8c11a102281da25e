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
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import Plan
from code_commit.files.confined import Tree
from code_commit.git.stash import GitFailed, Saved, blob_id, blob_ids, head, object_format, save, uncommitted


@dataclass
class UserWork:
    root: Path
    name: str  # the stash entries' message: "code-commit <run id>"
    repository: bool = True  # False: the project is in no git repository, so there is nothing to save in
    # Around each save: it changes git's refs, which the tamper check watches between builds.
    around_save: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext
    saved: list[Saved] = field(default_factory=list)
    _dirty: tuple[str, ...] | None = None  # the project's uncommitted files before the first write
    _reference: str | None = None  # the commit whose tree holds each file as last saved
    _written: dict[str, str] = field(default_factory=dict)  # path -> blob id of what the command last wrote
    _first: bool = True
    _format: str = ""

    def dirty(self) -> tuple[str, ...]:
        """The project's tracked files with uncommitted changes of the user's: as they are before the
        command's first write, and as they were then after it. GitFailed if git cannot say."""
        if self._dirty is None:
            self._dirty = uncommitted(self.root) if self.repository else ()
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
        self._format = self._format or object_format(self.root)
        if self._first:
            files = self.dirty()
            self._first = False
            if not files:
                self._reference = head(self.root)
                return None
            return self._save(self.name, files)
        unsaved = self._unsaved([change.path for change in plan.changes])
        return self._save(f"{self.name} (before call {call})", unsaved) if unsaved else None

    def wrote(self, plan: Plan) -> None:
        """What the command wrote: its own content is no work of the user's to save."""
        for change in plan.changes:
            if change.content is None:
                self._written.pop(change.path, None)
            elif self.repository:
                self._written[change.path] = blob_id(change.content, self._format or object_format(self.root))

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
        unsaved = []
        with Tree(self.root) as tree:
            for path in paths:
                try:
                    now = blob_id(tree.read(path), self._format)
                except (FileNotFoundError, NotADirectoryError):
                    continue  # nothing there to lose
                except OSError:
                    now = ""  # unreadable here: git's `add` reads it or fails, and the write is stopped
                if now not in (known.get(path), self._written.get(path)):
                    unsaved.append(path)
        return unsaved
