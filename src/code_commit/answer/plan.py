"""What an answer amounts to once checked: the plan of file changes, and the problems that refuse it.

Plain types, so that the parts that read a plan (hunks, diffs, review, revert, the journal) need
not import the transactional apply that makes and carries it out. A leaf: it imports only the
match report's line types and the refusal it subclasses.
"""

from __future__ import annotations

from dataclasses import dataclass

from code_commit.answer.match.finding import Lines
from code_commit.answer.match.mismatch import NumberedLine
from code_commit.errors import AnswerRefused


@dataclass(frozen=True)
class Change:
    path: str
    content: bytes | None  # None: delete the file


@dataclass(frozen=True)
class Plan:
    final: dict[str, bytes | None]  # the answer's last word on every path it named (None: removed)
    changes: tuple[Change, ...]  # the part of `final` that differs from disk
    missing_deletes: tuple[str, ...] = ()  # deletes of files that do not exist: no-ops, logged


@dataclass(frozen=True)
class Problem:
    """One reason an answer is refused, structured for `code-commit apply --check`."""

    # guard, delete_disabled, exists, elided, not_utf8, missing_file, not_text, blank_search, no_match,
    # ambiguous, file_and_folder, unreadable
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


class ApplyFailed(AnswerRefused):
    """A write or delete failed part-way; every touched file was restored."""
