"""How many processes, and how much memory, a sandboxed build may take: `build_max_processes` and
`build_max_memory`; and the build ended as soon as it reaches either (`_CapWatch`).

A fork bomb or a runaway allocation in the model's code would otherwise take the whole machine,
code-commit with it. Where code-commit can make a cgroup (its own cgroup writable, with the pids and
memory controllers of cgroup v2 or v1), the build's processes go into a new one nested under
code-commit's own (cgroups.py), whose `pids.max` and memory limit count the whole build; by default
the memory cap is three quarters of the caller's own memory limit (or of the machine's, the smaller),
so code-commit keeps a share of it. Elsewhere, resource limits do what they can: RLIMIT_NPROC counts
the user's processes (so it is set to those running now plus the limit; the kernel never enforces it
for root), and RLIMIT_DATA bounds each process's memory (only when build_max_memory is set: it counts
address space that sanitizers reserve and never use, so ASan builds need a cgroup or no memory limit).

A build that reaches its process cap (its cgroup's "max" event: a fork was refused) or whose process
the kernel killed at its memory cap (an "oom_kill" event) is ended at once, and its result names the
setting: a fork bomb that keeps trying would otherwise spin until build_timeout.

The limits are put in place by a small helper that bwrap is started through: it joins the cgroup
and sets the limits on itself, then execs bwrap, so every process the build starts inherits them
before it can start another. Where only a cgroup is to be joined (root, or a cgroup and no
resource limit), the helper is `sh`; resource limits need Python's (20 ms of CPU a build, against 1).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.settings import Settings
from code_commit.sandbox import cgroups

_DEFAULT_MEMORY_SHARE = 0.75  # of the caller's memory limit (or the machine's), a build's total by default
PROCESSES = "build_max_processes"  # the settings that name each cap, as a result names the one reached
MEMORY = "build_max_memory"
REACHED = {  # what reaching each cap means, in words
    PROCESSES: "its cap on processes and threads (a fork was refused)",
    MEMORY: "its memory cap (the kernel killed one of its processes)",
}


@dataclass(frozen=True)
class _Controller:
    """A cgroup controller a cap needs: its files (cgroup v2's, v1's) and the setting it enforces."""

    limit: tuple[str, str]  # the file holding the cap
    events: tuple[str, str]  # the file counting the times the cap was reached...
    counter: str  # ...on its line of this name
    setting: str


_CONTROLLERS = {
    "pids": _Controller(("pids.max", "pids.max"), ("pids.events", "pids.events"), "max", PROCESSES),
    "memory": _Controller(
        ("memory.max", "memory.limit_in_bytes"), ("memory.events", "memory.oom_control"), "oom_kill", MEMORY
    ),
}

# Joins each cgroup whose cgroup.procs file it is given, sets RLIMIT_NPROC (processes running now for
# this user, plus the limit; `limited` passes 0 for root, whom the kernel exempts) and RLIMIT_DATA,
# each no higher than the one it runs under (a user may not raise a hard limit: code-commit's own
# tests run sandboxed builds inside its sandboxed build), then execs.
HELPER = """
import os, resource, sys
processes, data, *procs = sys.argv[1:sys.argv.index("--")]
command = sys.argv[sys.argv.index("--") + 1:]
for path in procs:
    with open(path, "w") as fh:
        fh.write(str(os.getpid()))
def within(kind, wanted):  # never above the limit this process is under (a build in a build)
    hard = resource.getrlimit(kind)[1]
    return (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),) * 2
if int(data):
    resource.setrlimit(resource.RLIMIT_DATA, within(resource.RLIMIT_DATA, int(data)))
if int(processes):
    uid = os.getuid()
    def owner(pid):
        try:
            return os.stat("/proc/" + pid).st_uid
        except OSError:  # it ended between the listing and the look
            return -1
    running = sum(1 for p in os.listdir("/proc") if p.isdigit() and owner(p) == uid)
    resource.setrlimit(resource.RLIMIT_NPROC, within(resource.RLIMIT_NPROC, running + int(processes)))
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
            known = [n for n in (_physical_memory(), cgroups.caller_memory_limit()) if n]
            return cls(processes, int(min(known) * _DEFAULT_MEMORY_SHARE) if known else None)
        return cls(processes, settings.build_max_memory * 2**20 or None, memory_set=settings.build_max_memory > 0)


NO_LIMITS = BuildLimits(None, None)


@dataclass(frozen=True)
class _CapWatch:
    """The counters of a build's cgroup that say it reached a cap: (events file, counter, setting)."""

    events: tuple[tuple[Path, str, str], ...] = ()

    def reached(self) -> str | None:
        """The setting whose cap the build reached, if it has: its processes were refused a fork, or
        the kernel killed one of them for memory."""
        for path, counter, setting in self.events:
            with contextlib.suppress(OSError, ValueError):
                for line in path.read_text().splitlines():
                    name, _, value = line.partition(" ")
                    if name == counter and int(value) > 0:
                        return setting
        return None


@dataclass(frozen=True)
class Confinement:
    """How a build is started under its limits: the command prefix, and what says it reached them."""

    prefix: tuple[str, ...] = ()
    watch: _CapWatch = _CapWatch()


# Joins each cgroup whose cgroup.procs file it is given (its pid is the build's once it execs).
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift; exec "$@"'


@contextlib.contextmanager
def limited(limits: BuildLimits) -> Iterator[Confinement]:
    """The command prefix that starts a build under `limits`: the helper, with the cgroups made for
    this build (removed afterwards, once the build's processes are gone), and their watch."""
    with _cgroup(limits) as (procs, watch):
        data = limits.memory if limits.memory and limits.memory_set and not procs else 0
        processes = limits.processes if limits.processes and os.getuid() != 0 else 0  # root: the kernel exempts
        if data or processes:
            yield Confinement(
                (sys.executable, "-I", "-S", "-c", HELPER, str(processes), str(data), *procs, "--"), watch
            )
        elif procs:
            yield Confinement(("/bin/sh", "-c", _JOIN, "sh", *procs, "--"), watch)
        else:
            yield Confinement()


@contextlib.contextmanager
def _cgroup(limits: BuildLimits) -> Iterator[tuple[list[str], _CapWatch]]:
    """The cgroup.procs files of a new cgroup holding the limits, one per hierarchy (cgroup v2: one;
    v1: pids and memory), and the watch of their events; none where code-commit cannot make one."""
    made: list[Path] = []
    try:
        procs, watch = _make(limits, made)
    except OSError:
        procs, watch = [], _CapWatch()
        for folder in reversed(made):
            _remove(folder)
        made.clear()
    try:
        yield procs, watch
    finally:
        for folder in reversed(made):
            _remove(folder)


def _make(limits: BuildLimits, made: list[Path]) -> tuple[list[str], _CapWatch]:
    values = {"pids": limits.processes, "memory": limits.memory}
    wanted = [controller for controller, value in values.items() if value]
    found = cgroups.located(wanted) if wanted else None
    if not found:
        return [], _CapWatch()
    for hierarchy in found:
        cgroups.sweep(hierarchy.own)
    if not all(_usable(hierarchy) for hierarchy in found):
        return [], _CapWatch()
    name, procs, events = cgroups.build_name(), [], []
    for hierarchy in found:
        folder = hierarchy.own / name
        folder.mkdir()
        made.append(folder)
        version = 0 if hierarchy.unified else 1
        for held in hierarchy.controllers:
            controller = _CONTROLLERS[held]
            (folder / controller.limit[version]).write_text(str(values[held]))
            events.append((folder / controller.events[version], controller.counter, controller.setting))
        procs.append(str(folder / "cgroup.procs"))
    return procs, _CapWatch(tuple(sorted(events, key=lambda event: event[2] != PROCESSES)))


def _usable(hierarchy: cgroups.Hierarchy) -> bool:
    """Whether code-commit may make the build's cgroup in its own: writable (delegated to it, or
    root), and under cgroup v2 with the controllers given to its children."""
    if not os.access(hierarchy.own, os.W_OK | os.X_OK):
        return False
    return not hierarchy.unified or cgroups.enable_controllers(hierarchy.own, hierarchy.controllers)


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
