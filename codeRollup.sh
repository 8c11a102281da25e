#!/bin/sh
# Writes agent-config/codeRollup.txt for the git repository in the current directory.
# Run it from the project root; flags pass through (see `code-commit rollup --help`).
# The work is done by `code-commit rollup`, in the interpreter code-commit is installed in.
# What goes in is set in agent-config/config.toml: rollup_budget, rollup_exclude, rollup_include
# (see `code-commit config`). This file is yours to edit, e.g. to add flags such as --budget.
set -eu

if ! command -v code-commit >/dev/null 2>&1; then
    echo "codeRollup.sh: code-commit is not on PATH. Install it into a Python environment" \
        "(python3 -m pip install -e /path/to/code-commit) and put that environment's bin" \
        "directory on PATH, e.g. by activating it." >&2
    exit 127
fi
exec code-commit rollup "$@"
