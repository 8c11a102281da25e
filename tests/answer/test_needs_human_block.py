"""The ^^^needs-human block: an answer that hands the task back to a person. Read whole like any
answer (malformed is refused), never taken for a file path, its reason censored and then capped."""

from __future__ import annotations

import pytest

from code_commit.answer.caret_blocks import (
    NEEDS_HUMAN,
    REASON_CAP,
    DeleteFile,
    WriteFile,
    parse_answer,
    render_answer,
)
from code_commit.answer.plan import AnswerRefused
from code_commit.errors import NeedsHuman


def hand_back(text: str, censor=None) -> str:
    with pytest.raises(NeedsHuman) as caught:
        parse_answer(text, censor=censor)
    return caught.value.reason


def refusal(text: str) -> str:
    with pytest.raises(AnswerRefused) as caught:
        parse_answer(text)
    (problem,) = caught.value.problems
    assert problem.kind == "malformed"
    return problem.message


def test_the_block_hands_back_its_reason_without_its_outer_blank_lines() -> None:
    reason = hand_back(
        "Prose first.\n^^^needs-human\n\ntest_add expects 2 + 2 == 5,\nwhich the query contradicts.\n\n^^^end\n"
    )
    assert reason == "test_add expects 2 + 2 == 5,\nwhich the query contradicts."


def test_beside_file_blocks_it_still_hands_back_and_no_edit_is_returned() -> None:
    # Whatever else the answer holds, a person must look first: the parser returns no edits at all.
    answer = "^^^a.txt\nx\n^^^end\n^^^needs-human\nthe build lacks cargo\n^^^end\n^^^b.txt\n^^^delete\n"
    assert hand_back(answer) == "the build lacks cargo"


def test_a_crlf_answer_hands_back_too() -> None:
    assert hand_back("^^^needs-human\r\nno tool\r\n^^^end\r\n") == "no tool"


def test_a_malformed_answer_is_refused_even_with_a_needs_human_block() -> None:
    assert "no ^^^end" in refusal("^^^needs-human\nwhy\n^^^end\n^^^a.txt\ncut off")


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ("^^^needs-human\nthe tests contradict the query\n", "the ^^^needs-human block opened on line 1 has no ^^^end"),
        ("^^^needs-human\n\n  \n^^^end\n", "holds no reason"),
        ("^^^needs-human\n^^^end\n", "holds no reason"),
        ("^^^needs-human\none\n^^^end\ntext\n^^^needs-human\ntwo\n^^^end\n", "line 5: a second ^^^needs-human block"),
        ("^^^needs-human\nwhy\n^^^search\n^^^end\n", "'^^^search' inside the ^^^needs-human block"),
        ("^^^needs-human\nwhy\n^^^delete\n", "'^^^delete' inside the ^^^needs-human block"),
        ("^^^a.txt\n^^^needs-human\n^^^end\n", "inside the block for 'a.txt'"),
    ],
)
def test_malformed_blocks_are_refused_with_a_clear_reason(answer: str, says: str) -> None:
    assert says in refusal(answer)


def test_needs_human_is_a_marker_never_a_path() -> None:
    with pytest.raises(ValueError, match="is a marker"):
        render_answer([WriteFile("needs-human", "x\n")])
    with pytest.raises(ValueError, match="is a marker"):
        render_answer([DeleteFile("needs-human")])
    # Only the exact marker: a path that merely starts so is a file, and so is one in a folder.
    edits = [WriteFile("needs-human.txt", "x\n"), WriteFile("docs/needs-human", "y\n")]
    assert parse_answer(render_answer(edits)) == edits


def test_a_long_reason_is_capped_and_says_so() -> None:
    reason = hand_back(f"{NEEDS_HUMAN}\n{'word ' * 1000}\n^^^end\n")
    assert len(reason) < REASON_CAP + 100
    assert reason.startswith("word word")
    assert reason.endswith(f"[... cut: a reason is kept to its first {REASON_CAP:,} characters]")


def test_the_reason_is_censored_before_it_is_cut() -> None:
    """A secret astride the cap is censored whole: cut first, its first half would be no secret the
    censor knows, and would be shown."""
    secret = "sk-ant-" + "s3cr3t" * 10
    text = "x" * (REASON_CAP - 20) + secret

    def censor(value: str) -> str:
        return value.replace(secret, "[REDACTED]")

    reason = hand_back(f"{NEEDS_HUMAN}\n{text}\n^^^end\n", censor=censor)
    assert "s3cr3t" not in reason and "sk-ant" not in reason
    assert reason.startswith("x" * 100) and "[REDACTED]" in reason


def test_its_message_gives_the_reason_on_one_line() -> None:
    with pytest.raises(NeedsHuman) as caught:
        parse_answer("^^^needs-human\nline one\n  line two\n^^^end\n")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("a person must decide") and message.endswith("Its reason: line one line two")


def test_the_docs_state_the_cap() -> None:
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    for page in ("answers.md", "record.md"):  # the answer format, and the record's `needs_human`
        assert f"first {REASON_CAP:,} characters" in (docs / page).read_text(), page
