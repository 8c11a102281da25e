"""events.schema.json says exactly what the writer writes: one definition per event type, its keys
the event's fields and the envelope's, nothing more (additionalProperties false, all required); the
end's outcomes and exit codes are the exit table's."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from code_commit.events import kinds
from code_commit.exits import TABLE
from code_commit.schemas import SCHEMA_VERSION

ENVELOPE = ["schema_version", "type", "seq", "time"]


def schema() -> dict[str, Any]:
    return json.loads(resources.files("code_commit.schemas").joinpath("events.schema.json").read_text())


def test_it_is_a_valid_draft_2020_12_schema_of_one_definition_per_event_type() -> None:
    loaded = schema()
    Draft202012Validator.check_schema(loaded)
    assert loaded["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    names = [event.type for event in kinds.EVENTS]
    assert loaded["properties"]["type"]["enum"] == names
    assert loaded["oneOf"] == [{"$ref": f"#/$defs/{name}"} for name in names]
    assert loaded["$defs"]["schema_version"]["const"] == SCHEMA_VERSION
    assert loaded["$id"] == f"urn:code-commit:schema:events:{SCHEMA_VERSION}", "named as the record's schema is"


def closed_objects(definition: dict[str, Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every object definition within `definition`, with where it is."""
    found = [(where, definition)] if definition.get("type") == "object" else []
    for key, sub in definition.get("properties", {}).items():
        found += closed_objects(sub.get("items", sub), f"{where}.{key}")
    return found


@pytest.mark.parametrize("event", kinds.EVENTS, ids=lambda event: event.type)
def test_each_definition_is_closed_and_names_the_event_s_fields(event: type) -> None:
    definition = schema()["$defs"][event.type]
    assert list(definition["properties"]) == ENVELOPE + [f.name for f in dataclasses.fields(event)]
    assert definition["properties"]["type"] == {"const": event.type}
    for where, obj in closed_objects(definition, event.type):
        assert obj["additionalProperties"] is False, where
        assert obj["required"] == list(obj["properties"]), where


def test_nested_objects_name_their_dataclass_fields() -> None:
    defs = schema()["$defs"]
    nested = {
        ("run_start", "settings"): kinds.Settings,
        ("call_end", "usage"): kinds.Usage,
        ("answer_refused", "problems"): kinds.Problem,
        ("build_end", "runner_counts"): kinds.RunnerCount,
    }
    for (event, key), cls in nested.items():
        prop = defs[event]["properties"][key]
        assert list(prop.get("items", prop)["properties"]) == [f.name for f in dataclasses.fields(cls)]


def test_the_end_s_outcomes_and_codes_are_the_exit_table_s() -> None:
    end = schema()["$defs"]["end"]["properties"]
    outcomes = {row.outcome for row in TABLE} | {row.dry_run_outcome for row in TABLE if row.dry_run_outcome}
    assert set(end["outcome"]["enum"]) == outcomes
    assert end["exit_code"]["enum"] == [row.code for row in TABLE]


def test_a_line_with_a_key_too_many_or_of_another_type_is_invalid() -> None:
    validator = Draft202012Validator(schema())
    good = {"schema_version": 1, "type": "needs_human", "seq": 1, "time": "2026-11-28T18:00:00.000Z", "reason": "r"}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "prompt": "leaked"})
    assert not validator.is_valid({**good, "type": "end"})
    assert not validator.is_valid({**good, "schema_version": 2})
