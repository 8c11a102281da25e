"""The contracts code-commit's machine-readable output keeps: the `--json` record and the `--events`
stream. Both carry `schema_version`; the JSON Schema files beside this module describe them and ship
in the package (docs/record.md says how the version changes)."""

SCHEMA_VERSION = 1
