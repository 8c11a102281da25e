"""The files outside `.git` that git reads as configuration for a project, and the files it runs.

A change to any of them can make git run a program (`core.fsmonitor`, a filter, a hook) or hide
files from `git status`, so the guard refuses answers that write them and the build's integrity
check watches them (and the sandbox binds the existing ones read-only). All of it comes from one
`git config --list`, as git itself reads the configuration (includes followed).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from code_commit.git.env import run_git, untrusted_path_entries

# Keys whose value is a command git runs (through the shell, or exec'd when it is a plain word),
# lower-cased as `git config --list` prints section and variable names (githooks(5), git-config(1)).
_PROGRAM_KEY = re.compile(
    r"^(?:filter\..+\.(?:clean|smudge|process)|diff\..+\.(?:textconv|command)|diff\.external"
    r"|merge\..+\.driver|(?:diff|merge)tool\..+\.(?:cmd|path)"
    r"|core\.(?:fsmonitor|sshcommand|editor|pager|askpass|gitproxy)|sequence\.editor"
    r"|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|pager\..+|alias\..+"
    r"|remote\..+\.(?:uploadpack|receivepack)|uploadpack\.packobjectshook)$"
)
_HOOKS_KEY = "core.hookspath"
# Every hook name git runs (githooks(5)): husky's hooks folder (`.husky/_`) runs the tracked
# `.husky/<name>` of each, so those are hooks too.
_HOOK_NAMES = frozenset((
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
    "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
    "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit", "post-index-change",
))  # fmt: skip
_BOOLEAN = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})


@dataclass(frozen=True)
class _ConfigEntry:
    origin: str  # "file:<path>" (relative to the root for the repository's own), "command line:", ...
    key: str  # section and variable lower-cased, a subsection as written
    value: str


@dataclass(frozen=True)
class GitFiles:
    """What git's configuration makes of files: the ones it reads as configuration, the program
    files it runs (with the key that names each), and the folders it runs hooks from."""

    config: tuple[Path, ...] = ()
    programs: tuple[tuple[Path, str], ...] = ()  # (a file that may not exist yet, the key naming it)
    hook_folders: tuple[Path, ...] = ()  # core.hooksPath (may be outside the tree)
    husky_hooks: tuple[Path, ...] = ()  # the tracked hooks a husky hooks folder runs


def _read_config(root: Path) -> list[_ConfigEntry]:
    """Every configuration entry git sees in `root` (system, global, the repository's, includes)."""
    try:
        listed = run_git(root, "config", "-z", "--show-origin", "--list").stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    fields = [os.fsdecode(f) for f in listed.split(b"\0")]
    entries = []
    for origin, item in zip(fields[::2], fields[1::2], strict=False):  # "file:<path>", "<key>\n<value>"
        key, _, value = item.partition("\n")
        entries.append(_ConfigEntry(origin, key, value))
    return entries


def git_files(root: Path, top: Path | None = None) -> GitFiles:
    """What git's configuration in `root` names. `top`: the work tree's top, where git runs the
    commands it is configured with (relative program paths start there); the root by default."""
    top = root if top is None else top
    entries = _read_config(root)
    return GitFiles(
        _config_files(root, entries),
        _program_files(top, entries),
        *_hook_folders(top, entries),
    )


def _config_files(root: Path, entries: list[_ConfigEntry]) -> tuple[Path, ...]:
    """The system and global configuration, the global ignore and attributes files, the excludes and
    attributes files the configuration names, and every file a configuration includes (`include.path`,
    `includeIf.*.path`; a team's shared config is often a tracked file of the project). `*.py` in
    `~/.config/git/ignore` hides every new Python file from `git status`; a `core.fsmonitor` in an
    included file runs a command."""
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    paths = [Path("/etc/gitconfig"), home / ".gitconfig", xdg / "config", xdg / "ignore", xdg / "attributes"]
    paths += [Path(os.environ[v]) for v in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM") if os.environ.get(v)]
    named = re.compile(r"^core\.(excludesfile|attributesfile)$|^include\.path$|^includeif\..*\.path$")
    for entry in entries:
        if not entry.value or not entry.origin.startswith("file:") or not named.match(entry.key):
            continue
        value = os.path.expanduser(entry.value)
        # An include's relative path is relative to the file that includes it; the others' to the root.
        base = (root / entry.origin[5:]).parent if entry.key.startswith("include") else root
        paths.append(Path(os.path.normpath(base / value)))
    return tuple(dict.fromkeys(paths))


def _program_files(top: Path, entries: list[_ConfigEntry]) -> tuple[tuple[Path, str], ...]:
    """The files each configured command runs or reads as code: every word of it that is a path
    (`./scripts/clean.sh`, `python tools/filter.py %f`), and, for a command git looks up on PATH
    (`git-lfs`, `vim`), that name in each PATH folder a build may write (an activated `.venv/bin`).
    `git` itself is always one: the user's own next git command finds it on the same PATH."""
    found: dict[Path, str] = {}
    writable_path = [Path(top, entry) for entry in untrusted_path_entries(os.environ.get("PATH", ""))]
    for folder in writable_path:
        found.setdefault(folder / "git", "git on PATH")
    for entry in entries:
        if not _PROGRAM_KEY.match(entry.key):
            continue
        command = _command_of(entry)
        if command is None:
            continue
        words = _split_command(command)
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):  # VAR=value command ...
            words = words[1:]
        for n, word in enumerate(words):
            if word.startswith("-") or "%" in word or "$" in word:
                continue
            if "/" in word or word.startswith("~"):
                found.setdefault(Path(os.path.normpath(top / os.path.expanduser(word))), entry.key)
            elif n == 0:
                for folder in writable_path:
                    found.setdefault(folder / word, entry.key)
            elif "." in word.strip(".") and (top / word).is_file():  # `python filter.py`
                found.setdefault(top / word, entry.key)
    return tuple(found.items())


def _command_of(entry: _ConfigEntry) -> str | None:
    """The command an entry makes git run, or None: a boolean `core.fsmonitor`, an alias or a
    credential helper that names a git subcommand rather than a shell command."""
    value = entry.value.strip()
    if entry.key.startswith("alias."):
        return value[1:] if value.startswith("!") else None
    if entry.key.startswith("credential."):
        if value.startswith("!"):
            return value[1:]
        return value if os.path.isabs(value) else f"git-credential-{value}" if value else None
    if entry.key == "core.fsmonitor" and value.lower() in _BOOLEAN:
        return None
    return value or None


def _split_command(command: str) -> list[str]:
    """A command's words as a shell splits them, comments dropped."""
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # unbalanced quotes: git's shell would fail on it too; take its plain words
        return command.split()


def _hook_folders(top: Path, entries: list[_ConfigEntry]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """core.hooksPath's folder (the last value wins, as in git), relative to the top of the work
    tree; and, for husky's layout (a hooks folder named `_` whose scripts run the tracked
    `.husky/<hook>`), those tracked hook files."""
    values = [e.value for e in entries if e.key == _HOOKS_KEY and e.value]
    if not values:
        return (), ()
    folder = Path(os.path.normpath(top / os.path.expanduser(values[-1])))
    husky = tuple(folder.parent / name for name in sorted(_HOOK_NAMES)) if folder.name == "_" else ()
    return (folder,), husky
