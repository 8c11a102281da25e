"""Setup errors: each names what is wrong and how to fix it, exits 2, and sends nothing."""

from __future__ import annotations

import subprocess
import sys

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


@pytest.mark.parametrize("line", ["/agent-config", "  /agent-config  ", "/agent-config/", "\t/agent-config/\t"])
def test_accepted_gitignore_spellings(project: Project, cli, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write(".gitignore", f"*.pyc\n{line}\n")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = cli()
    assert result.exit_code == 2
    assert ".gitignore" not in result.stderr and "no API key configured" in result.stderr


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


@pytest.mark.parametrize("args", [["--help"], []])
def test_help_and_setup_errors_do_not_import_the_sdk(project: Project, args: list[str]) -> None:
    (project.root / "build.sh").unlink()
    probe = (
        "import sys\n"
        "from code_commit.cli import main\n"
        f"sys.argv = ['code-commit', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print('EXIT', code, 'anthropic' in sys.modules, 'httpx2' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=project.root, capture_output=True, text=True)
    expected = 0 if args else 2
    assert f"EXIT {expected} False False" in done.stderr
