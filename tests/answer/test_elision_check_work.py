"""The audit of the elision check: its work on a hostile answer's long lines, and its false positives
on real code."""

from __future__ import annotations

import json

import pytest

from code_commit.answer.elision import is_placeholder, new_placeholders

from support import Project

# Each line is a megabyte. Before, the check's regexes backtracked over them with work that grows with
# the square of the line: `... ` and a run of dots (a `.*` before an ellipsis alternative), and a
# comment ending in a run of stars (a `\s*(?:...|\*+/)$` closer searched at every star). Measured
# before: 0.17 s at 8,000 characters and 3.5 s at 100,000, so hours at a megabyte; linear now.
LONG = 1_000_000
HOSTILE_LINES = [
    "... " + "." * LONG + "x",
    "# ... " + "*" * LONG + "x",
    "... " + "(" * LONG + "x",
    "# " + "... " * (LONG // 4) + "x",
]


@pytest.mark.parametrize("line", HOSTILE_LINES, ids=["dots", "stars", "brackets", "ellipses"])
def test_a_megabyte_line_is_judged_in_one_pass(line: str) -> None:
    assert not is_placeholder(line)


def test_an_answer_with_a_megabyte_line_of_dots_is_checked_through_apply(project: Project, cli) -> None:
    """Through the public surface: a whole-file block for an existing file, one line a megabyte of dots."""
    project.write("module.py", "x = 1\n")
    project.commit_all()
    answer = "^^^module.py\nx = 2\n... " + "." * LONG + "x\n^^^end\n"
    result = cli("apply", "--check", "--json", "-", input=answer)
    assert result.exit_code == 0, result.stdout[:2000]
    assert json.loads(result.stdout)["problems"] == []


@pytest.mark.parametrize(
    "line",
    [
        "# Unchanged lines are shown as context.",
        "# unchanged one shows as removed and added.",  # code-commit's own hunks.py
        "# unchanged. If the resolver substituted True, the",  # click's core.py
    ],
)
def test_a_comment_that_begins_with_unchanged_is_prose_not_a_placeholder(line: str) -> None:
    """The word counted twice, as what was left out and as the word saying it is kept."""
    assert not is_placeholder(line)
    assert new_placeholders(f"def f():\n    {line}\n    return 1\n", "def f():\n    return 1\n") == []


@pytest.mark.parametrize(
    "line", ["# unchanged", "# rest of the file unchanged", "# the rest is unchanged", "# existing code unchanged"]
)
def test_comments_that_say_code_is_unchanged_are_still_placeholders(line: str) -> None:
    assert is_placeholder(line)
