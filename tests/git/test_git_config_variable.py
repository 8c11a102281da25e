"""GIT_CONFIG makes `git config` (and only it) read one file instead of the repository's own
configuration: the guard would read core.excludesFile and core.ignoreCase from a file git status
never reads, and write a file git ignores. It is removed from code-commit's git calls."""

from __future__ import annotations

from pathlib import Path

from support import Project, git


def test_git_config_in_the_environment_never_hides_the_repository_s_excludes_file(
    project: Project, cli, tmp_path: Path
) -> None:
    excludes = tmp_path / "excludes"
    excludes.write_text("notes.txt\n")
    git(project.root, "config", "core.excludesFile", str(excludes))
    empty = tmp_path / "empty-config"
    empty.write_text("")
    answer = project.write("answer.txt", "^^^notes.txt\nhidden from git status\n^^^end\n")

    result = cli("apply", str(answer), env={"GIT_CONFIG": str(empty)})

    assert result.exit_code == 7, result.stdout + result.stderr
    assert not (project.root / "notes.txt").exists()
