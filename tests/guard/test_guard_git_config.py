"""A file of the project that git reads as configuration is never written by an answer.

A team often tracks a shared git config and includes it from `.git/config`. A `core.fsmonitor` or
`core.hooksPath` line written there runs a program at the user's next `git status`, outside any
sandbox; an excludes file named by `core.excludesFile` hides files from it.
"""

from __future__ import annotations

import json

import pytest

from support import Project, git

TEAM_CONFIG = "tools/team.gitconfig"
EVIL = "^^^tools/team.gitconfig\n[core]\n\tfsmonitor = touch /tmp/pwned\n^^^end\n"


@pytest.mark.parametrize(
    "setting",
    [("include.path", f"../{TEAM_CONFIG}"), ("core.excludesFile", TEAM_CONFIG), ("core.attributesFile", TEAM_CONFIG)],
)
def test_an_answer_cannot_write_a_file_git_reads_as_configuration(
    project: Project, cli, setting: tuple[str, str]
) -> None:
    project.write(TEAM_CONFIG, "[user]\n\tname = Team\n")
    project.commit_all()
    git(project.root, "config", *setting)

    result = cli("apply", "--json", "-", input=EVIL)

    assert result.exit_code == 7, result.output
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "guard" and problem["path"] == TEAM_CONFIG
    assert "git reads as configuration" in problem["message"]
    assert project.read(TEAM_CONFIG) == "[user]\n\tname = Team\n"


def test_the_same_file_is_writable_when_git_does_not_read_it(project: Project, cli) -> None:
    project.write(TEAM_CONFIG, "[user]\n\tname = Team\n")
    project.commit_all()

    result = cli("apply", "-", input=EVIL)

    assert result.exit_code == 0, result.output
    assert "fsmonitor" in project.read(TEAM_CONFIG)
