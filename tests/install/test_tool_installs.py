"""docs/install.md: `uv tool install` and `pipx install`, from a checkout and from the built wheel, each
into a tool folder of its own, then the installed `code-commit demo` repairs the demo project.

Offline, as the whole suite is: the dependencies come from a wheelhouse packed from this test run's own
installed distributions (tests/wheelhouse.py), read through `--find-links` with every index off
(uv: `--offline --no-index`; pip under pipx: PIP_NO_INDEX), and every proxy variable points at a closed
port on 127.0.0.1, so a download attempt fails the install. The user's own configuration (pip.conf,
uv.toml, PIP_*, UV_* variables) is kept out: it could name an index."""

from __future__ import annotations

import fcntl
import importlib.metadata
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from wheelhouse import wheelhouse

REPO = Path(__file__).resolve().parents[2]
BUILD_BACKEND = "hatchling"  # pyproject.toml's [build-system]: an install from a checkout builds the wheel with it


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
            wheelhouse(folder.with_suffix(".partial"), [*runtime_requirements(), BUILD_BACKEND]).rename(folder)
    return folder


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that is bound but never listens: a connection to it is refused at once."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def clean_env(tmp_path: Path, bin_dir: Path, closed_port: int) -> dict[str, str]:
    """A user's environment: the tool folder's bin first on PATH, no package tool's settings, no key,
    a home of its own (nothing read from or written to the real one), and no way to the network."""
    own = ("PIP_", "UV_", "PIPX_", "VIRTUAL_ENV", "ANTHROPIC_", "CODE_COMMIT_", "PYTHONPATH", "XDG_")
    proxies = {*PROXY_VARIABLES, *(name.lower() for name in PROXY_VARIABLES), "NO_PROXY", "no_proxy"}
    env = {name: value for name, value in os.environ.items() if not name.startswith(own) and name not in proxies}
    env.update(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for name in PROXY_VARIABLES:
        env[name] = env[name.lower()] = f"http://127.0.0.1:{closed_port}"
    (tmp_path / "home").mkdir()
    return env


def source(kind: str, wheel: Path) -> str:
    return str(REPO) if kind == "checkout" else str(wheel)


def uv_offline(session_folder: Path, wheels: Path) -> dict[str, str]:
    """uv with no index and no configuration: the wheelhouse is all it may install from."""
    return {
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheels),
        "UV_NO_CONFIG": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_CACHE_DIR": str(session_folder / "uv-cache"),  # shared by the tests: the wheels unpacked once
    }


def uv_tool_install(env: dict[str, str], tmp_path: Path, what: str) -> Path:
    tools = tmp_path / "tools"
    env.update(UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(tmp_path / "bin"))
    offline = ["--offline", "--no-index", "--find-links", env["UV_FIND_LINKS"]]  # docs/install.md's, as flags
    uv = [sys.executable, "-m", "uv", "tool", "install", *offline, "--python", sys.executable, what]
    installed = subprocess.run(uv, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    return tools / "code-commit"


def pipx_install(env: dict[str, str], tmp_path: Path, backend: str, what: str) -> Path:
    """pipx 1.18 installs through uv where uv is installed, through pip elsewhere (pipx from a distribution's
    package): both are tested."""
    home = tmp_path / "pipx"
    env.update(
        PIPX_DEFAULT_BACKEND=backend,
        PIPX_HOME=str(home),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
        # pipx upgrades the pip of its shared libraries from the index when it first makes them: offline,
        # the pip Python bundles (ensurepip) stays, as docs/install.md says.
        PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE="1",
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=env.get("UV_FIND_LINKS", ""),
        PIP_CACHE_DIR=str(tmp_path / "pip-cache"),
    )
    # Under pip, bytecode is written as the modules are first imported instead: compiling every dependency
    # up front costs pip ten seconds here, and the test is about what is installed, not how fast it starts.
    no_compile = ["--pip-args=--no-compile"] if backend == "pip" else []
    pipx = [sys.executable, "-m", "pipx", "install", *no_compile, "--python", sys.executable, what]
    installed = subprocess.run(pipx, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert f'"backend": "{backend}"' in (home / "venvs" / "code-commit" / "pipx_metadata.json").read_text()
    return home / "venvs" / "code-commit"


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
    tmp_path: Path, session_folder: Path, wheels: Path, wheel: Path, closed_port: int, kind: str
) -> None:
    env = {**clean_env(tmp_path, tmp_path / "bin", closed_port), **uv_offline(session_folder, wheels)}
    venv = uv_tool_install(env, tmp_path, source(kind, wheel))
    assert (tmp_path / "bin" / "code-commit").resolve() == (venv / "bin" / "code-commit").resolve()
    assert_the_installed_demo_passes(tmp_path, env, venv)


# One test a backend: pip's takes ~15 s here (uv's ~3 s), so it installs the wheel, which needs no build.
@pytest.mark.parametrize("kind, backend", [("checkout", "uv"), ("wheel", "pip")])
def test_pipx_install_then_the_demo_passes(
    tmp_path: Path, session_folder: Path, wheels: Path, wheel: Path, closed_port: int, kind: str, backend: str
) -> None:
    env = {**clean_env(tmp_path, tmp_path / "bin", closed_port), **uv_offline(session_folder, wheels)}
    venv = pipx_install(env, tmp_path, backend, source(kind, wheel))
    assert (tmp_path / "bin" / "code-commit").resolve() == (venv / "bin" / "code-commit").resolve()
    assert_the_installed_demo_passes(tmp_path, env, venv)
