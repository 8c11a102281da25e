"""Matching search texts: the three stages, exactly one match per stage, and what failures report."""

from __future__ import annotations

import difflib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_commit.answer.match import finding, mismatch
from code_commit.answer.match import resolve as matching
from code_commit.answer.match.finding import EXACT, INDENTATION, WHITESPACE, Lines, Work, occurrences, split_lines
from code_commit.answer.match.mismatch import (
    AmbiguousMatch,
    BlankSearch,
    NoMatch,
    NumberedLine,
    Windows,
    calculate_min_context,
)
from code_commit.answer.match.resolve import resolve

PY = """\
class Shop:
    def add(self, item):
        self.items.append(item)
        return self

    def remove(self, item):
        self.items.remove(item)
        return self
"""


# --- stage 1: exact ---


def test_exact_match_replaces_only_the_matched_lines() -> None:
    result = resolve(PY, "    def remove(self, item):\n        self.items.remove(item)\n", "    def remove(self, x):\n")
    assert result.stage == EXACT
    assert result.lines == Lines(6, 7)
    assert result.text == PY.replace(
        "    def remove(self, item):\n        self.items.remove(item)\n", "    def remove(self, x):\n"
    )


def test_matching_is_by_whole_lines_never_part_of_a_line() -> None:
    with pytest.raises(NoMatch):
        resolve("prefix = foo\n", "foo\n", "bar\n")
    with pytest.raises(NoMatch):
        resolve("foo = 1\n", "foo\n", "bar\n")


def test_an_empty_replacement_removes_the_lines() -> None:
    assert resolve("a\nb\nc\n", "b\n", "").text == "a\nc\n"


def test_a_search_text_a_looser_stage_finds_elsewhere_too_is_refused() -> None:
    # Its exact form occurs once, but models drop trailing whitespace: line 1 may be the one meant.
    text = "x = 1  \ny = 2\nx = 1\n"
    with pytest.raises(AmbiguousMatch) as caught:
        resolve(text, "x = 1\n", "x = 9\n")
    assert (caught.value.stage, caught.value.locations) == (WHITESPACE, (Lines(1, 1), Lines(3, 3)))


def test_a_search_text_with_a_blank_line_that_fits_elsewhere_shifted_is_refused() -> None:
    # Without its blank line it fits the top-level a() as it is; with it, and shifted 4 columns,
    # K.a(): two places, so neither may be edited (it used to edit the top-level one).
    text = "# helpers\ndef a():\n    return 1\n\n\nclass K:\n\n    def a():\n        return 1\n"
    with pytest.raises(AmbiguousMatch) as caught:
        resolve(text, "\ndef a():\n    return 1\n", "\ndef a():\n    return 2\n")
    failure = caught.value
    assert (failure.stage, failure.locations) == (INDENTATION, (Lines(2, 3), Lines(8, 9)))
    assert failure.unique_around == (Lines(1, 3), Lines(6, 9))
    assert "matches 2 places in g.py (ignoring trailing whitespace, line endings and a uniform indentation shift)" in (
        failure.describe("g.py")
    )


def test_the_strictest_stage_that_finds_the_one_place_decides_how_to_splice() -> None:
    # Every stage finds line 2 and only it: the exact stage's splice, which keeps the replacement's
    # trailing whitespace change (it is the model's, not a copying slip).
    text = "a = 0\nx = 1  \ny = 2\n"
    result = resolve(text, "x = 1  \n", "x = 1\n")
    assert (result.stage, result.lines, result.text) == (EXACT, Lines(2, 2), "a = 0\nx = 1\ny = 2\n")


# --- a byte-order mark ---

BOM_PY = "\ufeffimport os\nx = 1\n"


def test_a_search_text_for_the_first_line_of_a_file_with_a_bom_matches_and_the_bom_stays() -> None:
    result = resolve(BOM_PY, "import os\n", "import sys\n")
    assert (result.stage, result.lines, result.text) == (EXACT, Lines(1, 1), "\ufeffimport sys\nx = 1\n")


@pytest.mark.parametrize("replace", ["\ufeffimport sys\n", "import sys\n"])
def test_a_search_text_copied_with_the_bom_matches_and_the_file_keeps_one_bom(replace: str) -> None:
    result = resolve(BOM_PY, "\ufeffimport os\nx = 1\n", replace + "x = 1\n")
    assert (result.stage, result.lines, result.text) == (EXACT, Lines(1, 2), "\ufeffimport sys\nx = 1\n")


def test_a_bom_in_the_search_text_is_not_added_to_a_file_without_one() -> None:
    assert resolve("import os\n", "\ufeffimport os\n", "\ufeffimport sys\n").text == "import sys\n"


def test_a_bom_is_kept_when_a_later_line_is_edited_and_the_first_line_matched_loosely() -> None:
    text = "\ufeff  def f():  \r\n      return 1\r\n"
    result = resolve(text, "def f():\n    return 1\n", "def f():\n    return 2\n")
    assert (result.stage, result.text) == (INDENTATION, "\ufeff  def f():  \r\n      return 2\r\n")


# --- stage 2: trailing whitespace and line endings ---


def test_trailing_whitespace_differences_match_and_unchanged_lines_keep_the_files_bytes() -> None:
    text = "def f():  \n    a = 1\t\n    return a\n"
    result = resolve(text, "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n")
    assert result.stage == WHITESPACE
    assert result.text == "def f():  \n    a = 2\n    return a\n"


def test_an_lf_answer_on_a_crlf_file_keeps_crlf() -> None:
    text = "one\r\ntwo\r\nthree\r\n"
    result = resolve(text, "one\ntwo\n", "one\n2\nand a half\n")
    assert result.stage == WHITESPACE
    assert result.text == "one\r\n2\r\nand a half\r\nthree\r\n"


def test_a_crlf_answer_on_an_lf_file_keeps_lf() -> None:
    assert resolve("a\nb\nc\n", "a\r\nb\r\n", "a\r\nB\r\n").text == "a\nB\nc\n"


def test_new_lines_get_the_files_line_ending_in_the_exact_stage_too() -> None:
    # The search text is the file's own line, byte for byte; the replacement's new lines are LF.
    result = resolve("a = 0\r\nx = 1\r\ny = 2\r\n", "x = 1\r\n", "x = 1\nz = 3\n")
    assert (result.stage, result.text) == (EXACT, "a = 0\r\nx = 1\r\nz = 3\r\ny = 2\r\n")
    result = resolve("a\nb\n", "b\n", "b\r\nc\r\n")
    assert (result.stage, result.text) == (EXACT, "a\nb\nc\n")


@given(
    st.lists(st.sampled_from(["a()", "b()", "  c()", "", "d = 1  "]), min_size=1, max_size=8),
    st.data(),
)
def test_an_edit_never_mixes_line_endings_into_a_file(lines: list[str], data) -> None:
    """Whatever line endings the answer uses, in its search text or its replacement, the file keeps its own."""
    eol = data.draw(st.sampled_from(["\n", "\r\n"]))
    start = data.draw(st.integers(0, len(lines) - 1))
    window = lines[start : data.draw(st.integers(start + 1, len(lines)))]
    if not any(line.strip() for line in window):
        return
    endings = st.sampled_from(["\n", "\r\n"])
    search = "".join(line + data.draw(endings) for line in window)
    added = data.draw(st.lists(st.sampled_from(["new()", "", "  x"]), min_size=1, max_size=3))
    replace = "".join(line + data.draw(endings) for line in [*window, *added])
    try:
        result = resolve("".join(line + eol for line in lines), search, replace)
    except (NoMatch, AmbiguousMatch):
        return
    new = split_lines(result.text)
    assert len(new) == len(lines) + len(added)
    assert all(line.endswith(eol) and not line[: -len(eol)].endswith("\r") for line in new), new


@pytest.mark.parametrize(
    ("search", "replace", "expected"),
    [
        ("b\nc\n", "b\nC\n", "a\nb\nC"),  # the last line changes: still no final newline
        ("a\n", "A\n", "A\nb\nc"),  # an edit elsewhere leaves the end alone
        ("c\n", "c\nd\n", "a\nb\nc\nd"),
        ("b\nc\n", "B\n", "a\nB"),  # the new last line is the replacement's: no newline either
    ],
)
def test_a_file_without_a_final_newline_keeps_it_that_way(search: str, replace: str, expected: str) -> None:
    assert resolve("a\nb\nc", search, replace).text == expected


@pytest.mark.parametrize(
    ("text", "search", "expected"),
    [
        ("a\nb\nc", "c\n", "a\nb\n"),
        ("a\nb\nc", "b\nc\n", "a\n"),
        ("keep1\n\n\nlast", "last\n", "keep1\n\n\n"),  # an untouched blank line is not lost
        ("alpha\r\nbeta", "beta", "alpha\r\n"),  # an untouched line keeps its CRLF
        ("alpha\r\nbeta", "beta\n", "alpha\r\n"),
    ],
)
def test_removing_the_last_line_leaves_the_line_before_it_untouched(text: str, search: str, expected: str) -> None:
    """The file then ends with a newline: `git diff` shows only the removed lines, where taking the
    newline off the line before them would show that line changed too."""
    assert resolve(text, search, "").text == expected


@given(
    st.lists(st.sampled_from(["\n", "\r\n"]), min_size=1, max_size=8),
    st.data(),
)
def test_an_edit_changes_no_byte_of_the_lines_outside_its_window(endings: list[str], data) -> None:
    """Whatever the window, the replacement and the file's final newline, the lines before and
    after the window keep their bytes, line endings included, and a missing final newline stays
    missing where the last line is untouched or rewritten."""
    lines = [f"line {i}{eol}" for i, eol in enumerate(endings)]
    if data.draw(st.booleans(), label="no final newline"):
        lines[-1] = lines[-1].rstrip("\r\n")
    start = data.draw(st.integers(0, len(lines) - 1))
    stop = data.draw(st.integers(start + 1, len(lines)))
    window = [line.rstrip("\r\n") for line in lines[start:stop]]
    search = "".join(line + data.draw(st.sampled_from(["\n", "\r\n"])) for line in window)
    new = data.draw(st.lists(st.sampled_from(["new()", "", "line 0"]), max_size=3))
    result = resolve("".join(lines), search, "".join(f"{line}\n" for line in new))
    assert result.lines == Lines(start + 1, stop)
    after = split_lines(result.text)
    assert after[:start] == lines[:start]
    kept = len(lines) - stop
    if kept:
        assert after[len(after) - kept :] == lines[stop:]
        assert [line.rstrip("\r\n") for line in after[start:-kept]] == new
    elif not new:
        assert after == lines[:start], "the last lines removed, and nothing else changed"
    elif new[-1] == "new()" and not lines[-1].endswith("\n"):
        # The last line rewritten: its replacement has no newline either.
        assert [line.rstrip("\r\n") for line in after[start:]] == new
        assert not result.text.endswith("\n")


# --- stage 3: a uniform indentation shift ---


def test_a_dedented_search_text_matches_and_the_replacement_is_reindented() -> None:
    result = resolve(
        PY,
        "def remove(self, item):\n    self.items.remove(item)\n",
        "def remove(self, item):\n    if item in self.items:\n        self.items.remove(item)\n",
    )
    assert result.stage == INDENTATION
    assert result.lines == Lines(6, 7)
    assert "    def remove(self, item):\n        if item in self.items:\n            self.items.remove(item)\n" in (
        result.text
    )


def test_an_over_indented_search_text_matches_too() -> None:
    text = "if x:\n    y()\nz()\n"
    result = resolve(text, "        if x:\n            y()\n", "        if x:\n            y()\n            w()\n")
    assert result.text == "if x:\n    y()\n    w()\nz()\n"


def test_spaces_for_tabs_match_and_new_lines_get_the_files_tabs() -> None:
    text = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    result = resolve(text, "    if x {\n        return 1\n", "    if x {\n        log()\n        return 1\n")
    assert result.stage == INDENTATION
    assert result.text == "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 1\n\t}\n}\n"


def test_tabs_for_spaces_match_and_new_lines_get_the_files_spaces() -> None:
    result = resolve("if a:\n    b()\n", "if a:\n\tb()\n", "if a:\n\tb()\n\tc()\n")
    assert result.text == "if a:\n    b()\n    c()\n"


def test_tabs_typed_as_eight_spaces_match_too() -> None:
    text = "\tif x:\n\t\ty()\n"
    result = resolve(
        text, "        if x:\n                y()\n", "        if x:\n                y()\n                z()\n"
    )
    assert result.text == "\tif x:\n\t\ty()\n\t\tz()\n"


def test_a_shift_that_is_not_uniform_does_not_match() -> None:
    # The search flattens the nesting: relative indentation changed, so it is not the same code.
    with pytest.raises(NoMatch):
        resolve("if a:\n    b()\n", "if a:\nb()\n", "x\n")


def test_blank_lines_match_whatever_their_indentation() -> None:
    text = "class A:\n    def f(self):\n        pass\n    \n    def g(self):\n        pass\n"
    result = resolve(text, "def f(self):\n    pass\n\ndef g(self):\n", "def f(self):\n    return 1\n\ndef g(self):\n")
    assert result.text == text.replace("        pass\n    \n    def g", "        return 1\n    \n    def g")


# --- blank lines at the ends of the search text ---


def test_blank_lines_the_file_does_not_have_at_the_ends_are_ignored() -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    result = resolve(text, "\nb = 2\n\n", "\nb = 20\n\n")
    assert result.stage == WHITESPACE
    assert result.text == "a = 1\nb = 20\nc = 3\n"


def test_blank_lines_the_replacement_adds_beyond_the_search_texts_are_kept() -> None:
    assert resolve("a\nb\nc\n", "\nb\n", "\nb\n\n\n").text == "a\nb\n\n\nc\n"


def test_blank_lines_at_the_ends_that_the_file_does_have_stay_part_of_the_match() -> None:
    # Two blank lines after "a" in the search, one in the file: the one it has is matched, and the
    # new line goes after it, where the model put it.
    assert resolve("x\na\n\nb\n", "a\n\n\n", "a\n\n\nNEW\n").text == "x\na\n\nNEW\nb\n"


def test_a_search_text_without_the_files_blank_line_still_matches() -> None:
    assert resolve("a\n\nb\n", "b\n", "B\n").text == "a\n\nB\n"


@pytest.mark.parametrize(
    ("search", "replace", "expected"),
    [
        # The model believes a blank line precedes foo(); the file has none, and gets none.
        ("\nfoo()\n", "\nfoo()\nbar()\n", "x = 1\nfoo()\nbar()\nbaz()\n"),
        # A function inserted before foo(), set off by a blank line: the replacement's first blank
        # line is its copy of the search text's, so that is the one dropped, not the one between.
        ("\nfoo()\n", "\nnew()\n\nfoo()\n", "x = 1\nnew()\n\nfoo()\nbaz()\n"),
        # The same at the end: bar() stays set off from foo(), and follows on baz() as foo() did.
        ("foo()\n\n", "foo()\n\nbar()\n\n", "x = 1\nfoo()\n\nbar()\nbaz()\n"),
        ("\nfoo()\n\n", "\nfoo()\n\nbar()\n\n", "x = 1\nfoo()\n\nbar()\nbaz()\n"),
        # A replacement without the blank line: nothing else to drop.
        ("\nfoo()\n", "foo()\nbar()\n", "x = 1\nfoo()\nbar()\nbaz()\n"),
    ],
)
def test_the_replacements_copy_of_a_blank_line_the_file_lacks_is_the_one_dropped(
    search: str, replace: str, expected: str
) -> None:
    assert resolve("x = 1\nfoo()\nbaz()\n", search, replace).text == expected


# --- failures ---


@pytest.mark.parametrize("search", ["", "\n", "   \n\t\n", "\r\n"])
def test_an_empty_or_blank_search_text_is_refused(search: str) -> None:
    with pytest.raises(BlankSearch) as caught:
        resolve("a\n\nb\n", search, "x\n")
    assert "anchors nothing" in caught.value.describe("f.py")


def test_no_match_reports_the_closest_lines_with_their_numbers() -> None:
    with pytest.raises(NoMatch) as caught:
        resolve(PY, "    def remove(self, thing):\n        self.items.remove(thing)\n", "x\n")
    failure = caught.value
    assert failure.closest == (
        NumberedLine(6, "    def remove(self, item):"),
        NumberedLine(7, "        self.items.remove(item)"),
    )
    message = failure.describe("shop.py")
    assert "matches nowhere in shop.py" in message and "'    def remove(self, thing):'" in message
    assert "     6|     def remove(self, item):\n     7|         self.items.remove(item)\n" in message


def test_no_match_says_when_the_replacement_is_already_there() -> None:
    text = "a = 1\nb = 20\nc = 3\n"
    with pytest.raises(NoMatch) as caught:
        resolve(text, "b = 2\nc = 3\n", "b = 20\nc = 3\n")  # a repair repeating a change already made
    assert caught.value.already_there == Lines(2, 3)
    assert "Its replacement text is already in f.py, at lines 2-3" in caught.value.describe("f.py")
    with pytest.raises(NoMatch) as caught:
        resolve(text, "b = 2\n", "x = 9\n")
    assert caught.value.already_there is None
    assert "already in" not in caught.value.describe("f.py")


def test_no_match_in_an_empty_file_has_nothing_to_quote() -> None:
    with pytest.raises(NoMatch) as caught:
        resolve("", "a\n", "b\n")
    assert caught.value.closest == ()
    assert "has no similar lines" in caught.value.describe("e.txt")


def test_no_match_finds_similar_lines_even_when_no_line_is_equal() -> None:
    with pytest.raises(NoMatch) as caught:
        resolve("alpha\nbeta\ngamma\ndelta\n", "gamma!\ndelta!\n", "x\n")
    assert [line.number for line in caught.value.closest] == [3, 4]


# --- finding every place is linear in the file and the search text, not their product ---


def test_checking_the_indentation_shift_at_thousands_of_places_measures_each_line_once() -> None:
    """A repetitive file and a long search text: 1,501 places, each 1,500 lines long. Measuring the
    indentation of every line of every place took minutes for bigger files; each line of the file
    and of the search text is measured once per tab width (counted, not timed)."""
    file_lines, search_lines = 3_000, 1_500
    work = Work()
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("    x = 1\n" * file_lines, "x = 1\n" * search_lines, "y\n", work=work)
    assert len(caught.value.locations) == min(file_lines - search_lines + 1, finding.MAX_PLACES)
    assert caught.value.stage == INDENTATION
    assert 0 < work.measured <= 4 * len(finding.TAB_WIDTHS) * (file_lines + search_lines)


CODE = "".join(f"    x{i} = compute({i})\n" for i in range(10_000))


def test_checking_the_indentation_shift_of_one_place_measures_only_its_lines() -> None:
    """The lines outside the places the stripped search text is found at are never measured: each
    search text measured the whole file, at three tab widths (a thousand of them: half a minute)."""
    work = Work()
    result = resolve(CODE, "x5000 = compute(5000)\nx5001 = compute(5001)\n", "x5000 = 0\nx5001 = 1\n", work=work)
    assert (result.stage, result.lines) == (INDENTATION, Lines(5_001, 5_002))
    changed = CODE.replace("x5000 = compute(5000)", "x5000 = 0").replace("x5001 = compute(5001)", "x5001 = 1")
    assert result.text == changed
    assert 0 < work.measured <= 2 * len(finding.TAB_WIDTHS) * (2 + 2)


def test_search_texts_of_one_line_each_measure_no_line_of_the_file_but_their_own() -> None:
    # One non-blank line has no step to compare with: any shift of it is uniform.
    text, pairs, work = CODE, 200, Work()
    for i in range(pairs):
        text = resolve(text, f"x{i} = compute({i})\n", f"x{i} = compute({i}) + 1\n", work=work).text
    assert text.startswith("    x0 = compute(0) + 1\n") and f"    x{pairs - 1} = compute({pairs - 1}) + 1\n" in text
    assert 0 < work.measured <= pairs * 2 * len(finding.TAB_WIDTHS)


def test_a_long_search_text_at_thousands_of_places_is_found_with_linear_work() -> None:
    """10,001 places for a 10,000-line search text in a file of 20,000 equal lines: comparing each
    place whole, its lines and then its indentation steps, is a billion comparisons (5 seconds;
    a 100 KB answer took minutes). Counted, not timed: the items compared of the file's lines as
    the stages see them and of its indentation steps."""
    file_lines, search_lines = 20_000, 10_000
    work = Work()
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("    0\n" * file_lines, "0\n" * search_lines, "1\n", explain=False, work=work)
    assert len(caught.value.locations) == min(file_lines - search_lines + 1, finding.MAX_PLACES)
    assert caught.value.stage == INDENTATION
    passes = 2 + 2 * len(finding.TAB_WIDTHS)  # the lines, and per tab width the steps, each twice
    assert 0 < work.compared <= passes * (finding.MATCH_WORK_PER_ITEM + 4) * (file_lines + search_lines)


@pytest.mark.parametrize("work_per_item", [0, 1, finding.MATCH_WORK_PER_ITEM])
@given(st.lists(st.sampled_from("ab"), max_size=30), st.lists(st.sampled_from("ab"), min_size=1, max_size=4))
def test_occurrences_are_every_place_however_they_are_found(
    work_per_item: int, items: list[str], wanted: list[str]
) -> None:
    # With no work allowed at C speed, Knuth-Morris-Pratt finds them all; with a little, it takes over part way.
    found = occurrences(items, wanted, Work(), work_per_item)
    assert found == [i for i in range(len(items) - len(wanted) + 1) if items[i : i + len(wanted)] == wanted]


# --- splicing: the diff of the search text against the replacement is bounded ---
#
# difflib's search for the longest block of equal lines looks at every pair of equal lines in its
# range, once per block found: a search text of 1,200 lines of "0" replaced by alternating "0" and
# "1" took 23 seconds, and 3,000 lines six minutes. Work is counted here: the pairs of equal lines
# each search may look at.

ZEROS = "0\n" * 1_200
ALTERNATING = "".join(f"{i % 2}\n" for i in range(1_200))


@pytest.fixture
def diff_work(monkeypatch) -> list[int]:
    """The pairs of equal lines difflib's searches may look at, summed; the test fails as soon as
    they pass what a diff linear in the lines may do, rather than run for minutes."""
    work = [0]
    real = difflib.SequenceMatcher.find_longest_match

    def counted(self, alo=0, ahi=None, blo=0, bhi=None):
        ahi = len(self.a) if ahi is None else ahi
        work[0] += sum(len(self.b2j.get(line, ())) for line in self.a[alo:ahi]) + ahi - alo
        if work[0] > 10 * matching.DIFF_WORK_PER_LINE * 2_400:
            pytest.fail(f"the diff's work passed {work[0]} pairs of lines")
        return real(self, alo, ahi, blo, bhi)

    monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", counted)
    return work


def test_a_long_repetitive_replacement_is_spliced_with_linear_work(diff_work: list[int]) -> None:
    result = resolve(ZEROS, ZEROS, ALTERNATING)
    assert (result.stage, result.lines, result.text) == (EXACT, Lines(1, 1_200), ALTERNATING)
    assert 0 < diff_work[0] <= matching.DIFF_WORK_PER_LINE * 2_400


def test_past_the_diffs_budget_new_lines_are_still_reindented_with_the_files_line_ending(
    diff_work: list[int],
) -> None:
    # The whole middle counts as replaced: every line is new, so it gets the file's tabs and CRLF.
    result = resolve("x\r\n" + "\t0\r\n" * 1_200, ZEROS, ALTERNATING)
    assert result.stage == INDENTATION
    assert result.text == "x\r\n" + "".join(f"\t{i % 2}\r\n" for i in range(1_200))


def test_the_lines_both_start_and_end_with_keep_the_files_bytes_past_the_diffs_budget(
    diff_work: list[int],
) -> None:
    # Trailing whitespace the model's copy lost: the unchanged lines at the ends keep it.
    text = "def f():  \n" + "    0  \n" * 1_200 + "    return  \n"
    search = "def f():\n" + "    0\n" * 1_200 + "    return\n"
    replace = "def f():\n" + "".join(f"    {i % 2}\n" for i in range(1_200)) + "    return\n"
    result = resolve(text, search, replace)
    assert result.stage == WHITESPACE
    new = split_lines(result.text)
    assert new[0] == "def f():  \n" and new[-1] == "    return  \n"
    assert [line.rstrip() for line in new[1:-1]] == [f"    {i % 2}" for i in range(1_200)]


# --- the no-match report's work is bounded, whatever the input ---
#
# It used to diff every window of the file against the search text: minutes for a big file, a
# big search text or a minified line. Work is counted here, not timed: `Work.scored` counts the
# report's per-line similarity keys, made once for each search line and each file line of a window
# scored, and `Work.scored_chars` their characters.

MOST_GRAMS = mismatch.COMPARED_LINES * (1 + mismatch.CANDIDATES + mismatch.SAMPLED)
LONGEST_QUOTE = mismatch.QUOTED_CHARS + len("[... 1000000 more characters]")


def scored_within_bounds(work: Work) -> bool:
    """A bounded number of similarity keys, each of at most COMPARED_CHARS characters of its line (and the padding)."""
    return 0 < work.scored <= MOST_GRAMS and work.scored_chars <= work.scored * (mismatch.COMPARED_CHARS + 2)


def test_no_match_in_a_big_file_compares_a_bounded_number_of_lines_and_still_finds_the_closest() -> None:
    lines = [f"row_{i} = compute({i}, '{'x' * 300}')\n" for i in range(20_000)]
    search = lines[12_000:17_000]  # a 5,000-line search text...
    search[10] = "row_12010 = compute(-1)\n"  # ...that the model got wrong in one line
    work = Work()
    with pytest.raises(NoMatch) as caught:
        resolve("".join(lines), "".join(search), "x\n", work=work)
    assert scored_within_bounds(work)
    failure = caught.value
    assert [line.number for line in failure.closest] == list(range(12_001, 12_001 + mismatch.CLOSEST_SHOWN))
    assert 0.9 < failure.similarity < 1
    assert all(len(line.text) <= LONGEST_QUOTE for line in failure.closest)
    assert failure.closest[0].text.endswith("[... 30 more characters]"), "long lines are quoted shortened"


def test_no_match_where_no_line_is_alike_samples_a_bounded_number_of_windows() -> None:
    # No equal line and no shared word: no window gets a vote, so none stands out.
    work = Work()
    with pytest.raises(NoMatch) as caught:
        resolve("".join(f"({')' * (i % 7)}\n" for i in range(20_000)), "( )\n" * 3_000, "x\n", work=work)
    assert scored_within_bounds(work)
    assert caught.value.closest, "the report still quotes the window most alike"


def test_no_match_on_a_one_megabyte_line_compares_and_quotes_only_its_start() -> None:
    minified = "var a=[" + ",".join(str(i) for i in range(180_000)) + "];"
    assert len(minified) > 1_000_000
    work = Work()
    with pytest.raises(NoMatch) as caught:
        resolve(minified + "\n", minified.replace("var a=", "let a=") + "\n", "x\n", work=work)
    assert scored_within_bounds(work)
    failure = caught.value
    (quoted,) = failure.closest
    assert quoted.number == 1 and quoted.text.startswith("var a=[0,1,2,") and len(quoted.text) <= LONGEST_QUOTE
    assert failure.first_line.startswith("let a=[0,1,2,") and len(failure.first_line) <= LONGEST_QUOTE
    assert len(failure.describe("app.min.js")) < 4 * LONGEST_QUOTE


def test_no_match_never_calls_a_window_identical_when_it_differs_past_the_lines_compared() -> None:
    lines = [f"line {i}\n" for i in range(100)]
    search = lines[:60]
    search[50] = "line fifty\n"  # past the first COMPARED_LINES lines
    with pytest.raises(NoMatch) as caught:
        resolve("".join(lines), "".join(search), "x\n")
    assert caught.value.closest[0].number == 1
    assert "(99% similar)" in caught.value.describe("f.txt")


def test_an_ambiguous_match_lists_every_place_and_the_context_that_makes_each_unique() -> None:
    text = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x + 1\n"
    with pytest.raises(AmbiguousMatch) as caught:
        resolve(text, "    x = 1\n", "    x = 2\n")
    failure = caught.value
    assert failure.stage == EXACT
    assert failure.locations == (Lines(2, 2), Lines(6, 6))
    assert failure.unique_around == (Lines(1, 2), Lines(5, 6))
    assert failure.min_context == 2
    message = failure.describe("f.py")
    assert "matches 2 places in f.py (exact match): line 2 and line 6" in message
    assert "for line 2, a search text of lines 1-2 would be unique" in message
    assert "Any 2 consecutive lines of f.py are unique" in message


def test_ambiguity_in_the_whitespace_stage_is_refused() -> None:
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("x = 1 \ny\nx = 1\t\n", "x = 1\n", "x = 2\n")
    assert caught.value.stage == WHITESPACE


def test_the_same_code_at_two_indentation_levels_is_ambiguous_in_the_indentation_stage() -> None:
    text = "if a:\n    go()\nelse:\n    if b:\n        go()\n"
    with pytest.raises(AmbiguousMatch) as caught:
        resolve(text, "  go()\n", "  stop()\n")
    assert caught.value.stage == INDENTATION
    assert caught.value.locations == (Lines(2, 2), Lines(5, 5))


def test_a_search_text_found_in_many_places_names_twenty_and_counts_the_rest() -> None:
    text = "x = 0\n" * 3000 + "end\n"
    with pytest.raises(AmbiguousMatch) as caught:
        resolve(text, "x = 0\n", "x = 1\n")
    failure = caught.value
    assert len(failure.locations) == finding.MAX_PLACES and len(failure.unique_around) == 20
    assert failure.min_context == 3000
    assert failure.unique_around[0] is None, "no window within 100 more lines is unique there"
    message = failure.describe("zeros.py")
    assert "matches at least 1,000 places" in message and "line 19, line 20 and at least 980 more" in message
    assert "Any 3000 consecutive lines of zeros.py are unique" in message


def test_the_unique_windows_of_an_ambiguous_match_in_a_long_file_hash_a_bounded_number_of_windows() -> None:
    """Each window size tried costs a pass over the file: 100 sizes in a 100,000-line file took 7
    seconds for one search text of 8 bytes. The windows hashed for them are counted, not timed."""
    lines = 50_000
    work = Work()
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("0,0,0,0\n" * lines, "0,0,0,0\n", "1,1,1,1\n", work=work)
    failure = caught.value
    assert len(failure.locations) == finding.MAX_PLACES and failure.min_context == lines
    assert failure.unique_around == (None,) * mismatch.MAX_LOCATIONS_SHOWN, "no window that small is unique"
    assert 0 < work.hashed <= mismatch.UNIQUE_WINDOW_WORK


def test_an_ambiguous_match_without_explaining_names_the_places_and_works_out_nothing_more() -> None:
    work = Work()
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("x\ny\nx\n", "x\n", "z\n", explain=False, work=work)
    assert (work.hashed, work.min_context) == (0, 0), "no window hashed"
    failure = caught.value
    assert (failure.locations, failure.unique_around, failure.min_context) == ((Lines(1, 1), Lines(3, 3)), (), None)
    message = failure.describe("f.py")
    assert "matches 2 places in f.py (exact match): line 1 and line 3" in message
    assert "worked out for the first 3 failing search texts of an answer only" in message
    assert "consecutive lines" not in message


def test_no_match_without_explaining_quotes_no_lines_but_still_finds_the_replacement() -> None:
    work = Work()
    with pytest.raises(NoMatch) as caught:
        resolve("a = 1\nb = 20\n", "b = 2\n", "b = 20\n", explain=False, work=work)
    assert work.scored == 0, "no line scored for similarity"
    failure = caught.value
    assert (failure.closest, failure.already_there) == ((), Lines(2, 2))
    message = failure.describe("f.py")
    assert "the closest lines are quoted for the first 3 failing search texts of an answer only" in message
    assert "no similar lines" not in message and "already in f.py, at line 2" in message


def test_in_a_long_file_the_unique_windows_are_found_among_the_few_places_and_to_its_very_end() -> None:
    """Two places in a long file: only the windows at the other place are compared, not every
    window of the file (counted); the copies of "p", "a", "b" at the end are not unique either."""
    work = Work()
    filler = [f"f{i}" for i in range(20_000)]
    lines = [*filler[:50], "p", "a", "b", *filler[50:], "p", "a", "b"]
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("".join(f"{line}\n" for line in lines), "a\n", "x\n", work=work)
    failure = caught.value
    assert failure.locations == (Lines(52, 52), Lines(len(lines) - 1, len(lines) - 1))
    assert failure.unique_around == (Lines(50, 52), Lines(len(lines) - 3, len(lines) - 1))
    assert 0 < work.hashed <= 100, "no pass over the file"


@given(st.lists(st.sampled_from(["a", "b", "  a", "c", ""]), min_size=2, max_size=40), st.data())
def test_the_unique_window_around_each_place_is_the_smallest_unique_one(lines: list[str], data) -> None:
    """Checked by brute force over every window, comparing lines without their indentation."""
    search = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2))
    try:
        resolve("".join(f"{line}\n" for line in lines), "".join(f"{line}\n" for line in search), "x\n")
    except AmbiguousMatch as caught:
        failure = caught
    except NoMatch:
        return
    else:
        return
    keys = [line.strip() for line in lines]

    def unique_windows(size: int) -> set[int]:
        windows = Counter(tuple(keys[s : s + size]) for s in range(len(keys) - size + 1))
        return {s for s in range(len(keys) - size + 1) if windows[tuple(keys[s : s + size])] == 1}

    n = len(search)
    for place, around in zip(failure.locations, failure.unique_around, strict=False):
        start = place.first - 1
        for size in range(n + 1, len(keys) + 1):
            fits = [
                s
                for s in unique_windows(size) & set(range(start + n - size, start + 1))
                if keys[s] and keys[s + size - 1]
            ]
            if fits:
                assert around is not None and around.last - around.first + 1 == size and around.first - 1 in fits
                break
        else:
            assert around is None


# --- calculate_min_context ---


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([], 0),
        (["a"], 1),
        (["a", "b", "c"], 1),
        (["a", "a"], 2),
        (["x", "a", "b", "y", "a", "b", "z"], 3),
        (["a"] * 5, 5),
    ],
)
def test_calculate_min_context(lines: list[str], expected: int) -> None:
    assert calculate_min_context(lines) == expected


@pytest.mark.parametrize("modulus", [Windows.MOD, 7])
@given(st.lists(st.sampled_from("abc"), max_size=30))
def test_min_context_is_the_smallest_window_size_with_no_repeats(modulus: int, lines: list[str]) -> None:
    # With hashes modulo 7, different windows share a hash all the time: the result is still exact.
    k = Windows(lines, Work(), modulus).min_context()
    if modulus == Windows.MOD:
        assert k == calculate_min_context(lines)

    def unique(size: int) -> bool:
        windows = [tuple(lines[i : i + size]) for i in range(len(lines) - size + 1)]
        return len(windows) == len(set(windows))

    if lines:
        assert unique(k)
        assert k == 1 or not unique(k - 1)


def test_min_context_of_a_long_file_makes_few_passes_over_it() -> None:
    """A size too small shows a repeat; each size big enough costs a whole pass. A binary search
    from the file's length down made 16 of those passes over 50,000 lines, for a min_context of 2
    (part of a second per ambiguous search text in a big file). Counted: the windows hashed, of
    every size tried (here size 1 up to the repeat at line 40,001, then size 2 whole)."""
    lines = [f"row {i}" for i in range(50_000)]
    lines[10_000] = lines[40_000] = "dup()"
    work = Work()
    assert calculate_min_context(lines, work) == 2
    assert 0 < work.min_context <= 2 * len(lines)


# --- the safety property: never the wrong place ---

_CODE_LINES = st.sampled_from(["a()", "b()", "if x:", "    a()", "    b()", "", "return", "  c()"])


@given(
    st.lists(_CODE_LINES, min_size=1, max_size=25),
    st.data(),
    st.sampled_from(["none", "trailing", "crlf", "dedent", "indent", "tabs", "blank_ends"]),
)
def test_an_edit_lands_on_the_intended_place_or_is_refused(lines: list[str], data, perturbation: str) -> None:
    """Files full of repeated lines: an applied edit inserts after the intended window, nowhere else.

    "Intended" is only defined where the window is unique even ignoring all whitespace; elsewhere
    the perturbed text may be exactly what the file holds at another place, and no matcher can tell.
    """
    text = "".join(line + "\n" for line in lines)
    start = data.draw(st.integers(0, len(lines) - 1))
    stop = data.draw(st.integers(start + 1, min(len(lines), start + 4)))
    window = lines[start:stop]
    if not any(line.strip() for line in window):
        return
    search = perturb(window, perturbation)
    marker = "MARKER()"
    try:
        result = resolve(text, "".join(s + "\n" for s in search), "".join(s + "\n" for s in [*search, marker]))
    except (NoMatch, AmbiguousMatch):
        return
    new = [line.rstrip("\r\n") for line in split_lines(result.text)]
    (at,) = [i for i, line in enumerate(new) if line.strip() == marker]
    assert new[:at] + new[at + 1 :] == lines, "nothing but the inserted line changed"
    core_start = start + next(i for i, line in enumerate(window) if line.strip())
    core_stop = stop - next(i for i, line in enumerate(reversed(window)) if line.strip())
    core = [line.strip() for line in lines[core_start:core_stop]]
    places = [i for i in range(len(lines)) if [line.strip() for line in lines[i : i + len(core)]] == core]
    if places == [core_start]:
        assert at >= core_stop and all(not line.strip() for line in new[core_stop:at])


def perturb(window: list[str], how: str) -> list[str]:
    """The window as a model might copy it, changed uniformly (a model's slip is not an edit)."""
    if how == "trailing":
        return [line + "  " for line in window]
    if how == "crlf":
        return [line + "\r" for line in window]
    if how == "dedent" and all(line.startswith("  ") for line in window if line):
        return [line[2:] for line in window]
    if how == "indent":
        return ["    " + line if line else line for line in window]
    if how == "tabs":
        return [line.replace("    ", "\t") for line in window]
    if how == "blank_ends":
        return ["", *window, ""]
    return window


# --- the safety property, by construction: applied only where no stage finds another place ---
#
# An oracle written independently of answer/match/: every attempt the matcher makes (each stage on the
# whole search text, and from the whitespace stage on, on the text without its blank end lines), by
# brute force over every window of the file. A search text must be applied exactly when all of them
# together find one place, and there.


def _oracle_body(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def _oracle_columns(line: str, tab: int) -> int:
    column = 0
    for char in line:
        if char == " ":
            column += 1
        elif char == "\t":
            column += tab - column % tab
        else:
            break
    return column


def _oracle_fits(window: list[str], search: list[str], stage: str) -> bool:
    if stage == EXACT:
        return window == search
    if stage == WHITESPACE:
        return [_oracle_body(w).rstrip() for w in window] == [_oracle_body(s).rstrip() for s in search]
    if [w.strip() for w in window] != [s.strip() for s in search]:
        return False
    pairs = [(w, s) for w, s in zip(window, search, strict=True) if w.strip()]
    return any(len({_oracle_columns(w, tab) - _oracle_columns(s, tab) for w, s in pairs}) == 1 for tab in (4, 8, 2))


def _oracle_places(file_lines: list[str], search: list[str]) -> set[int]:
    """Where the search text's blank-less core starts, for every window any attempt matches."""
    lead = next(i for i, line in enumerate(search) if line.strip())
    trail = next(i for i, line in enumerate(reversed(search)) if line.strip())
    core = search[lead : len(search) - trail]
    places = set()
    for stage in (EXACT, WHITESPACE, INDENTATION):
        for tried, offset in [(search, lead)] + ([(core, 0)] if stage != EXACT and (lead or trail) else []):
            for start in range(len(file_lines) - len(tried) + 1):
                if _oracle_fits(file_lines[start : start + len(tried)], tried, stage):
                    places.add(start + offset)
    return places


_SHAPES = ["a()", "b()", "if x:", "return 1", "c = [1,  2]"]
_UNITS = ["    ", "\t", "  "]


# The strategies _near_twins draws from, made once: a strategy made at each draw is validated again
# each time, which was two thirds of the test's time.
_SNIPPET = st.lists(st.tuples(st.integers(0, 2), st.sampled_from([*_SHAPES, ""])), min_size=1, max_size=4)
_COPIES = st.integers(1, 4)
_UNIT = st.sampled_from(_UNITS)
_SHIFT = st.integers(0, 2)
_FILE_EOL = st.sampled_from(["\n", "\n", "\r\n"])
_TRAILING = st.sampled_from(["", "", " ", "\t"])
_BLANK = st.sampled_from(["", "  "])
_FILLERS = st.lists(st.sampled_from(["\n", "z()\n", "    a()\n", "  \n"]), max_size=2)
_HOW = st.sampled_from(["as is", "dedent", "indent", "tabs", "spaces", "strip trailing", "blank ends"])
_BLANK_BEFORE = st.sampled_from([[], [""]])
_BLANK_AFTER = st.sampled_from([[], [""], ["", ""]])
_SEARCH_EOL = st.sampled_from(["\n", "\r\n"])


@st.composite
def _near_twins(draw):
    """A file made of copies of one snippet, each re-indented, re-spaced or re-ended a little, between
    filler lines and blank lines; and a search text: a window of one copy, as a model might copy it."""
    snippet = draw(_SNIPPET)
    lines: list[str] = []
    for _ in range(draw(_COPIES)):
        unit, shift = draw(_UNIT), draw(_SHIFT)
        eol = draw(_FILE_EOL)
        for level, shape in snippet:
            trailing = draw(_TRAILING)
            lines.append((unit * (level + shift) + shape if shape else draw(_BLANK)) + trailing + eol)
        lines.extend(draw(_FILLERS))
    start = draw(st.integers(0, len(lines) - 1))
    stop = draw(st.integers(start + 1, min(len(lines), start + 5)))
    window = [_oracle_body(line) for line in lines[start:stop]]
    how = draw(_HOW)
    if how == "dedent":
        window = [line[4:] if line.startswith("    ") else line.lstrip("\t") for line in window]
    elif how == "indent":
        window = ["    " + line for line in window]
    elif how == "tabs":
        window = [line.replace("    ", "\t") for line in window]
    elif how == "spaces":
        window = [line.replace("\t", "    ") for line in window]
    elif how == "strip trailing":
        window = [line.rstrip() for line in window]
    elif how == "blank ends":
        window = [*draw(_BLANK_BEFORE), *window, *draw(_BLANK_AFTER)]
    eol = draw(_SEARCH_EOL)
    return lines, [line + eol for line in window]


@settings(max_examples=600, deadline=None)
@given(_near_twins())
def test_a_search_text_is_applied_only_where_no_stage_finds_another_place(case) -> None:
    lines, search = case
    if not any(line.strip() for line in search):
        return
    text = "".join(lines)
    places = _oracle_places(lines, search)
    try:
        result = resolve(text, "".join(search), "".join(search) + "MARKER()\n")
    except AmbiguousMatch as failure:
        assert len(places) > 1, f"refused as ambiguous, but only {places} match"
        assert {lines.first - 1 for lines in failure.locations} == places
        return
    except NoMatch:
        assert not places, f"refused, but {places} match"
        return
    assert len(places) == 1, f"applied at {result.lines}, but {sorted(places)} match"
    (place,) = places
    core = len(search) - next(i for i, s in enumerate(search) if s.strip())
    core -= next(i for i, s in enumerate(reversed(search)) if s.strip())
    assert result.lines.first - 1 <= place and place + core <= result.lines.last
    new = split_lines(result.text)
    (at,) = [i for i, line in enumerate(new) if line.strip() == "MARKER()"]
    assert at >= place + core and not "".join(new[place + core : at]).strip(), "inserted right after the place"
    assert new[:at] + new[at + 1 :] == lines, "nothing but the inserted line changed, byte for byte"


@pytest.mark.parametrize("max_jumps", [0, 1, finding.MAX_JUMPS])
@given(
    st.lists(st.sampled_from(["a", "b", "a\0", "\0"]), max_size=30),
    st.lists(st.sampled_from(["a", "b", "\0"]), min_size=1, max_size=4),
    st.one_of(st.none(), st.integers(min_value=1, max_value=5)),
)
def test_occurrences_in_one_pass_are_the_first_places_even_with_nul_in_lines(
    max_jumps: int, items: list[str], wanted: list[str], limit: int | None
) -> None:
    """Past max_jumps the rest is found by joining the lines with NUL between them, at C speed: a line
    holding a NUL of its own must neither make a place nor hide one."""
    found = occurrences(items, wanted, Work(), limit=limit, max_jumps=max_jumps)
    every = [i for i in range(len(items) - len(wanted) + 1) if items[i : i + len(wanted)] == wanted]
    assert found == every[:limit]
