"""The run's machine-readable record: one JSON object, the same on stdout (`--json`) and in the
run folder (`summary.json`), for every way a run can end.

Light on purpose (no run-loop imports): a setup error reports through it before anything heavy
is loaded.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from code_commit.errors import BuildTampered, Ending
from code_commit.exits import REFUSED_OUTCOME, outcome_name

if TYPE_CHECKING:
    from code_commit.run.outcome import Outcome


@dataclass(frozen=True)
class RunSummary:
    outcome: str
    exit_code: int
    error: str | None = None
    dry_run: bool = False
    attempts: int = 0  # model calls that produced an answer
    files_changed: list[str] = field(default_factory=list)
    files_deleted: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # CallRecord fields, one per call
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float | None = None
    duration_s: float = 0.0
    log_dir: str | None = None
    last_build: dict[str, Any] | None = None
    reverted: bool = False
    patch: str | None = None  # the saved proposal: final.patch (--revert-on-failure), dry-run.patch (--dry-run)
    diff: str | None = None  # --dry-run: what the answer would change
    provider: str | None = None
    model: str | None = None
    endpoint_host: str | None = None  # host[:port] of the model service
    sandbox: str | None = None  # what the run's builds ran under; why none, when a sandbox was wanted
    tampered: list[str] = field(default_factory=list)  # exit 10: each path the build changed

    def to_json(self) -> str:
        text = json.dumps(dataclasses.asdict(self), indent=2, ensure_ascii=False) + "\n"
        # A lone surrogate (from a model's answer) cannot be written as UTF-8: as its \u escape it
        # is still valid JSON, and reads back as the same string.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def summarize(outcome: Outcome) -> RunSummary:
    """The record of a run that got as far as taking the lock."""
    build = outcome.last_build
    if outcome.refused:
        name, error = REFUSED_OUTCOME, outcome.refusal
    else:
        name = outcome_name(outcome.exit_code, outcome.dry_run)
        error = None if outcome.error is None else str(outcome.error)
    return RunSummary(
        outcome=name,
        exit_code=outcome.exit_code,
        error=error,
        dry_run=outcome.dry_run,
        attempts=outcome.attempts,
        files_changed=sorted(outcome.files_changed),
        files_deleted=sorted(outcome.files_deleted),
        calls=plain(outcome.calls),
        usage=plain(outcome.usage),
        cost_usd=outcome.cost_usd,
        duration_s=round(outcome.duration, 3),
        log_dir=None if outcome.log_dir is None else str(outcome.log_dir),
        last_build=None
        if build is None
        else plain(
            {
                "exit_code": build.exit_code,
                "timed_out": build.timed_out,
                "duration_s": build.duration,
                "log": str(build.log_path),
                "sandbox": build.sandbox,
            }
        ),
        reverted=outcome.reverted,
        patch=None if outcome.patch is None else str(outcome.patch),
        diff=outcome.diff,
        **(plain(outcome.service) if outcome.service else {}),
        sandbox=outcome.sandbox,
        tampered=outcome.error.paths if isinstance(outcome.error, BuildTampered) else [],
    )


def for_error(error: Ending, exit_code: int, duration: float) -> RunSummary:
    """The record of a run that ended before it had a run folder (setup error, lock held)."""
    return RunSummary(outcome_name(exit_code), exit_code, error=str(error), duration_s=round(duration, 3))


def plain(value: Any) -> Any:
    """A dataclass (or a list of them) as JSON-ready data, durations rounded to the millisecond."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):  # durations only: a cost of $0.0004 must not round to 0
        return {
            k: round(v, 3) if k.startswith("duration") and isinstance(v, float) else plain(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
