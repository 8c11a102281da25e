"""Edits -> a checked plan -> a transactional apply.

`plan_changes` is the verification pass: it runs every edit through the guard and computes
the net effect of the answer, without writing. Only a plan with no refusal reaches
`apply_plan`, which records the originals in a journal first, then writes each file atomically
(temp file, fsync, rename, mode kept) without following symlinks, and, if any step fails, restores
every file it touched and removes what it created. If the process dies instead, `journal.recover`
does the same on the next start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .edits import DeleteFile, Edit
from .errors import AnswerRefused, RestoreFailed
from .guard import Guard
from .journal import Journal, JournalError, close, describe_error, undo
from .tree import Tree


@dataclass(frozen=True)
class Change:
    path: str
    content: bytes | None  # None: delete the file


@dataclass(frozen=True)
class Plan:
    final: dict[str, bytes | None]  # the answer's last word on every path it named (None: removed)
    changes: tuple[Change, ...]  # the part of `final` that differs from disk
    missing_deletes: tuple[str, ...] = ()  # deletes of files that do not exist: no-ops, logged


def plan_changes(root: Path, edits: Sequence[Edit], guard: Guard) -> Plan:
    """Check every edit and compute the answer's net effect; raise AnswerRefused listing all refusals."""
    refusals: list[str] = []
    final: dict[str, bytes | None] = {}
    for edit in edits:
        refusal = guard.check_delete(edit.path) if isinstance(edit, DeleteFile) else guard.check_write(edit.path)
        if refusal:
            refusals.append(str(refusal))
            continue
        if isinstance(edit, DeleteFile):
            final[edit.path] = None
        else:
            try:
                final[edit.path] = edit.content.encode("utf-8")
            except UnicodeEncodeError:
                refusals.append(f"{edit.path!r}: the content is not valid UTF-8 text")
    written = {path for path, content in final.items() if content is not None}
    for path in written:
        parts = path.split("/")
        for n in range(1, len(parts)):
            if "/".join(parts[:n]) in written:
                refusals.append(f"{'/'.join(parts[:n])!r}: written as a file, but {path!r} needs it to be a folder")
    if refusals:
        raise AnswerRefused(*dict.fromkeys(refusals))

    changes: list[Change] = []
    missing: list[str] = []
    for path, content in final.items():
        current = _read_existing(root / path)
        if content is None and current is None:
            missing.append(path)
        elif content != current:
            changes.append(Change(path, content))
    return Plan(final, tuple(changes), tuple(missing))


def _read_existing(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class ApplyFailed(AnswerRefused):
    """A write or delete failed part-way; every touched file was restored."""


def apply_plan(root: Path, plan: Plan, journal: Path) -> None:
    """Apply all of the plan or none of it.

    `journal`: a folder to create in the run's log folder (`NN-journal`), where the originals are
    recorded before the tree is touched, so that `journal.recover` can undo the apply if this
    process dies part-way. Raises ApplyFailed after undoing everything on any failure, and
    RestoreFailed if even the undo fails (the journal is then kept for `code-commit recover`)."""
    if not plan.changes:
        return
    with Tree(root) as tree:
        try:
            record = Journal.begin(tree, journal, plan.changes)
        except OSError as exc:
            raise ApplyFailed(f"applying the answer failed ({describe_error(exc)}); nothing was changed") from exc
        try:
            for directory in record.manifest.created_dirs:
                tree.mkdir(directory)
            for change, entry in zip(plan.changes, record.manifest.entries, strict=True):
                if change.content is None:
                    tree.unlink(change.path)
                else:
                    tree.write_atomic(change.path, change.content, entry.mode, entry.temp)
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
