#!/bin/sh
# The project's unit tests (test_data.py runs tomli's own valid and invalid TOML files; the toml-test
# suite's copies under tests/data/*/_external are left out of the snapshot) in uv's environment, offline:
# the project has no dependency, and pyproject.toml's [tool.uv] package = false keeps uv from building it.
set -eu
PYTHONPATH=src uv run --offline python -m unittest
