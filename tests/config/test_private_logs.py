"""Everything code-commit writes for itself under agent-config/ is private, whatever the umask:
files 0600, folders 0700. The logs hold prompts, answers and build output."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


@pytest.fixture
def no_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(config: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(config.lstat().st_mode)}
    for path in config.rglob("*"):
        found[str(path.relative_to(config))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_every_file_under_agent_config_is_0600_and_every_folder_0700_with_umask_000(
    tmp_path: Path, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, no_umask: None
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    git(root, "init", "-q")
    assert cli("init").exit_code == 0
    project = Project(root)
    project.write("agent-config/query.txt", "Make the build pass.\n")
    project.build_script("echo building\ntest -f fixed.txt\n")
    assert cli("rollup").exit_code == 0
    project.commit_all()
    api.reply("^^^wrong.txt\nnope\n^^^end\n")
    api.reply(FIX)
    api.reply(FIX)

    assert cli("--dry-run").exit_code == 0
    assert cli().exit_code == 0
    (root / "fixed.txt").unlink()
    answer = project.write("answer.txt", FIX)
    assert cli("apply", str(answer), "--build").exit_code == 0

    found = modes(root / "agent-config")
    kinds = {name for name in found if name.endswith(("run.log", "01-build.txt", "summary.json", "dry-run.patch"))}
    assert {n.rsplit("/", 1)[-1] for n in kinds} >= {"run.log", "01-build.txt", "summary.json"}
    assert {"code-commit.lock", "config.toml", "query.txt", "codeRollup.txt", "logs"} <= set(found)
    wrong = {
        name: oct(mode)
        for name, mode in found.items()
        if mode != (0o700 if (root / "agent-config" / name).is_dir() else 0o600)
    }
    assert wrong == {}


def test_an_existing_world_readable_logs_folder_is_made_private(
    project: Project, api: FakeAPI, cli, no_umask: None
) -> None:
    logs = project.root / "agent-config" / "logs"
    logs.mkdir(mode=0o755)
    api.reply(FIX)

    assert cli().exit_code == 0

    assert stat.S_IMODE(logs.stat().st_mode) == 0o700
    (run,) = project.run_dirs()
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
