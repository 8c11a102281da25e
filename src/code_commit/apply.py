"""Edits -> a checked plan -> a transactional apply.

`plan_changes` is the verification pass: it runs every edit through the guard and computes
the net effect of the answer, without writing. Only a plan with no refusal reaches
`apply_plan`, which writes each file atomically (temp file, fsync, rename, mode kept) and, if
any step fails, restores every file it touched and removes what it created.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .edits import DeleteFile, Edit
from .errors import AnswerRefused
from .guard import Guard


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


@dataclass
class _Undo:
    restores: list[tuple[Path, bytes, int]] = field(default_factory=list)  # path, bytes, mode
    created_files: list[Path] = field(default_factory=list)
    created_dirs: list[Path] = field(default_factory=list)

    def rollback(self) -> None:
        for path in reversed(self.created_files):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        for path, data, mode in reversed(self.restores):
            _atomic_write(path, data, mode)
        for directory in reversed(self.created_dirs):
            with contextlib.suppress(OSError):
                directory.rmdir()


def apply_plan(root: Path, plan: Plan) -> None:
    """Apply all of the plan or none of it; raise ApplyFailed after restoring on any failure."""
    undo = _Undo()
    try:
        for change in plan.changes:
            target = root / change.path
            existing = _stat_regular(target)
            if existing is not None:
                undo.restores.append((target, target.read_bytes(), stat.S_IMODE(existing.st_mode)))
            if change.content is None:
                if existing is not None:
                    target.unlink()
                continue
            _make_parents(root, target.parent, undo.created_dirs)
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else _default_mode()
            if existing is None:
                undo.created_files.append(target)
            _atomic_write(target, change.content, mode)
    except OSError as exc:
        undo.rollback()
        where = f"{exc.filename}: " if exc.filename else ""
        raise ApplyFailed(f"applying the answer failed ({where}{exc.strerror or exc}); nothing was changed") from exc


def _stat_regular(path: Path) -> os.stat_result | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise IsADirectoryError(0, "not a regular file any more", str(path))
    return info


def _make_parents(root: Path, directory: Path, created: list[Path]) -> None:
    missing: list[Path] = []
    while directory != root and not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir()
        created.append(path)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".code-commit-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
