"""The contracts code-commit's machine-readable output keeps: the `--json` record and the `--events`
stream. Both carry `schema_version`; the JSON Schema files beside this module describe them and ship
in the package (docs/record.md says how the version changes)."""

SCHEMA_VERSION = 1


def to_the_millisecond(key: str, value: object) -> object:
    """A duration (a key that starts with "duration") rounded to the millisecond, as the record and
    the stream both give it; any other value as it is (a cost of $0.0004 must not round to 0)."""
    return round(value, 3) if key.startswith("duration") and isinstance(value, float) else value
