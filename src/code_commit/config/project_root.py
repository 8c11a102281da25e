"""Which folder is the project: found from a subdirectory the way git finds its repository.

The nearest folder, from the current one up, that holds agent-config/; else the top of the git
repository around it; else the current folder. The search stops at the repository's top: a
project never reaches outside its repository. Above the current folder, an agent-config/ counts
only if it is a real folder (not a symlink) owned by the user running code-commit, as git trusts
only a repository the user owns: outside a repository the search climbs to /, and another local
user's /tmp/agent-config (a config.toml naming their base_url, a build.sh beside it) would
otherwise take over a run started in /tmp/anything, with the user's key and rights. Light on
purpose: the command line resolves the root before anything else is imported.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.git.env import distrust


@dataclass(frozen=True)
class _ProjectRoot:
    path: Path
    found: str | None = None  # how a folder above the current one was chosen; None: the current one

    def note(self) -> str:
        """The line that says which root a command run from a subdirectory uses."""
        return f"project root: {self.path} ({self.found})"


def find_project_root(cwd: Path) -> _ProjectRoot:
    """The project around `cwd`. From now on no program code-commit runs itself (git, bwrap) is looked
    up inside it: a build writes there (`.venv/bin`, `node_modules/.bin` are often on PATH)."""
    root = _find(cwd)
    distrust(root.path)
    return root


def _find(cwd: Path) -> _ProjectRoot:
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_DIR).is_dir() if folder == cwd else _users_own(folder / CONFIG_DIR):
            return _ProjectRoot(folder, None if folder == cwd else f"the nearest folder above with {CONFIG_DIR}/")
        if (folder / ".git").exists():  # the repository's top: a project does not reach above it
            return _ProjectRoot(
                folder, None if folder == cwd else f"the top of the git repository; no {CONFIG_DIR}/ below it"
            )
    return _ProjectRoot(cwd)


def _users_own(folder: Path) -> bool:
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
