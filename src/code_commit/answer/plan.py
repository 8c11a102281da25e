"""What an answer amounts to once checked: the plan of file changes, or the problems that refuse it.

Plain types, so that the parts that read a plan (hunks, diffs, review, revert, the journal) need
not import the planning that makes it or the transactional apply that carries it out. A leaf: it
imports only the match report's line types and the error family its refusal belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from code_commit.answer.match.finding import Lines
from code_commit.answer.match.mismatch import NumberedLine
from code_commit.errors import AnswerError


@dataclass(frozen=True)
class Change:
    path: str
    content: bytes | None  # None: delete the file


@dataclass(frozen=True)
class Plan:
    final: dict[str, bytes | None]  # the answer's last word on every path it named (None: removed)
    changes: tuple[Change, ...]  # the part of `final` that differs from disk
    missing_deletes: tuple[str, ...] = ()  # deletes of files that do not exist: no-ops, logged
    whole: frozenset[str] = frozenset()  # paths a whole-file block wrote (not edit blocks alone)


@dataclass(frozen=True)
class Problem:
    """One reason an answer is refused, structured for `code-commit apply --check`."""

    # guard, delete_disabled, exists, elided, not_utf8, missing_file, not_text, blank_search, no_match,
    # ambiguous, file_and_folder, unreadable, tests_changed
    kind: str
    message: str  # the whole reason, as the model and the user read it
    path: str | None = None
    block: int | None = None  # which block of the answer, from 1
    search: int | None = None  # which search/replace pair of an edit block, from 1
    answer_line: int | None = None  # the answer line of that pair's ^^^search, when known
    closest: tuple[NumberedLine, ...] = ()  # no_match: the most similar lines in the file
    locations: tuple[Lines, ...] = ()  # ambiguous: every place the search text matches
    unique_around: tuple[Lines | None, ...] = ()  # ambiguous: for the first 20 locations, the smallest unique window
    min_context: int | None = None  # ambiguous: any this many consecutive lines of the file are unique
    already_there: Lines | None = None  # no_match: where the replacement text already is (made before?)

    def __str__(self) -> str:
        return self.message


class AnswerRefused(AnswerError):
    """The answer cannot be applied, for the problems it lists, one a reason (the same problem twice
    is listed once); whoever raises it has written nothing, or put everything back.

    Not a failure of a run: the refusal uses up one attempt and its messages become the next
    repair prompt's feedback. `code-commit apply` reports the problems and exits 7."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        unique = list({p.message: p for p in problems}.values())
        super().__init__("; ".join(p.message for p in unique))
        self.problems = tuple(unique)

    @classmethod
    def of(cls, kind: str, *messages: str) -> AnswerRefused:
        """A refusal whose problems are all of one kind and say no more than their message."""
        return cls([Problem(kind, message) for message in messages])

    @property
    def reasons(self) -> list[str]:
        return [problem.message for problem in self.problems]


class ApplyFailed(AnswerRefused):
    """A write or delete failed part-way; every touched file was restored."""

    def __init__(self, message: str) -> None:
        super().__init__([Problem("apply_failed", message)])
