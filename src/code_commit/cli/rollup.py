"""`code-commit rollup`: its flags -> settings, then the rollup written (rollup/writing.py). Imported
only when it is the command (cli/app.py's COMMANDS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from code_commit.config.settings import Flags, FlagValue, load_settings
from code_commit.rollup import writing


def command(console: Any, root: Path, output: Path | None, max_file_size: int | None, budget: int | None) -> int:
    target = None if output is None else Path.cwd() / output  # as given: relative to where it was typed
    given = [("rollup_max_file_size", max_file_size, "--max-file-size"), ("rollup_budget", budget, "--budget")]
    flags = Flags(tuple(FlagValue(*item) for item in given if item[1] is not None))
    return writing.command(console, root, target, load_settings(root, flags=flags).settings)
