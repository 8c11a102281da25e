"""git's environment cannot give code-commit two views of one project: variables that point git at
another repository or index are removed from code-commit's own git calls, so the guard reads the
index of the repository it found on disk, the one whose files it checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_commit.git.env import REPOSITORY_VARIABLES, git_env

from support import Project, git


@pytest.fixture
def other_repo(tmp_path: Path) -> Path:
    """Another repository that tracks notes.txt."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("the other repository's notes\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "other")
    return other


@pytest.mark.parametrize("variable", ["GIT_INDEX_FILE", "GIT_DIR"])
def test_another_repositorys_index_in_the_environment_never_lets_an_untracked_file_be_overwritten(
    project: Project, cli, other_repo: Path, variable: str
) -> None:
    project.write("notes.txt", "precious, never added to git\n")
    answer = project.write("answer.txt", "^^^notes.txt\noverwritten\n^^^end\n")
    value = str(other_repo / ".git" / "index") if variable == "GIT_INDEX_FILE" else str(other_repo / ".git")

    result = cli("apply", str(answer), env={variable: value})

    assert result.exit_code == 7, result.stdout + result.stderr
    assert "not tracked by git" in result.stdout
    assert project.read("notes.txt") == "precious, never added to git\n"


def test_the_rollup_lists_the_project_s_own_files_whatever_git_dir_says(project: Project, cli, other_repo) -> None:
    # notes.txt is git-ignored here, but tracked in the other repository's index.
    project.write(".gitignore", "/agent-config\nnotes.txt\n")
    project.write("notes.txt", "ignored in this project\n")

    result = cli("rollup", env={"GIT_DIR": str(other_repo / ".git")})

    assert result.exit_code == 0, result.stderr
    rollup = project.read("agent-config/codeRollup.txt")
    assert "==> app.txt <==" in rollup
    assert "==> notes.txt <==" not in rollup and "ignored in this project" not in rollup


def test_git_env_removes_every_repository_variable() -> None:
    env = {name: "/elsewhere" for name in REPOSITORY_VARIABLES} | {"HOME": "/home/x", "GIT_AUTHOR_NAME": "A"}
    no_fsmonitor = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "false"}
    assert git_env(env, LC_ALL="C") == {"HOME": "/home/x", "GIT_AUTHOR_NAME": "A", "LC_ALL": "C"} | no_fsmonitor
