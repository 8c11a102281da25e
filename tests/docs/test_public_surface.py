"""Each package's public surface, pinned: the names other packages import from it.

A package is a folder of src/code_commit (`run`, `llm`, ...) or a top-level module (`errors`).
What one package imports from another is read from the source (ast), and must be exactly what
public_surface.toml lists, so a new crossing between rooms, or a name no other room uses any
longer, is a deliberate change that shows in review. After such a change, write the file anew:

    python tests/docs/test_public_surface.py
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "code_commit"
PINNED = Path(__file__).with_name("public_surface.toml")
DATA = SOURCE / "cli" / "demo" / "project"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def crossings() -> dict[str, dict[str, list[str]]]:
    """package -> its module (below code_commit) -> the names other packages import from it."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(SOURCE.rglob("*.py")):
        if "__pycache__" in path.parts or DATA in path.parents:
            continue
        importer = module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            crossing = isinstance(node, ast.ImportFrom) and (node.module or "").startswith("code_commit.")
            if crossing and package(node.module) != package(importer):
                target = node.module.removeprefix("code_commit.")
                found[package(node.module)][target].update(alias.name for alias in node.names)
    return {p: {m: sorted(names) for m, names in sorted(ms.items())} for p, ms in sorted(found.items())}


def render(surface: dict[str, dict[str, list[str]]]) -> str:
    lines = [
        f"# The names each package's modules give other packages ({PINNED.name} is written by",
        "# tests/docs/test_public_surface.py; review each change).",
        "",
    ]
    for pkg, modules in surface.items():
        lines.append(f"[{pkg}]")
        lines += [
            f'"{module}" = [{", ".join(repr(n).replace(chr(39), chr(34)) for n in names)}]'
            for module, names in modules.items()
        ]
        lines.append("")
    return "\n".join(lines)


def test_the_packages_public_surface_is_the_pinned_one() -> None:
    surface = crossings()
    assert len(surface) > 15, "the imports were read"
    pinned = tomllib.loads(PINNED.read_text())
    assert surface == pinned, (
        "a package's public surface changed: review it, then run python tests/docs/test_public_surface.py"
    )


if __name__ == "__main__":
    PINNED.write_text(render(crossings()))
    sys.exit(0)
