"""A sandboxed build cannot take the machine: a fork bomb stops at `build_max_processes`, a runaway
allocation at `build_max_memory` (a cgroup where code-commit can make one, as here when run as root,
else resource limits). Through the real loop, the real SDK and the fake service; the attack counts
what it managed, never how long it took."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from code_commit.config.settings import Settings
from code_commit.sandbox import limits
from code_commit.sandbox.limits import BuildLimits

from fakeapi import FakeAPI
from support import Project

if shutil.which("bwrap") is None:
    if os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"):
        pytest.fail("bubblewrap (bwrap) is missing in CI: .ci/run installs it; these tests must run", pytrace=False)
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PYTHON = os.path.realpath(sys.executable)  # not a venv under /tmp, which the sandbox hides

FORK_BOMB = """
import os, signal
children = []
try:
    for _ in range(500):
        pid = os.fork()
        if pid == 0:
            signal.pause()
            os._exit(0)
        children.append(pid)
except OSError as exc:
    print("FORK REFUSED", exc.errno)
print("STARTED", len(children))
for pid in children:
    os.kill(pid, signal.SIGKILL)
"""

MEMORY_HOG = """
blocks = []
try:
    for n in range(1, 65):
        blocks.append(bytearray(16 << 20))  # touched: every page is written
        print("ALLOCATED", n * 16, "MiB", flush=True)
except MemoryError:
    print("ALLOCATION REFUSED", flush=True)
"""


def attacked(project: Project, api: FakeAPI, cli, attack: str, *settings: str) -> str:
    project.write("attack.py", attack)
    project.build_script(f"{PYTHON} -S attack.py\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply(FIX)
    result = cli("--json", "--sandbox", "require", *settings)
    assert result.exit_code == 0, result.stderr
    return Path(json.loads(result.stdout)["last_build"]["log"]).read_text()


def test_a_fork_bomb_stops_at_build_max_processes(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", "build_max_processes = 64\n")
    log = attacked(project, api, cli, FORK_BOMB)
    assert "FORK REFUSED" in log, log
    started = int(re.search(r"STARTED (\d+)", log).group(1))  # type: ignore[union-attr]
    assert 0 < started < 64


def test_a_runaway_allocation_stops_at_build_max_memory(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", "build_max_memory = 128\n")
    log = attacked(project, api, cli, MEMORY_HOG)
    allocated = [int(n) for n in re.findall(r"ALLOCATED (\d+) MiB", log)]
    assert allocated and max(allocated) <= 128, log  # refused, or killed by the kernel, past 128 MiB
    assert "ALLOCATED 1024 MiB" not in log


def test_without_a_cgroup_a_runaway_allocation_stops_at_its_resource_limit(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where code-commit can make no cgroup (most users' case: not root), the helper sets
    RLIMIT_DATA on itself before it starts bwrap, and every process of the build inherits it."""
    monkeypatch.setattr(limits, "CGROUP_ROOT", tmp_path / "no-cgroups")
    project.write("agent-config/config.toml", "build_max_memory = 128\n")
    log = attacked(project, api, cli, MEMORY_HOG)
    assert "ALLOCATION REFUSED" in log, log
    allocated = [int(n) for n in re.findall(r"ALLOCATED (\d+) MiB", log)]
    assert max(allocated, default=0) < 128, log


def test_with_no_limit_the_same_build_runs_free(project: Project, api: FakeAPI, cli) -> None:
    """The attack's own bound: without build_max_processes it starts every child it asks for."""
    project.write("agent-config/config.toml", "build_max_processes = 0\n")
    assert "STARTED 100" in attacked(project, api, cli, FORK_BOMB.replace("500", "100"))


def test_no_cgroup_is_left_behind(project: Project, api: FakeAPI, cli) -> None:
    before = _cgroups()
    project.write("agent-config/config.toml", "build_max_processes = 64\nbuild_max_memory = 256\n")
    attacked(project, api, cli, FORK_BOMB)
    assert _cgroups() - before == set()


def _cgroups() -> set[Path]:
    """This process's build cgroups (`code-commit-<pid>-<n>`): another test process's builds run
    alongside (pytest-xdist), each with its own."""
    root = limits.CGROUP_ROOT
    mine = f"code-commit-{os.getpid()}-*"
    return {p for pattern in (mine, f"*/{mine}") for p in root.glob(pattern)}


def test_the_defaults_bound_processes_and_a_cgroup_s_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "_physical_memory", lambda: 16 << 30)
    assert BuildLimits.of(Settings()) == BuildLimits(4096, 12 << 30, memory_set=False)
    assert BuildLimits.of(Settings(build_max_memory=512)) == BuildLimits(4096, 512 << 20, memory_set=True)
    assert BuildLimits.of(Settings(build_max_processes=0, build_max_memory=0)) == BuildLimits(None, None)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("build_max_processes = -1", "must be 0 (no limit)"),
        ("build_max_processes = 3", "at least 16"),
        ("build_max_memory = 10", "at least 64 MiB"),
    ],
)
def test_bad_limits_are_setup_errors(project: Project, cli, setting: str, message: str) -> None:
    project.write("agent-config/config.toml", setting + "\n")
    result = cli("config")
    assert result.exit_code == 2 and message in result.stderr
