"""The write guard: which paths an answer may write or delete. The security boundary.

Pure, given what is on disk: `Guard` reads the ignore files and lstat()s path components, but
never writes. Every refusal names the path and the rule, so the model can be told precisely.

A path passes only if it is a plain relative path (no `.`/`..`, no empty segments, no
backslashes, drive letters or control characters), no component on disk is a symlink, it
stays inside the root, it is not a protected name (compared case-insensitively after NFC
normalisation, because macOS and Windows treat `BUILD.SH` as `build.sh`), and git would not
ignore it.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from .ignore import IgnoreRules

MAX_SEGMENT_BYTES = 255
MAX_PATH_BYTES = 4096

# Protected wherever they appear: git's own state, the ignore files that decide what
# `git status` shows, files that change how git diffs or fetches, and the spec's lists.
PROTECTED_DIRS_ANYWHERE = frozenset({".git"})
PROTECTED_FILES_ANYWHERE = frozenset(
    {".gitignore", ".gitattributes", ".gitmodules", "userspecification.md", "cargo.lock"}
)
# Protected only at the project root.
PROTECTED_ROOT_DIRS = frozenset({"agent-config", "target"})
PROTECTED_ROOT_FILES = frozenset({"build.sh", "coderollup.sh", "llminstructions.md"})

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Refusal:
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path!r}: {self.rule}"


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def syntax_refusal(path: str) -> str | None:
    """The rule a path breaks by its spelling alone, or None."""
    if not path.strip():
        return "the path is empty"
    if path != path.strip():
        return "the path has leading or trailing whitespace"
    if _CONTROL.search(path):
        return "the path contains a NUL or control character"
    if "\\" in path:
        return "the path contains a backslash"
    if path.startswith("/"):
        return "absolute paths are not allowed"
    if _DRIVE.match(path):
        return "drive-letter paths are not allowed"
    if path.endswith("/"):
        return "the path ends with a slash (a directory, not a file)"
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return f"the path is longer than {MAX_PATH_BYTES} bytes"
    for segment in path.split("/"):
        if segment == "":
            return "the path has an empty segment (//)"
        if segment == "..":
            return "'..' segments (path traversal) are not allowed"
        if segment == ".":
            return "'.' segments are not allowed"
        if len(segment.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
            return f"a path segment is longer than {MAX_SEGMENT_BYTES} bytes"
    return None


def protected_refusal(path: str) -> str | None:
    """The rule a path breaks by naming a protected file or folder, or None."""
    segments = [_fold(s) for s in path.split("/")]
    if any(s in PROTECTED_DIRS_ANYWHERE for s in segments):
        return "it is inside a .git directory (git's own state is protected)"
    if segments[-1] in PROTECTED_FILES_ANYWHERE:
        return f"{path.split('/')[-1]} is a protected file"
    if len(segments) > 1 and segments[0] in PROTECTED_ROOT_DIRS:
        return f"{path.split('/')[0]}/ is a protected folder"
    if len(segments) == 1 and segments[0] in PROTECTED_ROOT_DIRS:
        return f"{path} is a protected folder"
    if len(segments) == 1 and segments[0] in PROTECTED_ROOT_FILES:
        return f"{path} is a protected file"
    return None


class Guard:
    """Path policy for one project root, given the ignore rules and what is on disk now."""

    def __init__(self, root: Path, extra_patterns: list[str] | tuple[str, ...] = ()) -> None:
        self.root = root.resolve()
        self.ignore = IgnoreRules.load(self.root, extra_patterns)

    def check_write(self, path: str) -> Refusal | None:
        return self._check(path, deleting=False)

    def check_delete(self, path: str) -> Refusal | None:
        return self._check(path, deleting=True)

    def _check(self, path: str, deleting: bool) -> Refusal | None:
        rule = syntax_refusal(path) or protected_refusal(path) or self._disk_refusal(path, deleting)
        if rule is None:
            ignored_by = self.ignore.ignored_by(path)
            if ignored_by:
                rule = f"it is ignored by git ({ignored_by}), so git status would not show the change"
        return Refusal(path, rule) if rule else None

    def _disk_refusal(self, path: str, deleting: bool) -> str | None:
        current = self.root
        parts = path.split("/")
        for index, part in enumerate(parts):
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                return None  # the rest will be created
            except OSError as exc:
                return f"cannot inspect {'/'.join(parts[: index + 1])}: {exc.strerror}"
            last = index == len(parts) - 1
            if stat.S_ISLNK(info.st_mode):
                where = "the path is" if last else f"{'/'.join(parts[: index + 1])} is"
                return f"{where} a symlink; code-commit never writes to or through a symlink"
            if not last and not stat.S_ISDIR(info.st_mode):
                return f"{'/'.join(parts[: index + 1])} is a file, not a directory"
            if last and not stat.S_ISREG(info.st_mode):
                kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                return f"the path is {kind}; only regular files can be {'deleted' if deleting else 'written'}"
        resolved = (self.root / path).resolve()
        if not resolved.is_relative_to(self.root):
            return "it resolves outside the project root"
        return None
