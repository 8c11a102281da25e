"""A task's project as a user would have it: a git repository of project/ with everything committed,
agent-config/query.txt holding the task's query, and the rollup as code-commit makes it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bench.harness import commit_fixture

from .task import Task

IGNORE_LINE = "/agent-config\n"


def prepare(task: Task, root: Path) -> Path:
    """Copy the task's broken project into `root` (new), commit it and roll it up; returns `root`."""
    from code_commit.cli.scaffold import rollup_script  # the project looks as `code-commit init` leaves one
    from code_commit.config.paths import QUERY_FILE
    from code_commit.git.env import distrust
    from code_commit.rollup.writing import write_rollup

    shutil.copytree(task.project_dir, root, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    distrust(root)  # its build writes there: no git of code-commit's own is looked up in it
    ignore = root / ".gitignore"
    before = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
    ignore.write_text(before + ("" if before.endswith("\n") or not before else "\n") + IGNORE_LINE, encoding="utf-8")
    (root / "codeRollup.sh").write_text(rollup_script(), encoding="utf-8")
    os.chmod(root / "codeRollup.sh", 0o755)
    commit_fixture(root, f"{task.id}: the broken snapshot")
    query = root / QUERY_FILE
    query.parent.mkdir(parents=True, exist_ok=True)
    query.write_text(task.query.strip() + "\n", encoding="utf-8")
    write_rollup(root)
    return root
