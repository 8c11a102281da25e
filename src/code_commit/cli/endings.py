"""An ending's one line on stderr, as every command reports it."""

from __future__ import annotations

from typing import Any

from code_commit.errors import Ending, InternalError


def report_error(console: Any, error: Ending) -> None:
    """The error's one line on stderr; with -v, an internal error's traceback too when no run
    folder keeps it."""
    console.error(str(error))
    if isinstance(error, InternalError) and error.traceback_file is None and error.details:
        console.detail(error.details)
