"""A project left as a kill -9 in the middle of an apply leaves it, for the recovery tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_commit.answer.caret_blocks import DeleteFile, WriteFile
from code_commit.answer.planning import plan_changes
from code_commit.apply.transaction import apply_plan
from code_commit.files import confined as tree_module
from code_commit.guard.policy import Guard

from support import Project


class Killed(BaseException):
    pass


def interrupt_an_apply(project: Project, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Leave the project as a kill -9 would: app.txt replaced, new/ created, the rest not yet done."""
    plan = plan_changes(
        project.root,
        [WriteFile("app.txt", "half\n"), WriteFile("new/made.txt", "x\n"), DeleteFile("build.txt")],
        Guard(project.root),
    )
    journal = project.root / "agent-config" / "logs" / "20260101-000000-000000" / "01-journal"
    journal.parent.mkdir(parents=True)
    real_rename = tree_module.Syscalls.rename
    renames = []

    def rename(*args, **kwargs):
        renames.append(args)
        if len(renames) == 4:  # the manifest, app.txt, made.txt: then the process is gone
            raise Killed
        return real_rename(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(tree_module.SYSCALLS, "rename", rename)
        patch.setattr(tree_module.SYSCALLS, "rmdir", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        patch.setattr(tree_module.SYSCALLS, "unlink", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            apply_plan(project.root, plan, journal)
    assert project.read("app.txt") == "half\n" and (project.root / "new/made.txt").exists()
    return journal
