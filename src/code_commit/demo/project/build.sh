#!/bin/sh
# The demo project's build: its unit tests. code-commit judges every change by this exit code.
set -eu
cd "$(dirname "$0")"
python3 -m unittest -v test_stock
