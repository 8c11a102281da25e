"""What sandboxed builds get so that real toolchains run in the sandbox: a cache folder of the
project's own, outside the project, and a few of the toolchains' own environment variables.

Only what the sandbox needs and only where the user has not set the variable: the build's home
is empty but for the toolchains' folders, read-only (`home`), its /tmp private and empty, and it
has no network unless `sandbox_network`.

- uv locks its cache before it reads anything, so a read-only ~/.cache/uv fails every `uv run`:
  UV_CACHE_DIR points at the project's cache, and UV_LINK_MODE=copy keeps the project's .venv from
  hard-linking into it (a later build could change a linked file under the user's feet).
- Go writes its build cache on every build: GOCACHE points at the project's cache.
- npm reads a read-only cache fine; with the network on it must write downloads: npm_config_cache.
  Its "Log files were not written" line, on every failure, goes (npm_config_logs_dir to /tmp).
- Without the network, fail fast and say why: npm and pnpm retry for 71 s by default
  (npm_config_fetch_retries=0 keeps their EAI_AGAIN), cargo for 11 s (CARGO_NET_OFFLINE=true,
  which also resolves a missing Cargo.lock from the cached index), uv for 8 s (UV_OFFLINE=1),
  yarn 4 for 8 s (YARN_HTTP_RETRY=0), and Go asks its proxy (GOPROXY=off). Never PIP_RETRIES=0:
  pip then no longer prints the network error, and its failure reads as "no such package".
- Run as root, tar restores files' owners, which the sandbox's dropped capabilities refuse:
  TAR_OPTIONS=--no-same-owner.

The project's cache is never a host cache made writable: a build can change only what later
sandboxed builds of the same project read. yarn's and pnpm's caches are left alone: yarn 4 and pnpm
record the cache's path in the project (.pnp.cjs, node_modules/.modules.yaml), so another one would
break the user's own next `yarn test` or `pnpm install`, and YARN_CACHE_FOLDER would override a
yarn 4 project's own cacheFolder (builds/diagnosis/ names the step to take outside the sandbox).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import re
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.sandbox_writable import PRIVATE_TMP

_CACHE_PARENT = ("code-commit", "sandbox")  # under ~/.cache (XDG_CACHE_HOME)
_DIGEST = 16  # hex digits of the project's path's hash in its cache's name
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_CACHE_NAME = re.compile(rf"[A-Za-z0-9._-]{{1,40}}-[0-9a-f]{{{_DIGEST}}}")
_PRUNE_LOOK = 1024  # entries of the caches' folder looked at per build, at most
PRUNE_REMOVE = 20_000  # files and folders removed per build, at most: the rest at the next one


@dataclass(frozen=True)
class Toolchains:
    """The variables a sandboxed build gets, and the project's cache folder it may write."""

    env: tuple[tuple[str, str], ...]
    cache: Path | None  # None: no folder could be made; the per-build /tmp stands in


def cache_folder(root: Path, env: Mapping[str, str]) -> Path | None:
    """Where the project's sandbox cache lives: ~/.cache/code-commit/sandbox/<name>-<hash of its path>."""
    parent = _caches_parent(env)
    if parent is None:
        return None
    real = os.path.realpath(root)
    name = _UNSAFE_NAME.sub("-", os.path.basename(real))[:40] or "project"
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:_DIGEST]
    return parent / f"{name}-{digest}"


def _caches_parent(env: Mapping[str, str]) -> Path | None:
    """The folder every project's sandbox cache is in (~/.cache/code-commit/sandbox), if there is a home."""
    base = env.get("XDG_CACHE_HOME", "")
    if not base.startswith("/"):
        home = env.get("HOME", "")
        if not home.startswith("/"):
            return None
        base = os.path.join(home, ".cache")
    return Path(base, *_CACHE_PARENT)


def cache_parents(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The caches' folder by its real path, to empty in the sandbox: a build sees its own cache only."""
    parent = _caches_parent(env)
    return (Path(os.path.realpath(parent)),) if parent is not None else ()


def prepare_cache(folder: Path | None, keep_days: int = 0) -> Path | None:
    """The folder, created private (0700, and its parents code-commit made: other users on the machine
    do not even see the projects' names), by its real path, marked used now; None if it cannot be
    one (a read-only home, a file in the way, not the user's own). `keep_days`: the other projects'
    caches unused that long are removed first (`prune_caches`); 0 keeps them."""
    if folder is None:
        return None
    try:
        os.makedirs(folder.parent.parent.parent, exist_ok=True)
        for made in (folder.parent.parent, folder.parent, folder):
            with contextlib.suppress(FileExistsError):
                os.mkdir(made, mode=0o700)
            _private(made)
        real = Path(os.path.realpath(folder))
        st = os.lstat(real)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return None
    with contextlib.suppress(OSError):
        os.utime(real)  # used now: what pruning goes by
    if keep_days > 0:
        prune_caches(real.parent, real.name, keep_days)
    return real


def _private(folder: Path) -> None:
    """The folder read and written by its owner only, where it is the user's own and says otherwise
    (made before this was the rule); never through a symlink."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if st.st_uid == os.geteuid() and st.st_mode & 0o077:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) & 0o700)
    finally:
        os.close(fd)


def prune_caches(parent: Path, own: str, keep_days: int, now: float | None = None) -> list[str]:
    """Remove the projects' sandbox caches in `parent` unused for `keep_days` days (their folder's
    time, which each build that uses one sets), but `own`; the names removed. Bounded: the first
    PRUNE_LOOK entries of `parent` are looked at, and PRUNE_REMOVE files and folders removed at most
    (the rest at the next build). Only folders of a cache's name and the user's own; never through
    a symlink, never outside `parent` (each removal is relative to a descriptor of its folder)."""
    cutoff = (time.time() if now is None else now) - keep_days * 86400
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return []
    try:
        with os.scandir(fd) as entries:
            names = [entry.name for entry in itertools.islice(entries, _PRUNE_LOOK)]
        budget = [PRUNE_REMOVE]
        removed = []
        for name in names:
            if name == own or not _CACHE_NAME.fullmatch(name) or budget[0] <= 0:
                continue
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mtime >= cutoff:
                continue
            if _remove_tree(name, fd, budget):
                removed.append(name)
            else:  # unfinished: as old as it was, so the next build goes on with it
                with contextlib.suppress(OSError):
                    os.utime(name, ns=(st.st_atime_ns, st.st_mtime_ns), dir_fd=fd, follow_symlinks=False)
        return removed
    finally:
        os.close(fd)


def _remove_tree(name: str, parent_fd: int, budget: list[int]) -> bool:
    """Remove the folder `name` of `parent_fd` and all it holds, each entry relative to its folder's
    descriptor, a symlink as a link (never followed); False when `budget` (entries) ran out first."""
    try:
        for _, folders, files, folder_fd in os.fwalk(name, dir_fd=parent_fd, topdown=False, follow_symlinks=False):
            for entry in [*files, *folders]:
                if budget[0] <= 0:
                    return False
                budget[0] -= 1
                _remove_entry(entry, folder_fd)
        os.rmdir(name, dir_fd=parent_fd)
    except OSError:
        return False
    return True


def _remove_entry(name: str, folder_fd: int, again: bool = True) -> None:
    try:
        st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            os.rmdir(name, dir_fd=folder_fd)
        else:
            os.unlink(name, dir_fd=folder_fd)
    except PermissionError:  # a folder a build made read-only (Go's module cache does): its owner may open it
        if not again:
            raise
        os.fchmod(folder_fd, 0o700)
        _remove_entry(name, folder_fd, again=False)


def toolchain_env(env: Mapping[str, str], network: bool, cache: Path | None, as_root: bool) -> Toolchains:
    """The variables for a sandboxed build whose environment is `env`: each only where `env` has no
    value of its own for it (npm's are read in either case: npm_config_x or NPM_CONFIG_X)."""
    added: dict[str, str] = {}

    def add(name: str, value: str) -> None:
        if name not in env and name.upper() not in env and name.lower() not in env:
            added[name] = value

    store = cache if cache is not None else PRIVATE_TMP
    if "UV_NO_CACHE" not in env:
        add("UV_CACHE_DIR", str(store / "uv"))
    add("UV_LINK_MODE", "copy")
    add("GOCACHE", str(store / "go-build"))
    add("npm_config_logs_dir", str(PRIVATE_TMP / "npm-logs"))
    if as_root:
        add("TAR_OPTIONS", "--no-same-owner")
    if network:
        if cache is not None:  # a per-build one would make npm download everything every build
            add("npm_config_cache", str(cache / "npm"))
    else:
        add("npm_config_fetch_retries", "0")
        add("CARGO_NET_OFFLINE", "true")
        add("UV_OFFLINE", "1")
        add("YARN_HTTP_RETRY", "0")
        add("GOPROXY", "off")
    return Toolchains(tuple(sorted(added.items())), cache)


def hidden_folders(root: Path, tools: tuple[str, ...], which: Callable[[str], str | None]) -> list[tuple[str, Path]]:
    """The folders to show builds read-only (sandbox_readable) so that they find `tools`: each tool
    that lives under the host's /tmp, which the sandbox replaces with an empty one, outside the
    project. (tool, folder): the tool's PATH folder, or a virtualenv's or an install's root for a
    program in bin/; a shim whose target is under /tmp too needs the target's folder as well."""
    project = Path(os.path.realpath(root))
    found: list[tuple[str, Path]] = []
    for tool in tools:
        located = str(root / tool) if "/" in tool else which(tool)
        if located is None or not os.path.lexists(located):
            continue
        for path in dict.fromkeys((Path(os.path.normpath(located)), Path(os.path.realpath(located)))):
            if _hidden(path, project):
                folder = path.parent.parent if path.parent.name == "bin" and "/" in tool else path.parent
                if folder != PRIVATE_TMP and folder not in (f for _, f in found):
                    found.append((tool, folder))
    return found


def _hidden(path: Path, project: Path) -> bool:
    return PRIVATE_TMP in path.parents and path != project and project not in path.parents
