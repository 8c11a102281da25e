"""The rollup's text, as system_prompts/project_structure.txt explains it to the model (9 bytes a file,
so a thousand tiny files do not pay more for their headers than for their content), and what a rollup
says it wrote:

    ==> path <==            then the file's bytes, unchanged, plus a "\\n" if they do not end
                            with one (an empty file is a header alone)
    ...                     the included files, in path order
    --- OUTLINES ---        then, for source and test files not included whole, their outlines:
    ::: path (outline: what; why) :::       a header, then `line: signature` per definition,
    12: class X             indented two spaces per level (outline.py), in path order
    --- LEFT OUT ---        then one line per file left out: `path (reason, size)`, but a
    path (reason, size)     folder that would take more than FOLDER_LINES lines is summed up
    dir/ (N files, size: N reason, ...)     on one, and the list stops at MAX_LISTED lines

Paths that cannot stand on one header line (control characters, Unicode line separators, bytes that
are not UTF-8) are not framed. Known limit: the format has no escaping, so a file containing a line
that looks like a header is passed on as it is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.console.plural import count
from code_commit.llm.catalog import tokens_at_most

HEADER = b"==> %s <==\n"
LEFT_OUT_LABEL = b"--- LEFT OUT ---\n"
OUTLINES_LABEL = b"--- OUTLINES ---\n"
OUTLINE_HEADER = b"::: %s (outline: %s) :::\n"  # path, then what the outline is of and why it is not whole
_SHOWN = re.compile(r"^==> (.+) <==$", re.MULTILINE)  # a HEADER line (tests check the two agree)
_OUTLINED = re.compile(r"^::: (.+) \(outline: [^()\n]*\) :::$", re.MULTILINE)  # an OUTLINE_HEADER line
MAX_LISTED = 50
_FOLDER_LINES = 8
# C0 and C1 controls, DEL, and the characters str.splitlines() also breaks lines at.
_UNFRAMEABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class LeftOut:
    path: str
    reason: str
    size: int | None  # None: not a regular file


@dataclass
class Rollup:
    """What one run wrote."""

    output: Path
    included: int = 0
    size: int = 0  # bytes written to the output
    left_out: list[LeftOut] = field(default_factory=list)
    outlined: list[LeftOut] = field(default_factory=list)  # not whole, shown by their outline: why not whole
    relevant: list[str] = field(default_factory=list)  # the files the query names most, with the reasons
    unframeable: list[bytes] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return tokens_at_most(self.size)

    def summary(self) -> str:
        reasons = Counter(_reason_group(item.reason) for item in self.left_out)
        why = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
        return (
            f"rollup: {count(self.included, 'file')} included, "
            + (f"{len(self.outlined)} outlined, " if self.outlined else "")
            + f"{len(self.left_out)} left out"
            + (f" ({why})" if why else "")
            + f"; {count(self.size, 'byte')}, {count(self.tokens, 'token')} at most (estimated), "
            + f"written to {self.output}"
        )


def shown_paths(codebase: str) -> list[str]:
    """The paths a rollup's headers name, in order (a header-like line inside a file's content too)."""
    return _SHOWN.findall(codebase)


def outlined_paths(codebase: str) -> list[str]:
    """The paths whose outline a rollup shows, in order (an outline-header-like line in a file too)."""
    return _OUTLINED.findall(codebase)


def listing(left_out: list[LeftOut]) -> list[str]:
    """One line per left-out file, in path order, except that a folder that would take more than
    FOLDER_LINES lines is summed up on one; past MAX_LISTED lines, a count of the rest.

    Folders are settled deepest first (no recursion, however deep the tree): a folder's lines are
    its own files and what each of its subfolders settled to. The work is linear in the bytes of
    the paths: folders are nodes found by (parent, name), a folder's name is spelled out only when
    it is summed up, and a summed-up line carries counts, not the files (before, every file was
    copied into the list of each of its folders, and each folder's name built again for every
    file: 20,000 images 1,000 folders deep took 30 s and 180 MB)."""
    node: dict[tuple[int, str], int] = {}
    parent_of = [-1]  # by folder node; node 0 is the top
    name_of = [""]
    depth_of = [0]
    lines_of: dict[int, list[tuple[str, _Group]]] = {0: []}
    folder_of: dict[str, int] = {"": 0}  # a file's folder, walked once for all the files in it
    for item in left_out:
        dirname = item.path.rpartition("/")[0]
        folder = folder_of.get(dirname, -1)
        if folder < 0:
            folder = 0
            for part in dirname.split("/"):
                found = node.get((folder, part))
                if found is None:
                    found = node[(folder, part)] = len(parent_of)
                    parent_of.append(folder)
                    name_of.append(part)
                    depth_of.append(depth_of[folder] + 1)
                folder = found
            folder_of[dirname] = folder
        lines_of.setdefault(folder, []).append(
            (item.path, _Group(1, item.size or 0, Counter([_reason_group(item.reason)]), item))
        )
    for folder in sorted(range(1, len(parent_of)), key=depth_of.__getitem__, reverse=True):
        entries = lines_of.pop(folder, [])
        if len(entries) > _FOLDER_LINES:
            entries = [(_folder_name(folder, parent_of, name_of), _Group.merged(group for _, group in entries))]
        lines_of.setdefault(parent_of[folder], []).extend(entries)
    entries = sorted(lines_of[0], key=lambda entry: entry[0])
    lines = [_line(key, group) for key, group in entries]
    if len(lines) > MAX_LISTED:  # thousands of files at the top
        rest = sum(group.files for _, group in entries[MAX_LISTED - 1 :])
        lines = [*lines[: MAX_LISTED - 1], f"... and {count(rest, 'more file')}"]
    return lines


@dataclass
class _Group:
    """Left-out files summed up: how many, their bytes, their reasons; the file itself when one."""

    files: int
    size: int
    reasons: Counter[str]
    only: LeftOut | None

    @classmethod
    def merged(cls, groups: Iterator[_Group]) -> _Group:
        total = cls(0, 0, Counter(), None)
        for group in groups:
            total.files += group.files
            total.size += group.size
            total.reasons.update(group.reasons)
            total.only = group.only if total.files == 1 else None
        return total


def _folder_name(folder: int, parent_of: list[int], name_of: list[str]) -> str:
    parts = []
    while folder > 0:
        parts.append(name_of[folder])
        folder = parent_of[folder]
    return "".join(part + "/" for part in reversed(parts))


def _line(key: str, group: _Group) -> str:
    if group.only is not None:  # a file, or a folder with one left-out file: its own line says more
        item = group.only
        return f"{item.path} ({item.reason}" + (f", {size_text(item.size)})" if item.size is not None else ")")
    why = ", ".join(f"{n} {reason}" for reason, n in group.reasons.most_common())
    return f"{key} ({count(group.files, 'file')}, {size_text(group.size)}: {why})"


def _reason_group(reason: str) -> str:
    """Reasons that carry a size or an error name ("312 KiB, over the 256 KiB cap") counted as one."""
    if "over the" in reason and "cap" in reason:
        return "over the size cap"
    return reason.split(":", 1)[0]


def size_text(size: int) -> str:
    if size < 1024:
        return count(size, "byte")
    if size < 2**20:
        return f"{-(-size // 1024):,} KiB"
    return f"{size / 2**20:,.1f} MiB"


def over_cap(size: int, cap: int) -> str:
    """The reason for an oversized file, in KiB when the cap is a whole number of KiB, else in bytes.

    The size is rounded up, so it always reads as larger than the cap."""
    if cap % 1024 == 0:
        return f"{-(-size // 1024)} KiB, over the {cap // 1024} KiB cap"
    return f"{size} bytes, over the {cap}-byte cap"


def frameable(path: bytes) -> bool:
    try:
        text = path.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _UNFRAMEABLE.search(text) is None


def printable(path: bytes) -> str:
    """A path for a one-line message: invalid bytes and control characters escaped."""
    text = path.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
