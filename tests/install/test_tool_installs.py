"""docs/install.md: `uv tool install` and `pipx install`, from a checkout and from the built wheel, each
into a tool folder of its own, then the installed `code-commit demo` repairs the demo project.

Offline, as the whole suite is: the dependencies come from a wheelhouse packed from this test run's own
installed distributions (tests/wheelhouse.py), read through `--find-links` with every index off
(uv: `--offline --no-index`; pip under pipx: PIP_NO_INDEX), so a download attempt fails the install. The
user's own configuration (pip.conf, uv.toml, PIP_*, UV_* variables) is kept out: it could name an index."""

from __future__ import annotations

import fcntl
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from wheelhouse import wheelhouse

REPO = Path(__file__).resolve().parents[2]
BUILD_BACKEND = "hatchling"  # pyproject.toml's [build-system]: an install from a checkout builds the wheel with it
PIP = "pip"  # pipx puts pip in its shared libraries, from the index it is given


def runtime_requirements() -> list[str]:
    """code-commit's own dependencies, no extra: what a plain install fetches."""
    requires = importlib.metadata.requires("code-commit") or []
    return [Requirement(text).name for text in requires if "extra ==" not in text]


@pytest.fixture(scope="session")
def wheels(session_folder: Path) -> Path:
    folder = session_folder / "wheelhouse"
    with (session_folder / "wheelhouse.lock").open("wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.exists():
            wheelhouse(folder.with_suffix(".partial"), [*runtime_requirements(), BUILD_BACKEND, PIP]).rename(folder)
    return folder


def clean_env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    """A user's environment: the tool folder's bin first on PATH, no package tool's settings, no key,
    a home of its own (nothing read from or written to the real one)."""
    own = ("PIP_", "UV_", "PIPX_", "VIRTUAL_ENV", "ANTHROPIC_", "CODE_COMMIT_", "PYTHONPATH", "XDG_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(own)}
    env.update(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "home").mkdir()
    return env


def source(kind: str, wheel: Path) -> str:
    return str(REPO) if kind == "checkout" else str(wheel)


def uv_tool_install(tmp_path: Path, session_folder: Path, wheels: Path, what: str) -> tuple[dict[str, str], Path]:
    bin_dir, tools = tmp_path / "bin", tmp_path / "tools"
    env = clean_env(tmp_path, bin_dir)
    env.update(
        UV_TOOL_DIR=str(tools),
        UV_TOOL_BIN_DIR=str(bin_dir),
        UV_CACHE_DIR=str(session_folder / "uv-cache"),  # shared by the uv tests: the wheels unpacked once
        UV_NO_CONFIG="1",
        UV_PYTHON_DOWNLOADS="never",
    )
    uv = [sys.executable, "-m", "uv", "tool", "install", "--offline", "--no-index", "--find-links", str(wheels)]
    installed = subprocess.run(
        [*uv, "--python", sys.executable, what], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    return env, tools / "code-commit"


def pipx_install(tmp_path: Path, wheels: Path, what: str) -> tuple[dict[str, str], Path]:
    bin_dir, home = tmp_path / "bin", tmp_path / "pipx"
    env = clean_env(tmp_path, bin_dir)
    env.update(
        PIPX_HOME=str(home),
        PIPX_BIN_DIR=str(bin_dir),
        PIPX_MAN_DIR=str(tmp_path / "man"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheels),
        PIP_CACHE_DIR=str(tmp_path / "pip-cache"),
    )
    pipx = [sys.executable, "-m", "pipx", "install", "--python", sys.executable, what]
    installed = subprocess.run(pipx, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return env, home / "venvs" / "code-commit"


def assert_the_installed_demo_passes(tmp_path: Path, env: dict[str, str], venv: Path) -> None:
    (site,) = venv.glob("lib/python3*/site-packages")
    assert (site / "code_commit" / "__init__.py").is_file(), "installed, not linked to the checkout"
    assert all(str(REPO) not in pth.read_text() for pth in site.glob("*.pth")), "no editable install"
    target = tmp_path / "demo"
    done = subprocess.run(
        ["code-commit", "demo", "--dir", str(target)], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "the build passes: the scripted model's second answer repaired it." in done.stderr
    # The name on PATH is the tool folder's command, and it is this very program: the demo says to run it so.
    assert "run `code-commit init`" in done.stderr and "not on your PATH" not in done.stderr
    (run,) = (target / "agent-config" / "logs").iterdir()
    assert json.loads((run / "summary.json").read_text())["outcome"] == "passed"


@pytest.mark.parametrize("kind", ["checkout", "wheel"])
def test_uv_tool_install_then_the_demo_passes(
    tmp_path: Path, session_folder: Path, wheels: Path, wheel: Path, kind: str
) -> None:
    env, venv = uv_tool_install(tmp_path, session_folder, wheels, source(kind, wheel))
    assert (tmp_path / "bin" / "code-commit").resolve() == (venv / "bin" / "code-commit").resolve()
    assert_the_installed_demo_passes(tmp_path, env, venv)


@pytest.mark.parametrize("kind", ["checkout", "wheel"])
def test_pipx_install_then_the_demo_passes(tmp_path: Path, wheels: Path, wheel: Path, kind: str) -> None:
    env, venv = pipx_install(tmp_path, wheels, source(kind, wheel))
    assert (tmp_path / "bin" / "code-commit").resolve() == (venv / "bin" / "code-commit").resolve()
    assert_the_installed_demo_passes(tmp_path, env, venv)
