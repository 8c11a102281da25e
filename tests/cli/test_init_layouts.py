"""`code-commit init` on real repository layouts: the build.sh it guesses runs as guessed.

Each test lays out a small project of one layout (or copies the vendored snapshot of a real
library from tests/fixtures/), runs `code-commit init` in-process, then runs the guessed build.sh
as code-commit would (a subprocess: the script is what is under test) and checks that it passes,
and, where it matters, that it fails when a test fails. Tools this machine has are run (python,
npm, cargo, make); for the others (uv, pnpm, go, tox) the guessed text is checked, with the note
that the tool is missing.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from typer.testing import Result

from code_commit.cli.build_guess import guess_build
from code_commit.rollup.writing import write_rollup

from shaped_projects import own_share

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, current; init's own check is off (sandbox = "off": init never runs a build
    unsandboxed): these tests run the guessed build.sh themselves (tests/builds/test_real_toolchains.py
    has init's check on real toolchains)."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CODE_COMMIT_SANDBOX", "off")
    return project


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def init(cli: object, root: Path) -> tuple[Result, str]:
    result = cli("init")  # type: ignore[operator]
    assert result.exit_code == 0, result.output
    return result, (root / "build.sh").read_text()


def build(root: Path) -> subprocess.CompletedProcess[str]:
    """./build.sh with this test environment's Python first on PATH: its python3 has pytest, as a
    developer's would."""
    env = {**os.environ, "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"}
    for tool in ("cargo", "node", "npm", "make"):
        found = find_tool(tool)
        if found:
            env["PATH"] += f":{Path(found).parent}"
    return subprocess.run(["./build.sh"], cwd=root, env=env, capture_output=True, text=True, timeout=600)


@functools.cache
def find_tool(tool: str) -> str | None:
    """A toolchain that works: on PATH, or where rustup puts cargo (a CI job's PATH may leave
    ~/.cargo/bin out, and rustup's cargo without its toolchain fails). Looked for once a session:
    `npm --version` alone costs 0.3 s of CPU, and every build() looked for all four tools."""
    places = (Path.home() / ".cargo" / "bin", Path("/root/.cargo/bin"), Path("/usr/local/cargo/bin"))
    for found in (shutil.which(tool), *(str(p / tool) for p in places)):
        if found and _is_file(found):
            works = subprocess.run([found, "--version"], capture_output=True, timeout=60, check=False)
            if works.returncode == 0:
                return found
    return None


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except PermissionError:  # /root/.cargo/bin, looked at by another user
        return False


def commands(script: str) -> list[str]:
    """The lines init guessed: build.sh's lines after `cd`, without comments."""
    body = script.split('cd "$(dirname "$0")"\n', 1)[1]
    return [line for line in body.splitlines() if line and not line.startswith("#")]


PASSING_TEST = "from pkg import double\n\n\ndef test_double():\n    assert double(2) == 4\n"


# Python


def test_a_real_src_layout_library_gets_a_build_that_passes_and_fails_when_a_test_fails(root: Path, cli) -> None:
    shutil.copytree(FIXTURES / "tomli", root, dirs_exist_ok=True)  # tomli: src/tomli, unittest-style tests

    result, script = init(cli, root)

    assert commands(script) == ["PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider"]
    assert "src layout" in script and "tox" in result.output, "says what it found, and that tox is not used"
    passed = build(root)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    parser = root / "src" / "tomli" / "_parser.py"
    parser.write_text(
        parser.read_text().replace(
            "def loads(", "def loads(__s, *, parse_float=float):\n    return {}\n\n\ndef _unused(", 1
        )
    )
    assert build(root).returncode != 0, "a broken parser fails the build"


def test_the_old_guess_fails_on_a_src_layout_and_the_new_one_does_not(root: Path, cli) -> None:
    write(
        root,
        {"pyproject.toml": "[project]\nname = 'pkg'\n", "src/pkg/__init__.py": "def double(x):\n    return 2 * x\n"},
    )
    write(root, {"tests/test_pkg.py": PASSING_TEST})
    (root / "build.sh").write_text("#!/bin/sh\npython3 -m pytest -q\n")
    (root / "build.sh").chmod(0o755)
    failed = build(root)
    assert failed.returncode != 0 and "No module named 'pkg'" in failed.stdout
    (root / "build.sh").unlink()

    _, script = init(cli, root)

    assert commands(script) == ["PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider"]
    assert build(root).returncode == 0


def test_a_flat_layout_runs_pytest_with_python3(root: Path, cli) -> None:
    write(
        root,
        {
            "setup.py": "from setuptools import setup\nsetup(name='pkg')\n",
            "pkg/__init__.py": "def double(x):\n    return 2 * x\n",
        },
    )
    write(root, {"tests/test_pkg.py": PASSING_TEST})

    _, script = init(cli, root)

    assert commands(script) == ["python3 -m pytest -q -p no:cacheprovider"]
    assert build(root).returncode == 0


def _project_venv(root: Path, name: str) -> None:
    """A virtualenv in the project with pytest installed, as `python -m venv .venv && pip install
    pytest` leaves one (the test environment's packages stand in for the install: no network)."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / name)
    site = next((root / name / "lib").glob("python3*/site-packages"))
    (site / "test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


@pytest.mark.parametrize("name", [".venv", "venv"])
def test_a_project_virtualenv_runs_the_tests_with_its_python(root: Path, cli, name: str) -> None:
    write(root, {"pyproject.toml": "[project]\nname = 'pkg'\n[tool.pytest.ini_options]\n", "uv.lock": "version = 1\n"})
    write(root, {"src/pkg/__init__.py": "def double(x):\n    return 2 * x\n", "tests/test_pkg.py": PASSING_TEST})
    _project_venv(root, name)

    result, script = init(cli, root)

    assert commands(script) == [f"PYTHONPATH=src {name}/bin/python -m pytest -q -p no:cacheprovider"]
    assert f"the project's virtualenv {name}/" in result.output
    assert build(root).returncode == 0


def test_uv_runs_the_tests_when_it_is_installed_and_is_named_when_it_is_not(root: Path) -> None:
    pyproject = "[project]\nname = 'pkg'\n[dependency-groups]\ndev = ['pytest']\n[tool.hatch.envs.default]\n"
    write(root, {"pyproject.toml": pyproject, "uv.lock": "version = 1\n"})

    with_uv = guess_build(root, which={"uv": "/usr/bin/uv"}.get)
    without = guess_build(root, which=lambda tool: None)

    assert (
        with_uv.commands == "uv run pytest -q -p no:cacheprovider"
        and with_uv.tools == ("uv",)
        and "uv sync" in with_uv.sandbox
    )
    assert without.commands == "python3 -m pytest -q -p no:cacheprovider"
    assert "uv.lock is there but uv is not installed: the build runs python3 as it is" in without.notes
    assert any("hatch test" in note and "hatch is not installed" in note for note in without.notes)


def test_a_uv_project_that_does_not_name_pytest_runs_unittest(root: Path) -> None:
    write(root, {"pyproject.toml": "[project]\nname = 'app'\n", "uv.lock": "version = 1\n", "tests/__init__.py": ""})

    guess = guess_build(root, which={"uv": "/usr/bin/uv"}.get)

    assert guess.commands == "uv run python -m unittest discover -s tests -t ." and guess.runner == "unittest"


def test_a_virtualenv_without_pytest_runs_unittest_and_says_so(root: Path) -> None:
    write(root, {"pyproject.toml": "[project]\nname = 'app'\n", "tests/test_app.py": "import unittest\n"})
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / ".venv")

    guess = guess_build(root)

    assert guess.commands == ".venv/bin/python -m unittest discover -s tests"
    assert "which has no pytest: unittest runs" in guess.why


@pytest.mark.parametrize(("files", "tool"), [({"tox.ini": "[tox]\n"}, "tox"), ({"noxfile.py": "import nox\n"}, "nox")])
def test_tox_and_nox_projects_run_pytest_directly_and_say_so(root: Path, cli, files: dict[str, str], tool: str) -> None:
    write(
        root, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "def double(x):\n    return 2 * x\n"}
    )
    write(root, {**files, "tests/test_pkg.py": PASSING_TEST})

    result, script = init(cli, root)

    assert commands(script) == ["python3 -m pytest -q -p no:cacheprovider"]
    assert f"the project uses {tool}: `{tool}` runs its whole test matrix" in script
    assert f"the project uses {tool}" in result.output
    assert build(root).returncode == 0


# Node


def test_npm_runs_the_test_script(root: Path, cli) -> None:
    write(root, {"package.json": json.dumps({"name": "p", "scripts": {"test": "node test.js", "build": "exit 3"}})})
    write(root, {"test.js": "const assert = require('assert');\nassert.strictEqual(1 + 1, 2);\n"})

    _, script = init(cli, root)

    assert commands(script) == ["npm test"]
    passed = build(root)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (root / "test.js").write_text("require('assert').strictEqual(1 + 1, 3);\n")
    assert build(root).returncode != 0


def test_a_package_json_with_only_a_build_script_gets_npm_run_build(root: Path, cli) -> None:
    write(root, {"package.json": json.dumps({"name": "p", "scripts": {"build": "node build.js"}})})
    write(root, {"build.js": "require('fs').writeFileSync('out.txt', 'built');\n"})

    _, script = init(cli, root)

    assert commands(script) == ["npm run build"]
    assert build(root).returncode == 0 and (root / "out.txt").read_text() == "built"


def test_npm_inits_placeholder_test_is_not_a_test_script(root: Path, cli) -> None:
    placeholder = 'echo "Error: no test specified" && exit 1'
    write(root, {"package.json": json.dumps({"name": "p", "scripts": {"test": placeholder}})})

    result, script = init(cli, root)

    assert "exit 1" in script and "npm test" not in script
    assert "no build could be guessed, as package.json has no test script (only npm init's placeholder" in result.output
    assert build(root).returncode == 1


@pytest.mark.parametrize(
    ("lock", "expected"),
    [
        ("pnpm-lock.yaml", ["[ -e node_modules ] || pnpm install --frozen-lockfile", "pnpm test"]),
        ("yarn.lock", ["[ -e node_modules ] || yarn install --frozen-lockfile", "yarn test"]),
        ("bun.lockb", ["[ -e node_modules ] || bun install --frozen-lockfile", "bun run test"]),
        ("package-lock.json", ["[ -e node_modules ] || npm ci", "npm test"]),
        ("npm-shrinkwrap.json", ["[ -e node_modules ] || npm ci", "npm test"]),
    ],
)
def test_the_lock_file_names_the_package_manager(root: Path, lock: str, expected: list[str]) -> None:
    write(root, {"package.json": json.dumps({"scripts": {"test": "jest"}, "devDependencies": {"jest": "^29"}})})
    write(root, {lock: ""})

    guess = guess_build(root, which=lambda tool: None)

    assert guess.commands is not None and guess.commands.splitlines() == expected
    assert f"{expected[1].split()[0]} is not installed" in guess.notes


@pytest.mark.parametrize(
    ("pin", "yarnrc", "lock", "install"),
    [
        ("yarn@4.18.1", "", "yarn.lock", "[ -e .pnp.cjs ] || yarn install --immutable"),
        ("yarn@4.18.1", "nodeLinker: node-modules\n", "yarn.lock", "[ -e node_modules ] || yarn install --immutable"),
        ("pnpm@10.34.0+sha512.abc", "", "pnpm-lock.yaml", "[ -e node_modules ] || pnpm install --frozen-lockfile"),
        # Another manager's lock file is no lock for the pinned one: its frozen install would fail at once.
        ("yarn@4.18.1", "", "package-lock.json", "[ -e .pnp.cjs ] || yarn install --no-immutable"),
        ("pnpm@10.34.0", "", "package-lock.json", "[ -e node_modules ] || pnpm install --no-frozen-lockfile"),
        ("pnpm; rm -rf ~", "", "package-lock.json", "[ -e node_modules ] || npm ci"),
    ],
)
def test_corepacks_pin_names_the_package_manager_and_only_a_known_one(
    root: Path, pin: str, yarnrc: str, lock: str, install: str
) -> None:
    package = {"scripts": {"test": "node --test"}, "dependencies": {"ms": "^2"}, "packageManager": pin}
    write(root, {"package.json": json.dumps(package), lock: "{}"})
    if yarnrc:
        write(root, {".yarnrc.yml": yarnrc})

    guess = guess_build(root, which=lambda tool: None)

    assert guess.commands is not None and guess.commands.splitlines()[0] == install
    assert "rm -rf" not in guess.commands


def test_a_package_json_that_is_not_json_is_no_guess_with_the_reason(root: Path) -> None:
    write(root, {"package.json": "{ not json"})

    guess = guess_build(root)

    assert guess.commands is None and guess.why.startswith("package.json cannot be read as JSON")


# Cargo, Go, make


def test_cargo_builds_and_tests_a_crate(root: Path, cli) -> None:
    write(root, {"Cargo.toml": '[package]\nname = "p"\nversion = "0.1.0"\nedition = "2021"\n'})
    write(
        root,
        {
            "src/lib.rs": "pub fn double(x: i32) -> i32 { 2 * x }\n\n"
            "#[test]\nfn doubles() { assert_eq!(double(2), 4); }\n"
        },
    )

    _, script = init(cli, root)

    assert commands(script) == ["cargo build --quiet", "cargo test --quiet"]
    if find_tool("cargo") is None:
        pytest.skip("no working cargo here: the guessed build.sh was checked, not run")
    passed = build(root)
    assert passed.returncode == 0, passed.stderr


def test_go_is_guessed_and_named_when_it_is_not_installed(root: Path) -> None:
    write(root, {"go.mod": "module example.com/p\n\ngo 1.22\n"})

    guess = guess_build(root, which=lambda tool: None)

    assert guess.commands == "go build ./...\ngo test ./..."
    assert guess.notes == ["go is not installed"]


def test_make_runs_the_test_target_or_else_the_default_one(root: Path, cli) -> None:
    write(root, {"Makefile": "all:\n\ttrue\n\ntest:\n\ttest -f ok.txt\n", "ok.txt": "ok\n"})

    _, script = init(cli, root)

    assert commands(script) == ["make test"]
    assert build(root).returncode == 0
    (root / "ok.txt").unlink()
    assert build(root).returncode != 0

    (root / "Makefile").write_text("all:\n\ttrue\n")
    assert guess_build(root).commands == "make"


def test_with_nothing_to_guess_from_the_placeholder_fails_and_init_says_why(root: Path, cli) -> None:
    write(root, {"notes.txt": "just notes\n"})

    result, script = init(cli, root)

    assert "# No build could be guessed: no file says how the project builds" in script
    assert "edit build.sh: no build could be guessed, as no file says how the project builds" in result.output
    assert build(root).returncode == 1


def test_the_next_steps_name_the_files_to_commit_before_the_rollup(root: Path, cli) -> None:
    write(root, {"pyproject.toml": "[project]\nname = 'app'\n", "app.py": "x = 1\n"})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)

    result, _ = init(cli, root)

    steps = [match.group(1) for match in re.finditer(r" +\d+\. (.*)$", result.output, re.MULTILINE)]
    commit = next(i for i, step in enumerate(steps) if step.startswith("git add -- "))
    rollup = next(i for i, step in enumerate(steps) if step.startswith("./codeRollup.sh"))
    assert commit < rollup, "committed before the rollup and the run"
    assert steps[commit].startswith("git add -- .gitignore build.sh codeRollup.sh app.py pyproject.toml && git commit")
    assert "git add -A" not in result.output


def test_the_next_steps_name_build_outputs_git_does_not_ignore_and_never_add_them(root: Path, cli) -> None:
    """Before: `git add -A`, which committed jsmn's four test binaries that `make test` had left."""
    shutil.copytree(FIXTURES / "jsmn", root, dirs_exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "jsmn"], cwd=root, check=True, env={**os.environ, "GIT_AUTHOR_NAME": "t"})
    for name in ("test_default", "test_strict"):  # as `make test` leaves them: executables
        (root / "test" / name).write_bytes(b"\x7fELF\x02\x01\x01" + bytes(200))
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0" * 16)
    write(root, {"NOTES.md": "the user's own untracked file\n"})

    result, _ = init(cli, root)

    steps = [match.group(1) for match in re.finditer(r" +\d+\. (.*)$", result.output, re.MULTILINE)]
    ignore = next(step for step in steps if step.startswith("add to .gitignore"))
    commit = next(step for step in steps if step.startswith("git add -- "))
    assert "/__pycache__/, /test/test_default, /test/test_strict" in ignore
    assert commit.startswith("git add -- .gitignore build.sh codeRollup.sh NOTES.md && git commit")
    assert "test_default" not in commit and "pycache" not in commit
    assert steps.index(ignore) < steps.index(commit)


# The rollup of the real library


def test_the_rollup_of_the_real_library_is_mostly_its_source_and_tests(root: Path) -> None:
    shutil.copytree(FIXTURES / "tomli", root, dirs_exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)  # the rollup shows what git tracks
    # Its own source and tests, and pyproject.toml, the code of its build.
    own = {p.relative_to(root).as_posix() for p in root.rglob("*.py")} | {"pyproject.toml"}

    result = write_rollup(root)

    text = (root / result.output).read_text()
    assert own_share(text.encode(), own) >= 0.80
    assert all(f"==> {path} <==" in text for path in own), "every source and test file is in"


# Compiled extensions (tests/cli/test_init_truth.py builds markupsafe's for real)


def test_a_setup_py_extension_is_rebuilt_with_the_environment_s_python_which_needs_setuptools(root: Path) -> None:
    setup = 'from setuptools import Extension, setup\nsetup(ext_modules=[Extension(name="pkg._fast", sources=[])])\n'
    write(root, {"setup.py": setup, "pkg/__init__.py": "", "uv.lock": "version = 1\n"})
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / ".venv")  # no setuptools in it

    with_uv = guess_build(root, which={"uv": "/usr/bin/uv"}.get)
    plain = guess_build(root, which=lambda tool: None)

    assert with_uv.commands is not None and with_uv.commands.splitlines()[:2] == [
        "rm -f pkg/_fast.*.so pkg/_fast.so",
        "uv run python setup.py -q build_ext --inplace --force",
    ]
    assert ".venv/ has no setuptools, which builds the extension" in " ".join(with_uv.notes)
    assert "`uv add --dev setuptools`" in " ".join(with_uv.notes) and with_uv.outputs == ("build",)
    assert plain.commands is not None and plain.commands.splitlines()[1].startswith(".venv/bin/python setup.py -q ")
    assert "`.venv/bin/pip install setuptools`" in " ".join(plain.notes)


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            {"pyproject.toml": '[build-system]\nbuild-backend = "maturin"\n'},
            "pyproject.toml builds the project with maturin",
        ),
        (
            {"pyproject.toml": '[build-system]\nbuild-backend = "mesonpy"\n'},
            "pyproject.toml builds the project with mesonpy",
        ),
        (
            {"package.json": json.dumps({"scripts": {"test": "node --test"}}), "binding.gyp": "{}"},
            "binding.gyp builds a native addon, which the test script does not rebuild",
        ),
    ],
)
def test_an_extension_build_sh_does_not_rebuild_is_said(root: Path, files: dict[str, str], said: str) -> None:
    write(root, files)

    guess = guess_build(root, which=lambda tool: None)

    assert any(note.startswith(said) for note in guess.notes), guess.notes
    assert guess.commands is not None and "build_ext" not in guess.commands
