"""From a subdirectory, code-commit finds the project root as git finds its repository (the nearest
folder up with agent-config/, else the repository's top) and says so; it never creates a nested
agent-config/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from code_commit.config.paths import LOCK_FILE
from code_commit.run.baseline import STORE

from fakeapi import FakeAPI
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


@pytest.fixture
def sub(project: Project, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = project.root / "src" / "pkg"
    folder.mkdir(parents=True)
    (folder / "mod.py").write_text("x = 1\n")
    project.commit_all()
    monkeypatch.chdir(folder)
    return folder


def test_a_run_from_a_subdirectory_uses_the_root_and_says_so(project: Project, sub: Path, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert f"project root: {project.root} (the nearest folder above with agent-config/)" in result.stderr
    assert project.read("fixed.txt") == "fixed\n" and not (sub / "fixed.txt").exists()
    assert len(project.run_dirs()) == 1 and not (sub / "agent-config").exists()


def test_rollup_from_a_subdirectory_writes_the_roots_rollup(project: Project, sub: Path, cli) -> None:
    result = cli("rollup")
    assert result.exit_code == 0, result.stderr
    assert not (sub / "agent-config").exists(), "no nested agent-config/"
    assert "==> src/pkg/mod.py <==" in project.read("agent-config/codeRollup.txt")
    assert f"project root: {project.root}" in result.stderr


def test_rollup_output_is_relative_to_where_it_was_typed(project: Project, sub: Path, cli) -> None:
    assert cli("rollup", "--output", "here.txt").exit_code == 0
    assert "==> app.txt <==" in (sub / "here.txt").read_text()


def test_rollup_in_a_repository_with_no_agent_config_writes_at_its_top(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = Project(tmp_path / "repo")
    top.write("a/b/c.txt", "c\n")
    git(top.root, "init", "-q")
    top.commit_all()
    monkeypatch.chdir(top.root / "a" / "b")
    result = cli("rollup")
    assert result.exit_code == 0, result.stderr
    assert "(the top of the git repository; no agent-config/ below it)" in result.stderr
    assert (top.root / "agent-config" / "codeRollup.txt").is_file()
    assert not (top.root / "a" / "agent-config").exists() and not (top.root / "a" / "b" / "agent-config").exists()


def test_apply_from_a_subdirectory_reads_the_answer_there_and_applies_at_the_root(
    project: Project, sub: Path, cli
) -> None:
    (sub / "answer.txt").write_text("^^^src/pkg/mod.py\nx = 2\n^^^end\n")
    result = cli("apply", "answer.txt")
    assert result.exit_code == 0, result.output
    assert (sub / "mod.py").read_text() == "x = 2\n"
    assert len(project.run_dirs()) == 1


def test_config_from_a_subdirectory_reads_the_roots_config(project: Project, sub: Path, cli) -> None:
    project.write("agent-config/config.toml", 'model = "claude-from-root"\n')
    result = cli("config", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["settings"]["model"]["value"] == "claude-from-root"


def test_recover_from_a_subdirectory_uses_the_roots_lock(project: Project, sub: Path, cli) -> None:
    result = cli("recover")
    assert result.exit_code == 0
    assert not (sub / "agent-config").exists()
    assert (project.root / "agent-config" / "code-commit.lock").exists()


def test_a_run_whose_root_has_no_inputs_names_the_root(tmp_path: Path, api: FakeAPI, cli, monkeypatch) -> None:
    top = Project(tmp_path / "repo")
    top.write("deep/file.txt", "f\n")
    git(top.root, "init", "-q")
    top.commit_all()
    monkeypatch.chdir(top.root / "deep")
    result = cli()
    assert result.exit_code == 2
    assert "agent-config/query.txt is missing" in result.stderr
    assert f"(project root: {top.root} (the top of the git repository; no agent-config/ below it))" in result.stderr
    assert api.requests == []


def test_init_inside_a_project_sets_up_that_project_and_no_nested_agent_config(
    project: Project, sub: Path, cli
) -> None:
    own = {".git", STORE, LOCK_FILE}  # git's; the baselines init's check stores, and its lock
    before = {p: p.read_bytes() for p in project.root.rglob("*") if p.is_file() and not own & set(p.parts)}

    result = cli("init")

    assert result.exit_code == 0, result.output
    assert f"setting up {project.root}: the nearest folder above with agent-config/" in result.stderr
    assert not (sub / "agent-config").exists() and not (sub / ".gitignore").exists()
    assert [p for p, data in before.items() if p.read_bytes() != data] == [], "nothing is overwritten"


def test_init_from_a_subfolder_of_a_repository_sets_up_its_top(tmp_path: Path, cli, monkeypatch) -> None:
    """Before: init set up the subfolder and said to run git init, in a repository."""
    top = Project(tmp_path / "repo")
    top.write("pyproject.toml", "[project]\nname = 'x'\n")
    top.write("src/deep/mod.py", "x = 1\n")
    git(top.root, "init", "-q")
    top.commit_all()
    monkeypatch.chdir(top.root / "src" / "deep")

    result = cli("init")

    assert result.exit_code == 0, result.output
    assert f"setting up {top.root}: the top of the git repository" in result.stderr
    assert (top.root / "agent-config" / "config.toml").is_file() and (top.root / "build.sh").is_file()
    assert sorted(p.name for p in (top.root / "src" / "deep").iterdir()) == ["mod.py"]
    assert "git init" not in result.stderr


def test_the_search_stops_at_the_repository_top(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent-config/ above the repository belongs to another project."""
    (tmp_path / "agent-config").mkdir()
    inner = Project(tmp_path / "inner")
    inner.write("x.txt", "x\n")
    git(inner.root, "init", "-q")
    inner.commit_all()
    monkeypatch.chdir(inner.root)
    assert cli("rollup").exit_code == 0
    assert (inner.root / "agent-config" / "codeRollup.txt").is_file()
    assert not (tmp_path / "agent-config" / "codeRollup.txt").exists()
