"""Planning (verification before any write) and the all-or-nothing apply."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from code_commit import apply as apply_module
from code_commit.apply import ApplyFailed, Change, apply_plan, plan_changes
from code_commit.edits import DeleteFile, WriteFile
from code_commit.errors import AnswerRefused
from code_commit.guard import Guard


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "keep.txt").write_text("same\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho old\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "old.txt").write_text("old\n")
    return tmp_path


def snapshot(root: Path) -> dict[str, tuple[bytes, int] | None]:
    result: dict[str, tuple[bytes, int] | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        result[rel] = None if path.is_dir() else (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return result


def test_plan_is_the_net_effect_in_answer_order(root: Path) -> None:
    edits = [
        WriteFile("new.txt", "1\n"),
        WriteFile("new.txt", "2\n"),
        WriteFile("keep.txt", "same\n"),
        WriteFile("gone.txt", "x\n"),
        DeleteFile("gone.txt"),
        DeleteFile("never-existed.txt"),
        DeleteFile("old.txt"),
    ]
    plan = plan_changes(root, edits, Guard(root))
    assert plan.changes == (Change("new.txt", b"2\n"), Change("old.txt", None))
    assert plan.final == {
        "new.txt": b"2\n",
        "keep.txt": b"same\n",
        "gone.txt": None,
        "never-existed.txt": None,
        "old.txt": None,
    }
    assert plan.missing_deletes == ("gone.txt", "never-existed.txt")


def test_refusal_lists_every_refused_path_and_writes_nothing(root: Path) -> None:
    before = snapshot(root)
    edits = [
        WriteFile("fine.txt", "ok\n"),
        WriteFile("build.sh", "x\n"),
        DeleteFile(".gitignore"),
        WriteFile("../x", ""),
    ]
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, edits, Guard(root))
    assert len(caught.value.reasons) == 3
    assert all(any(p in r for r in caught.value.reasons) for p in ("'build.sh'", "'.gitignore'", "'../x'"))
    assert snapshot(root) == before


def test_apply_writes_creates_parents_keeps_modes_and_deletes(root: Path) -> None:
    plan = plan_changes(
        root,
        [WriteFile("run.sh", "#!/bin/sh\necho new\n"), WriteFile("a/b/c.txt", "deep\n"), DeleteFile("old.txt")],
        Guard(root),
    )
    apply_plan(root, plan)
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho new\n"
    assert os.access(root / "run.sh", os.X_OK)
    assert (root / "a/b/c.txt").read_text() == "deep\n"
    assert not (root / "old.txt").exists()
    assert not [p for p in root.rglob(".code-commit-*")], "no temp file is left behind"


@pytest.mark.parametrize("fail_at", range(4))
def test_a_failure_at_any_step_restores_everything(root: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int) -> None:
    edits = [
        WriteFile("run.sh", "changed\n"),
        WriteFile("new/dir/file.txt", "new\n"),
        DeleteFile("old.txt"),
        WriteFile("keep.txt", "changed too\n"),
    ]
    plan = plan_changes(root, edits, Guard(root))
    before = snapshot(root)
    steps = {"n": 0}
    real_replace, real_unlink = os.replace, Path.unlink

    def count() -> None:
        if steps["n"] == fail_at:
            steps["n"] += 1
            raise OSError(28, "No space left on device")
        steps["n"] += 1

    def failing_replace(src: str, dst: str) -> None:
        count()
        real_replace(src, dst)

    def failing_unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name == "old.txt":
            count()
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(apply_module.os, "replace", failing_replace)
    monkeypatch.setattr(Path, "unlink", failing_unlink)
    with pytest.raises(ApplyFailed, match="No space left"):
        apply_plan(root, plan)
    monkeypatch.undo()
    assert snapshot(root) == before
