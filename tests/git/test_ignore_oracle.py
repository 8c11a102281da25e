"""git is the guard's ignore oracle: one `git check-ignore` per answer, through git's cleaned
environment, failing closed when git cannot answer; the protected patterns are asked the same way,
apart from every other ignore rule.

A `git` shim first on PATH records every git command code-commit runs (and can make
`check-ignore` fail), then runs the real git."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from code_commit.git.ignore import ProtectedPatterns

from support import Project

SHIM = """#!/bin/sh
printf '%s\\n' "$*" >> "$GIT_SHIM_LOG"
case "$*" in
  *check-ignore*--no-index*) if [ -n "$GIT_SHIM_FAIL" ]; then echo "fatal: simulated failure" >&2; exit 128; fi;;
esac
exec {git} "$@"
"""


@pytest.fixture
def git_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file every git command line is appended to."""
    real = shutil.which("git")
    assert real
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "git").write_text(SHIM.format(git=real))
    (shim / "git").chmod(0o755)
    log = tmp_path / "git-calls.txt"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_SHIM_LOG", str(log))
    return log


def asked(log: Path) -> list[str]:
    """The guard's questions: `check-ignore --no-index` calls (the setup check asks without it)."""
    return [line for line in log.read_text().splitlines() if "check-ignore" in line and "--no-index" in line]


ANSWER = "".join(f"^^^src/d{n % 4}/new{n}.py\nx = {n}\n^^^end\n" for n in range(40))


def test_one_git_call_for_a_whole_answer(project: Project, cli, git_calls: Path) -> None:
    result = cli("apply", "-", input=ANSWER)
    assert result.exit_code == 0, result.output
    assert (project.root / "src/d3/new39.py").read_text() == "x = 39\n"
    calls = asked(git_calls)
    # One batch for 40 paths, not one process per path; and one of the test guard's own (which are tests).
    assert len(calls) == 2 and sum("--git-dir=" in call for call in calls) == 1, calls
    git_calls.write_text("")
    assert cli("--tests", "free", "apply", "-", input=ANSWER.replace("new", "other")).exit_code == 0
    assert len(asked(git_calls)) == 1, "with tests = free, the guard's one call alone"


def test_protected_patterns_add_one_call_of_their_own(project: Project, cli, git_calls: Path) -> None:
    project.write("agent-config/config.toml", 'protected_patterns = ["src/d1/**"]\n')
    result = cli("apply", "-", input=ANSWER)
    assert result.exit_code != 0 and "protected pattern 'src/d1/**'" in result.output
    calls = asked(git_calls)
    assert len(calls) == 2 and sum("--git-dir=" in call for call in calls) == 1, calls
    assert not (project.root / "src").exists(), "nothing of a refused answer is written"


def test_no_answer_is_written_when_git_cannot_say_what_it_ignores(
    project: Project, cli, git_calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_SHIM_FAIL", "1")
    result = cli("apply", "-", input="^^^new.py\nx\n^^^end\n^^^app.txt\nchanged\n^^^end\n")
    assert result.exit_code != 0
    reason = "git could not say whether it ignores the path (git check-ignore failed: fatal: simulated failure)"
    assert f"'new.py': {reason}" in result.output and f"'app.txt': {reason}" in result.output
    assert not (project.root / "new.py").exists() and project.read("app.txt") == "hello\n"


def test_protected_patterns_are_apart_from_every_ignore_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The user's core.excludesFile (here ignoring *.txt) must not make a path protected.
    excludes = tmp_path / "global-ignore"
    excludes.write_text("*.txt\n")
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\texcludesFile = {excludes}\n\tignoreCase = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    found = ProtectedPatterns(["# the keys", ".env*", "!.env.example", "Keys/"]).check(
        ["notes.txt", ".ENV.local", ".env.example", "src/.env", "keys/a.txt", "KEYS/b", "keys", ":keys/x"]
    )
    protected = {path: match.pattern for path, match in found.items() if match is not None}
    # ":keys/x" is a name (no pathspec magic), and "keys" a file, not the folder "keys/" names.
    assert protected == {".ENV.local": ".env*", "src/.env": ".env*", "keys/a.txt": "keys/", "KEYS/b": "keys/"}
    assert found[".ENV.local"] is not None and found[".ENV.local"].line == 2, "numbered as the user's lines"


@pytest.mark.parametrize(
    ("gitignore", "passes"), [("/agent-config\n", True), ("/agent-config\n!/agent-config\n", False)]
)
def test_outside_a_repository_git_still_decides_the_setup_check(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, gitignore: str, passes: bool
) -> None:
    # No repository: `git check-ignore` fails in the project, so it is asked again through a
    # throwaway git directory whose work tree is the project.
    project = Project(tmp_path / "plain")
    project.root.mkdir()
    project.write(".gitignore", gitignore)
    project.build_script("true\n")
    project.write("agent-config/query.txt", "x\n")
    monkeypatch.chdir(project.root)
    result = cli("apply", "-", input="^^^new.txt\nx\n^^^end\n")
    if passes:
        assert result.exit_code == 0, result.output
        assert project.read("new.txt") == "x\n"
    else:
        assert result.exit_code == 2 and "a later line re-includes the folder" in result.stderr, result.output
