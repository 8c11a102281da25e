"""Reading an --events file as a dashboard would, strictly: every line whole, valid JSON, and valid
against the shipped schema; the numbering and the clock checked too."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from code_commit.schemas import SCHEMA_VERSION


@cache
def validator() -> Draft202012Validator:
    schema = json.loads(resources.files("code_commit.schemas").joinpath("events.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def parsed(data: bytes | str) -> list[dict[str, Any]]:
    """The lines of a stream, each checked: ends in a newline, is one JSON object, valid against the
    schema; `seq` counts from 1 and `time` never goes back."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    assert text == "" or text.endswith("\n"), f"a half line at the end: {text[-200:]!r}"
    events = [json.loads(line) for line in text.splitlines()]
    for number, event in enumerate(events, 1):
        errors = sorted(validator().iter_errors(event), key=str)
        assert not errors, f"line {number} is not valid: {errors[0].message}\n{event}"
        assert event["schema_version"] == SCHEMA_VERSION and event["seq"] == number
    times = [datetime.fromisoformat(event["time"]) for event in events]
    assert times == sorted(times)
    return events


def read(path: Path) -> list[dict[str, Any]]:
    return parsed(path.read_bytes())


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]
