"""One task of the repair corpus, read from bench/repair/vendor/<id>/ (docs/benchmarks.md: the format).

A task is a broken project snapshot (project/), what a user would ask (task.toml's query), and the known
fix (fix/: each file's whole new content). Every bad task.toml is a `TaskError` naming the file and the
key, so a corpus cannot be half read.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TASKS = Path(__file__).resolve().parent / "vendor"  # named vendor: upstream snapshots, not our code
TASK_FILE = "task.toml"
PROJECT = "project"
FIX = "fix"

ECOSYSTEMS = ("python-pip", "python-uv", "node-npm", "node-pnpm", "c-make", "c-cmake", "rust-cargo", "go", "java")
BREAKS = ("history", "mutation", "impossible")
EXPECTS = {"history": "pass", "mutation": "pass", "impossible": "needs_human"}  # the only right ending of each
STRINGS = ("id", "ecosystem", "project", "upstream", "commit", "licence", "break", "break_source", "query", "expect")
LISTS = ("delete", "tests")
FIELDS = {"break": "break_kind"}  # task.toml's keys that are a Python keyword, and their field's name
MARK = "^^^"  # a line of a ^^^path block's content may not begin with it (answer/caret_blocks.py)


class TaskError(ValueError):
    """A task that cannot be read as the format says: the message names the file and the key."""


@dataclass(frozen=True)
class FixFile:
    path: str  # relative to project/, with "/"
    content: str


@dataclass(frozen=True)
class Task:
    id: str
    ecosystem: str
    project: str
    upstream: str
    commit: str
    licence: str
    break_kind: str  # task.toml's `break`
    break_source: str
    query: str
    expect: str  # "pass" or "needs_human"
    delete: tuple[str, ...]
    tests: tuple[str, ...]
    folder: Path
    fix: tuple[FixFile, ...]

    @property
    def project_dir(self) -> Path:
        return self.folder / PROJECT

    @property
    def impossible(self) -> bool:
        return self.expect == "needs_human"

    def answer(self) -> str:
        """The known fix as a model would answer it: ^^^path blocks, or, for an impossible task, the
        task handed back to a person (the only right answer there)."""
        if self.impossible:
            return f"{MARK}needs-human\nThe tests contradict the query: {self.break_source}\n{MARK}end\n"
        blocks = [f"{MARK}{fix.path}\n{fix.content}{MARK}end\n" for fix in self.fix]
        blocks += [f"{MARK}{path}\n{MARK}delete\n" for path in self.delete]
        return "\n".join(blocks)


def load_task(folder: Path) -> Task:
    """The task in `folder`; a `TaskError` naming the file and the key for anything the format forbids."""
    source = folder / TASK_FILE
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise TaskError(f"{source}: cannot be read as TOML: {error}") from None
    unknown = sorted(set(data) - {*STRINGS, *LISTS})
    if unknown:
        raise TaskError(f"{source}: unknown key {unknown[0]!r} (the keys are {', '.join((*STRINGS, *LISTS))})")
    values = {key: _string(source, data, key) for key in STRINGS}
    lists = {key: _paths(source, data, key) for key in LISTS}
    _one_of(source, "ecosystem", values["ecosystem"], ECOSYSTEMS)
    _one_of(source, "break", values["break"], BREAKS)
    if values["id"] != folder.name:
        raise TaskError(f"{source}: key 'id' is {values['id']!r}, not the folder's name {folder.name!r}")
    if values["expect"] != EXPECTS[values["break"]]:
        raise TaskError(
            f"{source}: key 'expect' is {values['expect']!r}; a {values['break']!r} task expects "
            f"{EXPECTS[values['break']]!r}"
        )
    if not lists["tests"]:
        raise TaskError(f"{source}: key 'tests' is empty: name the tests that must pass")
    fix = _fix_files(folder / FIX, source)
    if values["break"] == "impossible" and (fix or lists["delete"]):
        raise TaskError(f"{source}: an impossible task has no fix: fix/ and key 'delete' must be empty")
    if values["break"] != "impossible" and not (fix or lists["delete"]):
        raise TaskError(f"{source}: fix/ is empty and key 'delete' too: a task needs its known fix")
    if not (folder / PROJECT).is_dir():
        raise TaskError(f"{source}: the task has no {PROJECT}/ folder beside it")
    strings = {FIELDS.get(key, key): value for key, value in values.items()}
    return Task(**strings, **lists, folder=folder, fix=fix)


def load_tasks(root: Path = TASKS, only: tuple[str, ...] = ()) -> tuple[Task, ...]:
    """Every task under `root` (or those `only` names), by id; a name `only` gives that is no task is a
    `TaskError`, so a typo never measures fewer tasks than asked for."""
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if only:
        known = {p.name for p in folders}
        if missing := [name for name in only if name not in known]:
            raise TaskError(f"{root}: no task {', '.join(missing)}")
        folders = [p for p in folders if p.name in only]
    return tuple(load_task(folder) for folder in folders)


def _string(source: Path, data: dict[str, Any], key: str) -> str:
    if key not in data:
        raise TaskError(f"{source}: key {key!r} is missing")
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise TaskError(f"{source}: key {key!r} must be a non-empty string, not {value!r}")
    return value


def _paths(source: Path, data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise TaskError(f"{source}: key {key!r} must be a list of non-empty strings, not {value!r}")
    for item in value:
        if item.startswith("/") or ".." in item.split("/"):
            raise TaskError(f"{source}: key {key!r} holds {item!r}: paths are relative to {PROJECT}/, inside it")
    return tuple(value)


def _one_of(source: Path, key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise TaskError(f"{source}: key {key!r} is {value!r}, not one of {', '.join(allowed)}")


def _fix_files(folder: Path, source: Path) -> tuple[FixFile, ...]:
    """fix/'s files as ^^^path blocks can carry them: UTF-8 text ending in a newline, no line a marker."""
    if not folder.is_dir():
        return ()
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink()):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            raise TaskError(f"{source}: {FIX}/{name} is a symlink; a fix holds files")
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise TaskError(f"{source}: {FIX}/{name} is not UTF-8 text; a ^^^path block cannot carry it") from None
        if content and not content.endswith("\n"):
            raise TaskError(f"{source}: {FIX}/{name} does not end with a newline; a ^^^path block always writes one")
        if any(line.startswith(MARK) for line in content.splitlines()):
            raise TaskError(f"{source}: {FIX}/{name} has a line beginning with {MARK}; no answer can write it")
        files.append(FixFile(name, content))
    return tuple(files)
