"""Commands and files a build could not find: ones the sandbox hides (under the host's /tmp, in a
hidden folder), programs build.sh names that are on no PATH the build has (installed elsewhere:
~/.cargo/bin off cron's PATH; or nowhere), the dependencies a fresh clone lacks (node_modules/, a
virtualenv), and an interpreter build.sh's #! line names that is not there. Each is decided from
facts looked up on the host and in build.sh, never from the line alone."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from code_commit.builds.diagnosis.facts import (
    CONFIG,
    HIDDEN,
    MISSING,
    PATH_IN_LINE,
    Diagnosis,
    Host,
    View,
    evidence,
    names_command,
    under,
)
from code_commit.config.sandbox_writable import PRIVATE_TMP

# Where installers put programs that a PATH without them (cron's, a CI runner's) misses.
_ELSEWHERE = (
    "~/.local/bin",
    "~/.cargo/bin",
    "~/bin",
    "~/go/bin",
    "/usr/local/go/bin",
    "~/.volta/bin",
    "~/.bun/bin",
    "~/.deno/bin",
    "~/.local/share/pnpm",
    "~/.pyenv/shims",
    "~/.nvm/current/bin",
    "/usr/local/bin",
    "/snap/bin",
)
_NVM_VERSIONS = "~/.nvm/versions/node"  # nvm's node versions, each with its bin/
_PACKAGE_JSON_BYTES = 256 << 10
# The lock file that says which package manager installs node_modules/, and its install command.
_NODE_INSTALLS = (
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
    ("yarn.lock", "yarn install --frozen-lockfile"),
    ("package-lock.json", "npm ci"),
    ("npm-shrinkwrap.json", "npm ci"),
)
# Python's word for a module it could not import: a generated one (a version file) a clone lacks?
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '(?P<module>[\w.]+)'")
_PACKAGE_ROOTS = ("", "src/")  # where a project's packages are: flat, or the src layout
# build.sh sourcing a virtualenv's activate script that is not there (dash, then bash).
_NO_ACTIVATE = re.compile(
    r"^(?P<shell>[^\s:][^:\n]*?): (?:line )?\d+: (?:\.|source): (?:cannot open |can't open )?"
    r"(?P<path>[^:\n]*bin/activate)(?:: No such file.*)?$"
    r"|^(?P<bash>[^\s:][^:\n]*?): line \d+: (?P<bash_path>[^:\n]*bin/activate): No such file or directory$"
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


def not_found(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    host = view.host
    for index, line in enumerate(lines):
        activate = _NO_ACTIVATE.match(line)
        if activate is not None:
            unsourced = _no_activate(activate, view, line)
            if unsourced is not None:
                yield index, unsourced
                return
            continue
        match = _NOT_FOUND.match(line)
        if match is None:
            continue
        command = (match.group("command") or match.group("bash_command") or match.group("env_command")).strip()
        from_build_sh = (match.group("shell") or match.group("bash") or "").endswith("build.sh")
        if "/" in command:
            path = view.absolute(command)
            if host.exists(str(path)):
                if view.place(path) in (str(PRIVATE_TMP), HIDDEN):
                    yield index, _hidden(command, path, _folder_for(path), line, view)
                    return
            elif from_build_sh and command in host.build_script:
                yield index, _missing(command, line)
                return
            continue
        found = host.which(command, _search_path(host))
        if found is not None:
            if view.policy is not None and view.place(Path(found)) in (str(PRIVATE_TMP), HIDDEN):
                yield index, _hidden(command, Path(found), str(Path(found).parent), line, view)
                return
            continue  # on the build's PATH, and shown to it: the line is not the whole story
        if from_build_sh and names_command(host.build_script, command):
            yield index, _off_path(command, view, line)
            return
        if not from_build_sh and (modules := _no_node_modules(command, view, line)) is not None:
            yield index, modules
            return


def _off_path(command: str, view: View, line: str) -> Diagnosis:
    """build.sh runs `command`, which is on no folder of the build's PATH: installed elsewhere (a
    PATH without ~/.cargo/bin, as cron's), or nowhere."""
    host = view.host
    path = host.env.get("PATH", os.defpath)
    places = [str(view.absolute(place)) if place.startswith("~/") else place for place in _ELSEWHERE]
    if view.home is not None:
        places += host.glob(str(view.home / _NVM_VERSIONS.removeprefix("~/") / "*" / "bin"))
    where = host.which(command, os.pathsep.join(places))
    if where is None:
        return Diagnosis(
            MISSING,
            command,
            f"build.sh runs {command}, which is installed nowhere the build or code-commit looked (its PATH is "
            f"{path}; nor {', '.join(_ELSEWHERE[:4])}, nvm's): no change to the code can make it run",
            f"install {command} before the run (build.sh runs with no network), where the PATH code-commit runs with "
            "finds it; or change build.sh",
            evidence(line),
        )
    folder = view.shown(Path(where).parent)
    return Diagnosis(
        MISSING,
        command,
        f"build.sh runs {command}, which is not on the build's PATH ({path}): it is at {view.shown(Path(where))}, "
        "on this machine",
        f"run code-commit with {folder} on its PATH (builds get code-commit's PATH): in a crontab line, "
        f"PATH={folder}:{path} code-commit ...; in CI, add {folder} to PATH in a step before",
        evidence(line),
    )


def _no_node_modules(command: str, view: View, line: str) -> Diagnosis | None:
    """A script of package.json's ran a program node_modules/.bin would hold, and there is no
    node_modules/ in the project: a fresh clone, never installed."""
    host = view.host
    try:
        package = json.loads(host.read("package.json")[:_PACKAGE_JSON_BYTES] or "{}")
    except ValueError:
        return None
    scripts = package.get("scripts") if isinstance(package, dict) else None
    if not isinstance(scripts, dict) or host.exists(str(host.root / "node_modules")):
        return None
    if not any(isinstance(text, str) and names_command(text, command) for text in scripts.values()):
        return None
    install = next((step for lock, step in _NODE_INSTALLS if host.exists(str(host.root / lock))), "npm install")
    return Diagnosis(
        MISSING,
        "node_modules",
        f"package.json's scripts run {command}, and the project has no node_modules/ (a fresh clone, never "
        "installed): no change to the code can make it run",
        f"run `{install}` in the project before the run, outside the sandbox (in CI, a step before code-commit): "
        "build.sh runs with no network",
        evidence(line),
    )


def generated_missing(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    """The tests import a module of the project's own that a build step generates (setuptools-scm's
    version file): its package is there, the file is not, and git ignores it, so a fresh clone
    never had it. Facts all three: the package folder exists, the file does not, git ignores it."""
    host = view.host
    for index, line in enumerate(lines):
        match = _NO_MODULE.search(line)
        if match is None or "." not in match.group("module"):
            continue
        *package, name = match.group("module").split(".")
        for top in _PACKAGE_ROOTS:
            relative = f"{top}{'/'.join(package)}/{name}.py"
            folder = host.root / top / "/".join(package)
            package_there = host.exists(str(folder / "__init__.py"))
            if package_there and not host.exists(str(host.root / relative)) and host.ignored(relative):
                yield index, _generated(match.group("module"), relative, line)
                return


def _generated(module: str, relative: str, line: str) -> Diagnosis:
    return Diagnosis(
        MISSING,
        relative,
        f"the tests import {module}, whose file {relative} a build step generates: git ignores it and the "
        "project has none (a fresh clone): no change to the code can make it",
        f"generate {relative} before the run, outside the sandbox (for a version file setuptools-scm or hatch-vcs "
        "writes: install the project, `pip install -e .` in its virtualenv, or `uv sync`); in CI, a step before "
        "code-commit",
        evidence(line),
    )


def _no_activate(match: re.Match[str], view: View, line: str) -> Diagnosis | None:
    """build.sh sources a virtualenv's activate script that is not there."""
    text = (match.group("path") or match.group("bash_path") or "").strip()
    shell = match.group("shell") or match.group("bash") or ""
    if not shell.endswith("build.sh") or text not in view.host.build_script:
        return None
    if view.host.exists(str(view.absolute(text))):
        return None
    return _missing(text.removesuffix("/bin/activate") + "/bin/activate", line)


def _search_path(host: Host) -> str:
    """The build's PATH, with relative entries from the project, where build.sh runs."""
    entries = host.env.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(str(host.root / entry) if not entry.startswith("/") else entry for entry in entries)


def _folder_for(path: Path) -> str:
    """The folder to show a hidden program's: a virtualenv's (or any prefix's) root for one in bin/."""
    folder = path.parent
    return str(folder.parent if folder.name == "bin" and folder.parent != PRIVATE_TMP else folder)


def _hidden(command: str, path: Path, folder: str, line: str, view: View) -> Diagnosis:
    where = f"it is at {path}" if command != str(path) else "it is there"
    if under(path, (PRIVATE_TMP,)):
        return Diagnosis(
            HIDDEN,
            str(path),
            f"the build could not find {command}: {where} on this machine, under /tmp, which the sandbox replaces "
            "with an empty one of its own",
            f'move it out of /tmp, or set sandbox_readable = ["{folder}"] in {CONFIG}, which shows that folder to '
            "builds read-only"
            if not view.host.holds_socket(folder)
            else "move it out of /tmp: its folder holds a Unix socket, which no build may reach, so no setting shows "
            "it to builds",
            evidence(line),
        )
    return Diagnosis(
        HIDDEN,
        str(path),
        f"the build could not find {command}: {where}, in a folder the sandbox hides from builds",
        "keep the tools a build runs outside agent-config/ and the folders the sandbox hides",
        evidence(line),
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
        evidence(line),
    )


_INTERPRETER = re.compile(
    r"its interpreter '(?P<path>[^']+)' \(its #! line\) (?P<why>was not found|cannot be executed)"
)


def unstarted(why: str, view: View) -> Diagnosis | None:
    """build.sh could not be started: its #! line names an interpreter that is not there (on the host
    either, or only under the host's /tmp), or ends with a carriage return. No answer can change it."""
    quoted = evidence(f"build.sh could not be started: {why}")
    if "ends with a carriage return" in why:
        return Diagnosis(
            MISSING,
            "build.sh",
            "build.sh's #! line ends with a carriage return (Windows line endings), so the interpreter it names "
            "does not exist: no change to the code can make it run",
            "save build.sh with LF line endings (dos2unix build.sh, or git config core.autocrlf false and check it out "
            "again)",
            quoted,
        )
    match = _INTERPRETER.search(why)
    if match is None:
        return None
    path = view.absolute(match.group("path"))
    if view.host.exists(str(path)) and view.place(path) in (str(PRIVATE_TMP), HIDDEN):
        return _hidden(match.group("path"), path, _folder_for(path), quoted, view)
    if view.host.exists(str(path)) and match.group("why") == "was not found":
        return None  # there, and not hidden: something else is amiss
    return Diagnosis(
        MISSING,
        match.group("path"),
        f"build.sh's #! line names {match.group('path')}, which {match.group('why').replace('was ', 'is ')} here: "
        "no change to the code can make it run",
        f"install {match.group('path')}, or make build.sh's #! line name an interpreter that exists (#!/bin/sh)",
        quoted,
    )


def hidden_tmp_path(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    """A path under the host's /tmp that exists there, named by an error the build could not get past."""
    for index, line in enumerate(lines):
        if "/tmp/" not in line or not _NOT_THERE.search(line):
            continue
        for match in PATH_IN_LINE.finditer(line):
            text = match.group("quoted") or match.group("bare")
            path = Path(os.path.normpath(text))
            if view.place(path) == str(PRIVATE_TMP) and path != PRIVATE_TMP and view.host.exists(str(path)):
                yield index, _hidden(text, path, _folder_for(path), line, view)
                return
