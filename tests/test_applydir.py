"""applydir's JSON answers mapped onto the edit model, and every structural mistake named."""

from __future__ import annotations

import json

import pytest

from code_commit.applydir import looks_like_json, parse_applydir
from code_commit.edits import DeleteFile, EditFile, Replacement, WriteFile
from code_commit.errors import AnswerRefused


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
    assert parsed.edits == [
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
    assert parse_applydir(answer).edits == [DeleteFile("a")]
    assert not looks_like_json("Here you go:\n^^^a\n^^^delete\n")


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
