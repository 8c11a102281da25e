"""Whole-file answers that leave code out (`# ... rest of the file unchanged ...`) are refused; code
that merely contains `...` is not."""

from __future__ import annotations

import json

import pytest

from code_commit.answer.elision import is_placeholder
from code_commit.llm.prompts import load_system_prompts

from fakeapi import FakeAPI
from support import Project

PLACEHOLDERS = [
    "# ... rest of the file unchanged ...",
    "    # ... (rest unchanged)",
    "    # ... existing code ...",
    "// ... existing code ...",
    "  // ...existing code...",
    "// … rest of the class",
    "// ... 200 more lines ...",
    "/* ... */",
    "    /* ... rest of the implementation ... */",
    "<!-- ... -->",
    "<!-- ... rest of the page unchanged ... -->",
    "  {/* ... */}",
    "# ...",
    "// …",
    " * ...",
    "# (...)",
    "# [... snip ...]",
    "-- ... existing queries ...",
    "; ...",
    "% ... same as before ...",
    "... rest of the file unchanged ...",
    "    ... (rest of the function unchanged)",
    "[... rest of the code unchanged ...]",
    "# rest of the file unchanged",
    "    # other methods remain the same",
    "// (existing code omitted for brevity)",
    "# Remaining tests unchanged",
]

LEGITIMATE = [
    "...",
    "    ...",
    "def f(): ...",
    "    def area(self) -> float: ...",
    "corner = x[..., 0]",
    "x[..., None] = y",
    "return f(...args);",
    "  ...rest,",
    "  ...existingConfig,",
    "  ...remaining",
    "const merged = { ...defaults, ...options };",
    "func Sum(nums ...int) int {",
    "    fmt.Println(parts...)",
    "int printf(const char *fmt, ...);",
    "    ...);",
    '"""Load the data... then parse it."""',
    "    Returns the rest of the list, unchanged... if empty.",
    ">>> for x in range(3):",
    "...     print(x)",
    "...     rest = x  # the rest of the items",
    "# Loading the data...",
    "// wait for the server...",
    "# ...and return it",
    "# Wait... what?",
    "print('...')",
    "raise NotImplementedError('...')",
    "# TODO: handle errors...",
    "    # Keep the existing behaviour unchanged for old callers",
    "# the rest of the file is parsed below",
    "# Other options: see --help",
    "---",
    "<!-- the list of authors -->",
    "/* compute the checksum */",
    "%.3f",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_a_placeholder_line_is_found(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize("line", LEGITIMATE)
def test_code_with_an_ellipsis_is_not_a_placeholder(line: str) -> None:
    assert not is_placeholder(line)


ORIGINAL = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(1, 60))


@pytest.fixture
def module(project: Project) -> Project:
    project.write("module.py", ORIGINAL)
    project.commit_all()
    return project


@pytest.mark.parametrize("placeholder", PLACEHOLDERS)
def test_a_whole_file_answer_with_a_placeholder_is_refused_and_says_to_use_edit_blocks(
    module: Project, cli, placeholder: str
) -> None:
    answer = f"^^^module.py\ndef f1():\n    return -1\n\n{placeholder}\n^^^end\n"
    result = cli("apply", "--json", "-", input=answer)
    assert result.exit_code == 7, result.stdout
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "elided" and problem["path"] == "module.py"
    assert f"line 4: {placeholder.strip()!r}" in problem["message"]
    assert "use an edit block" in problem["message"].lower() or "with an edit block" in problem["message"]
    assert module.read("module.py") == ORIGINAL


def test_legitimate_code_with_ellipses_replaces_an_existing_file(module: Project, cli) -> None:
    content = "".join(line + "\n" for line in LEGITIMATE)
    result = cli("apply", "-", input=f"^^^module.py\n{content}^^^end\n")
    assert result.exit_code == 0, result.stdout
    assert module.read("module.py") == content


def test_a_placeholder_the_file_already_has_may_stay_and_a_new_file_may_hold_one(module: Project, cli) -> None:
    module.write("stub.py", "def g():\n    # ...\n    pass\n")
    module.commit_all()
    answer = "^^^stub.py\ndef g():\n    # ...\n    return 1\n^^^end\n^^^new.md\n<!-- ... -->\n^^^end\n"
    result = cli("apply", "-", input=answer)
    assert result.exit_code == 0, result.stdout
    assert module.read("stub.py").endswith("return 1\n") and module.read("new.md") == "<!-- ... -->\n"


def test_many_placeholders_are_named_up_to_three_and_counted(module: Project, cli) -> None:
    answer = "^^^module.py\n" + "# ...\nx = 1\n" * 5 + "^^^end\n"
    (problem,) = json.loads(cli("apply", "--json", "-", input=answer).stdout)["problems"]
    assert "line 1: '# ...', line 3: '# ...', line 5: '# ...' and 2 more" in problem["message"]


def test_a_run_refuses_the_elided_answer_and_tells_the_model_why(module: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^module.py\ndef f1():\n    return 1\n\n# ... rest of the file unchanged ...\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert module.read("module.py") == ORIGINAL
    repair = api.requests[1].prompt_text
    assert "--- ANSWER REFUSED ---" in repair and "leaves code out" in repair and "edit block" in repair


def test_the_prompt_forbids_placeholder_lines() -> None:
    prompt = load_system_prompts().code_modification
    assert "# ... rest of the file unchanged ..." in prompt and "use an edit block" in prompt
