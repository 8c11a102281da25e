"""No benchmark scenario can print a figure measured on nothing: each runs here once, at its smallest
size, and must give rows with a real measurement; and the checks that make a scenario fail on an empty
input do fail on one (the rollup-quality rows once rolled up a project git tracked nothing of, and
printed 0%)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import main
from bench.apply import applied, generate
from bench.checks import EmptyMeasurement
from bench.harness import Command, Row, side_by_side
from bench.rollup import quality_row
from bench.scenarios import SCENARIOS, Scenario

from shaped_projects import make


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_at_its_smallest_size_measures_something(name: str) -> None:
    rows = list(SCENARIOS[name].smallest())

    assert rows, f"{name} printed no row"
    for row in rows:
        assert row.size and row.ours is not None and row.ours > 0, row  # a zero is an empty measurement
        if row.unit == "s" and row.reference is not None:
            assert row.reference > 0, row


def test_the_rollup_quality_of_a_project_git_tracks_nothing_of_is_an_error_not_0_percent(tmp_path: Path) -> None:
    own = make(tmp_path, "lock-file", scale=0.2)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # what the scenario did: no `git add`

    with pytest.raises(EmptyMeasurement, match=r"git tracks 0 files"):
        quality_row(tmp_path, "lock-file", own)


def test_an_apply_that_changed_fewer_files_than_it_was_given_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    generate(root, 3)
    (root / "src/d000/f00000.py").write_text("changed, as one file of three\n")

    with pytest.raises(EmptyMeasurement, match=r"changed 1 of the 3 files"):
        applied(root, 3, "code-commit apply")


def test_a_measured_command_is_checked_after_its_first_run(tmp_path: Path) -> None:
    checked: list[int] = []

    def check() -> None:
        checked.append(len(checked))
        raise EmptyMeasurement("the command did nothing")

    with pytest.raises(EmptyMeasurement, match="did nothing"):
        side_by_side(3, {"ours": Command([sys.executable, "-c", "pass"], tmp_path, check=check)})
    assert checked == [0]  # once, before any timed run


def test_a_scenario_that_prints_no_row_fails_with_a_row_saying_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--only", "empty"], scenarios={"empty": Scenario(lambda repeat: [], lambda: [])}) == 1
    assert "| empty: FAILED |" in capsys.readouterr().out
    assert main(["--only", "one"], scenarios={"one": Scenario(lambda repeat: [Row("one", "-", 1.0, 1.0)], list)}) == 0
