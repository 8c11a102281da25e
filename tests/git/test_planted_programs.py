"""No program from the project runs on the host: code-commit's own `git` and `bwrap` are looked up on
a PATH without relative entries and without any folder a build may write (the project, and the
`sandbox_writable` paths), in every command.

The attack: a build (sandboxed or not) writes a `git` into a folder on the user's PATH that it may
write: an activated `.venv/bin`, `node_modules/.bin`, the project itself (a relative or empty PATH
entry), a cache folder the settings let builds write. Before, the next `--dry-run`, `apply` or
`rollup` ran it on the host during setup, with the user's rights and the key in reach.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from code_commit.git.env import distrust, trusted_path

from fakeapi import FakeAPI
from support import Project
from support.sandbox import require_bwrap

require_bwrap()

REAL_BWRAP = shutil.which("bwrap")
FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PROGRAMS = ("git", "bwrap")


def plant(folder: Path, tag: str, markers: Path) -> None:
    """A `git` and a `bwrap` in `folder` that leave a marker, then do what the real ones do."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in PROGRAMS:
        real = shutil.which(name)
        assert real is not None
        script = folder / name
        script.write_text(f'#!/bin/sh\ntouch "{markers}/{tag}-{name}"\nexec {real} "$@"\n')
        script.chmod(0o755)


@pytest.fixture
def planted(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`git` and `bwrap` planted everywhere a PATH can lead into what a build may write, each first
    on PATH; returns the folder where their markers would appear."""
    markers = tmp_path / "markers"
    markers.mkdir()
    root = project.root
    cache = tmp_path / "cache"
    plant(root / ".venv" / "bin", "venv", markers)
    plant(root / "node_modules" / ".bin", "node-modules", markers)
    plant(root, "project", markers)  # what `.` and an empty entry find, run from the project
    plant(cache / "bin", "cache", markers)
    (tmp_path / "venv-link").symlink_to(root / ".venv" / "bin")  # outside, but leading inside
    project.write(".gitignore", "/agent-config\n/.venv\n/node_modules\n/git\n/bwrap\n")
    project.write("agent-config/config.toml", f'sandbox_writable = ["{cache}"]\n')
    project.commit_all()
    entries = [
        str(tmp_path / "venv-link"),
        str(root / ".venv" / "bin"),
        "node_modules/.bin",
        str(root / "node_modules" / ".bin"),
        ".",
        "",
        str(cache / "bin"),
        os.environ["PATH"],
    ]
    monkeypatch.setenv("PATH", os.pathsep.join(entries))
    return markers


def ran(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


def test_a_run_and_its_build_never_run_a_planted_git_or_bwrap(planted: Path, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["last_build"]["sandbox"] == "bubblewrap"
    assert ran(planted) == []


def test_a_dry_run_never_runs_a_planted_git(planted: Path, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli("--dry-run")
    assert result.exit_code == 0, result.stderr
    assert ran(planted) == []


@pytest.mark.parametrize(
    "args",
    [["apply", "--check"], ["apply"], ["apply", "--build"]],
    ids=["check", "apply", "build"],
)
def test_apply_never_runs_a_planted_git_or_bwrap(planted: Path, cli, tmp_path: Path, args: list[str]) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(FIX)
    result = cli(*args, str(answer))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert ran(planted) == []


@pytest.mark.parametrize("args", [["rollup"], ["config"], ["recover"], ["init"]])
def test_the_other_commands_never_run_a_planted_git_or_bwrap(planted: Path, cli, args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert ran(planted) == []


def test_config_names_the_real_bwrap_not_a_planted_one(planted: Path, cli) -> None:
    assert f"builds would run under: bubblewrap ({REAL_BWRAP})" in cli("config").stdout


def test_the_demo_never_runs_a_planted_git(planted: Path, cli, tmp_path: Path) -> None:
    result = cli("demo", "-q", "--dir", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert ran(planted) == []


def test_a_path_entry_a_build_repoints_through_a_symlink_is_looked_at_again(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where each PATH entry leads is remembered between writes to the tree (resolving them at every
    git call cost a millisecond each), and forgotten when a build ends: a build that repoints a
    symlink in the project, on the way to an entry that led outside it, runs no git of its own on the host."""
    markers = tmp_path / "markers"
    markers.mkdir()
    root = project.root
    (tmp_path / "outside" / "bin").mkdir(parents=True)
    plant(root / "planted" / "bin", "repointed", markers)
    (root / "way").symlink_to(tmp_path / "outside")
    (tmp_path / "entry").symlink_to(root / "way" / "bin")  # spelled outside, and leading outside
    project.write(".gitignore", "/agent-config\n/way\n/planted\n")
    project.build_script("test -f fixed.txt || exit 1\nrm way && ln -s planted way\n")
    project.commit_all()
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path / "entry"), os.environ["PATH"]]))
    assert trusted_path(os.environ["PATH"]).startswith(str(tmp_path / "entry")), "trusted before the build"
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert os.path.realpath(tmp_path / "entry") == str(root / "planted" / "bin"), "the build repointed it"
    assert ran(markers) == []


def test_trusted_path_keeps_only_absolute_entries_outside_every_distrusted_folder(tmp_path: Path) -> None:
    project, cache, elsewhere = tmp_path / "p", tmp_path / "cache", tmp_path / "usr-bin"
    for folder in (project / ".venv" / "bin", cache / "bin", elsewhere):
        folder.mkdir(parents=True)
    (tmp_path / "into").symlink_to(project / ".venv")
    distrust(project, cache)
    entries = [".", "", "bin", f"{project}/.venv/bin", f"{tmp_path}/into/bin", f"{cache}/bin", f"{project}/x/../y"]
    assert trusted_path(os.pathsep.join([*entries, str(elsewhere)])) == str(elsewhere)
    assert trusted_path(f"{tmp_path}/p2/bin") == f"{tmp_path}/p2/bin"  # a sibling whose name starts alike
