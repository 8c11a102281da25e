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
IGNORE_FILE_BYTES = 16 << 20  # an ignore file code-commit looks at itself is read up to this much
# query.txt and codeRollup.txt are read up to this much: far past any model's context window (a
# million tokens is a few MiB), and checked before a byte is read (a sparse 4 GiB rollup was read whole).
INPUT_BYTES = 32 << 20


class NotRegularFile(OSError):
    """The path is something other than a regular file or a directory; strerror says what."""


class TooLarge(OSError):
    """The file is bigger than its reader takes; strerror says how big, and the cap."""


def read_regular(path: Path, limit: int, follow: bool = True) -> bytes:
    """A regular file's bytes, at most `limit` of them. FileNotFoundError, IsADirectoryError,
    NotRegularFile (a FIFO, a device, a socket; with follow=False, a symlink too), TooLarge, or
    another OSError otherwise; never blocks on a FIFO. The size is checked on the open file before
    a byte is read, so a sparse file of terabytes costs nothing, and the read stops past `limit`
    whatever the size said (a file growing while it is read)."""
    _refuse(os.stat(path, follow_symlinks=follow).st_mode, path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        _refuse(st.st_mode, path)
        if st.st_size > limit:
            raise _too_large(path, st.st_size, limit)
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise _too_large(path, len(data), limit)
        return data
    finally:
        os.close(fd)


def _too_large(path: Path, size: int, limit: int) -> TooLarge:
    return TooLarge(
        errno.EFBIG,
        f"it is {_bytes(size)}{' or more' if size == limit + 1 else ''}, more than the {_bytes(limit)} "
        "code-commit reads of it",
        str(path),
    )


def _bytes(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def _refuse(mode: int, path: Path) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a directory", str(path))
    kind = "a symlink" if stat.S_ISLNK(mode) else SPECIAL
    raise NotRegularFile(errno.EINVAL, f"it is {kind}, not a regular file", str(path))


def read_setup_file(path: Path, what: str, limit: int) -> bytes | None:
    """A setup file's bytes, None if there is none; SetupError naming the path for anything but a
    regular file (a FIFO there would block a plain open forever), one over `limit` bytes, or a file
    that cannot be read."""
    try:
        return read_regular(path, limit)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {what} {path}: {exc.strerror}; replace it with a regular file.") from exc
