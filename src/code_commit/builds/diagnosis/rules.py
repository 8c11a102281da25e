"""The rules that read a failed build's output, and `diagnose`, which runs them: writes refused
outside the project (in a tool's cache only: caches.py), the network a tool wanted, a privilege the
sandbox drops, a toolchain's state; commands.py and nested.py hold the rest."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from code_commit.builds.diagnosis.caches import the_tools, widening_problem
from code_commit.builds.diagnosis.commands import generated_missing, hidden_tmp_path, not_found, unstarted
from code_commit.builds.diagnosis.facts import (
    CAPABILITY,
    CONFIG,
    NETWORK,
    PATH_IN_LINE,
    PROTECTED,
    READ_ONLY,
    TOOL_STATE,
    Diagnosis,
    Host,
    View,
    evidence,
    names_command,
    under,
)
from code_commit.builds.diagnosis.nested import nested
from code_commit.sandbox.bubblewrap import SandboxPolicy
from code_commit.sandbox.proxy import Refusal

MAX_LINES = 20_000  # lines of output looked at, at most
MAX_LINE = 2000  # characters of a line looked at
_LOOK_BACK = 4  # lines before a read-only error that may name its path (cargo's "Caused by:" chains)
_LOOK_AHEAD = 2  # indented lines after it that may (uv wraps `at path` onto the next one)
_NETWORK_ON = "sandbox_network = true"
_NETWORK_RISK = "which lets the build, the model's code, reach any host"
# Variables naming a cache code-commit gives sandboxed builds itself when they are unset
# (sandbox/toolchains.py), with the tool and whether it must always write its cache (npm need not:
# it reads a read-only cache).
_OWN_CACHE_VARS: dict[str, tuple[str, bool]] = {
    "UV_CACHE_DIR": ("uv", True),
    "GOCACHE": ("Go", True),
    "npm_config_cache": ("npm", False),
}

_READ_ONLY_WORDS = re.compile(r"read-only file system|\bEROFS\b|os error 30\b|\[Errno 30\]", re.IGNORECASE)
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
_CHOWN = re.compile(r"Cannot change ownership to uid \d+, gid \d+: Operation not permitted")
_PNPM_NO_TTY = re.compile(r"ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY")
# build.sh's own steps that download (the user wrote them: no build can add one): where build.sh has
# one, the network is a fix to name; a host name a build printed never is.
_DOWNLOADS = re.compile(
    r"\b(?:npm|pnpm|yarn) (?:install|ci|i|add)\b|\bpip3? install\b|\buv (?:sync|pip install|add)\b"
    r"|\bcargo fetch\b|\bgo mod download\b"
)
_VERSION_BUMP = re.compile(r"\b(?:npm|yarn|pnpm) version\b")  # commits and tags
# The tools a network diagnosis may name, by the words build.sh runs them with.
_RUNS = {
    "corepack": ("corepack", "pnpm", "yarn"),
    "pnpm": ("pnpm",),
    "yarn": ("yarn",),
    "npm": ("npm", "npx"),
    "cargo": ("cargo",),
    "Maven": ("mvn", "mvnw"),
    "uv": ("uv", "uvx"),
    "pip": ("pip", "pip3"),
    "go": ("go",),
}


_Rule = Callable[[list[str], View], Iterator[tuple[int, Diagnosis]]]  # a rule: its first hit, if any, with its line


def diagnose(
    output: str,
    exit_code: int | None,
    policy: SandboxPolicy | None,
    host: Host,
    start_error: str | None = None,
    refused: Sequence[Refusal] = (),
) -> Diagnosis | None:
    """The cause of a failed build that the sandbox or the setup made, or None for an ordinary
    failure (or none found). `policy`: what the build ran under; None, unsandboxed, where only what
    the setup lacks (a program, an interpreter, a dependency) can be found. `start_error`: why build.sh
    could not be started at all (builds/runner.py: code-commit's words, not the build's). `refused`: the
    hosts code-commit's proxy refused the build (sandbox/proxy.py: its record, not the build's words),
    which explain a failure before anything the output says. Else the earliest evidence wins: the
    first thing that went wrong explains the rest."""
    if exit_code == 0:
        return None
    view = View(policy, host)
    if start_error is not None:
        started = unstarted(start_error, view)
        if started is not None:
            return started
    if refused:
        return _refused(refused)
    lines = [line[:MAX_LINE] for line in output.splitlines()[-MAX_LINES:]]
    rules = [rule for rule, unsandboxed in RULES if unsandboxed or policy is not None]
    found = [hit for rule in rules for hit in rule(lines, view)]  # each rule yields its first hit, if any
    return min(found, key=lambda hit: hit[0])[1] if found else None


# Writes refused outside the project


def _read_only(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    for index, line in enumerate(lines):
        maven = _MAVEN_READ_ONLY.search(line)
        if not maven and (not _READ_ONLY_WORDS.search(line) or _NOISE.search(line)):
            continue
        candidates = [maven.group("path") or maven.group("lock")] if maven else _paths_near(lines, index)
        for text in candidates:
            path = view.absolute(text)
            place = view.place(path)
            if place == PROTECTED and _build_sh_writes(path, view):
                yield index, _protected(path, view, line)
                return
            found = _read_only_remedy(path, view, line, "\n".join(lines)) if place == READ_ONLY else None
            if found is not None:
                yield index, found
                return


def _paths_near(lines: list[str], index: int) -> list[str]:
    """The paths a read-only error names: on its line (the last first: `copyfile 'a' -> 'b'` and
    `symlink 'target' -> 'link'` fail on the second), then on the lines just before it."""
    relative = _relative_path(lines[index])
    paths = [relative] if relative else []
    for at in range(index + 1, min(index + 1 + _LOOK_AHEAD, len(lines))):  # a path wrapped onto the next line
        if lines[at][:1].isspace() and (wrapped := PATH_IN_LINE.match(lines[at].strip())):
            paths.append(wrapped.group("quoted") or wrapped.group("bare"))
    for at in range(index, max(index - _LOOK_BACK, 0) - 1, -1):
        if at != index and (_NOISE.search(lines[at]) or _READ_ONLY_WORDS.search(lines[at])):
            break  # another error's line: its paths are its own
        found = [match.group("quoted") or match.group("bare") for match in PATH_IN_LINE.finditer(lines[at])]
        paths += reversed(found)
    return paths


def _relative_path(line: str) -> str | None:
    match = _RELATIVE.search(line)
    return None if match is None else next(group for group in match.groups() if group)


def _protected(path: Path, view: View, line: str) -> Diagnosis:
    assert view.policy is not None
    shown = path.relative_to(view.policy.root).as_posix() if under(path, (view.policy.root,)) else str(path)
    return Diagnosis(
        PROTECTED,
        shown,
        f"the build tried to change {shown}, which the sandbox keeps read-only: the run's integrity rests on it "
        "(git's files, the ignore files, build.sh)",
        "take that step out of build.sh (a commit, `npm version`, an edit of an ignore file): a build must leave "
        "them as they are",
        evidence(line),
    )


def _build_sh_writes(path: Path, view: View) -> bool:
    """build.sh itself names the step that writes the protected path: git, or a version bump (which
    commits), for git's files; the file's name for another. A printed line alone is no cause."""
    assert view.policy is not None
    script = view.host.build_script
    if under(path, (view.policy.root / ".git",)):
        return names_command(script, "git") or _VERSION_BUMP.search(script) is not None
    return path.name in script


def _read_only_remedy(path: Path, view: View, line: str, output: str) -> Diagnosis | None:
    """The read-only error's cause and fix, by the tool whose cache it is (caches.py), when the facts
    hold (the cache exists, build.sh runs its tool): the fix that needs the least (a step outside the
    sandbox, a variable unset) before a folder made writable. None for any other folder: a build
    that could not write elsewhere is the code's own failure, and goes to the model."""
    cache = the_tools(path, view)
    if cache is None:
        return None
    env = view.host.env
    variable = cache.entry.variable or ""
    tool = _OWN_CACHE_VARS[variable][0] if variable in _OWN_CACHE_VARS else cache.entry.tool
    folder = view.shown(cache.folder)
    moved = env.get(variable, "").startswith("/")

    def found(cause: str, fix: str) -> Diagnosis:
        return Diagnosis(READ_ONLY, folder, cause, fix, evidence(line))

    if variable in _OWN_CACHE_VARS and moved:
        return found(
            f"{tool} could not write its cache {folder} ({variable}), read-only in the sandbox",
            f"unset {variable} for code-commit's builds: code-commit then gives sandboxed builds a {tool} cache of "
            "their own for this project",
        )
    if variable in _OWN_CACHE_VARS and _OWN_CACHE_VARS[variable][1]:
        return found(
            f"{tool} could not write its cache {folder}, which is read-only in the sandbox",
            f"give the build a cache it may write: {variable}=/tmp/{cache.folder.name} in code-commit's environment "
            "(code-commit does this itself, with a cache of the project's own under ~/.cache/code-commit, "
            "when it can make that folder)",
        )
    if variable == "CARGO_TARGET_DIR":
        return found(
            f"cargo could not write its target folder {folder} (CARGO_TARGET_DIR), outside the project and "
            "read-only in the sandbox",
            "unset CARGO_TARGET_DIR for code-commit's builds (cargo then builds into target/ in the project)",
        )
    step = _STEP_OUTSIDE.get(tool)
    if step is not None:
        cause, fix = step
        return found(cause.format(folder=folder), fix)
    problem = widening_problem(cache.folder, view.home, env, view.host.holds_socket)
    if problem is not None:
        return None  # no safe setting to name: the model gets the failure, as any other
    return found(
        f"{tool} could not write its cache {folder}, outside the project: the sandbox keeps everything but the "
        "project read-only",
        f'point {tool} at a folder in the project or /tmp if it has a setting for it; else set sandbox_writable = ["'
        f"{folder}\"] in {CONFIG}, which lets a build (the model's code) change what is there, and so what "
        f"{tool} reads from it later",
    )


# The tools whose cache a step outside the sandbox fills, so that the build only reads it: the cause
# ({folder}: the cache) and that step.
_STEP_OUTSIDE = {
    "cargo": (
        "cargo could not unpack a dependency into {folder}, read-only in the sandbox",
        "run `cargo fetch` in the project once, outside the sandbox: it unpacks every dependency, which the "
        "build then only reads (making that folder writable would let a build change the sources your own "
        "builds compile)",
    ),
    "corepack": (
        "corepack could not download the package manager into {folder}, read-only in the sandbox",
        "pin the package manager in package.json (packageManager) and run `corepack install` in the project "
        "once, outside the sandbox",
    ),
    "pnpm": (
        "pnpm could not write its store {folder}, read-only in the sandbox: it registers each project there",
        "run `pnpm install` in the project once, outside the sandbox; after that an up-to-date install "
        "writes nothing to the store",
    ),
    "yarn": (
        "yarn could not write its cache {folder}, read-only in the sandbox",
        "run `yarn install` in the project once, outside the sandbox, so the cache has every package",
    ),
    "npm": (
        "npm could not write its cache {folder}, read-only in the sandbox",
        "run `npm ci` in the project once, outside the sandbox, so node_modules/ and the cache have every "
        f"package (with {_NETWORK_ON}, code-commit gives npm a cache of its own)",
    ),
    "maven": (
        "Maven could not write its repository ({folder}), read-only in the sandbox: it looks online for what "
        "is missing or out of date",
        "run Maven offline in build.sh (`mvn -o ...`): with every plugin and dependency in ~/.m2 it writes "
        "nothing there; for one ~/.m2 lacks, run the build once outside the sandbox first",
    ),
}


# The network


def _network(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    assert view.policy is not None
    if view.policy.network or view.policy.hosts.proxied:  # a proxy's refusals are its record's (`_refused`)
        return
    output = "\n".join(lines)
    for index, line in enumerate(lines):
        if _NOISE.search(line):
            continue
        what = None
        if _NETWORK.search(line):
            named = next(filter(None, map(_HOST_NAME.search, lines[index : index + _LOOK_BACK + 1])), None)
            what = named.group("host") if named else None
        elif match := _offline_miss(line, output):
            what = match.group("what")
        else:
            continue
        tool, step, network_helps = _network_tool(output)
        if not tool or not view.named_in_build_sh(_RUNS[tool]):
            return  # a tool build.sh does not run: the code's own attempt, or a forged line
        subject = what or "the network"
        cause = f"{tool} needed the network{f' ({what})' if what else ''}, and the sandbox runs builds without one"
        fix = step
        if network_helps and _DOWNLOADS.search(view.host.build_script):
            fix += f"; or set {_NETWORK_ON} in {CONFIG}, {_NETWORK_RISK}"
        yield index, Diagnosis(NETWORK, subject, cause, fix, evidence(line))
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


def _capability(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
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
                    evidence(line),
                ),
            )
            return


def _pnpm_store_switch(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
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
                    evidence(line),
                ),
            )
            return


__all__ = ["Diagnosis", "Host", "diagnose"]


# Every rule of the output, and whether it holds for a build run without the sandbox, where only what
# the setup lacks (a program, an interpreter, a dependency) can be found. The earliest evidence in the
# output wins; on one line, the rule listed first. A new cause is one rule here, in its module.
RULES: tuple[tuple[_Rule, bool], ...] = (
    (not_found, True),
    (generated_missing, True),
    (_read_only, False),
    (hidden_tmp_path, False),
    (_network, False),
    (nested, False),
    (_capability, False),
    (_pnpm_store_switch, False),
)
