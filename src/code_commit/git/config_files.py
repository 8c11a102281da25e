"""The files outside `.git` that git reads as configuration for a project.

A change to any of them can make git run a program (`core.fsmonitor`, a filter, a hook path) or
hide files from `git status`, so the guard refuses answers that write them and the build's
integrity check watches them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from code_commit.git.env import git_env

CONFIG_TIMEOUT = 120.0  # seconds; only bounds a hung git


def global_git_files(root: Path) -> tuple[Path, ...]:
    """The files outside `.git` that git reads for the project: the system and global configuration,
    the global ignore and attributes files, the excludes and attributes files the configuration
    names, and every file a configuration includes (`include.path`, `includeIf.*.path`; a team's
    shared config is often a tracked file of the project). `*.py` in `~/.config/git/ignore` hides
    every new Python file from `git status`; a `core.fsmonitor` in an included file runs a command."""
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    paths = [Path("/etc/gitconfig"), home / ".gitconfig", xdg / "config", xdg / "ignore", xdg / "attributes"]
    paths += [Path(os.environ[v]) for v in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM") if os.environ.get(v)]
    try:
        pattern = r"^core\.(excludesfile|attributesfile)$|^include\.path$|^includeif\..*\.path$"
        named = subprocess.run(
            ["git", "config", "-z", "--show-origin", "--get-regexp", pattern],
            cwd=root,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CONFIG_TIMEOUT,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        named = b""
    fields = [os.fsdecode(f) for f in named.split(b"\0")]
    for origin, item in zip(fields[::2], fields[1::2], strict=False):  # "file:<path>", "<key>\n<value>"
        key, _, value = item.partition("\n")
        if not value or not origin.startswith("file:"):
            continue
        value = os.path.expanduser(value)
        # An include's relative path is relative to the file that includes it; the others' to the root.
        base = (root / origin[5:]).parent if key.startswith("include") else root
        paths.append(Path(os.path.normpath(base / value)))
    return tuple(dict.fromkeys(paths))
