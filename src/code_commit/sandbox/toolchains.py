"""What sandboxed builds get so that real toolchains run in the sandbox: a cache folder of the
project's own, outside the project, and a few of the toolchains' own environment variables.

Only what the sandbox needs and only where the user has not set the variable: the build's home
folder is read-only, its /tmp private and empty, and it has no network unless `sandbox_network`.

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
yarn 4 project's own cacheFolder (builds/diagnosis.py names the step to take outside the sandbox).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.sandbox_writable import PRIVATE_TMP

CACHE_PARENT = ("code-commit", "sandbox")  # under ~/.cache (XDG_CACHE_HOME)
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Toolchains:
    """The variables a sandboxed build gets, and the project's cache folder it may write."""

    env: tuple[tuple[str, str], ...]
    cache: Path | None  # None: no folder could be made; the per-build /tmp stands in


def cache_folder(root: Path, env: Mapping[str, str]) -> Path | None:
    """Where the project's sandbox cache lives: ~/.cache/code-commit/sandbox/<name>-<hash of its path>."""
    base = env.get("XDG_CACHE_HOME", "")
    if not base.startswith("/"):
        home = env.get("HOME", "")
        if not home.startswith("/"):
            return None
        base = os.path.join(home, ".cache")
    real = os.path.realpath(root)
    name = _UNSAFE_NAME.sub("-", os.path.basename(real))[:40] or "project"
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(base, *CACHE_PARENT, f"{name}-{digest}")


def prepare_cache(folder: Path | None) -> Path | None:
    """The folder, created private (0700) if need be, by its real path; None if it cannot be one
    (a read-only home, a file in the way, not the user's own)."""
    if folder is None:
        return None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        real = Path(os.path.realpath(folder))
        st = os.lstat(real)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return None
    return real


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
