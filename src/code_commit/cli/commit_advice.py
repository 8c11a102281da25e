"""Which files init tells the user to commit, and which it warns are build outputs git does not ignore.

`git add -A` after a build commits its outputs (jsmn's four test binaries, a CMake build folder):
the model then sees them in the rollup and may "fix" them, and every review diff carries them. So
init names what to add, and names the untracked files that look built, with the .gitignore lines
that keep them out.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from code_commit.git.env import run_git

MAX_LISTED = 5000  # untracked entries looked at, at most
_MAX_NAMED = 8  # named in a step; the rest counted
LIST_TIMEOUT = 60.0  # only bounds a hung git
# Folders that hold what a build or a tool made, never the project's own source.
_BUILT_FOLDERS = frozenset(
    {"build", "target", "dist", "out", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache",
     ".ruff_cache", ".venv", "venv", ".tox", ".nox", ".gradle", "coverage", "htmlcov", "CMakeFiles", ".yarn"}
)  # fmt: skip
_BUILT_SUFFIXES = (".o", ".a", ".so", ".dylib", ".pyc", ".class", ".obj", ".exe", ".dll", ".egg-info", ".whl")
_EXECUTABLE_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"MZ")


@dataclass(frozen=True)
class Untracked:
    """Untracked files git does not ignore (a folder whose files are all untracked as one entry)."""

    own: tuple[str, ...]  # the project's own, to commit
    built: tuple[str, ...]  # outputs of a build, to ignore


def untracked(root: Path) -> Untracked | None:
    """None outside a git repository (or when git cannot say)."""
    args = ("ls-files", "-z", "--others", "--exclude-standard", "--directory", "--no-empty-directory")
    try:
        done = run_git(root, *args, timeout=LIST_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    entries = [entry.decode("utf-8", "surrogateescape") for entry in done.stdout.split(b"\0") if entry][:MAX_LISTED]
    built = tuple(entry for entry in entries if _built(root, entry))
    return Untracked(tuple(entry for entry in entries if entry not in built), built)


def _built(root: Path, entry: str) -> bool:
    parts = entry.rstrip("/").split("/")
    if any(part in _BUILT_FOLDERS or part.startswith("cmake-build-") for part in parts):
        return True
    if entry.endswith(_BUILT_SUFFIXES) or entry.rstrip("/").endswith(_BUILT_SUFFIXES):
        return True
    if entry.endswith("/"):
        return False
    try:
        fd = os.open(root / entry, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        return os.read(fd, 4).startswith(_EXECUTABLE_MAGIC)
    except OSError:
        return False
    finally:
        os.close(fd)


def add_command(paths: list[str]) -> str:
    """`git add` of the paths, quoted for a shell; the first _MAX_NAMED, and how many more there are."""
    named = " ".join(shlex.quote(path) for path in paths[:_MAX_NAMED])
    more = f"   (and {len(paths) - _MAX_NAMED} more: git status lists them)" if len(paths) > _MAX_NAMED else ""
    return f"git add -- {named} && git commit -m 'Set up code-commit'{more}"


def ignore_lines(built: tuple[str, ...]) -> str:
    """The .gitignore lines for the build outputs, anchored at the root: /test/test_default, /build/."""
    return ", ".join("/" + entry for entry in built[:_MAX_NAMED]) + (
        f" (and {len(built) - _MAX_NAMED} more)" if len(built) > _MAX_NAMED else ""
    )
