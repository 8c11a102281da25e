"""The answer parser: ^^^path ... ^^^end / ^^^delete blocks, and every way an answer is malformed."""

from __future__ import annotations

import pytest

from code_commit.edits import DeleteFile, WriteFile, parse_answer, render_answer
from code_commit.errors import AnswerRefused


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
