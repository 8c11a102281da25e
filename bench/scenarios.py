"""Every scenario of `python -m bench`, with the run at its smallest size that tests/bench runs: a
scenario is added here or nowhere, so none escapes the test that it measures something."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import apply, build_output, gate, hostile_answers, recall, rollup, startup, tokens
from .harness import Row


@dataclass(frozen=True)
class Scenario:
    run: Callable[[int], Iterable[Row]]  # the measurement, best of `repeat` runs
    smallest: Callable[[], Iterable[Row]]  # the same, once, on the smallest input: seconds, not minutes


SCENARIOS: dict[str, Scenario] = {
    "startup": Scenario(startup.run, lambda: startup.run(0)),
    "apply": Scenario(apply.run, apply.smallest),
    "hostile": Scenario(hostile_answers.run, hostile_answers.smallest),
    "rollup": Scenario(rollup.run, rollup.smallest),
    "build": Scenario(build_output.run, build_output.smallest),
    "gate": Scenario(gate.run, gate.smallest),
    "tokens": Scenario(tokens.run, tokens.smallest),
    "recall": Scenario(recall.run, recall.smallest),
}
