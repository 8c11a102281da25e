"""Real toolchains in the real sandbox: for each toolchain, a real small project set up on the host as
its user would (a virtualenv, `uv sync`, `npm install`, corepack's pnpm and yarn, `cargo fetch`),
then `code-commit init`, then its build as a run runs it. It passes, by default or with the setting
init wrote, and its output shows the tests ran.

No network: npm, pnpm and yarn install `ms` (tests/fixtures/packages) from a loopback registry;
cargo takes itoa from a local registry in CARGO_HOME. The user's home is a folder outside /tmp, as a
real one is (read-only to builds, not hidden with the host's /tmp). pnpm and yarn come from corepack's
cache, where .ci/run installs them (pinned by hash); Maven runs where ~/.m2 already has its plugins
(no Maven repository is reachable in CI), else it is skipped with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from code_commit.builds import diagnosis
from code_commit.cli.commit_advice import untracked

from npm_registry import NpmRegistry
from support import git
from support.sandbox import outside_tmp, require_bwrap
from venv_copies import install_copies

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PNPM, YARN = "pnpm@10.34.0", "yarn@4.18.1"  # the versions .ci/run installs into corepack's cache
BWRAP = shutil.which("bwrap")
REQUIRED = bool(os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"))
require_bwrap()


def tool(name: str, ci_installs: bool = True) -> str:
    """A toolchain's program, found as a user's shell finds it (rustup's cargo where rustup puts it);
    missing in CI is a failure where .ci/run installs it."""
    places = [Path(sys.executable).parent, Path.home() / ".cargo" / "bin", Path("/usr/local/cargo/bin")]
    for found in (shutil.which(name), *(str(place / name) for place in places)):
        if found and os.access(found, os.X_OK):
            return found
    if REQUIRED and ci_installs:
        pytest.fail(f"{name} is not installed: .ci/run installs it", pytrace=False)
    pytest.skip(f"{name} is not installed here")


@dataclass(frozen=True)
class Toolbox:
    """A user's machine: a home folder outside /tmp, their tools on PATH, a registry on loopback."""

    home: Path
    bin: Path  # on PATH first: the user's own tools (uv, corepack's shims)
    env: dict[str, str]
    registry: NpmRegistry


@pytest.fixture(scope="session")
def toolbox() -> Iterator[Toolbox]:
    base = outside_tmp("code-commit-toolchains-")  # outside the host's /tmp
    home, bin_dir = base / "home", base / "home" / "bin"
    bin_dir.mkdir(parents=True)
    real_home = Path.home()
    corepack = os.environ.get("COREPACK_HOME") or str(real_home / ".cache" / "node" / "corepack")
    with NpmRegistry([FIXTURES / "packages" / "ms-2.1.3.tgz"]) as registry:
        env = {
            "HOME": str(home),
            "XDG_CACHE_HOME": str(home / ".cache"),  # the project's sandbox cache goes there too
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or str(real_home / ".rustup"),
            "CARGO_HOME": str(home / ".cargo"),  # the user's, whatever CARGO_HOME the machine's CI sets
            "COREPACK_HOME": corepack,  # where corepack keeps pnpm and yarn: read-only to builds
            "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0",
            "COREPACK_ENABLE_AUTO_PIN": "0",
            "npm_config_registry": registry.url,
            "npm_config_update_notifier": "false",
            "npm_config_fund": "false",
            "npm_config_audit": "false",
            "YARN_NPM_REGISTRY_SERVER": registry.url.rstrip("/"),
            "YARN_UNSAFE_HTTP_WHITELIST": "127.0.0.1",
            "YARN_ENABLE_TELEMETRY": "0",
            "GOFLAGS": "-buildvcs=false",
            "MAVEN_OPTS": "-XX:TieredStopAtLevel=1",  # Maven's start-up, halved; it reads ~/.m2 from passwd
            "CODE_COMMIT_SANDBOX": "require",  # init's check and `check` run in bubblewrap, or fail
        }
        try:
            yield Toolbox(home, bin_dir, env, registry)
        finally:
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def user(toolbox: Toolbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Toolbox:
    """The toolbox's environment for this test; the project is the current folder."""
    for name, value in toolbox.env.items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return toolbox


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def host(*args: str, cwd: Path) -> str:
    """A step the user takes on the host, outside the sandbox."""
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def commit(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the project")


@dataclass(frozen=True)
class Initialised:
    output: str  # what init said
    commands: list[str]  # the lines it guessed into build.sh


def init(cli: object, root: Path) -> Initialised:
    """`code-commit init`, which ends by running build.sh as `check` does."""
    result = cli("init")  # type: ignore[operator]
    assert result.exit_code == 0, result.output
    body = (root / "build.sh").read_text().split('cd "$(dirname "$0")"\n', 1)[1]
    return Initialised(result.output, [line for line in body.splitlines() if line and not line.startswith("#")])


def passes(done: Initialised, runner: str, at_least: int = 1) -> None:
    """init's check passed in the sandbox and said its output shows at least `at_least` tests ran."""
    said = re.search(
        r"check: build passes \(build.sh exited with code 0 after [\d.]+ s\): it ran (\d+) \w+ \((.+)\)", done.output
    )
    assert said is not None and runner in said.group(2) and int(said.group(1)) >= at_least, done.output


def check(cli: object, *flags: str) -> dict[str, Any]:
    """`code-commit check --json`: the build as a run runs it, in the sandbox; its record."""
    result = cli(*flags, "check", "--json")  # type: ignore[operator]
    record: dict[str, Any] = json.loads(result.stdout)
    assert result.exit_code == record["exit_code"], result.output
    return record


# Python


def with_pytest(venv_dir: Path) -> None:
    install_copies(venv_dir, "pytest")


def test_pip_and_a_virtualenv_tomli(user: Toolbox, cli) -> None:
    root = Path.cwd()
    shutil.copytree(FIXTURES / "tomli", root, dirs_exist_ok=True)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / ".venv")
    with_pytest(root / ".venv")
    write(root, {".gitignore": ".venv/\n"})
    commit(root)

    done = init(cli, root)

    assert done.commands == ["PYTHONPATH=src .venv/bin/python -m pytest -q -p no:cacheprovider"]
    passes(done, "pytest", at_least=10)


def test_uv_run_with_the_projects_own_cache(user: Toolbox, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """uv locks its cache before anything: with the home folder read-only, `uv run` failed every time."""
    root = Path.cwd()
    shutil.copy2(tool("uv"), user.bin / "uv")  # a copy: this test run's environment may be under /tmp
    shutil.copytree(FIXTURES / "own" / "uv-calc", root, dirs_exist_ok=True)
    python = os.path.realpath(sys._base_executable)  # a real interpreter, not a shim
    host("uv", "sync", "--offline", "--python", python, cwd=root)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["uv run python -m unittest discover -s tests -t ."]
    passes(done, "unittest")
    monkeypatch.setenv("UV_CACHE_DIR", str(user.home / ".cache" / "uv"))  # the user's own: builds may only read it
    blocked = check(cli)
    assert blocked["outcome"] == "build_blocked" and blocked["diagnosis"]["kind"] == diagnosis.READ_ONLY
    assert "unset UV_CACHE_DIR" in blocked["diagnosis"]["fix"] and blocked["error"].startswith("uv could not write")


# Node: npm, and pnpm and yarn through corepack


def node_project(root: Path, **fields: str) -> None:
    shutil.copytree(FIXTURES / "own" / "node-duration", root, dirs_exist_ok=True)
    package = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps(package | fields, indent=2) + "\n")


def corepack_shim(name: str, version: str, folder: Path) -> None:
    """corepack's shim for the package manager, as `corepack enable` makes it, if corepack has it."""
    if not (Path(os.environ["COREPACK_HOME"]) / "v1" / name / version).is_dir():
        message = f"corepack has no {name} {version} in {os.environ['COREPACK_HOME']}: .ci/run installs it"
        pytest.fail(message, pytrace=False) if REQUIRED else pytest.skip(message)
    folder.mkdir(parents=True, exist_ok=True)
    host(tool("corepack"), "enable", "--install-directory", str(folder), name, cwd=folder)


def test_npm_installs_from_its_read_only_cache_and_runs_the_tests(user: Toolbox, cli) -> None:
    """A fresh clone: node_modules/ is missing and the build's `npm ci` finds every package in the
    user's npm cache, read-only, without the network."""
    root = Path.cwd()
    node_project(root)
    host(tool("npm"), "install", cwd=root)
    commit(root)
    shutil.rmtree(root / "node_modules")
    asked = len(user.registry.requests)

    done = init(cli, root)

    assert done.commands == ["[ -e node_modules ] || npm ci", "npm test"]
    passes(done, "node:test")
    assert len(user.registry.requests) == asked, "the build never reached the registry"


def test_pnpm_through_a_corepack_shim_under_tmp_runs_with_the_setting_init_writes(
    user: Toolbox, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shim folder is under the host's /tmp, which builds cannot see: init finds that and shows
    the folder to builds read-only (sandbox_readable); nothing is made writable."""
    root = Path.cwd()
    shims = tmp_path / "shims"
    corepack_shim("pnpm", PNPM.split("@")[1], shims)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    node_project(root, packageManager=PNPM)
    host("pnpm", "install", cwd=root)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["pnpm test"]
    assert f'sandbox_readable = ["{shims}"]' in done.output
    config = (root / "agent-config" / "config.toml").read_text()
    assert f'\nsandbox_readable = ["{shims}"]\n' in config and "under the host's /tmp" in config
    passes(done, "node:test")
    (root / "agent-config" / "config.toml").write_text("")  # without the setting
    hidden = check(cli)
    assert hidden["outcome"] == "build_blocked" and hidden["diagnosis"]["kind"] == diagnosis.HIDDEN
    assert f'sandbox_readable = ["{shims}"]' in hidden["diagnosis"]["fix"]


def test_yarn_plug_n_play_reads_its_cache_read_only(user: Toolbox, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path.cwd()
    corepack_shim("yarn", YARN.split("@")[1], user.bin)
    node_project(root, packageManager=YARN)
    # The user's first install writes the lockfile; under CI=true (CI's own machines) yarn forbids that.
    monkeypatch.delenv("CI", raising=False)
    host("yarn", "install", cwd=root)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["yarn test"]
    passes(done, "node:test")


# Rust, Go, Maven


def local_registry(cargo_home: Path) -> Path:
    """A cargo local registry holding itoa (tests/fixtures/packages), standing in for crates.io: in
    CARGO_HOME, which builds see (the rest of the home they get empty)."""
    registry = cargo_home / "local-registry"
    crate = FIXTURES / "packages" / "itoa-1.0.18.crate"
    entry = {"name": "itoa", "vers": "1.0.18", "deps": [], "features": {}, "yanked": False}
    entry["cksum"] = hashlib.sha256(crate.read_bytes()).hexdigest()
    (registry / "index" / "it" / "oa").mkdir(parents=True, exist_ok=True)
    (registry / "index" / "it" / "oa" / "itoa").write_text(json.dumps(entry) + "\n")
    shutil.copy2(crate, registry / crate.name)
    return registry


def test_cargo_with_its_dependency_in_cargo_home(user: Toolbox, cli) -> None:
    root = Path.cwd()
    cargo_home = user.home / ".cargo"
    cargo_home.mkdir(exist_ok=True)
    (cargo_home / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "mirror"\n\n'
        f'[source.mirror]\nlocal-registry = "{local_registry(cargo_home)}"\n'
    )
    shutil.copytree(FIXTURES / "own" / "cargo-fmtnum", root, dirs_exist_ok=True)
    host(tool("cargo"), "fetch", cwd=root)  # as after adding the dependency: it unpacks into CARGO_HOME
    commit(root)

    done = init(cli, root)

    assert done.commands == ["cargo build --quiet", "cargo test --quiet"]
    passes(done, "cargo test")


def test_go_with_the_projects_own_build_cache(user: Toolbox, cli) -> None:
    """Go writes its build cache on every build: with the home folder read-only, every build failed."""
    tool("go")
    root = Path.cwd()
    shutil.copytree(FIXTURES / "own" / "go-calc", root, dirs_exist_ok=True)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["go build ./...", "go test ./..."]
    passes(done, "go test")


MAVEN_PLUGINS = ("maven-resources-plugin/3.3.1", "maven-compiler-plugin/3.13.0", "maven-surefire-plugin/3.2.5")


def test_maven_offline_from_its_repository(user: Toolbox, cli) -> None:
    """Maven takes its home from the password file, so this is the machine's own ~/.m2, read-only."""
    tool("mvn", ci_installs=False)  # with no Maven repository to fill ~/.m2 from, CI has no use for it
    repository = Path(os.path.expanduser("~" + os.environ.get("USER", ""))) / ".m2" / "repository"
    repository = Path(os.path.realpath(Path("/root/.m2/repository") if os.geteuid() == 0 else repository))
    plugins = repository / "org" / "apache" / "maven" / "plugins"
    if (
        not all((plugins / plugin).is_dir() for plugin in MAVEN_PLUGINS)
        or not (repository / "org" / "junit" / "jupiter" / "junit-jupiter" / "5.11.4").is_dir()
    ):
        pytest.skip("~/.m2 has not the plugins and JUnit this project uses offline (CI reaches no Maven repository)")
    root = Path.cwd()
    shutil.copytree(FIXTURES / "own" / "maven-calc", root, dirs_exist_ok=True)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["mvn -o -B test"]
    passes(done, "Maven")


# C: make and CMake, on real projects


def test_make_runs_jsmns_own_tests(user: Toolbox, cli) -> None:
    tool("make")
    root = Path.cwd()
    shutil.copytree(FIXTURES / "jsmn", root, dirs_exist_ok=True)
    commit(root)

    done = init(cli, root)

    assert done.commands == ["make test"]
    passes(done, "make test", at_least=40)
    found = untracked(root)
    assert found is not None and found.own == (".gitignore", "build.sh", "codeRollup.sh")
    assert set(found.built) == {f"test/test_{kind}" for kind in ("default", "strict", "links", "strict_links")}


def test_cmake_and_ctest_run_cjsons_unit_tests_not_its_demo(user: Toolbox, cli) -> None:
    """cJSON's Makefile has a test target that runs a demo program; its CMake build registers the
    unit tests with CTest, which is what the guess runs."""
    tool("cmake")
    root = Path.cwd()
    shutil.copytree(FIXTURES / "cjson", root, dirs_exist_ok=True)
    commit(root)

    done = init(cli, root)

    assert done.commands == [
        "cmake -S . -B build",
        "cmake --build build --parallel",
        "(cd build && ctest --output-on-failure)",
    ]
    passes(done, "ctest", at_least=5)
