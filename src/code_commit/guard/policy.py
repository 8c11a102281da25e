"""The write guard: which paths an answer may write or delete. The security boundary.

Pure, given what is on disk: `Guard` asks git what it ignores (one `git check-ignore` for all the
paths of an answer, see git/ignore.py), reads git's index and lstat()s path components, but never
writes. Every refusal names the path and the rule, so the model can
be told precisely. docs/security-tests.md lists each rule with the test that shows it.

A path passes only if it is a plain relative path (no `.`/`..`, no empty segments, no
backslashes, drive letters or control characters, within the length limits), it is not a
protected name (compared as macOS and Windows compare names, on every OS) nor matched by the
user's `protected_patterns`, no component on disk is a symlink, it is not inside a nested git
repository (a folder with a `.git`, or a submodule in git's index, initialized or not), it stays
inside the root, git would not ignore it, git's index does not hide its changes
(assume-unchanged, skip-worktree), and, if it exists, git tracks it or this run created it (an
untracked file's change or deletion would show in neither `git status` nor `git diff`).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from code_commit.config import protected
from code_commit.errors import SetupError
from code_commit.git.config_files import git_files
from code_commit.git.ignore import IgnoreMatch, IgnoreRules, ProtectedPatterns, fold
from code_commit.git.layout import GitSetup, TreeListing, find_git_layout, list_tree, read_git_setup

_MAX_SEGMENT_BYTES = 255
_MAX_PATH_BYTES = 4096
# Folders a path may lie below. Each folder on the way is looked at (is it a symlink, a nested
# repository, does it hold an ignore file), so a path's cost grows with the square of its depth:
# 450 paths 2,041 folders deep took 90 s and 2 GB. A real project's deepest source files are a few
# dozen folders down (a Java package), far from this.
MAX_DEPTH = 100


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_DRIVE = re.compile(r"^[A-Za-z]:")
# Code points HFS+ ignores when it compares names (the list git checks for ".git"):
# on macOS ".g\u200cit" opens ".git".
_HFS_IGNORABLE = dict.fromkeys(
    map(ord, "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff")
)


_MISSING = object()  # a directory that does not exist yet


def check_git_index(root: Path) -> TreeListing | None:
    """A setup error, before any model call, where git cannot read the index of the repository
    around `root` ("dubious ownership", a damaged index, no git): the guard fails closed there and
    would refuse every path of every answer, so every paid call would be wasted. Returns what git
    said, the index and the files it shows below `root`, listed once for every setup check that
    needs them (None outside a repository)."""
    layout = find_git_layout(root)
    if layout.common_dir is None:
        return None  # not a repository: there is no index to keep truthful
    listing = list_tree(root, layout.top)
    error = listing.index.index_error or ("git ls-files could not list its files" if listing.shown is None else None)
    if error is not None:
        raise SetupError(
            f"git cannot read this repository's index ({error}), so code-commit cannot tell what git "
            "status would show and would refuse every change; run git status to see why and fix it "
            f"(for 'dubious ownership': git config --global --add safe.directory {layout.top})"
        )
    return listing


@dataclass(frozen=True)
class Refusal:
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path!r}: {self.rule}"


@functools.lru_cache(maxsize=4096)  # an answer's folder names repeat from path to path
def _protected_form(segment: str) -> str:
    """A name as the most permissive file system would resolve it: NFC, case-folded, HFS+
    ignorables dropped, an NTFS stream suffix (`name:stream`) and trailing dots and spaces dropped.
    Folded again after upper-casing, as NTFS compares names upper-cased: a dotless ı (U+0131) is
    not an i to casefold(), but upper-cases to I, so `buıld.sh` may be build.sh there."""
    name = fold(fold(segment).upper()).translate(_HFS_IGNORABLE)
    return name.split(":", 1)[0].rstrip(". ")


def _folded(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_protected_form(name) for name in names)


# The protected names (config/protected.py), as _protected_form compares them.
_PROTECTED_DIRS_ANYWHERE = _folded(protected.DIRS_ANYWHERE)
_PROTECTED_FILES_ANYWHERE = _folded(protected.FILES_ANYWHERE)
_PROTECTED_ROOT_DIRS = _folded(protected.ROOT_DIRS)
_PROTECTED_ROOT_FILES = _folded(protected.ROOT_FILES)


def syntax_refusal(path: str) -> str | None:
    """The rule a path breaks by its spelling alone, or None."""
    if not path.strip():
        return "the path is empty"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (from a JSON escape such as "\udcff") would become a file name that is
        # not UTF-8, or no file name at all: git would show it mangled, if at all.
        return "the path is not valid UTF-8 (it contains a lone surrogate code point)"
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
    if len(path.encode("utf-8")) > _MAX_PATH_BYTES:
        return f"the path is longer than {_MAX_PATH_BYTES} bytes"
    if path.count("/") > MAX_DEPTH:
        return f"the path is more than {MAX_DEPTH} folders deep"
    for segment in path.split("/"):
        if segment == "":
            return "the path has an empty segment (//)"
        if segment == "..":
            return "'..' segments (path traversal) are not allowed"
        if segment == ".":
            return "'.' segments are not allowed"
        if len(segment.encode("utf-8")) > _MAX_SEGMENT_BYTES:
            return f"a path segment is longer than {_MAX_SEGMENT_BYTES} bytes"
    return None


def protected_refusal(path: str) -> str | None:
    """The rule a path breaks by naming a protected file or folder, or None."""
    segments = [_protected_form(s) for s in path.split("/")]
    if any(s in _PROTECTED_DIRS_ANYWHERE for s in segments):
        return "it is inside a .git directory (git's own state is protected)"
    if segments[-1] in _PROTECTED_FILES_ANYWHERE:
        return f"{path.split('/')[-1]} is a protected file"
    if len(segments) > 1 and segments[0] in _PROTECTED_ROOT_DIRS:
        return f"{path.split('/')[0]}/ is a protected folder"
    if len(segments) == 1 and segments[0] in _PROTECTED_ROOT_DIRS:
        return f"{path} is a protected folder"
    if len(segments) == 1 and segments[0] in _PROTECTED_ROOT_FILES:
        return f"{path} is a protected file"
    return None


class Guard:
    """Path policy for one project root, given the ignore rules and what is on disk now."""

    def __init__(
        self,
        root: Path,
        extra_patterns: Iterable[str] = (),
        git: GitSetup | None = None,
        created: Iterable[str] = (),
    ) -> None:
        """`extra_patterns`: the user's protected patterns (raises ValueError if one can never match).
        `git`: git's index; None reads it with `git ls-files` (in a repository).
        `created`: the files (relative to `root`) that earlier answers of this run created: untracked,
        yet the run's own, so later answers may change or delete them."""
        self.root = root.resolve()
        self.ignore = IgnoreRules(self.root)
        layout = self.ignore.layout
        self._prefix = layout.prefix
        if git is None:
            git = read_git_setup(layout.top) if layout.common_dir is not None else GitSetup()
        self.setup = git
        self.protected = ProtectedPatterns(extra_patterns)
        self.created = frozenset(created)
        self._directories: dict[str, str | object | None] = {}  # see _directory_state
        self._gitlinks = frozenset(fold(link) for link in self.setup.gitlinks)
        self._names: dict[str, str | None] = {}  # see _name_rule
        # git's answers per path: the deciding line, None, or why git could not answer.
        self._protected_by: dict[str, IgnoreMatch | str | None] = {}
        self._ignored_by: dict[str, IgnoreMatch | str | None] = {}
        self._git_reads: dict[str, str] | None = None  # see _git_config_refusal

    @property
    def warnings(self) -> list[str]:
        """Problems met in the ignore files so far (invalid lines, unreadable files), for the log."""
        return self.ignore.warnings

    def prepare(self, paths: Iterable[str]) -> None:
        """Ask git about all the paths of an answer at once: one `git check-ignore` for the protected
        patterns (if there are any) and one for git's ignore rules, each sent only the paths the
        rules before it let through. The checks that follow use the answers; a path not prepared
        is asked about on its own."""
        paths = [p for p in dict.fromkeys(paths) if self._name_rule(p) is None]
        self._protected_by.update(_ask(self.protected.check, [p for p in paths if p not in self._protected_by]))
        self._ignored_by.update(
            _ask(
                self.ignore.check,
                [
                    p
                    for p in paths
                    if p not in self._ignored_by
                    and self._protected_by[p] is None
                    and self._index_refusal(p) is None
                    and self._folders_refusal(p) in (None, _MISSING)  # git refuses a path through a symlink
                ],
            )
        )

    def check_write(self, path: str) -> Refusal | None:
        return self._check(path, deleting=False)

    def check_delete(self, path: str) -> Refusal | None:
        return self._check(path, deleting=True)

    def _name_rule(self, path: str) -> str | None:
        """The rule the path breaks by its spelling or name alone (cached: prepare asks it first)."""
        if path not in self._names:
            self._names[path] = syntax_refusal(path) or protected_refusal(path)
        return self._names[path]

    def _check(self, path: str, deleting: bool) -> Refusal | None:
        rule = self._name_rule(path)
        if rule is None:
            if path not in self._protected_by:
                self.prepare([path])
            by = self._protected_by[path]
            if isinstance(by, str):
                rule = f"git could not check it against protected_patterns ({by})"
            elif by is not None:
                rule = (
                    f"it matches the protected pattern {by.pattern!r} (protected_patterns in agent-config/config.toml)"
                )
        rule = rule or self._git_config_refusal(path) or self._index_refusal(path) or self._disk_refusal(path, deleting)
        if rule is None:
            if path not in self._ignored_by:
                self.prepare([path])
            ignored = self._ignored_by[path]
            if isinstance(ignored, str):
                rule = (
                    f"git could not say whether it ignores the path ({ignored}), so code-commit cannot tell "
                    "what git status would show; fix the repository (run git status to see why)"
                )
            elif ignored is not None:
                rule = f"it is ignored by git ({ignored}), so git status would not show the change"
            elif self._prefix + path in self.setup.hidden:
                rule = "git's index marks it assume-unchanged or skip-worktree, so git status would not show the change"
            elif self._untracked(path):
                change = "deletion" if deleting else "change"
                rule = (
                    f"{path} is not tracked by git, so git diff could not show this {change} and the file's "
                    f"content would be lost; git add {path} first (or commit it) to let the model change it"
                )
        return Refusal(path, rule) if rule else None

    def _git_config_refusal(self, path: str) -> str | None:
        """A file of the project that git reads as its configuration (one `.git/config` includes, a
        team's shared config is often tracked; the excludes or attributes file it names) or runs as
        a program (a filter, textconv, diff or merge driver, editor, pager or credential helper the
        configuration names; a hook in the folder core.hooksPath names, or one husky's runs). A line
        written there makes the user's next git command run a program, or hides files from git
        status. Asked of git once per guard, on the first path."""
        if self._git_reads is None:
            self._git_reads = self._files_git_uses()
        folded = fold(path)
        rule = self._git_reads.get(folded)
        if rule is None:
            rule = next((why for folder, why in self._git_reads.items() if folded.startswith(folder + "/")), None)
        return f"{path} {rule}" if rule else None

    def _files_git_uses(self) -> dict[str, str]:
        """Each file (or hooks folder) of the project git reads as configuration or runs, folded,
        with why."""
        layout = self.ignore.layout
        found = git_files(self.root, layout.top)
        named: dict[str, str] = {}

        def add(path: Path, why: str) -> None:
            relative = os.path.relpath(path, self.root)
            if not relative.startswith(".."):
                named.setdefault(fold(relative), why)

        for path in found.config:
            add(
                path,
                "is a file git reads as configuration (an include of .git/config, or the excludes or "
                "attributes file it names): a line there could make git run a program or hide changes",
            )
        for path, key in found.programs:
            add(
                path,
                f"is a program git runs ({key} in git's configuration names it): the user's next git "
                "command would run what the answer wrote",
            )
        for path in found.husky_hooks:
            add(
                path,
                "is a git hook (husky's hooks folder, core.hooksPath, runs it): the user's next git "
                "command would run what the answer wrote",
            )
        for folder in found.hook_folders:
            add(
                folder,
                "is inside the folder git runs hooks from (core.hooksPath): the user's next git "
                "command would run what the answer wrote",
            )
        return named

    def _untracked(self, path: str) -> bool:
        """An existing file that git's index does not have and this run did not create. Outside a
        repository (no index) nothing is: there is no git status to keep truthful."""
        tracked = self.setup.tracked
        if tracked is None or self._prefix + path in tracked or path in self.created:
            return False
        return os.path.lexists(self.root / path)  # the checks above made every component a real folder

    def _index_refusal(self, path: str) -> str | None:
        """What git's index says about the path before anything is looked at on disk."""
        setup = self.setup
        if setup.index_error is not None:
            return (
                f"git could not read this repository's index ({setup.index_error}), so code-commit cannot "
                "tell what git status would show; fix the repository (run git status to see why)"
            )
        if setup.gitlinks:
            # Folded as a case-insensitive file system compares names: on macOS Vendor/Lib/x is vendor/lib/x.
            parts = fold(self._prefix + path).split("/")
            for n in range(1, len(parts) + 1):
                if "/".join(parts[:n]) in self._gitlinks:
                    link = "/".join((self._prefix + path).split("/")[:n])
                    inside = link.startswith(self._prefix)  # else the project lies inside the submodule
                    where = link[len(self._prefix) :] if inside else f"{link} (around the project)"
                    return (
                        f"{where} is a submodule (a nested git repository in git's index, initialized or not); "
                        "git status of this project would not show changes inside it"
                    )
        return None

    def _disk_refusal(self, path: str, deleting: bool) -> str | None:
        """What is on disk along the path. With no `..`, no absolute path and no symlink component
        (and the apply re-walking with O_NOFOLLOW), the path cannot resolve outside the root."""
        state = self._folders_refusal(path)
        if isinstance(state, str):
            return state
        if state is _MISSING:
            return None  # this directory and everything below it will be created
        try:
            info = os.lstat(self.root / path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"cannot inspect the path: {exc.strerror}"
        if stat.S_ISLNK(info.st_mode):
            return "the path is a symlink; code-commit never writes to or through a symlink"
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            return f"the path is {kind}; only regular files can be {'deleted' if deleting else 'written'}"
        return None

    def _folders_refusal(self, path: str) -> str | object | None:
        """Why a folder along the path refuses it, _MISSING from a folder that does not exist yet
        (nothing below it does either), or None."""
        parts = path.split("/")
        for n in range(1, len(parts)):
            state = self._directory_state("/".join(parts[:n]))
            if state is not None:
                return state
        return None

    def _directory_state(self, directory: str) -> str | object | None:
        """None for a usable directory, _MISSING, or why nothing may be written inside it (cached)."""
        if directory not in self._directories:
            self._directories[directory] = self._inspect_directory(directory)
        return self._directories[directory]

    def _inspect_directory(self, directory: str) -> str | object | None:
        try:
            info = os.lstat(self.root / directory)
        except FileNotFoundError:
            return _MISSING
        except OSError as exc:
            return f"cannot inspect {directory}: {exc.strerror}"
        if stat.S_ISLNK(info.st_mode):
            return f"{directory} is a symlink; code-commit never writes to or through a symlink"
        if not stat.S_ISDIR(info.st_mode):
            return f"{directory} is a file, not a directory"
        if os.path.lexists(self.root / directory / ".git"):
            return (
                f"{directory} is a nested git repository (a submodule or vendored repository); "
                "git status of this project would not show changes inside it"
            )
        return None


def _ask(
    check: Callable[[list[str]], dict[str, IgnoreMatch | None]], paths: list[str]
) -> dict[str, IgnoreMatch | str | None]:
    """git's answers for `paths`, or for every one of them why git could not answer (fail closed)."""
    try:
        return dict(check(paths)) if paths else {}
    except OSError as failed:  # GitUnanswered, or no room for a throwaway git directory
        return dict.fromkeys(paths, str(failed))
