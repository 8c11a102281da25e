"""What tools make in a build is neither tampering nor tests (issue 30): a virtual environment's own
`.gitignore` of `*` (real uv writes one, as Python 3.13's venv does) is no exit 10, and CMake's files
under a build tree's `tests/` are no exit 12. The bypasses closed before stay closed: a `.gitignore`
in a folder made to look like a virtual environment where an editor reads its tasks (`.vscode/`), or
in a folder of tests that would hide a `conftest.py`, is tampering."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from code_commit.exits import EXIT

from support import Project
from support.sandbox import require_bwrap

require_bwrap()

UV = os.path.join(os.path.dirname(sys.executable), "uv")  # the test extra installs it beside python


def check(project: Project, cli, script: str):
    project.build_script(script)
    project.commit_all()
    result = cli("--sandbox", "require", "check", "--json")
    return result, json.loads(result.stdout)


def test_a_virtualenv_uv_makes_in_the_build_is_no_tampering(project: Project, cli) -> None:
    assert os.path.exists(UV), "uv is in the test extra"
    result, record = check(project, cli, f'"{UV}" venv --offline --quiet .venv\ntest -f .venv/pyvenv.cfg\n')
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (project.root / ".venv/.gitignore").read_text().strip() == "*", "uv wrote its own ignore file"
    assert record["tampered"] == [] and record["tests_changed"] == []


def test_a_look_alike_virtualenv_where_an_editor_reads_its_tasks_is_tampering(project: Project, cli) -> None:
    script = (
        "mkdir -p .vscode && echo 'home = /usr/bin' > .vscode/pyvenv.cfg && echo '*' > .vscode/.gitignore\n"
        "echo '{\"tasks\": []}' > .vscode/tasks.json\n"
    )
    result, record = check(project, cli, script)
    assert result.exit_code == EXIT.TAMPERED, result.stdout + result.stderr
    assert ".vscode/.gitignore (created)" in record["tampered"]


def test_an_ignore_file_that_would_hide_a_conftest_among_the_tests_is_tampering(project: Project, cli) -> None:
    project.write("tests/test_app.py", "def test_app():\n    assert True\n")
    script = "mkdir -p tests/helpers && echo '*' > tests/helpers/.gitignore && touch tests/helpers/conftest.py\n"
    result, record = check(project, cli, script)
    assert result.exit_code == EXIT.TAMPERED, result.stdout + result.stderr
    assert "tests/helpers/.gitignore (created)" in record["tampered"]


@pytest.mark.skipif(shutil.which("cmake") is None and not os.environ.get("CI"), reason="cmake is not installed")
def test_a_cmake_build_tree_with_tests_is_no_change_to_the_tests(project: Project, cli) -> None:
    """CMake writes `build/tests/CMakeFiles/<target>.dir/compiler_depend.ts` and `*.o.d` files: data; the
    console counts them by folder and says to ignore a build folder, not hundreds of paths on a line."""
    project.write(
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.13)\nproject(t C)\nenable_testing()\nadd_subdirectory(tests)\n",
    )
    project.write("tests/CMakeLists.txt", "add_executable(t t.c)\nadd_test(NAME t COMMAND t)\n")
    project.write("tests/t.c", "int main(void) { return 0; }\n")
    script = "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && ctest --test-dir build\n"
    result, record = check(project, cli, script)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert record["tests_changed"] == []
    assert any("compiler_depend.ts" in path for path in record["build_changed"]), "the build tree is not ignored"
    warning = next(line for line in result.stderr.splitlines() if "beyond the answer" in line)
    assert "more files) (run.log lists them all; if one is a build folder, add it to .gitignore)" in warning
    assert len(warning) < 2000, "hundreds of paths are counted by folder, not listed on one line"


def test_a_look_alike_package_tree_holds_no_exemption_for_a_conftest(project: Project, cli) -> None:
    """node_modules is the tools' by its name, as pytest and Jest skip it; npm's marker file in
    another folder is no runner's rule, and pytest would load a conftest.py there."""
    project.write("tests/test_app.py", "def test_app():\n    assert True\n")
    script = (
        "mkdir -p evil node_modules/pkg && echo '{}' > evil/.package-lock.json && touch evil/conftest.py\n"
        "touch node_modules/pkg/conftest.py\n"
    )
    result, record = check(project, cli, script)
    assert result.exit_code == EXIT.BUILD_CHANGED_TESTS, result.stdout + result.stderr
    assert [(c["path"], c["change"]) for c in record["tests_changed"]] == [("evil/conftest.py", "created")]
