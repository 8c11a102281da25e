"""One record for a run and for `code-commit apply`: each command's JSON keeps every key it had
before the record was one (scripts read them), and a field added to the record is a key of the
JSON of the commands it names, with no second place to change."""

from __future__ import annotations

import dataclasses
import json

from code_commit.errors import SetupError
from code_commit.run.record import APPLY, RunRecord, fact

# The keys each command's JSON had when a run and apply each had a record of their own.
RUN_KEYS = {
    "outcome", "exit_code", "error", "dry_run", "attempts", "files_changed", "files_deleted", "calls", "usage",
    "cost_usd", "duration_s", "log_dir", "last_build", "reverted", "patch", "diff", "provider", "model",
    "endpoint_host", "sandbox", "tampered",
}  # fmt: skip
APPLY_KEYS = {
    "outcome", "exit_code", "ok", "checked_only", "applied", "source", "format", "changes", "missing_deletes",
    "warnings", "problems", "build", "log_dir", "error",
}  # fmt: skip


def test_each_command_keeps_every_key_of_its_json() -> None:
    assert set(RunRecord("run").document()) >= RUN_KEYS
    assert set(RunRecord("apply").document()) >= APPLY_KEYS
    assert "calls" not in RunRecord("apply").document() and "source" not in RunRecord("run").document()


def test_apply_names_the_record_s_facts_as_its_report_did() -> None:
    document = RunRecord("apply", dry_run=True).document()
    assert document["checked_only"] is True and "dry_run" not in document
    assert document["build"] is None and "last_build" not in document


def test_an_ending_before_the_session_is_the_record_s_and_a_recorded_one_stands() -> None:
    record = RunRecord("run")
    data = json.loads(record.ended_by(SetupError("no build.sh"), 0.25).to_json())
    assert (data["outcome"], data["exit_code"], data["error"], data["duration_s"]) == (
        "setup_error",
        2,
        "no build.sh",
        0.25,
    )
    assert record.ended_by(SetupError("later"), 9.0).error is not None and record.duration == 0.25


def test_a_field_added_to_the_record_is_a_key_of_its_json() -> None:
    @dataclasses.dataclass
    class Extended(RunRecord):
        checked_files: int = fact(3, shown=APPLY)
        everyone: str = "x"

    assert Extended("apply").document()["checked_files"] == 3
    assert "checked_files" not in Extended("run").document()
    assert Extended("run").document()["everyone"] == "x"
