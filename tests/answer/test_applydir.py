"""applydir's JSON answers mapped onto the edit model, and every structural mistake named."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from code_commit.answer.applydir import looks_like_json, parse_applydir
from code_commit.answer.caret_blocks import DeleteFile, EditFile, Replacement, WriteFile
from code_commit.answer.plan import AnswerRefused


def test_the_three_actions_map_onto_edit_write_and_delete() -> None:
    answer = json.dumps(
        [
            {
                "file": "src/main.py",
                "changes": [
                    {"original_lines": ["def f():", "    return 1"], "changed_lines": ["def f():", "    return 2"]},
                    {"original_lines": ["x = 1\n"], "changed_lines": []},
                ],
            },
            {
                "file": "src/new.py",
                "action": "create_file",
                "changes": [{"original_lines": [], "changed_lines": ["a"]}],
            },
            {"file": "src/gone.py", "action": "delete_file", "changes": "ignored"},
            {"file": "src/implicit.py", "changes": [{"original_lines": [], "changed_lines": ["b", "c"]}]},
        ]
    )
    parsed = parse_applydir(answer)
    assert parsed == [
        EditFile(
            "src/main.py",
            (Replacement("def f():\n    return 1\n", "def f():\n    return 2\n"), Replacement("x = 1\n", "")),
        ),
        WriteFile("src/new.py", "a\n", new_file=True),
        DeleteFile("src/gone.py"),
        WriteFile("src/implicit.py", "b\nc\n", new_file=True),
    ]


def test_a_fenced_json_answer_is_recognised() -> None:
    answer = '```json\n[{"file": "a", "action": "delete_file"}]\n```\n'
    assert looks_like_json(answer)
    assert parse_applydir(answer) == [DeleteFile("a")]
    assert not looks_like_json("Here you go:\n^^^a\n^^^delete\n")


DELETE_A = '[{"file": "a", "action": "delete_file"}]'


@pytest.mark.parametrize(
    "answer",
    [
        f"Here is the change:\n```json\n{DELETE_A}\n```\nDone.\n",
        f"Here is the change:\n\n```\n{DELETE_A}\n```\n",  # untagged, but an array
        f"The fix:\n~~~JSON\n{DELETE_A}\n~~~\n",
        f"First the test:\n```python\nassert f() == 2\n```\nthen:\n```json\n{DELETE_A}\n```\n",
    ],
)
def test_one_fenced_json_block_with_prose_around_it_is_recognised(answer: str) -> None:
    assert looks_like_json(answer)
    assert parse_applydir(answer) == [DeleteFile("a")]


def test_several_fenced_json_blocks_are_refused_rather_than_guessed_between() -> None:
    answer = f"Either:\n```json\n{DELETE_A}\n```\nor:\n```json\n{DELETE_A.replace('a', 'b')}\n```\n"
    assert looks_like_json(answer)
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir(answer)
    assert str(caught.value) == (
        "the answer has 2 fenced JSON blocks (opening on lines 2, 6); it must hold exactly one applydir "
        "document, so none of them is applied"
    )


def test_malformed_json_in_a_fence_is_refused_with_its_line_in_the_answer() -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir('Here:\n```json\n[\n  {"file": "a",}\n]\n```\n')
    assert "the answer is not valid JSON (Expecting property name enclosed in double quotes at line 4" in str(
        caught.value
    )


def test_json_nested_too_deeply_is_refused_not_a_crash() -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in str(caught.value)


def test_an_integer_python_will_not_convert_is_refused_not_a_crash() -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir('[{"file": "a.txt", "x": ' + "1" * 5_000 + "}]")
    assert "holds a value Python cannot read" in str(caught.value)


@pytest.mark.parametrize(
    ("line", "is_fence"),
    [
        ("```json", True),
        ("~~~~ json title", True),
        ("``` js`on", False),  # a backtick fence's info string may hold no backtick
        ("``", False),
        ("```" + "a" * 100_000 + "`x", False),  # one pass: the regex it replaced took minutes on this
    ],
)
def test_fence_openings(line: str, is_fence: bool) -> None:
    closing = line[: len(line) - len(line.lstrip(line[0]))]
    assert looks_like_json(f"Here:\n{line}\n[]\n{closing}\n") is is_fence


def test_prose_alone_is_not_json_and_forced_to_be_says_what_is_missing() -> None:
    prose = "I looked at the build, and it passes already.\n"
    assert not looks_like_json(prose)
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir(prose)
    assert "the answer holds no applydir JSON" in str(caught.value) and "--format caret" in str(caught.value)


def test_a_fenced_json_block_inside_a_caret_answer_is_file_content() -> None:
    assert not looks_like_json(f"^^^docs/api.md\nExample:\n```json\n{DELETE_A}\n```\n^^^end\n")


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ("[{", "not valid JSON"),
        ('{"file": "a"}', "must be an array"),
        ("[1]", "entry 1: must be an object"),
        ('[{"file": ""}]', "'file' must be a non-empty string"),
        ('[{"file": "a", "action": "rename"}]', "unknown action 'rename'"),
        ('[{"file": "a"}]', "'changes' must be a non-empty array"),
        ('[{"file": "a", "changes": []}]', "'changes' must be a non-empty array"),
        ('[{"file": "a", "changes": ["x"]}]', "change 1: must be an object"),
        ('[{"file": "a", "changes": [{"original_lines": ["x"]}]}]', "'changed_lines' must be an array of strings"),
        ('[{"file": "a", "changes": [{"original_lines": [1], "changed_lines": []}]}]', "'original_lines' must be"),
        (
            '[{"file": "a", "changes": [{"original_lines": ["x"], "changed_lines": []}, '
            '{"original_lines": [], "changed_lines": ["y"]}]}]',
            "change 2 has empty original_lines",
        ),
        (
            '[{"file": "a", "action": "create_file", "changes": [{"original_lines": ["x"], "changed_lines": ["y"]}]}]',
            "create_file needs every original_lines to be empty",
        ),
        (
            '[{"file": "a", "action": "create_file", "changes": [{"original_lines": [], "changed_lines": []}]}]',
            "needs non-empty changed_lines",
        ),
    ],
)
def test_structural_mistakes_are_refused_by_entry(answer: str, fragment: str) -> None:
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir(answer)
    assert fragment in str(caught.value)


def test_every_bad_entry_is_reported_at_once() -> None:
    answer = '[{"file": "a", "action": "x"}, {"file": "ok", "action": "delete_file"}, {"file": 3}]'
    with pytest.raises(AnswerRefused) as caught:
        parse_applydir(answer)
    assert len(caught.value.reasons) == 2
    assert caught.value.reasons[0].startswith("entry 1 ('a')") and caught.value.reasons[1].startswith("entry 3")


_PIECES = [
    "```json",
    "```",
    "~~~",
    "````",
    "[",
    "]",
    "{",
    "}",
    '{"file": "a", "action": "delete_file"}',
    ",",
    "prose",
    "^^^a",
]


@given(
    st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=3)), max_size=12), st.sampled_from(["\n", " ", ""])
)
def test_any_text_gives_edits_or_a_clean_refusal(pieces: list[str], separator: str) -> None:
    text = separator.join(pieces)
    try:
        answer = parse_applydir(text)
    except AnswerRefused as refusal:
        assert refusal.reasons and all(reason for reason in refusal.reasons)
        return
    assert all(isinstance(edit, DeleteFile | EditFile | WriteFile) for edit in answer)
    looks_like_json(text)
