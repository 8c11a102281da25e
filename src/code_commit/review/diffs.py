"""Unified diffs of a plan against the files on disk, in git's format (pure, given disk).

Two forms of the same diff:

- **patches** (`change_patch`, `patch_of`), as bytes: byte for byte what the
  files hold, whatever their encoding, so `git apply` and `git apply -R` reproduce them exactly.
  A file git treats as binary (it holds a NUL byte) gets git's binary form (`GIT binary patch`,
  both directions, with the full `index` line git requires), as `git diff --binary` writes it.
  These are what the log folder keeps (`NN-changes.diff`, `final.patch`, `dry-run.patch`).
- **diffs for reading** (`change_diff`, `hunk_diff`), as text: bytes that are not
  UTF-8 show as U+FFFD, and a binary file shows as `Binary files ... differ`, as `git diff` does.

Git-style headers (`diff --git`, `new file mode`, `deleted file mode`) make every change
visible, an empty new file included. The hunks are `hunks.split`'s, so a review shows exactly
the hunks the diff has.
"""

from __future__ import annotations

import base64
import os
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from code_commit.answer.plan import Plan
from code_commit.git.objects import blob_id, object_format
from code_commit.review.hunks import FileChange, Hunk, file_change

_NO_NEWLINE_TEXT = "\\ No newline at end of file\n"
_NO_NEWLINE_BYTES = _NO_NEWLINE_TEXT.encode()
_BINARY_LINE = 52  # bytes of compressed data per line of a binary patch, as git writes them

Redact = Callable[[str], str]


def file_diff(path: str, old: bytes | None, new: bytes | None, mode: int = 0o644) -> str:
    """The diff of one file, for reading; `None` stands for a side where the file does not exist."""
    return change_diff(file_change(path, old, new, mode))


def _is_binary(data: bytes | None) -> bool:
    """Whether git would treat the content as binary (git looks for a NUL byte)."""
    return data is not None and b"\0" in data


def change_diff(change: FileChange) -> str:
    """One file's diff for reading (the console, a review, a prompt)."""
    if change.old == change.new:
        return ""
    if _is_binary(change.old) or _is_binary(change.new):
        source = f"a/{change.path}" if change.old is not None else "/dev/null"
        target = f"b/{change.path}" if change.new is not None else "/dev/null"
        return _git_header(change) + f"Binary files {source} and {target} differ\n"
    return file_header(change) + "".join(hunk_diff(hunk) for hunk in change.hunks)


def _git_header(change: FileChange) -> str:
    header = f"diff --git a/{change.path} b/{change.path}\n"
    if change.kind == "create":
        header += f"new file mode 100{change.mode:o}\n"
    elif change.kind == "delete":
        header += f"deleted file mode 100{change.mode:o}\n"
    return header


def file_header(change: FileChange) -> str:
    header = _git_header(change)
    if not change.hunks:  # an empty file created or deleted: git prints no ---/+++ lines
        return header
    source = f"a/{change.path}" if change.old is not None else "/dev/null"
    target = f"b/{change.path}" if change.new is not None else "/dev/null"
    return header + f"--- {source}\n+++ {target}\n"


def hunk_diff(hunk: Hunk) -> str:
    """One hunk as unified-diff text. Bytes that are not UTF-8 show as U+FFFD: for reading only."""
    parts = [hunk.header + "\n"]
    for tag, line in hunk.lines:
        text = line.decode("utf-8", "replace")
        parts.append(tag + text if text.endswith("\n") else tag + text + "\n" + _NO_NEWLINE_TEXT)
    return "".join(parts)


def change_patch(change: FileChange, redact: Redact, object_format: str = "sha1") -> bytes:
    """One file's change as a patch `git apply` takes, byte for byte (see the module docstring).

    `redact` censors secrets inside a binary file's content before it is compressed, where the
    patch writer could not see them (text is censored when the patch is written: `write_patch`).
    `object_format`: the repository's hash, which names both sides in a binary patch's index line."""
    if change.old == change.new:
        return b""
    if _is_binary(change.old) or _is_binary(change.new):
        return _binary_patch(change, redact, object_format)
    parts = [file_header(change).encode("utf-8")]
    for hunk in change.hunks:
        parts.append(hunk.header_bytes + b"\n")
        for tag, line in hunk.lines:
            prefix = tag.encode("ascii")
            parts.append(prefix + line if line.endswith(b"\n") else prefix + line + b"\n" + _NO_NEWLINE_BYTES)
    return b"".join(parts)


def _binary_patch(change: FileChange, redact: Redact, object_format: str) -> bytes:
    """git's binary form: the full index line (git apply checks both sides' object ids), then the new
    content and the old one, each zlib-compressed and base85-encoded (`git diff --binary`)."""
    old, new = _object_id(change.old, object_format), _object_id(change.new, object_format)
    mode = f" 100{change.mode:o}" if change.kind == "modify" else ""
    header = _git_header(change) + f"index {old}..{new}{mode}\nGIT binary patch\n"
    return header.encode("utf-8") + _literal(change.new, redact) + _literal(change.old, redact)


def _object_id(data: bytes | None, object_format: str) -> str:
    """A side's blob id; all zeros for a side that does not exist, as long as the hash's."""
    if data is None:
        return "0" * len(blob_id(b"", object_format))
    return blob_id(data, object_format)


def _literal(data: bytes | None, redact: Redact) -> bytes:
    data = _redact_bytes(data or b"", redact)
    compressed = zlib.compress(data)
    out = [b"literal %d\n" % len(data)]
    for start in range(0, len(compressed), _BINARY_LINE):
        chunk = compressed[start : start + _BINARY_LINE]
        size = len(chunk)
        out.append(bytes([ord("A") + size - 1 if size <= 26 else ord("a") + size - 27]))
        out.append(base64.b85encode(chunk, pad=True) + b"\n")  # git's base85 alphabet, zero-padded groups
    out.append(b"\n")
    return b"".join(out)


def _redact_bytes(data: bytes, redact: Redact) -> bytes:
    """`redact` applied to bytes. Latin-1 maps every byte to one character and back, so nothing
    else changes; the secrets (API keys) are ASCII, so they match their bytes exactly."""
    return redact(data.decode("latin-1")).encode("latin-1", "replace")


def patch_of(root: Path, changes: Iterable[FileChange], redact: Redact) -> bytes:
    """Every change as one patch, byte for byte (binary files in git's binary form)."""
    fmt = object_format(root)
    return b"".join(change_patch(change, redact, fmt) for change in changes)


def write_patch(target: Path, patch: bytes, redact: Redact) -> Path:
    """Write a patch to the log folder as bytes, with the secrets censored (owner-only, like the logs)."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with open(fd, "wb") as fh:
        fh.write(_redact_bytes(patch, redact))
    return target


def plan_changes_on_disk(root: Path, plan: Plan) -> list[FileChange]:
    """Every change of the plan with the file as it is on disk now, in plan order."""
    changes = []
    for change in plan.changes:
        target = root / change.path
        try:
            old: bytes | None = target.read_bytes()
            mode = 0o755 if os.stat(target).st_mode & stat.S_IXUSR else 0o644
        except FileNotFoundError:
            old, mode = None, 0o644
        changes.append(file_change(change.path, old, change.content, mode))
    return changes
