"""Setup errors: each names what is wrong and how to fix it, exits 2, and sends nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from support import TEST_KEY, Project


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    # Any request would fail loudly: nothing listens on port 9 of loopback.
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (lambda p: (p.root / "agent-config/query.txt").unlink(), "agent-config/query.txt is missing"),
        (lambda p: p.write("agent-config/query.txt", "  \n\n"), "agent-config/query.txt is empty"),
        (lambda p: (p.root / "agent-config/codeRollup.txt").unlink(), "agent-config/codeRollup.txt is missing"),
        (lambda p: p.write("agent-config/codeRollup.txt", ""), "agent-config/codeRollup.txt is empty"),
        (lambda p: (p.root / ".gitignore").unlink(), ".gitignore is missing"),
        (lambda p: p.write(".gitignore", "agent-config\n/agent-config/x\n"), "no /agent-config line"),
        (lambda p: (p.root / "build.sh").unlink(), "build.sh is missing"),
    ],
)
def test_each_setup_error_exits_2_with_its_fix(project: Project, cli, damage, fragment: str) -> None:
    damage(project)
    result = cli()
    assert result.exit_code == 2
    assert fragment in result.stderr
    assert project.run_dirs() == [], "nothing was logged or sent"


@pytest.mark.parametrize("command", [[], ["--dry-run"], ["apply", "-"], ["apply", "--check", "-"]])
def test_an_index_git_cannot_read_stops_before_any_call(project: Project, cli, command: list[str]) -> None:
    """The guard would refuse every path (it fails closed without the index), so all four paid calls
    would be wasted: "dubious ownership" in a container, or a damaged index, is a setup error."""
    (project.root / ".git" / "index").write_bytes(b"not an index")
    result = cli(*command, input="^^^new.txt\nx\n^^^end\n")
    assert result.exit_code == 2, result.output
    assert "git cannot read this repository's index (git ls-files failed" in result.stderr
    assert "git config --global --add safe.directory" in result.stderr
    assert project.run_dirs() == [], "nothing was logged or sent"


@pytest.mark.parametrize("line", ["/agent-config", "/agent-config  ", "/agent-config/", "/agent-config/ \r"])
def test_accepted_gitignore_spellings(project: Project, cli, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write(".gitignore", f"*.pyc\n{line}\n")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = cli()
    assert result.exit_code == 2
    assert ".gitignore" not in result.stderr and "no API key configured" in result.stderr


# .gitignore contents, and whether git ignores agent-config/ with them (checked against git itself below).
GITIGNORES = [
    ("/agent-config\n", True),
    ("\ufeff/agent-config\r\n", True),  # a BOM and CRLF, as git reads them
    ("/agent-config   \n", True),  # trailing spaces are trimmed
    ("/agent-config\t\n", False),  # but not a trailing tab
    ("  /agent-config\n", False),  # nor leading whitespace
    ("/agent-config\n!/agent-config\n", False),
    ("/agent-config/\n!agent-config\n", False),
    ("/agent-config\n!/agent-config/\n", False),
    ("!/agent-config\n/agent-config\n", True),  # the last match wins
    ("/agent-config\n!*.keep\n", True),  # a negation about something else
    ("/agent-config\n!/agent-config/anthropic-api-key\n", True),  # nothing in an ignored folder comes back
]


@pytest.mark.parametrize(("gitignore", "ignored"), GITIGNORES)
def test_the_gitignore_check_agrees_with_git(project: Project, cli, gitignore: str, ignored: bool) -> None:
    project.write(".gitignore", gitignore)
    git_says = subprocess.run(
        ["git", "check-ignore", "-q", "agent-config/anthropic-api-key"], cwd=project.root, check=False
    ).returncode
    assert (git_says == 0) == ignored, "the case is what git makes of it"
    result = cli("--base-url", "http://127.0.0.1:9", "--dry-run")  # nothing listens: any call fails with exit 3
    if ignored:
        assert result.exit_code == 3 and ".gitignore" not in result.stderr
    else:
        assert result.exit_code == 2 and project.run_dirs() == []
        assert ".gitignore" in result.stderr and "agent-config" in result.stderr


def test_a_negated_agent_config_line_is_named(project: Project, cli) -> None:
    project.write(".gitignore", "/agent-config\n*.pyc\n!/agent-config\n")
    result = cli()
    assert result.exit_code == 2
    assert "a later line re-includes the folder (line 3: !/agent-config)" in result.stderr
    assert "remove that line, or put /agent-config after it" in result.stderr


def test_leading_whitespace_is_named(project: Project, cli) -> None:
    project.write(".gitignore", "  /agent-config\n")
    result = cli()
    assert result.exit_code == 2
    assert ".gitignore line 1 ('  /agent-config') does not match agent-config" in result.stderr


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (lambda p: ((p.root / "build.sh").unlink(), (p.root / "build.sh").mkdir()), "build.sh is a directory"),
        (lambda p: ((p.root / "build.sh").unlink(), (p.root / "build.sh").symlink_to("gone.sh")), "a symlink to a"),
        (lambda p: ((p.root / "build.sh").unlink(), os.mkfifo(p.root / "build.sh")), "build.sh is a special file"),
        (lambda p: p.write("agent-config/logs", "x"), "agent-config/logs is a file, not a directory"),
        (lambda p: (shutil.rmtree(p.root / "agent-config"), p.write("agent-config", "x")), "agent-config is a file"),
    ],
)
def test_what_is_in_the_way_is_named(project: Project, cli, damage, fragment: str) -> None:
    damage(project)
    result = cli("--json")
    assert result.exit_code == 2
    assert fragment in result.stderr and fragment in json.loads(result.stdout)["error"]


def test_missing_key(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = cli()
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "agent-config/anthropic-api-key" in result.stderr


def test_every_problem_is_listed_at_once(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    (project.root / "build.sh").unlink()
    (project.root / ".gitignore").unlink()
    result = cli()
    assert result.exit_code == 2
    for fragment in ("build.sh is missing", ".gitignore is missing", "no API key configured"):
        assert fragment in result.stderr


def test_help_lists_the_exit_codes(cli) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "5 ", "6 ", "130"):
        assert f"  {code}" in result.stdout
