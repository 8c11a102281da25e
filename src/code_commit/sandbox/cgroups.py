"""Where a build's cgroups go: nested under code-commit's own, in each hierarchy that holds a
controller the build's limits need (cgroup v2: one; v1: pids and memory apart).

code-commit's own cgroup is its caller's (a systemd service's, a CI runner's slice, a login
session's): a build nested there stays inside the caller's limits, and its memory cap is derived
from them (`caller_memory_limit`). Where is read from the kernel: /proc/self/mountinfo says where
each hierarchy is mounted, /proc/self/cgroup where code-commit is in it.

cgroup v2 lets no cgroup with processes give controllers to its children (the "no internal
processes" rule): where the caller's cgroup has not enabled them for its children,
code-commit moves itself into a leaf of its own (`code-commit-<ns>-<pid>-self`) and enables them,
as nsjail does, and as systemd asks of a service with Delegate=yes. Where others share the caller's
cgroup, or it is not code-commit's to write (not delegated), nothing is changed there and the build
gets resource limits instead (limits.py).

Every cgroup made is named `code-commit-<pid namespace>-<pid>-<n>` (or `-self`): a run killed
with SIGKILL leaves its cgroups behind, and the next run in the same cgroup removes those whose
process is dead in its own PID namespace and that hold no process (`sweep`), looking at a bounded
number of entries.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
_OWN = Path("/proc/self/cgroup")
_PID_NAMESPACE = Path("/proc/self/ns/pid")
_PREFIX = "code-commit-"
_SELF = "self"  # the leaf code-commit moves itself into under cgroup v2
NAME = re.compile(rf"{_PREFIX}(\d+)-(\d+)-(\d+|{_SELF})")
_SWEEP_ENTRIES = 4096  # entries of a cgroup folder the sweep looks at, at most (a cgroup's own files: ~40)
_UNLIMITED = 1 << 62  # cgroup v1 states "no limit" as the largest page-aligned number; 4 EiB is no limit
_names = itertools.count()
_swept: set[Path] = set()


@dataclass(frozen=True)
class Hierarchy:
    """One cgroup hierarchy holding some of the controllers a build needs, and code-commit's
    cgroup in it (`own`: a folder under `mount`)."""

    mount: Path
    own: Path
    unified: bool  # cgroup v2
    controllers: tuple[str, ...]  # of those asked for, the ones this hierarchy holds


def hierarchies(controllers: Sequence[str], mountinfo: str, own: str) -> list[Hierarchy] | None:
    """The hierarchies holding `controllers`, with code-commit's cgroup in each, from the texts of
    /proc/self/mountinfo and /proc/self/cgroup; None where a controller is in none that is mounted
    here (a v1 controller is held where a v1 hierarchy names it, the others by v2, if mounted)."""
    mounts = _cgroup_mounts(mountinfo)
    paths = _own_paths(own)
    found: dict[tuple[Path, Path, bool], list[str]] = {}
    for controller in controllers:
        located = _locate(controller, mounts, paths)
        if located is None:
            return None
        found.setdefault(located, []).append(controller)
    return [Hierarchy(mount, folder, unified, tuple(held)) for (mount, folder, unified), held in found.items()]


def _cgroup_mounts(mountinfo: str) -> list[tuple[Path, str, str, set[str]]]:
    """(mount point, its root in the hierarchy, fstype, super options) of each cgroup mount."""
    mounts = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if len(fields) < dash + 4 or dash < 5 or fields[dash + 1] not in ("cgroup", "cgroup2"):
            continue
        root, point = _unescape(fields[3]), _unescape(fields[4])
        mounts.append((Path(point), root, fields[dash + 1], set(fields[dash + 3].split(","))))
    return mounts


def _own_paths(own: str) -> dict[str, str]:
    """Each controller's cgroup path in /proc/self/cgroup ("" for the v2 hierarchy)."""
    paths: dict[str, str] = {}
    for line in own.splitlines():
        number, _, rest = line.partition(":")
        names, _, path = rest.partition(":")
        if not number.isdigit() or not path.startswith("/"):
            continue
        for name in names.split(",") if names else [""]:
            paths.setdefault(name, path)
    return paths


def _locate(
    controller: str, mounts: list[tuple[Path, str, str, set[str]]], paths: dict[str, str]
) -> tuple[Path, Path, bool] | None:
    for point, root, fstype, options in mounts:
        unified = fstype == "cgroup2"
        if (controller not in options and not unified) or (unified and _held_by_v1(controller, mounts)):
            continue
        path = paths.get("" if unified else controller)
        if path is None:
            continue
        relative = os.path.relpath(path, root)
        if relative.startswith(".."):  # mounted from below code-commit's cgroup: not reachable here
            continue
        own = Path(os.path.normpath(point / relative))
        if own.name.startswith(_PREFIX) and own.name.endswith(f"-{_SELF}"):
            own = own.parent  # code-commit's own leaf (cgroup v2): the builds go beside it
        return point, own, unified
    return None


def _held_by_v1(controller: str, mounts: list[tuple[Path, str, str, set[str]]]) -> bool:
    return any(fstype == "cgroup" and controller in options for _, _, fstype, options in mounts)


def _unescape(field: str) -> str:
    """mountinfo's octal escapes (a space is \\040)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def located(controllers: Sequence[str]) -> list[Hierarchy] | None:
    """The hierarchies holding `controllers` for this process, or None (not Linux, a controller not
    mounted, /proc unreadable)."""
    try:
        return hierarchies(controllers, MOUNTINFO.read_text(), _OWN.read_text())
    except OSError:
        return None


def caller_memory_limit() -> int | None:
    """The smallest memory limit on the path up from code-commit's cgroup (its caller's, a
    systemd unit's MemoryMax, a CI runner's slice), in bytes; None where none is set or readable."""
    found = located(["memory"])
    if not found:
        return None
    hierarchy = found[0]
    limits = []
    folder = hierarchy.own
    while folder == hierarchy.mount or hierarchy.mount in folder.parents:
        for name in ("memory.max", "memory.limit_in_bytes"):
            with contextlib.suppress(OSError, ValueError):
                value = int((folder / name).read_text().strip())
                if value < _UNLIMITED:
                    limits.append(value)
        folder = folder.parent
    return min(limits, default=None)


def build_name() -> str:
    return f"{_PREFIX}{_namespace()}-{os.getpid()}-{next(_names)}"


def self_name() -> str:
    return f"{_PREFIX}{_namespace()}-{os.getpid()}-{_SELF}"


def _namespace() -> int:
    """The PID namespace's inode: a pid means a process only in its own namespace."""
    try:
        return _PID_NAMESPACE.stat().st_ino
    except OSError:
        return 0


def enable_controllers(own: Path, controllers: Sequence[str]) -> bool:
    """Whether `own`'s children may get `controllers` (cgroup v2), enabling them where they are not
    yet. A cgroup holding processes cannot (EBUSY): code-commit then moves itself into a leaf of its
    own and tries again; if others still hold the cgroup, it moves back, and the answer is no."""
    control = own / "cgroup.subtree_control"
    try:
        missing = [name for name in controllers if name not in control.read_text().split()]
        if not missing:
            return True
        if any(name not in (own / "cgroup.controllers").read_text().split() for name in missing):
            return False  # the caller's own parent does not give them
        line = " ".join(f"+{name}" for name in missing)
        try:
            control.write_text(line)
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return False
        leaf = own / self_name()
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text("0")  # "0": the writer, every thread of it
        try:
            control.write_text(line)
            return True
        except OSError:
            (own / "cgroup.procs").write_text("0")
            leaf.rmdir()
            return False
    except OSError:
        return False


def sweep(own: Path) -> list[Path]:
    """Remove the cgroups a killed code-commit left in `own`: named as this module names them, in
    this PID namespace, by a process that is gone, holding no process. Once per folder and process;
    at most _SWEEP_ENTRIES entries looked at. Returns those removed."""
    if own in _swept:
        return []
    _swept.add(own)
    namespace, removed = _namespace(), []
    try:
        with os.scandir(own) as entries:
            names = [entry.name for entry in itertools.islice(entries, _SWEEP_ENTRIES)]
    except OSError:
        return []
    for name in names:
        match = NAME.fullmatch(name)
        if match is None or int(match.group(1)) != namespace or _alive(int(match.group(2))):
            continue
        folder = own / name
        try:
            if (folder / "cgroup.procs").read_text().strip():
                continue
            folder.rmdir()  # the kernel refuses one that still has a child cgroup or a process
        except OSError:
            continue
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True
