"""Helpers shared by the tests: a temporary project and git, and the record's schema."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported where a record is checked: most test processes never need it
    import jsonschema

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


# The commands whose --json prints the record (exits.COMMANDS names them; "run" is code-commit alone).
RECORD_COMMANDS = ("run", "apply", "check")


def record_schema() -> dict[str, Any]:
    """The record's JSON Schema, as the installed package ships it."""
    text = resources.files("code_commit.schemas").joinpath("record.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _record_validator() -> jsonschema.Draft202012Validator:
    import jsonschema

    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid_record(text: str) -> dict[str, Any]:
    """The record `text` holds (a --json stdout, a summary.json), failing the test with every way it
    breaks the schema the package ships."""
    record: dict[str, Any] = json.loads(text)
    errors = sorted(_record_validator().iter_errors(record), key=lambda error: list(map(str, error.absolute_path)))
    assert not errors, "the record breaks its schema:\n" + "\n".join(map(_said, errors))
    return record


def _said(error: jsonschema.ValidationError) -> str:
    """One error in a line: where, and why (an anyOf's by the branch that went deepest before it
    failed, rather than by the whole record it would quote)."""
    where = "/".join(map(str, error.absolute_path)) or "(top)"
    if not error.context:
        return f"- {where}: {error.message}"
    nearest = error
    while nearest.context:  # a null-or-object's failure is the object's, not "is not of type 'null'"
        nearest = max(nearest.context, key=lambda e: (e.validator != "type", len(e.absolute_path), len(e.schema_path)))
    at = "/".join(map(str, nearest.absolute_path))
    rule = "/".join(map(str, error.schema_path))
    return f"- {where}: is not valid under any of {rule} (nearest: {nearest.message}{' at ' + at if at else ''})"


def record_command(args: tuple[str, ...]) -> str | None:
    """The command a code-commit command line runs, when it prints the record (with --json): its first
    word that names a command, else a run; None when it prints no record."""
    from code_commit.exits import COMMANDS

    command = next((arg for arg in args if arg in COMMANDS), "run")
    return command if "--json" in args and command in RECORD_COMMANDS else None
