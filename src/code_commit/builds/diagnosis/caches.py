"""The tools' own caches outside the project: the only folders a diagnosis may name when a build could
not write outside the project, and the only ones it may ever propose making writable.

A build runs the model's code, so a folder it may write is a folder the model's code may plant
things in for later. A cache that only the tool itself reads back (downloaded packages, compiled
objects) is what the tool re-checks or rebuilds; a folder on PATH, a configuration folder, a shell's
start-up file, an autostart folder or a credential store would run or hand over what the build put
there. So the table lists caches by name, each with where its tool documents it, and
`widening_problem` refuses the rest even where the table would allow it (a cache variable pointed
at ~/.local/bin).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.builds.diagnosis.facts import View, under
from code_commit.sandbox.withheld import CREDENTIAL_STORES


@dataclass(frozen=True)
class _ToolCache:
    """One tool's cache: its default folder under the home folder, the variable that moves it (and
    the folder's place under that variable's value), build.sh's words that run the tool, and the
    tool's own documentation of the folder."""

    tool: str
    folder: str | None  # "~/..."; None: only where the variable names it
    variable: str | None
    below: str  # the cache under the variable's folder ("registry" under CARGO_HOME), "" for itself
    commands: tuple[str, ...]
    source: str


_CACHES = (
    _ToolCache("uv", "~/.cache/uv", "UV_CACHE_DIR", "", ("uv", "uvx"), "https://docs.astral.sh/uv/concepts/cache/"),
    _ToolCache("pip", "~/.cache/pip", "PIP_CACHE_DIR", "", ("pip", "pip3"), "https://pip.pypa.io/en/stable/topics/caching/"),
    _ToolCache("npm", "~/.npm", "npm_config_cache", "", ("npm", "npx"), "https://docs.npmjs.com/cli/configuring-npm/folders#cache"),
    _ToolCache("npm", None, "NPM_CONFIG_CACHE", "", ("npm", "npx"), "https://docs.npmjs.com/cli/using-npm/config#cache"),
    _ToolCache("pnpm", "~/.local/share/pnpm/store", "npm_config_store_dir", "", ("pnpm",), "https://pnpm.io/npmrc#store-dir"),
    _ToolCache("pnpm", "~/.cache/pnpm", None, "", ("pnpm",), "https://pnpm.io/npmrc#cache-dir"),
    _ToolCache("yarn", "~/.yarn/berry/cache", "YARN_GLOBAL_FOLDER", "cache", ("yarn",), "https://yarnpkg.com/configuration/yarnrc#globalFolder"),
    _ToolCache("yarn", "~/.cache/yarn", "YARN_CACHE_FOLDER", "", ("yarn",), "https://classic.yarnpkg.com/en/docs/cli/cache"),
    _ToolCache("corepack", "~/.cache/node/corepack", "COREPACK_HOME", "", ("corepack", "pnpm", "yarn"), "https://github.com/nodejs/corepack#environment-variables"),
    _ToolCache("cargo", "~/.cargo/registry", "CARGO_HOME", "registry", ("cargo",), "https://doc.rust-lang.org/cargo/guide/cargo-home.html"),
    _ToolCache("cargo", "~/.cargo/git", "CARGO_HOME", "git", ("cargo",), "https://doc.rust-lang.org/cargo/guide/cargo-home.html"),
    _ToolCache("cargo", None, "CARGO_TARGET_DIR", "", ("cargo",), "https://doc.rust-lang.org/cargo/reference/config.html#buildtarget-dir"),
    _ToolCache("go", "~/.cache/go-build", "GOCACHE", "", ("go",), "https://pkg.go.dev/cmd/go#hdr-Build_and_test_caching"),
    _ToolCache("go", "~/go/pkg/mod", "GOMODCACHE", "", ("go",), "https://go.dev/ref/mod#module-cache"),
    _ToolCache("maven", "~/.m2/repository", None, "", ("mvn", "mvnw"), "https://maven.apache.org/guides/introduction/introduction-to-repositories.html"),
    _ToolCache("gradle", "~/.gradle/caches", "GRADLE_USER_HOME", "caches", ("gradle", "gradlew"), "https://docs.gradle.org/current/userguide/directory_layout.html"),
    _ToolCache("ccache", "~/.cache/ccache", "CCACHE_DIR", "", ("ccache", "cmake", "make"), "https://ccache.dev/manual/latest.html#_location_of_the_cache"),
    _ToolCache("sccache", "~/.cache/sccache", "SCCACHE_DIR", "", ("sccache", "cargo"), "https://github.com/mozilla/sccache/blob/main/docs/Configuration.md"),
    _ToolCache("pre-commit", "~/.cache/pre-commit", "PRE_COMMIT_HOME", "", ("pre-commit",), "https://pre-commit.com/#managing-ci-caches"),
)  # fmt: skip

# Under the home folder, folders whose contents run or configure what the user runs: never writable.
# (Files directly in the home folder, its shells' start-up files among them, never are either.)
_RUNS_OR_CONFIGURES = (
    "~/.config",
    "~/.local/bin",
    "~/.local/share/applications",
    "~/.local/share/systemd",
    "~/.bin",
    "~/bin",
    "~/.ssh",
    "~/.gnupg",
    "~/.cargo/bin",
    "~/go/bin",
    "~/.nvm",
    "~/.pyenv",
    "~/.rustup",
    "~/.vscode",
    "~/.oh-my-zsh",
)


@dataclass(frozen=True)
class _Cache:
    """A tool cache a path is in: the table's row, and the folder, where it is on this host."""

    entry: _ToolCache
    folder: Path


def _cache_of(path: Path, view: View) -> _Cache | None:
    """The tool cache `path` is in (the deepest folder among those the table names), or None."""
    env = view.host.env
    found: list[_Cache] = []
    for entry in _CACHES:
        value = env.get(entry.variable, "") if entry.variable else ""
        if value.startswith("/"):
            folder: Path | None = Path(value) / entry.below if entry.below else Path(value)
        elif entry.folder is not None and view.home is not None:
            folder = view.home / entry.folder.removeprefix("~/")
        else:
            folder = None
        if folder is not None:
            for seen in {folder, Path(view.host.real(str(folder)))}:
                if under(path, (seen,)):
                    found.append(_Cache(entry, seen))
    return max(found, key=lambda cache: len(cache.folder.parts), default=None)


def the_tools(path: Path, view: View) -> _Cache | None:
    """The cache `path` is in, when each fact holds on the host: the table names it, build.sh runs
    its tool, and the folder exists. Else None: the line alone proves nothing."""
    cache = _cache_of(path, view)
    if cache is None or not view.named_in_build_sh(cache.entry.commands):
        return None
    return cache if view.host.exists(str(cache.folder)) else None


def widening_problem(
    folder: Path, home: Path | None, env: Mapping[str, str], holds_socket: Callable[[str], bool]
) -> str | None:
    """Why `folder` must never be proposed for sandbox_writable or sandbox_readable, or None."""
    home_folders = [home] if home is not None else []
    if folder == Path("/") or any(under(h, (folder,)) for h in home_folders):
        return "it is or holds the home folder"
    if home is not None and folder.parent == home and _not_a_cache_name(folder):
        return "it is a file of the home folder's (a shell's start-up file, a tool's settings)"
    for entry in os.environ.get("PATH", "").split(os.pathsep) + env.get("PATH", "").split(os.pathsep):
        if entry.startswith("/") and (under(folder, (Path(entry),)) or under(Path(entry), (folder,))):
            return f"it is on PATH ({entry}): a program planted there would run as you"
    if home is not None:
        named = [home / place.removeprefix("~/") for place in _RUNS_OR_CONFIGURES]
        named += [home / store.pattern.removeprefix("~/").split("*")[0] for store in CREDENTIAL_STORES]
        config = env.get("XDG_CONFIG_HOME", "")
        named += [Path(config)] if config.startswith("/") else []
        for place in named:
            if under(folder, (place,)) or under(place, (folder,)):
                return f"it is or holds {place}, which runs, configures or authenticates what you run"
    if holds_socket(str(folder)):
        return "it holds a Unix socket (an agent's, a server's): a build could talk to it"
    return None


def _not_a_cache_name(folder: Path) -> bool:
    """A name in the home folder that is no tool's cache folder: only the table's folders are."""
    return not any(
        entry.folder is not None and entry.folder.removeprefix("~/").split("/")[0] == folder.name for entry in _CACHES
    )
