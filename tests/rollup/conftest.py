"""The rollup includes only files git tracks. Most rollup tests are about which tracked files go in and
how they are framed, so the files they write are tracked as a user's would be: `git add -A -N` runs
before each rollup lists its files (it never adds an ignored file, and it records the intent to add
without reading the content, so a FIFO or a sparse 100 GiB file is never read). A test about untracked files
says so with the `keep_untracked` marker."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from code_commit.rollup import writing
from code_commit.rollup.listing import Listing

from support import git, write_file


@pytest.fixture(autouse=True)
def _written_files_are_tracked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("keep_untracked"):
        return
    real = writing.list_files

    def list_files(root: Path) -> Listing:
        subprocess.run(["git", "add", "-A", "-N"], cwd=root, capture_output=True, check=False)
        return real(root)

    monkeypatch.setattr(writing, "list_files", list_files)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new git repository ignoring agent-config/, as the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write_file(root, ".gitignore", "/agent-config\n")
    monkeypatch.chdir(root)
    return root
