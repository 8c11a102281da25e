"""Shared fixtures: a temporary project with a git repository, and the CLI run in-process.

The CLI runs in this process (typer's runner) so the SDK is imported once per test session;
tests spawn `code-commit` only where the process boundary itself is under test.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner, Result

from code_commit.cli.app import app

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git
from support.record import record_command, valid_record
from terminal import ForkServer, Spawner, spawner

KEY_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY")
# What code-commit's sandbox gives a build (sandbox/toolchains.py): where these tests are that build.
SANDBOX_TOOLCHAIN_VARS = (
    "UV_CACHE_DIR",
    "UV_LINK_MODE",
    "UV_OFFLINE",
    "GOCACHE",
    "GOPROXY",
    "npm_config_cache",
    "npm_config_logs_dir",
    "npm_config_fetch_retries",
    "CARGO_NET_OFFLINE",
    "YARN_HTTP_RETRY",
    "TAR_OPTIONS",
)
CLEARED_PREFIXES = ("CODE_COMMIT_", "ANTHROPIC_", "OPENAI_", "AWS_", "GOOGLE_", "CLOUDSDK_", "CLOUD_ML_", "GCE_")


REPO = Path(__file__).resolve().parents[1]
# Git as on a machine with no configuration but an identity: the guard honours git's global ignore
# rules (core.excludesFile, ~/.config/git/ignore), and a developer's would change what tests see.
GIT_ISOLATION = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test sees the developer's real keys, endpoints, code-commit settings or git configuration."""
    _isolate(monkeypatch, tmp_path_factory.getbasetemp())


def _isolate(monkeypatch: pytest.MonkeyPatch, basetemp: Path) -> None:
    """The environment every test and the shared project's template are made in (`basetemp`: the
    session's temp folder)."""
    for name in list(os.environ):
        if name in KEY_VARS or name.startswith(CLEARED_PREFIXES):  # keys, endpoints, settings, clouds
            monkeypatch.delenv(name)
    # pytest-xdist sets COLUMNS=80 and LINES=24 in its workers: they would win over the size of the
    # terminal a test gives the CLI, and make a run under -n differ from one without.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    # Where these tests are code-commit's own build, in its sandbox, that sandbox set the toolchains'
    # variables (its cache, offline): the builds these tests run get their own, as a user's would.
    for name in SANDBOX_TOOLCHAIN_VARS:
        monkeypatch.delenv(name, raising=False)
    # The clouds' credential chains find nothing of the developer's, and never reach past the machine:
    # no instance metadata (169.254.169.254) for AWS, no metadata-server check for Google.
    cloud = basetemp / "no-cloud-config"
    monkeypatch.setenv("AWS_CONFIG_FILE", str(cloud / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(cloud / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(cloud / "gcloud"))
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    for name, value in GIT_ISOLATION.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(basetemp / "xdg-config"))
    # Sandboxed builds get a cache folder of the project's own there (sandbox/toolchains.py).
    monkeypatch.setenv("XDG_CACHE_HOME", str(basetemp / "xdg-cache"))
    # The builds the tests run start pytest from this environment, as a developer's would: without
    # the test extra's plugins (hypothesis, anyio, xdist), which the projects under test never use
    # and which cost each of those pytest starts 2 s of its 2.3.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture(autouse=True)
def _one_commands_distrust(monkeypatch: pytest.MonkeyPatch) -> None:
    """The folders no program is looked up in start empty for each test, as for each code-commit
    process: a test process runs hundreds of commands, and the set would hold every one's project,
    checked against every PATH entry at every git call."""
    from code_commit.git import env, ignore

    monkeypatch.setattr(env, "_DISTRUSTED", set())
    monkeypatch.setattr(env, "_TRUSTED_PATHS", {})
    monkeypatch.setattr(ignore, "_PATTERN_VERDICTS", {})  # git's verdicts on patterns, kept a process


@pytest.fixture(autouse=True)
def retry_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """No test sleeps out a retry's backoff: the model transport's waits are recorded here instead, and
    its clock moves on by them, so its retry time limit still counts them."""
    from code_commit.llm import transport

    waits: list[float] = []
    real_clock = transport.clock
    monkeypatch.setattr(transport, "sleep", waits.append)
    monkeypatch.setattr(transport, "clock", lambda: real_clock() + sum(waits))
    return waits


@pytest.fixture(scope="session")
def _project_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "project"
    root.mkdir()
    proj = Project(root)
    proj.write(".gitignore", "/agent-config\n")
    proj.write("agent-config/query.txt", "Make the build pass.\n")
    proj.write("agent-config/codeRollup.txt", "==> app.txt <==\nhello\n")
    proj.write("app.txt", "hello\n")
    proj.build_script("test -f fixed.txt\n")
    with pytest.MonkeyPatch.context() as patch:  # made before any test's own environment is set up
        _isolate(patch, tmp_path_factory.getbasetemp())
        patch.chdir(root)
        git(root, "init", "-q")
        proj.commit_all()
        # As init leaves a project: its last step, `check`, builds it once and stores the baseline, which
        # a run of the same tree takes instead of building first. Its run folder is not kept: tests
        # count the folders their own runs make.
        checked = CliRunner().invoke(app, ["check"], catch_exceptions=False)
        assert checked.exit_code == 1 and (root / "agent-config" / "baselines.json").is_file(), checked.output
        shutil.rmtree(root / "agent-config" / "logs")
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _project_template: Path) -> Project:
    """A minimal valid project, committed to git, as the current directory: a copy of one made once
    a session (three git processes fewer for each of the ~900 tests that use it)."""
    root = tmp_path / "project"
    shutil.copytree(_project_template, root, symlinks=True)
    monkeypatch.chdir(root)
    return Project(root)


@pytest.fixture
def with_build_txt(project: Project) -> Project:
    project.write("build.txt", "kept\n")
    project.commit_all()
    return project


@functools.cache
def _command() -> object:
    return typer.main.get_command(app)


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # typer builds the click command from the app's type hints at every invoke; the real CLI does
    # it once a process, and so do the tests (15 ms of every in-process run).
    monkeypatch.setattr(typer.testing, "_get_command", lambda _: _command())
    runner = CliRunner()

    def invoke(*args: str, env: Mapping[str, str | None] | None = None, input: str | bytes | None = None) -> Result:
        result = runner.invoke(app, list(args), env=env, input=input, catch_exceptions=False)
        if record_command(args) is not None and result.stdout:  # none when the parser refused the line
            valid_record(result.stdout)  # every record any test prints keeps the schema the package ships
        return result

    yield invoke


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAPI]:
    """The fake model service, with the SDK pointed at it and a test key configured."""
    with FakeAPI() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
        yield server


@pytest.fixture(scope="session")
def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's folder, which every xdist worker's basetemp is in: what the workers share."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


@pytest.fixture(scope="session")
def fork_server(session_folder: Path) -> Iterator[ForkServer]:
    """One per session, started at the first use in any of its xdist workers: the SDK imported once
    (tests/terminal.py)."""
    server = ForkServer(session_folder)
    yield server
    server.close()


@pytest.fixture
def terminal(fork_server: ForkServer) -> Iterator[Spawner]:
    """`terminal(args, env=..., cwd=..., dimensions=...)`: `python -m code_commit ARGS` on a new
    pseudo-terminal, forked from the fork server; pexpect drives it as it drives a spawn."""
    with spawner(fork_server) as spawn:
        yield spawn


@pytest.fixture(scope="session")
def wheel(session_folder: Path) -> Path:
    """code-commit's wheel, built once per session (by the first xdist worker that needs it) from
    this checkout, offline."""
    out = session_folder / "wheel"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    with (session_folder / "wheel.lock").open("wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not any(out.glob("code_commit-*.whl")):
            subprocess.run([*pip_wheel, str(REPO)], check=True, capture_output=True)
    (built,) = out.glob("code_commit-*.whl")
    return built


@pytest.fixture(scope="session")
def sandbox_pytest() -> Iterator[str]:
    """A python with pytest that sandboxed builds can run: a virtualenv outside the host's /tmp (this
    run's own may be under it, which builds cannot see) with pytest copied in, made once a worker and
    removed with it (15 MB a worker, which pytest's own clean-up of its temp folders never sees)."""
    from support.sandbox import outside_tmp
    from venv_copies import install_copies

    folder = outside_tmp("code-commit-pytest-")
    try:
        venv = folder / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
        install_copies(venv, "pytest")
        yield str(venv / "bin" / "python")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
