"""Which files the rollup starts from: one `git ls-files -z -t --cached --others --exclude-standard`
run in the project root (the current directory): the tracked files, and the untracked ones git does not
ignore, each list deduplicated (git lists an unmerged path once per stage) and sorted by path bytes, so
the same tree always gives the same bytes, whatever order the files were created in. And the
agent-config/ folders whose files the rollup never shows: the root's, and a nested project's (one that
holds a file code-commit writes there: a key file, config.toml, query.txt, codeRollup.txt, logs/),
which the root's `/agent-config` line does not ignore; a folder of that name without such files is the
project's own.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE, LOGS_DIR, QUERY_NAME, ROLLUP_NAME
from code_commit.credentials import KEY_FILES
from code_commit.errors import SetupError
from code_commit.git.env import GIT_TIMEOUT, run_git

_EXCLUDED_DIR = CONFIG_DIR.encode()
# What code-commit writes in agent-config/: a nested folder that holds one of them is a project's.
_TOOL_FILES = frozenset(name.encode() for name in (*KEY_FILES.values(), CONFIG_FILE, QUERY_NAME, ROLLUP_NAME, LOGS_DIR))


@dataclass(frozen=True)
class Listing:
    """git's view of the work tree: each list deduplicated (git lists an unmerged path once per stage)
    and sorted by bytes."""

    tracked: list[bytes]
    untracked: list[bytes]  # not ignored; an untracked nested repository is "dir"

    @property
    def paths(self) -> list[bytes]:
        return sorted({*self.tracked, *self.untracked})


def list_files(root: Path) -> Listing:
    """The tracked files under `root`, and the untracked ones git does not ignore, in one git call."""
    try:
        proc = ask_git(root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
    except FileNotFoundError as exc:
        raise SetupError("git is not installed or not on PATH; the rollup asks git which files to include") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            raise SetupError(
                f"{root} is not in a git repository: run the rollup from the project root of a git "
                "repository (git init creates one)"
            )
        raise SetupError(f"git ls-files failed in {root}: {message}")
    tracked: set[bytes] = set()
    untracked: set[bytes] = set()
    for entry in proc.stdout.split(b"\0"):
        tag, _, path = entry.partition(b" ")  # -t: "H path" (tracked), "? path" (untracked), ...
        if path:
            (untracked if tag == b"?" else tracked).add(path.rstrip(b"/"))
    return Listing(sorted(tracked), sorted(untracked - tracked))


def ask_git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """LC_ALL=C: git's messages are matched, so they must not be translated. A git that never answers
    is a setup error, not a hang."""
    try:
        return run_git(root, *args, timeout=GIT_TIMEOUT, extra={"LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        raise SetupError(f"git {args[0]} gave no answer within {GIT_TIMEOUT} s in {root}") from None


def tool_dirs(paths: list[bytes]) -> set[bytes]:
    """The nested agent-config/ folders that are code-commit's: `sub/agent-config/` when it holds a key
    file, config.toml, query.txt, codeRollup.txt or logs/."""
    found = set()
    for path in paths:
        parts = path.split(b"/")
        for i, part in enumerate(parts[1:-1], start=1):
            if part == _EXCLUDED_DIR and parts[i + 1] in _TOOL_FILES:
                found.add(b"/".join(parts[: i + 1]) + b"/")
    return found


def excluded_dir(path: bytes, tools: set[bytes]) -> bool:
    """Under the root's agent-config/, or a nested project's (`sub/agent-config/anthropic-api-key`)."""
    if path == _EXCLUDED_DIR or path.startswith(_EXCLUDED_DIR + b"/"):
        return True
    return bool(tools) and b"/" + _EXCLUDED_DIR + b"/" in path and any(path.startswith(tool) for tool in tools)
