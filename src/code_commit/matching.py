"""Finding an edit block's search text in a file and splicing in its replacement. Pure.

Matching is by whole lines: a search text never matches part of a line. There are three
stages, each looser than the last. A search text is applied only if all of them together find
it at exactly one place: a strict stage finding it once is not enough when a looser one finds
it somewhere else too, since the model may have meant that other place (its copy of the file
may have lost trailing whitespace or indentation there). More than one place is refused as
ambiguous. The strictest stage that finds the one place decides how the replacement is spliced
in:

1. exact: byte for byte;
2. whitespace: ignoring trailing whitespace and line endings (``\\r\\n``, ``\\n``, none);
3. indentation: also ignoring leading whitespace, provided it differs by the same amount on
   every non-blank line (a uniform shift; tabs are counted at width 4, 8 or 2, so a block
   written with spaces matches a tab-indented file). The replacement is re-indented by the
   same shift, in the file's own style (tabs or spaces).

From stage 2 on, a search text is also tried without the blank lines at its ends (models add
blank lines the file does not have there); the replacement's copies of the ones the file does
not have are dropped with them: the blank lines at the same end of the replacement first.

Models get line numbers wrong, so nothing here uses them: the search text is the anchor.

Splicing keeps the file's own bytes wherever the replacement repeats a line of the search text
(found by diffing the search text against the replacement), so in stages 2 and 3 the trailing
whitespace, tabs and line endings of unchanged lines survive, and `git diff` shows only the
lines the model meant to change. New lines get the file's line ending, in every stage. A file
without a final newline keeps having none where the replacement writes its last line; where the
replacement removes the last line, the line that becomes the last one keeps its line ending (an
untouched line stays untouched). The diff's work is linear in the lines: where it would cost
more (thousands of repeated lines), only the lines the two start and end with count as repeated.

There is no fuzzy stage: see the matching benchmark in docs/benchmarks.md for the evidence against one.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import Any

EXACT = "exact"
WHITESPACE = "whitespace"
INDENTATION = "indentation"

STAGE_NAMES = {
    EXACT: "exact match",
    WHITESPACE: "ignoring trailing whitespace and line endings",
    INDENTATION: "ignoring trailing whitespace, line endings and a uniform indentation shift",
}

BOM = "\ufeff"  # a byte-order mark: not part of the first line's text
TAB_WIDTHS = (4, 8, 2)
CLOSEST_SHOWN = 40  # lines of the closest window quoted back to the model at most
QUOTED_CHARS = 300  # characters of a line quoted in a failure at most
# The no-match report's bounds on work (see _no_match):
COMPARED_LINES = 40  # lines of the search text compared with a window of the file
COMPARED_CHARS = 200  # characters of a line compared
CANDIDATES = 20  # the windows most lines vote for, scored
SAMPLED = 200  # windows spread evenly over the file, scored too
VOTE_BUDGET = 20_000  # votes cast at most (the rarest lines and words first)
MAX_LOCATIONS_SHOWN = 20  # an ambiguous search text's locations named in the message (all are in the data)
MAX_EXTRA_CONTEXT = 100  # lines added around a location, at most, when looking for a unique window
UNIQUE_WINDOW_WORK = 500_000  # windows of the file hashed at most when looking for them (see unique_around)
# The failing search texts of an answer whose report includes the parts that cost more than the
# matching itself: a no-match's closest lines, an ambiguous match's unique windows and min_context.
EXPLAINED_FAILURES = 3
# The splice's diff gives up past this much work per line it diffs (see _BoundedDiff).
DIFF_WORK_PER_LINE = 500
# Items compared at C speed per item of both sequences before _occurrences turns to a linear search.
MATCH_WORK_PER_ITEM = 32
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Lines:
    """A range of lines, numbered from 1, both ends included."""

    first: int
    last: int

    def __str__(self) -> str:
        return f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"


@dataclass(frozen=True)
class NumberedLine:
    number: int  # from 1
    text: str  # without its line ending


@dataclass(frozen=True)
class Resolution:
    """Where a search text was found and what the file becomes."""

    text: str
    lines: Lines  # the lines replaced, in the file before the edit
    stage: str


class MatchFailure(Exception):
    """A search text that cannot be placed; `describe` says why, for the model."""

    kind = "match"
    closest: tuple[NumberedLine, ...] = ()
    locations: tuple[Lines, ...] = ()
    unique_around: tuple[Lines | None, ...] = ()
    min_context: int | None = None
    already_there: Lines | None = None

    def describe(self, path: str) -> str:
        raise NotImplementedError


class BlankSearch(MatchFailure):
    kind = "blank_search"

    def describe(self, path: str) -> str:
        return (
            "the search text is empty or only blank lines, so it anchors nothing; copy at least one "
            "non-blank line of the file into it. To replace a whole file, use a whole-file block."
        )


class NoMatch(MatchFailure):
    kind = "no_match"

    def __init__(
        self,
        first_line: str,
        closest: tuple[NumberedLine, ...],
        similarity: float,
        already_there: Lines | None = None,
        explained: bool = True,
    ) -> None:
        super().__init__("no match")
        self.first_line = first_line
        self.closest = closest
        self.similarity = similarity
        self.already_there = already_there  # where the replacement text already is, once, if it is
        self.explained = explained  # False: the closest lines were not looked for

    def describe(self, path: str) -> str:
        text = (
            f"the search text (first line: {self.first_line!r}) matches nowhere in {path}, not even "
            f"{STAGE_NAMES[INDENTATION]}."
        )
        if self.already_there is not None:
            # Typical of a repair answer that repeats a change an earlier answer already made.
            text += (
                f" Its replacement text is already in {path}, at {self.already_there}: if that change is "
                "already made, leave this pair out."
            )
        if not self.explained:
            return text + (
                " Copy the search text from the file exactly as it is now (the closest lines are quoted "
                f"for the first {EXPLAINED_FAILURES} failing search texts of an answer only)."
            )
        if not self.closest:
            return text + f" {path} has no similar lines."
        quoted = "".join(f"{line.number:>6}| {line.text}\n" for line in self.closest)
        return (
            text + f" The closest lines actually in {path} ({self.similarity:.0%} similar) are:\n{quoted}"
            "Copy the search text from the file exactly as it is now."
        )


class AmbiguousMatch(MatchFailure):
    kind = "ambiguous"

    def __init__(
        self,
        stage: str,
        locations: tuple[Lines, ...],
        unique_around: tuple[Lines | None, ...],
        min_context: int | None,
    ) -> None:
        super().__init__("ambiguous")
        self.stage = stage
        self.locations = locations
        # For each of the first MAX_LOCATIONS_SHOWN locations, the smallest unique window containing
        # it (None: none within the extra lines tried, see _Windows.unique_around); () when not worked out.
        self.unique_around = unique_around
        self.min_context = min_context  # calculate_min_context of the file; None when not worked out

    def describe(self, path: str) -> str:
        shown = [str(lines) for lines in self.locations[:MAX_LOCATIONS_SHOWN]]
        if len(self.locations) > MAX_LOCATIONS_SHOWN:
            shown.append(f"{len(self.locations) - MAX_LOCATIONS_SHOWN} more")
        hints = "; ".join(
            f"for {where}, a search text of {wider} would be unique"
            for where, wider in zip(self.locations, self.unique_around, strict=False)
            if wider is not None
        )
        advice = f": {hints}" if hints else ""
        text = (
            f"the search text matches {len(self.locations)} places in {path} ({STAGE_NAMES[self.stage]}): "
            f"{_join(shown)}. It must match exactly one, so add unchanged lines around the change{advice}."
        )
        if self.min_context is None:
            return text + (
                f" (The lines that make a search text unique are worked out for the first {EXPLAINED_FAILURES} "
                "failing search texts of an answer only.)"
            )
        return text + (
            f" Any {self.min_context} consecutive lines of {path} are unique, even ignoring indentation and "
            "trailing whitespace, if the first and the last of them are not blank."
        )


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# --- lines and keys ---


def split_lines(text: str) -> list[str]:
    """Lines as git sees them, each with its "\\n" (the last one may have none); "" has no lines."""
    if not text:
        return []
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def _body(line: str) -> str:
    """A line without its line ending."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith("\n") else line


def _blank(line: str) -> bool:
    return not line.strip()


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _width(indent: str, tab: int) -> int:
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
class _Found:
    start: int  # index of the first matched file line
    tab: int = 4
    shift: int = 0  # columns added to the search text's indentation to reach the file's


def _keys(lines: Sequence[str], stage: str) -> list[str]:
    return list(map(_key(stage), lines))


def _find(file_lines: list[str], keys: list[str], search: list[str], stage: str) -> list[int]:
    """Where every place `search` matches in the file at `stage` starts; `keys` are the file's
    lines as that stage sees them."""
    starts = _occurrences(keys, _keys(search, stage))
    if stage != INDENTATION or not starts or sum(not _blank(line) for line in search) == 1:
        # One non-blank line has no indentation step to compare: any shift of it is uniform.
        return starts
    shifts = _Shifts(file_lines, search, starts)
    return [start for start in starts if shifts.at(start) is not None]


def _occurrences(items: list[Any], wanted: list[Any]) -> list[int]:
    """Where `wanted` (not empty) occurs in `items`, in order, with work linear in both.

    `list.index` jumps to each place the first item of `wanted` is at, and the window there is
    compared whole, both at C speed: a Python loop over every line of the file would be the work
    of a pass per search text (an answer may have a thousand). But a long search text in a
    repetitive file has thousands of places, each compared over thousands of lines: once the
    comparing passes MATCH_WORK_PER_ITEM items per item of both, the rest is found with
    Knuth-Morris-Pratt, a Python loop, but linear.
    """
    n = len(wanted)
    work_left = MATCH_WORK_PER_ITEM * (len(items) + n)
    starts: list[int] = []
    end = max(0, len(items) - n + 1)  # no window starts at or after it
    start = 0
    while True:
        try:
            start = items.index(wanted[0], start, end)
        except ValueError:
            return starts
        work_left -= n
        if work_left < 0:
            return starts + _knuth_morris_pratt(items, wanted, start)
        if items[start : start + n] == wanted:
            starts.append(start)
        start += 1


def _knuth_morris_pratt(items: list[Any], wanted: list[Any], begin: int) -> list[int]:
    """Where `wanted` (not empty) occurs in `items` from `begin` on, in time linear in both."""
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
            k = border[k - 1]
    return found


def _found_at(file_lines: list[str], search: list[str], stage: str, start: int) -> _Found | None:
    """The match of `search` at `start` in the file at `stage`, if it matches there."""
    if start < 0 or start + len(search) > len(file_lines):
        return None
    window = file_lines[start : start + len(search)]
    if _keys(window, stage) != _keys(search, stage):
        return None
    if stage != INDENTATION:
        return _Found(start)
    found = _Shifts(window, search, [0]).at(0)
    return None if found is None else dataclasses.replace(found, start=start)


class _Shifts:
    """Whether the indentation of the search text and of a window of the file whose stripped lines
    equal it differ by the same columns on every non-blank line, and by how many: (tab width, shift).

    A shift of 0 is preferred (tabs written as spaces, or the other way round), then the tab widths
    in the order of TAB_WIDTHS. The shift is uniform where each non-blank line's indentation step
    from the non-blank line before it is the same in the window as in the search text. The steps
    are computed once per line of the windows to check (`starts`, in order), and where the search
    text's steps occur among them is found once (_occurrences, linear), so checking a window is a
    set lookup (a repetitive file has thousands of places to check, each maybe thousands of lines
    long). Lines outside the windows are not measured at all (a thousand search texts for one
    line each measured the whole file a thousand times): the window's first non-blank line has
    no step to compare, and each later line's last non-blank line before it is in the window, so
    each run of overlapping windows is measured on its own, from its first non-blank line.
    """

    def __init__(self, file_lines: Sequence[str], search: Sequence[str], starts: Sequence[int]) -> None:
        self.first = next(j for j, line in enumerate(search) if not _blank(line))  # no step before it
        spans = _merged([(start + self.first, start + len(search)) for start in starts])
        self.widths: dict[int, tuple[list[int], list[int]]] = {}  # per tab: the file's and the search text's
        # Per tab, where in the file the search text's steps after its first non-blank line start
        # (None: it has none to compare, so anywhere).
        self.steps_at: dict[int, set[int] | None] = {}
        for tab in TAB_WIDTHS:
            file_widths, file_steps = _steps_within(file_lines, spans, tab)
            widths, steps = _steps(search, tab)
            self.widths[tab] = (file_widths, widths)
            wanted = steps[self.first + 1 :]
            self.steps_at[tab] = (
                {begin + i for begin, end in spans for i in _occurrences(file_steps[begin:end], wanted)}
                if wanted
                else None
            )

    def at(self, start: int) -> _Found | None:
        first, fits = self.first, []
        for tab in TAB_WIDTHS:
            steps_at = self.steps_at[tab]
            if steps_at is None or start + first + 1 in steps_at:
                file_widths, widths = self.widths[tab]
                fits.append((tab, file_widths[start + first] - widths[first]))
        if not fits:
            return None
        return _Found(start, *next((fit for fit in fits if fit[1] == 0), fits[0]))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges [begin, end), in order of `begin`, with the ones that overlap or touch joined."""
    merged: list[tuple[int, int]] = []
    for begin, end in spans:
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((begin, end))
    return merged


def _steps_within(lines: Sequence[str], spans: list[tuple[int, int]], tab: int) -> tuple[list[int], list[int]]:
    """_steps of the lines of each span, measured on its own; 0 for every line outside them."""
    widths, steps = [0] * len(lines), [0] * len(lines)
    for begin, end in spans:
        widths[begin:end], steps[begin:end] = _steps(lines[begin:end], tab)
    return widths, steps


def _steps(lines: Sequence[str], tab: int) -> tuple[list[int], list[int]]:
    """Each line's indentation width, and its step from the last non-blank line before it (0 for a
    blank line: windows that match have their blank lines in the same places)."""
    widths, steps, last = [], [], None
    for line in lines:
        if _blank(line):
            widths.append(0)
            steps.append(0)
            continue
        width = _width(_indent(line), tab)
        widths.append(width)
        steps.append(0 if last is None else width - last)
        last = width
    return widths, steps


def _blank_ends(search: list[str]) -> tuple[int, int] | None:
    """How many blank lines start and end the search text (None: none, nothing to try without them)."""
    lead = next(i for i, line in enumerate(search) if not _blank(line))
    trail = next(i for i, line in enumerate(reversed(search)) if not _blank(line))
    return (lead, trail) if lead or trail else None


def _attempts(ends: tuple[int, int] | None) -> list[tuple[str, tuple[int, int]]]:
    """The stages in order, each on the whole search text and then, if it has blank lines at its
    ends, without them: (stage, (blank lines left out at the start, at the end))."""
    attempts = [(EXACT, (0, 0))]
    for stage in (WHITESPACE, INDENTATION):
        attempts.append((stage, (0, 0)))
        if ends:
            attempts.append((stage, ends))
    return attempts


def resolve(text: str, search: str, replace: str, explain: bool = True) -> Resolution:
    """Replace the one place `search` matches in `text`; raise a MatchFailure if there is not exactly one.

    `explain=False` leaves out of a failure the parts of its report that cost more than the
    matching (the closest lines, the unique windows): a caller resolving a whole answer explains
    only its first EXPLAINED_FAILURES failures, so an answer of many failing pairs stays cheap.

    A byte-order mark at the start of the file is not part of its first line's text: it is left
    out of the matching and kept in the file. One at the start of the search text (the file's
    first line copied with it) is left out too, with the replacement's copy of it, so the file
    keeps the mark it had, or its lack of one.
    """
    bom = BOM if text.startswith(BOM) else ""
    if search.startswith(BOM):
        search = search[1:]
        replace = replace.removeprefix(BOM)
    result = _resolve(text[len(bom) :], search, replace, explain)
    return dataclasses.replace(result, text=bom + result.text) if bom else result


def _resolve(text: str, search: str, replace: str, explain: bool) -> Resolution:
    file_lines = split_lines(text)
    search_lines = split_lines(search)
    replace_lines = split_lines(replace)
    if all(_blank(line) for line in search_lines):
        raise BlankSearch("blank search")
    ends = _blank_ends(search_lines)
    lead, trail = ends or (0, 0)
    core = search_lines[lead : len(search_lines) - trail]
    # Every place any stage could find the search text at: the loosest attempt's places, since each
    # attempt finds a subset of the next one's (an exact match also matches ignoring trailing
    # whitespace, that with a shift of 0, and a whole search text's blank-less core is found
    # wherever the search text is). So the search text is applied only if this finds one place,
    # and then the strictest attempt that finds it there says how to splice the replacement in.
    places = _find(file_lines, _keys(file_lines, INDENTATION), core, INDENTATION)
    if not places:
        raise _no_match(file_lines, search_lines, replace_lines, explain)
    if len(places) > 1:
        raise _ambiguous(file_lines, search_lines, (lead, trail), places, explain)
    place = places[0]  # where the core starts
    for stage, (left_lead, left_trail) in _attempts(ends):
        tried = search_lines[left_lead : len(search_lines) - left_trail]
        hit = _found_at(file_lines, tried, stage, place - (lead - left_lead))
        if hit is not None:
            break
    else:  # pragma: no cover - the last attempt is the loosest one, which found the place
        raise AssertionError("the loosest attempt's place is not found again")
    # The blank lines left out of the match that the file does have there belong to it.
    stop = hit.start + len(tried)
    while left_lead and hit.start and _blank(file_lines[hit.start - 1]):
        hit, left_lead = dataclasses.replace(hit, start=hit.start - 1), left_lead - 1
    while left_trail and stop < len(file_lines) and _blank(file_lines[stop]):
        stop, left_trail = stop + 1, left_trail - 1
    new_lines = _splice(file_lines, hit, stop, search_lines, (left_lead, left_trail), replace_lines, stage)
    return Resolution("".join(new_lines), Lines(hit.start + 1, stop), stage)


# --- splicing ---


def _splice(
    file_lines: list[str],
    hit: _Found,
    stop: int,
    search: list[str],
    ends: tuple[int, int],
    replace: list[str],
    stage: str,
) -> list[str]:
    """The file with lines [hit.start, stop) replaced.

    A file without a final newline keeps having none if its last line is now one the replacement
    wrote. If the replacement removes the last line, the line that becomes the last one is left
    as it is, line ending included: the file then ends with a newline, but `git diff` shows only
    the lines the model changed, as it does elsewhere (dropping that line's newline would show it
    changed, though the model did not touch it).

    `ends` counts the blank lines at the start and at the end of `search` that the file does not
    have there (always its outermost ones). The replacement's copies of them go too: first the
    blank lines at the same end of the replacement, as many as there are (the model's picture of
    the file has a blank line there, before or after whatever it does not quote, and its
    replacement keeps it there); then, for any left, the blank lines the diff of the search text
    against the replacement pairs with them.
    """
    lead, trail = ends
    drop_lead = min(lead, _leading_blanks(replace))
    drop_trail = min(trail, _leading_blanks(replace[drop_lead:][::-1]))
    search = search[drop_lead : len(search) - drop_trail]
    replace = replace[drop_lead : len(replace) - drop_trail]
    lead, trail = lead - drop_lead, trail - drop_trail
    matched = file_lines[hit.start : stop]
    # The file line behind each search line (None: a blank line the file does not have there).
    behind: list[str | None] = [None] * lead + list(matched) + [None] * trail
    eol = _line_ending(matched, file_lines)
    tabs = any(_indent(line).startswith("\t") for line in matched if not _blank(line))
    # In the exact stage the search text is the file's own text, so a replacement line that differs
    # from it only by trailing whitespace is a change the model means; in the others it is noise.
    same: Callable[[str], str] = _body if stage == EXACT else str.rstrip
    middle: list[str] = []
    ends_new = False  # whether the last line of `middle` is one the replacement wrote
    for op, i1, i2, j1, j2 in _opcodes([same(line) for line in search], [same(line) for line in replace]):
        if op == "equal":
            # Lines the model repeats unchanged keep the file's own bytes.
            kept = [line for line in behind[i1:i2] if line is not None]
            middle.extend(kept)
            ends_new = ends_new and not kept
            continue
        for line in replace[j1:j2]:
            body = _body(line)
            if stage == INDENTATION:
                body = _reindent(body, hit, tabs)
            middle.append(body + eol)  # new lines get the file's line ending, whatever the answer's
            ends_new = True
    # The file's last line, the one line that may have no newline, may now be followed by new
    # ones; it is in `middle` then (a kept line), so the lines around need no look.
    middle = [line if line.endswith("\n") else line + eol for line in middle[:-1]] + middle[-1:]
    if ends_new and stop == len(file_lines) and not file_lines[-1].endswith("\n"):
        middle[-1] = _body(middle[-1])  # the new last line, like the one it replaces, has no newline
    return file_lines[: hit.start] + middle + file_lines[stop:]


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """How to turn the lines `a` into `b`, as difflib's opcodes, with work linear in the lines.

    The lines both start and end with are equal as they stand; difflib diffs only the ones in
    between, and if that costs too much (see _BoundedDiff), all of them are taken as replaced.
    """
    head = _common_start(a, b)
    tail = _common_start(a[head:][::-1], b[head:][::-1])
    a_middle, b_middle = a[head : len(a) - tail], b[head : len(b) - tail]
    try:
        middle = _BoundedDiff(a_middle, b_middle).get_opcodes()
    except _DiffTooCostly:
        middle = [("replace", 0, len(a_middle), 0, len(b_middle))]
    opcodes = [("equal", 0, head, 0, head)] if head else []
    opcodes += [(op, i1 + head, i2 + head, j1 + head, j2 + head) for op, i1, i2, j1, j2 in middle]
    if tail:
        opcodes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return opcodes


def _common_start(a: list[str], b: list[str]) -> int:
    """How many lines `a` and `b` start with that are equal."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


class _DiffTooCostly(Exception):
    pass


class _BoundedDiff(difflib.SequenceMatcher):
    """difflib's line diff, which raises _DiffTooCostly rather than do more than
    DIFF_WORK_PER_LINE units of work per line of its two sequences.

    Each search for the longest block of equal lines looks at every pair of equal lines whose
    first line is in its range of `a`, and there is a search per block found: with lines repeated
    in both sequences (a file of "0"s) that is cubic in the lines, minutes for a few thousand. The
    pairs a search can look at are counted before it runs, so it never starts past the budget.
    Below about 30 lines a side even the worst case fits.
    """

    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, a, b, autojunk=False)
        self.work_left = DIFF_WORK_PER_LINE * (len(a) + len(b))
        # pairs_before[i]: the pairs of equal lines, one in each sequence, whose line in `a` is before a[i]
        self.pairs_before = [0, *accumulate(len(self.b2j.get(line, ())) for line in a)]

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = len(self.a) if ahi is None else ahi
        self.work_left -= (ahi - alo) + self.pairs_before[ahi] - self.pairs_before[alo]
        if self.work_left < 0:
            raise _DiffTooCostly
        return super().find_longest_match(alo, ahi, blo, bhi)


def _leading_blanks(lines: Sequence[str]) -> int:
    return next((i for i, line in enumerate(lines) if not _blank(line)), len(lines))


def _line_ending(matched: list[str], file_lines: list[str]) -> str:
    for line in [*matched, *file_lines]:
        if line.endswith("\n"):
            return "\r\n" if line.endswith("\r\n") else "\n"
    return "\n"


def _reindent(body: str, hit: _Found, tabs: bool) -> str:
    if _blank(body):
        return ""
    indent = _indent(body)
    width = max(0, _width(indent, hit.tab) + hit.shift)
    new = "\t" * (width // hit.tab) + " " * (width % hit.tab) if tabs else " " * width
    return new + body[len(indent) :]


# --- explaining failures ---


def calculate_min_context(lines: Sequence[str]) -> int:
    """The smallest k such that every run of k consecutive lines is unique (0 for no lines).

    Applydir's `calculate_min_context`: a search text of at least k lines copied from the file
    always matches exactly one place. Uniqueness only grows with k, so a binary search works;
    with window hashes each step is linear, so even a file of identical lines is quick.
    """
    return _Windows(lines).min_context()


class _Windows:
    """Polynomial hashes of every run of lines, so runs of any length compare in constant time."""

    MOD = (1 << 61) - 1
    BASE = 1_000_003

    def __init__(self, lines: Sequence[str]) -> None:
        numbering: dict[str, int] = {}
        self.ids = [numbering.setdefault(line, len(numbering)) for line in lines]
        self.prefix = [0]
        self.powers = [1]
        for line_id in self.ids:
            self.prefix.append((self.prefix[-1] * self.BASE + line_id + 1) % self.MOD)
            self.powers.append(self.powers[-1] * self.BASE % self.MOD)

    def of(self, start: int, size: int) -> int:
        return (self.prefix[start + size] - self.prefix[start] * self.powers[size]) % self.MOD

    def hashes(self, size: int) -> list[int]:
        """The hash of every run of `size` lines, in order (what `of` gives, at a fraction of the cost)."""
        prefix, power, mod = self.prefix, self.powers[size], self.MOD
        return [(prefix[i + size] - prefix[i] * power) % mod for i in range(len(self.ids) - size + 1)]

    def counts(self, size: int) -> Counter[int]:
        return Counter(self.hashes(size))

    def all_unique(self, size: int) -> bool:
        """Whether every run of `size` lines occurs once; it stops at the first repeat."""
        prefix, power, mod, ids = self.prefix, self.powers[size], self.MOD, self.ids
        first_with: dict[int, int] = {}  # a hash -> the first run with it
        for i in range(len(ids) - size + 1):
            j = first_with.setdefault((prefix[i + size] - prefix[i] * power) % mod, i)
            if j != i:
                return ids[j : j + size] != ids[i : i + size] and self._all_unique_despite_collisions(size)
        return True

    def _all_unique_despite_collisions(self, size: int) -> bool:
        """all_unique, for when two different runs share a hash: each run compared with every
        earlier one of its hash."""
        seen: dict[int, list[int]] = {}
        for i, window in enumerate(self.hashes(size)):
            same_hash = seen.setdefault(window, [])
            if any(self.ids[j : j + size] == self.ids[i : i + size] for j in same_hash):
                return False
            same_hash.append(i)
        return True

    def min_context(self) -> int:
        """calculate_min_context of the lines.

        A size that is too small usually shows a repeat early, but one big enough costs a whole
        pass: so sizes double from 1 until one is unique (a file's min_context is small unless
        it is very repetitive), and a binary search finishes between the last two.
        """
        if not self.ids:
            return 0
        too_small, size = 0, 1
        while not self.all_unique(size):
            too_small, size = size, min(2 * size, len(self.ids))  # all of them together are unique
        low, high = too_small + 1, size
        while low < high:
            middle = (low + high) // 2
            if self.all_unique(middle):
                high = middle
            else:
                low = middle + 1
        return low

    def unique_around(
        self, starts: Sequence[int], n: int, largest: int, blank: Sequence[bool], core_at: Sequence[int]
    ) -> tuple[Lines | None, ...]:
        """For each location [start, start+n), the smallest window of at most `largest` lines
        containing it that occurs once in the file and neither starts nor ends with a blank line
        (the matcher would try it without those too); None if there is none that small, or if
        finding it would hash more than UNIQUE_WINDOW_WORK windows.

        `core_at` is every place the lines of a location occur. A window equal to one around a
        location has them at the same offset, so it starts at one of those places, minus the
        offset: where they are few, only the windows there are compared (a search text at two
        places in a long file); where they are many, every window of the size is counted, a pass
        over the file.
        """
        found: dict[int, Lines] = {}
        work_left = UNIQUE_WINDOW_WORK
        for size in range(n + 1, min(largest, len(self.ids)) + 1):
            pending = [start for start in starts if start not in found]
            if not pending:
                break
            compared = len(pending) * (size - n + 1) * len(core_at)  # at most, window by window
            every = len(self.ids) - size + 1
            work_left -= min(compared, every)
            if work_left < 0:
                break
            counts = self.counts(size) if every < compared else None
            for start in pending:
                for s in self._around(start, n, size, blank):
                    if self._occurs_once(s, size, start - s, core_at, counts):
                        found[start] = Lines(s + 1, s + size)
                        break
        return tuple(found.get(start) for start in starts)

    def _around(self, start: int, n: int, size: int, blank: Sequence[bool]) -> list[int]:
        """Where the windows of `size` lines that contain [start, start+n), and neither start nor
        end with a blank line, start: the most centred first."""
        last = len(self.ids) - size
        around = [
            s for s in range(max(0, start + n - size), min(start, last) + 1) if not blank[s] and not blank[s + size - 1]
        ]
        return sorted(around, key=lambda s: abs((start - s) - (s + size - start - n)))

    def _occurs_once(self, s: int, size: int, offset: int, core_at: Sequence[int], counts: Counter[int] | None) -> bool:
        """Whether the window [s, s+size), whose location's lines are at `offset` in it, occurs
        nowhere else: by `counts` of every window's hash if given, else by the windows at the
        other places of those lines. A hash collision can only make a window look shared."""
        window = self.of(s, size)
        if counts is not None:
            return counts[window] == 1
        last = len(self.ids) - size
        others = (q - offset for q in core_at)
        return not any(other != s and 0 <= other <= last and self.of(other, size) == window for other in others)


def _ambiguous(
    file_lines: list[str], search: list[str], ends: tuple[int, int], places: list[int], explain: bool
) -> AmbiguousMatch:
    """The failure for a search text whose blank-less core is at `places` (two or more).

    It names the strictest stage that finds every one of them. The advice (the unique window
    around each place, and how many lines make every window unique; only if `explain`) compares
    lines ignoring indentation and trailing whitespace, as the loosest stage does, so a search
    text it suggests matches one place whatever stage is tried.
    """
    lead, trail = ends
    core = search[lead : len(search) - trail]
    wanted = set(places)
    stage = INDENTATION  # the loosest attempt, which found `places`: not searched again
    for tried_stage, (left_lead, left_trail) in _attempts(_blank_ends(search))[:-1]:
        tried = search[left_lead : len(search) - left_trail]
        found = _find(file_lines, _keys(file_lines, tried_stage), tried, tried_stage)
        if {start + lead - left_lead for start in found} == wanted:
            stage = tried_stage
            break
    n = len(core)
    locations = tuple(Lines(s + 1, s + n) for s in places)
    if not explain:
        return AmbiguousMatch(stage, locations, (), None)
    keys = _keys(file_lines, INDENTATION)
    windows = _Windows(keys)
    # Every place the core's lines are, whatever their indentation (`places` leaves out the ones
    # whose shift is not uniform): a window equal to one around a place is at one of these.
    core_at = _occurrences(keys, _keys(core, INDENTATION))
    # Not capped at min_context: a window of that size may have to grow past blank lines at its ends.
    blank = [not k for k in keys]
    around = windows.unique_around(places[:MAX_LOCATIONS_SHOWN], n, n + MAX_EXTRA_CONTEXT, blank, core_at)
    return AmbiguousMatch(stage, locations, around, windows.min_context())


def _shorten(text: str) -> str:
    """A line as a failure quotes it: at most QUOTED_CHARS characters (minified files have huge lines)."""
    if len(text) <= QUOTED_CHARS:
        return text
    return f"{text[:QUOTED_CHARS]}[... {len(text) - QUOTED_CHARS} more characters]"


def _grams(text: str) -> frozenset[tuple[str, str]]:
    """The character pairs of a line's first COMPARED_CHARS characters, padded so that one
    character has some: a cheap, linear-time similarity key."""
    text = f" {text[:COMPARED_CHARS]} "
    return frozenset(pairwise(text))


def _no_match(file_lines: list[str], search: list[str], replace: list[str], explain: bool) -> NoMatch:
    """The window of the file most like the search text (only if `explain`), as the no-match
    failure reports it, and where the replacement already is (ignoring trailing whitespace), if it
    is there exactly once.

    The work is bounded whatever the input: besides a pass over the file's lines, at most
    (CANDIDATES + SAMPLED) windows are scored, each on at most COMPARED_LINES lines of at most
    COMPARED_CHARS characters, with a linear-time line similarity; and at most VOTE_BUDGET votes
    are cast to find the candidates.
    """
    already = None
    wanted_replace = [line for line in replace if not _blank(line)]
    if wanted_replace:
        ends = _blank_ends(replace) or (0, 0)
        core_replace = replace[ends[0] : len(replace) - ends[1]]
        found = _find(file_lines, _keys(file_lines, WHITESPACE), core_replace, WHITESPACE)
        if len(found) == 1:
            already = Lines(found[0] + 1, found[0] + len(core_replace))
    core = [line.strip() for line in search]
    while core and not core[0]:
        core.pop(0)
    while core and not core[-1]:
        core.pop()
    first = _shorten(next(_body(line) for line in search if not _blank(line)))
    if not explain:
        return NoMatch(first, (), 0.0, already, explained=False)
    keys = _keys(file_lines, INDENTATION)
    n = min(len(core), len(keys))
    if not n:
        return NoMatch(first, (), 0.0, already)
    compared = core[: min(n, COMPARED_LINES)]
    starts = _candidate_starts(keys, compared, len(keys) - n + 1)
    wanted = [_grams(line) for line in compared]
    grams: dict[int, frozenset[tuple[str, str]]] = {}

    def similarity(start: int) -> float:
        total = 0.0
        for offset, (line, line_grams) in enumerate(zip(compared, wanted, strict=True)):
            key = keys[start + offset]
            if key == line:
                total += 1.0
            elif key and line:
                if start + offset not in grams:
                    grams[start + offset] = _grams(key)
                have = grams[start + offset]
                # Dice's coefficient of the character pairs; below 1 for lines that differ beyond
                # the characters compared.
                total += min(0.99, 2 * len(line_grams & have) / (len(line_grams) + len(have)))
        return total / len(compared)

    best, best_score = 0, 0.0
    for start in starts:
        score = similarity(start)
        if score > best_score:
            best, best_score = start, score
    if best_score <= 0:
        return NoMatch(first, (), 0.0, already)
    shown = range(best, min(best + n, best + CLOSEST_SHOWN))
    closest = tuple(NumberedLine(i + 1, _shorten(_body(file_lines[i]))) for i in shown)
    # Never "100% similar": the window does not match, though the lines compared may all be equal
    # (the difference is further down, or the indentation shift is not uniform).
    return NoMatch(first, closest, min(best_score, 0.99), already)


def _candidate_starts(keys: list[str], compared: list[str], count: int) -> list[int]:
    """Window starts worth scoring, in order: the CANDIDATES that most lines of the search text
    vote for (a file line equal to a search line, or sharing a word with it, votes for the window
    that would align the two; the rarest first, at most VOTE_BUDGET votes), then SAMPLED windows
    spread evenly over the file, in case no line is alike at all."""
    lines_wanted: dict[str, list[int]] = {}
    words_wanted: dict[str, list[int]] = {}
    weight: list[float] = []
    for offset, line in enumerate(compared):
        if line:
            lines_wanted.setdefault(line, []).append(offset)
        words = set(_WORD.findall(line[:COMPARED_CHARS]))
        for word in words:
            words_wanted.setdefault(word, []).append(offset)
        weight.append(1 / len(words) if words else 0.0)
    line_hits: dict[str, list[int]] = {}
    word_hits: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key in lines_wanted:
            line_hits.setdefault(key, []).append(index)
        for word in words_wanted.keys() & _WORD.findall(key[:COMPARED_CHARS]):
            word_hits.setdefault(word, []).append(index)
    # (file lines, search line offsets, weight of each vote): an equal line counts twice a line's words.
    anchors = [(hits, lines_wanted[line], [2.0] * len(compared)) for line, hits in line_hits.items()]
    anchors += [(hits, words_wanted[word], weight) for word, hits in word_hits.items()]
    anchors.sort(key=lambda anchor: len(anchor[0]) * len(anchor[1]))
    votes: Counter[int] = Counter()
    budget = VOTE_BUDGET
    for hits, offsets, weights in anchors:
        budget -= len(hits) * len(offsets)
        if budget < 0:
            break
        for index in hits:
            for offset in offsets:
                if 0 <= index - offset < count:
                    votes[index - offset] += weights[offset]
    voted = [start for start, _ in sorted(votes.items(), key=lambda item: (-item[1], item[0]))[:CANDIDATES]]
    step = max(1, -(-count // SAMPLED))
    chosen = set(voted)
    return voted + [start for start in range(0, count, step) if start not in chosen]
