"""What a run's integrity rests on, and the evidence that a build left it alone.

`protected_paths` names the files the build must not change: build.sh and codeRollup.sh (the gate
and the model's view of the code), every ignore file git reads and the attribute files (what
`git status` and `git add -A` see), git's own directories (hooks, config), and everything that can
make the user's next git command run a program: every `.git` anywhere in the tree (a nested
repository's config names a `core.fsmonitor` that `git status` inside it runs), the folder
core.hooksPath names, and each file git's configuration names as a program (filters, textconv,
diff and merge drivers, editors, pagers, credential helpers). The sandbox binds the existing ones
read-only; `Fingerprint` records them, with everything under agent-config/ but the current run's
folder, before each build, and `changed_paths` names what differs afterwards. With the sandbox
this never fires; with `sandbox = off` it is the last line of defence: a changed path stops the run.

Bounded: at most MAX_ENTRIES paths are listed, the search for `.git` looks at TREE_ENTRIES
entries of the tree at most (breadth first: the shallow ones first), files are hashed by streaming up to a byte budget,
and every file's identity (inode, size, mtime and ctime, which no unprivileged process can set
back) is recorded whether or not it was hashed.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.config.protected import GATE_FILES, GIT_DIR, GIT_FILES
from code_commit.git.config_files import GitFiles, git_files
from code_commit.git.env import run_git
from code_commit.git.layout import GitLayout, GitSetup, find_git_layout, list_tree

_GIT_DIR_PARTS = ("config", "config.worktree", "hooks", "info")  # of the git dir and the common dir
MAX_ENTRIES = 20_000  # paths listed by one fingerprint
_HASH_FILE_LIMIT = 1 << 20  # bigger files are compared by identity only
_HASH_BUDGET = 64 << 20  # bytes hashed by one fingerprint
_LIST_TIMEOUT = 120.0  # git ls-files on a huge tree; only bounds a hung git
TREE_ENTRIES = 1_000_000  # entries of the tree the search for `.git` looks at, at most
CREATED = " (created)"  # how `changed_paths` names a path that appeared


@dataclass(frozen=True)
class ProtectedPaths:
    root: Path
    files: tuple[Path, ...]  # build.sh, codeRollup.sh, the ignore and attribute files (may not exist)
    git_dirs: tuple[Path, ...]  # .git (a dir or a gitdir: file), the git dir it names, the common dir
    truncated: bool = False  # the tree has more ignore files than MAX_ENTRIES: not all are listed
    git_config: tuple[Path, ...] = ()  # git's files outside .git: global ones, included ones (may not exist)
    configured: GitFiles = field(default_factory=GitFiles)  # the programs and hooks git's configuration names
    tree_truncated: bool = False  # the tree has more than TREE_ENTRIES entries: `.git` was not looked for past them
    index: GitSetup = field(default_factory=GitSetup)  # the index as listed now, once for every reader
    prefix: str = ""  # the root relative to the repository's top: where in the index the root's files are
    shown: list[str] | None = None  # the files git shows below the root, listed with the index (None: git cannot say)

    @property
    def programs(self) -> tuple[Path, ...]:
        """The files git's configuration runs, and the hooks husky's hooks folder runs."""
        named = (path for path, _ in self.configured.programs)
        return tuple(dict.fromkeys((*named, *self.configured.husky_hooks)))

    @property
    def hook_folders(self) -> tuple[Path, ...]:
        return self.configured.hook_folders

    @property
    def read_only(self) -> tuple[Path, ...]:
        """What the sandbox binds read-only (those that exist): everything watched but agent-config/,
        which it hides."""
        return (*self.files, *self.git_dirs, *self.git_config, *self.programs, *self.hook_folders)


def protected_paths(root: Path, skip: Path | None = None, configured: GitFiles | None = None) -> ProtectedPaths:
    """`skip`: a folder not to look for `.git` in (the current run's, which the run writes).
    `configured`: what git's configuration named before the build, for the check after it: a build
    that rewrote the configuration (`core.hooksPath = /`) is caught by the change to the file, and
    must not choose what the check looks at."""
    layout = find_git_layout(root)
    listing = list_tree(root, layout.top)  # the files git shows and the index: one git call at the top
    index = listing.index
    files, truncated = _git_files(root, listing.shown)
    git_dirs = [root / GIT_DIR]
    dot_git = layout.top / GIT_DIR
    if dot_git.is_file():  # a linked worktree or a submodule: its git dir is elsewhere
        git_dirs.append(dot_git)
        git_dir = _gitdir_of(dot_git)
        if git_dir is not None:
            git_dirs.append(git_dir)
    elif dot_git.is_dir():
        git_dirs.append(dot_git)
    if layout.common_dir is not None:
        git_dirs.append(layout.common_dir)
    nested, tree_truncated = _nested_dot_gits(root, skip)
    for dot_git in (*_submodule_dot_gits(layout, index), *nested):
        git_dirs.append(dot_git)
        named = _gitdir_of(dot_git) if dot_git.is_file() else None
        if named is not None:
            git_dirs.append(named)
    unique = list(dict.fromkeys(git_dirs))
    gate = tuple(root / name for name in GATE_FILES)
    configured = git_files(root, layout.top) if configured is None else configured
    return ProtectedPaths(
        root,
        gate + files,
        tuple(unique),
        truncated,
        configured.config,
        configured,
        tree_truncated,
        index,
        layout.prefix,
        listing.shown,
    )


def _nested_dot_gits(root: Path, skip: Path | None = None) -> tuple[list[Path], bool]:
    """Every `.git` (a folder, a `gitdir:` file or a symlink) below the root, but the root's own and
    any under agent-config/ or `skip`, breadth first; and whether TREE_ENTRIES cut the search short.
    A nested repository is a place git runs programs from: its config's `core.fsmonitor` runs at the
    user's next `git status` inside it, an IDE's scan of the tree included. Symlinks are not followed."""
    found: list[Path] = []
    pending = [str(root)]
    seen = 0
    leave_out = {os.path.join(root, GIT_DIR), os.path.join(root, CONFIG_DIR), *([str(skip)] if skip else [])}
    while pending:
        folders, pending = pending, []
        for folder in folders:
            try:
                with os.scandir(folder) as listing:
                    children = list(listing)
            except OSError:
                continue
            seen += len(children)
            for child in sorted(children, key=lambda e: e.name):
                if child.path in leave_out:
                    continue
                if child.name.lower() == GIT_DIR:
                    found.append(Path(child.path))
                elif child.is_dir(follow_symlinks=False):
                    pending.append(child.path)
            if seen > TREE_ENTRIES:
                return found, True
    return found, False


def _submodule_dot_gits(layout: GitLayout, index: GitSetup) -> list[Path]:
    """Each submodule's `.git` (a `gitdir:` file, or an old-style folder) below the root, from the
    index's gitlinks. `git status` in the project reads the config of the git dir it names and runs
    what that says (core.fsmonitor): a build that repointed it would run a command on the host,
    outside any sandbox. Nested submodules are not listed: that would mean running git inside a
    submodule, whose configuration is what is in doubt."""
    if layout.common_dir is None:
        return []
    links = sorted(link for link in index.gitlinks if link.startswith(layout.prefix))
    return [layout.top / link / GIT_DIR for link in links][:MAX_ENTRIES]


def _gitdir_of(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return Path(os.path.realpath(dot_git.parent / text[len("gitdir:") :].strip()))


def _git_files(root: Path, shown: list[str] | None) -> tuple[tuple[Path, ...], bool]:
    """Every .gitignore, .gitattributes and .gitmodules git would read in the tree: tracked ones,
    untracked ones (from `shown`, when given), and ignored ones (a .gitignore holding `*` ignores
    itself, and git still reads it), but none inside an ignored folder, where git reads nothing.
    Without a repository (or git), a bounded walk finds them."""
    pathspecs = ["--", *(f":(glob)**/{name}" for name in GIT_FILES)]
    names = {name for name in shown if name.rpartition("/")[2] in GIT_FILES} if shown is not None else set()
    listings = [["--cached", "--others"]] if shown is None else []
    for listing in (*listings, ["--others", "--ignored", "--directory"]):
        try:
            listed = run_git(root, "ls-files", "-z", "--exclude-standard", *listing, *pathspecs, timeout=_LIST_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            break
        if listed.returncode != 0:
            break
        # --directory lists an ignored folder as "name/", without looking inside: git reads nothing there.
        names.update(os.fsdecode(n) for n in listed.stdout.split(b"\0") if n and not n.endswith(b"/"))
    else:
        ordered = sorted(names)
        return tuple(root / n for n in ordered[:MAX_ENTRIES]), len(ordered) > MAX_ENTRIES
    found: list[Path] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        at_root = Path(folder) == root
        dirs[:] = sorted(d for d in dirs if d != GIT_DIR and not (at_root and d == CONFIG_DIR))
        seen += len(dirs) + len(files)
        found.extend(Path(folder) / n for n in sorted(files) if n in GIT_FILES)
        if seen > MAX_ENTRIES:
            return tuple(found), True
    return tuple(found), False


@dataclass
class Fingerprint:
    """Each watched path's state: lstat identity, a symlink's target and its target's identity, and
    a file's SHA-256 while the budget lasts. Missing paths are recorded too: one appearing is a change."""

    entries: dict[str, tuple[object, ...]] = field(default_factory=dict)
    truncated: bool = False
    _hashed: int = 0
    _root: Path = Path()

    @classmethod
    def take(cls, protected: ProtectedPaths, skip: Path | None = None) -> Fingerprint:
        """`skip`: the current run's folder, which the run itself writes while the build runs."""
        root = protected.root
        fp = cls(truncated=protected.truncated, _root=root)
        # The few paths that decide the verdict first, the many ignore files last: a fingerprint cut
        # short at MAX_ENTRIES (by a tree with that many ignore files) still watches the gate.
        gate, ignore_files = protected.files[: len(GATE_FILES)], protected.files[len(GATE_FILES) :]
        for path in (*gate, *protected.git_config, *protected.programs):
            fp._add(path)
        if protected.git_dirs and len(fp.entries) < MAX_ENTRIES:
            fp.entries.update(_git_state(protected))
        for git_dir in protected.git_dirs:
            if git_dir.name.lower() == GIT_DIR or git_dir.is_file() or git_dir.is_symlink() or not git_dir.exists():
                fp._add(git_dir)  # a `.git` in the tree: one created is named alone, not its contents
            if git_dir.is_file() or git_dir.is_symlink() or not git_dir.exists():
                continue
            for watched in (git_dir, *_inner_git_dirs(git_dir)):  # submodules' and worktrees' own
                for part in _GIT_DIR_PARTS:
                    fp._walk(watched / part, None)
        for folder in protected.hook_folders:
            fp._walk(folder, None)
        # agent-config/'s own files (keys, config.toml, query.txt), then the ignore files, then its
        # folders (the run logs, which grow with every run).
        folders = fp._walk(root / CONFIG_DIR, skip, files_only=True)
        for path in ignore_files:
            fp._add(path)
        for folder in folders:
            fp._walk(folder, skip)
        return fp

    def _name(self, path: Path) -> str:
        try:
            return path.relative_to(self._root).as_posix()
        except ValueError:
            return str(path)

    def _add(self, path: Path) -> os.stat_result | None:
        if len(self.entries) >= MAX_ENTRIES:
            self.truncated = True
            return None
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self.entries[self._name(path)] = ("missing",)
            return None
        except OSError as exc:
            self.entries[self._name(path)] = ("unreadable", exc.errno)
            return None
        entry: tuple[object, ...] = (stat.S_IFMT(st.st_mode), st.st_mode, st.st_ino)
        if stat.S_ISLNK(st.st_mode):
            try:
                entry += (os.readlink(path), *self._content(path, os.stat(path)))
            except OSError as exc:
                entry += ("dangling", exc.errno)
        elif stat.S_ISREG(st.st_mode):
            entry += self._content(path, st)
        self.entries[self._name(path)] = entry
        return st

    def _content(self, path: Path, st: os.stat_result) -> tuple[object, ...]:
        identity: tuple[object, ...] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _HASH_FILE_LIMIT or self._hashed + st.st_size > _HASH_BUDGET:
            return identity
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as fh:
                while chunk := fh.read(1 << 16):
                    digest.update(chunk)
        except OSError as exc:
            return (*identity, "unreadable", exc.errno)
        self._hashed += st.st_size
        return (*identity, digest.hexdigest())

    def _walk(self, path: Path, skip: Path | None, files_only: bool = False) -> list[Path]:
        """`path` and, if it is a real directory (never a symlink's), everything under it; with
        `files_only`, its folders are not walked but returned, for the caller to walk later."""
        st = self._add(path)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return []
        try:
            children = sorted(os.scandir(path), key=lambda e: (e.is_dir(follow_symlinks=False), e.name))
        except OSError as exc:
            self.entries[self._name(path) + "/"] = ("unlistable", exc.errno)
            return []
        folders = []
        for child in children:
            if skip is not None and Path(child.path) == skip:
                continue
            if files_only and child.is_dir(follow_symlinks=False):
                folders.append(Path(child.path))
            else:
                self._walk(Path(child.path), skip)
        return folders


def _inner_git_dirs(git_dir: Path) -> list[Path]:
    """The git dirs inside one: each submodule's (`modules/<name>/`, nested ones included) and each
    linked worktree's (`worktrees/<name>/`). Their config and hooks run commands as the outer ones
    do (a submodule's core.fsmonitor, whenever `git status` looks into it)."""
    found: list[Path] = []
    pending = [git_dir / "modules", git_dir / "worktrees"]
    for _ in range(MAX_ENTRIES):  # folders looked into, at most
        if not pending:
            break
        folder = pending.pop()
        try:
            children = sorted(Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for child in children:
            if (child / "HEAD").is_file():  # a git dir: its own modules/ may hold nested submodules
                found.append(child)
                pending.append(child / "modules")
            elif folder.name == "modules" or not (folder / "HEAD").exists():  # a submodule named a/b
                pending.append(child)
    return sorted(found)


def _git_state(protected: ProtectedPaths) -> dict[str, tuple[object, ...]]:
    """What git's index and refs say about the tree, as digests: the root's staged files with their
    skip-worktree and assume-unchanged flags (never the stat data `git status` refreshes), and HEAD
    with every branch, tag and stash. A build that flags, commits or stashes the model's change hides
    it from `git status` and `git diff`."""
    index = protected.index
    if index.index_error is not None:
        state: dict[str, tuple[object, ...]] = {".git/index": ("unreadable", index.index_error)}
    else:
        prefix = protected.prefix
        entries = [e for e in index.entries if e.partition("\t")[2].startswith(prefix)] if prefix else index.entries
        digest = hashlib.sha256("\0".join(entries).encode("utf-8", "surrogateescape")).hexdigest()
        state = {".git/index": ("listed", digest)}
    try:
        done = run_git(protected.root, "show-ref", "--head", timeout=_LIST_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        state[".git/refs"] = ("unreadable", str(exc))
    else:
        state[".git/refs"] = (done.returncode, hashlib.sha256(done.stdout).hexdigest())
    return state


def changed_paths(before: Fingerprint, after: Fingerprint) -> list[str]:
    """Every watched path that appeared, disappeared or changed, in name order; what appeared inside
    a folder that appeared is named by the folder alone (`src/.git`, not its twenty files)."""
    names = set(before.entries) | set(after.entries)
    changed = []
    created: set[str] = set()
    for name in sorted(names):
        old, new = before.entries.get(name), after.entries.get(name)
        if old == new:
            continue
        if old is None or old == ("missing",):
            parts = name.split("/")
            if any("/".join(parts[:n]) in created for n in range(1, len(parts))):
                continue
            created.add(name)
            changed.append(name + CREATED)
        elif new is None or new == ("missing",):
            changed.append(f"{name} (deleted)")
        else:
            changed.append(f"{name} (changed)")
    return changed
