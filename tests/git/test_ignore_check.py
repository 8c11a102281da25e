"""The setup's ignore check is git's own verdict: it passes only if git ignores agent-config/ and
every kind of file code-commit writes there, as `git check-ignore` says, not just the key file."""

from __future__ import annotations

import os
import subprocess

import pytest

from fakeapi import FakeAPI
from support import Project, git

COMMANDS = [[], ["apply", "-"]]


def git_ignores(project: Project, path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=project.root, check=False).returncode == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_a_symlinked_gitignore_fails_the_check_because_git_does_not_read_it(
    project: Project, api: FakeAPI, cli, command: list[str]
) -> None:
    project.write("ignore-rules", "/agent-config\n")
    (project.root / ".gitignore").unlink()
    os.symlink("ignore-rules", project.root / ".gitignore")
    assert not git_ignores(project, "agent-config/anthropic-api-key"), "git does not read it"

    result = cli(*command, input="^^^new.txt\nx\n^^^end\n")

    assert result.exit_code == 2
    assert ".gitignore is a symlink, and git does not read a .gitignore that is a symlink" in result.stderr
    assert api.requests == [] and project.run_dirs() == []


@pytest.mark.parametrize("command", COMMANDS)
def test_ignoring_only_the_key_file_is_not_enough(project: Project, api: FakeAPI, cli, command: list[str]) -> None:
    project.write(".gitignore", "/agent-config\n!/agent-config\n/agent-config/anthropic-api-key\n")
    assert git_ignores(project, "agent-config/anthropic-api-key")
    assert not git_ignores(project, "agent-config/logs/x/run.log")

    result = cli(*command, input="^^^new.txt\nx\n^^^end\n")

    assert result.exit_code == 2
    assert "a later line re-includes the folder (line 2: !/agent-config)" in result.stderr
    for exposed in ("agent-config/config.toml", "agent-config/codeRollup.txt", "agent-config/query.txt", "run.log"):
        assert exposed in result.stderr
    assert "agent-config/anthropic-api-key," not in result.stderr, "the key file is ignored: not listed"
    assert api.requests == [] and project.run_dirs() == []


def test_a_file_git_tracks_in_agent_config_fails_the_check(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", "max_repairs = 1\n")
    git(project.root, "add", "-f", "agent-config/config.toml")
    git(project.root, "commit", "-qm", "tracked by mistake")

    result = cli()

    assert result.exit_code == 2
    assert "git does not ignore agent-config/, agent-config/config.toml (git check-ignore" in result.stderr
    assert "git rm -r --cached agent-config" in result.stderr
    assert api.requests == []


def test_the_check_passes_when_git_ignores_everything(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0


def test_init_adds_no_line_that_would_change_nothing(project: Project, cli) -> None:
    project.write("agent-config/config.toml", "max_repairs = 1\n")
    git(project.root, "add", "-f", "agent-config/config.toml")

    result = cli("init")

    assert result.exit_code == 0
    assert project.read(".gitignore") == "/agent-config\n", "the check fails for the tracked file, not the line"
    assert "kept     .gitignore" in result.stderr


def test_init_will_not_append_through_a_symlinked_gitignore(project: Project, cli) -> None:
    project.write("ignore-rules", "*.pyc\n")
    (project.root / ".gitignore").unlink()
    os.symlink("ignore-rules", project.root / ".gitignore")

    result = cli("init")

    assert result.exit_code == 2
    assert ".gitignore cannot be used (it is a symlink, which git does not read)" in result.stderr
    assert project.read("ignore-rules") == "*.pyc\n"
