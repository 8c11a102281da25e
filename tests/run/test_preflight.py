"""No paid call that cannot succeed: a project git tracks nothing of stops before the first call;
untracked files the rollup shows the model are named in a warning."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from code_commit.rollup.framing import HEADER

from fakeapi import FakeAPI
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def rollup_of(*paths: str) -> str:
    return "".join((HEADER % path.encode()).decode() + "content\n" for path in paths)


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A new repository whose files were never added: what a new user has after git init."""
    root = tmp_path / "fresh"
    root.mkdir()
    project = Project(root)
    project.write(".gitignore", "/agent-config\n")
    project.write("agent-config/query.txt", "Make the build pass.\n")
    project.write("app.py", "print('hello')\n")
    project.write("agent-config/codeRollup.txt", rollup_of(".gitignore", "app.py", "build.sh"))
    project.build_script("test -f fixed.txt\n")
    git(root, "init", "-q")
    monkeypatch.chdir(root)
    return project


@pytest.mark.parametrize("flags", [[], ["--dry-run"]])
def test_a_project_with_no_tracked_file_stops_before_any_call(
    fresh: Project, api: FakeAPI, cli, flags: list[str]
) -> None:
    api.reply(FIX)
    result = cli(*flags, "--json")
    assert result.exit_code == 2, result.stderr
    assert api.requests == [], "no paid call"
    error = json.loads(result.stdout)["error"]
    assert "git tracks no file of this repository" in error and "git add <them> && git commit" in error
    assert not fresh.run_dirs()


def test_once_the_files_are_committed_the_run_goes_ahead(fresh: Project, api: FakeAPI, cli) -> None:
    fresh.commit_all()
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert "git does not track" not in result.stderr


def test_untracked_files_in_the_rollup_are_named_in_a_warning(project: Project, api: FakeAPI, cli) -> None:
    for name in ("new1.py", "new2.py", "new3.py", "new4.py", "new5.py"):
        project.write(name, "x = 1\n")
    project.write(
        "agent-config/codeRollup.txt",
        rollup_of("app.txt", "new1.py", "new2.py", "new3.py", "new4.py", "new5.py", "not-on-disk.py"),
    )
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    warning = (
        "the rollup shows 5 files git does not track, which the model will not be allowed to change: "
        "new1.py, new2.py, new3.py and 2 more; git add (or commit) what the task may need changed"
    )
    assert warning in result.stderr
    (run,) = project.run_dirs()
    assert warning in (run / "run.log").read_text()


def test_one_untracked_file_is_one_file(project: Project, api: FakeAPI, cli) -> None:
    project.write("notes.md", "n\n")
    project.write("agent-config/codeRollup.txt", rollup_of("app.txt", "notes.md"))
    api.reply(FIX)
    result = cli()
    assert "the rollup shows 1 file git does not track, which the model will not be allowed to change: notes.md;" in (
        result.stderr
    )


def test_the_setup_lists_the_tree_once_for_the_index_the_stale_check_and_the_untracked_check(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("notes.md", "n\n")
    project.write("agent-config/codeRollup.txt", rollup_of("app.txt", "notes.md"))
    before_the_call: list[list[str]] = []
    real = subprocess.run

    def counted(args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        if "ls-files" in args and not api.requests:
            before_the_call.append(list(args))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    api.reply(FIX)
    result = cli("--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "the rollup shows 1 file git does not track" in result.stderr, "the untracked check had the listing"
    assert len(before_the_call) == 1, before_the_call


def test_a_project_in_a_subfolder_of_a_repository_needs_its_own_tracked_files(
    tmp_path: Path, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = Project(tmp_path / "repo")
    top.write("README.md", "top\n")
    git(top.root, "init", "-q")
    top.commit_all()
    sub = Project(top.root / "sub")
    sub.write(".gitignore", "/agent-config\n")
    sub.write("agent-config/query.txt", "Make the build pass.\n")
    sub.write("agent-config/codeRollup.txt", rollup_of("app.py"))
    sub.write("app.py", "x\n")
    sub.build_script("test -f fixed.txt\n")
    monkeypatch.chdir(sub.root)
    result = cli()
    assert result.exit_code == 2
    assert "git tracks no file of sub/ in this repository" in result.stderr
    assert api.requests == []
