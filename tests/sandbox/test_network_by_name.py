"""sandbox_network by name, end to end: `code-commit check` runs build.sh in the real bubblewrap
sandbox, whose only way out is code-commit's proxy, and real clients (pip, npm) install from
loopback fakes of their registries through it. A host no entry names is refused, and the failed
build is diagnosed naming it and the entry to add, never the whole network. In CI these tests fail,
never skip, when bubblewrap is missing."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pip
import pytest

from code_commit.config.sandbox_writable import PRIVATE_TMP
from code_commit.exits import EXIT

from npm_registry import NpmRegistry
from pypi_index import PypiIndex, wheel
from support import Project, git
from support.sandbox import require_bwrap

BWRAP = shutil.which("bwrap")
require_bwrap()

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PYTHON = os.path.realpath(sys.executable)  # a venv under /tmp (a CI checkout there) would be hidden
PIP_SITE = Path(pip.__file__).resolve().parent.parent  # pip itself, run by PYTHON in the sandbox
# Under the host's /tmp, the folder holding pip is hidden from builds until sandbox_readable shows it.
SHOW_PIP = ["--sandbox-readable", str(PIP_SITE)] if PRIVATE_TMP in PIP_SITE.parents else []
REFUSED_ADVICE = "sandbox_network = true"


@pytest.fixture
def index(tmp_path: Path) -> Iterator[PypiIndex]:
    made = wheel(tmp_path, "demo-pkg", "1.0", {"demo_pkg/__init__.py": "GREETING = 'installed through the proxy'\n"})
    with PypiIndex([made]) as served:
        yield served


def pip_install(index_url: str) -> str:
    host = index_url.split("/")[2].split(":")[0]  # pip ignores an http:// index it does not trust
    return (
        f"PYTHONPATH={PIP_SITE} {PYTHON} -m pip install --quiet --no-cache-dir --disable-pip-version-check "
        f"--no-input --target deps --trusted-host {host} --index-url {index_url} demo-pkg\n"
        f"PYTHONPATH=deps {PYTHON} -c 'import demo_pkg; print(demo_pkg.GREETING)'\n"
    )


def checked(cli, project: Project, script: str, *settings: str):  # type: ignore[no-untyped-def]
    project.build_script(script)
    git(project.root, "add", "-A")
    git(project.root, "commit", "--allow-empty", "-qm", "the build")
    return cli("--sandbox", "require", *settings, "check")


def test_pip_installs_from_a_named_index_through_the_proxy(project: Project, cli, index: PypiIndex) -> None:
    result = checked(cli, project, pip_install(index.url), "--sandbox-network", f"127.0.0.1:{index.port}", *SHOW_PIP)

    assert result.exit_code == EXIT.OK, result.output
    assert "installed through the proxy" in result.stdout
    assert ("GET", "/simple/demo-pkg/") in index.requests
    assert any(path.startswith("/files/demo_pkg-1.0-py3-none-any.whl") for _, path in index.requests)
    assert "only 127.0.0.1:" in result.stdout, "check says the build reaches only the named hosts"


def test_pip_from_a_host_no_entry_names_is_refused_and_the_host_named(project: Project, cli, index: PypiIndex) -> None:
    script = pip_install("http://pypi.internal.example/simple/")

    result = checked(cli, project, script, "--sandbox-network", f"127.0.0.1:{index.port}", *SHOW_PIP)

    assert result.exit_code == EXIT.BUILD_BLOCKED, result.output
    assert "code-commit's proxy refused the build pypi.internal.example:80" in result.output
    assert 'add "pypi.internal.example" to sandbox_network' in result.output
    assert REFUSED_ADVICE not in result.output
    assert index.requests == []
    logged = (project.run_dirs()[-1] / "run.log").read_text()
    assert "code-commit's proxy refused the build pypi.internal.example:80 (not in sandbox_network)" in logged


def npm_install(registry: str) -> str:
    return (
        f"set -e\nexport npm_config_registry={registry}\n"
        "npm install --no-audit --no-fund --no-update-notifier ms@2.1.3\n"
        "node -e 'console.log(require(\"ms\")(60000))'\n"
    )


def test_npm_installs_from_a_named_registry_and_a_refused_one_is_named(project: Project, cli) -> None:
    project.write("package.json", '{"name": "demo", "version": "1.0.0", "private": true}\n')
    with NpmRegistry([FIXTURES / "packages" / "ms-2.1.3.tgz"]) as registry, NpmRegistry([]) as other:
        named = f"127.0.0.1:{registry.url.rstrip('/').rsplit(':', 1)[1]}"
        other_port = other.url.rstrip("/").rsplit(":", 1)[1]
        allowed = checked(cli, project, npm_install(registry.url), "--sandbox-network", named)
        refused = checked(cli, project, npm_install(other.url), "--sandbox-network", named)

    assert allowed.exit_code == EXIT.OK, allowed.output
    assert "1m" in allowed.stdout and ("GET", "/ms") in registry.requests
    assert refused.exit_code == EXIT.BUILD_BLOCKED, refused.output
    assert f'add "127.0.0.1:{other_port}" to sandbox_network' in refused.output
    assert REFUSED_ADVICE not in refused.output
    assert other.requests == []


def test_the_proxy_is_the_only_way_out_and_names_the_sandboxs_own_loopback_direct(
    project: Project, cli, index: PypiIndex
) -> None:
    """A named loopback host is the host's through the proxy; a direct connection finds the sandbox's
    own loopback, where nothing listens; and the build's own 127.0.0.1 stays direct unless named."""
    script = (
        f"{PYTHON} -c 'import socket; socket.create_connection((\"127.0.0.1\", {index.port}), timeout=5)' "
        "2>/dev/null && echo DIRECT-REACHED || echo DIRECT-REFUSED\n"
        'echo "no_proxy=$NO_PROXY proxy=$HTTPS_PROXY"\n'
    )

    named = checked(cli, project, script, "--sandbox-network", f"127.0.0.1:{index.port}")
    registry = checked(cli, project, script, "--sandbox-network", "pypi")

    assert named.exit_code == EXIT.OK and registry.exit_code == EXIT.OK, named.output + registry.output
    assert "DIRECT-REFUSED" in named.stdout and "DIRECT-REACHED" not in named.stdout
    assert "no_proxy=localhost,::1 proxy=http://127.0.0.1:3128" in named.stdout
    assert "no_proxy=localhost,127.0.0.1,::1 proxy=http://127.0.0.1:3128" in registry.stdout
    assert index.requests == []


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("pypy", "'pypy' is no registry code-commit knows"),
        ("*", "'*' is a pattern of every host: sandbox_network = true says so, knowingly"),
        ("example.com:99999", "'example.com:99999' has no port number from 1 to 65535"),
        ("https://example.com", "'https://example.com' is a URL: name its host alone (example.com)"),
        ("true,pypi", "true or false stands alone"),
    ],
)
def test_a_bad_entry_is_a_setup_error_that_says_what_an_entry_is(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, value: str, says: str
) -> None:
    monkeypatch.setenv("CODE_COMMIT_SANDBOX_NETWORK", value)

    result = cli("config")

    assert result.exit_code == EXIT.SETUP, result.output
    assert says in result.output


@pytest.mark.parametrize(
    ("script", "mode", "code", "output"),
    [
        ("echo without a shebang; sleep 0.1 & wait; echo waited\n", 0o755, EXIT.OK, "waited"),  # sh runs it
        ("#!/nonexistent/python\nprint(1)\n", 0o755, EXIT.BUILD_BLOCKED, "'/nonexistent/python' (its #! line)"),
    ],
)
def test_behind_the_bridge_build_sh_starts_and_fails_to_start_as_bwrap_starts_it(
    project: Project, cli, script: str, mode: int, code: int, output: str
) -> None:
    """The bridge execs build.sh: a script without #! runs with sh, a `wait` in it waits for its own
    children only (the bridge is none), and one that cannot start is reported as a shell would."""
    project.write("build.sh", script, mode=mode)
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "the build")

    result = cli("--sandbox", "require", "--sandbox-network", "pypi", "check")

    assert result.exit_code == code, result.output
    assert output in result.output


@pytest.mark.parametrize(
    ("toml", "env", "value"),
    [
        ('sandbox_network = ["pypi", "*.example.com:8443"]', None, ["pypi", "*.example.com:8443"]),
        ("sandbox_network = true", None, True),
        (None, "npm, crates", ["npm", "crates"]),
        ('sandbox_network = ["pypi"]', "off", False),  # the environment over the file
    ],
)
def test_sandbox_network_is_a_switch_or_names_in_the_file_and_the_environment(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, toml: str | None, env: str | None, value: object
) -> None:
    if toml is not None:
        project.write("agent-config/config.toml", toml + "\n")
    if env is not None:
        monkeypatch.setenv("CODE_COMMIT_SANDBOX_NETWORK", env)

    result = cli("config", "--json")

    assert result.exit_code == EXIT.OK, result.output
    assert json.loads(result.stdout)["settings"]["sandbox_network"]["value"] == value
