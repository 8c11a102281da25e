"""One record for a run, `code-commit apply` and `code-commit check`: a fact has one key, the record's
field's name, in every command that shows it, and a field added to the record is a key of the JSON of
the commands it names, with no second place to change (but the schema: tests/schemas)."""

from __future__ import annotations

import dataclasses
import json

from code_commit.errors import SetupError
from code_commit.run.record import APPLY, RunRecord, fact

COMMANDS = ("run", "apply", "check")
# The keys the record derives from its fields (RunRecord.document); every other key is a field's name.
DERIVED = {
    "schema_version", "outcome", "exit_code", "ok", "error", "attempts", "usage", "cost_usd", "tampered", "needs_human",
}  # fmt: skip


def test_every_key_is_a_field_s_name_or_derived_the_same_in_every_command() -> None:
    fields = {item.name for item in dataclasses.fields(RunRecord)}
    for command in COMMANDS:
        assert set(RunRecord(command).document()) <= fields | DERIVED, command


def test_a_fact_two_commands_show_has_the_same_key_in_both() -> None:
    """The keys scripts read whatever the command: the ones that once had a name of their own in apply
    (`checked_only`, `build`) or in check (`duration`) among them."""
    run, apply, check = (RunRecord(command, dry_run=command != "check").document() for command in COMMANDS)
    for key in ("schema_version", "outcome", "exit_code", "ok", "error", "duration_s", "log_dir", "last_build"):
        assert key in run and key in apply and key in check, key
    assert run["dry_run"] is apply["dry_run"] is True
    assert {"files_changed", "files_deleted"} <= set(apply)
    for gone in ("checked_only", "build", "duration"):
        assert gone not in run and gone not in apply and gone not in check, gone


def test_an_ending_before_the_session_is_the_record_s_and_a_recorded_one_stands() -> None:
    record = RunRecord("run")
    data = json.loads(record.ended_by(SetupError("no build.sh"), 0.25).to_json())
    assert (data["outcome"], data["exit_code"], data["error"], data["duration_s"]) == (
        "setup_error",
        2,
        "no build.sh",
        0.25,
    )
    assert record.ended_by(SetupError("later"), 9.0).error is not None and record.duration_s == 0.25


def test_a_field_added_to_the_record_is_a_key_of_its_json() -> None:
    @dataclasses.dataclass
    class Extended(RunRecord):
        checked_files: int = fact(3, shown=APPLY)
        everyone: str = "x"

    assert Extended("apply").document()["checked_files"] == 3
    assert "checked_files" not in Extended("run").document()
    assert Extended("run").document()["everyone"] == "x"
