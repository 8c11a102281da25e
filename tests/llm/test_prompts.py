"""Prompt assembly: the default section order, latest-only replacements, and the shipped prompt texts."""

from __future__ import annotations

import re

import pytest

from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.llm.prompts import (
    Feedback,
    SystemPrompts,
    fill_placeholders,
    initial_prompt,
    load_system_prompts,
    render_replacements,
    repair_prompt,
)
from code_commit.rollup import framing as rollup

SYSTEM = SystemPrompts("<PS>", "<CM>", "<IQ>", "<RQ>")


def test_initial_prompt_order() -> None:
    prompt = initial_prompt(SYSTEM, "the query", "the codebase")
    assert [s.title for s in prompt.sections] == [
        "project structure",
        "code modification",
        "initial query",
        "query",
        "codebase",
    ]
    text = prompt.render()
    positions = [text.index(marker) for marker in ("<PS>", "<CM>", "<IQ>", "the query", "the codebase")]
    assert positions == sorted(positions)
    assert [s.title for s in prompt.system] == ["project structure", "code modification", "initial query"]


def test_repair_prompt_order_and_labels() -> None:
    prompt = repair_prompt(SYSTEM, Feedback("BUILD BROKE"), "the query", "the codebase", {"b.py": "B\n", "a.py": None})
    assert [s.title for s in prompt.sections] == [
        "project structure",
        "code modification",
        "repair query",
        "build output",
        "query",
        "codebase",
        "file replacements",
    ]
    text = prompt.render()
    markers = [
        "<PS>",
        "<CM>",
        "<RQ>",
        "--- BUILD OUTPUT ---\nBUILD BROKE",
        "--- QUERY ---\nthe query",
        "--- CODEBASE ---\nthe codebase",
        "--- FILE REMOVED [a.py] ---",
        "--- FILE REPLACEMENT [b.py] ---\nB\n",
    ]
    positions = [text.index(m) for m in markers]
    assert positions == sorted(positions)
    assert "<IQ>" not in text


@pytest.mark.parametrize("order", ["spec", "cache"])
def test_the_failure_s_files_come_last_and_leave_the_spec_sections_as_they_were(order: str) -> None:
    args = (SYSTEM, Feedback("BUILD BROKE"), "the query", "the codebase", {"b.py": "B\n"}, order)
    spec = repair_prompt(*args)
    prompt = repair_prompt(*args, {"src/core.py": "def f():\n    pass\n", "src/util.py": "X = 1"})
    assert prompt.sections[:-1] == spec.sections
    last = prompt.sections[-1]
    assert (last.title, last.system, last.cache) == ("file context", False, False)
    assert (
        last.text
        == "--- FILE CONTEXT [src/core.py] ---\ndef f():\n    pass\n--- FILE CONTEXT [src/util.py] ---\nX = 1\n"
    )
    assert repair_prompt(*args, {}) == spec


def test_refusal_takes_the_place_of_the_build_output() -> None:
    prompt = repair_prompt(SYSTEM, Feedback("build.sh is protected", refused=True), "q", "c", {})
    assert prompt.sections[3].text.startswith("--- ANSWER REFUSED ---\nbuild.sh is protected")
    assert "BUILD OUTPUT" not in prompt.render()


def test_replacements_are_sorted_and_framed_exactly() -> None:
    assert render_replacements({"z.txt": "no newline", "a.txt": "", "m.txt": None}) == (
        "--- FILE REPLACEMENT [a.txt] ---\n--- FILE REMOVED [m.txt] ---\n--- FILE REPLACEMENT [z.txt] ---\nno newline\n"
    )


def test_redaction_reaches_every_section() -> None:
    secret = "sk-ant-SECRET-123456"
    prompt = repair_prompt(SYSTEM, Feedback(f"env: {secret}"), f"q {secret}", f"c {secret}", {"x": secret})
    text = prompt.redacted(Redactor.of([secret])).render()
    assert secret not in text
    assert text.count("********56") == 4


def test_shipped_system_prompts_load_and_teach_the_format() -> None:
    system = load_system_prompts()
    assert "^^^end" in system.code_modification and "^^^delete" in system.code_modification
    # The prompt describes the framing the rollup writes.
    assert (rollup.HEADER % b"path/relative/to/root").decode().strip() in system.project_structure
    assert rollup.LEFT_OUT_LABEL.decode().strip() in system.project_structure
    assert "FILE REPLACEMENT" in system.project_structure
    assert "FILE CONTEXT" in system.project_structure
    assert rollup.OUTLINES_LABEL.decode().strip() in system.project_structure
    assert "::: path (outline:" in system.project_structure
    assert system.initial_query.strip() and system.repair_query.strip()


def test_the_code_modification_prompt_teaches_edit_blocks_with_the_configured_thresholds() -> None:
    default = load_system_prompts().code_modification
    assert "^^^search" in default and "^^^replace" in default
    assert "more than 500 lines or more than 15000 bytes" in default
    assert "Delete a file only when the task needs it." in default
    settings = Settings(edit_threshold_lines=42, edit_threshold_bytes=9000)
    custom = load_system_prompts(settings=settings).code_modification
    assert "more than 42 lines or more than 9000 bytes" in custom
    for text in (default, custom):
        assert not re.search(r"\{\w+\}", text), "every placeholder is filled"


def test_the_prompt_says_when_deleting_is_turned_off() -> None:
    text = load_system_prompts(settings=Settings(allow_delete=False)).code_modification
    assert "Deleting files is turned off in this project" in text
    assert "Delete a file only when" not in text


def test_filling_placeholders_leaves_other_braces_alone() -> None:
    text = "if (x) { y(); } {known} {unknown} {{known}}"
    assert fill_placeholders(text, {"known": "K"}) == "if (x) { y(); } K {unknown} {K}"
    assert fill_placeholders(text, {}) == text
