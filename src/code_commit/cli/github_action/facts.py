"""What the action knows once code-commit has run: the exit code it observed, and the record read
defensively.

The exit code is the process's own: a fact the action saw. The record is code-commit's `--json`
output, written by this checkout's code-commit but read here as data that may lack a key, hold a
wrong type or be no JSON at all (a run killed before it printed, a usage error the argument parser
answered, a record of another version): each such gap is a named problem in the summary, never an
exception that would hide the run's exit code.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_commit.config.paths import CONFIG_DIR, LOGS_DIR
from code_commit.exits import EXIT, outcome_name, outcome_names
from code_commit.schemas import SCHEMA_VERSION

RECORD_FILE = "record.json"  # code-commit's stdout, in the action's folder
_RAN_FILE = "ran.json"  # the run step's facts: the exit code, the project, the setup problem
_RECORD_BYTES = 32 << 20  # a record is a few kilobytes; more is read as no record
NOT_RUN = "code-commit did not run: an earlier step of the action failed (its log says why)"


@dataclass(frozen=True)
class Ran:
    """What the run step observed: code-commit's exit code, or the action's own setup problem."""

    exit_code: int
    project: str | None = None
    problem: str | None = None  # the action's setup error (exit 2): nothing was sent to the model

    def save(self, folder: Path) -> None:
        text = json.dumps({"exit_code": self.exit_code, "project": self.project, "problem": self.problem})
        (folder / _RAN_FILE).write_text(text + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path | None) -> Ran:
        try:
            data = json.loads((folder / _RAN_FILE).read_text(encoding="utf-8")) if folder else None
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or type(data.get("exit_code")) is not int:
            return cls(EXIT.SETUP, problem=NOT_RUN)
        project, problem = data.get("project"), data.get("problem")
        return cls(
            data["exit_code"],
            project if isinstance(project, str) else None,
            problem if isinstance(problem, str) else None,
        )


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    thinking_tokens: int = 0
    estimated: bool = False


@dataclass(frozen=True)
class Facts:
    exit_code: int
    outcome: str  # a name code-commit's records use: the record's, or the exit code's
    record_path: Path | None  # None: no record could be read
    problems: tuple[str, ...] = ()  # the action's setup problem, and what the record lacked
    error: str | None = None  # the record's `error`: what ended the run (hostile text)
    cost_usd: float | None = None
    files: tuple[str, ...] = ()  # written and deleted, sorted (paths the model chose)
    deleted: frozenset[str] = frozenset()
    log_dir: Path | None = None  # the run folder, when it is where code-commit keeps run folders
    calls: int | None = None
    usage: Usage | None = None
    duration_s: float | None = None
    last_build: Mapping[str, Any] | None = None
    model: str | None = None
    schema_version: int | None = None
    project: Path | None = None


def read_facts(folder: Path | None) -> Facts:
    ran = Ran.load(folder)
    project = Path(ran.project) if ran.project else None
    problems = [ran.problem] if ran.problem else []
    record, path = _load_record(folder)
    if record is None:
        if ran.problem is None and folder is not None:
            problems.append("code-commit printed no JSON record (its log above says why)")
        return Facts(ran.exit_code, outcome_name(ran.exit_code), None, tuple(problems), project=project)
    reader = _Reader(record, problems)
    version = reader.integer("schema_version")
    if version is not None and version != SCHEMA_VERSION:
        problems.append(f"the record is schema version {version}; this action reads version {SCHEMA_VERSION}")
    recorded_code = reader.integer("exit_code")
    if recorded_code is not None and recorded_code != ran.exit_code:
        problems.append(f"the record says exit code {recorded_code}, but code-commit exited {ran.exit_code}")
    outcome = reader.text("outcome")
    if outcome is not None and outcome not in outcome_names():
        problems.append(f"the record's outcome is not one code-commit names: {outcome[:100]!r}")
        outcome = None
    if outcome is None or recorded_code != ran.exit_code:
        outcome = outcome_name(ran.exit_code)
    changed, deleted = reader.paths("files_changed"), reader.paths("files_deleted")
    # Every key is read before the problems are collected into the facts.
    error, cost = reader.text("error", nullable=True), reader.number("cost_usd", nullable=True)
    log_dir = _run_folder(reader.text("log_dir", nullable=True), project, problems)
    calls, usage, duration = len(reader.items("calls")), reader.usage("usage"), reader.number("duration_s")
    last_build, model = reader.mapping("last_build"), reader.text("model", nullable=True)
    return Facts(
        exit_code=ran.exit_code,
        outcome=outcome,
        record_path=path,
        problems=tuple(problems),
        error=error,
        cost_usd=cost,
        files=tuple(sorted(set(changed) | set(deleted))),
        deleted=frozenset(deleted),
        log_dir=log_dir,
        calls=calls,
        usage=usage,
        duration_s=duration,
        last_build=last_build,
        model=model,
        schema_version=version,
        project=project,
    )


def _load_record(folder: Path | None) -> tuple[dict[str, Any] | None, Path | None]:
    if folder is None:
        return None, None
    path = folder / RECORD_FILE
    try:
        with open(path, "rb") as file:
            data = file.read(_RECORD_BYTES + 1)
        record = json.loads(data) if len(data) <= _RECORD_BYTES else None
    except (OSError, ValueError):
        return None, None
    return (record, path) if isinstance(record, dict) else (None, None)


def _run_folder(value: str | None, project: Path | None, problems: list[str]) -> Path | None:
    """The record's run folder, if it is a folder where code-commit keeps them: one under the
    project's agent-config/logs/. Anything else is not uploaded."""
    if value is None:
        return None
    if project is None:
        return None
    logs = os.path.realpath(project / CONFIG_DIR / LOGS_DIR)
    real = os.path.realpath(value)
    if os.path.dirname(real) != logs or not os.path.isdir(real):
        problems.append(f"the record's log_dir is not a run folder under {CONFIG_DIR}/{LOGS_DIR}/: not uploaded")
        return None
    return Path(real)


class _Reader:
    """Typed reads of the record's keys; each missing or mistyped key becomes a problem."""

    def __init__(self, record: Mapping[str, Any], problems: list[str]) -> None:
        self.record, self.problems = record, problems

    def _get(self, key: str, kinds: tuple[type, ...], what: str, nullable: bool) -> Any:
        if key not in self.record:
            self.problems.append(f"the record has no `{key}`")
            return None
        value = self.record[key]
        if value is None and nullable:
            return None
        if not isinstance(value, kinds) or isinstance(value, bool) is not (bool in kinds):
            self.problems.append(f"the record's `{key}` is not {what}")
            return None
        return value

    def integer(self, key: str) -> int | None:
        value: int | None = self._get(key, (int,), "a whole number", False)
        return value

    def number(self, key: str, nullable: bool = False) -> float | None:
        value = self._get(key, (int, float), "a number", nullable)
        return float(value) if value is not None and math.isfinite(value) else None

    def text(self, key: str, nullable: bool = False) -> str | None:
        value: str | None = self._get(key, (str,), "text", nullable)
        return value

    def mapping(self, key: str) -> Mapping[str, Any] | None:
        value: Mapping[str, Any] | None = self._get(key, (dict,), "an object", True)
        return value

    def items(self, key: str) -> list[Any]:
        value: list[Any] | None = self._get(key, (list,), "a list", False)
        return value or []

    def paths(self, key: str) -> list[str]:
        values = self.items(key)
        if not all(isinstance(value, str) for value in values):
            self.problems.append(f"the record's `{key}` holds something other than paths")
        return [value for value in values if isinstance(value, str)]

    def usage(self, key: str) -> Usage | None:
        data = self.mapping(key)
        if data is None:
            return None
        counts = {
            name: data[name]
            for name in ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens", "thinking_tokens")
            if type(data.get(name)) is int
        }
        return Usage(**counts, estimated=data.get("estimated") is True)
