"""docs/architecture.md's module list against the source tree: every module and package is listed
where it lives, and nothing listed is gone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "code_commit"
DATA = SOURCE / "cli" / "demo" / "project"  # the demo's bundled project: data, not modules


def listed() -> set[str]:
    """The entries of the page's tree, as paths below src/code_commit/: an entry is a name at an
    even indent of at most 8 (deeper lines continue a description); two spaces a level."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    tree = page.split("\nsrc/code_commit/\n", 1)[1].split("\n```", 1)[0]
    folders: list[str] = []
    entries = set()
    for line in tree.splitlines():
        entry = re.match(r"^( +)([\w.]+(?:\.py|\.toml|/))(?:\s|$)", line)
        if not entry or len(entry.group(1)) > 8:
            continue
        depth = len(entry.group(1)) // 2 - 1
        name = entry.group(2)
        folders = folders[:depth]
        entries.add("".join(folders) + name)
        if name.endswith("/"):
            folders.append(name)
    return entries


def modules() -> set[str]:
    found = set()
    for path in SOURCE.rglob("*.py"):
        if "__pycache__" in path.parts or DATA in path.parents:
            continue
        relative = path.relative_to(SOURCE)
        if path.name == "__init__.py":
            if relative.parent != Path("."):
                found.add(f"{relative.parent}/")
        else:
            found.add(str(relative))
    return found


def test_every_module_and_package_is_listed_where_it_lives() -> None:
    present = modules()
    assert len(present) > 100
    assert sorted(present - listed()) == []


def test_nothing_listed_is_gone() -> None:
    gone = [entry for entry in listed() if not (SOURCE / entry).exists()]
    assert gone == []
