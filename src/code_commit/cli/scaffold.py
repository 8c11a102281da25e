"""`code-commit init`: the files a project needs, created only where absent.

Never overwrites: every file is created with O_EXCL, so even a file that appears meanwhile is
kept. The one change to an existing file is appending the `/agent-config` line to .gitignore,
which code-commit requires anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from code_commit.cli.build_guess import Guess, Which, guess_build
from code_commit.cli.check import Checked, init_check
from code_commit.cli.commit_advice import LIST_TIMEOUT, Untracked, add_command, ignore_lines, untracked
from code_commit.cli.config_report import template as config_template
from code_commit.cli.config_report import toml_value
from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE, IGNORE_LINES, QUERY_FILE
from code_commit.config.project_root import find_project_root
from code_commit.config.protected import BUILD_SCRIPT, GIT_FILES, ROLLUP_SCRIPT
from code_commit.errors import SetupError
from code_commit.exits import EXIT
from code_commit.files.owner_only import FILE_MODE, make_private_dirs
from code_commit.files.setup_files import IGNORE_FILE_BYTES, read_regular
from code_commit.git.env import run_git
from code_commit.run.workspace import QUERY_PLACEHOLDER, gitignore_problems, not_ignored
from code_commit.sandbox.toolchains import hidden_folders

_QUERY_TEMPLATE = f"""{QUERY_PLACEHOLDER}

Write here, in plain words, the change you want: a bug to fix, a feature to add, a failing test
to make pass. Be as specific as with a colleague: name the files, functions and behaviour you
expect. code-commit sends this text with the whole codebase (agent-config/codeRollup.txt) and
then repairs the build with up to three more queries while ./build.sh fails.
"""

_BUILD_PLACEHOLDER = 'echo "build.sh: put your build and test commands here (see the comments in build.sh)" >&2\nexit 1'

_BUILD_TEMPLATE = """#!/bin/sh
# build.sh: code-commit's judge. It must exit 0 exactly when the project builds and its tests pass.
# code-commit runs it from the project root after every change, with stdin from /dev/null and no
# API keys in its environment, kills it (and everything it started) after build_timeout seconds
# (30 minutes by default), and shows its output to the model when it fails. The model can never
# change this file.
# {sandbox}
set -eu
cd "$(dirname "$0")"

{commands}
"""
_SANDBOX_NOTE = (
    "In the sandbox it may write the project only: your home folder and the rest of the system are\n"
    "# read-only, /tmp is its own and empty, there is no network; `code-commit check` runs it so.\n"
    f"# sandbox_network, sandbox_writable and sandbox_readable in {CONFIG_DIR}/{CONFIG_FILE} change that."
)


@dataclass
class _Scaffold:
    root: Path
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # .gitignore lines added for the folders build.sh makes
    build: Guess | None = None  # how build.sh was guessed, when init wrote it
    settings: dict[str, tuple[Any, str]] = field(default_factory=dict)  # the sandbox's, with why
    untracked: Untracked | None = None  # after init (and its check): what git neither tracks nor ignores
    checked: Checked | None = None  # init's check of build.sh; None when it did not run it


def _init_project(root: Path, which: Which = shutil.which) -> _Scaffold:
    result = _Scaffold(root)
    try:
        make_private_dirs(root / CONFIG_DIR)
    except FileExistsError:  # exist_ok covers a folder: something else is there
        raise SetupError(
            f"{CONFIG_DIR} exists and is not a directory: code-commit keeps its inputs, keys and logs in "
            f"{CONFIG_DIR}/; move it away and run code-commit init again."
        ) from None
    guess = guess_build(root, which)
    result.settings = _sandbox_settings(root, guess, which)
    _create(root, QUERY_FILE, _QUERY_TEMPLATE, FILE_MODE, result)
    _create(root, f"{CONFIG_DIR}/{CONFIG_FILE}", config_template(result.settings), FILE_MODE, result)
    _ignore_agent_config(root, result)
    _create(
        root, "build.sh", _BUILD_TEMPLATE.format(sandbox=_SANDBOX_NOTE, commands=_build_commands(guess)), 0o755, result
    )
    if "build.sh" in result.created:
        result.build = guess
        _ignore_build_outputs(root, guess.outputs, result)
    _create(root, "codeRollup.sh", rollup_script(), 0o755, result)
    return result


def _sandbox_settings(root: Path, guess: Guess, which: Which) -> dict[str, tuple[Any, str]]:
    """The settings the guessed toolchain needs in the sandbox, with why: a folder to show builds
    read-only for each tool under the host's /tmp (never a writable one: see sandbox/toolchains.py)."""
    hidden = hidden_folders(root, guess.tools, which)
    if not hidden:
        return {}
    tools = ", ".join(f"{tool} is in {folder}" for tool, folder in hidden)
    why = (
        f"{tools}, under the host's /tmp, which builds cannot see (they get an empty /tmp of their own); "
        "shown to them read-only"
    )
    return {"sandbox_readable": ([str(folder) for _, folder in hidden], why)}


def _next_steps(result: _Scaffold) -> list[str]:
    root = result.root
    steps = []
    if not (root / ".git").exists():
        steps.append("git init   (code-commit works in a git repository: review its changes with git diff)")
    if result.build is not None and result.build.commands is None:
        steps.append(
            f"edit build.sh: no build could be guessed, as {result.build.why}; it must run your build and "
            "tests and exit 0 only when they pass"
        )
    elif result.build is not None:
        notes = "".join(f"; note: {note}" for note in result.build.notes)
        steps.append(f"check build.sh, {result.build.why}{notes}")
    if result.settings and f"{CONFIG_DIR}/{CONFIG_FILE}" not in result.created:
        for name, (value, why) in result.settings.items():
            steps.append(f"add {name} = {toml_value(value)} to {CONFIG_DIR}/{CONFIG_FILE}: {why}")
    steps += _check_steps(result)
    if result.untracked is not None and result.untracked.built:
        steps.append(
            f"add to .gitignore the build's outputs, which git does not ignore: {ignore_lines(result.untracked.built)}"
            "   (so that no commit takes them and the model never sees them)"
        )
    steps.append(_commit_step(result))
    steps += [
        f"write the change you want in {QUERY_FILE}",
        "./codeRollup.sh   (writes agent-config/codeRollup.txt, the codebase the model sees; rerun it after changes)",
        "export ANTHROPIC_API_KEY=...   (or put the key in agent-config/anthropic-api-key)",
        "code-commit   (or code-commit --dry-run first, to see the proposed diff without applying it)",
    ]
    return steps


def _check_steps(result: _Scaffold) -> list[str]:
    """What the check said to do: nothing when build.sh passes and ran tests."""
    record = None if result.checked is None else result.checked.record
    again = "code-commit check   (runs ./build.sh as a run will, in the sandbox"
    if record is None:
        return [f"{again}: it must pass now, and fail when a test fails)"]
    if record.diagnosis is not None:
        return [f"{record.diagnosis.fix}; then {again})"]
    if record.error is not None:
        return [f"{again}; it could not run now: {record.message})"]
    if not record.passed and result.build is not None and result.build.needs_network:
        # A fact init knows, not read from the build's output: no repair of the code can make it pass.
        return [f"build.sh fails now, and no repair could make it pass: {result.build.needs_network}; then {again})"]
    if not record.passed:
        return [
            "build.sh fails now: if that is the change you want made, a run will repair it; if not, fix build.sh "
            f"or the project first, then {again})"
        ]
    if record.ran_tests is None:
        return [f"make build.sh run your tests: its output shows no test runner's summary; then {again})"]
    return []


_IGNORE_FILE = GIT_FILES[0]  # .gitignore


def _commit_step(result: _Scaffold) -> str:
    """Commit what init made and the project's own untracked files, by name; never the build's outputs."""
    ours = (_IGNORE_FILE, BUILD_SCRIPT, ROLLUP_SCRIPT)
    changed = result.created + result.appended + ([_IGNORE_FILE] if result.ignored else [])
    made: list[str] = [name for name in ours if name in changed]
    found = result.untracked
    files = made + ([name for name in found.own if name not in made] if found is not None else [])
    why = "(the model may change only files git tracks)"
    if not files:
        return f"git commit what you changed {why}"
    return f"{add_command(files)}   {why}"


def rollup_script() -> str:
    """codeRollup.sh as this repository ships it: in the wheel, or at the root of a source checkout."""
    here = Path(__file__).resolve().parents[1]  # the code_commit package
    for candidate in (here / "templates" / "codeRollup.sh", here.parents[1] / "codeRollup.sh"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    raise FileNotFoundError(f"codeRollup.sh is missing from {here}; reinstall code-commit")


def _build_commands(guess: Guess) -> str:
    if guess.commands is None:
        return f"# No build could be guessed: {guess.why}.\n{_BUILD_PLACEHOLDER}"
    lines = [f"{guess.why[0].upper()}{guess.why[1:]}; adjust as needed.", *(f"Note: {note}." for note in guess.notes)]
    if guess.sandbox:
        lines.append(f"In the sandbox: {guess.sandbox}.")
    fill = textwrap.TextWrapper(100, initial_indent="# ", subsequent_indent="#   ", break_on_hyphens=False).fill
    comments = "".join(fill(line) + "\n" for line in lines)
    return comments + guess.commands


def _create(root: Path, name: str, text: str, mode: int, result: _Scaffold) -> None:
    try:
        fd = os.open(root / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        result.kept.append(name)
        return
    with open(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(root / name, mode & ~_umask())  # O_CREAT's mode is masked too; say so explicitly
    result.created.append(name)


def _ignore_agent_config(root: Path, result: _Scaffold) -> None:
    """Make git ignore agent-config/: create .gitignore, or append /agent-config to it unless git
    already ignores the folder (appended last, the line also wins over an earlier `!` line)."""
    path = root / ".gitignore"
    if not os.path.lexists(path):
        _create(root, ".gitignore", IGNORE_LINES[0] + "\n", 0o644, result)
        return
    try:
        # Not through a symlink, which git does not read, nor from a FIFO, which would block.
        text = read_regular(path, IGNORE_FILE_BYTES, follow=False).decode("utf-8", "surrogateescape")
    except OSError as exc:
        why = "it is a symlink, which git does not read" if os.path.islink(path) else exc.strerror
        raise SetupError(
            f".gitignore cannot be used ({why}): make it a file with the line /agent-config, "
            "then run code-commit init again."
        ) from None
    if not gitignore_problems(root) or text.rstrip("\n").rpartition("\n")[2].rstrip(" \r") in IGNORE_LINES:
        result.kept.append(".gitignore")  # another line would change nothing: the setup check says what does
        return
    with open(path, "a", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(("" if text.endswith("\n") or not text else "\n") + IGNORE_LINES[0] + "\n")
    result.appended.append(".gitignore")


def _ignore_build_outputs(root: Path, folders: tuple[str, ...], result: _Scaffold) -> None:
    """Make git ignore the folders the guessed build.sh creates (CMake's build/, cargo's target/...):
    otherwise every build's generated files are changes the checks after a build read (exit 12 on
    CMake's files), the rollup shows them and a commit takes them. Only a folder git does not ignore
    already (git check-ignore says, from every ignore file); the user's lines are never touched, a line
    is appended, anchored at the root. Not for a folder where git tracks files (a project whose build/
    holds its own scripts): the line would hide every new file there from git, and from the model."""
    folders = tuple(folder for folder in folders if folder not in _tracked_folders(root, folders))
    exposed = not_ignored(root, [f"{folder}/" for folder in folders]) if folders else []
    if not exposed:
        return
    path = root / _IGNORE_FILE
    text = read_regular(path, IGNORE_FILE_BYTES, follow=False).decode("utf-8", "surrogateescape")
    lines = [f"/{folder}" for folder in exposed]  # `build/` as asked: its trailing / already says folder
    with open(path, "a", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(("" if text.endswith("\n") or not text else "\n") + "".join(f"{line}\n" for line in lines))
    result.ignored += lines


def _tracked_folders(root: Path, folders: tuple[str, ...]) -> set[str]:
    """The folders in which git tracks a file; none outside a repository."""
    if not folders:
        return set()
    try:
        done = run_git(root, "ls-files", "-z", "--", *(f"{folder}/" for folder in folders), timeout=LIST_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    tracked = done.stdout.split(b"\0") if done.returncode == 0 else []
    return {folder for folder in folders if any(path.startswith(f"{folder}/".encode()) for path in tracked)}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def command(console: Any, no_check: bool) -> int:
    """`code-commit init`: the project a run from here would use, set up; each step said; build.sh run
    as `code-commit check` runs it, unless `no_check`; the next steps."""
    found = find_project_root(Path.cwd())
    if found.found:
        console.info(f"setting up {found.path}: {found.found}, the project a run from here would use")
    result = _init_project(found.path)
    for name in result.created:
        console.info(f"created  {name}")
    for name in result.appended:
        console.info(f"added    /agent-config to {name}")
    for line in result.ignored:
        console.info(f"added    {line} to .gitignore: build.sh creates that folder and git did not ignore it")
    for name in result.kept:
        console.info(f"kept     {name} (it exists; left as it is)")
    for name, (value, why) in result.settings.items():
        console.info(f"sandbox  {name} = {toml_value(value)}: {why}")
    placeholder = result.build is not None and result.build.commands is None  # it fails until written
    if not no_check and not placeholder:
        result.checked = init_check(console, found.path)
    result.untracked = untracked(found.path)
    console.info("next steps:")
    for number, step in enumerate(_next_steps(result), 1):
        console.info(f"  {number}. {step}")
    return EXIT.OK
