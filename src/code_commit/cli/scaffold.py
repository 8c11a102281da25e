"""`code-commit init`: the files a project needs, created only where absent.

Never overwrites: every file is created with O_EXCL, so even a file that appears meanwhile is
kept. The one change to an existing file is appending the `/agent-config` line to .gitignore,
which code-commit requires anyway.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.cli.build_guess import Guess, guess_build
from code_commit.cli.config_report import template as config_template
from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE, IGNORE_LINES, QUERY_FILE
from code_commit.errors import SetupError
from code_commit.files.owner_only import FILE_MODE, make_private_dirs
from code_commit.files.setup_files import IGNORE_FILE_BYTES, read_regular
from code_commit.run.workspace import QUERY_PLACEHOLDER, gitignore_problems

QUERY_TEMPLATE = f"""{QUERY_PLACEHOLDER}

Write here, in plain words, the change you want: a bug to fix, a feature to add, a failing test
to make pass. Be as specific as with a colleague: name the files, functions and behaviour you
expect. code-commit sends this text with the whole codebase (agent-config/codeRollup.txt) and
then repairs the build with up to three more queries while ./build.sh fails.
"""

BUILD_PLACEHOLDER = 'echo "build.sh: put your build and test commands here (see the comments in build.sh)" >&2\nexit 1'

BUILD_TEMPLATE = """#!/bin/sh
# build.sh: code-commit's judge. It must exit 0 exactly when the project builds and its tests pass.
# code-commit runs it from the project root after every change, with stdin from /dev/null and no
# API keys in its environment, kills it (and everything it started) after build_timeout seconds
# (30 minutes by default), and shows its output to the model when it fails. The model can never
# change this file.
set -eu
cd "$(dirname "$0")"

{commands}
"""


@dataclass
class Scaffold:
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    build: Guess | None = None  # how build.sh was guessed, when init wrote it


def init_project(root: Path) -> Scaffold:
    result = Scaffold()
    try:
        make_private_dirs(root / CONFIG_DIR)
    except FileExistsError:  # exist_ok covers a folder: something else is there
        raise SetupError(
            f"{CONFIG_DIR} exists and is not a directory: code-commit keeps its inputs, keys and logs in "
            f"{CONFIG_DIR}/; move it away and run code-commit init again."
        ) from None
    _create(root, QUERY_FILE, QUERY_TEMPLATE, FILE_MODE, result)
    _create(root, f"{CONFIG_DIR}/{CONFIG_FILE}", config_template(), FILE_MODE, result)
    _ignore_agent_config(root, result)
    guess = guess_build(root)
    _create(root, "build.sh", BUILD_TEMPLATE.format(commands=_build_commands(guess)), 0o755, result)
    if "build.sh" in result.created:
        result.build = guess
    _create(root, "codeRollup.sh", rollup_script(), 0o755, result)
    return result


def next_steps(root: Path, result: Scaffold) -> list[str]:
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
        steps.append(
            f"check build.sh, {result.build.why}{notes}. Run ./build.sh: it must pass now, and exit non-zero "
            "when a test fails"
        )
    steps += [
        "git add -A && git commit   (the model may change only files git tracks: commit the project's files, "
        "build.sh and codeRollup.sh first)",
        f"write the change you want in {QUERY_FILE}",
        "./codeRollup.sh   (writes agent-config/codeRollup.txt, the codebase the model sees; rerun it after changes)",
        "export ANTHROPIC_API_KEY=...   (or put the key in agent-config/anthropic-api-key)",
        "code-commit   (or code-commit --dry-run first, to see the proposed diff without applying it)",
    ]
    return steps


def rollup_script() -> str:
    """codeRollup.sh as this repository ships it: in the wheel, or at the root of a source checkout."""
    here = Path(__file__).resolve().parents[1]  # the code_commit package
    for candidate in (here / "templates" / "codeRollup.sh", here.parents[1] / "codeRollup.sh"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    raise FileNotFoundError(f"codeRollup.sh is missing from {here}; reinstall code-commit")


def _build_commands(guess: Guess) -> str:
    if guess.commands is None:
        return f"# No build could be guessed: {guess.why}.\n{BUILD_PLACEHOLDER}"
    notes = "".join(f"# Note: {note}.\n" for note in guess.notes)
    return f"# {guess.why[0].upper()}{guess.why[1:]}; adjust as needed.\n{notes}{guess.commands}"


def _create(root: Path, name: str, text: str, mode: int, result: Scaffold) -> None:
    try:
        fd = os.open(root / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        result.kept.append(name)
        return
    with open(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(root / name, mode & ~_umask())  # O_CREAT's mode is masked too; say so explicitly
    result.created.append(name)


def _ignore_agent_config(root: Path, result: Scaffold) -> None:
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
