"""The apply journal: what an apply is about to change, recorded before it touches the tree.

Before an apply changes anything it writes a journal folder in the run's log folder,
`agent-config/logs/<run-id>/NN-journal/`:

- `orig-N`: the original of every file the apply replaces or deletes. A hard link to it where
  possible: the apply replaces files by rename, so the linked original stays intact, and putting
  it back is a rename too, which needs no free space. A copy where a link is impossible.
- `manifest.json`, written last, atomically and fsynced: per file its path, the sha256 of the
  original and of the new content, the original's mode and the temp file name the apply uses;
  and the directories the apply will create.

While `manifest.json` exists an apply may be half done. The apply deletes it (its commit point)
only after every change is on disk and every touched directory is fsynced. `undo` brings the tree
back from any state in between, and can itself be interrupted and run again: it decides what to
do with each file from what is on disk now (the original, the new content, nothing, or something
else), never from a record of what it did. A file that is something else was changed by someone
after the interruption; it is left as it is and reported, its original kept in the journal.
`recover` runs `undo` on every journal that still has a manifest.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import Change
from code_commit.config.paths import CONFIG_DIR, LOGS_DIR
from code_commit.errors import RestoreFailed
from code_commit.files.confined import SYSCALLS, Tree, digest, fsync_path, write_all
from code_commit.files.setup_files import read_regular
from code_commit.git.ignore import IgnoreMatch, ProtectedPatterns
from code_commit.guard.policy import protected_refusal, syntax_refusal
from code_commit.logs.run_folder import CONFLICTS, JOURNAL_SUFFIX, MANIFEST, SAVED_ORIGINAL

# A manifest is read up to this much: a 10,000-file apply's is a few MiB (a build may plant a huge one).
_MANIFEST_BYTES = 64 << 20

_FORMAT = 1
_TEMP_NAME = re.compile(r"\.code-commit-[0-9a-f]+-[0-9]+\.tmp")
_SAVED_NAME = re.compile(re.escape(SAVED_ORIGINAL).replace(re.escape("{n}"), "[0-9]+"))
_SHA256 = re.compile(r"[0-9a-f]{64}")
# link() errors that mean "no hard link here" rather than "the disk is failing": copy instead.
_NO_LINK = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EACCES}


class JournalError(Exception):
    """A journal that cannot be used: unreadable, malformed, or an original that is missing or damaged."""


@dataclass(frozen=True)
class Entry:
    path: str
    before: str | None  # sha256 of the original; None: the file did not exist
    after: str | None  # sha256 of the new content; None: the apply deletes the file
    mode: int | None  # the original's permission bits
    saved: str | None  # the original's name in the journal folder
    temp: str  # the temp file the apply writes next to `path`


@dataclass(frozen=True)
class _Manifest:
    entries: tuple[Entry, ...]
    created_dirs: tuple[str, ...]  # parents before children

    def to_json(self) -> bytes:
        data = {
            "format": _FORMAT,
            "entries": [entry.__dict__ for entry in self.entries],
            "created_dirs": list(self.created_dirs),
        }
        return json.dumps(data, indent=1).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> _Manifest:
        try:
            data = json.loads(raw)
            if data.get("format") != _FORMAT:
                raise JournalError(f"unknown journal format {data.get('format')!r}")
            entries = tuple(Entry(**item) for item in data["entries"])
            created = tuple(str(d) for d in data["created_dirs"])
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise JournalError(f"the manifest is malformed ({exc})") from exc
        # The journal lives where the model cannot write, but the build runs model-written code:
        # never trust a path that could reach outside the root.
        for path in [e.path for e in entries] + list(created):
            if syntax_refusal(path):
                raise JournalError(f"the manifest names an unsafe path {path!r}")
        for entry in entries:
            if not _TEMP_NAME.fullmatch(entry.temp) or not (entry.saved is None or _SAVED_NAME.fullmatch(entry.saved)):
                raise JournalError(f"the manifest names an unexpected file {entry.temp!r} / {entry.saved!r}")
            for digest_ in (entry.before, entry.after):
                if digest_ is not None and not _SHA256.fullmatch(digest_):
                    raise JournalError(f"the manifest has a malformed digest for {entry.path!r}")
            if entry.mode is not None and (not isinstance(entry.mode, int) or not 0 <= entry.mode <= 0o7777):
                raise JournalError(f"the manifest has a malformed mode for {entry.path!r}")
        return cls(entries, created)


@dataclass
class _UndoResult:
    restored: list[str] = field(default_factory=list)  # files put back as they were
    removed: list[str] = field(default_factory=list)  # files the apply had created
    conflicts: list[str] = field(default_factory=list)  # what was left alone, and why


@dataclass
class Journal:
    folder: Path
    manifest: _Manifest

    @classmethod
    def begin(cls, tree: Tree, folder: Path, changes: Sequence[Change]) -> Journal:
        """Record the originals and the plan in `folder` (which must not exist), durably."""
        SYSCALLS.mkdir(folder, 0o700)
        try:
            return cls._record(tree, folder, changes)
        except BaseException:
            _remove_folder(folder)  # nothing in the tree was touched yet: nothing to keep
            raise

    @classmethod
    def _record(cls, tree: Tree, folder: Path, changes: Sequence[Change]) -> Journal:
        token = secrets.token_hex(4)
        entries: list[Entry] = []
        created: list[str] = []
        for n, change in enumerate(changes):
            info = tree.lstat(change.path)
            before = mode = saved = None
            if info is not None:
                if not stat.S_ISREG(info.st_mode):
                    raise IsADirectoryError(errno.EISDIR, "not a regular file any more", change.path)
                saved = SAVED_ORIGINAL.format(n=n)
                _save_original(tree, change.path, folder / saved)
                before = digest((folder / saved).read_bytes())
                mode = stat.S_IMODE(info.st_mode)
            if change.content is not None:
                _missing_parents(tree, change.path, created)
            after = digest(change.content) if change.content is not None else None
            entries.append(Entry(change.path, before, after, mode, saved, f".code-commit-{token}-{n}.tmp"))
        manifest = _Manifest(tuple(entries), tuple(created))
        fsync_path(folder)  # the originals' entries are durable before the manifest names them
        _write_durably(folder / MANIFEST, manifest.to_json())
        fsync_path(folder.parent)  # and the journal folder is findable after a power loss
        return cls(folder, manifest)

    def commit(self) -> None:
        """The apply is complete and durable: deleting the manifest is what makes it stand."""
        SYSCALLS.unlink(self.folder / MANIFEST)

    def clean_up(self) -> None:
        """After the commit, best effort: a folder left without a manifest is harmless, `recover` removes it."""
        with contextlib.suppress(OSError):
            fsync_path(self.folder)
        _remove_folder(self.folder)


def undo(tree: Tree, folder: Path, manifest: _Manifest) -> _UndoResult:
    """Bring every file of the manifest back to its original; safe to run again after any interruption."""
    result = _UndoResult()
    _remove_temps(tree, manifest.entries)  # the files the apply was writing when it stopped
    for entry in reversed(manifest.entries):
        now = tree.state(entry.path)
        if now == entry.before:
            continue
        if now != entry.after:
            kept = f"; its original is kept in {folder / entry.saved}" if entry.saved else ""
            result.conflicts.append(f"{entry.path} was changed after the interrupted apply: left as it is{kept}")
            continue
        if entry.before is None:
            tree.unlink(entry.path)
            result.removed.append(entry.path)
        else:
            _restore(tree, folder, entry)
            result.restored.append(entry.path)
    for directory in reversed(manifest.created_dirs):
        try:
            tree.rmdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue  # already gone
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            result.conflicts.append(f"{directory}/ was created by the apply and holds other files now: left in place")
    tree.sync()
    return result


def _remove_temps(tree: Tree, entries: Sequence[Entry]) -> None:
    """Remove every temp file the apply left, each one even if another cannot be (a folder made
    read-only, a failing disk): an undo that stops leaves no stray `.code-commit-*.tmp` for `git
    status` to show wherever it could remove one. One that fails is tried once more (a fault that
    passed); the first failure left is raised, and `recover` tries again."""
    failed: list[Entry] = []
    for entry in reversed(entries):
        try:
            tree.remove_temp(entry.path, entry.temp)
        except OSError:
            failed.append(entry)
    still: list[OSError] = []
    for entry in failed:
        try:
            tree.remove_temp(entry.path, entry.temp)
        except OSError as again:
            still.append(again)
    if still:
        raise still[0]


def close(folder: Path, result: _UndoResult) -> None:
    """After an undo: the journal is done. Keep it (renamed, no longer pending) only if files were left alone."""
    if result.conflicts:
        SYSCALLS.rename(folder / MANIFEST, folder / CONFLICTS)
    else:
        SYSCALLS.unlink(folder / MANIFEST)
    # Past the close point: if this fails the manifest may come back after a power loss, and
    # undoing again is harmless (the undo is idempotent).
    with contextlib.suppress(OSError):
        fsync_path(folder)
    if not result.conflicts:
        _remove_folder(folder)


@dataclass
class _RecoveryReport:
    """What `recover` found and did."""

    undone: list[Path] = field(default_factory=list)  # journals of interrupted applies, now undone
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    cleaned: list[Path] = field(default_factory=list)  # leftover journal folders of finished applies

    def lines(self) -> list[str]:
        """One line per fact, for run.log and the console."""
        lines = [f"an apply was interrupted; undone from {folder}" for folder in self.undone]
        lines += [f"restored {path}" for path in self.restored]
        lines += [f"removed {path} (the interrupted apply had created it)" for path in self.removed]
        lines += self.conflicts
        return lines


def recover(root: Path, protected_patterns: Sequence[str] = ()) -> _RecoveryReport:
    """Undo every interrupted apply of this project, newest first. Raises RestoreFailed if one cannot be.

    Nothing under agent-config/logs/ is trusted: the build runs model-written code, which can plant
    a journal or a symlink there. No symlink is followed on the way to a journal or inside it, and
    a journal is used only if every path it names passes the guard's rules for an answer
    (`_journal_refusal`); one that does not is reported (RestoreFailed) and left as it is.

    Call it with the project's lock held, before anything else changes the tree."""
    report = _RecoveryReport()
    logs = root / CONFIG_DIR / LOGS_DIR
    try:
        folders = sorted(_journal_folders(logs))
    except OSError as exc:
        raise RestoreFailed(f"cannot look for interrupted applies in {logs}: {exc.strerror}") from exc
    for folder in reversed(folders):
        manifest_path = folder / MANIFEST
        if not os.path.lexists(manifest_path):
            if not os.path.lexists(folder / CONFLICTS):
                _remove_folder(folder)  # the apply committed (or never started) before it was cleaned up
                report.cleaned.append(folder)
            continue
        try:
            manifest = _Manifest.from_json(read_regular(manifest_path, _MANIFEST_BYTES, follow=False))
            refusal = _journal_refusal(root, folder, manifest, protected_patterns)
            if refusal is not None:
                raise RestoreFailed(
                    f"the journal in {folder} was not written by code-commit: {refusal}. Nothing was restored "
                    "from it and it is left as it is; look at it (a build may have planted it), then delete it."
                )
            with Tree(root) as tree:
                result = undo(tree, folder, manifest)
            close(folder, result)
        except (OSError, JournalError) as exc:
            raise RestoreFailed(
                f"an interrupted apply could not be undone ({describe_error(exc)}). Its journal is kept in {folder}; "
                "fix the cause and run `code-commit recover` again."
            ) from exc
        report.undone.append(folder)
        report.restored += result.restored
        report.removed += result.removed
        report.conflicts += result.conflicts
    return report


def _journal_folders(logs: Path) -> list[Path]:
    """Every `<run>/NN-journal` folder under logs/, reached without following a symlink: a symlinked
    run or journal folder may point anywhere, and recovery removes folders it finds."""
    mode = _lstat_mode(logs)
    if stat.S_ISLNK(mode):
        raise RestoreFailed(
            f"{logs} is a symlink, which recovery never follows: it could lead outside the project. Replace it "
            "with a folder (move any interrupted apply's journal back into it), then run code-commit recover."
        )
    if not stat.S_ISDIR(mode):
        return []
    found = []
    with os.scandir(logs) as runs:
        for run in runs:
            if not run.is_dir(follow_symlinks=False):
                continue
            with os.scandir(run.path) as journals:
                found += [
                    Path(j.path)
                    for j in journals
                    if j.name.endswith(JOURNAL_SUFFIX) and j.is_dir(follow_symlinks=False)
                ]
    return found


def _lstat_mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return 0


def _journal_refusal(
    root: Path, folder: Path, manifest: _Manifest, protected_patterns: Sequence[str] = ()
) -> str | None:
    """Why recovery may not act on this journal, or None. Its paths must pass the rules every answer
    passes (syntax, protected names, the user's protected patterns, no symlink along the way) and its
    saved originals must be regular files in the journal itself: code-commit never writes anything else."""
    paths = [e.path for e in manifest.entries] + list(manifest.created_dirs)
    rules = {path: syntax_refusal(path) or protected_refusal(path) for path in paths}
    protected: dict[str, IgnoreMatch | str | None]
    try:
        protected = dict(ProtectedPatterns(protected_patterns).check([p for p, rule in rules.items() if rule is None]))
    except OSError as failed:  # git could not answer: fail closed, as no path is known to be unprotected
        protected = {p: f"git could not check it against protected_patterns ({failed})" for p in rules}
    for path in paths:
        rule = rules[path]
        if rule is None and (match := protected[path]) is not None:
            rule = match if isinstance(match, str) else f"it matches the protected pattern {match.pattern!r}"
        if rule is None:
            rule = _symlink_along(root, path)
        if rule is not None:
            return f"it names {path!r}, which no answer may change ({rule})"
    for entry in manifest.entries:
        mode = _lstat_mode(folder / entry.saved) if entry.saved else 0
        if mode and not stat.S_ISREG(mode):  # missing is fine: an undo moves it back into place
            return f"its saved original {entry.saved} is not a regular file"
    return None


def _symlink_along(root: Path, path: str) -> str | None:
    parts = path.split("/")
    for n in range(1, len(parts)):
        mode = _lstat_mode(root.joinpath(*parts[:n]))
        if mode == 0:
            return None  # missing from here down: nothing to follow
        if stat.S_ISLNK(mode):
            return f"{'/'.join(parts[:n])} is a symlink"
    return None


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return str(exc)


def _save_original(tree: Tree, path: str, destination: Path) -> None:
    try:
        tree.link_out(path, destination)
        return
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
    data = tree.read(path)
    fd = SYSCALLS.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        write_all(fd, data)
        SYSCALLS.fsync(fd)
    finally:
        os.close(fd)


def _missing_parents(tree: Tree, path: str, created: list[str]) -> None:
    parts = path.split("/")[:-1]
    for n in range(1, len(parts) + 1):
        directory = "/".join(parts[:n])
        if directory not in created and tree.lstat(directory) is None:
            created.append(directory)


def _restore(tree: Tree, folder: Path, entry: Entry) -> None:
    assert entry.saved is not None
    source = folder / entry.saved
    try:
        data = source.read_bytes()
    except FileNotFoundError as exc:
        raise JournalError(f"the saved original of {entry.path} is missing from {folder}") from exc
    if digest(data) != entry.before:
        raise JournalError(f"the saved original of {entry.path} in {folder} is damaged")
    parts = entry.path.split("/")[:-1]
    for n in range(1, len(parts) + 1):  # someone may have removed the folder since
        if tree.lstat("/".join(parts[:n])) is None:
            tree.mkdir("/".join(parts[:n]))
    try:
        tree.rename_in(source, entry.path)  # the original's own inode: bytes, mode and links as they were
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        try:
            tree.write_atomic(entry.path, data, entry.mode, entry.temp)
        except OSError:
            with contextlib.suppress(OSError):  # no stray temp file: the failure is what is reported
                tree.remove_temp(entry.path, entry.temp)
            raise


def _write_durably(target: Path, data: bytes) -> None:
    temp = target.with_name(target.name + ".tmp")
    fd = SYSCALLS.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        write_all(fd, data)
        SYSCALLS.fsync(fd)
    finally:
        os.close(fd)
    SYSCALLS.rename(temp, target)
    fsync_path(target.parent)


def _remove_folder(folder: Path) -> None:
    """Best effort: a leftover folder without a manifest is harmless, and `recover` removes it later."""
    with contextlib.suppress(OSError):
        shutil.rmtree(folder)
