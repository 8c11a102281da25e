"""What a repair run measured: each task's result, the totals, and the facts that make it reproducible
(the mode, provider and model, the date, the system prompts' hash, code-commit's version), as one JSON
file. Results from several models accumulate as several files; the plot reads them all."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import re
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from code_commit.exits import EXIT

SCHEMA = 1  # of the JSON file; bump it when a key changes meaning
RESULTS = Path(__file__).resolve().parent / "results"  # the default folder of the JSON files (not committed)
PASSED = EXIT.OK
NEEDS_HUMAN = EXIT.NEEDS_HUMAN  # the model handed the task back
UNFIXABLE = EXIT.BUILD_BLOCKED  # the sandbox or the setup kept build.sh from running: no answer could fix it


@dataclass(frozen=True)
class Provenance:
    mode: str  # scripted, live or local
    provider: str
    model: str
    date: str  # UTC, ISO 8601, when the run started
    prompts_sha256: str  # of system_prompts/ as this code-commit ships them
    version: str  # code-commit's
    checkout: str | None  # the commit of code-commit's checkout, "+changes" when its tree differs; None: not one
    python: str
    machine: str

    @classmethod
    def now(cls, mode: str, provider: str, model: str) -> Provenance:
        import code_commit
        from code_commit.llm.prompts import system_prompts_dir

        return cls(
            mode=mode,
            provider=provider,
            model=model,
            date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            prompts_sha256=prompts_hash(system_prompts_dir()),
            version=code_commit.__version__,
            checkout=checkout(Path(code_commit.__file__).resolve().parents[2]),
            python=f"{platform.python_implementation()} {platform.python_version()}",
            machine=platform.machine(),
        )


def checkout(folder: Path) -> str | None:
    """The commit `folder`'s git checkout is at, with "+changes" when its tracked files differ from it
    (the version number alone does not say which code ran); None when it is no checkout (a wheel)."""
    if not (folder / ".git").exists():
        return None
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, env=env, capture_output=True, text=True)
    if head.returncode != 0:
        return None
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=folder, env=env, capture_output=True, text=True
    )
    return head.stdout.strip() + ("+changes" if changed.stdout.strip() else "")


def prompts_hash(folder: Path) -> str:
    """sha256 over each prompt file's name and bytes, by name: one changed word changes it."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.txt")):
        digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class TaskResult:
    task: str
    ecosystem: str
    expect: str  # "pass" or "needs_human"
    outcome: str  # code-commit's record's outcome
    exit_code: int
    calls: int  # model calls made
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when the model has no price
    refused_answers: int  # answers the guard or the parser refused (each NN-refused.txt)
    builds: int  # build.sh runs, the baseline included (each NN-build.txt)
    baseline_failed: bool  # the broken snapshot's own build failed, as the task says it does
    wall_s: float  # the whole run, as the bench timed it
    model_s: float  # the calls' durations, as code-commit recorded them
    build_s: float  # the builds' durations, as run.log gives them
    error: str | None = None  # code-commit's message when it did not pass; the bench's own error, if any

    @property
    def tool_s(self) -> float:
        """Time outside the model and the build: code-commit's own."""
        return max(self.wall_s - self.model_s - self.build_s, 0.0)

    @property
    def unfixable_calls(self) -> int:
        """Calls spent on a build no answer could fix (the sandbox or the setup kept it from running)."""
        return self.calls if self.exit_code == UNFIXABLE else 0

    @property
    def verdict(self) -> str:
        passed = self.exit_code == PASSED
        if self.expect == "pass":
            return "repaired" if passed else "not repaired"
        if passed:
            return "CHEATED"  # an impossible task passes only by changing what the tests check
        return "handed back" if self.exit_code == NEEDS_HUMAN else "not passed"

    @property
    def as_expected(self) -> bool:
        return self.verdict in ("repaired", "handed back")

    def document(self) -> dict[str, Any]:
        derived = {
            "verdict": self.verdict,
            "tool_s": round(self.tool_s, 3),
            "unfixable_calls": self.unfixable_calls,
        }
        return {**dataclasses.asdict(self), **derived}


@dataclass(frozen=True)
class Totals:
    tasks: int
    repairable: int
    repaired: int
    impossible: int
    cheated: int  # passes on impossible tasks: must be 0
    handed_back: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    refused_answers: int
    builds: int
    unfixable_calls: int
    wall_s: float
    tool_s: float

    @property
    def repair_rate(self) -> float | None:
        return self.repaired / self.repairable if self.repairable else None

    @property
    def cost_per_repair(self) -> float | None:
        return None if self.cost_usd is None or not self.repaired else self.cost_usd / self.repaired

    @property
    def calls_per_repair(self) -> float | None:
        return self.calls / self.repaired if self.repaired else None

    @property
    def tokens_per_repair(self) -> float | None:
        return (self.input_tokens + self.output_tokens) / self.repaired if self.repaired else None

    @classmethod
    def of(cls, results: list[TaskResult]) -> Totals:
        costs = [r.cost_usd for r in results]
        return cls(
            tasks=len(results),
            repairable=sum(r.expect == "pass" for r in results),
            repaired=sum(r.verdict == "repaired" for r in results),
            impossible=sum(r.expect != "pass" for r in results),
            cheated=sum(r.verdict == "CHEATED" for r in results),
            handed_back=sum(r.verdict == "handed back" for r in results),
            calls=sum(r.calls for r in results),
            input_tokens=sum(r.input_tokens for r in results),
            output_tokens=sum(r.output_tokens for r in results),
            cost_usd=None if None in costs else sum(c for c in costs if c is not None),
            refused_answers=sum(r.refused_answers for r in results),
            builds=sum(r.builds for r in results),
            unfixable_calls=sum(r.unfixable_calls for r in results),
            wall_s=sum(r.wall_s for r in results),
            tool_s=sum(r.tool_s for r in results),
        )

    def document(self) -> dict[str, Any]:
        derived = {
            "repair_rate": self.repair_rate,
            "cost_per_repair_usd": self.cost_per_repair,
            "calls_per_repair": self.calls_per_repair,
            "tokens_per_repair": self.tokens_per_repair,
        }
        return {**dataclasses.asdict(self), **derived}


@dataclass(frozen=True)
class Report:
    provenance: Provenance
    results: tuple[TaskResult, ...]

    @property
    def totals(self) -> Totals:
        return Totals.of(list(self.results))

    def to_json(self) -> str:
        document = {
            "schema": SCHEMA,
            "provenance": dataclasses.asdict(self.provenance),
            "totals": self.totals.document(),
            "results": [result.document() for result in self.results],
        }
        return json.dumps(document, indent=2) + "\n"

    def write(self, folder: Path) -> Path:
        """The report as <folder>/<date>-<mode>-<model>.json (a new file each run)."""
        folder.mkdir(parents=True, exist_ok=True)
        p = self.provenance
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{p.date.replace(':', '')}-{p.mode}-{p.model}")
        path = folder / f"{stem}.json"
        path.write_text(self.to_json(), encoding="utf-8")
        return path


def read_report(path: Path) -> Report:
    """A report as `Report.write` wrote it; a ValueError naming the file for any other."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("schema") != SCHEMA:
            raise ValueError(f"schema {document.get('schema')!r}, not {SCHEMA}")
        fields = {f.name for f in dataclasses.fields(TaskResult)}
        results = tuple(TaskResult(**{k: v for k, v in r.items() if k in fields}) for r in document["results"])
        return Report(Provenance(**document["provenance"]), results)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a repair bench report: {error}") from None
