"""A file change split into unified-diff hunks, and partial application of a chosen subset.

Everything works on bytes, split at b"\\n" only, so a partly accepted file keeps every byte of
the original outside the accepted hunks: CRLF endings, a missing final newline and text that is
not UTF-8 all survive. Hunks are git's (`gitdiff`; difflib's where git cannot say) with three lines
of context, exactly the hunks `diffs.file_diff` prints, so what the supervisor accepts is what the
diff showed.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from code_commit.answer.plan import Change, Plan
from code_commit.git.diff import git_hunks

CONTEXT = 3


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 0-based index of the hunk's first line in the old file
    new_start: int  # the same in the new file
    lines: tuple[tuple[str, bytes], ...]  # (" " | "-" | "+", the line with its b"\n" if it has one)
    heading: bytes = b""  # the section heading git prints after the range (the enclosing function)

    @property
    def old_lines(self) -> tuple[bytes, ...]:
        return tuple(line for tag, line in self.lines if tag != "+")

    @property
    def new_lines(self) -> tuple[bytes, ...]:
        return tuple(line for tag, line in self.lines if tag != "-")

    @property
    def header(self) -> str:
        """The @@ line for reading: a heading that is not UTF-8 shows as U+FFFD."""
        return self.header_bytes.decode("utf-8", "replace")

    @property
    def header_bytes(self) -> bytes:
        """The @@ line as git writes it, byte for byte."""
        ranges = f"@@ -{_range(self.old_start, len(self.old_lines))} +{_range(self.new_start, len(self.new_lines))} @@"
        return ranges.encode("ascii") + (b" " + self.heading if self.heading else b"")


def _range(start: int, length: int) -> str:
    """A hunk range as diff prints it: 1-based, the count left out when it is 1, and an empty
    range named by the line before it."""
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


@dataclass(frozen=True)
class FileChange:
    """One change of a plan as the reviewer sees it: both sides and their hunks."""

    path: str
    old: bytes | None  # None: the file does not exist yet
    new: bytes | None  # None: the change deletes it
    mode: int  # the file's permission bits as git names them (0o644 or 0o755)
    hunks: tuple[Hunk, ...]

    @property
    def kind(self) -> str:
        """ "create" and "delete" are one decision each; a "modify" is decided hunk by hunk."""
        if self.old is None:
            return "create"
        if self.new is None:
            return "delete"
        return "modify"

    @property
    def decisions(self) -> int:
        """How many decisions the file takes."""
        return len(self.hunks) if self.kind == "modify" else 1


def file_change(path: str, old: bytes | None, new: bytes | None, mode: int = 0o644) -> FileChange:
    return FileChange(path, old, new, mode, split(old, new))


def _split_lines(data: bytes | None) -> list[bytes]:
    """Lines as git sees them: split at b"\\n" only, each keeping its newline; the last may lack one."""
    if not data:
        return []
    pieces = data.split(b"\n")
    return [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def split(old: bytes | None, new: bytes | None, context: int = CONTEXT) -> tuple[Hunk, ...]:
    """The hunks of the change from `old` to `new` (None is an absent file: no lines): git's own
    (`gitdiff`), so a diff shown here is the one `git diff` shows; where git cannot say, difflib's."""
    a, b = _split_lines(old), _split_lines(new)
    if a == b:
        return ()
    # A file created, emptied or deleted is one hunk of all its lines, as git has it: no need to ask.
    found = git_hunks(old, new, context) if old and new else None  # both have lines
    if found is not None:
        hunks = tuple(Hunk(h.old_start, h.new_start, h.lines, h.heading) for h in found)
        if _consistent(hunks, a, b):
            return hunks
    return _difflib_split(a, b, context)


def _consistent(hunks: Sequence[Hunk], a: list[bytes], b: list[bytes]) -> bool:
    """Whether the hunks rebuild `b` from `a` exactly: what merge() and a review rely on."""
    try:
        return bool(hunks) and merge(b"".join(a), hunks, [True] * len(hunks)) == b"".join(b)
    except ValueError:
        return False


def _difflib_split(a: list[bytes], b: list[bytes], context: int) -> tuple[Hunk, ...]:
    hunks = []
    # autojunk off: with it, a line frequent in a long file (a blank line) counts as junk, and an
    # unchanged one shows as removed and added.
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        lines: list[tuple[str, bytes]] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend((" ", line) for line in a[i1:i2])
                continue
            lines.extend(("-", line) for line in a[i1:i2])
            lines.extend(("+", line) for line in b[j1:j2])
        hunks.append(Hunk(group[0][1], group[0][3], tuple(lines)))
    return tuple(hunks)


def merge(old: bytes | None, hunks: Sequence[Hunk], accepted: Sequence[bool]) -> bytes:
    """`old` with exactly the accepted hunks applied; every byte outside them is kept."""
    if len(hunks) != len(accepted):
        raise ValueError(f"{len(accepted)} decisions for {len(hunks)} hunks")
    lines = _split_lines(old)
    out: list[bytes] = []
    position = 0
    for hunk, take in zip(hunks, accepted, strict=True):
        end = hunk.old_start + len(hunk.old_lines)
        if hunk.old_start < position or tuple(lines[hunk.old_start : end]) != hunk.old_lines:
            raise ValueError(f"hunk {hunk.header} does not belong to this file")
        out.extend(lines[position : hunk.old_start])
        out.extend(hunk.new_lines if take else hunk.old_lines)
        position = end
    out.extend(lines[position:])
    return b"".join(out)


def partial_plan(plan: Plan, changes: Sequence[FileChange], accepted: Mapping[str, Sequence[bool]]) -> Plan:
    """The plan reduced to the accepted part: one decision per hunk of a modified file, one for a
    created or deleted file. A file with nothing accepted leaves the plan altogether, so its
    `final` entry (what the repair prompt reports) is what is really on disk.
    """
    final = dict(plan.final)
    kept: list[Change] = []
    for change in changes:
        take = accepted[change.path]
        if len(take) != change.decisions:
            raise ValueError(f"{change.path}: {len(take)} decisions for {change.decisions}")
        if change.kind == "modify":
            content: bytes | None = merge(change.old, change.hunks, take)
        else:
            content = change.new if take[0] else change.old
        if content == change.old:
            del final[change.path]
        else:
            final[change.path] = content
            kept.append(Change(change.path, content))
    return Plan(final, tuple(kept), plan.missing_deletes, plan.whole)
