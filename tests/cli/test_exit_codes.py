"""The one table of exit codes (code_commit/exits.py): the docs' tables, both --help texts, the
JSON record's outcome names and each failure class's code all come from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from code_commit import exits
from code_commit.errors import EXIT_CODES

from support import Project

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("page", "table"),
    [
        ("docs/unattended.md", exits.reference_table()),
        ("docs/answers.md", exits.command_table("apply")),
        ("docs/setup.md", exits.command_table("check")),
        ("README.md", exits.short_table((0, 1, 2, 3, 10, 11, 12, 13))),
    ],
)
def test_each_docs_exit_code_table_is_the_one_rendered_from_the_table(page: str, table: str) -> None:
    text = (ROOT / page).read_text()
    header = table.splitlines()[0]
    assert header in text, f"{page} has no table headed {header}"
    start = text.index(header)
    shown = (text + "\n")[start : (text + "\n").index("\n\n", start) + 1]  # a table may end its page
    assert shown == table, f"{page}'s exit codes differ from exits.py's; the table should read:\n{table}"


@pytest.mark.parametrize(
    ("args", "command"), [(["--help"], None), (["apply", "--help"], "apply"), (["check", "--help"], "check")]
)
def test_each_help_lists_the_codes_from_the_table_line_for_line(cli, args: list[str], command: str | None) -> None:
    result = cli(*args)
    assert result.exit_code == exits.EXIT.OK
    rows = exits.TABLE if command is None else exits.rows_for(command)
    assert len(rows) >= 9
    shown = [line.strip() for line in result.stdout.splitlines()]  # click indents the help
    for line in exits.help_text(command).splitlines():
        assert line.strip() in shown, line
    if command == "apply":
        assert "\n  3 " not in result.stdout and "\n  6 " not in result.stdout  # a run's codes, never apply's


def test_every_failure_class_has_a_code_of_the_table_and_each_code_of_a_command_has_a_source() -> None:
    assert set(EXIT_CODES.values()) <= {row.code for row in exits.TABLE}
    for command in ("run", "apply", "check"):
        codes = {row.code for row in exits.rows_for(command)}
        # The rest a command returns without an exception: it passed, or the build still fails.
        assert codes - set(EXIT_CODES.values()) == {exits.EXIT.OK, exits.EXIT.BUILD_FAILS}, command


def test_codes_constants_and_outcome_names_are_each_used_once() -> None:
    codes = [row.code for row in exits.TABLE]
    assert len(set(codes)) == len(codes)
    assert len({row.constant for row in exits.TABLE}) == len(codes)
    outcomes = [row.outcome for row in exits.TABLE]
    assert len(set(outcomes)) == len(outcomes)
    assert exits.outcome_name(exits.EXIT.TAMPERED) == "tampered" and exits.outcome_name(12345) == "error"
    assert exits.outcome_name(exits.EXIT.OK, dry_run=True) == "acceptable"


def test_a_failed_run_s_record_names_its_outcome_and_code_from_the_table(project: Project, cli) -> None:
    (project.root / "build.sh").unlink()  # a setup error: exit 2, before anything is sent
    result = cli("--json")
    record = json.loads(result.stdout)
    assert result.exit_code == record["exit_code"] == exits.EXIT.SETUP
    assert record["outcome"] == exits.BY_CODE[exits.EXIT.SETUP].outcome == "setup_error"


@pytest.mark.parametrize("command", [None, *exits.COMMANDS[1:]])
def test_every_exit_code_a_help_names_is_one_its_command_returns(cli, command: str | None) -> None:
    """Prose such as "(exit 4)" in an option's help or a command's description names a code of the
    table, one its command can end with."""
    shown = cli(*([] if command is None else [command]), "--help").stdout
    named = {int(code) for code in re.findall(r"\bexit\s+(\d+)\b", shown, flags=re.IGNORECASE)}
    returned = {row.code for row in exits.rows_for(command or "run")}
    assert named <= returned, named - returned
