"""The hunks of a change as git itself computes them (`git diff --no-index`).

A diff code-commit shows (--diff, a review, `NN-changes.diff`, a dry run's patch) should be the
one `git diff` shows once the change is made: the same lines as context, the same hunks, the same
section headings. Rather than imitate git's diff algorithm, ask git: both sides go to private
temporary files, git diffs them, and its hunks are parsed back as bytes. None when git cannot
(not installed, an error): the caller then computes the hunks itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from code_commit.git.env import run_git

# Settings that change the shape of git's output, pinned to git's defaults; the user's diff
# algorithm and its heuristics are left as they are, as `git diff` would use them.
_PINNED = (
    "-c",
    "diff.suppressBlankEmpty=false",
    "-c",
    "diff.interHunkContext=0",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "core.quotePath=true",
)
_OPTIONS = ("--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--text")
_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


@dataclass(frozen=True)
class _GitHunk:
    old_start: int  # 0-based, as hunks.Hunk counts
    new_start: int
    heading: bytes  # the section heading git prints after the second @@ (b"" if none)
    lines: tuple[tuple[str, bytes], ...]


def git_hunks(old: bytes, new: bytes, context: int) -> list[_GitHunk] | None:
    with tempfile.TemporaryDirectory(prefix="code-commit-diff-") as folder:  # 0700: only we read the files
        a, b = os.path.join(folder, "a"), os.path.join(folder, "b")
        for path, data in ((a, old), (b, new)):
            with open(path, "wb") as fh:
                fh.write(data)
        try:
            done = run_git(folder, *_PINNED, "diff", *_OPTIONS, f"--unified={context}", "--", a, b)
        except (OSError, subprocess.SubprocessError):
            return None
    if done.returncode not in (0, 1):  # 1: the files differ
        return None
    return _parse(done.stdout)


def _parse(output: bytes) -> list[_GitHunk] | None:
    hunks: list[_GitHunk] = []
    current: list[tuple[str, bytes]] | None = None
    start: tuple[int, int, bytes] = (0, 0, b"")
    pieces = output.split(b"\n")  # at b"\n" only: a line's own \r is content
    for raw in [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else []):
        match = _HEADER.match(raw.rstrip(b"\n"))
        if match:
            if current is not None:
                hunks.append(_GitHunk(*start, tuple(current)))
            old_start, old_len, new_start, new_len, heading = match.groups()
            # A range of one line omits its length; an empty range is named by the line before it.
            old = int(old_start) - (0 if old_len == b"0" else 1)
            new = int(new_start) - (0 if new_len == b"0" else 1)
            start, current = (old, new, heading), []
        elif current is None:
            continue  # the file headers before the first hunk
        elif raw.startswith(b"\\"):  # "\ No newline at end of file": the line before has none
            if not current:
                return None
            tag, line = current[-1]
            current[-1] = (tag, line.removesuffix(b"\n"))
        elif raw[:1] in (b" ", b"-", b"+"):
            current.append((raw[:1].decode(), raw[1:]))
        else:
            return None  # something this parser does not know: let the caller compute the hunks
    if current is not None:
        hunks.append(_GitHunk(*start, tuple(current)))
    return hunks
