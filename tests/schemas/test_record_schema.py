"""The record's JSON Schema (src/code_commit/schemas/record.schema.json) is the contract: it is a valid
draft 2020-12 schema, and it agrees with what the code declares, both ways: each command's keys with
the record's fields, each nested object's with its dataclass, the outcomes and exit codes with
exits.py, the closed sets with their one declaration. Every record a test prints through the `cli`
fixture is validated against it (tests/conftest.py); here, that the validation catches what it must."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from code_commit import exits
from code_commit.answer.match.finding import Lines
from code_commit.answer.match.mismatch import NumberedLine
from code_commit.answer.plan import Problem
from code_commit.builds.diagnosis.facts import Diagnosis
from code_commit.builds.output import BuildOutput
from code_commit.builds.ran_tests import RanTests, RunnerCount
from code_commit.builds.runner import BuildResult
from code_commit.errors import SetupError
from code_commit.llm.base import Usage
from code_commit.run import record
from code_commit.run.record import DELETE, WRITE, CallRecord, FileChange, RunRecord, SavedWork, plain
from code_commit.sandbox.bubblewrap import BUBBLEWRAP, NONE
from code_commit.sandbox.limits import REACHED
from code_commit.schemas import SCHEMA_VERSION
from code_commit.testguard.counts import CountCheck
from code_commit.testguard.rule import CHANGED, CREATED, DELETED

from support.record import RECORD_COMMANDS, record_schema, valid_record

SCHEMA = record_schema()
ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "src" / "code_commit" / "schemas" / "record.schema.json"
DEFS = SCHEMA["$defs"]


def branch(command: str) -> dict[str, Any]:
    """The `then` the schema applies to `command`'s record."""
    (then,) = [
        rule["then"] for rule in SCHEMA["allOf"] if rule["if"] == {"properties": {"command": {"const": command}}}
    ]
    return then


def keys(command: str) -> set[str]:
    """The keys `command`'s record shows: a record's keys never depend on its values."""
    return set(RunRecord(command).document())


def test_the_schema_is_a_valid_draft_2020_12_schema_of_this_version() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert SCHEMA["$id"] == f"urn:code-commit:schema:record:{SCHEMA_VERSION}"
    assert json.loads(FILE.read_text()) == SCHEMA, "the package's resource is the repository's file"


def test_each_command_shows_exactly_the_keys_the_schema_requires_and_allows() -> None:
    assert SCHEMA["properties"]["command"] == {"enum": list(RECORD_COMMANDS)}
    assert SCHEMA["additionalProperties"] is False
    for command in RECORD_COMMANDS:
        then = branch(command)
        assert set(then["required"]) == keys(command) == set(then["propertyNames"]["enum"]), command
    assert set(SCHEMA["properties"]) == set().union(*map(keys, RECORD_COMMANDS)), "no property no command shows"
    envelope = set.intersection(*map(keys, RECORD_COMMANDS))
    assert set(SCHEMA["required"]) == envelope, "the envelope: the keys of every command"
    assert {"schema_version", "command", "outcome", "exit_code", "duration_s", "log_dir", "last_build"} <= envelope


def endings(command: str) -> set[tuple[str, int, bool]]:
    """Each (outcome, exit code, dry run) `command`'s record may show, from exits.py's table: with
    --dry-run a run names the outcomes its own way; a run whose every answer was refused is `refused`."""
    found = set()
    for dry_run in (False, True) if command in ("run", "apply") else (False,):
        for row in exits.rows_for(command):
            found.add((exits.outcome_name(row.code, dry_run and command == "run"), row.code, dry_run))
        if command == "run":
            found.add((exits.REFUSED_OUTCOME, exits.EXIT.BUILD_FAILS, dry_run))
    return found


def test_the_outcomes_and_exit_codes_are_exits_py_s_for_each_command() -> None:
    for command in RECORD_COMMANDS:
        allowed = set()
        for pair in branch(command)["anyOf"]:
            given = pair["properties"]
            dry_runs = [given["dry_run"]["const"]] if "dry_run" in given else [False, True]
            for dry_run in dry_runs if command in ("run", "apply") else [False]:
                allowed.add((given["outcome"]["const"], given["exit_code"]["const"], dry_run))
        assert allowed == endings(command), command
    named = {pair["properties"]["outcome"]["const"] for c in RECORD_COMMANDS for pair in branch(c)["anyOf"]}
    assert named == set(exits.outcome_names()) | {exits.REFUSED_OUTCOME}


NESTED: dict[str, type] = {
    "usage": Usage,
    "call": CallRecord,
    "diagnosis": Diagnosis,
    "ran_tests": RanTests,
    "runner_count": RunnerCount,
    "test_counts": CountCheck,
    "saved_work": SavedWork,
    "tests_change": record.TestsChange,  # imported by its module: pytest would collect a Test* name
    "file_change": FileChange,
    "lines": Lines,
    "numbered_line": NumberedLine,
    "problem": Problem,
}


def test_each_nested_object_has_its_dataclass_s_fields_all_required() -> None:
    build = plain(BuildResult(0, False, 1.0, BuildOutput(Path("log"))))
    shapes = {name: [item.name for item in dataclasses.fields(cls)] for name, cls in NESTED.items()}
    shapes["build"] = list(build)
    assert set(DEFS) == set(shapes)
    for name, fields in shapes.items():
        shape = DEFS[name]
        assert list(shape["properties"]) == fields and shape["required"] == fields, name
        assert shape["additionalProperties"] is False, name


def test_the_closed_sets_are_their_declarations() -> None:
    assert DEFS["build"]["properties"]["sandbox"] == {"enum": [BUBBLEWRAP, NONE]}
    assert DEFS["build"]["properties"]["cap_reached"] == {"enum": [None, *REACHED]}
    assert DEFS["file_change"]["properties"]["action"] == {"enum": [WRITE, DELETE]}
    assert DEFS["tests_change"]["properties"]["change"] == {"enum": [CREATED, CHANGED, DELETED]}


@pytest.mark.parametrize("command", RECORD_COMMANDS)
def test_each_command_s_record_validates_from_its_first_moment(command: str) -> None:
    """What a setup error prints before anything else is known (the record of a command that ended
    before it began) keeps the schema: nothing in it may be missing."""
    valid_record(RunRecord(command).ended_by(SetupError("no build.sh"), 0.0).to_json())


def broken(change: dict[str, Any], command: str) -> str:
    """A setup error's record of `command` with `change` made to it (a value of ... takes the key out)."""
    document = {**RunRecord(command).ended_by(SetupError("no build.sh"), 0.5).document(), **change}
    return json.dumps({key: value for key, value in document.items() if value is not ...})


@pytest.mark.parametrize(
    ("change", "command", "said"),
    [
        ({"new_key": 1}, "run", "new_key"),  # a key added to the record without the schema
        ({"calls": []}, "check", "calls"),  # a run's key in check's record
        ({"attempts": ...}, "run", "attempts"),  # a key left out
        ({"checked_only": False}, "apply", "checked_only"),  # a key renamed back
        ({"duration_s": "1.5"}, "run", "not of type 'number'"),
        ({"schema_version": SCHEMA_VERSION + 1}, "run", "was expected"),
        ({"outcome": "passed"}, "run", "is not valid under any of allOf/0/then/anyOf"),  # exit 2
        ({"outcome": "acceptable", "exit_code": 0, "error": None}, "run", "any of allOf/0/then/anyOf"),  # no --dry-run
        ({"error": None}, "run", "is not of type 'string'"),  # no pass, so it says why
        ({"last_build": {"passed": True}}, "apply", "is a required property"),
        ({"files_changed": ["a", "a"]}, "run", "non-unique"),
        ({"tampered": ["build.sh (changed)"]}, "run", "expected to be empty"),
    ],
)
def test_the_validation_fails_a_record_that_breaks_the_contract(
    change: dict[str, Any], command: str, said: str
) -> None:
    with pytest.raises(AssertionError, match="the record breaks its schema") as failed:
        valid_record(broken(change, command))
    assert said in str(failed.value)


def test_the_cli_fixture_validates_every_record_a_test_prints(project, cli, monkeypatch) -> None:
    """The hook the whole suite relies on: a record off the schema fails the test that printed it."""
    real = RunRecord.document
    monkeypatch.setattr(RunRecord, "document", lambda self: {**real(self), "unschemed": True})
    with pytest.raises(AssertionError, match="unschemed"):
        cli("--json")
    with pytest.raises(AssertionError, match="unschemed"):
        cli("--sandbox", "off", "check", "--json")
    assert cli("config", "--json").exit_code == 0, "config's --json prints settings, not a record"


def test_the_docs_way_to_find_the_schema_and_validate_a_record_works(tmp_path: Path) -> None:
    """docs/record.md's two lines: the schema's path from the installed package, then check-jsonschema."""
    block = (ROOT / "docs" / "record.md").read_text().split("## Versions", 1)[1].split("```sh\n", 1)[1]
    finder = re.search(r"python3 -c '([^']+)'", block)
    assert finder is not None and "check-jsonschema --schemafile" in block
    found = subprocess.run([sys.executable, "-c", finder[1]], capture_output=True, text=True, check=True)
    schema = Path(found.stdout.strip())
    assert schema.read_bytes() == FILE.read_bytes()
    good, bad = tmp_path / "record.json", tmp_path / "renamed.json"
    good.write_text(RunRecord("check").ended_by(SetupError("no build.sh"), 0.1).to_json())
    bad.write_text(broken({"duration": 0.1, "duration_s": ...}, "check"))
    check = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema)]
    assert subprocess.run([*check, str(good)], capture_output=True).returncode == 0
    refused = subprocess.run([*check, str(bad)], capture_output=True, text=True)
    assert refused.returncode == 1 and "duration" in refused.stdout
