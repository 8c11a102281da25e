"""The environment of code-commit's own git calls.

code-commit finds the repository around the project from the disk (`layout.find_git_layout`): the
nearest `.git` above the root. Variables that point git at another repository, index or object
store (a git hook sets GIT_DIR and GIT_INDEX_FILE; a user may export them) would give git a
different view: the guard would read one repository's index while it looks at another's files,
and call an untracked file tracked. So they are removed from every git call code-commit makes,
and git sees what the layout discovery sees. The build gets the environment as it is: it is
the user's to run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from code_commit.credentials import CHILD_SCRUBBED_ENV

GIT_TIMEOUT = 120  # seconds for one git call; 10,000 paths against 1,000 patterns take about one

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


# Projects whose builds ran or will run here: a build may write inside them (an activated
# `.venv/bin` first on PATH), so code-commit's own commands are never looked up there.
_DISTRUSTED: set[str] = set()  # real paths, each ending in "/"


def distrust(root: Path) -> None:
    """From now on, no command code-commit runs itself (git, bwrap) is looked up inside `root`."""
    _DISTRUSTED.add(os.path.join(os.path.realpath(root), ""))


def trusted_path(value: str) -> str:
    """PATH without relative entries (they resolve against the project) and without entries inside
    a project whose build may have written there: a `git` the build planted would run on the host."""
    kept = []
    for entry in value.split(os.pathsep):
        if not os.path.isabs(entry):
            continue
        real = os.path.join(os.path.realpath(entry), "")
        if not any(real.startswith(root) for root in _DISTRUSTED):
            kept.append(entry)
    return os.pathsep.join(kept)


def git_env(env: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """`env` (default: this process's) without the variables that would make git look elsewhere, and
    without the provider keys: git needs none, and execve makes a child dumpable again, so a process
    a build left behind could read a git process's /proc/<pid>/environ."""

    source = os.environ if env is None else env
    clean = {k: v for k, v in source.items() if k not in REPOSITORY_VARIABLES and k not in CHILD_SCRUBBED_ENV}
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
