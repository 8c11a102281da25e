"""The answer parser under generated input: it returns edits or refuses cleanly, and rendering round-trips.

The answer is untrusted text: whatever it holds, `parse_answer` may only return edits, raise
AnswerRefused, or hand the task back (NeedsHuman, with a reason that is not blank). And every edit
list the format can express comes back unchanged from `parse_answer(render_answer(edits))`;
`render_answer` refuses (ValueError) the ones it cannot.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from code_commit.answer.caret_blocks import DeleteFile, WriteFile, parse_answer, render_answer
from code_commit.answer.plan import AnswerRefused
from code_commit.errors import NeedsHuman

PROPERTY = settings(max_examples=250, derandomize=True, database=None, deadline=None)

# Lines built from the pieces that matter to the parser, so markers are common, not lucky.
LINE_PIECES = [
    "^^^",
    "end",
    "delete",
    "needs-human",
    "a.py",
    "src/x",
    " ",
    "\r",
    "text",
    "é",
    "\t",
    "^",
    "\x00",
    "\u2028",
]
lines = st.lists(st.sampled_from(LINE_PIECES), max_size=4).map("".join)
answers = st.one_of(
    st.lists(lines, max_size=12).map("\n".join),
    st.text(max_size=200),
    st.lists(lines, max_size=12).map("\r\n".join),
)


@PROPERTY
@given(answers)
@example("^^^")
@example("^^^\n^^^end")
@example("^^^end\r\n")
@example("\r\n".join(["^^^a", "x", "^^^end"]))
@example("^^^needs-human\n\r\n^^^end")
@example("^^^needs-human\nwhy\n^^^end\n^^^needs-human\n")
def test_any_text_gives_edits_or_a_clean_refusal(text: str) -> None:
    try:
        edits = parse_answer(text)
    except AnswerRefused as refusal:
        assert refusal.reasons and all(isinstance(r, str) and r for r in refusal.reasons)
        return
    except NeedsHuman as hand_back:
        assert hand_back.reason.strip()
        return
    for edit in edits:
        assert isinstance(edit, WriteFile | DeleteFile)
        assert "\n" not in edit.path and not edit.path.endswith("\r")
        if isinstance(edit, WriteFile):
            assert edit.content == "" or edit.content.endswith("\n")
            assert not any(line.startswith("^^^") for line in edit.content.split("\n"))


# A string strategy, not a list of sampled characters joined: the same strings, drawn at a third of the cost.
paths = st.text(alphabet=list("abc/._- é^\r\t"), max_size=12)
content_lines = st.lists(st.sampled_from(["x", " ^^^", "^^", "end", "\r", "é", "\t", "", "a b", "\u2028"]), max_size=3)
contents = st.lists(content_lines.map("".join), max_size=6).map(lambda ls: "".join(line + "\n" for line in ls))
edit_lists = st.lists(
    st.one_of(st.builds(WriteFile, paths, contents), st.builds(DeleteFile, paths)),
    max_size=6,
)


@PROPERTY
@given(edit_lists)
def test_rendering_and_parsing_back_gives_the_same_edits(edits: list) -> None:
    try:
        text = render_answer(edits)
    except ValueError:
        return  # not expressible: see test_render_refuses_what_the_format_cannot_express
    assert parse_answer(text) == edits


@PROPERTY
@given(edit_lists, st.lists(st.sampled_from(["Sure.", "", "Here:", "  ^^^indented", "done ^^^"]), max_size=3))
def test_prose_around_blocks_changes_nothing(edits: list, prose: list[str]) -> None:
    try:
        body = render_answer(edits)
    except ValueError:
        return
    around = "\n".join(prose)
    text = (around + "\n" if around else "") + body + around
    assert parse_answer(text) == edits


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (WriteFile("a", "no final newline"), "newline"),
        (WriteFile("a", "ok\n^^^end\n"), "cannot begin"),
        (WriteFile("end", "x\n"), "marker"),  # "^^^end" would close a block that is not open
        (DeleteFile("delete"), "marker"),
        (WriteFile("a\nb", "x\n"), "newline"),
        (WriteFile("a\r", "x\n"), "carriage return"),  # a trailing CR is read as part of the line break
    ],
)
def test_render_refuses_what_the_format_cannot_express(edit, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        render_answer([edit])


def test_a_last_line_without_newline_cannot_be_written() -> None:
    # The format always ends a written file with a newline: there is no way to say otherwise.
    assert parse_answer("^^^a.txt\nlast line\n^^^end") == [WriteFile("a.txt", "last line\n")]
    with pytest.raises(AnswerRefused, match="no \\^\\^\\^end"):
        parse_answer("^^^a.txt\nlast line^^^end")


def test_crlf_answers_keep_crlf_content_and_read_crlf_markers() -> None:
    answer = "Fix:\r\n^^^a.bat\r\n@echo off\r\n^^^end\r\n^^^b.txt\r\n^^^delete\r\n"
    assert parse_answer(answer) == [WriteFile("a.bat", "@echo off\r\n"), DeleteFile("b.txt")]


def test_mixed_line_endings_are_kept_line_by_line() -> None:
    assert parse_answer("^^^m.txt\nunix\nwin\r\nunix again\n^^^end\n") == [
        WriteFile("m.txt", "unix\nwin\r\nunix again\n")
    ]
