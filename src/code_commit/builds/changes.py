"""What each build changed in the files `git status` shows: every tracked file, and every untracked
one git does not ignore.

A build runs the model's code, and often tools that rewrite sources (a formatter, a code
generator). That is no error by itself, but it is never silent: a build that edited README.md (an
encoded token in a comment) and the tests left a record naming only the answer's file. So around
each build `BuildWatch` lists those files (`git ls-files --cached --others --exclude-standard`) and
their lstat stamps (mode, size, mtime, ctime, inode: no unprivileged process can set ctime back);
afterwards a path whose stamp moved, or that appeared or went, is read and compared with what it
held before, and a real change is reported (a rewrite to the same bytes is not).

What a file held before is known without copying the tree: a tracked file git sees unchanged
(`git diff` names only those that differ from the index) held its index blob, read back with
`git cat-file` when needed; the others (the user's uncommitted edits, the answer's files, untracked
files) are copied into memory before the build, up to KEEP_BYTES in all. What the builds of a run
first changed keeps its original here, so `--revert-on-failure` can put it back; a file past the
budget is reported as changed, with no original to put back.

Bounded: at most MAX_FILES paths are watched (the rest named as not watched), a file is read up to
READ_BYTES to compare it, and KEEP_BYTES of originals are held.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.files.confined import Tree
from code_commit.git.env import NO_LOCKS, run_git
from code_commit.git.layout import GitSetup, find_git_layout, read_git_setup, shown_files
from code_commit.git.objects import blob_id, object_format

MAX_FILES = 200_000  # paths watched around one build
KEEP_BYTES = 64 << 20  # originals held in memory for a run, at most
READ_BYTES = 16 << 20  # a file larger than this is compared by its stamp alone

CREATED, CHANGED, DELETED = "created", "changed", "deleted"
_Stamp = tuple[int, int, int, int, int]  # mode, size, mtime_ns, ctime_ns, inode


@dataclass(frozen=True)
class Before:
    """A file as it was before the run's builds first changed it."""

    content: bytes | None  # None: it did not exist, or it is the index blob `blob`
    mode: int = 0o644
    known: bool = True  # False: over the budget, or unreadable: reported, but no original to put back
    symlink: bool = False  # a symlink: reported, never written back
    blob: str | None = None  # a tracked file git saw unchanged: its content is this index blob
    size: int = 0  # its size on disk then, in bytes

    def read(self, root: Path) -> bytes | None:
        """The original content (from git for a blob); None if it did not exist or is unknown."""
        if self.blob is None:
            return self.content
        try:
            done = run_git(root, "cat-file", "blob", self.blob, extra=NO_LOCKS)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True)
class Change:
    path: str
    kind: str  # CREATED, CHANGED or DELETED
    before: Before | None = field(default=None, compare=False)  # what it held just before this build

    def __str__(self) -> str:
        return f"{self.path} ({self.kind})"


@dataclass
class BuildWatch:
    """The files git shows, watched around each build of one run (working state: the run keeps it)."""

    root: Path
    keep_bytes: int = KEEP_BYTES
    max_files: int = MAX_FILES
    originals: dict[str, Before] = field(default_factory=dict)  # every path a build changed, first sight
    last: list[Change] = field(default_factory=list)  # what the last build changed
    truncated: bool = False  # a listing passed max_files: the rest was not watched
    shown: frozenset[str] = frozenset()  # the paths git showed before the last build
    _net: dict[str, str] = field(default_factory=dict)  # each path's change across the builds so far
    _stamps: dict[str, _Stamp | None] = field(default_factory=dict)
    _kept: dict[str, tuple[_Stamp, Before]] = field(default_factory=dict)  # copies, by the stamp they were taken at
    _kept_bytes: int = 0
    _clean: dict[str, str] = field(default_factory=dict)  # tracked files git sees unchanged: their index blob
    _object_format: str = ""  # the repository's hash: sha1 or sha256

    def before(self, index: GitSetup | None = None, shown: list[str] | None = None) -> None:
        """Before a build: every watched path's stamp, and a copy of each one whose content git could
        not give back (not a clean tracked file), while the budget lasts. `index` and `shown`: the
        repository's index and the files git shows, as just listed, if the caller has them (the
        tamper check does)."""
        paths = self._listing(shown)
        self.shown = frozenset(paths)
        layout = find_git_layout(self.root)
        index = read_git_setup(layout.top) if index is None else index
        self._object_format = self._object_format or object_format(self.root)
        self._clean = clean_blobs(self.root, index, layout.prefix)
        with Tree(self.root) as tree:
            self._stamps = {path: _stamp(info) for path, info in tree.lstat_each(paths)}
            for path, stamp in self._stamps.items():
                if stamp is None or path in self._clean:
                    continue
                if path in self._kept and self._kept[path][0] == stamp:
                    continue  # copied already, unchanged since
                self._keep(tree, path, stamp)

    def after(self, shown: list[str] | None = None) -> list[Change]:
        """After the build: what it changed, in name order; the first original of each is recorded.
        `shown`: the files git shows now, if the caller has listed them."""
        paths = [*self._stamps, *(p for p in self._listing(shown) if p not in self._stamps)]
        changes = []
        with Tree(self.root) as tree:
            for path, info in tree.lstat_each(paths):
                old, new = self._stamps.get(path), _stamp(info)
                if old == new:
                    continue
                before = self._before(path, old)  # just before this build
                if old is not None and new is not None and self._same(tree, path, before, new):
                    continue  # rewritten with the very bytes and mode it had
                kind = CREATED if old is None else DELETED if new is None else CHANGED
                changes.append(Change(path, kind, before))
                self.originals.setdefault(path, before)  # the first stands: what the run found
                self._merge(path, kind)
        self._stamps = {}
        self.last = sorted(changes, key=lambda change: change.path)
        return self.last

    def showed_nothing_in(self, folder: str) -> bool:
        """Whether git showed no file in `folder` (relative, no trailing slash) before the last build:
        the folder did not exist, or held only what git already ignored."""
        inside = folder + "/"
        return not self.truncated and not any(path.startswith(inside) for path in self.shown)

    def net(self) -> list[Change]:
        """What the builds of the run changed, all told, in name order: a file one build created and a
        later one changed was created; one created and deleted again is no change."""
        return [Change(path, kind) for path, kind in sorted(self._net.items())]

    def _merge(self, path: str, kind: str) -> None:
        earlier = self._net.get(path)
        if earlier == CREATED and kind == DELETED:
            del self._net[path]
        elif earlier is None or kind == DELETED:
            self._net[path] = kind
        elif earlier == DELETED:  # it existed before the run, was deleted, and is back
            self._net[path] = CHANGED

    def _listing(self, shown: list[str] | None) -> list[str]:
        """Tracked files and untracked ones git does not ignore, relative to the root; never
        agent-config/ (code-commit's own, ignored in any case)."""
        names = shown_files(self.root) if shown is None else shown
        paths = [p for p in names or () if not (p == CONFIG_DIR or p.startswith(CONFIG_DIR + "/"))]
        if len(paths) > self.max_files:
            self.truncated = True
        return paths[: self.max_files]

    def _keep(self, tree: Tree, path: str, stamp: _Stamp) -> None:
        mode, size = stamp[0], stamp[1]
        previous = self._kept.pop(path, None)
        if previous is not None and previous[1].content is not None:
            self._kept_bytes -= len(previous[1].content)
        if stat.S_ISLNK(mode):
            self._kept[path] = (stamp, Before(None, mode, known=False, symlink=True, size=size))
            return
        if not stat.S_ISREG(mode) or self._kept_bytes + size > self.keep_bytes:
            self._kept[path] = (stamp, Before(None, stat.S_IMODE(mode), known=False, size=size))
            return
        try:
            content = tree.read(path, size + 1)
        except OSError:
            content = None
        if content is None or len(content) != size:  # unreadable, or changing under us: no true copy
            self._kept[path] = (stamp, Before(None, stat.S_IMODE(mode), known=False, size=size))
            return
        self._kept_bytes += size
        self._kept[path] = (stamp, Before(content, stat.S_IMODE(mode), size=size))

    def _before(self, path: str, old: _Stamp | None) -> Before:
        """What `path` held before this build."""
        if old is None:
            return Before(None)
        if stat.S_ISLNK(old[0]):
            return Before(None, old[0], known=False, symlink=True, size=old[1])
        if path in self._clean:
            return Before(None, stat.S_IMODE(old[0]), blob=self._clean[path], size=old[1])
        kept = self._kept.get(path)
        if kept is not None and kept[0] == old:
            return kept[1]
        return Before(None, stat.S_IMODE(old[0]), known=False, size=old[1])

    def _same(self, tree: Tree, path: str, before: Before, new: _Stamp) -> bool:
        """Whether the file holds what it held before, mode included (a rewrite to the same bytes)."""
        if not before.known or not stat.S_ISREG(new[0]) or stat.S_IMODE(new[0]) != before.mode:
            return False
        if new[1] > READ_BYTES or (before.blob is None and (before.content is None or new[1] != len(before.content))):
            return False
        try:
            now = tree.read(path, new[1] + 1)
        except OSError:
            return False
        if before.blob is not None:  # compared as git would store it, without reading the blob back
            return blob_id(now, self._object_format) == before.blob
        return now == before.content


def _stamp(info: os.stat_result | None) -> _Stamp | None:
    """A path's lstat stamp; None when it is missing, or lies through a symlink (as git sees it)."""
    if info is None:
        return None
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def clean_blobs(root: Path, index: GitSetup, prefix: str) -> dict[str, str]:
    """The tracked files below the root that git sees unchanged, each with its index blob (what it
    holds, known without reading it), relative to the root; `prefix`: the root below the top."""
    dirty = _dirty_files(root)
    below = ((path.removeprefix(prefix), blob) for path, blob in index.blobs.items() if path.startswith(prefix))
    return {path: blob for path, blob in below if path not in dirty}


def _dirty_files(root: Path) -> set[str]:
    """Tracked files whose content differs from the index (git compares by stat, hashing only the
    files whose stat changed), relative to the root."""
    try:
        done = run_git(
            root, "diff", "--name-only", "-z", "--no-ext-diff", "--no-textconv", "--relative", extra=NO_LOCKS
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if done.returncode != 0:
        return set()
    return {os.fsdecode(n) for n in done.stdout.split(b"\0") if n}
