"""The benchmark suite never loses its table: rows print as they complete, a failing scenario's
row shows its error while the rest go on, and fixture repositories never start `git gc`."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from bench.__main__ import main
from bench.harness import Row, commit_fixture, format_header
from bench.scenarios import Scenario


def scenario(run: Callable[[int], Iterable[Row]]) -> Scenario:
    return Scenario(run, lambda: run(0))


def test_a_failing_scenario_prints_its_error_in_its_row_and_later_rows_still_print(capsys) -> None:
    before_later = []

    def first(repeat: int) -> Iterator[Row]:
        yield Row("first: one", "1 MiB", 0.5, 0.25)

    def broken(repeat: int) -> Iterator[Row]:
        yield Row("broken: before the failure", "-", 1.0, 1.0)
        raise RuntimeError("git gc raced the cleanup\nof /tmp/x | with a pipe")

    def later(repeat: int) -> list[Row]:
        before_later.append(capsys.readouterr())  # what was printed when this scenario began
        return [Row("later: still runs", "-", 2.0, 1.0, note=f"repeat {repeat}")]

    scenarios = {"first": scenario(first), "broken": scenario(broken), "later": scenario(later)}
    assert main(["--repeat", "2", "--only", "first,broken,later"], scenarios=scenarios) == 1
    rest = capsys.readouterr()
    out = before_later[0].out + rest.out
    table = out[out.index(format_header()) :].splitlines()[2:]
    assert table == [
        "| first: one | 1 MiB | 0.500s | 0.250s | 2.00x |  |  |  |",
        "| broken: before the failure | - | 1.000s | 1.000s | 1.00x |  |  |  |",
        "| broken: FAILED |  |  |  |  |  |  | RuntimeError: git gc raced the cleanup of /tmp/x \\| with a pipe |",
        "| later: still runs | - | 2.000s | 1.000s | 2.00x |  |  | repeat 2 |",
    ]
    # Each row was out before the next scenario started, so a crash or a kill loses none of them.
    assert "| broken: FAILED |" in before_later[0].out
    assert "Traceback" in before_later[0].err and "RuntimeError" in before_later[0].err  # the whole error


def test_every_scenario_passing_exits_0_and_an_unknown_one_is_named(capsys) -> None:
    assert main(["--only", "ok"], scenarios={"ok": scenario(lambda repeat: [Row("ok", "-", 1.0, 1.0)])}) == 0
    with pytest.raises(SystemExit) as stopped:
        main(["--only", "ok,nope"], scenarios={"ok": scenario(lambda repeat: [])})
    assert stopped.value.code == 2 and "no such scenario: nope" in capsys.readouterr().err


def test_fixture_repositories_have_automatic_gc_off(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    commit_fixture(tmp_path)
    config = subprocess.run(["git", "config", "--get", "gc.auto"], cwd=tmp_path, capture_output=True, text=True)
    assert config.stdout == "0\n"
    tracked = subprocess.run(["git", "ls-files"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert tracked.stdout == "a.txt\n"
