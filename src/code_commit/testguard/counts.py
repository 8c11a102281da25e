"""The runners' own counts as the judge of a pass: under protect, a build passes only when each
test runner's summary shows no failure, and at least as many tests passing as the baseline ran
(passed plus failed), runner by runner. The baseline is the same tree's build before any answer.

This one check is what catches `|| true`, `| cat`, `-k`, `--setup-plan`, skip markers and hooks in
any language: whatever was done, fewer tests pass than ran before, or a failure still shows. A build
whose summaries cannot be read, where the baseline's could, is no pass. Without a readable baseline,
no failure may show. Summary lines are text the build printed, so the model's code can print one
too: a forged line can only add a summary (builds/ran_tests.py sums them, and never lets one take a
real failure away), so where the baseline build passed (exit 0: it ran every suite to its end), a
runner with more summaries than in it is no pass either. A baseline that failed is no such ceiling:
a build that stops at its first failing suite (`cargo test`, `make` without `-k`) prints fewer
summaries than its fix, which runs them all. Pure: the counts in, the verdict out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from code_commit.builds.ran_tests import RunnerCount


@dataclass(frozen=True)
class CountCheck:
    baseline: tuple[RunnerCount, ...] | None  # None: no baseline was taken; (): its summaries were unreadable
    final: tuple[RunnerCount, ...]
    passed: bool  # the counts allow a pass
    reason: str  # why not; or what was compared

    def line(self) -> str:
        before = "no baseline" if self.baseline is None else f"before the answers: {describe(self.baseline)}"
        return f"{before}; this build: {describe(self.final)}"


def describe(counts: Sequence[RunnerCount]) -> str:
    if not counts:
        return "no test runner's summary"
    parts = []
    for count in counts:
        words = [f"{count.passed} passed"] + ([f"{count.failed} failed"] if count.failed else [])
        words += [f"{count.skipped} skipped"] if count.skipped else []
        unit = "" if count.unit == "test" else f" {count.unit}s"
        parts.append(f"{', '.join(words)}{unit} ({count.runner})")
    return "; ".join(parts)


def judge(baseline: Sequence[RunnerCount] | None, final: Sequence[RunnerCount], baseline_passed: bool) -> CountCheck:
    """Whether `final` (a build that exited 0) may count as a pass against `baseline`, whose build
    exited 0 if `baseline_passed`."""
    kept = None if baseline is None else tuple(baseline)
    problems = [f"{count.runner} reports {count.failed} failed" for count in final if count.failed]
    if kept:
        if not final:
            problems.append(
                f"the build's output has no test runner's summary, where the baseline's had ({describe(kept)})"
            )
        by_runner = {count.runner: count for count in final}
        for before in kept:
            after = by_runner.get(before.runner)
            if after is None:
                if final:
                    problems.append(f"no summary from {before.runner}, which ran {before.ran} before the answers")
            elif baseline_passed and after.summaries > before.summaries:
                # Lines the build's code printed can only add a summary: a build run to its end prints as many.
                problems.append(
                    f"{before.runner} printed {after.summaries} summaries, where it printed {before.summaries} before "
                    "the answers (a summary line printed by the code under test?)"
                )
            elif after.passed < before.ran:
                unit = "tests" if before.unit == "test" else f"{before.unit}s"
                ran = f"the {before.ran} it ran before the answers"
                problems.append(f"{before.runner} passed {after.passed} {unit}, fewer than {ran}")
    if problems:
        return CountCheck(kept, tuple(final), False, "; ".join(problems))
    return CountCheck(kept, tuple(final), True, "no failure" + (", and no fewer tests passing" if kept else ""))
