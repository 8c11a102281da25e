"""The project code-commit runs in: its inputs and the setup checks made before any model call."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.keys import ApiKey
from code_commit.config.paths import (
    CONFIG_DIR,
    CONFIG_FILE,
    IGNORE_LINES,
    LOCK_FILE,
    LOGS_DIR,
    QUERY_FILE,
    ROLLUP_FILE,
)
from code_commit.config.protected import BUILD_SCRIPT
from code_commit.config.settings import Settings
from code_commit.credentials import KEY_FILES
from code_commit.errors import SetupError
from code_commit.files.setup_files import IGNORE_FILE_BYTES, INPUT_BYTES, SPECIAL, NotRegularFile, read_regular
from code_commit.git.env import run_git
from code_commit.logs.run_folder import JOURNAL_SUFFIX, RUN_LOG, SAVED_ORIGINAL

# The first line of the query template `code-commit init` writes: a query still holding it was never written.
QUERY_PLACEHOLDER = "(Replace this text with the change you want, then run code-commit.)"


@dataclass(frozen=True)
class Workspace:
    root: Path
    query: str
    codebase: str

    @property
    def config_dir(self) -> Path:
        return self.root / CONFIG_DIR


def check_setup(root: Path, settings: Settings, env: Mapping[str, str]) -> tuple[Workspace, ApiKey]:
    """Everything a run needs before the first model call; one SetupError lists every problem."""
    problems: list[str] = []
    workspace = key = None
    try:
        workspace = open_workspace(root)
    except SetupError as exc:
        problems.append(str(exc))
    try:
        from code_commit.llm.cloud import credentials

        key = credentials(root, settings, env)
    except SetupError as exc:
        problems.append(str(exc))
    if workspace is None or key is None:
        raise SetupError("\n".join(problems))
    return workspace, key


def open_workspace(root: Path) -> Workspace:
    """Read the inputs; raise one SetupError listing every problem found, with its fix."""
    problems = config_dir_problems(root)
    query = codebase = None
    if not problems:  # with agent-config/ not a folder, its files cannot be read either
        query = _read_input(root, QUERY_FILE, "write the change you want in it", problems)
        if query is not None and QUERY_PLACEHOLDER in query:
            problems.append(
                f"{QUERY_FILE} is still the template from code-commit init: write the change you want in it."
            )
        codebase = _read_input(root, ROLLUP_FILE, "generate it with ./codeRollup.sh", problems)
    problems.extend(gitignore_problems(root))
    problems.extend(build_script_problems(root, "code-commit judges every change by running ./build.sh"))
    if problems:
        raise SetupError("\n".join(problems))
    assert query is not None and codebase is not None
    return Workspace(root, query, codebase)


def config_dir_problems(root: Path) -> list[str]:
    """agent-config/ and agent-config/logs/ must be folders where they exist: code-commit writes in them."""
    logs = f"{CONFIG_DIR}/{LOGS_DIR}"
    kind = _kind(root / CONFIG_DIR)
    if kind not in (None, "a directory"):
        return [
            f"{CONFIG_DIR} is {kind}, not a directory: code-commit keeps its inputs, keys and logs in "
            f"{CONFIG_DIR}/; move it away, then run code-commit init."
        ]
    if os.path.islink(root / logs):  # recovery never follows one: it could lead anywhere
        return [
            f"{logs} is a symlink: code-commit keeps its logs and apply journals only in a real folder "
            "inside the project; replace it with a folder (or delete it)."
        ]
    kind = _kind(root / logs)
    if kind not in (None, "a directory"):
        return [
            f"{logs} is {kind}, not a directory: code-commit writes each run's logs in a folder under it; "
            "move it away or delete it."
        ]
    return []


def build_script_problems(root: Path, why: str) -> list[str]:
    """build.sh must be a file (or a symlink to one); say what it is when it is not."""
    kind = _kind(root / BUILD_SCRIPT)
    if kind is None:
        return [f"build.sh is missing: {why}; create it."]
    if kind != "a file":
        return [f"build.sh is {kind}, not a file: {why}; make it a script."]
    return []


def _kind(path: Path) -> str | None:
    """What is at `path`, following symlinks: "a file", "a directory", something else in words, or
    None when nothing is there."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symlink to a missing file" if os.path.islink(path) else None
    except NotADirectoryError:
        return None  # a parent is a file: reported for the parent
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a special file (a pipe, socket or device)"


def _read_input(root: Path, name: str, fix: str, problems: list[str]) -> str | None:
    try:
        text = read_regular(root / name, INPUT_BYTES).decode("utf-8")  # a FIFO would block a plain open forever
    except FileNotFoundError:
        problems.append(f"{name} is missing: {fix}.")
        return None
    except IsADirectoryError:
        problems.append(f"{name} is a directory, not a file: {fix}.")
        return None
    except UnicodeDecodeError:
        problems.append(f"{name} is not UTF-8 text: {fix}.")
        return None
    except NotRegularFile:
        problems.append(f"{name} is {SPECIAL}, not a file: replace it with a file; {fix}.")
        return None
    except OSError as exc:
        problems.append(f"{name} cannot be read ({exc.strerror}): {fix}.")
        return None
    if not text.strip():
        problems.append(f"{name} is empty: {fix}.")
        return None
    return text


_IGNORE_FIX = "add a line /agent-config so that keys and logs under agent-config/ are never committed"


def _written_paths() -> list[str]:
    """A file of each kind code-commit writes under agent-config/: git must ignore every one."""
    run = f"{CONFIG_DIR}/{LOGS_DIR}/20260101-000000-000000"
    return [
        f"{CONFIG_DIR}/",
        *(f"{CONFIG_DIR}/{name}" for name in sorted(KEY_FILES.values())),
        f"{CONFIG_DIR}/{CONFIG_FILE}",
        f"{CONFIG_DIR}/{LOCK_FILE}",
        QUERY_FILE,
        ROLLUP_FILE,
        f"{run}/{RUN_LOG}",
        f"{run}/01{JOURNAL_SUFFIX}/{SAVED_ORIGINAL.format(n=0)}",
    ]


def gitignore_problems(root: Path) -> list[str]:
    """Would git ignore agent-config/ and everything code-commit writes there? The root .gitignore
    must be a file git reads, with a /agent-config line, and git itself must say that it ignores
    each kind of file code-commit writes there (`git check-ignore`): no later line, nested rule or
    tracked file may let one be committed."""
    fix = _IGNORE_FIX
    path = root / ".gitignore"
    try:
        data = read_regular(path, IGNORE_FILE_BYTES, follow=False)  # a FIFO never blocks the check
    except FileNotFoundError:
        return [f".gitignore is missing: create it and {fix}."]
    except IsADirectoryError:
        return [f".gitignore is a directory, not a file: replace it with a file and {fix}."]
    except OSError as exc:
        if os.path.islink(path):
            return [
                ".gitignore is a symlink, and git does not read a .gitignore that is a symlink, so it ignores "
                f"nothing listed there: replace it with a file and {fix}."
            ]
        if isinstance(exc, NotRegularFile):
            return [f".gitignore is {SPECIAL}, not a file: replace it with a file and {fix}."]
        return [f".gitignore cannot be read ({exc.strerror}): {fix}."]
    lines = _ignore_lines(data)
    anchored = [n for n, line in enumerate(lines) if line in IGNORE_LINES]
    if not anchored:
        padded = [n for n, line in enumerate(lines) if line.strip() in IGNORE_LINES]
        if padded:
            return [
                f".gitignore line {padded[0] + 1} ({lines[padded[0]]!r}) does not match agent-config: git keeps "
                f"leading whitespace and trailing tabs as part of a pattern; {fix}."
            ]
        return [f".gitignore has no /agent-config line: {fix}."]
    try:
        exposed = not_ignored(root, _written_paths())
    except OSError as exc:  # GitUnanswered, or no temporary folder for git's throwaway directory
        return [f"git could not say whether it ignores {CONFIG_DIR}/ ({exc}); run git status to see why."]
    if not exposed:
        return []
    listed = ", ".join(exposed)
    negations = [n for n, line in enumerate(lines) if line.startswith("!") and n > anchored[-1]]
    if negations:
        later = ", ".join(f"line {n + 1}: {lines[n]}" for n in negations)
        return [
            f".gitignore has a /agent-config line, but a later line re-includes the folder ({later}), so git would "
            f"not ignore {listed} and they could be committed: remove that line, or put /agent-config after it."
        ]
    return [
        f".gitignore has a /agent-config line, but git does not ignore {listed} (git check-ignore says so: another "
        "ignore file re-includes them, or git tracks them), so they could be committed: make git ignore all of "
        f"{CONFIG_DIR}/ (git rm -r --cached {CONFIG_DIR} if it tracks files there)."
    ]


def not_ignored(root: Path, paths: list[str]) -> list[str]:
    """Which of `paths` git would not ignore, as `git check-ignore` says (a tracked file is never
    ignored). Outside a repository, or where git cannot read it (`guard.check_git_index` reports
    that), git answers from a throwaway git directory whose work tree is the project: its
    .gitignore files and the user's core.excludesFile. Raises GitUnanswered if git cannot answer."""
    import subprocess

    try:
        stdin = "".join(f"{p}\0" for p in paths).encode()
        done = run_git(root, "check-ignore", "--stdin", "-z", input=stdin, timeout=60, extra={"LC_ALL": "C"})
        if done.returncode in (0, 1):
            ignored = set(done.stdout.decode("utf-8", "surrogateescape").split("\0"))
            return [p for p in paths if p not in ignored]
    except (OSError, subprocess.SubprocessError):
        pass
    from code_commit.git.ignore import check_ignore, throwaway_git_dir

    with throwaway_git_dir() as git_dir:
        verdicts = check_ignore(root, paths, git_dir)
    return [p for p in paths if verdicts[p] is None]


def _ignore_lines(data: bytes) -> list[str]:
    """.gitignore's lines as git reads them: a BOM skipped, CRLF as LF, trailing spaces trimmed (not
    tabs, not leading whitespace)."""
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
    return [line.removesuffix("\r").rstrip(" ") for line in text.split("\n")]
