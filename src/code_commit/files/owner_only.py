"""What code-commit writes for itself under agent-config/ is private: files 0600, folders 0700,
whatever the umask. The logs hold prompts, answers and build output (the project's code, and
anything a censor did not recognise); nobody else on the machine needs to read them."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def open_private(path: Path, flags: int) -> int:
    """A descriptor of `path` for writing, created owner-only; an existing file is made owner-only too
    (one an older version wrote 0644)."""
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # O_CREAT's mode is masked by the umask: set it exactly
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_private_dirs(path: Path) -> None:
    """Create `path` and its missing parents, each owner-only; a folder that exists is left as it is."""
    missing = []
    here = path
    while not os.path.lexists(here) and here != here.parent:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, FOLDER_MODE)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
            continue
        os.chmod(folder, FOLDER_MODE)  # the umask masks mkdir's mode too
    if not os.path.isdir(path):
        raise FileExistsError(errno.EEXIST, "it exists and is not a directory", str(path))


def make_private_dir(path: Path) -> None:
    """Create one folder owner-only; FileExistsError if something is there."""
    os.mkdir(path, FOLDER_MODE)
    os.chmod(path, FOLDER_MODE)


def replace_private(target: Path, data: bytes) -> None:
    """`target` replaced whole by `data`, owner-only: written beside it first (never through a
    symlink planted there), then renamed over it, so a reader never sees half of it."""
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    with os.fdopen(open_private(temp, os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW), "wb") as fh:
        fh.write(data)
    os.replace(temp, target)
