"""What an attempt may write: the supervisor's per-hunk review (--review), and the diff of what
each attempt applies (--diff on the console, NN-changes.diff in the log).

`approve` is the loop's one hook, between the guard's plan and the all-or-nothing apply. It
returns the plan reduced to what the supervisor accepted, so the apply, the log and the repair
prompt all see exactly what was written.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from code_commit.answer.plan import AnswerRefused, Plan, Problem
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.console.output import Console
from code_commit.console.printable import visible
from code_commit.console.terminal import GONE, Keys, colour_wanted
from code_commit.errors import AllRejected, Interrupted, Stopped
from code_commit.logs.run_folder import CHANGES_DIFF, REVIEW
from code_commit.logs.run_log import RunLog
from code_commit.review.diffs import change_diff, file_header, hunk_diff, patch_of, plan_changes_on_disk, write_patch
from code_commit.review.hunks import FileChange, file_change, partial_plan


class _State(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    UNREVIEWED = "unreviewed"  # still pending at q: counts as rejected


ACCEPTED, REJECTED, UNREVIEWED = _State.ACCEPTED, _State.REJECTED, _State.UNREVIEWED

_HELP = """\
a - accept this hunk
r - reject this hunk
n - go to the next hunk
p - go to the previous hunk
A - accept every hunk still pending
R - reject every hunk still pending
q - finish: write what was accepted (hunks still pending count as rejected)
? - show this help
A new file and a deletion are one decision each. Nothing is written before q.
"""


@dataclass(frozen=True)
class _Item:
    """One decision: a hunk of a modified file, or a whole created or deleted file."""

    change: FileChange
    hunk: int | None  # index into change.hunks; None for a created or deleted file

    @property
    def what(self) -> str:
        if self.hunk is not None:
            return f"hunk {self.hunk + 1} of {len(self.change.hunks)}"
        return "new file" if self.change.kind == "create" else "deleted file"

    @property
    def question(self) -> str:
        if self.hunk is not None:
            return "Accept this hunk"
        return "Create this file" if self.change.kind == "create" else "Delete this file"

    def diff(self) -> str:
        if self.hunk is None:
            return change_diff(self.change) or file_header(self.change)
        return file_header(self.change) + hunk_diff(self.change.hunks[self.hunk])


@dataclass(frozen=True)
class _Decision:
    item: _Item
    state: _State

    @property
    def accepted(self) -> bool:
        return self.state == ACCEPTED

    def describe(self) -> str:
        state = "rejected (left pending at q)" if self.state == UNREVIEWED else self.state
        header = f" {self.item.change.hunks[self.item.hunk].header}" if self.item.hunk is not None else ""
        return f"{state} {self.item.change.path} {self.item.what}{header}"


def _items_of(changes: Sequence[FileChange]) -> list[_Item]:
    items: list[_Item] = []
    for change in changes:
        if change.kind == "modify":
            items.extend(_Item(change, index) for index in range(len(change.hunks)))
        else:
            items.append(_Item(change, None))
    return items


def _accepted_by_file(decisions: Sequence[_Decision]) -> dict[str, list[bool]]:
    accepted: dict[str, list[bool]] = {}
    for decision in decisions:
        accepted.setdefault(decision.item.change.path, []).append(decision.accepted)
    return accepted


class Reviewer:
    """The interactive loop: show a hunk, read a key, until q. Writes nothing but to `out`."""

    def __init__(
        self, changes: Sequence[FileChange], out: TextIO, redact: Redactor | None = None, colour: bool = False
    ) -> None:
        self.items = _items_of(changes)
        self.states: list[_State | None] = [None] * len(self.items)
        self.current = 0
        self.out = out
        self.redact = redact or Redactor()
        self.colour = colour

    def run(self, keys: Iterator[str]) -> tuple[_Decision, ...]:
        self._show()
        for key in keys:
            self._write(visible(key) + "\n")  # the terminal does not echo in cbreak mode
            if key == "q":
                return self._finish()
            if key in ("a", "r"):
                self.states[self.current] = ACCEPTED if key == "a" else REJECTED
                self._advance()
            elif key in ("n", "p"):
                self._move(1 if key == "n" else -1)
            elif key in ("A", "R"):
                state = ACCEPTED if key == "A" else REJECTED
                count = self._pending()
                self.states = [s or state for s in self.states]
                self._write(f"{state} the {count} pending {_hunks(count)}\n")
                self._all_decided()
            elif key == "?":
                self._write(_HELP)
                self._prompt()
            else:
                self._say(f"unknown key {visible(key)!r}: press ? for help")
        raise Interrupted(GONE)

    def _pending(self) -> int:
        return self.states.count(None)

    def _advance(self) -> None:
        """After a decision, go on to the next pending hunk, wrapping around to earlier ones."""
        count = len(self.items)
        for step in range(1, count + 1):
            index = (self.current + step) % count
            if self.states[index] is None:
                self.current = index
                self._show()
                return
        self._all_decided()

    def _move(self, step: int) -> None:
        index = self.current + step
        if 0 <= index < len(self.items):
            self.current = index
            self._show()
        else:
            self._say(f"this is the {'last' if step > 0 else 'first'} hunk")

    def _all_decided(self) -> None:
        accepted = self.states.count(ACCEPTED)
        self._say(
            f"every hunk is decided ({accepted} accepted, {len(self.items) - accepted} rejected): "
            "q finishes; n and p go back to change a decision"
        )

    def _finish(self) -> tuple[_Decision, ...]:
        pending = self._pending()
        if pending:
            self._write(self._paint(f"{pending} pending {_hunks(pending)} not reviewed: counted as rejected\n", "33"))
        return tuple(_Decision(item, state or UNREVIEWED) for item, state in zip(self.items, self.states, strict=True))

    def _show(self) -> None:
        item, state = self.items[self.current], self.states[self.current]
        accepted, rejected = self.states.count(ACCEPTED), self.states.count(REJECTED)
        progress = f"Progress: {accepted}/{len(self.items)} accepted, {rejected} rejected, {self._pending()} pending"
        status = self._paint(state, "32" if state == ACCEPTED else "31") if state else "pending"
        self._write(
            "\n"
            + self._paint(progress, "1")
            + f"\n{visible(self.redact(item.change.path))}: {item.what} ({status})\n"
            + display(self.redact(item.diff()), self.colour)
        )
        self._prompt()

    def _prompt(self) -> None:
        item = self.items[self.current]
        self._write(self._paint(f"({self.current + 1}/{len(self.items)}) {item.question} [a,r,n,p,A,R,q,?]? ", "34;1"))

    def _say(self, text: str) -> None:
        self._write(text + "\n")
        self._prompt()

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def _write(self, text: str) -> None:
        self.out.write(self.redact(text))
        self.out.flush()


def _hunks(count: int) -> str:
    return "hunk" if count == 1 else "hunks"


def display(diff: str, colour: bool) -> str:
    """A unified diff for a person: every line made `visible`, and coloured as git colours it."""
    lines = []
    in_header = False
    for line in diff.removesuffix("\n").split("\n") if diff else ():
        shown = visible(line)
        if line.startswith("diff --git "):
            in_header = True
        elif line.startswith("@@"):
            in_header = False
        if colour:
            code = "1" if in_header else {"@": "36", "+": "32", "-": "31", "\\": "2"}.get(line[:1])
            shown = f"\x1b[{code}m{shown}\x1b[0m" if code else shown
        lines.append(shown + "\n")
    return "".join(lines)


@dataclass(frozen=True)
class Approved:
    plan: Plan  # what the attempt writes
    note: str = ""  # for the next repair prompt: what the supervisor rejected ("" if nothing)


def approve(
    root: Path,
    plan: Plan,
    call: int,
    settings: Settings,
    log: RunLog,
    console: Console,
    keys: Iterator[str] | None = None,
) -> Approved:
    """Review the plan if asked (keys from the terminal unless given), log the decisions and the
    diff of what will be written, and print that diff with --diff.

    Raises AllRejected when the supervisor accepted nothing, and AnswerRefused when a reviewed
    file changed on disk during the review (writing would overwrite that change).
    """
    changes = plan_changes_on_disk(root, plan)
    note = ""
    if settings.review and changes:
        decisions = _ask(changes, call, log, console, keys)
        _log_decisions(decisions, call, log, console)
        if not any(d.accepted for d in decisions):
            log.event(f"call {call}: every change was rejected in review; the run stops")
            raise AllRejected(
                f"every change of the answer to call {call} was rejected in review: nothing of it was written, "
                "no build ran, and the model is not asked again."
                + (" What earlier calls applied stays in place (see git status)." if call > 1 else "")
                + f" Logs: {log.folder}"
            )
        _unchanged_since_review(root, changes)
        plan = partial_plan(plan, changes, _accepted_by_file(decisions))
        before = {c.path: c for c in changes}
        changes = [file_change(c.path, before[c.path].old, c.content, before[c.path].mode) for c in plan.changes]
        note = _rejection_note(decisions)
    patch = "".join(change_diff(change) for change in changes)  # for reading; the log's copy is byte for byte
    if patch:
        write_patch(log.path(call, CHANGES_DIFF), patch_of(root, changes, log.redact), log.redact)
    if settings.diff and patch:
        console.info(f"call {call}: the diff it applies:")
        console.show(display(console.redact(patch), console.color))  # the console decides colour (CI: none)
    elif settings.diff:
        console.info(f"call {call}: the answer changes nothing")
    return Approved(plan, note)


def _ask(
    changes: Sequence[FileChange], call: int, log: RunLog, console: Console, keys: Iterator[str] | None
) -> tuple[_Decision, ...]:
    reviewer = Reviewer(changes, console.stream, console.redact, colour_wanted(console.stream))
    count = len(reviewer.items)
    console.info(f"call {call}: review {count} {_hunks(count)}; nothing is written before q")
    try:
        if keys is not None:
            return reviewer.run(keys)
        with Keys(sys.stdin.fileno()) as terminal:
            return reviewer.run(terminal)
    except (KeyboardInterrupt, Stopped):
        log.event(f"call {call}: review interrupted; nothing of this answer was written")
        raise


def _log_decisions(decisions: Sequence[_Decision], call: int, log: RunLog, console: Console) -> None:
    accepted = sum(d.accepted for d in decisions)
    unreviewed = sum(d.state == UNREVIEWED for d in decisions)
    summary = f"{accepted} accepted, {len(decisions) - accepted} rejected"
    if unreviewed:
        summary += f" ({unreviewed} left pending at q)"
    for decision in decisions:
        log.event(f"call {call}: review: {decision.describe()}")
    log.event(f"call {call}: review: {summary}")
    log.write(
        call,
        REVIEW,
        f"Review of the answer to call {call}: {summary}.\n"
        + "".join(f"\n[{d.describe()}]\n{d.item.diff()}" for d in decisions),
    )
    console.info(f"review: {summary}")


def _unchanged_since_review(root: Path, changes: Sequence[FileChange]) -> None:
    """The supervisor may edit a file while deciding; writing the reviewed result would lose that edit."""
    moved = []
    for change in changes:
        try:
            now: bytes | None = (root / change.path).read_bytes()
        except FileNotFoundError:
            now = None
        except OSError:
            now = b""  # unreadable now: certainly not what was reviewed
        if now != change.old:
            moved.append(change.path)
    if moved:
        raise AnswerRefused(
            [
                Problem(
                    "changed_in_review",
                    f"{path!r} changed on disk during the review; nothing of this answer was written",
                    path,
                )
                for path in moved
            ]
        )


def _rejection_note(decisions: Sequence[_Decision]) -> str:
    """The supervisor's decision, returned to the model with the next repair prompt."""
    rejected = [d for d in decisions if not d.accepted]
    if not rejected:
        return ""
    parts = [
        "--- REVIEW ---\n"
        "The supervisor reviewed your previous answer before anything was written and rejected part of it. "
        "The rejected changes below were not applied; the file replacements show the files as they are now. "
        "Do not propose the rejected changes again.\n"
    ]
    shown: set[str] = set()
    for decision in rejected:
        change = decision.item.change
        if change.kind == "create":
            parts.append(f"Rejected: the new file {change.path}\n")
        elif change.kind == "delete":
            parts.append(f"Rejected: the deletion of {change.path} (the file stays)\n")
        else:
            if change.path not in shown:
                parts.append(file_header(change))
                shown.add(change.path)
            parts.append(hunk_diff(change.hunks[decision.item.hunk]))  # type: ignore[index]
    return "".join(parts)
