"""The docs document every setting, every flag of a run, every field of the JSON record and
every exit code, and the cron example is valid shell."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import typer

from code_commit import exits
from code_commit.cli.app import app
from code_commit.config.settings import Settings
from code_commit.run.record import RunRecord
from code_commit.testguard.runners import TABLE

DOCS = Path(__file__).resolve().parents[2] / "docs"


def table_rows(page: str, heading: str) -> str:
    """The text of the section of docs/`page` under `heading`, up to the next heading of any level."""
    section = (DOCS / page).read_text().split(heading, 1)[1]
    return re.split(r"\n#+ ", section, maxsplit=1)[0]


def code_block(page: str, heading: str, language: str) -> str:
    """The first fenced block in `language` after `heading` in docs/`page`."""
    after = (DOCS / page).read_text().split(heading, 1)[1]
    return after.split(f"```{language}\n", 1)[1].split("```", 1)[0]


def test_every_setting_is_in_the_settings_table() -> None:
    rows = table_rows("configuration.md", "## Settings")
    for f in dataclasses.fields(Settings):
        assert f"| `{f.name}` |" in rows, f.name


def test_every_flag_of_a_run_is_documented() -> None:
    command = typer.main.get_command(app)
    rows = table_rows("configuration.md", "## Commands and flags")
    for param in command.params:
        for opt in param.opts:
            assert f"`{opt}" in rows, opt
    for name in command.commands:  # type: ignore[attr-defined]
        assert f"`code-commit {name}" in rows or f"code-commit [SETTING FLAGS] {name}" in rows, name


def test_every_runner_configuration_the_tests_guard_reads_is_documented_with_its_source() -> None:
    rows = [
        row for row in table_rows("configuration.md", "### What the runners read").splitlines() if row.startswith("|")
    ]
    for entry in TABLE:
        (row,) = [row for row in rows if all(f"`{name}`" in row for name in entry.names)]
        assert entry.runner in row and entry.source in row, entry


RECORD_COMMANDS = ("run", "apply", "check")


def record_keys(command: str) -> set[str]:
    return set(RunRecord(command).document())


def test_every_key_and_outcome_of_the_json_record_is_documented() -> None:
    rows = table_rows("record.md", "## Keys")
    documented = {key for row in rows.splitlines()[2:] if row for key in re.findall(r"`(\w+)`", row.split("|")[1])}
    assert documented == set().union(*map(record_keys, RECORD_COMMANDS)), "each key once, and no key it lacks"
    for name in exits.outcome_names():
        assert f"`{name}`" in rows, name


def test_the_record_s_envelope_and_each_command_s_keys_are_as_documented() -> None:
    section = table_rows("record.md", "## The envelope")
    said, table = section.split("| `command` |", 1)
    envelope = set.intersection(*map(record_keys, RECORD_COMMANDS))
    assert set(re.findall(r"`(\w+)`", said.split(". The rest", 1)[0])) == envelope
    for command in RECORD_COMMANDS:
        (row,) = [line for line in table.splitlines() if line.startswith(f"| `{command}` |")]
        assert set(re.findall(r"`(\w+)`", row.split("|")[2])) == record_keys(command) - envelope, command


def test_the_cron_example_is_valid_shell_using_every_exit_code() -> None:
    script = code_block("unattended.md", "## A cron job", "sh")
    subprocess.run(["sh", "-n"], input=script, text=True, check=True)
    for code in {row.code for row in exits.rows_for("run")} - {0, 6}:  # 6 comes from review mode, not run by cron
        assert re.search(rf"^\s+{code}\)", script, re.MULTILINE), code
    assert "export CODE_COMMIT_SANDBOX=require" in script  # a cron job never runs the model's code unsandboxed
