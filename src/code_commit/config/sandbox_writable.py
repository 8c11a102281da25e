"""The `sandbox_writable` setting's paths: which folders outside the project a build may write.

Checked when the settings load and again before each build (a build can change what is on disk).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


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
