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
# pytest-xdist with two workers more than cores: a fifth of a worker's time is spent waiting (on
# git, builds, terminals), and on 2 cores 4 workers took 155-159 s where 2 took 168-174 s.
"$PY" -m pytest -q -n "${PYTEST_WORKERS:-$(( $(nproc 2>/dev/null || echo 1) + 2 ))}"
