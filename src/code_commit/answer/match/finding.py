"""Where a search text is in a file: every place it matches at a stage. Pure, a leaf.

The matcher's vocabulary, shared by `matching` (the one place, and splicing the replacement in;
its docstring describes the stages) and `mismatch` (why a search text cannot be placed): lines as
git sees them, what each stage compares of a line, the uniform indentation shift, and the `Work`
a match did, counted where it is done.

Finding every place is linear in the file and the search text, never their product: a long search
text in a repetitive file has thousands of places, each thousands of lines long.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

EXACT = "exact"
WHITESPACE = "whitespace"
INDENTATION = "indentation"

STAGE_NAMES = {
    EXACT: "exact match",
    WHITESPACE: "ignoring trailing whitespace and line endings",
    INDENTATION: "ignoring trailing whitespace, line endings and a uniform indentation shift",
}


TAB_WIDTHS = (4, 8, 2)
# Places of a search text found at most: two already make it ambiguous, and a line repeated all over
# a 500,000-line file would otherwise be 500,000 places to list, report and look around.
MAX_PLACES = 1000
# Items compared at C speed per item of both sequences before occurrences turns to a linear search.
MATCH_WORK_PER_ITEM = 32
# Places of a search text's first line jumped to one by one before occurrences turns to one pass.
MAX_JUMPS = 1000


@dataclass(frozen=True)
class Lines:
    """A range of lines, numbered from 1, both ends included."""

    first: int
    last: int

    def __str__(self) -> str:
        return f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"


@dataclass
class Work:
    """The work matching did, counted where it is done: tests and benchmarks bound it by these
    counts, never by time. Pass one to `matching.resolve` (or `mismatch.calculate_min_context`) to
    read it; one may be passed to many calls, which add to it."""

    compared: int = 0  # items compared to find where a search text is: its lines, then its indentation steps
    jumps: int = 0  # places of a search text's first line looked at one by one, a step of a Python loop each
    measured: int = 0  # lines whose indentation was measured, once per tab width tried
    scored: int = 0  # lines made into a similarity key for a no-match's closest lines (the search text's too)
    scored_chars: int = 0  # the characters of those keys
    word_scanned: int = 0  # lines of the file searched for a no-match's words, a regex each
    hashed: int = 0  # windows of lines hashed to find an ambiguous match's unique windows
    min_context: int = 0  # windows of lines hashed to work out min_context


# --- lines and keys ---


def split_lines(text: str) -> list[str]:
    """Lines as git sees them, each with its "\\n" (the last one may have none); "" has no lines."""
    if not text:
        return []
    lines = text.splitlines(keepends=True)  # at C speed; it also breaks at \r, \v, \f, \x1c-\x1e, \x85...
    if len(lines) == text.count("\n") + (not text.endswith("\n")):  # ... unless there were none of those
        return lines
    pieces = text.split("\n")
    lines = list(map(operator.add, pieces[:-1], itertools.repeat("\n")))
    return [*lines, pieces[-1]] if pieces[-1] else lines


def line_body(line: str) -> str:
    """A line without its line ending."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith("\n") else line


def is_blank(line: str) -> bool:
    return not line.strip()


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_width(indent: str, tab: int) -> int:
    column = 0
    for char in indent:
        column = column + tab - column % tab if char == "\t" else column + 1
    return column


def _key(stage: str) -> Callable[[str], str]:
    if stage == EXACT:
        return str  # the line as it is (str of a str is the str itself)
    if stage == WHITESPACE:
        return str.rstrip
    return str.strip


# --- finding ---


@dataclass(frozen=True)
class Found:
    start: int  # index of the first matched file line
    tab: int = 4
    shift: int = 0  # columns added to the search text's indentation to reach the file's


def stage_keys(lines: Sequence[str], stage: str) -> list[str]:
    return list(map(_key(stage), lines))


def find(
    file_lines: list[str], keys: list[str], search: list[str], stage: str, work: Work, limit: int = MAX_PLACES
) -> list[int]:
    """Where every place `search` matches in the file at `stage` starts, the first `limit` of them;
    `keys` are the file's lines as that stage sees them."""
    starts = occurrences(keys, stage_keys(search, stage), work, limit=limit)
    if stage != INDENTATION or not starts or sum(not is_blank(line) for line in search) == 1:
        # One non-blank line has no indentation step to compare: any shift of it is uniform.
        return starts
    shifts = _Shifts(file_lines, search, starts, work)
    return [start for start in starts if shifts.at(start) is not None]


def occurrences(
    items: list[Any],
    wanted: list[Any],
    work: Work,
    work_per_item: int = MATCH_WORK_PER_ITEM,
    limit: int | None = None,
    max_jumps: int = MAX_JUMPS,
) -> list[int]:
    """Where `wanted` (not empty) occurs in `items`, in order, with work linear in both; only the
    first `limit` places, if given, and no work past the last of them.

    `list.index` jumps to each place the first item of `wanted` is at, and the window there is
    compared whole, both at C speed: a Python loop over every line of the file would be the work
    of a pass per search text (an answer may have a thousand). But a long search text in a
    repetitive file has thousands of places, each compared over thousands of lines, and a line
    repeated all over a long file is thousands of jumps, each a step of a Python loop: once the
    comparing passes `work_per_item` items per item of both, or the jumps pass `max_jumps`, the rest
    is found in one pass, at C speed for lines (`_joined_search`), else with Knuth-Morris-Pratt.
    """
    n = len(wanted)
    work_left = work_per_item * (len(items) + n)
    starts: list[int] = []
    end = max(0, len(items) - n + 1)  # no window starts at or after it
    start = 0
    for jump in range(len(items) + 1):
        if limit is not None and len(starts) >= limit:
            break
        try:
            start = items.index(wanted[0], start, end)
        except ValueError:
            break
        work_left -= n
        if work_left < 0 or jump >= max_jumps:
            left = None if limit is None else limit - len(starts)
            search = _joined_search if isinstance(wanted[0], str) else _knuth_morris_pratt  # lines, or steps
            more, stop = search(items, wanted, start, left)
            work.compared += stop - start + n  # each item looked at once, and the borders of `wanted`
            return starts + more
        work.compared += n
        work.jumps += 1
        if items[start : start + n] == wanted:
            starts.append(start)
        start += 1
    return starts


def _joined_search(items: list[Any], wanted: list[Any], begin: int, limit: int | None = None) -> tuple[list[int], int]:
    """_knuth_morris_pratt for lines, at C speed: the lines from `begin` on joined with NUL between
    them, and the search text's joined alike, found with `str.find`; a place's line is the count of
    NULs before it, counted on from the last place. A line holding a NUL of its own would throw the
    count off: then Knuth-Morris-Pratt does it."""
    text = "\0" + "\0".join(items[begin:]) + "\0"
    if text.count("\0") != len(items) - begin + 1:
        return _knuth_morris_pratt(items, wanted, begin, limit)
    needle = "\0" + "\0".join(wanted) + "\0"
    found: list[int] = []
    at, counted, nuls = text.find(needle), 0, 0  # nuls: the NULs in text[:counted]
    while at != -1:
        nuls += text.count("\0", counted, at)
        counted = at
        found.append(begin + nuls)  # the line after the NUL at `at`
        if len(found) == limit:
            return found, begin + nuls + len(wanted)
        at = text.find(needle, at + 1)
    return found, len(items)


def _knuth_morris_pratt(
    items: list[Any], wanted: list[Any], begin: int, limit: int | None = None
) -> tuple[list[int], int]:
    """Where `wanted` (not empty) occurs in `items` from `begin` on, in time linear in both (the
    first `limit` places, if given), and where the search stopped."""
    # border[i]: the longest proper prefix of wanted[: i + 1] that is also a suffix of it, its length
    border, k = [0] * len(wanted), 0
    for i in range(1, len(wanted)):
        while k and wanted[i] != wanted[k]:
            k = border[k - 1]
        if wanted[i] == wanted[k]:
            k += 1
        border[i] = k
    found, k = [], 0
    for i in range(begin, len(items)):
        while k and items[i] != wanted[k]:
            k = border[k - 1]
        if items[i] == wanted[k]:
            k += 1
        if k == len(wanted):
            found.append(i - k + 1)
            if len(found) == limit:
                return found, i + 1
            k = border[k - 1]
    return found, len(items)


def found_at(file_lines: list[str], search: list[str], stage: str, start: int, work: Work) -> Found | None:
    """The match of `search` at `start` in the file at `stage`, if it matches there."""
    if start < 0 or start + len(search) > len(file_lines):
        return None
    window = file_lines[start : start + len(search)]
    if stage_keys(window, stage) != stage_keys(search, stage):
        return None
    if stage != INDENTATION:
        return Found(start)
    found = _Shifts(window, search, [0], work).at(0)
    return None if found is None else dataclasses.replace(found, start=start)


class _Shifts:
    """Whether the indentation of the search text and of a window of the file whose stripped lines
    equal it differ by the same columns on every non-blank line, and by how many: (tab width, shift).

    A shift of 0 is preferred (tabs written as spaces, or the other way round), then the tab widths
    in the order of TAB_WIDTHS. The shift is uniform where each non-blank line's indentation step
    from the non-blank line before it is the same in the window as in the search text. The steps
    are computed once per line of the windows to check (`starts`, in order), and where the search
    text's steps occur among them is found once (occurrences, linear), so checking a window is a
    set lookup (a repetitive file has thousands of places to check, each maybe thousands of lines
    long). Lines outside the windows are not measured at all (a thousand search texts for one
    line each measured the whole file a thousand times): the window's first non-blank line has
    no step to compare, and each later line's last non-blank line before it is in the window, so
    each run of overlapping windows is measured on its own, from its first non-blank line.
    """

    def __init__(self, file_lines: Sequence[str], search: Sequence[str], starts: Sequence[int], work: Work) -> None:
        self.first = next(j for j, line in enumerate(search) if not is_blank(line))  # no step before it
        spans = _merged([(start + self.first, start + len(search)) for start in starts])
        self.widths: dict[int, tuple[list[int], list[int]]] = {}  # per tab: the file's and the search text's
        # Per tab, where in the file the search text's steps after its first non-blank line start
        # (None: it has none to compare, so anywhere).
        self.steps_at: dict[int, set[int] | None] = {}
        for tab in TAB_WIDTHS:
            file_widths, file_steps = _steps_within(file_lines, spans, tab, work)
            widths, steps = _steps(search, tab, work)
            self.widths[tab] = (file_widths, widths)
            wanted = steps[self.first + 1 :]
            self.steps_at[tab] = (
                {begin + i for begin, end in spans for i in occurrences(file_steps[begin:end], wanted, work)}
                if wanted
                else None
            )

    def at(self, start: int) -> Found | None:
        first, fits = self.first, []
        for tab in TAB_WIDTHS:
            steps_at = self.steps_at[tab]
            if steps_at is None or start + first + 1 in steps_at:
                file_widths, widths = self.widths[tab]
                fits.append((tab, file_widths[start + first] - widths[first]))
        if not fits:
            return None
        return Found(start, *next((fit for fit in fits if fit[1] == 0), fits[0]))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges [begin, end), in order of `begin`, with the ones that overlap or touch joined."""
    merged: list[tuple[int, int]] = []
    for begin, end in spans:
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((begin, end))
    return merged


def _steps_within(
    lines: Sequence[str], spans: list[tuple[int, int]], tab: int, work: Work
) -> tuple[list[int], list[int]]:
    """_steps of the lines of each span, measured on its own; 0 for every line outside them."""
    widths, steps = [0] * len(lines), [0] * len(lines)
    for begin, end in spans:
        widths[begin:end], steps[begin:end] = _steps(lines[begin:end], tab, work)
    return widths, steps


def _steps(lines: Sequence[str], tab: int, work: Work) -> tuple[list[int], list[int]]:
    """Each line's indentation width, and its step from the last non-blank line before it (0 for a
    blank line: windows that match have their blank lines in the same places)."""
    work.measured += len(lines)
    widths, steps, last = [], [], None
    for line in lines:
        if is_blank(line):
            widths.append(0)
            steps.append(0)
            continue
        width = indent_width(indent_of(line), tab)
        widths.append(width)
        steps.append(0 if last is None else width - last)
        last = width
    return widths, steps


def blank_ends(search: list[str]) -> tuple[int, int] | None:
    """How many blank lines start and end the search text (None: none, nothing to try without them)."""
    lead = next(i for i, line in enumerate(search) if not is_blank(line))
    trail = next(i for i, line in enumerate(reversed(search)) if not is_blank(line))
    return (lead, trail) if lead or trail else None


def attempts(ends: tuple[int, int] | None) -> list[tuple[str, tuple[int, int]]]:
    """The stages in order, each on the whole search text and then, if it has blank lines at its
    ends, without them: (stage, (blank lines left out at the start, at the end))."""
    attempts = [(EXACT, (0, 0))]
    for stage in (WHITESPACE, INDENTATION):
        attempts.append((stage, (0, 0)))
        if ends:
            attempts.append((stage, ends))
    return attempts
