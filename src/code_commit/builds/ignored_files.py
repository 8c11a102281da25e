"""The user's own ignored files (`.env`, local settings) kept from a build: saved before it, and any
it deleted or changed put back after it, as they were, and named.

Saved and put back, not bound read-only: which ignored files are the user's is a guess, and a wrong
guess must cost a copy and a line, never an honest build. A build rewrites many ignored files that
are its own (`*.o` next to C sources in an in-tree make, `*.so` from `build_ext --inplace`): a
read-only bind makes it fail there; a copy put back with its own mtime only makes the next build
compile it again. Putting back works without the sandbox too, and needs no mount per file.

Which are the user's is decided from facts, never from names:
- git's own answer (`git ls-files --others --ignored --exclude-standard --directory`): a folder git
  ignores whole is listed as one entry (`node_modules/`, `.venv/`, `build/`, `target/`,
  `__pycache__/`): a tool's output or cache, never saved. The files it lists one by one are candidates;
- a file a build created is the builds' own for as long as nobody else changes it: after each build,
  the ignored files it created, and those of the builds' own it rewrote, are recorded by size, mtime
  and inode in the run folder (`BUILD_OUTPUTS`; the next run reads the newest run folder's: the
  tamper check watches the rest of agent-config/); the record goes once the file differs (the
  user edited it: theirs again). A file a build deleted or changed that was the user's
  is put back and never recorded, so no build can make one of the user's its own;
- a budget: at most SAVE_FILES files and SAVE_BYTES bytes are saved a build (the user is told of
  the others).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.files.confined import Tree
from code_commit.files.owner_only import replace_private
from code_commit.git.layout import ls_files
from code_commit.logs.run_folder import BUILD_OUTPUTS, RUN_ID

SAVE_FILES = 2000  # ignored files of the user's saved before a build, at most
_SAVE_BYTES = 64 << 20  # and their bytes, together
_RECORDED = 20_000  # files the record of the builds' own keeps, at most
_EARLIER_RUNS = 50  # run folders looked into for the newest record, at most


@dataclass(frozen=True)
class Saved:
    """One of the user's ignored files, as it was before the build."""

    path: str  # relative to the root, "/"-separated
    data: bytes
    mode: int
    mtime_ns: int


@dataclass(frozen=True)
class Kept:
    """What was saved before a build, and what the builds made before it."""

    root: Path
    run_folder: Path  # where the record of the builds' own goes
    listed: frozenset[str]  # the ignored files git listed one by one, before the build
    saved: tuple[Saved, ...]
    unsaved: tuple[str, ...]  # the user's, over the budget
    own: frozenset[str]  # the builds' own (recorded, and unchanged since)


def saved(root: Path, run_folder: Path, on_note: Callable[[str], None] | None) -> Kept:
    """Before a build: the user's ignored files saved; the user told of those over the budget."""
    kept = save(root, run_folder)
    if kept.unsaved and on_note is not None:
        on_note(
            f"{len(kept.unsaved)} of your ignored files were not saved before the build (over the budget of "
            f"{SAVE_FILES:,} files, {_SAVE_BYTES >> 20} MiB): a build could change them, such as {kept.unsaved[0]}"
        )
    return kept


def put_back(kept: Kept, on_note: Callable[[str], None] | None) -> None:
    """After a build, however it ended: any of the user's ignored files it deleted or changed put back,
    the user told which."""
    restored, failed = restore(kept)
    if restored and on_note is not None:
        on_note(
            f"the build deleted or changed {len(restored)} of your ignored files: put back as they were: "
            f"{_some(restored)} (if the build makes them, delete them once: a build's own files are its to rewrite)"
        )
    if failed and on_note is not None:
        on_note(f"the build deleted or changed ignored files that could not be put back: {_some(failed)}")


def save(root: Path, run_folder: Path) -> Kept:
    listed = _listed(root)
    records = _records(run_folder)
    own: set[str] = set()
    files: list[Saved] = []
    unsaved: list[str] = []
    budget = _SAVE_BYTES
    try:
        tree = Tree(root)
    except OSError:
        return Kept(root, run_folder, frozenset(listed), (), (), frozenset())
    with tree:
        for path in sorted(listed):
            info = tree.lstat(path)
            if info is None or not stat.S_ISREG(info.st_mode):
                continue
            if records.get(path) == _stamp(info):
                own.add(path)
                continue
            if len(files) >= SAVE_FILES or info.st_size > budget:
                unsaved.append(path)
                continue
            try:
                data = tree.read(path, budget + 1)
            except OSError:
                continue
            budget -= len(data)
            files.append(Saved(path, data, stat.S_IMODE(info.st_mode), info.st_mtime_ns))
    return Kept(root, run_folder, frozenset(listed), tuple(files), tuple(unsaved), frozenset(own))


def restore(kept: Kept) -> tuple[list[str], list[str]]:
    """Put back each saved file the build deleted or changed; record the files the build made. Returns
    (those put back, those that could not be)."""
    restored: list[str] = []
    failed: list[str] = []
    try:
        tree = Tree(kept.root)
    except OSError:
        return restored, [file.path for file in kept.saved]
    with tree:
        for file in kept.saved:
            try:
                if _unchanged(tree, file):
                    continue
                _write_back(tree, file)
                restored.append(file.path)
            except OSError:
                failed.append(file.path)
        _record(kept, tree)
    return restored, failed


def _unchanged(tree: Tree, saved: Saved) -> bool:
    info = tree.lstat(saved.path)
    if info is None or not stat.S_ISREG(info.st_mode) or info.st_size != len(saved.data):
        return False
    return stat.S_IMODE(info.st_mode) == saved.mode and tree.read(saved.path) == saved.data


def _write_back(tree: Tree, saved: Saved) -> None:
    """The file as it was: its folders made again where the build removed them, its bytes and mode
    written in one step (never through a symlink), its mtime too, so that make sees it as it was."""
    parts = saved.path.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if tree.lstat(folder) is None:
            tree.mkdir(folder)
    info = tree.lstat(saved.path)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(saved.path)
    tree.write_atomic(saved.path, saved.data, saved.mode, f".{parts[-1]}.code-commit-{uuid.uuid4().hex[:8]}")
    os.utime(tree.root / saved.path, ns=(saved.mtime_ns, saved.mtime_ns), follow_symlinks=False)


def _record(kept: Kept, tree: Tree) -> None:
    """The builds' own after this build: what it created, and its own it rewrote (a file of the
    user's it changed was put back, and is never recorded)."""
    theirs = {saved.path for saved in kept.saved} | set(kept.unsaved)
    records: dict[str, list[int]] = {}
    for path in sorted(_listed(kept.root)):
        if path in theirs or (path in kept.listed and path not in kept.own):
            continue
        info = tree.lstat(path)
        if info is not None and stat.S_ISREG(info.st_mode) and len(records) < _RECORDED:
            records[path] = _stamp(info)
    target = kept.run_folder / BUILD_OUTPUTS
    with contextlib.suppress(OSError):
        replace_private(target, json.dumps(records, indent=0, sort_keys=True).encode())


def _listed(root: Path) -> set[str]:
    """The ignored files git lists one by one (a folder it ignores whole is one entry, ending in
    "/", and left out), agent-config/ aside; none where git cannot say."""
    listed = ls_files(root, "--others", "--ignored", "--exclude-standard", "--directory")
    if isinstance(listed, str):
        return set()
    return {p for p in listed if not p.endswith("/") and p.split("/", 1)[0] != CONFIG_DIR}


def _records(run_folder: Path) -> dict[str, list[int]]:
    """The newest record of the builds' own: this run's, else the latest earlier run's."""
    try:
        earlier = sorted((p for p in run_folder.parent.iterdir() if RUN_ID.fullmatch(p.name)), reverse=True)
    except OSError:
        earlier = []
    for folder in [run_folder, *[p for p in earlier if p != run_folder][:_EARLIER_RUNS]]:
        try:
            data = json.loads((folder / BUILD_OUTPUTS).read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, list)}
    return {}


def _stamp(info: os.stat_result) -> list[int]:
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def _some(paths: list[str], most: int = 5) -> str:
    more = f" and {len(paths) - most} more" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more
