"""docs/unattended.md's cron recipe and the GitHub Action's example workflow give the build what the build.sh that
`code-commit init` writes runs: the toolchain on PATH under cron's own PATH, and in CI the
environment build.sh names, made before the sandboxed build, which has no network to make it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from support import git
from venv_copies import install_copies

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "unattended.md").read_text()
CI_REPAIR = (ROOT / "docs" / "examples" / "workflows" / "ci-repair.yml").read_text()  # docs/github-action.md
CRON_PATH = "/usr/bin:/bin"  # what cron gives a job (and HOME, LOGNAME, SHELL)


def block(heading: str, language: str) -> str:
    rest = PAGE.split(f"\n{heading}\n", 1)[1]
    return rest.split(f"```{language}\n", 1)[1].split("\n```", 1)[0] + "\n"


def test_the_cron_recipe_finds_the_toolchains_a_build_runs_from_the_user_s_home(tmp_path: Path) -> None:
    """Before, the recipe kept cron's PATH: uv in ~/.local/bin, cargo in ~/.cargo/bin and nvm's node
    were not found, and every run spent its repairs on `uv: not found`."""
    home = tmp_path / "home"
    exports = [line for line in block("## A cron job", "sh").splitlines() if line.startswith("export PATH=")]
    nvm = re.search(r"\$HOME/(\.nvm/versions/node/[^/:\"]+/bin)", " ".join(exports))
    assert nvm is not None, "node from nvm is on the recipe's PATH"
    places = {"uv": ".local/bin", "cargo": ".cargo/bin", "node": nvm.group(1)}
    for tool, folder in places.items():
        (home / folder).mkdir(parents=True, exist_ok=True)
        (home / folder / tool).write_text("#!/bin/sh\n")
        (home / folder / tool).chmod(0o755)
    script = "\n".join([*exports, *(f'command -v {tool} || echo "{tool}: not found"' for tool in places)])

    found = subprocess.run(
        ["/bin/sh", "-c", script], env={"HOME": str(home), "PATH": CRON_PATH}, capture_output=True, text=True
    )

    assert found.stdout.split() == [str(home / folder / tool) for tool, folder in places.items()], found.stderr


def test_the_actions_recipe_makes_the_virtualenv_init_s_build_sh_runs(tmp_path: Path, cli, monkeypatch) -> None:
    """init, where the developer has .venv/, writes `.venv/bin/python -m pytest`; a fresh clone in CI has
    no .venv/, so the recipe makes it and installs the project there (before, it installed into the
    runner's Python, and build.sh found no .venv/bin/python)."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'pkg'\nversion = '1'\n")
    (project / "pkg" / "__init__.py").write_text("")
    (project / "tests").mkdir()
    (project / "tests" / "test_pkg.py").write_text("import pkg\n\n\ndef test_imports():\n    assert pkg\n")
    (project / ".gitignore").write_text(".venv/\n")
    venv.EnvBuilder(with_pip=False, symlinks=True).create(project / ".venv")
    install_copies(project / ".venv", "pytest")
    monkeypatch.chdir(project)
    assert cli("init", "--no-check").exit_code == 0
    command = (project / "build.sh").read_text().splitlines()[-1]
    assert command == ".venv/bin/python -m pytest -q -p no:cacheprovider"
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "the project")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(project), str(clone))
    assert not (clone / ".venv").exists()

    steps = [line.split("- run: ", 1)[1] for line in CI_REPAIR.splitlines()
             if "- run: python3 -m venv .venv" in line]  # fmt: skip
    assert len(steps) == 1 and '-e ".[test]"' in steps[0] and "setuptools" in steps[0]
    make, install = steps[0].split(" && ", 1)
    # The runner's `python -m venv`, here, without pip (ensurepip takes seconds); the install needs the
    # network (PyPI): its packages are copied.
    assert make == "python3 -m venv .venv"  # ubuntu-24.04 has python3, and no `python`
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", ".venv"], cwd=clone, check=True)
    assert install.startswith(".venv/bin/pip install ")
    install_copies(clone / ".venv", "pytest")  # `python -m pytest` imports the project from its folder

    ran = subprocess.run(["./build.sh"], cwd=clone, capture_output=True, text=True, env={**os.environ})
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


@pytest.mark.parametrize("tool", ["npm ci", "uv sync", "cargo fetch", "go mod download"])
def test_the_actions_recipe_names_how_each_toolchain_is_installed(tool: str) -> None:
    assert tool in CI_REPAIR
