"""What the run found on disk before it first touched each file, so `--revert-on-failure` can
put the tree back exactly, and save the run's final proposal as a patch first.

Only the files the run's answers wrote or deleted are recorded and restored: the tree is not
snapshotted, so a supervisor's own uncommitted work elsewhere is never touched. What build.sh
itself writes (build outputs, caches) is not the run's change and is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .apply import Plan
from .diffs import file_diff


@dataclass(frozen=True)
class Original:
    path: str
    content: bytes | None  # None: the file did not exist
    mode: int
    created_dirs: tuple[str, ...] = ()  # parent directories that did not exist either, outermost first


@dataclass
class Originals:
    files: dict[str, Original] = field(default_factory=dict)

    def remember(self, root: Path, plan: Plan) -> None:
        """Record the pre-run state of every file `plan` is about to change (first sight only)."""
        for change in plan.changes:
            if change.path not in self.files:
                self.files[change.path] = _original(root, change.path)

    def created(self) -> frozenset[str]:
        """The files the run created (they did not exist when it first touched them)."""
        return frozenset(path for path, original in self.files.items() if original.content is None)

    def patch(self, root: Path) -> str:
        """The run's net change to the tree, as a git-style patch (`git apply` replays it)."""
        parts = []
        for path, original in sorted(self.files.items()):
            now = _read(root / path)
            mode = original.mode if original.content is not None else _mode_of(root / path)
            parts.append(file_diff(path, original.content, now, 0o755 if mode & stat.S_IXUSR else 0o644))
        return "".join(parts)

    def restore(self, root: Path) -> list[str]:
        """Put every recorded file back; return the problems met (the rest is still restored)."""
        problems = []
        for path, original in self.files.items():
            target = root / path
            try:
                if original.content is None:
                    with contextlib.suppress(FileNotFoundError):
                        target.unlink()
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    _atomic_write(target, original.content, original.mode)
            except OSError as exc:
                problems.append(f"{path}: {exc.strerror or exc}")
        for original in self.files.values():
            for directory in reversed(original.created_dirs):
                with contextlib.suppress(OSError):  # not empty: something else lives there now
                    (root / directory).rmdir()
        return problems


def _original(root: Path, path: str) -> Original:
    target = root / path
    content = _read(target)
    if content is not None:
        return Original(path, content, stat.S_IMODE(os.lstat(target).st_mode))
    created = []
    parent = Path(path).parent
    while parent != Path(".") and not (root / parent).exists():
        created.append(parent.as_posix())
        parent = parent.parent
    return Original(path, None, 0, tuple(reversed(created)))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _mode_of(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0o644


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
    """Temp file in the same directory, fsync, rename: the file is old or new, never half-written."""
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
