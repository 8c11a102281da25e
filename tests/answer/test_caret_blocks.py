"""The answer parser: ^^^path ... ^^^end / ^^^delete / ^^^search blocks, and every way an answer is malformed."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from code_commit.answer.caret_blocks import DeleteFile, EditFile, Replacement, WriteFile, parse_answer, render_answer
from code_commit.answer.plan import AnswerRefused


def test_write_and_delete_blocks_with_prose_around_them() -> None:
    answer = (
        "Here is the fix.\n"
        "^^^src/app.py\n"
        "def main():\n"
        "    return 1\n"
        "^^^end\n"
        "And remove the old module:\n"
        "^^^src/old.py\n"
        "^^^delete\n"
        "That's all.\n"
    )
    assert parse_answer(answer) == [
        WriteFile("src/app.py", "def main():\n    return 1\n"),
        DeleteFile("src/old.py"),
    ]


def test_empty_file_is_allowed() -> None:
    assert parse_answer("^^^empty.txt\n^^^end\n") == [WriteFile("empty.txt", "")]


def test_answer_without_blocks_has_no_edits() -> None:
    assert parse_answer("I think the build is already fine.") == []


def test_crlf_content_is_kept_byte_for_byte() -> None:
    answer = "^^^win.bat\r\n@echo off\r\nexit 0\r\n^^^end\r\n"
    assert parse_answer(answer) == [WriteFile("win.bat", "@echo off\r\nexit 0\r\n")]


def test_final_end_marker_without_newline() -> None:
    assert parse_answer("^^^a.txt\nx\n^^^end") == [WriteFile("a.txt", "x\n")]


def test_same_file_twice_and_write_then_delete_keep_answer_order() -> None:
    answer = "^^^a\none\n^^^end\n^^^a\ntwo\n^^^end\n^^^b\nb\n^^^end\n^^^b\n^^^delete\n"
    assert parse_answer(answer) == [
        WriteFile("a", "one\n"),
        WriteFile("a", "two\n"),
        WriteFile("b", "b\n"),
        DeleteFile("b"),
    ]


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ("^^^a.py\nprint(1)\n", "has no ^^^end"),
        ("^^^a.py\nprint(1)\n^^^b.py\nx\n^^^end\n", "inside the block for 'a.py'"),
        ("^^^end\n", "outside a block"),
        ("^^^delete\n", "outside a block"),
        ("^^^a.py\nx\n^^^delete\n", "^^^delete after content"),
        ("^^^a.py\n^^^ending\n^^^end\n", "inside the block"),
        ("^^^a.py\n^^^end \n", "inside the block"),  # a marker is exact: no trailing blanks
    ],
)
def test_malformed_answers_are_refused_whole(answer: str, fragment: str) -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_answer("^^^good.py\nok\n^^^end\n" + answer)
    assert fragment in str(caught.value)


def test_unterminated_block_is_refused_even_after_good_blocks() -> None:
    with pytest.raises(AnswerRefused, match="may be cut off"):
        parse_answer("^^^a\n1\n^^^end\n^^^b\npartial")


def test_indented_marker_is_content() -> None:
    assert parse_answer("^^^doc.md\n  ^^^not a marker\n^^^end\n") == [WriteFile("doc.md", "  ^^^not a marker\n")]


def test_render_round_trips() -> None:
    edits = [WriteFile("a/b.txt", "x\ny\n"), DeleteFile("c"), WriteFile("e", ""), WriteFile("crlf", "1\r\n")]
    assert parse_answer(render_answer(edits)) == edits


def test_render_refuses_content_it_cannot_express() -> None:
    with pytest.raises(ValueError, match="newline"):
        render_answer([WriteFile("a", "no newline")])


def test_render_refuses_a_content_line_that_is_a_marker() -> None:
    with pytest.raises(ValueError, match="cannot begin"):
        render_answer([WriteFile("a", "ok\n^^^end\n")])


# --- edit blocks: ^^^search / ^^^replace pairs ---


def test_edit_block_with_several_pairs_and_prose_around() -> None:
    answer = (
        "Two changes in the big file:\n"
        "^^^src/big.py\n"
        "^^^search\n"
        "def a():\n"
        "    return 1\n"
        "^^^replace\n"
        "def a():\n"
        "    return 2\n"
        "^^^search\n"
        "x = 1\n"
        "^^^replace\n"
        "^^^end\n"
        "done\n"
    )
    (edit,) = parse_answer(answer)
    assert edit == EditFile(
        "src/big.py",
        (Replacement("def a():\n    return 1\n", "def a():\n    return 2\n"), Replacement("x = 1\n", "")),
    )
    assert [pair.line for pair in edit.replacements] == [3, 9], "each pair knows its answer line"


def test_edit_blocks_mix_with_whole_file_and_delete_blocks_in_order() -> None:
    answer = "^^^a\nwhole\n^^^end\n^^^a\n^^^search\nwhole\n^^^replace\nedited\n^^^end\n^^^b\n^^^delete\n"
    assert parse_answer(answer) == [
        WriteFile("a", "whole\n"),
        EditFile("a", (Replacement("whole\n", "edited\n"),)),
        DeleteFile("b"),
    ]


def test_edit_block_keeps_crlf_and_empty_search_text_reaches_the_matcher() -> None:
    answer = "^^^w.bat\r\n^^^search\r\n@echo on\r\n^^^replace\r\n@echo off\r\n^^^end\r\n"
    assert parse_answer(answer) == [EditFile("w.bat", (Replacement("@echo on\r\n", "@echo off\r\n"),))]
    # An empty search text is well-formed; the plan refuses it (see test_matching / test_apply).
    assert parse_answer("^^^a\n^^^search\n^^^replace\nx\n^^^end\n") == [EditFile("a", (Replacement("", "x\n"),))]


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ("^^^a.py\n^^^search\nx\n^^^end\n", "every ^^^search needs its ^^^replace"),
        ("^^^a.py\n^^^search\nx\n^^^search\n", "every ^^^search needs its ^^^replace"),
        ("^^^a.py\n^^^search\nx\n^^^delete\n", "every ^^^search needs its ^^^replace"),
        ("^^^a.py\n^^^search\nx\n^^^replace\ny\n^^^replace\n", "after a replacement comes ^^^search"),
        ("^^^a.py\n^^^search\nx\n^^^replace\ny\n^^^delete\n", "after a replacement comes ^^^search"),
        ("^^^a.py\n^^^search\nx\n^^^replace\ny\n^^^b.py\n", "after a replacement comes ^^^search"),
        ("^^^a.py\nx\n^^^search\ny\n^^^replace\n^^^end\n", "^^^search after content"),
        ("^^^a.py\n^^^replace\ny\n^^^end\n", "inside the block"),
        ("^^^search\nx\n^^^replace\ny\n^^^end\n", "^^^search outside a block"),
        ("^^^replace\n", "^^^replace outside a block"),
        ("^^^a.py\n^^^search\nx\n^^^replace\ny\n", "has no ^^^end"),
        ("^^^a.py\n^^^search\nx\n", "has no ^^^end"),
    ],
)
def test_malformed_edit_blocks_are_refused_whole(answer: str, fragment: str) -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_answer("^^^good.py\nok\n^^^end\n" + answer)
    assert fragment in str(caught.value)


def test_render_round_trips_edit_blocks() -> None:
    edits = [
        EditFile("big.py", (Replacement("a\nb\n", "a\nc\n"), Replacement("z\r\n", ""))),
        WriteFile("n.txt", "new\n"),
        EditFile("big.py", (Replacement("", "x\n"),)),
    ]
    assert parse_answer(render_answer(edits)) == edits


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (EditFile("a", ()), "at least one"),
        (EditFile("a", (Replacement("x", "y\n"),)), "newline"),
        (EditFile("a", (Replacement("x\n", "^^^end\n"),)), "cannot begin"),
        (EditFile("a", (Replacement("^^^replace\n", "y\n"),)), "cannot begin"),
    ],
)
def test_render_refuses_edit_blocks_it_cannot_express(edit: EditFile, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        render_answer([edit])


# The paths of r"[a-z]{1,8}(/[a-z]{1,8}){0,2}(\.[a-z]{1,3})?", built from their parts: from_regex's
# drawing cost twice as much.
_NAME = st.text(string.ascii_lowercase, min_size=1, max_size=8)
_PATHS = st.builds(
    lambda names, extension: "/".join(names) + extension,
    st.lists(_NAME, min_size=1, max_size=3),
    st.just("") | st.text(string.ascii_lowercase, min_size=1, max_size=3).map(lambda e: "." + e),
).filter(lambda p: p not in ("end", "delete", "search", "replace"))
_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=12).filter(
    lambda line: not line.startswith("^^^")
)
_TEXT = st.lists(_LINE, max_size=5).map(lambda lines: "".join(line + "\n" for line in lines))
_EDITS = st.one_of(
    st.builds(WriteFile, _PATHS, _TEXT),
    st.builds(DeleteFile, _PATHS),
    st.builds(EditFile, _PATHS, st.lists(st.builds(Replacement, _TEXT, _TEXT), min_size=1, max_size=3).map(tuple)),
)


@given(st.lists(_EDITS, max_size=6))
def test_render_then_parse_is_the_identity(edits: list) -> None:
    assert parse_answer(render_answer(edits)) == edits
