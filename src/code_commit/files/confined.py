"""File operations inside the project root that never follow a symlink.

Every path is walked from the root one component at a time with O_NOFOLLOW and directory file
descriptors, so even if the tree changed after the guard looked (a build can create symlinks),
no write, rename or delete can land outside the root or go through a link. A symlink or a
file where a directory should be makes the operation fail with an OSError, and the apply
rolls back.

Every call that changes the disk goes through `SYSCALLS`, the seam the fault-injection and
kill tests use to fail or stop at any step.

Durability in bulk: an apply stages every new file's content first, then makes all of it durable
with one `syncfs(2)` before any rename, and the renames with one more after them. That is the
same order as an fsync per file (no name ever points at content that is not on disk), at the
cost of two flushes instead of thousands. Where syncfs is missing (not Linux), or a file lives on
another filesystem than the root, each file is fsynced on its own as before.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_CACHED_DIRS = 64  # directory descriptors kept open at once


@functools.cache
def _libc_syncfs() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only when an apply is about to flush

    try:
        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    syncfs.argtypes = [ctypes.c_int]
    syncfs.restype = ctypes.c_int
    return syncfs


def syncfs_available() -> bool:
    return _libc_syncfs() is not None


def _syncfs(fd: int) -> None:
    """Flush every dirty page and inode of the filesystem holding `fd`, and commit its journal."""
    syncfs = _libc_syncfs()
    if syncfs is None:
        raise OSError(0, "syncfs is not available here")
    if syncfs(fd) != 0:
        import ctypes

        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """An OSError names the project path being changed: not the temp file, not a bare last
    component, and something even where the call names nothing (a failed fsync)."""
    try:
        yield
    except OSError as exc:
        exc.filename, exc.filename2 = path, None
        raise


class Syscalls:
    """The disk-changing calls, in one place."""

    mkdir = staticmethod(os.mkdir)
    open = staticmethod(os.open)
    write = staticmethod(os.write)
    fsync = staticmethod(os.fsync)
    fchmod = staticmethod(os.fchmod)
    rename = staticmethod(os.rename)
    link = staticmethod(os.link)
    unlink = staticmethod(os.unlink)
    rmdir = staticmethod(os.rmdir)
    syncfs = staticmethod(_syncfs)


SYSCALLS = Syscalls()


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[SYSCALLS.write(fd, view) :]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fsync_path(directory: Path) -> None:
    """Make a directory's entries durable (a rename, link or unlink inside it)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        SYSCALLS.fsync(fd)
    finally:
        os.close(fd)


class Tree:
    """The project root, opened once. Paths are relative, "/"-separated, already checked by the guard."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._root_dev = os.fstat(self._root_fd).st_dev
        self._bulk = syncfs_available()  # syncfs flushes the root's filesystem in one call
        self._fds: OrderedDict[str, int] = OrderedDict()  # directory -> open descriptor (LRU)
        self._dirty: set[str] = set()  # directories whose entries changed and need an fsync

    def __enter__(self) -> Tree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        os.close(self._root_fd)

    def _dir(self, directory: str) -> int:
        """A descriptor of `directory` ("" for the root), walked without following symlinks."""
        if not directory:
            return self._root_fd
        if directory in self._fds:
            self._fds.move_to_end(directory)
            return self._fds[directory]
        # Down from the deepest folder already open (usually the parent), one level at a time: not
        # recursively, since a path the guard accepts can be 2,000 folders deep.
        missing = []
        here = directory
        while here and here not in self._fds:
            missing.append(here)
            here = here.rpartition("/")[0]
        fd = self._dir(here)  # the root, or a cache hit: no recursion
        for path in reversed(missing):
            fd = os.open(path.rpartition("/")[2], _DIR_FLAGS, dir_fd=fd)
            self._fds[path] = fd  # the newest entry: the eviction below never closes it
            if len(self._fds) > _MAX_CACHED_DIRS:
                _, oldest = self._fds.popitem(last=False)
                os.close(oldest)
        return fd

    def _split(self, path: str) -> tuple[int, str, str]:
        parent, _, name = path.rpartition("/")
        return self._dir(parent), parent, name

    def lstat(self, path: str) -> os.stat_result | None:
        """The entry itself (never what a link points to), or None if it or a parent is missing."""
        try:
            with _naming(path):
                fd, _, name = self._split(path)
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def lstat_each(self, paths: Iterable[str]) -> Iterator[tuple[str, os.stat_result | None]]:
        """Each path with its entry's lstat, or None where it or a parent is missing or cannot be
        looked at (a parent that is a symlink included): `lstat` without its per-call overhead, for
        the build watch, which stamps every file git shows twice a build."""
        for path in paths:
            parent, _, name = path.rpartition("/")
            try:
                yield path, os.stat(name, dir_fd=self._dir(parent), follow_symlinks=False)
            except OSError:
                yield path, None

    def read(self, path: str, limit: int = -1) -> bytes:
        """A regular file's bytes (at most `limit` of them, if given); OSError for anything else (a
        symlink, a directory, a fifo)."""
        with _naming(path):
            fd, _, name = self._split(path)
            file_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
            try:
                if not stat.S_ISREG(os.fstat(file_fd).st_mode):
                    raise IsADirectoryError(0, "not a regular file", path)
                with open(file_fd, "rb", closefd=False) as fh:
                    return fh.read(limit)
            finally:
                os.close(file_fd)

    def state(self, path: str) -> str | None:
        """sha256 of a regular file, None if nothing is there, "other" for anything else."""
        info = self.lstat(path)
        if info is None:
            return None
        if not stat.S_ISREG(info.st_mode):
            return "other"
        return digest(self.read(path))

    def mkdir(self, directory: str) -> None:
        with _naming(directory):
            fd, parent, name = self._split(directory)
            SYSCALLS.mkdir(name, 0o777, dir_fd=fd)
            self._dirty.add(parent)

    def rmdir(self, directory: str) -> None:
        with _naming(directory):
            fd, parent, name = self._split(directory)
            for cached in [d for d in self._fds if d == directory or d.startswith(directory + "/")]:
                os.close(self._fds.pop(cached))  # never reuse a descriptor of a removed directory
            SYSCALLS.rmdir(name, dir_fd=fd)
            self._dirty.add(parent)

    def write_atomic(self, path: str, data: bytes, mode: int | None, temp: str) -> None:
        """Replace `path` with `data` all at once: a temp file in the same directory, fsync, rename.

        `mode` None: a new file, created 0o666 less the umask. `temp` is the temp file's name, known
        to the journal, so a temp file left by a killed process can be found and removed."""
        self.stage(path, data, mode, temp, durable=True)
        self.install(path, temp)

    def stage(self, path: str, data: bytes, mode: int | None, temp: str, durable: bool = False) -> None:
        """Write `data` to the temp file `temp` next to `path`. Its content is durable on return if
        `durable`, or if it cannot be covered by `barrier` (no syncfs, or another filesystem)."""
        with _naming(path):
            fd, _, _ = self._split(path)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            file_fd = SYSCALLS.open(temp, flags, 0o666, dir_fd=fd)
            try:
                write_all(file_fd, data)
                if mode is not None:
                    SYSCALLS.fchmod(file_fd, mode)
                if durable or not self._bulk or os.fstat(file_fd).st_dev != self._root_dev:
                    SYSCALLS.fsync(file_fd)  # the content is on disk before the name points at it
            finally:
                os.close(file_fd)
            # On any failure the temp file stays: the undo removes it by its name from the journal.

    def barrier(self) -> None:
        """Make every staged file's content durable before any of them is installed."""
        if self._bulk:
            SYSCALLS.syncfs(self._root_fd)

    def install(self, path: str, temp: str) -> None:
        """Rename the staged temp file over `path` in one step."""
        with _naming(path):
            fd, parent, name = self._split(path)
            SYSCALLS.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            self._dirty.add(parent)

    def unlink(self, path: str) -> None:
        """Delete a regular file (never a link's target: unlink removes the entry itself)."""
        with _naming(path):
            fd, parent, name = self._split(path)
            SYSCALLS.unlink(name, dir_fd=fd)
            self._dirty.add(parent)

    def remove_temp(self, path: str, temp: str) -> bool:
        """Remove the temp file named `temp` next to `path`, if a killed process left it; True if it did."""
        try:
            fd, parent, _ = self._split(path)
            SYSCALLS.unlink(temp, dir_fd=fd)
        except (FileNotFoundError, NotADirectoryError):
            return False
        self._dirty.add(parent)
        return True

    def link_out(self, path: str, destination: Path) -> None:
        """Hard-link the file at `path` (not what a link points to) to `destination`, outside the walk."""
        with _naming(path):
            fd, _, name = self._split(path)
            SYSCALLS.link(name, destination, src_dir_fd=fd, follow_symlinks=False)

    def rename_in(self, source: Path, path: str) -> None:
        """Move `source` (a journal copy) over `path` in one step."""
        with _naming(path):
            fd, parent, name = self._split(path)
            SYSCALLS.rename(source, name, dst_dir_fd=fd)
            self._dirty.add(parent)

    def sync(self) -> None:
        """Make every rename, delete and mkdir so far survive a power loss: one syncfs of the root's
        filesystem, or an fsync of every directory whose entries changed."""
        if self._bulk and self._dirty:
            SYSCALLS.syncfs(self._root_fd)
            self._dirty.clear()
            return
        for directory in sorted(self._dirty, key=lambda d: -d.count("/")):
            try:
                SYSCALLS.fsync(self._dir(directory))
            except (FileNotFoundError, NotADirectoryError):
                continue  # removed since (a directory the undo took away)
        self._dirty.clear()
