"""The codebase rollup: the project's files, framed for the model, in agent-config/codeRollup.txt.

Which files: those of one `git ls-files -z --cached --others --exclude-standard` run in the
project root (the current directory): tracked files plus untracked files git does not ignore.
The list is deduplicated (git lists an unmerged path once per stage) and sorted by path bytes,
so the same tree always gives the same bytes, whatever order the files were created in.

Framing, as system_prompts/project_structure.txt explains it to the model:

    --- FILE [path] ---                    then the file's bytes, unchanged, plus a "\\n" if they
                                           do not end with one (an empty file is a header alone)
    --- FILE OMITTED [path] (reason) ---

Omitted lines stand inline, in the same sorted order as included files: the rollup reads as one
listing of the tree, and it is written in a single streaming pass.

Listed as omitted: symlinks (never followed), binary files, files over the size cap (decided
from lstat, before anything is read), directories (submodules, nested repositories), other
non-regular files, unreadable files. Left out silently: everything under agent-config/ (the
tool's own inputs, keys and logs), the output file itself, tracked files deleted from the work
tree. Left out with only a warning on stderr: paths that cannot stand on one header line
(control characters, Unicode line separators, bytes that are not UTF-8).

Binary means a NUL byte anywhere in the file, or content that is not valid UTF-8. git looks for
a NUL in the first 8000 bytes only; here the whole file is in memory anyway (it is under the
cap), so scanning all of it costs nothing, and code-commit reads the rollup back as strict
UTF-8, so one file that is not UTF-8 would make the whole rollup unreadable.

Known limit: the format has no escaping, so a file containing a line that looks like a header
is passed on as it is.

POSIX only, like the rest of code-commit: files are opened relative to a directory descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from .errors import SetupError
from .gitenv import git_env
from .private import FILE_MODE, make_private_dirs
from .settings import CONFIG_DIR
from .words import count

DEFAULT_OUTPUT = "agent-config/codeRollup.txt"
DEFAULT_MAX_FILE_SIZE = 256 * 1024
EXCLUDED_DIR = b"agent-config"

# C0 and C1 controls, DEL, and the characters str.splitlines() also breaks lines at.
_UNFRAMEABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# O_NOFOLLOW: a symlink swapped in after the lstat is refused, not followed.
# O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the run.
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_BUFFER = 1 << 20


class Reporter(Protocol):
    def info(self, text: str) -> None: ...
    def warn(self, text: str) -> None: ...


@dataclass
class Rollup:
    """What one run wrote."""

    output: Path
    included: int = 0
    omitted: int = 0
    size: int = 0  # bytes written to the output
    unframeable: list[bytes] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"rollup: {count(self.included, 'file')} included, {self.omitted} omitted, "
            f"{self.size:,} bytes written to {self.output}"
        )


def write_rollup(root: Path, output: Path | None = None, max_file_size: int | None = None) -> Rollup:
    """Write the rollup of the git work tree at `root`; `output` is relative to `root` unless absolute."""
    if max_file_size is None:
        max_file_size = DEFAULT_MAX_FILE_SIZE
    if max_file_size < 0:
        raise SetupError(f"the maximum file size must be 0 or more bytes, not {max_file_size}")
    target = root / (output if output is not None else DEFAULT_OUTPUT)
    paths = list_paths(root)  # before creating anything, so a non-repository leaves no trace
    own = _relative_to(target, root)
    private = own is not None and own.startswith(CONFIG_DIR.encode() + b"/")  # agent-config/ is owner-only
    try:
        if private:
            make_private_dirs(target.parent)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SetupError(f"cannot create {target.parent}: {exc.strerror}") from exc
    if own is not None:  # an output inside the tree must not roll itself up on the next run
        paths = [p for p in paths if p != own]
    result = Rollup(output if output is not None else Path(DEFAULT_OUTPUT))
    with _atomic_output(target, FILE_MODE if private else 0o666 & ~_umask()) as out:
        _render(root, paths, max_file_size, out, result)
        result.size = out.tell()
    return result


def command(reporter: Reporter, root: Path, output: Path | None, max_file_size: int | None) -> int:
    """`code-commit rollup`: write the rollup, report it on stderr, return the exit code."""
    result = write_rollup(root, output, max_file_size)
    for path in result.unframeable:
        reporter.warn(f"left out a path that cannot stand on one header line: {printable(path)}")
    reporter.info(result.summary())
    return 0


def list_paths(root: Path) -> list[bytes]:
    """git's tracked and untracked-not-ignored paths under `root`, deduplicated, sorted by bytes."""
    argv = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    try:
        # LC_ALL=C: git's messages are matched below, so they must not be translated.
        proc = subprocess.run(argv, cwd=root, capture_output=True, env=git_env(LC_ALL="C"), check=False)
    except FileNotFoundError as exc:
        raise SetupError("git is not installed or not on PATH; the rollup asks git which files to include") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            raise SetupError(
                f"{root} is not in a git repository: run the rollup from the project root of a git "
                "repository (git init creates one)"
            )
        raise SetupError(f"git ls-files failed in {root}: {message}")
    # An untracked nested repository is listed as "dir/"; it is framed as "dir".
    return sorted({p.rstrip(b"/") for p in proc.stdout.split(b"\0") if p})


def _render(root: Path, paths: list[bytes], cap: int, out: BinaryIO, result: Rollup) -> None:
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for path in paths:
            if path == EXCLUDED_DIR or path.startswith(EXCLUDED_DIR + b"/"):
                continue
            if not _frameable(path):
                result.unframeable.append(path)
                continue
            content = _content(root_fd, path, cap)
            if content is None:
                continue
            if isinstance(content, str):
                out.write(b"--- FILE OMITTED [%s] (%s) ---\n" % (path, content.encode()))
                result.omitted += 1
                continue
            out.write(b"--- FILE [%s] ---\n" % path)
            out.write(content)
            if content and not content.endswith(b"\n"):
                out.write(b"\n")  # so the next header starts on its own line
            result.included += 1
    finally:
        os.close(root_fd)


def _content(root_fd: int, path: bytes, cap: int) -> bytes | str | None:
    """The file's bytes to include, or the reason it is omitted, or None if it is not there."""
    try:
        st = os.stat(path, dir_fd=root_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a tracked file deleted from the work tree
    if stat.S_ISLNK(st.st_mode):
        return "symlink"
    if stat.S_ISDIR(st.st_mode):
        return "submodule or nested repository"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > cap:
        return over_cap(st.st_size, cap)
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=root_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return "symlink" if exc.errno == errno.ELOOP else f"unreadable: {exc.strerror}"
    try:
        data = _read_upto(fd, st.st_size + 1, cap)
        if len(data) > cap:  # it grew since the lstat
            return over_cap(os.fstat(fd).st_size, cap)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    finally:
        os.close(fd)
    if b"\0" in data:
        return "binary"
    if not data.isascii():  # the common case skips the decode
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return "binary"
    return data


def _read_upto(fd: int, expected: int, cap: int) -> bytes:
    """Read to EOF, or until more than `cap` bytes are in. Asking for the lstat size plus one
    usually gets the whole file in one read, without allocating a cap-sized buffer per file."""
    chunks: list[bytes] = []
    total = 0
    want = expected
    while total <= cap:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = cap + 1 - total
    return b"".join(chunks)


def over_cap(size: int, cap: int) -> str:
    """The reason for an oversized file, in KiB when the cap is a whole number of KiB, else in bytes.

    The size is rounded up, so it always reads as larger than the cap."""
    if cap % 1024 == 0:
        return f"{-(-size // 1024)} KiB, over the {cap // 1024} KiB cap"
    return f"{size} bytes, over the {cap}-byte cap"


def _frameable(path: bytes) -> bool:
    try:
        text = path.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _UNFRAMEABLE.search(text) is None


def printable(path: bytes) -> str:
    """A path for a one-line message: invalid bytes and control characters escaped."""
    text = path.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def _relative_to(target: Path, root: Path) -> bytes | None:
    """`target` as a git path relative to `root`, or None when it lies outside."""
    try:
        rel = (target.parent.resolve() / target.name).relative_to(root.resolve())
    except ValueError:
        return None
    return os.fsencode(rel.as_posix())


@contextlib.contextmanager
def _atomic_output(target: Path, mode: int) -> Iterator[BinaryIO]:
    """A buffered file that replaces `target` only once it is complete, so a reader (or a run
    that fails half-way) never sees half a rollup. No fsync: the file can always be regenerated."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise SetupError(f"cannot write in {target.parent}: {exc.strerror}") from exc
    try:
        with open(fd, "wb", buffering=_WRITE_BUFFER) as out:
            yield out
        os.chmod(tmp, mode)  # mkstemp makes it 0600
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # disk full, target is a directory, ...
            raise SetupError(f"cannot write {target}: {exc.strerror or exc}") from exc
        raise


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it; single-threaded here, so setting it back is safe
    os.umask(mask)
    return mask
