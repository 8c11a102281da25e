"""What a diagnosis is, and the facts about the host it checks the build's words against: the build's
output is written by the model's code, so a diagnosis never rests on it alone. Each rule reads a
line, then asks `Host` (a path exists, a command is on a PATH, a probe run in the sandbox) and the
policy the build ran under whether the line tells the truth."""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE
from code_commit.config.sandbox_writable import PRIVATE_TMP

if TYPE_CHECKING:
    from code_commit.sandbox.bubblewrap import SandboxPolicy

# The kinds, as the JSON record names them.
HIDDEN = "hidden"  # a command or file the sandbox hides (the host's /tmp, agent-config/)
READ_ONLY = "read_only"  # a write outside the project, refused
PROTECTED = "protected"  # a write to what the run's integrity rests on (.git, an ignore file)
NETWORK = "network"  # the network is off
MISSING = "missing"  # build.sh names a program or a dependency that is not there for the build
CAPABILITY = "capability"  # a privilege the sandbox drops (as root: CAP_CHOWN)
TOOL_STATE = "tool_state"  # a toolchain's own state outside the project disagrees with the build's
NAMESPACES = "namespaces"  # the build starts a sandbox or container of its own, which cannot nest here

CONFIG = f"{CONFIG_DIR}/{CONFIG_FILE}"
_MAX_EVIDENCE = 300  # characters of the quoted line
WRITABLE = "writable"  # a place the build may write
# A path on a line: quoted ('', ‘’, "", ``) or bare, absolute or from ~.
PATH_IN_LINE = re.compile(r"""[`'"‘](?P<quoted>~?/[^`'"’\n]+)[`'"’]|(?<![\w.~/*-])(?P<bare>~?/[^\s'"`’:,;()\[\]]+)""")


@dataclass(frozen=True)
class Diagnosis:
    """What kept a build from running, and the fix. `line()` is the one line the console, run.log
    and the record's `error` show."""

    kind: str
    subject: str  # the command or path
    cause: str  # what the sandbox (or the setup) kept the build from doing, naming the subject
    fix: str  # the exact fix: a setting, an environment variable, a step outside the sandbox
    evidence: str  # the build's output line it was read from

    def line(self) -> str:
        return f"{self.cause}. Fix: {self.fix}"


def _no_file(_: str) -> str:
    return ""


def _no_socket(_: str) -> bool:
    return False


def _nests(_: SandboxPolicy) -> str | None:
    return None


def _nothing_ignored(_: str) -> bool:
    return False


def _matches(pattern: str) -> list[str]:
    return sorted(glob.glob(pattern))[:100]


@dataclass(frozen=True)
class Host:
    """The facts about the host a diagnosis checks claims against. Its functions are the only way
    `diagnose` looks outside its arguments; a test gives its own."""

    root: Path  # the project, by its real path
    env: Mapping[str, str]  # the build's environment (its PATH, the tool variables the user set)
    build_script: str  # build.sh's text: the user's, which no build can change
    which: Callable[[str, str], str | None]  # a command on a PATH, on the host
    exists: Callable[[str], bool]
    real: Callable[[str], str]  # a path with its symlinks resolved, on the host
    read: Callable[[str], str] = _no_file  # a project file's text (its start), "" when there is none
    holds_socket: Callable[[str], bool] = _no_socket  # a folder with a Unix socket in it (or below)
    nested_sandbox: Callable[[SandboxPolicy], str | None] = _nests  # why no sandbox starts inside this one
    as_root: bool = False  # code-commit runs as root
    glob: Callable[[str], list[str]] = _matches  # the paths a pattern matches
    ignored: Callable[[str], bool] = _nothing_ignored  # git ignores this path of the project

    @classmethod
    def of(
        cls,
        root: Path,
        env: Mapping[str, str],
        build_script: str,
        read: Callable[[str], str] = _no_file,
        holds_socket: Callable[[str], bool] = _no_socket,
        nested_sandbox: Callable[[SandboxPolicy], str | None] = _nests,
        ignored: Callable[[str], bool] = _nothing_ignored,
    ) -> Host:
        return cls(
            Path(os.path.realpath(root)),
            dict(env),
            build_script,
            lambda name, path: shutil.which(name, path=path),
            os.path.lexists,
            os.path.realpath,
            read,
            holds_socket,
            nested_sandbox,
            os.geteuid() == 0,
            _matches,
            ignored,
        )

    @property
    def home(self) -> Path | None:
        home = self.env.get("HOME", "")
        return Path(home) if home.startswith("/") else None


@dataclass
class View:
    """Where a path is for the build: the policy's mounts, and the host's facts."""

    policy: SandboxPolicy | None
    host: Host
    home: Path | None = field(init=False)
    real_home: Path | None = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.host.home
        self.real_home = Path(self.host.real(str(self.home))) if self.home else None

    def absolute(self, path: str) -> Path:
        """A path as the build named it: ~ expanded, relative ones from the project (build.sh's folder)."""
        if path.startswith("~/") and self.home is not None:
            return self.home / path[2:]
        return Path(os.path.normpath(self.host.root / path))

    def place(self, path: Path) -> str:
        """HIDDEN, PROTECTED, WRITABLE, PRIVATE_TMP (the build's own empty /tmp) or READ_ONLY."""
        policy = self.policy
        if policy is None:
            return WRITABLE
        both = (path, Path(self.host.real(str(path))))
        if any(under(p, policy.hidden) for p in both):
            return HIDDEN
        if any(under(p, policy.read_only) for p in both) or any(under(p, (policy.root / ".git",)) for p in both):
            return PROTECTED
        if under(path, (policy.root, *policy.writable)):
            return WRITABLE
        if under(path, policy.readable):
            return READ_ONLY
        if under(path, (PRIVATE_TMP,)):
            return str(PRIVATE_TMP)
        return READ_ONLY

    def shown(self, path: Path) -> str:
        """A path as the user would type it: ~/... under the home folder."""
        for home in (self.home, self.real_home):
            if home is not None and under(path, (home,)):
                return "~/" + path.relative_to(home).as_posix() if path != home else "~"
        return str(path)

    def named_in_build_sh(self, words: Sequence[str]) -> bool:
        """build.sh runs one of `words` (a command's name, as a word): the user's file says so, not the output."""
        return any(names_command(self.host.build_script, word) for word in words)


def names_command(script: str, word: str) -> bool:
    """`word` appears in `script` as a command's name would: not inside a longer name."""
    start = script.find(word)
    while start != -1:
        before = script[start - 1] if start else " "
        after = script[start + len(word)] if start + len(word) < len(script) else " "
        if not (before.isalnum() or before in "_-.") and not (after.isalnum() or after in "_-"):
            return True
        start = script.find(word, start + 1)
    return False


def under(path: Path, places: Sequence[Path]) -> bool:
    return any(path == place or place in path.parents for place in places)


def evidence(line: str) -> str:
    line = line.strip()
    return line if len(line) <= _MAX_EVIDENCE else line[: _MAX_EVIDENCE - 5] + " [...]"
