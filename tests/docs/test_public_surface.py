"""Each package's public surface, pinned: the names other packages import from it; and every other
top-level name private.

A package is a folder of src/code_commit (`run`, `llm`, ...) or a top-level module (`errors`).
What one package imports from another is read from the source (ast), and must be exactly what
public_surface.toml lists, so a new crossing between rooms, or a name no other room uses any
longer, is a deliberate change that shows in review. After such a change, write the file anew:

    python tests/docs/test_public_surface.py

A top-level name no other module uses (src, tests or bench) starts with `_`, so that what a module
offers is what its public names say.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "code_commit"
PINNED = Path(__file__).with_name("public_surface.toml")
DATA = SOURCE / "cli" / "demo" / "project"
USERS = (ROOT / "src", ROOT / "tests", ROOT / "bench")  # where a module's names may be used from
# Decorators that leave a function reached by its name; any other (typer's command) may register it.
PLAIN_DECORATORS = {"dataclass", "cache", "lru_cache", "contextmanager", "overload", "cached_property"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def crossings() -> dict[str, dict[str, list[str]]]:
    """package -> its module (below code_commit) -> the names other packages import from it."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path, tree in python_files().items():
        if SOURCE not in path.parents:
            continue
        importer = module_name(path)
        for node in ast.walk(tree):
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


@functools.cache
def python_files() -> dict[Path, ast.Module]:
    """Every module of src, tests and bench, parsed once a process (both tests read them)."""
    found = {}
    for base in USERS:
        for path in base.rglob("*.py"):
            skipped = {"__pycache__", "fixtures", "vendor"} & set(path.parts)
            if not skipped and DATA not in path.parents:
                found[path] = ast.parse(path.read_text())
    return found


def top_level_public(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            calls = (d.func if isinstance(d, ast.Call) else d for d in node.decorator_list)
            if all(getattr(d, "attr", getattr(d, "id", "")) in PLAIN_DECORATORS for d in calls):
                names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {name for name in names if not name.startswith("_")}


def used_from_outside(trees: dict[Path, ast.Module], modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the names other files use: imported from it, an attribute of it where it is imported
    as a module (or anywhere in a file that imports modules by name), or a word of a string (patch
    targets, lazy tables, entry points)."""
    used: dict[str, set[str]] = defaultdict(set)
    words: dict[Path, set[str]] = {}
    for path, tree in trees.items():
        as_modules: set[str] = set()
        strings: set[str] = set()
        attributes: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in modules:
                        as_modules.add(f"{node.module}.{alias.name}")
                    elif modules.get(node.module, path) != path:
                        used[node.module].add(alias.name)
            elif isinstance(node, ast.Import):
                as_modules.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.Attribute):
                attributes.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.update(re.findall(r"\w+", node.value))
        words[path] = strings
        for module in set(modules) if "import_module" in attributes else as_modules:
            if modules[module] != path:
                used[module] |= attributes
    files_with = Counter(word for strings in words.values() for word in strings)
    for module, path in modules.items():
        used[module].update(word for word in top_level_public(trees[path]) if files_with[word] > (word in words[path]))
    return used


def test_a_name_no_other_module_uses_is_private() -> None:
    trees = python_files()
    modules = {module_name(path): path for path in trees if SOURCE in path.parents}
    used = used_from_outside(trees, modules)
    unused = sorted(
        f"{module}.{name}" for module, path in modules.items() for name in top_level_public(trees[path]) - used[module]
    )
    assert len(modules) > 150, "the modules were read"
    assert unused == [], "used only in their own module: start each with _"


if __name__ == "__main__":
    PINNED.write_text(render(crossings()))
    sys.exit(0)
