"""A conservative choice (docs/security-tests.md): an ignore rule refuses a file even when git tracks it."""

from __future__ import annotations

from pathlib import Path

from code_commit.guard.policy import Guard

from support import git


def test_a_tracked_file_that_an_ignore_rule_matches_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("/agent-config\n*.log\n")
    (tmp_path / "kept.log").write_text("tracked although ignored\n")
    (tmp_path / "app.py").write_text("x\n")
    git(tmp_path, "add", "-f", ".gitignore", "kept.log", "app.py")
    guard = Guard(tmp_path)
    for check in (guard.check_write, guard.check_delete):
        refusal = check("kept.log")
        assert refusal is not None and "*.log" in refusal.rule, refusal
    assert guard.check_write("app.py") is None
