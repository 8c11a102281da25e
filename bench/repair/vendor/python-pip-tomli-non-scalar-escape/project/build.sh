#!/bin/sh
# The project's unit tests with the standard library's runner, from src/ (offline: tomli has no
# dependency). test_data.py runs tomli's own valid and invalid TOML files; the toml-test suite's copies
# under tests/data/*/_external are left out of the snapshot.
set -eu
PYTHONPATH=src python3 -m unittest
