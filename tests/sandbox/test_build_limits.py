"""A sandboxed build cannot take the machine nor leave its caller's limits: a fork bomb is ended at
`build_max_processes`, a runaway allocation at `build_max_memory`, each named in the result; the
build's cgroup is nested under code-commit's own, its memory cap derived from the caller's limit;
the cgroups a killed run left behind go at the next run. Through the real CLI, bubblewrap and the
kernel's cgroups (the tests run as root, as in CI); the attacks count what they managed and how
the build ended, never how long it took."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.config.settings import SETTING_NAMES, Settings
from code_commit.sandbox import cgroups, limits
from code_commit.sandbox.cgroups import Hierarchy
from code_commit.sandbox.limits import BuildLimits

from fakeapi import FakeAPI
from support import Project
from support.record import valid_record
from support.sandbox import require_bwrap

REQUIRED = bool(os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"))
require_bwrap()

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PYTHON = os.path.realpath(sys.executable)  # not a venv under /tmp, which the sandbox hides
NEVER = "build_timeout = 3600\n"  # the attacks below would run this long, but for the caps

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

# A fork bomb that never gives up: refused, it tries again, until something ends it.
ENDLESS_FORK_BOMB = """
import os, signal, sys
refused = 0
while True:
    try:
        if os.fork() == 0:
            signal.pause()
            os._exit(0)
    except OSError:
        refused += 1
        if refused == 1:
            print("FORK REFUSED", flush=True)
"""

MEMORY_HOG = """
import signal
blocks = []
try:
    for n in range(1, 65):
        blocks.append(bytearray(16 << 20))  # touched: every page is written
        print("ALLOCATED", n * 16, "MiB", flush=True)
except MemoryError:
    print("ALLOCATION REFUSED", flush=True)
"""


def cgroups_here() -> list[Hierarchy]:
    """code-commit's cgroups in the hierarchies holding pids and memory: the kernel's own answer."""
    found = cgroups.located(["pids", "memory"])
    if not found or not all(os.access(h.own, os.W_OK) for h in found):
        if REQUIRED:
            pytest.fail("CI runs as root with the pids and memory controllers: these tests must run", pytrace=False)
        pytest.skip("no writable cgroup with the pids and memory controllers here (not root?)")
    return found


def attacked(project: Project, api: FakeAPI, cli, attack: str, *settings: str) -> str:
    project.write("attack.py", attack)
    project.build_script(f"{PYTHON} -S attack.py\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply(FIX)
    result = cli("--json", "--sandbox", "require", *settings)
    assert result.exit_code == 0, result.stderr
    return Path(json.loads(result.stdout)["last_build"]["log"]).read_text()


def checked(project: Project, cli, script: str, config: str) -> tuple[dict, str, str]:
    """`code-commit check` of `script`: its record (summary.json), its build's log and what it
    printed for a person."""
    project.write("agent-config/config.toml", 'sandbox = "require"\n' + config)
    project.build_script(script)
    project.commit_all()
    result = cli("check")
    record = valid_record((project.run_dirs()[-1] / "summary.json").read_text())
    assert result.exit_code == record["exit_code"], result.stderr
    return record, Path(record["last_build"]["log"]).read_text(), result.stdout + result.stderr


def test_a_fork_bomb_is_ended_at_once_with_its_cap_named(project: Project, cli) -> None:
    """A fork bomb that never gives up used to spin until build_timeout (1,800 s): it is ended when
    its first fork is refused, and the console and the record name the cap."""
    cgroups_here()
    project.write("attack.py", ENDLESS_FORK_BOMB)
    record, log, stderr = checked(project, cli, f"{PYTHON} -S attack.py\n", NEVER + "build_max_processes = 64\n")
    build = record["last_build"]
    assert "FORK REFUSED" in log, log
    assert build["cap_reached"] == "build_max_processes" and not build["timed_out"], build
    assert not build["passed"] and build["exit_code"] is None
    assert "build_max_processes" in stderr and "processes and threads" in stderr, stderr
    assert "build_max_processes" in log.splitlines()[-1]


def test_a_runaway_allocation_is_ended_at_its_memory_cap(project: Project, cli) -> None:
    cgroups_here()
    project.write("attack.py", MEMORY_HOG + "signal.pause()\n")
    record, log, stderr = checked(project, cli, f"{PYTHON} -S attack.py\n", NEVER + "build_max_memory = 128\n")
    allocated = [int(n) for n in re.findall(r"ALLOCATED (\d+) MiB", log)]
    assert allocated and max(allocated) <= 128, log  # the kernel killed it past 128 MiB
    assert record["last_build"]["cap_reached"] == "build_max_memory", record["last_build"]
    assert "build_max_memory" in stderr


def test_a_build_within_its_caps_names_none(project: Project, api: FakeAPI, cli) -> None:
    """The attack's own bound: without build_max_processes it starts every child it asks for, and
    the build passes with no cap reached."""
    project.write("agent-config/config.toml", "build_max_processes = 0\n")
    assert "STARTED 100" in attacked(project, api, cli, FORK_BOMB.replace("500", "100"))
    project.write("agent-config/config.toml", "build_max_processes = 256\n")
    record, log, _ = checked(project, cli, f"{PYTHON} -S attack.py\n", "build_max_processes = 256\n")
    assert "STARTED 100" in log and record["last_build"]["passed"] and record["last_build"]["cap_reached"] is None


def test_without_a_cgroup_a_runaway_allocation_stops_at_its_resource_limit(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where code-commit can make no cgroup (most users' case: not root), the helper sets
    RLIMIT_DATA on itself before it starts bwrap, and every process of the build inherits it."""
    monkeypatch.setattr(cgroups, "MOUNTINFO", tmp_path / "no-cgroups")
    project.write("agent-config/config.toml", "build_max_memory = 128\n")
    log = attacked(project, api, cli, MEMORY_HOG)
    assert "ALLOCATION REFUSED" in log, log
    allocated = [int(n) for n in re.findall(r"ALLOCATED (\d+) MiB", log)]
    assert max(allocated, default=0) < 128, log


def test_the_build_s_cgroup_is_nested_under_code_commit_s_own(project: Project, cli) -> None:
    """Not at the root of a hierarchy, where the build would leave its caller's limits (a systemd
    unit's MemoryMax and TasksMax, a CI runner's slice): the build reads its own cgroups."""
    found = cgroups_here()
    record, log, _ = checked(project, cli, "cat /proc/self/cgroup\n", "")
    assert record["last_build"]["passed"], log
    own = _own_paths(Path("/proc/self/cgroup").read_text())
    build = _own_paths(log)
    for hierarchy in found:
        for controller in hierarchy.controllers:
            key = "" if hierarchy.unified else controller
            parent, _, name = build[key].rpartition("/")
            assert (parent or "/") == own[key], (controller, build[key], own[key])
            assert re.fullmatch(rf"code-commit-\d+-{os.getpid()}-\d+", name), name


def _own_paths(text: str) -> dict[str, str]:
    paths = {}
    for line in text.splitlines():
        if re.fullmatch(r"\d+:[^:]*:/.*", line):
            _, names, path = line.split(":", 2)
            for name in names.split(",") if names else [""]:
                paths[name] = path
    return paths


@contextlib.contextmanager
def moved_into(folder: Path, home: Path) -> Iterator[None]:
    """This process in the cgroup `folder` (made here), then back in `home` and `folder` removed."""
    folder.mkdir()
    try:
        (folder / "cgroup.procs").write_text(str(os.getpid()))
        try:
            yield
        finally:
            (home / "cgroup.procs").write_text(str(os.getpid()))
    finally:
        _remove_tree(folder)


def _remove_tree(folder: Path) -> None:
    for child in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        child.rmdir()
    folder.rmdir()


def test_the_memory_cap_derives_from_the_caller_s_limit(project: Project, cli) -> None:
    """code-commit run inside a caller whose memory limit is 1 GiB (a systemd unit's MemoryMax):
    its build's cap is three quarters of that, not of the machine's memory."""
    memory = next(h for h in cgroups_here() if "memory" in h.controllers)
    limit_file = "memory.max" if memory.unified else "memory.limit_in_bytes"
    caller = memory.own / f"caller-of-{os.getpid()}"
    key = "0::" if memory.unified else r"[0-9]*:memory:"
    script = f"cat \"{memory.mount}$(sed -n 's/^{key}//p' /proc/self/cgroup)/{limit_file}\"\n"
    with moved_into(caller, memory.own):
        (caller / limit_file).write_text(str(1 << 30))
        assert BuildLimits.of(Settings()).memory == 768 << 20
        record, log, _ = checked(project, cli, script, "")
    assert record["last_build"]["passed"], log
    assert re.search(r"^(\d+)$", log, re.M).group(1) == str(768 << 20), log  # type: ignore[union-attr]


def test_cgroups_a_killed_run_left_behind_go_at_the_next_run(project: Project, cli) -> None:
    """A code-commit killed with SIGKILL in the middle of a build leaves its cgroups; the next run
    removes them, and only what a dead run of code-commit made and left empty."""
    found = cgroups_here()
    project.write("agent-config/config.toml", 'sandbox = "require"\n' + NEVER)
    project.build_script("touch started\nexec sleep 3600\n")
    project.commit_all()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    killed = subprocess.Popen(
        [sys.executable, "-m", "code_commit", "check"],
        cwd=project.root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(6000):  # the build has started: a count, waited on by polling
            if (project.root / "started").exists() or killed.poll() is not None:
                break
            time.sleep(0.01)
        assert (project.root / "started").exists(), "the build never started"
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    left = [p for h in found for p in h.own.glob(f"code-commit-*-{killed.pid}-*")]
    assert len(left) == len(found), left  # one a hierarchy, as a killed run leaves them
    for folder in left:
        for _ in range(6000):  # its processes die with bwrap's parent, a moment later
            if not (folder / "cgroup.procs").read_text().strip():
                break
            time.sleep(0.01)
    namespace = cgroups._namespace()
    sleeper = subprocess.Popen(["sleep", "3600"])
    kept = []
    try:
        for hierarchy in found:
            alive = hierarchy.own / f"code-commit-{namespace}-{os.getpid()}-999"  # its run is alive
            elsewhere = hierarchy.own / f"code-commit-{namespace + 1}-{killed.pid}-0"  # another PID namespace's
            busy = hierarchy.own / f"code-commit-{namespace}-{killed.pid}-998"  # still holds a process
            other = hierarchy.own / f"not-code-commit-{namespace}-{killed.pid}-0"
            for folder in (alive, elsewhere, busy, other):
                folder.mkdir()
                kept.append(folder)
            (busy / "cgroup.procs").write_text(str(sleeper.pid))
        cgroups._swept.clear()  # this test process's first run, as the next run's would be
        record, _, _ = checked(project, cli, "true\n", "")
        assert record["last_build"]["passed"]
        assert [p for p in left if p.exists()] == []
        assert [p for p in kept if not p.exists()] == []
    finally:
        sleeper.kill()
        sleeper.wait()
        for folder in kept:
            with contextlib.suppress(OSError):
                for _ in range(6000):
                    if not (folder / "cgroup.procs").read_text().strip():
                        break
                    time.sleep(0.01)
                folder.rmdir()


def test_no_cgroup_is_left_behind(project: Project, api: FakeAPI, cli) -> None:
    found = cgroups_here()
    before = _mine(found)
    project.write("agent-config/config.toml", "build_max_processes = 64\nbuild_max_memory = 256\n")
    attacked(project, api, cli, FORK_BOMB.replace("500", "20"))
    assert _mine(found) - before == set()


def _mine(found: list[Hierarchy]) -> set[Path]:
    """This process's build cgroups: another test process's builds run alongside (pytest-xdist),
    each with its own."""
    return {p for h in found for p in h.own.glob(f"code-commit-*-{os.getpid()}-*")}


def test_under_cgroup_v2_code_commit_moves_into_a_leaf_of_its_own(tmp_path: Path) -> None:
    """cgroup v2's "no internal processes" rule: a cgroup holding code-commit cannot give its children
    a controller. code-commit moves itself into a leaf of its own and enables it; where another
    process shares the cgroup, it moves back and makes none. On the kernel's v2 hierarchy, with the
    controller it gives here (this machine's v2 holds hugetlb; pids and memory are v1's)."""
    mount = _unified_mount()
    available = (mount / "cgroup.controllers").read_text().split() if mount else []
    if not available:
        if REQUIRED:
            pytest.fail("CI's kernel mounts cgroup v2 with a controller: this test must run", pytrace=False)
        pytest.skip("no cgroup v2 hierarchy with a controller here")
    if not os.access(mount / "cgroup.subtree_control", os.W_OK):  # not root, or a read-only cgroupfs
        if REQUIRED:
            pytest.fail("CI runs as root, with cgroup v2 writable: this test must run", pytrace=False)
        pytest.skip("cgroup v2 is not writable by this user")
    controller = available[0]
    home = mount / _own_paths(Path("/proc/self/cgroup").read_text())[""].lstrip("/")
    if home != mount:  # cgroup v2 only: the tests above make the build's cgroups through the same code
        pytest.skip("this process is not in cgroup v2's root, which alone may hold processes and give controllers")
    own = home / f"caller-of-{os.getpid()}"
    with given_to_children(home, controller), moved_into(own, home):
        assert cgroups.enable_controllers(own, [controller])
        assert controller in (own / "cgroup.subtree_control").read_text().split()
        leaf = own / cgroups.self_name()
        assert str(os.getpid()) in (leaf / "cgroup.procs").read_text().split()
        found = cgroups.hierarchies([controller], _mountinfo(), Path("/proc/self/cgroup").read_text())
        assert found is not None and found[0].own == own  # the builds go beside the leaf, not under it
        (home / "cgroup.procs").write_text(str(os.getpid()))
        leaf.rmdir()
        (own / "cgroup.subtree_control").write_text(f"-{controller}")
        (own / "cgroup.procs").write_text(str(os.getpid()))
        sleeper = subprocess.Popen(["sleep", "3600"])
        try:
            (own / "cgroup.procs").write_text(str(sleeper.pid))
            assert not cgroups.enable_controllers(own, [controller])
            assert str(os.getpid()) in (own / "cgroup.procs").read_text().split()  # moved back
            assert not leaf.exists()
        finally:
            sleeper.kill()
            sleeper.wait()


@contextlib.contextmanager
def given_to_children(folder: Path, controller: str) -> Iterator[None]:
    """`controller` enabled for `folder`'s children (as a caller's cgroup would give it), then as it was."""
    control = folder / "cgroup.subtree_control"
    if controller in control.read_text().split():
        yield
        return
    control.write_text(f"+{controller}")
    try:
        yield
    finally:
        control.write_text(f"-{controller}")


def _mountinfo() -> str:
    return Path("/proc/self/mountinfo").read_text()


def _unified_mount() -> Path | None:
    for line in _mountinfo().splitlines():
        fields = line.split()
        if "-" in fields and fields[fields.index("-") + 1] == "cgroup2":
            return Path(fields[4])
    return None


HYBRID = """\
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
UNIFIED = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


@pytest.mark.parametrize(
    ("mountinfo", "own", "expected"),
    [
        (
            HYBRID,
            "8:pids:/\n4:memory:/process_api/abc\n0::/\n",
            [
                Hierarchy(Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/pids"), False, ("pids",)),
                Hierarchy(
                    Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup/memory/process_api/abc"), False, ("memory",)
                ),
            ],
        ),
        (
            UNIFIED,
            "0::/system.slice/cron.service\n",
            [
                Hierarchy(
                    Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/system.slice/cron.service"), True, ("pids", "memory")
                )
            ],
        ),
        (  # code-commit in its own leaf already (an earlier build): the builds go beside it
            UNIFIED,
            "0::/user.slice/s.scope/code-commit-4026531836-77-self\n",
            [Hierarchy(Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/user.slice/s.scope"), True, ("pids", "memory"))],
        ),
        (  # pids in no v1 hierarchy: cgroup v2's, where code-commit will look whether it holds it
            HYBRID.replace("rw,pids", "rw,freezer"),
            "4:memory:/\n0::/ci\n",
            [
                Hierarchy(Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup/unified/ci"), True, ("pids",)),
                Hierarchy(Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup/memory"), False, ("memory",)),
            ],
        ),
        (HYBRID.replace("cgroup2 cgroup2", "tmpfs tmpfs"), "8:pids:/\n", None),  # memory mounted nowhere
        ("", "0::/\n", None),  # no cgroup mounted here
    ],
)
def test_where_the_build_s_cgroups_go(mountinfo: str, own: str, expected: list[Hierarchy] | None) -> None:
    assert cgroups.hierarchies(["pids", "memory"], mountinfo, own) == expected


def test_the_defaults_bound_processes_and_a_cgroup_s_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "_physical_memory", lambda: 16 << 30)
    monkeypatch.setattr(cgroups, "caller_memory_limit", lambda: None)
    assert BuildLimits.of(Settings()) == BuildLimits(4096, 12 << 30, memory_set=False)
    monkeypatch.setattr(cgroups, "caller_memory_limit", lambda: 2 << 30)  # a caller's MemoryMax
    assert BuildLimits.of(Settings()) == BuildLimits(4096, 3 << 29, memory_set=False)
    assert BuildLimits.of(Settings(build_max_memory=512)) == BuildLimits(4096, 512 << 20, memory_set=True)
    assert BuildLimits.of(Settings(build_max_processes=0, build_max_memory=0)) == BuildLimits(None, None)
    assert {limits.PROCESSES, limits.MEMORY} <= set(SETTING_NAMES)


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


def test_a_build_inside_a_limited_build_keeps_the_limit_it_is_under() -> None:
    """code-commit's own build, sandboxed, runs sandboxed builds: as a user, the inner one asked for a
    higher hard RLIMIT_NPROC than the outer set, and every nested build failed with `ValueError: not
    allowed to raise maximum limit`. It gets the lower of the two (root may raise it: the test looks
    at the value)."""
    import resource
    import subprocess

    def outer() -> None:
        resource.setrlimit(resource.RLIMIT_NPROC, (500, 500))

    helper = [sys.executable, "-I", "-S", "-c", limits.HELPER, "100000", "0", "--"]
    hard = "import resource; print(resource.getrlimit(resource.RLIMIT_NPROC)[1])"
    done = subprocess.run(
        [*helper, sys.executable, "-I", "-S", "-c", hard], preexec_fn=outer, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "500"
