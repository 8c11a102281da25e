"""The failure's files in the repair prompt, end to end: `code-commit`, a real build, the real SDK and the
loopback fake service. The build's traceback names a file the rollup does not show; the next repair
prompt carries it, last, in a FILE CONTEXT section."""

from __future__ import annotations

import pytest

from fakeapi import FakeAPI
from support import TEST_KEY, Project

PROSE = "Looking at it; no change yet.\n"
TRY = "^^^attempt.txt\na first try\n^^^end\n"  # a change, so it is built (an answer that changes nothing is not)
# The rollup shows the test only (a hand-made rollup, or a budget that left the module out).
ROLLUP = "==> tests/test_calc.py <==\n"


def calc_project(project: Project) -> None:
    project.write("src/calc/__init__.py", "from .core import add\n")
    project.write("src/calc/core.py", "from .util import twice\n\n\ndef add(a, b):\n    return a - b\n")
    project.write("src/calc/util.py", "def twice(x):\n    return 2 * x\n")
    project.write(
        "tests/test_calc.py", "import sys\nsys.path.insert(0, 'src')\nfrom calc import add\n\nassert add(2, 2) == 4\n"
    )
    project.write("notes/unrelated.py", "x = 1\n")
    project.build_script('cd "$(dirname "$0")"\npython3 tests/test_calc.py\n')
    project.commit_all()
    test = project.read("tests/test_calc.py")
    project.write("agent-config/codeRollup.txt", ROLLUP + test)
    project.write("agent-config/config.toml", "max_repairs = 1\n")


def repair_user_text(api: FakeAPI) -> str:
    request = api.requests[1]
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def test_a_file_the_traceback_names_and_the_rollup_lacks_is_in_the_next_repair_prompt_last(
    project: Project, api: FakeAPI, cli
) -> None:
    calc_project(project)
    api.reply(TRY)
    api.reply(PROSE)
    result = cli()
    assert result.exit_code == 1, result.stderr
    text = repair_user_text(api)
    # The spec's sections in their order and wording, then the new one, last.
    assert text.index("--- BUILD OUTPUT ---") < text.index("--- QUERY ---") < text.index("--- CODEBASE ---")
    context = text[text.index("--- FILE CONTEXT [") :]
    assert context.startswith("--- FILE CONTEXT [tests/test_calc.py]") is False, "the rollup shows it whole"
    # The traceback names the test alone; what it imports, through the package's face, is the fix file.
    assert context.startswith("--- FILE CONTEXT [src/calc/__init__.py] ---\nfrom .core import add\n")
    assert "--- FILE CONTEXT [src/calc/core.py] ---\nfrom .util import twice\n" in context
    assert "src/calc/util.py" not in text and "notes/unrelated.py" not in text, "a bounded hop, not everything"
    assert text.rstrip().endswith("return a - b"), "the section comes last"
    (run,) = project.run_dirs()
    assert "the failure's files src/calc/__init__.py, src/calc/core.py" in (run / "run.log").read_text()


def test_repair_context_spec_keeps_the_spec_sections_only(project: Project, api: FakeAPI, cli) -> None:
    calc_project(project)
    project.write("agent-config/config.toml", 'max_repairs = 1\nrepair_context = "spec"\n')
    api.reply(TRY)
    api.reply(PROSE)
    cli()
    assert "FILE CONTEXT" not in repair_user_text(api)


def test_a_bad_repair_context_is_a_setup_error(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", 'repair_context = "everything"\n')
    result = cli()
    assert result.exit_code == 2
    assert "repair_context" in result.stderr and "failure, spec" in result.stderr
    assert api.requests == []


def test_never_a_secret_never_agent_config_never_an_untracked_file(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build names a tracked file holding the key, the key file itself, and an untracked file: none
    of them is shown."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    project.write("settings.py", f"KEY = '{TEST_KEY}'\n")
    project.write("tracked.py", "VALUE = 1\n")
    project.build_script(
        'cd "$(dirname "$0")"\n'
        'echo "  File \\"$PWD/settings.py\\", line 1"\n'
        'echo "  File \\"$PWD/agent-config/anthropic-api-key\\", line 1"\n'
        'echo "  File \\"$PWD/scratch.py\\", line 1"\n'
        'echo "  File \\"$PWD/tracked.py\\", line 1"\n'
        "exit 1\n"
    )
    project.commit_all()
    project.write("agent-config/anthropic-api-key", TEST_KEY + "\n")
    project.write("scratch.py", "LOCAL = 1\n")
    project.write("agent-config/config.toml", "max_repairs = 1\n")
    api.reply(TRY)
    api.reply(PROSE)
    cli()
    text = repair_user_text(api)
    assert "--- FILE CONTEXT [tracked.py] ---\nVALUE = 1\n" in text
    for absent in ("[settings.py]", "[agent-config/", "[scratch.py]", TEST_KEY):
        assert absent not in text
