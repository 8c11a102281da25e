"""What a run did and how it ended: filled in as the run goes, so a run stopped half-way still
reports everything it did. `summary` turns it into the JSON record; `cli` into the exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from code_commit.builds.runner import BuildResult
from code_commit.errors import Ending, exit_code_for
from code_commit.exits import EXIT
from code_commit.llm import Usage
from code_commit.run.model_calls import CallRecord, answered, total_cost, total_usage


@dataclass(frozen=True)
class RunOptions:
    dry_run: bool = False  # one call, parse and guard, show the diff; write nothing, build nothing
    revert_on_failure: bool = False  # a run that ends without a passing build leaves the tree as it was


@dataclass(frozen=True)
class Service:
    """Who answered: for the record, so a run's results can be told apart by model and gateway."""

    provider: str
    model: str
    endpoint_host: str | None  # host[:port]; None when no network service was used (the demo)


@dataclass
class Outcome:
    passed: bool  # the build passes (--dry-run: the answer is acceptable)
    log_dir: Path | None  # None when the run ended before it had a folder (lock held)
    calls: list[CallRecord] = field(default_factory=list)
    files_changed: set[str] = field(default_factory=set)
    files_deleted: set[str] = field(default_factory=set)
    last_build: BuildResult | None = None
    error: Ending | None = None  # what ended the run early, if anything did
    duration: float = 0.0
    reverted: bool = False
    patch: Path | None = None  # the proposal as a patch: final.patch (--revert-on-failure), dry-run.patch
    diff: str | None = None  # --dry-run: what the answer would change
    dry_run: bool = False
    refusal: str | None = None  # why the answers were refused, when no answer could be applied
    # files_changed, files_deleted and refusal are taken from the loop's working state when the run ends
    service: Service | None = None
    sandbox: str | None = None  # what builds run under (sandbox.Sandbox.describe); None: no build can run

    @property
    def refused(self) -> bool:
        """No answer was applied, so no build ran: every answer was refused (--dry-run: the one answer)."""
        return self.error is None and not self.passed and self.last_build is None and self.refusal is not None

    @property
    def attempts(self) -> int:
        """Model calls that produced an answer."""
        return answered(self.calls)

    @property
    def usage(self) -> Usage:
        return total_usage(self.calls)

    @property
    def cost_usd(self) -> float | None:
        """The run's estimated cost; None when any call's cost is unknown."""
        return total_cost(self.calls)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return exit_code_for(self.error)
        return EXIT.OK if self.passed else EXIT.BUILD_FAILS
