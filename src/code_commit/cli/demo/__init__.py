"""`code-commit demo`: the real loop repairs a small bundled project, with a scripted model.

The project (demo/project/) is copied to a new directory, made a git repository and rolled up
as a user would. The model is `llm.scripted.ScriptedProvider` playing demo/answers/ in order: a
wrong fix, then, after it has seen the failing build, the right one. Everything else is the
real pipeline: prompts, parser, guard, all-or-nothing apply, build.sh, logs, summary.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit.config.paths import QUERY_FILE
from code_commit.config.settings import Settings
from code_commit.console.output import Console
from code_commit.errors import SetupError
from code_commit.events.kinds import Observer, ignore
from code_commit.git.env import distrust, find_program, run_git

_HERE = Path(__file__).resolve().parent
PROJECT = _HERE / "project"
_ANSWERS = _HERE / "answers"
MODEL = "scripted-demo-model"
_PACE_SECONDS = 0.6  # how long each answer takes to stream in, on a terminal only
_GIT_IDENTITY = ("-c", "user.name=code-commit demo", "-c", "user.email=demo@example.invalid")
# A user's global commit hooks or signing setup must not stop the demo's one commit.
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false")


if TYPE_CHECKING:
    from code_commit.run.record import RunRecord


def run_demo(
    console: Console,
    target: Path | None = None,
    observe: Observer = ignore,
    ran: Callable[[RunRecord], None] | None = None,
) -> int:
    """The demo; `observe`: --events; `ran` is handed the run's record (the end event's values)."""
    root = prepare(target)
    console.info("code-commit demo: a scripted model repairs a small project whose unit tests fail.")
    console.info("No API key and no network: only the model is scripted; the loop, the guard and the build are real.")
    console.info(f"project: {root}")
    console.info(f"query: {(root / QUERY_FILE).read_text(encoding='utf-8').strip()}")

    from code_commit.llm.scripted import ScriptedProvider
    from code_commit.run.loop import execute
    from code_commit.run.signals import TimeLimit
    from code_commit.run.workspace import open_workspace

    answers = [p.read_text(encoding="utf-8") for p in sorted(_ANSWERS.glob("*.txt"))]
    provider = ScriptedProvider(answers, pace=_PACE_SECONDS if console.live_view else 0.0)
    settings = Settings(model=MODEL, diff=not console.quiet)  # the diffs show the repair; -q: only problems
    outcome = execute(
        open_workspace(root), None, settings, console, TimeLimit.of(settings), provider=provider, observe=observe
    )
    if ran is not None:
        ran(outcome)
    if outcome.error is not None:
        console.error(str(outcome.error))
    console.info(
        "the build passes: the scripted model's second answer repaired it."
        if outcome.passed
        else "the demo's build did not pass: see the logs."
    )
    console.info(f"see the change:  git -C {root} diff")
    console.info(f"logs (every prompt, answer and build output): {outcome.log_dir}")
    if console.quiet:  # -q shows only problems, but a demo that does not say where it is leaves nothing to see
        console.show(f"demo project: {root}\n")
    console.info(
        f"to use code-commit on your own project: cd into it, run `{command_name()} init`, and follow its steps."
    )
    if shutil.which("code-commit") is None:
        console.info(
            "code-commit is not on your PATH: activate the virtualenv it is installed in (or install it with "
            "pipx) to run it by name."
        )
    return outcome.exit_code


def command_name(argv0: str | None = None) -> str:
    """How this code-commit can be run again: `code-commit` when that name on PATH is this very
    program, else the program's own path, or `python -m code_commit` when it ran as a module."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    program = Path(argv0).resolve() if argv0 else None
    on_path = shutil.which("code-commit")
    if program is not None and on_path and Path(on_path).resolve() == program:
        return "code-commit"
    if program is not None and program.name == "code-commit" and program.is_file():
        return str(program)
    if program is not None and program.name == "__main__.py":
        return f"{sys.executable} -m code_commit"
    return "code-commit"


def prepare(target: Path | None) -> Path:
    """Copy the bundled project to `target` (new or empty) or a new temporary directory, commit it and roll it up."""
    if find_program("git") is None:
        raise SetupError("the demo needs git (code-commit works in git repositories); install git and try again")
    if target is None:
        root = Path(tempfile.mkdtemp(prefix="code-commit-demo-"))
    else:
        root = target.resolve()
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise SetupError(f"{root} is not an empty directory; give the demo a new or empty one")
        root.mkdir(parents=True, exist_ok=True)
    distrust(root)  # its build writes there: no git of its own runs on the host
    # copyfile, not copy2: an installed package's files may be read-only; the copy must not be.
    shutil.copytree(
        PROJECT, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"), copy_function=shutil.copyfile
    )
    for directory, _, _ in os.walk(root):
        os.chmod(directory, 0o755)
    (root / "gitignore.template").rename(root / ".gitignore")
    os.chmod(root / "build.sh", 0o755)
    from code_commit.cli.scaffold import rollup_script  # the project looks as `code-commit init` leaves one

    (root / "codeRollup.sh").write_text(rollup_script(), encoding="utf-8")
    os.chmod(root / "codeRollup.sh", 0o755)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, *_GIT_IDENTITY, *_NO_HOOKS, "commit", "-qm", "The demo project, tests failing")

    from code_commit.rollup.writing import write_rollup

    write_rollup(root)
    return root


def _git(root: Path, *args: str) -> None:
    done = run_git(root, *args)
    if done.returncode != 0:
        raise SetupError(f"git {' '.join(args)} failed in {root}: {done.stderr.decode('utf-8', 'replace').strip()}")
