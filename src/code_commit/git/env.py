"""The environment of code-commit's own git calls.

code-commit finds the repository around the project from the disk (`layout.find_git_layout`): the
nearest `.git` above the root. Variables that point git at another repository, index or object
store (a git hook sets GIT_DIR and GIT_INDEX_FILE; a user may export them) would give git a
different view: the guard would read one repository's index while it looks at another's files,
and call an untracked file tracked. So they are removed from every git call code-commit makes,
and git sees what the layout discovery sees.

Nor is git (or bwrap) looked up where a build could have planted one: `distrust` names the folders
a build may write, and `trusted_path` leaves them out of the PATH code-commit's own commands are
found on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from code_commit.credentials import CHILD_SCRUBBED_ENV

GIT_TIMEOUT = 120  # seconds for one git call; 10,000 paths against 1,000 patterns take about one
NO_LOCKS = {"GIT_OPTIONAL_LOCKS": "0"}  # a look at the tree never refreshes (writes) the index

# Each one changes which repository, work tree, index or objects git uses, or where it stops
# looking for `.git`: all of them would make git disagree with the layout found on disk.
REPOSITORY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_PREFIX",
    # Read by `git config` alone, in place of every configuration file: the guard would take
    # core.excludesFile and core.ignoreCase from a file git status never reads.
    "GIT_CONFIG",
)


# Every folder a build may write: the project (its `.venv/bin` and `node_modules/.bin` are often on
# PATH) and the `sandbox_writable` paths. No program code-commit runs itself is looked up there.
_DISTRUSTED: set[str] = set()  # each spelled as a real path and as given, ending in "/"
# PATH values and their trusted part, as `trusted_path` found it. Resolving every entry's symlinks
# at every git call cost a millisecond a call. What an entry resolves to changes only with a
# symlink on its way, and one the project holds changes only when the tree does: the answers are
# forgotten when a build ends or an answer is applied (`forget_resolved_paths`), and when the
# distrusted folders change.
_TRUSTED_PATHS: dict[str, str] = {}


def distrust(*folders: Path | str) -> None:
    """From now on, no command code-commit runs itself (git, bwrap) is looked up inside `folders`.
    Called wherever the project or the writable paths become known (finding the project root,
    loading the settings), so every command, present or future, gets it before its first git call."""
    known = len(_DISTRUSTED)
    for folder in folders:
        absolute = os.path.abspath(os.path.expanduser(folder))
        _DISTRUSTED.update(os.path.join(spelling, "") for spelling in (absolute, os.path.realpath(absolute)))
    if len(_DISTRUSTED) != known:
        forget_resolved_paths()


def forget_resolved_paths() -> None:
    """The tree changed (a build ran, an answer was applied): PATH entries are resolved afresh."""
    _TRUSTED_PATHS.clear()


def trusted_path(value: str) -> str:
    """PATH without relative or empty entries (they resolve against the current folder, the project)
    and without entries inside a folder a build may write, whether the entry is spelled inside it or
    leads there through a symlink: a `git` the build planted there would run on the host."""
    trusted = _TRUSTED_PATHS.get(value)
    if trusted is None:
        trusted = _TRUSTED_PATHS[value] = os.pathsep.join(e for e in value.split(os.pathsep) if _trusted(e))
    return trusted


def untrusted_path_entries(value: str) -> list[str]:
    """The entries `trusted_path` leaves out: where a program found by name could be one a build
    planted (relative ones are relative to wherever the program is run from)."""
    return [entry for entry in dict.fromkeys(value.split(os.pathsep)) if not _trusted(entry)]


def _trusted(entry: str) -> bool:
    if not os.path.isabs(entry):
        return False
    spellings = (os.path.join(os.path.normpath(entry), ""), os.path.join(os.path.realpath(entry), ""))
    return not any(spelling.startswith(folder) for spelling in spellings for folder in _DISTRUSTED)


def find_program(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Where code-commit's own `name` (git, bwrap) is: on the trusted part of PATH only."""
    source = os.environ if env is None else env
    return shutil.which(name, path=trusted_path(source.get("PATH", os.defpath)))


_LEFT_OUT = frozenset((*REPOSITORY_VARIABLES, *CHILD_SCRUBBED_ENV))


def git_env(env: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """`env` (default: this process's) without the variables that would make git look elsewhere, and
    without the provider keys: git needs none, and execve makes a child dumpable again, so a process
    a build left behind could read a git process's /proc/<pid>/environ."""

    source = os.environ if env is None else env
    clean = {k: v for k, v in source.items() if k not in _LEFT_OUT}
    if "PATH" in clean:
        clean["PATH"] = trusted_path(clean["PATH"])
    # core.fsmonitor names a command git runs for `git status` and even `git ls-files`: one from a
    # config file a build could write (a file the repository's config includes) would run here.
    given = clean.get("GIT_CONFIG_COUNT", "0")
    count = int(given) if given.isdigit() else 0
    clean |= {
        "GIT_CONFIG_COUNT": str(count + 1),
        f"GIT_CONFIG_KEY_{count}": "core.fsmonitor",
        f"GIT_CONFIG_VALUE_{count}": "false",
    }
    return clean | extra


def run_git(
    cwd: Path | str,
    *args: str,
    input: bytes | None = None,
    timeout: float = GIT_TIMEOUT,
    extra: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """One of code-commit's own git calls: git's clean environment with `extra` set, `input` or
    none, output captured, bounded in time. Raises OSError or subprocess.TimeoutExpired, which each
    caller answers in its own way; a non-zero exit is the caller's to read (`git_failure`)."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=git_env(None, **(extra or {})),
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def git_failure(done: subprocess.CompletedProcess[bytes]) -> str:
    """Why a git call failed: the last line it wrote to stderr (git's `fatal:`), or its exit code."""
    why = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return why[-1] if why else f"exit code {done.returncode}"
