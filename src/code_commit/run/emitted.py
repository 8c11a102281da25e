"""The `--events` a command emits (events/kinds.py), each made from the facts the run has at that
point: its record, a model call's, a refusal, an applied plan, a build's result. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit import __version__
from code_commit.answer.plan import AnswerRefused, Plan
from code_commit.builds.ran_tests import RunnerCount
from code_commit.builds.runner import BuildResult
from code_commit.config.settings import Settings
from code_commit.events import kinds
from code_commit.run.record import CallRecord, RunRecord

if TYPE_CHECKING:
    from code_commit.builds.diagnosis import Diagnosis


def run_start(
    record: RunRecord, root: Path, settings: Settings, time_limit: float | None, log_dir: Path
) -> kinds.RunStart:
    chosen = kinds.Settings(
        settings.max_repairs,
        settings.tests,
        settings.sandbox,
        settings.max_cost,
        settings.build_timeout,
        time_limit,
        record.dry_run,
    )
    return kinds.RunStart(
        record.command, __version__, record.provider, record.model, str(root), str(log_dir), record.sandbox, chosen
    )


def call_end(call: CallRecord) -> kinds.CallEnd:
    u = call.usage
    usage = kinds.Usage(
        u.input_tokens, u.output_tokens, u.cache_write_tokens, u.cache_read_tokens, u.thinking_tokens, u.estimated
    )
    c = call
    return kinds.CallEnd(c.call, c.stop_reason, usage, c.cost_usd, c.duration_s, c.requests, c.retries, c.continuations)


def answer_refused(call: int, refusal: AnswerRefused) -> kinds.AnswerRefused:
    problems = tuple(
        kinds.Problem(p.kind, p.message, p.path, p.block, p.search, p.answer_line) for p in refusal.problems
    )
    return kinds.AnswerRefused(call, problems)


def answer_applied(call: int, plan: Plan) -> kinds.AnswerApplied:
    written = tuple(c.path for c in plan.changes if c.content is not None)
    return kinds.AnswerApplied(call, written, tuple(c.path for c in plan.changes if c.content is None))


def build_end(call: int, build: str, result: BuildResult, counts: Sequence[RunnerCount]) -> kinds.BuildEnd:
    return kinds.BuildEnd(
        call,
        build,
        result.exit_code,
        result.passed,
        result.timed_out,
        result.cap_reached,
        result.duration,
        tuple(kinds.RunnerCount(c.runner, c.passed, c.failed, c.skipped, c.unit) for c in counts),
    )


def diagnosis(call: int, found: Diagnosis) -> kinds.Diagnosis:
    """Exit 11's facts and fix; not the output line it was read from (`evidence`): no build output."""
    return kinds.Diagnosis(call, found.kind, found.subject, found.cause, found.fix)
