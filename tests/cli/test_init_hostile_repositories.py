"""The audit of `code-commit init`'s build guess on hostile or careless repositories: what it reads to
guess (tox.ini, setup.cfg, pyproject.toml, a Makefile, package.json) may be a FIFO, a huge sparse file,
or JSON nested past Python's recursion limit. init must neither hang, nor fill the memory, nor end in
an internal error: it guesses from what it can read, or says why it cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from code_commit.cli.build_guess import MAX_READ, guess_build

# Only for the subprocess that would otherwise wait on a FIFO forever; nothing is timed.
GUARD_SECONDS = 60


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project)
    return project


@pytest.mark.parametrize(
    ("marker", "fifo"), [("setup.py", "tox.ini"), ("setup.py", "setup.cfg"), ("pyproject.toml", "noxfile.py")]
)
def test_a_fifo_among_the_files_init_reads_never_blocks_it(root: Path, marker: str, fifo: str) -> None:
    """Before, `init` in a project with setup.py and a FIFO named tox.ini waited forever."""
    (root / marker).write_text("")
    os.mkfifo(root / fifo)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "code_commit", "init"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"code-commit init blocked on the FIFO at {fifo}")
    assert done.returncode == 0, done.stderr
    assert "python3 -m pytest -q -p no:cacheprovider" in (root / "build.sh").read_text()


def test_a_fifo_named_tox_ini_is_not_read_by_the_guess(root: Path) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    os.mkfifo(root / "tox.ini")
    os.mkfifo(root / "setup.cfg")
    guess = guess_build(root, which=lambda tool: None)
    assert guess.commands == "python3 -m pytest -q -p no:cacheprovider"


def test_package_json_nested_past_the_recursion_limit_is_no_guess_with_the_reason(root: Path, cli) -> None:
    """Before: `internal error: RecursionError`, exit 9."""
    (root / "package.json").write_text("[" * 100_000)
    result = cli("init")
    assert result.exit_code == 0, result.output
    assert "package.json cannot be read as JSON (it is nested too deeply)" in result.output
    assert "exit 1" in (root / "build.sh").read_text()  # the failing placeholder, as with no guess


def test_a_huge_sparse_manifest_is_read_only_up_to_the_bound(root: Path, cli, monkeypatch) -> None:
    """A 64 GiB sparse pyproject.toml and package.json: before, both were read whole (MemoryError, exit 9,
    or the machine's memory). Counted: the guess reads at most MAX_READ + 1 bytes of any file."""
    from code_commit.cli import build_guess as buildguess

    for name in ("pyproject.toml", "package.json", "Makefile"):
        with open(root / name, "wb") as fh:
            fh.truncate(64 * 2**30)
    read: list[int] = []
    real = buildguess._read

    def counted(folder: Path, name: str) -> bytes:
        data = real(folder, name)
        read.append(len(data))
        return data

    monkeypatch.setattr(buildguess, "_read", counted)
    result = cli("init")
    assert result.exit_code == 0, result.output
    assert read and max(read) <= MAX_READ + 1
    assert "python3 -m pytest -q -p no:cacheprovider" in (root / "build.sh").read_text()
    assert guess_build(root).commands is not None


def test_package_json_over_the_bound_is_no_guess_with_the_reason(root: Path) -> None:
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}, "pad": "x" * MAX_READ}))
    guess = guess_build(root)
    assert guess.commands is None and "too large to be a manifest" in guess.why


def test_a_test_script_with_shell_metacharacters_is_run_by_name_never_copied(root: Path, cli) -> None:
    """build.sh runs `npm test`, which runs the user's own script: the script's text never reaches build.sh."""
    script = 'echo pwned; $(touch /tmp/x) `id` "\nexit 0\n# '
    (root / "package.json").write_text(json.dumps({"scripts": {"test": script}}))
    result = cli("init")
    assert result.exit_code == 0, result.output
    text = (root / "build.sh").read_text()
    assert text.rstrip().endswith("npm test") and "pwned" not in text and "touch" not in text
