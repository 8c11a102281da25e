"""The small ones: --version, diffs byte-exact with git's, plurals, config errors in plain words,
`demo -q` saying where the project is, and the demo's last line naming a command that runs."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

from code_commit import __version__
from code_commit.cli.demo import command_name

from fakeapi import FakeAPI
from support import Project, git
from support.record import valid_record

# Blank lines are most of a long file's lines: difflib's "autojunk" took them for junk, and showed an
# unchanged one between two changed lines as removed and added.
BIG = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(100))
CHANGED = BIG.replace("return 50\n\ndef f51", "return -50\n\ndef g51")


def test_version(cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"code-commit {__version__}\n"
    assert __version__ == importlib.metadata.version("code-commit"), "one version: pyproject's and the package's"


@pytest.fixture
def big(project: Project) -> Project:
    project.write("big.py", BIG)
    project.build_script("exit 0\n")
    project.commit_all()
    return project


def git_diff(project: Project) -> bytes:
    """What git diff shows, but for its index line (object ids: code-commit's diffs have none)."""
    out = subprocess.run(["git", "diff", "--no-color"], cwd=project.root, capture_output=True, check=True).stdout
    return b"".join(line for line in out.splitlines(keepends=True) if not line.startswith(b"index "))


def test_the_changes_diff_and_diff_flag_are_git_diff_byte_for_byte(big: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^big.py\n{CHANGED}^^^end\n")
    result = cli("--diff")
    assert result.exit_code == 0, result.stderr
    (run,) = big.run_dirs()
    logged = (run / "01-changes.diff").read_bytes()
    assert logged == git_diff(big)
    assert b"+    return -50\n \n-def f51():\n" in logged, "the unchanged blank line is context"
    assert logged.decode() in result.stderr


def test_a_dry_run_patch_is_git_diff_byte_for_byte(big: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^big.py\n{CHANGED}^^^end\n")
    result = cli("--dry-run")
    assert result.exit_code == 0, result.stderr
    big.write("big.py", CHANGED)
    assert result.stdout_bytes == git_diff(big)


def test_one_file_is_one_file(project: Project, api: FakeAPI, cli) -> None:
    only = cli("rollup")
    assert "rollup: 3 files included" in only.stderr
    git(project.root, "rm", "-q", "--cached", "app.txt", "build.sh")
    (project.root / "app.txt").unlink()
    (project.root / "build.sh").unlink()
    assert "rollup: 1 file included," in cli("rollup").stderr
    checked = cli("apply", "--check", "-", input="^^^x.txt\nx\n^^^end\n")
    assert "it writes 1 file, deletes 0" in checked.stdout


def test_a_run_says_one_file_and_one_call(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    result = cli()
    assert "applied: 1 file written, 0 deleted" in result.stderr
    assert "total for 1 call:" in result.stderr


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("config", 'max_tokens = "abc"', "bad value 'abc' for max_tokens: expected a whole number, like 32000."),
        ("config", 'build_timeout = "soon"', "bad value 'soon' for build_timeout: expected a number, like 1800.0."),
        ("config", "max_tokens = true", "bad value true for max_tokens: expected a whole number, like 32000."),
        ("env", "CODE_COMMIT_MAX_TOKENS=lots", "bad value 'lots' for max_tokens: expected a whole number"),
        ("env", "CODE_COMMIT_TIMEOUT=later", "bad value 'later' for timeout: expected a number, like 3600."),
        ("env", "CODE_COMMIT_KEEP_RUNS=1.5", "bad value '1.5' for keep_runs: expected a whole number, like 50."),
    ],
)
def test_config_errors_are_in_plain_words(project: Project, cli, where: str, value: str, message: str) -> None:
    env = {}
    if where == "config":
        project.write("agent-config/config.toml", value + "\n")
    else:
        name, _, text = value.partition("=")
        env[name] = text
    result = cli("config", env=env)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "invalid literal" not in result.stderr and "could not convert" not in result.stderr


def test_quiet_demo_still_says_where_the_project_is(tmp_path: Path, cli) -> None:
    target = tmp_path / "demo"
    result = cli("demo", "-q", "--dir", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [f"demo project: {target}"]
    (run,) = (target / "agent-config" / "logs").iterdir()
    summary = valid_record((run / "summary.json").read_text())
    assert (summary["provider"], summary["model"], summary["endpoint_host"]) == (
        "scripted",
        "scripted-demo-model",
        None,
    )


def test_the_demo_names_a_command_that_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = tmp_path / "venv" / "bin" / "code-commit"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert command_name(str(program)) == str(program), "not on PATH: the path it ran from"
    monkeypatch.setenv("PATH", f"{program.parent}{os.pathsep}/usr/bin:/bin")
    assert command_name(str(program)) == "code-commit", "on PATH: the name"
    module = command_name(str(Path(sys.modules["code_commit"].__file__).parent / "__main__.py"))
    assert module == f"{sys.executable} -m code_commit"
