"""Reading a setup file (the query, the rollup, config.toml, a key file, an ignore file) safely.

Such a file may be anything a careless setup or a hostile build left there: a FIFO, whose open
waits for a writer forever, a device, a socket. Only a regular file is read: the kind is checked
before the open, the open never waits (O_NONBLOCK), and the kind is checked again on the open
descriptor, so a swap in between is caught too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from code_commit.errors import SetupError

SPECIAL = "a special file (a pipe, socket or device)"


class NotRegularFile(OSError):
    """The path is something other than a regular file or a directory; strerror says what."""


def read_regular(path: Path, follow: bool = True) -> bytes:
    """A regular file's bytes. FileNotFoundError, IsADirectoryError, NotRegularFile (a FIFO, a device,
    a socket; with follow=False, a symlink too) or another OSError otherwise; never blocks on a FIFO."""
    _refuse(os.stat(path, follow_symlinks=follow).st_mode, path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        _refuse(os.fstat(fd).st_mode, path)
        with open(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def _refuse(mode: int, path: Path) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a directory", str(path))
    kind = "a symlink" if stat.S_ISLNK(mode) else SPECIAL
    raise NotRegularFile(errno.EINVAL, f"it is {kind}, not a regular file", str(path))


def read_setup_file(path: Path, what: str) -> bytes | None:
    """A setup file's bytes, None if there is none; SetupError naming the path for anything but a
    regular file (a FIFO there would block a plain open forever) or a file that cannot be read."""
    try:
        return read_regular(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {what} {path}: {exc.strerror}; replace it with a regular file.") from exc
