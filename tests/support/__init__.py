"""Helpers shared by the tests: a temporary project, git, what a run logged; the calc project the
test-guard tests use (calc.py); bubblewrap and folders outside /tmp for the sandbox tests (sandbox.py)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from code_commit.config.paths import CONFIG_DIR
from code_commit.run.baseline import STORE

TEST_KEY = "sk-ant-test-0123456789abcdef-TESTKEY-Zq"


def write_file(root: Path, path: str, content: str | bytes) -> Path:
    """`content` written at `path` under `root`, its folders made."""
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode() if isinstance(content, str) else content)
    return target


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@dataclass
class Project:
    root: Path

    def write(self, path: str, text: str, mode: int | None = None) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        if mode is not None:
            target.chmod(mode)
        return target

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def build_script(self, script: str) -> None:
        self.write("build.sh", "#!/bin/sh\n" + script, mode=0o755)

    def commit_all(self) -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", "snapshot")

    def forget_baseline(self) -> None:
        """As if `check` never ran: the next run builds the tree first, its baseline (00-build.txt)."""
        (self.root / CONFIG_DIR / STORE).unlink()

    def run_dirs(self) -> list[Path]:
        logs = self.root / "agent-config" / "logs"
        return sorted(logs.iterdir()) if logs.exists() else []


def count_file_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files an apply reads from now on, in order (its one read of an existing file)."""
    from code_commit.answer import planning

    reads: list[str] = []
    real = planning._read_existing

    def counted(path: Path) -> bytes | None:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(planning, "_read_existing", counted)
    return reads


def logged(project: Project) -> dict[str, str]:
    """What the project's one run logged: each file of its run folder, by name."""
    (run,) = project.run_dirs()
    return {p.name: p.read_text() for p in sorted(run.iterdir())}
