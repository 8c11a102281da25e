"""Helpers shared by the tests: a temporary project and git."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

TEST_KEY = "sk-ant-test-0123456789abcdef-TESTKEY-Zq"


def write_file(root: Path, path: str, content: str | bytes) -> Path:
    """`content` written at `path` under `root`, its folders made."""
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode() if isinstance(content, str) else content)
    return target


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


# A project of one function and its test, as the test-guard tests use it: add() subtracts, so the
# test fails until the model fixes the code (or weakens the test).
CALC_TEST = """import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from calc import add


def test_add():
    assert add(2, 3) == 5


if __name__ == "__main__":
    test_add()
"""
CALC_BUGGY = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"


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


def pytest_calc(project: Project, python: str) -> Project:
    """The calc project with a build.sh that runs real pytest (`python -m pytest`), in one process:
    a test module imported first can patch `calc`, and pytest prints the summary the judge reads."""
    project.write("calc.py", CALC_BUGGY)
    project.write("tests/test_calc.py", CALC_TEST)
    project.write("pytest.ini", "[pytest]\ntestpaths = tests\npythonpath = .\n")
    project.write(".gitignore", "/agent-config\n__pycache__/\n.pytest_cache/\n")
    project.build_script(f'exec "{python}" -m pytest -q -p no:cacheprovider\n')
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{CALC_BUGGY}")
    project.commit_all()
    return project


OUTSIDE_TMP = Path(__file__).resolve().parents[1] / ".outside-tmp"  # ignored: see .gitignore


def outside_tmp(prefix: str) -> Path:
    """A new folder outside the host's /tmp (which the sandbox replaces with its own): in /var/tmp,
    or, where that is read-only (these tests running inside code-commit's own sandbox, as its own
    build does), in the checkout's ignored .outside-tmp/."""
    for base in (Path("/var/tmp"), OUTSIDE_TMP):
        try:
            base.mkdir(exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=prefix, dir=base))
        except OSError:
            continue
    raise OSError("no writable folder outside /tmp for the test")


def require_bwrap() -> None:
    """At a sandbox test module's top: bubblewrap must be here. In CI, and wherever
    REQUIRE_SANDBOX_TESTS is set, its absence fails the module (a security test that skips in CI is
    a missing test); elsewhere the module is skipped."""
    if shutil.which("bwrap") is not None:
        return
    if os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"):
        pytest.fail("bubblewrap (bwrap) is missing in CI: .ci/run installs it; these tests must run", pytrace=False)
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)
