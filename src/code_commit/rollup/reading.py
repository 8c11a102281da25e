"""Each file the listing names judged, and read with bounds, before the rollup may show it.

Left out, and listed: what `rollup_exclude` matches; by default (`rollup_rules`, unless
`rollup_include` matches) lock files, images, translation catalogs, minified and generated files;
symlinks (never followed), binary files, files over `rollup_max_file_size` (decided from lstat,
before anything is read; a source or test file still gets its outline), directories (submodules,
nested repositories), other non-regular files, unreadable files. Untracked files git does not ignore
are listed by name ("not tracked by git"), never read, unless `rollup_include` names them: the model
could not change them, and an untracked build folder is no source. Left out and listed, with no word
of their content: files that hold a secret the run would censor (`secrets.collect_secrets`: a
provider key from the environment or a key file, a secret-looking variable's value), such as an
untracked `.env` or a hard link to a key file. The run censors prompts anyway, but the rollup is a
file users read and paste; censoring it in place would also show the model a file that is not the
one on disk.

Binary means a NUL byte anywhere in the file, or content that is not valid UTF-8. git looks for
a NUL in the first 8000 bytes only; here the whole file is in memory anyway (it is under the
cap), so scanning all of it costs nothing, and code-commit reads the rollup back as strict
UTF-8, so one file that is not UTF-8 would make the whole rollup unreadable.

Two passes: the first reads every file to judge it (binary, generated) and keeps what it read
up to KEEP_IN_MEMORY bytes; the second writes the chosen files, reading again what was not
kept, and judges them again (a file may change in between).

POSIX only, like the rest of code-commit: files are opened relative to a directory descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from code_commit.errors import SetupError
from code_commit.rollup.framing import HEADER, LeftOut, Rollup, frameable, over_cap
from code_commit.rollup.listing import excluded_dir, tool_dirs
from code_commit.rollup.outline import MAX_OUTLINE_BYTES, Outline
from code_commit.rollup.rules import Kind, excluded_by_content, excluded_by_name, kind_of

if TYPE_CHECKING:
    from code_commit.git.ignore import PathPatterns

HOLDS_SECRET = "holds a secret: an API key or a secret variable's value"
KEEP_IN_MEMORY = 64 * 2**20
_NOT_TRACKED = "not tracked by git"
OUTLINED_KINDS = (Kind.SOURCE, Kind.TEST)
# O_NOFOLLOW: a symlink swapped in after the lstat is refused, not followed.
# O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the run.
OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class Candidate:
    path: bytes
    kind: Kind
    size: int
    forced: bool  # named by rollup_include
    content: bytes | None  # None: read it again when writing
    too_big: str | None = None  # over rollup_max_file_size (the reason): never whole, outlined if source
    shape: Outline | None = None  # its outline, when ranking it by the query made it already

    @property
    def cost(self) -> int:
        return len(HEADER % self.path) + self.size + 1


def judge(
    root_fd: int,
    paths: list[bytes],
    untracked: set[bytes],
    cap: int,
    exclude: PathPatterns,
    include: PathPatterns,
    secrets: tuple[bytes, ...],
    result: Rollup,
) -> list[Candidate]:
    """Every path either becomes a candidate or is recorded as left out, with its reason."""
    from code_commit.git.ignore import GitUnanswered

    candidates = []
    kept = 0
    tools = tool_dirs(paths)
    names = [p.decode("utf-8") for p in paths if frameable(p) and not excluded_dir(p, tools)]
    try:  # one git call for each setting that has patterns
        excluded, included = exclude.check(names), include.check(names)
    except GitUnanswered as exc:
        raise SetupError(f"cannot match rollup_exclude and rollup_include: {exc}") from exc
    for path in paths:
        if excluded_dir(path, tools):
            continue
        if not frameable(path):
            result.unframeable.append(path)
            continue
        name = path.decode("utf-8")
        forced = included[name] is not None
        reason = "rollup_exclude" if excluded[name] is not None else None
        if reason is None and not forced:  # untracked build output, a stray .env: by name only, never read
            reason = _NOT_TRACKED if path in untracked else excluded_by_name(name)
        if reason is not None:
            with contextlib.suppress(OSError):
                st = os.stat(path, dir_fd=root_fd, follow_symlinks=False)
                result.left_out.append(LeftOut(name, reason, st.st_size if stat.S_ISREG(st.st_mode) else None))
            continue
        content = read_content(root_fd, path, cap)
        if content is None:
            continue
        kind = kind_of(name)
        if isinstance(content, Omitted):
            if content.too_big and kind in OUTLINED_KINDS and content.size is not None:
                candidates.append(Candidate(path, kind, content.size, forced, None, too_big=content.reason))
            else:  # an oversized file's reason says its size
                result.left_out.append(LeftOut(name, content.reason, None if content.too_big else content.size))
            continue
        if holds_secret(content, secrets):  # rollup_include cannot bring it in
            result.left_out.append(LeftOut(name, HOLDS_SECRET, len(content)))
            continue
        reason = None if forced else excluded_by_content(content, kind)
        if reason is not None:
            result.left_out.append(LeftOut(name, reason, len(content)))
            continue
        keep = kept + len(content) <= KEEP_IN_MEMORY
        kept += len(content) if keep else 0
        candidates.append(Candidate(path, kind, len(content), forced, content if keep else None))
    return candidates


def holds_secret(content: bytes, secrets: tuple[bytes, ...]) -> bool:
    return any(secret in content for secret in secrets)


def read_head(root_fd: int, path: bytes) -> bytes | None:
    """The first MAX_OUTLINE_BYTES of a regular file (no symlink followed), or None."""
    try:
        fd = os.open(path, OPEN_FLAGS, dir_fd=root_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return _read_upto(fd, MAX_OUTLINE_BYTES, MAX_OUTLINE_BYTES - 1)
    except OSError:
        return None
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Omitted:
    reason: str
    size: int | None = None
    too_big: bool = False  # over the size cap: a source file still gets its outline


def read_content(root_fd: int, path: bytes, cap: int) -> bytes | Omitted | None:
    """The file's bytes to include, or why it is left out, or None if it is not there."""
    try:
        st = os.stat(path, dir_fd=root_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a tracked file deleted from the work tree
    if stat.S_ISLNK(st.st_mode):
        return Omitted("symlink")
    if stat.S_ISDIR(st.st_mode):
        return Omitted("submodule or nested repository")
    if not stat.S_ISREG(st.st_mode):
        return Omitted("not a regular file")
    if st.st_size > cap:
        return Omitted(over_cap(st.st_size, cap), st.st_size, too_big=True)
    try:
        fd = os.open(path, OPEN_FLAGS, dir_fd=root_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Omitted("symlink" if exc.errno == errno.ELOOP else f"unreadable: {exc.strerror}")
    try:
        data = _read_upto(fd, st.st_size + 1, cap)
        if len(data) > cap:  # it grew since the lstat
            size = os.fstat(fd).st_size
            return Omitted(over_cap(size, cap), size, too_big=True)
    except OSError as exc:
        return Omitted(f"unreadable: {exc.strerror}")
    finally:
        os.close(fd)
    if b"\0" in data:
        return Omitted("binary", len(data))
    if not data.isascii():  # the common case skips the decode
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return Omitted("binary", len(data))
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
