#!/bin/sh
# code-commit's own build: lint, then the whole test suite. code-commit can repair itself with it.
set -eu
cd "$(dirname "$0")"
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
"$PY" -m ruff check src tests
"$PY" -m ruff format --check src tests
"$PY" -m mypy  # --strict on src/code_commit, as [tool.mypy] in pyproject.toml says
# The suite starts Python hundreds of times (the CLI, the builds' pytest): each would compile the SDK
# again where the environment turns the bytecode cache off (as some CI images do).
unset PYTHONDONTWRITEBYTECODE
# pytest-xdist with one worker more than cores: it fills the cores while a worker waits (on git,
# builds, terminals), and each worker more costs its start (the SDK's import, collection) and
# contention. On 2 cores, interleaved on 2026-11-26: 3 workers 114 s, 4 workers 115-122 s, 2: 123-131 s;
# on 2026-11-28 (2,786 tests) in .ci/run: 3 workers 108.7 and 114.1 s, 4 workers 120.1 and 113.3 s.
"$PY" -m pytest -q -n "${PYTEST_WORKERS:-$(( $(nproc 2>/dev/null || echo 1) + 1 ))}"
