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


# (git config settings, the tracked file an answer rewrites, what the refusal says)
PROGRAMS = [
    ([("core.hooksPath", ".githooks")], ".githooks/pre-commit", "core.hooksPath"),
    ([("core.hooksPath", ".husky/_")], ".husky/pre-commit", "husky"),
    ([("filter.x.clean", "./scripts/clean.sh %f")], "scripts/clean.sh", "filter.x.clean"),
    ([("diff.x.textconv", "python3 tools/conv.py")], "tools/conv.py", "diff.x.textconv"),
    ([("merge.x.driver", "tools/merge %O %A %B")], "tools/merge", "merge.x.driver"),
    ([("core.fsmonitor", "tools/watch.sh")], "tools/watch.sh", "core.fsmonitor"),
    ([("core.sshCommand", "tools/ssh -v")], "tools/ssh", "core.sshcommand"),
    ([("core.pager", "tools/pager")], "tools/pager", "core.pager"),
    ([("credential.helper", "!tools/cred get")], "tools/cred", "credential.helper"),
    ([("alias.st", "!tools/st.sh")], "tools/st.sh", "alias.st"),
]


@pytest.mark.parametrize(("settings", "path", "named"), PROGRAMS, ids=[p[2] for p in PROGRAMS])
def test_an_answer_cannot_rewrite_a_program_git_runs(
    project: Project, cli, settings: list[tuple[str, str]], path: str, named: str
) -> None:
    """A tracked, executable hook in the core.hooksPath folder (the exec bit kept by the apply), a
    tracked script git's configuration runs as a filter, a driver, an editor: the user's next git
    command would run what the answer wrote, outside any sandbox, before any review."""
    project.write(path, "#!/bin/sh\nexit 0\n", mode=0o755)
    project.commit_all()
    for key, value in settings:
        git(project.root, "config", key, value)

    result = cli("apply", "--json", "-", input=f"^^^{path}\n#!/bin/sh\ntouch /tmp/pwned\n^^^end\n")

    assert result.exit_code == 7, result.output
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "guard" and problem["path"] == path
    assert named in problem["message"] and "next git command would run" in problem["message"]
    assert project.read(path) == "#!/bin/sh\nexit 0\n"


def test_a_new_hook_in_the_hooks_folder_is_refused_and_its_neighbours_are_not(project: Project, cli) -> None:
    git(project.root, "config", "core.hooksPath", "hooks")
    refused = cli("apply", "-", input="^^^hooks/post-checkout\ntouch /tmp/pwned\n^^^end\n")
    assert refused.exit_code == 7 and "core.hooksPath" in refused.output
    written = cli("apply", "-", input="^^^hooks-doc/README.md\nabout the hooks\n^^^end\n")
    assert written.exit_code == 0, written.output
