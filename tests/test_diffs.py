"""Unified diffs of planned changes agree with what `git diff` and `git apply` understand."""

from __future__ import annotations

import subprocess
from pathlib import Path

from code_commit.apply import plan_changes
from code_commit.diffs import plan_diff
from code_commit.edits import DeleteFile, WriteFile
from code_commit.guard import Guard

from support import git


def test_plan_diff_applies_cleanly_with_git_apply(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "b.txt").write_text("no newline at end")
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "gone.txt").chmod(0o755)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    edits = [
        WriteFile("a.txt", "one\n2\x0cform feed\u2028kept\nthree\n"),
        WriteFile("b.txt", "now with newline\n"),
        WriteFile("new/c.txt", "new\n"),
        WriteFile("empty.txt", ""),
        DeleteFile("gone.txt"),
    ]
    plan = plan_changes(tmp_path, edits, Guard(tmp_path))
    patch = plan_diff(tmp_path, plan)
    assert "--- /dev/null\n+++ b/new/c.txt" in patch and "--- a/gone.txt\n+++ /dev/null" in patch
    assert "\\ No newline at end of file" in patch
    subprocess.run(["git", "apply", "--check", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    assert (tmp_path / "a.txt").read_text() == "one\n2\x0cform feed\u2028kept\nthree\n"
    assert (tmp_path / "b.txt").read_text() == "now with newline\n"
    assert (tmp_path / "new/c.txt").read_text() == "new\n"
    assert (tmp_path / "empty.txt").read_text() == ""
    assert not (tmp_path / "gone.txt").exists()
