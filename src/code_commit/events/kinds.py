"""Each event of the `--events` stream, as a frozen dataclass: its `type` and its keys. Pure.

Events carry counts, names, paths and codes only: never a prompt, an answer or a build's output.
The free text some carry (a refusal's reasons, a diagnosis, the model's reason to hand the task
back) is what the record states too, censored by the writer as the record is. The keys follow the
record's (docs/record.md); the writer adds `schema_version`, `type`, `seq` and `time` to each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Settings:
    """The settings a dashboard groups runs by."""

    max_repairs: int
    tests: str
    sandbox: str  # the setting: auto, require, off
    max_cost: float | None
    build_timeout: float
    time_limit_s: float | None  # the whole command's (--timeout, unattended_timeout); None: none
    dry_run: bool


@dataclass(frozen=True)
class RunStart:
    type: ClassVar[str] = "run_start"
    command: str  # as the record's `command`: run (demo's too), apply, check
    version: str
    provider: str | None  # None: no model (apply, check)
    model: str | None
    project: str
    log_dir: str
    sandbox: str | None  # what builds run under; None: this command builds nothing
    settings: Settings


@dataclass(frozen=True)
class Usage:
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    thinking_tokens: int
    estimated: bool


@dataclass(frozen=True)
class CallStart:
    type: ClassVar[str] = "call_start"
    call: int
    calls: int  # the run's calls at most
    model: str


@dataclass(frozen=True)
class CallEnd:
    type: ClassVar[str] = "call_end"
    call: int
    stop_reason: str  # "error": the call failed, and the run ends
    usage: Usage
    cost_usd: float | None  # None: the model has no price
    duration_s: float
    requests: int
    retries: int
    continuations: int


@dataclass(frozen=True)
class Problem:
    """One reason an answer was refused, as the record's `problems` state it (without the file's lines
    some carry there)."""

    kind: str
    message: str
    path: str | None
    block: int | None
    search: int | None
    answer_line: int | None


@dataclass(frozen=True)
class AnswerRefused:
    type: ClassVar[str] = "answer_refused"
    call: int
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class AnswerApplied:
    type: ClassVar[str] = "answer_applied"
    call: int
    written: tuple[str, ...]
    deleted: tuple[str, ...]


@dataclass(frozen=True)
class BuildStart:
    type: ClassVar[str] = "build_start"
    call: int  # 0: the baseline, before any answer
    build: str  # _BUILDS
    sandbox: str


_BUILDS = ("baseline", "verdict", "new_tests")  # the tree's own; the one judged; with the new test files


@dataclass(frozen=True)
class RunnerCount:
    runner: str
    passed: int
    failed: int
    skipped: int
    unit: str


@dataclass(frozen=True)
class BuildEnd:
    type: ClassVar[str] = "build_end"
    call: int
    build: str
    exit_code: int | None  # None: killed at its time limit
    passed: bool
    timed_out: bool
    cap_reached: str | None
    duration_s: float
    runner_counts: tuple[RunnerCount, ...]  # the test runners' own summaries in its output, added up


@dataclass(frozen=True)
class Diagnosis:
    type: ClassVar[str] = "diagnosis"
    call: int
    kind: str
    subject: str
    cause: str
    fix: str


@dataclass(frozen=True)
class NeedsHuman:
    type: ClassVar[str] = "needs_human"
    reason: str  # the model's, censored and capped as the record's `needs_human`


@dataclass(frozen=True)
class End:
    type: ClassVar[str] = "end"
    outcome: str
    exit_code: int
    duration_s: float
    log_dir: str | None  # None: the command ended before it had a run folder


Event = (
    RunStart
    | CallStart
    | CallEnd
    | AnswerRefused
    | AnswerApplied
    | BuildStart
    | BuildEnd
    | Diagnosis
    | NeedsHuman
    | End
)
EVENTS: tuple[type[Event], ...] = (
    RunStart,
    CallStart,
    CallEnd,
    AnswerRefused,
    AnswerApplied,
    BuildStart,
    BuildEnd,
    Diagnosis,
    NeedsHuman,
    End,
)

Observer = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The observer of a command without --events."""
