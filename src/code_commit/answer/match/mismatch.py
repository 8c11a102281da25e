"""Why a search text cannot be placed, told to the model. Pure.

A search text that matches nowhere gets the window of the file most like it, and where its
replacement already is; one that matches at several places gets every place, the smallest window
around each that is unique, and how many lines make every window of the file unique. These cost
more than the matching itself, so each is bounded by counting work (see the constants), and a
caller explains only the first EXPLAINED_FAILURES failures of an answer.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from code_commit.answer.match.finding import (
    INDENTATION,
    MAX_PLACES,
    STAGE_NAMES,
    WHITESPACE,
    Lines,
    Work,
    attempts,
    blank_ends,
    find,
    is_blank,
    line_body,
    occurrences,
    stage_keys,
)

CLOSEST_SHOWN = 40  # lines of the closest window quoted back to the model at most
QUOTED_CHARS = 300  # characters of a line quoted in a failure at most
# The no-match report's bounds on work (see no_match):
COMPARED_LINES = 40  # lines of the search text compared with a window of the file
COMPARED_CHARS = 200  # characters of a line compared
CANDIDATES = 20  # the windows most lines vote for, scored
SAMPLED = 200  # windows spread evenly over the file, scored too
_VOTE_BUDGET = 20_000  # votes cast at most (the rarest lines and words first)
MAX_LOCATIONS_SHOWN = 20  # an ambiguous search text's locations named in the message (all are in the data)
_MAX_EXTRA_CONTEXT = 100  # lines added around a location, at most, when looking for a unique window
UNIQUE_WINDOW_WORK = 500_000  # windows of the file hashed at most when looking for them (see unique_around)
# The advice on an ambiguous search text (unique windows, min_context) hashes every line of the file,
# a step of a Python loop each: a file over this many lines gets none (500,000 lines took seconds).
ADVICE_LINES = 100_000
# A no-match's candidate windows come from lines equal to the search text's, and from lines sharing
# words with them, which costs a regex per line: a file over this many lines gets the first only.
_WORD_VOTE_LINES = 100_000
# The failing search texts of an answer whose report includes the parts that cost more than the
# matching itself: a no-match's closest lines, an ambiguous match's unique windows and min_context.
EXPLAINED_FAILURES = 3
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class NumberedLine:
    number: int  # from 1
    text: str  # without its line ending


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
        too_long: bool = False,
    ) -> None:
        super().__init__("ambiguous")
        self.too_long = too_long  # the advice was not worked out: the file has over ADVICE_LINES lines
        self.stage = stage
        self.locations = locations  # the first MAX_PLACES: more are not looked for
        # For each of the first MAX_LOCATIONS_SHOWN locations, the smallest unique window containing
        # it (None: none within the extra lines tried, see Windows.unique_around); () when not worked out.
        self.unique_around = unique_around
        self.min_context = min_context  # calculate_min_context of the file; None when not worked out

    def describe(self, path: str) -> str:
        shown = [str(lines) for lines in self.locations[:MAX_LOCATIONS_SHOWN]]
        more = len(self.locations) >= MAX_PLACES  # more places were not looked for
        if len(self.locations) > MAX_LOCATIONS_SHOWN:
            shown.append(f"{'at least ' if more else ''}{len(self.locations) - MAX_LOCATIONS_SHOWN} more")
        hints = "; ".join(
            f"for {where}, a search text of {wider} would be unique"
            for where, wider in zip(self.locations, self.unique_around, strict=False)
            if wider is not None
        )
        advice = f": {hints}" if hints else ""
        many = f"at least {MAX_PLACES:,}" if more else str(len(self.locations))
        text = (
            f"the search text matches {many} places in {path} ({STAGE_NAMES[self.stage]}): "
            f"{_join(shown)}. It must match exactly one, so add unchanged lines around the change{advice}."
        )
        if self.min_context is None and self.too_long:
            return text + (
                f" ({path} has over {ADVICE_LINES:,} lines: too many for code-commit to work out the lines that make "
                "a search text unique.)"
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


def calculate_min_context(lines: Sequence[str], work: Work | None = None) -> int:
    """The smallest k such that every run of k consecutive lines is unique (0 for no lines).

    Applydir's `calculate_min_context`: a search text of at least k lines copied from the file
    always matches exactly one place. Uniqueness only grows with k, so a binary search works;
    with window hashes each step is linear, so even a file of identical lines is quick. The
    windows hashed are added to `work.min_context`, if given.
    """
    return Windows(lines, Work() if work is None else work).min_context()


class Windows:
    """Polynomial hashes of every run of lines, so runs of any length compare in constant time.

    The windows hashed are counted in `work`: `hashed` for unique_around, `min_context` for min_context.
    """

    MOD = (1 << 61) - 1
    BASE = 1_000_003

    def __init__(self, lines: Sequence[str], work: Work, modulus: int = MOD) -> None:
        # `modulus`: any will do for the results (a collision is checked); a small one tests that.
        self.work, self.mod = work, modulus
        numbering: dict[str, int] = {}
        self.ids = [numbering.setdefault(line, len(numbering)) for line in lines]
        self.prefix = [0]
        self.powers = [1]
        for line_id in self.ids:
            self.prefix.append((self.prefix[-1] * self.BASE + line_id + 1) % self.mod)
            self.powers.append(self.powers[-1] * self.BASE % self.mod)

    def of(self, start: int, size: int) -> int:
        self.work.hashed += 1
        return (self.prefix[start + size] - self.prefix[start] * self.powers[size]) % self.mod

    def hashes(self, size: int) -> list[int]:
        """The hash of every run of `size` lines, in order (what `of` gives, at a fraction of the cost)."""
        prefix, power, mod = self.prefix, self.powers[size], self.mod
        return [(prefix[i + size] - prefix[i] * power) % mod for i in range(len(self.ids) - size + 1)]

    def all_unique(self, size: int) -> bool:
        """Whether every run of `size` lines occurs once; it stops at the first repeat."""
        prefix, power, mod, ids = self.prefix, self.powers[size], self.mod, self.ids
        first_with: dict[int, int] = {}  # a hash -> the first run with it
        for i in range(len(ids) - size + 1):
            j = first_with.setdefault((prefix[i + size] - prefix[i] * power) % mod, i)
            if j != i:
                self.work.min_context += i + 1
                return ids[j : j + size] != ids[i : i + size] and self._all_unique_despite_collisions(size)
        self.work.min_context += len(ids) - size + 1
        return True

    def _all_unique_despite_collisions(self, size: int) -> bool:
        """all_unique, for when two different runs share a hash: each run compared with every
        earlier one of its hash."""
        seen: dict[int, list[int]] = {}
        hashes = self.hashes(size)
        self.work.min_context += len(hashes)
        for i, window in enumerate(hashes):
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
        self, starts: Sequence[int], n: int, largest: int, blank: Sequence[bool], core_at: Sequence[int] | None
    ) -> tuple[Lines | None, ...]:
        """For each location [start, start+n), the smallest window of at most `largest` lines
        containing it that occurs once in the file and neither starts nor ends with a blank line
        (the matcher would try it without those too); None if there is none that small, or if
        finding it would hash more than UNIQUE_WINDOW_WORK windows.

        `core_at` is every place the lines of a location occur (None: more than MAX_PLACES). A
        window equal to one around a location has them at the same offset, so it starts at one of
        those places, minus the offset: where they are few, only the windows there are compared (a
        search text at two places in a long file); where they are many, every window of the size is
        counted, a pass over the file.
        """
        found: dict[int, Lines] = {}
        work_left = UNIQUE_WINDOW_WORK
        for size in range(n + 1, min(largest, len(self.ids)) + 1):
            pending = [start for start in starts if start not in found]
            if not pending:
                break
            every = len(self.ids) - size + 1
            compared = every + 1 if core_at is None else len(pending) * (size - n + 1) * len(core_at)  # at most
            work_left -= min(compared, every)
            if work_left < 0:
                break
            table = self._table(size) if every < compared or core_at is None else None
            for start in pending:
                for s in self._around(start, n, size, blank):
                    if self._occurs_once(s, size, start - s, core_at, table):
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

    def _table(self, size: int) -> tuple[list[int], Counter[int]]:
        """The hash of every window of `size` lines, and how many windows have each: a pass over the file."""
        hashes = self.hashes(size)
        self.work.hashed += len(hashes)
        return hashes, Counter(hashes)

    def _occurs_once(
        self,
        s: int,
        size: int,
        offset: int,
        core_at: Sequence[int] | None,
        table: tuple[list[int], Counter[int]] | None,
    ) -> bool:
        """Whether the window [s, s+size), whose location's lines are at `offset` in it, occurs
        nowhere else: by the `table` of every window's hash if given, else by the windows at the
        other places of those lines. A hash collision can only make a window look shared."""
        if table is not None:
            hashes, counts = table
            return counts[hashes[s]] == 1
        assert core_at is not None  # unique_around counts every window when the places are too many to list
        window = self.of(s, size)
        last = len(self.ids) - size
        others = (q - offset for q in core_at)
        return not any(other != s and 0 <= other <= last and self.of(other, size) == window for other in others)


def ambiguous(
    file_lines: list[str], search: list[str], ends: tuple[int, int], places: list[int], explain: bool, work: Work
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
    for tried_stage, (left_lead, left_trail) in attempts(blank_ends(search))[:-1]:
        tried = search[left_lead : len(search) - left_trail]
        found = find(file_lines, stage_keys(file_lines, tried_stage), tried, tried_stage, work)
        if {start + lead - left_lead for start in found} == wanted:
            stage = tried_stage
            break
    n = len(core)
    locations = tuple(Lines(s + 1, s + n) for s in places)
    if not explain or len(file_lines) > ADVICE_LINES:
        return AmbiguousMatch(stage, locations, (), None, too_long=explain)
    keys = stage_keys(file_lines, INDENTATION)
    windows = Windows(keys, work)
    # Every place the core's lines are, whatever their indentation (`places` leaves out the ones
    # whose shift is not uniform): a window equal to one around a place is at one of these.
    core_at: list[int] | None = occurrences(keys, stage_keys(core, INDENTATION), work, limit=MAX_PLACES)
    if core_at is not None and len(core_at) >= MAX_PLACES:
        core_at = None  # too many to compare window by window: unique_around counts every window
    # Not capped at min_context: a window of that size may have to grow past blank lines at its ends.
    blank = [not k for k in keys]
    around = windows.unique_around(places[:MAX_LOCATIONS_SHOWN], n, n + _MAX_EXTRA_CONTEXT, blank, core_at)
    return AmbiguousMatch(stage, locations, around, windows.min_context())


def _shorten(text: str) -> str:
    """A line as a failure quotes it: at most QUOTED_CHARS characters (minified files have huge lines)."""
    if len(text) <= QUOTED_CHARS:
        return text
    return f"{text[:QUOTED_CHARS]}[... {len(text) - QUOTED_CHARS} more characters]"


def _grams(text: str, work: Work) -> frozenset[tuple[str, str]]:
    """The character pairs of a line's first COMPARED_CHARS characters, padded so that one
    character has some: a cheap, linear-time similarity key."""
    text = f" {text[:COMPARED_CHARS]} "
    work.scored += 1
    work.scored_chars += len(text)
    return frozenset(pairwise(text))


def no_match(file_lines: list[str], search: list[str], replace: list[str], explain: bool, work: Work) -> NoMatch:
    """The window of the file most like the search text (only if `explain`), as the no-match
    failure reports it, and where the replacement already is (ignoring trailing whitespace), if it
    is there exactly once.

    The work is bounded whatever the input: besides a pass over the file's lines, at most
    (CANDIDATES + SAMPLED) windows are scored, each on at most COMPARED_LINES lines of at most
    COMPARED_CHARS characters, with a linear-time line similarity; and at most VOTE_BUDGET votes
    are cast to find the candidates.
    """
    already = None
    wanted_replace = [line for line in replace if not is_blank(line)]
    if wanted_replace:
        ends = blank_ends(replace) or (0, 0)
        core_replace = replace[ends[0] : len(replace) - ends[1]]
        found = find(file_lines, stage_keys(file_lines, WHITESPACE), core_replace, WHITESPACE, work, limit=2)
        if len(found) == 1:
            already = Lines(found[0] + 1, found[0] + len(core_replace))
    core = [line.strip() for line in search]
    while core and not core[0]:
        core.pop(0)
    while core and not core[-1]:
        core.pop()
    first = _shorten(next(line_body(line) for line in search if not is_blank(line)))
    if not explain:
        return NoMatch(first, (), 0.0, already, explained=False)
    keys = stage_keys(file_lines, INDENTATION)
    n = min(len(core), len(keys))
    if not n:
        return NoMatch(first, (), 0.0, already)
    compared = core[: min(n, COMPARED_LINES)]
    starts = _candidate_starts(keys, compared, len(keys) - n + 1, work)
    wanted = [_grams(line, work) for line in compared]
    grams: dict[int, frozenset[tuple[str, str]]] = {}

    def similarity(start: int) -> float:
        total = 0.0
        for offset, (line, line_grams) in enumerate(zip(compared, wanted, strict=True)):
            key = keys[start + offset]
            if key == line:
                total += 1.0
            elif key and line:
                if start + offset not in grams:
                    grams[start + offset] = _grams(key, work)
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
    closest = tuple(NumberedLine(i + 1, _shorten(line_body(file_lines[i]))) for i in shown)
    # Never "100% similar": the window does not match, though the lines compared may all be equal
    # (the difference is further down, or the indentation shift is not uniform).
    return NoMatch(first, closest, min(best_score, 0.99), already)


def _candidate_starts(keys: list[str], compared: list[str], count: int, work: Work) -> list[int]:
    """Window starts worth scoring, in order: the CANDIDATES that most lines of the search text
    vote for (a file line equal to a search line, or sharing a word with it, votes for the window
    that would align the two; the rarest first, at most VOTE_BUDGET votes; words only in a file of
    at most WORD_VOTE_LINES lines), then SAMPLED windows spread evenly over the file, in case no
    line is alike at all."""
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
    if len(keys) > _WORD_VOTE_LINES:  # equal lines only, each found at C speed; one too common never votes
        words_wanted.clear()
        for line, offsets in lines_wanted.items():
            if keys.count(line) * len(offsets) <= _VOTE_BUDGET:
                line_hits[line] = occurrences(keys, [line], Work())
    work.word_scanned += len(keys) if words_wanted else 0
    for index, key in enumerate(keys if words_wanted else ()):
        if key in lines_wanted:
            line_hits.setdefault(key, []).append(index)
        for word in words_wanted.keys() & _WORD.findall(key[:COMPARED_CHARS]):
            word_hits.setdefault(word, []).append(index)
    # (file lines, search line offsets, weight of each vote): an equal line counts twice a line's words.
    anchors = [(hits, lines_wanted[line], [2.0] * len(compared)) for line, hits in line_hits.items()]
    anchors += [(hits, words_wanted[word], weight) for word, hits in word_hits.items()]
    anchors.sort(key=lambda anchor: len(anchor[0]) * len(anchor[1]))
    votes: defaultdict[int, float] = defaultdict(float)  # a window's start -> its weighted votes
    budget = _VOTE_BUDGET
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
