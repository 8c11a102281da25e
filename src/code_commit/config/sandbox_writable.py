"""The `sandbox_writable` and `sandbox_readable` settings' paths: which folders outside the project
a build may write, and which under the host's /tmp it may read.

Checked when the settings load and again before each build (a build can change what is on disk).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

PRIVATE_TMP = Path("/tmp")  # the sandbox gives each build its own, empty: the host's is hidden
_SOCKET_LOOK = 10_000  # entries looked at for a socket, at most (then the folder counts as holding one)
_SOCKET_DEPTH = 1  # folders below the named one looked into: agents keep their sockets near the top


def writable_problem(path: str, root: Path, writable: Sequence[str] = ()) -> str | None:
    """Why an extra writable path cannot be one, or None. It must be absolute (after ~), and neither
    inside the project nor around it: either would make the project's protected files writable.
    Nor may it lead through a symlink inside the project or inside another writable path
    (`writable`, the whole list): a build can repoint such a link (`<cache>/pip -> /`), and bwrap,
    which follows it, would bind wherever it points writable at the next build."""
    expanded = Path(os.path.expanduser(path))
    if not expanded.is_absolute():
        return f"{path!r} is not an absolute path (or ~/...)"
    real = Path(os.path.realpath(expanded))
    project = Path(os.path.realpath(root))
    if real == project or project in real.parents:
        return f"{path!r} is inside the project, which is writable already (and agent-config/ never is)"
    if real in project.parents:
        return f"{path!r} contains the project: its protected files (.git, build.sh, agent-config/) would be writable"
    return _through_writable_link(path, expanded, project, writable)


def readable_problem(path: str, root: Path, writable: Sequence[str] = ()) -> str | None:
    """Why a path cannot be shown read-only to builds, or None. It must be under the host's /tmp,
    which is all the sandbox hides that a tool may live in (elsewhere everything is readable already),
    and not /tmp itself: its other users' files and sockets (an ssh-agent's) must stay hidden. A
    symlink on the way inside a writable path is refused as for sandbox_writable."""
    expanded = Path(os.path.normpath(os.path.expanduser(path)))
    if not expanded.is_absolute():
        return f"{path!r} is not an absolute path (or ~/...)"
    if expanded == PRIVATE_TMP or PRIVATE_TMP not in expanded.parents:
        return (
            f"{path!r} is not a folder under {PRIVATE_TMP}/: only the host's {PRIVATE_TMP} is hidden from builds "
            f"(everything else is readable already), and all of {PRIVATE_TMP} would show its sockets and other "
            "users' files; name the tool's own folder"
        )
    project = Path(os.path.realpath(root))
    real = Path(os.path.realpath(expanded))
    if real == project or project in real.parents:
        return f"{path!r} is inside the project, which builds can read already"
    try:
        owner = os.stat(expanded).st_uid
    except OSError:
        owner = None  # not there (yet): bwrap skips it
    if owner is not None and owner not in (os.geteuid(), 0):
        return f"{path!r} belongs to another user: in the shared {PRIVATE_TMP}, only your own folders can be shown"
    if holds_socket(str(expanded)):
        return f"{path!r} holds a Unix socket (an agent's, a server's): a build could talk to it; name one without"
    return _through_writable_link(path, expanded, project, writable)


def holds_socket(path: str) -> bool:
    """Whether the folder holds a Unix socket in it or in a folder of its own, without following
    symlinks: where agents and servers keep theirs (/tmp/ssh-XXXX/agent.N, /tmp/tmux-0/default, a
    project's run/ folder). Deeper, a virtualenv's thousands of files are not looked through. A folder
    too big to look through (_SOCKET_LOOK entries) counts as holding one."""
    seen = 0
    pending = [(path, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > _SOCKET_LOOK:
                        return True
                    mode = entry.stat(follow_symlinks=False).st_mode
                    if stat.S_ISSOCK(mode):
                        return True
                    if stat.S_ISDIR(mode) and depth < _SOCKET_DEPTH:
                        pending.append((entry.path, depth + 1))
        except OSError:
            continue  # not there, or not ours to read: nothing a build could see there either
    return False


def _through_writable_link(path: str, expanded: Path, project: Path, writable: Sequence[str]) -> str | None:
    """A symlink on the way to `expanded` inside the project or another writable path: a build can
    repoint it (`<cache>/pip -> /`), and bwrap, which follows it, would bind wherever it points."""
    places = [project, *(Path(os.path.realpath(os.path.expanduser(w))) for w in writable if w != path)]
    for link in _symlinks_on(expanded):
        if any(link == place or place in link.parents for place in places):
            return f"{path!r} leads through {str(link)!r}, a symlink a build can change (inside a writable path)"
    return None


def _symlinks_on(path: Path) -> list[Path]:
    """Each symlink met on the way to `path`, named by its real place (its folder resolved)."""
    links: list[Path] = []
    current = Path("/")
    for part in Path(os.path.normpath(path)).parts[1:]:
        candidate = current / part
        if candidate.is_symlink() and len(links) < 40:  # the kernel's own bound on links followed
            links.append(candidate)
            candidate = Path(os.path.realpath(candidate))
        current = candidate
    return links
