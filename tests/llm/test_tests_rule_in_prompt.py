"""What the code-modification prompt says of the tests, by the `tests` setting: the rule, and the
one sanctioned way to hand the task back (under protect and report only), each text written once."""

from __future__ import annotations

import re

import pytest

from code_commit.answer.caret_blocks import parse_answer
from code_commit.config.settings import TESTS_MODES, Settings
from code_commit.errors import NeedsHuman
from code_commit.llm.prompts import HAND_BACK, TESTS_PROTECTED, TESTS_REPORTED, load_system_prompts


def prompt(tests: str) -> str:
    return load_system_prompts(settings=Settings(tests=tests)).code_modification


@pytest.mark.parametrize("tests", TESTS_MODES)
def test_every_mode_fills_the_prompt(tests: str) -> None:
    text = prompt(tests)
    assert not re.search(r"\{\w+\}", text)
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_protect_says_the_tests_are_read_only_and_offers_the_hand_back() -> None:
    text = prompt("protect")
    assert text.count(TESTS_PROTECTED) == 1 and text.count(HAND_BACK) == 1
    assert TESTS_REPORTED not in text
    assert "read-only" in text and "rejected whole" in text
    assert "judged without them" in text and "Fix the code, not the tests." in text
    assert prompt(Settings().tests) == text  # protect is the default


def test_report_says_test_changes_are_reported_and_offers_the_hand_back() -> None:
    text = prompt("report")
    assert text.count(TESTS_REPORTED) == 1 and text.count(HAND_BACK) == 1
    assert "read-only" not in text and "reported to the supervisor" in text


def test_free_says_nothing_of_the_tests_nor_of_handing_back() -> None:
    text = prompt("free")
    assert "needs-human" not in text and "THE TESTS" not in text
    assert text.rstrip().endswith("what the supervisor must do by hand.")


def test_the_block_the_prompt_teaches_is_the_one_the_parser_takes() -> None:
    example = HAND_BACK[HAND_BACK.index("^^^needs-human") : HAND_BACK.index("^^^end") + len("^^^end\n")]
    with pytest.raises(NeedsHuman) as caught:
        parse_answer(example)
    assert caught.value.reason.startswith("why a person must decide")
