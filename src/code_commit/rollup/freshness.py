"""Whether the rollup still shows the files as they are: each whole-file section (`==> path <==`
then the file's bytes, see framing.py) compared with the file on disk, before the first call.

A rollup made before the latest edits shows the model code that is no longer there, and an answer
that rewrites such a file whole undoes the edits. Only whole-file sections can be compared; the
listed and outlined files are not shown as they are, so there is nothing to compare.

The format has no escaping: a file may hold a line that looks like a header. So the sections are
walked in order, each file's bytes are matched where its section starts, and a section that
matches is passed over whole, header-like lines in it included; one that does not is stale, and
the walk goes on at the next header line. (Known limit: a file cut short just before one of its
lines that looks like a header or label reads as fresh: the rollup cannot say where it ended.)
A header's path is read only when it is a plain relative path outside agent-config/ that git lists
(tracked, or untracked and not ignored: what a rollup may hold), and without following a symlink
(files/confined.py).

Bounded by bytes: each file is read up to the rest of the rollup's length and one byte more, and
at most `budget` bytes in all; the sections past it are not compared (the warning says so).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.files.confined import Tree

_MAX_COMPARED = 64 * 2**20  # bytes of the project's files read to compare them, at most
_NAMED = 3  # stale files named in a message; the rest are counted

# A header line, or a label line that ends a whole-file section (`--- LEFT OUT ---`, and the labels
# of any later part), each where a section may start: at the start of a line. Nothing after a label
# looks like a header (a listed path, an outline's line), so the walk goes on past one: a file's line
# that looks like a label is then no end of the walk.
_BOUNDARY = re.compile(rb"^(?:==> (.+) <==|--- [A-Z][A-Z ]* ---)$", re.MULTILINE)


@dataclass
class _Freshness:
    stale: dict[str, None] = field(default_factory=dict)  # files whose section differs from the disk, in order
    seen: set[str] = field(default_factory=set)  # files whose section was compared
    incomplete: bool = False  # the byte budget ended the comparison: the sections after were not compared

    def message(self) -> str | None:
        """The warning, naming up to _NAMED files, or None when the rollup is fresh."""
        if not self.stale:
            return None
        stale = list(self.stale)
        more = len(stale) - _NAMED
        named = ", ".join(stale[:_NAMED]) + (f" and {more} more" if more > 0 else "")
        of = f"{len(stale)} of the {len(self.seen)} files" if len(self.seen) > 1 else "the one file"
        verb = "differs" if len(stale) == 1 else "differ"
        unchecked = f" (the ones past the first {_MAX_COMPARED >> 20} MiB were not compared)" if self.incomplete else ""
        return (
            f"the rollup is stale: {of} it shows whole {verb} from the disk{unchecked}: {named}. The model "
            "would see them as they were, and an answer that rewrites one whole would undo the edits since; "
            "refresh it with `code-commit rollup` (or ./codeRollup.sh)"
        )


def check_freshness(
    root: Path, rollup: str, listed: Collection[str] | None = None, budget: int = _MAX_COMPARED
) -> _Freshness:
    """Compare each whole-file section of `rollup` with the file it names under `root`; with `listed`
    (what git lists: the files a rollup may hold), only the sections of those files. A header forged in
    a file's content may name anything: an ignored `.env` is then neither read nor named."""
    data = rollup.encode("utf-8", "surrogateescape")
    found = _Freshness()
    left = budget
    pos = 0
    with Tree(root) as tree:
        while (boundary := _BOUNDARY.search(data, pos)) is not None:
            body = min(boundary.end() + 1, len(data))
            if boundary.group(1) is None:  # a label: the list of files left out, or outlines; no header follows
                pos = body
                continue
            path = boundary.group(1).decode("utf-8", "surrogateescape")
            if not _plain(path) or (listed is not None and path not in listed):
                pos = body
                continue
            most = len(data) - body + 1  # one byte more than the rest of the rollup: a longer file differs
            limit = min(most, left)
            try:
                disk: bytes | None = tree.read(path, limit)
            except OSError:  # deleted, a symlink, a folder now: not what the rollup shows
                disk = None
            if disk is not None and len(disk) == limit < most:  # the budget ends inside this file
                found.incomplete = True
                break
            left -= len(disk or b"")
            found.seen.add(path)
            matched = None if disk is None else _match(data, body, disk)
            if matched is None:
                found.stale[path] = None
                ahead = _BOUNDARY.search(data, body)
                pos = ahead.start() if ahead is not None else len(data)
            else:
                pos = matched
    return found


def _match(data: bytes, body: int, disk: bytes) -> int | None:
    """Where the section after `body` ends if it holds the file's bytes (plus the "\\n" the rollup
    adds to a file that does not end with one) and a header, a label or the end follows; else None."""
    end = body + len(disk)
    if data[body:end] != disk:
        return None
    if disk and not disk.endswith(b"\n"):
        if data[end : end + 1] != b"\n":
            return None
        end += 1
    if end < len(data) and not _BOUNDARY.match(data, end):
        return None  # the section goes on: the file lost its end
    return end


def _plain(path: str) -> bool:
    parts = path.split("/")
    return (
        not path.startswith("/")
        and all(part not in ("", ".", "..") for part in parts)
        and parts[0] != CONFIG_DIR
        and "\\" not in path
    )
