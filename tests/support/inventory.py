"""The inventory project (tests/e2e_project): a small real project whose unit tests fail, committed
with its rollup made, as a user would have it before a run."""

from __future__ import annotations

import shutil
from pathlib import Path

from code_commit.rollup.writing import write_rollup

from support import git

SAMPLE = Path(__file__).resolve().parents[1] / "e2e_project"


def inventory_project(root: Path) -> Path:
    shutil.copytree(SAMPLE, root)
    (root / "gitignore.template").rename(root / ".gitignore")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "broken on purpose")
    write_rollup(root)
    return root
