"""How many processes, and how much memory, a sandboxed build may take: `build_max_processes` and
`build_max_memory`.

A fork bomb or a runaway allocation in the model's code would otherwise take the whole machine,
code-commit with it. Where code-commit can make a cgroup (root, with the pids and memory
controllers of cgroup v2 or v1 mounted writable), the build's processes go into a new one whose
`pids.max` and memory limit count the whole build. Elsewhere, resource limits do what they can:
RLIMIT_NPROC counts the user's processes (so it is set to those running now plus the limit; the
kernel never enforces it for root), and RLIMIT_DATA bounds each process's memory (only when
build_max_memory is set: it counts address space that sanitizers reserve and never use, so ASan
builds need a cgroup or no memory limit).

The limits are put in place by a small helper that bwrap is started through: it joins the cgroup
and sets the limits on itself, then execs bwrap, so every process the build starts inherits them
before it can start another. Where only a cgroup is to be joined (root, or a cgroup and no
resource limit), the helper is `sh`; resource limits need Python's (20 ms of CPU a build, against 1).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.settings import Settings

CGROUP_ROOT = Path("/sys/fs/cgroup")
DEFAULT_MEMORY_SHARE = 0.75  # of the machine's memory, a build's total by default (with a cgroup)
_names = itertools.count()

# Joins each cgroup whose cgroup.procs file it is given, sets RLIMIT_NPROC (processes running now for
# this user, plus the limit; `limited` passes 0 for root, whom the kernel exempts) and RLIMIT_DATA,
# then execs.
HELPER = """
import os, resource, sys
processes, data, *procs = sys.argv[1:sys.argv.index("--")]
command = sys.argv[sys.argv.index("--") + 1:]
for path in procs:
    with open(path, "w") as fh:
        fh.write(str(os.getpid()))
if int(data):
    resource.setrlimit(resource.RLIMIT_DATA, (int(data), int(data)))
if int(processes):
    uid = os.getuid()
    running = sum(1 for p in os.listdir("/proc") if p.isdigit() and os.stat("/proc/" + p).st_uid == uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (running + int(processes),) * 2)
try:
    os.execv(command[0], command)
except OSError as exc:
    sys.stderr.write("code-commit: could not start %s: %s\\n" % (command[0], exc.strerror))
    sys.exit(127)
"""


@dataclass(frozen=True)
class BuildLimits:
    processes: int | None  # tasks (processes and threads) of the whole build, at most; None: no limit
    memory: int | None  # bytes; None: no limit
    memory_set: bool = False  # given by the user: per process where no cgroup can hold the whole build

    @classmethod
    def of(cls, settings: Settings) -> BuildLimits:
        processes = settings.build_max_processes or None
        if settings.build_max_memory is None:
            physical = _physical_memory()
            return cls(processes, int(physical * DEFAULT_MEMORY_SHARE) if physical else None)
        return cls(processes, settings.build_max_memory * 2**20 or None, memory_set=settings.build_max_memory > 0)


NO_LIMITS = BuildLimits(None, None)


# Joins each cgroup whose cgroup.procs file it is given (its pid is the build's once it execs).
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; exec "$@"'


@contextlib.contextmanager
def limited(limits: BuildLimits) -> Iterator[list[str]]:
    """The command prefix that starts a build under `limits`: the helper, with the cgroup made for
    this build (removed afterwards, once the build's processes are gone)."""
    with _cgroup(limits) as procs:
        data = limits.memory if limits.memory and limits.memory_set and not procs else 0
        processes = limits.processes if limits.processes and os.getuid() != 0 else 0  # root: the kernel exempts
        if data or processes:
            yield [sys.executable, "-I", "-S", "-c", HELPER, str(processes), str(data), *procs, "--"]
        elif procs:
            yield ["/bin/sh", "-c", JOIN, "sh", *procs, "--"]
        else:
            yield []


@contextlib.contextmanager
def _cgroup(limits: BuildLimits) -> Iterator[list[str]]:
    """The cgroup.procs files of a new cgroup holding the limits, one per hierarchy (cgroup v2: one;
    v1: pids and memory), or none where code-commit cannot make one."""
    made: list[Path] = []
    try:
        procs = _make(limits, made)
    except OSError:
        procs = []
    try:
        yield procs
    finally:
        for folder in reversed(made):
            _remove(folder)


def _make(limits: BuildLimits, made: list[Path]) -> list[str]:
    if not (limits.processes or limits.memory) or not os.access(CGROUP_ROOT, os.W_OK | os.X_OK):
        return []
    name = f"code-commit-{os.getpid()}-{next(_names)}"
    unified = CGROUP_ROOT / "cgroup.controllers"
    if unified.exists():  # cgroup v2 at its root: the controllers must be enabled for its children
        enabled = (CGROUP_ROOT / "cgroup.subtree_control").read_text().split()
        if (limits.processes and "pids" not in enabled) or (limits.memory and "memory" not in enabled):
            return []
        folder = CGROUP_ROOT / name
        folder.mkdir()
        made.append(folder)
        if limits.processes:
            (folder / "pids.max").write_text(str(limits.processes))
        if limits.memory:
            (folder / "memory.max").write_text(str(limits.memory))
        return [str(folder / "cgroup.procs")]
    wanted = {"pids": ("pids.max", limits.processes), "memory": ("memory.limit_in_bytes", limits.memory)}
    if not all((CGROUP_ROOT / controller).is_dir() for controller, (_, value) in wanted.items() if value):
        return []
    procs = []
    for controller, (limit_file, value) in wanted.items():
        if value:
            folder = CGROUP_ROOT / controller / name
            folder.mkdir()
            made.append(folder)
            (folder / limit_file).write_text(str(value))
            procs.append(str(folder / "cgroup.procs"))
    return procs


def _remove(folder: Path, tries: int = 500) -> None:
    """Remove a build's cgroup. Its processes were killed with the sandbox's PID namespace, but the
    kernel finishes them a moment later: any still listed are killed again, and the removal tried a
    bounded number of times; one that cannot be removed is left (an empty cgroup costs nothing)."""
    for _ in range(tries):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            with contextlib.suppress(OSError, ValueError):
                for pid in (folder / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), signal.SIGKILL)
            time.sleep(0.01)


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None
