"""Each fact that can drift is declared once, and the code derives every other use from it: the names
of agent-config/ and of what it holds (config/paths.py), of the run folder's files
(logs/run_folder.py), the protected names (config/protected.py). (Exit codes: test_exit_codes.py.)

Scanned from the source: a string literal that uses one of those names as a value (a path, a file
name) anywhere but in its declaration is a second spelling, which a rename would leave behind.
Prose for people (a message, a help text: words with spaces) may name them."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from code_commit.config import paths, protected
from code_commit.logs import run_folder

SRC = Path(paths.__file__).resolve().parents[1]
DECLARATIONS = {SRC / "config" / "paths.py", SRC / "logs" / "run_folder.py", SRC / "config" / "protected.py"}


def declared_names(module: object) -> set[str]:
    """The names a module declares: its upper-case string constants that are one name (no path)."""
    return {
        value
        for key, value in vars(module).items()
        if key.isupper() and isinstance(value, str) and "/" not in value and "{" not in value and value != "-journal"
    }


@functools.cache
def nodes(path: Path) -> list[ast.AST]:
    """Every node of a module's syntax tree: parsed once for all the scans (parsing is their cost)."""
    return list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def literals(path: Path) -> list[tuple[int, str]]:
    """Every string (and bytes) literal of a module that reads as a value, not as prose."""
    found = []
    for node in nodes(path):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            text = node.value.decode("utf-8", "replace") if isinstance(node.value, bytes) else node.value
            if not re.search(r"\s", text.strip()):
                found.append((node.lineno, text))
    return found


def second_spellings(names: set[str], files: list[Path]) -> list[str]:
    """`file:line: literal` for each literal one of whose path components is a name (or NN-name)."""
    found = []
    for path in files:
        for line, text in literals(path):
            components = {re.sub(r"^\d+-", "", part) for part in text.strip().split("/")}
            if components & names:
                found.append(f"{path.name}:{line}: {text!r}")
    return found


def sources() -> list[Path]:
    return [path for path in sorted(SRC.rglob("*.py")) if path not in DECLARATIONS]


def lists_of(names: set[str], path: Path) -> list[str]:
    """Each tuple, list or set literal of a module that holds two or more of `names`, in any case: a
    second declaration of them (one name alone is a use: opening .gitignore, running build.sh)."""
    folded = {name.casefold() for name in names}
    found = []
    for node in nodes(path):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            held = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if sum(value.casefold() in folded for value in held) >= 2:
                found.append(f"{path.name}:{node.lineno}: {held}")
    return found


def test_each_fact_is_declared_once() -> None:
    """One test for the three scans: each parses every module, which is their cost, and under xdist
    three tests could pay it in three workers."""
    agent_config, run_folder_names = declared_names(paths), declared_names(run_folder) - {"logs"}
    assert agent_config and run_folder_names, "the declarations were found"
    protected_names = {*protected.DIRS_ANYWHERE, *protected.FILES_ANYWHERE, *protected.ROOT_DIRS, *protected.ROOT_FILES}
    found = {
        "a name of agent-config/ spelled twice": second_spellings(agent_config, sources()),
        "a name of a run folder's file spelled twice": second_spellings(run_folder_names, sources()),
        "protected names declared twice, or in another convention": [
            listed for path in sources() for listed in lists_of(protected_names, path)
        ],
    }
    assert found == {fact: [] for fact in found}


def test_the_scans_find_a_second_spelling(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        'LOG = "agent-config/logs"\nNOTE = "see agent-config/ for the logs"\nB = b"01-build.txt"\n'
        'ROOT = frozenset({"build.sh", "coderollup.sh"})\nONE = (".gitignore",)\n'
    )
    found = second_spellings({"agent-config", "build.txt"}, [planted])
    assert [item.split(": ", 1)[1] for item in found] == ["'agent-config/logs'", "'01-build.txt'"]
    assert [item.split(": ", 1)[0] for item in lists_of({"build.sh", "codeRollup.sh", ".gitignore"}, planted)] == [
        "planted.py:4"
    ]
