"""The record's schema, as the package ships it: each --json record and summary.json a test reads is
checked against it."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a record is checked: most test processes never need it
    import jsonschema

# The commands whose --json prints the record (exits.COMMANDS names them; "run" is code-commit alone).
RECORD_COMMANDS = ("run", "apply", "check")


def record_schema() -> dict[str, Any]:
    """The record's JSON Schema, as the installed package ships it."""
    text = resources.files("code_commit.schemas").joinpath("record.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _record_validator() -> jsonschema.Draft202012Validator:
    import jsonschema

    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid_record(text: str) -> dict[str, Any]:
    """The record `text` holds (a --json stdout, a summary.json), failing the test with every way it
    breaks the schema the package ships."""
    record: dict[str, Any] = json.loads(text)
    errors = sorted(_record_validator().iter_errors(record), key=lambda error: list(map(str, error.absolute_path)))
    assert not errors, "the record breaks its schema:\n" + "\n".join(map(_said, errors))
    return record


def _said(error: jsonschema.ValidationError) -> str:
    """One error in a line: where, and why (an anyOf's by the branch that went deepest before it
    failed, rather than by the whole record it would quote)."""
    where = "/".join(map(str, error.absolute_path)) or "(top)"
    if not error.context:
        return f"- {where}: {error.message}"
    nearest = error
    while nearest.context:  # a null-or-object's failure is the object's, not "is not of type 'null'"
        nearest = max(nearest.context, key=lambda e: (e.validator != "type", len(e.absolute_path), len(e.schema_path)))
    at = "/".join(map(str, nearest.absolute_path))
    rule = "/".join(map(str, error.schema_path))
    return f"- {where}: is not valid under any of {rule} (nearest: {nearest.message}{' at ' + at if at else ''})"


def record_command(args: tuple[str, ...]) -> str | None:
    """The command a code-commit command line runs, when it prints the record (with --json): its first
    word that names a command, else a run; None when it prints no record."""
    from code_commit.exits import COMMANDS

    command = next((arg for arg in args if arg in COMMANDS), "run")
    return command if "--json" in args and command in RECORD_COMMANDS else None
