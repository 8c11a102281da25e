"""The plot's points: the latest live or local report of each model in the folder, its repair rate and
cost per repair; scripted reports (the tool alone) are not a model's. (Drawing them needs matplotlib, the
`bench` extra's, which the test extra does not install.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bench.repair.plot import Point, points
from bench.repair.results import Provenance, Report, TaskResult


def result(task: str, exit_code: int, cost: float | None, expect: str = "pass") -> TaskResult:
    return TaskResult(task, "python-pip", expect, "x", exit_code, 2, 100, 10, cost, 0, 2, True, 3.0, 1.0, 1.0)


def write(folder: Path, mode: str, model: str, date: str, *results: TaskResult) -> None:
    provenance = dataclasses.replace(Provenance.now(mode, "anthropic", model), date=date)
    Report(provenance, results).write(folder)


def test_each_model_is_its_latest_report_and_scripted_runs_are_left_out(tmp_path: Path) -> None:
    write(tmp_path, "live", "model-a", "2026-11-01T00:00:00Z", result("t1", 1, 0.5), result("t2", 1, 0.5))
    write(tmp_path, "live", "model-a", "2026-11-02T00:00:00Z", result("t1", 0, 0.25), result("t2", 1, 0.25))
    handed_back = result("i", 13, None, "needs_human")
    write(tmp_path, "local", "small", "2026-11-02T00:00:00Z", result("t1", 1, None), handed_back)
    write(tmp_path, "scripted", "scripted-known-fix", "2026-11-03T00:00:00Z", result("t1", 0, None))

    assert sorted(points(tmp_path), key=lambda p: p.label) == [
        Point("model-a (live, 2026-11-02)", 0.5, 0.5),  # 1 of 2 repaired, $0.50 spent in all
        Point("small (local, 2026-11-02)", 0.0, None),  # no price, nothing repaired
    ]


def test_a_folder_with_nothing_to_plot_or_a_foreign_file_is_named(tmp_path: Path) -> None:
    write(tmp_path, "scripted", "scripted-known-fix", "2026-11-03T00:00:00Z", result("t1", 0, None))
    with pytest.raises(ValueError, match="no report with a repairable task to plot"):
        points(tmp_path)
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match=r"notes\.json: not a repair bench report"):
        points(tmp_path)
