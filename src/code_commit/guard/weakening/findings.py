"""What a change did to the tests: one finding per thing done, named for the model and the user."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class What(enum.Enum):
    """The kinds of weakening, each with the words a message uses."""

    DELETED = "deleted a test file"
    REMOVED = "removed a test"
    RENAMED_AWAY = "renamed a test away (the runner no longer collects it)"
    CASES_REMOVED = "removed cases of a parametrized test"
    SKIPPED = "added a skip, xfail or ignore marker"
    FOCUSED = "added a focus marker (only): the other tests stop running"
    CHECKS_REMOVED = "removed assertions"
    CHECK_WEAKENED = "weakened an assertion"
    HOOK = "added or changed a hook that can change test outcomes"
    NARROWED = "narrowed what the test runner collects or fails on"
    DATA_CHANGED = "changed expected data (a snapshot, golden file or fixture)"
    UNREADABLE = "made a test file unreadable to its runner"
    UNCHECKED = "changed a test file past checking"
    REWRITTEN = "rewrote a test file's code (a build has no reason to; more than its layout changed)"


@dataclass(frozen=True)
class Finding:
    path: str
    what: What
    where: str  # the test, hook or setting concerned; "" for the whole file
    detail: str  # what exactly, e.g. "@pytest.mark.skip" or "3 -> 1 assertions"

    def __str__(self) -> str:
        where = f" {self.where}:" if self.where else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.path}:{where} {self.what.value}{detail}"
