"""One task measured: its project prepared in a temporary folder, code-commit run on it in a mode, and
the result read from code-commit's record and its run folder (what ran, and for how long)."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .modes import Mode
from .results import TaskResult
from .task import Task
from .workspace import prepare

# builds/runner.py's BuildResult.describe(), as run.log records every build that ran to its end.
BUILD_LINE = re.compile(r"call (\d+): build\.sh exited with code (-?\d+) after ([0-9.]+) s$", re.MULTILINE)
BUILD_LOG = re.compile(r"^\d+-(new-tests-)?build\.txt$")  # logs/run_folder.py: NN-build.txt, NN-new-tests-build.txt
REFUSED_LOG = re.compile(r"^\d+-refused\.txt$")
BASELINE_CALL = "0"  # logs/run_folder.py's BASELINE_BUILD: the tree's own build before any answer


def measure(task: Task, mode: Mode, keep: Path | None = None) -> TaskResult:
    """Run `mode` on `task` in a new temporary repository (kept in `keep` when given)."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-repair-{task.id}-"))
    try:
        root = prepare(task, folder / "project")
        ran = mode.run(task, root)
        result = read_result(task, ran.record, ran.wall_s)
        if keep is not None:
            shutil.copytree(folder, keep / task.id, symlinks=True)
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def read_result(task: Task, record: dict[str, Any], wall_s: float) -> TaskResult:
    """The task's result from code-commit's record and the run folder it names (its files are code-commit's
    own: run.log's build lines, one NN-build.txt a build, one NN-refused.txt a refused answer)."""
    log_dir = Path(record["log_dir"]) if record.get("log_dir") else None
    names = [p.name for p in log_dir.iterdir()] if log_dir and log_dir.is_dir() else []
    run_log = (log_dir / "run.log").read_text(encoding="utf-8", errors="replace") if "run.log" in names else ""
    builds = BUILD_LINE.findall(run_log)
    calls = record.get("calls", [])
    usage = record.get("usage", {})
    return TaskResult(
        task=task.id,
        ecosystem=task.ecosystem,
        expect=task.expect,
        outcome=str(record["outcome"]),
        exit_code=int(record["exit_code"]),
        calls=len(calls),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        cost_usd=record.get("cost_usd"),
        refused_answers=sum(bool(REFUSED_LOG.match(name)) for name in names),
        builds=sum(bool(BUILD_LOG.match(name)) for name in names),
        baseline_failed=any(call == BASELINE_CALL and code != "0" for call, code, _ in builds),
        wall_s=round(wall_s, 3),
        model_s=round(sum(float(call["duration_s"]) for call in calls), 3),
        build_s=round(sum(float(seconds) for _, _, seconds in builds), 3),
        error=record.get("error"),
    )
