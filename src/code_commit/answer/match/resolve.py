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

Finding every place a search text matches at a stage is `finding`'s job; explaining a search text
that matches no place or many is `mismatch`'s. This module decides and splices.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from code_commit.answer.match.finding import (
    EXACT,
    INDENTATION,
    Found,
    Lines,
    Work,
    attempts,
    blank_ends,
    find,
    found_at,
    indent_of,
    indent_width,
    is_blank,
    line_body,
    split_lines,
    stage_keys,
)
from code_commit.answer.match.mismatch import BlankSearch, ambiguous, no_match

BOM = "\ufeff"  # a byte-order mark: not part of the first line's text
# The splice's diff gives up past this much work per line it diffs (see _BoundedDiff).
DIFF_WORK_PER_LINE = 500


@dataclass(frozen=True)
class _Resolution:
    """Where a search text was found and what the file becomes."""

    text: str
    lines: Lines  # the lines replaced, in the file before the edit
    stage: str


def resolve(text: str, search: str, replace: str, explain: bool = True, work: Work | None = None) -> _Resolution:
    """Replace the one place `search` matches in `text`; raise a `mismatch.MatchFailure` if there is
    not exactly one. The work it does is added to `work`, if given.

    `explain=False` leaves out of a failure the parts of its report that cost more than the
    matching (the closest lines, the unique windows): a caller resolving a whole answer explains
    only its first `mismatch.EXPLAINED_FAILURES` failures, so an answer of many failing pairs stays cheap.

    A byte-order mark at the start of the file is not part of its first line's text: it is left
    out of the matching and kept in the file. One at the start of the search text (the file's
    first line copied with it) is left out too, with the replacement's copy of it, so the file
    keeps the mark it had, or its lack of one.
    """
    bom = BOM if text.startswith(BOM) else ""
    if search.startswith(BOM):
        search = search[1:]
        replace = replace.removeprefix(BOM)
    result = _resolve(text[len(bom) :], search, replace, explain, Work() if work is None else work)
    return dataclasses.replace(result, text=bom + result.text) if bom else result


def _resolve(text: str, search: str, replace: str, explain: bool, work: Work) -> _Resolution:
    file_lines = split_lines(text)
    search_lines = split_lines(search)
    replace_lines = split_lines(replace)
    if all(is_blank(line) for line in search_lines):
        raise BlankSearch("blank search")
    ends = blank_ends(search_lines)
    lead, trail = ends or (0, 0)
    core = search_lines[lead : len(search_lines) - trail]
    # Every place any stage could find the search text at: the loosest attempt's places, since each
    # attempt finds a subset of the next one's (an exact match also matches ignoring trailing
    # whitespace, that with a shift of 0, and a whole search text's blank-less core is found
    # wherever the search text is). So the search text is applied only if this finds one place,
    # and then the strictest attempt that finds it there says how to splice the replacement in.
    places = find(file_lines, stage_keys(file_lines, INDENTATION), core, INDENTATION, work)
    if not places:
        raise no_match(file_lines, search_lines, replace_lines, explain, work)
    if len(places) > 1:
        raise ambiguous(file_lines, search_lines, (lead, trail), places, explain, work)
    place = places[0]  # where the core starts
    for stage, (left_lead, left_trail) in attempts(ends):
        tried = search_lines[left_lead : len(search_lines) - left_trail]
        hit = found_at(file_lines, tried, stage, place - (lead - left_lead), work)
        if hit is not None:
            break
    else:  # pragma: no cover - the last attempt is the loosest one, which found the place
        raise AssertionError("the loosest attempt's place is not found again")
    # The blank lines left out of the match that the file does have there belong to it.
    stop = hit.start + len(tried)
    while left_lead and hit.start and is_blank(file_lines[hit.start - 1]):
        hit, left_lead = dataclasses.replace(hit, start=hit.start - 1), left_lead - 1
    while left_trail and stop < len(file_lines) and is_blank(file_lines[stop]):
        stop, left_trail = stop + 1, left_trail - 1
    new_lines = _splice(file_lines, hit, stop, search_lines, (left_lead, left_trail), replace_lines, stage)
    return _Resolution("".join(new_lines), Lines(hit.start + 1, stop), stage)


# --- splicing ---


def _splice(
    file_lines: list[str],
    hit: Found,
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
    tabs = any(indent_of(line).startswith("\t") for line in matched if not is_blank(line))
    # In the exact stage the search text is the file's own text, so a replacement line that differs
    # from it only by trailing whitespace is a change the model means; in the others it is noise.
    same: Callable[[str], str] = line_body if stage == EXACT else str.rstrip
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
            new = line_body(line)
            if stage == INDENTATION:
                new = _reindent(new, hit, tabs)
            middle.append(new + eol)  # new lines get the file's line ending, whatever the answer's
            ends_new = True
    # The file's last line, the one line that may have no newline, may now be followed by new
    # ones; it is in `middle` then (a kept line), so the lines around need no look.
    middle = [line if line.endswith("\n") else line + eol for line in middle[:-1]] + middle[-1:]
    if ends_new and stop == len(file_lines) and not file_lines[-1].endswith("\n"):
        middle[-1] = line_body(middle[-1])  # the new last line, like the one it replaces, has no newline
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


class _BoundedDiff(difflib.SequenceMatcher[str]):
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
        self.lines_a = len(a)
        self.work_left = DIFF_WORK_PER_LINE * (len(a) + len(b))
        # pairs_before[i]: the pairs of equal lines, one in each sequence, whose line in `a` is before a[i]
        # (with no junk, every line of `b` counts: difflib's own index of `b` is not public)
        in_b = Counter(b)
        self.pairs_before = [0, *accumulate(in_b[line] for line in a)]

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = self.lines_a if ahi is None else ahi
        self.work_left -= (ahi - alo) + self.pairs_before[ahi] - self.pairs_before[alo]
        if self.work_left < 0:
            raise _DiffTooCostly
        return super().find_longest_match(alo, ahi, blo, bhi)


def _leading_blanks(lines: Sequence[str]) -> int:
    return next((i for i, line in enumerate(lines) if not is_blank(line)), len(lines))


def _line_ending(matched: list[str], file_lines: list[str]) -> str:
    for line in [*matched, *file_lines]:
        if line.endswith("\n"):
            return "\r\n" if line.endswith("\r\n") else "\n"
    return "\n"


def _reindent(body: str, hit: Found, tabs: bool) -> str:
    if is_blank(body):
        return ""
    indent = indent_of(body)
    width = max(0, indent_width(indent, hit.tab) + hit.shift)
    new = "\t" * (width // hit.tab) + " " * (width % hit.tab) if tabs else " " * width
    return new + body[len(indent) :]
