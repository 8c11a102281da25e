"""The one record of a command that changes the tree (a run, `code-commit apply`): filled in as the
command goes, so that one stopped half-way still reports everything it did, and serialised once,
the same for `--json`, the run folder's `summary.json` and apply's report.

Adding a fact is a field of `RunRecord`, and its property in the JSON Schema the package ships
(schemas/record.schema.json: tests/schemas check the two agree). Its JSON key is the field's name,
the same in every command that shows it: every command unless `fact(shown=...)` names fewer;
`internal()` fields are working facts the JSON states in other words (`error`, `outcome`).
docs/record.md documents each key and when `schema_version` changes (tests/docs check it).

Light on purpose (no model SDK, no run loop): a setup error reports through it before anything
heavy is loaded.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_commit.answer.plan import Problem
from code_commit.builds.ran_tests import RanTests
from code_commit.builds.runner import BuildResult
from code_commit.console.plural import count
from code_commit.errors import BuildTampered, Ending, NeedsHuman, exit_code_for
from code_commit.exits import EXIT, REFUSED_OUTCOME, outcome_name
from code_commit.llm.base import Usage
from code_commit.schemas import SCHEMA_VERSION, to_the_millisecond
from code_commit.testguard.counts import CountCheck

if TYPE_CHECKING:  # the diagnosis and its rules are imported where a build is judged, not at start-up
    from code_commit.builds.diagnosis import Diagnosis

_FIRST_ERROR = 300  # characters of the first error line the record's `error` quotes
_FIRST_ERRORS = 3  # a failed build's first error lines the console shows
RUN = frozenset({"run"})  # `demo` runs the real loop: its record is a run's
APPLY = frozenset({"apply"})
_CHECK = frozenset({"check"})  # build.sh run as a run runs it, with no model
_EVERY = RUN | APPLY | _CHECK


def fact(default: Any = None, *, shown: frozenset[str] = _EVERY) -> Any:
    """A field of the record: its default (a list or set is copied for each record), and the commands
    whose JSON shows it, under the field's name."""
    metadata = {"shown": shown}
    if isinstance(default, list | set | dict):
        return field(default_factory=lambda: type(default)(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def internal(default: Any = None) -> Any:
    """A working fact no JSON key shows as it is."""
    return fact(default, shown=frozenset())


@dataclass(frozen=True)
class CallRecord:
    """One model call, as the log, the summary and `--json` report it."""

    call: int
    usage: Usage
    stop_reason: str  # "error" when the call failed and ended the run
    duration_s: float
    cost_usd: float | None = None  # estimated from the price table; None when the model has no price
    requests: int = 1  # HTTP requests: failed attempts, the answer and its continuations (as llm.Tally)
    retries: int = 0
    continuations: int = 0


WRITE, DELETE = "write", "delete"  # a FileChange's actions


@dataclass(frozen=True)
class FileChange:
    path: str
    action: str  # WRITE or DELETE


@dataclass(frozen=True)
class TestsChange:
    """One change an answer or a build made to the tests or the runners' configuration (testguard's
    `TestChange`, and where it came from)."""

    path: str
    change: str  # "created", "changed" or "deleted"
    what: str  # "a test file", "pytest configuration ([tool.pytest] ...)", "the tests in a source file (...)"
    by: str  # "answer" or "build"
    call: int  # the call whose answer, or whose answer's build, made it; 0: the baseline build, before any answer
    allowed: bool  # tests = report let it through; false: the answer was refused, or the build is no pass


@dataclass(frozen=True)
class SavedWork:
    """The user's uncommitted changes, saved in git's stash before a write (git/stash.py's `Saved`)."""

    commit: str  # the stash entry's commit
    message: str  # its line in `git stash list`
    files: list[str]  # the project's files whose uncommitted changes it holds
    restore: str  # how to get them back


@dataclass
class RunRecord:
    """What a command did and how it ended. The JSON's derived keys (schema_version, outcome, exit_code,
    ok, error, attempts, usage, cost_usd, tampered, needs_human) come first, from the properties below."""

    command: str  # "run" or "apply"
    passed: bool = internal(False)  # the build passes; --dry-run: the answer is acceptable; apply: applied (or valid)
    error: Ending | None = internal()  # what ended the command early, if anything did
    refusal: str | None = internal()  # a run's: why its answers were refused, while none has been applied
    dry_run: bool = fact(False, shown=RUN | APPLY)  # --dry-run; apply's --check: nothing is written
    # The net change to the tree: a run's from the loop's state, apply's from its answer once applied.
    files_changed: set[str] = fact(set(), shown=RUN | APPLY)
    files_deleted: set[str] = fact(set(), shown=RUN | APPLY)
    calls: list[CallRecord] = fact([], shown=RUN)
    duration_s: float = fact(0.0)
    log_dir: Path | None = fact()  # None when the command ended before it had a run folder
    last_build: BuildResult | None = fact()
    build_changed: list[str] = fact([])  # the files git shows that the builds changed: "path (kind)"
    reverted: bool = fact(False, shown=RUN)
    patch: Path | None = fact(shown=RUN)  # the proposal as a patch: final.patch, dry-run.patch
    diff: str | None = fact(shown=RUN)  # --dry-run: what the answer would change
    provider: str | None = fact(shown=RUN)  # who answered
    model: str | None = fact(shown=RUN)
    endpoint_host: str | None = fact(shown=RUN)  # host[:port]; None when no network service was used
    sandbox: str | None = fact()  # what builds run under (Sandbox.describe); None: no build can run
    diagnosis: Diagnosis | None = fact()  # exit 11: what kept the build from running, and the fix
    ran_tests: RanTests | None = fact(shown=_CHECK)  # check: the tests its output says ran (None: none seen)
    applied: bool = fact(False, shown=APPLY)  # apply: the answer was applied
    source: str | None = fact(shown=APPLY)  # apply: the answer's file, or "standard input"
    format: str | None = fact(shown=APPLY)  # apply: "caret" or "json" ("auto" if never read)
    changes: list[FileChange] = fact([], shown=APPLY)
    missing_deletes: list[str] = fact([], shown=APPLY)  # deletes of files that do not exist: no-ops
    warnings: list[str] = fact([], shown=APPLY)  # invalid ignore lines, skipped as git skips them
    problems: list[Problem] = fact([], shown=APPLY)  # why the answer was refused (a run: its last one)
    saved_work: list[SavedWork] = fact([])  # where the user's uncommitted changes were saved before a write
    answers_without_change: int = fact(0, shown=RUN)  # applied answers that changed nothing, so were not built
    tests_changed: list[TestsChange] = fact([])  # what answers and builds did to the tests (tests setting)
    new_tests: list[str] = fact([], shown=RUN | APPLY)  # test files the answers added: kept, judged apart
    new_tests_pass: bool | None = fact(shown=RUN | APPLY)  # their own build's verdict; None: not built
    test_counts: CountCheck | None = fact()  # the runners' counts of the last passing build, against the baseline

    @property
    def refused(self) -> bool:
        """No answer was applied, so no build ran: every answer was refused (--dry-run, apply: the one)."""
        some = bool(self.problems) or self.refusal is not None
        return self.error is None and not self.passed and self.last_build is None and some

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return exit_code_for(self.error)
        if self.refused and self.command == "apply":  # in a run a refused answer uses up an attempt instead
            return EXIT.REFUSED
        return EXIT.OK if self.passed else EXIT.BUILD_FAILS

    @property
    def outcome(self) -> str:
        if self.refused:
            return REFUSED_OUTCOME
        return outcome_name(self.exit_code, self.dry_run and self.command in RUN)

    @property
    def message(self) -> str | None:
        """The JSON's `error`, never None when the command did not pass: the error's message; for a
        refused run, why; for a build that still fails, how, and its first error line."""
        if self.error is not None:
            return str(self.error)
        if self.refused:
            return self.refusal or self._refused_because()
        if self.passed:
            return None
        build = self.last_build
        unchanged = self.answers_without_change
        if build is None and unchanged:
            others = "" if unchanged == self.attempts else ", and the others were refused"
            return f"no build ran: {unchanged} of the run's {count(self.attempts, 'answer')} changed nothing{others}"
        if build is None:
            return "no build ran" if self.command != "apply" else "the answer was not applied"
        if self.command == "run":
            repairs = max(len(self.calls) - 1, 0)
            what = f"the build still fails after {repairs} repair{'' if repairs == 1 else 's'}"
        else:
            what = "the build fails"
        counted = self.test_counts
        if build.passed and counted is not None and not counted.passed:
            return f"{what}: build.sh exits 0, but its test runners' own counts are no pass: {counted.reason}"
        first = _first_error(build)
        told = f"; see {build.log_path}" + (f"; first error: {first}" if first else "")
        if unchanged:
            told += f"; {count(unchanged, 'answer')} changed nothing, and went unbuilt"
        return f"{what}: {build.describe()}{told}"

    def _refused_because(self) -> str:
        """apply's refusal in one line: its first problem, and how many more (the report lists them)."""
        first = self.problems[0].message.split("\n", 1)[0] if self.problems else "no reason given"
        more = len(self.problems) - 1
        return f"the answer was refused, nothing was applied: {first}" + (
            f" (and {more} more problem{'' if more == 1 else 's'})" if more else ""
        )

    @property
    def attempts(self) -> int:
        """Model calls that produced an answer (a call that failed is recorded with stop reason "error")."""
        return sum(record.stop_reason != "error" for record in self.calls)

    @property
    def usage(self) -> Usage:
        return sum((record.usage for record in self.calls), Usage())

    @property
    def cost_usd(self) -> float | None:
        """The estimated cost of the calls; None when any call's cost is unknown."""
        costs = [record.cost_usd for record in self.calls]
        return None if None in costs else sum(c for c in costs if c is not None)

    def document(self) -> dict[str, Any]:
        """The JSON object: the derived keys, then each field the command shows."""
        derived: dict[str, tuple[frozenset[str], Any]] = {
            "schema_version": (_EVERY, SCHEMA_VERSION),
            "outcome": (_EVERY, self.outcome),
            "exit_code": (_EVERY, self.exit_code),
            "ok": (_EVERY, self.exit_code == EXIT.OK),
            "error": (_EVERY, self.message),
            "attempts": (RUN, self.attempts),
            "usage": (RUN, self.usage),
            "cost_usd": (RUN, self.cost_usd),
            "tampered": (_EVERY, self.error.paths if isinstance(self.error, BuildTampered) else []),
            "needs_human": (RUN | APPLY, self.error.reason if isinstance(self.error, NeedsHuman) else None),
        }
        document = {key: value for key, (shown, value) in derived.items() if self.command in shown}
        for item in dataclasses.fields(self):
            if self.command in item.metadata.get("shown", _EVERY):  # a plain field is every command's
                document[item.name] = getattr(self, item.name)
        rounded: dict[str, Any] = plain(document)  # durations to the millisecond
        return rounded

    def to_json(self) -> str:
        text = json.dumps(self.document(), indent=2, ensure_ascii=False) + "\n"
        # A lone surrogate (from a model's answer) cannot be written as UTF-8: as its \u escape it
        # is still valid JSON, and reads back as the same string.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    def ended_by(self, error: Ending, duration: float) -> RunRecord:
        """The record of a command that `error` ended, with what it had done by then, so a script
        reading it gets one whatever ended it. A session has recorded its ending already: it stands."""
        if self.error is None:
            self.error, self.duration_s = error, duration
        return self


def _first_error(build: BuildResult) -> str | None:
    """The first line of the build's output shaped like a diagnostic (else mentioning an error), on one
    line and shortened: enough to say what failed without opening the log."""
    kept = build.output.diagnostics if build.output.diagnostics.first else build.output.mentions
    return next((_one_line(line) for _, line in kept.first[:1]), None)


def first_errors(build: BuildResult, count: int = _FIRST_ERRORS) -> list[str]:
    """The build's first lines shaped like diagnostics, then its first mentioning an error, as the
    repair prompt leads with them, in the output's order, each on one line and shortened: what the
    console shows of a failure."""
    output = build.output
    chosen = sorted([*output.diagnostics.first[:count], *output.mentions.first[:count]][:count])
    return [_one_line(line) for _, line in chosen]


def _one_line(line: str) -> str:
    text = " ".join(line.split())
    return text if len(text) <= _FIRST_ERROR else text[: _FIRST_ERROR - 5] + " [...]"


def plain(value: Any) -> Any:
    """A value of the record as JSON-ready data, durations rounded to the millisecond."""
    if isinstance(value, BuildResult):
        return {
            "passed": value.passed,
            "exit_code": value.exit_code,
            "timed_out": value.timed_out,
            "cap_reached": value.cap_reached,
            "duration_s": to_the_millisecond("duration_s", value.duration),
            "log": str(value.log_path),
            "sandbox": value.sandbox,
        }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {k: plain(to_the_millisecond(k, v)) for k, v in value.items()}
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value
