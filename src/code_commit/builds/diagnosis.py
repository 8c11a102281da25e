"""Why a failed build failed, when the sandbox (or the machine's setup) kept it from running rather
than the code: a command the sandbox hides, a write it refuses outside the project, the network it
cuts, a file it keeps read-only, an interpreter build.sh names that does not exist. Found, the run
stops before another paid call (no answer can change the sandbox) and names the one fix.

`diagnose` is a pure function of the build's output, its exit code, the policy it ran under and
`Host`: a few facts about the host, looked up through the functions it carries (which commands
exist there and where, which paths exist). It must never fire on an ordinary failure: a failing
test that mocks EROFS, a tool installed nowhere, a refused connection to a local database, npm's
and yarn's sandbox noise on every run. tests/builds/test_diagnosis.py runs it over a corpus of real
failing builds, look-alikes included.

The output is written by the model's code, so it can be forged: a diagnosis only ever stops the
run and advises. It never changes a setting, it checks every claim it can against the host (the
command exists there, the path is one the sandbox really keeps read-only or hides), and it quotes
the line it read, so the user can judge.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE
from code_commit.config.sandbox_writable import PRIVATE_TMP
from code_commit.sandbox.bubblewrap import SandboxPolicy
from code_commit.sandbox.proxy import Refusal

# The kinds, as the JSON record names them.
HIDDEN = "hidden"  # a command or file the sandbox hides (the host's /tmp, agent-config/)
READ_ONLY = "read_only"  # a write outside the project, refused
PROTECTED = "protected"  # a write to what the run's integrity rests on (.git, an ignore file)
NETWORK = "network"  # the network is off
MISSING = "missing"  # build.sh names a program that does not exist, on the host either
CAPABILITY = "capability"  # a privilege the sandbox drops (as root: CAP_CHOWN)
TOOL_STATE = "tool_state"  # a toolchain's own state outside the project disagrees with the build's

CONFIG = f"{CONFIG_DIR}/{CONFIG_FILE}"
MAX_LINES = 20_000  # lines of output looked at, at most
MAX_LINE = 2000  # characters of a line looked at
MAX_EVIDENCE = 300  # characters of the quoted line
LOOK_BACK = 4  # lines before a read-only error that may name its path (cargo's "Caused by:" chains)
LOOK_AHEAD = 2  # indented lines after it that may (uv wraps `at path` onto the next one)
NETWORK_ON = "sandbox_network = true"
NETWORK_RISK = "which lets the build, the model's code, reach any host"
# The environment variables naming a tool's folder outside the project: a read-only error there is
# the sandbox's doing.
TOOL_VARS = (
    "CARGO_HOME",
    "CARGO_TARGET_DIR",
    "RUSTUP_HOME",
    "GOPATH",
    "GOCACHE",
    "GOMODCACHE",
    "npm_config_cache",
    "NPM_CONFIG_CACHE",
    "npm_config_store_dir",
    "YARN_CACHE_FOLDER",
    "YARN_GLOBAL_FOLDER",
    "COREPACK_HOME",
    "PNPM_HOME",
    "UV_CACHE_DIR",
    "PIP_CACHE_DIR",
    "GRADLE_USER_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
)
# Folders of tools outside the home folder too (Maven takes its home from the password file).
TOOL_FOLDERS = frozenset({".cache", ".m2", ".cargo", ".rustup", ".npm", ".yarn", ".gradle"})
# Variables naming a cache code-commit gives sandboxed builds itself when they are unset
# (sandbox/toolchains.py), with the tool and, where it must always write there, its default folder
# under the home folder (npm need not: it reads a read-only cache).
OWN_CACHE_VARS: dict[str, tuple[str, tuple[str, ...]]] = {
    "UV_CACHE_DIR": ("uv", (".cache", "uv")),
    "GOCACHE": ("Go", (".cache", "go-build")),
    "npm_config_cache": ("npm", ()),
}

_READ_ONLY_WORDS = re.compile(r"read-only file system|\bEROFS\b|os error 30\b|\[Errno 30\]", re.IGNORECASE)
# A path on a line: quoted ('', ‘’, "", ``) or bare, absolute or from ~.
_PATH = re.compile(r"""[`'"‘](?P<quoted>~?/[^`'"’\n]+)[`'"’]|(?<![\w.~/*-])(?P<bare>~?/[^\s'"`’:,;()\[\]]+)""")
# Relative paths are read only where a tool names the file it could not write.
_RELATIVE = re.compile(
    r"cannot create (?P<sh>[^:/\s][^:\n]*): Read-only file system"
    r"|Unable to create '(?P<git>[^'/][^']*)': Read-only file system"
    r"|Read-only file system: '(?P<py>[^'/][^']*)'"
)
# Maven says it without a read-only word: it cannot create its tracking and lock files.
_MAVEN_READ_ONLY = re.compile(
    r"Failed to create parent directories for tracking file (?P<path>/\S+)"
    r"|(?P<lock>/\S+\.part\.lock) \(No such file or directory\)"
)
# Lines that say "not writable" or "no internet" on every sandboxed run, failing or not.
_NOISE = re.compile(
    r"Log files were not written due to an error writing to the directory"
    r"|Skipping preferred cache folder"
    r"|You don't appear to have an internet connection"
)
_NETWORK = re.compile(
    r"EAI_AGAIN|ENOTFOUND|ENETUNREACH|Temporary failure in name resolution|Could not resolve host"
    r"|[Cc]ould not resolve hostname|Name or service not known|failed to lookup address information"
    r"|No address associated with hostname|Network is unreachable|dial tcp: lookup \S+"
    r"|Network connectivity is disabled, but the requested data wasn't found in the cache"
    r"|\bENOTCACHED\b|module lookup disabled by GOPROXY=off"
)
_PIP_NOTHING = re.compile(
    r"Could not find a version that satisfies the requirement (?P<what>\S+) \(from versions: none\)"
)
_CARGO_OFFLINE = re.compile(r"no matching package named `(?P<what>[^`]+)` found")
_MAVEN_OFFLINE = re.compile(r"in offline mode and the artifact (?P<what>\S+) has not been downloaded from it before")
_HOST_NAME = re.compile(
    r"(?:https?://|EAI_AGAIN |ENOTFOUND |Could not resolve host: |lookup )(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
)
# "./build.sh: 3: pnpm: not found" (dash), "./build.sh: line 3: pnpm: command not found" (bash),
# "sh: 1: pnpm: not found" (a script npm or make runs), "/usr/bin/env: 'node': No such file or directory".
_NOT_FOUND = re.compile(
    r"^(?P<shell>[^\s:][^:\n]*?): (?:line )?\d+: (?P<command>[^:\n]+): (?:command )?not found\s*$"
    r"|^(?P<bash>(?:/\S+/)?(?:ba|da|z)?sh): (?P<bash_command>[^:\n]+): command not found\s*$"
    r"|^(?:/usr)?(?:/bin/)?env: [‘'](?P<env_command>[^’'\n]+)[’']: No such file or directory\s*$"
)
# A path under the host's /tmp that the build could not find (it is hidden by the private /tmp).
_NOT_THERE = re.compile(r"No such file or directory|not found|ENOENT|can't open file|cannot access", re.IGNORECASE)
_CHOWN = re.compile(r"Cannot change ownership to uid \d+, gid \d+: Operation not permitted")
_PNPM_NO_TTY = re.compile(r"ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY")


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


@dataclass(frozen=True)
class Host:
    """The facts about the host a diagnosis checks claims against. Its functions are the only way
    `diagnose` looks outside its arguments; a test gives its own."""

    root: Path  # the project, by its real path
    env: Mapping[str, str]  # the build's environment (its PATH, the tool variables the user set)
    build_script: str  # build.sh's text
    which: Callable[[str, str], str | None]  # a command on a PATH, on the host
    exists: Callable[[str], bool]
    real: Callable[[str], str]  # a path with its symlinks resolved, on the host

    @classmethod
    def of(cls, root: Path, env: Mapping[str, str], build_script: str) -> Host:
        return cls(
            Path(os.path.realpath(root)),
            dict(env),
            build_script,
            lambda name, path: shutil.which(name, path=path),
            os.path.lexists,
            os.path.realpath,
        )

    @property
    def home(self) -> Path | None:
        home = self.env.get("HOME", "")
        return Path(home) if home.startswith("/") else None


def diagnose(
    output: str,
    exit_code: int | None,
    policy: SandboxPolicy | None,
    host: Host,
    start_error: str | None = None,
    refused: Sequence[Refusal] = (),
) -> Diagnosis | None:
    """The cause of a failed build that the sandbox or the setup made, or None for an ordinary
    failure (or none found). `policy`: what the build ran under; None, unsandboxed, where only an
    interpreter build.sh names that does not exist can be found. `start_error`: why build.sh could
    not be started at all (builds/runner.py: code-commit's words, not the build's). `refused`: the
    hosts code-commit's proxy refused the build (sandbox/proxy.py: its record, not the build's words),
    which explain a failure before anything the output says. Else the earliest evidence wins: the
    first thing that went wrong explains the rest."""
    if exit_code == 0:
        return None
    view = _View(policy, host)
    if start_error is not None:
        started = _start_error(start_error, view)
        if started is not None:
            return started
    if refused:
        return _refused(refused)
    lines = [line[:MAX_LINE] for line in output.splitlines()[-MAX_LINES:]]
    rules: Sequence[Callable[[list[str], _View], Iterator[tuple[int, Diagnosis]]]] = (
        (_not_found,)
        if policy is None
        else (_not_found, _read_only, _hidden_tmp_path, _network, _capability, _pnpm_store_switch)
    )
    found = [hit for rule in rules for hit in rule(lines, view)]  # each rule yields its first hit, if any
    return min(found, key=lambda hit: hit[0])[1] if found else None


class _View:
    """Where a path is for the build: the policy's mounts, and the host's facts."""

    def __init__(self, policy: SandboxPolicy | None, host: Host) -> None:
        self.policy = policy
        self.host = host
        self.home = host.home
        self.real_home = Path(host.real(str(self.home))) if self.home else None

    def absolute(self, path: str) -> Path:
        """A path as the build named it: ~ expanded, relative ones from the project (build.sh's folder)."""
        if path.startswith("~/") and self.home is not None:
            return self.home / path[2:]
        return Path(os.path.normpath(self.host.root / path))

    def place(self, path: Path) -> str:
        """HIDDEN, PROTECTED, "writable", PRIVATE_TMP (the build's own empty /tmp) or READ_ONLY."""
        policy = self.policy
        if policy is None:
            return "writable"
        both = (path, Path(self.host.real(str(path))))
        if any(_under(p, policy.hidden) for p in both):
            return HIDDEN
        if any(_under(p, policy.read_only) for p in both) or any(_is_git_dir(p, policy.root) for p in both):
            return PROTECTED
        if _under(path, (policy.root, *policy.writable)):
            return "writable"
        if _under(path, policy.readable):
            return READ_ONLY
        if _under(path, (PRIVATE_TMP,)):
            return str(PRIVATE_TMP)
        return READ_ONLY

    def tool_folder(self, path: Path) -> bool:
        """A cache, config or tool folder outside the project: in the home folder, or one a tool's
        variable names. Not any read-only path: a test writing to /mnt/backup fails on its own terms."""
        places = [home for home in (self.home, self.real_home) if home is not None]
        places += [Path(value) for var in TOOL_VARS if (value := self.host.env.get(var, "")).startswith("/")]
        return _under(path, places) or not TOOL_FOLDERS.isdisjoint(path.parts)

    def shown(self, path: Path) -> str:
        """A path as the user would type it: ~/... under the home folder."""
        for home in (self.home, self.real_home):
            if home is not None and _under(path, (home,)):
                return "~/" + path.relative_to(home).as_posix() if path != home else "~"
        return str(path)


def _under(path: Path, places: Sequence[Path]) -> bool:
    return any(path == place or place in path.parents for place in places)


def _is_git_dir(path: Path, root: Path) -> bool:
    return _under(path, (root / ".git",))


def _evidence(line: str) -> str:
    line = line.strip()
    return line if len(line) <= MAX_EVIDENCE else line[: MAX_EVIDENCE - 5] + " [...]"


# Writes refused outside the project


def _read_only(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    for index, line in enumerate(lines):
        maven = _MAVEN_READ_ONLY.search(line)
        if not maven and (not _READ_ONLY_WORDS.search(line) or _NOISE.search(line)):
            continue
        candidates = [maven.group("path") or maven.group("lock")] if maven else _paths_near(lines, index)
        for text in candidates:
            path = view.absolute(text)
            place = view.place(path)
            if place == PROTECTED:
                yield index, _protected(path, view, line)
                return
            if place == READ_ONLY and view.tool_folder(path):
                yield index, _read_only_remedy(path, view, line, "\n".join(lines))
                return


def _paths_near(lines: list[str], index: int) -> list[str]:
    """The paths a read-only error names: on its line (the last first: `copyfile 'a' -> 'b'` and
    `symlink 'target' -> 'link'` fail on the second), then on the lines just before it."""
    relative = _relative_path(lines[index])
    paths = [relative] if relative else []
    for at in range(index + 1, min(index + 1 + LOOK_AHEAD, len(lines))):  # a path wrapped onto the next line
        if lines[at][:1].isspace() and (wrapped := _PATH.match(lines[at].strip())):
            paths.append(wrapped.group("quoted") or wrapped.group("bare"))
    for at in range(index, max(index - LOOK_BACK, 0) - 1, -1):
        if at != index and (_NOISE.search(lines[at]) or _READ_ONLY_WORDS.search(lines[at])):
            break  # another error's line: its paths are its own
        found = [match.group("quoted") or match.group("bare") for match in _PATH.finditer(lines[at])]
        paths += reversed(found)
    return paths


def _relative_path(line: str) -> str | None:
    match = _RELATIVE.search(line)
    return None if match is None else next(group for group in match.groups() if group)


def _protected(path: Path, view: _View, line: str) -> Diagnosis:
    assert view.policy is not None
    shown = path.relative_to(view.policy.root).as_posix() if _under(path, (view.policy.root,)) else str(path)
    return Diagnosis(
        PROTECTED,
        shown,
        f"the build tried to change {shown}, which the sandbox keeps read-only: the run's integrity rests on it "
        "(git's files, the ignore files, build.sh)",
        "take that step out of build.sh (a commit, `npm version`, an edit of an ignore file): a build must leave "
        "them as they are",
        _evidence(line),
    )


def _read_only_remedy(path: Path, view: _View, line: str, output: str) -> Diagnosis:
    """The read-only error's cause and fix, by the tool whose folder it is: the fix that needs the
    least (a step outside the sandbox, a variable unset) before a folder made writable."""
    env = view.host.env
    shown = view.shown(path)
    for var, (tool, default) in OWN_CACHE_VARS.items():
        value = env.get(var, "")
        if value.startswith("/") and _under(path, (Path(value),)):
            return Diagnosis(
                READ_ONLY,
                view.shown(Path(value)),
                f"{tool} could not write its cache {view.shown(Path(value))} ({var}), read-only in the sandbox",
                f"unset {var} for code-commit's builds: code-commit then gives sandboxed builds a {tool} cache of "
                "their own for this project",
                _evidence(line),
            )
        if not value and default and view.home is not None and _under(path, (view.home.joinpath(*default),)):
            return Diagnosis(
                READ_ONLY,
                view.shown(view.home.joinpath(*default)),
                f"{tool} could not write its cache {view.shown(view.home.joinpath(*default))}, which is read-only "
                "in the sandbox",
                f"give the build a cache it may write: {var}=/tmp/{default[-1]} in code-commit's environment "
                "(code-commit does this itself, with a cache of the project's own under ~/.cache/code-commit, "
                "when it can make that folder)",
                _evidence(line),
            )
    target = env.get("CARGO_TARGET_DIR", "")
    if target.startswith("/") and _under(path, (Path(target),)):
        return Diagnosis(
            READ_ONLY,
            view.shown(Path(target)),
            f"cargo could not write its target folder {view.shown(Path(target))} (CARGO_TARGET_DIR), outside the "
            "project and read-only in the sandbox",
            "unset CARGO_TARGET_DIR for code-commit's builds (cargo then builds into target/ in the project)",
            _evidence(line),
        )
    parts = path.parts
    if ".cargo" in parts or (env.get("CARGO_HOME") and _under(path, (Path(env["CARGO_HOME"]),))):
        folder = _folder_of(path, view, "registry", "git")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"cargo could not unpack a dependency into {folder}, read-only in the sandbox",
            "run `cargo fetch` in the project once, outside the sandbox: it unpacks every dependency, which the "
            "build then only reads (making that folder writable would let a build change the sources your own "
            "builds compile)",
            _evidence(line),
        )
    if "corepack" in parts:
        folder = _folder_of(path, view, "corepack")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"corepack could not download the package manager into {folder}, read-only in the sandbox",
            "pin the package manager in package.json (packageManager) and run `corepack install` in the project "
            "once, outside the sandbox",
            _evidence(line),
        )
    if "pnpm" in parts or (env.get("npm_config_store_dir") and _under(path, (Path(env["npm_config_store_dir"]),))):
        folder = _folder_of(path, view, "store")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"pnpm could not write its store {folder}, read-only in the sandbox: it registers each project there",
            "run `pnpm install` in the project once, outside the sandbox; after that an up-to-date install "
            "writes nothing to the store",
            _evidence(line),
        )
    if ".yarn" in parts or "yarn" in parts:
        folder = _folder_of(path, view, "cache", "yarn")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"yarn could not write its cache {folder}, read-only in the sandbox",
            "run `yarn install` in the project once, outside the sandbox, so the cache has every package",
            _evidence(line),
        )
    if ".npm" in parts:
        folder = _folder_of(path, view, ".npm")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"npm could not write its cache {folder}, read-only in the sandbox",
            "run `npm ci` in the project once, outside the sandbox, so node_modules/ and the cache have every "
            f"package (with {NETWORK_ON}, code-commit gives npm a cache of its own)",
            _evidence(line),
        )
    if ".m2" in parts or ("MAVEN" in output.upper() and "[ERROR]" in output):
        folder = _folder_of(path, view, "repository")
        return Diagnosis(
            READ_ONLY,
            folder,
            f"Maven could not write its repository ({folder}), read-only in the sandbox: it looks online for what "
            "is missing or out of date",
            "run Maven offline in build.sh (`mvn -o ...`): with every plugin and dependency in ~/.m2 it writes "
            "nothing there; for one ~/.m2 lacks, run the build once outside the sandbox first",
            _evidence(line),
        )
    folder = _tool_folder_of(path, view)
    return Diagnosis(
        READ_ONLY,
        folder,
        f"the build could not write {shown}, outside the project: the sandbox keeps everything but the project "
        "read-only",
        f'point the tool at a folder in the project or /tmp if it has a setting for it; else set sandbox_writable = ["'
        f"{folder}\"] in {CONFIG}, which lets a build (the model's code) change what is there, and so what your "
        "own tools read from it later",
        _evidence(line),
    )


def _folder_of(path: Path, view: _View, *names: str) -> str:
    """The folder of `path` up to the first of `names` in it (~/.cargo/registry), or the tool's folder."""
    for at, part in enumerate(path.parts):
        if part in names:
            return view.shown(Path(*path.parts[: at + 1]))
    return _tool_folder_of(path, view)


def _tool_folder_of(path: Path, view: _View) -> str:
    """The tool's own folder a path is in: ~/.npm, ~/.cache/uv, ~/.local/share/pnpm, or the path's folder."""
    for home in (view.home, view.real_home):
        if home is not None and _under(path, (home,)) and path != home:
            rest = path.relative_to(home).parts
            depth = 3 if rest[:2] == (".local", "share") else 2 if rest[0] in (".cache", ".config", ".local") else 1
            return view.shown(home.joinpath(*rest[:depth]))
    return str(path.parent)


# Commands and files the sandbox hides, and programs that do not exist


def _not_found(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    host = view.host
    for index, line in enumerate(lines):
        match = _NOT_FOUND.match(line)
        if match is None:
            continue
        command = (match.group("command") or match.group("bash_command") or match.group("env_command")).strip()
        from_build_sh = (match.group("shell") or "").endswith("build.sh")
        if "/" in command:
            path = view.absolute(command)
            if host.exists(str(path)):
                if view.place(path) in (str(PRIVATE_TMP), HIDDEN):
                    yield index, _hidden(command, path, _folder_for(path), line)
                    return
            elif from_build_sh and command in host.build_script:
                yield index, _missing(command, line)
                return
            continue
        if view.policy is None:
            continue
        found = host.which(command, _search_path(host))
        if found is not None and view.place(Path(found)) in (str(PRIVATE_TMP), HIDDEN):
            yield index, _hidden(command, Path(found), str(Path(found).parent), line)
            return


def _search_path(host: Host) -> str:
    """The build's PATH, with relative entries from the project, where build.sh runs."""
    entries = host.env.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(str(host.root / entry) if not entry.startswith("/") else entry for entry in entries)


def _folder_for(path: Path) -> str:
    """The folder to show a hidden program's: a virtualenv's (or any prefix's) root for one in bin/."""
    folder = path.parent
    return str(folder.parent if folder.name == "bin" and folder.parent != PRIVATE_TMP else folder)


def _hidden(command: str, path: Path, folder: str, line: str) -> Diagnosis:
    where = f"it is at {path}" if command != str(path) else "it is there"
    if _under(path, (PRIVATE_TMP,)):
        return Diagnosis(
            HIDDEN,
            str(path),
            f"the build could not find {command}: {where} on this machine, under /tmp, which the sandbox replaces "
            "with an empty one of its own",
            f'move it out of /tmp, or set sandbox_readable = ["{folder}"] in {CONFIG}, which shows that folder to '
            "builds read-only",
            _evidence(line),
        )
    return Diagnosis(
        HIDDEN,
        str(path),
        f"the build could not find {command}: {where}, in a folder the sandbox hides from builds",
        "keep the tools a build runs outside agent-config/ and the folders the sandbox hides",
        _evidence(line),
    )


def _missing(command: str, line: str) -> Diagnosis:
    venv = re.match(r"(?P<venv>(?:\./)?[^/]*v?env[^/]*)/bin/", command)
    if venv:
        fix = (
            f"create it before the run, outside the sandbox: python3 -m venv {venv.group('venv')} && "
            f"{venv.group('venv')}/bin/pip install <the project and its test tools> (in CI, a step before "
            "code-commit): build.sh runs with no network, so it cannot install"
        )
    else:
        fix = f"install or build {command} before the run (build.sh runs with no network), or change build.sh"
    return Diagnosis(
        MISSING,
        command,
        f"build.sh runs {command}, which does not exist (a fresh clone lacks it): no change to the code can make it",
        fix,
        _evidence(line),
    )


_INTERPRETER = re.compile(
    r"its interpreter '(?P<path>[^']+)' \(its #! line\) (?P<why>was not found|cannot be executed)"
)


def _start_error(why: str, view: _View) -> Diagnosis | None:
    """build.sh could not be started: its #! line names an interpreter that is not there (on the host
    either, or only under the host's /tmp), or ends with a carriage return. No answer can change it."""
    evidence = _evidence(f"build.sh could not be started: {why}")
    if "ends with a carriage return" in why:
        return Diagnosis(
            MISSING,
            "build.sh",
            "build.sh's #! line ends with a carriage return (Windows line endings), so the interpreter it names "
            "does not exist: no change to the code can make it run",
            "save build.sh with LF line endings (dos2unix build.sh, or git config core.autocrlf false and check it out "
            "again)",
            evidence,
        )
    match = _INTERPRETER.search(why)
    if match is None:
        return None
    path = view.absolute(match.group("path"))
    if view.host.exists(str(path)) and view.place(path) in (str(PRIVATE_TMP), HIDDEN):
        return _hidden(match.group("path"), path, _folder_for(path), evidence)
    if view.host.exists(str(path)) and match.group("why") == "was not found":
        return None  # there, and not hidden: something else is amiss
    return Diagnosis(
        MISSING,
        match.group("path"),
        f"build.sh's #! line names {match.group('path')}, which {match.group('why').replace('was ', 'is ')} here: "
        "no change to the code can make it run",
        f"install {match.group('path')}, or make build.sh's #! line name an interpreter that exists (#!/bin/sh)",
        evidence,
    )


def _hidden_tmp_path(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    """A path under the host's /tmp that exists there, named by an error the build could not get past."""
    for index, line in enumerate(lines):
        if "/tmp/" not in line or not _NOT_THERE.search(line):
            continue
        for match in _PATH.finditer(line):
            text = match.group("quoted") or match.group("bare")
            path = Path(os.path.normpath(text))
            if view.place(path) == str(PRIVATE_TMP) and path != PRIVATE_TMP and view.host.exists(str(path)):
                yield index, _hidden(text, path, _folder_for(path), line)
                return


# The network


def _network(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    assert view.policy is not None
    if view.policy.network or view.policy.hosts.proxied:  # a proxy's refusals are its record's (`_refused`)
        return
    output = "\n".join(lines)
    for index, line in enumerate(lines):
        if _NOISE.search(line):
            continue
        what = None
        if _NETWORK.search(line):
            named = next(filter(None, map(_HOST_NAME.search, lines[index : index + LOOK_BACK + 1])), None)
            what = named.group("host") if named else None
        elif match := _offline_miss(line, output):
            what = match.group("what")
        else:
            continue
        tool, step, network_helps = _network_tool(output)
        subject = what or "the network"
        cause = (
            f"{tool} needed the network{f' ({what})' if what else ''}, and the sandbox runs builds without one"
            if tool
            else f"the build needed the network{f' ({what})' if what else ''}, and the sandbox runs builds without one"
        )
        fix = step
        if network_helps:
            fix += f"; or set {NETWORK_ON} in {CONFIG}, {NETWORK_RISK}"
        yield index, Diagnosis(NETWORK, subject, cause, fix, _evidence(line))
        return


def _refused(refused: Sequence[Refusal]) -> Diagnosis:
    first = refused[0]
    entries = ", ".join(dict.fromkeys(f'"{refusal.entry()}"' for refusal in refused))
    return Diagnosis(
        NETWORK,
        first.host,
        f"code-commit's proxy refused the build {first.host}:{first.port} ({first.reason})"
        + (f" and {len(refused) - 1} more" if len(refused) > 1 else ""),
        f"add {entries} to sandbox_network in {CONFIG} if the build needs it; every host it does not name stays "
        "refused",
        f"code-commit's proxy refused {', '.join(f'{r.host}:{r.port}' for r in refused[:5])}",
    )


def _offline_miss(line: str, output: str) -> re.Match[str] | None:
    """A tool that said what it could not find, without a network word: pip (with PIP_RETRIES=0),
    Maven offline, cargo offline."""
    cargo = _CARGO_OFFLINE.search(line)
    return _PIP_NOTHING.search(line) or _MAVEN_OFFLINE.search(line) or (cargo if "offline mode" in output else None)


def _network_tool(output: str) -> tuple[str, str, bool]:
    """Which tool wanted the network, the step that gives it what it wanted without one, and whether
    a build with the network would pass (not where the tool must also write a read-only folder)."""
    if "corepack.cjs" in output:
        return (
            "corepack",
            "pin the package manager in package.json (packageManager) and run `corepack install` in the project "
            "once, outside the sandbox",
            False,
        )
    if "ERR_PNPM" in output or " WARN  GET " in output or "pnpm" in output:
        return "pnpm", "run `pnpm install` in the project once, outside the sandbox", False
    if "YN0001" in output:
        return "yarn", "run `yarn install` in the project once, outside the sandbox", False
    if "yarn install v1" in output or "yarnpkg.com" in output:
        return "yarn", "run `yarn install` in the project once, outside the sandbox", True
    if "npm error" in output or "npm ERR!" in output:
        return (
            "npm",
            "run `npm ci` (or `npm install`) in the project once, outside the sandbox, so node_modules/ has every "
            "package, and keep installs out of build.sh",
            True,
        )
    if "crates.io" in output or "cargo" in output or ("offline mode" in output and "no matching package" in output):
        return "cargo", "run `cargo fetch` in the project once, outside the sandbox", False
    if "[ERROR]" in output and ("maven" in output.lower()):
        return (
            "Maven",
            "run the build once outside the sandbox (or `mvn dependency:go-offline`) so ~/.m2 has every "
            "dependency, and run Maven offline in build.sh (`mvn -o`)",
            False,
        )
    if "Network connectivity is disabled" in output or (
        re.search(r"^\s*cause: ", output, re.MULTILINE) and re.search(r"CPython|pypi\.org|pythonhosted", output)
    ):
        return "uv", "run `uv sync` in the project once, outside the sandbox", True
    if "pip" in output or "No matching distribution" in output:
        return (
            "pip",
            "install the packages once, outside the sandbox (.venv/bin/pip install ...), and keep installs out "
            "of build.sh",
            True,
        )
    if "GOPROXY" in output or "proxy.golang.org" in output:
        return "go", "run `go mod download` in the project once, outside the sandbox", False
    return "", "fetch what the build downloads before the run, outside the sandbox", True


# Privileges and tool state


def _capability(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    for index, line in enumerate(lines):
        if _CHOWN.search(line):
            yield (
                index,
                Diagnosis(
                    CAPABILITY,
                    "tar",
                    "tar could not give extracted files their owners: run as root it tries to, and the sandbox drops "
                    "the privilege to change owners",
                    "set TAR_OPTIONS=--no-same-owner for code-commit's builds (code-commit sets it itself when it runs "
                    "as root and TAR_OPTIONS is unset), or give tar --no-same-owner in build.sh",
                    _evidence(line),
                ),
            )
            return


def _pnpm_store_switch(lines: list[str], view: _View) -> Iterator[tuple[int, Diagnosis]]:
    for index, line in enumerate(lines):
        if _PNPM_NO_TTY.search(line):
            yield (
                index,
                Diagnosis(
                    TOOL_STATE,
                    "node_modules",
                    "pnpm wants to reinstall node_modules/, which was installed with another store than the build's, "
                    "and cannot ask: a build has no terminal",
                    "give the build the store your own installs use (leave npm_config_store_dir unset for "
                    "code-commit), then run `pnpm install` in the project once, outside the sandbox",
                    _evidence(line),
                ),
            )
            return


__all__ = ["Diagnosis", "Host", "diagnose"]
